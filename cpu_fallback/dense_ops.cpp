// The CPU backend's dense linear algebra: GEMM (single and batched), SYRK, diagonal scalings,
// Cholesky and triangular solves, through Eigen (BLAS/LAPACK with EIGEN_USE_BLAS).
#include <algorithm>

#include "core/batch_shapes.hpp"
#include "core/op_shapes.hpp"
#include "cpu_backend.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm::cpu {

void CpuBackend::gemm(bool trans_a, bool trans_b, double alpha, const DeviceMatrix& A,
                      const DeviceMatrix& B, double beta, DeviceMatrix& C) {
    detail::check_gemm(trans_a, trans_b, A, B, C);
    auto a = view(A);
    auto b = view(B);
    auto c = view(C);
    if (beta == 0.0) c.setZero(); else c *= beta;
    if (!trans_a && !trans_b) c.noalias() += alpha * a * b;
    else if (trans_a && !trans_b) c.noalias() += alpha * a.transpose() * b;
    else if (!trans_a && trans_b) c.noalias() += alpha * a * b.transpose();
    else c.noalias() += alpha * a.transpose() * b.transpose();
}

void CpuBackend::gemm_batch(Index batch, bool trans_a, bool trans_b, double alpha,
                            const DeviceMatrix& A, const DeviceMatrix& B, double beta,
                            DeviceMatrix& C) {
    const detail::GemmBatchShape s = detail::check_gemm_batch(batch, trans_a, trans_b, A, B, C);
    for (Index p = 0; p < batch; ++p) {
        DeviceMatrix c = block(C, s.n, p);
        gemm(trans_a, trans_b, alpha, block(A, s.a_block, p), block(B, s.b_block, p), beta, c);
    }
}

void CpuBackend::syrk(bool trans, double alpha, const DeviceMatrix& A, double beta,
                      DeviceMatrix& C) {
    detail::check_syrk(trans, A, C);
    const Index n = C.rows();
    if (n == 0) return;
    auto a = view(A);
    auto c = view(C);
    if (beta == 0.0)
        c.triangularView<Eigen::Lower>().setZero();
    else if (beta != 1.0)
        c.triangularView<Eigen::Lower>() *= beta;
    // Lower triangle by one rank-k update (dsyrk through EIGEN_USE_BLAS), then mirrored.
    if (trans)
        c.selfadjointView<Eigen::Lower>().rankUpdate(a.transpose(), alpha);
    else
        c.selfadjointView<Eigen::Lower>().rankUpdate(a, alpha);
    // Mirror tile by tile: a whole-matrix transposed copy strides through memory and costs
    // more than the product itself for l in the thousands and small k.
    constexpr Index tile = 64;
    for (Index j0 = 0; j0 < n; j0 += tile) {
        const Index jb = std::min(tile, n - j0);
        auto diagonal = c.block(j0, j0, jb, jb);
        diagonal.triangularView<Eigen::StrictlyUpper>() = diagonal.transpose();
        for (Index i0 = j0 + tile; i0 < n; i0 += tile) {
            const Index ib = std::min(tile, n - i0);
            c.block(j0, i0, jb, ib) = c.block(i0, j0, ib, jb).transpose();
        }
    }
}

void CpuBackend::scale_rows_columns(DeviceMatrix& X, const Vector& row_scale,
                                    const Vector& col_scale, double diagonal_shift) {
    detail::check_scale_rows_columns(X, row_scale, col_scale);
    auto x = view(X);
    const bool rows = row_scale.size() > 0;
    for (Index j = 0; j < x.cols(); ++j) {
        const double c = col_scale.size() > 0 ? col_scale[j] : 1.0;
        if (rows)
            x.col(j).array() *= row_scale.array() * c;
        else if (c != 1.0)
            x.col(j) *= c;
    }
    if (diagonal_shift != 0.0) x.diagonal().array() += diagonal_shift;
}

bool CpuBackend::cholesky_factor(DeviceMatrix& A) {
    detail::check_square(A, "cholesky_factor");
    if (A.empty()) return true;
    auto a = view(A);
    Eigen::LLT<Eigen::Ref<Matrix>> llt(a);  // in place: the lower triangle becomes L
    if (llt.info() != Eigen::Success) return false;
    const auto d = a.diagonal().array();
    return (d > 0.0).all() && d.isFinite().all();
}

void CpuBackend::triangular_solve(const DeviceMatrix& L, bool transpose, bool on_the_right,
                                  DeviceMatrix& B) {
    detail::check_triangular_solve(L, on_the_right, B);
    if (B.empty()) return;
    auto l = view(L);
    auto b = view(B);
    // dtrsm through EIGEN_USE_BLAS; L' is the upper triangle of the transposed view.
    if (!transpose && !on_the_right)
        l.triangularView<Eigen::Lower>().solveInPlace(b);
    else if (transpose && !on_the_right)
        l.transpose().triangularView<Eigen::Upper>().solveInPlace(b);
    else if (!transpose && on_the_right)
        l.triangularView<Eigen::Lower>().solveInPlace<Eigen::OnTheRight>(b);
    else
        l.transpose().triangularView<Eigen::Upper>().solveInPlace<Eigen::OnTheRight>(b);
}

}  // namespace zeronorm::cpu
