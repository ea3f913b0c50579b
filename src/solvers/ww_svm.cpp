// Weston-Watkins M-SVM dual by the method of multipliers with coordinate descent inside; the
// problem, its dual and the method are written out in include/zeronorm/solvers/ww_svm.hpp.
#include "zeronorm/solvers/ww_svm.hpp"

#include <algorithm>
#include <cmath>

#include "zeronorm/core/error.hpp"

namespace zeronorm {

void WwSvmOptions::validate() const {
    ZN_EXPECTS(C > 0 && !std::isnan(C), "WwSvmOptions.C must be positive (or infinity), got " << C);
    ZN_EXPECTS(std::isfinite(ridge) && ridge >= 0,
               "WwSvmOptions.ridge must be finite and >= 0, got " << ridge);
    ZN_EXPECTS(std::isfinite(tolerance) && tolerance > 0,
               "WwSvmOptions.tolerance must be finite and > 0, got " << tolerance);
    ZN_EXPECTS(max_sweeps >= 1, "WwSvmOptions.max_sweeps must be >= 1, got " << max_sweeps);
    ZN_EXPECTS(std::isfinite(rho) && rho >= 0,
               "WwSvmOptions.rho must be finite and >= 0 (0: automatic), got " << rho);
}

namespace {

constexpr double kMaxHardMarginBound = 1e8;
constexpr double kSeparabilityTolerance = 1e-3;  // as for the two-class SVM (selection_common.hpp)

// One box-bounded solve (C finite) from `alpha`; updates alpha and b in place.
struct WwState {
    const Matrix& K;
    const std::vector<int>& y;
    int n_classes;
    double ridge;
    Matrix alpha;  // n x K
    Matrix coef;   // n x K
    Matrix F;      // (K + ridge I) coef, n x K
    Vector b;      // multipliers
    Vector r;      // column sums of coef

    void refresh() {
        const Index n = K.rows();
        coef = -alpha;
        for (Index i = 0; i < n; ++i) coef(i, y[std::size_t(i)]) = alpha.row(i).sum();
        F = K * coef + ridge * coef;
        r = coef.colwise().sum().transpose();
    }
};

// Largest KKT violation of alpha with biases `bias` (the problem's reduced gradient).
double kkt_violation(const WwState& s, const Vector& bias, double C) {
    double worst = 0;
    for (Index i = 0; i < s.K.rows(); ++i) {
        const int c = s.y[std::size_t(i)];
        for (int k = 0; k < s.n_classes; ++k) {
            if (k == c) continue;
            const double g = s.F(i, c) + bias[c] - s.F(i, k) - bias[k] - 1.0;
            const double a = s.alpha(i, k);
            const double pg = a <= 0 ? std::min(g, 0.0) : (a >= C ? std::max(g, 0.0) : g);
            worst = std::max(worst, std::abs(pg));
        }
    }
    return worst;
}

// Method of multipliers with box bound C; returns the status and counts sweeps.
Status solve_box(WwState& s, double C, const WwSvmOptions& o, double rho,
                 std::int64_t& sweeps) {
    const Index n = s.K.rows();
    s.alpha = s.alpha.cwiseMax(0.0).cwiseMin(C);
    for (Index i = 0; i < n; ++i) s.alpha(i, s.y[std::size_t(i)]) = 0.0;
    s.refresh();
    for (;;) {
        // Inner problem: min_alpha f(alpha) + b'r + rho/2 |r|^2 over the box, by coordinate
        // descent. Its gradient in alpha_ik is the KKT reduced gradient with biases b + rho r.
        for (;;) {
            if (sweeps >= o.max_sweeps) return Status::NoConvergence;
            ++sweeps;
            double worst = 0;
            for (Index i = 0; i < n; ++i) {
                const int c = s.y[std::size_t(i)];
                const double h = 2.0 * (s.K(i, i) + s.ridge + rho);
                for (int k = 0; k < s.n_classes; ++k) {
                    if (k == c) continue;
                    const double shift = s.b[c] + rho * s.r[c] - s.b[k] - rho * s.r[k];
                    const double g = s.F(i, c) - s.F(i, k) + shift - 1.0;
                    const double a = s.alpha(i, k);
                    const double pg = a <= 0 ? std::min(g, 0.0) : (a >= C ? std::max(g, 0.0) : g);
                    worst = std::max(worst, std::abs(pg));
                    if (pg == 0.0) continue;
                    const double next = h > 0 ? std::clamp(a - g / h, 0.0, C) : (g < 0 ? C : 0.0);
                    const double delta = next - a;
                    if (delta == 0.0 || !std::isfinite(delta)) continue;
                    s.alpha(i, k) = next;
                    s.coef(i, c) += delta;
                    s.coef(i, k) -= delta;
                    s.F.col(c) += delta * s.K.col(i);
                    s.F.col(k) -= delta * s.K.col(i);
                    s.F(i, c) += delta * s.ridge;
                    s.F(i, k) -= delta * s.ridge;
                    s.r[c] += delta;
                    s.r[k] -= delta;
                }
            }
            if (worst <= 0.5 * o.tolerance) break;
        }
        s.refresh();  // no drift from the incremental updates
        s.b += rho * s.r;
        const double scale = std::max(1.0, s.alpha.rowwise().sum().maxCoeff());
        if (s.r.cwiseAbs().maxCoeff() <= o.tolerance * scale &&
            kkt_violation(s, s.b, C) <= o.tolerance)
            return Status::Success;
    }
}

}  // namespace

WwSvmResult solve_ww_svm(const Matrix& K, const std::vector<int>& labels, int n_classes,
                         const WwSvmOptions& options, const Matrix* warm_alpha) {
    options.validate();
    const Index n = K.rows();
    ZN_EXPECTS_DIM(K.cols() == n, "solve_ww_svm: the kernel is " << K.rows() << " x " << K.cols()
                                                                 << ", not square");
    ZN_EXPECTS_DIM(Index(labels.size()) == n, "solve_ww_svm: " << labels.size()
                                                  << " labels for a kernel of " << n << " points");
    ZN_EXPECTS(n_classes >= 2, "solve_ww_svm: n_classes must be >= 2, got " << n_classes);
    ZN_EXPECTS(K.allFinite(), "solve_ww_svm: the kernel contains NaN or Inf");
    std::vector<Index> count(std::size_t(n_classes), 0);
    for (Index i = 0; i < n; ++i) {
        const int c = labels[std::size_t(i)];
        ZN_EXPECTS(c >= 0 && c < n_classes, "solve_ww_svm: label of sample "
                                                 << i << " is " << c << ", outside 0.."
                                                 << n_classes - 1);
        ++count[std::size_t(c)];
    }
    for (int m = 0; m < n_classes; ++m)
        ZN_EXPECTS(count[std::size_t(m)] > 0, "solve_ww_svm: class " << m << " has no samples");
    if (warm_alpha != nullptr)
        ZN_EXPECTS_DIM(warm_alpha->rows() == n && warm_alpha->cols() == n_classes,
                       "solve_ww_svm: warm start is " << warm_alpha->rows() << " x "
                                                      << warm_alpha->cols() << ", expected " << n
                                                      << " x " << n_classes);

    // rho = 0.1 mean(diag(K + lambda I)): on 5-class problems of 208 points (the size of the
    // paper's Table 4) this needs 2-5x fewer sweeps than 1x or 0.01x, 30x fewer than 10x.
    const double rho = options.rho > 0
                           ? options.rho
                           : std::max(1e-12, 0.1 * (K.diagonal().mean() + options.ridge));
    WwState s{K, labels, n_classes, options.ridge, Matrix::Zero(n, n_classes), Matrix(), Matrix(),
              Vector::Zero(n_classes), Vector()};
    if (warm_alpha != nullptr && warm_alpha->allFinite()) s.alpha = *warm_alpha;

    WwSvmResult out;
    double C = options.C;
    const bool staged = std::isinf(C) && options.ridge == 0.0;
    if (staged) {
        const double top = s.alpha.size() > 0 ? s.alpha.maxCoeff() : 0.0;
        C = std::min(kMaxHardMarginBound, std::max(1.0, 10.0 * top));
    }
    for (;;) {
        out.status = solve_box(s, C, options, rho, out.sweeps);
        if (!staged || out.status != Status::Success) break;
        if (s.alpha.maxCoeff() < C) break;  // no bound active: the hard-margin KKT hold
        // Infeasibility certificate. For any alpha >= 0 meeting the equalities and any hard-
        // margin solution (w*, b*): sum alpha <= sum_ik alpha_ik margin_ik(w*, b*) = sum_m
        // w*_m . w_m(alpha) <= |w*| |w(alpha)|, so every separating machine has |w*| >=
        // sum alpha / |w(alpha)|, i.e. a margin at most delta = |w(alpha)| / sum alpha.
        const double quad = s.coef.cwiseProduct(s.F).sum();
        const double delta = std::sqrt(std::max(0.0, quad)) / s.alpha.sum();
        const double radius = std::sqrt(std::max(0.0, K.diagonal().maxCoeff()));
        if (delta <= kSeparabilityTolerance * radius || C >= kMaxHardMarginBound) {
            out.status = Status::NumericalIssue;
            out.not_separable = true;
            break;
        }
        C = std::min(kMaxHardMarginBound, 100.0 * C);
    }
    s.refresh();

    out.alpha = s.alpha;
    out.coef = s.coef;
    out.bias = s.b;
    out.outputs = (K * s.coef).rowwise() + s.b.transpose();
    const double quad = (s.coef.cwiseProduct(s.F)).sum();  // sum_m c_m'(K + lambda I) c_m
    out.dual_objective = s.alpha.sum() - 0.5 * quad;
    double slack = 0, violation = 0;
    for (Index i = 0; i < n; ++i) {
        const int c = labels[std::size_t(i)];
        for (int k = 0; k < n_classes; ++k) {
            if (k == c) continue;
            const double margin = s.F(i, c) + s.b[c] - s.F(i, k) - s.b[k];
            slack += std::max(0.0, 1.0 - margin);
            violation = std::max(violation, 1.0 - margin);
        }
    }
    out.primal_objective = 0.5 * quad + (std::isinf(options.C) ? 0.0 : options.C * slack);
    out.max_violation = std::max(0.0, violation);
    out.kkt_residual = kkt_violation(s, s.b, std::isinf(options.C) ? C : options.C);
    out.equality_residual = s.r.cwiseAbs().maxCoeff();
    return out;
}

}  // namespace zeronorm
