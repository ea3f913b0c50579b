// Weston-Watkins M-SVM dual by the method of multipliers with coordinate descent inside and an
// active-set finish; the problem, its dual and the method are written out in
// include/zeronorm/solvers/ww_svm.hpp.
#include "zeronorm/solvers/ww_svm.hpp"

#include <Eigen/QR>
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

bool converged(const WwState& s, double C, double tolerance) {
    const double scale = std::max(1.0, s.alpha.rowwise().sum().maxCoeff());
    return s.r.cwiseAbs().maxCoeff() <= tolerance * scale && kkt_violation(s, s.b, C) <= tolerance;
}

// Active-set finish (a primal active-set method, Nocedal & Wright 2006, sec. 16.5, started from
// the coordinate-descent iterate). Coordinate descent finds the sets of alpha at 0, at C and
// free long before it resolves the free values: on rank-deficient kernels the outer equality
// residual only shrinks by a constant factor per multiplier step and each inner solve takes
// thousands of sweeps. With the sets fixed the problem is an equality-constrained QP, whose
// KKT system in the free alpha and the biases,
//   [Q_FF  E_F'] [d_alpha]   [-g_F]      g = Q alpha - 1 + E'b (the reduced gradient),
//   [E_F   0   ] [d_b    ] = [-r  ],     r = E alpha (the class sums),
// is solved exactly; its minimum-norm solution (the system is singular when the kernel is: the
// biases are defined up to a constant and Q_FF may be rank-deficient) stays nearest the
// iterate. A step that leaves the box stops at the first bound, which fixes that variable; at
// the optimum of a face the bound variable with the worst KKT violation is freed. Returns true
// with s at a point that meets the stopping test; otherwise s is left unchanged and the
// iteration goes on.
bool active_set_finish(WwState& s, double C, double tolerance) {
    constexpr int kMaxSteps = 30;  // each step costs a few sweeps; the sets are nearly right
    const Index n = s.K.rows();
    const int classes = s.n_classes;
    const Matrix alpha0 = s.alpha;
    const Vector b0 = s.b;
    // free(i, k): in the working set; alpha(i, y_i) is never free.
    Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic> free(n, classes);
    for (Index i = 0; i < n; ++i)
        for (int k = 0; k < classes; ++k)
            free(i, k) = k != s.y[std::size_t(i)] && s.alpha(i, k) > 0 && s.alpha(i, k) < C;
    const auto restore = [&] {
        s.alpha = alpha0;
        s.b = b0;
        s.refresh();
        return false;
    };
    const auto gradient = [&](Index i, int k) {
        const int c = s.y[std::size_t(i)];
        return s.F(i, c) + s.b[c] - s.F(i, k) - s.b[k] - 1.0;
    };
    std::vector<std::pair<Index, int>> vars;
    std::pair<Index, int> released{-1, 0};
    for (int step = 0; step < kMaxSteps; ++step) {
        if (converged(s, C, tolerance)) return true;
        vars.clear();
        double face = s.r.cwiseAbs().maxCoeff();  // KKT residual on the current face
        for (Index i = 0; i < n; ++i)
            for (int k = 0; k < classes; ++k)
                if (free(i, k)) {
                    vars.emplace_back(i, k);
                    face = std::max(face, std::abs(gradient(i, k)));
                }
        if (face <= 0.1 * tolerance) {
            // Face optimum, yet not converged: free the worst bound variable.
            double worst = 0;
            std::pair<Index, int> release{-1, 0};
            for (Index i = 0; i < n; ++i)
                for (int k = 0; k < classes; ++k) {
                    if (free(i, k) || k == s.y[std::size_t(i)]) continue;
                    const double g = gradient(i, k);
                    const double pg = s.alpha(i, k) <= 0 ? std::min(g, 0.0) : std::max(g, 0.0);
                    if (std::abs(pg) > worst) {
                        worst = std::abs(pg);
                        release = {i, k};
                    }
                }
            // Freeing the same variable twice in a row means the step pushed it straight back:
            // a degenerate face whose biases are not unique; coordinate descent resolves it.
            if (release.first < 0 || release == released) return restore();
            released = release;
            free(release.first, release.second) = true;
            vars.push_back(release);
        }
        const Index m = Index(vars.size());
        Matrix M = Matrix::Zero(m + classes, m + classes);
        Vector rhs(m + classes);
        for (Index p = 0; p < m; ++p) {
            const auto [i, k] = vars[std::size_t(p)];
            const int c = s.y[std::size_t(i)];
            for (Index q = 0; q < m; ++q) {
                const auto [j, l] = vars[std::size_t(q)];
                const int cj = s.y[std::size_t(j)];
                // d g_ik / d alpha_jl = Kt_ij (d c_jc/d alpha_jl - d c_jk/d alpha_jl).
                const double kt = s.K(i, j) + (i == j ? s.ridge : 0.0);
                M(p, q) = kt * (double(c == cj) - double(c == l) - double(k == cj) + double(k == l));
            }
            M(p, m + c) = M(m + c, p) = 1.0;
            M(p, m + k) = M(m + k, p) = -1.0;
            rhs[p] = -gradient(i, k);
        }
        rhs.tail(classes) = -s.r;
        Vector x = Eigen::CompleteOrthogonalDecomposition<Matrix>(M).solve(rhs);
        if (!x.allFinite()) return restore();
        // An inconsistent system: the face's objective falls without bound along a null
        // direction of M. The least-squares residual is that direction (M is symmetric, so the
        // residual lies in its null space, and g_F'd = -|residual|^2 once r = 0); follow it to
        // the first bound.
        const Vector residual = rhs - M * x;
        const bool ray = residual.cwiseAbs().maxCoeff() > 0.1 * tolerance &&
                         residual.cwiseAbs().maxCoeff() > 1e-3 * rhs.cwiseAbs().maxCoeff();
        if (ray) x = residual;
        // Longest step in the box, up to the full one (along a ray: to the first bound).
        double t = ray ? std::numeric_limits<double>::infinity() : 1.0;
        Index blocking = -1;
        for (Index p = 0; p < m; ++p) {
            const auto [i, k] = vars[std::size_t(p)];
            const double a = s.alpha(i, k), d = x[p];
            const double room =
                d < 0 ? a / -d : (d > 0 ? (C - a) / d : std::numeric_limits<double>::infinity());
            if (room < t) {
                t = room;
                blocking = p;
            }
        }
        if (!std::isfinite(t)) return restore();  // C = inf: no bound ahead
        for (Index p = 0; p < m; ++p) {
            const auto [i, k] = vars[std::size_t(p)];
            s.alpha(i, k) = std::clamp(s.alpha(i, k) + t * x[p], 0.0, C);
        }
        if (blocking >= 0) {
            const auto [i, k] = vars[std::size_t(blocking)];
            s.alpha(i, k) = x[blocking] < 0 ? 0.0 : C;
            free(i, k) = false;
        }
        if (!ray) s.b += t * x.tail(classes);
        s.refresh();
    }
    return converged(s, C, tolerance) || restore();
}

// Method of multipliers with box bound C; returns the status and counts sweeps.
Status solve_box(WwState& s, double C, const WwSvmOptions& o, double rho,
                 std::int64_t& sweeps) {
    const Index n = s.K.rows();
    s.alpha = s.alpha.cwiseMax(0.0).cwiseMin(C);
    for (Index i = 0; i < n; ++i) s.alpha(i, s.y[std::size_t(i)]) = 0.0;
    s.refresh();
    // The active-set finish is tried once the bound pattern has held for `wait` sweeps; each
    // failed try doubles the wait, so failures cost a vanishing share of the sweeps.
    std::vector<signed char> pattern(std::size_t(s.alpha.size()), 0), last(pattern);
    std::int64_t stable = 0, wait = 8;
    for (;;) {
        // Inner problem: min_alpha f(alpha) + b'r + rho/2 |r|^2 over the box, by coordinate
        // descent. Its gradient in alpha_ik is the KKT reduced gradient with biases b + rho r.
        for (;;) {
            if (sweeps >= o.max_sweeps) return Status::NoConvergence;
            for (Index p = 0; p < s.alpha.size(); ++p) {
                const double a = s.alpha.data()[p];
                pattern[std::size_t(p)] = a <= 0 ? 0 : (a >= C ? 2 : 1);
            }
            stable = pattern == last ? stable + 1 : 0;
            std::swap(pattern, last);
            if (stable >= wait) {
                const Vector b = s.b;
                s.b += rho * s.r;  // the multipliers the inner iterate is optimal for
                s.refresh();
                if (active_set_finish(s, C, o.tolerance)) return Status::Success;
                s.b = b;
                stable = 0;
                wait *= 2;
            }
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
        if (converged(s, C, o.tolerance)) return Status::Success;
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
