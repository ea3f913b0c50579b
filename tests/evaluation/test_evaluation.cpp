// Batch evaluation over splits: equal to one-at-a-time runs, independent of the thread count.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/backends.hpp"
#include "support/capability_backend.hpp"
#include "support/random.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/preprocess.hpp"
#include "zeronorm/evaluation/evaluation.hpp"
#include "zeronorm/io/io.hpp"

namespace zeronorm {
namespace {

Dataset colon() {
    Dataset data = read_csv(std::string(ZERONORM_DATA_DIR) + "/colon/colon.csv");
    data.X = log10_transform(data.X);
    return data;
}

SelectionEvaluationOptions arom_options() {
    SelectionEvaluationOptions options;
    options.selection.method = SelectionMethod::L2Arom;
    options.selection.feature_counts = {100, 20};
    options.selection.ridge = 1e-3;
    options.standardize = true;
    return options;
}

// Stability selection: counted over the splits, most frequent first, ties by feature index; a
// split whose path stopped short counts only for the points it reached.
TEST(Evaluation, SelectionFrequenciesCountChosenFeaturesOverSplits) {
    SelectionEvaluation e;
    e.path = {PathPoint{2}, PathPoint{1}};
    auto split = [](std::vector<IndexVector> selected, Status status) {
        SplitEvaluation s;
        s.selected = std::move(selected);
        s.status = status;
        return s;
    };
    e.splits = {split({{3, 1}, {3}}, Status::Success), split({{1, 7}, {1}}, Status::Success),
                split({{3, 7}, {3}}, Status::NoConvergence), split({{0, 5}}, Status::Success)};
    const auto pairs = selection_frequencies(e, 0);
    ASSERT_EQ(pairs.size(), 5u);
    EXPECT_EQ(pairs[0].feature, 1);
    EXPECT_EQ(pairs[1].feature, 3);
    EXPECT_EQ(pairs[2].feature, 7);
    EXPECT_EQ(pairs[3].feature, 0);
    EXPECT_EQ(pairs[4].feature, 5);
    for (int i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(pairs[std::size_t(i)].frequency, 0.5);
    EXPECT_DOUBLE_EQ(pairs[3].frequency, 0.25);
    const auto singles = selection_frequencies(e, 1);
    ASSERT_EQ(singles.size(), 2u);
    EXPECT_EQ(singles[0].feature, 3);
    EXPECT_DOUBLE_EQ(singles[0].frequency, 2.0 / 3.0);
    EXPECT_EQ(singles[1].feature, 1);
    EXPECT_DOUBLE_EQ(singles[1].frequency, 1.0 / 3.0);
    EXPECT_THROW(selection_frequencies(e, 2), InvalidArgument);
}

TEST(Evaluation, BatchEqualsOneAtATimeOnEveryThreadCount) {
    const Dataset data = colon();
    const auto folds = stratified_random_splits(data.y, 6, 50, testing::test_seed());
    SelectionEvaluationOptions options = arom_options();
    options.threads = 1;
    const SelectionEvaluation serial = evaluate_selection(*make_cpu_backend(), data, folds, options);
    options.threads = 3;
    const SelectionEvaluation parallel = evaluate_selection(*make_cpu_backend(), data, folds, options);
    ASSERT_EQ(serial.splits.size(), folds.size());
    auto backend = make_cpu_backend();
    for (std::size_t f = 0; f < folds.size(); ++f) {
        EXPECT_EQ(serial.splits[f].errors, parallel.splits[f].errors);
        EXPECT_EQ(serial.splits[f].selected, parallel.splits[f].selected);
        // By hand: standardise on the training rows, select, retrain, test.
        Dataset train = data.subset(folds[f].train), test = data.subset(folds[f].test);
        const Standardizer s = Standardizer::fit(train.X);
        train.X = s.transform(train.X);
        test.X = s.transform(test.X);
        const SelectionResult r = select_features(*backend, train, options.selection);
        for (std::size_t c = 0; c < r.subsets.size(); ++c) {
            EXPECT_EQ(r.subsets[c].selected, serial.splits[f].selected[c]);
            Matrix X_test(test.n_samples(), Index(r.subsets[c].selected.size()));
            for (std::size_t k = 0; k < r.subsets[c].selected.size(); ++k)
                X_test.col(Index(k)) = test.X.col(r.subsets[c].selected[k]);
            const double error =
                error_rate(r.subsets[c].classifiers.front().predict(*backend, X_test), test.y);
            EXPECT_DOUBLE_EQ(error, serial.splits[f].errors[c]);
        }
    }
    for (std::size_t c = 0; c < serial.path.size(); ++c) {
        EXPECT_EQ(serial.path[c].n_features, options.selection.feature_counts[c]);
        EXPECT_DOUBLE_EQ(serial.path[c].mean_error, parallel.path[c].mean_error);
    }
}

// The batched schedule (all splits advancing together through batched primitives) against the
// per-split route on both backends: the same genes at every count and the same test errors up
// to the final classifiers' solver tolerance.
class EvaluationSchedules : public ::testing::TestWithParam<BackendKind> {};

void expect_batched_equals_per_split(BackendKind kind, SelectionEvaluationOptions options) {
    const Dataset data = colon();
    const auto folds = stratified_random_splits(data.y, 8, 50, testing::test_seed());
    options.schedule = SelectionEvaluationOptions::Schedule::PerSplit;
    const SelectionEvaluation per_split =
        evaluate_selection(*make_backend(kind), data, folds, options);
    options.schedule = SelectionEvaluationOptions::Schedule::Batched;
    std::size_t reported = 0;
    const SelectionEvaluation batched = evaluate_selection(
        *make_backend(kind), data, folds, options,
        [&](std::size_t, std::size_t total, const SplitEvaluation& e) {
            ++reported;
            EXPECT_EQ(total, folds.size());
            EXPECT_EQ(e.errors.size(), options.selection.feature_counts.size());
        });
    EXPECT_TRUE(batched.batched);
    EXPECT_FALSE(per_split.batched);
    EXPECT_EQ(reported, folds.size());
    ASSERT_EQ(batched.splits.size(), folds.size());
    for (std::size_t f = 0; f < folds.size(); ++f) {
        const SplitEvaluation& a = per_split.splits[f];
        const SplitEvaluation& b = batched.splits[f];
        EXPECT_EQ(b.status, a.status) << f;
        EXPECT_EQ(b.iterations, a.iterations) << f;
        for (std::size_t c = 0; c < a.selected.size(); ++c) {
            // Same sets; the rank order of near-equal z may differ by rounding.
            IndexVector sa = a.selected[c], sb = b.selected[c];
            std::sort(sa.begin(), sa.end());
            std::sort(sb.begin(), sb.end());
            EXPECT_EQ(sa, sb) << "split " << f << ", count " << options.selection.feature_counts[c];
            // One test point of 12 at most, where a decision value sits within the final
            // classifiers' tolerance of zero.
            EXPECT_LE(std::abs(a.errors[c] - b.errors[c]), 1.0 / 12 + 1e-12) << f << " " << c;
        }
    }
    for (std::size_t c = 0; c < per_split.path.size(); ++c)
        EXPECT_NEAR(batched.path[c].mean_error, per_split.path[c].mean_error, 0.03) << c;
}

TEST_P(EvaluationSchedules, BatchedEqualsPerSplit) {
    ZN_SEED_TRACE();
    if (!testing::backend_available(GetParam())) GTEST_SKIP() << "no CUDA device present";
    SelectionEvaluationOptions options = arom_options();
    options.selection.feature_counts = {1000, 100, 20, 5};
    expect_batched_equals_per_split(GetParam(), options);
}

// Linear RFE in lockstep (one column selection, batched Gram, dual and weights per round)
// against RFE split by split: removing half per round, and one feature per round.
TEST_P(EvaluationSchedules, BatchedRfeEqualsPerSplit) {
    ZN_SEED_TRACE();
    if (!testing::backend_available(GetParam())) GTEST_SKIP() << "no CUDA device present";
    SelectionEvaluationOptions options = arom_options();
    options.selection.method = SelectionMethod::Rfe;
    options.selection.rfe_fraction = 0.5;
    options.selection.feature_counts = {1000, 100, 20, 5};
    expect_batched_equals_per_split(GetParam(), options);
    options.selection.rfe_fraction = 0.0;
    options.selection.feature_counts = {1990, 1985};
    expect_batched_equals_per_split(GetParam(), options);
}

// Single-precision Grams in the batched schedule: the same selections as double precision
// but for near-ties, the same errors to within a test point on average.
TEST_P(EvaluationSchedules, SinglePrecisionGramsAgreeWithDouble) {
    ZN_SEED_TRACE();
    if (!testing::backend_available(GetParam())) GTEST_SKIP() << "no CUDA device present";
    const Dataset data = colon();
    const auto folds = stratified_random_splits(data.y, 8, 50, testing::test_seed());
    SelectionEvaluationOptions options = arom_options();
    options.selection.feature_counts = {1000, 100, 20};
    options.schedule = SelectionEvaluationOptions::Schedule::Batched;
    const SelectionEvaluation f64 = evaluate_selection(*make_backend(GetParam()), data, folds, options);
    options.gram_precision = Precision::Float32;
    options.schedule = SelectionEvaluationOptions::Schedule::Auto;  // batched, for float32
    const SelectionEvaluation f32 = evaluate_selection(*make_backend(GetParam()), data, folds, options);
    EXPECT_TRUE(f32.batched);
    std::size_t same = 0, total = 0;
    for (std::size_t f = 0; f < folds.size(); ++f)
        for (std::size_t c = 0; c < options.selection.feature_counts.size(); ++c) {
            IndexVector a = f64.splits[f].selected[c], b = f32.splits[f].selected[c];
            std::sort(a.begin(), a.end());
            std::sort(b.begin(), b.end());
            same += a == b;
            ++total;
        }
    EXPECT_GE(double(same), 0.75 * double(total));
    for (std::size_t c = 0; c < f64.path.size(); ++c)
        EXPECT_NEAR(f32.path[c].mean_error, f64.path[c].mean_error, 1.0 / 12) << c;
    options.schedule = SelectionEvaluationOptions::Schedule::PerSplit;
    EXPECT_THROW(evaluate_selection(*make_backend(GetParam()), data, folds, options), InvalidArgument);
    options.schedule = SelectionEvaluationOptions::Schedule::Auto;
    options.selection.method = SelectionMethod::Corr;  // never batched
    EXPECT_THROW(evaluate_selection(*make_backend(GetParam()), data, folds, options), InvalidArgument);
}

TEST_P(EvaluationSchedules, BatchedRefusesWhatItCannotRun) {
    if (!testing::backend_available(GetParam())) GTEST_SKIP() << "no CUDA device present";
    const Dataset data = colon();
    const auto folds = stratified_random_splits(data.y, 2, 50, 1);
    SelectionEvaluationOptions options = arom_options();
    options.schedule = SelectionEvaluationOptions::Schedule::Batched;
    options.selection.ridge = 0.0;  // hard margin, C = inf
    EXPECT_THROW(evaluate_selection(*make_backend(GetParam()), data, folds, options), InvalidArgument);
    options.selection.ridge = 1e-3;
    options.selection.method = SelectionMethod::Corr;
    EXPECT_THROW(evaluate_selection(*make_backend(GetParam()), data, folds, options), InvalidArgument);
    options.selection.method = SelectionMethod::L2Arom;
    std::vector<Fold> uneven = folds;
    uneven[1].train.pop_back();
    EXPECT_THROW(evaluate_selection(*make_backend(GetParam()), data, uneven, options), InvalidArgument);
}

ZN_INSTANTIATE_FOR_BACKENDS(EvaluationSchedules);

// Auto picks the batched schedule where the backend prefers it (a CPU backend told so here),
// the per-split one elsewhere, on worker backends only where it runs more than one at once
// (as many as the threads and its limit allow).
TEST(Evaluation, CapabilitiesChooseTheSchedule) {
    ZN_SEED_TRACE();
    const Dataset data = colon();
    const auto folds = stratified_random_splits(data.y, 3, 50, testing::test_seed());
    SelectionEvaluationOptions options = arom_options();
    options.threads = 4;
    for (const bool batched : {false, true})
        for (const unsigned limit : {1u, 2u, 0u}) {
            testing::CapabilityBackend backend(make_cpu_backend(),
                                               testing::capabilities(batched, limit));
            EXPECT_EQ(evaluate_selection(backend, data, folds, options).batched, batched);
            const int made = batched || limit == 1 ? 0 : limit == 2 ? 2 : 3;  // 3 splits
            EXPECT_EQ(backend.counters().workers, made);
            if (made > 0) {
                EXPECT_EQ(backend.counters().of_workers, unsigned(made));
            }
            EXPECT_GT(backend.counters().kernel_calls, 0);
        }
}

TEST(Evaluation, ColonPathLandsNearThePaper) {
    // Weston et al. 2003 Table 2, l2-AROM: 11-15 % over the path; a broken selection or a
    // preprocessing leak would move it far out of this band.
    const Dataset data = colon();
    const auto folds = stratified_random_splits(data.y, 40, 50, 7);
    const SelectionEvaluation r =
        evaluate_selection(*make_cpu_backend(), data, folds, arom_options());
    for (const PathPoint& p : r.path) {
        EXPECT_GT(p.mean_error, 0.05) << p.n_features;
        EXPECT_LT(p.mean_error, 0.22) << p.n_features;
        EXPECT_GT(p.std_error, 0.0);
    }
}

TEST(Evaluation, BadSplitsAreClearErrors) {
    const Dataset data = colon();
    const SelectionEvaluationOptions options = arom_options();
    EXPECT_THROW(evaluate_selection(*make_cpu_backend(), data, {}, options), InvalidArgument);
    std::vector<Fold> bad{{{0, 1, 2}, {}}};
    EXPECT_THROW(evaluate_selection(*make_cpu_backend(), data, bad, options), InvalidArgument);
    bad = {{{0, 1, 2, 70}, {3}}};
    EXPECT_THROW(evaluate_selection(*make_cpu_backend(), data, bad, options), InvalidArgument);
    SelectionEvaluationOptions negative = options;
    negative.threads = -1;
    const auto folds = stratified_random_splits(data.y, 2, 50, 1);
    EXPECT_THROW(evaluate_selection(*make_cpu_backend(), data, folds, negative), InvalidArgument);
}

}  // namespace
}  // namespace zeronorm
