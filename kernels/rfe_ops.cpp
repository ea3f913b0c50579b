// The CUDA backend's RFE elimination (elimination.cu, and scale_update.cu's segmented sort):
// per chunk of splits the criterion's keys, their order, the eliminated brought to the host as
// 4-byte rows and the survivors' columns gathered on the device, so neither W nor the next
// round's column positions cross the bus.
#include <algorithm>
#include <climits>
#include <vector>

#include "core/batch_shapes.hpp"
#include "cuda_context.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/ops/rfe_ops.hpp"

namespace zeronorm::cuda_detail {
namespace {

class CudaRfeOps final : public RfeOps {
public:
    explicit CudaRfeOps(CudaBackend& backend) : b_(backend) {}

    EliminationBatch eliminate_batch(const DeviceMatrix& X, const DeviceMatrix& W, Index remove,
                                     Index report_from, bool gather_survivors) override {
        OpScope scope(b_, "rfe.eliminate_batch");
        detail::check_eliminate_batch(X, W, remove, report_from);
        b_.require_device_memory(X, "X", "eliminate_batch");
        b_.require_device_memory(W, "W", "eliminate_batch");
        const Index r = W.rows(), P = W.cols(), kept = r - remove, reported = r - report_from;
        EliminationBatch out;
        out.order_tail.resize(std::size_t(P));
        if (gather_survivors)
            out.survivors = b_.allocate_matrix(X.rows(), kept * P, true, "eliminate_batch");
        if (r == 0 || P == 0) return out;
        ZN_EXPECTS(r <= INT_MAX, "eliminate_batch: " << r << " features exceed the sort's range (int)");
        constexpr Index kEntriesPerSort = Index{1} << 26;  // as top_rows
        const Index chunk = std::max<Index>(1, kEntriesPerSort / r);
        for (Index first = 0; first < P; first += chunk) {
            const Index Q = std::min(chunk, P - first);
            const auto entries = static_cast<std::size_t>(r * Q);
            DeviceBuffer<double> keys_in(entries, b_.memory()), keys_out(entries, b_.memory());
            DeviceBuffer<int> rows_in(entries, b_.memory()), rows_out(entries, b_.memory());
            const std::size_t sort_bytes = descending_column_order_scratch(r, Q);
            DeviceBuffer<char> sort_scratch(std::max<std::size_t>(sort_bytes, 1), b_.memory());
            ZN_CUDA_TRY(cudaMemsetAsync(rows_out.get(), 0xFF, entries * sizeof(int), b_.stream()));
            {
                const LaunchTimer timer(b_, "rfe order");
                criterion_keys(W.data() + first * r, i64(entries), keys_in.get(), b_.stream());
                descending_column_order(keys_in.get(), r, Q, keys_out.get(), rows_in.get(),
                                        rows_out.get(), sort_scratch.get(), sort_bytes,
                                        b_.stream());
            }
            std::vector<int> tail(static_cast<std::size_t>(reported * Q));
            if (reported > 0) {
                ZN_CUDA_TRY(cudaMemcpy2DAsync(
                    tail.data(), std::size_t(reported) * sizeof(int), rows_out.get() + report_from,
                    std::size_t(r) * sizeof(int), std::size_t(reported) * sizeof(int),
                    std::size_t(Q), cudaMemcpyDeviceToHost, b_.stream()));
                if (OpProfile* profile = b_.profile())
                    profile->to_host(std::int64_t(tail.size() * sizeof(int)));
            }
            int selected = int(kept * Q);
            if (gather_survivors && kept > 0) {
                DeviceBuffer<char> flags(entries, b_.memory());
                DeviceBuffer<i64> positions(std::size_t(kept * Q), b_.memory());
                DeviceBuffer<int> count(1, b_.memory());
                const std::size_t select_bytes = survivor_positions_scratch(i64(entries));
                DeviceBuffer<char> select_scratch(std::max<std::size_t>(select_bytes, 1),
                                                  b_.memory());
                survivor_positions(rows_out.get(), r, Q, remove, first * r, flags.get(),
                                   positions.get(), count.get(), select_scratch.get(),
                                   select_bytes, b_.stream());
                gather_columns(X.data(), X.rows(), positions.get(), kept * Q,
                               out.survivors.data() + first * kept * X.rows(), b_.stream());
                b_.copy_to_host(&selected, count.get(), 1);
            }
            b_.sync();
            ZN_EXPECTS(selected == kept * Q, "eliminate_batch: " << selected << " survivors, not "
                                                                 << kept * Q);
            for (Index q = 0; q < Q; ++q) {
                const auto from = tail.begin() + q * reported;
                out.order_tail[std::size_t(first + q)].assign(from, from + reported);
            }
        }
        return out;
    }

private:
    CudaBackend& b_;
};

}  // namespace

std::unique_ptr<RfeOps> make_rfe_ops(CudaBackend& backend) {
    return std::make_unique<CudaRfeOps>(backend);
}

}  // namespace zeronorm::cuda_detail
