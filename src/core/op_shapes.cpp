#include "core/op_shapes.hpp"

#include <cmath>

#include "zeronorm/core/error.hpp"

namespace zeronorm::detail {

std::string shape(const DeviceMatrix& m) {
    return std::to_string(m.rows()) + " x " + std::to_string(m.cols());
}

void check_indices(const IndexVector& indices, Index bound, const char* where, const char* what) {
    for (std::size_t k = 0; k < indices.size(); ++k)
        ZN_EXPECTS(indices[k] >= 0 && indices[k] < bound,
                   where << ": " << what << " index " << indices[k] << " (position " << k
                         << ") is out of range for a matrix with " << bound << " " << what
                         << "s");
}

void check_kernel_matrix(const KernelSpec& spec, const DeviceMatrix& A, const DeviceMatrix& B,
                         const DeviceMatrix* feature_scale) {
    ZN_EXPECTS_DIM(A.cols() == B.cols(), "kernel_matrix: A is " << shape(A) << " but B is "
                                                                << shape(B)
                                                                << " (feature counts differ)");
    if (feature_scale != nullptr)
        ZN_EXPECTS_DIM(feature_scale->size() == A.cols(),
                       "kernel_matrix: feature scale has " << feature_scale->size()
                                                           << " entries for " << A.cols()
                                                           << " features");
    spec.validate(A.cols());
}

Index check_gemm(bool trans_a, bool trans_b, const DeviceMatrix& A, const DeviceMatrix& B,
                 const DeviceMatrix& C) {
    const Index m = trans_a ? A.cols() : A.rows();
    const Index k = trans_a ? A.rows() : A.cols();
    const Index kb = trans_b ? B.cols() : B.rows();
    const Index n = trans_b ? B.rows() : B.cols();
    ZN_EXPECTS_DIM(k == kb && C.rows() == m && C.cols() == n,
                   "gemm: op(A) is " << m << " x " << k << ", op(B) is " << kb << " x " << n
                                     << ", C is " << shape(C) << " (A is " << shape(A)
                                     << (trans_a ? " transposed" : "") << ", B is " << shape(B)
                                     << (trans_b ? " transposed" : "") << ")");
    ZN_EXPECTS(C.empty() || (C.data() != A.data() && C.data() != B.data()),
               "gemm: C must not share storage with A or B");
    return k;
}

Index check_syrk(bool trans, const DeviceMatrix& A, const DeviceMatrix& C) {
    const Index n = trans ? A.cols() : A.rows();
    ZN_EXPECTS_DIM(C.rows() == n && C.cols() == n,
                   "syrk: op(A) has " << n << " columns" << (trans ? " (A transposed)" : "")
                                      << " but C is " << shape(C));
    ZN_EXPECTS(C.empty() || C.data() != A.data(), "syrk: C must not share storage with A");
    return trans ? A.rows() : A.cols();
}

void check_scale_rows_columns(const DeviceMatrix& X, const Vector& row_scale,
                              const Vector& col_scale) {
    ZN_EXPECTS_DIM(row_scale.size() == 0 || row_scale.size() == X.rows(),
                   "scale_rows_columns: " << row_scale.size() << " row scales for " << X.rows()
                                          << " rows");
    ZN_EXPECTS_DIM(col_scale.size() == 0 || col_scale.size() == X.cols(),
                   "scale_rows_columns: " << col_scale.size() << " column scales for "
                                          << X.cols() << " columns");
}

void check_square(const DeviceMatrix& A, const char* where) {
    ZN_EXPECTS_DIM(A.rows() == A.cols(), where << ": A is " << shape(A) << ", not square");
}

void check_triangular_solve(const DeviceMatrix& L, bool on_the_right, const DeviceMatrix& B) {
    ZN_EXPECTS_DIM(L.rows() == L.cols() && (on_the_right ? B.cols() : B.rows()) == L.rows(),
                   "triangular_solve: L is " << shape(L) << ", B is " << shape(B)
                                             << (on_the_right ? " (L on the right)" : ""));
    ZN_EXPECTS(B.empty() || B.data() != L.data(),
               "triangular_solve: B must not share storage with L");
}

void check_smo(const DeviceMatrix& K, const Vector& y, const Vector& p, double delta) {
    ZN_EXPECTS_DIM(K.rows() == K.cols(), "SMO: the kernel is " << shape(K) << ", not square");
    ZN_EXPECTS_DIM(y.size() == K.rows(),
                   "SMO: " << y.size() << " labels for a kernel of size " << K.rows());
    ZN_EXPECTS_DIM(p.size() == 0 || p.size() == y.size(),
                   "SMO: " << p.size() << " linear terms for " << y.size() << " labels");
    ZN_EXPECTS(p.allFinite(), "SMO: the linear term is not finite");
    ZN_EXPECTS(std::isfinite(delta), "SMO: the equality's right-hand side is " << delta);
}

}  // namespace zeronorm::detail
