// The shared host/device rules (src/core/scalar_rules.hpp) against their definitions, on the
// host: the CUDA kernels run these same functions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "core/scalar_rules.hpp"
#include "support/random.hpp"

namespace zn = zeronorm;
namespace rules = zeronorm::rules;

namespace {

TEST(ScalarRules, PowiIsRepeatedMultiplication) {
    std::mt19937_64 rng(zn::testing::test_seed());
    SCOPED_TRACE(zn::testing::test_seed());
    std::uniform_real_distribution<double> u(-3.0, 3.0);
    for (int trial = 0; trial < 200; ++trial) {
        const double x = u(rng);
        for (int e = -6; e <= 9; ++e) {
            long double expected = 1.0L;
            for (int k = 0; k < std::abs(e); ++k) expected *= x;
            if (e < 0) expected = 1.0L / expected;
            EXPECT_NEAR(rules::powi(x, e), double(expected), 1e-12 * std::fabs(double(expected)))
                << "x = " << x << ", e = " << e;
        }
    }
    EXPECT_EQ(rules::powi(-2.0, 3), -8.0);
    EXPECT_EQ(rules::powi(0.0, 0), 1.0);  // LIBSVM's convention
    EXPECT_TRUE(std::isinf(rules::powi(0.0, -1)));
}

TEST(ScalarRules, KernelValuesFollowTheirFormulas) {
    std::mt19937_64 rng(zn::testing::test_seed());
    SCOPED_TRACE(zn::testing::test_seed());
    std::uniform_real_distribution<double> u(-2.0, 2.0);
    for (int trial = 0; trial < 200; ++trial) {
        const double dot = u(rng), gamma = std::fabs(u(rng)) + 0.1, coef0 = u(rng);
        const int degree = 1 + trial % 5;
        EXPECT_NEAR(rules::polynomial_kernel(gamma, coef0, degree, dot),
                    std::pow(gamma * dot + coef0, degree),
                    1e-12 * (1.0 + std::fabs(std::pow(gamma * dot + coef0, degree))));
        double sum = 0.0;
        for (int t = 1; t <= degree; ++t) sum += std::pow(dot, t);
        EXPECT_NEAR(rules::sum_of_powers_kernel(degree, dot), sum, 1e-12 * (1.0 + std::fabs(sum)));
        const double distance = std::fabs(u(rng));
        EXPECT_DOUBLE_EQ(rules::exponential_kernel(gamma, distance), std::exp(-gamma * distance));
    }
    // A rounding-negative squared distance is 0; NaN stays NaN.
    EXPECT_EQ(rules::exponential_kernel(0.5, -1e-17), 1.0);
    EXPECT_TRUE(std::isnan(rules::exponential_kernel(0.5, std::nan(""))));
}

TEST(ScalarRules, ChiSquareTermIsSymmetricAndSkipsEmptyBins) {
    EXPECT_EQ(rules::chi2_term(0.0, 0.0), 0.0);
    EXPECT_DOUBLE_EQ(rules::chi2_term(3.0, 1.0), 1.0);  // (3 - 1)^2 / 4
    std::mt19937_64 rng(zn::testing::test_seed());
    SCOPED_TRACE(zn::testing::test_seed());
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int trial = 0; trial < 1000; ++trial) {
        const double x = u(rng), y = u(rng);
        EXPECT_EQ(rules::chi2_term(x, y), rules::chi2_term(y, x));  // to the bit
        EXPECT_NEAR(rules::chi2_term(x, y), (x - y) * (x - y) / (x + y), 1e-15);
    }
}

TEST(ScalarRules, SmoIndexSetsAndCurvature) {
    const double C = 2.0;
    // (y, beta) -> (in I_up, in I_low), Fan, Chen & Lin 2005 eq. (7).
    struct Case {
        double y, beta;
        bool up, low;
    };
    for (const Case& c : std::vector<Case>{{+1, 0.0, true, false},
                                           {+1, 1.0, true, true},
                                           {+1, C, false, true},
                                           {-1, 0.0, false, true},
                                           {-1, 1.0, true, true},
                                           {-1, C, true, false}}) {
        EXPECT_EQ(rules::in_up(c.y, c.beta, C), c.up) << "y " << c.y << " beta " << c.beta;
        EXPECT_EQ(rules::in_low(c.y, c.beta, C), c.low) << "y " << c.y << " beta " << c.beta;
    }
    EXPECT_EQ(rules::pair_curvature(3.0), 3.0);
    EXPECT_EQ(rules::pair_curvature(0.0), rules::kSmoTau);
    EXPECT_EQ(rules::pair_curvature(-1.0), rules::kSmoTau);
    EXPECT_EQ(rules::pair_curvature(std::nan("")), rules::kSmoTau);
}

TEST(ScalarRules, AromEntryNormalisesPrunesAndMeasuresTheChange) {
    // u_j = z_j |z_j w_j| (Weston et al. 2003 §3.1).
    EXPECT_DOUBLE_EQ(rules::arom_unnormalized(0.5, std::fabs(0.5 * -3.0)), 0.75);
    const rules::AromEntry kept = rules::arom_entry(0.75, 1.5, 0.25, 1e-3);
    EXPECT_DOUBLE_EQ(kept.normalized, 0.5);
    EXPECT_DOUBLE_EQ(kept.next, 0.5);
    EXPECT_TRUE(kept.keep);
    EXPECT_DOUBLE_EQ(kept.change, 0.25);
    const rules::AromEntry pruned = rules::arom_entry(1e-6, 1.0, 0.5, 1e-3);
    EXPECT_FALSE(pruned.keep);
    EXPECT_EQ(pruned.next, 0.0);
    EXPECT_DOUBLE_EQ(pruned.normalized, 1e-6);
    EXPECT_TRUE(rules::arom_degenerate(0.0, false));
    EXPECT_TRUE(rules::arom_degenerate(std::numeric_limits<double>::infinity(), false));
    EXPECT_TRUE(rules::arom_degenerate(1.0, true));
    EXPECT_FALSE(rules::arom_degenerate(1.0, false));
}

double mean_of(const std::vector<double>& v, double& scale) {
    double mean = 0.0;
    rules::mean_and_scale([&v](std::int64_t i) { return v[std::size_t(i)]; },
                          std::int64_t(v.size()), mean, scale);
    return mean;
}

TEST(ScalarRules, MeanAndScaleIsTheTwoPassPopulationDeviation) {
    std::mt19937_64 rng(zn::testing::test_seed());
    SCOPED_TRACE(zn::testing::test_seed());
    std::normal_distribution<double> g(3.0, 2.0);
    for (int trial = 0; trial < 100; ++trial) {
        std::vector<double> v(2 + trial);
        for (double& x : v) x = g(rng);
        long double sum = 0.0L;
        for (double x : v) sum += x;
        const long double mean = sum / v.size();
        long double squares = 0.0L;
        for (double x : v) squares += (x - mean) * (x - mean);
        double scale = 0.0;
        EXPECT_NEAR(mean_of(v, scale), double(mean), 1e-13);
        EXPECT_NEAR(scale, double(std::sqrt(squares / v.size())), 1e-13);
    }
    // Constant: centred on the value with scale 1, even where rounding leaves a tiny sd.
    double scale = 0.0;
    EXPECT_EQ(mean_of(std::vector<double>(7, 0.1), scale), 0.1);
    EXPECT_EQ(scale, 1.0);
    // Near the largest double: no overflow in the sums or squares.
    EXPECT_DOUBLE_EQ(mean_of({1e300, -1e300, 1e300, -1e300}, scale), 0.0);
    EXPECT_DOUBLE_EQ(scale, 1e300);
}

// Several vectors at once give each vector the bits it gets alone (constant and huge ones
// among them).
TEST(ScalarRules, MeanAndScaleOfManyIsEachAlone) {
    std::mt19937_64 rng(zn::testing::test_seed());
    SCOPED_TRACE(zn::testing::test_seed());
    std::normal_distribution<double> g(-1.0, 3.0);
    constexpr int L = 8;
    const std::int64_t n = 37;
    std::vector<double> columns(std::size_t(n) * L);
    for (double& x : columns) x = g(rng);
    for (std::int64_t i = 0; i < n; ++i) {
        columns[std::size_t(2 * n + i)] = 0.1;                    // constant
        columns[std::size_t(5 * n + i)] *= 1e298;                  // near the largest double
        columns[std::size_t(7 * n + i)] = i % 2 ? 1e-300 : -1e-300;  // tiny
    }
    double mean[L], scale[L];
    rules::mean_and_scale_of<L>(
        [&](std::int64_t i, int c) { return columns[std::size_t(c * n + i)]; }, n, mean, scale);
    for (int c = 0; c < L; ++c) {
        double alone_mean = 0.0, alone_scale = 0.0;
        rules::mean_and_scale([&](std::int64_t i) { return columns[std::size_t(c * n + i)]; }, n,
                              alone_mean, alone_scale);
        EXPECT_EQ(mean[c], alone_mean) << "vector " << c;
        EXPECT_EQ(scale[c], alone_scale) << "vector " << c;
    }
    EXPECT_EQ(mean[2], 0.1);
    EXPECT_EQ(scale[2], 1.0);
    EXPECT_NEAR(scale[7] / 1e-300, 1.0, 1e-3);  // 19 of one sign, 18 of the other
}

}  // namespace
