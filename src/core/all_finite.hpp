// Internal: the finiteness check of large matrices. Not installed.
#pragma once

#include <Eigen/Core>

namespace zeronorm::detail {

// True when every entry is finite, in one vectorised pass: 0 x is 0 for every finite x and NaN
// for NaN and +-Inf, so the sum of the 0 x is 0 exactly when all are finite. (Eigen's
// allFinite() tests the entries one by one with a branch each, several times slower on the data
// and kernel matrices checked per split.)
template <class Derived>
bool all_finite(const Eigen::DenseBase<Derived>& X) {
    return (X.derived().array() * 0.0).sum() == 0.0;
}

}  // namespace zeronorm::detail
