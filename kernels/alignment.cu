// The alignment sums (AlignmentOps::weighted_kernel_sum_batch) for a batch of P weight vectors:
// elementwise passes over the P n x n pair-weight blocks, and block reductions by CUB (one block
// per column to sum, or per feature and weight vector for the gradients). The Gram products of
// the Gaussian path are cuBLAS calls made by alignment_ops.cpp between these launches. The
// entry rules are scalar_rules.hpp's, as on the CPU.
#include <cub/block/block_reduce.cuh>

#include <cmath>

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

// Entry e of a batch of n x n blocks: block p, row i, column j, and ij = i + j n within the block.
struct Pair {
    i64 p, i, j, ij;
};
__device__ Pair pair_of(i64 e, i64 n) {
    const i64 ij = e % (n * n);
    return {e / (n * n), ij % n, ij / n, ij};
}

// Xt (n x d P): block p is X diag(theta_p).
__global__ void weight_columns_kernel(const double* X, i64 n, i64 d, const double* Theta, i64 P,
                                      double* Xt) {
    const i64 total = n * d * P;
    for (i64 e = global_thread(); e < total; e += grid_stride()) {
        const i64 nd = n * d;
        const i64 p = e / nd;
        const i64 k = (e % nd) / n;
        Xt[e] = X[e % nd] * Theta[k + p * d];
    }
}

// q (n x P): q_ip = sum_k Xt_p(i, k) X(i, k) = |x_i|^2_theta_p.
__global__ void weighted_norms_kernel(const double* X, const double* Xt, i64 n, i64 d, i64 P,
                                      double* q) {
    const i64 total = n * P;
    for (i64 e = global_thread(); e < total; e += grid_stride()) {
        const i64 i = e % n;
        const i64 p = e / n;
        const double* xt = Xt + p * n * d;
        double sum = 0.0;
        for (i64 k = 0; k < d; ++k) sum += xt[i + k * n] * X[i + k * n];
        q[e] = sum;
    }
}

// In place on G (n x n P, block p the dots x_i' diag(theta_p) x_j): W_p = Y o K_theta_p.
__global__ void gaussian_pair_weights_kernel(const double* Y, const double* q, i64 n, i64 P,
                                             double scale, double* G) {
    const i64 total = n * n * P;
    for (i64 e = global_thread(); e < total; e += grid_stride()) {
        const Pair pair = pair_of(e, n);
        const double distance = q[pair.i + pair.p * n] + q[pair.j + pair.p * n] - 2.0 * G[e];
        G[e] = Y[pair.ij] * rules::exponential_kernel(scale, distance);
    }
}

// W (n x n P): W_p(i, j) = Y_ij exp(-sum_k theta_kp D(x_ik, x_jk)), D the chi-square term.
__global__ void chi_square_pair_weights_kernel(const double* X, const double* Y,
                                               const double* Theta, i64 n, i64 d, i64 P,
                                               double scale, double* W) {
    const i64 total = n * n * P;
    for (i64 e = global_thread(); e < total; e += grid_stride()) {
        const Pair pair = pair_of(e, n);
        const double* theta = Theta + pair.p * d;
        double exponent = 0.0;
        for (i64 k = 0; k < d; ++k)
            exponent += theta[k] * rules::alignment_term(true, scale, X[pair.i + k * n],
                                                         X[pair.j + k * n]);
        W[e] = Y[pair.ij] * rules::exponential_kernel(1.0, exponent);
    }
}

// One block per column c of A (rows x cols): out[c] = sum_i A(i, c).
__global__ void __launch_bounds__(kThreads)
    column_sums_kernel(const double* A, i64 rows, double* out) {
    __shared__ typename SumReduce::TempStorage scratch;
    const double* a = A + static_cast<i64>(blockIdx.x) * rows;
    double sum = 0.0;
    for (i64 i = threadIdx.x; i < rows; i += kThreads) sum += a[i];
    const double total = SumReduce(scratch).Sum(sum);
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}

// One block per (feature k, weight vector p), blockIdx.x = k + p d:
// gradient(k, p) = -scale (2 sum_i r_ip x_ik^2 - 2 sum_i x_ik M_p(i, k)), M_p = W_p X.
__global__ void __launch_bounds__(kThreads)
    gaussian_gradient_kernel(const double* X, const double* r, const double* M, i64 n, i64 d,
                             double scale, double* gradient) {
    __shared__ typename SumReduce::TempStorage scratch;
    const i64 k = blockIdx.x % d;
    const i64 p = blockIdx.x / d;
    const double* x = X + k * n;
    const double* rp = r + p * n;
    const double* m = M + p * n * d + k * n;
    double squares = 0.0, cross = 0.0;
    for (i64 i = threadIdx.x; i < n; i += kThreads) {
        squares += rp[i] * x[i] * x[i];
        cross += x[i] * m[i];
    }
    const double block_squares = SumReduce(scratch).Sum(squares);
    __syncthreads();
    const double block_cross = SumReduce(scratch).Sum(cross);
    if (threadIdx.x == 0)
        gradient[blockIdx.x] = rules::gaussian_alignment_gradient(scale, block_squares, block_cross);
}

// One block per (feature k, weight vector p): gradient(k, p) = -sum_ij W_p(i, j) D(x_ik, x_jk).
__global__ void __launch_bounds__(kThreads)
    chi_square_gradient_kernel(const double* X, const double* W, i64 n, i64 d, double scale,
                               double* gradient) {
    __shared__ typename SumReduce::TempStorage scratch;
    const i64 k = blockIdx.x % d;
    const i64 p = blockIdx.x / d;
    const double* x = X + k * n;
    const double* w = W + p * n * n;
    double sum = 0.0;
    for (i64 e = threadIdx.x; e < n * n; e += kThreads)
        sum += w[e] * rules::alignment_term(true, scale, x[e % n], x[e / n]);
    const double total = SumReduce(scratch).Sum(sum);
    if (threadIdx.x == 0) gradient[blockIdx.x] = -total;
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

void weight_columns(const double* X, i64 n, i64 d, const double* Theta, i64 P, double* Xt,
                    cudaStream_t stream) {
    if (n * d * P == 0) return;
    weight_columns_kernel<<<blocks_for(n * d * P), kThreads, 0, stream>>>(X, n, d, Theta, P, Xt);
    ZN_CUDA_CHECK_LAUNCH("weight_columns_kernel");
}

void weighted_norms(const double* X, const double* Xt, i64 n, i64 d, i64 P, double* q,
                    cudaStream_t stream) {
    if (n * P == 0) return;
    weighted_norms_kernel<<<blocks_for(n * P), kThreads, 0, stream>>>(X, Xt, n, d, P, q);
    ZN_CUDA_CHECK_LAUNCH("weighted_norms_kernel");
}

void gaussian_pair_weights(const double* Y, const double* q, i64 n, i64 P, double scale,
                           double* G, cudaStream_t stream) {
    if (n * P == 0) return;
    gaussian_pair_weights_kernel<<<blocks_for(n * n * P), kThreads, 0, stream>>>(Y, q, n, P,
                                                                                 scale, G);
    ZN_CUDA_CHECK_LAUNCH("gaussian_pair_weights_kernel");
}

void chi_square_pair_weights(const double* X, const double* Y, const double* Theta, i64 n, i64 d,
                             i64 P, double scale, double* W, cudaStream_t stream) {
    if (n * P == 0) return;
    chi_square_pair_weights_kernel<<<blocks_for(n * n * P), kThreads, 0, stream>>>(
        X, Y, Theta, n, d, P, scale, W);
    ZN_CUDA_CHECK_LAUNCH("chi_square_pair_weights_kernel");
}

void column_sums(const double* A, i64 rows, i64 cols, double* out, cudaStream_t stream) {
    if (cols == 0) return;
    const unsigned blocks = one_block_each(cols, "column_sums_kernel");
    column_sums_kernel<<<blocks, kThreads, 0, stream>>>(A, rows, out);
    ZN_CUDA_CHECK_LAUNCH("column_sums_kernel");
}

void gaussian_alignment_gradient(const double* X, const double* r, const double* M, i64 n, i64 d,
                                 i64 P, double scale, double* gradient, cudaStream_t stream) {
    if (d * P == 0) return;
    const unsigned blocks = one_block_each(d * P, "gaussian_gradient_kernel");
    gaussian_gradient_kernel<<<blocks, kThreads, 0, stream>>>(X, r, M, n, d, scale, gradient);
    ZN_CUDA_CHECK_LAUNCH("gaussian_gradient_kernel");
}

void chi_square_alignment_gradient(const double* X, const double* W, i64 n, i64 d, i64 P,
                                   double scale, double* gradient, cudaStream_t stream) {
    if (d * P == 0) return;
    const unsigned blocks = one_block_each(d * P, "chi_square_gradient_kernel");
    chi_square_gradient_kernel<<<blocks, kThreads, 0, stream>>>(X, W, n, d, scale, gradient);
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
