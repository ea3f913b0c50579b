// Backend-parametrised tests: each backend test is written once and instantiated for every
// backend built. CUDA instances are named "...Cuda..." (CTest label gpu) and skip when no
// device is present.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "zeronorm/backend.hpp"

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

}  // namespace zeronorm::testing

// Declares `var` as the backend for `kind`, or skips the test when it cannot run here.
#define ZN_BACKEND_OR_SKIP(var, kind)                                                         \
    if (!::zeronorm::testing::backend_available(kind)) GTEST_SKIP() << "no CUDA device present"; \
    auto var = ::zeronorm::make_backend(kind)

// Instantiates a TEST_P suite for every backend built.
#define ZN_INSTANTIATE_FOR_BACKENDS(suite)                                                   \
    INSTANTIATE_TEST_SUITE_P(Backends, suite,                                                \
                             ::testing::ValuesIn(::zeronorm::testing::all_backend_kinds()),  \
                             ::zeronorm::testing::backend_param_name)
