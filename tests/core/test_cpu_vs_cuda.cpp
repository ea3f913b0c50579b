// The CUDA backend against the CPU backend on the same random inputs (skips without a device).
#include <gtest/gtest.h>

#include "support/backends.hpp"
#include "support/random.hpp"
#include "zeronorm/core/ops/smo_ops.hpp"

namespace zeronorm {
namespace {

using testing::random_matrix;
using testing::random_two_class;
using testing::test_seed;

TEST(CpuVsCuda, KernelsGemmCholeskyAndSmoAgree) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(gpu, BackendKind::Cuda);
    auto cpu = make_cpu_backend();
    std::mt19937_64 rng(test_seed() + 100);
    const Dataset data = random_two_class(377, 41, rng, 0.25);
    const Vector z = random_matrix(41, 1, rng, 0.0, 1.0).col(0);
    for (KernelType type : {KernelType::Linear, KernelType::Polynomial, KernelType::Rbf}) {
        SCOPED_TRACE(to_string(type));
        KernelSpec spec;
        spec.type = type;
        spec.gamma = 0.05;
        spec.coef0 = 1;
        spec.degree = 2;
        const DeviceMatrix Xc = cpu->upload(data.X), Xg = gpu->upload(data.X);
        const DeviceMatrix zc = cpu->upload(z), zg = gpu->upload(z);
        const DeviceMatrix Kc = cpu->kernel_matrix(spec, Xc, Xc, &zc);
        const DeviceMatrix Kg = gpu->kernel_matrix(spec, Xg, Xg, &zg);
        const Matrix Kc_host = cpu->download(Kc);
        EXPECT_LT((Kc_host - gpu->download(Kg)).cwiseAbs().maxCoeff(), 1e-10 * Kc_host.cwiseAbs().maxCoeff());
        SmoOptions options;
        options.C = 0.7;
        options.tolerance = 1e-8;
        const SmoResult rc = cpu->smo().solve(Kc, data.y, options);
        const SmoResult rg = gpu->smo().solve(Kg, data.y, options);
        EXPECT_EQ(rg.status, Status::Success);
        EXPECT_NEAR(rc.objective, rg.objective, 1e-7 * std::abs(rc.objective));
        EXPECT_NEAR(rc.bias, rg.bias, 1e-4 * std::max(1.0, std::abs(rc.bias)));
        EXPECT_LT((rc.beta - rg.beta).cwiseAbs().maxCoeff(), 1e-4 * options.C);
    }
}

}  // namespace
}  // namespace zeronorm
