// The CPU backend's RFE elimination: the host's order of the criterion (order_descending_from,
// as the one-problem elimination orders it) split by split on the hardware's threads.
#include "core/batch_shapes.hpp"
#include "core/thread_pool.hpp"
#include "cpu_backend.hpp"
#include "methods/selection_common.hpp"
#include "zeronorm/core/ops/rfe_ops.hpp"

namespace zeronorm::cpu {
namespace {

class CpuRfeOps final : public RfeOps {
public:
    EliminationBatch eliminate_batch(const DeviceMatrix& X, const DeviceMatrix& W, Index remove,
                                     Index report_from, bool gather_survivors) override {
        detail::check_eliminate_batch(X, W, remove, report_from);
        const Index r = W.rows(), P = W.cols(), kept = r - remove;
        EliminationBatch out;
        out.order_tail.resize(std::size_t(P));
        if (gather_survivors) out.survivors = allocate_host(X.rows(), kept * P);
        detail::parallel_for(std::size_t(P), 0, [&](std::size_t p) {
            const Vector criterion = view(W).col(Index(p)).array().square().matrix();
            IndexVector& tail = out.order_tail[p];
            tail = detail::order_descending_from(criterion, report_from);
            if (!gather_survivors) return;
            std::vector<char> eliminated(std::size_t(r), 0);
            for (auto it = tail.end() - std::ptrdiff_t(remove); it != tail.end(); ++it)
                eliminated[std::size_t(*it)] = 1;
            auto to = view(out.survivors).middleCols(Index(p) * kept, kept);
            const auto from = view(X).middleCols(Index(p) * r, r);
            for (Index k = 0, j = 0; k < r; ++k)
                if (!eliminated[std::size_t(k)]) to.col(j++) = from.col(k);
        });
        return out;
    }
};

}  // namespace

std::unique_ptr<RfeOps> make_rfe_ops() { return std::make_unique<CpuRfeOps>(); }

}  // namespace zeronorm::cpu
