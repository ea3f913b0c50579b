// CORR: the correlation-coefficient filter of Weston et al. (JMLR 3, 2003), sec. 4.2,
//   f_j = (mu_j(+) - mu_j(-))^2 / (sigma_j(+)^2 + sigma_j(-)^2),
// with the class means mu and standard deviations sigma of feature j over the training samples
// (sample standard deviation, n_c - 1 in the denominator; a class with one sample has sigma 0).
// For K >= 3 classes the score is summed over the one-vs-rest problems. A feature that is
// constant within both classes scores 0 when the class means agree (a constant feature) and
// +infinity when they differ (it alone separates the classes), never NaN.
#include <algorithm>
#include <cmath>
#include <limits>

#include "methods/method_registry.hpp"
#include "methods/selection_common.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm::detail {

Vector corr_scores(const Matrix& X, const Machines& machines) {
    const Index d = X.cols();
    Vector total = Vector::Zero(d);
    for (const Vector& y : machines.targets) {
        ZN_EXPECTS_DIM(y.size() == X.rows(), "corr_scores: " << y.size() << " labels for "
                                                             << X.rows() << " samples");
        for (Index j = 0; j < d; ++j) {
            const double inf = std::numeric_limits<double>::infinity();
            double mean[2] = {0, 0}, count[2] = {0, 0}, lo[2] = {inf, inf}, hi[2] = {-inf, -inf};
            for (Index i = 0; i < X.rows(); ++i) {
                const int c = y[i] > 0 ? 1 : 0;
                mean[c] += X(i, j);
                count[c] += 1;
                lo[c] = std::min(lo[c], X(i, j));
                hi[c] = std::max(hi[c], X(i, j));
            }
            // A class whose values are all equal gets that value as its exact mean, so a constant
            // feature has exactly zero gap and zero variance (no rounding noise 0/0).
            for (int c = 0; c < 2; ++c)
                mean[c] = lo[c] == hi[c] ? lo[c] : mean[c] / std::max(1.0, count[c]);
            double ss[2] = {0, 0};  // two-pass sums of squares
            for (Index i = 0; i < X.rows(); ++i) {
                const int c = y[i] > 0 ? 1 : 0;
                ss[c] += (X(i, j) - mean[c]) * (X(i, j) - mean[c]);
            }
            double variance = 0.0;
            for (int c = 0; c < 2; ++c)
                if (count[c] > 1) variance += ss[c] / (count[c] - 1);
            const double gap = (mean[1] - mean[0]) * (mean[1] - mean[0]);
            double score;
            if (variance > 0)
                score = gap / variance;
            else
                score = gap > 0 ? std::numeric_limits<double>::infinity() : 0.0;
            total[j] += score;
        }
    }
    return total;
}

Ranking run_corr(const Dataset& data, const Machines& machines, const IndexVector& counts_desc) {
    Ranking out;
    out.scores = corr_scores(data.X, machines);
    const IndexVector order = order_descending(out.scores);
    for (Index r : counts_desc) out.selected.emplace_back(order.begin(), order.begin() + r);
    return out;
}

}  // namespace zeronorm::detail

namespace zeronorm {

std::unique_ptr<FeatureRanker> make_corr_ranker() {
    return detail::make_ranker(
        {SelectionMethod::Corr,
         "CORR: ranks features by the class-separation score (mu+ - mu-)^2 / (s+^2 + s-^2)",
         "Weston, Elisseeff, Schoelkopf & Tipping 2003, sec. 4.2",
         {}},
        [](Backend&, const Dataset& data, const detail::Machines& machines,
           const SelectionOptions&, const IndexVector& counts_desc) {
            return detail::run_corr(data, machines, counts_desc);
        });
}

}  // namespace zeronorm
