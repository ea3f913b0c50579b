// SMO on precomputed kernels in device memory, every problem of a batch in ONE launch: a block
// runs the whole iteration loop of smo_device.cuh for its problem (WSS2 selection by two
// block-wide reductions, the two-variable update by thread 0, the gradient update spread over
// the block); beta and G live in global memory, thread t owns G[t], G[t + blockDim], ... and
// only the outcome scalars are written at the end. No shrinking. A lone large problem gets a
// block of smo_lone_threads, several share the launch with smo_batch_threads each, and small
// ones run on one warp each with their data staged in shared memory (launch_rules.hpp).
#include "cuda_check.cuh"
#include "device_ops.hpp"
#include "smo_device.cuh"

namespace zeronorm::cuda_detail {
namespace {

using launch_rules::smo_batch_threads;
using launch_rules::smo_lone_threads;
static_assert(smo_lone_threads % 32 == 0 && smo_lone_threads <= 1024, "SMO block size");
static_assert(smo_batch_threads % 32 == 0 && smo_batch_threads <= 1024, "batched SMO block size");
constexpr unsigned kFullMask = 0xffffffffu;

__device__ SmoSelectI shfl_down(const SmoSelectI& v, int offset) {
    return SmoSelectI{__shfl_down_sync(kFullMask, v.Gmax, offset),
                      __shfl_down_sync(kFullMask, v.i, offset)};
}

__device__ SmoSelectJ shfl_down(const SmoSelectJ& v, int offset) {
    return SmoSelectJ{__shfl_down_sync(kFullMask, v.obj_min, offset),
                      __shfl_down_sync(kFullMask, v.j, offset),
                      __shfl_down_sync(kFullMask, v.Gmax2, offset)};
}

template <class T>
__device__ T warp_reduce(T v) {
    for (int offset = 16; offset > 0; offset /= 2) v = smo_combine(v, shfl_down(v, offset));
    return v;
}

__device__ SmoSelectI broadcast_lane0(const SmoSelectI& v) {
    return SmoSelectI{__shfl_sync(kFullMask, v.Gmax, 0), __shfl_sync(kFullMask, v.i, 0)};
}

__device__ SmoSelectJ broadcast_lane0(const SmoSelectJ& v) {
    return SmoSelectJ{__shfl_sync(kFullMask, v.obj_min, 0), __shfl_sync(kFullMask, v.j, 0),
                      __shfl_sync(kFullMask, v.Gmax2, 0)};
}

// The barrier among the threads of one problem: the warp when one warp solves it.
template <int Threads>
__device__ void problem_sync() {
    if constexpr (Threads == 32) {
        __syncwarp();
    } else {
        __syncthreads();
    }
}

// Block-wide reduction of one value per thread over Warps warps; every thread gets the result.
// `partials` (one per warp) and `result` are shared memory owned by this call site. The two
// barriers also order this reduction against the previous and next uses of the same slots.
// One warp: shuffles only.
template <int Warps, class T>
__device__ T block_reduce(T v, T identity, T* partials, T* result) {
    if constexpr (Warps == 1) {
        return broadcast_lane0(warp_reduce(v));
    }
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int warp = static_cast<int>(threadIdx.x) >> 5;
    v = warp_reduce(v);
    if (lane == 0) partials[warp] = v;
    __syncthreads();
    if (warp == 0) {
        T w = lane < Warps ? partials[lane] : identity;
        w = warp_reduce(w);
        if (lane == 0) *result = w;
    }
    __syncthreads();
    return *result;
}

// smo_device.cuh's Block on Threads threads (one warp: shuffles and warp barriers only). The
// shared slots are this block's; each reduction's two barriers also order it against the
// previous and next uses of its slots, and the step's slot is rewritten only after the
// gradient update's barrier and the next two reductions.
template <int Threads>
class SmoThreadBlock {
public:
    template <class F>
    __device__ void each(F f) {
        f(static_cast<int>(threadIdx.x), Threads);
        problem_sync<Threads>();
    }
    template <class F, class T>  // T: SmoSelectI or SmoSelectJ
    __device__ T select(F f, T identity) {
        __shared__ T partials[kWarps];  // one pair of slots for each call site
        __shared__ T result;
        return block_reduce<kWarps>(f(static_cast<int>(threadIdx.x), Threads), identity, partials,
                                    &result);
    }
    template <class F>
    __device__ SmoStep single(F f) {
        __shared__ SmoStep slot;
        if (threadIdx.x == 0) slot = f();
        problem_sync<Threads>();
        return slot;
    }

private:
    static constexpr int kWarps = Threads / 32;
};

// The whole SMO loop on one problem by one block of Threads threads, its outcome by thread 0.
template <int Threads>
__device__ void smo_block(const SmoDeviceProblem& p, SmoDeviceOutcome* outcome) {
    SmoThreadBlock<Threads> block;
    const SmoDeviceOutcome out = smo_solve_block(block, p);
    if (threadIdx.x == 0) *outcome = out;
}

// Problem q of a batch, in global memory.
__device__ SmoDeviceProblem batch_problem(const SmoDeviceBatch& b, i64 q) {
    const i64 n = b.n;
    SmoDeviceProblem p;
    p.K = b.K + q * n * n;
    p.y = b.y + q * n;
    p.beta = b.beta + q * n;
    p.G = b.G + q * n;
    p.QD = b.QD + q * n;
    p.Kv = b.Kv != nullptr ? b.Kv + q * n : nullptr;
    p.linear = b.linear != nullptr ? b.linear + q * n : nullptr;
    p.n = b.n;
    p.C = b.C;
    p.ridge = b.ridge;
    p.tolerance = b.tolerance;
    p.max_iterations = b.max_iterations;
    return p;
}

// One block of Threads per problem of the batch; inactive problems return at once.
template <int Threads>
__global__ void __launch_bounds__(Threads)
    smo_batch_kernel(SmoDeviceBatch b, SmoDeviceOutcome* outcomes) {
    const i64 q = blockIdx.x;
    if (b.active != nullptr && b.active[q] == 0) return;
    smo_block<Threads>(batch_problem(b, q), outcomes + q);
}

// One warp per problem, its kernel and vectors staged in shared memory: no block barriers, the
// reductions are shuffles, and every load of the iteration loop is from shared memory. The
// iterates are those of smo_batch_kernel (same selection order, same arithmetic).
__global__ void __launch_bounds__(32)
    smo_warp_kernel(SmoDeviceBatch b, SmoDeviceOutcome* outcomes) {
    extern __shared__ double staged[];
    const i64 q = blockIdx.x;
    if (b.active != nullptr && b.active[q] == 0) return;
    const SmoDeviceProblem global = batch_problem(b, q);
    const int n = b.n;
    const int lane = static_cast<int>(threadIdx.x);
    const i64 nn = static_cast<i64>(n) * n;
    double* K = staged;
    double* y = K + nn;
    double* beta = y + n;
    double* G = beta + n;
    double* QD = G + n;
    double* Kv = QD + n;
    for (i64 e = lane; e < nn; e += 32) K[e] = global.K[e];
    for (int t = lane; t < n; t += 32) {
        y[t] = global.y[t];
        beta[t] = global.beta[t];
        if (global.Kv != nullptr) Kv[t] = global.Kv[t];
    }
    __syncwarp();
    SmoDeviceProblem p = global;
    p.K = K;
    p.y = y;
    p.beta = beta;
    p.G = G;
    p.QD = QD;
    p.Kv = global.Kv != nullptr ? Kv : nullptr;
    smo_block<32>(p, outcomes + q);
    __syncwarp();
    for (int t = lane; t < n; t += 32) {
        global.beta[t] = beta[t];
        global.G[t] = G[t];
    }
}

}  // namespace

// Small problems (the staged data within the device's default shared memory per block: n <= 75
// with 48 KB) take the one-warp kernel; larger ones a block on global memory: smo_batch_threads
// threads each when there are several, the whole smo_lone_threads block for a lone problem.
void smo_solve_batch(const SmoDeviceBatch& batch, SmoDeviceOutcome* outcomes,
                     const launch_rules::DeviceLimits& limits, cudaStream_t stream) {
    if (batch.problems == 0) return;
    const unsigned blocks = one_block_each(batch.problems, "smo_solve_batch");
    cudaFuncAttributes warp{};
    ZN_CUDA_TRY(cudaFuncGetAttributes(&warp, smo_warp_kernel));
    switch (launch_rules::smo_kernel_for(batch.n, batch.problems, warp.sharedSizeBytes, limits)) {
    case launch_rules::SmoKernel::Warp:
        smo_warp_kernel<<<blocks, 32, launch_rules::smo_warp_bytes(batch.n), stream>>>(batch,
                                                                                      outcomes);
        ZN_CUDA_CHECK_LAUNCH("smo_warp_kernel");
        break;
    case launch_rules::SmoKernel::LoneBlock:
        smo_batch_kernel<smo_lone_threads><<<1, smo_lone_threads, 0, stream>>>(batch, outcomes);
        ZN_CUDA_CHECK_LAUNCH("smo_batch_kernel<smo_lone_threads>");
        break;
    case launch_rules::SmoKernel::SharedBlocks:
        smo_batch_kernel<smo_batch_threads><<<blocks, smo_batch_threads, 0, stream>>>(batch,
                                                                                     outcomes);
        ZN_CUDA_CHECK_LAUNCH("smo_batch_kernel<smo_batch_threads>");
        break;
    }
}

}  // namespace zeronorm::cuda_detail
