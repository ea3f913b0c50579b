// Tests of the simplex LP interface (src/solvers/lp_clp.cpp) and the LP SVMs built on it
// (src/solvers/lp_svm.cpp):
//  - solve_lp on LPs with known answers (a textbook LP with its vertex and duals, infeasible,
//    unbounded, Beale's degenerate cycling example, equality rows with free columns, bounds
//    only), for every simplex variant; KKT conditions and vertex property on seeded random LPs;
//    the iteration cap; a quiet solver; every validation path;
//  - l1-SVM: margin constraints of the hard margin, sparsity when 2 of 30 features matter, a huge
//    feature cost zeroes a feature, scaling z equals an explicitly scaled copy, the reported
//    objective and slacks against values recomputed from (w, b), the dual multipliers'
//    invariants, and the optimum against an independently built dual LP (strong duality, 1e-8);
//    a hard margin on inseparable data reports infeasibility;
//  - RLP: objective = recomputed weighted hinge sum, optimality against other hyperplanes,
//    training error on ionosphere in a plausible band; colon-sized l1-SVM (vertex sparsity).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "support/matrix_checks.hpp"
#include "support/random.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/preprocess.hpp"
#include "zeronorm/io/io.hpp"
#include "zeronorm/solvers/lp.hpp"
#include "zeronorm/solvers/lp_svm.hpp"

namespace {

using zeronorm::DimensionMismatch;
using zeronorm::Index;
using zeronorm::testing::exactly_equal;
using zeronorm::InvalidArgument;
using zeronorm::L1SvmOptions;
using zeronorm::LinearProgram;
using zeronorm::lp_infinity;
using zeronorm::LpMethod;
using zeronorm::LpOptions;
using zeronorm::LpResult;
using zeronorm::LpSvmResult;
using zeronorm::Matrix;
using zeronorm::RlpOptions;
using zeronorm::RlpWeighting;
using zeronorm::SparseMatrix;
using zeronorm::Status;
using zeronorm::Vector;

const LpMethod kMethods[] = {LpMethod::Automatic, LpMethod::Primal, LpMethod::Dual};

const char* method_name(LpMethod m) {
    switch (m) {
        case LpMethod::Automatic: return "automatic";
        case LpMethod::Primal: return "primal";
        case LpMethod::Dual: return "dual";
    }
    return "?";
}

SparseMatrix sparse(const Matrix& dense) {
    SparseMatrix A = dense.sparseView();
    A.makeCompressed();
    return A;
}

// Expects `f()` to throw E with a message containing `needle`.
template <class E, class F>
void expect_throw_with(F f, const std::string& needle) {
    try {
        f();
        ADD_FAILURE() << "expected an exception mentioning '" << needle << "'";
    } catch (const E& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
            << "message '" << e.what() << "' does not mention '" << needle << "'";
    }
}

// KKT conditions of min c'x, row_lower <= Ax <= row_upper, col_lower <= x <= col_upper at an
// optimal result, with the sign convention of LpResult (reduced costs = c - A' duals).
void expect_kkt(const LinearProgram& lp, const LpResult& r, double tol) {
    const Index m = lp.n_rows();
    const Index n = lp.n_cols();
    const Vector lo = lp.col_lower.size() ? lp.col_lower : Vector::Zero(n);
    const Vector hi = lp.col_upper.size() ? lp.col_upper : Vector::Constant(n, lp_infinity);
    const Vector Ax = lp.A * r.x;
    EXPECT_LE((Ax - r.row_activity).cwiseAbs().maxCoeff(), tol);
    EXPECT_LE(((lp.c - lp.A.transpose() * r.duals) - r.reduced_costs).cwiseAbs().maxCoeff(), tol);
    for (Index i = 0; i < m; ++i) {
        EXPECT_GE(Ax[i], lp.row_lower[i] - tol) << "row " << i;
        EXPECT_LE(Ax[i], lp.row_upper[i] + tol) << "row " << i;
        // dual > 0 only at the lower bound, < 0 only at the upper bound
        if (r.duals[i] > tol) { EXPECT_NEAR(Ax[i], lp.row_lower[i], tol) << "row " << i; }
        if (r.duals[i] < -tol) { EXPECT_NEAR(Ax[i], lp.row_upper[i], tol) << "row " << i; }
    }
    for (Index j = 0; j < n; ++j) {
        EXPECT_GE(r.x[j], lo[j] - tol) << "col " << j;
        EXPECT_LE(r.x[j], hi[j] + tol) << "col " << j;
        if (r.reduced_costs[j] > tol) { EXPECT_NEAR(r.x[j], lo[j], tol) << "col " << j; }
        if (r.reduced_costs[j] < -tol) { EXPECT_NEAR(r.x[j], hi[j], tol) << "col " << j; }
    }
    EXPECT_NEAR(r.objective, lp.c.dot(r.x), tol * (1.0 + std::abs(r.objective)));
}

// Vertex: the columns strictly between their bounds must be linearly independent, in particular
// at most as many as there are rows.
void expect_vertex(const LinearProgram& lp, const LpResult& r, double tol) {
    const Index n = lp.n_cols();
    const Vector lo = lp.col_lower.size() ? lp.col_lower : Vector::Zero(n);
    const Vector hi = lp.col_upper.size() ? lp.col_upper : Vector::Constant(n, lp_infinity);
    std::vector<Index> inside;
    for (Index j = 0; j < n; ++j)
        if (r.x[j] > lo[j] + tol && r.x[j] < hi[j] - tol) inside.push_back(j);
    ASSERT_LE(static_cast<Index>(inside.size()), lp.n_rows());
    if (inside.empty()) return;
    const Matrix A = Matrix(lp.A);
    Matrix B(A.rows(), static_cast<Index>(inside.size()));
    for (std::size_t k = 0; k < inside.size(); ++k) B.col(static_cast<Index>(k)) = A.col(inside[k]);
    Eigen::FullPivLU<Matrix> lu(B);
    lu.setThreshold(1e-9);
    EXPECT_EQ(lu.rank(), B.cols()) << "columns strictly inside their bounds are dependent";
}

// Wyndor Glass (Hillier & Lieberman): max 3x + 5y s.t. x <= 4, 2y <= 12, 3x + 2y <= 18, x, y >= 0.
// Optimum (2, 6), value 36, shadow prices (0, 3/2, 1).
LinearProgram wyndor() {
    LinearProgram lp;
    lp.c = Vector(2);
    lp.c << -3, -5;
    Matrix A(3, 2);
    A << 1, 0, 0, 2, 3, 2;
    lp.A = sparse(A);
    lp.row_lower = Vector::Constant(3, -lp_infinity);
    lp.row_upper = Vector(3);
    lp.row_upper << 4, 12, 18;
    return lp;
}

TEST(Lp, TextbookVertexOptimumAndDuals) {
    const LinearProgram lp = wyndor();
    for (LpMethod m : kMethods) {
        SCOPED_TRACE(method_name(m));
        const LpResult r = zeronorm::solve_lp(lp, LpOptions::with_method(m));
        ASSERT_EQ(r.status, Status::Success) << r.message;
        EXPECT_TRUE(r.optimal());
        EXPECT_NE(r.status, Status::Infeasible);
        EXPECT_NE(r.status, Status::Unbounded);
        EXPECT_NEAR(r.x[0], 2.0, 1e-10);
        EXPECT_NEAR(r.x[1], 6.0, 1e-10);
        EXPECT_NEAR(r.objective, -36.0, 1e-10);
        EXPECT_NEAR(r.duals[0], 0.0, 1e-10);
        EXPECT_NEAR(r.duals[1], -1.5, 1e-10);
        EXPECT_NEAR(r.duals[2], -1.0, 1e-10);
        EXPECT_NEAR(r.row_activity[2], 18.0, 1e-10);
        expect_kkt(lp, r, 1e-9);
        EXPECT_GE(r.iterations, 0);
        EXPECT_GE(r.seconds, 0.0);
    }
}

TEST(Lp, InfeasibleIsReportedNotThrown) {
    // x + y <= 1 and x + y >= 2.
    LinearProgram lp;
    lp.c = Vector::Ones(2);
    Matrix A(2, 2);
    A << 1, 1, 1, 1;
    lp.A = sparse(A);
    lp.row_lower = Vector(2);
    lp.row_lower << -lp_infinity, 2;
    lp.row_upper = Vector(2);
    lp.row_upper << 1, lp_infinity;
    for (LpMethod m : kMethods) {
        SCOPED_TRACE(method_name(m));
        const LpResult r = zeronorm::solve_lp(lp, LpOptions::with_method(m));
        EXPECT_EQ(r.status, Status::Infeasible) << r.message;
        EXPECT_NE(r.status, Status::Unbounded);
        EXPECT_NE(r.status, Status::Success);
        EXPECT_FALSE(r.optimal());
        EXPECT_NE(r.message.find("infeasible"), std::string::npos) << r.message;
        EXPECT_EQ(r.x.size(), 2);
    }
}

TEST(Lp, InfeasibleBoundsAgainstRow) {
    // 0 <= x <= 1 but the row wants x >= 3.
    LinearProgram lp;
    lp.c = Vector::Ones(1);
    lp.A = sparse(Matrix::Ones(1, 1));
    lp.row_lower = Vector::Constant(1, 3.0);
    lp.row_upper = Vector::Constant(1, lp_infinity);
    lp.col_upper = Vector::Ones(1);
    for (LpMethod m : kMethods) {
        SCOPED_TRACE(method_name(m));
        const LpResult r = zeronorm::solve_lp(lp, LpOptions::with_method(m));
        EXPECT_EQ(r.status, Status::Infeasible) << r.message;
        EXPECT_NE(r.status, Status::Success);
    }
}

TEST(Lp, UnboundedIsReportedNotThrown) {
    // min -x s.t. x - y <= 1, x, y >= 0: x = 1 + y grows without bound.
    LinearProgram lp;
    lp.c = Vector(2);
    lp.c << -1, 0;
    Matrix A(1, 2);
    A << 1, -1;
    lp.A = sparse(A);
    lp.row_lower = Vector::Constant(1, -lp_infinity);
    lp.row_upper = Vector::Ones(1);
    for (LpMethod m : kMethods) {
        SCOPED_TRACE(method_name(m));
        const LpResult r = zeronorm::solve_lp(lp, LpOptions::with_method(m));
        EXPECT_EQ(r.status, Status::Unbounded) << r.message;
        EXPECT_NE(r.status, Status::Infeasible);
        EXPECT_NE(r.status, Status::Success);
        EXPECT_NE(r.message.find("unbounded"), std::string::npos) << r.message;
    }
}

TEST(Lp, UnboundedFreeColumnWithoutRows) {
    LinearProgram lp;
    lp.c = Vector::Ones(1);
    lp.A.resize(0, 1);
    lp.row_lower.resize(0);
    lp.row_upper.resize(0);
    lp.col_lower = Vector::Constant(1, -lp_infinity);
    for (LpMethod m : kMethods) {
        SCOPED_TRACE(method_name(m));
        const LpResult r = zeronorm::solve_lp(lp, LpOptions::with_method(m));
        EXPECT_EQ(r.status, Status::Unbounded) << r.message;
        EXPECT_NE(r.status, Status::Success);
    }
}

TEST(Lp, BoundsOnlyNoRows) {
    // min x0 - 2 x1 + 0 x2 over the box [-1, 3] x [0, 5] x [2, 2].
    LinearProgram lp;
    lp.c = Vector(3);
    lp.c << 1, -2, 0;
    lp.A.resize(0, 3);
    lp.row_lower.resize(0);
    lp.row_upper.resize(0);
    lp.col_lower = Vector(3);
    lp.col_lower << -1, 0, 2;
    lp.col_upper = Vector(3);
    lp.col_upper << 3, 5, 2;
    for (LpMethod m : kMethods) {
        SCOPED_TRACE(method_name(m));
        const LpResult r = zeronorm::solve_lp(lp, LpOptions::with_method(m));
        ASSERT_EQ(r.status, Status::Success) << r.message;
        EXPECT_NEAR(r.x[0], -1.0, 1e-12);
        EXPECT_NEAR(r.x[1], 5.0, 1e-12);
        EXPECT_NEAR(r.x[2], 2.0, 1e-12);
        EXPECT_NEAR(r.objective, -11.0, 1e-12);
        EXPECT_EQ(r.duals.size(), 0);
    }
}

TEST(Lp, DegenerateBealeCyclingExample) {
    // Beale (1955): cycles under Dantzig's rule without anti-cycling. Optimum -1/20 at
    // x = (1/25, 0, 1, 0); the first two rows are active at the origin (degenerate vertex).
    LinearProgram lp;
    lp.c = Vector(4);
    lp.c << -0.75, 150, -0.02, 6;
    Matrix A(3, 4);
    A << 0.25, -60, -0.04, 9,
         0.5, -90, -0.02, 3,
         0, 0, 1, 0;
    lp.A = sparse(A);
    lp.row_lower = Vector::Constant(3, -lp_infinity);
    lp.row_upper = Vector(3);
    lp.row_upper << 0, 0, 1;
    for (LpMethod m : kMethods) {
        SCOPED_TRACE(method_name(m));
        const LpResult r = zeronorm::solve_lp(lp, LpOptions::with_method(m));
        ASSERT_EQ(r.status, Status::Success) << r.message;
        EXPECT_NEAR(r.objective, -0.05, 1e-10);
        EXPECT_NEAR(r.x[0], 0.04, 1e-10);
        EXPECT_NEAR(r.x[1], 0.0, 1e-10);
        EXPECT_NEAR(r.x[2], 1.0, 1e-10);
        EXPECT_NEAR(r.x[3], 0.0, 1e-10);
        expect_kkt(lp, r, 1e-9);
        expect_vertex(lp, r, 1e-9);
    }
}

TEST(Lp, DegenerateRedundantRowsThroughTheOptimum) {
    // max x + y s.t. x <= 1, y <= 1, x + y <= 2, 2x + y <= 3: four rows through (1, 1).
    LinearProgram lp;
    lp.c = Vector::Constant(2, -1.0);
    Matrix A(4, 2);
    A << 1, 0, 0, 1, 1, 1, 2, 1;
    lp.A = sparse(A);
    lp.row_lower = Vector::Constant(4, -lp_infinity);
    lp.row_upper = Vector(4);
    lp.row_upper << 1, 1, 2, 3;
    for (LpMethod m : kMethods) {
        SCOPED_TRACE(method_name(m));
        const LpResult r = zeronorm::solve_lp(lp, LpOptions::with_method(m));
        ASSERT_EQ(r.status, Status::Success) << r.message;
        EXPECT_NEAR(r.x[0], 1.0, 1e-10);
        EXPECT_NEAR(r.x[1], 1.0, 1e-10);
        EXPECT_NEAR(r.objective, -2.0, 1e-10);
        // Dual optimal set is not a point, but every dual optimum prices the objective.
        EXPECT_NEAR(lp.row_upper.dot(r.duals), -2.0, 1e-10);
        expect_kkt(lp, r, 1e-9);
    }
}

TEST(Lp, EqualityRowsFreeColumnsAndBoxes) {
    // min x0 + 2 x1 + 3 x2 + x3 s.t. x0 + x1 + x2 = 1, x0 - x1 = 0, x3 - x0 = -2,
    // x0..x2 in [0, 1], x3 free. x0 = x1 = 1/2, x2 = 0, x3 = -3/2; value 1.5 - 1.5 = 0.
    LinearProgram lp;
    lp.c = Vector(4);
    lp.c << 1, 2, 3, 1;
    Matrix A(3, 4);
    A << 1, 1, 1, 0,
         1, -1, 0, 0,
         -1, 0, 0, 1;
    lp.A = sparse(A);
    lp.row_lower = Vector(3);
    lp.row_lower << 1, 0, -2;
    lp.row_upper = lp.row_lower;
    lp.col_lower = Vector(4);
    lp.col_lower << 0, 0, 0, -lp_infinity;
    lp.col_upper = Vector(4);
    lp.col_upper << 1, 1, 1, lp_infinity;
    for (LpMethod m : kMethods) {
        SCOPED_TRACE(method_name(m));
        const LpResult r = zeronorm::solve_lp(lp, LpOptions::with_method(m));
        ASSERT_EQ(r.status, Status::Success) << r.message;
        EXPECT_NEAR(r.x[0], 0.5, 1e-10);
        EXPECT_NEAR(r.x[1], 0.5, 1e-10);
        EXPECT_NEAR(r.x[2], 0.0, 1e-10);
        EXPECT_NEAR(r.x[3], -1.5, 1e-10);
        EXPECT_NEAR(r.objective, 0.0, 1e-10);
        expect_kkt(lp, r, 1e-9);
        expect_vertex(lp, r, 1e-9);
    }
}

TEST(Lp, UncompressedMatrixAndTripletsAccepted) {
    LinearProgram lp = wyndor();
    std::vector<Eigen::Triplet<double>> t{{0, 0, 1.0}, {1, 1, 2.0}, {2, 0, 3.0}, {2, 1, 2.0}};
    lp.A = SparseMatrix(3, 2);
    lp.A.setFromTriplets(t.begin(), t.end());
    lp.A.coeffRef(1, 1) += 0.0;  // stays valid either way; exercise an uncompressed copy
    lp.A.uncompress();
    ASSERT_FALSE(lp.A.isCompressed());
    const LpResult r = zeronorm::solve_lp(lp);
    ASSERT_EQ(r.status, Status::Success) << r.message;
    EXPECT_NEAR(r.objective, -36.0, 1e-10);
}

// Random feasible, bounded LPs: min c'x, l <= Ax <= u, 0 <= x with c > 0 and x0 feasible.
LinearProgram random_lp(Index m, Index n, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::uniform_real_distribution<double> pos(0.1, 1.0);
    Matrix A(m, n);
    for (Index j = 0; j < n; ++j)
        for (Index i = 0; i < m; ++i) A(i, j) = (u(rng) > 0.3) ? u(rng) : 0.0;
    Vector x0(n);
    for (Index j = 0; j < n; ++j) x0[j] = pos(rng);
    const Vector Ax0 = A * x0;
    LinearProgram lp;
    lp.c = Vector(n);
    for (Index j = 0; j < n; ++j) lp.c[j] = u(rng) + 1.2;  // > 0: bounded below by 0
    lp.A = sparse(A);
    lp.row_lower = Vector(m);
    lp.row_upper = Vector(m);
    for (Index i = 0; i < m; ++i) {
        const int kind = static_cast<int>(pos(rng) * 3.0);
        lp.row_lower[i] = kind == 1 ? -lp_infinity : Ax0[i] - pos(rng) * 0.1;
        lp.row_upper[i] = kind == 2 ? lp_infinity : Ax0[i] + pos(rng) * 0.1;
    }
    return lp;
}

// The LP of draw `trial` in the sequence below: growing from 5 x 8 to 32 x 53.
LinearProgram random_lp_of_trial(int trial, std::mt19937_64& rng) {
    return random_lp(5 + trial * 3, 8 + trial * 5, rng);
}

TEST(Lp, RandomLpsKktVertexAndMethodsAgree) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(zeronorm::testing::test_seed());
    for (int trial = 0; trial < 10; ++trial) {
        const LinearProgram lp = random_lp_of_trial(trial, rng);
        double reference = 0.0;
        for (LpMethod method : kMethods) {
            SCOPED_TRACE(std::string(method_name(method)) + " trial " + std::to_string(trial));
            const LpResult r = zeronorm::solve_lp(lp, LpOptions::with_method(method));
            ASSERT_EQ(r.status, Status::Success) << r.message;
            expect_kkt(lp, r, 1e-7);
            expect_vertex(lp, r, 1e-9);
            EXPECT_LE(r.max_primal_violation, 1e-7);
            EXPECT_LE(r.max_dual_violation, 1e-7);
            if (method == LpMethod::Automatic) reference = r.objective;
            EXPECT_NEAR(r.objective, reference, 1e-8 * (1.0 + std::abs(reference)));
        }
    }
}

// The sixth LP that seed 4256561058 draws above (20 x 33): CLP's primal simplex ends with row 13
// nonbasic at its upper bound and dual +2.6e-7, and an unscaled polish at the requested 1e-7
// accepted it without a pivot; at a tenth of the dual tolerance it takes the one pivot left.
TEST(Lp, PolishMeetsTheDualToleranceWhereClpStopsShort) {
    std::mt19937_64 rng(4256561058u);
    LinearProgram lp;
    for (int trial = 0; trial <= 5; ++trial) lp = random_lp_of_trial(trial, rng);
    const LpResult r = zeronorm::solve_lp(lp, LpOptions::with_method(LpMethod::Primal));
    ASSERT_EQ(r.status, Status::Success) << r.message;
    EXPECT_LE(r.max_primal_violation, 1e-7) << r.message;
    EXPECT_LE(r.max_dual_violation, 1e-7) << r.message;
    expect_kkt(lp, r, 1e-7);
    expect_vertex(lp, r, 1e-9);
}

// A basis handed back: the same LP resumes at its optimum without pivots; with new costs (the
// successive-linearisation use) it reaches the cold solve's optimum, a KKT vertex.
TEST(Lp, WarmStartFromAnOptimalBasis) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(zeronorm::testing::test_seed());
    std::uniform_real_distribution<double> u(0.1, 2.2);
    for (int trial = 0; trial < 6; ++trial) {
        SCOPED_TRACE("trial " + std::to_string(trial));
        LinearProgram lp = random_lp(20 + 5 * trial, 40 + 8 * trial, rng);
        const LpResult first = zeronorm::solve_lp(lp);
        ASSERT_EQ(first.status, Status::Success) << first.message;
        ASSERT_EQ(first.basis.status.size(), std::size_t(lp.n_cols() + lp.n_rows()));
        const LpResult again = zeronorm::solve_lp(lp, {}, first.basis);
        ASSERT_EQ(again.status, Status::Success) << again.message;
        EXPECT_EQ(again.iterations, 0);
        EXPECT_NEAR(again.objective, first.objective, 1e-9 * (1.0 + std::abs(first.objective)));
        for (Index j = 0; j < lp.n_cols(); ++j) lp.c[j] = u(rng);
        const LpResult cold = zeronorm::solve_lp(lp);
        const LpResult warm = zeronorm::solve_lp(lp, {}, first.basis);
        ASSERT_EQ(cold.status, Status::Success) << cold.message;
        ASSERT_EQ(warm.status, Status::Success) << warm.message;
        expect_kkt(lp, warm, 1e-7);
        expect_vertex(lp, warm, 1e-9);
        EXPECT_NEAR(warm.objective, cold.objective, 1e-8 * (1.0 + std::abs(cold.objective)));
    }
    const LinearProgram lp = random_lp(10, 20, rng);
    zeronorm::LpBasis wrong;
    wrong.status.assign(7, 0);
    expect_throw_with<DimensionMismatch>([&] { zeronorm::solve_lp(lp, {}, wrong); },
                                         "starting basis has 7");
}

TEST(Lp, IterationLimitIsNoConvergence) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(zeronorm::testing::test_seed());
    const LinearProgram lp = random_lp(40, 80, rng);
    LpOptions o;
    o.method = LpMethod::Primal;
    o.max_iterations = 1;
    const LpResult r = zeronorm::solve_lp(lp, o);
    if (r.status == Status::Success) {
        // Only possible when one pivot sufficed; then it must really be optimal.
        expect_kkt(lp, r, 1e-7);
    } else {
        EXPECT_EQ(r.status, Status::NoConvergence) << r.message;
        EXPECT_NE(r.message.find("iteration limit"), std::string::npos) << r.message;
        EXPECT_EQ(r.x.size(), 80);
        EXPECT_NE(r.status, Status::Infeasible);
        EXPECT_NE(r.status, Status::Unbounded);
    }
}

TEST(Lp, SolverIsQuiet) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(zeronorm::testing::test_seed());
    const LinearProgram lp = random_lp(30, 60, rng);
    ::testing::internal::CaptureStdout();
    ::testing::internal::CaptureStderr();
    for (LpMethod m : kMethods) zeronorm::solve_lp(lp, LpOptions::with_method(m));
    zeronorm::solve_lp(wyndor());
    const std::string out = ::testing::internal::GetCapturedStdout();
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(out, "");
    EXPECT_EQ(err, "");
}

TEST(Lp, MalformedProgramsNameTheField) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    auto solve = [](const LinearProgram& lp) { return [lp] { zeronorm::solve_lp(lp); }; };
    {
        LinearProgram lp = wyndor();
        lp.c = Vector::Ones(3);
        expect_throw_with<DimensionMismatch>(solve(lp), "c has 3");
    }
    {
        LinearProgram lp = wyndor();
        lp.row_lower = Vector::Zero(2);
        expect_throw_with<DimensionMismatch>(solve(lp), "row_lower");
    }
    {
        LinearProgram lp = wyndor();
        lp.row_upper = Vector::Zero(4);
        expect_throw_with<DimensionMismatch>(solve(lp), "row_upper");
    }
    {
        LinearProgram lp = wyndor();
        lp.col_lower = Vector::Zero(1);
        expect_throw_with<DimensionMismatch>(solve(lp), "col_lower");
    }
    {
        LinearProgram lp = wyndor();
        lp.col_upper = Vector::Zero(5);
        expect_throw_with<DimensionMismatch>(solve(lp), "col_upper");
    }
    {
        LinearProgram lp = wyndor();
        lp.c[1] = nan;
        expect_throw_with<InvalidArgument>(solve(lp), "c[1]");
    }
    {
        LinearProgram lp = wyndor();
        lp.c[0] = lp_infinity;
        expect_throw_with<InvalidArgument>(solve(lp), "c[0]");
    }
    {
        LinearProgram lp = wyndor();
        lp.A.coeffRef(2, 1) = nan;
        expect_throw_with<InvalidArgument>(solve(lp), "A(2, 1)");
    }
    {
        LinearProgram lp = wyndor();
        lp.A.coeffRef(0, 0) = -lp_infinity;
        expect_throw_with<InvalidArgument>(solve(lp), "A(0, 0)");
    }
    {
        LinearProgram lp = wyndor();
        lp.row_upper[2] = nan;
        expect_throw_with<InvalidArgument>(solve(lp), "row_upper[2] is NaN");
    }
    {
        LinearProgram lp = wyndor();
        lp.row_lower[1] = 20.0;  // > row_upper[1] = 12
        expect_throw_with<InvalidArgument>(solve(lp), "row_lower[1] = 20 > row_upper[1] = 12");
    }
    {
        LinearProgram lp = wyndor();
        lp.row_lower[0] = lp_infinity;
        lp.row_upper[0] = lp_infinity;
        expect_throw_with<InvalidArgument>(solve(lp), "row_lower[0] is +inf");
    }
    {
        LinearProgram lp = wyndor();
        lp.col_lower = Vector::Zero(2);
        lp.col_upper = Vector::Ones(2);
        lp.col_lower[1] = 2.0;
        expect_throw_with<InvalidArgument>(solve(lp), "col_lower[1] = 2 > col_upper[1] = 1");
    }
    {
        LinearProgram lp = wyndor();
        lp.col_upper = Vector::Constant(2, -lp_infinity);
        expect_throw_with<InvalidArgument>(solve(lp), "col_upper[0] is -inf");
    }
    {
        LinearProgram lp = wyndor();
        lp.col_lower = Vector::Constant(2, nan);
        expect_throw_with<InvalidArgument>(solve(lp), "col_lower[0] is NaN");
    }
    {
        // Default x >= 0 against an explicit upper bound below it.
        LinearProgram lp = wyndor();
        lp.col_upper = Vector::Constant(2, -1.0);
        expect_throw_with<InvalidArgument>(solve(lp), "col_lower[0] = 0 > col_upper[0] = -1");
    }
}

TEST(Lp, BadOptionsNameTheField) {
    const LinearProgram lp = wyndor();
    auto solve_with = [&lp](LpOptions o) { return [&lp, o] { zeronorm::solve_lp(lp, o); }; };
    LpOptions o;
    o.max_iterations = 0;
    expect_throw_with<InvalidArgument>(solve_with(o), "LpOptions.max_iterations");
    o = LpOptions{};
    o.max_iterations = std::int64_t{1} << 40;
    expect_throw_with<InvalidArgument>(solve_with(o), "LpOptions.max_iterations");
    o = LpOptions{};
    o.time_limit = 0.0;
    expect_throw_with<InvalidArgument>(solve_with(o), "LpOptions.time_limit");
    o.time_limit = std::numeric_limits<double>::quiet_NaN();
    expect_throw_with<InvalidArgument>(solve_with(o), "LpOptions.time_limit");
    o = LpOptions{};
    o.primal_tolerance = -1.0;
    expect_throw_with<InvalidArgument>(solve_with(o), "LpOptions.primal_tolerance");
    o = LpOptions{};
    o.dual_tolerance = lp_infinity;
    expect_throw_with<InvalidArgument>(solve_with(o), "LpOptions.dual_tolerance");
    o = LpOptions{};
    o.method = static_cast<LpMethod>(7);
    expect_throw_with<InvalidArgument>(solve_with(o), "LpOptions.method");
    o = LpOptions{};
    o.time_limit = 100.0;  // finite limits are fine
    EXPECT_EQ(zeronorm::solve_lp(lp, o).status, Status::Success);
}

// ---------------------------------------------------------------------------------------------
// LP SVMs

// n points in d dimensions whose labels depend only on features 0 and 1:
// y = sign(x0 + x1 / 2), with points closer than `gap` to that hyperplane resampled.
void sparse_separable(Index n, Index d, std::mt19937_64& rng, Matrix& X, Vector& y,
                      double gap = 0.3) {
    std::normal_distribution<double> g(0.0, 1.0);
    X.resize(n, d);
    y.resize(n);
    for (Index i = 0; i < n; ++i) {
        double s = 0.0;
        do {
            for (Index j = 0; j < d; ++j) X(i, j) = g(rng);
            s = X(i, 0) + 0.5 * X(i, 1);
        } while (std::abs(s) < gap);
        y[i] = s > 0 ? 1.0 : -1.0;
    }
}

// Overlapping classes: y_i = +-1 alternating, mean shift along the first few features.
void overlapping(Index n, Index d, std::mt19937_64& rng, Matrix& X, Vector& y) {
    std::normal_distribution<double> g(0.0, 1.0);
    X.resize(n, d);
    y.resize(n);
    for (Index i = 0; i < n; ++i) {
        y[i] = (i % 3 == 0) ? -1.0 : 1.0;
        for (Index j = 0; j < d; ++j) X(i, j) = g(rng) + (j < 3 ? 0.6 * y[i] : 0.0);
    }
}

double l1_objective(const LpSvmResult& r, const Vector& c, double C, const Vector& s) {
    double value = c.dot(r.w.cwiseAbs());
    if (std::isfinite(C)) value += C * s.dot(r.xi);
    return value;
}

// The dual of the l1-SVM LP, built and solved independently of src/solvers/lp_svm.cpp:
//   max e'alpha s.t. -c_j <= sum_i alpha_i y_i z_j x_ij <= c_j, y'alpha = 0, 0 <= alpha <= C s.
double l1_svm_dual_value(const Matrix& X, const Vector& y, const Vector& c, const Vector& z,
                         double C, const Vector& s) {
    const Index n = X.rows();
    const Index d = X.cols();
    Matrix D(d + 1, n);
    D.topRows(d) = (X * z.asDiagonal()).transpose() * y.asDiagonal();
    D.row(d) = y.transpose();
    LinearProgram lp;
    lp.c = -Vector::Ones(n);
    lp.A = sparse(D);
    lp.row_lower = Vector(d + 1);
    lp.row_upper = Vector(d + 1);
    lp.row_lower << -c, 0.0;
    lp.row_upper << c, 0.0;
    lp.col_lower = Vector::Zero(n);
    lp.col_upper = std::isfinite(C) ? Vector(C * s) : Vector::Constant(n, lp_infinity);
    const LpResult r = zeronorm::solve_lp(lp);
    EXPECT_EQ(r.status, Status::Success) << "dual LP: " << r.message;
    return -r.objective;
}

// Invariants of an optimal l1-SVM result (see include/zeronorm/solvers/lp_svm.hpp).
void expect_l1_svm_optimality(const Matrix& X, const Vector& y, const LpSvmResult& r,
                              const Vector& c, const Vector& z, double C, const Vector& s,
                              double tol) {
    const Index n = X.rows();
    const Vector margins = y.cwiseProduct((X * z.asDiagonal()) * r.w + Vector::Constant(n, r.b));
    for (Index i = 0; i < n; ++i) {
        EXPECT_GE(margins[i], 1.0 - r.xi[i] - tol) << "sample " << i;
        EXPECT_GE(r.xi[i], -tol);
        // at the optimum the slack is exactly the hinge loss (when it costs something)
        if (std::isfinite(C) && s[i] > 0) {
            EXPECT_NEAR(r.xi[i], std::max(0.0, 1.0 - margins[i]), tol) << "sample " << i;
        }
    }
    EXPECT_NEAR(r.objective, l1_objective(r, c, C, s), tol * (1.0 + r.objective));
    // dual multipliers: feasible for the dual and with the same value (strong duality)
    EXPECT_GE(r.alpha.minCoeff(), -tol);
    if (std::isfinite(C)) {
        for (Index i = 0; i < n; ++i) EXPECT_LE(r.alpha[i], C * s[i] + tol) << "sample " << i;
    }
    EXPECT_NEAR(y.dot(r.alpha), 0.0, tol * (1.0 + r.alpha.cwiseAbs().sum()));
    const Vector g = (X * z.asDiagonal()).transpose() * y.cwiseProduct(r.alpha);
    for (Index j = 0; j < X.cols(); ++j)
        EXPECT_LE(std::abs(g[j]), c[j] + tol * (1.0 + c[j])) << "feature " << j;
    EXPECT_NEAR(r.alpha.sum(), r.objective, tol * (1.0 + r.objective));
    // vertex: nonzero weights + positive slacks + (b != 0) are basic columns, at most n of them
    const Index basic = r.n_nonzero + (r.xi.array() > tol).count() + (std::abs(r.b) > tol ? 1 : 0);
    EXPECT_LE(basic, n);
}

TEST(LpSvm, HardMarginSeparableIsSparse) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(zeronorm::testing::test_seed());
    Matrix X;
    Vector y;
    sparse_separable(80, 30, rng, X, y, 1.0);
    L1SvmOptions o;
    o.C = lp_infinity;
    const LpSvmResult r = zeronorm::train_l1_svm(X, y, o);
    ASSERT_EQ(r.status, Status::Success) << r.message;
    EXPECT_NE(r.status, Status::Infeasible);
    const Vector f = r.decision_function(X);
    for (Index i = 0; i < X.rows(); ++i) EXPECT_GE(y[i] * f[i], 1.0 - 1e-7) << "sample " << i;
    EXPECT_EQ(r.xi, Vector::Zero(X.rows()));
    EXPECT_EQ(r.predict(X), y);
    // The LP picks the two informative features (and at most a few more).
    // The LP leans on the two informative features: they carry most of |w|_1, and only a few
    // noise features get small weights (an l2-SVM would use all 30). Calibrated over 300 seeds:
    // n_nonzero 3..9, share >= 0.90.
    const double share = (std::abs(r.w[0]) + std::abs(r.w[1])) / r.w.cwiseAbs().sum();
    EXPECT_LE(r.n_nonzero, 12) << "w = " << r.w.transpose();
    EXPECT_GE(share, 0.8) << "w = " << r.w.transpose();
    ASSERT_GE(r.selected.size(), 2u);
    EXPECT_EQ(r.selected[0], 0);
    EXPECT_EQ(r.selected[1], 1);
    EXPECT_GT(std::abs(r.w[0]), std::abs(r.w[1]));
    expect_l1_svm_optimality(X, y, r, Vector::Ones(30), Vector::Ones(30), lp_infinity,
                             Vector::Ones(80), 1e-7);
    // Strong duality against a separate solve of the dual LP, each optimal to CLP's tolerances
    // (1e-7 primal and dual feasibility; seeds put the two values up to 5.5e-8 apart).
    EXPECT_NEAR(r.objective, l1_svm_dual_value(X, y, Vector::Ones(30), Vector::Ones(30),
                                               lp_infinity, Vector::Ones(80)),
                1e-7 * (1.0 + r.objective));

    // A soft margin trades the noise features for a little hinge loss: (almost) only the two
    // informative features remain (2..4 over 300 seeds).
    L1SvmOptions soft;
    soft.C = 0.1;
    const LpSvmResult rs = zeronorm::train_l1_svm(X, y, soft);
    ASSERT_EQ(rs.status, Status::Success) << rs.message;
    EXPECT_LE(rs.n_nonzero, 5) << "w = " << rs.w.transpose();
    ASSERT_GE(rs.selected.size(), 2u);
    EXPECT_EQ(rs.selected[0], 0);
    EXPECT_EQ(rs.selected[1], 1);
}

TEST(LpSvm, HardMarginInseparableReportsInfeasible) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(zeronorm::testing::test_seed());
    Matrix X;
    Vector y;
    overlapping(40, 5, rng, X, y);
    X.row(1) = X.row(0);  // the same point with both labels: no hyperplane separates
    y[0] = -1.0;
    y[1] = 1.0;
    L1SvmOptions o;
    o.C = lp_infinity;
    for (LpMethod m : kMethods) {
        SCOPED_TRACE(method_name(m));
        o.lp.method = m;
        const LpSvmResult r = zeronorm::train_l1_svm(X, y, o);
        EXPECT_EQ(r.status, Status::Infeasible) << r.message;
        EXPECT_NE(r.status, Status::Success);
        EXPECT_EQ(r.w.size(), 5);
        EXPECT_EQ(r.xi.size(), 40);
    }
    // The soft margin on the same data is fine.
    o.C = 1.0;
    o.lp.method = LpMethod::Automatic;
    EXPECT_EQ(zeronorm::train_l1_svm(X, y, o).status, Status::Success);
}

TEST(LpSvm, SoftMarginObjectiveSlacksAndDualAgree) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(zeronorm::testing::test_seed());
    for (const double C : {0.05, 1.0, 20.0}) {
        for (const Index d : {4, 25, 120}) {
            SCOPED_TRACE("C = " + std::to_string(C) + ", d = " + std::to_string(d));
            Matrix X;
            Vector y;
            overlapping(50, d, rng, X, y);
            L1SvmOptions o;
            o.C = C;
            const LpSvmResult r = zeronorm::train_l1_svm(X, y, o);
            ASSERT_EQ(r.status, Status::Success) << r.message;
            const Vector ones_d = Vector::Ones(d);
            const Vector ones_n = Vector::Ones(50);
            expect_l1_svm_optimality(X, y, r, ones_d, ones_d, C, ones_n, 1e-7);
            const double dual = l1_svm_dual_value(X, y, ones_d, ones_d, C, ones_n);
            EXPECT_NEAR(r.objective, dual, 1e-8 * (1.0 + std::abs(dual)));
            EXPECT_TRUE(exactly_equal(r.weights_original, r.w));
        }
    }
}

TEST(LpSvm, MethodsGiveTheSameOptimum) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(zeronorm::testing::test_seed());
    Matrix X;
    Vector y;
    overlapping(60, 40, rng, X, y);
    L1SvmOptions o;
    o.C = 0.7;
    ASSERT_EQ(o.lp.method, LpMethod::Dual);  // the documented default
    const double reference = zeronorm::train_l1_svm(X, y, o).objective;
    for (LpMethod m : {LpMethod::Automatic, LpMethod::Primal}) {
        o.lp.method = m;
        const LpSvmResult r = zeronorm::train_l1_svm(X, y, o);
        ASSERT_EQ(r.status, Status::Success) << r.message;
        EXPECT_NEAR(r.objective, reference, 1e-8 * (1.0 + reference)) << method_name(m);
    }
}

TEST(LpSvm, WeightedCostsScalingAndSampleWeightsAgainstDual) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(zeronorm::testing::test_seed());
    std::uniform_real_distribution<double> u(0.0, 2.0);
    const Index n = 45;
    const Index d = 30;
    Matrix X;
    Vector y;
    overlapping(n, d, rng, X, y);
    L1SvmOptions o;
    o.C = 2.0;
    o.feature_costs = Vector(d);
    o.feature_scaling = Vector(d);
    o.sample_weights = Vector(n);
    for (Index j = 0; j < d; ++j) {
        o.feature_costs[j] = (j % 7 == 3) ? 0.0 : u(rng);  // some free features
        o.feature_scaling[j] = (j % 5 == 4) ? 0.0 : u(rng) - 1.0;  // some dropped, some negative
    }
    for (Index i = 0; i < n; ++i) o.sample_weights[i] = (i % 9 == 0) ? 0.0 : u(rng);
    const LpSvmResult r = zeronorm::train_l1_svm(X, y, o);
    ASSERT_EQ(r.status, Status::Success) << r.message;
    expect_l1_svm_optimality(X, y, r, o.feature_costs, o.feature_scaling, o.C, o.sample_weights,
                             1e-7);
    const double dual =
        l1_svm_dual_value(X, y, o.feature_costs, o.feature_scaling, o.C, o.sample_weights);
    EXPECT_NEAR(r.objective, dual, 1e-8 * (1.0 + std::abs(dual)));
    for (Index j = 4; j < d; j += 5) EXPECT_EQ(r.w[j], 0.0) << "dropped feature " << j;
    EXPECT_LE((r.weights_original - r.w.cwiseProduct(o.feature_scaling)).cwiseAbs().maxCoeff(),
              0.0);
}

TEST(LpSvm, ScalingEqualsExplicitlyScaledData) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(zeronorm::testing::test_seed());
    std::uniform_real_distribution<double> u(0.1, 3.0);
    Matrix X;
    Vector y;
    overlapping(40, 12, rng, X, y);
    Vector z(12);
    for (Index j = 0; j < 12; ++j) z[j] = u(rng);
    z[5] = 0.0;
    for (const double C : {lp_infinity, 0.5}) {
        SCOPED_TRACE("C = " + std::to_string(C));
        Matrix Xs = X * z.asDiagonal();
        if (std::isinf(C)) {  // make the data separable for the hard margin: add a label feature
            X.col(11) = y * 0.5;
            Xs.col(11) = X.col(11) * z[11];
        }
        L1SvmOptions scaled;
        scaled.C = C;
        scaled.feature_scaling = z;
        L1SvmOptions plain;
        plain.C = C;
        const LpSvmResult a = zeronorm::train_l1_svm(X, y, scaled);
        const LpSvmResult b = zeronorm::train_l1_svm(Xs, y, plain);
        ASSERT_EQ(a.status, Status::Success) << a.message;
        ASSERT_EQ(b.status, Status::Success) << b.message;
        EXPECT_NEAR(a.objective, b.objective, 1e-9 * (1.0 + b.objective));
        EXPECT_EQ(a.w[5], 0.0);
        // (w, b) of the scaled problem is optimal for the explicit copy: same margins, and
        // weights_original = z * w are the weights on the unscaled X.
        EXPECT_LE((a.decision_function(X) - (Xs * a.w + Vector::Constant(X.rows(), a.b)))
                      .cwiseAbs()
                      .maxCoeff(),
                  1e-9);
        const Vector fa = a.decision_function(X);
        const Vector ma = y.cwiseProduct(fa);
        for (Index i = 0; i < X.rows(); ++i)
            EXPECT_GE(ma[i], 1.0 - a.xi[i] - 1e-7) << "sample " << i;
    }
}

TEST(LpSvm, HugeFeatureCostZeroesTheFeature) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(zeronorm::testing::test_seed());
    Matrix X;
    Vector y;
    sparse_separable(60, 10, rng, X, y);
    L1SvmOptions o;
    o.C = 1.0;
    const LpSvmResult before = zeronorm::train_l1_svm(X, y, o);
    ASSERT_EQ(before.status, Status::Success) << before.message;
    ASSERT_GT(std::abs(before.w[0]), 1e-3);  // feature 0 carries the labels
    o.feature_costs = Vector::Ones(10);
    o.feature_costs[0] = 1e6;
    const LpSvmResult after = zeronorm::train_l1_svm(X, y, o);
    ASSERT_EQ(after.status, Status::Success) << after.message;
    EXPECT_EQ(after.w[0], 0.0);
    EXPECT_EQ(std::count(after.selected.begin(), after.selected.end(), Index{0}), 0);
    EXPECT_GT(after.objective, before.objective);
    EXPECT_NEAR(after.objective, l1_objective(after, o.feature_costs, 1.0, Vector::Ones(60)),
                1e-7 * (1.0 + after.objective));
}

TEST(LpSvm, SelectedAndNonzeroCountUseRelativeTolerance) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(zeronorm::testing::test_seed());
    Matrix X;
    Vector y;
    overlapping(50, 20, rng, X, y);
    const LpSvmResult r = zeronorm::train_l1_svm(X, y, L1SvmOptions{});
    ASSERT_EQ(r.status, Status::Success) << r.message;
    const double w_max = r.w.cwiseAbs().maxCoeff();
    Index expected = 0;
    for (Index j = 0; j < 20; ++j) expected += std::abs(r.w[j]) > 1e-10 * w_max ? 1 : 0;
    EXPECT_EQ(r.n_nonzero, expected);
    EXPECT_EQ(static_cast<Index>(r.selected.size()), expected);
    for (std::size_t k = 1; k < r.selected.size(); ++k) EXPECT_LT(r.selected[k - 1], r.selected[k]);
}

TEST(LpSvm, ZeroFeaturesAndSmallCLeaveOnlyTheBias) {
    Matrix X(4, 2);
    X << 1, 0, 2, 0, -1, 0, -2, 0;  // second feature all zero
    Vector y(4);
    y << 1, 1, -1, -1;
    L1SvmOptions o;
    o.C = 1e-4;  // w costs more than it saves
    const LpSvmResult r = zeronorm::train_l1_svm(X, y, o);
    ASSERT_EQ(r.status, Status::Success) << r.message;
    EXPECT_EQ(r.n_nonzero, 0);
    EXPECT_TRUE(r.selected.empty());
    EXPECT_NEAR(r.objective, 1e-4 * r.xi.sum(), 1e-12);
    o.C = lp_infinity;  // hard margin: w0 = 1 (|w0| * 1 >= 1 with b = 0)
    const LpSvmResult h = zeronorm::train_l1_svm(X, y, o);
    ASSERT_EQ(h.status, Status::Success) << h.message;
    EXPECT_NEAR(h.w[0], 1.0, 1e-10);
    EXPECT_EQ(h.w[1], 0.0);
    EXPECT_NEAR(h.b, 0.0, 1e-10);
    EXPECT_NEAR(h.objective, 1.0, 1e-10);
    EXPECT_EQ(h.selected, zeronorm::IndexVector{0});
}

TEST(LpSvm, BadInputNamesTheField) {
    Matrix X = Matrix::Ones(4, 3);
    X(0, 0) = 2.0;
    Vector y(4);
    y << 1, -1, 1, -1;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    auto train = [](const Matrix& Xa, const Vector& ya, const L1SvmOptions& o) {
        return [Xa, ya, o] { zeronorm::train_l1_svm(Xa, ya, o); };
    };
    const L1SvmOptions ok;
    expect_throw_with<DimensionMismatch>(train(X, Vector(y.head(3)), ok), "y has 3 labels");
    {
        Vector bad = y;
        bad[2] = 0.0;
        expect_throw_with<InvalidArgument>(train(X, bad, ok), "y[2] = 0");
    }
    expect_throw_with<InvalidArgument>(train(X, Vector::Ones(4), ok), "both classes");
    expect_throw_with<InvalidArgument>(train(Matrix::Ones(1, 3), Vector::Ones(1), ok),
                                       "at least 2 samples");
    {
        Matrix bad = X;
        bad(3, 1) = nan;
        expect_throw_with<InvalidArgument>(train(bad, y, ok), "X(3, 1)");
    }
    L1SvmOptions o;
    o.C = 0.0;
    expect_throw_with<InvalidArgument>(train(X, y, o), "L1SvmOptions.C");
    o.C = nan;
    expect_throw_with<InvalidArgument>(train(X, y, o), "L1SvmOptions.C");
    o = L1SvmOptions{};
    o.feature_costs = Vector::Ones(2);
    expect_throw_with<DimensionMismatch>(train(X, y, o), "L1SvmOptions.feature_costs");
    o.feature_costs = Vector::Ones(3);
    o.feature_costs[1] = -1.0;
    expect_throw_with<InvalidArgument>(train(X, y, o), "L1SvmOptions.feature_costs[1]");
    o.feature_costs[1] = lp_infinity;
    expect_throw_with<InvalidArgument>(train(X, y, o), "L1SvmOptions.feature_costs[1]");
    o = L1SvmOptions{};
    o.feature_scaling = Vector::Ones(4);
    expect_throw_with<DimensionMismatch>(train(X, y, o), "L1SvmOptions.feature_scaling");
    o.feature_scaling = Vector::Ones(3);
    o.feature_scaling[2] = nan;
    expect_throw_with<InvalidArgument>(train(X, y, o), "L1SvmOptions.feature_scaling[2]");
    o = L1SvmOptions{};
    o.sample_weights = Vector::Ones(3);
    expect_throw_with<DimensionMismatch>(train(X, y, o), "L1SvmOptions.sample_weights");
    o.sample_weights = Vector::Ones(4);
    o.sample_weights[0] = -0.5;
    expect_throw_with<InvalidArgument>(train(X, y, o), "L1SvmOptions.sample_weights[0]");
    o = L1SvmOptions{};
    o.zero_tolerance = 1.0;
    expect_throw_with<InvalidArgument>(train(X, y, o), "L1SvmOptions.zero_tolerance");
    o = L1SvmOptions{};
    o.lp.max_iterations = -3;
    expect_throw_with<InvalidArgument>(train(X, y, o), "LpOptions.max_iterations");

    RlpOptions r;
    r.weighting = static_cast<RlpWeighting>(9);
    expect_throw_with<InvalidArgument>([&] { zeronorm::train_rlp(X, y, r); }, "RlpOptions.weighting");
    r = RlpOptions{};
    r.zero_tolerance = -1.0;
    expect_throw_with<InvalidArgument>([&] { zeronorm::train_rlp(X, y, r); },
                                       "RlpOptions.zero_tolerance");
    r = RlpOptions{};
    r.lp.time_limit = -1.0;
    expect_throw_with<InvalidArgument>([&] { zeronorm::train_rlp(X, y, r); }, "LpOptions.time_limit");
    expect_throw_with<InvalidArgument>([&] { zeronorm::train_rlp(X, Vector::Constant(4, -1.0)); },
                                       "train_rlp: both classes");

    const LpSvmResult fit = zeronorm::train_l1_svm(X, y, ok);
    expect_throw_with<DimensionMismatch>([&] { fit.decision_function(Matrix::Ones(2, 5)); },
                                         "decision_function");
}

zeronorm::Dataset load(const std::string& relative) {
    return zeronorm::read_csv(std::string(ZERONORM_DATA_DIR) + "/" + relative);
}

double weighted_hinge(const LpSvmResult& r, const Matrix& X, const Vector& y, const Vector& p) {
    const Vector f = r.decision_function(X);
    double total = 0.0;
    for (Index i = 0; i < X.rows(); ++i) total += p[i] * std::max(0.0, 1.0 - y[i] * f[i]);
    return total;
}

TEST(LpSvmRlp, IonosphereObjectiveOptimalityAndTrainingError) {
    const zeronorm::Dataset data = load("ionosphere/ionosphere.csv");
    ASSERT_TRUE(data.is_binary());
    const Matrix& X = data.X;
    const Vector& y = data.y;
    const Index n = X.rows();
    const double n_pos = static_cast<double>((y.array() > 0).count());
    const double n_neg = static_cast<double>(n) - n_pos;

    for (const RlpWeighting weighting : {RlpWeighting::Uniform, RlpWeighting::ClassBalanced}) {
        SCOPED_TRACE(weighting == RlpWeighting::Uniform ? "uniform" : "class-balanced");
        Vector p = Vector::Ones(n);
        if (weighting == RlpWeighting::ClassBalanced)
            for (Index i = 0; i < n; ++i) p[i] = y[i] > 0 ? 1.0 / n_pos : 1.0 / n_neg;
        RlpOptions o;
        o.weighting = weighting;
        const LpSvmResult r = zeronorm::train_rlp(X, y, o);
        ASSERT_EQ(r.status, Status::Success) << r.message;
        // objective = weighted hinge sum recomputed from (w, b), and xi is the hinge
        EXPECT_NEAR(r.objective, weighted_hinge(r, X, y, p), 1e-8 * (1.0 + r.objective));
        EXPECT_NEAR(r.objective, p.dot(r.xi), 1e-9 * (1.0 + r.objective));
        // optimal: no worse than other hyperplanes (an l1-SVM's, a perturbed optimum, w = 0)
        const LpSvmResult l1 = zeronorm::train_l1_svm(X, y, L1SvmOptions{});
        EXPECT_LE(r.objective, weighted_hinge(l1, X, y, p) + 1e-9);
        std::mt19937_64 rng(7);
        std::normal_distribution<double> g(0.0, 1e-3);
        for (int k = 0; k < 20; ++k) {
            LpSvmResult perturbed = r;
            for (Index j = 0; j < X.cols(); ++j) perturbed.weights_original[j] += g(rng);
            perturbed.b += g(rng);
            EXPECT_LE(r.objective, weighted_hinge(perturbed, X, y, p) + 1e-9);
        }
        // Ionosphere is close to linearly separable: RLP's training error is a few percent
        // (a linear classifier's test error is ~13 %, Neumann, Schnörr & Steidl 2005, Table III).
        const double error = (r.predict(X).array() != y.array()).cast<double>().mean();
        EXPECT_GT(error, 0.005);
        EXPECT_LT(error, 0.12);
        RecordProperty(weighting == RlpWeighting::Uniform ? "rlp_train_error"
                                                          : "rlp_balanced_train_error",
                       std::to_string(error));
        // Constant feature x2 is all zero: its weight is exactly 0.
        EXPECT_EQ(r.w[1], 0.0);
    }
}

TEST(LpSvmRlp, SeparableDataHasZeroObjective) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(zeronorm::testing::test_seed());
    Matrix X;
    Vector y;
    sparse_separable(50, 6, rng, X, y);
    const LpSvmResult r = zeronorm::train_rlp(X, y);
    ASSERT_EQ(r.status, Status::Success) << r.message;
    EXPECT_NEAR(r.objective, 0.0, 1e-9);
    EXPECT_EQ(r.predict(X), y);
}

TEST(LpSvm, ColonSizedL1SvmIsAVertex) {
    const zeronorm::Dataset data = load("colon/colon.csv");
    const Matrix logged = zeronorm::log10_transform(data.X);
    const Matrix X = zeronorm::Standardizer::fit(logged).transform(logged);
    ASSERT_EQ(X.rows(), 62);
    ASSERT_EQ(X.cols(), 2000);
    for (const double C : {lp_infinity, 1.0}) {
        SCOPED_TRACE("C = " + std::to_string(C));
        L1SvmOptions o;
        o.C = C;
        const auto start = std::chrono::steady_clock::now();
        const LpSvmResult r = zeronorm::train_l1_svm(X, data.y, o);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        ASSERT_EQ(r.status, Status::Success) << r.message;
        // n = 62 rows, so a vertex has at most 62 basic columns: few genes survive.
        EXPECT_GE(r.n_nonzero, 1);
        EXPECT_LE(r.n_nonzero, 62);
        expect_l1_svm_optimality(X, data.y, r, Vector::Ones(2000), Vector::Ones(2000), C,
                                 Vector::Ones(62), 1e-7);
        RecordProperty(std::isinf(C) ? "colon_hard_seconds" : "colon_soft_seconds",
                       std::to_string(seconds));
        RecordProperty(std::isinf(C) ? "colon_hard_nonzero" : "colon_soft_nonzero",
                       std::to_string(r.n_nonzero));
        RecordProperty(std::isinf(C) ? "colon_hard_iterations" : "colon_soft_iterations",
                       std::to_string(r.iterations));
    }
}

}  // namespace
