// One kernel-target alignment value and gradient (the sum every DCA step of kta evaluates) on the
// library's backends, for bench/bench_alignment.py to set beside NumPy. Reads the problem that
// script writes (raw little-endian doubles: n, d, then X row-major n x d, y (+-1), theta), forms
// Y = y_n y_n' (y_n = y_i / n_{y_i}) and times weighted_kernel_sum_batch for one theta with the
// Gaussian kernel, sigma = sqrt(d) / 2. Prints one JSON line per backend: the value, the gradient
// the median of `repeats` timed calls (upload of theta and download of the gradient included).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <vector>

#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/ops/alignment_ops.hpp"

using namespace zeronorm;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: bench_alignment PROBLEM.bin [repeats]\n";
        return 1;
    }
    const int repeats = argc > 2 ? std::atoi(argv[2]) : 20;
    std::ifstream in(argv[1], std::ios::binary);
    double header[2];
    in.read(reinterpret_cast<char*>(header), sizeof header);
    const Index n = Index(header[0]), d = Index(header[1]);
    std::vector<double> raw(std::size_t(n * d + n + d));
    in.read(reinterpret_cast<char*>(raw.data()), std::streamsize(raw.size() * sizeof(double)));
    if (!in) {
        std::cerr << "bench_alignment: " << argv[1] << " is short\n";
        return 2;
    }
    Matrix X(n, d);
    for (Index i = 0; i < n; ++i)
        for (Index k = 0; k < d; ++k) X(i, k) = raw[std::size_t(i * d + k)];
    Vector y(n), theta(d);
    for (Index i = 0; i < n; ++i) y[i] = raw[std::size_t(n * d + i)];
    for (Index k = 0; k < d; ++k) theta[k] = raw[std::size_t(n * d + n + k)];
    const double n_plus = double((y.array() > 0).count()), n_minus = double(n) - n_plus;
    const Vector yn = y.unaryExpr([&](double v) { return v > 0 ? 1.0 / n_plus : -1.0 / n_minus; });
    AlignmentKernelSpec spec;
    spec.scale = 1.0 / (2.0 * (double(d) / 4.0));  // 1 / (2 sigma^2), sigma = sqrt(d) / 2
    for (const BackendKind kind : {BackendKind::Cpu, BackendKind::Cuda}) {
        if (kind == BackendKind::Cuda && cuda_device_count() == 0) continue;
        auto backend = make_backend(kind);
        const DeviceMatrix Xd = backend->upload(X);
        const DeviceMatrix Y = backend->upload(yn * yn.transpose());
        double value = 0.0;
        Vector gradient;
        std::vector<double> ms;
        for (int r = 0; r <= repeats; ++r) {  // the first call warms up, untimed
            const auto start = std::chrono::steady_clock::now();
            const DeviceMatrix T = backend->upload(theta);
            DeviceMatrix G = backend->allocate(d, 1);
            value = backend->alignment().weighted_kernel_sum_batch(spec, Xd, Y, T, G)[0];
            gradient = backend->download(G).col(0);
            const double t = std::chrono::duration<double, std::milli>(
                                 std::chrono::steady_clock::now() - start).count();
            if (r > 0) ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        std::printf("{\"backend\": \"%s\", \"n\": %lld, \"d\": %lld, \"value\": %.17g, "
                    "\"median_ms\": %.4f, \"gradient\": [",
                    to_string(kind).c_str(), static_cast<long long>(n), static_cast<long long>(d),
                    value, ms[ms.size() / 2]);
        for (Index k = 0; k < d; ++k) std::printf(k > 0 ? ", %.17g" : "%.17g", gradient[k]);
        std::printf("]}\n");
    }
    return 0;
}
