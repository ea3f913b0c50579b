// Registration of RFE (rfe.cpp) as a feature ranker.
#include "methods/method_registry.hpp"

namespace zeronorm {

std::unique_ptr<FeatureRanker> make_rfe_ranker() {
    return detail::make_ranker(
        {SelectionMethod::Rfe,
         "RFE: recursive feature elimination by the weights of a linear SVM",
         "Guyon, Weston, Barnhill & Vapnik 2002; Weston et al. 2003, sec. 4.3",
         {detail::inner_C_parameter(), detail::inner_ridge_parameter(),
          detail::inner_tolerance_parameter(),
          {"rfe_fraction", "--rfe-fraction", ParameterInfo::Type::Real, "0",
           "fraction of the remaining features removed per round (0: one per round)", "[0, 1)",
           {}}}},
        detail::run_rfe);
}

}  // namespace zeronorm
