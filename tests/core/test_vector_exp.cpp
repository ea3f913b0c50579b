// The CPU backend's vectorised exponential (cpu_fallback/vector_exp.hpp) against std::exp: every
// length up to 19 (the tails of the 2-, 4- and 8-wide variants), values across the whole range
// with the special ones (0, underflow, overflow, infinities, NaN), and each entry's result
// independent of its position (symmetric kernels rely on it).
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "cpu_fallback/vector_exp.hpp"
#include "support/random.hpp"

namespace zeronorm {
namespace {

TEST(VectorExp, MatchesStdExpWhateverTheLengthAndPosition) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed());
    std::uniform_real_distribution<double> wide(-740.0, 705.0), narrow(-5.0, 5.0);
    const double special[] = {0.0, -0.0, 1e-300, -1e-12, -800.0, 800.0,
                              -std::numeric_limits<double>::infinity(),
                              std::numeric_limits<double>::infinity(),
                              std::numeric_limits<double>::quiet_NaN()};
    for (Index n = 0; n <= 19; ++n)
        for (int round = 0; round < 20; ++round) {
            std::vector<double> x(static_cast<std::size_t>(n));
            for (double& v : x) v = round % 2 == 0 ? wide(rng) : narrow(rng);
            if (n > 0) x[std::size_t(round) % x.size()] = special[round % 9];
            std::vector<double> y = x, reversed(x.rbegin(), x.rend());
            cpu::exp_in_place(y.data(), n);
            cpu::exp_in_place(reversed.data(), n);
            for (std::size_t i = 0; i < x.size(); ++i) {
                SCOPED_TRACE(::testing::Message() << "n " << n << ", x " << x[i]);
                const double expected = std::exp(x[i]);
                if (std::isnan(expected)) {
                    EXPECT_TRUE(std::isnan(y[i]));
                } else if (std::isinf(expected) || expected < DBL_MIN) {
                    // Overflow, underflow and the subnormals: the same up to the smallest normal.
                    EXPECT_TRUE(y[i] == expected || std::abs(y[i] - expected) <= DBL_MIN);
                } else {
                    EXPECT_LE(std::abs(y[i] - expected), 4.0 * DBL_EPSILON * expected);
                }
                // The same bits wherever the entry stands.
                const double mirrored = reversed[x.size() - 1 - i];
                EXPECT_EQ(std::memcmp(&y[i], &mirrored, sizeof(double)), 0);
            }
        }
}

}  // namespace
}  // namespace zeronorm
