// The reference as a Backend: host memory and a thin adapter over the free functions of
// reference.hpp, so the backend tests can run on it too and check the reference itself.
#pragma once

#include <memory>

#include "zeronorm/core/backend.hpp"

namespace zeronorm::reference {

// SMO-family operations return exact solutions (interior point, then exact active-set rounds):
// options.tolerance, max_iterations, shrinking, cache_mb and warm starts do not change the
// answer; iterations is 0.
std::unique_ptr<Backend> make_reference_backend();

}  // namespace zeronorm::reference
