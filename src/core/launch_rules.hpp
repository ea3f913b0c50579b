// Launch-size rules of the CUDA kernels, as plain host functions of the device's limits. The
// CUDA backend reads the limits of its device at run time (cudaDeviceGetAttribute), so nothing
// assumes one card; the rules are tested against the published limits of every architecture the
// default build carries, including cards that are not at hand.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "zeronorm/core/error.hpp"

namespace zeronorm::launch_rules {

struct DeviceLimits {
    std::size_t shared_per_block = 0;        // without opting in (48 KB on every card so far)
    std::size_t shared_per_block_optin = 0;  // the most a kernel may opt in to
    int max_threads_per_block = 0;
};

// Threads of the SMO block: one problem on the whole block (large n), and the smaller block of
// the batched solver (one problem per block, n up to a few hundred).
inline constexpr int smo_lone_threads = 1024;
inline constexpr int smo_batch_threads = 128;
// Threads of the Newton finish's block.
inline constexpr int newton_threads = 128;

// Beyond this size no problem is staged in shared memory (and n * n cannot overflow).
inline constexpr std::int64_t max_staged_n = 1 << 16;

// Shared memory of the one-warp SMO kernel: K, then y, beta, G, Q_tt and Kv.
inline std::size_t smo_warp_bytes(std::int64_t n) {
    const auto m = static_cast<std::size_t>(n);
    return (m * m + 5 * m) * sizeof(double);
}

// Shared memory of the Newton finish: the reduced system, three vectors and the index map. The
// map is padded to a multiple of four ints: the compiler reads it in 8- or 16-byte loads, which
// at odd n reach past its last entry (compute-sanitizer's memcheck reported it on an H200).
inline std::size_t newton_bytes(std::int64_t n) {
    const auto m = static_cast<std::size_t>(n);
    return (m * m + 3 * m) * sizeof(double) + (m + 3) / 4 * 4 * sizeof(int);
}

enum class SmoKernel {
    Warp,          // one warp per problem, staged in shared memory within the default limit
    LoneBlock,     // one problem on a smo_lone_threads block, in global memory
    SharedBlocks,  // one smo_batch_threads block per problem, in global memory
};

// The SMO kernel for `problems` problems of size n; `warp_static_bytes` is the warp kernel's
// own static shared memory. The warp kernel stays within the default limit (no opt-in), which
// every card has.
inline SmoKernel smo_kernel_for(std::int64_t n, std::int64_t problems,
                                std::size_t warp_static_bytes, const DeviceLimits& limits) {
    if (n <= max_staged_n && smo_warp_bytes(n) + warp_static_bytes <= limits.shared_per_block)
        return SmoKernel::Warp;
    return problems == 1 ? SmoKernel::LoneBlock : SmoKernel::SharedBlocks;
}

// Whether the Newton finish can stage a problem of size n (with `static_bytes` of the kernel's
// own) in the shared memory a block may opt in to; larger ones are finished on the host.
inline bool newton_fits(std::int64_t n, std::size_t static_bytes, const DeviceLimits& limits) {
    return n >= 0 && n <= max_staged_n &&
           newton_bytes(n) + static_bytes <= limits.shared_per_block_optin;
}

// A grid of one block per item (column, problem) as the launch takes it: checked against the
// x dimension's limit, 2^31 - 1 blocks, where a cast to unsigned would wrap to fewer blocks.
inline unsigned one_block_each(std::int64_t items, const char* kernel) {
    ZN_EXPECTS(items >= 1 && items <= 2147483647,
               kernel << ": one block for each of " << items
                      << " items is beyond a grid's 2^31 - 1 blocks");
    return static_cast<unsigned>(items);
}

// Empty when the kernels' fixed block sizes launch on a device with `limits`, else why not.
inline std::string unsupported_limits(const DeviceLimits& limits) {
    const int widest = smo_lone_threads > newton_threads ? smo_lone_threads : newton_threads;
    if (limits.max_threads_per_block < widest)
        return "the device allows " + std::to_string(limits.max_threads_per_block) +
               " threads per block; the SMO kernels need " + std::to_string(widest);
    if (limits.shared_per_block_optin < limits.shared_per_block)
        return "the device reports less opt-in shared memory than its default";
    return {};
}

}  // namespace zeronorm::launch_rules
