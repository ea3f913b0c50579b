#include "zeronorm/evaluation/evaluation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "evaluation/selection_batch.hpp"
#include "evaluation/split_runner.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/preprocess.hpp"

namespace zeronorm {

void SelectionEvaluationOptions::validate(Index n_features) const {
    selection.validate(n_features);
    ZN_EXPECTS(threads >= 0, "threads must be >= 0, got " << threads);
}

namespace {

// Test error of one subset's classifiers on the test rows (columns already restricted).
double subset_error(Backend& backend, const FeatureSubset& subset, const Matrix& X_test,
                    const Vector& y_test) {
    if (subset.classifiers.size() == 1) {
        return error_rate(subset.classifiers.front().predict(backend, X_test), y_test);
    }
    // One-vs-rest: the class whose machine gives the largest decision value.
    Matrix scores(X_test.rows(), Index(subset.classifiers.size()));
    for (std::size_t k = 0; k < subset.classifiers.size(); ++k)
        scores.col(Index(k)) = subset.classifiers[k].decision_function(backend, X_test);
    Vector predicted(X_test.rows());
    for (Index i = 0; i < X_test.rows(); ++i) {
        Index best = 0;
        scores.row(i).maxCoeff(&best);
        predicted[i] = double(best);
    }
    return error_rate(predicted, y_test);
}

SplitEvaluation evaluate_split(Backend& backend, const Dataset& data, const Fold& fold,
                               const SelectionEvaluationOptions& options) {
    const auto start = std::chrono::steady_clock::now();
    auto [train, test] = detail::split_data(data, fold, options.standardize);
    const SelectionResult selection = select_features(backend, train, options.selection);
    SplitEvaluation out;
    for (const FeatureSubset& subset : selection.subsets) {
        Matrix X_test(test.n_samples(), Index(subset.selected.size()));
        for (std::size_t k = 0; k < subset.selected.size(); ++k)
            X_test.col(Index(k)) = test.X.col(subset.selected[k]);
        if (subset.column_scale.size() > 0) X_test *= subset.column_scale.asDiagonal();
        const bool trained = subset.classifier_status != Status::NumericalIssue;
        out.errors.push_back(trained ? subset_error(backend, subset, X_test, test.y)
                                     : std::numeric_limits<double>::quiet_NaN());
        out.selected.push_back(subset.selected);
        out.classifier_status.push_back(subset.classifier_status);
    }
    out.iterations = selection.iterations;
    out.status = selection.status;
    out.message = selection.message;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

}  // namespace

SelectionEvaluation evaluate_selection(Backend& backend, const Dataset& data,
                                       const std::vector<Fold>& folds,
                                       const SelectionEvaluationOptions& options,
                                       const SplitCallback& on_split) {
    const auto start = std::chrono::steady_clock::now();
    data.validate();
    options.validate(data.n_features());
    detail::check_splits(folds, data.n_samples(), "evaluate_selection");
    Dataset prepared = data;
    if (options.log10) prepared.X = log10_transform(data.X);

    const std::string not_batched = detail::why_not_batched(data, folds, options);
    // Auto: batched where the backend prefers it, and wherever single-precision Grams are asked
    // for (they exist in the batched schedule only).
    const bool single = options.gram_precision == Precision::Float32;
    const bool batched = detail::runs_batched(
        options.schedule, backend.capabilities().prefers_batched_schedule || single, not_batched,
        "evaluate_selection");
    ZN_EXPECTS(batched || !single,
               "evaluate_selection: single-precision Grams are an option of the batched schedule, "
               "which does not run here: "
                   << (not_batched.empty() ? std::string("the per-split schedule was asked for")
                                           : not_batched));
    // The per-split route checks inside select_features, on each split's prepared rows.
    if (batched && !options.standardize)
        check_kernel_range(KernelSpec(), prepared.X, "feature selection");
    SelectionEvaluation result;
    result.splits = detail::run_schedule<SplitEvaluation>(
        backend, batched, folds.size(), options.threads,
        [&](const std::function<void(std::size_t, const SplitEvaluation&)>& on_done) {
            return detail::evaluate_selection_batched(backend, prepared, folds, options, on_done,
                                                    result.batch_phases);
        },
        [&](Backend& worker, std::size_t f) {
            return evaluate_split(worker, prepared, folds[f], options);
        },
        on_split);
    result.batched = batched;

    // Mean and standard error per feature count, over splits.
    const std::size_t n_counts = options.selection.feature_counts.size();
    for (std::size_t c = 0; c < n_counts; ++c) {
        PathPoint point;
        point.n_features = options.selection.feature_counts[c];
        std::vector<double> errors;
        for (const SplitEvaluation& s : result.splits) {
            if (std::isnan(s.errors[c]))
                ++point.failed_classifiers;
            else
                errors.push_back(s.errors[c]);
        }
        const detail::MeanAndError m = detail::mean_and_std_error(errors);
        point.mean_error = errors.empty() ? std::numeric_limits<double>::quiet_NaN() : m.mean;
        point.std_error = errors.empty() ? std::numeric_limits<double>::quiet_NaN() : m.std_error;
        result.path.push_back(point);
    }
    for (const SplitEvaluation& s : result.splits)
        if (s.status != Status::Success && result.status == Status::Success) result.status = s.status;
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

std::vector<FeatureFrequency> selection_frequencies(const SelectionEvaluation& evaluation,
                                                    std::size_t path_index) {
    ZN_EXPECTS(path_index < evaluation.path.size(),
               "selection_frequencies: path point " << path_index << " of "
                                                    << evaluation.path.size());
    // Counts in a dense vector over the features seen (a map costs more than the rest of a
    // 500-split evaluation's result handling).
    std::vector<Index> counts;
    Index splits = 0;
    for (const SplitEvaluation& split : evaluation.splits) {
        if (path_index >= split.selected.size()) continue;
        ++splits;
        for (const Index feature : split.selected[path_index]) {
            ZN_EXPECTS(feature >= 0, "selection_frequencies: negative feature " << feature);
            if (std::size_t(feature) >= counts.size()) counts.resize(std::size_t(feature) + 1, 0);
            ++counts[std::size_t(feature)];
        }
    }
    std::vector<FeatureFrequency> out;
    for (std::size_t feature = 0; feature < counts.size(); ++feature)
        if (counts[feature] > 0)
            out.push_back({Index(feature), double(counts[feature]) / double(splits)});
    std::stable_sort(out.begin(), out.end(), [](const FeatureFrequency& a, const FeatureFrequency& b) {
        return a.frequency > b.frequency;
    });
    return out;
}

}  // namespace zeronorm
