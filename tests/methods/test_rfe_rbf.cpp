// RFE with the Gaussian kernel (Lal et al. 2006, Algorithm 2): the ranker on a problem only a
// nonlinear machine solves, linear RFE as the default, bad input. (Its W^2_(-p) sums are
// AlignmentOps::gaussian_removal_sums, tested against kernel rebuilds in test_alignment_ops.)
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "methods/rfe/rfe.hpp"
#include "support/random.hpp"
#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/methods/methods.hpp"
#include "zeronorm/methods/selection.hpp"

namespace zeronorm {
namespace {

using testing::random_matrix;
using testing::test_seed;

// Labels by the circle x0^2 + x1^2 < 1.2: no linear function of x0, x1 separates them.
Dataset circle_problem(Index n, Index d, std::mt19937_64& rng) {
    Dataset data;
    data.X = random_matrix(n, d, rng, -1.5, 1.5);
    data.y.resize(n);
    for (Index i = 0; i < n; ++i) {
        const double r2 = data.X(i, 0) * data.X(i, 0) + data.X(i, 1) * data.X(i, 1);
        data.y[i] = r2 < 1.2 ? 1.0 : -1.0;
    }
    data.y[0] = 1.0;
    data.X(0, 0) = data.X(0, 1) = 0.0;
    data.y[1] = -1.0;
    data.X(1, 0) = data.X(1, 1) = 1.5;
    return data;
}

TEST(RfeRbf, FindsTheFeaturesOfANonlinearProblem) {
    const std::uint64_t seed = test_seed();
    SCOPED_TRACE("ZN_TEST_SEED=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    const Dataset data = circle_problem(150, 6, rng);
    auto backend = make_cpu_backend();
    SelectionOptions o;
    o.method = SelectionMethod::RfeRbf;
    o.feature_counts = {2, 4};
    o.C = 10.0;
    o.set_parameter("rfe_gamma", "0.1");  // wide enough not to fit the noise features
    const SelectionResult r = select_features(*backend, data, o);
    ASSERT_EQ(r.subsets.size(), 2u);
    IndexVector two = r.subsets[0].selected;
    std::sort(two.begin(), two.end());
    EXPECT_EQ(two, (IndexVector{0, 1}));
    EXPECT_EQ(r.subsets[1].selected.size(), 4u);
    EXPECT_EQ(r.iterations, 4);  // SVMs on 6, 5, 4 and 3 features; the last leaves 2
}

TEST(RfeRbf, BadGammaIsNamed) {
    std::mt19937_64 rng(test_seed());
    const Dataset data = circle_problem(10, 3, rng);
    auto backend = make_cpu_backend();
    SelectionOptions o;
    o.method = SelectionMethod::RfeRbf;
    o.feature_counts = {1};
    o.rfe_gamma = -1;
    try {
        select_features(*backend, data, o);
        ADD_FAILURE() << "negative gamma accepted";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("rfe_gamma must be"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace zeronorm
