// The l2-l1-SVM dual (Neumann, Schnoerr & Steidl 2005, eq. (7)) for P problems on one data set,
// by accelerated projected gradient with adaptive restart; the problem, its dual and the method
// are written out in include/zeronorm/methods/dc_svm.hpp.
#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "zeronorm/core/error.hpp"
#include "zeronorm/methods/dc_svm.hpp"

namespace zeronorm {

namespace {

// S_c(u) = sign(u) max(|u| - c, 0), column by column (costs d x P).
Matrix soft_threshold(const Matrix& U, const Matrix& costs) {
    return U.cwiseSign().cwiseProduct((U.cwiseAbs() - costs).cwiseMax(0.0));
}

// beta = clip(z - theta y, 0, C) with y'beta = 0. r(theta) = sum_i y_i clip(z_i - theta y_i, 0, C)
// is piecewise linear and non-increasing, from C n_+ to -C n_-, with slope -#{i : 0 < z_i -
// theta y_i < C}. Newton steps from `theta` (the previous step's root, which moves little between
// gradient steps) land on the root of the current piece, usually in two or three passes over z;
// a bracket with bisection guards against flat pieces and overshoots. Returns the root.
double project(Eigen::Ref<Vector> z, const Vector& y, double C, double theta) {
    const Index n = z.size();
    double hi = z.cwiseAbs().maxCoeff() + C + 1.0;  // r(hi) = -C n_-, r(-hi) = C n_+
    double lo = -hi, r_lo = C * double((y.array() > 0).count()), r_hi = r_lo - C * double(n);
    theta = std::clamp(theta, lo, hi);
    const double r_small = 1e-15 * C * double(n);
    for (int k = 0; k < 200; ++k) {
        double r = 0.0;
        Index slope = 0;
        for (Index i = 0; i < n; ++i) {
            const double v = z[i] - theta * y[i];
            if (v >= C) {
                r += y[i] * C;
            } else if (v > 0.0) {
                r += y[i] * v;
                ++slope;
            }
        }
        if (std::abs(r) <= r_small) break;
        (r > 0 ? lo : hi) = theta;
        (r > 0 ? r_lo : r_hi) = r;
        if (hi - lo <= 1e-15 * (1.0 + std::abs(lo) + std::abs(hi))) {
            // The root is a breakpoint within rounding: one secant step on the bracket.
            theta = r_lo == r_hi ? lo : lo + r_lo * (hi - lo) / (r_lo - r_hi);
            break;
        }
        const double newton = slope > 0 ? theta + r / double(slope) : lo - 1.0;
        theta = newton > lo && newton < hi && k < 50 ? newton : 0.5 * (lo + hi);
    }
    for (Index i = 0; i < n; ++i) z[i] = std::clamp(z[i] - theta * y[i], 0.0, C);
    return theta;
}

// Largest eigenvalue of X'X from the smaller of the two Gram matrices.
double squared_spectral_norm(const Matrix& X) {
    const Matrix G = X.rows() <= X.cols() ? Matrix(X * X.transpose()) : Matrix(X.transpose() * X);
    if (G.size() == 0) return 0.0;
    return Eigen::SelfAdjointEigenSolver<Matrix>(G, Eigen::EigenvaluesOnly).eigenvalues().maxCoeff();
}

double hinge_sum(const Vector& f, const Vector& y, double b) {
    return (1.0 - y.array() * (f.array() + b)).max(0.0).sum();
}

// The active sets of a dual point: samples strictly inside the box (free) and at its upper end,
// features with |u_j| > c_j and their signs (w = S_c(u) is nonzero exactly there).
struct ActiveSets {
    std::vector<Index> free, upper, support;
    std::vector<signed char> signs;
    bool operator==(const ActiveSets& o) const {
        return free == o.free && upper == o.upper && support == o.support && signs == o.signs;
    }
};

ActiveSets active_sets(const Vector& beta, const Vector& u, const Vector& c, double C) {
    ActiveSets s;
    for (Index i = 0; i < beta.size(); ++i) {
        if (beta[i] >= C) s.upper.push_back(i);
        else if (beta[i] > 0.0) s.free.push_back(i);
    }
    for (Index j = 0; j < u.size(); ++j)
        if (std::abs(u[j]) > c[j]) {
            s.support.push_back(j);
            s.signs.push_back(u[j] > 0 ? 1 : -1);
        }
    return s;
}

// The active-set finish: with the sets fixed, the optimality conditions are linear. On the
// support J, w_J = X_J'(beta o y) - c_J o s_J; a free sample i has y_i (x_iJ'w_J + b) = 1, and
// y'beta = 0. With A = D_y X_FJ and g the part of w_J from the samples at C, that is
//   [A A'  y_F] [beta_F]   [1 - A g          ]
//   [y_F'  0  ] [b     ] = [-C sum_upper y_i ],
// solved by least squares (it is singular when more samples are free than features are in the
// support, or the support is empty). False when no free samples or beta_F leaves [0, C] by more
// than rounding; else `beta` is the candidate (still to be projected: the caller's gap check
// decides whether it is optimal).
bool finish(const Matrix& X, const Vector& y, double C, const Vector& c, const ActiveSets& s,
            Vector& beta) {
    const Index nf = Index(s.free.size()), nj = Index(s.support.size());
    if (nf == 0 || nf > 4 * nj + 16) return false;  // far from a vertex-like optimum: skip
    Vector g(nj);
    for (Index a = 0; a < nj; ++a) g[a] = -c[s.support[std::size_t(a)]] * s.signs[std::size_t(a)];
    double upper_sum = 0.0;
    for (const Index i : s.upper) {
        upper_sum += y[i];
        for (Index a = 0; a < nj; ++a) g[a] += C * y[i] * X(i, s.support[std::size_t(a)]);
    }
    Matrix A(nf, nj);
    for (Index r = 0; r < nf; ++r)
        for (Index a = 0; a < nj; ++a)
            A(r, a) = y[s.free[std::size_t(r)]] * X(s.free[std::size_t(r)], s.support[std::size_t(a)]);
    Matrix K = Matrix::Zero(nf + 1, nf + 1);
    K.topLeftCorner(nf, nf) = A * A.transpose();
    Vector rhs(nf + 1);
    rhs.head(nf) = (1.0 - (A * g).array()).matrix();
    rhs[nf] = -C * upper_sum;
    for (Index r = 0; r < nf; ++r) K(r, nf) = K(nf, r) = y[s.free[std::size_t(r)]];
    const Vector x = Eigen::CompleteOrthogonalDecomposition<Matrix>(K).solve(rhs);
    if (!x.allFinite()) return false;
    beta = Vector::Zero(y.size());
    for (const Index i : s.upper) beta[i] = C;
    for (Index r = 0; r < nf; ++r) {
        const double v = x[r];
        if (v < -1e-9 * C || v > C * (1 + 1e-9)) return false;
        beta[s.free[std::size_t(r)]] = std::clamp(v, 0.0, C);
    }
    return true;
}

}  // namespace

double optimal_bias(const Vector& f, const Vector& y) {
    // sum_i (1 - y_i (f_i + b))_+ has a breakpoint at t_i = y_i - f_i for each i and slope
    // -n_+ + (breakpoints left of b): it is flat between the n_+-th and (n_+ + 1)-th smallest.
    std::vector<double> t(static_cast<std::size_t>(f.size()));
    Index n_plus = 0;
    for (Index i = 0; i < f.size(); ++i) {
        t[std::size_t(i)] = y[i] - f[i];
        n_plus += y[i] > 0 ? 1 : 0;
    }
    if (n_plus == 0 || n_plus == f.size()) return n_plus == 0 ? -1.0 : 1.0;
    const auto k = t.begin() + n_plus;
    std::nth_element(t.begin(), k, t.end());
    const double upper = *k;  // (n_+ + 1)-th smallest
    const double lower = *std::max_element(t.begin(), k);
    return 0.5 * (lower + upper);
}

double l2_l1_primal(const Matrix& X, const Vector& y, double C, const Vector& costs,
                    const Vector& w, double b) {
    return C * hinge_sum(X * w, y, b) + 0.5 * w.squaredNorm() + costs.dot(w.cwiseAbs());
}

double l2_l1_dual(const Matrix& X, const Vector& y, const Vector& costs, const Vector& beta) {
    const Vector w = soft_threshold(X.transpose() * beta.cwiseProduct(y), costs);
    return beta.sum() - 0.5 * w.squaredNorm();
}

L2L1BatchResult solve_l2_l1_svm_batch(const Matrix& X, const Vector& y, const Vector& C,
                                      const Matrix& costs, const Matrix& warm_beta,
                                      double gap_tolerance, std::int64_t max_iterations) {
    const Index n = X.rows(), d = X.cols(), P = C.size();
    ZN_EXPECTS_DIM(y.size() == n, "l2-l1 dual: y has " << y.size() << " entries, X " << n
                                                       << " rows");
    ZN_EXPECTS_DIM(costs.rows() == d && costs.cols() == P,
                   "l2-l1 dual: costs must be " << d << " x " << P << ", got " << costs.rows()
                                                << " x " << costs.cols());
    ZN_EXPECTS_DIM(warm_beta.size() == 0 || (warm_beta.rows() == n && warm_beta.cols() == P),
                   "l2-l1 dual: warm_beta must be " << n << " x " << P);
    ZN_EXPECTS(gap_tolerance > 0, "l2-l1 dual: gap_tolerance must be > 0");
    ZN_EXPECTS(max_iterations >= 1, "l2-l1 dual: max_iterations must be >= 1");
    for (Index p = 0; p < P; ++p)
        ZN_EXPECTS(std::isfinite(C[p]) && C[p] > 0, "l2-l1 dual: C[" << p << "] = " << C[p]
                                                                      << " must be finite, > 0");
    ZN_EXPECTS((costs.array() >= 0).all() && costs.allFinite(),
               "l2-l1 dual: feature costs must be finite and >= 0");

    L2L1BatchResult out;
    out.beta = warm_beta.size() > 0 ? warm_beta : Matrix(Matrix::Zero(n, P));
    Vector theta = Vector::Zero(P);  // each problem's last projection root
    for (Index p = 0; p < P; ++p) theta[p] = project(out.beta.col(p), y, C[p], 0.0);
    out.w.resize(d, P);
    out.b.resize(P);
    out.primal.resize(P);
    out.dual.resize(P);
    out.status.assign(std::size_t(P), Status::NoConvergence);
    out.iterations.assign(std::size_t(P), 0);

    const double L = std::max(squared_spectral_norm(X) * (1.0 + 1e-10), 1e-300);
    Matrix& B = out.beta;
    Matrix Z = B;                   // extrapolated points
    Vector t = Vector::Ones(P);     // momentum sequences
    std::vector<Index> live(static_cast<std::size_t>(P));  // the problems still running
    std::iota(live.begin(), live.end(), Index(0));
    std::vector<ActiveSets> last_sets(static_cast<std::size_t>(P));
    constexpr int check_every = 10;

    // The gap of problem p at beta, from U = X'(beta o y); fills out's entries of p.
    const auto measure = [&](Index p, const Vector& beta, const Vector& u, std::int64_t k) {
        const Vector w = soft_threshold(u, costs.col(p));
        const Vector f = X * w;
        const double b = optimal_bias(f, y);
        const double half_w2 = 0.5 * w.squaredNorm();
        out.w.col(p) = w;
        out.b[p] = b;
        out.primal[p] = C[p] * hinge_sum(f, y, b) + half_w2 + costs.col(p).dot(w.cwiseAbs());
        out.dual[p] = beta.sum() - half_w2;
        out.iterations[std::size_t(p)] = k;
        return out.primal[p] - out.dual[p] <= gap_tolerance * std::abs(out.primal[p]);
    };
    // Measures the gap at B for the live problems; those that reach it leave. A problem whose
    // active sets have not changed since its last check also tries the active-set finish.
    const auto check = [&](std::int64_t k) {
        const Matrix U = X.transpose() * (B(Eigen::all, live).array().colwise() * y.array()).matrix();
        std::vector<Index> running;
        for (std::size_t a = 0; a < live.size(); ++a) {
            const Index p = live[a];
            const Vector u = U.col(Index(a));
            if (measure(p, B.col(p), u, k)) {
                out.status[std::size_t(p)] = Status::Success;
                continue;
            }
            ActiveSets sets = active_sets(B.col(p), u, costs.col(p), C[p]);
            const bool stable = sets == last_sets[std::size_t(p)];
            last_sets[std::size_t(p)] = std::move(sets);
            Vector candidate;
            if (stable && finish(X, y, C[p], costs.col(p), last_sets[std::size_t(p)], candidate)) {
                // The candidate ends the problem only when it closes the gap (adopting a merely
                // better one would reset the momentum at every check and slow the rest down).
                const double dual_now = out.dual[p], primal_now = out.primal[p], b_now = out.b[p];
                const Vector w_now = out.w.col(p);
                project(candidate, y, C[p], theta[p]);
                if (measure(p, candidate, X.transpose() * candidate.cwiseProduct(y), k)) {
                    B.col(p) = candidate;
                    out.status[std::size_t(p)] = Status::Success;
                    continue;
                }
                out.w.col(p) = w_now;  // keep the report of the gradient iterate
                out.b[p] = b_now;
                out.primal[p] = primal_now;
                out.dual[p] = dual_now;
            }
            running.push_back(p);
        }
        live = std::move(running);
    };

    check(0);
    for (std::int64_t k = 1; k <= max_iterations && !live.empty(); ++k) {
        // Ascent step from Z for the live problems: grad D = e - y o X S_c(X'(Z o y)).
        const Matrix U = X.transpose() * (Z(Eigen::all, live).array().colwise() * y.array()).matrix();
        const Matrix W = soft_threshold(U, costs(Eigen::all, live));
        const Matrix F = X * W;
        for (std::size_t a = 0; a < live.size(); ++a) {
            const Index p = live[a];
            Vector next = Z.col(p) + (1.0 - F.col(Index(a)).cwiseProduct(y).array()).matrix() / L;
            theta[p] = project(next, y, C[p], theta[p]);
            const Vector step = next - B.col(p);
            // Adaptive restart: drop the momentum when it points against the gradient step.
            if ((Z.col(p) - next).dot(step) > 0) {
                t[p] = 1.0;
                Z.col(p) = next;
            } else {
                const double t_next = 0.5 * (1.0 + std::sqrt(1.0 + 4.0 * t[p] * t[p]));
                Z.col(p) = next + ((t[p] - 1.0) / t_next) * step;
                t[p] = t_next;
            }
            B.col(p) = next;
        }
        if (k % check_every == 0 || k == max_iterations) check(k);
    }
    return out;
}

}  // namespace zeronorm
