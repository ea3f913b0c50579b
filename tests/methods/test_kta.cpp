// Kernel-target alignment selection (train_kta and the registered ranker "kta"): the DCA
// objective never increases, the reported objective is eq. (12) recomputed here by plain loops,
// informative features outrank noise, DCAs in lockstep equal DCAs in order, and bad input is
// rejected with a clear error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "support/capability_backend.hpp"
#include "support/random.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/ops/alignment_ops.hpp"
#include "zeronorm/methods/kta.hpp"
#include "zeronorm/evaluation/evaluation.hpp"
#include "zeronorm/methods/selection.hpp"

namespace zeronorm {
namespace {

// Eq. (12) by its definition, every pair.
double objective(const Matrix& X, const Vector& y, const Vector& theta, const KtaOptions& o,
                 double sigma) {
    const Index n = X.rows(), d = X.cols();
    const double n_plus = double((y.array() > 0).count()), n_minus = double(n) - n_plus;
    double alignment = 0.0;
    for (Index i = 0; i < n; ++i)
        for (Index j = 0; j < n; ++j) {
            double e = 0.0;
            for (Index k = 0; k < d; ++k) {
                const double a = X(i, k), b = X(j, k);
                e += theta[k] * (o.kernel == AlignmentKernel::Gaussian
                                     ? (a - b) * (a - b) / (2.0 * sigma * sigma)
                                     : (a + b > 0 ? o.rho * (a - b) * (a - b) / (a + b) : 0.0));
            }
            alignment += (y[i] > 0 ? 1.0 / n_plus : -1.0 / n_minus) *
                         (y[j] > 0 ? 1.0 / n_plus : -1.0 / n_minus) * std::exp(-e);
        }
    double penalty = 0.0;
    for (Index k = 0; k < d; ++k) penalty += 1.0 - std::exp(-o.alpha * theta[k]);
    return -(1.0 - o.lambda) * 0.5 * alignment + o.lambda / double(d) * penalty;
}

// Features 0 and 1 carry the class (shifted by +-shift), the rest are noise; nonnegative
// (shifted up by 3) when asked, for the chi-square kernel.
Dataset informative(Index n, Index d, double shift, bool nonnegative, std::mt19937_64& rng) {
    Dataset data = testing::random_two_class(n, d, rng, 0.0);
    for (Index i = 0; i < n; ++i) {
        data.X(i, 0) += shift * data.y[i];
        data.X(i, 1) -= shift * data.y[i];
    }
    if (nonnegative) data.X = (data.X.array() + 3.0).cwiseMax(0.0);
    return data;
}

TEST(Kta, DcaObjectiveNeverIncreasesAndIsEquation12) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed());
    auto backend = make_cpu_backend();
    for (const AlignmentKernel kernel : {AlignmentKernel::Gaussian, AlignmentKernel::ChiSquare})
        for (const double lambda : {0.0, 0.4}) {
            SCOPED_TRACE(::testing::Message() << "lambda " << lambda << ", chi-square "
                                            << (kernel == AlignmentKernel::ChiSquare));
            const Dataset data = informative(30, 6, 1.0, kernel == AlignmentKernel::ChiSquare, rng);
            KtaOptions o;
            o.kernel = kernel;
            o.lambda = lambda;
            o.rho = 0.5;  // histogram-scale rho would leave the chi-square kernel near 1
            o.max_iterations = 60;
            const KtaResult r = train_kta(*backend, data.X, data.y, o);
            ASSERT_FALSE(r.trace.empty());
            double previous = r.initial_objective;
            for (const KtaStep& s : r.trace) {
                EXPECT_LE(s.objective, previous + 1e-12 * std::fabs(previous));
                previous = s.objective;
            }
            EXPECT_NEAR(r.trace.back().objective, objective(data.X, data.y, r.theta, o, r.sigma),
                        1e-10);
            EXPECT_NEAR(r.initial_objective,
                        objective(data.X, data.y, Vector::Constant(6, 0.5), o, r.sigma), 1e-10);
            EXPECT_GE(r.theta.minCoeff(), 0.0);
            EXPECT_LE(r.theta.maxCoeff(), 1.0);
            for (std::size_t k = 1; k < r.selected.size(); ++k)
                EXPECT_GE(r.theta[r.selected[k - 1]], r.theta[r.selected[k]]);
            if (r.status == Status::Success) {
                EXPECT_LT(r.trace.back().change, o.tolerance);
            }
        }
}

// DCAs in lockstep (one batched call per sum and round) equal the same DCAs one after another,
// to the bit on the CPU: lambdas that stop after different numbers of steps (one at a cap of 2),
// a second width (its own lockstep group) and the chi-square kernel.
TEST(Kta, LockstepBatchEqualsDcasInOrder) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed() + 7);
    auto backend = make_cpu_backend();
    for (const bool chi_square : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "chi-square " << chi_square);
        const Dataset data = informative(36, 7, 1.0, chi_square, rng);
        std::vector<KtaOptions> options;
        for (const double lambda : {0.0, 0.3, 0.6, 0.9}) {
            KtaOptions o;
            o.kernel = chi_square ? AlignmentKernel::ChiSquare : AlignmentKernel::Gaussian;
            o.lambda = lambda;
            options.push_back(o);
        }
        options[1].max_iterations = 2;
        options[1].tolerance = 1e-14;
        options.push_back(options[0]);
        options.back().width = 0.8;
        const auto in_order = train_kta_batch(*backend, data.X, data.y, options, KtaSchedule::InOrder);
        const auto lockstep =
            train_kta_batch(*backend, data.X, data.y, options, KtaSchedule::Lockstep);
        ASSERT_EQ(lockstep.size(), options.size());
        for (std::size_t k = 0; k < options.size(); ++k) {
            SCOPED_TRACE(::testing::Message() << "problem " << k);
            const KtaResult single = train_kta(*backend, data.X, data.y, options[k]);
            for (const KtaResult* r : {&in_order[k], &lockstep[k]}) {
                EXPECT_EQ(r->theta, single.theta);
                EXPECT_EQ(r->selected, single.selected);
                EXPECT_EQ(r->iterations, single.iterations);
                EXPECT_EQ(r->status, single.status);
                EXPECT_EQ(r->initial_objective, single.initial_objective);
                ASSERT_EQ(r->trace.size(), single.trace.size());
                for (std::size_t t = 0; t < single.trace.size(); ++t)
                    EXPECT_EQ(r->trace[t].objective, single.trace[t].objective) << t;
            }
        }
        // The Gaussian DCAs leave the lockstep at different rounds (the chi-square ones on
        // these data stop after a step or two).
        EXPECT_LE(lockstep[1].iterations, 2);
        if (!chi_square) {
            const auto longest = std::max_element(
                lockstep.begin(), lockstep.end(),
                [](const KtaResult& a, const KtaResult& b) { return a.iterations < b.iterations; });
            EXPECT_GT(longest->iterations, 2);
        }
    }
    // Bad options or data are refused before any DCA runs.
    std::vector<KtaOptions> bad(2);
    bad[1].lambda = 1.0;
    const Dataset data = informative(20, 4, 1.0, false, rng);
    EXPECT_THROW(train_kta_batch(*backend, data.X, data.y, bad, KtaSchedule::Lockstep),
                 InvalidArgument);
    bad[1] = KtaOptions{};
    bad[1].kernel = AlignmentKernel::ChiSquare;  // negative values
    EXPECT_THROW(train_kta_batch(*backend, data.X, data.y, bad, KtaSchedule::Lockstep),
                 InvalidArgument);
    EXPECT_TRUE(train_kta_batch(*backend, data.X, data.y, {}, KtaSchedule::Lockstep).empty());
}

// Alignment sums that fail once, at the given call of the cross sum (as a device that runs out
// of memory would), and otherwise compute on the inner operations.
class FailingCrossSums final : public AlignmentOps {
public:
    FailingCrossSums(AlignmentOps& inner, int failing_call)
        : inner_(inner), failing_call_(failing_call) {}
    std::vector<double> weighted_kernel_sum_batch(const AlignmentKernelSpec& spec,
                                                  const DeviceMatrix& X, const DeviceMatrix& Y,
                                                  const DeviceMatrix& Theta,
                                                  DeviceMatrix& gradient) override {
        return inner_.weighted_kernel_sum_batch(spec, X, Y, Theta, gradient);
    }
    std::vector<double> cross_kernel_sum_batch(const AlignmentKernelSpec& spec,
                                               const DeviceMatrix& A, const DeviceMatrix& B,
                                               const DeviceMatrix& Y, const DeviceMatrix& Theta,
                                               DeviceMatrix& gradient) override {
        if (++calls_ == failing_call_) throw OutOfDeviceMemory(std::size_t{1} << 30);
        return inner_.cross_kernel_sum_batch(spec, A, B, Y, Theta, gradient);
    }
    std::vector<double> gaussian_removal_sums(double scale, const DeviceMatrix& X,
                                              const DeviceMatrix& v) override {
        return inner_.gaussian_removal_sums(scale, X, v);
    }

private:
    AlignmentOps& inner_;
    int failing_call_, calls_ = 0;
};

class FailingAlignmentBackend final : public testing::CapabilityBackend {
public:
    explicit FailingAlignmentBackend(int failing_call)
        : CapabilityBackend(make_cpu_backend(), testing::capabilities(false, 1)),
          failing_(CapabilityBackend::alignment(), failing_call) {}
    AlignmentOps& alignment() override { return failing_; }

private:
    FailingCrossSums failing_;
};

TEST(Kta, DeviceErrorsInTheSumsReachTheCaller) {
    // The first cross sum is the start point's; the next ones are inside the first L-BFGS-B
    // subproblem, whose own failures (the line search giving up) are absorbed: a failed sum is
    // not one of them, on either schedule.
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed() + 11);
    const Dataset data = informative(24, 5, 1.0, false, rng);
    for (const int failing_call : {1, 2, 3}) {
        SCOPED_TRACE(::testing::Message() << "failing call " << failing_call);
        FailingAlignmentBackend single(failing_call);
        EXPECT_THROW(train_kta(single, data.X, data.y, KtaOptions{}), OutOfDeviceMemory);
        FailingAlignmentBackend lockstep(failing_call);
        EXPECT_THROW(train_kta_batch(lockstep, data.X, data.y, std::vector<KtaOptions>(3),
                                     KtaSchedule::Lockstep),
                     OutOfDeviceMemory);
    }
    FailingAlignmentBackend never(0);
    EXPECT_NO_THROW(train_kta(never, data.X, data.y, KtaOptions{}));
}

TEST(Kta, InformativeFeaturesOutrankNoise) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed() + 1);
    auto backend = make_cpu_backend();
    const Dataset data = informative(60, 8, 2.0, false, rng);
    KtaOptions o;
    o.lambda = 0.3;
    const KtaResult r = train_kta(*backend, data.X, data.y, o);
    // Either informative feature separates the classes alone, so the penalty may drop one as
    // redundant; the best of them must outrank every noise feature.
    ASSERT_FALSE(r.selected.empty());
    EXPECT_LE(r.selected.front(), 1);
    for (Index k = 2; k < 8; ++k) EXPECT_GT(std::max(r.theta[0], r.theta[1]), r.theta[k]) << k;
}

TEST(Kta, RankerReturnsThetaTheSelectionAndTheTrace) {
    std::mt19937_64 rng(7);
    auto backend = make_cpu_backend();
    const Dataset data = informative(40, 5, 2.0, false, rng);
    SelectionOptions o;
    o.method = SelectionMethod::Kta;
    o.set_parameter("kta.lambda", "0.3");
    o.set_parameter("kta.svm_lambda", "0.25");
    const SelectionResult r = select_features(*backend, data, o);
    ASSERT_EQ(r.subsets.size(), 1u);
    const IndexVector& s = r.subsets[0].selected;
    ASSERT_FALSE(s.empty());
    for (const Index j : s) EXPECT_GT(r.scores[j], 1e-2);
    EXPECT_EQ(Index(r.trace.size()), Index(r.iterations));
    // The subset's classifier is the kernel SVM without bias; its weights are theta.
    const FeatureSubset& subset = r.subsets[0];
    ASSERT_EQ(subset.classifiers.size(), 1u);
    EXPECT_EQ(subset.classifiers[0].kernel.type, KernelType::WeightedRbf);
    EXPECT_EQ(subset.classifiers[0].bias, 0.0);
    EXPECT_GT(subset.classifiers[0].n_support(), 0);
    ASSERT_EQ(subset.weights.size(), Index(s.size()));
    for (std::size_t k = 0; k < s.size(); ++k) EXPECT_EQ(subset.weights[Index(k)], r.scores[s[k]]);
    o.set_parameter("kta.svm_lambda", "1");  // C = 0
    EXPECT_THROW(select_features(*backend, data, o), InvalidArgument);
    o.set_parameter("kta.svm_lambda", "0.5");
    EXPECT_THROW(o.set_parameter("kta.kernel", "rbf"), InvalidArgument);
    o.set_parameter("kta.kernel", "chi2");
    EXPECT_EQ(o.kta.kernel, AlignmentKernel::ChiSquare);
    EXPECT_THROW(select_features(*backend, data, o), InvalidArgument);  // negative values
}

TEST(Kta, RejectsBadInput) {
    std::mt19937_64 rng(3);
    auto backend = make_cpu_backend();
    const Dataset data = informative(12, 4, 1.0, false, rng);
    const KtaOptions o;
    const auto fails = [&](const Matrix& X, const Vector& y, const KtaOptions& options,
                           const char* what) {
        try {
            train_kta(*backend, X, y, options);
            ADD_FAILURE() << "accepted " << what;
        } catch (const InvalidArgument& e) {
            SUCCEED() << e.what();
        }
    };
    fails(data.X, Vector::Ones(12), o, "one class");
    Matrix X = data.X;
    X.col(2).setConstant(1.5);
    X.col(3).setZero();
    const KtaResult held = train_kta(*backend, X, data.y, o);  // constant columns: theta 0
    EXPECT_EQ(held.theta[2], 0.0);
    EXPECT_EQ(held.theta[3], 0.0);
    X.leftCols(2).setZero();
    fails(X, data.y, o, "every feature constant or zero");
    X = data.X;
    X(3, 1) = std::nan("");
    fails(X, data.y, o, "NaN");
    X(3, 1) = INFINITY;
    fails(X, data.y, o, "infinity");
    KtaOptions chi = o;
    chi.kernel = AlignmentKernel::ChiSquare;
    fails(data.X, data.y, chi, "negative values with chi-square");
    for (const double lambda : {1.0, -0.1, 1.5, double(NAN)}) {
        KtaOptions bad = o;
        bad.lambda = lambda;
        fails(data.X, data.y, bad, "lambda outside [0, 1)");
    }
    Vector labels = data.y;
    labels[0] = 2.0;
    fails(data.X, labels, o, "a label other than -1/+1");
}

// K_theta(a, b) on all columns by its definition (theta_k = 0 off the selection).
double kernel_theta(const Vector& a, const Vector& b, const Vector& theta, const KtaOptions& o,
                    double sigma) {
    double e = 0.0;
    for (Index k = 0; k < a.size(); ++k) {
        const double u = a[k], v = b[k];
        e += theta[k] * (o.kernel == AlignmentKernel::Gaussian
                             ? (u - v) * (u - v) / (2.0 * sigma * sigma)
                             : (u + v > 0 ? o.rho * (u - v) * (u - v) / (u + v) : 0.0));
    }
    return std::exp(-e);
}

TEST(Kta, FinalClassifierIsTheSvmWithoutBiasOnKTheta) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed() + 2);
    auto backend = make_cpu_backend();
    for (const AlignmentKernel kernel : {AlignmentKernel::Gaussian, AlignmentKernel::ChiSquare}) {
        SCOPED_TRACE(::testing::Message() << "chi-square " << (kernel == AlignmentKernel::ChiSquare));
        const Dataset data = informative(40, 6, 1.5, kernel == AlignmentKernel::ChiSquare, rng);
        KtaOptions o;
        o.kernel = kernel;
        o.rho = 0.5;
        o.lambda = 0.2;
        o.svm_lambda = 0.2;  // C = 4
        const KtaResult r = train_kta(*backend, data.X, data.y, o);
        ASSERT_FALSE(r.selected.empty());
        SmoSettings smo;
        smo.tolerance = 1e-9;
        const KtaClassifier c =
            train_kta_classifier(*backend, data.X, data.y, r.theta, r.selected, r.sigma, o, smo);
        ASSERT_EQ(c.dual.status, Status::Success);
        EXPECT_EQ(c.model.bias, 0.0);
        const double C = (1.0 - o.svm_lambda) / o.svm_lambda;
        Vector theta = Vector::Zero(6);  // theta on the selected features only
        for (const Index j : r.selected) theta[j] = r.theta[j];
        const Index n = data.X.rows();
        Matrix Q(n, n);
        for (Index i = 0; i < n; ++i)
            for (Index j = 0; j < n; ++j)
                Q(i, j) = data.y[i] * data.y[j] *
                          kernel_theta(data.X.row(i), data.X.row(j), theta, o, r.sigma);
        // KKT of the box-only dual on K_theta: G = Q beta - 1 >= 0 at 0, <= 0 at C, 0 between.
        const Vector& beta = c.dual.beta;
        const Vector G = Q * beta - Vector::Ones(n);
        Index support = 0;
        for (Index i = 0; i < n; ++i) {
            EXPECT_GE(beta[i], 0.0);
            EXPECT_LE(beta[i], C);
            if (beta[i] <= 0.0) EXPECT_GE(G[i], -1e-7) << i;
            else if (beta[i] >= C) EXPECT_LE(G[i], 1e-7) << i;
            else EXPECT_NEAR(G[i], 0.0, 1e-7) << i;
            support += beta[i] > 0.0 ? 1 : 0;
        }
        EXPECT_EQ(c.model.n_support(), support);
        // f(x) = sum_i beta_i y_i K_theta(x_i, x) on fresh rows.
        const Dataset fresh = informative(15, 6, 1.5, kernel == AlignmentKernel::ChiSquare, rng);
        const Vector f = c.decision_function(*backend, fresh.X);
        for (Index t = 0; t < 15; ++t) {
            double expected = 0.0;
            for (Index i = 0; i < n; ++i)
                expected += beta[i] * data.y[i] *
                            kernel_theta(data.X.row(i), fresh.X.row(t), theta, o, r.sigma);
            EXPECT_NEAR(f[t], expected, 1e-9 * (1.0 + std::abs(expected)));
        }
    }
}

// The feature-count evaluation tests kta's own classifier: with the chi-square kernel its inputs
// are the selected columns scaled by theta, so the split's error is that of KtaClassifier.
TEST(Kta, EvaluationTestsTheChiSquareClassifierOnScaledColumns) {
    std::mt19937_64 rng(5);
    auto backend = make_cpu_backend();
    const Dataset data = informative(90, 5, 0.4, true, rng);  // overlapping: many errors
    SelectionEvaluationOptions o;
    o.standardize = false;  // the chi-square kernel needs the nonnegative values
    o.selection.method = SelectionMethod::Kta;
    o.selection.feature_counts = {5};  // all that kta keeps
    o.selection.set_parameter("kta.kernel", "chi2");
    o.selection.set_parameter("kta.rho", "8");  // wide distances: theta stays inside (0, 1)
    o.selection.set_parameter("kta.svm_lambda", "0.1");
    const std::vector<Fold> folds = stratified_kfold(data.y, 3, 1);
    const SelectionEvaluation e = evaluate_selection(*backend, data, folds, o);
    for (std::size_t f = 0; f < folds.size(); ++f) {
        Dataset train, test;
        train.X = data.X(folds[f].train, Eigen::all);
        train.y = data.y(folds[f].train);
        test.X = data.X(folds[f].test, Eigen::all);
        test.y = data.y(folds[f].test);
        const SelectionResult r = select_features(*backend, train, o.selection);
        ASSERT_FALSE(r.subsets[0].column_scale.size() == 0);
        KtaOptions kta = o.selection.kta;
        const KtaResult fit = train_kta(*backend, train.X, train.y, kta);
        const KtaClassifier c = train_kta_classifier(*backend, train.X, train.y, fit.theta,
                                                     fit.selected, fit.sigma, kta,
                                                     o.selection.final_smo);
        const Vector f_test = c.decision_function(*backend, test.X);
        Index wrong = 0;
        for (Index i = 0; i < test.y.size(); ++i)
            wrong += ((f_test[i] >= 0 ? 1.0 : -1.0) != test.y[i]) ? 1 : 0;
        EXPECT_DOUBLE_EQ(e.splits[f].errors[0], double(wrong) / double(test.y.size())) << f;
    }
}

}  // namespace
}  // namespace zeronorm
