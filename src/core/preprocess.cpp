#include "zeronorm/core/preprocess.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/all_finite.hpp"
#include "core/scalar_rules.hpp"
#include "core/split_rows.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm {
namespace {

// Mean and population standard deviation of v, the rule shared with the CUDA backend's
// split standardiser (core/scalar_rules.hpp).
template <class V>
void mean_and_scale(const V& v, double& mean, double& scale) {
    rules::mean_and_scale([&v](std::int64_t i) { return v(static_cast<Index>(i)); },
                          static_cast<std::int64_t>(v.size()), mean, scale);
}

void expect_finite(const Eigen::Ref<const Matrix>& X, const char* who) {
    if (detail::all_finite(X)) return;
    for (Index i = 0; i < X.rows(); ++i)
        for (Index j = 0; j < X.cols(); ++j)
            ZN_EXPECTS(std::isfinite(X(i, j)), who << ": non-finite value " << X(i, j)
                                                   << " at row " << i << ", column " << j
                                                   << " (0-based)");
}

void check_transform_shape(const Standardizer& s, Index cols) {
    ZN_EXPECTS_DIM(s.mean.size() == s.scale.size(),
                   "Standardizer: mean has " << s.mean.size() << " entries but scale has "
                                             << s.scale.size() << " (was it fitted?)");
    ZN_EXPECTS_DIM(cols == s.mean.size(), "Standardizer::transform: X has "
                                              << cols << " columns but the standardizer "
                                              << "was fitted on " << s.mean.size());
}

}  // namespace

Standardizer Standardizer::fit(const Eigen::Ref<const Matrix>& X) {
    ZN_EXPECTS(X.rows() >= 1, "Standardizer::fit needs at least one row, got 0");
    expect_finite(X, "Standardizer::fit");
    Standardizer s;
    s.mean.resize(X.cols());
    s.scale.resize(X.cols());
    // Eight columns at a time (the rule's independent chains), then the rest one by one.
    constexpr int lanes = 8;
    Index j = 0;
    for (; j + lanes <= X.cols(); j += lanes) {
        const double* first = X.col(j).data();
        const Index stride = X.outerStride();
        rules::mean_and_scale_of<lanes>(
            [first, stride](std::int64_t i, int c) { return first[c * stride + i]; }, X.rows(),
            s.mean.data() + j, s.scale.data() + j);
    }
    for (; j < X.cols(); ++j) mean_and_scale(X.col(j), s.mean[j], s.scale[j]);
    return s;
}

namespace detail {

SplitRows split_rows(const Matrix& X, const IndexVector& train, const IndexVector& test,
                     bool standardize) {
    ZN_EXPECTS(!standardize || !train.empty(), "split_rows: no training rows to standardise with");
    const Index d = X.cols();
    const Index n_train = Index(train.size()), n_test = Index(test.size());
    SplitRows out{Matrix(n_train, d), Matrix(n_test, d)};
    constexpr int lanes = 8;  // as in Standardizer::fit
    double mean[lanes], scale[lanes];
    for (Index j = 0; j < d; j += lanes) {
        const Index width = std::min<Index>(lanes, d - j);
        for (Index c = j; c < j + width; ++c) {
            const double* from = X.col(c).data();
            double* to_train = out.train.col(c).data();
            double* to_test = out.test.col(c).data();
            for (Index i = 0; i < n_train; ++i) to_train[i] = from[train[std::size_t(i)]];
            for (Index i = 0; i < n_test; ++i) to_test[i] = from[test[std::size_t(i)]];
        }
        if (!standardize) continue;
        const double* first = out.train.col(j).data();
        if (width == lanes) {
            rules::mean_and_scale_of<lanes>(
                [first, n_train](std::int64_t i, int c) { return first[c * n_train + i]; },
                n_train, mean, scale);
        } else {
            for (Index c = 0; c < width; ++c)
                mean_and_scale(out.train.col(j + c), mean[c], scale[c]);
        }
        for (Index c = 0; c < width; ++c) {  // Standardizer::transform_in_place's operations
            out.train.col(j + c) = (out.train.col(j + c).array() - mean[c]) / scale[c];
            out.test.col(j + c) = (out.test.col(j + c).array() - mean[c]) / scale[c];
        }
    }
    return out;
}

}  // namespace detail

Matrix Standardizer::transform(const Eigen::Ref<const Matrix>& X) const {
    Matrix out = X;
    transform_in_place(out);
    return out;
}

void Standardizer::transform_in_place(Eigen::Ref<Matrix> X) const {
    check_transform_shape(*this, X.cols());
    // Column by column: contiguous, vectorised (a broadcast row vector over a column-major
    // matrix is not); the same operations, so the same values.
    for (Index j = 0; j < X.cols(); ++j) X.col(j) = (X.col(j).array() - mean[j]) / scale[j];
}

Matrix standardize_rows(const Matrix& X) {
    ZN_EXPECTS(X.rows() == 0 || X.cols() >= 1, "standardize_rows needs at least one column");
    Matrix out(X.rows(), X.cols());
    for (Index i = 0; i < X.rows(); ++i) {
        double mean = 0;
        double scale = 1;
        mean_and_scale(X.row(i), mean, scale);
        out.row(i) = (X.row(i).array() - mean) / scale;
    }
    return out;
}

Matrix log10_transform(const Matrix& X) {
    if (!(X.array() > 0).all())
        for (Index i = 0; i < X.rows(); ++i)
            for (Index j = 0; j < X.cols(); ++j)
                ZN_EXPECTS(X(i, j) > 0, "log10_transform: entry at row "
                                        << i << ", column " << j << " (0-based) is " << X(i, j)
                                        << "; log10 needs positive values");
    return X.array().log10().matrix();
}

}  // namespace zeronorm
