// AlignmentOps::weighted_kernel_sum_batch on every backend and the reference: the backends
// against the reference's definition (every pair, every feature) on random inputs, every one
// against central finite differences of its own values, the batch against single weight
// vectors, and bad operands.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "reference/reference.hpp"
#include "support/backends.hpp"
#include "support/random.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/ops/alignment_ops.hpp"

namespace zeronorm {
namespace {

using testing::BackendUnderTest;

class AlignmentOpsTest : public ::testing::TestWithParam<BackendUnderTest> {};

struct Problem {
    AlignmentKernelSpec spec;
    Matrix X, Y, Theta;
};

// n points in d features (chi-square: nonnegative, some zeros so that x + z = 0 occurs), the
// alignment's pair weights y_n y_n' (y_n = y_i / n_{y_i}) plus a random symmetric part, and P
// weight vectors in [0, 1] (one with exact zeros).
Problem random_problem(AlignmentKernel type, Index n, Index d, Index P, std::mt19937_64& rng) {
    Problem p;
    p.spec.type = type;
    const bool chi = type == AlignmentKernel::ChiSquare;
    p.spec.scale = chi ? 0.3 : 1.0 / (2.0 * (double(d) / 4.0));  // rho; sigma = sqrt(d) / 2
    p.X = testing::random_matrix(n, d, rng, chi ? 0.0 : -1.5, 1.5);
    if (chi)
        for (Index i = 0; i < n; i += 3) {
            p.X(i, i % d) = 0.0;
            p.X((i + 1) % n, i % d) = 0.0;
        }
    Vector y(n);
    const double positives = double((n + 2) / 3);  // every third point is of class +1
    for (Index i = 0; i < n; ++i)
        y[i] = i % 3 == 0 ? 1.0 / positives : -1.0 / (double(n) - positives);
    const Matrix S = testing::random_matrix(n, n, rng, -0.05, 0.05);
    p.Y = y * y.transpose() + S + S.transpose();
    p.Theta = testing::random_matrix(d, P, rng, 0.0, 1.0);
    p.Theta(0, 0) = 0.0;
    return p;
}

struct Outcome {
    std::vector<double> values;
    Matrix gradient;
};

Outcome evaluate(Backend& backend, const Problem& p, const Matrix& Theta) {
    const DeviceMatrix X = backend.upload(p.X), Y = backend.upload(p.Y), T = backend.upload(Theta);
    DeviceMatrix G = backend.allocate(Theta.rows(), Theta.cols());
    Outcome o;
    o.values = backend.alignment().weighted_kernel_sum_batch(p.spec, X, Y, T, G);
    o.gradient = backend.download(G);
    return o;
}

TEST_P(AlignmentOpsTest, MatchesTheDefinitionOnRandomInputs) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(testing::test_seed());
    for (const AlignmentKernel type : {AlignmentKernel::Gaussian, AlignmentKernel::ChiSquare})
        for (const auto& [n, d] : {std::pair<Index, Index>{7, 3}, {23, 11}, {2, 40}}) {
            SCOPED_TRACE(::testing::Message() << "chi-square " << (type == AlignmentKernel::ChiSquare)
                                            << ", n " << n << ", d " << d);
            const Problem p = random_problem(type, n, d, 3, rng);
            const Outcome o = evaluate(*backend, p, p.Theta);
            ASSERT_EQ(o.values.size(), 3u);
            for (Index q = 0; q < 3; ++q) {
                Vector g;
                const double v = reference::weighted_kernel_sum(p.spec, p.X, p.Y, p.Theta.col(q), g);
                const double scale = p.Y.cwiseAbs().sum();  // |value| and |gradient| are below it
                EXPECT_NEAR(o.values[std::size_t(q)], v, 1e-12 * scale);
                EXPECT_LE((o.gradient.col(q) - g).cwiseAbs().maxCoeff(),
                          1e-11 * scale * (1.0 + g.cwiseAbs().maxCoeff()));
            }
        }
}

TEST_P(AlignmentOpsTest, GradientMatchesFiniteDifferences) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(testing::test_seed() + 1);
    for (const AlignmentKernel type : {AlignmentKernel::Gaussian, AlignmentKernel::ChiSquare}) {
        const Problem p = random_problem(type, 9, 5, 1, rng);
        Matrix theta = p.Theta;
        theta(0, 0) = 0.4;  // central differences need room on both sides
        const Outcome at = evaluate(*backend, p, theta);
        const double h = 1e-5;
        for (Index k = 0; k < theta.rows(); ++k) {
            Matrix up = theta, down = theta;
            up(k, 0) += h;
            down(k, 0) -= h;
            const double fd =
                (evaluate(*backend, p, up).values[0] - evaluate(*backend, p, down).values[0]) /
                (2.0 * h);
            EXPECT_NEAR(at.gradient(k, 0), fd, 1e-7 * (1.0 + std::fabs(fd)))
                << "feature " << k << ", chi-square " << (type == AlignmentKernel::ChiSquare);
        }
    }
}

TEST_P(AlignmentOpsTest, BatchEqualsSingleVectorsAndZeroWeightsGiveTheSumOfY) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(testing::test_seed() + 2);
    for (const AlignmentKernel type : {AlignmentKernel::Gaussian, AlignmentKernel::ChiSquare}) {
        Problem p = random_problem(type, 12, 6, 4, rng);
        p.Theta.col(3).setZero();  // K = 1 everywhere
        const Outcome batch = evaluate(*backend, p, p.Theta);
        for (Index q = 0; q < 4; ++q) {
            const Outcome one = evaluate(*backend, p, p.Theta.col(q));
            EXPECT_NEAR(batch.values[std::size_t(q)], one.values[0], 1e-13);
            EXPECT_LE((batch.gradient.col(q) - one.gradient.col(0)).cwiseAbs().maxCoeff(), 1e-13);
        }
        EXPECT_NEAR(batch.values[3], p.Y.sum(), 1e-12);
    }
}

TEST_P(AlignmentOpsTest, RejectsBadOperands) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(5);
    const Problem p = random_problem(AlignmentKernel::Gaussian, 5, 3, 2, rng);
    const DeviceMatrix X = backend->upload(p.X), Y = backend->upload(p.Y), T = backend->upload(p.Theta);
    DeviceMatrix G = backend->allocate(3, 2), narrow = backend->allocate(3, 1);
    AlignmentOps& ops = backend->alignment();
    EXPECT_THROW(ops.weighted_kernel_sum_batch(p.spec, X, Y, T, narrow), DimensionMismatch);
    EXPECT_THROW(ops.weighted_kernel_sum_batch(p.spec, X, X, T, G), DimensionMismatch);
    EXPECT_THROW(ops.weighted_kernel_sum_batch(p.spec, Y, Y, T, G), DimensionMismatch);
    AlignmentKernelSpec bad = p.spec;
    for (const double scale : {0.0, -1.0, std::nan(""), double(INFINITY)}) {
        bad.scale = scale;
        EXPECT_THROW(ops.weighted_kernel_sum_batch(bad, X, Y, T, G), InvalidArgument) << scale;
    }
    DeviceMatrix aliased = T;
    EXPECT_THROW(ops.weighted_kernel_sum_batch(p.spec, X, Y, T, aliased), InvalidArgument);
}

// Every W^2 without one feature against the reference's kernel rebuilt without it (and without
// none, last), on random inputs of several shapes; one feature left out leaves K = 1.
TEST_P(AlignmentOpsTest, RemovalSumsMatchKernelRebuilds) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(testing::test_seed());
    for (const auto& [n, d] : {std::pair<Index, Index>{17, 9}, {40, 3}, {2, 25}, {1, 4}})
        for (const double gamma : {0.05, 0.7}) {
            SCOPED_TRACE(::testing::Message() << "n " << n << ", d " << d << ", gamma " << gamma);
            const Matrix X = testing::random_matrix(n, d, rng, -2.0, 2.0);
            const Vector v = testing::random_matrix(n, 1, rng);
            const auto sums = backend->alignment().gaussian_removal_sums(
                gamma, backend->upload(X), backend->upload(v));
            const auto expected = reference::gaussian_removal_sums(gamma, X, v);
            ASSERT_EQ(sums.size(), std::size_t(d + 1));
            for (std::size_t p = 0; p < sums.size(); ++p)
                EXPECT_NEAR(sums[p], expected[p], 1e-12 * (1 + std::abs(expected[p]))) << p;
        }
    const Matrix X = testing::random_matrix(6, 1, rng);
    const Vector v = testing::random_matrix(6, 1, rng);
    const auto one = backend->alignment().gaussian_removal_sums(0.3, backend->upload(X),
                                                                backend->upload(v));
    EXPECT_NEAR(one[0], v.sum() * v.sum(), 1e-12 * (1 + v.squaredNorm()));
    AlignmentOps& ops = backend->alignment();
    EXPECT_THROW(ops.gaussian_removal_sums(0.3, backend->upload(X), backend->upload(v.head(3))),
                 DimensionMismatch);
    for (const double scale : {0.0, -1.0, std::nan(""), double(INFINITY)})
        EXPECT_THROW(ops.gaussian_removal_sums(scale, backend->upload(X), backend->upload(v)),
                     InvalidArgument)
            << scale;
}

ZN_INSTANTIATE_FOR_BACKENDS_AND_REFERENCE(AlignmentOpsTest);

}  // namespace
}  // namespace zeronorm
