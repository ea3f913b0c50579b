// Shape-checked comparisons of matrices and vectors for the tests.
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Core>

namespace zeronorm::testing {

// Success when `got` and `want` have the same number of rows and of columns.
template <typename Got, typename Want>
::testing::AssertionResult same_shape(const Eigen::DenseBase<Got>& got,
                                      const Eigen::DenseBase<Want>& want) {
    if (got.rows() == want.rows() && got.cols() == want.cols())
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "shape " << got.rows() << " x " << got.cols()
                                         << ", want " << want.rows() << " x " << want.cols();
}

// Success when `got` and `want` have the same shape and equal entries. Eigen's == assumes equal
// shapes (unchecked under NDEBUG), so a wrong-sized result is a failure here, not a read past an
// array; the message names the shapes or the first entry that differs.
template <typename Got, typename Want>
::testing::AssertionResult exactly_equal(const Eigen::DenseBase<Got>& got,
                                         const Eigen::DenseBase<Want>& want) {
    if (::testing::AssertionResult shaped = same_shape(got, want); !shaped) return shaped;
    for (Eigen::Index j = 0; j < got.cols(); ++j)
        for (Eigen::Index i = 0; i < got.rows(); ++i)
            if (!(got(i, j) == want(i, j)))
                return ::testing::AssertionFailure()
                       << "entry (" << i << ", " << j << ") is "
                       << ::testing::PrintToString(got(i, j)) << ", want "
                       << ::testing::PrintToString(want(i, j));
    return ::testing::AssertionSuccess();
}

// Success when `got` and `want` have the same shape and ||got - want|| <= relative * min(||got||,
// ||want||), Eigen's isApprox rule, which like == assumes equal shapes.
template <typename Got, typename Want>
::testing::AssertionResult approximately_equal(
    const Eigen::MatrixBase<Got>& got, const Eigen::MatrixBase<Want>& want,
    typename Got::RealScalar relative = Eigen::NumTraits<typename Got::Scalar>::dummy_precision()) {
    if (::testing::AssertionResult shaped = same_shape(got, want); !shaped) return shaped;
    if (got.isApprox(want, relative)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "||got - want|| = " << (got - want).norm()
                                         << ", allowed " << relative << " * min(" << got.norm()
                                         << ", " << want.norm() << ")";
}

}  // namespace zeronorm::testing
