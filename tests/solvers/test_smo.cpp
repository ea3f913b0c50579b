// SMO against LIBSVM on the same problems, invariants, warm start, degenerate input; run on
// every backend built.
#include <gtest/gtest.h>

#include <limits>

#include "support/backends.hpp"
#include "support/libsvm_reference.hpp"
#include "support/matrix_checks.hpp"
#include "support/random.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/ops/smo_ops.hpp"
#include "zeronorm/core/preprocess.hpp"
#include "zeronorm/io/io.hpp"

namespace zeronorm {
namespace {

using testing::dual_objective;
using testing::exactly_equal;
using testing::random_two_class;
using testing::run_libsvm;
using testing::test_seed;

class Smo : public ::testing::TestWithParam<BackendKind> {};

void expect_invariants(const SmoResult& r, const Vector& y, double C, double tol) {
    EXPECT_GE(r.beta.minCoeff(), 0.0);
    if (std::isfinite(C)) {
        EXPECT_LE(r.beta.maxCoeff(), C);
    }
    EXPECT_NEAR(r.beta.dot(y), 0.0, 1e-9 * std::max(1.0, r.beta.sum()));
    if (r.status == Status::Success) {
        EXPECT_LE(r.kkt_gap, tol);
    }
}

Dataset load_standardized(const std::string& name) {
    Dataset data = read_csv(std::string(ZERONORM_DATA_DIR) + "/" + name + "/" + name + ".csv");
    data.X = Standardizer::fit(data.X).transform(data.X);
    return data;
}

struct Problem {
    std::string name;
    Dataset data;
    KernelSpec kernel;
    double C;
};

std::vector<Problem> agreement_problems() {
    std::mt19937_64 rng(test_seed() + 10);
    std::vector<Problem> problems;
    KernelSpec linear, rbf, poly;
    rbf.type = KernelType::Rbf;
    poly.type = KernelType::Polynomial;
    poly.gamma = 0.1;
    poly.coef0 = 1.0;
    poly.degree = 2;
    problems.push_back({"random-linear", random_two_class(240, 10, rng), linear, 0.5});
    rbf.gamma = 0.1;
    problems.push_back({"random-rbf", random_two_class(300, 8, rng), rbf, 10.0});
    problems.push_back({"random-poly", random_two_class(200, 6, rng), poly, 1.0});
    rbf.gamma = 1.0 / 60;
    problems.push_back({"sonar-rbf", load_standardized("sonar"), rbf, 10.0});
    rbf.gamma = 1.0 / 34;
    problems.push_back({"ionosphere-rbf", load_standardized("ionosphere"), rbf, 1.0});
    problems.push_back({"ionosphere-linear", load_standardized("ionosphere"), linear, 1.0});
    return problems;
}

TEST_P(Smo, MatchesLibsvmObjectiveAndBias) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    for (const Problem& p : agreement_problems()) {
        SCOPED_TRACE(p.name);
        const DeviceMatrix X = backend->upload(p.data.X);
        const DeviceMatrix dK = backend->kernel_matrix(p.kernel, X, X);
        const Matrix K = backend->download(dK);
        SmoOptions options;
        options.C = p.C;
        options.tolerance = 1e-8;
        const SmoResult ours = backend->smo().solve(dK, p.data.y, options);
        ASSERT_EQ(ours.status, Status::Success);
        const auto ref = run_libsvm(K, p.data.y, p.C, 1e-8);
        const double ref_obj = dual_objective(K, p.data.y, ref.beta);
        EXPECT_NEAR(ours.objective, ref_obj, 1e-6 * std::abs(ref_obj));
        EXPECT_NEAR(dual_objective(K, p.data.y, ours.beta), ours.objective, 1e-9 * std::abs(ref_obj));
        EXPECT_NEAR(ours.bias, ref.bias, 1e-4 * std::max(1.0, std::abs(ref.bias)));
        expect_invariants(ours, p.data.y, p.C, 1e-8);
    }
}

TEST_P(Smo, OnDemandKernelWithSmallCacheMatchesPrecomputed) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 11);
    const Dataset data = random_two_class(400, 7, rng, 0.3);
    KernelSpec rbf;
    rbf.type = KernelType::Rbf;
    rbf.gamma = 0.2;
    SmoOptions options;
    options.C = 2.0;
    options.tolerance = 1e-6;
    options.cache_mb = 0.05;  // about 16 columns: forces evictions
    const DeviceMatrix X = backend->upload(data.X);
    const SmoResult full = backend->smo().solve(backend->kernel_matrix(rbf, X, X), data.y, options);
    const SmoResult streamed = backend->smo().solve(rbf, X, data.y, options);
    EXPECT_NEAR(full.objective, streamed.objective, 1e-9 * std::abs(full.objective));
    // The two kernels differ by rounding, and SMO stops anywhere within its 1e-6 tolerance:
    // beta agrees to ~tolerance / curvature (a wrong cached column would differ by O(C)).
    EXPECT_LT((full.beta - streamed.beta).cwiseAbs().maxCoeff(), 1e-5 * options.C);
}

// Mostly-zero data (as a9a): the on-demand kernel columns come from the sparse rows.
TEST_P(Smo, SparseDataOnDemandKernelMatchesPrecomputed) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 13);
    Dataset data = random_two_class(300, 40, rng, 0.5);
    std::bernoulli_distribution keep(0.15);
    for (Index j = 0; j < data.X.cols(); ++j)
        for (Index i = 0; i < data.X.rows(); ++i)
            if (!keep(rng)) data.X(i, j) = 0.0;
    for (const KernelType type : {KernelType::Rbf, KernelType::Linear, KernelType::Polynomial}) {
        KernelSpec spec;
        spec.type = type;
        spec.gamma = 0.1;
        spec.coef0 = 1.0;
        spec.degree = 2;
        SmoOptions options;
        options.C = 1.5;
        options.tolerance = 1e-8;
        options.cache_mb = 0.05;
        const DeviceMatrix X = backend->upload(data.X);
        const SmoResult full = backend->smo().solve(backend->kernel_matrix(spec, X, X), data.y, options);
        const SmoResult streamed = backend->smo().solve(spec, X, data.y, options);
        EXPECT_NEAR(full.objective, streamed.objective, 1e-9 * std::abs(full.objective))
            << to_string(type);
        EXPECT_NEAR(full.bias, streamed.bias, 1e-5) << to_string(type);
    }
}

TEST_P(Smo, ShrinkingDoesNotChangeTheSolution) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 12);
    const Dataset data = random_two_class(350, 5, rng, 0.2);
    KernelSpec linear;
    const DeviceMatrix X = backend->upload(data.X);
    const DeviceMatrix K = backend->kernel_matrix(linear, X, X);
    SmoOptions options;
    options.tolerance = 1e-7;
    const SmoResult with = backend->smo().solve(K, data.y, options);
    options.shrinking = false;
    const SmoResult without = backend->smo().solve(K, data.y, options);
    EXPECT_NEAR(with.objective, without.objective, 1e-7 * std::abs(with.objective));
}

TEST_P(Smo, WarmStartFromSolutionConvergesImmediately) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 13);
    const Dataset data = random_two_class(200, 6, rng);
    KernelSpec rbf;
    rbf.type = KernelType::Rbf;
    rbf.gamma = 0.3;
    const DeviceMatrix X = backend->upload(data.X);
    const DeviceMatrix K = backend->kernel_matrix(rbf, X, X);
    SmoOptions options;
    options.tolerance = 1e-6;
    const SmoResult cold = backend->smo().solve(K, data.y, options);
    const SmoResult warm = backend->smo().solve(K, data.y, options, &cold.beta);
    EXPECT_LE(warm.iterations, cold.iterations / 4);
    EXPECT_NEAR(warm.objective, cold.objective, 1e-9 * std::abs(cold.objective));
    // An infeasible warm start (outside the box, y'beta != 0) is repaired, not rejected.
    const Vector wild = Vector::Constant(data.y.size(), 5.0) + data.y;
    const SmoResult repaired = backend->smo().solve(K, data.y, options, &wild);
    EXPECT_NEAR(repaired.objective, cold.objective, 1e-5 * std::abs(cold.objective));
    expect_invariants(repaired, data.y, options.C, 1e-6);
}

TEST_P(Smo, HardMarginWithRidgeMatchesLibsvmOnShiftedKernel) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 14);
    const Dataset data = random_two_class(150, 4, rng, 0.2);  // inseparable
    KernelSpec linear;
    const DeviceMatrix X = backend->upload(data.X);
    const DeviceMatrix dK = backend->kernel_matrix(linear, X, X);
    SmoOptions options;
    options.C = std::numeric_limits<double>::infinity();
    options.ridge = 0.5;
    options.tolerance = 1e-8;
    const SmoResult ours = backend->smo().solve(dK, data.y, options);
    ASSERT_EQ(ours.status, Status::Success);
    const Matrix K_ridge = backend->download(dK) + 0.5 * Matrix::Identity(150, 150);
    const auto ref = run_libsvm(K_ridge, data.y, 1e12, 1e-8);
    const double ref_obj = dual_objective(K_ridge, data.y, ref.beta);
    EXPECT_NEAR(ours.objective, ref_obj, 1e-6 * std::abs(ref_obj));
    expect_invariants(ours, data.y, options.C, 1e-8);
}

TEST_P(Smo, DegenerateInputsTerminate) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    // Duplicate points with opposite labels and a constant feature.
    Matrix Xm(6, 3);
    Xm << 1, 0, 5, 1, 0, 5, 2, 1, 5, 2, 1, 5, 0, 1, 5, 0, 1, 5;
    Vector y(6);
    y << 1, -1, 1, -1, 1, -1;
    const DeviceMatrix X = backend->upload(Xm);
    KernelSpec linear;
    SmoOptions options;
    const SmoResult r = backend->smo().solve(backend->kernel_matrix(linear, X, X), y, options);
    expect_invariants(r, y, options.C, options.tolerance);
    // A non-PSD "kernel" (symmetric with negative eigenvalues) must still stop with a bounded result.
    std::mt19937_64 rng(test_seed() + 15);
    Matrix S = testing::random_matrix(40, 40, rng);
    S = (S + S.transpose()).eval();
    Vector y40(40);
    for (Index i = 0; i < 40; ++i) y40[i] = i % 2 ? 1.0 : -1.0;
    options.max_iterations = 100000;
    const SmoResult nonpsd = backend->smo().solve(backend->upload(S), y40, options);
    EXPECT_TRUE(nonpsd.beta.allFinite());
    expect_invariants(nonpsd, y40, options.C, 1.0);
}

TEST_P(Smo, BadInputIsAClearError) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    const DeviceMatrix K = backend->upload(Matrix::Identity(4, 4));
    Vector one_class = Vector::Ones(4);
    SmoOptions options;
    EXPECT_THROW(backend->smo().solve(K, one_class, options), InvalidArgument);
    Vector y(4);
    y << 1, -1, 2, -1;
    EXPECT_THROW(backend->smo().solve(K, y, options), InvalidArgument);
    y << 1, -1, 1, -1;
    EXPECT_THROW(backend->smo().solve(K, Vector(Vector::Ones(3)), options), DimensionMismatch);
    options.C = -1;
    EXPECT_THROW(backend->smo().solve(K, y, options), InvalidArgument);
    options.C = std::numeric_limits<double>::infinity();  // without a ridge
    EXPECT_THROW(backend->smo().solve(K, y, options), InvalidArgument);
    options.C = 1;
    Matrix nan_kernel = Matrix::Identity(4, 4);
    nan_kernel(1, 2) = std::nan("");
    EXPECT_THROW(backend->smo().solve(backend->upload(nan_kernel), y, options), InvalidArgument);
}

TEST_P(Smo, IterationCapIsReported) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 16);
    const Dataset data = random_two_class(200, 5, rng, 0.1);
    KernelSpec linear;
    const DeviceMatrix X = backend->upload(data.X);
    SmoOptions options;
    options.max_iterations = 3;
    const SmoResult r = backend->smo().solve(backend->kernel_matrix(linear, X, X), data.y, options);
    EXPECT_EQ(r.status, Status::NoConvergence);
    EXPECT_EQ(r.iterations, 3);
    expect_invariants(r, data.y, options.C, 0.0);
}

// The stopping rule is gap <= tolerance, checked before the cap, on every backend. K = I,
// y = (1, -1), C = 1: the gap at beta = 0 is exactly 2, and one step reaches the optimum (1, 1).
TEST_P(Smo, StoppingRuleAndCapAtTheirEdges) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    const DeviceMatrix K = backend->upload(Matrix::Identity(2, 2));
    Vector y(2);
    y << 1, -1;
    SmoOptions options;
    options.C = 1.0;
    options.tolerance = 2.0;
    const SmoResult at_start = backend->smo().solve(K, y, options);
    EXPECT_EQ(at_start.status, Status::Success);
    EXPECT_EQ(at_start.iterations, 0);
    EXPECT_TRUE(exactly_equal(at_start.beta, Vector::Zero(2)));
    EXPECT_EQ(at_start.kkt_gap, 2.0);
    options.tolerance = 1e-3;
    options.max_iterations = 1;
    const SmoResult last_step = backend->smo().solve(K, y, options);
    EXPECT_EQ(last_step.status, Status::Success);
    EXPECT_EQ(last_step.iterations, 1);
    EXPECT_NEAR(last_step.beta[0], 1.0, 1e-15);
    EXPECT_NEAR(last_step.beta[1], 1.0, 1e-15);
    EXPECT_NEAR(last_step.objective, -1.0, 1e-15);
}

ZN_INSTANTIATE_FOR_BACKENDS(Smo);

}  // namespace
}  // namespace zeronorm
