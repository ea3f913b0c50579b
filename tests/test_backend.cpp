// Backend primitives against plain references, for every backend built.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>

#include "backends.hpp"
#include "random.hpp"
#include "zeronorm/error.hpp"
#include "zeronorm/kernel.hpp"
#include "zeronorm/ops/arom_ops.hpp"
#include "zeronorm/ops/smo_ops.hpp"
#include "zeronorm/preprocess.hpp"

namespace zeronorm {
namespace {

using testing::random_matrix;
using testing::test_seed;

class BackendPrimitives : public ::testing::TestWithParam<BackendKind> {};

// Plain reference: K_ij = k(z.*a_i, z.*b_j) by kernel_value.
Matrix reference_kernel(const KernelSpec& spec, const Matrix& A, const Matrix& B, const Vector* z) {
    Matrix SA = A, SB = B;
    if (z != nullptr) {
        SA = A * z->asDiagonal();
        SB = B * z->asDiagonal();
    }
    Matrix K(A.rows(), B.rows());
    for (Index i = 0; i < A.rows(); ++i)
        for (Index j = 0; j < B.rows(); ++j)
            K(i, j) = kernel_value(spec, SA.data() + i, SA.rows(), SB.data() + j, SB.rows(), A.cols());
    return K;
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
    EXPECT_EQ(backend->download(backend->upload(A)), A);
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
        EXPECT_LT((K_ab - reference_kernel(spec, A, B, nullptr)).cwiseAbs().maxCoeff(), 1e-10);
        const Matrix K_aa = backend->download(backend->kernel_matrix(spec, dA, dA));
        const Matrix ref_aa = reference_kernel(spec, A, A, nullptr);
        EXPECT_LT((K_aa - ref_aa).cwiseAbs().maxCoeff(), 1e-10);
        EXPECT_EQ(K_aa, K_aa.transpose());  // the symmetric path is exactly symmetric
        const Matrix K_z = backend->download(backend->kernel_matrix(spec, dA, dB, &dz));
        EXPECT_LT((K_z - reference_kernel(spec, A, B, &z)).cwiseAbs().maxCoeff(), 1e-10);
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
            const Matrix opA = ta ? Matrix(A.transpose()) : A;
            const Matrix opB = tb ? Matrix(B.transpose()) : B;
            const Matrix expected = 1.5 * opA * opB - 0.5 * C0;
            DeviceMatrix dC = backend->upload(C0);
            backend->gemm(ta, tb, 1.5, backend->upload(A), backend->upload(B), -0.5, dC);
            EXPECT_LT((backend->download(dC) - expected).cwiseAbs().maxCoeff(), 1e-12)
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
    const Matrix sc = backend->download(backend->select_columns(dX, cols));
    const Matrix sr = backend->download(backend->select_rows(dX, rows));
    for (std::size_t k = 0; k < cols.size(); ++k) EXPECT_EQ(sc.col(Index(k)), X.col(cols[k]));
    for (std::size_t k = 0; k < rows.size(); ++k) EXPECT_EQ(sr.row(Index(k)), X.row(rows[k]));
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

// Batched primitives against block-by-block references: Grams of rescaled data (with features
// dropped by zero scales), strided GEMMs in every transpose, and SMO on many problems at once
// equal to SMO one problem at a time (cold and warm starts, inactive problems skipped).
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
    for (Index p = 0; p < P; ++p) {
        const Matrix SA = A.middleCols(p * d, d) * Z.col(p).asDiagonal();
        const Matrix SB = B.middleCols(p * d, d) * Z.col(p).asDiagonal();
        EXPECT_LT((K.middleCols(p * m, m) - SA * SA.transpose()).cwiseAbs().maxCoeff(), 1e-12);
        EXPECT_LT((KB.middleCols(p * l, l) - SA * SB.transpose()).cwiseAbs().maxCoeff(), 1e-12);
    }
    // Single precision: float rounding (|K| <= 70 here, so errors of order 70 x 6e-8), and
    // really single: some entry differs from the double product.
    const Matrix K32 = backend->download(backend->scaled_gram_batch(dA, dA, dZ, Precision::Float32));
    const Matrix KB32 = backend->download(backend->scaled_gram_batch(dA, dB, dZ, Precision::Float32));
    EXPECT_LT((K32 - K).cwiseAbs().maxCoeff(), 1e-4);
    EXPECT_LT((KB32 - KB).cwiseAbs().maxCoeff(), 1e-4);
    EXPECT_GT((K32 - K).cwiseAbs().maxCoeff(), 1e-12);
    for (Index p = 0; p < P; ++p)  // each entry is a float
        EXPECT_EQ(KB32(p, p * l), double(float(KB32(p, p * l))));
    EXPECT_THROW(backend->scaled_gram_batch(dA, dB, backend->upload(Matrix(Z.topRows(d - 1)))),
                 DimensionMismatch);
}

TEST_P(BackendPrimitives, SplitBatchMatchesStandardizerPerSplit) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 14);
    const Index N = 40, d = 23, P = 7, n = 25, m = 9;
    Matrix X = random_matrix(N, d, rng);
    X.col(4).setConstant(2.5);  // constant: centred on its value, scale 1
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
        const SplitBlocks b = backend->split_batch(dX, train_rows, test_rows, standardize);
        const Matrix train = backend->download(b.train), test = backend->download(b.test);
        ASSERT_EQ(train.rows(), n);
        ASSERT_EQ(test.cols(), d * P);
        for (Index p = 0; p < P; ++p) {
            Dataset all;
            all.X = X;
            all.y = Vector::Ones(N);
            Matrix tr = all.subset(train_rows[std::size_t(p)]).X;
            Matrix te = all.subset(test_rows[std::size_t(p)]).X;
            if (standardize) {
                const Standardizer s = Standardizer::fit(tr);
                tr = s.transform(tr);
                te = s.transform(te);
            }
            EXPECT_LT((train.middleCols(p * d, d) - tr).cwiseAbs().maxCoeff(), 1e-12) << p;
            EXPECT_LT((test.middleCols(p * d, d) - te).cwiseAbs().maxCoeff(), 1e-12) << p;
        }
    }
    std::vector<IndexVector> bad = test_rows;
    bad[2][0] = N;
    EXPECT_THROW(backend->split_batch(dX, train_rows, bad, true), InvalidArgument);
    bad = train_rows;
    bad[1].pop_back();
    EXPECT_THROW(backend->split_batch(dX, bad, test_rows, true), InvalidArgument);
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
        const Vector* no_scale = nullptr;
        const KernelSpec plain = [&] {  // the reference takes theta as a feature scale
            KernelSpec s = spec;
            if (s.type == KernelType::WeightedRbf) s.type = KernelType::Rbf;
            return s;
        }();
        const Vector root_theta = spec.theta.size() ? Vector(spec.theta.cwiseSqrt()) : Vector();
        const Vector* scale = spec.type == KernelType::WeightedRbf ? &root_theta : no_scale;
        const Matrix K = backend->download(backend->kernel_batch(spec, P, dA, dA));
        const Matrix KB = backend->download(backend->kernel_batch(spec, P, dA, dB));
        ASSERT_EQ(K.rows(), m);
        ASSERT_EQ(K.cols(), m * P);
        ASSERT_EQ(KB.cols(), l * P);
        // Relative to the block's largest entry: sum-of-powers values reach 17^4 here.
        const auto error = [](const Matrix& got, const Matrix& ref) {
            return (got - ref).cwiseAbs().maxCoeff() / std::max(1.0, ref.cwiseAbs().maxCoeff());
        };
        for (Index p = 0; p < P; ++p) {
            const Matrix a = A.middleCols(p * d, d), b = B.middleCols(p * d, d);
            const Matrix Kp = K.middleCols(p * m, m);
            EXPECT_LT(error(Kp, reference_kernel(plain, a, a, scale)), 1e-11) << p;
            EXPECT_EQ(Kp, Matrix(Kp.transpose())) << "block " << p << " is not exactly symmetric";
            EXPECT_LT(error(KB.middleCols(p * l, l), reference_kernel(plain, a, b, scale)), 1e-11) << p;
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
    ASSERT_EQ(out.rows(), r);
    ASSERT_EQ(out.cols(), c * Q);
    for (Index q = 0; q < Q; ++q)
        for (Index j = 0; j < c; ++j)
            for (Index i = 0; i < r; ++i)
                ASSERT_EQ(out(i, q * c + j),
                          K(row_lists[std::size_t(q)][std::size_t(i)],
                            source[std::size_t(q)] * width + col_lists[std::size_t(q)][std::size_t(j)]))
                    << q << " " << i << " " << j;
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
        const Matrix C = backend->download(dC);
        for (Index p = 0; p < P; ++p) {
            const Matrix a = A.middleCols(p * (ta ? m : k), ta ? m : k);
            const Matrix b = B.middleCols(p * (tb ? k : n), tb ? k : n);
            const Matrix opa = ta ? Matrix(a.transpose()) : a;
            const Matrix opb = tb ? Matrix(b.transpose()) : b;
            const Matrix ref = 0.5 * opa * opb + 2.0 * C0.middleCols(p * n, n);
            EXPECT_LT((C.middleCols(p * n, n) - ref).cwiseAbs().maxCoeff(), 1e-12) << t;
        }
    }
    DeviceMatrix bad = backend->allocate(m, n * P + 1);
    EXPECT_THROW(backend->gemm_batch(P, false, false, 1.0, backend->upload(random_matrix(m, k * P, rng)),
                                     backend->upload(random_matrix(k, n * P, rng)), 0.0, bad),
                 DimensionMismatch);
}

// P problems of size n, solved as one batch and one at a time (cold and warm starts).
void expect_smo_batch_equals_single(Backend& backend, Index n, std::mt19937_64& rng) {
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
    const DeviceMatrix K = backend.scaled_gram_batch(dX, dX, backend.upload(Matrix::Ones(d, P)));
    const Matrix Kh = backend.download(K);
    SmoOptions options;
    options.C = 0.7;
    options.ridge = 1e-3;
    options.tolerance = 1e-9;
    std::vector<char> active(std::size_t(P), 1);
    active[3] = 0;
    const Matrix warm = random_matrix(n, P, rng, 0.0, 0.7);
    for (const Matrix* start : {static_cast<const Matrix*>(nullptr), &warm}) {
        const std::vector<SmoResult> batch = backend.smo().solve_batch(K, Y, options, start, active);
        ASSERT_EQ(batch.size(), std::size_t(P));
        EXPECT_EQ(batch[3].beta.size(), 0);
        for (Index p = 0; p < P; ++p) {
            if (!active[std::size_t(p)]) continue;
            const Vector w = start ? Vector(start->col(p)) : Vector();
            const SmoResult one = backend.smo().solve(backend.upload(Matrix(Kh.middleCols(p * n, n))),
                                                    Y.col(p), options, start ? &w : nullptr);
            const SmoResult& b = batch[std::size_t(p)];
            EXPECT_EQ(b.status, Status::Success) << p;
            EXPECT_LT(b.kkt_gap, 1e-9) << p;
            EXPECT_NEAR(b.objective, one.objective, 1e-9 * std::abs(one.objective)) << p;
            EXPECT_LT((b.beta - one.beta).cwiseAbs().maxCoeff(), 1e-6) << p;
            EXPECT_NEAR(b.bias, one.bias, 1e-6) << p;
        }
    }
    Matrix one_class = Y;
    one_class.col(2).setOnes();
    EXPECT_THROW(backend.smo().solve_batch(K, one_class, options), InvalidArgument);
    EXPECT_THROW(backend.smo().solve_batch(K, Matrix(Y.leftCols(P - 1)), options), DimensionMismatch);
}

TEST_P(BackendPrimitives, SmoBatchEqualsOneProblemAtATime) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(test_seed() + 13);
    // n = 48 fits the CUDA one-warp kernel's shared memory; n = 100 takes the block kernel.
    expect_smo_batch_equals_single(*backend, 48, rng);
    expect_smo_batch_equals_single(*backend, 100, rng);
}

// The AROM update written out entry by entry: u = z .* |z .* w|, u / max(u), prune.
TEST_P(BackendPrimitives, MultiplicativeUpdateBatchMatchesPlainUpdate) {
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
        Vector u(d);
        for (Index j = 0; j < d; ++j) u[j] = Z(j, p) * std::abs(Z(j, p) * W(j, p));
        const bool degenerate = update[std::size_t(p)] && (!u.allFinite() || !(u.maxCoeff() > 0));
        EXPECT_EQ(s.degenerate, degenerate);
        EXPECT_EQ(degenerate, p == 3 || p == 4 || p == 6);
        if (!update[std::size_t(p)] || degenerate) {
            EXPECT_EQ(got_normalized.col(p), Z.col(p));
            EXPECT_EQ(got_next.col(p), Z.col(p));
            EXPECT_EQ(s.survivors, 0);
            continue;
        }
        const double top = u.maxCoeff();
        Index survivors = 0;
        double change = 0.0;
        for (Index j = 0; j < d; ++j) {
            const double v = u[j] / top;
            EXPECT_EQ(got_normalized(j, p), v) << j;
            EXPECT_EQ(got_next(j, p), v > tolerance ? v : 0.0) << j;
            survivors += v > tolerance;
            change = std::max(change, std::abs(v - Z(j, p)));
        }
        EXPECT_EQ(s.survivors, survivors);
        EXPECT_GT(survivors, 0);
        EXPECT_LT(survivors, d);
        EXPECT_EQ(s.max_change, change);
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

ZN_INSTANTIATE_FOR_BACKENDS(BackendPrimitives);

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
    EXPECT_EQ(cuda->download(cuda->upload(small)), small);
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

}  // namespace
}  // namespace zeronorm
