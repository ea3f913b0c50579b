// Seeded random inputs for tests. The seed is fresh each run unless ZN_TEST_SEED is set, and
// is printed with every failure through a SCOPED_TRACE in the caller.
#pragma once

#include <cstdlib>
#include <random>

#include "zeronorm/core/dataset.hpp"

namespace zeronorm::testing {

inline std::uint64_t test_seed() {
    static const std::uint64_t seed = [] {
        if (const char* env = std::getenv("ZN_TEST_SEED")) return std::uint64_t(std::strtoull(env, nullptr, 10));
        return std::uint64_t(std::random_device{}());
    }();
    return seed;
}

inline Matrix random_matrix(Index rows, Index cols, std::mt19937_64& rng, double lo = -1.0,
                            double hi = 1.0) {
    std::uniform_real_distribution<double> u(lo, hi);
    Matrix m(rows, cols);
    for (Index j = 0; j < cols; ++j)
        for (Index i = 0; i < rows; ++i) m(i, j) = u(rng);
    return m;
}

// Two overlapping Gaussian classes in d dimensions (means +-shift along every axis).
inline Dataset random_two_class(Index n, Index d, std::mt19937_64& rng, double shift = 0.4) {
    std::normal_distribution<double> g(0.0, 1.0);
    Dataset data;
    data.X.resize(n, d);
    data.y.resize(n);
    for (Index i = 0; i < n; ++i) {
        const double label = (i % 2 == 0) ? 1.0 : -1.0;
        data.y[i] = label;
        for (Index j = 0; j < d; ++j) data.X(i, j) = g(rng) + label * shift;
    }
    return data;
}

// A problem where few features matter: labels from the sign of features 0..2 plus noise
// (the DC methods of Neumann, Schnoerr & Steidl 2005 should keep about those three).
inline Dataset sparse_problem(Index n, Index d, std::mt19937_64& rng) {
    std::normal_distribution<double> g(0.0, 1.0);
    Dataset data;
    data.X = Matrix(n, d);
    data.y = Vector(n);
    for (Index i = 0; i < n; ++i) {
        for (Index j = 0; j < d; ++j) data.X(i, j) = g(rng);
        const double score = data.X(i, 0) + 0.8 * data.X(i, 1) - 0.6 * data.X(i, 2) + 0.3 * g(rng);
        data.y[i] = score >= 0 ? 1.0 : -1.0;
    }
    data.y[0] = 1.0;  // both classes present
    data.y[1] = -1.0;
    return data;
}

// P problems drawn by random_two_class side by side: X (n x d P, problem p in columns
// p d .. p d + d - 1) and their labels Y (n x P), the layout of the batched primitives.
struct TwoClassBatch {
    Matrix X, Y;
};
inline TwoClassBatch random_two_class_batch(Index n, Index d, Index P, std::mt19937_64& rng,
                                            double shift) {
    TwoClassBatch batch{Matrix(n, d * P), Matrix(n, P)};
    for (Index p = 0; p < P; ++p) {
        const Dataset data = random_two_class(n, d, rng, shift);
        batch.X.middleCols(p * d, d) = data.X;
        batch.Y.col(p) = data.y;
    }
    return batch;
}

// Three classes (labels 0, 1, 2 in turn) among n points in d dimensions of N(0, 0.3^2) noise,
// class k marked by +3 on feature stride k + offset; drawn from a generator seeded with `seed`.
inline Dataset marked_classes(Index n, Index d, Index stride, Index offset, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> g(0.0, 1.0);
    Dataset data;
    data.X.resize(n, d);
    data.y.resize(n);
    for (Index i = 0; i < n; ++i) {
        const Index k = i % 3;
        data.y[i] = double(k);
        for (Index j = 0; j < d; ++j) data.X(i, j) = 0.3 * g(rng);
        data.X(i, stride * k + offset) += 3.0;
    }
    return data;
}

}  // namespace zeronorm::testing

#define ZN_SEED_TRACE() SCOPED_TRACE("ZN_TEST_SEED=" + std::to_string(::zeronorm::testing::test_seed()))
