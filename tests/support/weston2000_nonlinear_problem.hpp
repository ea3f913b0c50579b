// The synthetic nonlinear problem of Weston, Mukherjee, Chapelle, Pontil, Poggio & Vapnik,
// "Feature Selection for SVMs" (NIPS 13, 2000), sec. 4 ("Nonlinear problem"), used by
// bench/repro_fig1_nonlinear.cpp: 52 features, 2 relevant.
//
// y = +-1 with equal probability. For y = -1, (x1, x2) ~ N(mu, I) with mu = (-3/4, -3) or
// (3/4, 3), each with probability 1/2; for y = +1, mu = (3, -3) or (-3, 3). x3..x52 = N(0, 20)
// (standard deviation 20, as in the linear problem of weston2003_linear_problem.hpp). The classes
// are an XOR-like arrangement of four clusters: no single feature and no linear rule separates
// them, a Gaussian kernel on (x1, x2) does.
#pragma once

#include <random>

#include "zeronorm/core/dataset.hpp"

namespace zeronorm::weston2000 {

inline constexpr Index kNonlinearFeatures = 52;

inline Dataset nonlinear_problem(Index n, std::mt19937_64& rng) {
    std::normal_distribution<double> normal(0.0, 1.0);
    std::bernoulli_distribution coin(0.5);
    Dataset data;
    data.X.resize(n, kNonlinearFeatures);
    data.y.resize(n);
    for (Index s = 0; s < n; ++s) {
        const double y = coin(rng) ? 1.0 : -1.0;
        const double sign = coin(rng) ? 1.0 : -1.0;  // which of the class's two clusters
        data.y[s] = y;
        data.X(s, 0) = sign * (y < 0 ? 0.75 : 3.0) + normal(rng);
        data.X(s, 1) = sign * (y < 0 ? 3.0 : -3.0) + normal(rng);
        for (Index j = 2; j < kNonlinearFeatures; ++j) data.X(s, j) = 20.0 * normal(rng);
    }
    return data;
}

}  // namespace zeronorm::weston2000
