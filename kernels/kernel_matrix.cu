// Kernel-matrix kernels. The dot-product kernels (linear, polynomial, sum of powers, RBF) are a
// GEMM/SYRK done by cuBLAS in cuda_backend.cpp followed by one elementwise pass here; chi-square
// has no GEMM form and is a direct tiled kernel.
//
// Launch shapes:
//   transform_gram            1-D grid-stride, 256 threads, one element per thread-step.
//   transform_gram_symmetric  32 x 32 tiles of K, blocks of 32 x 8 threads; only tiles on or below
//                             the diagonal work: each reads its lower-triangle dot products once,
//                             writes the kernel values to itself and, transposed through shared
//                             memory, to the mirror tile above the diagonal (coalesced both ways).
//   chi2_kernel_matrix        32 x 32 output tiles, blocks of 32 x 8 threads (4 outputs each),
//                             features streamed through shared memory 32 at a time.
#include <cmath>

#include "cuda_check.cuh"
#include "device_ops.hpp"
#include "kernel_functions.cuh"

namespace zeronorm::cuda_detail {
namespace {

constexpr int kThreads = 256;
constexpr i64 kMaxBlocks = i64{1} << 20;
constexpr i64 kMaxGridY = 65535;

// K is m x (l batch); block p's norms are norms_a + p m and norms_b + p l. Column j of K is
// column j % l of block j / l, so the norms of b are simply norms_b[j].
__global__ void transform_gram_kernel(KernelParams kp, double* K, i64 m, i64 l, i64 batch,
                                      const double* norms_a, const double* norms_b) {
    const i64 total = m * l * batch;
    const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
    const bool rbf = kp.type == DeviceKernel::Rbf;
    for (i64 e = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += stride) {
        const i64 i = e % m;
        const i64 j = e / m;
        const double na = rbf ? norms_a[i + (j / l) * m] : 0.0;
        const double nb = rbf ? norms_b[j] : 0.0;
        K[e] = kernel_from_dot(kp, K[e], na, nb, false);
    }
}

// Block (first + blockIdx.z) of a batch of n x n kernels.
__global__ void transform_gram_symmetric_kernel(KernelParams kp, double* K, i64 n,
                                                const double* norms, i64 first) {
    const i64 bi = blockIdx.x;  // tile row
    const i64 bj = blockIdx.y;  // tile column
    if (bi < bj) return;        // upper tiles are written by their mirror (whole block exits)
    const i64 p = first + blockIdx.z;
    K += p * n * n;
    if (norms != nullptr) norms += p * n;
    __shared__ Tile tile;
    const int tx = static_cast<int>(threadIdx.x);
    const int ty = static_cast<int>(threadIdx.y);
    sym_tile_load(kp, K, n, norms, bi, bj, tx, ty, tile);
    __syncthreads();
    sym_tile_store(K, n, bi, bj, tx, ty, tile);
}

__global__ void chi2_kernel(double gamma, const double* A, i64 m, const double* B, i64 l, i64 d,
                            double* K) {
    __shared__ Tile sa;
    __shared__ Tile sb;
    const int tx = static_cast<int>(threadIdx.x);
    const int ty = static_cast<int>(threadIdx.y);
    const i64 row0 = static_cast<i64>(blockIdx.x) * kTile;
    const i64 col0 = static_cast<i64>(blockIdx.y) * kTile;
    double acc[kPerThread];
    for (int r = 0; r < kPerThread; ++r) acc[r] = 0.0;
    for (i64 f0 = 0; f0 < d; f0 += kTile) {
        chi2_load(A, m, B, l, d, row0, col0, f0, tx, ty, sa, sb);
        __syncthreads();
        chi2_accumulate(d, f0, tx, ty, sa, sb, acc);
        __syncthreads();
    }
    chi2_store(gamma, K, m, l, row0, col0, tx, ty, acc);
}

i64 tiles(i64 n) { return (n + kTile - 1) / kTile; }

void expect_grid_y(i64 tiles_y, const char* what) {
    if (tiles_y > kMaxGridY) {
        throw InvalidArgument(std::string(what) + ": " + std::to_string(tiles_y * kTile) +
                              " columns exceed the kernel's grid limit");
    }
}

}  // namespace

void transform_gram(const KernelParams& params, double* K, i64 m, i64 l, const double* norms_a,
                    const double* norms_b, cudaStream_t stream) {
    transform_gram_batch(params, K, m, l, 1, norms_a, norms_b, stream);
}

void transform_gram_batch(const KernelParams& params, double* K, i64 m, i64 l, i64 batch,
                          const double* norms_a, const double* norms_b, cudaStream_t stream) {
    const i64 total = m * l * batch;
    if (total == 0 || params.type == DeviceKernel::Linear) return;
    i64 blocks = (total + kThreads - 1) / kThreads;
    if (blocks > kMaxBlocks) blocks = kMaxBlocks;
    transform_gram_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
        params, K, m, l, batch, norms_a, norms_b);
    ZN_CUDA_CHECK_LAUNCH("transform_gram_kernel");
}

void transform_gram_symmetric(const KernelParams& params, double* K, i64 n, const double* norms,
                              cudaStream_t stream) {
    transform_gram_symmetric_batch(params, K, n, 1, norms, stream);
}

void transform_gram_symmetric_batch(const KernelParams& params, double* K, i64 n, i64 batch,
                                    const double* norms, cudaStream_t stream) {
    if (n == 0) return;
    const i64 t = tiles(n);
    expect_grid_y(t, "kernel_matrix");
    const dim3 block(kTile, kTileRows);
    for (i64 first = 0; first < batch; first += kMaxGridY) {  // gridDim.z is at most 65535
        const i64 count = batch - first < kMaxGridY ? batch - first : kMaxGridY;
        const dim3 grid(static_cast<unsigned>(t), static_cast<unsigned>(t),
                        static_cast<unsigned>(count));
        transform_gram_symmetric_kernel<<<grid, block, 0, stream>>>(params, K, n, norms, first);
        ZN_CUDA_CHECK_LAUNCH("transform_gram_symmetric_kernel");
    }
}

void chi2_kernel_matrix(double gamma, const double* A, i64 m, const double* B, i64 l, i64 d,
                        double* K, cudaStream_t stream) {
    if (m == 0 || l == 0) return;
    expect_grid_y(tiles(l), "kernel_matrix (chi2)");
    const dim3 grid(static_cast<unsigned>(tiles(m)), static_cast<unsigned>(tiles(l)));
    const dim3 block(kTile, kTileRows);
    chi2_kernel<<<grid, block, 0, stream>>>(gamma, A, m, B, l, d, K);
    ZN_CUDA_CHECK_LAUNCH("chi2_kernel");
}

}  // namespace zeronorm::cuda_detail
