// Which cards a build runs on (cuda_compatibility.hpp) and the CUDA kernels' launch-size rules
// (launch_rules.hpp), fed device descriptions and the published per-architecture limits as
// data: no card of these kinds is needed (or present).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/launch_rules.hpp"
#include "zeronorm/core/cuda_compatibility.hpp"

namespace zeronorm {
namespace {

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// The default build's list when no GPU is visible at configure time (cmake/CudaArchitectures.cmake).
const std::string portable = "75-real;80-real;86-real;89-real;90";

constexpr int cuda_13_0 = 13000;

CudaDeviceDescription card(const std::string& name, int major, int minor,
                           int driver = cuda_13_0, int runtime = cuda_13_0) {
    CudaDeviceDescription d;
    d.index = 0;
    d.name = name;
    d.major = major;
    d.minor = minor;
    d.driver_version = driver;
    d.runtime_version = runtime;
    return d;
}

TEST(CudaArchitectures, ParsesCMakeLists) {
    const auto a = parse_cuda_architectures(portable);
    ASSERT_EQ(a.size(), 6u);
    for (int i = 0; i < 5; ++i) EXPECT_FALSE(a[std::size_t(i)].ptx);
    EXPECT_EQ(a[0].capability, 75);
    EXPECT_EQ(a[3].capability, 89);
    EXPECT_EQ(a[4].capability, 90);
    EXPECT_TRUE(a[5].ptx);
    EXPECT_EQ(a[5].capability, 90);
    EXPECT_EQ(describe_cuda_architectures(a), "sm_75 sm_80 sm_86 sm_89 sm_90 + PTX compute_90");
    // The build records the list with commas (a compile definition).
    EXPECT_EQ(describe_cuda_architectures(parse_cuda_architectures("86-real,90-virtual")),
              "sm_86 + PTX compute_90");
    EXPECT_EQ(describe_cuda_architectures(parse_cuda_architectures("90-virtual")),
              "PTX compute_90");
    // Special values and malformed entries are not known by number.
    for (const char* text : {"native", "all", "all-major", "90;native", "sm_90", "90-fast", ""})
        EXPECT_TRUE(parse_cuda_architectures(text).empty()) << text;
    EXPECT_EQ(describe_cuda_architectures({}), "none known");
}

// The default build runs on every card from Turing to Hopper by its own SASS (sm_87 and the
// like by the SASS of the same major), and on later cards by the PTX the driver compiles.
TEST(CudaArchitectures, PortableBuildRunsFromTuringToHopperAndLaterByPtx) {
    const auto carried = parse_cuda_architectures(portable);
    const std::vector<CudaDeviceDescription> cards = {
        card("Tesla T4", 7, 5),           card("NVIDIA A100-SXM4-80GB", 8, 0),
        card("NVIDIA GeForce RTX 3090", 8, 6), card("NVIDIA RTX A6000", 8, 6),
        card("Jetson AGX Orin", 8, 7),    card("NVIDIA GeForce RTX 4090", 8, 9),
        card("NVIDIA H100 80GB HBM3", 9, 0), card("NVIDIA H200", 9, 0),
        card("NVIDIA B200", 10, 0),       card("NVIDIA GeForce RTX 5090", 12, 0)};
    for (const auto& c : cards) EXPECT_EQ(cuda_incompatibility(c, carried), "") << c.name;
    // Volta is older than anything carried (and than CUDA 13 supports).
    const std::string volta = cuda_incompatibility(card("Tesla V100-SXM2-16GB", 7, 0), carried);
    EXPECT_TRUE(contains(volta, "Tesla V100-SXM2-16GB")) << volta;
    EXPECT_TRUE(contains(volta, "sm_70")) << volta;
}

// A Hopper-only build on an Ampere or Ada card: one message with the card, its sm_XY, what the
// build carries and the option to rebuild with.
TEST(CudaArchitectures, MismatchNamesCardBuildAndFix) {
    for (const auto& c : {card("NVIDIA GeForce RTX 3090", 8, 6), card("NVIDIA GeForce RTX 4090", 8, 9),
                          card("NVIDIA A100-PCIE-40GB", 8, 0)}) {
        const std::string why = cuda_incompatibility(c, parse_cuda_architectures("90"));
        const std::string sm = "sm_" + std::to_string(10 * c.major + c.minor);
        EXPECT_TRUE(contains(why, c.name)) << why;
        EXPECT_TRUE(contains(why, sm)) << why;
        EXPECT_TRUE(contains(why, "sm_90 + PTX compute_90")) << why;
        EXPECT_TRUE(contains(why, "-DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(10 * c.major + c.minor)))
            << why;
    }
    // SASS of a later minor does not run on an earlier one, SASS of another major never does;
    // PTX runs on later majors, never on earlier capabilities; a build whose contents are not
    // known by number is left to the kernel-image probe.
    struct Case {
        int major, minor;
        const char* carried;
        bool runs;
    };
    for (const Case& k : {Case{8, 0, "86-real", false}, Case{9, 0, "86-real", false},
                          Case{8, 9, "80-real", true}, Case{9, 0, "80-virtual", true},
                          Case{8, 0, "86-virtual", false}, Case{8, 0, "native", true}}) {
        const auto why = cuda_incompatibility(card("a card", k.major, k.minor),
                                              parse_cuda_architectures(k.carried));
        EXPECT_EQ(why.empty(), k.runs) << k.major << k.minor << " " << k.carried << ": " << why;
    }
}

TEST(CudaArchitectures, DriverOlderThanToolkit) {
    // Another major: nothing runs; both versions are named.
    const std::string old_major = cuda_driver_incompatibility(12040, cuda_13_0);
    EXPECT_TRUE(contains(old_major, "12.4")) << old_major;
    EXPECT_TRUE(contains(old_major, "13.0")) << old_major;
    EXPECT_TRUE(contains(old_major, "update the driver")) << old_major;
    EXPECT_NE(cuda_incompatibility(card("NVIDIA H100", 9, 0, 12040, cuda_13_0),
                                   parse_cuda_architectures(portable)),
              "");
    // The same major: SASS runs (minor-version compatibility), PTX cannot be JIT-compiled.
    EXPECT_EQ(cuda_driver_incompatibility(13000, 13020), "");
    EXPECT_EQ(cuda_driver_incompatibility(13020, 13000), "");
    EXPECT_EQ(cuda_incompatibility(card("NVIDIA H100", 9, 0, 13000, 13020),
                                   parse_cuda_architectures(portable)),
              "");
    const std::string jit = cuda_incompatibility(card("NVIDIA B200", 10, 0, 13000, 13020),
                                                 parse_cuda_architectures(portable));
    EXPECT_TRUE(contains(jit, "NVIDIA B200")) << jit;
    EXPECT_TRUE(contains(jit, "13.0")) << jit;
    EXPECT_TRUE(contains(jit, "13.2")) << jit;
    EXPECT_EQ(cuda_incompatibility(card("NVIDIA B200", 10, 0, 13020, 13020),
                                   parse_cuda_architectures(portable)),
              "");
}

// The published limits (CUDA C++ Programming Guide, "Technical Specifications per Compute
// Capability"): 48 KB per block without opting in everywhere; opt-in 64 KB (7.5), 163 KB (8.0,
// 8.7), 99 KB (8.6, 8.9), 227 KB (9.0); 1024 threads per block.
struct PublishedLimits {
    int capability;
    launch_rules::DeviceLimits limits;
    int largest_newton_n;  // the largest n whose Newton system fits the opt-in memory
};

std::vector<PublishedLimits> published() {
    const std::size_t kb = 1024;
    return {{75, {48 * kb, 64 * kb, 1024}, 88},   {80, {48 * kb, 163 * kb, 1024}, 142},
            {86, {48 * kb, 99 * kb, 1024}, 110},  {87, {48 * kb, 163 * kb, 1024}, 142},
            {89, {48 * kb, 99 * kb, 1024}, 110},  {90, {48 * kb, 227 * kb, 1024}, 168}};
}

TEST(LaunchRules, KernelsLaunchWithinEveryCarriedArchitecturesLimits) {
    for (const auto& p : published()) {
        SCOPED_TRACE("sm_" + std::to_string(p.capability));
        EXPECT_EQ(launch_rules::unsupported_limits(p.limits), "");
        EXPECT_LE(launch_rules::smo_lone_threads, p.limits.max_threads_per_block);
        EXPECT_LE(launch_rules::smo_batch_threads, p.limits.max_threads_per_block);
        EXPECT_LE(launch_rules::newton_threads, p.limits.max_threads_per_block);
        // The one-warp SMO stages problems up to n = 75 in the default 48 KB, on every card.
        for (std::int64_t n : {1, 2, 50, 62, 75})
            EXPECT_EQ(launch_rules::smo_kernel_for(n, 500, 0, p.limits), launch_rules::SmoKernel::Warp)
                << n;
        EXPECT_EQ(launch_rules::smo_kernel_for(76, 500, 0, p.limits),
                  launch_rules::SmoKernel::SharedBlocks);
        EXPECT_EQ(launch_rules::smo_kernel_for(76, 1, 0, p.limits),
                  launch_rules::SmoKernel::LoneBlock);
        // Whatever is chosen fits: the warp kernel's bytes within the default limit...
        for (std::int64_t n = 1; n <= 400; ++n) {
            if (launch_rules::smo_kernel_for(n, 8, 64, p.limits) == launch_rules::SmoKernel::Warp) {
                ASSERT_LE(launch_rules::smo_warp_bytes(n) + 64, p.limits.shared_per_block) << n;
            }
            // ...and the Newton system within the opt-in limit, up to the largest n that does.
            ASSERT_EQ(launch_rules::newton_fits(n, 0, p.limits), n <= p.largest_newton_n) << n;
            if (launch_rules::newton_fits(n, 256, p.limits)) {
                ASSERT_LE(launch_rules::newton_bytes(n) + 256, p.limits.shared_per_block_optin);
            }
        }
        // The kernel's own static memory counts against the same limit.
        EXPECT_FALSE(launch_rules::newton_fits(p.largest_newton_n, p.limits.shared_per_block_optin,
                                               p.limits));
    }
    // Sizes beyond anything staged never overflow into "fits".
    const auto hopper = published().back().limits;
    EXPECT_FALSE(launch_rules::newton_fits(std::int64_t(1) << 40, 0, hopper));
    EXPECT_EQ(launch_rules::smo_kernel_for(std::int64_t(1) << 40, 2, 0, hopper),
              launch_rules::SmoKernel::SharedBlocks);
}

TEST(LaunchRules, RefusesDevicesBelowTheKernelsBlockSizes) {
    launch_rules::DeviceLimits small{48 * 1024, 48 * 1024, 512};
    const std::string why = launch_rules::unsupported_limits(small);
    EXPECT_TRUE(contains(why, "512")) << why;
    EXPECT_TRUE(contains(why, "1024")) << why;
}

TEST(LaunchRules, OneBlockEachItemWithinTheGridLimit) {
    EXPECT_EQ(launch_rules::one_block_each(1, "k"), 1u);
    EXPECT_EQ(launch_rules::one_block_each(2147483647, "k"), 2147483647u);
    // Beyond 2^31 - 1 blocks (2^32 + 5 would wrap to 5 as an unsigned), and no items at all.
    for (const std::int64_t items : {std::int64_t(2147483648), (std::int64_t(1) << 32) + 5,
                                     std::int64_t(0), std::int64_t(-1)}) {
        try {
            launch_rules::one_block_each(items, "column_sums_kernel");
            ADD_FAILURE() << items << " blocks accepted";
        } catch (const InvalidArgument& e) {
            EXPECT_TRUE(contains(e.what(), "column_sums_kernel")) << e.what();
            EXPECT_TRUE(contains(e.what(), std::to_string(items))) << e.what();
        }
    }
}

}  // namespace
}  // namespace zeronorm
