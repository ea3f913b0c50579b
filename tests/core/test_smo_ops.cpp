// SmoOps on the general problem
//   min_b 1/2 b'Q b + p'b,  Q_ij = y_i y_j (K_ij + ridge [i==j]),  y'b = delta,  0 <= b <= C
// on every backend, checked against the problem's own optimality conditions written here (not
// the library's): feasibility, and for G = Q b + p the KKT gap
//   max_{t in I_up} -y_t G_t - min_{t in I_low} -y_t G_t <= tolerance,
// I_up = {y_t = 1, b_t < C} u {y_t = -1, b_t > 0}, I_low = {y_t = 1, b_t > 0} u {y_t = -1, b_t < C},
// which for a convex QP means optimal. Also: p = -1, delta = 0 given explicitly is the SVM dual
// bit for bit, batches equal single solves, and the Newton finish of a singular system is the
// host rule's on both backends.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "solvers/dense_dual.hpp"
#include "support/backends.hpp"
#include "support/random.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/ops/smo_ops.hpp"

namespace zeronorm {
namespace {

struct General {
    Matrix K;
    Vector y, p;
    double delta = 0.0, C = 1.0, ridge = 0.0;
};

// An RBF kernel of random points, labels of both classes, p in [-2, 1], C in [0.5, 5] and delta
// within a third of what the box allows.
General random_problem(Index n, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    General g;
    const Matrix X = testing::random_matrix(n, 4, rng);
    g.K.resize(n, n);
    for (Index i = 0; i < n; ++i)
        for (Index j = 0; j < n; ++j) g.K(i, j) = std::exp(-0.7 * (X.row(i) - X.row(j)).squaredNorm());
    g.y.resize(n);
    for (Index i = 0; i < n; ++i) g.y[i] = (i % 3 == 0) ? -1.0 : 1.0;
    g.p = testing::random_matrix(n, 1, rng, -2.0, 1.0);
    g.C = 0.5 + 4.5 * u(rng);
    g.ridge = u(rng) < 0.5 ? 0.0 : 1e-2;
    const double side = double(std::min((g.y.array() > 0).count(), (g.y.array() < 0).count()));
    g.delta = (u(rng) - 0.5) * (2.0 / 3.0) * g.C * side;
    return g;
}

struct Check {
    double gap;       // the KKT gap above
    double residual;  // |y'b - delta|
    double box;       // largest step outside [0, C]
    double objective;
};

Check check(const General& g, const Vector& b) {
    const Matrix Q = g.y.asDiagonal() * (g.K + g.ridge * Matrix::Identity(g.K.rows(), g.K.rows())) *
                     g.y.asDiagonal();
    const Vector G = Q * b + g.p;
    double up = -std::numeric_limits<double>::infinity(), low = -up;
    Check c{0.0, std::abs(g.y.dot(b) - g.delta), 0.0, 0.5 * b.dot(Q * b) + g.p.dot(b)};
    for (Index t = 0; t < b.size(); ++t) {
        const bool positive = g.y[t] > 0;
        if (positive ? b[t] < g.C : b[t] > 0) up = std::max(up, -g.y[t] * G[t]);
        if (positive ? b[t] > 0 : b[t] < g.C) low = std::min(low, -g.y[t] * G[t]);
        c.box = std::max({c.box, -b[t], b[t] - g.C});
    }
    c.gap = std::max(0.0, up - low);
    return c;
}

SmoOptions options_of(const General& g, double tolerance) {
    SmoOptions o;
    o.C = g.C;
    o.ridge = g.ridge;
    o.tolerance = tolerance;
    return o;
}

void expect_optimal(const General& g, const SmoResult& r, double tolerance) {
    ASSERT_EQ(r.status, Status::Success);
    const Check c = check(g, r.beta);
    EXPECT_LE(c.gap, tolerance * (1 + 1e-9));
    EXPECT_LE(c.residual, 1e-9 * (1.0 + std::abs(g.delta)));
    EXPECT_LE(c.box, 0.0);
    EXPECT_NEAR(r.objective, c.objective, 1e-9 * (1.0 + std::abs(c.objective)));
    EXPECT_NEAR(r.kkt_gap, c.gap, 1e-9);
}

class SmoOpsGeneral : public ::testing::TestWithParam<BackendKind> {};

TEST_P(SmoOpsGeneral, SolvesMeetTheKktConditions) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed() + 11);
    for (const Index n : {12, 45, 120}) {
        SCOPED_TRACE("n " + std::to_string(n));
        const General g = random_problem(n, rng);
        const DeviceMatrix K = backend->upload(g.K);
        const SmoTerms terms{g.p, g.delta};
        expect_optimal(g, backend->smo().solve(K, g.y, options_of(g, 1e-6), nullptr, terms), 1e-6);
        // From an infeasible warm start, repaired to y'b = delta.
        const Vector wild = testing::random_matrix(n, 1, rng, -0.5, 1.5 * g.C);
        expect_optimal(g, backend->smo().solve(K, g.y, options_of(g, 1e-6), &wild, terms), 1e-6);
        // The Newton finish of the dense dual at a tight tolerance.
        expect_optimal(g, detail::solve_dense_dual(*backend, K, g.y, options_of(g, 1e-9), nullptr,
                                                   terms),
                       1e-9);
    }
}

TEST_P(SmoOpsGeneral, BatchesEqualSingleSolves) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed() + 12);
    const Index n = 40, P = 4;
    General first = random_problem(n, rng);
    Matrix K(n, n * P), Y(n, P);
    SmoBatchTerms terms{Matrix(n, P), Vector(P)};
    std::vector<General> problems;
    for (Index q = 0; q < P; ++q) {
        General g = random_problem(n, rng);
        g.C = first.C;
        g.ridge = first.ridge;
        K.middleCols(q * n, n) = g.K;
        Y.col(q) = g.y;
        terms.p.col(q) = g.p;
        terms.delta[q] = std::clamp(g.delta, -g.C, g.C);
        g.delta = terms.delta[q];
        problems.push_back(g);
    }
    const DeviceMatrix dK = backend->upload(K);
    const std::vector<SmoResult> batch =
        backend->smo().solve_batch(dK, Y, options_of(first, 1e-6), nullptr, {}, terms);
    for (Index q = 0; q < P; ++q) {
        SCOPED_TRACE("problem " + std::to_string(q));
        const General& g = problems[std::size_t(q)];
        expect_optimal(g, batch[std::size_t(q)], 1e-6);
        const SmoResult one = backend->smo().solve(backend->upload(g.K), g.y, options_of(g, 1e-6),
                                                   nullptr, SmoTerms{g.p, g.delta});
        expect_optimal(g, one, 1e-6);
        if (GetParam() == BackendKind::Cpu) {
            // One code path: the same iterates.
            EXPECT_LT((one.beta - batch[std::size_t(q)].beta).cwiseAbs().maxCoeff(), 1e-9);
        } else {
            // A lone problem takes the one-block kernel and a batch of small ones the one-warp
            // kernel, whose reductions break ties in another order: two points of KKT gap
            // <= eps, whose objectives differ by at most eps times the box's l1 size.
            EXPECT_NEAR(one.objective, batch[std::size_t(q)].objective, 1e-6 * g.C * double(n));
        }
    }
    // The Newton finish from coarse points: where it finishes, the result is optimal.
    Matrix coarse(n, P);
    const std::vector<SmoResult> smo =
        backend->smo().solve_batch(dK, Y, options_of(first, 1e-1), nullptr, {}, terms);
    for (Index q = 0; q < P; ++q) coarse.col(q) = smo[std::size_t(q)].beta;
    const std::vector<SmoResult> finished = backend->smo().newton_finish_batch(
        dK, Y, coarse, options_of(first, 1e-9), std::vector<char>(std::size_t(P), 1), terms);
    for (Index q = 0; q < P; ++q) {
        if (finished[std::size_t(q)].beta.size() > 0)
            expect_optimal(problems[std::size_t(q)], finished[std::size_t(q)], 1e-9);
    }
}

// p = -1 and delta = 0 given explicitly take the arithmetic of the default (the SVM dual).
TEST_P(SmoOpsGeneral, ExplicitSvmTermsAreTheDefaultBitForBit) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed() + 13);
    const Index n = 60;
    const General g = random_problem(n, rng);
    const DeviceMatrix K = backend->upload(g.K);
    const SmoTerms svm{Vector::Constant(n, -1.0), 0.0};
    const SmoResult plain = backend->smo().solve(K, g.y, options_of(g, 1e-5));
    const SmoResult given = backend->smo().solve(K, g.y, options_of(g, 1e-5), nullptr, svm);
    EXPECT_EQ(plain.beta, given.beta);
    EXPECT_EQ(plain.objective, given.objective);
    EXPECT_EQ(plain.bias, given.bias);
    EXPECT_EQ(plain.iterations, given.iterations);
    const Matrix coarse = backend->smo().solve(K, g.y, options_of(g, 1e-1)).beta;
    const SmoBatchTerms batch_svm{Matrix::Constant(n, 1, -1.0), Vector::Zero(1)};
    const SmoResult a =
        backend->smo().newton_finish_batch(K, Matrix(g.y), coarse, options_of(g, 1e-9), {1}).front();
    const SmoResult b = backend->smo()
                            .newton_finish_batch(K, Matrix(g.y), coarse, options_of(g, 1e-9), {1},
                                                 batch_svm)
                            .front();
    EXPECT_EQ(a.beta, b.beta);
    EXPECT_EQ(a.objective, b.objective);
}

TEST_P(SmoOpsGeneral, RejectsBadTerms) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed() + 14);
    const General g = random_problem(9, rng);  // 6 labels +1, 3 labels -1
    const DeviceMatrix K = backend->upload(g.K);
    const SmoOptions o = options_of(g, 1e-3);
    // y'b = delta beyond C times the labels of its sign.
    EXPECT_THROW(backend->smo().solve(K, g.y, o, nullptr, SmoTerms{g.p, 6.5 * g.C}),
                 InvalidArgument);
    EXPECT_THROW(backend->smo().solve(K, g.y, o, nullptr, SmoTerms{g.p, -3.5 * g.C}),
                 InvalidArgument);
    EXPECT_THROW(backend->smo().solve(K, g.y, o, nullptr, SmoTerms{Vector::Ones(8), 0.0}),
                 DimensionMismatch);
    Vector nan = g.p;
    nan[2] = std::nan("");
    EXPECT_THROW(backend->smo().solve(K, g.y, o, nullptr, SmoTerms{nan, 0.0}), InvalidArgument);
    EXPECT_THROW(backend->smo().solve_batch(K, Matrix(g.y), o, nullptr, {},
                                            SmoBatchTerms{Matrix::Ones(9, 2), Vector()}),
                 DimensionMismatch);
}

// Linear kernels of few features: the free variables' Q_FF (rank <= d) is singular at most
// SMO points. The device's Cholesky meets a pivot near zero there and hands the problem to the
// host rule, so every backend finishes exactly the problems detail::newton_finish finishes, with
// its solutions.
TEST_P(SmoOpsGeneral, NewtonFinishOfSingularSystemsIsTheHostRule) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed() + 15);
    const Index n = 40, d = 3, P = 6;
    const auto [X, Y] = testing::random_two_class_batch(n, d, P, rng, 0.5);
    const DeviceMatrix dX = backend->upload(X);
    const DeviceMatrix K = backend->gram_batch(P, dX, dX);
    const Matrix K_host = backend->download(K);
    SmoOptions options;
    options.C = 1.0;
    options.tolerance = 1e-2;
    const std::vector<SmoResult> smo = backend->smo().solve_batch(K, Y, options);
    Matrix coarse(n, P);
    for (Index q = 0; q < P; ++q) coarse.col(q) = smo[std::size_t(q)].beta;
    options.tolerance = 1e-8;
    const std::vector<SmoResult> got = backend->smo().newton_finish_batch(
        K, Y, coarse, options, std::vector<char>(std::size_t(P), 1));
    for (Index q = 0; q < P; ++q) {
        const auto want =
            detail::newton_finish(K_host.middleCols(q * n, n), Y.col(q), options, coarse.col(q));
        const SmoResult& r = got[std::size_t(q)];
        ASSERT_EQ(r.beta.size() > 0, want.has_value()) << q;
        if (!want) continue;
        EXPECT_LT((r.beta - want->beta).cwiseAbs().maxCoeff(),
                  1e-8 * (1.0 + want->beta.cwiseAbs().maxCoeff()))
            << q;
    }
}

ZN_INSTANTIATE_FOR_BACKENDS(SmoOpsGeneral);

}  // namespace
}  // namespace zeronorm
