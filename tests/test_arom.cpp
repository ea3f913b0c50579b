// l2-AROM (Weston et al., JMLR 3, 2003, sec. 3.1-3.3, 4.5): the multiplicative update and pruning
// on a case computed by hand, one-pass consistency of the feature-count path, multi-class
// one-vs-rest, and a small version of the paper's Table 1 experiment. Run on every backend built.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "../bench/weston2003_linear_problem.hpp"
#include "arom.hpp"
#include "backends.hpp"
#include "random.hpp"
#include "zeronorm/error.hpp"
#include "zeronorm/preprocess.hpp"
#include "zeronorm/selection.hpp"

namespace zeronorm {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(AromUpdate, MultipliesNormalisesAndPrunes) {
    Vector z(4), w(4);
    z << 1.0, 0.5, 0.25, 1.0;
    w << 2.0, -3.0, 1e-9, 0.5;  // |w| is used
    const detail::AromUpdate u = detail::arom_update(z, w, 1e-8);
    // u = z .* |w| = (2, 1.5, 2.5e-10, 0.5), max 2 -> (1, 0.75, 1.25e-10, 0.25).
    EXPECT_FALSE(u.degenerate);
    EXPECT_DOUBLE_EQ(u.normalized[0], 1.0);
    EXPECT_DOUBLE_EQ(u.normalized[1], 0.75);
    EXPECT_DOUBLE_EQ(u.normalized[2], 1.25e-10);
    EXPECT_DOUBLE_EQ(u.normalized[3], 0.25);
    EXPECT_EQ(u.z[2], 0.0);  // pruned: 1.25e-10 <= 1e-8
    EXPECT_EQ(u.keep, (IndexVector{0, 1, 3}));
    EXPECT_DOUBLE_EQ(u.max_change, 0.75);  // |0.25 - 1| at feature 3
}

TEST(AromUpdate, AllZeroWeightsAreDegenerate) {
    const detail::AromUpdate u = detail::arom_update(Vector::Ones(3), Vector::Zero(3), 1e-8);
    EXPECT_TRUE(u.degenerate);
    EXPECT_EQ(u.keep.size(), 3u);
}

class Arom : public ::testing::TestWithParam<BackendKind> {};

// Four points, three features, symmetric in feature 3:
//   +1: (1, 0.5,  1), (1, 0.5, -1)      -1: (-1, -0.5, 1), (-1, -0.5, -1).
// The hard-margin SVM on z * x has w3 = 0 by symmetry, and with d = z .* (2, 1) (the difference
// of the class centres) w_bar = 2 d / |d|^2, all four points on the margin. With z = (1, r, 0):
// w_bar = 2 (2, r) / (4 + r^2), so z <- z .* |w_bar| gives, after normalisation, z = (1, r^2/2):
// r = 1 -> 1/2 -> 1/8 -> 1/128 -> 2^-15 -> 2^-31 (pruned at 1e-8), and the inner objective
// 1/2 |w_bar|^2 = 2 / (4 + r^2).
Dataset hand_checked_problem() {
    Dataset data;
    data.X.resize(4, 3);
    data.X << 1, 0.5, 1,  //
        1, 0.5, -1,       //
        -1, -0.5, 1,      //
        -1, -0.5, -1;
    data.y.resize(4);
    data.y << 1, 1, -1, -1;
    return data;
}

TEST_P(Arom, HandCheckedUpdatesAndPruning) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    SelectionOptions opt;
    opt.feature_counts = {1};
    const SelectionResult result = select_features(*backend, hand_checked_problem(), opt);

    // Iterates (after the update): z = (1, 1/2, 0), (1, 1/8), (1, 2^-7), (1, 2^-15), (1, 0).
    ASSERT_EQ(result.trace.size(), 5u);
    const Index alive[] = {2, 2, 2, 2, 1};
    double r = 1.0;
    for (std::size_t t = 0; t < 5; ++t) {
        SCOPED_TRACE("iteration " + std::to_string(t + 1));
        EXPECT_EQ(result.trace[t].n_features, alive[t]);
        EXPECT_NEAR(result.trace[t].objective, 2.0 / (4.0 + r * r), 1e-7);
        const double next = r * r / 2;
        // max |z - z_prev|: feature 2 moves r -> r^2/2 (feature 3 from 1 to 0 on iteration 1).
        EXPECT_NEAR(result.trace[t].max_change, t == 0 ? 1.0 : r - next, 1e-7);
        r = next;
    }
    EXPECT_EQ(result.iterations, 5);
    EXPECT_EQ(result.status, Status::Success);
    EXPECT_NEAR(result.scores[0], 1.0, 1e-12);
    EXPECT_EQ(result.scores[1], 0.0);
    EXPECT_EQ(result.scores[2], 0.0);

    ASSERT_EQ(result.subsets.size(), 1u);
    const FeatureSubset& s = result.subsets[0];
    EXPECT_EQ(s.selected, IndexVector{0});
    // Retrained on the original column x1 = (1, 1, -1, -1): w = 1, b = 0.
    ASSERT_EQ(s.weights.size(), 1);
    EXPECT_NEAR(s.weights[0], 1.0, 1e-6);
    ASSERT_EQ(s.classifiers.size(), 1u);
    EXPECT_NEAR(s.classifiers[0].bias, 0.0, 1e-6);
}

TEST_P(Arom, CountsReachedOnTheFirstIterate) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    SelectionOptions opt;
    opt.feature_counts = {3, 2};
    const SelectionResult result = select_features(*backend, hand_checked_problem(), opt);
    // Iterate 1 leaves 2 features (x3 pruned): exactly 2 -> {x1, x2} by z; 3 is passed on the
    // first iterate, so its ranking is z before pruning, (1, 1/2, 0).
    EXPECT_EQ(result.iterations, 1);
    EXPECT_EQ(result.subsets[0].selected, (IndexVector{0, 1, 2}));
    EXPECT_EQ(result.subsets[1].selected, (IndexVector{0, 1}));
    // Retrained on (x1, x2): the same hard-margin solution w = (0.8, 0.4).
    EXPECT_NEAR(result.subsets[1].weights[0], 0.8, 1e-6);
    EXPECT_NEAR(result.subsets[1].weights[1], 0.4, 1e-6);
}

// Data with a few informative features among many.
Dataset sparse_signal(Index n, Index d, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> g(0.0, 1.0);
    Dataset data;
    data.X.resize(n, d);
    data.y.resize(n);
    for (Index i = 0; i < n; ++i) {
        data.y[i] = i % 2 == 0 ? 1.0 : -1.0;
        for (Index j = 0; j < d; ++j) data.X(i, j) = g(rng) + (j < 8 ? 0.7 * data.y[i] : 0.0);
    }
    return data;
}

TEST_P(Arom, OnePassServesEveryCountLikeSeparateRuns) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    const Dataset data = sparse_signal(40, 100, 11);
    SelectionOptions many;
    many.feature_counts = {5, 50, 20};  // any order; reported in this order
    SelectionOptions one;
    one.feature_counts = {20};
    const SelectionResult a = select_features(*backend, data, many);
    const SelectionResult b = select_features(*backend, data, one);
    ASSERT_EQ(a.subsets.size(), 3u);
    EXPECT_EQ(a.subsets[0].n_features, 5);
    EXPECT_EQ(a.subsets[1].n_features, 50);
    EXPECT_EQ(a.subsets[2].selected, b.subsets[0].selected);
    EXPECT_EQ(a.subsets[2].selected.size(), 20u);
    // Nested: the path only removes features.
    for (Index j : a.subsets[0].selected)
        EXPECT_NE(std::find(a.subsets[2].selected.begin(), a.subsets[2].selected.end(), j),
                  a.subsets[2].selected.end());
    for (Index j : a.subsets[2].selected)
        EXPECT_NE(std::find(a.subsets[1].selected.begin(), a.subsets[1].selected.end(), j),
                  a.subsets[1].selected.end());
    // The 20-feature run stops earlier, on the same path.
    ASSERT_LE(b.trace.size(), a.trace.size());
    for (std::size_t t = 0; t < b.trace.size(); ++t)
        EXPECT_EQ(a.trace[t].n_features, b.trace[t].n_features);
    // Trace is monotone and the status reports reaching the counts.
    for (std::size_t t = 1; t < a.trace.size(); ++t)
        EXPECT_LE(a.trace[t].n_features, a.trace[t - 1].n_features);
    EXPECT_EQ(a.status, Status::Success);
}

TEST_P(Arom, IterationCapGivesNoConvergence) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    SelectionOptions opt;
    opt.feature_counts = {1};
    opt.max_iterations = 2;
    const SelectionResult result = select_features(*backend, hand_checked_problem(), opt);
    EXPECT_EQ(result.status, Status::NoConvergence);
    EXPECT_EQ(result.iterations, 2);
    // Not reached: the largest z of the last iterate.
    EXPECT_EQ(result.subsets[0].selected, IndexVector{0});
}

TEST_P(Arom, SoftMarginAndRidgeRun) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    const Dataset data = sparse_signal(30, 40, 5);
    for (const auto& [C, ridge] : {std::pair{1.0, 0.0}, std::pair{kInf, 0.1}}) {
        SelectionOptions opt;
        opt.feature_counts = {4};
        opt.C = C;
        opt.ridge = ridge;
        const SelectionResult result = select_features(*backend, data, opt);
        ASSERT_EQ(result.subsets[0].selected.size(), 4u);
        Index informative = 0;
        for (Index j : result.subsets[0].selected) informative += j < 8;
        EXPECT_GE(informative, 3) << "C = " << C << ", ridge = " << ridge;
    }
}

TEST_P(Arom, HardMarginOnInseparableDataSaysSo) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    Dataset twins;  // identical points with opposite labels
    twins.X.resize(4, 2);
    twins.X << 0, 0, 1, 1, 0, 0, 1, 1;
    twins.y.resize(4);
    twins.y << 1, 1, -1, -1;
    std::mt19937_64 rng(17);
    // 300 points of two overlapping Gaussians in 5 dimensions: a hard margin diverges. The
    // convex-hull certificate must say so after a few cheap SMO stages, not after 10^7 steps.
    const Dataset overlap = testing::random_two_class(300, 5, rng, 0.3);
    for (const Dataset* data : {static_cast<const Dataset*>(&twins), &overlap}) {
        for (SelectionMethod method : {SelectionMethod::L2Arom, SelectionMethod::Rfe}) {
            SelectionOptions opt;
            opt.method = method;
            opt.feature_counts = {1};
            try {
                select_features(*backend, *data, opt);
                ADD_FAILURE() << "expected NumericalError";
            } catch (const NumericalError& e) {
                const std::string what = e.what();
                EXPECT_NE(what.find("data not separable"), std::string::npos) << what;
                EXPECT_NE(what.find("set a ridge > 0"), std::string::npos) << what;
                EXPECT_NE(what.find(method == SelectionMethod::Rfe ? "RFE round 1" : "l2-AROM iteration 1"),
                          std::string::npos)
                    << what;
            }
            opt.ridge = 0.1;  // the 2-norm soft margin of sec. 3.2 handles it
            EXPECT_NO_THROW(select_features(*backend, *data, opt));
        }
    }
}

TEST_P(Arom, OneVsRestMultiClass) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    // Class k (0, 1, 2) is marked by a large value of feature 2k; 30 noise features.
    std::mt19937_64 rng(3);
    std::normal_distribution<double> g(0.0, 1.0);
    Dataset data;
    data.X.resize(45, 30);
    data.y.resize(45);
    for (Index i = 0; i < 45; ++i) {
        const int k = int(i % 3);
        data.y[i] = k;
        for (Index j = 0; j < 30; ++j) data.X(i, j) = 0.3 * g(rng);
        data.X(i, 2 * k) += 3.0;
    }
    SelectionOptions opt;
    opt.feature_counts = {3};
    const SelectionResult result = select_features(*backend, data, opt);
    IndexVector selected = result.subsets[0].selected;
    std::sort(selected.begin(), selected.end());
    EXPECT_EQ(selected, (IndexVector{0, 2, 4}));
    const FeatureSubset& s = result.subsets[0];
    ASSERT_EQ(s.classifiers.size(), 3u);
    EXPECT_EQ(s.class_weights.rows(), 3);
    EXPECT_EQ(s.class_weights.cols(), 3);
    EXPECT_TRUE(s.weights.isApprox(s.class_weights.cwiseAbs().rowwise().sum()));
    // One-vs-rest prediction (argmax of the machines' outputs) on the training data.
    Matrix Xs(45, 3);
    for (Index k = 0; k < 3; ++k) Xs.col(k) = data.X.col(s.selected[std::size_t(k)]);
    Matrix f(45, 3);
    for (Index k = 0; k < 3; ++k) f.col(k) = s.classifiers[std::size_t(k)].decision_function(*backend, Xs);
    for (Index i = 0; i < 45; ++i) {
        Index best;
        f.row(i).maxCoeff(&best);
        EXPECT_EQ(double(best), data.y[i]) << "sample " << i;
    }
}

// A small version of Table 1 (sec. 4.5): 30 training points, 500 test points, 2 features, 20
// trials with a fixed seed. Paper: l2-AROM 5.7% +- 0.5% test error, two relevant non-redundant
// features in 85 of 100 trials; the naive choice of the two largest |w| of one SVM (the first
// AROM iterate) gives 13.4% (17 of 100), and CORR 14.3% (5). A z-update that does not
// multiply (z <- z, or z <- |w_bar|) fails the bands below (checked by hand: see REPRODUCTION.md).
TEST_P(Arom, SmallTable1Reproduction) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(20030301);
    const int trials = 20;
    double error_sum = 0;
    int hits = 0;
    for (int trial = 0; trial < trials; ++trial) {
        Dataset train = weston2003::linear_problem(30, rng);
        Dataset test = weston2003::linear_problem(500, rng);
        const Standardizer scaler = Standardizer::fit(train.X);
        train.X = scaler.transform(train.X);
        test.X = scaler.transform(test.X);
        SelectionOptions opt;
        opt.feature_counts = {2};
        opt.final_ridge = 1e-4;  // two features rarely separate 30 points
        const SelectionResult result = select_features(*backend, train, opt);
        const FeatureSubset& s = result.subsets[0];
        Matrix Xt(500, 2);
        for (Index k = 0; k < 2; ++k) Xt.col(k) = test.X.col(s.selected[std::size_t(k)]);
        error_sum += error_rate(s.classifiers[0].predict(*backend, Xt), test.y);
        hits += weston2003::relevant_non_redundant(s.selected);
    }
    const double mean_error = error_sum / trials;
    RecordProperty("mean_test_error", std::to_string(mean_error));
    RecordProperty("relevant_non_redundant", hits);
    EXPECT_LT(mean_error, 0.10);
    EXPECT_GE(hits, 13);
}

ZN_INSTANTIATE_FOR_BACKENDS(Arom);

}  // namespace
}  // namespace zeronorm
