// Explicit, train-fitted preprocessing steps: fit on training rows, apply to any rows.
#pragma once

#include "zeronorm/core/dataset.hpp"

namespace zeronorm {

// Per-feature standardisation to zero mean and unit variance (population sd). A constant
// feature keeps scale 1, so it maps to 0 rather than NaN.
struct Standardizer {
    Vector mean;
    Vector scale;

    // Each takes a Matrix or a block of columns of one. The transforms throw DimensionMismatch
    // on a wrong column count.
    static Standardizer fit(const Eigen::Ref<const Matrix>& X);
    Matrix transform(const Eigen::Ref<const Matrix>& X) const;
    void transform_in_place(Eigen::Ref<Matrix> X) const;
};

// Per-sample standardisation (each row to zero mean, unit variance), as used on microarrays.
Matrix standardize_rows(const Matrix& X);

// Elementwise log10; InvalidArgument naming row and column of the first non-positive entry.
Matrix log10_transform(const Matrix& X);

}  // namespace zeronorm
