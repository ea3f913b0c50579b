// Batch evaluation over splits: equal to one-at-a-time runs, independent of the thread count.
#include <gtest/gtest.h>

#include "random.hpp"
#include "zeronorm/error.hpp"
#include "zeronorm/evaluation.hpp"
#include "zeronorm/io.hpp"
#include "zeronorm/preprocess.hpp"

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

TEST(Evaluation, BatchEqualsOneAtATimeOnEveryThreadCount) {
    const Dataset data = colon();
    const auto folds = stratified_random_splits(data.y, 6, 50, testing::test_seed());
    SelectionEvaluationOptions options = arom_options();
    options.threads = 1;
    const SelectionEvaluation serial = evaluate_selection(BackendKind::Cpu, 0, data, folds, options);
    options.threads = 3;
    const SelectionEvaluation parallel = evaluate_selection(BackendKind::Cpu, 0, data, folds, options);
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

TEST(Evaluation, ColonPathLandsNearThePaper) {
    // Weston et al. 2003 Table 2, l2-AROM: 11-15 % over the path; a broken selection or a
    // preprocessing leak would move it far out of this band.
    const Dataset data = colon();
    const auto folds = stratified_random_splits(data.y, 40, 50, 7);
    const SelectionEvaluation r =
        evaluate_selection(BackendKind::Cpu, 0, data, folds, arom_options());
    for (const PathPoint& p : r.path) {
        EXPECT_GT(p.mean_error, 0.05) << p.n_features;
        EXPECT_LT(p.mean_error, 0.22) << p.n_features;
        EXPECT_GT(p.std_error, 0.0);
    }
}

TEST(Evaluation, BadSplitsAreClearErrors) {
    const Dataset data = colon();
    const SelectionEvaluationOptions options = arom_options();
    EXPECT_THROW(evaluate_selection(BackendKind::Cpu, 0, data, {}, options), InvalidArgument);
    std::vector<Fold> bad{{{0, 1, 2}, {}}};
    EXPECT_THROW(evaluate_selection(BackendKind::Cpu, 0, data, bad, options), InvalidArgument);
    bad = {{{0, 1, 2, 70}, {3}}};
    EXPECT_THROW(evaluate_selection(BackendKind::Cpu, 0, data, bad, options), InvalidArgument);
    SelectionEvaluationOptions negative = options;
    negative.threads = -1;
    const auto folds = stratified_random_splits(data.y, 2, 50, 1);
    EXPECT_THROW(evaluate_selection(BackendKind::Cpu, 0, data, folds, negative), InvalidArgument);
}

}  // namespace
}  // namespace zeronorm
