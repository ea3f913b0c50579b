// Train-fitted preprocessing: Standardizer, per-row standardisation, log10.
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <limits>
#include <numeric>
#include <random>
#include <string>

#include "core/split_rows.hpp"
#include "support/matrix_checks.hpp"
#include "support/random.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/preprocess.hpp"
#include "zeronorm/io/io.hpp"

namespace {

using zeronorm::Index;
using zeronorm::testing::exactly_equal;
using zeronorm::Matrix;
using zeronorm::Vector;

Matrix random_matrix(Index n, Index d, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> normal(3.0, 5.0);
    Matrix X(n, d);
    for (Index j = 0; j < d; ++j)
        for (Index i = 0; i < n; ++i) X(i, j) = normal(rng);
    return X;
}

double population_sd(const Eigen::Ref<const Eigen::VectorXd>& v) {
    const double mean = v.mean();
    return std::sqrt((v.array() - mean).square().mean());
}

template <class E, class F>
void expect_throw_with(F&& f, std::initializer_list<std::string> keys) {
    try {
        f();
        ADD_FAILURE() << "did not throw";
    } catch (const E& e) {
        for (const auto& key : keys)
            EXPECT_NE(std::string(e.what()).find(key), std::string::npos)
                << "'" << key << "' missing from: " << e.what();
    }
}

TEST(PreprocessStandardizer, ZeroMeanUnitPopulationSd) {
    const Matrix X = random_matrix(50, 4, 1);
    const auto s = zeronorm::Standardizer::fit(X);
    const Matrix Z = s.transform(X);
    for (Index j = 0; j < Z.cols(); ++j) {
        EXPECT_NEAR(Z.col(j).mean(), 0.0, 1e-12);
        EXPECT_NEAR(population_sd(Z.col(j)), 1.0, 1e-12);
        EXPECT_NEAR(s.mean[j], X.col(j).mean(), 1e-12);
        EXPECT_NEAR(s.scale[j], population_sd(X.col(j)), 1e-12);
    }
}

TEST(PreprocessStandardizer, AppliesTrainStatisticsToOtherRows) {
    Matrix train(2, 1);
    train << 1, 3;  // mean 2, population sd 1
    const auto s = zeronorm::Standardizer::fit(train);
    Matrix test(3, 1);
    test << 2, 5, -1;
    const Matrix Z = s.transform(test);
    EXPECT_DOUBLE_EQ(Z(0, 0), 0.0);
    EXPECT_DOUBLE_EQ(Z(1, 0), 3.0);
    EXPECT_DOUBLE_EQ(Z(2, 0), -3.0);
}

TEST(PreprocessStandardizer, ConstantFeatureMapsToZero) {
    Matrix X(7, 2);
    X.col(0).setConstant(0.1);  // a sum of 0.1s rounds, so the sd is not exactly 0
    X.col(1) << 1, 2, 3, 4, 5, 6, 7;
    const auto s = zeronorm::Standardizer::fit(X);
    EXPECT_EQ(s.scale[0], 1.0);
    const Matrix Z = s.transform(X);
    EXPECT_TRUE(Z.col(0).isZero(0.0)) << Z.col(0).transpose();
    EXPECT_TRUE(Z.allFinite());
}

// A block of rows and columns of a larger matrix (outer stride above its row count, more than
// eight columns so the lane-wise statistics run) gives the bits of a compact copy; in place
// equals transform and leaves the rest of the matrix alone.
TEST(PreprocessStandardizer, BlocksOfALargerMatrixAreStandardizedInPlace) {
    Matrix big = random_matrix(40, 30, 5);
    const Matrix before = big;
    auto train = big.block(3, 4, 25, 19);
    const Matrix compact = train;
    const auto s = zeronorm::Standardizer::fit(train);
    const auto c = zeronorm::Standardizer::fit(compact);
    EXPECT_EQ(s.mean, c.mean);
    EXPECT_EQ(s.scale, c.scale);
    const Matrix expected = c.transform(compact);
    EXPECT_EQ(s.transform(train), expected);
    s.transform_in_place(train);
    EXPECT_TRUE(exactly_equal(big.block(3, 4, 25, 19), expected));
    big.block(3, 4, 25, 19) = before.block(3, 4, 25, 19);
    EXPECT_EQ(big, before);
    expect_throw_with<zeronorm::DimensionMismatch>(
        [&] { s.transform_in_place(big.leftCols(18)); }, {"18 columns", "19"});
}

// A split's rows gathered and standardised in one pass (the per-split evaluations): the same
// values, bit for bit, as a row subset, Standardizer::fit on its training rows and the two
// transforms; column counts around the eight-column blocks, a constant column, shuffled rows.
TEST(PreprocessSplitRows, SameBitsAsSubsetFitAndTransform) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(zeronorm::testing::test_seed());
    for (const Index d : {1, 7, 8, 9, 23, 64}) {
        const Index n = 5 + Index(rng() % 40);
        Matrix X = zeronorm::testing::random_matrix(n, d, rng, -50.0, 50.0);
        X.col(d / 2).setConstant(3.25);
        std::vector<Index> order(static_cast<std::size_t>(n));
        std::iota(order.begin(), order.end(), Index(0));
        std::shuffle(order.begin(), order.end(), rng);
        const std::size_t n_train = 1 + rng() % std::size_t(n - 1);
        const zeronorm::IndexVector train(order.begin(), order.begin() + std::ptrdiff_t(n_train));
        const zeronorm::IndexVector test(order.begin() + std::ptrdiff_t(n_train), order.end());
        const Matrix X_train = X(train, Eigen::all), X_test = X(test, Eigen::all);
        for (const bool standardize : {false, true}) {
            SCOPED_TRACE("d = " + std::to_string(d) + ", standardize = " +
                         std::to_string(standardize));
            const auto rows = zeronorm::detail::split_rows(X, train, test, standardize);
            if (!standardize) {
                EXPECT_TRUE(exactly_equal(rows.train, X_train));
                EXPECT_TRUE(exactly_equal(rows.test, X_test));
                continue;
            }
            const auto s = zeronorm::Standardizer::fit(X_train);
            EXPECT_TRUE(exactly_equal(rows.train, s.transform(X_train)));
            EXPECT_TRUE(exactly_equal(rows.test, s.transform(X_test)));
        }
    }
}

TEST(PreprocessStandardizer, Errors) {
    const auto s = zeronorm::Standardizer::fit(random_matrix(5, 3, 2));
    expect_throw_with<zeronorm::DimensionMismatch>([&] { s.transform(Matrix::Zero(2, 4)); },
                                                   {"4 columns", "3"});
    expect_throw_with<zeronorm::InvalidArgument>(
        [] { zeronorm::Standardizer::fit(Matrix(0, 3)); }, {"at least one row"});
    Matrix bad = random_matrix(4, 3, 3);
    bad(2, 1) = std::numeric_limits<double>::quiet_NaN();
    expect_throw_with<zeronorm::InvalidArgument>([&] { zeronorm::Standardizer::fit(bad); },
                                                 {"row 2", "column 1"});
}

// Finite values near the top of the double range: the sums and squares of the naive formulas
// overflow; the statistics must not, and ordinary data keep the naive formulas' exact bits.
TEST(PreprocessStandardizer, HugeFiniteValuesDoNotOverflow) {
    Matrix X(4, 2);
    X << 1e300, 3e155, 1.5e300, -1e155, -1e300, 2e155, 1.7e308, 1e155;
    const zeronorm::Standardizer s = zeronorm::Standardizer::fit(X);
    ASSERT_TRUE(s.mean.allFinite() && s.scale.allFinite());
    EXPECT_GT(s.scale.minCoeff(), 0.0);
    const Matrix Z = s.transform(X);
    ASSERT_TRUE(Z.allFinite());
    for (Index j = 0; j < 2; ++j) {
        EXPECT_NEAR(Z.col(j).mean(), 0.0, 1e-12);
        EXPECT_NEAR(Z.col(j).squaredNorm() / 4.0, 1.0, 1e-12);
    }
    Matrix ordinary(3, 1);
    ordinary << 0.1, 0.7, -2.3;
    const zeronorm::Standardizer o = zeronorm::Standardizer::fit(ordinary);
    const double mean = ordinary.sum() / 3.0;
    EXPECT_EQ(o.mean[0], mean);
    EXPECT_EQ(o.scale[0], std::sqrt((ordinary.array() - mean).square().sum() / 3.0));
}

TEST(PreprocessRows, EachRowZeroMeanUnitSd) {
    Matrix X = random_matrix(6, 30, 4);
    X.row(3).setConstant(42.0);
    const Matrix Z = zeronorm::standardize_rows(X);
    for (Index i = 0; i < Z.rows(); ++i) {
        EXPECT_NEAR(Z.row(i).mean(), 0.0, 1e-12);
        if (i == 3)
            EXPECT_TRUE(Z.row(i).isZero(0.0));
        else
            EXPECT_NEAR(population_sd(Z.row(i).transpose()), 1.0, 1e-12);
    }
}

TEST(PreprocessLog10, ValuesAndErrors) {
    Matrix X(2, 3);
    X << 1, 10, 1000, 0.01, 5, 1e-300;
    const Matrix L = zeronorm::log10_transform(X);
    EXPECT_DOUBLE_EQ(L(0, 1), 1.0);
    EXPECT_DOUBLE_EQ(L(0, 2), 3.0);
    EXPECT_DOUBLE_EQ(L(1, 0), -2.0);
    EXPECT_NEAR(L(1, 2), -300.0, 1e-12);
    X(1, 2) = 0.0;
    X(1, 1) = -3.0;  // first in reading order is (1, 1)
    expect_throw_with<zeronorm::InvalidArgument>([&] { zeronorm::log10_transform(X); },
                                                 {"row 1", "column 1", "positive"});
    X(1, 1) = std::numeric_limits<double>::quiet_NaN();
    expect_throw_with<zeronorm::InvalidArgument>([&] { zeronorm::log10_transform(X); },
                                                 {"row 1", "column 1"});
}

// The microarray recipe of Weston et al. 2003 on the colon set: log10, then train-fitted
// per-feature standardisation.
TEST(PreprocessColon, Log10ThenStandardize) {
    const auto ds = zeronorm::read_csv(std::string(ZERONORM_DATA_DIR) + "/colon/colon.csv");
    const Matrix L = zeronorm::log10_transform(ds.X);
    EXPECT_NEAR(L(0, 0), std::log10(8589.42), 1e-12);
    const auto s = zeronorm::Standardizer::fit(L);
    const Matrix Z = s.transform(L);
    ASSERT_TRUE(Z.allFinite());
    EXPECT_NEAR(Z.colwise().mean().cwiseAbs().maxCoeff(), 0.0, 1e-10);
    const Matrix R = zeronorm::standardize_rows(L);
    EXPECT_TRUE(R.allFinite());
    EXPECT_NEAR(R.rowwise().mean().cwiseAbs().maxCoeff(), 0.0, 1e-10);
}

}  // namespace
