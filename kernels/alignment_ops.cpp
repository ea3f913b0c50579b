// The CUDA backend's alignment sums (alignment.cu): the whole batch of weight vectors in a fixed
// number of launches, over the pairs of two point sets A (m x d) and B (q x d) (the sums over
// one set: A = B). Gaussian: A diag(theta_p) for every p, the weighted norms, one
// strided-batched GEMM for the P blocks of dots A diag(theta_p) B' (B shared: stride 0), the
// pair weights in place, their column and row sums, one more strided-batched GEMM for W_p B and
// one reduction launch for the gradients. Chi-square: the pair weights, their column sums and
// the direct pair sums of the gradients. Only the column sums (q P numbers) come back to the
// host, for the values. The cross sums between the classes take their m q pairs directly.
#include <climits>
#include <limits>
#include <vector>

#include "core/batch_shapes.hpp"
#include "cuda_context.hpp"
#include "zeronorm/core/ops/alignment_ops.hpp"

namespace zeronorm::cuda_detail {
namespace {

// Entries of a rows x cols matrix.
std::size_t entries(i64 rows, i64 cols) { return std::size_t(rows) * std::size_t(cols); }

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
        return pair_sums(spec, AlignmentPairs{X.data(), X.data(), X.rows(), X.rows(), X.cols()}, Y,
                    Theta, gradient);
    }

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
        return pair_sums(spec, AlignmentPairs{A.data(), B.data(), A.rows(), B.rows(), A.cols()}, Y,
                    Theta, gradient);
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
        DeviceBuffer<double> D(entries(n, n), b_.memory());
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
    // The values and the gradient over the pairs of s with the weights Y (m x q): the pair
    // weights W_p = Y o K_theta_p (m x q P), their column sums c (q x P, whose totals are the
    // values, the only numbers brought to the host) and the gradient from them.
    std::vector<double> pair_sums(const AlignmentKernelSpec& spec, const AlignmentPairs& s,
                                  const DeviceMatrix& Y, const DeviceMatrix& Theta,
                                  DeviceMatrix& gradient) {
        const Index P = Theta.cols();
        std::vector<double> values(static_cast<std::size_t>(P), 0.0);
        if (P == 0) return values;
        if (s.m == 0 || s.q == 0 || s.d == 0) {  // no pair (0), or no feature (K = 1: sum Y)
            scale_in_place(gradient.data(), gradient.size(), 0.0, b_.stream());
            const double total = s.m == 0 || s.q == 0 ? 0.0 : b_.download(Y).sum();
            b_.sync();
            for (double& v : values) v = total;
            return values;
        }
        DeviceBuffer<double> W(entries(s.m * s.q, P), b_.memory());
        DeviceBuffer<double> c(entries(s.q, P), b_.memory());
        // Poisoned: an entry the gradient's kernel leaves unwritten shows as NaN.
        ZN_CUDA_TRY(cudaMemsetAsync(gradient.data(), 0xFF, entries(s.d, P) * sizeof(double),
                                    b_.stream()));
        passes(spec, s, Y, Theta, W.get(), c.get(), gradient.data());
        std::vector<double> host_c(entries(s.q, P));
        b_.copy_to_host(host_c.data(), c.get(), host_c.size());
        b_.sync();
        for (Index p = 0; p < P; ++p)
            for (Index j = 0; j < s.q; ++j)
                values[std::size_t(p)] += host_c[std::size_t(p * s.q + j)];
        return values;
    }

    // The passes of pair_sums(): W and c (scratch of m q P and q P doubles), the gradient (d x P).
    void passes(const AlignmentKernelSpec& spec, const AlignmentPairs& s, const DeviceMatrix& Y,
                const DeviceMatrix& Theta, double* W, double* c, double* gradient) {
        const Index P = Theta.cols();
        if (spec.type == AlignmentKernel::ChiSquare) {
            chi_square_pair_weights(s, Y.data(), Theta.data(), P, spec.scale, W, b_.stream());
            column_sums(W, s.m, s.q * P, c, b_.stream());
            chi_square_alignment_gradient(s, W, P, spec.scale, gradient, b_.stream());
            return;
        }
        const char* where = "weighted kernel sums";
        const int bm = blas_int(s.m, where), bq = blas_int(s.q, where), bd = blas_int(s.d, where),
                  bP = blas_int(P, where);
        const long long md = static_cast<long long>(s.m) * s.d,
                        mq = static_cast<long long>(s.m) * s.q;
        DeviceBuffer<double> scaled(entries(md, P), b_.memory());
        DeviceBuffer<double> na(entries(s.m, P), b_.memory());
        DeviceBuffer<double> nb(s.same_points() ? 0 : entries(s.q, P), b_.memory());
        DeviceBuffer<double> r(entries(s.m, P), b_.memory());
        double* norms_b = s.same_points() ? na.get() : nb.get();
        weight_columns(s, Theta.data(), P, scaled.get(), b_.stream());
        weighted_norms(s, Theta.data(), P, na.get(), norms_b, b_.stream());
        const double one = 1.0, zero = 0.0;
        // The dots A diag(theta_p) B' (B the same for every block: stride 0).
        ZN_CUBLAS_TRY(cublasDgemmStridedBatched(b_.blas(), CUBLAS_OP_N, CUBLAS_OP_T, bm, bq, bd,
                                                &one, scaled.get(), bm, md, s.B, bq, 0, &zero, W,
                                                bm, mq, bP));
        gaussian_pair_weights(Y.data(), na.get(), norms_b, s.m, s.q, P, spec.scale, W,
                              b_.stream());
        column_sums(W, s.m, s.q * P, c, b_.stream());
        row_sums(W, s.m, s.q, P, r.get(), b_.stream());
        // M_p = W_p B (m x d), reusing the scaled copies' memory.
        ZN_CUBLAS_TRY(cublasDgemmStridedBatched(b_.blas(), CUBLAS_OP_N, CUBLAS_OP_N, bm, bd, bq,
                                                &one, W, bm, mq, s.B, bq, 0, &zero, scaled.get(),
                                                bm, md, bP));
        gaussian_alignment_gradient(s, r.get(), c, scaled.get(), P, spec.scale, gradient,
                                    b_.stream());
    }

    CudaBackend& b_;
};

}  // namespace

std::unique_ptr<AlignmentOps> make_alignment_ops(CudaBackend& backend) {
    return std::make_unique<CudaAlignmentOps>(backend);
}

}  // namespace zeronorm::cuda_detail
