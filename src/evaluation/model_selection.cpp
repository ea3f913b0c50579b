#include "zeronorm/evaluation/model_selection.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "evaluation/split_runner.hpp"
#include "evaluation/svm_batch.hpp"
#include "solvers/labels.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/kernel.hpp"
#include "zeronorm/core/preprocess.hpp"

namespace zeronorm {

void SvmEvaluationOptions::validate(Index n_features) const {
    svm.validate(n_features);
    for (const double C : C_grid)
        ZN_EXPECTS(C > 0 && !std::isnan(C), "C grid: every C must be positive, got " << C);
    if (std::any_of(C_grid.begin(), C_grid.end(), [](double C) { return std::isinf(C); }))
        ZN_EXPECTS(svm.smo.ridge > 0, "C grid: C = inf (hard margin) needs a positive ridge");
    ZN_EXPECTS(inner_folds >= 2, "inner_folds must be >= 2, got " << inner_folds);
    ZN_EXPECTS(threads >= 0, "threads must be >= 0, got " << threads);
    ZN_EXPECTS(!(standardize && svm.kernel.type == KernelType::Chi2),
               "the chi2 kernel needs non-negative features, which standardisation does not keep");
}

std::vector<double> SvmEvaluationOptions::grid() const {
    if (C_grid.empty()) return {svm.smo.C};
    std::vector<double> out = C_grid;
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

SvmSplitEvaluation evaluate_svm_split(Backend& backend, const Dataset& data, const Fold& split,
                                      const SvmEvaluationOptions& options, std::uint64_t seed) {
    const auto start = std::chrono::steady_clock::now();
    if (options.svm.kernel.type == KernelType::Chi2) {  // histograms: defined for x >= 0 only
        for (const IndexVector* part : {&split.train, &split.test})
            for (const Index i : *part)
                ZN_EXPECTS(!options.standardize && (data.X.row(i).array() >= 0).all(),
                           "the chi2 kernel needs non-negative features");
    }
    SvmSplitEvaluation out = detail::evaluate_svm_split_batched(backend, data, split, options, seed);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

SvmEvaluation evaluate_svm(Backend& backend, const Dataset& data, const std::vector<Fold>& splits,
                           const SvmEvaluationOptions& options, const SvmSplitCallback& on_split) {
    const auto start = std::chrono::steady_clock::now();
    data.validate();
    options.validate(data.n_features());
    detail::check_splits(splits, data.n_samples(), "evaluate_svm");
    check_two_class_labels(data.y, "evaluate_svm");
    // Standardised training parts are in range (overflow-safe statistics); raw data may not be.
    if (!options.standardize) check_kernel_range(options.svm.kernel, data.X, "evaluate_svm");

    SvmEvaluation result;
    result.batched = detail::runs_batched(options.schedule,
                                          backend.capabilities().prefers_batched_schedule,
                                          detail::why_not_batched(data, splits, options),
                                          "evaluate_svm");
    result.splits = detail::run_schedule<SvmSplitEvaluation>(
        backend, result.batched, splits.size(), options.threads,
        [&](const std::function<void(std::size_t, const SvmSplitEvaluation&)>& on_done) {
            return detail::evaluate_svm_batched(backend, data, splits, options, on_done,
                                                result.batch_phases);
        },
        [&](Backend& worker, std::size_t f) {
            return evaluate_svm_split(worker, data, splits[f], options, options.seed + f);
        },
        on_split);

    std::vector<double> errors;
    for (const SvmSplitEvaluation& s : result.splits) {
        errors.push_back(s.error);
        if (result.status == Status::Success) result.status = s.status;
    }
    const detail::MeanAndError m = detail::mean_and_std_error(errors);
    result.mean_error = m.mean;
    result.std_error = m.std_error;
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

}  // namespace zeronorm
