// Operand checks of the batched backend primitives (Backend::scaled_gram_batch, gram_batch,
// gemm_batch, solve_smo_batch), shared by the CPU and CUDA backends so both reject the same
// inputs with the same messages.
#pragma once

#include <utility>
#include <vector>

#include "zeronorm/core/ops/alignment_ops.hpp"
#include "zeronorm/core/ops/smo_ops.hpp"

namespace zeronorm::detail {

// A (m x d P), B (l x d P), Z (d x P): returns d. Throws DimensionMismatch naming the shapes.
Index check_scaled_gram_batch(const DeviceMatrix& A, const DeviceMatrix& B, const DeviceMatrix& Z);

// Block shapes of one gemm_batch call: op(A_p) is m x k, op(B_p) k x n, C_p m x n.
struct GemmBatchShape {
    Index m = 0, n = 0, k = 0;
    Index a_block = 0, b_block = 0;  // columns per block of A and B
};
GemmBatchShape check_gemm_batch(Index batch, bool trans_a, bool trans_b, const DeviceMatrix& A,
                                const DeviceMatrix& B, const DeviceMatrix& C);

// Equal, non-empty row lists within 0..rows-1 for every split (as many test lists as training
// lists); returns (n, m).
std::pair<Index, Index> check_split_batch(Index rows, const std::vector<IndexVector>& train_rows,
                                          const std::vector<IndexVector>& test_rows);

// A (m x d batch) and B (l x d batch): returns d. `where` names the call in messages.
Index check_kernel_batch(Index batch, const DeviceMatrix& A, const DeviceMatrix& B,
                         const char* where = "kernel_batch");

// gather_blocks' operands: returns (r, c), the rows and columns of every output block.
std::pair<Index, Index> check_gather_blocks(const DeviceMatrix& K, Index block_width,
                                            const IndexVector& source,
                                            const std::vector<IndexVector>& rows,
                                            const std::vector<IndexVector>& cols);

// solve_smo_working_set's operands: K q x q, y (+-1), beta (within [0, C]) and gradient
// (finite) of q entries each.
void check_smo_working_set(const DeviceMatrix& K, const Vector& y, const Vector& beta,
                           const Vector& gradient, const SmoOptions& options);

// assign_columns' operands.
void check_assign_columns(const DeviceMatrix& X, const IndexVector& cols,
                          const DeviceMatrix& source);

// multiplicative_update_batch's operands: Z, W, normalized and next of one shape, the outputs
// distinct from the inputs, update with one flag per column, prune_tolerance in [0, 1).
void check_multiplicative_update_batch(const DeviceMatrix& Z, const DeviceMatrix& W,
                                       const std::vector<char>& update, double prune_tolerance,
                                       const DeviceMatrix& normalized, const DeviceMatrix& next);

// top_rows' operands: one count per requested column, the columns within S, the counts within
// 0..S.rows().
void check_top_rows(const DeviceMatrix& S, const IndexVector& columns, const IndexVector& counts);

// eliminate_batch's operands: X with W.rows() columns per column of W, 0 <= remove <= r and
// 0 <= report_from <= r - remove (r = W.rows()).
void check_eliminate_batch(const DeviceMatrix& X, const DeviceMatrix& W, Index remove,
                           Index report_from);

// newton_finish_batch's operands: K (n x n P), Y (+-1 in the open problems) and beta (n x P,
// finite, within [0, C]), open with P flags, the terms as check_smo_terms; C finite and > 0,
// ridge >= 0.
void check_newton_finish_batch(const DeviceMatrix& K, const Matrix& Y, const Matrix& beta,
                               const SmoOptions& options, const std::vector<char>& open,
                               const SmoBatchTerms& terms);

// K (n x n P) against Y (n x P), warm_start (n x P), active (P or empty) and the terms as
// check_smo_terms; the options validated (also when no problem is active).
void check_smo_batch(const DeviceMatrix& K, const Matrix& Y, const Matrix* warm_start,
                     const std::vector<char>& active, const SmoBatchTerms& terms,
                     const SmoOptions& options);

// A batch's terms: p empty or n x P and finite, delta empty or P finite entries.
void check_smo_terms(const char* where, Index n, Index P, const SmoBatchTerms& terms);

// weighted_kernel_sum_batch's operands: X n x d, Y n x n, Theta d x P, gradient d x P (distinct
// from the inputs), the kernel's scale finite and > 0.
void check_weighted_kernel_sum_batch(const AlignmentKernelSpec& spec, const DeviceMatrix& X,
                                     const DeviceMatrix& Y, const DeviceMatrix& Theta,
                                     const DeviceMatrix& gradient);
// cross_kernel_sum_batch's operands: A m x d, B q x d, Y m x q, Theta d x P, gradient d x P
// (distinct from the inputs), the kernel's scale finite and > 0.
void check_cross_kernel_sum_batch(const AlignmentKernelSpec& spec, const DeviceMatrix& A,
                                  const DeviceMatrix& B, const DeviceMatrix& Y,
                                  const DeviceMatrix& Theta, const DeviceMatrix& gradient);

// gaussian_removal_sums' operands: X n x d, v n x 1, the scale finite and > 0.
void check_gaussian_removal_sums(double scale, const DeviceMatrix& X, const DeviceMatrix& v);

}  // namespace zeronorm::detail
