// The alignment sums (AlignmentOps::weighted_kernel_sum_batch and cross_kernel_sum_batch) for a
// batch of P weight vectors: elementwise passes over the P m x q pair-weight blocks, and block
// reductions by CUB (one block per column to sum, or per feature and weight vector for the
// gradients), their work alignment_device.cuh's. The Gram products of the Gaussian path are
// cuBLAS calls made by alignment_ops.cpp between these launches. And the Gaussian RFE's removal
// sums.
#include <cub/block/block_reduce.cuh>

#include <cmath>

#include "alignment_device.cuh"
#include "core/scalar_rules.hpp"
#include "cuda_check.cuh"
#include "device_ops.hpp"
#include "grid_stride.cuh"

namespace zeronorm::cuda_detail {
namespace {

using grid::blocks_for;
using grid::global_thread;
using grid::grid_stride;
using grid::kThreads;

using SumReduce = cub::BlockReduce<double, kThreads>;

// The elementwise passes: grid-stride loops over alignment_device.cuh's bodies.
__global__ void weight_columns_kernel(AlignmentPairs s, const double* Theta, i64 P, double* As) {
    alignment::weight_columns(s, Theta, P, As, global_thread(), grid_stride());
}

__global__ void weighted_norms_kernel(AlignmentPairs s, const double* Theta, i64 P, double* na,
                                      double* nb) {
    alignment::weighted_norms(s, Theta, P, na, nb, global_thread(), grid_stride());
}

__global__ void gaussian_pair_weights_kernel(const double* Y, const double* na, const double* nb,
                                             i64 m, i64 q, i64 P, double scale, double* G) {
    alignment::gaussian_pair_weights(Y, na, nb, m, q, P, scale, G, global_thread(),
                                     grid_stride());
}

__global__ void chi_square_pair_weights_kernel(AlignmentPairs s, const double* Y,
                                               const double* Theta, i64 P, double scale,
                                               double* W) {
    alignment::chi_square_pair_weights(s, Y, Theta, P, scale, W, global_thread(), grid_stride());
}

__global__ void row_sums_kernel(const double* W, i64 m, i64 q, i64 P, double* r) {
    alignment::row_sums(W, m, q, P, r, global_thread(), grid_stride());
}

// The reductions: one block per sum, each thread's share added by CUB.
// One block per column c of A (rows x cols): out[c] = sum_i A(i, c).
__global__ void __launch_bounds__(kThreads)
    column_sums_kernel(const double* A, i64 rows, double* out) {
    __shared__ typename SumReduce::TempStorage scratch;
    const double total = SumReduce(scratch).Sum(
        alignment::column_sum_part(A, rows, blockIdx.x, int(threadIdx.x), kThreads));
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}

// One block per (feature k, weight vector p), blockIdx.x = k + p d.
__global__ void __launch_bounds__(kThreads)
    gaussian_gradient_kernel(AlignmentPairs s, const double* r, const double* c, const double* M,
                             double scale, double* gradient) {
    __shared__ typename SumReduce::TempStorage scratch;
    const alignment::GaussianGradientParts part = alignment::gaussian_gradient_part(
        s, r, c, M, blockIdx.x % s.d, blockIdx.x / s.d, int(threadIdx.x), kThreads);
    const double squares = SumReduce(scratch).Sum(part.squares);
    __syncthreads();
    const double cross = SumReduce(scratch).Sum(part.cross);
    if (threadIdx.x == 0)
        gradient[blockIdx.x] = rules::gaussian_alignment_gradient(scale, squares, cross);
}

// One block per (feature k, weight vector p), blockIdx.x = k + p d.
__global__ void __launch_bounds__(kThreads)
    chi_square_gradient_kernel(AlignmentPairs s, const double* W, double scale,
                               double* gradient) {
    __shared__ typename SumReduce::TempStorage scratch;
    const double total = SumReduce(scratch).Sum(alignment::chi_square_gradient_part(
        s, W, blockIdx.x % s.d, blockIdx.x / s.d, scale, int(threadIdx.x), kThreads));
    if (threadIdx.x == 0) gradient[blockIdx.x] = total;
}

// D (n x n): D(i, j) = sum_k (x_ik - x_jk)^2 for i > j, 0 elsewhere, summed feature by feature.
__global__ void pair_distances_kernel(const double* X, i64 n, i64 d, double* D) {
    const i64 total = n * n;
    for (i64 e = global_thread(); e < total; e += grid_stride()) {
        const i64 i = e % n, j = e / n;
        double sum = 0.0;
        if (i > j)
            for (i64 k = 0; k < d; ++k) {
                const double diff = X[i + k * n] - X[j + k * n];
                sum += diff * diff;
            }
        D[e] = sum;
    }
}

// One block per feature left out, blockIdx.x = p (p = d: none):
// out[p] = 2 sum_{i > j} v_i v_j exp(-scale (D_ij - (x_ip - x_jp)^2)).
__global__ void __launch_bounds__(kThreads)
    removal_sums_kernel(const double* X, const double* v, const double* D, i64 n, i64 d,
                        double scale, double* out) {
    __shared__ typename SumReduce::TempStorage scratch;
    const i64 p = blockIdx.x;
    double sum = 0.0;
    for (i64 e = threadIdx.x; e < n * n; e += kThreads) {
        const i64 i = e % n, j = e / n;
        if (i <= j) continue;
        const double diff = p < d ? X[i + p * n] - X[j + p * n] : 0.0;
        sum += v[i] * v[j] * rules::removal_kernel(scale, D[e], diff);
    }
    const double total = SumReduce(scratch).Sum(sum);
    if (threadIdx.x == 0) out[p] = 2.0 * total;
}

}  // namespace

void weight_columns(const AlignmentPairs& s, const double* Theta, i64 P, double* As,
                    cudaStream_t stream) {
    const i64 total = s.m * s.d * P;
    if (total == 0) return;
    weight_columns_kernel<<<blocks_for(total), kThreads, 0, stream>>>(s, Theta, P, As);
    ZN_CUDA_CHECK_LAUNCH("weight_columns_kernel");
}

void weighted_norms(const AlignmentPairs& s, const double* Theta, i64 P, double* na, double* nb,
                    cudaStream_t stream) {
    const i64 total = alignment::weighted_norm_rows(s) * P;
    if (total == 0) return;
    weighted_norms_kernel<<<blocks_for(total), kThreads, 0, stream>>>(s, Theta, P, na, nb);
    ZN_CUDA_CHECK_LAUNCH("weighted_norms_kernel");
}

void gaussian_pair_weights(const double* Y, const double* na, const double* nb, i64 m, i64 q,
                           i64 P, double scale, double* G, cudaStream_t stream) {
    const i64 total = m * q * P;
    if (total == 0) return;
    gaussian_pair_weights_kernel<<<blocks_for(total), kThreads, 0, stream>>>(Y, na, nb, m, q, P,
                                                                             scale, G);
    ZN_CUDA_CHECK_LAUNCH("gaussian_pair_weights_kernel");
}

void chi_square_pair_weights(const AlignmentPairs& s, const double* Y, const double* Theta, i64 P,
                             double scale, double* W, cudaStream_t stream) {
    const i64 total = s.m * s.q * P;
    if (total == 0) return;
    chi_square_pair_weights_kernel<<<blocks_for(total), kThreads, 0, stream>>>(s, Y, Theta, P,
                                                                               scale, W);
    ZN_CUDA_CHECK_LAUNCH("chi_square_pair_weights_kernel");
}

void column_sums(const double* A, i64 rows, i64 cols, double* out, cudaStream_t stream) {
    if (cols == 0) return;
    const unsigned blocks = one_block_each(cols, "column_sums_kernel");
    column_sums_kernel<<<blocks, kThreads, 0, stream>>>(A, rows, out);
    ZN_CUDA_CHECK_LAUNCH("column_sums_kernel");
}

void row_sums(const double* W, i64 m, i64 q, i64 P, double* r, cudaStream_t stream) {
    if (m * P == 0) return;
    row_sums_kernel<<<blocks_for(m * P), kThreads, 0, stream>>>(W, m, q, P, r);
    ZN_CUDA_CHECK_LAUNCH("row_sums_kernel");
}

void gaussian_alignment_gradient(const AlignmentPairs& s, const double* r, const double* c,
                                 const double* M, i64 P, double scale, double* gradient,
                                 cudaStream_t stream) {
    if (s.d * P == 0) return;
    const unsigned blocks = one_block_each(s.d * P, "gaussian_gradient_kernel");
    gaussian_gradient_kernel<<<blocks, kThreads, 0, stream>>>(s, r, c, M, scale, gradient);
    ZN_CUDA_CHECK_LAUNCH("gaussian_gradient_kernel");
}

void chi_square_alignment_gradient(const AlignmentPairs& s, const double* W, i64 P, double scale,
                                   double* gradient, cudaStream_t stream) {
    if (s.d * P == 0) return;
    const unsigned blocks = one_block_each(s.d * P, "chi_square_gradient_kernel");
    chi_square_gradient_kernel<<<blocks, kThreads, 0, stream>>>(s, W, scale, gradient);
    ZN_CUDA_CHECK_LAUNCH("chi_square_gradient_kernel");
}

void gaussian_removal_sums(const double* X, const double* v, i64 n, i64 d, double scale,
                           double* D, double* out, cudaStream_t stream) {
    if (n > 0) {
        pair_distances_kernel<<<blocks_for(n * n), kThreads, 0, stream>>>(X, n, d, D);
        ZN_CUDA_CHECK_LAUNCH("pair_distances_kernel");
    }
    const unsigned blocks = one_block_each(d + 1, "removal_sums_kernel");
    removal_sums_kernel<<<blocks, kThreads, 0, stream>>>(X, v, D, n, d, scale, out);
    ZN_CUDA_CHECK_LAUNCH("removal_sums_kernel");
}

}  // namespace zeronorm::cuda_detail
