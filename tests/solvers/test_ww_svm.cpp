// Weston-Watkins M-SVM dual solver (include/zeronorm/solvers/ww_svm.hpp): checked by invariants and
// certificates rather than by its own numbers (0 <= alpha <= C, the K bias equalities, KKT,
// primal feasibility and a vanishing duality gap: the primal value 1/2 sum |w_m|^2 + C sum xi
// evaluated at the solution meets the dual value only at the optimum), and for two classes
// against the independent two-class SMO solver, to which WW reduces exactly: with v = w_0 - w_1
// the WW problem with box C is the binary SVM with box 2C (beta = 2 alpha, same ridge).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "support/random.hpp"
#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/ops/smo_ops.hpp"
#include "zeronorm/solvers/ww_svm.hpp"

namespace zeronorm {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// K classes of Gaussian points around centres 0, e_1 * sep, ..., in d dimensions.
struct MultiClass {
    Matrix X;
    std::vector<int> y;
};
MultiClass gaussian_classes(Index n, Index d, int K, double sep, std::mt19937_64& rng) {
    std::normal_distribution<double> g(0.0, 1.0);
    MultiClass data;
    data.X.resize(n, d);
    for (Index i = 0; i < n; ++i) {
        const int c = int(i % K);
        data.y.push_back(c);
        for (Index j = 0; j < d; ++j) data.X(i, j) = g(rng);
        data.X(i, c % d) += sep;
    }
    return data;
}

// The invariants and the certificate of optimality.
void expect_optimal(const WwSvmResult& r, const std::vector<int>& y, double C, double tol) {
    EXPECT_EQ(r.status, Status::Success);
    const Index n = r.alpha.rows();
    const int K = int(r.alpha.cols());
    EXPECT_GE(r.alpha.minCoeff(), 0.0);
    if (std::isfinite(C)) {
        EXPECT_LE(r.alpha.maxCoeff(), C);
    }
    for (Index i = 0; i < n; ++i) EXPECT_EQ(r.alpha(i, y[std::size_t(i)]), 0.0);
    // c_im = [m == y_i] A_i - alpha_im and sum_i c_im = 0 for every class.
    for (Index i = 0; i < n; ++i)
        for (int m = 0; m < K; ++m) {
            const double expected = m == y[std::size_t(i)] ? r.alpha.row(i).sum() : -r.alpha(i, m);
            EXPECT_NEAR(r.coef(i, m), expected, 1e-12);
        }
    const double scale = std::max(1.0, r.alpha.rowwise().sum().maxCoeff());
    EXPECT_LE(r.coef.colwise().sum().cwiseAbs().maxCoeff(), tol * scale);
    EXPECT_LE(r.kkt_residual, tol);
    if (std::isinf(C)) {
        EXPECT_LE(r.max_violation, tol);  // primal feasible
    }
    // Duality gap: primal minus dual value, relative.
    const double gap = r.primal_objective - r.dual_objective;
    EXPECT_GE(gap, -1e-6 * std::max(1.0, std::abs(r.primal_objective)));
    EXPECT_LE(gap, 1e-5 * std::max(1.0, std::abs(r.primal_objective)))
        << "primal " << r.primal_objective << " dual " << r.dual_objective;
}

TEST(WwSvm, SoftMarginRidgeAndHardMarginAreOptimal) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed());
    for (int K : {3, 4}) {
        const MultiClass data = gaussian_classes(48, 5, K, 2.0, rng);
        const Matrix G = data.X * data.X.transpose();
        for (const auto& [C, ridge] : {std::pair{1.0, 0.0}, std::pair{kInf, 0.5},
                                      std::pair{10.0, 0.1}}) {
            SCOPED_TRACE("K = " + std::to_string(K) + ", C = " + std::to_string(C) +
                         ", ridge = " + std::to_string(ridge));
            WwSvmOptions o;
            o.C = C;
            o.ridge = ridge;
            o.tolerance = 1e-8;
            expect_optimal(solve_ww_svm(G, data.y, K, o), data.y, C, 1e-8);
        }
    }
    // Hard margin without ridge on separable data (d >= n: any labels separate).
    const MultiClass wide = gaussian_classes(30, 40, 3, 1.0, rng);
    WwSvmOptions hard;
    hard.tolerance = 1e-8;
    const WwSvmResult r = solve_ww_svm(wide.X * wide.X.transpose(), wide.y, 3, hard);
    expect_optimal(r, wide.y, kInf, 1e-8);
    EXPECT_FALSE(r.not_separable);
    // Every training point on the right side: f_y(x_i) - f_k(x_i) >= 1 - tol.
    for (Index i = 0; i < 30; ++i)
        for (int k = 0; k < 3; ++k) {
            if (k != wide.y[std::size_t(i)]) {
                EXPECT_GE(r.outputs(i, wide.y[std::size_t(i)]) - r.outputs(i, k), 1.0 - 1e-6);
            }
        }
}

TEST(WwSvm, TwoClassesMatchTheBinarySmo) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed() + 1);
    const Dataset data = testing::random_two_class(40, 6, rng, 0.5);
    std::vector<int> classes;
    for (Index i = 0; i < 40; ++i) classes.push_back(data.y[i] > 0 ? 0 : 1);
    const Matrix G = data.X * data.X.transpose();
    auto backend = make_cpu_backend();
    const DeviceMatrix G_dev = backend->upload(G);
    for (const auto& [C, ridge] : {std::pair{0.5, 0.0}, std::pair{kInf, 0.2}}) {
        SCOPED_TRACE("C = " + std::to_string(C) + ", ridge = " + std::to_string(ridge));
        WwSvmOptions o;
        o.C = C;
        o.ridge = ridge;
        o.tolerance = 1e-9;
        const WwSvmResult ww = solve_ww_svm(G, classes, 2, o);
        expect_optimal(ww, classes, C, 1e-9);
        SmoOptions smo;
        smo.C = 2 * C;
        smo.ridge = ridge;
        smo.tolerance = 1e-9;
        const SmoResult bin = backend->smo().solve(G_dev, data.y, smo);
        ASSERT_EQ(bin.status, Status::Success);
        // Decision values: f_0 - f_1 = v.x + b_0 - b_1 against sum_j beta_j y_j K_ij + b.
        const Vector f_bin = G * bin.beta.cwiseProduct(data.y) + Vector::Constant(40, bin.bias);
        const Vector f_ww = ww.outputs.col(0) - ww.outputs.col(1);
        EXPECT_LE((f_bin - f_ww).cwiseAbs().maxCoeff(), 1e-5);
        // Objectives: WW dual = 1/2 (binary dual value), beta = 2 alpha.
        EXPECT_NEAR(ww.dual_objective, -0.5 * bin.objective, 1e-6 * std::abs(bin.objective));
        Vector alpha(40);
        for (Index i = 0; i < 40; ++i) alpha[i] = ww.alpha(i, 1 - classes[std::size_t(i)]);
        if (ridge > 0) {  // then beta is unique
            EXPECT_LE((2 * alpha - bin.beta).cwiseAbs().maxCoeff(), 1e-5);
        }
    }
}

TEST(WwSvm, WarmStartReachesTheSameSolution) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed() + 2);
    const MultiClass data = gaussian_classes(45, 4, 3, 2.5, rng);
    const Matrix G = data.X * data.X.transpose();
    WwSvmOptions o;
    o.C = 2.0;
    o.tolerance = 1e-8;
    const WwSvmResult cold = solve_ww_svm(G, data.y, 3, o);
    // Slightly different kernel (as between two AROM iterations), warm from the old alpha.
    const Matrix G2 = 1.01 * G;
    const WwSvmResult cold2 = solve_ww_svm(G2, data.y, 3, o);
    const WwSvmResult warm2 = solve_ww_svm(G2, data.y, 3, o, &cold.alpha);
    expect_optimal(warm2, data.y, 2.0, 1e-8);
    EXPECT_NEAR(warm2.dual_objective, cold2.dual_objective, 1e-7 * std::abs(cold2.dual_objective));
    // Usually fewer sweeps, not always: the active-set finish ends either solve after tens to
    // a few hundred sweeps, depending on when its first try meets the right sets (coordinate
    // descent alone took thousands here).
    EXPECT_LE(warm2.sweeps, std::max<std::int64_t>(cold2.sweeps * 3 / 2, 500));
}

TEST(WwSvm, InseparableHardMarginIsReported) {
    Matrix X(6, 1);
    X << 0, 0, 0, 1, 1, 1;  // classes 0, 1, 2 each at 0 and 1: no margin possible
    const std::vector<int> y{0, 1, 2, 0, 1, 2};
    WwSvmOptions o;  // C = inf, ridge = 0
    const WwSvmResult r = solve_ww_svm(X * X.transpose(), y, 3, o);
    EXPECT_EQ(r.status, Status::NumericalIssue);
    EXPECT_TRUE(r.not_separable);
    o.ridge = 0.1;  // the ridge makes it solvable
    expect_optimal(solve_ww_svm(X * X.transpose(), y, 3, o), y, kInf, 1e-6);
}

TEST(WwSvm, BadInputSaysWhat) {
    const Matrix G = Matrix::Identity(3, 3);
    const std::vector<int> y{0, 1, 2};
    const auto expect_invalid = [&](const Matrix& K, const std::vector<int>& labels, int classes,
                                    const WwSvmOptions& o, const std::string& text) {
        try {
            solve_ww_svm(K, labels, classes, o);
            ADD_FAILURE() << "expected an error containing '" << text << "'";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
        }
    };
    WwSvmOptions o;
    expect_invalid(G, {0, 1, 3}, 3, o, "label of sample 2 is 3");
    expect_invalid(G, {0, 1, 1}, 3, o, "class 2 has no samples");
    expect_invalid(G, {0, 1}, 3, o, "2 labels for a kernel of 3 points");
    expect_invalid(Matrix::Identity(3, 2), y, 3, o, "not square");
    expect_invalid(G, y, 1, o, "n_classes must be >= 2");
    o.C = 0;
    expect_invalid(G, y, 3, o, "WwSvmOptions.C must be positive");
    o = WwSvmOptions{};
    o.ridge = -1;
    expect_invalid(G, y, 3, o, "WwSvmOptions.ridge");
    o = WwSvmOptions{};
    o.tolerance = 0;
    expect_invalid(G, y, 3, o, "WwSvmOptions.tolerance");
}

}  // namespace
}  // namespace zeronorm
