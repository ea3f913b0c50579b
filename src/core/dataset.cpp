#include "zeronorm/core/dataset.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/all_finite.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm {

int Dataset::n_classes() const {
    std::vector<double> v(y.data(), y.data() + y.size());
    // NaN compares unequal to everything, which would break sort; count all NaNs as one label.
    const auto nan_end = std::partition(v.begin(), v.end(), [](double a) { return !std::isnan(a); });
    const bool has_nan = nan_end != v.end();
    v.erase(nan_end, v.end());
    std::sort(v.begin(), v.end());
    const auto distinct = std::unique(v.begin(), v.end()) - v.begin();
    return static_cast<int>(distinct) + (has_nan ? 1 : 0);
}

bool Dataset::is_binary() const {
    bool has_neg = false;
    bool has_pos = false;
    for (Index i = 0; i < y.size(); ++i) {
        if (y[i] == -1.0)
            has_neg = true;
        else if (y[i] == 1.0)
            has_pos = true;
        else
            return false;
    }
    return has_neg && has_pos;
}

Dataset Dataset::subset(const IndexVector& rows) const {
    const Index n = n_samples();
    for (std::size_t k = 0; k < rows.size(); ++k)
        ZN_EXPECTS(rows[k] >= 0 && rows[k] < n,
                   "Dataset::subset: row index " << rows[k] << " (entry " << k
                                                 << " of rows) is out of range [0, " << n << ")");
    ZN_EXPECTS_DIM(y.size() == n, "Dataset::subset: y has " << y.size() << " labels but X has "
                                                            << n << " rows");
    Dataset out;
    const auto m = static_cast<Index>(rows.size());
    out.X.resize(m, X.cols());
    out.y.resize(m);
    for (Index j = 0; j < X.cols(); ++j)
        for (Index i = 0; i < m; ++i) out.X(i, j) = X(rows[static_cast<std::size_t>(i)], j);
    for (Index i = 0; i < m; ++i) out.y[i] = y[rows[static_cast<std::size_t>(i)]];
    out.feature_names = feature_names;
    out.label_mapping = label_mapping;
    return out;
}

void Dataset::validate() const {
    ZN_EXPECTS_DIM(y.size() == X.rows(), "Dataset: y has " << y.size() << " labels but X has "
                                                           << X.rows() << " rows");
    ZN_EXPECTS_DIM(feature_names.empty() ||
                       static_cast<Index>(feature_names.size()) == X.cols(),
                   "Dataset: " << feature_names.size() << " feature names for " << X.cols()
                               << " features (X columns)");
    if (!detail::all_finite(X)) {
        for (Index i = 0; i < X.rows(); ++i)
            for (Index j = 0; j < X.cols(); ++j)
                ZN_EXPECTS(std::isfinite(X(i, j)),
                           "Dataset: X has a non-finite value " << X(i, j) << " at row " << i
                               << ", column " << j << " (0-based)"
                               << (feature_names.empty()
                                       ? std::string()
                                       : ", feature '" +
                                             feature_names[static_cast<std::size_t>(j)] + "'"));
    }
    for (Index i = 0; i < y.size(); ++i)
        ZN_EXPECTS(std::isfinite(y[i]), "Dataset: label y has a non-finite value "
                                            << y[i] << " at row " << i << " (0-based)");
}

}  // namespace zeronorm
