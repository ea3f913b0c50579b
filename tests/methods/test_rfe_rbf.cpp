// RFE with the Gaussian kernel (Lal et al. 2006, Algorithm 2): the ranker on a problem only a
// nonlinear machine solves, linear RFE as the default, bad input. (Its W^2_(-p) sums are
// AlignmentOps::gaussian_removal_sums, tested against kernel rebuilds in test_alignment_ops.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "methods/rfe/rfe.hpp"
#include "support/matrix_checks.hpp"
#include "support/random.hpp"
#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/methods/methods.hpp"
#include "zeronorm/methods/selection.hpp"

namespace zeronorm {
namespace {

using testing::exactly_equal;
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

// The elimination order of every RFE (RfeElimination) against the rule written plainly: each
// round sorts the alive features by criterion, best first and ties in column order (a stable
// sort), removes the last ones (never past a requested count) and ranks them as sorted; the last
// survivors keep their round's order. Criteria with many ties, one at a time and by fractions.
TEST(RfeElimination, OrderIsTheStableSortOfEachRound) {
    const std::uint64_t seed = test_seed();
    SCOPED_TRACE("ZN_TEST_SEED=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> level(0, 6);
    for (const double fraction : {0.0, 0.3, 0.5}) {
        const Index d = 157;
        const IndexVector counts_desc{60, 17, 5, 2};
        Matrix criteria(d, 400);  // round r's criterion of feature j: criteria(j, r)
        for (Index r = 0; r < criteria.cols(); ++r)
            for (Index j = 0; j < d; ++j) criteria(j, r) = double(level(rng));
        const auto criterion_of = [&](std::int64_t round, const IndexVector& alive) {
            detail::RfeRound scored;
            scored.criterion.resize(Index(alive.size()));
            for (std::size_t k = 0; k < alive.size(); ++k)
                scored.criterion[Index(k)] = criteria(alive[k], Index(round - 1));
            return scored;
        };
        const detail::Ranking got =
            detail::eliminate_recursively(d, counts_desc, fraction, criterion_of);

        IndexVector alive(static_cast<std::size_t>(d)), eliminated;  // eliminated: worst first
        std::iota(alive.begin(), alive.end(), Index(0));
        IndexVector last;
        for (std::int64_t round = 1;; ++round) {
            const Vector c = criterion_of(round, alive).criterion;
            IndexVector order(alive.size());
            std::iota(order.begin(), order.end(), Index(0));
            std::stable_sort(order.begin(), order.end(),
                             [&](Index a, Index b) { return c[a] > c[b]; });
            const Index remaining = Index(alive.size());
            if (remaining == counts_desc.back()) {
                for (const Index p : order) last.push_back(alive[std::size_t(p)]);
                break;
            }
            Index next = counts_desc.back();
            for (const Index count : counts_desc)
                if (count < remaining) {
                    next = count;
                    break;
                }
            Index remove = fraction > 0 ? std::max<Index>(1, Index(fraction * remaining)) : 1;
            remove = std::min(remove, remaining - next);
            for (Index k = remaining - 1; k >= remaining - remove; --k)
                eliminated.push_back(alive[std::size_t(order[std::size_t(k)])]);
            if (remaining - remove == counts_desc.back()) {
                for (Index k = 0; k < remaining - remove; ++k)
                    last.push_back(alive[std::size_t(order[std::size_t(k)])]);
                break;
            }
            order.resize(std::size_t(remaining - remove));  // the kept
            std::sort(order.begin(), order.end());
            IndexVector next_alive;
            for (const Index p : order) next_alive.push_back(alive[std::size_t(p)]);
            alive = std::move(next_alive);
        }
        // Best first: the survivors, then the removed, later rounds before earlier ones and
        // within a round best first.
        IndexVector ranking = last;
        for (auto it = eliminated.rbegin(); it != eliminated.rend(); ++it) ranking.push_back(*it);
        ASSERT_EQ(got.selected.size(), counts_desc.size());
        for (std::size_t k = 0; k < counts_desc.size(); ++k)
            EXPECT_EQ(got.selected[k],
                      IndexVector(ranking.begin(), ranking.begin() + counts_desc[k]))
                << "fraction " << fraction << ", count " << counts_desc[k];
    }
}

// The round handed its order (as RfeOps::eliminate_batch hands it: the eliminated, or the whole
// order in the last round) ranks as the round that orders its criterion; an order of the wrong
// length, or with a position out of range or repeated, is refused.
TEST(RfeElimination, EliminatingByAGivenOrderEqualsAdvancing) {
    const std::uint64_t seed = test_seed();
    SCOPED_TRACE("ZN_TEST_SEED=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> level(0, 9);
    const Index d = 90;
    const IndexVector counts_desc{40, 11, 3};
    for (const double fraction : {0.0, 0.5}) {
        detail::RfeElimination advanced(d, counts_desc, fraction), given(d, counts_desc, fraction);
        while (advanced.running()) {
            ASSERT_TRUE(given.running());
            ASSERT_EQ(given.alive(), advanced.alive());
            detail::RfeRound scored;
            scored.criterion = Vector::NullaryExpr(Index(advanced.alive().size()),
                                                   [&] { return double(level(rng)); });
            scored.objective = double(level(rng));
            const detail::RfeElimination::Step step = given.step();
            const IndexVector order = detail::order_descending(scored.criterion);
            const IndexVector tail(step.last ? order.begin() : order.end() - step.remove,
                                   order.end());
            if (!step.last) {
                IndexVector short_tail(tail.begin() + 1, tail.end());
                EXPECT_THROW(given.eliminate(short_tail, 0.0, Status::Success), DimensionMismatch);
            }
            IndexVector repeated = tail, outside = tail;
            if (repeated.size() > 1) {
                repeated.back() = repeated.front();
                EXPECT_THROW(given.eliminate(repeated, 0.0, Status::Success), InvalidArgument);
            }
            outside.back() = Index(advanced.alive().size());
            EXPECT_THROW(given.eliminate(outside, 0.0, Status::Success), InvalidArgument);
            advanced.advance(scored);
            given.eliminate(tail, scored.objective, scored.status);
        }
        EXPECT_FALSE(given.running());
        const detail::Ranking a = std::move(advanced).finish(), g = std::move(given).finish();
        EXPECT_EQ(g.selected, a.selected) << "fraction " << fraction;
        EXPECT_TRUE(exactly_equal(g.scores, a.scores));
        ASSERT_EQ(g.trace.size(), a.trace.size());
        for (std::size_t k = 0; k < a.trace.size(); ++k) {
            EXPECT_EQ(g.trace[k].n_features, a.trace[k].n_features);
            EXPECT_EQ(g.trace[k].objective, a.trace[k].objective);
        }
    }
}

TEST(RfeRbf, FindsTheFeaturesOfANonlinearProblem) {
    const std::uint64_t seed = test_seed();
    SCOPED_TRACE("ZN_TEST_SEED=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    // The criterion |W^2 - W^2_(-p)| grows for noise features as features go: at 150 points about
    // one sample in 3,000 lets one outlast x0 in the last round; at 300, none in 20,000.
    const Dataset data = circle_problem(300, 6, rng);
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
