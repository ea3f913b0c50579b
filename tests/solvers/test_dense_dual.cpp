// SMO with the Newton finish (src/solvers/dense_dual.hpp) against plain SMO run to a much tighter
// tolerance: same optimum on random problems of every kind the library solves (soft margin,
// hard margin with a ridge, linear and RBF kernels, duplicated points); unchanged at loose
// tolerances; and on both backends.
#include <gtest/gtest.h>

#include <random>

#include "reference/reference.hpp"
#include "solvers/dense_dual.hpp"
#include "support/backends.hpp"
#include "support/matrix_checks.hpp"
#include "support/random.hpp"
#include "zeronorm/solvers/svm.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm {
namespace {

using testing::exactly_equal;

struct Case {
    KernelType kernel;
    double C, ridge;
    Index n, d;
    double scale = 1.0;  // of the features
};

class DenseDual : public ::testing::TestWithParam<BackendKind> {};

TEST_P(DenseDual, NewtonFinishReachesThePlainSmoOptimum) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed());
    const double inf = std::numeric_limits<double>::infinity();
    const Case cases[] = {{KernelType::Linear, 1.0, 0.0, 60, 500},
                          {KernelType::Linear, inf, 1e-3, 50, 2000},
                          // The same problem at kernel values near 2e9 (unscaled microarray
                          // data): only the units change (ridge by scale^2, beta by 1/scale^2).
                          {KernelType::Linear, inf, 1e3, 50, 2000, 1e3},
                          {KernelType::Linear, 0.05, 0.0, 200, 30},
                          {KernelType::Rbf, 10.0, 0.0, 150, 8},
                          {KernelType::Rbf, inf, 1e-2, 120, 5}};
    int newton_used = 0;  // cases finished by the Newton step: fewer SMO iterations than plain
    for (const Case& c : cases) {
        SCOPED_TRACE("n " + std::to_string(c.n) + " d " + std::to_string(c.d) + " C " +
                     std::to_string(c.C));
        Dataset data = testing::random_two_class(c.n, c.d, rng, 0.3);
        data.X.row(1) = data.X.row(0);  // a duplicated point (same label): singular Q_FF blocks
        data.y[1] = data.y[0];
        data.X *= c.scale;
        KernelSpec spec;
        spec.type = c.kernel;
        spec.gamma = 1.0 / double(c.d);
        const DeviceMatrix X = backend->upload(data.X);
        const DeviceMatrix K = backend->kernel_matrix(spec, X, X);
        SmoOptions options;
        options.C = c.C;
        options.ridge = c.ridge;
        options.tolerance = 1e-8;
        const SmoResult fast = detail::solve_dense_dual(*backend, K, data.y, options);
        newton_used += fast.iterations < backend->smo().solve(K, data.y, options).iterations;
        options.tolerance = 1e-12;
        const SmoResult exact = backend->smo().solve(K, data.y, options);
        ASSERT_EQ(fast.status, Status::Success);
        EXPECT_LE(fast.kkt_gap, 1e-8);
        EXPECT_NEAR(fast.objective, exact.objective, 1e-9 * std::abs(exact.objective));
        EXPECT_NEAR(fast.bias, exact.bias, 1e-6 * (1.0 + std::abs(exact.bias)));
        // beta is not unique (the duplicated points can share their weight in any ratio); the
        // decision values K (beta .* y) + b are.
        const Matrix K_host = backend->download(K);
        const Vector f_fast = K_host * fast.beta.cwiseProduct(data.y);
        const Vector f_exact = K_host * exact.beta.cwiseProduct(data.y);
        EXPECT_LE((f_fast - f_exact).cwiseAbs().maxCoeff(),
                  1e-5 * (1.0 + f_exact.cwiseAbs().maxCoeff()));
        EXPECT_NEAR(fast.beta.dot(data.y), 0.0, 1e-9 * (1.0 + fast.beta.sum()));
        EXPECT_GE(fast.beta.minCoeff(), 0.0);
        if (std::isfinite(c.C)) {
            EXPECT_LE(fast.beta.maxCoeff(), c.C);
        }
    }
    EXPECT_GE(newton_used, 4) << "the Newton finish should succeed on most of these problems";
}

TEST_P(DenseDual, LooseTolerances) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed() + 1);
    const Dataset data = testing::random_two_class(80, 40, rng);
    const DeviceMatrix X = backend->upload(data.X);
    const DeviceMatrix K = backend->kernel_matrix(KernelSpec{}, X, X);
    SmoOptions options;
    // Coarser than the first Newton stage: plain SMO, bit for bit.
    options.tolerance = 0.2;
    const SmoResult a = detail::solve_dense_dual(*backend, K, data.y, options);
    const SmoResult b = backend->smo().solve(K, data.y, options);
    EXPECT_TRUE(exactly_equal(a.beta, b.beta));
    EXPECT_EQ(a.iterations, b.iterations);
    // LIBSVM's default 1e-3: the answer meets it, and is no worse than plain SMO's.
    options.tolerance = 1e-3;
    const SmoResult c = detail::solve_dense_dual(*backend, K, data.y, options);
    const SmoResult d = backend->smo().solve(K, data.y, options);
    EXPECT_LE(c.kkt_gap, 1e-3);
    EXPECT_LE(c.objective, d.objective + 1e-12 * std::abs(d.objective));
}

// SmoOps::newton_finish_batch against the reference's Newton finish (tests/reference/) from
// the same coarse SMO points: the same problems finished (but for ties at a bound), the same
// solutions up to rounding, and those the exact optimum of the dual; on CUDA n = 50 runs on
// the device and n = 190 (beyond a block's shared memory) on the host.
TEST_P(DenseDual, NewtonFinishBatchMatchesTheReference) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed() + 5);
    const double inf = std::numeric_limits<double>::infinity();
    const Case cases[] = {{KernelType::Linear, inf, 1e-3, 50, 400},
                          {KernelType::Linear, 0.7, 0.0, 40, 400},
                          {KernelType::Linear, 2.0, 1e-3, 190, 60},
                          {KernelType::Linear, 0.05, 1e-3, 80, 20}};  // many at the upper bound
    for (const Case& c : cases) {
        SCOPED_TRACE("n " + std::to_string(c.n) + " C " + std::to_string(c.C));
        const Index P = 7;
        Matrix X(c.n, c.d * P), Y(c.n, P);
        for (Index p = 0; p < P; ++p) {
            const Dataset data = testing::random_two_class(c.n, c.d, rng, 0.3);
            X.middleCols(p * c.d, c.d) = data.X;
            Y.col(p) = data.y;
        }
        const DeviceMatrix dX = backend->upload(X);
        const DeviceMatrix K = backend->gram_batch(P, dX, dX);
        const Matrix K_host = backend->download(K);
        SmoOptions options;
        options.C = c.C;
        options.ridge = c.ridge;
        options.tolerance = 1e-1;
        Matrix coarse(c.n, P);
        const std::vector<SmoResult> smo = backend->smo().solve_batch(K, Y, options);
        for (Index p = 0; p < P; ++p) coarse.col(p) = smo[std::size_t(p)].beta;
        options.tolerance = 1e-9;
        std::vector<char> open(std::size_t(P), 1);
        open[2] = 0;
        const std::vector<SmoResult> got = backend->smo().newton_finish_batch(K, Y, coarse, options, open);
        ASSERT_EQ(got.size(), std::size_t(P));
        EXPECT_EQ(got[2].beta.size(), 0);
        int finished = 0, differed = 0;
        for (Index p = 0; p < P; ++p) {
            if (!open[std::size_t(p)]) continue;
            const Matrix K_p = K_host.middleCols(p * c.n, c.n);
            const auto want = reference::newton_finish(K_p, Y.col(p), options.C, options.ridge,
                                                       options.tolerance, coarse.col(p),
                                                       detail::kNewtonRounds);
            const SmoResult& r = got[std::size_t(p)];
            // A free variable whose system value is a bound up to rounding (a one-variable free
            // set fixed by the equality constraint at exactly C, say) stays free in one and
            // leaves the box in the other, and the rounds go on differently: about one problem
            // in a thousand. A finish either one makes alone is checked against the optimum.
            if ((r.beta.size() > 0) != want.has_value()) ++differed;
            if (r.beta.size() == 0) continue;
            ++finished;
            const reference::Dual dual = reference::svm_dual(K_p, Y.col(p), options.C, options.ridge);
            const double optimum = reference::solve_dual(dual).objective;
            EXPECT_LE(reference::kkt_gap(dual, r.beta), 2 * options.tolerance) << p;  // rounding
            EXPECT_EQ(r.status, Status::Success) << p;
            EXPECT_LE(r.kkt_gap, options.tolerance) << p;
            EXPECT_EQ(r.iterations, 0) << p;
            EXPECT_NEAR(r.objective, optimum, 1e-9 * std::abs(optimum)) << p;
            if (!want) continue;
            EXPECT_NEAR(want->objective, optimum, 1e-9 * std::abs(optimum)) << p;
            EXPECT_NEAR(r.objective, want->objective, 1e-10 * std::abs(want->objective)) << p;
            EXPECT_NEAR(r.bias, want->nu, 1e-7 * (1.0 + std::abs(want->nu))) << p;
            EXPECT_LT((r.beta - want->beta).cwiseAbs().maxCoeff(),
                      1e-8 * (1.0 + want->beta.cwiseAbs().maxCoeff()))
                << p;
        }
        // The coarse points are close enough that the active-set rounds finish most problems
        // (fewer at C = 0.05, where more variables start on the wrong side of the bound).
        EXPECT_GE(finished, c.C < 0.1 ? 2 : 4);
        EXPECT_LE(differed, 1);
    }
    // Bad operands: a beta outside the box, too few flags.
    const Matrix Kh = Matrix::Identity(3, 3);
    const DeviceMatrix K = backend->upload(Kh);
    Matrix Y(3, 1);
    Y << 1, -1, 1;
    SmoOptions options;
    options.C = 1.0;
    EXPECT_THROW(backend->smo().newton_finish_batch(K, Y, Matrix::Constant(3, 1, 2.0), options, {1}),
                 InvalidArgument);
    EXPECT_THROW(backend->smo().newton_finish_batch(K, Y, Matrix::Zero(3, 1), options, {}),
                 DimensionMismatch);
}

// The batched scheme: each problem's result is solve_dense_dual's on it (same stages, same
// Newton finishes), with warm starts and a problem left out.
TEST_P(DenseDual, BatchEqualsOneProblemAtATime) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed() + 2);
    const Index P = 6, n = 50, d = 300;
    const auto [X, Y] = testing::random_two_class_batch(n, d, P, rng, 0.3);
    const DeviceMatrix dX = backend->upload(X);
    const DeviceMatrix K = backend->gram_batch(P, dX, dX);
    const Matrix K_host = backend->download(K);
    SmoOptions options;
    options.C = std::numeric_limits<double>::infinity();
    options.ridge = 1e-3;
    options.tolerance = 1e-8;
    std::vector<char> active(std::size_t(P), 1);
    active[4] = 0;
    const Matrix warm = Matrix::Constant(n, P, 0.01);
    for (const Matrix* start : {static_cast<const Matrix*>(nullptr), &warm}) {
        const std::vector<SmoResult> batch =
            detail::solve_dense_dual_batch(*backend, K, Y, options, start, active);
        EXPECT_EQ(batch[4].beta.size(), 0);
        for (Index p = 0; p < P; ++p) {
            if (!active[std::size_t(p)]) continue;
            const Vector w = start ? Vector(start->col(p)) : Vector();
            const DeviceMatrix Kp = backend->upload(Matrix(K_host.middleCols(p * n, n)));
            const SmoResult one =
                detail::solve_dense_dual(*backend, Kp, Y.col(p), options, start ? &w : nullptr);
            const SmoResult& b = batch[std::size_t(p)];
            EXPECT_EQ(b.status, Status::Success) << p;
            EXPECT_LE(b.kkt_gap, 1e-8) << p;
            // Same path up to rounding (on CUDA the batched and single kernels form K (y o beta)
            // in different summation orders): the same optimum to the tolerance.
            EXPECT_NEAR(b.objective, one.objective, 1e-9 * std::abs(one.objective)) << p;
            EXPECT_LT((b.beta - one.beta).cwiseAbs().maxCoeff(), 1e-5 * (1.0 + one.beta.maxCoeff()))
                << p;
        }
    }
}

// Linear kernels of fewer features than free variables: Q_FF is singular at the coarse points
// (rounding leaves pivots near 1e-17, not 0). The Newton finish takes the least-norm step from
// the coarse point there, so it finishes most of these problems, each at the exact optimum
// (the reference's interior point and active set), where dividing by those pivots finished
// almost none and left them to SMO, which crawls on such problems at a large box. (The
// reference's exact solver needs a unique optimum; here the KKT gap certifies the solution and
// plain SMO to a tight tolerance gives the optimal value.)
TEST_P(DenseDual, NewtonFinishSolvesSingularSystems) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed() + 7);
    const Index P = 12, n = 40, d = 4;
    const auto [X, Y] = testing::random_two_class_batch(n, d, P, rng, 0.5);
    const DeviceMatrix dX = backend->upload(X);
    const DeviceMatrix K = backend->gram_batch(P, dX, dX);
    const Matrix K_host = backend->download(K);
    SmoOptions options;
    options.C = 100.0;
    options.tolerance = 1e-3;
    const std::vector<SmoResult> smo = backend->smo().solve_batch(K, Y, options);
    Matrix coarse(n, P);
    for (Index p = 0; p < P; ++p) coarse.col(p) = smo[std::size_t(p)].beta;
    options.tolerance = 1e-9;
    const std::vector<SmoResult> got = backend->smo().newton_finish_batch(
        K, Y, coarse, options, std::vector<char>(std::size_t(P), 1));
    int finished = 0, singular = 0;
    for (Index p = 0; p < P; ++p) {
        const SmoResult& r = got[std::size_t(p)];
        const Matrix K_p = K_host.middleCols(p * n, n);
        Index free = 0;
        for (Index i = 0; i < n; ++i) free += coarse(i, p) > 0 && coarse(i, p) < options.C;
        singular += free > d;
        if (r.beta.size() == 0) continue;
        ++finished;
        const reference::Dual dual = reference::svm_dual(K_p, Y.col(p), options.C, 0.0);
        EXPECT_EQ(r.status, Status::Success) << p;
        EXPECT_LE(reference::kkt_gap(dual, r.beta), 2 * options.tolerance) << p;  // rounding
        EXPECT_NEAR(r.objective, reference::dual_objective(dual, r.beta),
                    1e-12 * std::abs(r.objective)) << p;
        const Vector start = coarse.col(p);
        SmoOptions tight = options;
        tight.tolerance = 1e-7;
        const SmoResult plain =
            backend->smo().solve(backend->upload(K_p), Y.col(p), tight, &start);
        EXPECT_LE(r.objective, plain.objective + 1e-9 * std::abs(plain.objective)) << p;
        EXPECT_NEAR(r.objective, plain.objective, 1e-6 * std::abs(plain.objective)) << p;
    }
    EXPECT_GE(singular, P / 2);  // the case this test is about
    EXPECT_GE(finished, P / 2);
}

// n points with d raw microarray-like features (values near 1e3, the first one telling the
// classes apart only in part), a third of them in class -1.
Dataset raw_feature_problem(std::mt19937_64& rng, Index n, Index d) {
    std::normal_distribution<double> normal;
    Dataset data;
    data.X.resize(n, d);
    data.y.resize(n);
    for (Index i = 0; i < n; ++i) {
        data.y[i] = i % 3 == 0 ? -1.0 : 1.0;
        for (Index j = 0; j < d; ++j)
            data.X(i, j) =
                std::abs(1000.0 + 400.0 * normal(rng) + (j == 0 ? 300.0 * data.y[i] : 0.0));
    }
    return data;
}

// The primal objective 1/2 |w|^2 + C sum of hinges of the linear SVM of the dual beta (bias b).
double linear_primal(const Dataset& data, const Vector& beta, double b, double C) {
    const Vector w = data.X.transpose() * beta.cwiseProduct(data.y);
    const Vector margins = data.y.array() * ((data.X * w).array() + b);
    return 0.5 * w.squaredNorm() + C * (1.0 - margins.array()).cwiseMax(0.0).sum();
}

// A linear kernel on a few raw microarray-like features (values near 1e3, one of them telling
// the classes apart only in part) with C = 100: SMO's steps barely move the objective (LIBSVM
// takes over 10^8 of them on colon's gene 249, and stops far from the optimum). The coarse SMO
// stalls, the active-set solve finishes: the exact optimum, its primal objective equal to
// minus the dual one, in a fraction of SMO's 10^7-step cap.
TEST_P(DenseDual, StalledSmoIsFinishedByTheActiveSet) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed() + 11);
    int stalled = 0;
    for (const Index d : {1, 1, 2, 3}) {
        SCOPED_TRACE("d " + std::to_string(d));
        const Dataset data = raw_feature_problem(rng, 60, d);
        const DeviceMatrix X = backend->upload(data.X);
        const DeviceMatrix K = backend->kernel_matrix(KernelSpec{}, X, X);
        const reference::Dual dual =
            reference::svm_dual(backend->download(K), data.y, 100.0, 0.0);
        SmoOptions options;
        options.C = 100.0;
        for (const double tolerance : {1e-3, 1e-6}) {
            options.tolerance = tolerance;
            const SmoResult r = detail::solve_dense_dual(*backend, K, data.y, options);
            ASSERT_EQ(r.status, Status::Success) << tolerance;
            EXPECT_LE(r.iterations, 200'000) << "the active set, not SMO, should finish";
            stalled += r.iterations >= 100'000;
            EXPECT_LE(reference::kkt_gap(dual, r.beta), 2 * tolerance);  // rounding: G near 1e8
            EXPECT_NEAR(r.objective, reference::dual_objective(dual, r.beta),
                        1e-7 * std::abs(r.objective));  // cancellation
            if (tolerance > 1e-6) continue;
            // At 1e-6: the optimum, certified by the primal objective of (w, b) equal to minus
            // the dual one (weak duality bounds every primal value below by it).
            EXPECT_NEAR(linear_primal(data, r.beta, r.bias, options.C), -r.objective,
                        1e-6 * std::abs(r.objective));
        }
    }
    EXPECT_GE(stalled, 4) << "the case this test is about";
}

// The same problems above the Newton finish's size (n = 1100: SMO alone, within the stall
// budget of 100 n steps first) and with kernel columns computed on demand (a kernel matrix over
// max_kernel_mb): the stalled SMO goes to the active set there too, which ends at the optimum.
TEST_P(DenseDual, StalledSmoWithoutNewtonFinishOrKernelMatrixIsFinishedByTheActiveSet) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed() + 13);
    int stalled = 0;
    for (const Index d : {1, 3}) {
        SCOPED_TRACE("d " + std::to_string(d));
        SmoOptions options;
        options.C = 100.0;
        options.tolerance = 1e-6;
        const auto check = [&](const Dataset& data, const SmoResult& r, std::int64_t budget) {
            ASSERT_EQ(r.status, Status::Success);
            EXPECT_LE(r.iterations, 2 * budget) << "the active set, not SMO, should finish";
            stalled += r.iterations >= budget;
            EXPECT_NEAR(linear_primal(data, r.beta, r.bias, options.C), -r.objective,
                        1e-6 * std::abs(r.objective));
        };
        {
            const Dataset data = raw_feature_problem(rng, 1100, d);
            const DeviceMatrix X = backend->upload(data.X);
            const DeviceMatrix K = backend->kernel_matrix(KernelSpec{}, X, X);
            check(data, detail::solve_dense_dual(*backend, K, data.y, options), 110'000);
        }
        {
            const Dataset data = raw_feature_problem(rng, 300, d);
            SvmOptions svm;
            svm.kernel = KernelSpec{};
            svm.smo = options;
            svm.max_kernel_mb = 0.1;  // 300^2 doubles are 0.69 MiB: columns on demand
            check(data, train_svm(*backend, data, svm).smo, 100'000);
        }
    }
    EXPECT_GE(stalled, 3) << "the case this test is about";
}

// active_set_solve alone, from the cold start and from a feasible point, on well-conditioned
// problems of every kind (soft and hard margin, RBF, duplicated points, a linear term and an
// equality right-hand side): the optimum of the reference's interior-point solve.
TEST(DenseDualActiveSet, ReachesTheOptimumFromAnyFeasibleStart) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed() + 12);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    const double inf = std::numeric_limits<double>::infinity();
    const Case cases[] = {{KernelType::Linear, 1.0, 0.0, 50, 5},
                          {KernelType::Linear, inf, 1e-2, 40, 3},
                          {KernelType::Linear, 0.05, 0.0, 70, 20},
                          {KernelType::Rbf, 10.0, 0.0, 60, 4},
                          {KernelType::Rbf, 3.0, 1e-3, 45, 2}};
    for (const Case& c : cases) {
        SCOPED_TRACE("n " + std::to_string(c.n) + " d " + std::to_string(c.d) + " C " +
                     std::to_string(c.C));
        Dataset data = testing::random_two_class(c.n, c.d, rng, 0.3);
        data.X.row(1) = data.X.row(0);
        data.y[1] = data.y[0];
        KernelSpec spec;
        spec.type = c.kernel;
        spec.gamma = 1.0 / double(c.d);
        const Matrix K = reference::kernel_matrix(spec, data.X, data.X);
        SmoOptions options;
        options.C = c.C;
        options.ridge = c.ridge;
        options.tolerance = 1e-9;
        for (const bool with_terms : {false, true}) {
            SmoTerms terms;
            reference::Dual dual = reference::svm_dual(K, data.y, c.C, c.ridge);
            Vector start = Vector::Zero(c.n);
            if (with_terms) {  // p in [-2, 0], delta = y'start for a random feasible start
                terms.p = -2.0 * Vector::NullaryExpr(c.n, [&] { return uniform(rng); });
                const double box = std::isfinite(c.C) ? c.C : 1.0;
                start = box * Vector::NullaryExpr(c.n, [&] { return uniform(rng); });
                terms.delta = data.y.dot(start);
                dual.p = terms.p;
                dual.delta = terms.delta;
            }
            const SmoResult r = detail::active_set_solve(K, data.y, options, start, terms);
            ASSERT_EQ(r.status, Status::Success) << with_terms;
            const double optimum = reference::solve_dual(dual).objective;
            EXPECT_LE(reference::kkt_gap(dual, r.beta), 2 * options.tolerance) << with_terms;
            EXPECT_NEAR(r.objective, optimum, 1e-9 * (1.0 + std::abs(optimum))) << with_terms;
            EXPECT_NEAR(data.y.dot(r.beta), terms.delta, 1e-9 * (1.0 + r.beta.sum()));
            EXPECT_GE(r.beta.minCoeff(), 0.0);
            if (std::isfinite(c.C)) {
                EXPECT_LE(r.beta.maxCoeff(), c.C);
            }
        }
    }
}

ZN_INSTANTIATE_FOR_BACKENDS(DenseDual);

}  // namespace
}  // namespace zeronorm
