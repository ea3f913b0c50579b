// The linear SVM with a ridge solved in the primal (solve_ridge_svm_primal): its answer meets
// the primal's optimality conditions, written out here (w = sum_i beta_i y_i x_i and y'beta = 0
// with beta_i = clip(t_i / ridge, 0, C)), its dual point is feasible and its gap is met, on
// overlapping classes with a hard margin and with a box, duplicated samples, a constant and a
// badly scaled feature; every start ends at the same optimum; the cap and bad arguments are
// reported.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "solvers/ridge_svm_primal.hpp"
#include "support/random.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// beta_i = clip((1 - y_i (w.x_i + b)) / ridge, 0, C): the dual point of a primal point.
Vector primal_beta(const Matrix& X, const Vector& y, double C, double ridge, const Vector& w,
                   double b) {
    const Vector t = (1.0 - y.array() * ((X * w).array() + b)).matrix();
    return (t / ridge).cwiseMax(0.0).cwiseMin(C);
}

// `certified`: the gap is asked to meet the tolerance. Where one feature's scale magnifies
// rounding in the dual point, so that no gap can show it, the primal's stationarity in each
// w_j and in b must hold instead, relative to the sizes of the terms that cancel.
void expect_optimal(const Matrix& X, const Vector& y, double C, double ridge,
                    const detail::LinearSvmSolution& r, bool certified = true) {
    ASSERT_EQ(r.dual.status, Status::Success);
    if (!certified) {
        const Vector beta = primal_beta(X, y, C, ridge, r.w, r.dual.bias);
        const Vector w_of_beta = X.transpose() * beta.cwiseProduct(y);
        const Vector term_size = X.cwiseAbs().transpose() * beta;
        for (Index j = 0; j < X.cols(); ++j)
            EXPECT_LE(std::abs(r.w[j] - w_of_beta[j]), 1e-6 * (std::abs(r.w[j]) + term_size[j]))
                << "feature " << j;
        EXPECT_LE(std::abs(beta.dot(y)), 1e-6 * beta.sum());
        return;
    }
    // The reported dual point: feasible, and the gap as asked.
    const Vector& feasible = r.dual.beta;
    ASSERT_EQ(feasible.size(), y.size());
    EXPECT_GE(feasible.minCoeff(), 0.0);
    if (std::isfinite(C)) {
        EXPECT_LE(feasible.maxCoeff(), C);
    }
    EXPECT_LE(std::abs(feasible.dot(y)), 1e-9 * (1.0 + feasible.sum()));
    EXPECT_GE(r.dual.duality_gap, -1e-12 * std::abs(r.dual.objective));
    EXPECT_LE(r.dual.duality_gap, 1e-8 * std::abs(r.dual.objective));
    // The dual value at that point, recomputed.
    const Vector w = X.transpose() * feasible.cwiseProduct(y);
    const double dual =
        feasible.sum() - 0.5 * w.squaredNorm() - 0.5 * ridge * feasible.squaredNorm();
    EXPECT_NEAR(-r.dual.objective, dual, 1e-10 * std::abs(dual));
    EXPECT_TRUE(std::isnan(r.dual.kkt_gap));  // SMO's measure, which this solver does not use
}

TEST(RidgeSvmPrimal, MeetsTheOptimalityConditions) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed());
    Dataset data = testing::random_two_class(3000, 8, rng, 0.3);
    data.X.col(3).setConstant(2.5);                // a constant feature
    data.X.bottomRows(300) = data.X.topRows(300);  // duplicated samples, the same labels
    data.y.tail(300) = data.y.head(300);
    Dataset badly_scaled = data;
    badly_scaled.X.col(5) *= 1e3;
    struct Case {
        const char* name;
        double C, ridge;
    };
    for (const Case& c : {Case{"hard margin", kInf, 1e-3}, Case{"large ridge", kInf, 10.0},
                          Case{"a box", 0.5, 1e-2}, Case{"a box near the hinge", 1.0, 1e-4}}) {
        SCOPED_TRACE(c.name);
        const detail::LinearSvmSolution r =
            detail::solve_ridge_svm_primal(data.X, data.y, c.C, c.ridge, nullptr, 1e-8, 500);
        expect_optimal(data.X, data.y, c.C, c.ridge, r);
        if (::testing::Test::HasFatalFailure()) return;
        SCOPED_TRACE("one feature 1000 times the others' scale");
        const detail::LinearSvmSolution s = detail::solve_ridge_svm_primal(
            badly_scaled.X, badly_scaled.y, c.C, c.ridge, nullptr, 1e-8, 500);
        expect_optimal(badly_scaled.X, badly_scaled.y, c.C, c.ridge, s, false);
        if (::testing::Test::HasFatalFailure()) return;
    }
}

// Where it starts does not change where it ends: from the beta of a nearby problem (AROM's
// previous iteration, the columns rescaled slightly) and from a random beta, the same optimum
// as from w = 0 (the finite termination: to the rounding of its linear solves, not to a
// tolerance).
TEST(RidgeSvmPrimal, EveryStartEndsAtTheSameOptimum) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed());
    const Dataset data = testing::random_two_class(4000, 10, rng, 0.3);
    for (const double C : {kInf, 1.0}) {
        SCOPED_TRACE("C = " + std::to_string(C));
        const double ridge = 1e-3;
        const detail::LinearSvmSolution first =
            detail::solve_ridge_svm_primal(data.X, data.y, C, ridge, nullptr, 1e-8, 500);
        ASSERT_EQ(first.dual.status, Status::Success);
        Vector z(10);
        std::uniform_real_distribution<double> u(0.95, 1.0);
        for (Index j = 0; j < 10; ++j) z[j] = u(rng);
        const Matrix Xz = data.X * z.asDiagonal();
        Vector random_beta(data.n_samples());
        std::uniform_real_distribution<double> v(0.0, 2.0);
        for (Index i = 0; i < random_beta.size(); ++i) random_beta[i] = v(rng);
        const detail::LinearSvmSolution cold =
            detail::solve_ridge_svm_primal(Xz, data.y, C, ridge, nullptr, 1e-8, 500);
        expect_optimal(Xz, data.y, C, ridge, cold);
        const std::vector<const Vector*> starts = {&first.dual.beta, &random_beta};
        for (const Vector* start : starts) {
            const detail::LinearSvmSolution warm =
                detail::solve_ridge_svm_primal(Xz, data.y, C, ridge, start, 1e-8, 500);
            expect_optimal(Xz, data.y, C, ridge, warm);
            EXPECT_LE((warm.w - cold.w).norm(), 1e-7 * cold.w.norm());  // the solves' rounding
            EXPECT_NEAR(warm.dual.bias, cold.dual.bias, 1e-7 * (1 + std::abs(cold.dual.bias)));
        }
    }
}

TEST(RidgeSvmPrimal, TheCapAndBadArgumentsAreReported) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed());
    const Dataset data = testing::random_two_class(500, 4, rng, 0.3);
    const detail::LinearSvmSolution capped =
        detail::solve_ridge_svm_primal(data.X, data.y, kInf, 1e-3, nullptr, 1e-8, 1);
    EXPECT_EQ(capped.dual.status, Status::NoConvergence);
    EXPECT_EQ(capped.dual.iterations, 1);
    EXPECT_GT(capped.dual.duality_gap, 1e-8 * std::abs(capped.dual.objective));
    EXPECT_THROW(detail::solve_ridge_svm_primal(data.X, data.y, kInf, 0.0, nullptr, 1e-8, 10),
                 InvalidArgument);
    EXPECT_THROW(detail::solve_ridge_svm_primal(data.X, data.y, -1.0, 1e-3, nullptr, 1e-8, 10),
                 InvalidArgument);
    const Vector short_warm = Vector::Zero(3);
    EXPECT_THROW(
        detail::solve_ridge_svm_primal(data.X, data.y, kInf, 1e-3, &short_warm, 1e-8, 10),
        DimensionMismatch);
}

}  // namespace
}  // namespace zeronorm
