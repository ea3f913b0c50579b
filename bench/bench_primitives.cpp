// Backend primitives under Google Benchmark: Gram matrices (GFLOP/s), kernel matrices and SMO
// on microarray-sized problems, the kernel-target alignment gradients (batches of weight
// vectors) and the Gaussian RFE's W^2 without each feature (against d kernel rebuilds), for
// every backend present. GPU timings include a device
// synchronisation (download of the result) inside the timed region.
#include <benchmark/benchmark.h>

#include <random>

#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/ops/alignment_ops.hpp"
#include "zeronorm/core/ops/smo_ops.hpp"

using namespace zeronorm;

namespace {

Matrix random_matrix(Index rows, Index cols, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> g;
    Matrix m(rows, cols);
    for (Index j = 0; j < cols; ++j)
        for (Index i = 0; i < rows; ++i) m(i, j) = g(rng);
    return m;
}

bool available(BackendKind kind) { return kind == BackendKind::Cpu || cuda_device_count() > 0; }

// Symmetric linear Gram of n samples x d features: n^2 d flops (SYRK counts half, we count the
// useful n(n+1)d).
void BM_Gram(benchmark::State& state, BackendKind kind) {
    if (!available(kind)) {
        state.SkipWithError("no CUDA device");
        return;
    }
    auto backend = make_backend(kind);
    const Index n = state.range(0), d = state.range(1);
    const DeviceMatrix X = backend->upload(random_matrix(n, d, 1));
    const DeviceMatrix z = backend->upload(Vector::Ones(d));
    KernelSpec linear;
    for (auto _ : state) {
        DeviceMatrix K = backend->kernel_matrix(linear, X, X, &z);
        double corner = 0;
        if (kind == BackendKind::Cuda) corner = backend->download(backend->select_rows(K, {0}))(0, 0);
        benchmark::DoNotOptimize(corner);
    }
    state.counters["GFLOP/s"] = benchmark::Counter(double(n) * double(n + 1) * double(d),
                                                   benchmark::Counter::kIsIterationInvariantRate,
                                                   benchmark::Counter::kIs1000);
}

void BM_SmoLinear(benchmark::State& state, BackendKind kind) {
    if (!available(kind)) {
        state.SkipWithError("no CUDA device");
        return;
    }
    auto backend = make_backend(kind);
    const Index n = state.range(0), d = state.range(1);
    Matrix Xh = random_matrix(n, d, 2);
    Vector y(n);
    for (Index i = 0; i < n; ++i) {
        y[i] = i % 2 ? 1.0 : -1.0;
        Xh.row(i).head(5).array() += 0.3 * y[i];
    }
    const DeviceMatrix X = backend->upload(Xh);
    KernelSpec linear;
    const DeviceMatrix K = backend->kernel_matrix(linear, X, X);
    SmoOptions options;
    options.C = std::numeric_limits<double>::infinity();
    options.ridge = 1e-3;
    options.tolerance = 1e-3;
    std::int64_t iterations = 0;
    for (auto _ : state) {
        const SmoResult r = backend->smo().solve(K, y, options);
        iterations = r.iterations;
        benchmark::DoNotOptimize(r.objective);
    }
    state.counters["smo_iterations"] = double(iterations);
}

// The alignment sums and gradients of P weight vectors at once (n points, d features): what
// one L-BFGS-B evaluation of the kernel-target alignment DCA costs, P = 1, or a validation grid's
// worth, P = 110.
void BM_AlignmentGradient(benchmark::State& state, BackendKind kind) {
    if (!available(kind)) {
        state.SkipWithError("no CUDA device");
        return;
    }
    auto backend = make_backend(kind);
    const Index n = state.range(0), d = state.range(1), P = state.range(2);
    const DeviceMatrix X = backend->upload(random_matrix(n, d, 3));
    const Matrix y = random_matrix(n, 1, 4);
    const DeviceMatrix Y = backend->upload(y * y.transpose());
    const DeviceMatrix Theta = backend->upload(Matrix::Constant(d, P, 0.5));
    DeviceMatrix gradient = backend->allocate(d, P);
    AlignmentKernelSpec spec;
    spec.scale = 2.0 / double(d);  // sigma = sqrt(d) / 2
    for (auto _ : state) {
        const std::vector<double> values =
            backend->alignment().weighted_kernel_sum_batch(spec, X, Y, Theta, gradient);
        benchmark::DoNotOptimize(values.data());
    }
}

// W^2_(-p) for every feature p: the one-pass operation, and (Rebuild) d Gaussian kernels rebuilt
// without one feature each, v'K_(-p)v.
void BM_RemovalSums(benchmark::State& state, BackendKind kind, bool rebuild) {
    if (!available(kind)) {
        state.SkipWithError("no CUDA device");
        return;
    }
    auto backend = make_backend(kind);
    const Index n = state.range(0), d = state.range(1);
    const Matrix Xh = random_matrix(n, d, 5);
    const Vector v = random_matrix(n, 1, 6);
    const DeviceMatrix X = backend->upload(Xh);
    const DeviceMatrix v_dev = backend->upload(v);
    const double gamma = 1.0 / double(d);
    KernelSpec rbf;
    rbf.type = KernelType::Rbf;
    rbf.gamma = gamma;
    for (auto _ : state) {
        if (!rebuild) {
            const std::vector<double> sums =
                backend->alignment().gaussian_removal_sums(gamma, X, v_dev);
            benchmark::DoNotOptimize(sums.data());
            continue;
        }
        double total = 0.0;
        for (Index p = 0; p < d; ++p) {
            IndexVector others;
            for (Index k = 0; k < d; ++k)
                if (k != p) others.push_back(k);
            const DeviceMatrix Xp = backend->select_columns(X, others);
            const Matrix K = backend->download(backend->kernel_matrix(rbf, Xp, Xp));
            total += v.dot(K * v);
        }
        benchmark::DoNotOptimize(total);
    }
}

void register_all() {
    for (BackendKind kind : {BackendKind::Cpu, BackendKind::Cuda}) {
        if (kind == BackendKind::Cuda && !cuda_compiled()) continue;
        const std::string tag = kind == BackendKind::Cpu ? "cpu" : "cuda";
        auto* gram = benchmark::RegisterBenchmark(("Gram/" + tag).c_str(), BM_Gram, kind);
        gram->Args({62, 2000})->Args({200, 7129})->Args({500, 20000})->Args({2000, 2000});
        // A product large enough to reach the card's float64 GEMM rate: the ceiling the small
        // Grams are measured against.
        if (kind == BackendKind::Cuda) gram->Args({8192, 8192});
        gram->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("SmoLinearHardMargin/" + tag).c_str(), BM_SmoLinear, kind)
            ->Args({50, 2000})->Args({500, 2000})->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("AlignmentGradient/" + tag).c_str(), BM_AlignmentGradient,
                                     kind)
            ->Args({62, 2000, 1})->Args({700, 166, 1})->Args({62, 2000, 110})
            ->Args({700, 166, 110})->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("RemovalSums/" + tag).c_str(), BM_RemovalSums, kind, false)
            ->Args({100, 2000})->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("RemovalRebuilds/" + tag).c_str(), BM_RemovalSums, kind, true)
            ->Args({100, 2000})->Iterations(1)->Unit(benchmark::kMillisecond);
    }
}

}  // namespace

int main(int argc, char** argv) {
    register_all();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
