// The baselines of Weston et al. (JMLR 3, 2003) sec. 4.2-4.3, CORR and RFE, and the selection
// front end: parsing, option and label validation (every path, with its message).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "methods/linear_svm_without_kernel.hpp"
#include "methods/machine_fits.hpp"
#include "methods/selection_common.hpp"
#include "support/backends.hpp"
#include "support/random.hpp"
#include "zeronorm/io/json.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/preprocess.hpp"
#include "zeronorm/methods/dc_svm.hpp"
#include "zeronorm/methods/methods.hpp"
#include "zeronorm/methods/selection.hpp"

namespace zeronorm {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// n Gaussian samples labelled by sign(offset + strength.x + noise * e), e ~ N(0, 1): the classes
// overlap, and the features of larger |strength_j| carry more of the label. With noise = 0 and
// margin > 0 only samples with |offset + strength.x| >= margin are kept: linearly separable
// data with that functional margin.
Dataset noisy_linear_data(Index n, const std::vector<double>& strength, double offset,
                          double noise, std::uint64_t seed, double margin = 0.0) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> g(0.0, 1.0);
    const Index d = Index(strength.size());
    Dataset data;
    data.X.resize(n, d);
    data.y.resize(n);
    for (Index i = 0; i < n;) {
        double f = offset;
        for (Index j = 0; j < d; ++j) {
            data.X(i, j) = g(rng);
            f += strength[std::size_t(j)] * data.X(i, j);
        }
        f += noise * g(rng);
        if (std::abs(f) < margin) continue;
        data.y[i++] = f > 0 ? 1.0 : -1.0;
    }
    return data;
}

// That `value` is the optimal value of the linear C-SVM on `data`: between the dual and primal
// values of SMO's solution (on kernel columns, at LIBSVM's tolerance).
void expect_the_svm_optimum(Backend& backend, const Dataset& data, double C, double value) {
    SvmOptions svm;  // linear kernel
    svm.smo.C = C;
    const SvmTrainResult smo = train_svm(backend, data, svm);
    const double smo_dual = -smo.smo.objective;
    const double smo_primal = l2_l1_primal(data.X, data.y, C, Vector::Zero(data.n_features()),
                                           smo.model.linear_weights(), smo.model.bias);
    EXPECT_GE(value, smo_dual * (1 - 1e-9));
    EXPECT_LE(value, smo_primal * (1 + 1e-9));
}

// ---- Orders ----------------------------------------------------------------------------------

TEST(SelectionOrders, FirstRIsThePrefixOfTheStableDescendingOrder) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed() + 41);
    std::uniform_int_distribution<int> level(0, 9);  // many ties
    std::normal_distribution<double> normal;
    for (const Index size : {0, 1, 7, 300, 2000}) {
        for (const bool nans : {false, true}) {
            Vector values(size);
            for (Index j = 0; j < size; ++j) {
                const int l = level(rng);
                // Ties, both zeros, both infinities, negatives, subnormals and spread values.
                values[j] = l == 0   ? 0.0
                            : l == 1 ? -0.0
                            : l == 2 ? (j % 2 ? kInf : -kInf)
                            : l == 3 ? -0.25 * level(rng)
                            : l == 4 ? std::numeric_limits<double>::denorm_min() * level(rng)
                            : l == 5 ? normal(rng)
                            : nans && l == 9 ? std::nan("")
                                             : 0.25 * level(rng);
            }
            // The reference: every index sorted by the comparator itself.
            IndexVector reference(static_cast<std::size_t>(size));
            std::iota(reference.begin(), reference.end(), Index(0));
            std::sort(reference.begin(), reference.end(), detail::DescendingOrder{values});
            const IndexVector order = detail::order_descending(values);
            EXPECT_EQ(order, reference) << "size " << size;
            for (const Index r : {Index(0), Index(1), size / 3, size - 1, size, size + 2}) {
                if (r < 0) continue;
                const IndexVector first = detail::order_descending_first(values, r);
                const IndexVector prefix(order.begin(), order.begin() + std::min(r, size));
                EXPECT_EQ(first, prefix) << "size " << size << ", r " << r;
                const IndexVector from = detail::order_descending_from(values, r);
                const IndexVector suffix(order.begin() + std::min(r, size), order.end());
                EXPECT_EQ(from, suffix) << "size " << size << ", from " << r;
            }
        }
    }
    // NaNs come last, among themselves by index.
    Vector with_nan(6);
    with_nan << 1.0, std::nan(""), 3.0, -kInf, std::nan(""), 2.0;
    const IndexVector expected{2, 5, 0, 3, 1, 4};
    EXPECT_EQ(detail::order_descending(with_nan), expected);
    for (const Index r : {0, 2, 4, 5})
        EXPECT_EQ(detail::order_descending_first(with_nan, r),
                  IndexVector(expected.begin(), expected.begin() + r));
}

// ---- CORR ------------------------------------------------------------------------------------

TEST(Corr, ScoreMatchesHandComputation) {
    // Feature 0: + {1, 3} (mean 2, var 2), - {0, 2, 4} (mean 2, var 4) -> 0.
    // Feature 1: + {4, 6} (mean 5, var 2), - {0, 1, 2} (mean 1, var 1) -> 16 / 3.
    Matrix X(5, 2);
    X << 1, 4,  //
        3, 6,   //
        0, 0,   //
        2, 1,   //
        4, 2;
    Vector y(5);
    y << 1, 1, -1, -1, -1;
    const detail::Machines m = detail::make_machines(y);
    const Vector s = detail::corr_scores(X, m);
    EXPECT_NEAR(s[0], 0.0, 1e-15);
    EXPECT_NEAR(s[1], 16.0 / 3.0, 1e-12);
}

TEST(Corr, ConstantAndPerfectFeaturesAreNotNan) {
    Matrix X(4, 3);
    X << 0.1, 1, 5,  //
        0.1, 1, 6,   //
        0.1, 0, 7,   //
        0.1, 0, 9;
    Vector y(4);
    y << 1, 1, -1, -1;
    const Vector s = detail::corr_scores(X, detail::make_machines(y));
    EXPECT_EQ(s[0], 0.0);              // constant feature
    EXPECT_EQ(s[1], kInf);             // constant within each class, different means
    EXPECT_NEAR(s[2], 6.25 / 2.5, 1e-12);  // (5.5 - 8)^2 / (0.5 + 2)
}

TEST(Corr, MultiClassSumsOneVsRest) {
    Matrix X(6, 1);
    X << 0, 1, 5, 6, 10, 12;
    Vector y(6);
    y << 0, 0, 1, 1, 2, 2;
    double expected = 0;
    for (int k = 0; k < 3; ++k) {
        Vector yk = y.unaryExpr([k](double v) { return v == k ? 1.0 : -1.0; });
        expected += detail::corr_scores(X, detail::make_machines(yk))[0];
    }
    EXPECT_NEAR(detail::corr_scores(X, detail::make_machines(y))[0], expected, 1e-12);
}

TEST(Corr, SelectsTheBestScoresInOrder) {
    auto backend = make_cpu_backend();
    std::mt19937_64 rng(1);
    std::normal_distribution<double> g(0.0, 1.0);
    Dataset data;
    data.X.resize(40, 6);
    data.y.resize(40);
    const double shift[6] = {0.0, 2.0, 0.0, 1.0, 0.0, 3.0};  // best: 5, 1, 3
    for (Index i = 0; i < 40; ++i) {
        data.y[i] = i % 2 ? 1.0 : -1.0;
        for (Index j = 0; j < 6; ++j) data.X(i, j) = g(rng) + shift[j] * data.y[i];
    }
    SelectionOptions opt;
    opt.method = SelectionMethod::Corr;
    opt.feature_counts = {3, 1};
    opt.final_ridge = 1e-3;
    const SelectionResult r = select_features(*backend, data, opt);
    EXPECT_EQ(r.subsets[0].selected, (IndexVector{5, 1, 3}));
    EXPECT_EQ(r.subsets[1].selected, IndexVector{5});
    EXPECT_EQ(r.iterations, 0);
    EXPECT_TRUE(r.trace.empty());
    EXPECT_GT(r.scores[5], r.scores[1]);
    EXPECT_EQ(r.subsets[0].weights.size(), 3);
}

// ---- RFE -------------------------------------------------------------------------------------

class Rfe : public ::testing::TestWithParam<BackendKind> {};

// Features with decreasing relevance 0 > 1 > 2 > ... (shift 3, 2, 1, then noise).
Dataset graded(Index n, Index d, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> g(0.0, 1.0);
    Dataset data;
    data.X.resize(n, d);
    data.y.resize(n);
    for (Index i = 0; i < n; ++i) {
        data.y[i] = i % 2 ? 1.0 : -1.0;
        for (Index j = 0; j < d; ++j)
            data.X(i, j) = g(rng) + (j < 3 ? double(3 - j) * data.y[i] : 0.0);
    }
    return data;
}

TEST_P(Rfe, RemovesSmallestWeightFirst) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    // Hand-checked: (x1, x2) with +1: (2, 0.1), (2, -0.1); -1: (-2, 0.1), (-2, -0.1), and a
    // third feature (0.5, 0.5, -0.5, -0.5). The hard-margin SVM uses w = (2a, 0, 0.5a)-like
    // weights; feature 1 (w = 0) goes first, then feature 2, leaving feature 0.
    Dataset data;
    data.X.resize(4, 3);
    data.X << 2, 0.1, 0.5,  //
        2, -0.1, 0.5,       //
        -2, 0.1, -0.5,      //
        -2, -0.1, -0.5;
    data.y.resize(4);
    data.y << 1, 1, -1, -1;
    SelectionOptions opt;
    opt.method = SelectionMethod::Rfe;
    opt.feature_counts = {1, 2};
    const SelectionResult r = select_features(*backend, data, opt);
    EXPECT_EQ(r.subsets[0].selected, IndexVector{0});
    EXPECT_EQ(r.subsets[1].selected, (IndexVector{0, 2}));
    EXPECT_EQ(r.iterations, 2);
    ASSERT_EQ(r.trace.size(), 2u);
    EXPECT_EQ(r.trace[0].n_features, 2);
    EXPECT_EQ(r.trace[1].n_features, 1);
    // Ranking scores: d - rank.
    EXPECT_EQ(r.scores[0], 3.0);
    EXPECT_EQ(r.scores[2], 2.0);
    EXPECT_EQ(r.scores[1], 1.0);
}

// 30 rows x 4 features, feature 2 multiplied by 1e12 (K ~ 1e24). The pure hard margin's first
// SMO stage used to have box bound 1, some 1e24 times the dual variables, and SMO ran to its
// 10^7-step cap (seconds; a minute under sanitizers) on gradients that cannot meet the
// tolerance. With the stages in units of 1 / R^2 both outcomes come at once: feature 2
// separating the classes is kept, and data it does not separate get the separability verdict.
TEST_P(Rfe, OneFeatureScaledBy1e12IsFast) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed() + 14);
    std::normal_distribution<double> g;
    for (const bool separating : {true, false}) {
        Dataset data;
        data.X.resize(30, 4);
        data.y.resize(30);
        for (Index i = 0; i < 30; ++i) {
            data.y[i] = i % 2 ? 1.0 : -1.0;
            for (Index j = 0; j < 4; ++j) data.X(i, j) = g(rng);
            data.X(i, separating ? 2 : 0) = 0.5 * data.X(i, separating ? 2 : 0) + 2 * data.y[i];
            data.X(i, 2) *= 1e12;
        }
        SelectionOptions opt;
        opt.method = SelectionMethod::Rfe;
        opt.feature_counts = {2};
        const auto start = std::chrono::steady_clock::now();
        if (separating) {
            const SelectionResult r = select_features(*backend, data, opt);
            EXPECT_EQ(r.status, Status::Success);
            EXPECT_EQ(r.subsets[0].selected.front(), 2);
            EXPECT_EQ(r.subsets[0].classifier_status, Status::Success);
        } else {
            try {
                select_features(*backend, data, opt);
                ADD_FAILURE() << "expected NumericalError";
            } catch (const NumericalError& e) {
                EXPECT_NE(std::string(e.what()).find("data not separable"), std::string::npos)
                    << e.what();
            }
        }
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        EXPECT_LT(seconds, 2.0) << "separating " << separating;  // was 4-7 s in Release
    }
}

TEST_P(Rfe, OnePassNestedAndFractionHitsEveryCount) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    const Dataset data = graded(40, 60, 4);
    SelectionOptions opt;
    opt.method = SelectionMethod::Rfe;
    opt.ridge = 1e-3;
    opt.feature_counts = {30, 10, 3};
    const SelectionResult all = select_features(*backend, data, opt);
    opt.feature_counts = {10};
    const SelectionResult ten = select_features(*backend, data, opt);
    // The same set (the order within the smallest requested count comes from its last round,
    // the order within larger ones from the later eliminations).
    IndexVector a = all.subsets[1].selected, b = ten.subsets[0].selected;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b);
    EXPECT_EQ(all.subsets[1].selected.front(), ten.subsets[0].selected.front());
    IndexVector top3 = all.subsets[2].selected;
    std::sort(top3.begin(), top3.end());
    EXPECT_EQ(top3, (IndexVector{0, 1, 2}));
    EXPECT_EQ(all.iterations, 57);  // one feature per round: 60 -> 3

    opt.feature_counts = {30, 10, 3};
    opt.rfe_fraction = 0.5;
    const SelectionResult half = select_features(*backend, data, opt);
    // 60 -> 30 -> 15 -> 10 (clamped) -> 5 -> 3 (clamped): 5 rounds.
    EXPECT_EQ(half.iterations, 5);
    ASSERT_EQ(half.trace.size(), 5u);
    const Index expected[] = {30, 15, 10, 5, 3};
    for (std::size_t t = 0; t < 5; ++t) EXPECT_EQ(half.trace[t].n_features, expected[t]);
    for (std::size_t k = 0; k < 3; ++k)
        EXPECT_EQ(Index(half.subsets[k].selected.size()), opt.feature_counts[k]);
    top3 = half.subsets[2].selected;
    std::sort(top3.begin(), top3.end());
    EXPECT_EQ(top3, (IndexVector{0, 1, 2}));
}

TEST_P(Rfe, OneVsRestMultiClass) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    // Class k (0, 1, 2) marked by feature 3k + 1 among 12.
    const Dataset data = testing::marked_classes(36, 12, 3, 1, 8);
    SelectionOptions opt;
    opt.method = SelectionMethod::Rfe;
    opt.feature_counts = {3};
    const SelectionResult r = select_features(*backend, data, opt);
    IndexVector selected = r.subsets[0].selected;
    std::sort(selected.begin(), selected.end());
    EXPECT_EQ(selected, (IndexVector{1, 4, 7}));
    EXPECT_EQ(r.subsets[0].classifiers.size(), 3u);
}

ZN_INSTANTIATE_FOR_BACKENDS(Rfe);

// On many more samples than features (2500 x 8 and 20,000 x 8, where the kernel alone takes
// 3.2 GB) RFE with a soft margin fits its rounds through the l2-l1 dual without the kernel: the
// weights rank the planted features (strengths 1, 0.6, 0.35, 0.2, four noise columns) and the
// first round's optimal value is SMO's on the same SVM, within SMO's accuracy from below and
// weak duality from above.
void expect_rfe_without_kernel(Index n) {
    SCOPED_TRACE(std::to_string(n) + " samples");
    ASSERT_TRUE(detail::fits_without_kernel(n, 8));
    auto backend = make_cpu_backend();
    SCOPED_TRACE("ZN_TEST_SEED=" + std::to_string(testing::test_seed()));
    const Dataset data = noisy_linear_data(n, {1.0, 0.0, 0.6, 0.0, 0.35, 0.0, 0.2, 0.0}, 0.1,
                                           0.3, testing::test_seed());
    SelectionOptions opt;
    opt.method = SelectionMethod::Rfe;
    opt.feature_counts = {4, 2};
    opt.C = 1.0;
    const SelectionResult r = select_features(*backend, data, opt);
    ASSERT_EQ(r.status, Status::Success) << r.message;
    IndexVector four = r.subsets[0].selected, two = r.subsets[1].selected;
    std::sort(four.begin(), four.end());
    std::sort(two.begin(), two.end());
    EXPECT_EQ(four, (IndexVector{0, 2, 4, 6}));
    EXPECT_EQ(two, (IndexVector{0, 2}));
    ASSERT_FALSE(r.trace.empty());
    expect_the_svm_optimum(*backend, data, opt.C, r.trace.front().objective);
}

TEST(RfeAtManySamples, SoftMarginRoundsNeedNoKernelAndRankThePlantedFeatures) {
    expect_rfe_without_kernel(2500);
    expect_rfe_without_kernel(20'000);
}



// The primal of the linear SVM with a ridge on the kernel's diagonal (2-norm soft margin, C =
// inf) or both a ridge and a box C: 1/2 |w|^2 + sum_i loss(1 - y_i (w.x_i + b)), the loss 0,
// then t^2 / (2 ridge), then linear with slope C from t = ridge C on. Written out here apart
// from the library's.
double ridge_svm_primal(const Matrix& X, const Vector& y, double C, double ridge, const Vector& w,
                        double b) {
    double loss = 0.0;
    for (Index i = 0; i < X.rows(); ++i) {
        const double t = 1.0 - y[i] * (X.row(i).dot(w) + b);
        if (t > ridge * C)
            loss += C * t - 0.5 * ridge * C * C;
        else if (t > 0)
            loss += t * t / (2 * ridge);
    }
    return 0.5 * w.squaredNorm() + loss;
}

// Six features of which four carry the label, with both signs (noisy_linear_data).
const std::vector<double> kSixPlantedStrengths = {1.0, -0.6, 0.0, 0.35, 0.0, 0.2};

// The linear SVMs of the selection methods without the kernel (fit_machines_without_kernel)
// against SMO on the kernel (fit_machines): two classes and three (one-vs-rest), a soft margin,
// the staged hard margin and a ridge on the kernel's diagonal with and without a box. Optimal
// values to both solvers' accuracy, and w within the distance that the primal's strong
// convexity in w allows: 1/2 |w - w*|^2 <= P(w) - D*.
TEST(MachineFits, WithoutKernelMatchesSmoOnTheKernel) {
    auto backend = make_cpu_backend();
    const std::uint64_t seed = testing::test_seed();
    SCOPED_TRACE("ZN_TEST_SEED=" + std::to_string(seed));
    const std::vector<double>& strength = kSixPlantedStrengths;
    struct Case {
        const char* name;
        Dataset data;
        double C;
        double ridge;
    };
    Dataset three = noisy_linear_data(360, strength, 0.0, 0.5, seed + 2);
    {  // a third class: the samples far along feature 2
        const Vector col = three.X.col(2);
        for (Index i = 0; i < three.n_samples(); ++i)
            three.y[i] = col[i] > 0.6 ? 2.0 : (three.y[i] > 0 ? 1.0 : 0.0);
    }
    std::vector<Case> cases;
    cases.push_back({"soft margin", noisy_linear_data(400, strength, 0.2, 0.4, seed), 1.0, 0.0});
    cases.push_back({"soft margin, large C", noisy_linear_data(300, strength, 0.2, 0.4, seed + 1),
                     1e3, 0.0});
    cases.push_back(
        {"hard margin", noisy_linear_data(400, strength, 0.2, 0.0, seed, 0.15), kInf, 0.0});
    cases.push_back({"three classes, one-vs-rest", three, 1.0, 0.0});
    // The ridge on overlapping classes: the seed's hard margin for inseparable data, a small
    // ridge (large dual variables), and a ridge with a box that some samples reach.
    cases.push_back({"ridge, hard margin", noisy_linear_data(400, strength, 0.2, 0.4, seed + 3),
                     kInf, 0.1});
    cases.push_back({"small ridge, hard margin",
                     noisy_linear_data(300, strength, 0.2, 0.4, seed + 4), kInf, 1e-3});
    cases.push_back({"ridge and a box", noisy_linear_data(400, strength, 0.2, 0.4, seed + 5), 2.0,
                     0.2});
    cases.push_back({"ridge, three classes", three, kInf, 0.05});
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        const detail::Machines machines = detail::make_machines(c.data.y);
        SelectionOptions options;
        options.C = c.C;
        options.ridge = c.ridge;
        IndexVector all(std::size_t(c.data.n_features()));
        std::iota(all.begin(), all.end(), Index(0));
        const auto radius2 = [&] { return detail::max_row_norm2(c.data.X, all, Vector()); };
        const auto where = [](std::size_t) { return std::string("test"); };
        const DeviceMatrix X = backend->upload(c.data.X);
        const DeviceMatrix K = backend->kernel_matrix(KernelSpec{}, X, X);
        std::vector<Vector> warm_smo(machines.targets.size()), warm_ip(machines.targets.size());
        const detail::MachineFits smo = detail::fit_machines(*backend, K, X, machines, options,
                                                             warm_smo, radius2, where, false);
        const detail::MachineFits ip = detail::fit_machines_without_kernel(
            c.data.X, machines, options, warm_ip, radius2, where, false);
        ASSERT_EQ(smo.status, Status::Success);
        ASSERT_EQ(ip.status, Status::Success);
        ASSERT_EQ(ip.W.rows(), c.data.n_features());
        ASSERT_EQ(ip.W.cols(), Index(machines.targets.size()));
        EXPECT_NEAR(ip.objective, smo.objective, 1e-6 * std::abs(smo.objective));
        for (std::size_t k = 0; k < machines.targets.size(); ++k) {
            const Vector& y = machines.targets[k];
            const Vector w_ip = ip.W.col(Index(k)), w_smo = smo.W.col(Index(k));
            const double dual = -smo.duals[k].objective;
            // Soft margin: P(w) - D* from the primal at the interior point's (w, b). Hard
            // margin (no primal to evaluate at a w that may miss a constraint by rounding):
            // both optimal values to 1e-6, which gives the same kind of bound.
            double slack = 1e-6 * std::abs(dual);
            if (c.ridge > 0) {
                const double primal = ridge_svm_primal(c.data.X, y, c.C, c.ridge, w_ip,
                                                       ip.duals[k].bias);
                EXPECT_GE(primal, dual * (1 - 1e-9));
                EXPECT_EQ(ip.duals[k].status, Status::Success);
                slack = std::max(0.0, primal - dual) + 1e-8 * std::abs(dual);
            } else if (std::isfinite(c.C)) {
                const double primal = l2_l1_primal(c.data.X, y, c.C,
                                                   Vector::Zero(c.data.n_features()), w_ip,
                                                   ip.duals[k].bias);
                EXPECT_GE(primal, dual * (1 - 1e-9));
                slack = std::max(0.0, primal - dual) + 1e-8 * std::abs(dual);
            }
            EXPECT_LE((w_ip - w_smo).norm(), 2.0 * std::sqrt(2.0 * slack) + 1e-9)
                << "w_ip " << w_ip.transpose() << "\nw_smo " << w_smo.transpose();
        }
        ASSERT_EQ(warm_ip.size(), machines.targets.size());
        EXPECT_EQ(warm_ip[0].size(), c.data.n_samples());  // the warm starts are kept
    }
    // Data that no hyperplane separates: both routes refuse the hard margin, saying why.
    const Dataset overlapping = noisy_linear_data(400, strength, 0.2, 0.4, seed);
    const detail::Machines machines = detail::make_machines(overlapping.y);
    SelectionOptions options;  // C = inf, ridge = 0
    std::vector<Vector> warm(1);
    IndexVector all(std::size_t(overlapping.n_features()));
    std::iota(all.begin(), all.end(), Index(0));
    try {
        detail::fit_machines_without_kernel(
            overlapping.X, machines, options, warm,
            [&] { return detail::max_row_norm2(overlapping.X, all, Vector()); },
            [](std::size_t) { return std::string("overlapping"); }, true);
        ADD_FAILURE() << "expected NumericalError";
    } catch (const NumericalError& e) {
        EXPECT_NE(std::string(e.what()).find("overlapping: data not separable"), std::string::npos)
            << e.what();
    }
}

// l2-AROM on many more samples than features (2500 x 8, the route's lower edge, and 20,000 x 8,
// where the kernel alone takes 3.2 GB) fits its SVMs without the kernel: it recovers the planted
// features, its first iteration's value lies between SMO's dual and primal values of the same
// SVM, and the default hard margin works on separable data and refuses overlapping data, which
// a ridge then makes feasible.
void expect_l2_arom_without_kernel(Index n) {
    SCOPED_TRACE(std::to_string(n) + " samples");
    ASSERT_TRUE(detail::fits_without_kernel(n, 8));
    auto backend = make_cpu_backend();
    const std::uint64_t seed = testing::test_seed();
    SCOPED_TRACE("ZN_TEST_SEED=" + std::to_string(seed));
    const std::vector<double> strength = {1.0, 0.0, -0.7, 0.0, 0.45, 0.0, 0.0, 0.0};
    const Dataset data = noisy_linear_data(n, strength, 0.1, 0.2, seed);
    SelectionOptions opt;
    opt.method = SelectionMethod::L2Arom;
    opt.feature_counts = {3};
    opt.C = 1.0;
    const SelectionResult r = select_features(*backend, data, opt);
    ASSERT_EQ(r.status, Status::Success) << r.message;
    IndexVector three = r.subsets[0].selected;
    std::sort(three.begin(), three.end());
    EXPECT_EQ(three, (IndexVector{0, 2, 4}));
    ASSERT_FALSE(r.trace.empty());
    // The first iteration's SVM (z = 1).
    expect_the_svm_optimum(*backend, data, opt.C, r.trace.front().objective);

    SelectionOptions hard;  // C = inf, ridge = 0
    hard.method = SelectionMethod::L2Arom;
    hard.feature_counts = {3};
    hard.final_C = kInf;  // the final classifier's hard margin, by the same staged solver
    const Dataset separable = noisy_linear_data(n, strength, 0.1, 0.0, seed + 1, 0.3);
    const SelectionResult h = select_features(*backend, separable, hard);
    ASSERT_EQ(h.status, Status::Success) << h.message;
    const IndexVector best = h.subsets[0].selected;
    three = best;
    std::sort(three.begin(), three.end());
    EXPECT_EQ(three, (IndexVector{0, 2, 4}));
    // It separates the data with functional margin 1 (to the solver's accuracy).
    ASSERT_EQ(h.subsets[0].classifier_status, Status::Success) << h.subsets[0].classifier_message;
    const Vector f = separable.X(Eigen::all, best) * h.subsets[0].weights +
                     Vector::Constant(separable.n_samples(), h.subsets[0].classifiers[0].bias);
    EXPECT_GE(f.cwiseProduct(separable.y).minCoeff(), 1.0 - 1e-4);
    try {
        select_features(*backend, data, hard);
        ADD_FAILURE() << "expected NumericalError";
    } catch (const NumericalError& e) {
        EXPECT_NE(std::string(e.what()).find("l2-AROM iteration 1 (8 features): data not "
                                             "separable"),
                  std::string::npos)
            << e.what();
    }
    // What that error suggests, the hard margin with a ridge (000 sec. 3.2), on the same
    // overlapping data and by the same route: the planted features, and a final classifier
    // with a ridge too.
    SelectionOptions ridge = hard;
    ridge.ridge = 1e-3;
    ridge.final_ridge = 1e-3;
    const SelectionResult with_ridge = select_features(*backend, data, ridge);
    ASSERT_EQ(with_ridge.status, Status::Success) << with_ridge.message;
    three = with_ridge.subsets[0].selected;
    std::sort(three.begin(), three.end());
    EXPECT_EQ(three, (IndexVector{0, 2, 4}));
    EXPECT_EQ(with_ridge.subsets[0].classifier_status, Status::Success)
        << with_ridge.subsets[0].classifier_message;
}

TEST(L2AromAtManySamples, FitsWithoutTheKernelAndFindsThePlantedFeatures) {
    expect_l2_arom_without_kernel(2500);
    expect_l2_arom_without_kernel(20'000);
}

// ---- front end: parsing and validation --------------------------------------------------------

TEST(Selection, ParseAndPrintNames) {
    for (std::string m : {SelectionMethod::L2Arom, SelectionMethod::L1Arom, SelectionMethod::Rfe,
                          SelectionMethod::Corr})
        EXPECT_EQ(zeronorm::find_ranker(m).info().name, m);
    EXPECT_EQ(parse_multiclass_scheme("ovr"), MulticlassScheme::OneVsRest);
    EXPECT_EQ(parse_multiclass_scheme("ww"), MulticlassScheme::WestonWatkins);
    EXPECT_EQ(to_string(MulticlassScheme::WestonWatkins), "ww");
    try {
        zeronorm::find_ranker("l0");
        FAIL();
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("l2-arom, l1-arom, rfe, corr, fsv, l2-l1-svm, l2-l0-svm, rlp, fs-svmcp, rfe-rbf, kta, quadratic-fsv or r2w2"), std::string::npos);
    }
    EXPECT_THROW(parse_multiclass_scheme("1vs1"), InvalidArgument);
}

// Every registered method says what it is, and a ranker's rank() is select_features with it.
TEST(MethodRegistry, ListsMethodsWithTheirParameters) {
    EXPECT_EQ(zeronorm::ranker_names(),
              (std::vector<std::string>{"l2-arom", "l1-arom", "rfe", "corr", "fsv", "l2-l1-svm",
                                        "l2-l0-svm", "rlp", "fs-svmcp", "rfe-rbf", "kta",
                                        "quadratic-fsv", "r2w2"}));
    EXPECT_EQ(zeronorm::classifier_names(), (std::vector<std::string>{"svm", "l0-svm"}));
    for (const auto& r : zeronorm::feature_rankers()) {
        EXPECT_FALSE(r->info().description.empty()) << r->info().name;
        EXPECT_NE(r->info().citation.find("20"), std::string::npos) << r->info().name;
    }
    bool has_fraction = false;
    for (const auto& p : zeronorm::find_ranker("rfe").info().parameters)
        has_fraction = has_fraction || (p.flag == "--rfe-fraction" && p.valid == "[0, 1)");
    EXPECT_TRUE(has_fraction);
    EXPECT_TRUE(zeronorm::find_ranker("l2-arom").supports_weston_watkins());
    EXPECT_FALSE(zeronorm::find_ranker("rfe").supports_weston_watkins());
    EXPECT_EQ(zeronorm::find_classifier("l0-svm").info().parameters.size(), 7u);
    EXPECT_THROW(zeronorm::find_classifier("rvm"), InvalidArgument);
}

Dataset small_two_class() {
    Dataset data;
    data.X.resize(4, 3);
    data.X << 1, 0, 2,  //
        2, 1, 0,        //
        -1, 0, 1,       //
        -2, 1, 0;
    data.y.resize(4);
    data.y << 1, 1, -1, -1;
    return data;
}

// select_features must throw InvalidArgument whose message contains `needle`.
void expect_invalid(const Dataset& data, const SelectionOptions& opt, const std::string& needle) {
    auto backend = make_cpu_backend();
    try {
        select_features(*backend, data, opt);
        ADD_FAILURE() << "no exception; expected one mentioning '" << needle << "'";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
            << "message: " << e.what() << "\nexpected to mention: " << needle;
    }
}

TEST(Selection, BadOptionsNameTheField) {
    const Dataset data = small_two_class();
    const auto with = [](auto change) {
        SelectionOptions opt;
        opt.feature_counts = {2};
        change(opt);
        return opt;
    };
    expect_invalid(data, with([](SelectionOptions& o) { o.feature_counts.clear(); }),
                   "feature_counts is empty");
    expect_invalid(data, with([](SelectionOptions& o) { o.feature_counts = {2, 0}; }),
                   "feature_counts[1] = 0 is outside 1..3");
    expect_invalid(data, with([](SelectionOptions& o) { o.feature_counts = {4}; }),
                   "feature_counts[0] = 4 is outside 1..3");
    expect_invalid(data, with([](SelectionOptions& o) { o.feature_counts = {2, 1, 2}; }),
                   "feature_counts lists 2 more than once");
    expect_invalid(data, with([](SelectionOptions& o) { o.C = 0; }), "C must be positive");
    expect_invalid(data, with([](SelectionOptions& o) { o.C = std::nan(""); }),
                   "C must be positive");
    expect_invalid(data, with([](SelectionOptions& o) { o.ridge = -1; }), "ridge must be");
    expect_invalid(data, with([](SelectionOptions& o) { o.ridge = kInf; }), "ridge must be");
    expect_invalid(data, with([](SelectionOptions& o) { o.prune_tolerance = 0; }),
                   "prune_tolerance must be in (0, 1)");
    expect_invalid(data, with([](SelectionOptions& o) { o.prune_tolerance = 1; }),
                   "prune_tolerance must be in (0, 1)");
    expect_invalid(data, with([](SelectionOptions& o) { o.convergence_tolerance = -1; }),
                   "convergence_tolerance");
    expect_invalid(data, with([](SelectionOptions& o) { o.max_iterations = 0; }),
                   "max_iterations must be >= 1");
    expect_invalid(data, with([](SelectionOptions& o) { o.rfe_fraction = 1.0; }),
                   "rfe_fraction must be in [0, 1)");
    expect_invalid(data, with([](SelectionOptions& o) { o.final_C = -2; }),
                   "final_C must be positive");
    expect_invalid(data, with([](SelectionOptions& o) { o.final_ridge = std::nan(""); }),
                   "final_ridge must be finite");
    expect_invalid(data, with([](SelectionOptions& o) { o.smo.tolerance = 0; }),
                   "smo.tolerance");
    expect_invalid(data, with([](SelectionOptions& o) { o.final_smo.max_iterations = -1; }),
                   "final_smo.max_iterations");
}

TEST(Selection, BadLabelsSayWhy) {
    SelectionOptions opt;
    opt.feature_counts = {1};
    Dataset data = small_two_class();
    data.y << 0, 0, 1, 1;
    expect_invalid(data, opt, "two classes must be labelled -1/+1");
    data.y << 1, 1, 1, 1;
    expect_invalid(data, opt, "only one class (+1)");
    data.y << 0, 2.5, 1, 1;
    expect_invalid(data, opt, "label of sample 1 is 2.5");
    data.y << 0, 3, 1, 1;
    expect_invalid(data, opt, "class 2 of 0..3 has no samples");
    data.y << 0, 1, 2, 2;
    opt.multiclass = MulticlassScheme::WestonWatkins;
    opt.method = SelectionMethod::Rfe;
    expect_invalid(data, opt, "implemented for l2-arom only, not for rfe");
}

// A forced pure hard margin (final_C = inf, final_ridge = 0) that cannot be trained on the
// selected features is reported in the subset; the selection itself is returned.
TEST(Selection, FinalHardMarginOnInseparableSubsetSaysSo) {
    auto backend = make_cpu_backend();
    // x1 separates the classes, x2 is constant. CORR ranks x1 first; a hard-margin classifier on
    // {x1} exists, one on {x2} alone does not.
    Dataset data;
    data.X.resize(4, 2);
    data.X << 1, 3, 2, 3, -1, 3, -2, 3;
    data.y.resize(4);
    data.y << 1, 1, -1, -1;
    SelectionOptions opt;
    opt.method = SelectionMethod::Corr;
    opt.feature_counts = {1};
    opt.final_C = std::numeric_limits<double>::infinity();
    opt.final_ridge = 0.0;
    EXPECT_EQ(select_features(*backend, data, opt).subsets[0].classifier_status, Status::Success);
    Dataset constant = data;
    constant.X = data.X.col(1);
    const FeatureSubset failed = select_features(*backend, constant, opt).subsets[0];
    EXPECT_EQ(failed.selected, (IndexVector{0}));
    EXPECT_EQ(failed.classifier_status, Status::NumericalIssue);
    EXPECT_TRUE(failed.classifiers.empty());
    EXPECT_EQ(failed.weights.size(), 0);
    EXPECT_NE(failed.classifier_message.find("final classifier on the 1 selected features"),
              std::string::npos)
        << failed.classifier_message;
    EXPECT_NE(failed.classifier_message.find("data not separable"), std::string::npos);
    // The default final classifier (finite final_C) trains on the same data.
    SelectionOptions defaults;
    defaults.method = SelectionMethod::Corr;
    defaults.feature_counts = {1};
    const FeatureSubset trained = select_features(*backend, constant, defaults).subsets[0];
    EXPECT_EQ(trained.classifier_status, Status::Success);
    EXPECT_EQ(trained.classifiers.size(), 1u);
    opt.final_ridge = 0.5;  // the 2-norm soft margin of sec. 3.2 trains (a constant classifier)
    EXPECT_EQ(select_features(*backend, constant, opt).subsets[0].classifier_status,
              Status::Success);
}

// From 2000 samples (and 10 r) the final classifier is the C-SVM solved through the l2-l1
// dual (zero costs) and kept as its weight vector: its primal is no worse than SMO's on the same columns,
// and its w is within what the two solvers' accuracies allow of SMO's (the primal is
// 1-strongly convex in w: |w - w*|^2 <= 2 (P(w, b) - P*) for any b).
TEST(Selection, FinalClassifierAtManySamplesIsTheSvmOptimum) {
    auto backend = make_cpu_backend();
    SCOPED_TRACE("ZN_TEST_SEED=" + std::to_string(testing::test_seed()));
    for (const Index n : {Index(2500), Index(20'000)}) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const Dataset data =
            noisy_linear_data(n, {1.0, 0.0, -0.5, 0.0, 0.25, 0.0}, 0.3, 0.5, testing::test_seed());
        SelectionOptions opt;
        opt.method = SelectionMethod::Corr;
        opt.feature_counts = {4};
        opt.final_C = 1.0;
        const FeatureSubset subset = select_features(*backend, data, opt).subsets[0];
        ASSERT_EQ(subset.classifier_status, Status::Success) << subset.classifier_message;
        ASSERT_EQ(subset.classifiers.size(), 1u);
        const SvmModel& model = subset.classifiers.front();
        EXPECT_EQ(model.n_support(), 1);
        Dataset sub;
        sub.X = data.X(Eigen::all, subset.selected);
        sub.y = data.y;
        const Vector w = subset.class_weights.col(0);
        EXPECT_LE((model.linear_weights() - w).norm(), 1e-12 * w.norm());
        const Vector f = model.decision_function(*backend, sub.X);
        EXPECT_LE((f - (sub.X * w).array().matrix() - Vector::Constant(n, model.bias)).norm(),
                  1e-9 * f.norm());

        SvmOptions svm;  // linear kernel, SMO at LIBSVM's tolerance
        svm.smo.C = opt.final_C;
        const SvmTrainResult smo = train_svm(*backend, sub, svm);
        const Vector w_smo = smo.model.linear_weights();
        const Vector zero = Vector::Zero(4);
        const double ours = l2_l1_primal(sub.X, sub.y, opt.final_C, zero, w, model.bias);
        const double theirs = l2_l1_primal(sub.X, sub.y, opt.final_C, zero, w_smo, smo.model.bias);
        EXPECT_LE(ours, theirs * (1 + 1e-8));
        const double ours_excess = 1e-8 * ours;  // the gap target of the l2-l1 dual
        const double theirs_excess = std::max(0.0, theirs - ours) + ours_excess;
        EXPECT_LE((w - w_smo).norm(),
                  (std::sqrt(2 * ours_excess) + std::sqrt(2 * theirs_excess)) * 1.01 + 1e-12);
    }
}

// Values near 1e200 are finite, but the linear kernel of them overflows: a NumericalError about
// the data (not an InvalidArgument about the kernel) for every method.
TEST(Selection, DataTooLargeForTheKernelIsANumericalError) {
    auto backend = make_cpu_backend();
    Dataset data;
    data.X.resize(4, 2);
    data.X << 1e200, 3e155, 2e200, -1e155, -1e200, 2e155, -3e200, 1e155;
    data.y.resize(4);
    data.y << 1, 1, -1, -1;
    for (std::string method : {SelectionMethod::L2Arom, SelectionMethod::L1Arom,
                               SelectionMethod::Rfe, SelectionMethod::Corr}) {
        SelectionOptions opt;
        opt.method = method;
        opt.feature_counts = {1};
        try {
            select_features(*backend, data, opt);
            ADD_FAILURE() << "expected NumericalError for " << method;
        } catch (const NumericalError& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("too large for the linear kernel"), std::string::npos) << what;
            EXPECT_NE(what.find("largest |x| is 3e+200 (row 3, column 0"), std::string::npos)
                << what;
            EXPECT_NE(what.find("--standardize"), std::string::npos) << what;
        }
    }
    // Standardised (overflow-safe statistics), the same data select and train.
    data.X = Standardizer::fit(data.X).transform(data.X);
    SelectionOptions opt;
    opt.feature_counts = {1};
    opt.ridge = 0.1;
    EXPECT_EQ(select_features(*backend, data, opt).subsets[0].classifier_status, Status::Success);
}

// A selection that ends other than in Success says why (SelectionResult::message, also in its
// JSON); one that succeeds says nothing.
TEST(Selection, AStatusOtherThanSuccessSaysWhy) {
    const std::uint64_t seed = testing::test_seed();
    SCOPED_TRACE("ZN_TEST_SEED=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    auto backend = make_cpu_backend();
    Dataset data = testing::random_two_class(30, 8, rng, 0.0);
    data.X.col(0) += 2.0 * data.y;
    data.X.col(1) += data.y;
    struct Case {
        std::string method;
        std::function<void(SelectionOptions&)> set;
        Status status;
        std::string why;
    };
    const std::vector<Case> cases = {
        {SelectionMethod::L2Arom, [](SelectionOptions& o) { o.max_iterations = 2; },
         Status::NoConvergence, "max_iterations = 2 reached before z settled"},
        {SelectionMethod::L2Arom, [](SelectionOptions& o) { o.smo.max_iterations = 1; },
         Status::NumericalIssue, "iteration 1 (8 features): an inner solve did not reach"},
        {SelectionMethod::Rfe, [](SelectionOptions& o) { o.smo.max_iterations = 1; },
         Status::NumericalIssue, "round 1 (8 features): an inner SVM stopped at its iteration cap"},
        {SelectionMethod::L2L0Svm,
         [](SelectionOptions& o) {
             o.max_iterations = 1;
             o.set_parameter("dc.tolerance", 0.0);
         },
         Status::NoConvergence, "DCA stopped at max_iterations = 1"},
        {SelectionMethod::Kta,
         [](SelectionOptions& o) {
             o.max_iterations = 1;
             o.set_parameter("kta.tolerance", 1e-300);
         },
         Status::NoConvergence, "the DCA stopped at max_iterations = 1"},
        {SelectionMethod::Rfe, [](SelectionOptions&) {}, Status::Success, ""},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.method + ": " + c.why);
        SelectionOptions opt;
        opt.method = c.method;
        opt.feature_counts = {2};
        opt.C = 1.0;
        opt.smo.tolerance = 1e-12;
        c.set(opt);
        const SelectionResult r = select_features(*backend, data, opt);
        EXPECT_EQ(r.status, c.status) << r.message;
        if (c.why.empty()) {
            EXPECT_EQ(r.message, "");
            EXPECT_EQ(to_json(r).dump().find("\"message\""), std::string::npos);
            continue;
        }
        EXPECT_NE(r.message.find(c.why), std::string::npos) << r.message;
        const std::string key = "\"message\":" + Json(r.message).dump();
        EXPECT_NE(to_json(r).dump().find(key), std::string::npos) << to_json(r).dump();
    }
}

// The Gaussian-kernel rankers on data whose kernel is the identity to rounding (raw microarray
// values with gamma = 1/d: every kernel value between samples underflows) would rank the
// features by index; they say so instead, and run once the data are standardised.
TEST(Selection, GaussianRankersRefuseAKernelThatIsTheIdentity) {
    std::mt19937_64 rng(testing::test_seed());
    auto backend = make_cpu_backend();
    Dataset data = testing::random_two_class(16, 12, rng, 0.0);
    data.X.col(0) += data.y;
    data.X *= 1e3;
    const std::vector<std::pair<std::string, std::string>> rankers = {
        {SelectionMethod::RfeRbf, "rfe_gamma"}, {SelectionMethod::Kta, "--width"},
        {SelectionMethod::R2w2, "r2w2 gamma"}};
    for (const auto& [method, remedy] : rankers) {
        SCOPED_TRACE(method);
        SelectionOptions opt;
        opt.method = method;
        opt.feature_counts = {2};
        opt.C = 10.0;
        if (method == SelectionMethod::R2w2) opt.set_parameter("r2w2.kernel", "rbf");
        try {
            select_features(*backend, data, opt);
            ADD_FAILURE() << "no error";
        } catch (const NumericalError& e) {
            const std::string what = e.what();
            EXPECT_EQ(what.rfind(method, 0), 0u) << what;
            EXPECT_NE(what.find("the Gaussian kernel is the identity"), std::string::npos) << what;
            EXPECT_NE(what.find(remedy), std::string::npos) << what;
        }
        Dataset standardised = data;
        standardised.X = Standardizer::fit(data.X).transform(data.X);
        EXPECT_NO_THROW(select_features(*backend, standardised, opt));
    }
}


// The `svm` classifier's SVM without the kernel (train_svm_without_kernel) against SMO on the
// kernel (train_svm at a tight tolerance): soft margins, a large C, the ridge's hard margin and
// a ridge with a box. Both optimal-value brackets [D, P] overlap, the model's own primal value
// (the w and b a user gets) is within 1e-7 of the optimum, w is within what the primal's
// strong convexity allows of SMO's, the support vectors are the samples with beta > 0 (every
// margin violator, no sample well outside the margin), and the model's decision values are
// X w + b. From 2000 samples (and 10 d) the registry's classifier takes this route.
TEST(TrainSvmWithoutKernel, MatchesSmoOnTheKernel) {
    auto backend = make_cpu_backend();
    const std::uint64_t seed = testing::test_seed();
    SCOPED_TRACE("ZN_TEST_SEED=" + std::to_string(seed));
    const std::vector<double>& strength = kSixPlantedStrengths;
    struct Case {
        const char* name;
        double C;
        double ridge;
    };
    const Case cases[] = {{"soft margin", 1.0, 0.0},
                          {"soft margin, large C", 100.0, 0.0},
                          {"ridge, hard margin", kInf, 0.05},
                          {"ridge and a box", 2.0, 0.2}};
    std::uint64_t k = 0;
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        const Dataset data = noisy_linear_data(500, strength, 0.2, 0.4, seed + 7 * ++k);
        SvmOptions svm;  // linear kernel
        svm.smo.C = c.C;
        svm.smo.ridge = c.ridge;
        svm.smo.tolerance = 1e-6;
        const SvmTrainResult kf = detail::train_svm_without_kernel(data, svm);
        const SvmTrainResult smo = train_svm(*backend, data, svm);
        ASSERT_EQ(kf.smo.status, Status::Success);
        // SMO may stop short at a large C (the route's reason): its beta is feasible and its
        // bracket [D, P] holds all the same.
        ASSERT_EQ(smo.smo.beta.size(), data.n_samples());
        // Each route reports its own stopping measure: the primal-dual gap here (within the
        // solver's tolerance), SMO's KKT gap there.
        EXPECT_TRUE(std::isnan(kf.smo.kkt_gap));
        EXPECT_GE(kf.smo.duality_gap, -1e-12 * std::abs(kf.smo.objective));
        EXPECT_LE(kf.smo.duality_gap, 1e-7 * std::abs(kf.smo.objective));
        EXPECT_TRUE(std::isnan(smo.smo.duality_gap));
        if (smo.smo.status == Status::Success) {
            EXPECT_LE(smo.smo.kkt_gap, svm.smo.tolerance);
        }
        const Json kf_report = to_json(kf), smo_report = to_json(smo);
        EXPECT_TRUE(kf_report.contains("duality_gap") && !kf_report.contains("kkt_gap"));
        EXPECT_TRUE(smo_report.contains("kkt_gap") && !smo_report.contains("duality_gap"));
        const auto primal = [&](const SvmModel& model) {
            const Vector w = model.linear_weights();
            return c.ridge > 0 ? ridge_svm_primal(data.X, data.y, c.C, c.ridge, w, model.bias)
                               : l2_l1_primal(data.X, data.y, c.C,
                                              Vector::Zero(data.n_features()), w, model.bias);
        };
        const double p_kf = primal(kf.model), d_kf = -kf.smo.objective;
        const double p_smo = primal(smo.model), d_smo = -smo.smo.objective;
        const double scale = std::abs(d_smo);
        EXPECT_LE(d_kf, p_smo + 1e-9 * scale);
        EXPECT_LE(d_smo, p_kf + 1e-9 * scale);
        const double best_dual = std::max(d_kf, d_smo);
        EXPECT_LE(p_kf - best_dual, 1e-7 * scale);
        const Vector w_kf = kf.model.linear_weights(), w_smo = smo.model.linear_weights();
        EXPECT_LE((w_kf - w_smo).norm(),
                  std::sqrt(2.0 * std::max(0.0, p_kf - best_dual)) +
                      std::sqrt(2.0 * std::max(0.0, p_smo - best_dual)) + 1e-9);
        // The support vectors: beta > 0 exactly where the margin is not met.
        const Vector f = data.X * w_kf + Vector::Constant(data.n_samples(), kf.model.bias);
        Index violators = 0, outside = 0;
        for (Index i = 0; i < data.n_samples(); ++i) {
            const double margin = data.y[i] * f[i];
            if (margin < 1.0 - 1e-6) {
                ++violators;
                EXPECT_GT(kf.smo.beta[i], 0.0) << "sample " << i << ", margin " << margin;
            } else if (margin > 1.0 + 1e-4) {
                ++outside;
                EXPECT_EQ(kf.smo.beta[i], 0.0) << "sample " << i << ", margin " << margin;
            }
        }
        EXPECT_GT(violators, 0);
        EXPECT_GT(outside, 0);
        EXPECT_EQ(kf.model.n_support(), (kf.smo.beta.array() > 0.0).count());
        const Vector decision = kf.model.decision_function(*backend, data.X);
        EXPECT_LE((decision - f).cwiseAbs().maxCoeff(), 1e-9 * (1.0 + f.cwiseAbs().maxCoeff()));
    }

    // The route: a linear kernel with a bias, up to 1024 features, from max(2000, 10 d) samples.
    SvmOptions linear, rbf, without_bias;
    rbf.kernel.type = KernelType::Rbf;
    without_bias.bias = false;
    EXPECT_TRUE(detail::trains_without_kernel(20'000, 1024, linear));
    EXPECT_TRUE(detail::trains_without_kernel(2000, 200, linear));
    EXPECT_FALSE(detail::trains_without_kernel(20'000, 1024, rbf));
    EXPECT_FALSE(detail::trains_without_kernel(20'000, 1024, without_bias));
    EXPECT_FALSE(detail::trains_without_kernel(20'479, 2048, linear));
    EXPECT_FALSE(detail::trains_without_kernel(20'000, 1025, linear));
    EXPECT_FALSE(detail::trains_without_kernel(1999, 10, linear));
    EXPECT_FALSE(detail::trains_without_kernel(2000, 201, linear));
    // l2-AROM's and RFE's SVMs: the same, and from 20,000 samples whatever d.
    EXPECT_TRUE(detail::fits_without_kernel(2000, 200));
    EXPECT_FALSE(detail::fits_without_kernel(1999, 10));
    EXPECT_FALSE(detail::fits_without_kernel(2000, 201));
    EXPECT_FALSE(detail::fits_without_kernel(19'999, 2000));
    EXPECT_TRUE(detail::fits_without_kernel(20'000, 7129));

    // The registry's classifier there: the kernel-free solution, as the route gives it.
    const Dataset many = noisy_linear_data(2000, strength, 0.2, 0.4, seed + 100);
    SvmOptions svm;
    const TrainedClassifier trained = find_classifier("svm").train(*backend, many, svm, {});
    const SvmTrainResult direct = detail::train_svm_without_kernel(many, svm);
    EXPECT_EQ(trained.status, Status::Success);
    ASSERT_TRUE(trained.report.contains("solver"));
    EXPECT_EQ(trained.report.at("solver").get<std::string>(), "interior point, no kernel");
    EXPECT_EQ(trained.iterations, direct.smo.iterations);
    EXPECT_EQ(trained.model.n_support(), direct.model.n_support());
    EXPECT_LE((trained.model.linear_weights() - direct.model.linear_weights()).norm(),
              1e-12 * (1.0 + direct.model.linear_weights().norm()));
    // Bad input is refused as train_svm refuses it.
    Dataset one_class = many;
    one_class.y.setOnes();
    EXPECT_THROW(detail::train_svm_without_kernel(one_class, svm), InvalidArgument);
    // So is an SVM the route does not solve: another kernel, or no bias.
    EXPECT_THROW(detail::train_svm_without_kernel(many, rbf), InvalidArgument);
    EXPECT_THROW(detail::train_svm_without_kernel(many, without_bias), InvalidArgument);
}

}  // namespace
}  // namespace zeronorm
