// The synthetic linear problem of Weston, Elisseeff, Schoelkopf & Tipping (JMLR 3, 2003),
// sec. 4.5 ("Linear problem", Table 1), shared by bench/repro_table1.cpp and tests/methods/test_arom.cpp.
//
// 100 features, 6 relevant with redundancy: y = +-1 with equal probability; with probability 0.7
// x_i = y N(i, 1) for i = 1, 2, 3 and x_i = N(0, 1) for i = 4, 5, 6; otherwise x_i = N(0, 1) for
// i = 1, 2, 3 and x_i = y N(i - 3, 1) for i = 4, 5, 6; x_i = N(0, 20) (standard deviation 20)
// for i = 7..100. N(mu, sigma) has standard deviation sigma (the paper's footnote 8).
// "Two relevant non-redundant features" are one of x1..x3 and one of x4..x6 (0-based: one of
// columns 0..2 and one of 3..5).
#pragma once

#include <random>

#include "zeronorm/core/dataset.hpp"

namespace zeronorm::weston2003 {

inline Dataset linear_problem(Index n, std::mt19937_64& rng) {
    std::normal_distribution<double> normal(0.0, 1.0);
    std::bernoulli_distribution coin(0.5), first_group(0.7);
    Dataset data;
    data.X.resize(n, 100);
    data.y.resize(n);
    for (Index s = 0; s < n; ++s) {
        const double y = coin(rng) ? 1.0 : -1.0;
        data.y[s] = y;
        const bool first = first_group(rng);
        for (int i = 1; i <= 3; ++i) {
            data.X(s, i - 1) = first ? y * (i + normal(rng)) : normal(rng);
            data.X(s, i + 2) = first ? normal(rng) : y * (i + normal(rng));
        }
        for (int i = 7; i <= 100; ++i) data.X(s, i - 1) = 20.0 * normal(rng);
    }
    return data;
}

// True when `selected` holds exactly two features, one of x1..x3 and one of x4..x6.
inline bool relevant_non_redundant(const IndexVector& selected) {
    if (selected.size() != 2) return false;
    const auto group = [](Index j) { return j < 3 ? 0 : (j < 6 ? 1 : 2); };
    const int a = group(selected[0]), b = group(selected[1]);
    return a != 2 && b != 2 && a != b;
}

}  // namespace zeronorm::weston2003
