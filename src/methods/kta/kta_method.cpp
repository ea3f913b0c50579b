// Registration of kernel-target alignment (kta.cpp) as a feature ranker: the features with
// theta_j > 1e-2, ranked by theta (Neumann, Schnoerr & Steidl 2005, sec. 5.2.3); scores = theta,
// the trace f per DCA step. Its final classifier is its own: the Gaussian (chi-square) SVM
// without bias on K_theta over the selected features (train_kta_classifier), not a linear SVM.
#include "methods/method_registry.hpp"
#include <sstream>

#include "zeronorm/core/error.hpp"
#include "zeronorm/methods/kta.hpp"

namespace zeronorm {

namespace {

// The subset `selected` with its SVM without bias on K_theta; weights = theta of its features.
FeatureSubset kta_subset(Backend& backend, const Dataset& data, const KtaResult& r,
                         const IndexVector& selected, const KtaOptions& kta,
                         const SmoSettings& smo) {
    FeatureSubset subset;
    subset.n_features = Index(selected.size());
    subset.selected = selected;
    if (selected.empty()) {
        subset.classifier_status = Status::NumericalIssue;
        subset.classifier_message = "kta kept no feature (every theta_j <= threshold): no classifier";
        return subset;
    }
    KtaClassifier c = train_kta_classifier(backend, data.X, data.y, r.theta, selected, r.sigma,
                                           kta, smo);
    subset.weights.resize(subset.n_features);
    for (Index k = 0; k < subset.n_features; ++k) subset.weights[k] = r.theta[selected[std::size_t(k)]];
    subset.column_scale = c.column_scale;
    if (c.dual.status != Status::Success) {
        std::ostringstream os;
        os << "final SVM without bias on " << subset.n_features << " features: stopped with status "
           << to_string(c.dual.status) << " after " << c.dual.iterations << " steps";
        subset.classifier_status = c.dual.status;
        subset.classifier_message = os.str();
    }
    subset.classifiers.push_back(std::move(c.model));
    return subset;
}

detail::Ranking run_kta(Backend& backend, const Dataset& data, const detail::Machines& machines,
                        const SelectionOptions& options, const IndexVector& counts_desc) {
    ZN_EXPECTS(machines.binary(), "kta is for two classes (labels -1/+1), got "
                                      << machines.n_classes << " classes");
    KtaOptions kta = options.kta;
    kta.max_iterations = options.max_iterations;
    const KtaResult r = train_kta(backend, data.X, data.y, kta);
    detail::Ranking ranking;
    ranking.scores = r.theta;
    ranking.iterations = r.iterations;
    ranking.status = r.status;
    if (r.status != Status::Success)
        ranking.message = "the DCA stopped at max_iterations = " +
                          std::to_string(kta.max_iterations) + " before theta settled";
    for (const KtaStep& s : r.trace) ranking.trace.push_back({s.selected, s.objective, s.change});
    if (counts_desc.empty()) ranking.selected.push_back(r.selected);
    for (const Index count : counts_desc) {
        const auto kept = std::min<std::size_t>(std::size_t(count), r.selected.size());
        ranking.selected.emplace_back(r.selected.begin(), r.selected.begin() + kept);
    }
    for (const IndexVector& selected : ranking.selected)
        ranking.subsets.push_back(kta_subset(backend, data, r, selected, kta, options.final_smo));
    return ranking;
}

ParameterInfo real(const char* name, const char* flag, const char* value, const char* help,
                   const char* valid) {
    return {name, flag, ParameterInfo::Type::Real, value, help, valid, {}};
}

}  // namespace

std::unique_ptr<FeatureRanker> make_kta_ranker() {
    return detail::make_ranker(
        {SelectionMethod::Kta,
         "kernel-target alignment: feature weights theta in [0, 1] inside a Gaussian or "
         "chi-square kernel, -(1 - lambda) y_n'K y_n / 2 + lambda penalty, DCA with L-BFGS-B",
         "Neumann, Schnoerr & Steidl 2005, eq. (12), sec. 3.2.2, 4.2.4, 6",
         {real("kta.lambda", "--lambda", "0", "weight lambda of the feature penalty", "[0, 1)"),
          {"kta.kernel", "--alignment-kernel", ParameterInfo::Type::Choice, "gaussian",
           "kernel weighted by theta", "gaussian, chi2", {"gaussian", "chi2"}},
          real("kta.width", "--width", "0", "Gaussian width sigma (0: sqrt(d) / 2)", "[0, inf)"),
          real("kta.rho", "--rho", "0.00048828125", "chi-square rho (2^-11)", "(0, inf)"),
          real("kta.alpha", "--alpha", "5", "alpha of the concave penalty 1 - exp(-alpha theta_j)",
               "(0, inf)"),
          real("kta.svm_lambda", "--svm-lambda", "0.5",
               "final SVM without bias: weight lambda of eq. (3), C = (1 - lambda) / lambda",
               "(0, 1)"),
          real("kta.tolerance", "--kta-tolerance", "0.001",
               "DCA stops when every theta_j changes by less than this", "(0, inf)"),
          {"max_iterations", "--max-iterations", ParameterInfo::Type::Integer, "1000",
           "DCA iteration cap", ">= 1", {}}}},
        run_kta, false, /*chooses_own_count=*/true);
}

}  // namespace zeronorm
