// The CUDA backend's dense linear algebra: cuBLAS GEMM, SYRK and TRSM, cuSOLVER potrf, and the
// diagonal scalings of elementwise.cu.
#include <algorithm>
#include <climits>
#include <vector>

#include "core/op_shapes.hpp"
#include "cuda_context.hpp"

namespace zeronorm::cuda_detail {

void CudaBackend::gemm(bool trans_a, bool trans_b, double alpha, const DeviceMatrix& A,
                       const DeviceMatrix& B, double beta, DeviceMatrix& C) {
    OpScope scope(*this, "gemm");
    const Index k = detail::check_gemm(trans_a, trans_b, A, B, C);
    const Index m = C.rows();
    const Index n = C.cols();
    require_device_memory(A, "A", "gemm");
    require_device_memory(B, "B", "gemm");
    require_device_memory(C, "C", "gemm");
    if (C.empty()) return;
    if (k == 0) {  // C = beta C
        scale_in_place(C.data(), C.size(), beta, stream_);
        sync();
        return;
    }
    ZN_CUBLAS_TRY(cublasDgemm(blas_, trans_a ? CUBLAS_OP_T : CUBLAS_OP_N,
                              trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, blas_int(m, "gemm"),
                              blas_int(n, "gemm"), blas_int(k, "gemm"), &alpha, A.data(),
                              blas_int(std::max<Index>(1, A.rows()), "gemm"), B.data(),
                              blas_int(std::max<Index>(1, B.rows()), "gemm"), &beta, C.data(),
                              blas_int(std::max<Index>(1, C.rows()), "gemm")));
    sync();
}

// cublasDsyrk into the lower triangle, then the mirror pass of kernel_matrix (the linear
// "kernel" of transform_gram_symmetric only copies the lower triangle to the upper one).
void CudaBackend::syrk(bool trans, double alpha, const DeviceMatrix& A, double beta,
                       DeviceMatrix& C) {
    OpScope scope(*this, "syrk");
    const Index k = detail::check_syrk(trans, A, C);
    const Index n = C.rows();
    require_device_memory(A, "A", "syrk");
    require_device_memory(C, "C", "syrk");
    if (C.empty()) return;
    const int bn = blas_int(n, "syrk");
    if (k == 0) {
        scale_in_place(C.data(), C.size(), beta, stream_);
    } else {
        ZN_CUBLAS_TRY(cublasDsyrk(blas_, CUBLAS_FILL_MODE_LOWER, trans ? CUBLAS_OP_T : CUBLAS_OP_N,
                                  bn, blas_int(k, "syrk"), &alpha, A.data(),
                                  blas_int(std::max<Index>(1, A.rows()), "syrk"), &beta, C.data(),
                                  bn));
    }
    KernelParams mirror;
    mirror.type = DeviceKernel::Linear;
    transform_gram_symmetric(mirror, C.data(), n, nullptr, stream_);
    sync();
}

void CudaBackend::scale_rows_columns(DeviceMatrix& X, const Vector& row_scale,
                                     const Vector& col_scale, double diagonal_shift) {
    OpScope scope(*this, "scale_rows_columns");
    detail::check_scale_rows_columns(X, row_scale, col_scale);
    require_device_memory(X, "X", "scale_rows_columns");
    if (X.empty()) return;
    const auto nr = static_cast<std::size_t>(row_scale.size());
    const auto nc = static_cast<std::size_t>(col_scale.size());
    DeviceBuffer<double> d_r(nr, memory_);
    DeviceBuffer<double> d_c(nc, memory_);
    copy_to_device(d_r.get(), row_scale.data(), nr);
    copy_to_device(d_c.get(), col_scale.data(), nc);
    cuda_detail::scale_rows_columns(X.data(), X.rows(), X.cols(), nr > 0 ? d_r.get() : nullptr,
                                    nc > 0 ? d_c.get() : nullptr, diagonal_shift, stream_);
    sync();
}

// cuSOLVER potrf (lower); a factor diagonal that is not finite and
// positive (e.g. from NaN input) counts as not positive definite.
bool CudaBackend::cholesky_factor(DeviceMatrix& A) {
    OpScope scope(*this, "cholesky_factor");
    detail::check_square(A, "cholesky_factor");
    require_device_memory(A, "A", "cholesky_factor");
    const Index n = A.rows();
    if (n == 0) return true;
    const int bn = blas_int(n, "cholesky_factor");
    int lwork = 0;
    ZN_CUSOLVER_TRY(
        cusolverDnDpotrf_bufferSize(solver(), CUBLAS_FILL_MODE_LOWER, bn, A.data(), bn, &lwork));
    DeviceBuffer<double> work(static_cast<std::size_t>(std::max(lwork, 1)), memory_);
    DeviceBuffer<int> d_info(2, memory_);  // [0]: cuSOLVER info, [1]: bad-diagonal flag
    ZN_CUDA_TRY(cudaMemsetAsync(d_info.get(), 0, 2 * sizeof(int), stream_));
    ZN_CUSOLVER_TRY(cusolverDnDpotrf(solver(), CUBLAS_FILL_MODE_LOWER, bn, A.data(), bn, work.get(),
                                     lwork, d_info.get()));
    check_positive_diagonal(A.data(), n, d_info.get() + 1, stream_);
    int info[2] = {0, 0};
    copy_to_host(info, d_info.get(), 2);
    sync();
    if (info[0] < 0) {
        throw CudaError("cholesky_factor: cusolverDnDpotrf reports invalid parameter " +
                        std::to_string(-info[0]));
    }
    return info[0] == 0 && info[1] == 0;
}

void CudaBackend::triangular_solve(const DeviceMatrix& L, bool transpose, bool on_the_right,
                                   DeviceMatrix& B) {
    OpScope scope(*this, "triangular_solve");
    detail::check_triangular_solve(L, on_the_right, B);
    require_device_memory(L, "L", "triangular_solve");
    require_device_memory(B, "B", "triangular_solve");
    if (B.empty()) return;
    const double one = 1.0;
    ZN_CUBLAS_TRY(cublasDtrsm(blas_, on_the_right ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT,
                              CUBLAS_FILL_MODE_LOWER, transpose ? CUBLAS_OP_T : CUBLAS_OP_N,
                              CUBLAS_DIAG_NON_UNIT, blas_int(B.rows(), "triangular_solve"),
                              blas_int(B.cols(), "triangular_solve"), &one, L.data(),
                              blas_int(L.rows(), "triangular_solve"), B.data(),
                              blas_int(B.rows(), "triangular_solve")));
    sync();
}

}  // namespace zeronorm::cuda_detail
