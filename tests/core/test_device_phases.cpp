// The host-runnable phases of the CUDA kernels (kernels/smo_device.cuh, kernels/
// kernel_functions.cuh, kernels/newton_device.cuh, kernels/alignment_device.cuh, kernels/
// scale_update_device.cuh), run here thread by thread and block by block, with a barrier
// between phases as the kernels place them, against the test reference.
// The device logic is checked on every build, with or without a GPU; the CUDA tests then check
// that the kernels run these phases as written.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "core/launch_rules.hpp"
#include "kernels/alignment_device.cuh"
#include "kernels/kernel_functions.cuh"
#include "kernels/newton_device.cuh"
#include "kernels/scale_update_device.cuh"
#include "kernels/smo_device.cuh"
#include "reference/reference.hpp"
#include "solvers/dense_dual.hpp"
#include "support/matrix_checks.hpp"
#include "support/random.hpp"

namespace zeronorm {
namespace {

namespace cd = cuda_detail;
using testing::exactly_equal;
using testing::random_matrix;
using testing::test_seed;

// The Block of smo_device.cuh and newton_device.cuh on the host: each step runs the threads one
// after another, in ascending or descending thread order, and the reductions fold the threads'
// values in thread order whatever the order they ran in. A step that read what another thread
// wrote in the same step (a missing barrier on the device) gives different bits in the two
// orders.
class HostBlock {
public:
    HostBlock(int threads, bool descending) : threads_(threads), descending_(descending) {}

    template <class F>
    void each(F f) {
        for (int k = 0; k < threads_; ++k) f(tid(k), threads_);
    }
    template <class F>
    auto single(F f) {
        return f();
    }
    template <class F, class T>
    T select(F f, T identity) {
        return fold(f, identity, [](const T& a, const T& b) { return cd::smo_combine(a, b); });
    }
    template <class F>
    double sum(F f) {
        return fold(f, 0.0, [](double a, double b) { return a + b; });
    }
    template <class F>
    double max(F f) {  // as newton.cu's operators: a NaN on the right never wins
        return fold(f, -HUGE_VAL, [](double a, double b) { return a > b ? a : b; });
    }
    template <class F>
    double min(F f) {
        return fold(f, HUGE_VAL, [](double a, double b) { return a < b ? a : b; });
    }
    template <class F>
    bool any(F f) {
        bool result = false;
        for (int k = 0; k < threads_; ++k) result = f(tid(k), threads_) || result;
        return result;
    }

private:
    int tid(int k) const { return descending_ ? threads_ - 1 - k : k; }
    template <class F, class T, class Op>
    T fold(F f, T identity, Op op) {
        std::vector<T> values(std::size_t(threads_), identity);
        for (int k = 0; k < threads_; ++k) values[std::size_t(tid(k))] = f(tid(k), threads_);
        T result = identity;
        for (const T& v : values) result = op(result, v);
        return result;
    }

    int threads_;
    bool descending_;
};

// smo.cu's loop (smo_solve_block) with `threads` threads.
cd::SmoDeviceOutcome run_smo_block(const cd::SmoDeviceProblem& p, int threads,
                                   bool descending = false) {
    HostBlock block(threads, descending);
    return cd::smo_solve_block(block, p);
}

// One problem's device buffers (host memory here) and the problem over them.
struct SmoBuffers {
    Matrix K;
    Vector y, beta, G, QD, Kv, linear;
    cd::SmoDeviceProblem problem(const SmoOptions& options, bool warm, bool with_linear) {
        cd::SmoDeviceProblem p;
        p.K = K.data();
        p.y = y.data();
        p.beta = beta.data();
        p.G = G.data();
        p.QD = QD.data();
        p.Kv = warm ? Kv.data() : nullptr;
        p.linear = with_linear ? linear.data() : nullptr;
        p.n = int(y.size());
        p.C = options.C;
        p.ridge = options.ridge;
        p.tolerance = options.tolerance;
        p.max_iterations = options.max_iterations;
        return p;
    }
};

TEST(DevicePhases, SmoReachesTheExactDualOptimumOnAnyThreadCount) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(test_seed() + 71);
    SmoOptions options;
    options.C = 0.7;
    options.ridge = 1e-3;
    options.tolerance = 1e-9;
    options.max_iterations = 1'000'000;
    const Index d = 30;
    // n = 1 + 32 k and 75 cover a thread count that does not divide n; 130 > 96 threads.
    for (Index n : {Index(2), Index(33), Index(75), Index(130)}) {
        Matrix X = random_matrix(n, d, rng);
        Vector y(n);
        for (Index i = 0; i < n; ++i) {
            y[i] = i % 3 == 0 ? 1.0 : -1.0;
            X(i, 0) += 0.8 * y[i];
        }
        const Matrix K = X * X.transpose();
        // A warm start inside the box (delta = y'beta carried by every step) and a linear term.
        const Vector start = random_matrix(n, 1, rng, 0.0, options.C).col(0);
        const Vector linear = random_matrix(n, 1, rng, -1.5, -0.5).col(0);
        for (const bool warm : {false, true}) {
            for (const bool with_linear : {false, true}) {
                SCOPED_TRACE("n = " + std::to_string(n) + (warm ? ", warm" : ", cold") +
                             (with_linear ? ", linear term" : ""));
                reference::Dual dual = reference::svm_dual(K, y, options.C, options.ridge);
                if (with_linear) dual.p = linear;
                const Vector beta0 = warm ? start : Vector(Vector::Zero(n));
                dual.delta = y.dot(beta0);
                const reference::DualSolution exact = reference::solve_dual(dual);
                Vector first_beta, first_G;
                cd::SmoDeviceOutcome first;
                for (const int run : {0, 1, 2, 3, 4, 5, 6, 7}) {
                    const int threads = std::array<int, 4>{1, 32, 96, 256}[std::size_t(run / 2)];
                    const bool descending = run % 2 == 1;
                    SCOPED_TRACE(std::to_string(threads) + " threads" +
                                 (descending ? ", in descending order" : ""));
                    SmoBuffers b{K, y, beta0, Vector::Constant(n, std::nan("")),
                                 Vector::Constant(n, std::nan("")),
                                 K * y.cwiseProduct(beta0), linear};
                    const cd::SmoDeviceOutcome out =
                        run_smo_block(b.problem(options, warm, with_linear), threads, descending);
                    EXPECT_EQ(out.status, cd::kSmoConverged);
                    EXPECT_LE(out.gap, options.tolerance);
                    EXPECT_LE(reference::kkt_gap(dual, b.beta), 2 * options.tolerance);
                    EXPECT_GE(b.beta.minCoeff(), 0.0);
                    EXPECT_LE(b.beta.maxCoeff(), options.C);
                    EXPECT_NEAR(y.dot(b.beta), dual.delta, 1e-10 * (1.0 + b.beta.sum()));
                    // The gradient the phases keep is the problem's, Q beta + p.
                    const Vector G = dual.Q * b.beta + dual.p;
                    EXPECT_LT((b.G - G).cwiseAbs().maxCoeff(), 1e-9 * (1.0 + G.cwiseAbs().maxCoeff()));
                    EXPECT_NEAR(reference::dual_objective(dual, b.beta), exact.objective,
                                1e-9 * std::abs(exact.objective));
                    // Q is positive definite (a ridge): beta is unique.
                    EXPECT_LT((b.beta - exact.beta).cwiseAbs().maxCoeff(),
                              1e-6 * (1.0 + exact.beta.maxCoeff()));
                    // Every reduction is a selection: the thread count and order change no bit.
                    if (run == 0) {
                        first = out;
                        first_beta = b.beta;
                        first_G = b.G;
                        continue;
                    }
                    EXPECT_EQ(out.iterations, first.iterations);
                    EXPECT_EQ(out.i, first.i);
                    EXPECT_EQ(out.j, first.j);
                    EXPECT_TRUE(exactly_equal(b.beta, first_beta));
                    EXPECT_TRUE(exactly_equal(b.G, first_G));
                }
            }
        }
    }
}

TEST(DevicePhases, SmoStopsAtTheCapAndAtTheGapEdge) {
    ZN_SEED_TRACE();
    // K = I, y = (1, -1), no ridge: at beta = 0 the gap is exactly 2 and one step solves it.
    const Matrix K = Matrix::Identity(2, 2);
    const Vector y = (Vector(2) << 1.0, -1.0).finished();
    SmoOptions options;
    options.C = 10.0;
    options.ridge = 0.0;
    for (const double tolerance : {2.0, 1.0}) {
        for (const std::int64_t cap : {std::int64_t(1), std::int64_t(5)}) {
            SCOPED_TRACE("tolerance " + std::to_string(tolerance) + ", cap " + std::to_string(cap));
            options.tolerance = tolerance;
            options.max_iterations = cap;
            SmoBuffers b{K, y, Vector::Zero(2), Vector::Zero(2), Vector::Zero(2), Vector(), Vector()};
            const cd::SmoDeviceOutcome out = run_smo_block(b.problem(options, false, false), 32);
            EXPECT_EQ(out.status, cd::kSmoConverged);
            if (tolerance == 2.0) {
                EXPECT_EQ(out.iterations, 0);  // gap <= tolerance stops before any step
                EXPECT_EQ(out.gap, 2.0);
            } else {
                // The optimum (beta = (1, 1), G = 0) is reached by the one allowed step: a success.
                EXPECT_EQ(out.iterations, 1);
                EXPECT_EQ(out.gap, 0.0);
                EXPECT_TRUE(exactly_equal(b.beta, Vector::Ones(2)));
            }
        }
    }
    // Far from the optimum, the cap ends it.
    const Matrix K3 = (Matrix(3, 3) << 4, 1, 0, 1, 3, 1, 0, 1, 2).finished();
    const Vector y3 = (Vector(3) << 1.0, -1.0, 1.0).finished();
    options.tolerance = 1e-12;
    options.max_iterations = 1;
    SmoBuffers b{K3, y3, Vector::Zero(3), Vector::Zero(3), Vector::Zero(3), Vector(), Vector()};
    const cd::SmoDeviceOutcome out = run_smo_block(b.problem(options, false, false), 32);
    EXPECT_EQ(out.status, cd::kSmoIterationCap);
    EXPECT_EQ(out.iterations, 1);
    EXPECT_GT(out.gap, options.tolerance);
}

KernelSpec spec_of(cd::KernelParams kp) {
    KernelSpec spec;
    spec.gamma = kp.gamma;
    spec.degree = kp.degree;
    spec.coef0 = kp.coef0;
    switch (kp.type) {
        case cd::DeviceKernel::Linear: spec.type = KernelType::Linear; break;
        case cd::DeviceKernel::Polynomial: spec.type = KernelType::Polynomial; break;
        case cd::DeviceKernel::SumOfPowers: spec.type = KernelType::SumOfPowers; break;
        case cd::DeviceKernel::Rbf: spec.type = KernelType::Rbf; break;
        case cd::DeviceKernel::Chi2: spec.type = KernelType::Chi2; break;
    }
    return spec;
}

// kernel_matrix.cu's transform_gram_symmetric_kernel on a grid of tiles (bi, bj), bi >= bj, of
// kTile x kTileRows threads: every thread loads, then (after the barrier) every thread stores.
void run_symmetric_transform(const cd::KernelParams& kp, Matrix& K, const Vector& norms) {
    const cd::i64 n = K.rows();
    const cd::i64 tiles = (n + cd::kTile - 1) / cd::kTile;
    for (cd::i64 bi = 0; bi < tiles; ++bi) {
        for (cd::i64 bj = 0; bj <= bi; ++bj) {
            cd::Tile tile;
            for (auto& row : tile)
                for (double& v : row) v = std::nan("");
            for (int ty = 0; ty < cd::kTileRows; ++ty)
                for (int tx = 0; tx < cd::kTile; ++tx)
                    cd::sym_tile_load(kp, K.data(), n, norms.data(), bi, bj, tx, ty, tile);
            for (int ty = 0; ty < cd::kTileRows; ++ty)
                for (int tx = 0; tx < cd::kTile; ++tx)
                    cd::sym_tile_store(K.data(), n, bi, bj, tx, ty, tile);
        }
    }
}

TEST(DevicePhases, SymmetricTilesWriteTheWholeKernelFromTheLowerTriangle) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(test_seed() + 72);
    const Index d = 7;
    const std::vector<cd::KernelParams> kernels = {
        {cd::DeviceKernel::Linear, 1.0, 3, 0.0},
        {cd::DeviceKernel::Polynomial, 0.3, 3, 1.0},
        {cd::DeviceKernel::SumOfPowers, 1.0, 3, 0.0},
        {cd::DeviceKernel::Rbf, 0.2, 3, 0.0},
    };
    // Sizes on both sides of the tile edges (kTile = 32).
    for (Index n : {Index(1), Index(5), Index(32), Index(33), Index(70)}) {
        const Matrix X = random_matrix(n, d, rng);
        const Matrix dots = X * X.transpose();
        const Vector norms = X.rowwise().squaredNorm();
        for (const cd::KernelParams& kp : kernels) {
            const KernelSpec spec = spec_of(kp);
            SCOPED_TRACE("n = " + std::to_string(n) + ", " + to_string(spec.type));
            // As SYRK leaves it: the lower triangle holds the dots, the upper one is not read.
            Matrix K = Matrix::Constant(n, n, std::nan(""));
            K.triangularView<Eigen::Lower>() = dots;
            run_symmetric_transform(kp, K, norms);
            const Matrix want = reference::kernel_matrix(spec, X, X);
            ASSERT_TRUE(K.allFinite());
            EXPECT_TRUE(exactly_equal(K, K.transpose()));  // mirrored, not recomputed
            EXPECT_LT((K - want).cwiseAbs().maxCoeff(), 1e-12 * (1.0 + want.cwiseAbs().maxCoeff()));
            if (kp.type == cd::DeviceKernel::Rbf) {
                EXPECT_TRUE((K.diagonal().array() == 1.0).all());
            }
        }
    }
}

// kernel_matrix.cu's chi2_kernel: tiles (bx, by) of the m x l output, each thread keeping its
// kPerThread sums over the feature chunks (load, barrier, accumulate, barrier), then storing.
Matrix run_chi2(double gamma, const Matrix& A, const Matrix& B) {
    const cd::i64 m = A.rows(), l = B.rows(), d = A.cols();
    Matrix K = Matrix::Constant(m, l, std::nan(""));
    const cd::i64 tiles_m = (m + cd::kTile - 1) / cd::kTile;
    const cd::i64 tiles_l = (l + cd::kTile - 1) / cd::kTile;
    for (cd::i64 bx = 0; bx < tiles_m; ++bx) {
        for (cd::i64 by = 0; by < tiles_l; ++by) {
            const cd::i64 row0 = bx * cd::kTile, col0 = by * cd::kTile;
            struct Sums {
                double value[cd::kPerThread] = {};
            };
            std::vector<Sums> acc(std::size_t(cd::kTile * cd::kTileRows));
            const auto thread_acc = [&](int tx, int ty) -> double(&)[cd::kPerThread] {
                return acc[std::size_t(ty * cd::kTile + tx)].value;
            };
            cd::Tile sa, sb;
            for (cd::i64 f0 = 0; f0 < d; f0 += cd::kTile) {
                for (int ty = 0; ty < cd::kTileRows; ++ty)
                    for (int tx = 0; tx < cd::kTile; ++tx)
                        cd::chi2_load(A.data(), m, B.data(), l, d, row0, col0, f0, tx, ty, sa, sb);
                for (int ty = 0; ty < cd::kTileRows; ++ty)
                    for (int tx = 0; tx < cd::kTile; ++tx)
                        cd::chi2_accumulate(d, f0, tx, ty, sa, sb, thread_acc(tx, ty));
            }
            for (int ty = 0; ty < cd::kTileRows; ++ty)
                for (int tx = 0; tx < cd::kTile; ++tx)
                    cd::chi2_store(gamma, K.data(), m, l, row0, col0, tx, ty, thread_acc(tx, ty));
        }
    }
    return K;
}

TEST(DevicePhases, ChiSquareTilesMatchTheDirectSums) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(test_seed() + 73);
    KernelSpec spec;
    spec.type = KernelType::Chi2;
    spec.gamma = 0.4;
    // Nonnegative features with zeros, so that some pairs have a_f + b_f = 0 (terms omitted).
    const auto features = [&](Index rows, Index d) {
        Matrix M = random_matrix(rows, d, rng, -0.5, 1.0);
        return Matrix(M.cwiseMax(0.0));
    };
    // Shapes on both sides of the tile edges, with more than one feature chunk (d > 32).
    for (const auto& [m, l, d] : {std::array<Index, 3>{45, 37, 70}, std::array<Index, 3>{1, 33, 32},
                                  std::array<Index, 3>{32, 1, 5}}) {
        SCOPED_TRACE(std::to_string(m) + " x " + std::to_string(l) + ", d = " + std::to_string(d));
        const Matrix A = features(m, d), B = features(l, d);
        const Matrix K = run_chi2(spec.gamma, A, B);
        const Matrix want = reference::kernel_matrix(spec, A, B);
        ASSERT_TRUE(K.allFinite());
        EXPECT_LT((K - want).cwiseAbs().maxCoeff(), 1e-13);
        // The same order of terms for K_ij and K_ji: a symmetric kernel is exactly symmetric.
        const Matrix S = run_chi2(spec.gamma, A, A);
        EXPECT_TRUE(exactly_equal(S, S.transpose()));
        EXPECT_TRUE((S.diagonal().array() == 1.0).all());
    }
}

// One Newton finish by newton_finish_block on a HostBlock, over a one-problem batch laid out as
// newton.cu's launch lays it out (newton_problem over launch_rules::newton_bytes of scratch).
struct NewtonRun {
    int status = -1;
    Vector beta;  // the batch's beta after the run (the coarse point where not finished)
    Vector G;     // the batch's gradient after the run (NaN where not written)
};

NewtonRun run_newton_block(const Matrix& K, const Vector& y, const Vector& coarse,
                           const SmoOptions& options, const Vector* linear, double delta,
                           int threads, bool descending, int rounds = detail::kNewtonRounds) {
    const Index n = y.size();
    NewtonRun run;
    run.beta = coarse;
    run.G = Vector::Constant(n, std::nan(""));
    const double delta_storage = delta;
    const int open = 1;
    int finished = -1;
    cd::NewtonDeviceBatch batch;
    batch.K = K.data();
    batch.y = y.data();
    batch.beta = run.beta.data();
    batch.G = run.G.data();
    batch.linear = linear != nullptr ? linear->data() : nullptr;
    batch.delta = &delta_storage;
    batch.open = &open;
    batch.finished = &finished;
    batch.n = int(n);
    batch.problems = 1;
    batch.rounds = rounds;
    batch.C = options.C;
    batch.ridge = options.ridge;
    batch.tolerance = options.tolerance;
    batch.singular_pivot = detail::kDeviceSingularPivot;
    // Poisoned scratch: whatever the finish reads it must have written first.
    std::vector<double> scratch(launch_rules::newton_bytes(n) / sizeof(double) + 1,
                                std::numeric_limits<double>::quiet_NaN());
    HostBlock block(threads, descending);
    run.status = cd::newton_finish_block(block, cd::newton_problem(batch, 0, scratch.data()));
    return run;
}

TEST(DevicePhases, NewtonFinishReachesTheExactOptimumOnAnyThreadCount) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(test_seed() + 83);
    SmoOptions options;
    options.C = 1.0;
    options.tolerance = 1e-9;
    int finished_count = 0;
    // n = 7 k + 3 and 75 leave threads idle in every step; 150 > 128 threads.
    for (Index n : {Index(4), Index(17), Index(40), Index(75), Index(150)}) {
        // More features than points: Q_FF is positive definite whatever the free set.
        Matrix X = random_matrix(n, n + 8, rng);
        Vector y(n);
        for (Index i = 0; i < n; ++i) {
            y[i] = i % 3 == 0 ? 1.0 : -1.0;
            X(i, 0) += 0.5 * y[i];
        }
        const Matrix K = X * X.transpose();
        const Vector linear = random_matrix(n, 1, rng, -1.5, -0.5).col(0);
        const Vector start = random_matrix(n, 1, rng, 0.0, options.C).col(0);
        for (const double ridge : {0.0, 1e-3}) {
            for (const bool with_terms : {false, true}) {
                // The coarse points solve_dense_dual_batch hands to the finish: SMO (these
                // phases) stopped at its coarse tolerances, from 0 or, with the terms, from a
                // start in the box whose y'beta is delta.
                for (const double coarse_tolerance : {1e-1, 1e-3}) {
                    SCOPED_TRACE("n = " + std::to_string(n) + ", ridge " + std::to_string(ridge) +
                                 (with_terms ? ", linear term and delta" : "") +
                                 ", coarse tolerance " + std::to_string(coarse_tolerance));
                    options.ridge = ridge;
                    reference::Dual dual = reference::svm_dual(K, y, options.C, ridge);
                    SmoTerms terms;
                    if (with_terms) {
                        dual.p = linear;
                        dual.delta = y.dot(start);
                        terms.p = linear;
                        terms.delta = dual.delta;
                    }
                    const reference::DualSolution exact = reference::solve_dual(dual);
                    SmoOptions coarse_options = options;
                    coarse_options.tolerance = coarse_tolerance;
                    coarse_options.max_iterations = 1'000'000;
                    const Vector beta0 = with_terms ? start : Vector(Vector::Zero(n));
                    SmoBuffers smo{K, y, beta0, Vector::Zero(n), Vector::Zero(n),
                                   K * y.cwiseProduct(beta0), linear};
                    ASSERT_EQ(run_smo_block(smo.problem(coarse_options, with_terms, with_terms), 32)
                                  .status,
                              cd::kSmoConverged);
                    const Vector coarse = smo.beta;
                    const std::optional<SmoResult> host =
                        detail::newton_finish(K, y, options, coarse, terms);
                    for (const int threads : {1, 7, 32, 128}) {
                        SCOPED_TRACE(std::to_string(threads) + " threads");
                        const NewtonRun run = run_newton_block(
                            K, y, coarse, options, with_terms ? &linear : nullptr, terms.delta,
                            threads, false);
                        const NewtonRun reversed = run_newton_block(
                            K, y, coarse, options, with_terms ? &linear : nullptr, terms.delta,
                            threads, true);
                        EXPECT_EQ(reversed.status, run.status);
                        EXPECT_TRUE(exactly_equal(reversed.beta, run.beta));
                        if (run.status == cd::kNewtonFinished) {
                            EXPECT_TRUE(exactly_equal(reversed.G, run.G));
                        }
                        // The host rule and the device's finish the same problems: the systems
                        // are well-conditioned, so both take the same active-set rounds.
                        EXPECT_EQ(run.status == cd::kNewtonFinished, host.has_value());
                        if (run.status != cd::kNewtonFinished) {
                            EXPECT_NE(run.status, cd::kNewtonToHost);
                            EXPECT_TRUE(exactly_equal(run.beta, coarse));  // nothing written
                            EXPECT_TRUE(run.G.array().isNaN().all());
                            continue;
                        }
                        ++finished_count;
                        EXPECT_LE(reference::kkt_gap(dual, run.beta), options.tolerance);
                        EXPECT_NEAR(y.dot(run.beta), dual.delta, 1e-12 * (1.0 + n));
                        const Vector G = dual.Q * run.beta + dual.p;
                        EXPECT_LT((run.G - G).cwiseAbs().maxCoeff(),
                                  1e-12 * (1.0 + G.cwiseAbs().maxCoeff()));
                        EXPECT_LT((run.beta - host->beta).cwiseAbs().maxCoeff(), 1e-9);
                        EXPECT_LT((run.beta - exact.beta).cwiseAbs().maxCoeff(), 1e-7);
                        EXPECT_NEAR(reference::dual_objective(dual, run.beta), exact.objective,
                                    1e-10 * (1.0 + std::abs(exact.objective)));
                    }
                }
            }
        }
    }
    // Most coarse points are finished (a free set far from the optimum's may need more rounds).
    EXPECT_GE(finished_count, 5 * 2 * 2 * 2 * 4 * 3 / 4);
}

TEST(DevicePhases, NewtonHandsSingularSystemsToTheHostAndStopsOnAnEmptyFreeSet) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(test_seed() + 89);
    const Index n = 30;
    // A linear kernel of two features: Q_FF has rank 2 with every variable free.
    const Matrix X = random_matrix(n, 2, rng);
    const Matrix K = X * X.transpose();
    Vector y(n);
    for (Index i = 0; i < n; ++i) y[i] = i % 2 == 0 ? 1.0 : -1.0;
    SmoOptions options;
    options.C = 10.0;
    options.ridge = 0.0;
    options.tolerance = 1e-9;
    const Vector inside = random_matrix(n, 1, rng, 0.1, 9.9).col(0);
    for (const int threads : {1, 32, 128}) {
        SCOPED_TRACE(std::to_string(threads) + " threads");
        const NewtonRun singular =
            run_newton_block(K, y, inside, options, nullptr, 0.0, threads, false);
        EXPECT_EQ(singular.status, cd::kNewtonToHost);
        EXPECT_TRUE(exactly_equal(singular.beta, inside));
        EXPECT_TRUE(singular.G.array().isNaN().all());
        // No free variable (every one at 0): nothing to solve.
        const Vector zero = Vector::Zero(n);
        const NewtonRun empty = run_newton_block(K, y, zero, options, nullptr, 0.0, threads, false);
        EXPECT_EQ(empty.status, cd::kNewtonOpen);
        EXPECT_TRUE(exactly_equal(empty.beta, zero));
        EXPECT_TRUE(empty.G.array().isNaN().all());
        // No round allowed.
        const NewtonRun capped =
            run_newton_block(K, y, inside, options, nullptr, 0.0, threads, false, 0);
        EXPECT_EQ(capped.status, cd::kNewtonOpen);
    }
}

// alignment.cu's passes in the order alignment_ops.cpp launches them, over alignment_device.cuh's
// bodies: each elementwise pass on `threads` grid threads (thread t takes the entries t,
// t + threads, ..., the threads run last to first), each reduction the threads' shares added in
// thread order, the two GEMMs of the Gaussian path by Eigen. Outputs start as NaN, so that an
// entry no pass writes shows.
struct AlignmentPassesOut {
    std::vector<double> values;
    Matrix gradient;
};

AlignmentPassesOut run_alignment_passes(const AlignmentKernelSpec& spec, const Matrix& A,
                                        const Matrix& B, bool same_points, const Matrix& Y,
                                        const Matrix& Theta, int threads) {
    namespace ca = cd::alignment;
    const Matrix& second = same_points ? A : B;
    const cd::AlignmentPairs s{A.data(), second.data(), A.rows(), second.rows(), A.cols()};
    EXPECT_EQ(s.same_points(), same_points);
    const Index m = s.m, q = s.q, d = s.d, P = Theta.cols();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto grid = [&](auto body) {
        for (int t = threads - 1; t >= 0; --t) body(t, threads);
    };
    const auto reduce = [&](auto part) {
        double sum = 0.0;
        for (int t = 0; t < threads; ++t) sum += part(t, threads);
        return sum;
    };
    Matrix W = Matrix::Constant(m, q * P, nan);
    Vector c = Vector::Constant(q * P, nan);
    Matrix gradient = Matrix::Constant(d, P, nan);
    const auto column_sums = [&] {
        for (Index col = 0; col < q * P; ++col)
            c[col] = reduce([&](int t, int T) { return ca::column_sum_part(W.data(), m, col, t, T); });
    };
    if (spec.type == AlignmentKernel::ChiSquare) {
        grid([&](int t, int T) {
            ca::chi_square_pair_weights(s, Y.data(), Theta.data(), P, spec.scale, W.data(), t, T);
        });
        column_sums();
        for (Index p = 0; p < P; ++p)
            for (Index k = 0; k < d; ++k)
                gradient(k, p) = reduce([&](int t, int T) {
                    return ca::chi_square_gradient_part(s, W.data(), k, p, spec.scale, t, T);
                });
    } else {
        Matrix scaled = Matrix::Constant(m, d * P, nan);
        Vector na = Vector::Constant(m * P, nan), nb = Vector::Constant(q * P, nan);
        double* norms_b = same_points ? na.data() : nb.data();
        grid([&](int t, int T) { ca::weight_columns(s, Theta.data(), P, scaled.data(), t, T); });
        grid([&](int t, int T) {
            ca::weighted_norms(s, Theta.data(), P, na.data(), norms_b, t, T);
        });
        for (Index p = 0; p < P; ++p)
            W.middleCols(p * q, q) = scaled.middleCols(p * d, d) * second.transpose();
        grid([&](int t, int T) {
            ca::gaussian_pair_weights(Y.data(), na.data(), norms_b, m, q, P, spec.scale, W.data(),
                                      t, T);
        });
        column_sums();
        Vector r = Vector::Constant(m * P, nan);
        grid([&](int t, int T) { ca::row_sums(W.data(), m, q, P, r.data(), t, T); });
        for (Index p = 0; p < P; ++p)
            scaled.middleCols(p * d, d) = W.middleCols(p * q, q) * second;
        for (Index p = 0; p < P; ++p)
            for (Index k = 0; k < d; ++k) {
                double squares = 0.0, cross = 0.0;
                for (int t = 0; t < threads; ++t) {
                    const ca::GaussianGradientParts part = ca::gaussian_gradient_part(
                        s, r.data(), c.data(), scaled.data(), k, p, t, threads);
                    squares += part.squares;
                    cross += part.cross;
                }
                gradient(k, p) = rules::gaussian_alignment_gradient(spec.scale, squares, cross);
            }
    }
    AlignmentPassesOut out;
    out.gradient = gradient;
    for (Index p = 0; p < P; ++p) out.values.push_back(c.segment(p * q, q).sum());
    return out;
}

TEST(DevicePhases, AlignmentPassesMatchTheDefinitionOnAnyThreadCount) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(test_seed() + 81);
    for (const AlignmentKernel type : {AlignmentKernel::Gaussian, AlignmentKernel::ChiSquare}) {
        const bool chi = type == AlignmentKernel::ChiSquare;
        // (m, q, d, P); q = 0: the sums over one set of points (A = B).
        for (const auto& [m, q, d, P] : {std::array<Index, 4>{9, 0, 4, 3},
                                         {7, 5, 3, 2},
                                         {1, 4, 6, 1},
                                         {13, 1, 2, 3},
                                         {40, 0, 7, 2}}) {
            const bool same = q == 0;
            SCOPED_TRACE(::testing::Message() << "chi-square " << chi << ", m " << m << ", q "
                                            << q << ", d " << d << ", P " << P);
            AlignmentKernelSpec spec;
            spec.type = type;
            spec.scale = chi ? 0.3 : 1.0 / (2.0 * (double(d) / 4.0));
            Matrix A = random_matrix(m, d, rng, chi ? 0.0 : -1.5, 1.5);
            Matrix B = same ? A : random_matrix(q, d, rng, chi ? 0.0 : -1.5, 1.5);
            if (chi) {  // x + z = 0 occurs: the term is 0
                A(0, 0) = 0.0;
                B(B.rows() - 1, 0) = 0.0;
                if (same) B = A;
            }
            // Any pair weights: not symmetric where the points are the same.
            const Matrix Y = random_matrix(m, same ? m : q, rng, -1.0, 1.0);
            Matrix Theta = random_matrix(d, P, rng, 0.0, 1.0);
            Theta(0, 0) = 0.0;
            const double scale = Y.cwiseAbs().sum();
            for (const int threads : {1, 3, 64}) {
                SCOPED_TRACE(::testing::Message() << threads << " threads");
                const AlignmentPassesOut out = run_alignment_passes(spec, A, B, same, Y, Theta,
                                                                    threads);
                ASSERT_EQ(out.values.size(), std::size_t(P));
                for (Index p = 0; p < P; ++p) {
                    Vector g;
                    const double v =
                        same ? reference::weighted_kernel_sum(spec, A, Y, Theta.col(p), g)
                             : reference::cross_kernel_sum(spec, A, B, Y, Theta.col(p), g);
                    EXPECT_NEAR(out.values[std::size_t(p)], v, 1e-12 * scale) << "p " << p;
                    ASSERT_TRUE(out.gradient.col(p).allFinite()) << "p " << p;
                    EXPECT_LE((out.gradient.col(p) - g).cwiseAbs().maxCoeff(),
                              1e-11 * scale * (1.0 + g.cwiseAbs().maxCoeff()))
                        << "p " << p;
                }
            }
        }
    }
}


// The AROM update of one column, exactly the one-column rule's: the same normalised and pruned
// scales, survivors, largest change and degenerate columns (u all zero, not finite), and a
// column not updated copied; on any thread count, the threads in either order.
TEST(DevicePhases, AromUpdateIsTheOneColumnRuleOnAnyThreadCount) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(test_seed() + 91);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    enum Case { Plain, NotUpdated, ZeroWeights, NanWeight, InfiniteScale, AllPruned };
    for (const Index d : {0, 1, 5, 257, 1200}) {
        for (const Case kind : {Plain, NotUpdated, ZeroWeights, NanWeight, InfiniteScale,
                                AllPruned}) {
            if (d == 0 && kind != Plain && kind != NotUpdated) continue;
            SCOPED_TRACE(::testing::Message() << "d " << d << ", case " << int(kind));
            // Scales in [0, 1] with zeros (pruned features) and many small ones near the
            // tolerance; weights of either sign.
            Vector z = random_matrix(d, 1, rng, 0.0, 1.0).col(0).array().pow(4.0).matrix();
            for (Index j = 0; j < d; j += 3) z[j] = 0.0;
            Vector w = random_matrix(d, 1, rng, -2.0, 2.0).col(0);
            if (kind == ZeroWeights) w.setZero();
            if (kind == NanWeight) w[d / 2] = nan;
            if (kind == InfiniteScale) z[d - 1] = inf;
            const double tolerance = kind == AllPruned ? 0.999999 : 1e-3;
            if (kind == AllPruned && d > 1) z[1] = 0.5;  // one top entry survives at most
            const bool update = kind != NotUpdated;
            const reference::AromColumn want = reference::arom_update(z, w, update, tolerance);
            for (const int threads : {1, 3, 32, 256}) {
                for (const bool descending : {false, true}) {
                    SCOPED_TRACE(::testing::Message() << threads << " threads, descending "
                                                    << descending);
                    Vector normalized = Vector::Constant(d, nan), next = Vector::Constant(d, nan);
                    cd::ScaleUpdateColumn column;
                    column.z = z.data();
                    column.w = w.data();
                    column.normalized = normalized.data();
                    column.next = next.data();
                    column.d = d;
                    column.update = update;
                    column.prune_tolerance = tolerance;
                    HostBlock block(threads, descending);
                    const cd::ScaleUpdateOutcome got = cd::scale_update_block(block, column);
                    EXPECT_EQ(normalized, want.normalized);
                    EXPECT_EQ(next, want.next);
                    EXPECT_EQ(got.survivors, want.summary.survivors);
                    EXPECT_EQ(got.max_change, want.summary.max_change);
                    EXPECT_EQ(got.degenerate != 0, want.summary.degenerate);
                }
            }
        }
    }
}

}  // namespace
}  // namespace zeronorm
