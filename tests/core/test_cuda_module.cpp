// The CUDA backend module (src/core/cuda_module.hpp): found in the build tree, loaded on first use,
// refused when stale, and its exceptions caught by type in the program. Runs without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/cuda_module.hpp"
#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/cuda_compatibility.hpp"
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

template <class T>
T read_at(const std::vector<char>& bytes, std::size_t at) {
    T value{};
    if (at + sizeof(T) <= bytes.size()) std::memcpy(&value, bytes.data() + at, sizeof(T));
    return value;
}

// The contents of an ELF64 file's section `name` (empty when absent).
std::vector<char> elf_section(const std::vector<char>& elf, const std::string& name) {
    if (elf.size() < 64 || std::memcmp(elf.data(), "\x7f" "ELF", 4) != 0 || elf[4] != 2) return {};
    const auto table = read_at<std::uint64_t>(elf, 0x28);
    const auto entry_size = read_at<std::uint16_t>(elf, 0x3a);
    const auto count = read_at<std::uint16_t>(elf, 0x3c);
    const auto names_index = read_at<std::uint16_t>(elf, 0x3e);
    auto header = [&](std::size_t i) { return table + i * entry_size; };
    const auto names = read_at<std::uint64_t>(elf, header(names_index) + 0x18);
    for (std::size_t i = 0; i < count; ++i) {
        const auto name_at = names + read_at<std::uint32_t>(elf, header(i));
        if (name_at >= elf.size() || std::strncmp(elf.data() + name_at, name.c_str(),
                                                  elf.size() - name_at) != 0)
            continue;
        const auto offset = read_at<std::uint64_t>(elf, header(i) + 0x18);
        const auto size = read_at<std::uint64_t>(elf, header(i) + 0x20);
        if (offset + size > elf.size()) return {};
        return std::vector<char>(elf.begin() + std::ptrdiff_t(offset),
                                 elf.begin() + std::ptrdiff_t(offset + size));
    }
    return {};
}

// The (capability, is PTX) entries of the fat binaries in a .nv_fatbin section: each fat binary
// is a 16-byte header (magic 0xBA55ED50, version, header size, payload size) followed by entries
// whose headers hold the kind (1 PTX, 2 cubin) at 0, the header size at 4, the payload size at 8
// and the architecture at 28.
std::set<std::pair<int, bool>> fat_binary_entries(const std::vector<char>& section) {
    std::set<std::pair<int, bool>> found;
    std::size_t at = 0;
    while (at + 16 <= section.size()) {
        if (read_at<std::uint32_t>(section, at) != 0xBA55ED50u) {
            at += 8;  // fat binaries are 8-byte aligned
            continue;
        }
        const std::size_t begin = at + read_at<std::uint16_t>(section, at + 6);
        const std::size_t end = begin + read_at<std::uint64_t>(section, at + 8);
        for (std::size_t e = begin; e + 32 <= end && e + 32 <= section.size();) {
            const auto kind = read_at<std::uint16_t>(section, e);
            const auto header_size = read_at<std::uint32_t>(section, e + 4);
            const auto payload = read_at<std::uint64_t>(section, e + 8);
            found.insert({static_cast<int>(read_at<std::uint32_t>(section, e + 28)), kind == 1});
            if (header_size == 0) break;
            e += header_size + payload;
        }
        at = end > at ? end : at + 8;
    }
    return found;
}

// The module's fat binary holds exactly the architectures the build records (and prints in
// --version): SASS and PTX as CMAKE_CUDA_ARCHITECTURES lists them.
TEST(CudaModule, FatBinaryCarriesTheRecordedArchitectures) {
    std::ifstream in(cuda_module_path(), std::ios::binary);
    ASSERT_TRUE(in) << cuda_module_path();
    const std::vector<char> module((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
    const auto section = elf_section(module, ".nv_fatbin");
    ASSERT_FALSE(section.empty()) << "no .nv_fatbin section in " << cuda_module_path();
    const auto carried = fat_binary_entries(section);
    const auto recorded = parse_cuda_architectures(cuda_architectures_built());
    ASSERT_FALSE(recorded.empty()) << "CMAKE_CUDA_ARCHITECTURES=" << cuda_architectures_built();
    std::set<std::pair<int, bool>> expected;
    for (const auto& a : recorded) expected.insert({a.capability, a.ptx});
    EXPECT_EQ(carried, expected) << "recorded " << describe_cuda_architectures(recorded);
}

}  // namespace
}  // namespace zeronorm
