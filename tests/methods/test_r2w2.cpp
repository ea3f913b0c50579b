// R2W2 (Weston et al. 2003, sec. 4.4; Lal et al. 2006, sec. 3.1): the radius QP against an
// enumeration of its faces, the envelope gradient of R^2 W^2 against finite differences of
// re-solved SVMs and radius QPs, the descent's decreasing bound with the SVMs' KKT conditions at
// every step, no step from SVMs stopped at their cap, the ranker on an easy problem, bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "methods/r2w2/r2w2.hpp"
#include "support/capability_backend.hpp"
#include "support/random.hpp"
#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/methods/selection.hpp"

namespace zeronorm {
namespace {

using testing::random_matrix;
using testing::random_two_class;
using testing::test_seed;

Matrix linear_kernel(const Matrix& X) { return X * X.transpose(); }

Matrix gaussian_kernel(const Matrix& X, double gamma) {
    Matrix K(X.rows(), X.rows());
    for (Index i = 0; i < X.rows(); ++i)
        for (Index j = 0; j < X.rows(); ++j)
            K(i, j) = std::exp(-gamma * (X.row(i) - X.row(j)).squaredNorm());
    return K;
}

// The radius QP's optimum by enumeration: on the face of support S the stationarity
// 2 K_SS b + nu 1 = diag(K)_S with 1'b = 1; the best feasible (b >= 0) candidate over all faces
// is the maximum of the concave objective over the simplex.
double enumerated_radius2(const Matrix& K) {
    const Index n = K.rows();
    double best = -1.0;
    for (unsigned mask = 1; mask < (1u << n); ++mask) {
        IndexVector S;
        for (Index i = 0; i < n; ++i)
            if (mask & (1u << i)) S.push_back(i);
        const Index s = Index(S.size());
        Matrix A = Matrix::Zero(s + 1, s + 1);
        Vector rhs(s + 1);
        for (Index a = 0; a < s; ++a) {
            for (Index b = 0; b < s; ++b) A(a, b) = 2.0 * K(S[a], S[b]);
            A(a, s) = A(s, a) = 1.0;
            rhs[a] = K(S[a], S[a]);
        }
        rhs[s] = 1.0;
        const Eigen::FullPivLU<Matrix> lu(A);
        if (!lu.isInvertible()) continue;
        const Vector x = lu.solve(rhs);
        if (x.head(s).minCoeff() < -1e-12) continue;
        Vector b = Vector::Zero(n);
        for (Index a = 0; a < s; ++a) b[S[a]] = x[a];
        best = std::max(best, b.dot(K.diagonal()) - b.dot(K * b));
    }
    return best;
}

TEST(R2w2, RadiusQpMatchesEnumeratedFaces) {
    const std::uint64_t seed = test_seed();
    SCOPED_TRACE("ZN_TEST_SEED=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    const Matrix X = random_matrix(7, 9, rng, -2.0, 2.0);  // d >= n: a regular linear kernel
    const std::vector<Matrix> kernels{linear_kernel(X), gaussian_kernel(X, 0.2)};
    for (const Matrix& K : kernels) {
        const detail::RadiusSolution r = detail::solve_radius_qp(K);
        const double exact = enumerated_radius2(K);
        EXPECT_NEAR(r.radius2, exact, 1e-9 * (1 + exact));
        EXPECT_GE(r.beta.minCoeff(), 0.0);
        EXPECT_NEAR(r.beta.sum(), 1.0, 1e-12);
        EXPECT_LE(r.kkt_gap, 1e-12 * std::max(1.0, K.diagonal().maxCoeff()));
        // The variance (b = 1/n) is one feasible point: never above the radius.
        const double variance = K.diagonal().mean() - K.mean();
        EXPECT_LE(variance, r.radius2 + 1e-12);
        // A warm start from elsewhere on the simplex reaches the same value.
        const Vector start = random_matrix(K.rows(), 1, rng, 0.0, 1.0);
        EXPECT_NEAR(detail::solve_radius_qp(K, start).radius2, r.radius2, 1e-9 * (1 + exact));
    }
}

struct Case {
    R2w2Kernel kernel;
    R2w2Radius radius;
    int classes;
};

SelectionOptions options_for(const Case& c, double ridge) {
    SelectionOptions o;
    o.method = SelectionMethod::R2w2;
    o.ridge = ridge;  // a strictly convex dual: unique beta, a differentiable bound
    o.smo.tolerance = 1e-11;
    o.r2w2.kernel = c.kernel;
    o.r2w2.radius = c.radius;
    return o;
}

Dataset case_data(const Case& c, Index n, Index d, std::mt19937_64& rng) {
    Dataset data = random_two_class(n, d, rng, 0.5);
    if (c.classes > 2)
        for (Index i = 0; i < n; ++i) data.y[i] = double(i % c.classes);
    return data;
}

const Case kCases[] = {{R2w2Kernel::Linear, R2w2Radius::Exact, 2},
                       {R2w2Kernel::Linear, R2w2Radius::Variance, 2},
                       {R2w2Kernel::Rbf, R2w2Radius::Exact, 2},
                       {R2w2Kernel::Rbf, R2w2Radius::Variance, 2},
                       {R2w2Kernel::Linear, R2w2Radius::Exact, 3},
                       {R2w2Kernel::Rbf, R2w2Radius::Exact, 3}};

// "rbf exact, 3 classes": the case in test messages.
std::string case_name(const Case& c) {
    return std::string(c.kernel == R2w2Kernel::Linear ? "linear" : "rbf") +
           (c.radius == R2w2Radius::Exact ? " exact" : " variance") + ", " +
           std::to_string(c.classes) + " classes";
}

// The descents' options: eight steps, none stopped by the tolerance.
SelectionOptions descent_options(const Case& c, double smo_tolerance) {
    SelectionOptions o = options_for(c, 1e-3);
    o.smo.tolerance = smo_tolerance;
    o.r2w2.iterations = 8;
    o.r2w2.tolerance = 0;
    return o;
}

TEST(R2w2, GradientMatchesFiniteDifferencesOfResolvedBound) {
    const std::uint64_t seed = test_seed();
    SCOPED_TRACE("ZN_TEST_SEED=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    auto backend = make_cpu_backend();
    for (const Case& c : kCases) {
        SCOPED_TRACE(case_name(c));
        const Dataset data = case_data(c, 18, 5, rng);
        const detail::Machines machines = detail::make_machines(data.y);
        const SelectionOptions o = options_for(c, 0.05);
        detail::R2w2Warm warm;
        detail::R2w2Objective objective(*backend, data.X, machines, o, 0.3, warm);
        const Vector sigma = random_matrix(5, 1, rng, 0.5, 1.5);
        const detail::R2w2Point at = objective.evaluate(sigma, "test");
        ASSERT_EQ(at.gradient.size(), 5);
        const double h = 1e-5;
        for (Index k = 0; k < 5; ++k) {
            Vector up = sigma, down = sigma;
            up[k] += h;
            down[k] -= h;
            const double fd = (objective.evaluate(up, "test").bound -
                               objective.evaluate(down, "test").bound) /
                              (2 * h);
            EXPECT_NEAR(at.gradient[k], fd, 1e-5 * (1 + at.gradient.cwiseAbs().maxCoeff()))
                << "feature " << k;
        }
        EXPECT_NEAR(at.bound, at.radius2 * at.w2, 1e-12 * at.bound);
    }
}

// The KKT gap of the SVM dual (C = inf, ridge) at beta on kernel K: the largest violation
// max_{up} -y_i G_i - min_{low} -y_i G_i with G = Q beta - 1, recomputed from scratch.
double svm_kkt_gap(const Matrix& K, const Vector& y, const Vector& beta, double ridge) {
    Matrix Q = (y * y.transpose()).cwiseProduct(K);
    Q.diagonal().array() += ridge;
    const Vector G = Q * beta - Vector::Ones(y.size());
    double up = -1e300, low = 1e300;
    for (Index i = 0; i < y.size(); ++i) {
        const double v = -y[i] * G[i];
        if (y[i] > 0 || beta[i] > 0) up = std::max(up, v);  // can move up the y direction
        if (y[i] < 0 || beta[i] > 0) low = std::min(low, v);
    }
    return std::max(0.0, up - low);
}

TEST(R2w2, DescentLowersTheBoundWithSvmsAtTheirOptimum) {
    const std::uint64_t seed = test_seed();
    SCOPED_TRACE("ZN_TEST_SEED=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    auto backend = make_cpu_backend();
    for (const Case& c : kCases) {
        SCOPED_TRACE(case_name(c));
        const Dataset data = case_data(c, 24, 8, rng);
        const detail::Machines machines = detail::make_machines(data.y);
        const SelectionOptions o = descent_options(c, 1e-8);
        const double gamma = 1.0 / 8;
        detail::R2w2Warm warm;
        detail::R2w2Objective objective(*backend, data.X, machines, o, gamma, warm);
        int points = 0;
        const auto check_point = [&](const detail::R2w2Point& p) {
            ++points;
            EXPECT_GE(p.sigma.minCoeff(), 0.0);
            const Matrix Xs = data.X * p.sigma.asDiagonal();
            const Matrix K =
                c.kernel == R2w2Kernel::Linear ? linear_kernel(Xs) : gaussian_kernel(Xs, gamma);
            ASSERT_EQ(p.duals.size(), machines.targets.size());
            for (std::size_t m = 0; m < machines.targets.size(); ++m) {
                const Vector& beta = p.duals[m].beta;
                EXPECT_GE(beta.minCoeff(), 0.0);
                EXPECT_NEAR(beta.dot(machines.targets[m]), 0.0, 1e-9 * (1 + beta.sum()));
                EXPECT_LE(svm_kkt_gap(K, machines.targets[m], beta, o.ridge), 1e-6) << m;
            }
        };
        const detail::R2w2Descent descent =
            detail::descend_r2w2(objective, Vector::Ones(8), o.r2w2, "test", check_point);
        EXPECT_EQ(points, int(descent.bounds.size()));
        ASSERT_GE(descent.bounds.size(), 2u) << "no step lowered the bound";
        for (std::size_t s = 1; s < descent.bounds.size(); ++s)
            EXPECT_LT(descent.bounds[s], descent.bounds[s - 1]) << "step " << s;
        EXPECT_EQ(descent.point.bound, descent.bounds.back());
    }
}

// A bound from SVMs stopped at their cap is not the bound, nor is its gradient: no step is taken
// from it (each trial would run its SMOs to the cap again: minutes on badly scaled data).
TEST(R2w2, NoStepFromSvmsStoppedAtTheirCap) {
    const std::uint64_t seed = test_seed();
    SCOPED_TRACE("ZN_TEST_SEED=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    for (const Case& c : kCases) {
        SCOPED_TRACE(case_name(c));
        testing::CapabilityBackend counting(make_cpu_backend(), make_cpu_backend()->capabilities());
        const Dataset data = case_data(c, 24, 8, rng);
        const detail::Machines machines = detail::make_machines(data.y);
        SelectionOptions o = descent_options(c, 1e-12);
        o.smo.max_iterations = 1;
        detail::R2w2Warm warm;
        detail::R2w2Objective objective(counting, data.X, machines, o, 1.0 / 8, warm);
        const detail::R2w2Descent descent =
            detail::descend_r2w2(objective, Vector::Ones(8), o.r2w2, "test");
        ASSERT_NE(descent.point.status, Status::Success) << "one SMO iteration reached 1e-12";
        EXPECT_EQ(descent.status, Status::NumericalIssue);
        EXPECT_EQ(descent.bounds.size(), 1u);
        EXPECT_TRUE(descent.point.sigma.isApproxToConstant(1.0));
        EXPECT_EQ(counting.counters().kernel_calls, 1) << "trial points were evaluated";
    }
}

// Features 0 and 1 carry the class (shifted by +-2), the others are noise.
Dataset easy_problem(Index n, Index d, std::mt19937_64& rng) {
    Dataset data = random_two_class(n, d, rng, 0.0);
    data.X.leftCols(2).colwise() += 2.0 * data.y;
    return data;
}

TEST(R2w2, KeepsTheInformativeFeatures) {
    const std::uint64_t seed = test_seed();
    SCOPED_TRACE("ZN_TEST_SEED=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    auto backend = make_cpu_backend();
    // The exact radius of a linear kernel follows the outlying points and often trades an
    // informative feature for noise here (Lal et al. 2006: the variance is less sensitive).
    const std::pair<const char*, const char*> settings[] = {
        {"linear", "variance"}, {"rbf", "variance"}, {"rbf", "exact"}};
    // Five problems: on one of 60 points a noise feature now and then looks as informative as
    // one of the two (about one problem in a hundred: seeds 1712120872, 625204662, the
    // Gaussian kernel keeps {1, 7}, {0, 9}; seed 2745709987, the linear one {2, x}).
    const int problems = 5;
    int one_kept[3] = {0, 0, 0}, both_kept[3] = {0, 0, 0};
    for (int problem = 0; problem < problems; ++problem) {
        const Dataset data = easy_problem(60, 10, rng);
        for (std::size_t s = 0; s < 3; ++s) {
            const auto& [kernel, radius] = settings[s];
            SCOPED_TRACE(std::string(kernel) + " " + radius + ", problem " +
                         std::to_string(problem));
            SelectionOptions o;
            o.method = SelectionMethod::R2w2;
            o.feature_counts = {6, 2};
            o.ridge = 1.0;
            o.set_parameter("r2w2.kernel", kernel);
            o.set_parameter("r2w2.radius", radius);
            const SelectionResult r = select_features(*backend, data, o);
            IndexVector two = r.subsets[1].selected;
            std::sort(two.begin(), two.end());
            one_kept[s] += two[0] <= 1;
            both_kept[s] += two == IndexVector{0, 1};
            // Nested path: the 2 survivors are among the 6.
            for (Index j : two)
                EXPECT_NE(std::find(r.subsets[0].selected.begin(), r.subsets[0].selected.end(), j),
                          r.subsets[0].selected.end());
            ASSERT_EQ(r.scores.size(), 10);
            EXPECT_GE(r.scores.minCoeff(), 0.0);
            EXPECT_LE(r.scores.maxCoeff(), 1.0);
        }
    }
    // The linear bound is as low with one of the two (equally informative) features as with
    // both and keeps at least one; the Gaussian kernel keeps both. A selection that ignored the
    // data would keep both in one problem of 45.
    EXPECT_GE(one_kept[0], problems - 2) << "linear variance";
    EXPECT_GE(both_kept[1], problems - 2) << "rbf variance";
    EXPECT_GE(both_kept[2], problems - 2) << "rbf exact";
}

// Runs the ranker expecting an exception of type E whose message contains `text`.
template <class E>
void expect_error(const Dataset& data, const SelectionOptions& o, const std::string& text) {
    auto backend = make_cpu_backend();
    try {
        select_features(*backend, data, o);
        ADD_FAILURE() << "accepted; expected an error containing '" << text << "'";
    } catch (const E& e) {
        EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
}

TEST(R2w2, BadInputIsNamed) {
    std::mt19937_64 rng(test_seed());
    const Dataset data = easy_problem(12, 4, rng);
    SelectionOptions o;
    o.method = SelectionMethod::R2w2;
    o.feature_counts = {5};
    expect_error<InvalidArgument>(data, o, "outside 1..4");
    o.feature_counts = {2};
    o.r2w2.gamma = -1;
    expect_error<InvalidArgument>(data, o, "r2w2.gamma must be");
    o.r2w2.gamma = 0;
    o.r2w2.step = 2;
    expect_error<InvalidArgument>(data, o, "r2w2.step must be");
    o.r2w2.step = 0.1;
    EXPECT_THROW(o.set_parameter("r2w2.kernel", "poly"), InvalidArgument);
    EXPECT_THROW(o.set_parameter("r2w2.radius", "ball"), InvalidArgument);
    EXPECT_THROW(o.set_parameter("r2w2.iterations", "1.5"), InvalidArgument);

    Dataset one_class = data;
    one_class.y.setOnes();
    expect_error<InvalidArgument>(one_class, o, "both classes");
    // Constant features: every point the same, so no hard margin exists.
    Dataset constant = data;
    constant.X.setConstant(0.5);
    expect_error<NumericalError>(constant, o, "not separable");
}

}  // namespace
}  // namespace zeronorm
