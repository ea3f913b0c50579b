// The linear SVM's Gram form (dense data, fewer than a quarter as many samples as features: the
// margins kept through the Gram matrix) against the ordinary form on the same dual. With
// X^T = Q R (thin QR), the n x n data R^T have X's Gram matrix, so the dual, its coordinate
// order (same seed) and hence alpha are the same; R^T (n features) runs the ordinary form, and
// w of X is Q times w of R^T.
#include <gtest/gtest.h>

#include <random>

#include "solvers/linear_svm_gram.hpp"
#include "support/matrix_checks.hpp"
#include "support/random.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/solvers/linear_svm.hpp"

namespace zeronorm {
namespace {

using testing::exactly_equal;

TEST(LinearSvmGramForm, EqualsTheOrdinaryFormOnTheSameDual) {
    const std::uint64_t seed = testing::test_seed();
    SCOPED_TRACE("ZN_TEST_SEED=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    const Index n = 16, d = 200;
    const Dataset wide = testing::random_two_class(n, d, rng, 0.2);
    const Eigen::HouseholderQR<Matrix> qr(wide.X.transpose());
    const Matrix Q = qr.householderQ() * Matrix::Identity(d, n);
    Dataset narrow;
    narrow.X = wide.X * Q;  // = R^T: the same inner products
    narrow.y = wide.y;
    for (const LinearLoss loss : {LinearLoss::SquaredHinge, LinearLoss::Hinge})
        for (const double C : {0.01, 1.0, 100.0}) {
            LinearSvmOptions o;
            o.loss = loss;
            o.C = C;
            o.seed = seed;
            o.bias_feature = 0.0;  // the constant feature is not rotated: leave it out here
            const LinearSvmResult g = train_linear_svm(wide, o);
            const LinearSvmResult p = train_linear_svm(narrow, o);
            EXPECT_EQ(g.status, p.status);
            EXPECT_LT((g.alpha - p.alpha).lpNorm<Eigen::Infinity>(),
                      1e-6 * (1.0 + p.alpha.lpNorm<Eigen::Infinity>()));
            EXPECT_LT((g.w - Q * p.w).norm(), 1e-6 * (1.0 + p.w.norm()));
            EXPECT_NEAR(g.primal_objective, p.primal_objective,
                        1e-6 * (1.0 + std::abs(p.primal_objective)));
            // w = sum_i alpha_i y_i x_i (eq. (3)), formed at the end in the Gram form.
            const Vector w = wide.X.transpose() * (g.alpha.array() * wide.y.array()).matrix();
            EXPECT_LT((g.w - w).norm(), 1e-9 * (1.0 + w.norm()));
        }
}

// A Gram matrix computed once and given to several fits (FS-SVMCP's cross-validation over C)
// gives the same solutions as each fit computing its own; a Gram matrix of the wrong size is
// refused.
TEST(LinearSvmGramForm, AGivenGramMatrixGivesTheSameSolution) {
    const std::uint64_t seed = testing::test_seed();
    SCOPED_TRACE("ZN_TEST_SEED=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    const Dataset data = testing::random_two_class(12, 150, rng, 0.3);
    LinearSvmOptions o;
    o.seed = seed;
    ASSERT_TRUE(detail::linear_svm_gram_form(data.n_samples(), data.n_features(), o));
    const Matrix gram = detail::linear_svm_gram(data.X, o);
    EXPECT_NEAR(gram(0, 1), data.X.row(0).dot(data.X.row(1)) + 1.0, 1e-9 * gram.norm());
    for (const double C : {0.001, 1.0, 1000.0}) {
        o.C = C;
        const LinearSvmResult own = train_linear_svm(data, o);
        const LinearSvmResult given = detail::train_linear_svm_with_gram(data, o, gram);
        EXPECT_TRUE(exactly_equal(own.alpha, given.alpha));
        EXPECT_TRUE(exactly_equal(own.w, given.w));
        EXPECT_EQ(own.bias, given.bias);
    }
    EXPECT_THROW(detail::train_linear_svm_with_gram(data, o, gram.topLeftCorner(11, 11)),
                 DimensionMismatch);
}

}  // namespace
}  // namespace zeronorm
