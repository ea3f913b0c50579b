// The Newton finish of the dense dual on the device (SmoOps::newton_finish_batch): one thread
// block per problem, its system in shared memory, running newton_device.cuh's finish with
// barriers and CUB block reductions. The host recomputes the gap, bias and objective from the
// beta and gradient written here; problems marked kNewtonToHost (Q_FF singular or indefinite)
// get the host rule, so both backends agree.
#include "cuda_check.cuh"
#include "device_ops.hpp"
#include "newton_device.cuh"
#include "thread_block.cuh"

namespace zeronorm::cuda_detail {
namespace {

constexpr int kThreads = launch_rules::newton_threads;

using Block = ThreadBlock<kThreads>;

__global__ void __launch_bounds__(kThreads) newton_finish_kernel(NewtonDeviceBatch b) {
    extern __shared__ double shared[];
    __shared__ Block::Reduce::TempStorage storage;
    __shared__ double slot;
    const i64 p = blockIdx.x;
    if (b.open[p] == 0) return;
    Block block(storage, slot);
    const int status = newton_finish_block(block, newton_problem(b, p, shared));
    if (threadIdx.x == 0) b.finished[p] = status;
}

}  // namespace

bool newton_fits(int n, const launch_rules::DeviceLimits& limits) {
    cudaFuncAttributes attributes{};
    ZN_CUDA_TRY(cudaFuncGetAttributes(&attributes, newton_finish_kernel));
    return launch_rules::newton_fits(n, attributes.sharedSizeBytes, limits);
}

void newton_finish_batch(const NewtonDeviceBatch& batch, const launch_rules::DeviceLimits& limits,
                         cudaStream_t stream) {
    if (batch.problems == 0) return;
    const std::size_t bytes = launch_rules::newton_bytes(batch.n);
    // The ceiling is the kernel's, on the whole device: always the device's largest, so that
    // another backend's launch between this setting and the launch cannot lower it.
    cudaFuncAttributes attributes{};
    ZN_CUDA_TRY(cudaFuncGetAttributes(&attributes, newton_finish_kernel));
    const int ceiling = static_cast<int>(limits.shared_per_block_optin - attributes.sharedSizeBytes);
    ZN_CUDA_TRY(cudaFuncSetAttribute(newton_finish_kernel,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, ceiling));
    const unsigned blocks = one_block_each(batch.problems, "newton_finish_kernel");
    newton_finish_kernel<<<blocks, kThreads, bytes, stream>>>(batch);
    ZN_CUDA_CHECK_LAUNCH("newton_finish_kernel");
}

}  // namespace zeronorm::cuda_detail
