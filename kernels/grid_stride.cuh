// Launch shape of the grid-stride elementwise kernels (elementwise.cu, alignment.cu): 256
// threads per block, at most 2^20 blocks, 64-bit element counts. Device code: include from .cu
// files only.
#pragma once

#include "device_ops.hpp"

namespace zeronorm::cuda_detail::grid {

constexpr int kThreads = 256;
constexpr i64 kMaxBlocks = i64{1} << 20;

inline int blocks_for(i64 work) {
    const i64 b = (work + kThreads - 1) / kThreads;
    return static_cast<int>(b < 1 ? 1 : (b > kMaxBlocks ? kMaxBlocks : b));
}

__device__ inline i64 global_thread() {
    return static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ inline i64 grid_stride() { return static_cast<i64>(gridDim.x) * blockDim.x; }

}  // namespace zeronorm::cuda_detail::grid
