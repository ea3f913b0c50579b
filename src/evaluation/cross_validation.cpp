#include "zeronorm/evaluation/cross_validation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "core/stopwatch.hpp"
#include "evaluation/split_runner.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/preprocess.hpp"
#include "zeronorm/evaluation/model_selection.hpp"

namespace zeronorm {
namespace {

// Uniform draw from 0..bound-1 by rejection (no modulo bias), from the raw 64-bit stream.
std::uint64_t bounded(std::mt19937_64& rng, std::uint64_t bound) {
    // Values below `threshold` would make some residues one more likely than others.
    const std::uint64_t threshold = (std::uint64_t{0} - bound) % bound;  // = 2^64 mod bound
    for (;;) {
        const std::uint64_t r = rng();
        if (r >= threshold) return r % bound;
    }
}

// Fisher-Yates: for i = n-1 .. 1 swap v[i] with v[j], j uniform in 0..i.
void shuffle(IndexVector& v, std::mt19937_64& rng) {
    for (std::size_t i = v.size(); i > 1; --i) {
        const auto j = static_cast<std::size_t>(bounded(rng, i));
        std::swap(v[i - 1], v[j]);
    }
}

// Row indices of each class, classes in ascending label order, rows ascending.
std::vector<IndexVector> rows_by_class(const Vector& y) {
    ZN_EXPECTS(y.allFinite(), "labels must be finite (y holds NaN or Inf)");
    std::vector<double> labels(y.data(), y.data() + y.size());
    std::sort(labels.begin(), labels.end());
    labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
    std::vector<IndexVector> classes(labels.size());
    for (Index i = 0; i < y.size(); ++i) {
        const auto c = std::lower_bound(labels.begin(), labels.end(), y[i]) - labels.begin();
        classes[static_cast<std::size_t>(c)].push_back(i);
    }
    return classes;
}

// The complement of the ascending list `test` in 0..n-1.
IndexVector complement(const IndexVector& test, Index n) {
    IndexVector out;
    out.reserve(static_cast<std::size_t>(n) - test.size());
    std::size_t t = 0;
    for (Index i = 0; i < n; ++i) {
        if (t < test.size() && test[t] == i)
            ++t;
        else
            out.push_back(i);
    }
    return out;
}

}  // namespace

std::vector<Fold> stratified_kfold(const Vector& y, int k, std::uint64_t seed) {
    ZN_EXPECTS(k >= 2, "stratified_kfold: k must be >= 2, got " << k);
    const std::vector<IndexVector> classes = rows_by_class(y);
    ZN_EXPECTS(!classes.empty(), "stratified_kfold: no samples");
    std::size_t smallest = std::numeric_limits<std::size_t>::max();
    for (const auto& c : classes) smallest = std::min(smallest, c.size());
    ZN_EXPECTS(static_cast<std::size_t>(k) <= smallest,
               "stratified_kfold: k = " << k << " folds, but the smallest class has only "
                                        << smallest << " samples (k must be <= that)");

    std::mt19937_64 rng(seed);
    std::vector<Fold> folds(static_cast<std::size_t>(k));
    // Dealing position p of the concatenated class lists to fold p mod k gives each class
    // floor/ceil(n_c / k) rows per fold and keeps the fold sizes within one of each other.
    std::size_t position = 0;
    for (IndexVector rows : classes) {
        shuffle(rows, rng);
        for (const Index r : rows) folds[position++ % folds.size()].test.push_back(r);
    }
    for (Fold& f : folds) {
        std::sort(f.test.begin(), f.test.end());
        f.train = complement(f.test, y.size());
    }
    return folds;
}

std::vector<Fold> stratified_random_splits(const Vector& y, int n_splits, Index train_size,
                                           std::uint64_t seed) {
    ZN_EXPECTS(n_splits >= 1, "stratified_random_splits: n_splits must be >= 1, got " << n_splits);
    const Index n = y.size();
    ZN_EXPECTS(train_size >= 1 && train_size <= n - 1,
               "stratified_random_splits: train_size must be in 1.."
                   << n - 1 << " for " << n << " samples, got " << train_size);
    const std::vector<IndexVector> classes = rows_by_class(y);
    const std::size_t K = classes.size();

    // Largest-remainder apportionment of train_size over the classes (ties: smaller label).
    std::vector<Index> t(K);
    std::vector<double> ideal(K);
    Index assigned = 0;
    for (std::size_t c = 0; c < K; ++c) {
        ideal[c] = double(classes[c].size()) * double(train_size) / double(n);
        t[c] = std::min(static_cast<Index>(std::floor(ideal[c])), Index(classes[c].size()));
        assigned += t[c];
    }
    {
        std::vector<std::size_t> order(K);
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return ideal[a] - std::floor(ideal[a]) > ideal[b] - std::floor(ideal[b]);
        });
        for (std::size_t i = 0; assigned < train_size; i = (i + 1) % K) {
            const std::size_t c = order[i];
            if (t[c] < Index(classes[c].size())) {
                ++t[c];
                ++assigned;
            }
        }
    }
    // Move one training row at a time from the most over-served class to a class that must
    // have one more (train side), or the reverse (test side), while that stays possible.
    auto most_over = [&](auto eligible) {
        std::size_t best = K;
        for (std::size_t c = 0; c < K; ++c)
            if (eligible(c) &&
                (best == K || double(t[c]) - ideal[c] > double(t[best]) - ideal[best]))
                best = c;
        return best;
    };
    auto most_under = [&](auto eligible) {
        std::size_t best = K;
        for (std::size_t c = 0; c < K; ++c)
            if (eligible(c) &&
                (best == K || ideal[c] - double(t[c]) > ideal[best] - double(t[best])))
                best = c;
        return best;
    };
    if (train_size >= Index(K)) {
        for (std::size_t c = 0; c < K; ++c) {
            if (t[c] >= 1) continue;
            const std::size_t donor = most_over([&](std::size_t o) { return t[o] >= 2; });
            if (donor == K) break;
            --t[donor];
            ++t[c];
        }
    }
    std::size_t multi = 0;  // classes that can have rows on both sides
    for (const auto& c : classes) multi += c.size() >= 2;
    if (n - train_size >= Index(multi)) {
        for (std::size_t c = 0; c < K; ++c) {
            if (classes[c].size() < 2 || t[c] < Index(classes[c].size())) continue;
            const std::size_t taker = most_under([&](std::size_t o) {
                return o != c && t[o] < Index(classes[o].size()) - (classes[o].size() >= 2 ? 1 : 0);
            });
            if (taker == K) break;
            --t[c];
            ++t[taker];
        }
    }

    std::mt19937_64 rng(seed);
    std::vector<Fold> splits(static_cast<std::size_t>(n_splits));
    for (Fold& split : splits) {
        for (std::size_t c = 0; c < K; ++c) {
            IndexVector rows = classes[c];
            shuffle(rows, rng);
            const auto cut = static_cast<std::size_t>(t[c]);
            split.train.insert(split.train.end(), rows.begin(),
                               rows.begin() + static_cast<std::ptrdiff_t>(cut));
            split.test.insert(split.test.end(), rows.begin() + static_cast<std::ptrdiff_t>(cut),
                              rows.end());
        }
        std::sort(split.train.begin(), split.train.end());
        std::sort(split.test.begin(), split.test.end());
    }
    return splits;
}

CrossValidationResult cross_validate_svm(Backend& backend, const Dataset& data,
                                         const SvmOptions& options, const std::vector<Fold>& folds,
                                         bool standardize, const FoldCallback& on_fold) {
    const Stopwatch stopwatch;
    data.validate();
    SvmEvaluationOptions evaluation;  // one C: each fold is a plain train and test
    evaluation.svm = options;
    evaluation.standardize = standardize;
    evaluation.validate(data.n_features());
    detail::check_splits(folds, data.n_samples(), "cross_validate_svm");

    CrossValidationResult result;
    for (std::size_t f = 0; f < folds.size(); ++f) {
        const SvmSplitEvaluation split = evaluate_svm_split(backend, data, folds[f], evaluation, 0);
        FoldResult fr;
        fr.error = split.error;
        fr.n_train = Index(folds[f].train.size());
        fr.n_test = Index(folds[f].test.size());
        fr.n_support = split.n_support;
        fr.iterations = split.iterations;
        fr.status = split.status;
        fr.seconds = split.seconds;
        if (result.status == Status::Success) result.status = fr.status;
        result.folds.push_back(fr);
        result.fold_errors.push_back(fr.error);
        if (on_fold) on_fold(f, folds.size(), fr);
    }

    const detail::MeanAndError m = detail::mean_and_std_error(result.fold_errors);
    result.mean_error = m.mean;
    result.std_error = m.std_error;
    result.seconds = stopwatch.seconds();
    return result;
}

}  // namespace zeronorm
