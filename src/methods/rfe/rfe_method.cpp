// Registration of RFE with the linear (rfe.cpp) and the Gaussian kernel (rfe_rbf.cpp) as
// feature rankers.
#include "methods/method_registry.hpp"
#include "methods/rfe/rfe.hpp"

namespace zeronorm {

namespace {

std::vector<ParameterInfo> rfe_parameters() {
    return {detail::inner_C_parameter(), detail::inner_ridge_parameter(),
            detail::inner_tolerance_parameter(),
            {"rfe_fraction", "--rfe-fraction", ParameterInfo::Type::Real, "0",
             "fraction of the remaining features removed per round (0: one per round)", "[0, 1)",
             {}}};
}

}  // namespace

std::unique_ptr<FeatureRanker> make_rfe_ranker() {
    return detail::make_ranker(
        {SelectionMethod::Rfe,
         "RFE: recursive feature elimination by the weights of a linear SVM",
         "Guyon, Weston, Barnhill & Vapnik 2002; Weston et al. 2003, sec. 4.3",
         rfe_parameters()},
        detail::run_rfe);
}

std::unique_ptr<FeatureRanker> make_rfe_rbf_ranker() {
    std::vector<ParameterInfo> parameters = rfe_parameters();
    parameters.push_back({"rfe_gamma", "--rfe-gamma", ParameterInfo::Type::Real, "0",
                          "gamma of the Gaussian kernel exp(-gamma |x - x'|^2) (0: 1/d)",
                          "[0, inf)", {}});
    return detail::make_ranker(
        {SelectionMethod::RfeRbf,
         "RFE with a Gaussian-kernel SVM: removes the features whose removal changes W^2(alpha) "
         "least at fixed alpha",
         "Lal, Chapelle, Weston & Elisseeff 2006, sec. 2.3, Algorithm 2; Guyon et al. 2002",
         parameters},
        detail::run_rfe_rbf);
}

}  // namespace zeronorm
