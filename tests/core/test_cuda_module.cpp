// The CUDA backend module (src/core/cuda_module.hpp): found in the build tree, loaded on first use,
// refused when stale, and its exceptions caught by type in the program. Runs without a GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/cuda_module.hpp"
#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm {
namespace {

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

TEST(CudaModule, IsFoundInTheBuildTree) {
    ASSERT_TRUE(cuda_compiled());
    EXPECT_TRUE(contains(cuda_module_path(), cuda_module::file_name)) << cuda_module_path();
}

// Thrown inside the module, caught here as CudaError (not NotCompiled): the module loaded and
// the exception type crossed the boundary.
TEST(CudaModule, FactoryErrorsReachTheCallerByType) {
    const int count = cuda_device_count();
    try {
        make_backend(BackendKind::Cuda, count);
        FAIL() << "a backend on missing CUDA device " << count << " was made";
    } catch (const CudaError& e) {
        EXPECT_TRUE(contains(e.what(), count == 0 ? "no usable CUDA device" : "does not exist"))
            << e.what();
    }
}

TEST(CudaModule, MissingModuleListsThePathsTried) {
    const auto loaded = cuda_module::load_first(
        {"/nonexistent/a/libzeronorm_cuda.so", "/nonexistent/b/libzeronorm_cuda.so"},
        ZERONORM_CUDA_MODULE_KEY);
    EXPECT_EQ(loaded.entry, nullptr);
    EXPECT_TRUE(contains(loaded.failure, "/nonexistent/a/libzeronorm_cuda.so: not found"))
        << loaded.failure;
    EXPECT_TRUE(contains(loaded.failure, "/nonexistent/b/libzeronorm_cuda.so: not found"))
        << loaded.failure;
}

TEST(CudaModule, RefusesAModuleBuiltFromOtherHeaders) {
    const auto loaded = cuda_module::load_first({cuda_module_path()}, "0.0.0+other");
    EXPECT_EQ(loaded.entry, nullptr);
    EXPECT_TRUE(contains(loaded.failure, "stale")) << loaded.failure;
    EXPECT_TRUE(contains(loaded.failure, ZERONORM_CUDA_MODULE_KEY)) << loaded.failure;
}

TEST(CudaModule, LoadsTheFirstMatchingCandidate) {
    const std::string path = cuda_module_path();
    const auto loaded = cuda_module::load_first({"/nonexistent/libzeronorm_cuda.so", path},
                                                ZERONORM_CUDA_MODULE_KEY);
    ASSERT_NE(loaded.entry, nullptr) << loaded.failure;
    EXPECT_EQ(loaded.path, path);
    EXPECT_EQ(loaded.entry->abi_version, cuda_module::abi_version);
}

// A build tree's RUNPATH may end in ':' (CMake's room for the install's), an empty entry
// the dynamic loader reads as the working directory: the module is never taken from there.
TEST(CudaModule, SearchesOnlyAbsoluteDirectories) {
    EXPECT_EQ(cuda_module::module_paths_in({"/a", "", ".", "lib", "/a", "/b"}),
              (std::vector<std::string>{"/a/libzeronorm_cuda.so", "/b/libzeronorm_cuda.so"}));
    for (const auto& path : cuda_module::candidate_paths()) EXPECT_EQ(path.front(), '/') << path;
}

TEST(CudaModule, EnvironmentVariableReplacesTheSearch) {
    ASSERT_EQ(setenv(cuda_module::path_variable, "/elsewhere/libzeronorm_cuda.so", 1), 0);
    const auto chosen = cuda_module::candidate_paths();
    const bool compiled = cuda_compiled();
    ASSERT_EQ(unsetenv(cuda_module::path_variable), 0);
    EXPECT_EQ(chosen, std::vector<std::string>{"/elsewhere/libzeronorm_cuda.so"});
    EXPECT_FALSE(compiled);
    EXPECT_GT(cuda_module::candidate_paths().size(), 1u);
}

}  // namespace
}  // namespace zeronorm
