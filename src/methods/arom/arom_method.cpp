// Registration of l2-AROM and l1-AROM (arom.cpp) as feature rankers.
#include "methods/arom/arom.hpp"
#include "methods/method_registry.hpp"

namespace zeronorm {

std::unique_ptr<FeatureRanker> make_l2_arom_ranker() {
    return detail::make_ranker(
        {SelectionMethod::L2Arom,
         "l2-AROM: SVMs on rescaled data z*x with the multiplicative update z <- z*|w|",
         "Weston, Elisseeff, Schoelkopf & Tipping 2003, sec. 3.1-3.2 (Problem 8)",
         {detail::inner_C_parameter(), detail::inner_ridge_parameter(),
          detail::inner_tolerance_parameter(), detail::arom_cap_parameter()}},
        [](Backend& backend, const Dataset& data, const detail::Machines& machines,
           const SelectionOptions& options, const IndexVector& counts_desc) {
            return detail::run_l2_arom(backend, data, machines, options, counts_desc);
        },
        /*weston_watkins=*/true);
}

std::unique_ptr<FeatureRanker> make_l1_arom_ranker() {
    return detail::make_ranker(
        {SelectionMethod::L1Arom,
         "l1-AROM: the AROM loop with an l1-norm SVM (a linear program) per step",
         "Weston, Elisseeff, Schoelkopf & Tipping 2003, sec. 3.1 (Problem 7)",
         {detail::inner_C_parameter(), detail::arom_cap_parameter()}},
        [](Backend&, const Dataset& data, const detail::Machines& machines,
           const SelectionOptions& options, const IndexVector& counts_desc) {
            return detail::run_l1_arom(data, machines, options, counts_desc);
        });
}

}  // namespace zeronorm
