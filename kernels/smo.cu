// SMO on a precomputed kernel in device memory, as ONE persistent kernel launch: a single block
// of kSmoThreads threads runs the whole iteration loop of smo_device.cuh (WSS2 selection by two
// block-wide reductions, the two-variable update by thread 0, the gradient update spread over
// the block). beta and G live in global memory; thread t owns G[t], G[t + blockDim], ...
// Only the outcome scalars are written at the end. No shrinking.
// A batch of small problems runs the same loop with one block of kSmoBatchThreads per problem,
// all in one launch.
#include "cuda_check.cuh"
#include "device_ops.hpp"
#include "smo_device.cuh"

namespace zeronorm::cuda_detail {
namespace {

static_assert(kSmoThreads % 32 == 0 && kSmoThreads <= 1024, "SMO block size");
static_assert(kSmoBatchThreads % 32 == 0 && kSmoBatchThreads <= 1024, "batched SMO block size");
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

// Block-wide reduction of one value per thread over Warps warps; every thread gets the result.
// `partials` (one per warp) and `result` are shared memory owned by this call site. The two
// barriers also order this reduction against the previous and next uses of the same slots.
template <int Warps, class T>
__device__ T block_reduce(T v, T identity, T* partials, T* result) {
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

// The whole SMO loop on one problem by one block of Threads threads (smo_device.cuh phases).
template <int Threads>
__device__ void smo_block(const SmoDeviceProblem& p, SmoDeviceOutcome* outcome) {
    constexpr int kWarps = Threads / 32;
    __shared__ SmoSelectI s_i_partials[kWarps];
    __shared__ SmoSelectI s_i_result;
    __shared__ SmoSelectJ s_j_partials[kWarps];
    __shared__ SmoSelectJ s_j_result;
    __shared__ SmoStep s_step;

    const int tid = static_cast<int>(threadIdx.x);
    const int n_threads = Threads;

    smo_init_thread(p, tid, n_threads);
    __syncthreads();

    i64 iter = 0;
    int status = kSmoConverged;
    SmoSelectI si = smo_identity_i();
    SmoSelectJ sj = smo_identity_j();
    // All branch conditions below depend only on block-wide values read from shared memory,
    // so every thread takes the same path through the barriers.
    for (;;) {
        si = block_reduce<kWarps>(smo_select_i_thread(p, tid, n_threads), smo_identity_i(),
                                  s_i_partials, &s_i_result);
        sj = block_reduce<kWarps>(smo_select_j_thread(p, si.i, si.Gmax, tid, n_threads),
                                  smo_identity_j(), s_j_partials, &s_j_result);
        const double gap = si.Gmax + sj.Gmax2;
        if (sj.j < 0 || gap <= p.tolerance) {
            status = kSmoConverged;
            break;
        }
        if (iter >= p.max_iterations) {
            status = kSmoIterationCap;
            break;
        }
        if (tid == 0) s_step = smo_update_pair(p, si.i, sj.j);
        __syncthreads();
        const SmoStep step = s_step;
        smo_update_gradient_thread(p, si.i, sj.j, step, tid, n_threads);
        ++iter;
        __syncthreads();
    }

    if (tid == 0) {
        SmoDeviceOutcome out;
        out.iterations = iter;
        out.gap = si.Gmax + sj.Gmax2;
        out.status = status;
        out.i = si.i;
        out.j = sj.j;
        *outcome = out;
    }
}

__global__ void __launch_bounds__(kSmoThreads, 1)
    smo_kernel(SmoDeviceProblem p, SmoDeviceOutcome* outcome) {
    smo_block<kSmoThreads>(p, outcome);
}

// One block per problem of the batch; inactive problems return at once.
__global__ void __launch_bounds__(kSmoBatchThreads)
    smo_batch_kernel(SmoDeviceBatch b, SmoDeviceOutcome* outcomes) {
    const i64 q = blockIdx.x;
    if (b.active != nullptr && b.active[q] == 0) return;
    const i64 n = b.n;
    SmoDeviceProblem p;
    p.K = b.K + q * n * n;
    p.y = b.y + q * n;
    p.beta = b.beta + q * n;
    p.G = b.G + q * n;
    p.QD = b.QD + q * n;
    p.Kv = b.Kv != nullptr ? b.Kv + q * n : nullptr;
    p.n = b.n;
    p.C = b.C;
    p.ridge = b.ridge;
    p.tolerance = b.tolerance;
    p.max_iterations = b.max_iterations;
    smo_block<kSmoBatchThreads>(p, outcomes + q);
}

}  // namespace

void smo_solve(const SmoDeviceProblem& problem, SmoDeviceOutcome* outcome, cudaStream_t stream) {
    smo_kernel<<<1, kSmoThreads, 0, stream>>>(problem, outcome);
    ZN_CUDA_CHECK_LAUNCH("smo_kernel");
}

void smo_solve_batch(const SmoDeviceBatch& batch, SmoDeviceOutcome* outcomes, cudaStream_t stream) {
    if (batch.problems == 0) return;
    smo_batch_kernel<<<static_cast<unsigned>(batch.problems), kSmoBatchThreads, 0, stream>>>(
        batch, outcomes);
    ZN_CUDA_CHECK_LAUNCH("smo_batch_kernel");
}

}  // namespace zeronorm::cuda_detail
