// The CPU backend's AROM operations: the one-problem update (arom_update) column by column, and
// the partial orders of the selection rules.
#include "core/batch_shapes.hpp"
#include "core/thread_pool.hpp"
#include "cpu_backend.hpp"
#include "methods/arom/arom.hpp"
#include "methods/selection_common.hpp"
#include "zeronorm/core/ops/arom_ops.hpp"

namespace zeronorm::cpu {
namespace {

class CpuAromOps final : public AromOps {
public:
    std::vector<ScaleUpdate> multiplicative_update_batch(const DeviceMatrix& Z,
                                                         const DeviceMatrix& W,
                                                         const std::vector<char>& update,
                                                         double prune_tolerance,
                                                         DeviceMatrix& normalized,
                                                         DeviceMatrix& next) override {
        detail::check_multiplicative_update_batch(Z, W, update, prune_tolerance, normalized, next);
        std::vector<ScaleUpdate> out(static_cast<std::size_t>(Z.cols()));
        for (Index p = 0; p < Z.cols(); ++p) {
            const Vector z = view(Z).col(p);
            if (!update[std::size_t(p)]) {
                view(normalized).col(p) = z;
                view(next).col(p) = z;
                continue;
            }
            // arom_update over all d entries: a pruned entry (z_j = 0) has u_j = 0, so it
            // changes neither max(u), the change nor the survivors.
            const detail::AromUpdate u = detail::arom_update(
                z, z.cwiseProduct(view(W).col(p)).cwiseAbs(), prune_tolerance);
            view(normalized).col(p) = u.normalized;
            view(next).col(p) = u.z;
            ScaleUpdate& s = out[std::size_t(p)];
            s.degenerate = u.degenerate;
            s.survivors = u.degenerate ? 0 : Index(u.keep.size());
            s.max_change = u.max_change;
        }
        return out;
    }

    // The requests spread over the hardware's threads (like the BLAS of this backend): at W3's
    // scale thousands of columns of 7,129 are ordered per iteration.
    std::vector<IndexVector> top_rows(const DeviceMatrix& S, const IndexVector& columns,
                                      const IndexVector& counts) override {
        detail::check_top_rows(S, columns, counts);
        std::vector<IndexVector> out(columns.size());
        detail::parallel_for(out.size(), 0, [&](std::size_t q) {
            out[q] = detail::order_descending_first(view(S).col(columns[q]), counts[q]);
        });
        return out;
    }
};

}  // namespace

std::unique_ptr<AromOps> make_arom_ops() { return std::make_unique<CpuAromOps>(); }

}  // namespace zeronorm::cpu
