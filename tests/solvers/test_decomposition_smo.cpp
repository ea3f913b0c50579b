// Decomposition SMO (working sets of q variables, kernel columns from a cache in the backend's
// memory) against SMO on the full precomputed kernel, on every backend built; and its two
// primitives, the working-set subproblem and the column assignment, against host references.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "solvers/decomposition_smo.hpp"
#include "solvers/smo_common.hpp"
#include "support/backends.hpp"
#include "support/matrix_checks.hpp"
#include "support/random.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/ops/smo_ops.hpp"

namespace zeronorm {
namespace {

using testing::exactly_equal;
using testing::random_matrix;
using testing::test_seed;

// Two overlapping Gaussian-ish blobs (labels +-1, about a third +1).
struct Problem {
    Matrix X;
    Vector y;
};

Problem blobs(Index n, Index d, std::mt19937_64& rng) {
    Problem p{random_matrix(n, d, rng), Vector(n)};
    for (Index i = 0; i < n; ++i) {
        p.y[i] = i % 3 == 0 ? 1.0 : -1.0;
        p.X.row(i).array() += 0.6 * p.y[i];
    }
    return p;
}

class DecompositionSmo : public ::testing::TestWithParam<BackendKind> {};

// Small working sets and a cache smaller than the problem: many rounds, evictions, and the
// same optimum as SMO on the whole kernel (unique: the RBF kernel of distinct points is
// positive definite).
TEST_P(DecompositionSmo, MatchesSmoOnTheFullKernel) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 31);
    const Problem p = blobs(700, 5, rng);
    KernelSpec spec;
    spec.type = KernelType::Rbf;
    spec.gamma = 0.4;
    SmoOptions options;
    options.C = 2.0;
    options.tolerance = 1e-7;
    const DeviceMatrix X = backend->upload(p.X);
    const SmoResult full = backend->smo().solve(backend->kernel_matrix(spec, X, X), p.y, options);
    ASSERT_EQ(full.status, Status::Success);
    for (const Index q : {Index(16), Index(64)}) {
        SCOPED_TRACE("q = " + std::to_string(q));
        detail::DecompositionOptions decomposition;
        decomposition.working_set = q;
        decomposition.cache_columns = q + q / 2;  // fewer than n: columns are evicted
        const SmoResult r =
            detail::solve_smo_decomposition(*backend, spec, X, p.y, options, decomposition);
        EXPECT_EQ(r.status, Status::Success);
        EXPECT_LE(r.kkt_gap, 1e-7);
        EXPECT_NEAR(r.objective, full.objective, 1e-8 * std::abs(full.objective));
        EXPECT_LT((r.beta - full.beta).cwiseAbs().maxCoeff(), 1e-4);
        EXPECT_NEAR(r.bias, full.bias, 1e-4);
        EXPECT_NEAR(r.beta.dot(p.y), 0.0, 1e-9);
        EXPECT_GE(r.beta.minCoeff(), 0.0);
        EXPECT_LE(r.beta.maxCoeff(), options.C);
    }
}

TEST_P(DecompositionSmo, WarmStartHardMarginAndLinearKernel) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 32);
    const Problem p = blobs(300, 4, rng);
    const DeviceMatrix X = backend->upload(p.X);
    detail::DecompositionOptions decomposition;
    decomposition.working_set = 20;
    KernelSpec rbf;
    rbf.type = KernelType::Rbf;
    rbf.gamma = 0.5;
    SmoOptions options;
    options.C = 1.0;
    options.tolerance = 1e-6;
    const SmoResult at_1 = detail::solve_smo_decomposition(*backend, rbf, X, p.y, options, decomposition);
    options.C = 3.0;
    const SmoResult cold = detail::solve_smo_decomposition(*backend, rbf, X, p.y, options, decomposition);
    const SmoResult warm =
        detail::solve_smo_decomposition(*backend, rbf, X, p.y, options, decomposition, &at_1.beta);
    EXPECT_EQ(warm.status, Status::Success);
    EXPECT_NEAR(warm.objective, cold.objective, 1e-7 * std::abs(cold.objective));
    // Started at the optimum, it stops at once (the gradient is rebuilt from the columns).
    const SmoResult again =
        detail::solve_smo_decomposition(*backend, rbf, X, p.y, options, decomposition, &cold.beta);
    EXPECT_LE(again.iterations, 10);
    EXPECT_LT(again.iterations * 10, cold.iterations);

    // C = inf with a ridge (2-norm slack), against the full kernel.
    options.C = std::numeric_limits<double>::infinity();
    options.ridge = 0.5;
    const SmoResult hard = detail::solve_smo_decomposition(*backend, rbf, X, p.y, options, decomposition);
    const SmoResult hard_full = backend->smo().solve(backend->kernel_matrix(rbf, X, X), p.y, options);
    EXPECT_EQ(hard.status, Status::Success);
    EXPECT_NEAR(hard.objective, hard_full.objective, 1e-7 * std::abs(hard_full.objective));

    // Linear kernel of rank 4 < n: the optimum is not unique, its value is.
    KernelSpec linear;
    options.C = 0.1;
    options.ridge = 0.0;
    const SmoResult lin = detail::solve_smo_decomposition(*backend, linear, X, p.y, options, decomposition);
    const SmoResult lin_full = backend->smo().solve(backend->kernel_matrix(linear, X, X), p.y, options);
    EXPECT_EQ(lin.status, Status::Success);
    EXPECT_NEAR(lin.objective, lin_full.objective, 1e-6 * std::abs(lin_full.objective));
}

TEST_P(DecompositionSmo, CapsAndBadOptions) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 33);
    const Problem p = blobs(200, 3, rng);
    const DeviceMatrix X = backend->upload(p.X);
    KernelSpec rbf;
    rbf.type = KernelType::Rbf;
    SmoOptions options;
    options.tolerance = 1e-9;
    options.max_iterations = 7;
    detail::DecompositionOptions decomposition;
    decomposition.working_set = 10;
    const SmoResult capped = detail::solve_smo_decomposition(*backend, rbf, X, p.y, options, decomposition);
    EXPECT_EQ(capped.status, Status::NoConvergence);
    EXPECT_LE(capped.iterations, 7);
    EXPECT_GT(capped.kkt_gap, 1e-9);
    // A working set as large as the problem: one subproblem is the whole problem.
    options.max_iterations = 0;
    decomposition.working_set = 1000;
    const SmoResult whole = detail::solve_smo_decomposition(*backend, rbf, X, p.y, options, decomposition);
    EXPECT_EQ(whole.status, Status::Success);
    decomposition.working_set = 1;
    EXPECT_THROW(detail::solve_smo_decomposition(*backend, rbf, X, p.y, options, decomposition),
                 InvalidArgument);
    decomposition.working_set = 10;
    EXPECT_THROW(detail::solve_smo_decomposition(*backend, rbf, X, Vector(p.y.head(199)), options,
                                                 decomposition),
                 DimensionMismatch);
    EXPECT_THROW(detail::solve_smo_decomposition(*backend, rbf, X, Vector::Ones(200), options,
                                                 decomposition),
                 InvalidArgument);
}

// The subproblem on a working set B of a larger problem: feasible, y'b kept, optimal for the
// subproblem (its own KKT gap from Q_BB b + gradient - Q_BB beta), and equal to the CPU
// backend's answer.
TEST_P(DecompositionSmo, WorkingSetSubproblem) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 34);
    const Index n = 90;
    const Problem p = blobs(n, 6, rng);
    KernelSpec rbf;
    rbf.type = KernelType::Rbf;
    rbf.gamma = 0.3;
    const auto cpu = make_cpu_backend();
    const DeviceMatrix Xh = cpu->upload(p.X);
    const Matrix K = cpu->download(cpu->kernel_matrix(rbf, Xh, Xh));
    SmoOptions options;
    options.C = 1.5;
    options.ridge = 0.01;
    options.tolerance = 1e-10;
    // A point of the box with y'beta != 0 (the subproblem keeps whatever it is).
    const Vector beta = random_matrix(n, 1, rng, 0.0, options.C).col(0);
    const Matrix Q = p.y.asDiagonal() * K * p.y.asDiagonal() +
                     options.ridge * Matrix::Identity(n, n);
    const Vector G = Q * beta - Vector::Ones(n);
    IndexVector B(static_cast<std::size_t>(n));
    std::iota(B.begin(), B.end(), Index(0));
    std::shuffle(B.begin(), B.end(), rng);
    B.resize(40);
    const Index q = Index(B.size());
    Matrix K_BB(q, q), Q_BB(q, q);
    Vector y_B(q), beta_B(q), G_B(q);
    for (Index a = 0; a < q; ++a) {
        y_B[a] = p.y[B[std::size_t(a)]];
        beta_B[a] = beta[B[std::size_t(a)]];
        G_B[a] = G[B[std::size_t(a)]];
        for (Index b = 0; b < q; ++b) {
            K_BB(a, b) = K(B[std::size_t(a)], B[std::size_t(b)]);
            Q_BB(a, b) = Q(B[std::size_t(a)], B[std::size_t(b)]);
        }
    }
    const SmoResult r =
        backend->smo().solve_working_set(backend->upload(K_BB), y_B, beta_B, G_B, options);
    EXPECT_EQ(r.status, Status::Success);
    EXPECT_NEAR(r.beta.dot(y_B), beta_B.dot(y_B), 1e-10);
    EXPECT_GE(r.beta.minCoeff(), 0.0);
    EXPECT_LE(r.beta.maxCoeff(), options.C);
    const Vector G_sub = Q_BB * r.beta + (G_B - Q_BB * beta_B);
    EXPECT_LE(smo_detail::smo_kkt_gap(r.beta, G_sub, y_B, options.C), 1e-9);
    EXPECT_GT(smo_detail::smo_kkt_gap(beta_B, G_B, y_B, options.C), 1e-2);  // the start was not optimal
    const SmoResult ref = cpu->smo().solve_working_set(cpu->upload(K_BB), y_B, beta_B, G_B, options);
    EXPECT_LT((r.beta - ref.beta).cwiseAbs().maxCoeff(), 1e-7);
    // The subproblem's objective 1/2 b'Q_BB b + l'b, l = G_B - Q_BB beta_B.
    const Vector linear = G_B - Q_BB * beta_B;
    const double objective = 0.5 * r.beta.dot(Q_BB * r.beta) + linear.dot(r.beta);
    EXPECT_NEAR(r.objective, objective, 1e-10 * (1.0 + std::abs(objective)));
    // A kernel with a NaN or an Inf (off the diagonal) is an error, as in the batched solvers,
    // also where beta is 0.
    Matrix bad_kernel = K_BB;
    Vector zero_start = beta_B;
    zero_start.head(2).setZero();
    for (const double poison : {std::numeric_limits<double>::quiet_NaN(),
                                std::numeric_limits<double>::infinity()}) {
        bad_kernel(0, 1) = bad_kernel(1, 0) = poison;
        EXPECT_THROW(backend->smo().solve_working_set(backend->upload(bad_kernel), y_B, zero_start,
                                                      G_B, options),
                     InvalidArgument);
    }
    // One class only is a valid working set (its sum is fixed).
    const Vector one_class = Vector::Ones(q);
    EXPECT_NO_THROW(backend->smo().solve_working_set(backend->upload(K_BB), one_class, beta_B, G_B, options));
    Vector outside = beta_B;
    outside[3] = options.C + 1.0;
    EXPECT_THROW(backend->smo().solve_working_set(backend->upload(K_BB), y_B, outside, G_B, options),
                 InvalidArgument);
    EXPECT_THROW(backend->smo().solve_working_set(backend->upload(K_BB), Vector(y_B.head(q - 1)),
                                                beta_B, G_B, options),
                 DimensionMismatch);
}

TEST_P(DecompositionSmo, AssignColumns) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 35);
    const Matrix X0 = random_matrix(33, 12, rng), S = random_matrix(33, 4, rng);
    const IndexVector cols{7, 0, 11, 4};
    DeviceMatrix X = backend->upload(X0);
    backend->assign_columns(X, cols, backend->upload(S));
    Matrix expected = X0;
    for (std::size_t k = 0; k < cols.size(); ++k) expected.col(cols[k]) = S.col(Index(k));
    EXPECT_TRUE(exactly_equal(backend->download(X), expected));
    EXPECT_THROW(backend->assign_columns(X, {7, 7, 1, 2}, backend->upload(S)), InvalidArgument);
    EXPECT_THROW(backend->assign_columns(X, {7, 12, 1, 2}, backend->upload(S)), InvalidArgument);
    EXPECT_THROW(backend->assign_columns(X, {7, 1, 2}, backend->upload(S)), DimensionMismatch);
}

ZN_INSTANTIATE_FOR_BACKENDS(DecompositionSmo);

}  // namespace
}  // namespace zeronorm
