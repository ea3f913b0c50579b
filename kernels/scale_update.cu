// The AROM multiplicative update for a batch of feature scalings (Backend::
// multiplicative_update_batch): one thread block per column, two passes over its d entries
// (the largest u, then normalise, prune and count), block reductions by CUB. The arithmetic is
// the one-problem update's (arom_update): u_j = z_j |z_j w_j|, then u_j / max(u).
// And the order of the scales' rows that top_rows reads its selections from.
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cmath>

#include "core/scalar_rules.hpp"
#include "cuda_check.cuh"
#include "device_ops.hpp"
#include "grid_stride.cuh"

namespace zeronorm::cuda_detail {
namespace {

constexpr int kThreads = 256;

struct MaxOp {
    __device__ double operator()(double a, double b) const { return a > b ? a : b; }
};

__global__ void __launch_bounds__(kThreads)
    multiplicative_update_kernel(const double* Z, const double* W, i64 d, const int* update,
                                 double prune_tolerance, double* normalized, double* next,
                                 ScaleUpdateOutcome* outcomes) {
    using DoubleReduce = cub::BlockReduce<double, kThreads>;
    using IntReduce = cub::BlockReduce<i64, kThreads>;
    __shared__ union {
        typename DoubleReduce::TempStorage real;
        typename IntReduce::TempStorage count;
    } scratch;
    __shared__ double s_top;
    __shared__ int s_degenerate;

    const i64 p = blockIdx.x;
    const double* z = Z + p * d;
    const double* w = W + p * d;
    double* out_normalized = normalized + p * d;
    double* out_next = next + p * d;
    ScaleUpdateOutcome outcome{};

    bool copy = update[p] == 0;
    if (!copy) {
        double top = 0.0;
        int bad = 0;
        for (i64 j = threadIdx.x; j < d; j += kThreads) {
            const double u = rules::arom_unnormalized(z[j], fabs(z[j] * w[j]));
            if (!isfinite(u)) bad = 1;
            else if (u > top) top = u;
        }
        const double block_top = DoubleReduce(scratch.real).Reduce(top, MaxOp());
        __syncthreads();
        const int any_bad = __syncthreads_or(bad);
        if (threadIdx.x == 0) {
            s_top = block_top;
            s_degenerate = rules::arom_degenerate(block_top, any_bad != 0);
        }
        __syncthreads();
        copy = s_degenerate != 0;
        outcome.degenerate = copy ? 1 : 0;
    }
    if (copy) {
        for (i64 j = threadIdx.x; j < d; j += kThreads) {
            out_normalized[j] = z[j];
            out_next[j] = z[j];
        }
        if (threadIdx.x == 0) outcomes[p] = outcome;
        return;
    }
    const double top = s_top;
    double change = 0.0;
    i64 survivors = 0;
    for (i64 j = threadIdx.x; j < d; j += kThreads) {
        const rules::AromEntry entry = rules::arom_entry(
            rules::arom_unnormalized(z[j], fabs(z[j] * w[j])), top, z[j], prune_tolerance);
        out_normalized[j] = entry.normalized;
        out_next[j] = entry.next;
        survivors += entry.keep ? 1 : 0;
        if (entry.change > change) change = entry.change;
    }
    const double block_change = DoubleReduce(scratch.real).Reduce(change, MaxOp());
    __syncthreads();
    const i64 block_survivors = IntReduce(scratch.count).Sum(survivors);
    if (threadIdx.x == 0) {
        outcome.max_change = block_change;
        outcome.survivors = block_survivors;
        outcomes[p] = outcome;
    }
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
