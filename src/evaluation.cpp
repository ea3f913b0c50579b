#include "zeronorm/evaluation.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "cpu_fallback/blas_threads.hpp"
#include "zeronorm/error.hpp"
#include "zeronorm/preprocess.hpp"

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
    Dataset train = data.subset(fold.train);
    Dataset test = data.subset(fold.test);
    if (options.standardize) {
        const Standardizer s = Standardizer::fit(train.X);
        train.X = s.transform(train.X);
        test.X = s.transform(test.X);
    }
    const SelectionResult selection = select_features(backend, train, options.selection);
    SplitEvaluation out;
    for (const FeatureSubset& subset : selection.subsets) {
        Matrix X_test(test.n_samples(), Index(subset.selected.size()));
        for (std::size_t k = 0; k < subset.selected.size(); ++k)
            X_test.col(Index(k)) = test.X.col(subset.selected[k]);
        out.errors.push_back(subset_error(backend, subset, X_test, test.y));
        out.selected.push_back(subset.selected);
    }
    out.iterations = selection.iterations;
    out.status = selection.status;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

}  // namespace

SelectionEvaluation evaluate_selection(BackendKind kind, int device, const Dataset& data,
                                       const std::vector<Fold>& folds,
                                       const SelectionEvaluationOptions& options,
                                       const SplitCallback& on_split) {
    const auto start = std::chrono::steady_clock::now();
    data.validate();
    options.validate(data.n_features());
    ZN_EXPECTS(!folds.empty(), "evaluate_selection: no splits given");
    for (std::size_t f = 0; f < folds.size(); ++f) {
        ZN_EXPECTS(!folds[f].train.empty() && !folds[f].test.empty(),
                   "evaluate_selection: split " << f << " has an empty training or test part");
        for (const IndexVector* rows : {&folds[f].train, &folds[f].test})
            for (Index r : *rows)
                ZN_EXPECTS(r >= 0 && r < data.n_samples(),
                           "evaluate_selection: split " << f << " names row " << r << " of "
                                                        << data.n_samples());
    }
    Dataset prepared = data;
    if (options.log10) prepared.X = log10_transform(data.X);

    SelectionEvaluation result;
    result.splits.resize(folds.size());
    unsigned threads = 1;
    if (kind == BackendKind::Cpu) {
        threads = options.threads > 0 ? unsigned(options.threads)
                                      : std::max(1u, std::thread::hardware_concurrency());
        threads = std::min<unsigned>(threads, unsigned(folds.size()));
    }
    std::atomic<std::size_t> next{0};
    std::size_t done = 0;
    std::mutex mutex;
    std::exception_ptr failure;
    auto worker = [&] {
        try {
            auto backend = make_backend(kind, device);
            for (std::size_t f = next++; f < folds.size(); f = next++) {
                SplitEvaluation split = evaluate_split(*backend, prepared, folds[f], options);
                std::lock_guard<std::mutex> lock(mutex);
                result.splits[f] = std::move(split);
                ++done;
                if (on_split) on_split(f, folds.size(), result.splits[f]);
            }
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex);
            if (!failure) failure = std::current_exception();
            next = folds.size();  // stop the other workers early
        }
    };
    std::optional<cpu::SingleThreadedBlas> one_blas_thread;  // the workers already fill the cores
    if (threads > 1) one_blas_thread.emplace();
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    if (failure) std::rethrow_exception(failure);

    // Mean and standard error per feature count, over splits.
    const std::size_t n_counts = options.selection.feature_counts.size();
    const double n_splits = double(folds.size());
    for (std::size_t c = 0; c < n_counts; ++c) {
        PathPoint point;
        point.n_features = options.selection.feature_counts[c];
        double sum = 0.0, sum_sq = 0.0;
        for (const SplitEvaluation& s : result.splits) sum += s.errors[c];
        point.mean_error = sum / n_splits;
        for (const SplitEvaluation& s : result.splits)
            sum_sq += (s.errors[c] - point.mean_error) * (s.errors[c] - point.mean_error);
        point.std_error = folds.size() > 1 ? std::sqrt(sum_sq / (n_splits - 1)) / std::sqrt(n_splits) : 0.0;
        result.path.push_back(point);
    }
    for (const SplitEvaluation& s : result.splits)
        if (s.status != Status::Success && result.status == Status::Success) result.status = s.status;
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

}  // namespace zeronorm
