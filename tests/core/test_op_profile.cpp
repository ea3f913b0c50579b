// The per-operation profile of ZERONORM_CUDA_PROFILE (src/core/op_profile.hpp).
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "core/op_profile.hpp"

namespace zeronorm {
namespace {

TEST(OpProfile, CountsOutermostCallsAndTheirTransfers) {
    OpProfile profile;
    profile.sync();  // before any operation (the backend's set-up)
    EXPECT_TRUE(profile.enter("smo.solve_batch"));
    profile.to_device(800);
    EXPECT_FALSE(profile.enter("gemm"));  // nested: counted in the outer call
    profile.sync();
    profile.to_host(16);
    profile.leave(0.25);
    profile.leave(1.0);
    EXPECT_TRUE(profile.enter("gemm"));
    profile.sync();
    profile.leave(0.5);
    EXPECT_TRUE(profile.enter("smo.solve_batch"));
    profile.leave(2.0);

    const auto& rows = profile.rows();
    ASSERT_EQ(rows.size(), 3u);
    const OpProfile::Row& smo = rows.at("smo.solve_batch");
    EXPECT_EQ(smo.calls, 2);
    EXPECT_DOUBLE_EQ(smo.seconds, 3.0);
    EXPECT_EQ(smo.syncs, 1);
    EXPECT_EQ(smo.bytes_to_device, 800);
    EXPECT_EQ(smo.bytes_to_host, 16);
    const OpProfile::Row& gemm = rows.at("gemm");
    EXPECT_EQ(gemm.calls, 1);
    EXPECT_DOUBLE_EQ(gemm.seconds, 0.5);
    EXPECT_EQ(gemm.syncs, 1);
    EXPECT_EQ(rows.at("(outside operations)").syncs, 1);
    EXPECT_EQ(rows.at("(outside operations)").calls, 0);
}

TEST(OpProfile, TableListsTheMostTimeFirstThenTheTotal) {
    OpProfile profile;
    profile.enter("small");
    profile.leave(0.001);
    profile.enter("large");
    profile.to_host(2'000'000);
    profile.leave(0.003);
    const std::string table = profile.table("title");
    std::istringstream in(table);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    ASSERT_EQ(lines.size(), 5u);  // title, header, two operations, total
    EXPECT_EQ(lines[0], "title");
    EXPECT_EQ(lines[2].rfind("large", 0), 0u);
    EXPECT_EQ(lines[3].rfind("small", 0), 0u);
    EXPECT_EQ(lines[4].rfind("total", 0), 0u);
    EXPECT_NE(lines[2].find("75.0%"), std::string::npos);
    EXPECT_NE(lines[2].find("2.00"), std::string::npos);  // MB to the host
    EXPECT_NE(lines[4].find("0.0040"), std::string::npos);
    EXPECT_NE(lines[4].find("100.0%"), std::string::npos);
}

TEST(OpProfile, KernelTimesAreListedApartFromTheOperations) {
    OpProfile profile;
    profile.enter("smo.solve_batch");
    profile.kernel("smo kernel", 0.5);
    profile.kernel("smo kernel", 0.25);
    profile.kernel("newton_finish kernel", 0.05);
    profile.leave(1.0);
    EXPECT_EQ(profile.rows().size(), 1u);
    const OpProfile::Row& smo = profile.kernels().at("smo kernel");
    EXPECT_EQ(smo.calls, 2);
    EXPECT_DOUBLE_EQ(smo.seconds, 0.75);
    const std::string table = profile.table("title");
    const std::size_t section = table.find("device time of the timed launches");
    ASSERT_NE(section, std::string::npos);
    EXPECT_LT(table.find("total"), section);  // the operations' total is not the kernels'
    const std::size_t smo_line = table.find("smo kernel", section);
    ASSERT_NE(smo_line, std::string::npos);
    EXPECT_LT(smo_line, table.find("newton_finish kernel", section));  // most time first
    EXPECT_NE(table.find("75.0%", smo_line), std::string::npos);       // of the 1 s in all
    // Without timed launches there is no such section.
    OpProfile plain;
    plain.enter("gemm");
    plain.leave(0.1);
    EXPECT_EQ(plain.table("t").find("device time"), std::string::npos);
}

TEST(OpProfile, MergeAddsAnotherProfilesRowsAndKernels) {
    OpProfile total, worker;
    total.enter("gemm");
    total.to_device(8);
    total.leave(1.0);
    worker.enter("gemm");
    worker.sync();
    worker.to_host(16);
    worker.leave(0.5);
    worker.enter("smo.solve");
    worker.leave(2.0);
    worker.kernel("smo kernel", 0.25);
    total.merge(worker);
    total.merge(worker);
    const OpProfile::Row& gemm = total.rows().at("gemm");
    EXPECT_EQ(gemm.calls, 3);
    EXPECT_DOUBLE_EQ(gemm.seconds, 2.0);
    EXPECT_EQ(gemm.syncs, 2);
    EXPECT_EQ(gemm.bytes_to_device, 8);
    EXPECT_EQ(gemm.bytes_to_host, 32);
    EXPECT_EQ(total.rows().at("smo.solve").calls, 2);
    EXPECT_DOUBLE_EQ(total.rows().at("smo.solve").seconds, 4.0);
    EXPECT_EQ(total.kernels().at("smo kernel").calls, 2);
    EXPECT_DOUBLE_EQ(total.kernels().at("smo kernel").seconds, 0.5);
    EXPECT_EQ(worker.rows().at("gemm").calls, 1);  // the source is left as it was
}

}  // namespace
}  // namespace zeronorm
