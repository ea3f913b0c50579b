// The CUDA backend's alignment sums (alignment.cu): the whole batch of weight vectors in a fixed
// number of launches. Gaussian: X diag(theta_p) for every p, one strided-batched GEMM for the
// P Gram blocks (X shared: stride 0), the pair weights in place, their column sums, one more
// strided-batched GEMM for W_p X and one reduction launch for the gradients. Chi-square: the
// pair weights, their column sums and the direct pair sums of the gradients. Only the column
// sums (n P numbers) come back to the host, for the values. The cross sums (two point sets) go
// through the same passes on the stacked points.
#include <climits>
#include <limits>
#include <vector>

#include "core/batch_shapes.hpp"
#include "cuda_context.hpp"
#include "zeronorm/core/ops/alignment_ops.hpp"

namespace zeronorm::cuda_detail {
namespace {

class CudaAlignmentOps final : public AlignmentOps {
public:
    explicit CudaAlignmentOps(CudaBackend& backend) : b_(backend) {}

    std::vector<double> weighted_kernel_sum_batch(const AlignmentKernelSpec& spec,
                                                  const DeviceMatrix& X, const DeviceMatrix& Y,
                                                  const DeviceMatrix& Theta,
                                                  DeviceMatrix& gradient) override {
        OpScope scope(b_, "alignment.weighted_kernel_sum_batch");
        detail::check_weighted_kernel_sum_batch(spec, X, Y, Theta, gradient);
        const char* where = "weighted_kernel_sum_batch";
        b_.require_device_memory(X, "X", where);
        b_.require_device_memory(Y, "Y", where);
        b_.require_device_memory(Theta, "Theta", where);
        b_.require_device_memory(gradient, "gradient", where);
        const Index n = X.rows(), d = X.cols(), P = Theta.cols();
        std::vector<double> values(static_cast<std::size_t>(P), 0.0);
        if (P == 0) return values;
        if (n == 0 || d == 0) {  // no pairs (zero gradient), or no feature (K = 1: the sum of Y)
            scale_in_place(gradient.data(), gradient.size(), 0.0, b_.stream());
            const double total = n == 0 ? 0.0 : b_.download(Y).sum();
            b_.sync();
            for (double& v : values) v = total;
            return values;
        }
        const std::size_t nn = std::size_t(n) * std::size_t(n);
        DeviceBuffer<double> W(nn * std::size_t(P), b_.memory());
        DeviceBuffer<double> sums(std::size_t(n) * std::size_t(P), b_.memory());
        if (spec.type == AlignmentKernel::Gaussian) {
            gaussian(spec.scale, X, Y, Theta, W.get(), sums.get(), gradient.data());
        } else {
            chi_square_pair_weights(X.data(), Y.data(), Theta.data(), n, d, P, spec.scale, W.get(),
                                    b_.stream());
            column_sums(W.get(), n, n * P, sums.get(), b_.stream());
            chi_square_alignment_gradient(X.data(), W.get(), n, d, P, spec.scale, gradient.data(),
                                          b_.stream());
        }
        std::vector<double> host_sums(std::size_t(n) * std::size_t(P));
        b_.copy_to_host(host_sums.data(), sums.get(), host_sums.size());
        b_.sync();
        for (Index p = 0; p < P; ++p)
            for (Index i = 0; i < n; ++i) values[std::size_t(p)] += host_sums[std::size_t(p * n + i)];
        return values;
    }

    // Through the symmetric form: X = [A; B] and the pair weights [[0, Y/2], [Y'/2, 0]], built
    // on the device by two copies and two cuBLAS transposing sums ((m + q)^2 pairs where m q
    // carry weight; the CPU backend sums the m q pairs alone).
    std::vector<double> cross_kernel_sum_batch(const AlignmentKernelSpec& spec,
                                               const DeviceMatrix& A, const DeviceMatrix& B,
                                               const DeviceMatrix& Y, const DeviceMatrix& Theta,
                                               DeviceMatrix& gradient) override {
        OpScope scope(b_, "alignment.cross_kernel_sum_batch");
        detail::check_cross_kernel_sum_batch(spec, A, B, Y, Theta, gradient);
        const char* where = "cross_kernel_sum_batch";
        b_.require_device_memory(A, "A", where);
        b_.require_device_memory(B, "B", where);
        b_.require_device_memory(Y, "Y", where);
        b_.require_device_memory(Theta, "Theta", where);
        b_.require_device_memory(gradient, "gradient", where);
        const Index m = A.rows(), q = B.rows(), d = A.cols(), n = m + q;
        if (m == 0 || q == 0) {  // no pair: value 0, gradient 0
            scale_in_place(gradient.data(), gradient.size(), 0.0, b_.stream());
            b_.sync();
            return std::vector<double>(static_cast<std::size_t>(Theta.cols()), 0.0);
        }
        const std::size_t word = sizeof(double);
        DeviceMatrix X = b_.allocate(n, d), W = b_.allocate(n, n);
        if (d > 0) {
            ZN_CUDA_TRY(cudaMemcpy2DAsync(X.data(), std::size_t(n) * word, A.data(),
                                          std::size_t(m) * word, std::size_t(m) * word,
                                          std::size_t(d), cudaMemcpyDeviceToDevice, b_.stream()));
            ZN_CUDA_TRY(cudaMemcpy2DAsync(X.data() + m, std::size_t(n) * word, B.data(),
                                          std::size_t(q) * word, std::size_t(q) * word,
                                          std::size_t(d), cudaMemcpyDeviceToDevice, b_.stream()));
        }
        ZN_CUDA_TRY(cudaMemsetAsync(W.data(), 0, std::size_t(n) * std::size_t(n) * word,
                                    b_.stream()));
        const int bm = blas_int(m, where), bq = blas_int(q, where), bn = blas_int(n, where);
        const double half = 0.5, zero = 0.0;
        // W(0:m, m:n) = Y / 2 and W(m:n, 0:m) = Y' / 2 (beta = 0: the second operand unread).
        double* upper_right = W.data() + std::size_t(m) * std::size_t(n);
        ZN_CUBLAS_TRY(cublasDgeam(b_.blas(), CUBLAS_OP_N, CUBLAS_OP_N, bm, bq, &half, Y.data(),
                                  bm, &zero, Y.data(), bm, upper_right, bn));
        ZN_CUBLAS_TRY(cublasDgeam(b_.blas(), CUBLAS_OP_T, CUBLAS_OP_T, bq, bm, &half, Y.data(),
                                  bm, &zero, Y.data(), bm, W.data() + m, bn));
        return weighted_kernel_sum_batch(spec, X, W, Theta, gradient);
    }

    std::vector<double> gaussian_removal_sums(double scale, const DeviceMatrix& X,
                                              const DeviceMatrix& v) override {
        OpScope scope(b_, "alignment.gaussian_removal_sums");
        detail::check_gaussian_removal_sums(scale, X, v);
        const char* where = "gaussian_removal_sums";
        b_.require_device_memory(X, "X", where);
        b_.require_device_memory(v, "v", where);
        const Index n = X.rows(), d = X.cols();
        ZN_EXPECTS(d < INT_MAX, where << ": " << d << " features exceed one launch's blocks");
        const std::size_t count = std::size_t(d) + 1;
        // Poisoned: every entry must be written by the kernel.
        std::vector<double> out(count, std::numeric_limits<double>::quiet_NaN());
        if (n == 0) return std::vector<double>(count, 0.0);
        DeviceBuffer<double> D(std::size_t(n) * std::size_t(n), b_.memory());
        DeviceBuffer<double> sums(count, b_.memory());
        b_.copy_to_device(sums.get(), out.data(), count);
        cuda_detail::gaussian_removal_sums(X.data(), v.data(), n, d, scale, D.get(), sums.get(),
                                           b_.stream());
        b_.copy_to_host(out.data(), sums.get(), count);
        const Vector host_v = b_.download(v).col(0);
        b_.sync();
        const double diagonal = host_v.squaredNorm();  // k(x, x) = 1
        for (double& value : out) value += diagonal;
        return out;
    }

private:
    // The Gaussian passes; W (n x n P) and sums (n x P) are scratch, gradient d x P.
    void gaussian(double scale, const DeviceMatrix& X, const DeviceMatrix& Y,
                  const DeviceMatrix& Theta, double* W, double* sums, double* gradient) {
        const Index n = X.rows(), d = X.cols(), P = Theta.cols();
        const char* where = "weighted_kernel_sum_batch";
        const int bn = blas_int(n, where), bd = blas_int(d, where), bP = blas_int(P, where);
        const long long nd = static_cast<long long>(n) * d, nn = static_cast<long long>(n) * n;
        DeviceBuffer<double> scaled(std::size_t(nd) * std::size_t(P), b_.memory());
        DeviceBuffer<double> norms(std::size_t(n) * std::size_t(P), b_.memory());
        weight_columns(X.data(), n, d, Theta.data(), P, scaled.get(), b_.stream());
        weighted_norms(X.data(), scaled.get(), n, d, P, norms.get(), b_.stream());
        const double one = 1.0, zero = 0.0;
        // Gram blocks X diag(theta_p) X' (X the same for every block: stride 0).
        ZN_CUBLAS_TRY(cublasDgemmStridedBatched(b_.blas(), CUBLAS_OP_N, CUBLAS_OP_T, bn, bn, bd,
                                                &one, scaled.get(), bn, nd, X.data(), bn, 0,
                                                &zero, W, bn, nn, bP));
        gaussian_pair_weights(Y.data(), norms.get(), n, P, scale, W, b_.stream());
        column_sums(W, n, n * P, sums, b_.stream());
        // M_p = W_p X, reusing the scaled copies' memory (n x d P).
        ZN_CUBLAS_TRY(cublasDgemmStridedBatched(b_.blas(), CUBLAS_OP_N, CUBLAS_OP_N, bn, bd, bn,
                                                &one, W, bn, nn, X.data(), bn, 0, &zero,
                                                scaled.get(), bn, nd, bP));
        gaussian_alignment_gradient(X.data(), sums, scaled.get(), n, d, P, scale, gradient,
                                    b_.stream());
    }

    CudaBackend& b_;
};

}  // namespace

std::unique_ptr<AlignmentOps> make_alignment_ops(CudaBackend& backend) {
    return std::make_unique<CudaAlignmentOps>(backend);
}

}  // namespace zeronorm::cuda_detail
