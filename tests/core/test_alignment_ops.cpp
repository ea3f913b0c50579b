// AlignmentOps::weighted_kernel_sum_batch on every backend and the reference: the backends
// against the reference's definition (every pair, every feature) on random inputs, every one
// against central finite differences of its own values, the batch against single weight
// vectors, and bad operands.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>

#include "reference/reference.hpp"
#include "support/backends.hpp"
#include "support/matrix_checks.hpp"
#include "support/random.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/ops/alignment_ops.hpp"

namespace zeronorm {
namespace {

using testing::exactly_equal;
using testing::BackendUnderTest;

class AlignmentOpsTest : public ::testing::TestWithParam<BackendUnderTest> {};

struct Problem {
    AlignmentKernelSpec spec;
    Matrix X, Y, Theta;
};

// n points in d features (chi-square: nonnegative, some zeros so that x + z = 0 occurs), the
// alignment's pair weights y_n y_n' (y_n = y_i / n_{y_i}) plus a random part that is not
// symmetric (the sums take any pair weights), and P weight vectors in [0, 1] (one with exact
// zeros).
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
    p.Y = y * y.transpose() + testing::random_matrix(n, n, rng, -0.1, 0.1);
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

// The sums over the pairs of two point sets: against the reference's definition, against the
// symmetric sums over the stacked points with the weights [[0, Y/2], [Y'/2, 0]], against central
// finite differences, and with an empty set (no pair).
TEST_P(AlignmentOpsTest, CrossSumsMatchTheDefinitionAndTheStackedSymmetricSum) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(testing::test_seed() + 3);
    AlignmentOps& ops = backend->alignment();
    for (const AlignmentKernel type : {AlignmentKernel::Gaussian, AlignmentKernel::ChiSquare})
        for (const auto& [m, q, d] : {std::tuple<Index, Index, Index>{7, 5, 3},
                                      {23, 11, 8},
                                      {1, 4, 6},
                                      {13, 1, 2}}) {
            SCOPED_TRACE(::testing::Message() << "chi-square " << (type == AlignmentKernel::ChiSquare)
                                            << ", m " << m << ", q " << q << ", d " << d);
            const Problem stacked = random_problem(type, m + q, d, 3, rng);
            const Matrix A = stacked.X.topRows(m), B = stacked.X.bottomRows(q);
            const Matrix Y = testing::random_matrix(m, q, rng, -1.0, 1.0);
            const DeviceMatrix T = backend->upload(stacked.Theta);
            DeviceMatrix G = backend->allocate(d, 3);
            const std::vector<double> values = ops.cross_kernel_sum_batch(
                stacked.spec, backend->upload(A), backend->upload(B), backend->upload(Y), T, G);
            const Matrix gradient = backend->download(G);
            Matrix Y_stacked = Matrix::Zero(m + q, m + q);
            Y_stacked.topRightCorner(m, q) = 0.5 * Y;
            Y_stacked.bottomLeftCorner(q, m) = 0.5 * Y.transpose();
            Problem symmetric = stacked;
            symmetric.Y = Y_stacked;
            const Outcome o = evaluate(*backend, symmetric, stacked.Theta);
            ASSERT_EQ(values.size(), 3u);
            const double scale = Y.cwiseAbs().sum();
            for (Index p = 0; p < 3; ++p) {
                Vector g;
                const double v = reference::cross_kernel_sum(stacked.spec, A, B, Y,
                                                              stacked.Theta.col(p), g);
                EXPECT_NEAR(values[std::size_t(p)], v, 1e-12 * scale);
                EXPECT_NEAR(values[std::size_t(p)], o.values[std::size_t(p)], 1e-12 * scale);
                const double tolerance = 1e-11 * scale * (1.0 + g.cwiseAbs().maxCoeff());
                EXPECT_LE((gradient.col(p) - g).cwiseAbs().maxCoeff(), tolerance);
                EXPECT_LE((gradient.col(p) - o.gradient.col(p)).cwiseAbs().maxCoeff(), tolerance);
            }
            // Central differences at a point with room on both sides (the kernels clamp a
            // negative exponent, which only a negative weight can make).
            const double h = 1e-5;
            const Matrix at = stacked.Theta.col(0).cwiseMax(0.01);
            const DeviceMatrix Ad = backend->upload(A), Bd = backend->upload(B),
                               Yd = backend->upload(Y);
            DeviceMatrix at_gradient = backend->allocate(d, 1), unused = backend->allocate(d, 1);
            ops.cross_kernel_sum_batch(stacked.spec, Ad, Bd, Yd, backend->upload(at), at_gradient);
            const Vector g_at = backend->download(at_gradient).col(0);
            for (Index k = 0; k < d; ++k) {
                Matrix up = at, down = at;
                up(k, 0) += h;
                down(k, 0) -= h;
                const double fd = (ops.cross_kernel_sum_batch(stacked.spec, Ad, Bd, Yd,
                                                              backend->upload(up), unused)[0] -
                                   ops.cross_kernel_sum_batch(stacked.spec, Ad, Bd, Yd,
                                                              backend->upload(down), unused)[0]) /
                                  (2.0 * h);
                EXPECT_NEAR(g_at[k], fd, 1e-7 * scale * (1.0 + std::fabs(fd))) << k;
            }
        }
    // No pair: value 0 and a zero gradient.
    const Matrix A = testing::random_matrix(4, 3, rng);
    DeviceMatrix G = backend->upload(Matrix::Constant(3, 2, 7.0));
    const std::vector<double> none = ops.cross_kernel_sum_batch(
        AlignmentKernelSpec{}, backend->upload(A), backend->upload(Matrix(0, 3)),
        backend->upload(Matrix(4, 0)), backend->upload(Matrix::Constant(3, 2, 0.5)), G);
    EXPECT_EQ(none, std::vector<double>(2, 0.0));
    EXPECT_TRUE(exactly_equal(backend->download(G), Matrix::Zero(3, 2)));
}

TEST_P(AlignmentOpsTest, CrossSumsRejectBadOperands) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(6);
    const DeviceMatrix A = backend->upload(testing::random_matrix(5, 3, rng)),
                       B = backend->upload(testing::random_matrix(4, 3, rng)),
                       Y = backend->upload(testing::random_matrix(5, 4, rng)),
                       T = backend->upload(testing::random_matrix(3, 2, rng, 0.0, 1.0)),
                       wide = backend->upload(testing::random_matrix(4, 4, rng));
    DeviceMatrix G = backend->allocate(3, 2), narrow = backend->allocate(3, 1);
    AlignmentOps& ops = backend->alignment();
    const AlignmentKernelSpec spec;
    EXPECT_THROW(ops.cross_kernel_sum_batch(spec, A, B, Y, T, narrow), DimensionMismatch);
    EXPECT_THROW(ops.cross_kernel_sum_batch(spec, A, B, wide, T, G), DimensionMismatch);
    EXPECT_THROW(ops.cross_kernel_sum_batch(spec, A, wide, Y, T, G), DimensionMismatch);
    EXPECT_THROW(ops.cross_kernel_sum_batch(spec, A, B, Y, Y, G), DimensionMismatch);
    AlignmentKernelSpec bad;
    for (const double scale : {0.0, -1.0, std::nan(""), double(INFINITY)}) {
        bad.scale = scale;
        EXPECT_THROW(ops.cross_kernel_sum_batch(bad, A, B, Y, T, G), InvalidArgument) << scale;
    }
    DeviceMatrix aliased = T;
    EXPECT_THROW(ops.cross_kernel_sum_batch(spec, A, B, Y, T, aliased), InvalidArgument);
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
