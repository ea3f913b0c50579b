// The AROM multiplicative update for a batch of feature scalings (AromOps::
// multiplicative_update_batch): one thread block per column running scale_update_device.cuh's
// update with barriers and CUB block reductions. And the order of the scales' rows that
// top_rows reads its selections from.
#include <cub/device/device_segmented_radix_sort.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "cuda_check.cuh"
#include "device_ops.hpp"
#include "grid_stride.cuh"
#include "scale_update_device.cuh"
#include "thread_block.cuh"

namespace zeronorm::cuda_detail {
namespace {

constexpr int kThreads = 256;

using Block = ThreadBlock<kThreads>;

__global__ void __launch_bounds__(kThreads)
    multiplicative_update_kernel(const double* Z, const double* W, i64 d, const int* update,
                                 double prune_tolerance, double* normalized, double* next,
                                 ScaleUpdateOutcome* outcomes) {
    __shared__ Block::Reduce::TempStorage storage;
    __shared__ double slot;
    const i64 p = blockIdx.x;
    ScaleUpdateColumn column;
    column.z = Z + p * d;
    column.w = W + p * d;
    column.normalized = normalized + p * d;
    column.next = next + p * d;
    column.d = d;
    column.update = update[p] != 0;
    column.prune_tolerance = prune_tolerance;
    Block block(storage, slot);
    const ScaleUpdateOutcome outcome = scale_update_block(block, column);
    if (threadIdx.x == 0) outcomes[p] = outcome;
}

// Row number of every entry of a d x Q column-major matrix.
__global__ void row_numbers_kernel(int* rows, i64 d, i64 total) {
    for (i64 k = grid::global_thread(); k < total; k += grid::grid_stride())
        rows[k] = static_cast<int>(k % d);
}

// Where column q starts (and q - 1 ends) in a d x Q column-major matrix.
struct ColumnStart {
    int d;
    __host__ __device__ int operator()(int q) const { return q * d; }
};

using ColumnStarts =
    thrust::transform_iterator<ColumnStart, thrust::counting_iterator<int>>;

ColumnStarts column_starts(i64 d) {
    return ColumnStarts(thrust::counting_iterator<int>(0), ColumnStart{static_cast<int>(d)});
}

}  // namespace

std::size_t descending_column_order_scratch(i64 d, i64 Q) {
    std::size_t bytes = 0;
    const ColumnStarts starts = column_starts(d);
    ZN_CUDA_TRY(cub::DeviceSegmentedRadixSort::SortPairsDescending(
        nullptr, bytes, static_cast<const double*>(nullptr), static_cast<double*>(nullptr),
        static_cast<const int*>(nullptr), static_cast<int*>(nullptr), static_cast<int>(d * Q),
        static_cast<int>(Q), starts, starts + 1));
    return bytes;
}

void descending_column_order(const double* G, i64 d, i64 Q, double* keys_out, int* rows_in,
                             int* rows_out, void* scratch, std::size_t scratch_bytes,
                             cudaStream_t stream) {
    const i64 total = d * Q;
    if (total == 0) return;
    row_numbers_kernel<<<grid::blocks_for(total), grid::kThreads, 0, stream>>>(rows_in, d, total);
    ZN_CUDA_CHECK_LAUNCH("row_numbers_kernel");
    const ColumnStarts starts = column_starts(d);
    ZN_CUDA_TRY(cub::DeviceSegmentedRadixSort::SortPairsDescending(
        scratch, scratch_bytes, G, keys_out, rows_in, rows_out, static_cast<int>(total),
        static_cast<int>(Q), starts, starts + 1, 0, int(sizeof(double) * 8), stream));
}

void multiplicative_update_batch(const double* Z, const double* W, i64 d, i64 P,
                                 const int* update, double prune_tolerance, double* normalized,
                                 double* next, ScaleUpdateOutcome* outcomes, cudaStream_t stream) {
    if (P == 0) return;
    const unsigned blocks = one_block_each(P, "multiplicative_update_kernel");
    multiplicative_update_kernel<<<blocks, kThreads, 0, stream>>>(Z, W, d, update, prune_tolerance,
                                                                  normalized, next, outcomes);
    ZN_CUDA_CHECK_LAUNCH("multiplicative_update_kernel");
}

}  // namespace zeronorm::cuda_detail
