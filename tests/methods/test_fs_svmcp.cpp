// FS-SVMCP (Rinaldi & Sciandrone 2010, sec. 4.1): at every step the SVM's KKT conditions, the
// set I, the LP (15)'s feasibility on I, its vertex property and its optimality against the
// rescaled SVM, the strictly shrinking support; the surrogates' gradients against finite
// differences; the ranker and its parameters; bad input.
#include <gtest/gtest.h>

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>

#include "support/matrix_checks.hpp"
#include "support/random.hpp"
#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/methods/fs_svmcp.hpp"
#include "zeronorm/methods/methods.hpp"
#include "zeronorm/methods/selection.hpp"

namespace zeronorm {
namespace {

using testing::approximately_equal;
using testing::random_two_class;
using testing::test_seed;

Matrix columns_of(const Matrix& X, const IndexVector& cols) {
    Matrix out(X.rows(), Index(cols.size()));
    for (std::size_t k = 0; k < cols.size(); ++k) out.col(Index(k)) = X.col(cols[k]);
    return out;
}

// Two classes apart along features 0..2 only; the other d - 3 features are noise.
Dataset planted_problem(Index n, Index d, std::mt19937_64& rng) {
    Dataset data = random_two_class(n, d, rng, 0.8);
    std::normal_distribution<double> g(0.0, 1.0);
    for (Index j = 3; j < d; ++j)
        for (Index i = 0; i < n; ++i) data.X(i, j) = g(rng);
    return data;
}

// Every step's invariants (see the file comment).
void check_steps(const Matrix& X, const Vector& y, const FsSvmcpOptions& o,
                 const FsSvmcpResult& r) {
    ASSERT_FALSE(r.steps.empty());
    for (std::size_t s = 0; s < r.steps.size(); ++s) {
        SCOPED_TRACE("step " + std::to_string(s));
        const FsSvmcpStep& step = r.steps[s];
        const Matrix Xs = columns_of(X, step.subspace);
        ASSERT_EQ(step.svm.w.size(), Xs.cols());
        ASSERT_EQ(step.svm.status, Status::Success) << "C = " << step.C;
        // SVM (14) with the L2 loss, dual of LIBLINEAR's form: G_i = y_i f_i - 1 + alpha_i/(2C)
        // is >= 0 at alpha_i = 0 and 0 where alpha_i > 0 (to the solver's tolerance).
        const Vector f = step.svm.decision_function(Xs);
        const double slack = 20 * o.svm_tolerance;
        for (Index i = 0; i < X.rows(); ++i) {
            ASSERT_GE(step.svm.alpha[i], 0.0);
            const double G = y[i] * f[i] - 1.0 + step.svm.alpha[i] / (2.0 * step.C);
            if (step.svm.alpha[i] == 0.0) EXPECT_GE(G, -slack) << i;
            else EXPECT_NEAR(G, 0.0, slack) << i;
        }
        // I: exactly the correctly classified rows.
        IndexVector correct;
        for (Index i = 0; i < X.rows(); ++i)
            if (y[i] * f[i] > 0) correct.push_back(i);
        EXPECT_EQ(step.correct, correct);
        // Costs: the surrogate's gradient at |w*|.
        EXPECT_TRUE(approximately_equal(step.costs,
                                        concave_surrogate_gradient(step.svm.w.cwiseAbs(), o)));
        ASSERT_TRUE(step.lp.optimal()) << step.lp.message;
        const Vector& w = step.lp.w;
        // Feasibility of (15) on I.
        IndexVector active;
        const double scale = 1.0 + w.cwiseAbs().maxCoeff();
        for (const Index i : step.correct) {
            const double margin = y[i] * (Xs.row(i).dot(w) + step.lp.b);
            EXPECT_GE(margin, 1.0 - 1e-7 * scale) << i;
            if (margin <= 1.0 + 1e-7 * scale) active.push_back(i);
        }
        // Vertex: the active margin rows determine (w_S, b) on the support S of w^.
        IndexVector support;
        for (Index j = 0; j < w.size(); ++j)
            if (w[j] != 0.0) support.push_back(j);
        Matrix M(Index(active.size()), Index(support.size()) + 1);
        for (std::size_t a = 0; a < active.size(); ++a) {
            for (std::size_t k = 0; k < support.size(); ++k)
                M(Index(a), Index(k)) = y[active[a]] * Xs(active[a], support[k]);
            M(Index(a), Index(support.size())) = y[active[a]];
        }
        Eigen::ColPivHouseholderQR<Matrix> qr(M);
        qr.setThreshold(1e-9);
        EXPECT_EQ(qr.rank(), Index(support.size()) + 1);
        // Optimality against a feasible point: the SVM scaled to margin 1 on I.
        double m = std::numeric_limits<double>::infinity();
        for (const Index i : step.correct) m = std::min(m, y[i] * f[i]);
        EXPECT_LE(step.costs.dot(w.cwiseAbs()),
                  step.costs.dot(step.svm.w.cwiseAbs()) / m * (1 + 1e-7));
        // The support shrinks strictly while the algorithm goes on.
        EXPECT_LE(step.svm_nonzeros, Index(step.subspace.size()));
        if (s + 1 < r.steps.size()) {
            EXPECT_LT(step.lp_nonzeros, step.svm_nonzeros);
            EXPECT_EQ(Index(r.steps[s + 1].subspace.size()), step.lp_nonzeros);
        } else {
            EXPECT_GE(step.lp_nonzeros, step.svm_nonzeros);
        }
    }
    // The result is the last SVM, embedded in R^d, its support ranked by |w|.
    const FsSvmcpStep& last = r.steps.back();
    for (std::size_t k = 0; k < last.subspace.size(); ++k)
        EXPECT_EQ(r.w[last.subspace[k]], last.svm.w[Index(k)]);
    EXPECT_EQ(Index(r.selected.size()), (r.w.array() != 0.0).count());
    for (std::size_t k = 1; k < r.selected.size(); ++k)
        EXPECT_GE(std::abs(r.w[r.selected[k - 1]]), std::abs(r.w[r.selected[k]]));
}

TEST(FsSvmcp, EveryStepKeepsItsOptimalityConditions) {
    const std::uint64_t seed = test_seed();
    SCOPED_TRACE("ZN_TEST_SEED=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    FsSvmcpOptions o;
    o.svm_tolerance = 1e-6;
    o.svm_max_iterations = 100'000;
    o.C_grid = {0.01, 0.1, 1.0};  // a large C on separable subspaces makes the DCD slow
    o.seed = seed;
    const Dataset planted = planted_problem(40, 25, rng);
    const FsSvmcpResult r = train_fs_svmcp(planted.X, planted.y, o);
    EXPECT_EQ(r.status, Status::Success) << r.message;
    check_steps(planted.X, planted.y, o, r);
    EXPECT_LT(r.selected.size(), std::size_t(25));  // three features carry the labels

    const Dataset overlapping = random_two_class(30, 12, rng, 0.3);
    for (const ConcaveSurrogate s : {ConcaveSurrogate::Exponential, ConcaveSurrogate::Logarithm,
                                     ConcaveSurrogate::Power, ConcaveSurrogate::InversePower}) {
        SCOPED_TRACE(to_string(s));
        o.surrogate = s;
        o.p = s == ConcaveSurrogate::Power ? 0.5 : 1.0;
        check_steps(overlapping.X, overlapping.y, o, train_fs_svmcp(overlapping.X, overlapping.y, o));
    }
}

TEST(FsSvmcp, FixedCSkipsCrossValidationAndL1LossRuns) {
    std::mt19937_64 rng(test_seed());
    const Dataset data = random_two_class(24, 8, rng);
    FsSvmcpOptions o;
    o.C = 0.7;
    o.loss = LinearLoss::Hinge;
    const FsSvmcpResult r = train_fs_svmcp(data.X, data.y, o);
    for (const FsSvmcpStep& step : r.steps) {
        EXPECT_EQ(step.C, 0.7);
        EXPECT_EQ(step.cv_error, 0.0);
        EXPECT_LE(step.svm.alpha.maxCoeff(), 0.7);  // the hinge loss's box
    }
    EXPECT_EQ(r.predict(data.X).size(), data.y.size());
}

TEST(FsSvmcp, CrossValidationPicksAGridValue) {
    std::mt19937_64 rng(test_seed());
    const Dataset data = random_two_class(30, 5, rng);
    FsSvmcpOptions o;
    o.C_grid = {5.0, 0.5};
    double error = -1;
    const double C = select_linear_svm_C(data, o, &error);
    EXPECT_TRUE(C == 5.0 || C == 0.5);
    EXPECT_GE(error, 0.0);
    EXPECT_LE(error, 1.0);
    o.C_grid = {3.0};
    EXPECT_EQ(select_linear_svm_C(data, o, nullptr), 3.0);
}

TEST(FsSvmcp, SurrogateGradientsMatchFiniteDifferences) {
    const std::function<double(double, const FsSvmcpOptions&)> value[] = {
        [](double z, const FsSvmcpOptions& o) { return 1 - std::exp(-o.alpha * z); },   // (8)
        [](double z, const FsSvmcpOptions& o) { return std::log(o.epsilon + z); },      // (9)
        [](double z, const FsSvmcpOptions& o) { return std::pow(z + o.epsilon, o.p); }, // (10)
        [](double z, const FsSvmcpOptions& o) { return -std::pow(z + o.epsilon, -o.p); }};
    const ConcaveSurrogate kinds[] = {ConcaveSurrogate::Exponential, ConcaveSurrogate::Logarithm,
                                      ConcaveSurrogate::Power, ConcaveSurrogate::InversePower};
    FsSvmcpOptions o;
    o.epsilon = 0.05;
    o.alpha = 3.0;
    Vector z(4);
    z << 0.0, 0.1, 0.7, 2.0;
    for (int k = 0; k < 4; ++k) {
        o.surrogate = kinds[k];
        o.p = k == 2 ? 0.4 : 2.0;
        const Vector g = concave_surrogate_gradient(z, o);
        for (Index j = 0; j < z.size(); ++j) {
            const double h = 1e-6;
            const double fd = (value[k](z[j] + 2 * h, o) - value[k](z[j], o)) / (2 * h);
            EXPECT_NEAR(g[j], fd, 1e-4 * std::abs(fd)) << to_string(kinds[k]) << " z=" << z[j];
            EXPECT_GT(g[j], 0.0);
        }
    }
}

TEST(FsSvmcp, RankerReturnsItsSupport) {
    std::mt19937_64 rng(test_seed());
    const Dataset data = planted_problem(40, 15, rng);
    auto backend = make_cpu_backend();
    SelectionOptions o;
    o.method = "fs-svmcp";
    o.set_parameter("fs_svmcp.surrogate", "log");
    o.set_parameter("fs_svmcp.folds", "4");
    o.set_parameter("fs_svmcp.loss", "l2");
    EXPECT_TRUE(find_ranker("fs-svmcp").chooses_own_count());
    const SelectionResult all = select_features(*backend, data, o);
    const FsSvmcpResult direct = train_fs_svmcp(data.X, data.y, o.fs_svmcp);
    ASSERT_EQ(all.subsets.size(), 1u);
    EXPECT_EQ(all.subsets[0].selected, direct.selected);
    EXPECT_EQ(all.iterations, std::int64_t(direct.steps.size()));
    o.feature_counts = {1, 15};
    const SelectionResult capped = select_features(*backend, data, o);
    EXPECT_EQ(capped.subsets[0].selected, IndexVector{direct.selected.front()});
    EXPECT_EQ(capped.subsets[1].selected, direct.selected);
}

TEST(FsSvmcp, BadInputIsAClearError) {
    std::mt19937_64 rng(test_seed());
    const Dataset data = random_two_class(12, 4, rng);
    const auto expect_error = [](const std::function<void()>& run, const std::string& text) {
        try {
            run();
            ADD_FAILURE() << "no error; expected one mentioning '" << text << "'";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
        }
    };
    const auto with = [&](const std::function<void(FsSvmcpOptions&)>& change) {
        FsSvmcpOptions o;
        change(o);
        return [&data, o] { train_fs_svmcp(data.X, data.y, o); };
    };
    expect_error(with([](FsSvmcpOptions& o) { o.epsilon = 0; }), "epsilon");
    expect_error(with([](FsSvmcpOptions& o) { o.p = 0.5; }), "p must be finite and >= 1");
    expect_error(with([](FsSvmcpOptions& o) {
                     o.surrogate = ConcaveSurrogate::Power;
                     o.p = 1.0;
                 }),
                 "p must be in (0, 1)");
    expect_error(with([](FsSvmcpOptions& o) { o.alpha = -1; }), "alpha");
    expect_error(with([](FsSvmcpOptions& o) { o.C = -1; }), "C must be finite and >= 0");
    expect_error(with([](FsSvmcpOptions& o) { o.C_grid.clear(); }), "C_grid is empty");
    expect_error(with([](FsSvmcpOptions& o) { o.C_grid = {1.0, 0.0}; }), "C_grid[1]");
    expect_error(with([](FsSvmcpOptions& o) { o.folds = 1; }), "folds must be >= 2");
    expect_error(with([](FsSvmcpOptions& o) { o.folds = 13; }), "13 folds need");
    expect_error(with([](FsSvmcpOptions& o) { o.svm_tolerance = 0; }), "svm_tolerance");

    Vector bad_y = data.y;
    bad_y[0] = 2.0;
    expect_error([&] { train_fs_svmcp(data.X, bad_y, {}); }, "FS-SVMCP");
    expect_error([&] { train_fs_svmcp(data.X, Vector::Ones(12), {}); }, "FS-SVMCP");
    expect_error([&] { train_fs_svmcp(data.X, data.y.head(5), {}); }, "5 labels");
    Matrix nan_X = data.X;
    nan_X(3, 1) = std::nan("");
    expect_error([&] { train_fs_svmcp(nan_X, data.y, {}); }, "not finite");
    Vector lonely = -Vector::Ones(12);
    lonely[4] = 1.0;
    expect_error([&] { train_fs_svmcp(data.X, lonely, {}); }, "at least 2 samples of each class");

    SelectionOptions s;
    expect_error([&] { s.set_parameter("fs_svmcp.surrogate", "cubic"); }, "fs_svmcp.surrogate must");
    expect_error([] { parse_concave_surrogate("cubic"); }, "expected exp, log, power or inverse-power");
    expect_error([&] { s.set_parameter("fs_svmcp.loss", "l3"); }, "fs_svmcp.loss");
    expect_error([&] { s.set_parameter("fs_svmcp.folds", "2.5"); }, "whole number");
    s.fs_svmcp.p = 0.1;
    expect_error([&] { s.validate(4, true); }, "fs_svmcp.p must be");
}

}  // namespace
}  // namespace zeronorm
