// Registration of R2W2 (r2w2.cpp) as a feature ranker: scores = sigma of each feature in its last
// round (divided by that round's largest sigma), the trace the bound R^2 W^2 per round.
#include "methods/method_registry.hpp"
#include "methods/r2w2/r2w2.hpp"

namespace zeronorm {

namespace {

std::vector<ParameterInfo> r2w2_parameters() {
    using Type = ParameterInfo::Type;
    return {detail::inner_C_parameter(), detail::inner_ridge_parameter(),
            detail::inner_tolerance_parameter(),
            {"r2w2.kernel", "--kernel", Type::Choice, "linear", "kernel on sigma * x",
             "linear, rbf", {"linear", "rbf"}},
            {"r2w2.gamma", "--gamma", Type::Real, "0",
             "gamma of the Gaussian kernel exp(-gamma |sigma * (x - x')|^2) (0: 1/d)", "[0, inf)",
             {}},
            {"r2w2.radius", "--radius", Type::Choice, "exact",
             "R^2 by its QP (exact) or by the variance in feature space (variance)",
             "exact, variance", {"exact", "variance"}},
            {"r2w2.iterations", "--r2w2-iterations", Type::Integer, "20",
             "gradient steps per elimination round", ">= 1", {}},
            {"r2w2.step", "--r2w2-step", Type::Real, "0.1",
             "first trial step, in units of the largest sigma (halved until the bound decreases)",
             "(0, 1]", {}},
            {"r2w2.tolerance", "--r2w2-tolerance", Type::Real, "0.001",
             "a round ends when a step lowers the bound by less than this fraction", "[0, inf)",
             {}},
            {"rfe_fraction", "--rfe-fraction", Type::Real, "0",
             "fraction of the remaining features removed per round (0: one per round)", "[0, 1)",
             {}}};
}

}  // namespace

std::unique_ptr<FeatureRanker> make_r2w2_ranker() {
    return detail::make_ranker(
        {SelectionMethod::R2w2,
         "R2W2: scaling factors sigma of the features by gradient descent on the radius-margin "
         "bound R^2 W^2, SVMs re-solved at each step; removes the features of smallest sigma",
         "Weston et al. 2001; Weston et al. 2003, sec. 4.4; Lal, Chapelle, Weston & Elisseeff "
         "2006, sec. 3.1",
         r2w2_parameters()},
        detail::run_r2w2);
}

}  // namespace zeronorm
