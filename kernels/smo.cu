// SMO on a precomputed kernel in device memory, as ONE persistent kernel launch: a single block
// of kSmoThreads threads runs the whole iteration loop of smo_device.cuh (WSS2 selection by two
// block-wide reductions, the two-variable update by thread 0, the gradient update spread over
// the block). beta and G live in global memory; thread t owns G[t], G[t + blockDim], ...
// Only the outcome scalars are written at the end. No shrinking.
#include "cuda_check.cuh"
#include "device_ops.hpp"
#include "smo_device.cuh"

namespace zeronorm::cuda_detail {
namespace {

static_assert(kSmoThreads % 32 == 0 && kSmoThreads <= 1024, "SMO block size");
constexpr int kSmoWarps = kSmoThreads / 32;
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

// Block-wide reduction of one value per thread; every thread gets the result. `partials` (one
// per warp) and `result` are shared memory owned by this call site. The two barriers also order
// this reduction against the previous and next uses of the same shared slots.
template <class T>
__device__ T block_reduce(T v, T identity, T* partials, T* result) {
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int warp = static_cast<int>(threadIdx.x) >> 5;
    v = warp_reduce(v);
    if (lane == 0) partials[warp] = v;
    __syncthreads();
    if (warp == 0) {
        T w = lane < kSmoWarps ? partials[lane] : identity;
        w = warp_reduce(w);
        if (lane == 0) *result = w;
    }
    __syncthreads();
    return *result;
}

__global__ void __launch_bounds__(kSmoThreads, 1)
    smo_kernel(SmoDeviceProblem p, SmoDeviceOutcome* outcome) {
    __shared__ SmoSelectI s_i_partials[kSmoWarps];
    __shared__ SmoSelectI s_i_result;
    __shared__ SmoSelectJ s_j_partials[kSmoWarps];
    __shared__ SmoSelectJ s_j_result;
    __shared__ SmoStep s_step;

    const int tid = static_cast<int>(threadIdx.x);
    const int n_threads = static_cast<int>(blockDim.x);

    smo_init_thread(p, tid, n_threads);
    __syncthreads();

    i64 iter = 0;
    int status = kSmoConverged;
    SmoSelectI si = smo_identity_i();
    SmoSelectJ sj = smo_identity_j();
    // All branch conditions below depend only on block-wide values read from shared memory,
    // so every thread takes the same path through the barriers.
    for (;;) {
        si = block_reduce(smo_select_i_thread(p, tid, n_threads), smo_identity_i(),
                          s_i_partials, &s_i_result);
        sj = block_reduce(smo_select_j_thread(p, si.i, si.Gmax, tid, n_threads),
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

}  // namespace

void smo_solve(const SmoDeviceProblem& problem, SmoDeviceOutcome* outcome, cudaStream_t stream) {
    smo_kernel<<<1, kSmoThreads, 0, stream>>>(problem, outcome);
    ZN_CUDA_CHECK_LAUNCH("smo_kernel");
}

}  // namespace zeronorm::cuda_detail
