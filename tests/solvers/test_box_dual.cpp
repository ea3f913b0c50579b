// The kernel SVM dual without bias (solvers/box_dual.hpp, SvmOptions::bias = false): the KKT
// conditions of the box-constrained dual hold at the answer, and its objective equals that of an
// independent solve (accelerated projected gradient, FISTA) of the same problem.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "solvers/box_dual.hpp"
#include "support/random.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/solvers/svm.hpp"

namespace zeronorm {
namespace {

Matrix rbf_kernel(const Matrix& X, double gamma) {
    const Index n = X.rows();
    Matrix K(n, n);
    for (Index i = 0; i < n; ++i)
        for (Index j = 0; j < n; ++j) K(i, j) = std::exp(-gamma * (X.row(i) - X.row(j)).squaredNorm());
    return K;
}

// min 1/2 b'Qb - 1'b over [0, C]^n by FISTA with step 1 / ||Q||_2: the independent solve.
Vector fista(const Matrix& Q, double C, int iterations) {
    const double L = Eigen::SelfAdjointEigenSolver<Matrix>(Q).eigenvalues().maxCoeff();
    const Index n = Q.rows();
    Vector b = Vector::Zero(n), z = b;
    double t = 1.0;
    for (int k = 0; k < iterations; ++k) {
        const Vector next = (z - (Q * z - Vector::Ones(n)) / L).cwiseMax(0.0).cwiseMin(C);
        const double t_next = 0.5 * (1.0 + std::sqrt(1.0 + 4.0 * t * t));
        z = next + ((t - 1.0) / t_next) * (next - b);
        b = next;
        t = t_next;
    }
    return b;
}

TEST(BoxDual, KktHoldAndObjectiveMatchesProjectedGradient) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed());
    for (const double C : {0.05, 1.0, 20.0}) {
        SCOPED_TRACE(::testing::Message() << "C " << C);
        const Dataset data = testing::random_two_class(40, 3, rng);
        const Matrix K = rbf_kernel(data.X, 0.5);
        SmoOptions o;
        o.C = C;
        o.tolerance = 1e-9;
        const SmoResult r = detail::solve_box_dual(K, data.y, o);
        ASSERT_EQ(r.status, Status::Success);
        EXPECT_EQ(r.bias, 0.0);
        EXPECT_GE(r.beta.minCoeff(), 0.0);
        EXPECT_LE(r.beta.maxCoeff(), C);
        const Matrix Q = data.y.asDiagonal() * K * data.y.asDiagonal();
        EXPECT_LE(r.kkt_gap, o.tolerance);
        // The solver stops on its running gradient; recomputed here it differs by rounding
        // (seen: 3e-16 past the tolerance at C = 20), hence the slack.
        const double kkt_limit = o.tolerance + 1e-11 * (1.0 + C);
        const Vector G = Q * r.beta - Vector::Ones(40);
        EXPECT_LE(detail::box_dual_violation(r.beta, G, C), kkt_limit);
        for (Index i = 0; i < 40; ++i) {  // KKT: G_i >= 0 at 0, <= 0 at C, = 0 between
            if (r.beta[i] == 0.0) EXPECT_GE(G[i], -kkt_limit);
            else if (r.beta[i] == C) EXPECT_LE(G[i], kkt_limit);
            else EXPECT_NEAR(G[i], 0.0, kkt_limit);
        }
        const double value = 0.5 * r.beta.dot(Q * r.beta) - r.beta.sum();
        EXPECT_NEAR(r.objective, value, 1e-10 * (1.0 + std::abs(value)));
        const Vector b = fista(Q, C, 20000);
        const double reference = 0.5 * b.dot(Q * b) - b.sum();
        EXPECT_LE(value, reference + 1e-9 * (1.0 + std::abs(reference)));
        EXPECT_NEAR(value, reference, 1e-6 * (1.0 + std::abs(reference)));
    }
}

TEST(BoxDual, TrainSvmWithoutBiasIsTheKernelExpansionAlone) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed() + 1);
    const Dataset data = testing::random_two_class(30, 2, rng);
    auto backend = make_cpu_backend();
    SvmOptions o;
    o.kernel.type = KernelType::Rbf;
    o.kernel.gamma = 0.5;
    o.bias = false;
    o.smo.tolerance = 1e-8;
    const SvmTrainResult r = train_svm(*backend, data, o);
    EXPECT_EQ(r.model.bias, 0.0);
    // The no-bias dual keeps y'beta free: its optimum is below the one with the constraint.
    o.bias = true;
    const SvmTrainResult with = train_svm(*backend, data, o);
    EXPECT_LE(r.smo.objective, with.smo.objective + 1e-8);
    const Matrix K = rbf_kernel(data.X, 0.5);
    const Vector f = K * data.y.cwiseProduct(r.smo.beta);
    EXPECT_LT((r.model.decision_function(*backend, data.X) - f).cwiseAbs().maxCoeff(), 1e-10);
}

// The path over several C on one kernel matrix: at each C exactly train_svm's SVM without bias.
TEST(BoxDual, ThePathOverCIsTrainSvmAtEachC) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed() + 2);
    const Dataset data = testing::random_two_class(60, 3, rng);
    auto backend = make_cpu_backend();
    SvmOptions o;
    o.kernel.type = KernelType::Rbf;
    o.kernel.gamma = 0.5;
    o.bias = false;
    o.smo.tolerance = 1e-6;
    const std::vector<double> C = {20.0, 0.1, 1.0, 5.0};
    const std::vector<SvmTrainResult> path = train_svm_without_bias_path(*backend, data, o, C);
    ASSERT_EQ(path.size(), C.size());
    for (std::size_t k = 0; k < C.size(); ++k) {
        SCOPED_TRACE(::testing::Message() << "C " << C[k]);
        SvmOptions one = o;
        one.smo.C = C[k];
        const SvmTrainResult alone = train_svm(*backend, data, one);
        EXPECT_EQ(path[k].smo.status, Status::Success);
        EXPECT_EQ(path[k].smo.beta, alone.smo.beta);
        EXPECT_EQ(path[k].smo.objective, alone.smo.objective);
        EXPECT_EQ(path[k].model.n_support(), alone.model.n_support());
        EXPECT_LT((path[k].model.decision_function(*backend, data.X) -
                   alone.model.decision_function(*backend, data.X))
                      .cwiseAbs()
                      .maxCoeff(),
                  1e-12);
    }
    o.bias = true;
    EXPECT_THROW(train_svm_without_bias_path(*backend, data, o, C), InvalidArgument);
    o.bias = false;
    EXPECT_THROW(train_svm_without_bias_path(*backend, data, o, {1.0, -1.0}), InvalidArgument);
}

TEST(BoxDual, StepCapIsNoConvergenceAndBadInputIsRefused) {
    std::mt19937_64 rng(7);
    const Dataset data = testing::random_two_class(20, 2, rng);
    const Matrix K = rbf_kernel(data.X, 0.5);
    SmoOptions o;
    o.max_iterations = 2;
    o.tolerance = 1e-12;
    EXPECT_EQ(detail::solve_box_dual(K, data.y, o).status, Status::NoConvergence);
    o.max_iterations = 0;
    EXPECT_THROW(detail::solve_box_dual(K.topRows(5), data.y, o), DimensionMismatch);
    EXPECT_THROW(detail::solve_box_dual(K, Vector::Ones(20), o), InvalidArgument);
}

}  // namespace
}  // namespace zeronorm
