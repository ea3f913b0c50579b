#include "zeronorm/core/preprocess.hpp"

#include <cmath>
#include <cstdint>

#include "core/all_finite.hpp"
#include "core/scalar_rules.hpp"
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

Matrix Standardizer::transform(const Eigen::Ref<const Matrix>& X) const {
    Matrix out = X;
    transform_in_place(out);
    return out;
}

void Standardizer::transform_in_place(Eigen::Ref<Matrix> X) const {
    check_transform_shape(*this, X.cols());
    X = ((X.rowwise() - mean.transpose()).array().rowwise() / scale.transpose().array()).matrix();
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
