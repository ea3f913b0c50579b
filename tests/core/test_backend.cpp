// Backend primitives against the reference (tests/reference/), for the reference itself and
// every backend built.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numeric>

#include "reference/reference.hpp"
#include "support/backends.hpp"
#include "support/matrix_checks.hpp"
#include "support/random.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/kernel.hpp"
#include "zeronorm/core/ops/arom_ops.hpp"
#include "zeronorm/core/ops/rfe_ops.hpp"
#include "zeronorm/core/ops/smo_ops.hpp"
#include "zeronorm/core/preprocess.hpp"

namespace zeronorm {
namespace {

using testing::exactly_equal;
using testing::random_matrix;
using testing::test_seed;

class BackendPrimitives : public ::testing::TestWithParam<testing::BackendUnderTest> {};

// Largest entry of |got - want| relative to want's largest entry (at least 1).
double relative_error(const Matrix& got, const Matrix& want) {
    return (got - want).cwiseAbs().maxCoeff() / std::max(1.0, want.cwiseAbs().maxCoeff());
}

std::vector<KernelSpec> all_kernels(Index d, std::mt19937_64& rng) {
    std::vector<KernelSpec> specs;
    KernelSpec s;
    s.type = KernelType::Linear;
    specs.push_back(s);
    s.type = KernelType::Polynomial; s.gamma = 0.7; s.coef0 = 1.0; s.degree = 3;
    specs.push_back(s);
    s.type = KernelType::SumOfPowers; s.degree = 4;
    specs.push_back(s);
    s.type = KernelType::Rbf; s.gamma = 0.3;
    specs.push_back(s);
    s.type = KernelType::WeightedRbf; s.theta = random_matrix(d, 1, rng, 0.0, 1.0).col(0);
    specs.push_back(s);
    s.type = KernelType::Chi2; s.gamma = 0.5; s.theta.resize(0);
    specs.push_back(s);
    return specs;
}

TEST_P(BackendPrimitives, UploadDownloadRoundTrip) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed());
    const Matrix A = random_matrix(67, 13, rng);
    EXPECT_TRUE(exactly_equal(backend->download(backend->upload(A)), A));
    EXPECT_EQ(backend->download(backend->upload(Matrix(0, 5))).size(), 0);
}

TEST_P(BackendPrimitives, KernelMatrixMatchesReference) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 1);
    const Index d = 17;
    // chi2 needs non-negative inputs; the others get signed ones.
    for (const KernelSpec& spec : all_kernels(d, rng)) {
        SCOPED_TRACE(to_string(spec.type));
        const double lo = spec.type == KernelType::Chi2 ? 0.0 : -1.0;
        Matrix A = random_matrix(53, d, rng, lo, 1.0);
        A.col(3).setZero();  // a zero feature (chi2 must skip 0/0 terms)
        const Matrix B = random_matrix(31, d, rng, lo, 1.0);
        const Vector z = random_matrix(d, 1, rng, 0.0, 2.0).col(0);
        const DeviceMatrix dA = backend->upload(A), dB = backend->upload(B), dz = backend->upload(z);

        const Matrix K_ab = backend->download(backend->kernel_matrix(spec, dA, dB));
        EXPECT_LT(relative_error(K_ab, reference::kernel_matrix(spec, A, B)), 1e-11);
        const Matrix K_aa = backend->download(backend->kernel_matrix(spec, dA, dA));
        EXPECT_LT(relative_error(K_aa, reference::kernel_matrix(spec, A, A)), 1e-11);
        EXPECT_EQ(K_aa, K_aa.transpose());  // the symmetric path is exactly symmetric
        const Matrix K_z = backend->download(backend->kernel_matrix(spec, dA, dB, &dz));
        EXPECT_LT(relative_error(K_z, reference::kernel_matrix(spec, A, B, &z)), 1e-11);
    }
}

TEST_P(BackendPrimitives, KernelMatrixRejectsMismatchedShapes) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    const DeviceMatrix A = backend->upload(Matrix::Ones(4, 3)), B = backend->upload(Matrix::Ones(4, 2));
    KernelSpec spec;
    EXPECT_THROW(backend->kernel_matrix(spec, A, B), DimensionMismatch);
    const DeviceMatrix z = backend->upload(Vector::Ones(5));
    EXPECT_THROW(backend->kernel_matrix(spec, A, A, &z), DimensionMismatch);
}

TEST_P(BackendPrimitives, GemmAllTransposes) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 2);
    const Index m = 37, k = 23, n = 19;
    for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb) {
            const Matrix A = ta ? random_matrix(k, m, rng) : random_matrix(m, k, rng);
            const Matrix B = tb ? random_matrix(n, k, rng) : random_matrix(k, n, rng);
            const Matrix C0 = random_matrix(m, n, rng);
            const Matrix expected = reference::gemm(ta, tb, 1.5, A, B, -0.5, C0);
            DeviceMatrix dC = backend->upload(C0);
            backend->gemm(ta, tb, 1.5, backend->upload(A), backend->upload(B), -0.5, dC);
            EXPECT_LT(relative_error(backend->download(dC), expected), 1e-13)
                << "trans_a=" << ta << " trans_b=" << tb;
        }
    DeviceMatrix wrong = backend->allocate(3, 3);
    EXPECT_THROW(backend->gemm(false, false, 1.0, backend->upload(Matrix::Ones(3, 2)),
                               backend->upload(Matrix::Ones(3, 3)), 0.0, wrong),
                 DimensionMismatch);
}

TEST_P(BackendPrimitives, SelectRowsAndColumns) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 3);
    const Matrix X = random_matrix(41, 29, rng);
    const DeviceMatrix dX = backend->upload(X);
    const IndexVector cols{28, 0, 5, 5, 17};
    const IndexVector rows{40, 3, 3, 0};
    EXPECT_TRUE(exactly_equal(backend->download(backend->select_columns(dX, cols)),
                              reference::select_columns(X, cols)));
    EXPECT_TRUE(exactly_equal(backend->download(backend->select_rows(dX, rows)),
                              reference::select_rows(X, rows)));
    EXPECT_THROW(backend->select_columns(dX, {29}), InvalidArgument);
    EXPECT_THROW(backend->select_rows(dX, {-1}), InvalidArgument);
    EXPECT_EQ(backend->select_columns(dX, {}).cols(), 0);
}

// A X = B by cholesky_factor and the two triangular solves L Y = B, L' X = Y.
TEST_P(BackendPrimitives, CholeskySolve) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 4);
    const Index n = 45;
    const Matrix G = random_matrix(n, n, rng);
    const Matrix A = G * G.transpose() + 0.5 * Matrix::Identity(n, n);
    const Matrix B = random_matrix(n, 3, rng);
    DeviceMatrix dA = backend->upload(A), dB = backend->upload(B);
    ASSERT_TRUE(backend->cholesky_factor(dA));
    backend->triangular_solve(dA, false, false, dB);
    backend->triangular_solve(dA, true, false, dB);
    const Matrix X = backend->download(dB);
    EXPECT_LT((A * X - B).cwiseAbs().maxCoeff(), 1e-9);

    Matrix indefinite = A;
    indefinite(7, 7) = -1.0;
    DeviceMatrix dI = backend->upload(indefinite);
    EXPECT_FALSE(backend->cholesky_factor(dI));
}

// SYRK (both forms, both triangles written), the Cholesky factor and the four triangular solves.
TEST_P(BackendPrimitives, SyrkCholeskyAndTriangularSolvesMatchTheReference) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 5);
    const Index n = 53, k = 31;
    const Matrix A = random_matrix(n, k, rng);
    const Matrix S = random_matrix(n, n, rng), Sk = random_matrix(k, k, rng);
    const Matrix C0 = S + S.transpose(), Ck0 = Sk + Sk.transpose();
    DeviceMatrix C = backend->upload(C0), Ck = backend->upload(Ck0);
    backend->syrk(false, 0.5, backend->upload(A), -2.0, C);
    backend->syrk(true, 1.5, backend->upload(A), 0.0, Ck);
    EXPECT_LT(relative_error(backend->download(C), reference::syrk(false, 0.5, A, -2.0, C0)), 1e-13);
    EXPECT_LT(relative_error(backend->download(Ck), reference::syrk(true, 1.5, A, 0.0, Ck0)), 1e-13);

    // A well-conditioned SPD matrix: A A' / k plus the identity.
    const Matrix spd = reference::syrk(false, 1.0 / double(k), A, 0.0, Matrix()) +
                       Matrix::Identity(n, n);
    DeviceMatrix F = backend->upload(spd);
    ASSERT_TRUE(backend->cholesky_factor(F));
    const Matrix L = *reference::cholesky(spd);
    const Matrix got_L = backend->download(F).triangularView<Eigen::Lower>();
    EXPECT_LT(relative_error(got_L, L), 1e-13);
    const Matrix B = random_matrix(n, 7, rng), Bt = random_matrix(7, n, rng);
    for (int t = 0; t < 4; ++t) {
        const bool transpose = t & 1, right = t & 2;
        const Matrix& rhs = right ? Bt : B;
        DeviceMatrix X = backend->upload(rhs);
        backend->triangular_solve(F, transpose, right, X);
        EXPECT_LT(relative_error(backend->download(X), reference::triangular_solve(L, transpose, right, rhs)),
                  1e-12)
            << "transpose " << transpose << " right " << right;
    }
    Matrix indefinite = spd;
    indefinite(11, 11) = -1.0;
    DeviceMatrix I = backend->upload(indefinite);
    EXPECT_FALSE(backend->cholesky_factor(I));
    EXPECT_FALSE(reference::cholesky(indefinite).has_value());
}

// Batched primitives against the reference: Grams of rescaled data (with features dropped by
// zero scales), strided GEMMs in every transpose, and SMO on many problems at once (cold and
// warm starts, inactive problems skipped) and one at a time against the exact dual solutions.
TEST_P(BackendPrimitives, ScaledGramBatchMatchesBlockByBlock) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 11);
    const Index P = 13, m = 37, l = 9, d = 70;
    const Matrix A = random_matrix(m, d * P, rng), B = random_matrix(l, d * P, rng);
    Matrix Z = random_matrix(d, P, rng, 0.0, 1.0);
    for (Index p = 0; p < P; ++p)
        for (Index j = p % 3; j < d; j += 3) Z(j, p) = 0.0;
    const DeviceMatrix dA = backend->upload(A), dB = backend->upload(B), dZ = backend->upload(Z);
    const Matrix K = backend->download(backend->scaled_gram_batch(dA, dA, dZ));
    const Matrix KB = backend->download(backend->scaled_gram_batch(dA, dB, dZ));
    ASSERT_EQ(K.rows(), m);
    ASSERT_EQ(K.cols(), m * P);
    ASSERT_EQ(KB.cols(), l * P);
    EXPECT_LT(relative_error(K, reference::scaled_gram_batch(A, A, Z)), 1e-13);
    EXPECT_LT(relative_error(KB, reference::scaled_gram_batch(A, B, Z)), 1e-13);
    // Single precision: float rounding (|K| <= 70 here, so errors of order 70 x 6e-8), and
    // really single: some entry differs from the double product.
    const Matrix K32 = backend->download(backend->scaled_gram_batch(dA, dA, dZ, Precision::Float32));
    const Matrix KB32 = backend->download(backend->scaled_gram_batch(dA, dB, dZ, Precision::Float32));
    EXPECT_LT((K32 - reference::scaled_gram_batch(A, A, Z, Precision::Float32)).cwiseAbs().maxCoeff(), 1e-4);
    EXPECT_LT((KB32 - reference::scaled_gram_batch(A, B, Z, Precision::Float32)).cwiseAbs().maxCoeff(), 1e-4);
    EXPECT_GT((K32 - K).cwiseAbs().maxCoeff(), 1e-12);
    for (Index p = 0; p < P; ++p)  // each entry is a float
        EXPECT_EQ(KB32(p, p * l), double(float(KB32(p, p * l))));
    EXPECT_THROW(backend->scaled_gram_batch(dA, dB, backend->upload(Matrix(Z.topRows(d - 1)))),
                 DimensionMismatch);
}

// The unscaled form: the Grams of the blocks as they are (the unit scales of the reference), in
// both precisions, and the same numbers as scaled_gram_batch with unit scales.
TEST_P(BackendPrimitives, GramBatchIsTheUnitScaledGram) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 12);
    const Index P = 11, m = 29, l = 7, d = 53;
    const Matrix A = random_matrix(m, d * P, rng), B = random_matrix(l, d * P, rng);
    const Matrix ones = Matrix::Ones(d, P);
    const DeviceMatrix dA = backend->upload(A), dB = backend->upload(B);
    for (const Precision precision : {Precision::Float64, Precision::Float32}) {
        const double tolerance = precision == Precision::Float64 ? 1e-13 : 1e-5;
        const Matrix K = backend->download(backend->gram_batch(P, dA, dA, precision));
        const Matrix KB = backend->download(backend->gram_batch(P, dA, dB, precision));
        ASSERT_EQ(K.cols(), m * P);
        ASSERT_EQ(KB.rows(), m);
        ASSERT_EQ(KB.cols(), l * P);
        EXPECT_LT(relative_error(K, reference::scaled_gram_batch(A, A, ones, precision)),
                  tolerance);
        EXPECT_LT(relative_error(KB, reference::scaled_gram_batch(A, B, ones, precision)),
                  tolerance);
        const DeviceMatrix dZ = backend->upload(ones);
        EXPECT_LT(relative_error(KB, backend->download(
                                         backend->scaled_gram_batch(dA, dB, dZ, precision))),
                  tolerance);
    }
    EXPECT_THROW(backend->gram_batch(P - 1, dA, dB), DimensionMismatch);
    EXPECT_THROW(backend->gram_batch(0, dA, dB), InvalidArgument);
    EXPECT_THROW(backend->gram_batch(P, dA, backend->upload(Matrix(B.leftCols(d * P - 1)))),
                 DimensionMismatch);
}

TEST_P(BackendPrimitives, SplitBatchMatchesTheReferencePerSplit) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 14);
    const Index N = 40, d = 23, P = 7, n = 25, m = 9;
    Matrix X = random_matrix(N, d, rng);
    X.col(4).setConstant(2.5);                         // constant: centred on its value, scale 1
    X.col(7) = (X.col(7).array() * 30.0 + 100.0).matrix();  // far from centred and unit scale
    const DeviceMatrix dX = backend->upload(X);
    std::vector<IndexVector> train_rows, test_rows;
    for (Index p = 0; p < P; ++p) {
        IndexVector perm(static_cast<std::size_t>(N));
        std::iota(perm.begin(), perm.end(), Index(0));
        std::shuffle(perm.begin(), perm.end(), rng);
        train_rows.emplace_back(perm.begin(), perm.begin() + n);
        test_rows.emplace_back(perm.begin() + n, perm.begin() + n + m);
    }
    for (const bool standardize : {false, true}) {
        SCOPED_TRACE(standardize ? "standardized" : "raw");
        const SplitBlocks b = backend->split_batch(dX, train_rows, test_rows, standardize);
        const Matrix train = backend->download(b.train), test = backend->download(b.test);
        ASSERT_EQ(train.rows(), n);
        ASSERT_EQ(test.rows(), m);
        ASSERT_EQ(test.cols(), d * P);
        const reference::Splits want = reference::split_batch(X, train_rows, test_rows, standardize);
        EXPECT_LT(relative_error(train, want.train), 1e-12);
        EXPECT_LT(relative_error(test, want.test), 1e-12);
    }
    std::vector<IndexVector> bad = test_rows;
    bad[2][0] = N;
    EXPECT_THROW(backend->split_batch(dX, train_rows, bad, true), InvalidArgument);
    bad = train_rows;
    bad[1].pop_back();
    EXPECT_THROW(backend->split_batch(dX, bad, test_rows, true), InvalidArgument);
    // A non-finite value in a training row cannot be standardised (raw, it is copied through).
    for (const double poison : {std::numeric_limits<double>::quiet_NaN(),
                                std::numeric_limits<double>::infinity()}) {
        Matrix Xbad = X;
        Xbad(train_rows[3][5], 11) = poison;
        const DeviceMatrix dXbad = backend->upload(Xbad);
        EXPECT_THROW(backend->split_batch(dXbad, train_rows, test_rows, true), InvalidArgument);
        const Matrix raw = backend->download(backend->split_batch(dXbad, train_rows, test_rows, false).train);
        EXPECT_EQ(std::isnan(raw(5, 3 * d + 11)), std::isnan(poison));
    }
}

TEST_P(BackendPrimitives, KernelBatchMatchesReferencePerBlock) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 15);
    const Index P = 7, m = 41, l = 10, d = 17;
    // Non-negative entries so that chi2 is defined too.
    const Matrix A = random_matrix(m, d * P, rng, 0.0, 1.0), B = random_matrix(l, d * P, rng, 0.0, 1.0);
    const DeviceMatrix dA = backend->upload(A), dB = backend->upload(B);
    for (const KernelSpec& spec : all_kernels(d, rng)) {
        SCOPED_TRACE(to_string(spec.type));
        const Matrix K = backend->download(backend->kernel_batch(spec, P, dA, dA));
        const Matrix KB = backend->download(backend->kernel_batch(spec, P, dA, dB));
        ASSERT_EQ(K.rows(), m);
        ASSERT_EQ(K.cols(), m * P);
        ASSERT_EQ(KB.cols(), l * P);
        // Relative to the largest entry: sum-of-powers values reach 17^4 here.
        EXPECT_LT(relative_error(K, reference::kernel_batch(spec, P, A, A)), 1e-11);
        EXPECT_LT(relative_error(KB, reference::kernel_batch(spec, P, A, B)), 1e-11);
        for (Index p = 0; p < P; ++p) {
            const Matrix Kp = K.middleCols(p * m, m);
            EXPECT_TRUE(exactly_equal(Kp, Kp.transpose()))
                << "block " << p << " is not exactly symmetric";
        }
    }
    KernelSpec linear;
    EXPECT_THROW(backend->kernel_batch(linear, P + 1, dA, dA), DimensionMismatch);
    EXPECT_THROW(backend->kernel_batch(linear, P, dA, backend->upload(Matrix(B.leftCols(d * P - 1)))),
                 DimensionMismatch);
}

TEST_P(BackendPrimitives, GatherBlocksMatchesIndexing) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 16);
    const Index B = 5, rows = 19, width = 23, Q = 11, r = 7, c = 13;
    const Matrix K = random_matrix(rows, width * B, rng);
    IndexVector source;
    std::vector<IndexVector> row_lists, col_lists;
    std::uniform_int_distribution<Index> pick_block(0, B - 1), pick_row(0, rows - 1),
        pick_col(0, width - 1);
    for (Index q = 0; q < Q; ++q) {
        source.push_back(pick_block(rng));
        IndexVector ri, ci;
        for (Index i = 0; i < r; ++i) ri.push_back(pick_row(rng));  // repeats allowed
        for (Index j = 0; j < c; ++j) ci.push_back(pick_col(rng));
        row_lists.push_back(ri);
        col_lists.push_back(ci);
    }
    const DeviceMatrix dK = backend->upload(K);
    const Matrix out = backend->download(backend->gather_blocks(dK, width, source, row_lists, col_lists));
    EXPECT_EQ(out, reference::gather_blocks(K, width, source, row_lists, col_lists));
    std::vector<IndexVector> bad = col_lists;
    bad[4][2] = width;
    EXPECT_THROW(backend->gather_blocks(dK, width, source, row_lists, bad), InvalidArgument);
    bad = row_lists;
    bad[1].pop_back();
    EXPECT_THROW(backend->gather_blocks(dK, width, source, bad, col_lists), InvalidArgument);
    IndexVector bad_source = source;
    bad_source[0] = B;
    EXPECT_THROW(backend->gather_blocks(dK, width, bad_source, row_lists, col_lists), InvalidArgument);
    EXPECT_THROW(backend->gather_blocks(dK, width + 1, source, row_lists, col_lists), DimensionMismatch);
}

TEST_P(BackendPrimitives, GemmBatchAllTransposes) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 12);
    const Index P = 6, m = 11, n = 5, k = 23;
    for (int t = 0; t < 4; ++t) {
        const bool ta = t & 1, tb = t & 2;
        const Matrix A = ta ? random_matrix(k, m * P, rng) : random_matrix(m, k * P, rng);
        const Matrix B = tb ? random_matrix(n, k * P, rng) : random_matrix(k, n * P, rng);
        const Matrix C0 = random_matrix(m, n * P, rng);
        const DeviceMatrix dA = backend->upload(A), dB = backend->upload(B);
        DeviceMatrix dC = backend->upload(C0);
        backend->gemm_batch(P, ta, tb, 0.5, dA, dB, 2.0, dC);
        EXPECT_LT(relative_error(backend->download(dC),
                                 reference::gemm_batch(P, ta, tb, 0.5, A, B, 2.0, C0)),
                  1e-13)
            << t;
    }
    DeviceMatrix bad = backend->allocate(m, n * P + 1);
    EXPECT_THROW(backend->gemm_batch(P, false, false, 1.0, backend->upload(random_matrix(m, k * P, rng)),
                                     backend->upload(random_matrix(k, n * P, rng)), 0.0, bad),
                 DimensionMismatch);
}

// An SMO result against the exact solution of its dual: the same optimum and bias, feasible,
// and optimal to the requested tolerance by the reference's KKT gap.
void expect_dual_solution(const SmoResult& got, const reference::Dual& dual,
                          const reference::DualSolution& want, double tolerance) {
    EXPECT_EQ(got.status, Status::Success);
    ASSERT_EQ(got.beta.size(), want.beta.size());
    EXPECT_LE(got.kkt_gap, tolerance);
    EXPECT_LE(reference::kkt_gap(dual, got.beta), 2 * tolerance);
    EXPECT_GE(got.beta.minCoeff(), 0.0);
    EXPECT_LE(got.beta.maxCoeff(), dual.C);
    EXPECT_NEAR(got.beta.dot(dual.y), dual.delta, 1e-10 * (1.0 + got.beta.sum()));
    EXPECT_NEAR(got.objective, want.objective, 1e-9 * std::abs(want.objective));
    EXPECT_NEAR(reference::dual_objective(dual, got.beta), want.objective,
                1e-9 * std::abs(want.objective));
    EXPECT_NEAR(got.bias, want.nu, 1e-6 * (1.0 + std::abs(want.nu)));
    // Q is positive definite here (a ridge): beta is unique.
    EXPECT_LT((got.beta - want.beta).cwiseAbs().maxCoeff(), 1e-6 * (1.0 + want.beta.maxCoeff()));
}

// P problems of size n, solved as one batch and one at a time (cold and warm starts).
void expect_smo_batch_matches_reference(Backend& backend, Index n, std::mt19937_64& rng) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const Index P = 9, d = 30;
    Matrix X = random_matrix(n, d * P, rng);
    Matrix Y(n, P);
    for (Index p = 0; p < P; ++p)
        for (Index i = 0; i < n; ++i) {
            Y(i, p) = (i + p) % 3 == 0 ? 1.0 : -1.0;
            X(i, p * d) += 0.8 * Y(i, p);  // some signal, still overlapping classes
        }
    const DeviceMatrix dX = backend.upload(X);
    const DeviceMatrix K = backend.gram_batch(P, dX, dX);
    const Matrix Kh = backend.download(K);
    SmoOptions options;
    options.C = 0.7;
    options.ridge = 1e-3;
    options.tolerance = 1e-9;
    std::vector<char> active(std::size_t(P), 1);
    active[3] = 0;
    const Matrix warm = random_matrix(n, P, rng, 0.0, 0.7);
    std::vector<reference::Dual> duals;
    std::vector<reference::DualSolution> exact;
    for (Index p = 0; p < P; ++p) {
        duals.push_back(reference::svm_dual(Kh.middleCols(p * n, n), Y.col(p), options.C, options.ridge));
        exact.push_back(reference::solve_dual(duals.back()));
    }
    for (const Matrix* start : {static_cast<const Matrix*>(nullptr), &warm}) {
        SCOPED_TRACE(start ? "warm" : "cold");
        const std::vector<SmoResult> batch = backend.smo().solve_batch(K, Y, options, start, active);
        ASSERT_EQ(batch.size(), std::size_t(P));
        EXPECT_EQ(batch[3].beta.size(), 0);
        for (Index p = 0; p < P; ++p) {
            if (!active[std::size_t(p)]) continue;
            SCOPED_TRACE("problem " + std::to_string(p));
            const Vector w = start ? Vector(start->col(p)) : Vector();
            const SmoResult one = backend.smo().solve(backend.upload(Matrix(Kh.middleCols(p * n, n))),
                                                    Y.col(p), options, start ? &w : nullptr);
            expect_dual_solution(batch[std::size_t(p)], duals[std::size_t(p)], exact[std::size_t(p)],
                                 options.tolerance);
            expect_dual_solution(one, duals[std::size_t(p)], exact[std::size_t(p)], options.tolerance);
        }
    }
    // An inactive problem's block may hold anything (NaN here): the active ones are solved as
    // before; a NaN in an active block is refused.
    Matrix K_nan = Kh;
    K_nan.middleCols(3 * n, n).setConstant(std::numeric_limits<double>::quiet_NaN());
    const std::vector<SmoResult> beside_nan =
        backend.smo().solve_batch(backend.upload(K_nan), Y, options, nullptr, active);
    for (Index p = 0; p < P; ++p) {
        if (!active[std::size_t(p)]) continue;
        SCOPED_TRACE("beside a NaN block, problem " + std::to_string(p));
        expect_dual_solution(beside_nan[std::size_t(p)], duals[std::size_t(p)],
                             exact[std::size_t(p)], options.tolerance);
    }
    if (backend.description().rfind("reference", 0) != 0) {  // the reference checks nothing
        EXPECT_THROW(backend.smo().solve_batch(backend.upload(K_nan), Y, options), InvalidArgument);
    }
    Matrix one_class = Y;
    one_class.col(2).setOnes();
    EXPECT_THROW(backend.smo().solve_batch(K, one_class, options), InvalidArgument);
    EXPECT_THROW(backend.smo().solve_batch(K, Matrix(Y.leftCols(P - 1)), options), DimensionMismatch);
    // Options are checked even when no problem is active.
    SmoOptions bad = options;
    bad.C = -1.0;
    EXPECT_THROW(backend.smo().solve_batch(K, Y, bad, nullptr, std::vector<char>(std::size_t(P), 0)),
                 InvalidArgument);
}

TEST_P(BackendPrimitives, SmoBatchAndSingleReachTheExactDualOptimum) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 13);
    // n = 48 fits the CUDA one-warp kernel's shared memory; n = 100 takes the block kernel.
    expect_smo_batch_matches_reference(*backend, 48, rng);
    expect_smo_batch_matches_reference(*backend, 100, rng);
}

// The AROM update against the reference's: u = z .* |z .* w|, u / max(u), prune; the same
// arithmetic, so the same bits.
TEST_P(BackendPrimitives, MultiplicativeUpdateBatchMatchesTheReference) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 17);
    const Index d = 1037, P = 23;
    const double tolerance = 1e-3;
    Matrix Z = random_matrix(d, P, rng, 0.0, 1.0);
    Matrix W = random_matrix(d, P, rng, -2.0, 2.0);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (Index p = 0; p < P; ++p)
        for (Index j = 0; j < d; ++j) {
            if (unit(rng) < 0.3) Z(j, p) = 0.0;                 // pruned earlier
            if (unit(rng) < 0.2) W(j, p) *= 1e-4;               // pruned now
        }
    W.col(3).setZero();                                         // degenerate: u = 0
    W(5, 4) = std::numeric_limits<double>::quiet_NaN();         // degenerate: NaN
    Z(5, 4) = 0.5;
    W(9, 6) = std::numeric_limits<double>::infinity();          // degenerate: Inf
    Z(9, 6) = 0.5;
    std::vector<char> update(std::size_t(P), 1);
    update[2] = update[11] = 0;                                 // left alone

    const DeviceMatrix Zd = backend->upload(Z), Wd = backend->upload(W);
    DeviceMatrix normalized = backend->allocate(d, P), next = backend->allocate(d, P);
    const std::vector<ScaleUpdate> out =
        backend->arom().multiplicative_update_batch(Zd, Wd, update, tolerance, normalized, next);
    const Matrix got_normalized = backend->download(normalized), got_next = backend->download(next);
    ASSERT_EQ(out.size(), std::size_t(P));
    for (Index p = 0; p < P; ++p) {
        SCOPED_TRACE(p);
        const ScaleUpdate& s = out[std::size_t(p)];
        const reference::AromColumn want =
            reference::arom_update(Z.col(p), W.col(p), update[std::size_t(p)] != 0, tolerance);
        EXPECT_EQ(s.degenerate, want.summary.degenerate);
        EXPECT_EQ(want.summary.degenerate, p == 3 || p == 4 || p == 6);
        EXPECT_EQ(got_normalized.col(p), want.normalized);
        EXPECT_EQ(got_next.col(p), want.next);
        EXPECT_EQ(s.survivors, want.summary.survivors);
        EXPECT_EQ(s.max_change, want.summary.max_change);
        if (update[std::size_t(p)] && !want.summary.degenerate) {  // some pruned, some kept
            EXPECT_GT(s.survivors, 0);
            EXPECT_LT(s.survivors, d);
        }
    }
    EXPECT_THROW(backend->arom().multiplicative_update_batch(Zd, Wd, update, tolerance, normalized,
                                                      normalized),
                 InvalidArgument);
    EXPECT_THROW(backend->arom().multiplicative_update_batch(Zd, Wd, std::vector<char>(2, 1), tolerance,
                                                      normalized, next),
                 DimensionMismatch);
    DeviceMatrix narrow = backend->allocate(d, P - 1);
    EXPECT_THROW(backend->arom().multiplicative_update_batch(Zd, Wd, update, tolerance, normalized, narrow),
                 DimensionMismatch);
}

TEST_P(BackendPrimitives, ReshapedReadsTheSameStorage) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    Matrix A(3, 4);
    for (Index k = 0; k < A.size(); ++k) A.data()[k] = double(k);
    const DeviceMatrix M = backend->upload(A);
    const DeviceMatrix row = M.reshaped(1, 12);
    EXPECT_EQ(row.data(), M.data());
    const Matrix got = backend->download(backend->select_columns(row, {11, 0, 4}));
    EXPECT_TRUE(exactly_equal(got, (Matrix(1, 3) << 11.0, 0.0, 4.0).finished()));
    EXPECT_TRUE(exactly_equal(backend->download(row.reshaped(3, 4)), A));
    EXPECT_THROW((void)M.reshaped(2, 5), DimensionMismatch);
    EXPECT_THROW((void)M.reshaped(-3, -4), DimensionMismatch);
}

// The selections of the batched AROM path: each request's rows are the first counts[q] of its
// column's stable descending order (a plain sort here), on columns with many ties, zeros of
// either sign and repeated requests.
TEST_P(BackendPrimitives, TopRowsArePrefixesOfTheStableDescendingOrder) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 19);
    const Index d = 1537, P = 41;
    std::uniform_int_distribution<int> level(0, 40);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    Matrix S(d, P);
    for (Index p = 0; p < P; ++p)
        for (Index j = 0; j < d; ++j) {
            const int l = level(rng);
            // A third pruned (zeros, some negative), ties among the coarse levels, the rest
            // distinct.
            S(j, p) = l < 13 ? (l % 2 ? -0.0 : 0.0) : l < 30 ? 0.125 * (l - 12) : unit(rng);
        }
    IndexVector columns, counts;
    std::uniform_int_distribution<Index> column(0, P - 1), count(0, d);
    for (int q = 0; q < 90; ++q) {
        columns.push_back(column(rng));
        counts.push_back(q % 9 == 0 ? d : q % 9 == 1 ? 0 : count(rng));
    }
    columns.push_back(columns.front());  // the same column again
    counts.push_back(1);
    const std::vector<IndexVector> got = backend->arom().top_rows(backend->upload(S), columns, counts);
    ASSERT_EQ(got.size(), columns.size());
    for (std::size_t q = 0; q < columns.size(); ++q) {
        const auto v = S.col(columns[q]);
        IndexVector order(static_cast<std::size_t>(d));
        std::iota(order.begin(), order.end(), Index(0));
        std::stable_sort(order.begin(), order.end(), [&](Index a, Index b) { return v[a] > v[b]; });
        order.resize(std::size_t(counts[q]));
        EXPECT_EQ(got[q], order) << "request " << q << ": column " << columns[q] << ", count "
                                 << counts[q];
    }
    const DeviceMatrix Sd = backend->upload(S);
    EXPECT_TRUE(backend->arom().top_rows(Sd, {}, {}).empty());
    EXPECT_THROW(backend->arom().top_rows(Sd, {0, 1}, {3}), DimensionMismatch);
    EXPECT_THROW(backend->arom().top_rows(Sd, {P}, {3}), InvalidArgument);
    EXPECT_THROW(backend->arom().top_rows(Sd, {0}, {d + 1}), InvalidArgument);
    EXPECT_THROW(backend->arom().top_rows(Sd, {0}, {-1}), InvalidArgument);
}

// RFE's elimination for a batch of splits: each split's order of w^2 (a plain stable sort,
// NaN last) from report_from on, and its surviving columns in ascending order, on criteria with
// ties (w and -w square alike), zeros of both signs, tiny w whose squares underflow to ties,
// infinities and NaN; every remove from none to all.
TEST_P(BackendPrimitives, EliminateBatchOrdersTheSquaredWeightsAndGathersTheSurvivors) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 23);
    std::uniform_int_distribution<int> level(0, 60);
    std::normal_distribution<double> gauss;
    const Index n = 7;
    for (const Index r : {Index(1), Index(2), Index(37), Index(1029)}) {
        const Index P = r > 100 ? 9 : 13;
        Matrix W(r, P);
        for (Index p = 0; p < P; ++p)
            for (Index k = 0; k < r; ++k) {
                const int l = level(rng);
                W(k, p) = l < 8    ? (l % 2 ? -0.0 : 0.0)
                          : l < 20 ? 0.25 * (l - 14)  // +-w ties
                          : l < 24 ? (l % 2 ? 1e-170 : -3e-171)  // squares 0
                          : l == 24 ? std::numeric_limits<double>::quiet_NaN()
                          : l == 25 ? -std::numeric_limits<double>::infinity()
                                    : gauss(rng);
            }
        const Matrix X = Matrix::NullaryExpr(n, r * P, [&] { return gauss(rng); });
        const DeviceMatrix Xd = backend->upload(X), Wd = backend->upload(W);
        for (const Index remove : {Index(0), Index(1), r / 2, r}) {
            const Index kept = r - remove;
            for (const Index report_from : {kept, Index(0), kept / 3}) {
                for (const bool gather : {true, false}) {
                    const EliminationBatch got =
                        backend->rfe().eliminate_batch(Xd, Wd, remove, report_from, gather);
                    ASSERT_EQ(got.order_tail.size(), std::size_t(P));
                    const Matrix survivors =
                        gather ? backend->download(got.survivors) : Matrix(n, 0);
                    if (gather) {
                        ASSERT_EQ(survivors.cols(), kept * P);
                    }
                    for (Index p = 0; p < P; ++p) {
                        const Vector c = W.col(p).array().square();
                        IndexVector order(static_cast<std::size_t>(r));
                        std::iota(order.begin(), order.end(), Index(0));
                        std::stable_sort(order.begin(), order.end(), [&](Index a, Index b) {
                            return !std::isnan(c[a]) && (std::isnan(c[b]) || c[a] > c[b]);
                        });
                        EXPECT_EQ(got.order_tail[std::size_t(p)],
                                  IndexVector(order.begin() + report_from, order.end()))
                            << "r " << r << ", remove " << remove << ", from " << report_from
                            << ", split " << p;
                        if (!gather) continue;
                        IndexVector alive(order.begin(), order.begin() + kept);
                        std::sort(alive.begin(), alive.end());
                        for (Index k = 0; k < kept; ++k)
                            ASSERT_EQ(survivors.col(p * kept + k),
                                      X.col(p * r + alive[std::size_t(k)]))
                                << "r " << r << ", split " << p << ", survivor " << k;
                    }
                }
            }
        }
    }
    const DeviceMatrix Xd = backend->upload(Matrix::Zero(2, 6)), Wd = backend->upload(Matrix::Ones(3, 2));
    const EliminationBatch none =
        backend->rfe().eliminate_batch(backend->upload(Matrix(2, 0)), backend->upload(Matrix(0, 2)), 0, 0, true);
    EXPECT_EQ(none.order_tail, std::vector<IndexVector>(2));
    EXPECT_EQ(none.survivors.rows(), 2);
    EXPECT_EQ(none.survivors.cols(), 0);
    EXPECT_THROW(backend->rfe().eliminate_batch(Xd, backend->upload(Matrix::Ones(2, 2)), 1, 1, true),
                 DimensionMismatch);
    EXPECT_THROW(backend->rfe().eliminate_batch(Xd, Wd, 4, 0, true), InvalidArgument);
    EXPECT_THROW(backend->rfe().eliminate_batch(Xd, Wd, -1, 0, true), InvalidArgument);
    EXPECT_THROW(backend->rfe().eliminate_batch(Xd, Wd, 1, 3, true), InvalidArgument);
    EXPECT_THROW(backend->rfe().eliminate_batch(Xd, Wd, 1, -1, true), InvalidArgument);
}

ZN_INSTANTIATE_FOR_BACKENDS_AND_REFERENCE(BackendPrimitives);

// More device memory than the card has: OutOfDeviceMemory naming the bytes asked for, never a
// crash or a half-written result, and the backend stays usable afterwards.
TEST(CudaDeviceMemory, ExhaustionIsReportedAndTheBackendStaysUsable) {
    ZN_BACKEND_OR_SKIP(cuda, BackendKind::Cuda);
    // 2^22 x 2^14 doubles = 512 GiB, more than any current card holds.
    try {
        (void)cuda->allocate(Index(1) << 22, Index(1) << 14);
        FAIL() << "a 512 GiB allocation succeeded";
    } catch (const OutOfDeviceMemory& e) {
        EXPECT_EQ(e.bytes_requested(), std::size_t(8) << 36);
    }
    // An SMO whose full kernel cannot be formed on the device and whose decomposition cannot
    // hold even the columns of three working sets (n = 8,000,000: 3 x 1024 columns are 197 GB).
    std::mt19937_64 rng(test_seed());
    const Index n = 8000000;
    const Matrix Xh = random_matrix(n, 2, rng);
    Vector y(n);
    for (Index i = 0; i < n; ++i) y[i] = i % 2 ? 1.0 : -1.0;
    const DeviceMatrix X = cuda->upload(Xh);
    KernelSpec rbf;
    rbf.type = KernelType::Rbf;
    rbf.gamma = 0.5;
    SmoOptions options;
    options.C = 1.0;
    try {
        (void)cuda->smo().solve(rbf, X, y, options);
        FAIL() << "an SMO needing 197 GB of kernel columns ran";
    } catch (const OutOfDeviceMemory& e) {
        EXPECT_GE(e.bytes_requested(), std::size_t(n) * 3 * 1024 * sizeof(double));
    }
    const Matrix small = random_matrix(17, 5, rng);
    EXPECT_TRUE(exactly_equal(cuda->download(cuda->upload(small)), small));
}

// Device memory is freed in its backend's stream order into the device's pool: a matrix may
// outlive the backend that made it (its stream lives until the last such matrix is freed), and
// another backend of the device reads it; temporaries freed while later work is queued on the
// stream are not handed out before that work is done (many calls in a row, each result checked).
TEST(CudaDeviceMemory, MatricesOutliveTheirBackendAndFreedMemoryIsReused) {
    ZN_BACKEND_OR_SKIP(first, BackendKind::Cuda);
    std::mt19937_64 rng(test_seed() + 3);
    const Matrix A = random_matrix(40, 30 * 6, rng);
    const DeviceMatrix kept = first->upload(A);
    const DeviceMatrix gram = first->gram_batch(6, kept, kept);
    first.reset();
    const std::unique_ptr<Backend> second = make_cuda_backend(0);
    EXPECT_TRUE(exactly_equal(second->download(kept), A));
    const Matrix want = reference::scaled_gram_batch(A, A, Matrix::Ones(30, 6));
    EXPECT_LT(relative_error(second->download(gram), want), 1e-13);
    for (int round = 0; round < 50; ++round) {
        const Matrix B = random_matrix(40, 30 * 6, rng);
        const Matrix got = second->download(second->gram_batch(6, second->upload(B), kept));
        ASSERT_LT(relative_error(got, reference::scaled_gram_batch(B, A, Matrix::Ones(30, 6))),
                  1e-13)
            << "round " << round;
    }
}

TEST(BackendFactory, ParsesNamesAndReportsMissingCuda) {
    EXPECT_EQ(parse_backend_kind("cpu"), BackendKind::Cpu);
    EXPECT_EQ(parse_backend_kind("cuda"), BackendKind::Cuda);
    EXPECT_THROW(parse_backend_kind("tpu"), InvalidArgument);
    if (!cuda_compiled()) {
        EXPECT_THROW(make_cuda_backend(0), NotCompiled);
        EXPECT_EQ(cuda_device_count(), 0);
    }
    EXPECT_EQ(make_cpu_backend()->kind(), BackendKind::Cpu);
}

TEST(KernelSpecValidation, NamesTheBadField) {
    KernelSpec spec;
    spec.type = KernelType::Rbf;
    spec.gamma = -1;
    try {
        spec.validate(3);
        FAIL() << "expected InvalidArgument";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("gamma"), std::string::npos);
    }
    spec.gamma = 1;
    spec.type = KernelType::WeightedRbf;
    spec.theta = Vector::Ones(2);
    EXPECT_THROW(spec.validate(3), DimensionMismatch);
    EXPECT_THROW(parse_kernel_type("sigmoid"), InvalidArgument);
}

// check_gaussian_kernel_scale against the rule by plain loops: it throws exactly when every pair
// of distinct rows has gamma sum_j w_j (x_j - x'_j)^2 above ln(1 / epsilon), naming the nearest
// pair. Random data with duplicate rows, gamma at a random factor from the boundary.
TEST(GaussianKernelScale, ThrowsExactlyWhenTheKernelIsTheIdentity) {
    const std::uint64_t seed = test_seed();
    SCOPED_TRACE("ZN_TEST_SEED=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const double identity_exponent = -std::log(std::numeric_limits<double>::epsilon());
    for (int trial = 0; trial < 40; ++trial) {
        const Index n = 2 + Index(unit(rng) * 30), d = 1 + Index(unit(rng) * 12);
        Matrix X = random_matrix(n, d, rng, -1.0, 1.0) * std::pow(10.0, 6 * unit(rng) - 3);
        if (n > 3) X.row(n - 1) = X.row(0);  // a duplicate: distance 0, no information
        const Vector weights = trial % 2 ? Vector(random_matrix(d, 1, rng, 0.0, 1.0)) : Vector();
        double nearest = std::numeric_limits<double>::infinity();
        for (Index i = 0; i < n; ++i)
            for (Index j = i + 1; j < n; ++j) {
                double distance = 0.0;
                for (Index k = 0; k < d; ++k) {
                    const double diff = X(i, k) - X(j, k);
                    distance += (weights.size() ? weights[k] : 1.0) * diff * diff;
                }
                if (distance > 0) nearest = std::min(nearest, distance);
            }
        ASSERT_TRUE(std::isfinite(nearest));
        const double factor = trial % 4 < 2 ? 0.5 + 0.49 * unit(rng) : 1.01 + 100 * unit(rng);
        const double gamma = factor * identity_exponent / nearest;
        SCOPED_TRACE("trial " + std::to_string(trial) + ": factor " + std::to_string(factor));
        if (factor < 1) {
            EXPECT_NO_THROW(check_gaussian_kernel_scale(X, gamma, weights, "test", "fix it"));
            continue;
        }
        try {
            check_gaussian_kernel_scale(X, gamma, weights, "test", "fix it");
            ADD_FAILURE() << "no error at the identity";
        } catch (const NumericalError& e) {
            const std::string what = e.what();
            EXPECT_EQ(what.rfind("test: the Gaussian kernel is the identity", 0), 0u) << what;
            EXPECT_NE(what.find("fix it"), std::string::npos) << what;
            const std::string label = "gamma |x - x'|^2 of ";
            const std::size_t at = what.find(label);
            ASSERT_NE(at, std::string::npos) << what;
            const double printed = std::strtod(what.c_str() + at + label.size(), nullptr);
            EXPECT_NEAR(printed, gamma * nearest, 1e-5 * gamma * nearest) << what;
        }
    }
    // All rows equal, one row, gamma 0, non-finite data: nothing to tell, no error.
    const Matrix same = Matrix::Constant(5, 3, 2.0);
    EXPECT_NO_THROW(check_gaussian_kernel_scale(same, 1e300, Vector(), "test", ""));
    EXPECT_NO_THROW(check_gaussian_kernel_scale(Matrix::Ones(1, 3), 1e300, Vector(), "test", ""));
    Matrix far = Matrix::Identity(3, 3) * 1e6;
    EXPECT_NO_THROW(check_gaussian_kernel_scale(far, 0.0, Vector(), "test", ""));
    EXPECT_THROW(check_gaussian_kernel_scale(far, 1.0, Vector(), "test", ""), NumericalError);
    far(0, 0) = std::numeric_limits<double>::quiet_NaN();
    EXPECT_NO_THROW(check_gaussian_kernel_scale(far, 1.0, Vector(), "test", ""));
    EXPECT_THROW(check_gaussian_kernel_scale(same, 1.0, Vector::Ones(2), "test", ""),
                 DimensionMismatch);
}


// The workers running at once share the memory measured when the first of them started: one that
// starts after another has taken memory is given the same share (its batch size, its choice of
// solver), and once all have ended the next ones measure again.
TEST(CudaWorkers, ShareTheMemoryMeasuredWhenTheFirstStarts) {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
    const auto backend = make_backend(BackendKind::Cuda);
    const unsigned workers = 4;
    auto first = backend->make_worker(workers);
    const std::size_t batch = first->capabilities().batch_bytes;  // a quarter of the share
    if (batch <= (std::size_t{256} << 20)) GTEST_SKIP() << "too little device memory free";
    const Index cols = 1024;
    const auto rows_for = [&](std::size_t bytes) { return Index(bytes / (sizeof(double) * cols)); };
    DeviceMatrix held = first->allocate(rows_for(2 * batch), cols);
    auto second = backend->make_worker(workers);
    EXPECT_EQ(second->capabilities().batch_bytes, batch);
    held = DeviceMatrix();
    first.reset();
    second.reset();
    // The root backend holds a share's worth of memory before the next run's workers start.
    const DeviceMatrix root_held = backend->allocate(rows_for(4 * batch), cols);
    const auto next = backend->make_worker(workers);
    EXPECT_LT(next->capabilities().batch_bytes, batch);
}

// The CUDA column orders sort at most 2^26 entries at a time (kernels/arom_ops.cpp): top_rows
// and eliminate_batch over more cut their columns into chunks, which W3's stability selection
// (7,129 x 20,000) and RFE beyond 9,400 splits reach. Here 4,096 x 16,421 entries: a full chunk
// of 16,384 columns and one of 37, requests in no order, against the reference backend.
// (Left out of compute-sanitizer's memcheck by device-check: 540 MB per matrix.)
TEST(CudaLargeBatches, ChunkedColumnOrdersMatchTheReference) {
    ZN_SEED_TRACE();
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
    const auto cuda = make_backend(BackendKind::Cuda);
    if (cuda->capabilities().batch_bytes < (std::size_t{2} << 30))
        GTEST_SKIP() << "too little device memory free";
    const auto reference = make_test_backend(testing::BackendUnderTest::Reference);
    std::mt19937_64 rng(test_seed() + 29);
    const Index d = 4096, P = (Index{1} << 26) / d + 37;
    std::uniform_int_distribution<int> level(0, 40);
    std::normal_distribution<double> gauss;
    // Ties among a few levels (w and -w square alike), zeros, the rest distinct.
    Matrix S(d, P);
    for (Index k = 0; k < S.size(); ++k) {
        const int l = level(rng);
        S.data()[k] = l < 10 ? 0.0 : l < 25 ? 0.5 * (l - 17) : gauss(rng);
    }
    IndexVector columns(static_cast<std::size_t>(P)), counts;
    std::iota(columns.begin(), columns.end(), Index(0));
    std::shuffle(columns.begin(), columns.end(), rng);
    columns.push_back(columns[5]);  // one column twice
    std::uniform_int_distribution<Index> count(0, 40);
    for (std::size_t q = 0; q < columns.size(); ++q) counts.push_back(count(rng));
    counts.back() = d;  // the whole order, in the second chunk
    EXPECT_EQ(cuda->arom().top_rows(cuda->upload(S), columns, counts),
              reference->arom().top_rows(reference->upload(S), columns, counts));
    // The same entries as RFE weights (criterion w^2), one row of points: half of each split's
    // features eliminated, their order and the survivors' columns.
    const Index remove = d / 2, kept = d - remove;
    const Matrix X = Matrix::NullaryExpr(1, d * P, [&] { return gauss(rng); });
    const EliminationBatch got =
        cuda->rfe().eliminate_batch(cuda->upload(X), cuda->upload(S), remove, kept, true);
    const EliminationBatch want =
        reference->rfe().eliminate_batch(reference->upload(X), reference->upload(S), remove, kept, true);
    EXPECT_EQ(got.order_tail, want.order_tail);
    EXPECT_TRUE(exactly_equal(cuda->download(got.survivors), reference->download(want.survivors)));
}

}  // namespace
}  // namespace zeronorm
