// RFE's elimination for a batch of splits (RfeOps::eliminate_batch): the criterion's keys for
// the order of scale_update.cu's segmented sort, and the positions of the survivors, compacted
// by CUB, for the gather of their columns.
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <cmath>

#include "cuda_check.cuh"
#include "device_ops.hpp"
#include "grid_stride.cuh"

namespace zeronorm::cuda_detail {
namespace {

// w^2 (the square the host's elimination orders by), NaN as -1: below every square, so the
// descending sort puts it last and keeps such entries in row order, as DescendingOrder does.
__global__ void criterion_keys_kernel(const double* W, i64 total, double* keys) {
    for (i64 k = grid::global_thread(); k < total; k += grid::grid_stride()) {
        const double square = W[k] * W[k];
        keys[k] = isnan(square) ? -1.0 : square;
    }
}

// Clears the flag of each column's eliminated rows: the last `remove` of its order.
__global__ void clear_eliminated_kernel(const int* order, i64 r, i64 Q, i64 remove,
                                        char* flags) {
    const i64 total = remove * Q;
    for (i64 e = grid::global_thread(); e < total; e += grid::grid_stride()) {
        const i64 q = e / remove;
        const i64 t = r - remove + e % remove;
        flags[q * r + order[q * r + t]] = 0;
    }
}

}  // namespace

void criterion_keys(const double* W, i64 total, double* keys, cudaStream_t stream) {
    if (total == 0) return;
    criterion_keys_kernel<<<grid::blocks_for(total), grid::kThreads, 0, stream>>>(W, total, keys);
    ZN_CUDA_CHECK_LAUNCH("criterion_keys_kernel");
}

std::size_t survivor_positions_scratch(i64 total) {
    std::size_t bytes = 0;
    ZN_CUDA_TRY(cub::DeviceSelect::Flagged(
        nullptr, bytes, thrust::counting_iterator<i64>(0), static_cast<char*>(nullptr),
        static_cast<i64*>(nullptr), static_cast<int*>(nullptr), static_cast<int>(total)));
    return bytes;
}

void survivor_positions(const int* order, i64 r, i64 Q, i64 remove, i64 first_position,
                        char* flags, i64* positions, int* count, void* scratch,
                        std::size_t scratch_bytes, cudaStream_t stream) {
    const i64 total = r * Q;
    if (total == 0) return;
    ZN_CUDA_TRY(cudaMemsetAsync(flags, 1, static_cast<std::size_t>(total), stream));
    if (remove > 0) {
        clear_eliminated_kernel<<<grid::blocks_for(remove * Q), grid::kThreads, 0, stream>>>(
            order, r, Q, remove, flags);
        ZN_CUDA_CHECK_LAUNCH("clear_eliminated_kernel");
    }
    ZN_CUDA_TRY(cub::DeviceSelect::Flagged(scratch, scratch_bytes,
                                           thrust::counting_iterator<i64>(first_position), flags,
                                           positions, count, static_cast<int>(total), stream));
}

}  // namespace zeronorm::cuda_detail
