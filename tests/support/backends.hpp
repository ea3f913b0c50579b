// Backend-parametrised tests: each backend test is written once and instantiated for every
// backend built. CUDA instances are named "...Cuda..." (CTest label gpu) and skip when no
// device is present.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "reference/reference_backend.hpp"
#include "zeronorm/core/backend.hpp"

namespace zeronorm::testing {

inline std::vector<BackendKind> all_backend_kinds() {
    std::vector<BackendKind> kinds{BackendKind::Cpu};
    if (cuda_compiled()) kinds.push_back(BackendKind::Cuda);
    return kinds;
}

inline std::string backend_param_name(const ::testing::TestParamInfo<BackendKind>& info) {
    return info.param == BackendKind::Cpu ? "Cpu" : "Cuda";
}

inline bool backend_available(BackendKind kind) {
    return kind == BackendKind::Cpu || cuda_device_count() > 0;
}

// The backends built plus the reference (tests/reference/), for suites that also check the
// reference by the tests the backends pass.
enum class BackendUnderTest { Cpu, Cuda, Reference };

inline std::vector<BackendUnderTest> backends_and_reference() {
    std::vector<BackendUnderTest> all{BackendUnderTest::Reference, BackendUnderTest::Cpu};
    if (cuda_compiled()) all.push_back(BackendUnderTest::Cuda);
    return all;
}

inline std::string backend_under_test_name(const ::testing::TestParamInfo<BackendUnderTest>& info) {
    return info.param == BackendUnderTest::Reference ? "Reference"
           : info.param == BackendUnderTest::Cpu     ? "Cpu"
                                                     : "Cuda";
}

inline bool backend_available(BackendUnderTest which) {
    return which != BackendUnderTest::Cuda || cuda_device_count() > 0;
}

inline std::unique_ptr<Backend> make_test_backend(BackendKind kind) { return make_backend(kind); }
inline std::unique_ptr<Backend> make_test_backend(BackendUnderTest which) {
    if (which == BackendUnderTest::Reference) return reference::make_reference_backend();
    return make_backend(which == BackendUnderTest::Cpu ? BackendKind::Cpu : BackendKind::Cuda);
}

}  // namespace zeronorm::testing

// Declares `var` as the backend for `kind` (a BackendKind or a BackendUnderTest), or skips the
// test when it cannot run here.
#define ZN_BACKEND_OR_SKIP(var, kind)                                                         \
    if (!::zeronorm::testing::backend_available(kind)) GTEST_SKIP() << "no CUDA device present"; \
    auto var = ::zeronorm::testing::make_test_backend(kind)

// Instantiates a TEST_P suite for every backend built.
#define ZN_INSTANTIATE_FOR_BACKENDS(suite)                                                   \
    INSTANTIATE_TEST_SUITE_P(Backends, suite,                                                \
                             ::testing::ValuesIn(::zeronorm::testing::all_backend_kinds()),  \
                             ::zeronorm::testing::backend_param_name)

// Instantiates a TEST_P suite (parameter BackendUnderTest) for the reference and every backend.
#define ZN_INSTANTIATE_FOR_BACKENDS_AND_REFERENCE(suite)                                     \
    INSTANTIATE_TEST_SUITE_P(Backends, suite,                                                \
                             ::testing::ValuesIn(::zeronorm::testing::backends_and_reference()), \
                             ::zeronorm::testing::backend_under_test_name)
