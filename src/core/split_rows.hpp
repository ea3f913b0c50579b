// Internal: one resampling split's rows of a data matrix, standardised on the way. Not installed.
#pragma once

#include "zeronorm/core/dataset.hpp"

namespace zeronorm::detail {

struct SplitRows {
    Matrix train, test;
};

// The rows `train` and `test` of X (indices checked by the caller), each column standardised
// with the mean and scale of its training rows when `standardize` (Standardizer's rule and
// values). Eight columns at a time are gathered, measured and scaled while they are in cache:
// one pass over X instead of a gather, a fit and two transforms.
SplitRows split_rows(const Matrix& X, const IndexVector& train, const IndexVector& test,
                     bool standardize);

}  // namespace zeronorm::detail
