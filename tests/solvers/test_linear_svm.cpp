// Tests of the dual coordinate descent linear SVM (src/solvers/linear_svm.cpp):
//  - agreement with LIBLINEAR 2.3 (L2R_L1LOSS_SVC_DUAL / L2R_L2LOSS_SVC_DUAL, -B 1, eps 1e-8) on
//    seeded random problems and on sonar / ionosphere: primal objective of both w's, our dual
//    objective against LIBLINEAR's (strong duality), weights and predictions;
//  - invariants of the result: 0 <= alpha <= C (or alpha >= 0), w = sum alpha_i y_i x~_i, KKT,
//    the reported objectives;
//  - edge cases: conflicting duplicates, constant / all-zero features, an all-zero sample,
//    iteration cap, and every validation path.
#include <gtest/gtest.h>
#include <linear.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "support/matrix_checks.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/io/io.hpp"
#include "zeronorm/solvers/linear_svm.hpp"

namespace {

using zeronorm::Dataset;
using zeronorm::Index;
using zeronorm::LinearLoss;
using zeronorm::LinearSvmOptions;
using zeronorm::LinearSvmResult;
using zeronorm::Matrix;
using zeronorm::Status;
using zeronorm::testing::exactly_equal;
using zeronorm::Vector;

// Two overlapping Gaussian classes in d dimensions, means +-shift * (1, 1/2, 1/3, ...), with a
// few features scaled up so that Q is not close to a multiple of the identity.
Dataset random_problem(Index n, Index d, std::uint64_t seed, double shift = 0.4) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    Dataset data;
    data.X.resize(n, d);
    data.y.resize(n);
    for (Index i = 0; i < n; ++i) {
        const double yi = (i % 3 == 0) ? -1.0 : 1.0;  // unbalanced classes
        data.y(i) = yi;
        for (Index j = 0; j < d; ++j) {
            const double scale = (j % 5 == 0) ? 3.0 : 1.0;
            data.X(i, j) = scale * (normal(rng) + yi * shift / static_cast<double>(j + 1));
        }
    }
    return data;
}

Dataset load_csv(const std::string& name) {
    return zeronorm::read_csv(std::string(ZERONORM_DATA_DIR) + "/" + name);
}

// w~ = [w; b / B] (or w without bias): the variable the solver regularises.
Vector augmented_weights(const LinearSvmResult& r, double bias_feature) {
    if (bias_feature <= 0.0) return r.w;
    Vector wt(r.w.size() + 1);
    wt << r.w, r.bias / bias_feature;
    return wt;
}

Vector decision_values(const Dataset& data, const Vector& w_tilde, double bias_feature) {
    const Index d = data.n_features();
    Vector f = data.X * w_tilde.head(d);
    if (bias_feature > 0.0) f.array() += w_tilde(d) * bias_feature;
    return f;
}

// P(w~) = 1/2 |w~|^2 + C sum_i loss(y_i w~.x~_i).
double primal_objective(const Dataset& data, const Vector& w_tilde, double bias_feature,
                        LinearLoss loss, double C) {
    const Vector f = decision_values(data, w_tilde, bias_feature);
    double sum = 0.0;
    for (Index i = 0; i < data.n_samples(); ++i) {
        const double xi = std::max(0.0, 1.0 - data.y(i) * f(i));
        sum += loss == LinearLoss::Hinge ? xi : xi * xi;
    }
    return 0.5 * w_tilde.squaredNorm() + C * sum;
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

double relative_difference(double a, double b) {
    return std::fabs(a - b) / std::max({std::fabs(a), std::fabs(b), 1e-300});
}

// ---- LIBLINEAR as the reference --------------------------------------------------------------

std::string& liblinear_log() {
    static std::string log;
    return log;
}

void capture_liblinear_output(const char* text) { liblinear_log() += text; }

struct LiblinearFit {
    Vector w_tilde;          // [w; w_bias], oriented so that +1 is the positive class
    double dual_objective;   // "Objective value" LIBLINEAR prints (%lf, six decimals)
    int iterations;
    bool hit_iteration_cap;
    Vector predictions;      // LIBLINEAR's predict() on the training samples
};

LiblinearFit train_liblinear(const Dataset& data, LinearLoss loss, double C, double bias_feature,
                             double eps) {
    const int n = static_cast<int>(data.n_samples());
    const int d = static_cast<int>(data.n_features());
    // Rows of LIBLINEAR's sparse format: nonzeros (1-based), the bias node d+1, terminator.
    std::vector<std::vector<feature_node>> nodes(static_cast<std::size_t>(n));
    std::vector<feature_node*> rows(static_cast<std::size_t>(n));
    std::vector<double> labels(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        auto& row = nodes[static_cast<std::size_t>(i)];
        for (int j = 0; j < d; ++j) {
            if (data.X(i, j) != 0.0) row.push_back({j + 1, data.X(i, j)});
        }
        row.push_back({d + 1, bias_feature});
        row.push_back({-1, 0.0});
        rows[static_cast<std::size_t>(i)] = row.data();
        labels[static_cast<std::size_t>(i)] = data.y(i);
    }
    problem prob{};
    prob.l = n;
    prob.n = d + 1;
    prob.y = labels.data();
    prob.x = rows.data();
    prob.bias = bias_feature;

    parameter param{};
    param.solver_type =
        loss == LinearLoss::Hinge ? L2R_L1LOSS_SVC_DUAL : L2R_L2LOSS_SVC_DUAL;
    param.eps = eps;
    param.C = C;
    param.nr_weight = 0;
    param.weight_label = nullptr;
    param.weight = nullptr;
    param.p = 0.1;
    param.init_sol = nullptr;
    if (const char* err = check_parameter(&prob, &param)) {
        throw std::runtime_error(std::string("liblinear: ") + err);
    }

    liblinear_log().clear();
    set_print_string_function(&capture_liblinear_output);
    std::srand(1);  // LIBLINEAR permutes with rand(): make its run independent of test order
    model* m = train(&prob, &param);

    LiblinearFit fit;
    const double sign = m->label[0] == 1 ? 1.0 : -1.0;  // w scores label[0]
    fit.w_tilde.resize(d + 1);
    for (int j = 0; j <= d; ++j) fit.w_tilde(j) = sign * m->w[j];
    fit.predictions.resize(n);
    for (int i = 0; i < n; ++i) fit.predictions(i) = predict(m, rows[static_cast<std::size_t>(i)]);
    free_and_destroy_model(&m);

    const std::string& log = liblinear_log();
    fit.hit_iteration_cap = log.find("reaching max number of iterations") != std::string::npos;
    fit.iterations = -1;
    fit.dual_objective = std::numeric_limits<double>::quiet_NaN();
    const auto it = log.find("#iter = ");
    if (it != std::string::npos) fit.iterations = std::stoi(log.substr(it + 8));
    const auto obj = log.find("Objective value = ");
    if (obj != std::string::npos) fit.dual_objective = std::stod(log.substr(obj + 18));
    return fit;
}

// ---- agreement with LIBLINEAR ----------------------------------------------------------------

struct AgreementCase {
    std::string name;
    LinearLoss loss;
    double C;
};

Dataset load_case(const std::string& name) {
    if (name == "sonar") return load_csv("sonar/sonar.csv");
    if (name == "ionosphere") return load_csv("ionosphere/ionosphere.csv");
    // "sparseK": seeded random problem K with 85 % of its entries zeroed (n = 400, d = 60): the
    // solver's sparse-row path (as on a9a).
    if (name.rfind("sparse", 0) == 0) {
        const auto seed = static_cast<std::uint64_t>(std::stoi(name.substr(6)));
        Dataset data = random_problem(400, 60, seed);
        std::mt19937_64 rng(seed + 1);
        std::bernoulli_distribution keep(0.15);
        for (Index j = 0; j < data.X.cols(); ++j)
            for (Index i = 0; i < data.X.rows(); ++i)
                if (!keep(rng)) data.X(i, j) = 0.0;
        return data;
    }
    // "randomK": seeded random problem K, n = 300, d = 20.
    return random_problem(300, 20, static_cast<std::uint64_t>(std::stoi(name.substr(6))));
}

void PrintTo(const AgreementCase& c, std::ostream* os) {
    *os << c.name << (c.loss == LinearLoss::Hinge ? " L1-loss" : " L2-loss") << " C=" << c.C;
}

class LinearSvmLiblinear : public ::testing::TestWithParam<AgreementCase> {};

TEST_P(LinearSvmLiblinear, MatchesReferenceSolution) {
    const AgreementCase& c = GetParam();
    const Dataset data = load_case(c.name);
    const double B = 1.0;
    const double eps = 1e-8;

    const LiblinearFit ref = train_liblinear(data, c.loss, c.C, B, eps);
    ASSERT_FALSE(ref.hit_iteration_cap) << "LIBLINEAR did not converge; the comparison is void";

    LinearSvmOptions opt;
    opt.loss = c.loss;
    opt.C = c.C;
    opt.bias_feature = B;
    opt.tolerance = eps;
    opt.max_iterations = 100000;
    opt.seed = 7;
    const LinearSvmResult ours = zeronorm::train_linear_svm(data, opt);
    ASSERT_EQ(ours.status, Status::Success);

    const Vector w_ours = augmented_weights(ours, B);
    const double P_ours = primal_objective(data, w_ours, B, c.loss, c.C);
    const double P_ref = primal_objective(data, ref.w_tilde, B, c.loss, c.C);
    RecordProperty("iterations_zeronorm", std::to_string(ours.iterations));
    RecordProperty("iterations_liblinear", std::to_string(ref.iterations));
    {
        std::ostringstream os;
        os << relative_difference(P_ours, P_ref);
        RecordProperty("primal_relative_difference", os.str());
        os.str("");
        os << (w_ours - ref.w_tilde).norm() / ref.w_tilde.norm();
        RecordProperty("w_relative_difference", os.str());
        os.str("");
        os << relative_difference(ours.primal_objective, -ours.dual_objective);
        RecordProperty("relative_duality_gap", os.str());
    }

    // The same primal optimum, and our reported objectives are those of our iterate.
    EXPECT_LT(relative_difference(P_ours, P_ref), 1e-6) << P_ours << " vs " << P_ref;
    EXPECT_LT(relative_difference(ours.primal_objective, P_ours), 1e-12);
    // Strong duality: min P = -min f.
    EXPECT_LT(relative_difference(ours.primal_objective, -ours.dual_objective), 1e-6)
        << ours.primal_objective << " vs " << -ours.dual_objective;
    EXPECT_LT(relative_difference(-ours.dual_objective, P_ref), 1e-6);
    // LIBLINEAR's own dual objective f(alpha), printed with six decimals.
    EXPECT_NEAR(ours.dual_objective, ref.dual_objective,
                1e-6 * std::fabs(ref.dual_objective) + 5e-7);

    // P is 1-strongly convex, so the minimiser w~ is unique.
    EXPECT_LT((w_ours - ref.w_tilde).norm(), 1e-6 * ref.w_tilde.norm())
        << "ours " << w_ours.transpose() << "\nliblinear " << ref.w_tilde.transpose();

    // Predictions agree except where a decision value is (numerically) zero.
    const Vector ours_pred = ours.predict(data.X);
    const Vector f = ours.decision_function(data.X);
    int disagreements = 0;
    for (Index i = 0; i < data.n_samples(); ++i) {
        if (ours_pred(i) != ref.predictions(i) && std::fabs(f(i)) > 1e-6) ++disagreements;
    }
    EXPECT_EQ(disagreements, 0);
}

// LIBLINEAR 2.3 caps the dual solvers at 1000 passes, which at eps = 1e-8 is too few for the L1
// loss with C = 1 on these sets (it stops 1e-6..1e-3 short of the optimum); C is chosen per case
// so that LIBLINEAR converges, and the test asserts that it did.
INSTANTIATE_TEST_SUITE_P(
    LinearSvmReference, LinearSvmLiblinear,
    ::testing::Values(AgreementCase{"random1", LinearLoss::Hinge, 0.03},
                      AgreementCase{"random1", LinearLoss::SquaredHinge, 0.1},
                      AgreementCase{"random2", LinearLoss::Hinge, 0.03},
                      AgreementCase{"random2", LinearLoss::SquaredHinge, 0.03},
                      AgreementCase{"random3", LinearLoss::Hinge, 0.01},
                      AgreementCase{"random3", LinearLoss::SquaredHinge, 0.1},
                      AgreementCase{"sonar", LinearLoss::Hinge, 0.1},
                      AgreementCase{"sonar", LinearLoss::SquaredHinge, 1.0},
                      AgreementCase{"ionosphere", LinearLoss::Hinge, 0.01},
                      AgreementCase{"ionosphere", LinearLoss::SquaredHinge, 0.3},
                      AgreementCase{"sparse3", LinearLoss::Hinge, 0.01},
                      AgreementCase{"sparse4", LinearLoss::SquaredHinge, 0.1}),
    [](const ::testing::TestParamInfo<AgreementCase>& param_info) {
        const AgreementCase& c = param_info.param;
        std::ostringstream C;
        C << c.C;
        std::string name = c.name + (c.loss == LinearLoss::Hinge ? "_L1_C" : "_L2_C") + C.str();
        std::replace(name.begin(), name.end(), '.', '_');
        return name;
    });

// ---- invariants --------------------------------------------------------------------------------

struct InvariantCase {
    LinearLoss loss;
    double bias_feature;
    bool shrinking;
};

class LinearSvmInvariants : public ::testing::TestWithParam<InvariantCase> {};

TEST_P(LinearSvmInvariants, DualFeasibilityPrimalRecoveryAndKkt) {
    const InvariantCase& c = GetParam();
    const Dataset data = random_problem(200, 15, 11);
    const double C = 0.5;
    const double tol = 1e-9;
    LinearSvmOptions opt;
    opt.loss = c.loss;
    opt.C = C;
    opt.bias_feature = c.bias_feature;
    opt.tolerance = tol;
    opt.max_iterations = 100000;
    opt.shrinking = c.shrinking;
    const LinearSvmResult r = zeronorm::train_linear_svm(data, opt);
    ASSERT_EQ(r.status, Status::Success);
    EXPECT_GT(r.iterations, 0);
    ASSERT_EQ(r.alpha.size(), data.n_samples());
    ASSERT_EQ(r.w.size(), data.n_features());
    if (c.bias_feature <= 0.0) {
        EXPECT_EQ(r.bias, 0.0);
    }

    // Box constraints of the dual.
    const bool l1 = c.loss == LinearLoss::Hinge;
    for (Index i = 0; i < data.n_samples(); ++i) {
        EXPECT_GE(r.alpha(i), 0.0) << i;
        if (l1) {
            EXPECT_LE(r.alpha(i), C) << i;
        }
    }
    EXPECT_GT((r.alpha.array() > 0.0).count(), 0);

    // w~ = sum_i alpha_i y_i x~_i; the bias weight is B sum_i alpha_i y_i, so b = B^2 sum alpha y.
    const Vector ay = r.alpha.cwiseProduct(data.y);
    const Vector w_expected = data.X.transpose() * ay;
    EXPECT_LT((r.w - w_expected).norm(), 1e-10 * std::max(1.0, w_expected.norm()));
    const double b_expected =
        c.bias_feature > 0.0 ? c.bias_feature * c.bias_feature * ay.sum() : 0.0;
    EXPECT_NEAR(r.bias, b_expected, 1e-10 * std::max(1.0, std::fabs(b_expected)));

    // Objectives as documented in the header.
    const Vector wt = augmented_weights(r, c.bias_feature);
    const double D = l1 ? 0.0 : 1.0 / (4.0 * C);
    const double f = 0.5 * wt.squaredNorm() - r.alpha.sum() + D * r.alpha.squaredNorm();
    EXPECT_NEAR(r.dual_objective, f, 1e-10 * std::fabs(f));
    EXPECT_NEAR(r.primal_objective, primal_objective(data, wt, c.bias_feature, c.loss, C),
                1e-10 * r.primal_objective);
    // Weak duality and a small gap.
    EXPECT_GE(r.primal_objective, -r.dual_objective - 1e-9 * r.primal_objective);
    EXPECT_LT(r.primal_objective + r.dual_objective, 1e-7 * r.primal_objective);

    // KKT: gradient G_i = y_i f_i - 1 + 2 D alpha_i is >= 0 at alpha_i = 0, <= 0 at alpha_i = C,
    // and zero in between (to the stopping tolerance, with some slack).
    const Vector fx = r.decision_function(data.X);
    const double slack = 1e-7;
    for (Index i = 0; i < data.n_samples(); ++i) {
        const double G = data.y(i) * fx(i) - 1.0 + 2.0 * D * r.alpha(i);
        if (r.alpha(i) == 0.0) {
            EXPECT_GE(G, -slack) << i;
        } else if (l1 && r.alpha(i) == C) {
            EXPECT_LE(G, slack) << i;
        } else {
            EXPECT_NEAR(G, 0.0, slack) << i;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
    LinearSvmVariants, LinearSvmInvariants,
    ::testing::Values(InvariantCase{LinearLoss::Hinge, 1.0, true},
                      InvariantCase{LinearLoss::Hinge, 0.0, true},
                      InvariantCase{LinearLoss::Hinge, 2.5, false},
                      InvariantCase{LinearLoss::SquaredHinge, 1.0, true},
                      InvariantCase{LinearLoss::SquaredHinge, -1.0, true},
                      InvariantCase{LinearLoss::SquaredHinge, 2.5, false}),
    [](const ::testing::TestParamInfo<InvariantCase>& param_info) {
        const InvariantCase& c = param_info.param;
        std::string name = c.loss == LinearLoss::Hinge ? "L1" : "L2";
        name += c.bias_feature > 0.0 ? (c.bias_feature == 1.0 ? "_Bias1" : "_Bias2_5") : "_NoBias";
        name += c.shrinking ? "_Shrinking" : "_NoShrinking";
        return name;
    });

TEST(LinearSvmSolver, SameSeedIsDeterministicOtherSeedsAgree) {
    const Dataset data = random_problem(150, 10, 5);
    LinearSvmOptions opt;
    opt.tolerance = 1e-9;
    opt.max_iterations = 100000;
    opt.seed = 3;
    const LinearSvmResult a = zeronorm::train_linear_svm(data, opt);
    const LinearSvmResult b = zeronorm::train_linear_svm(data, opt);
    EXPECT_TRUE(exactly_equal(a.w, b.w));
    EXPECT_TRUE(exactly_equal(a.alpha, b.alpha));
    EXPECT_EQ(a.iterations, b.iterations);
    opt.seed = 4;
    const LinearSvmResult c = zeronorm::train_linear_svm(data, opt);
    EXPECT_LT(relative_difference(a.primal_objective, c.primal_objective), 1e-8);
    opt.shrinking = false;
    const LinearSvmResult e = zeronorm::train_linear_svm(data, opt);
    EXPECT_LT(relative_difference(a.primal_objective, e.primal_objective), 1e-8);
}

TEST(LinearSvmSolver, IterationCapGivesNoConvergence) {
    const Dataset data = load_csv("sonar/sonar.csv");
    LinearSvmOptions opt;
    opt.tolerance = 1e-12;
    opt.max_iterations = 3;
    const LinearSvmResult r = zeronorm::train_linear_svm(data, opt);
    EXPECT_EQ(r.status, Status::NoConvergence);
    EXPECT_EQ(r.iterations, 3);
    // The iterate is still feasible and the objectives are those of the iterate.
    EXPECT_GE(r.alpha.minCoeff(), 0.0);
    EXPECT_LE(r.alpha.maxCoeff(), opt.C);
    EXPECT_GE(r.primal_objective, -r.dual_objective);
}

TEST(LinearSvmSolver, LooseToleranceStopsEarly) {
    const Dataset data = load_csv("ionosphere/ionosphere.csv");
    LinearSvmOptions loose;
    loose.tolerance = 0.1;  // LIBLINEAR's default
    LinearSvmOptions tight = loose;
    tight.tolerance = 1e-8;
    tight.max_iterations = 100000;
    const LinearSvmResult a = zeronorm::train_linear_svm(data, loose);
    const LinearSvmResult b = zeronorm::train_linear_svm(data, tight);
    EXPECT_EQ(a.status, Status::Success);
    EXPECT_EQ(b.status, Status::Success);
    EXPECT_LT(a.iterations, b.iterations);
    EXPECT_LT(relative_difference(a.primal_objective, b.primal_objective), 1e-2);
}

// ---- edge cases --------------------------------------------------------------------------------

TEST(LinearSvmEdgeCases, DuplicatePointsWithOppositeLabelsTerminate) {
    // Every point appears twice, once with each label: no w does better than w = 0 on the data,
    // and the dual has a continuum of optima.
    const Dataset base = random_problem(40, 5, 21);
    Dataset data;
    data.X.resize(80, 5);
    data.y.resize(80);
    data.X << base.X, base.X;
    data.y << base.y, -base.y;
    for (LinearLoss loss : {LinearLoss::Hinge, LinearLoss::SquaredHinge}) {
        for (std::int64_t cap : {std::int64_t{1}, std::int64_t{5}, std::int64_t{100000}}) {
            LinearSvmOptions opt;
            opt.loss = loss;
            opt.C = 10.0;
            opt.tolerance = 1e-10;
            opt.max_iterations = cap;
            const LinearSvmResult r = zeronorm::train_linear_svm(data, opt);
            EXPECT_LE(r.iterations, cap);
            EXPECT_TRUE(r.status == Status::Success || r.status == Status::NoConvergence);
            EXPECT_TRUE(r.alpha.allFinite());
            EXPECT_GE(r.alpha.minCoeff(), 0.0);
            if (loss == LinearLoss::Hinge) {
                EXPECT_LE(r.alpha.maxCoeff(), opt.C);
            }
            if (cap == 100000) {
                // Converged: the optimum is w~ = 0 with objective C * n * loss(0).
                EXPECT_EQ(r.status, Status::Success);
                EXPECT_LT(r.w.norm(), 1e-6);
                EXPECT_NEAR(r.bias, 0.0, 1e-6);
                EXPECT_NEAR(r.primal_objective, opt.C * 80.0, 1e-4);
            }
        }
    }
}

TEST(LinearSvmEdgeCases, ConstantFeatureActsAsBias) {
    // A constant column c with no bias is the same problem as bias_feature = c without it.
    const Dataset base = random_problem(120, 6, 8);
    const double c = 2.0;
    Dataset with_const;
    with_const.X.resize(base.n_samples(), 7);
    with_const.X << base.X, Vector::Constant(base.n_samples(), c);
    with_const.y = base.y;
    for (LinearLoss loss : {LinearLoss::Hinge, LinearLoss::SquaredHinge}) {
        LinearSvmOptions opt;
        opt.loss = loss;
        opt.tolerance = 1e-10;
        opt.max_iterations = 100000;
        opt.bias_feature = 0.0;
        const LinearSvmResult a = zeronorm::train_linear_svm(with_const, opt);
        opt.bias_feature = c;
        const LinearSvmResult b = zeronorm::train_linear_svm(base, opt);
        ASSERT_EQ(a.status, Status::Success);
        ASSERT_EQ(b.status, Status::Success);
        EXPECT_LT(relative_difference(a.primal_objective, b.primal_objective), 1e-8);
        EXPECT_LT((a.w.head(6) - b.w).norm(), 1e-4 * b.w.norm());
        EXPECT_NEAR(a.w(6) * c, b.bias, 1e-4 * std::max(1.0, std::fabs(b.bias)));
        EXPECT_TRUE(exactly_equal(a.predict(with_const.X), b.predict(base.X)));
    }
}

TEST(LinearSvmEdgeCases, AllZeroFeatureGetsZeroWeight) {
    // Ionosphere's second column is identically zero.
    const Dataset data = load_csv("ionosphere/ionosphere.csv");
    ASSERT_EQ(data.X.col(1).cwiseAbs().maxCoeff(), 0.0);
    Dataset without = data;
    without.X.resize(data.n_samples(), data.n_features() - 1);
    without.X << data.X.col(0), data.X.rightCols(data.n_features() - 2);
    without.feature_names.clear();
    for (LinearLoss loss : {LinearLoss::Hinge, LinearLoss::SquaredHinge}) {
        LinearSvmOptions opt;
        opt.loss = loss;
        opt.tolerance = 1e-8;
        opt.max_iterations = 100000;
        const LinearSvmResult a = zeronorm::train_linear_svm(data, opt);
        const LinearSvmResult b = zeronorm::train_linear_svm(without, opt);
        EXPECT_EQ(a.w(1), 0.0);
        EXPECT_LT(relative_difference(a.primal_objective, b.primal_objective), 1e-8);
    }
}

TEST(LinearSvmEdgeCases, AllZeroSampleWithoutBias) {
    // x_i = 0 and no bias: Q_ii = 0 under the L1 loss, its loss is 1 whatever w, so alpha_i = C.
    Dataset data = random_problem(60, 4, 2);
    data.X.row(0).setZero();
    data.X.row(1).setZero();
    for (LinearLoss loss : {LinearLoss::Hinge, LinearLoss::SquaredHinge}) {
        LinearSvmOptions opt;
        opt.loss = loss;
        opt.C = 2.0;
        opt.bias_feature = 0.0;
        opt.tolerance = 1e-10;
        opt.max_iterations = 100000;
        const LinearSvmResult r = zeronorm::train_linear_svm(data, opt);
        ASSERT_EQ(r.status, Status::Success);
        ASSERT_TRUE(r.alpha.allFinite());
        // L1: alpha_i = C; L2: G_i = -1 + alpha_i / (2C) = 0 gives alpha_i = 2C.
        const double expected = loss == LinearLoss::Hinge ? opt.C : 2.0 * opt.C;
        EXPECT_NEAR(r.alpha(0), expected, 1e-9);
        EXPECT_NEAR(r.alpha(1), expected, 1e-9);
        EXPECT_LT(relative_difference(r.primal_objective, -r.dual_objective), 1e-7);
    }
}

TEST(LinearSvmEdgeCases, OneSamplePerClass) {
    Dataset data;
    data.X.resize(2, 2);
    data.X << 1.0, 2.0, -1.0, 0.5;
    data.y.resize(2);
    data.y << 1.0, -1.0;
    LinearSvmOptions opt;
    opt.tolerance = 1e-12;
    opt.C = 100.0;
    opt.max_iterations = 100000;
    const LinearSvmResult r = zeronorm::train_linear_svm(data, opt);
    ASSERT_EQ(r.status, Status::Success);
    // Separable with a large C: both samples sit on the margin.
    const Vector f = r.decision_function(data.X);
    EXPECT_NEAR(f(0), 1.0, 1e-8);
    EXPECT_NEAR(f(1), -1.0, 1e-8);
    EXPECT_TRUE(exactly_equal(r.predict(data.X), data.y));
}

TEST(LinearSvmEdgeCases, PredictMapsZeroToPlusOne) {
    LinearSvmResult r;
    r.w = Vector::Zero(3);
    r.bias = 0.0;
    const Matrix X = Matrix::Random(4, 3);
    EXPECT_EQ(r.predict(X), Vector::Ones(4));
    EXPECT_THROW(r.decision_function(Matrix::Zero(4, 2)), zeronorm::DimensionMismatch);
}

// ---- validation --------------------------------------------------------------------------------

void expect_invalid_option(const LinearSvmOptions& opt, const std::string& field) {
    try {
        opt.validate();
        ADD_FAILURE() << "validate() accepted a bad " << field;
    } catch (const zeronorm::InvalidArgument& e) {
        EXPECT_TRUE(contains(e.what(), "LinearSvmOptions." + field + " ")) << e.what();
    }
    // train_linear_svm validates its options too.
    EXPECT_THROW(zeronorm::train_linear_svm(random_problem(10, 2, 1), opt),
                 zeronorm::InvalidArgument);
}

TEST(LinearSvmValidation, BadOptionsNameTheField) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_NO_THROW(LinearSvmOptions{}.validate());
    for (double C : {0.0, -1.0, nan, inf}) {
        LinearSvmOptions opt;
        opt.C = C;
        expect_invalid_option(opt, "C");
    }
    for (double tol : {0.0, -1e-3, nan, inf}) {
        LinearSvmOptions opt;
        opt.tolerance = tol;
        expect_invalid_option(opt, "tolerance");
    }
    for (std::int64_t it : {std::int64_t{0}, std::int64_t{-5}}) {
        LinearSvmOptions opt;
        opt.max_iterations = it;
        expect_invalid_option(opt, "max_iterations");
    }
    for (double B : {nan, inf}) {
        LinearSvmOptions opt;
        opt.bias_feature = B;
        expect_invalid_option(opt, "bias_feature");
    }
    LinearSvmOptions opt;
    opt.loss = static_cast<LinearLoss>(7);
    expect_invalid_option(opt, "loss");
}

TEST(LinearSvmValidation, SingleClassThrows) {
    Dataset data = random_problem(20, 3, 4);
    data.y.setConstant(1.0);
    try {
        zeronorm::train_linear_svm(data, LinearSvmOptions{});
        ADD_FAILURE() << "accepted a single class";
    } catch (const zeronorm::InvalidArgument& e) {
        EXPECT_TRUE(contains(e.what(), "both classes")) << e.what();
    }
    data.y.setConstant(-1.0);
    EXPECT_THROW(zeronorm::train_linear_svm(data, LinearSvmOptions{}), zeronorm::InvalidArgument);
}

TEST(LinearSvmValidation, LabelsMustBePlusMinusOne) {
    Dataset data = random_problem(20, 3, 4);
    for (double bad : {0.0, 2.0, 0.5}) {
        Dataset d = data;
        d.y(3) = bad;
        try {
            zeronorm::train_linear_svm(d, LinearSvmOptions{});
            ADD_FAILURE() << "accepted label " << bad;
        } catch (const zeronorm::InvalidArgument& e) {
            EXPECT_TRUE(contains(e.what(), "y[3]")) << e.what();
        }
    }
    // Labels 0/1 (a two-class set that was not remapped) are rejected as well.
    data.y = (data.y.array() > 0.0).cast<double>();
    EXPECT_THROW(zeronorm::train_linear_svm(data, LinearSvmOptions{}), zeronorm::InvalidArgument);
}

TEST(LinearSvmValidation, SizeMismatchAndNanThrow) {
    Dataset data = random_problem(20, 3, 4);
    Dataset short_y = data;
    short_y.y.conservativeResize(19);
    EXPECT_THROW(zeronorm::train_linear_svm(short_y, LinearSvmOptions{}),
                 zeronorm::DimensionMismatch);
    Dataset with_nan = data;
    with_nan.X(5, 1) = std::numeric_limits<double>::quiet_NaN();
    EXPECT_THROW(zeronorm::train_linear_svm(with_nan, LinearSvmOptions{}), zeronorm::Error);
    Dataset with_inf = data;
    with_inf.X(2, 2) = std::numeric_limits<double>::infinity();
    EXPECT_THROW(zeronorm::train_linear_svm(with_inf, LinearSvmOptions{}), zeronorm::Error);
}

}  // namespace
