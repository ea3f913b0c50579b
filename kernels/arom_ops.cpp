// The CUDA backend's AROM operations (scale_update.cu).
#include <vector>

#include "core/batch_shapes.hpp"
#include "cuda_context.hpp"
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
        DeviceGuard guard(b_.device());
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
        // Zeroed: the kernel writes the outcomes of the updated columns only (and no padding).
        ZN_CUDA_TRY(cudaMemsetAsync(d_outcomes.get(), 0, flags.size() * sizeof(ScaleUpdateOutcome),
                                    b_.stream()));
        cuda_detail::multiplicative_update_batch(Z.data(), W.data(), Z.rows(), P, d_flags.get(),
                                                 prune_tolerance, normalized.data(), next.data(),
                                                 d_outcomes.get(), b_.stream());
        std::vector<ScaleUpdateOutcome> outcomes(flags.size());
        b_.copy_to_host(outcomes.data(), d_outcomes.get(), outcomes.size());
        b_.sync();
        for (Index p = 0; p < P; ++p) {
            const ScaleUpdateOutcome& o = outcomes[std::size_t(p)];
            out[std::size_t(p)] = ScaleUpdate{Index(o.survivors), o.max_change, o.degenerate != 0};
        }
        return out;
    }

private:
    CudaBackend& b_;
};

}  // namespace

std::unique_ptr<AromOps> make_arom_ops(CudaBackend& backend) {
    return std::make_unique<CudaAromOps>(backend);
}

}  // namespace zeronorm::cuda_detail
