// Operand checks of the single-problem backend primitives, shared by the CPU and CUDA backends so
// both reject the same inputs with the same messages (batch_shapes.hpp has the batched ones).
#pragma once

#include <string>

#include "zeronorm/core/backend.hpp"

namespace zeronorm::detail {

// "rows x cols", for messages.
std::string shape(const DeviceMatrix& m);

// Every index within [0, bound) (select_columns, select_rows: `what` is "column" or "row").
void check_indices(const IndexVector& indices, Index bound, const char* where, const char* what);

// kernel_matrix's operands: A and B with the same features, the scale (when given) one entry per
// feature, and the kernel's parameters (KernelSpec::validate).
void check_kernel_matrix(const KernelSpec& spec, const DeviceMatrix& A, const DeviceMatrix& B,
                         const DeviceMatrix* feature_scale);

// gemm's operands: op(A) m x k, op(B) k x n, C m x n; C not sharing A's or B's storage. Returns k.
Index check_gemm(bool trans_a, bool trans_b, const DeviceMatrix& A, const DeviceMatrix& B,
                 const DeviceMatrix& C);

// syrk's operands: C n x n for op(A) with n columns, C not sharing A's storage. Returns k.
Index check_syrk(bool trans, const DeviceMatrix& A, const DeviceMatrix& C);

// scale_rows_columns' scales: empty or one entry per row (column).
void check_scale_rows_columns(const DeviceMatrix& X, const Vector& row_scale,
                              const Vector& col_scale);

// A square (cholesky_factor).
void check_square(const DeviceMatrix& A, const char* where);

// triangular_solve's operands: L square, B with L's size on the solved side, B not L.
void check_triangular_solve(const DeviceMatrix& L, bool on_the_right, const DeviceMatrix& B);

// SmoOps::solve's operands: K n x n, n labels, and the terms (p of n finite entries or empty,
// delta finite).
void check_smo(const DeviceMatrix& K, const Vector& y, const Vector& p, double delta);

}  // namespace zeronorm::detail
