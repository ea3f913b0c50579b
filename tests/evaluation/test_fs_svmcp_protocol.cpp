// FS-SVMCP under the evaluation protocol of Rinaldi & Sciandrone 2010, sec. 5.2
// (validation_protocol.hpp with the fs-svmcp fitter): no grid, C chosen by the method's own
// inner cross-validation; every split's result equals FS-SVMCP run by hand on the standardised
// training rows (features, C, training and test errors), and the means are those of the splits.
#include <gtest/gtest.h>

#include <random>

#include "support/random.hpp"
#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/preprocess.hpp"
#include "zeronorm/evaluation/validation_protocol.hpp"
#include "zeronorm/io/json.hpp"
#include "zeronorm/methods/fs_svmcp.hpp"

namespace zeronorm {
namespace {

using testing::test_seed;

double error_of(const Vector& predicted, const Vector& y) {
    return double((predicted.array() != y.array()).count()) / double(y.size());
}

TEST(FsSvmcpProtocol, EverySplitIsFsSvmcpRunByHand) {
    const std::uint64_t seed = test_seed();
    SCOPED_TRACE("ZN_TEST_SEED=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    const Dataset data = testing::sparse_problem(60, 12, rng);
    const std::vector<Fold> splits = stratified_random_splits(data.y, 4, 40, seed);
    ValidationProtocolOptions options;
    options.grid = paper_grid("fs-svmcp");
    options.seed = seed;
    SelectionOptions base;
    base.fs_svmcp.C_grid = {0.01, 1.0, 100.0};
    base.fs_svmcp.folds = 3;
    const auto backend = make_backend(BackendKind::Cpu);
    const ValidationProtocolResult r = evaluate_validation_protocol(
        *backend, data, splits, validation_fitter("fs-svmcp", base), options);
    EXPECT_TRUE(r.parameter_names.empty());
    ASSERT_EQ(r.folds.size(), splits.size());
    double features = 0.0, errors = 0.0, train_errors = 0.0;
    for (std::size_t f = 0; f < splits.size(); ++f) {
        const ValidationFold& fold = r.folds[f];
        EXPECT_TRUE(fold.validation_errors.empty());  // nothing validated on a half
        Dataset train = data.subset(splits[f].train), test = data.subset(splits[f].test);
        const Standardizer s = Standardizer::fit(train.X);
        train.X = s.transform(train.X);
        test.X = s.transform(test.X);
        const FsSvmcpResult hand = train_fs_svmcp(train.X, train.y, base.fs_svmcp);
        EXPECT_EQ(fold.selected, hand.selected);
        ASSERT_EQ(fold.own_choices.size(), 1u);
        EXPECT_EQ(fold.own_choices[0].first, "fs_svmcp.C");
        EXPECT_EQ(fold.own_choices[0].second, hand.C);
        EXPECT_DOUBLE_EQ(fold.error, error_of(hand.predict(test.X), test.y));
        EXPECT_DOUBLE_EQ(fold.train_error, error_of(hand.predict(train.X), train.y));
        EXPECT_EQ(fold.iterations, std::int64_t(hand.steps.size()));
        EXPECT_GE(fold.selected.size(), 1u);
        features += double(fold.selected.size());
        errors += fold.error;
        train_errors += fold.train_error;
    }
    const double k = double(splits.size());
    EXPECT_DOUBLE_EQ(r.mean_features, features / k);
    EXPECT_DOUBLE_EQ(r.mean_error, errors / k);
    EXPECT_DOUBLE_EQ(r.mean_train_error, train_errors / k);
    // Three informative features of twelve: some split keeps fewer than all (one may keep all
    // twelve at a large C), and the splits together beat chance (a few seeds reach 35 %).
    EXPECT_LT(r.mean_features, 12.0);
    EXPECT_LT(r.mean_error, 0.5);

    // JSON: the chosen C under `chosen`, the training errors beside the test errors.
    const Json j = to_json(r);
    const Json& result = j["results"][0];
    EXPECT_DOUBLE_EQ(result["mean_train_error"].get<double>(), r.mean_train_error);
    for (std::size_t f = 0; f < splits.size(); ++f) {
        EXPECT_EQ(result["folds"][f]["chosen"]["fs_svmcp.C"].get<double>(),
                  r.folds[f].own_choices[0].second);
        EXPECT_EQ(result["folds"][f]["train_error"].get<double>(), r.folds[f].train_error);
        EXPECT_EQ(result["folds"][f]["features"].get<std::size_t>(), r.folds[f].selected.size());
    }
}

TEST(FsSvmcpProtocol, FixedCIsUsedAndBadOptionsAreRefused) {
    const std::uint64_t seed = test_seed();
    SCOPED_TRACE("ZN_TEST_SEED=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    const Dataset data = testing::sparse_problem(40, 6, rng);
    const std::vector<Fold> folds = stratified_kfold(data.y, 3, seed);
    ValidationProtocolOptions options;
    options.grid = paper_grid("fs-svmcp");
    const auto backend = make_backend(BackendKind::Cpu);
    SelectionOptions fixed;
    fixed.fs_svmcp.C = 2.5;
    const ValidationProtocolResult r = evaluate_validation_protocol(
        *backend, data, folds, validation_fitter("fs-svmcp", fixed), options);
    for (const ValidationFold& f : r.folds) EXPECT_EQ(f.own_choices.at(0).second, 2.5);

    SelectionOptions bad;
    bad.fs_svmcp.folds = 1;
    EXPECT_THROW(evaluate_validation_protocol(*backend, data, folds,
                                              validation_fitter("fs-svmcp", bad), options),
                 InvalidArgument);
    // A grid over a parameter FS-SVMCP does not take.
    options.grid = ParameterGrid::product({"dc.lambda"}, {{0.1, 0.5}});
    EXPECT_THROW(evaluate_validation_protocol(*backend, data, folds,
                                              validation_fitter("fs-svmcp", {}), options),
                 InvalidArgument);
}

}  // namespace
}  // namespace zeronorm
