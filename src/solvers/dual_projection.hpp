// Internal: the projection onto the SVM dual's constraints {0 <= z <= C, y'z = 0}, for warm
// starts and the duals that primal and interior-point solvers read off their points. Not
// installed.
#pragma once

#include "zeronorm/core/dataset.hpp"

namespace zeronorm::detail {

// z <- clip(z - theta y, 0, C) with theta such that y'z = 0 (labels +-1, both classes present,
// C finite and positive).
void project(Eigen::Ref<Vector> z, const Vector& y, double C);

}  // namespace zeronorm::detail
