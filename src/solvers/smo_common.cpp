#include "solvers/smo_common.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "solvers/labels.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm::smo_detail {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

void check_smo_labels(const Vector& y) {
    const Index n = y.size();
    ZN_EXPECTS(n >= 2, "SMO needs at least two samples, got " << n);
    check_two_class_labels(y, "SMO");
}

namespace {
// delta spread evenly over the class of its sign: the cold start of y'beta = delta.
Vector spread(const Vector& y, double C, double delta) {
    const Index n = y.size();
    if (delta == 0.0) return Vector::Zero(n);
    const double sign = delta > 0 ? 1.0 : -1.0;
    const auto side = (y.array() == sign).count();
    const double value = side > 0 ? std::abs(delta) / double(side) : kInf;
    ZN_EXPECTS(value <= C, "SMO: y'beta = " << delta << " is out of reach within [0, " << C
                                           << "] (" << side << " labels of its sign)");
    return (y.array() == sign).select(Vector::Constant(n, value), 0.0);
}
}  // namespace

Vector make_feasible(const Vector& beta, const Vector& y, double C, double delta) {
    Vector b = beta.cwiseMax(0.0).cwiseMin(C);
    const double positive = (y.array() > 0).select(b.array(), 0.0).sum();
    const double negative = (y.array() < 0).select(b.array(), 0.0).sum();
    // rounding only
    if (std::abs(positive - negative - delta) <= 1e-14 * (positive + negative + std::abs(delta)))
        return b;
    // positive' = negative + delta, or negative' = positive - delta; both only ever shrink.
    if (positive - negative > delta && positive > 0 && negative + delta >= 0) {
        b = (y.array() > 0).select(b.array() * ((negative + delta) / positive), b.array());
    } else if (positive - negative < delta && negative > 0 && positive - delta >= 0) {
        b = (y.array() < 0).select(b.array() * ((positive - delta) / negative), b.array());
    } else {
        b = spread(y, C, delta);
    }
    return b;
}

Vector smo_starting_point(const Vector* warm_start, const Vector& y, double C, double delta) {
    const Index n = y.size();
    if (warm_start == nullptr) return spread(y, C, delta);
    ZN_EXPECTS_DIM(warm_start->size() == n, "SMO: warm start has " << warm_start->size()
                                                                    << " entries, expected " << n);
    ZN_EXPECTS(warm_start->allFinite(), "SMO: warm start is not finite");
    return make_feasible(*warm_start, y, C, delta);
}

double smo_bias(const Vector& beta, const Vector& G, const Vector& y, double C) {
    double ub = kInf;
    double lb = -kInf;
    double sum_free = 0.0;
    Index n_free = 0;
    for (Index i = 0; i < beta.size(); ++i) {
        const double yG = y[i] * G[i];
        if (beta[i] >= C) {  // upper bound
            if (y[i] < 0)
                ub = std::min(ub, yG);
            else
                lb = std::max(lb, yG);
        } else if (beta[i] <= 0) {  // lower bound
            if (y[i] > 0)
                ub = std::min(ub, yG);
            else
                lb = std::max(lb, yG);
        } else {
            ++n_free;
            sum_free += yG;
        }
    }
    const double rho = n_free > 0 ? sum_free / static_cast<double>(n_free) : (ub + lb) / 2;
    return -rho;
}

double smo_objective(const Vector& beta, const Vector& G, const Vector& p) {
    double v = 0.0;
    if (p.size() == 0)
        for (Index i = 0; i < beta.size(); ++i) v += beta[i] * (G[i] - 1.0);
    else
        for (Index i = 0; i < beta.size(); ++i) v += beta[i] * (G[i] + p[i]);
    return 0.5 * v;
}

std::int64_t smo_iteration_cap(const SmoOptions& options, Index n) {
    return options.max_iterations > 0 ? options.max_iterations
                                      : std::max<std::int64_t>(10'000'000, 100 * std::int64_t(n));
}

SmoResult smo_result(const Vector& beta, const Vector& G, const Vector& y, double C,
                     const Vector& p) {
    SmoResult r;
    r.beta = beta;
    r.bias = smo_bias(beta, G, y, C);
    r.objective = smo_objective(beta, G, p);
    r.kkt_gap = smo_kkt_gap(beta, G, y, C);
    return r;
}

std::pair<Index, Index> maximal_violating_pair(const Vector& beta, const Vector& G, const Vector& y,
                                               double C) {
    Index up = -1, low = -1;
    for (Index t = 0; t < beta.size(); ++t) {
        const double v = -y[t] * G[t];
        if (std::isnan(v)) continue;
        if (in_up(y[t], beta[t], C) && (up < 0 || v > -y[up] * G[up])) up = t;
        if (in_low(y[t], beta[t], C) && (low < 0 || v < -y[low] * G[low])) low = t;
    }
    return {up, low};
}

double smo_kkt_gap(const Vector& beta, const Vector& G, const Vector& y, double C) {
    const auto [up, low] = maximal_violating_pair(beta, G, y, C);
    if (up < 0 || low < 0) return 0.0;
    const double gap = -y[up] * G[up] + y[low] * G[low];
    return std::isfinite(gap) ? std::max(0.0, gap) : 0.0;
}

SmoTerms problem_terms(const SmoBatchTerms& terms, Index p) {
    SmoTerms t;
    if (terms.p.size() > 0) t.p = terms.p.col(p);
    if (terms.delta.size() > 0) t.delta = terms.delta[p];
    return t;
}

}  // namespace zeronorm::smo_detail
