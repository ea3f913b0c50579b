// The CUDA backend's AROM operations (scale_update.cu).
#include <algorithm>
#include <climits>
#include <vector>

#include "core/batch_shapes.hpp"
#include "cuda_context.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/ops/arom_ops.hpp"

namespace zeronorm::cuda_detail {
namespace {

class CudaAromOps final : public AromOps {
public:
    explicit CudaAromOps(CudaBackend& backend) : b_(backend) {}

    // One launch; only the P outcomes come back to the host.
    std::vector<ScaleUpdate> multiplicative_update_batch(const DeviceMatrix& Z,
                                                         const DeviceMatrix& W,
                                                         const std::vector<char>& update,
                                                         double prune_tolerance,
                                                         DeviceMatrix& normalized,
                                                         DeviceMatrix& next) override {
        OpScope scope(b_, "arom.multiplicative_update_batch");
        detail::check_multiplicative_update_batch(Z, W, update, prune_tolerance, normalized, next);
        const char* where = "multiplicative_update_batch";
        b_.require_device_memory(Z, "Z", where);
        b_.require_device_memory(W, "W", where);
        b_.require_device_memory(normalized, "normalized", where);
        b_.require_device_memory(next, "next", where);
        const Index P = Z.cols();
        std::vector<ScaleUpdate> out(static_cast<std::size_t>(P));
        if (P == 0) return out;
        const std::vector<int> flags(update.begin(), update.end());
        DeviceBuffer<int> d_flags(flags.size(), b_.memory());
        DeviceBuffer<ScaleUpdateOutcome> d_outcomes(flags.size(), b_.memory());
        b_.copy_to_device(d_flags.get(), flags.data(), flags.size());
        // Zeroed: the kernel writes each outcome's fields, not the padding between them.
        ZN_CUDA_TRY(cudaMemsetAsync(d_outcomes.get(), 0, flags.size() * sizeof(ScaleUpdateOutcome),
                                    b_.stream()));
        {
            const LaunchTimer timer(b_, "multiplicative_update kernel");
            cuda_detail::multiplicative_update_batch(Z.data(), W.data(), Z.rows(), P,
                                                     d_flags.get(), prune_tolerance,
                                                     normalized.data(), next.data(),
                                                     d_outcomes.get(), b_.stream());
        }
        std::vector<ScaleUpdateOutcome> outcomes(flags.size());
        b_.copy_to_host(outcomes.data(), d_outcomes.get(), outcomes.size());
        b_.sync();
        for (Index p = 0; p < P; ++p) {
            const ScaleUpdateOutcome& o = outcomes[std::size_t(p)];
            out[std::size_t(p)] = ScaleUpdate{Index(o.survivors), o.max_change, o.degenerate != 0};
        }
        return out;
    }

    // The requested columns gathered and ordered on the device, a chunk of columns per
    // segmented sort; only each request's first counts[q] rows come back (W3: 4 KB for the
    // thousand best of a column instead of its 57 KB of scales).
    std::vector<IndexVector> top_rows(const DeviceMatrix& S, const IndexVector& columns,
                                      const IndexVector& counts) override {
        OpScope scope(b_, "arom.top_rows");
        detail::check_top_rows(S, columns, counts);
        b_.require_device_memory(S, "S", "top_rows");
        const Index d = S.rows();
        const auto requests = static_cast<Index>(columns.size());
        std::vector<IndexVector> out(columns.size());
        if (d == 0 || requests == 0) return out;
        const Index chunk = ColumnOrder::max_columns(d);
        for (Index first = 0; first < requests; first += chunk) {
            const Index Q = std::min(chunk, requests - first);
            const auto begin = columns.begin() + first;
            const Index r_max = *std::max_element(counts.begin() + first,
                                                  counts.begin() + first + Q);
            if (r_max == 0) continue;
            const DeviceMatrix G = b_.select_columns(S, IndexVector(begin, begin + Q));
            const std::vector<int> top =
                ColumnOrder(b_, G.data(), d, Q, "top_rows sort").download(0, r_max);
            for (Index q = 0; q < Q; ++q) {
                const auto from = top.begin() + q * r_max;
                out[std::size_t(first + q)].assign(from, from + counts[std::size_t(first + q)]);
            }
        }
        return out;
    }

private:
    CudaBackend& b_;
};

}  // namespace

Index ColumnOrder::max_columns(Index d) {
    ZN_EXPECTS(d <= INT_MAX, "column order: " << d << " rows exceed the sort's range (int)");
    // Per entry: the keys and their sorted copy (8 + 8 bytes), the rows in and out (4 + 4) and
    // CUB's ping-pong copies of both in its scratch (12): 2.25 GiB at 2^26 entries.
    constexpr Index kEntriesPerSort = Index{1} << 26;
    return std::max<Index>(1, kEntriesPerSort / std::max<Index>(d, 1));
}

ColumnOrder::ColumnOrder(CudaBackend& backend, const double* keys, Index d, Index Q,
                         const char* name)
    : b_(backend), d_(d), Q_(Q), rows_(static_cast<std::size_t>(d * Q), backend.memory()) {
    const auto entries = static_cast<std::size_t>(d * Q);
    if (entries == 0) return;
    DeviceBuffer<double> sorted_keys(entries, b_.memory());
    DeviceBuffer<int> rows_in(entries, b_.memory());
    const std::size_t scratch_bytes = descending_column_order_scratch(d, Q);
    DeviceBuffer<char> scratch(std::max<std::size_t>(scratch_bytes, 1), b_.memory());
    ZN_CUDA_TRY(cudaMemsetAsync(rows_.get(), 0xFF, entries * sizeof(int), b_.stream()));
    const LaunchTimer timer(b_, name);
    descending_column_order(keys, d, Q, sorted_keys.get(), rows_in.get(), rows_.get(),
                            scratch.get(), scratch_bytes, b_.stream());
}

std::vector<int> ColumnOrder::download(Index from, Index count) {
    std::vector<int> out(static_cast<std::size_t>(count * Q_));
    if (!out.empty()) {
        ZN_CUDA_TRY(cudaMemcpy2DAsync(out.data(), std::size_t(count) * sizeof(int),
                                      rows_.get() + from, std::size_t(d_) * sizeof(int),
                                      std::size_t(count) * sizeof(int), std::size_t(Q_),
                                      cudaMemcpyDeviceToHost, b_.stream()));
        if (OpProfile* profile = b_.profile())
            profile->to_host(std::int64_t(out.size() * sizeof(int)));
    }
    b_.sync();
    return out;
}

std::unique_ptr<AromOps> make_arom_ops(CudaBackend& backend) {
    return std::make_unique<CudaAromOps>(backend);
}

}  // namespace zeronorm::cuda_detail
