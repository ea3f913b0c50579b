// SMO with the Newton finish (src/dense_dual.hpp) against plain SMO run to a much tighter
// tolerance: same optimum on random problems of every kind the library solves (soft margin,
// hard margin with a ridge, linear and RBF kernels, duplicated points); unchanged at loose
// tolerances; and on both backends.
#include <gtest/gtest.h>

#include <random>

#include "backends.hpp"
#include "dense_dual.hpp"
#include "random.hpp"

namespace zeronorm {
namespace {

struct Case {
    KernelType kernel;
    double C, ridge;
    Index n, d;
};

class DenseDual : public ::testing::TestWithParam<BackendKind> {};

TEST_P(DenseDual, NewtonFinishReachesThePlainSmoOptimum) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed());
    const double inf = std::numeric_limits<double>::infinity();
    const Case cases[] = {{KernelType::Linear, 1.0, 0.0, 60, 500},
                          {KernelType::Linear, inf, 1e-3, 50, 2000},
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
        newton_used += fast.iterations < backend->solve_smo(K, data.y, options).iterations;
        options.tolerance = 1e-12;
        const SmoResult exact = backend->solve_smo(K, data.y, options);
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
    const SmoResult b = backend->solve_smo(K, data.y, options);
    EXPECT_EQ(a.beta, b.beta);
    EXPECT_EQ(a.iterations, b.iterations);
    // LIBSVM's default 1e-3: the answer meets it, and is no worse than plain SMO's.
    options.tolerance = 1e-3;
    const SmoResult c = detail::solve_dense_dual(*backend, K, data.y, options);
    const SmoResult d = backend->solve_smo(K, data.y, options);
    EXPECT_LE(c.kkt_gap, 1e-3);
    EXPECT_LE(c.objective, d.objective + 1e-12 * std::abs(d.objective));
}

ZN_INSTANTIATE_FOR_BACKENDS(DenseDual);

}  // namespace
}  // namespace zeronorm
