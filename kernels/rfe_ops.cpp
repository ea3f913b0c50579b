// The CUDA backend's RFE elimination (elimination.cu, and the segmented sort of ColumnOrder):
// per chunk of splits the criterion's keys, their order, the eliminated brought to the host as
// 4-byte rows and the survivors' columns gathered on the device, so neither W nor the next
// round's column positions cross the bus.
#include <algorithm>
#include <string>
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
        if (r == 0 || P == 0) {
            b_.sync();  // the survivors' poisoning: its errors are this call's
            return out;
        }
        const Index chunk = ColumnOrder::max_columns(r);
        for (Index first = 0; first < P; first += chunk) {
            const Index Q = std::min(chunk, P - first);
            const auto entries = static_cast<std::size_t>(r * Q);
            DeviceBuffer<double> keys(entries, b_.memory());
            criterion_keys(W.data() + first * r, i64(entries), keys.get(), b_.stream());
            ColumnOrder order(b_, keys.get(), r, Q, "rfe order");
            int selected = int(kept * Q);
            if (gather_survivors && kept > 0) {
                DeviceBuffer<char> flags(entries, b_.memory());
                DeviceBuffer<i64> positions(std::size_t(kept * Q), b_.memory());
                DeviceBuffer<int> count(1, b_.memory());
                const std::size_t select_bytes = survivor_positions_scratch(i64(entries));
                DeviceBuffer<char> select_scratch(std::max<std::size_t>(select_bytes, 1),
                                                  b_.memory());
                survivor_positions(order.rows(), r, Q, remove, first * r, flags.get(),
                                   positions.get(), count.get(), select_scratch.get(),
                                   select_bytes, b_.stream());
                gather_columns(X.data(), X.rows(), positions.get(), kept * Q,
                               out.survivors.data() + first * kept * X.rows(), b_.stream());
                b_.copy_to_host(&selected, count.get(), 1);
            }
            const std::vector<int> tail = order.download(report_from, reported);  // synchronises
            // The device's count against the host's: a disagreement is a fault of the kernels,
            // not of the caller's arguments.
            if (selected != kept * Q)
                throw CudaError("eliminate_batch: the device gathered " + std::to_string(selected) +
                                " survivors where " + std::to_string(kept * Q) + " remain");
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
