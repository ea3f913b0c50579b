// The Block of newton_device.cuh and scale_update_device.cuh on a CUDA thread block of Threads
// threads: each step ends in a barrier, reductions by CUB. `slot` broadcasts a value from
// thread 0; the barrier after its read lets the next step reuse it (and CUB's storage).
#pragma once

#include <cub/block/block_reduce.cuh>

namespace zeronorm::cuda_detail {

template <int Threads>
class ThreadBlock {
public:
    using Reduce = cub::BlockReduce<double, Threads>;

    __device__ ThreadBlock(typename Reduce::TempStorage& storage, double& slot)
        : storage_(storage), slot_(slot) {}

    template <class F>
    __device__ void each(F f) {
        f(static_cast<int>(threadIdx.x), Threads);
        __syncthreads();
    }
    template <class F>
    __device__ double single(F f) {
        if (threadIdx.x == 0) slot_ = f();
        return broadcast();
    }
    template <class F>
    __device__ double sum(F f) {
        return reduce(f(static_cast<int>(threadIdx.x), Threads), Sum());
    }
    template <class F>
    __device__ double max(F f) {
        return reduce(f(static_cast<int>(threadIdx.x), Threads), Max());
    }
    template <class F>
    __device__ double min(F f) {
        return reduce(f(static_cast<int>(threadIdx.x), Threads), Min());
    }
    template <class F>
    __device__ bool any(F f) {
        return __syncthreads_or(f(static_cast<int>(threadIdx.x), Threads) ? 1 : 0) != 0;
    }

private:
    struct Sum {
        __device__ double operator()(double a, double b) const { return a + b; }
    };
    // A NaN on the right never wins.
    struct Max {
        __device__ double operator()(double a, double b) const { return a > b ? a : b; }
    };
    struct Min {
        __device__ double operator()(double a, double b) const { return a < b ? a : b; }
    };

    template <class Op>
    __device__ double reduce(double v, Op op) {
        const double r = Reduce(storage_).Reduce(v, op);
        if (threadIdx.x == 0) slot_ = r;
        return broadcast();
    }
    __device__ double broadcast() {
        __syncthreads();
        const double v = slot_;
        __syncthreads();
        return v;
    }

    typename Reduce::TempStorage& storage_;
    double& slot_;
};

}  // namespace zeronorm::cuda_detail
