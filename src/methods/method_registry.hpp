// Helpers for registering a method (methods.hpp): a ranker from its info and its run function.
// Not installed.
#pragma once

#include <functional>
#include <memory>

#include "methods/selection_common.hpp"
#include "zeronorm/methods/methods.hpp"

namespace zeronorm::detail {

using RankerRun = std::function<Ranking(Backend& backend, const Dataset& data,
                                        const Machines& machines, const SelectionOptions& options,
                                        const IndexVector& counts_desc)>;

std::unique_ptr<FeatureRanker> make_ranker(MethodInfo info, RankerRun run,
                                           bool weston_watkins = false,
                                           bool chooses_own_count = false);

// Parameters several methods share (the flags of the inner SVMs).
ParameterInfo inner_C_parameter();
ParameterInfo inner_ridge_parameter();
ParameterInfo inner_tolerance_parameter();
ParameterInfo arom_cap_parameter();

}  // namespace zeronorm::detail
