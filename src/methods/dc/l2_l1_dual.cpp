// The l2-l1-SVM dual (Neumann, Schnoerr & Steidl 2005, eq. (7)) for P problems on one data set,
// by SMO with exact line steps, the face's primal point and an interior-point fallback; the
// problem, its dual and the method are written out in include/zeronorm/methods/dc_svm.hpp.
#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "zeronorm/core/error.hpp"
#include "methods/dc/l2_l1_active_set.hpp"
#include "zeronorm/methods/dc_svm.hpp"

namespace zeronorm {

namespace detail {

double hinge_sum(const Vector& f, const Vector& y, double b) {
    return (1.0 - y.array() * (f.array() + b)).max(0.0).sum();
}

}  // namespace detail

namespace {

using detail::hinge_sum;
using detail::project;
using detail::soft;


// S_c(u) = sign(u) max(|u| - c, 0), column by column (costs d x P).
Matrix soft_threshold(const Matrix& U, const Matrix& costs) {
    return U.cwiseSign().cwiseProduct((U.cwiseAbs() - costs).cwiseMax(0.0));
}

// The arguments of solve_l2_l1_svm_batch (InvalidArgument / DimensionMismatch naming them).
void check_batch(const Matrix& X, const Vector& y, const Vector& C, const Matrix& costs,
                 const Matrix& warm_beta, double gap_tolerance, std::int64_t max_iterations) {
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
}


// The dual restricted to the features `J` (those outside J assumed to have |u_k| <= c_k), by a
// primal-dual interior-point method (Mehrotra predictor-corrector). With
// 1/2 S_c(u)^2 = min_{|v| <= c} 1/2 (u - v)^2 the dual is the bound-constrained QP
//   min_{beta, v}  1/2 |X_J'(y o beta) - v|^2 - e'beta
//   s.t.  0 <= beta <= C,  -c_J <= v <= c_J,  y'beta = 0
// (a feature with c_k = 0 has v_k = 0 and no variable). Eliminating v from each Newton system
// leaves the n x n system  Y X_J diag(omega) X_J' Y + D_beta  (omega_k = d_k / (1 + d_k) from
// v_k's barrier term, 1 for c_k = 0) plus the equality's row: diagonal plus rank |J|, solved by
// Cholesky of itself (n^2 |J|) or of its |J| x |J| Woodbury core (n |J|^2), whichever is
// smaller, with a number of iterations that does not depend on the conditioning that makes
// pair steps crawl (large C, fewer support features than free samples). Returns beta (interior,
// y'beta = 0 up to rounding) after `iterations` steps or when the complementarity s'lambda,
// the QP's duality gap at a feasible iterate, is below both `start_fraction` times its start
// and `value_fraction` times the QP's objective value. The second because the start, at
// beta = C / 2, scales with C: at C = 1e4 the first alone stopped the method with the dual wrong
// in its sixth digit, and pair steps took 47,000 steps (10 s at 20,000 samples) to finish a
// hard-margin stage it had all but solved.
Vector interior_point_dual(const Matrix& X, const Vector& y, double C, const Vector& c,
                           const std::vector<Index>& J, int iterations, double start_fraction,
                           double value_fraction) {
    const Index n = X.rows();
    std::vector<Index> with_v, without_v;
    for (const Index k : J) (c[k] > 0 ? with_v : without_v).push_back(k);
    const Index m = Index(with_v.size()), m0 = Index(without_v.size());
    // X_J with the features that have a v first; B = X_J S, S = diag(omega^1/2, 1) below.
    Matrix XJ(n, m + m0);
    XJ.leftCols(m) = X(Eigen::all, with_v);
    XJ.rightCols(m0) = X(Eigen::all, without_v);
    const auto X1 = XJ.leftCols(m);
    const auto X0 = XJ.rightCols(m0);
    const Vector c1 = c(with_v);
    const Index N = n + m;  // z = (beta, v)
    Vector lower(N), upper(N);
    lower << Vector::Zero(n), -c1;
    upper << Vector::Constant(n, C), c1;
    Vector z(N);
    z << Vector::Constant(n, 0.5 * C), Vector::Zero(m);
    double eta = 0.0;  // multiplier of y'beta = 0
    // The gradient at zz; `value` takes the objective there from the same products:
    // 1/2 |X_J'(y o beta) - v|^2 - e'beta (v_k = 0 where c_k = 0).
    double value = 0.0;
    const auto gradient = [&](const Vector& zz) {
        const Vector yb = y.cwiseProduct(zz.head(n));
        const Vector r = X1.transpose() * yb - zz.tail(m);
        Vector g(N);
        g.head(n) = y.cwiseProduct(X1 * r) - Vector::Ones(n);
        value = 0.5 * r.squaredNorm() - zz.head(n).sum();
        if (m0 > 0) {
            const Vector r0 = X0.transpose() * yb;
            g.head(n) += y.cwiseProduct(X0 * r0);
            value += 0.5 * r0.squaredNorm();
        }
        g.tail(m) = -r;
        return g;
    };
    Vector g = gradient(z);
    Vector s_l = z - lower, s_u = upper - z;
    Vector l_l = g.cwiseMax(0.0).array() + 1.0, l_u = (-g).cwiseMax(0.0).array() + 1.0;
    const double complementarity_start = s_l.dot(l_l) + s_u.dot(l_u);
    Vector yv = Vector::Zero(N);
    yv.head(n) = y;
    for (int it = 0; it < iterations; ++it) {
        const double complementarity = s_l.dot(l_l) + s_u.dot(l_u);
        const double mu = complementarity / double(2 * N);
        if (complementarity <= start_fraction * complementarity_start &&
            complementarity <= value_fraction * std::abs(value))  // value: at z (g's point)
            break;
        const Vector r_d = g + eta * yv - l_l + l_u;
        const double r_p = y.dot(z.head(n));
        const Vector D = l_l.cwiseQuotient(s_l) + l_u.cwiseQuotient(s_u);
        // The reduced n x n matrix M = Y B B' Y + D_beta, B = X_J S with S = diag(omega^1/2, 1),
        // shared by both solves: factored whole where n <= |J|, else through the Woodbury
        // identity M^-1 = D^-1 - D^-1 Y B (I + B' D^-1 B)^-1 B' Y D^-1, an |J| x |J| factor
        // (n |J|^2 work and memory n |J|: the n x n matrix of 50,000 samples would not fit).
        const Vector omega = D.tail(m).cwiseQuotient((1.0 + D.tail(m).array()).matrix());
        const Vector D_beta = D.head(n);
        Vector S(m + m0);
        S << omega.cwiseSqrt(), Vector::Ones(m0);
        const bool low_rank = n > m + m0;
        Eigen::LLT<Matrix> llt;
        if (low_rank) {
            // B'Y D^-1 Y B = S X_J' D^-1 X_J S (Y^2 = I): one scaled copy of X_J per step, a
            // plain matrix so that the rank update is BLAS's dsyrk (which refuses an empty one:
            // with no feature in J, K is 0 x 0 and M = D_beta).
            // (The row scales as a vector first: as an expression inside asDiagonal() the
            // square root and the division were evaluated for every entry, 20 % of an l2-AROM
            // run on ijcnn1.)
            const Vector row_scale = D_beta.cwiseInverse().cwiseSqrt();
            const Matrix scaled = row_scale.asDiagonal() * XJ;
            Matrix G = Matrix::Zero(m + m0, m + m0);
            if (m + m0 > 0) G.selfadjointView<Eigen::Lower>().rankUpdate(scaled.transpose());
            Matrix K = G.selfadjointView<Eigen::Lower>();
            K = S.asDiagonal() * K * S.asDiagonal();
            K.diagonal().array() += 1.0;
            llt.compute(K);
        } else {
            const Matrix YB = y.asDiagonal() * XJ * S.asDiagonal();
            Matrix M = D_beta.asDiagonal();
            M.selfadjointView<Eigen::Lower>().rankUpdate(YB);
            llt.compute(M);
        }
        if (llt.info() != Eigen::Success) break;
        const auto solve_M = [&](const Vector& h) -> Vector {
            if (!low_rank) return llt.solve(h);
            const Vector t = h.cwiseQuotient(D_beta);
            const Vector u = llt.solve(S.cwiseProduct(XJ.transpose() * y.cwiseProduct(t)));
            return t - y.cwiseProduct(XJ * S.cwiseProduct(u)).cwiseQuotient(D_beta);
        };
        const Vector q = solve_M(y);
        // Solves (H + D) dz + y dEta = rhs, y'dz_beta = -r_p.
        const auto newton = [&](const Vector& rhs, double& d_eta) {
            const Vector inv = (1.0 + D.tail(m).array()).inverse().matrix();
            const Vector h = rhs.head(n) +
                             y.cwiseProduct(X1 * inv.cwiseProduct(rhs.tail(m)));
            const Vector p = solve_M(h);
            d_eta = (y.dot(p) + r_p) / y.dot(q);
            Vector dz(N);
            dz.head(n) = p - d_eta * q;
            dz.tail(m) = inv.cwiseProduct(rhs.tail(m) + X1.transpose() * y.cwiseProduct(dz.head(n)));
            return dz;
        };
        const auto rhs_for = [&](const Vector& t_l, const Vector& t_u) {
            return Vector(-r_d + (t_l.cwiseQuotient(s_l) - l_l) - (t_u.cwiseQuotient(s_u) - l_u));
        };
        const auto multipliers = [&](const Vector& dz, const Vector& t_l, const Vector& t_u,
                                     Vector& d_l, Vector& d_u) {
            d_l = (t_l - s_l.cwiseProduct(l_l) - l_l.cwiseProduct(dz)).cwiseQuotient(s_l);
            d_u = (t_u - s_u.cwiseProduct(l_u) + l_u.cwiseProduct(dz)).cwiseQuotient(s_u);
        };
        const auto step_to_boundary = [&](const Vector& dz, const Vector& d_l, const Vector& d_u) {
            double a = 1.0;
            for (Index k = 0; k < N; ++k) {
                if (dz[k] < 0) a = std::min(a, -s_l[k] / dz[k]);
                if (dz[k] > 0) a = std::min(a, s_u[k] / dz[k]);
                if (d_l[k] < 0) a = std::min(a, -l_l[k] / d_l[k]);
                if (d_u[k] < 0) a = std::min(a, -l_u[k] / d_u[k]);
            }
            return a;
        };
        // Predictor (affine scaling), then the corrector with Mehrotra's centring.
        const Vector zero = Vector::Zero(N);
        double d_eta = 0.0;
        Vector dz = newton(rhs_for(zero, zero), d_eta);
        Vector d_l, d_u;
        multipliers(dz, zero, zero, d_l, d_u);
        const double a_aff = step_to_boundary(dz, d_l, d_u);
        const double mu_aff = ((s_l + a_aff * dz).dot(l_l + a_aff * d_l) +
                               (s_u - a_aff * dz).dot(l_u + a_aff * d_u)) /
                              double(2 * N);
        const double sigma = std::pow(mu_aff / mu, 3.0);
        const Vector t_l = (sigma * mu - dz.cwiseProduct(d_l).array()).matrix();
        const Vector t_u = (sigma * mu + dz.cwiseProduct(d_u).array()).matrix();
        dz = newton(rhs_for(t_l, t_u), d_eta);
        multipliers(dz, t_l, t_u, d_l, d_u);
        const double a = std::min(1.0, 0.995 * step_to_boundary(dz, d_l, d_u));
        // A step too short to matter, or one that rounding has broken, ends the method at the
        // current iterate (near the optimum the Newton systems lose their accuracy first).
        if (!(a > 1e-12) || !dz.allFinite() || !d_l.allFinite() || !d_u.allFinite()) break;
        z += a * dz;
        eta += a * d_eta;
        l_l += a * d_l;
        l_u += a * d_u;
        // The slacks are updated by the step, not recomputed as z - lower: v_k near its bound
        // -c_k would round its slack to 0 (a few Newton steps later the iterate was NaN).
        s_l += a * dz;
        s_u -= a * dz;
        g = gradient(z);
    }
    return z.head(n);
}

// One problem of the batch, solved by SMO: each step moves a pair (i, j) along
// beta_i += y_i t, beta_j -= y_j t (which keeps y'beta = 0) to the exact maximiser of the dual
// on that line within the box. With a = x_i - x_j the derivative along the line is
//   phi(t) = y_i - y_j - a'S_c(u + t a),
// piecewise linear and non-increasing (S_c is monotone), with slope -sum of a_k^2 over the
// features active at t; its root is found by safeguarded Newton steps over the pieces. The
// state u = X'(beta o y), w = S_c(u) and f = X w is updated incrementally (f only through the
// columns where w changed) and recomputed from beta before a stop is accepted.
//
// Working set of features. On microarray data most of the d features stay far inside
// |u_k| <= c_k (w_k = 0) throughout a solve, yet every step would pass over all of them. With
// delta = beta - beta_ref (y'delta = 0, so the column's mean drops out),
//   |u_k(beta) - u_k(beta_ref)| <= min(max_i |x_ik| |delta|_1, |x_k - mean(x_k)|_2 |delta|_2),
// so a feature whose slack c_k - |u_k(beta_ref)| exceeds that bound cannot be active: the
// steps keep u, w and the line only on the working set J (the active features and the
// `spare_` inactive ones of least slack per unit of |delta|_2), cap each step so that for every
// feature outside J one of the two bounds stays below its slack, and rebuild J (one pass over
// X, twice the spare features) when that budget runs out. Nothing is approximated: w outside
// J is exactly 0 at every iterate, and a stop is accepted only after a full pass confirms it.
class PairSolver {
public:
    PairSolver(const Matrix& X, const Matrix& Xt, const Vector& col_max, const Vector& col_norm,
               const Vector& y, double C, const Vector& c)
        : X_(X), Xt_(Xt), col_max_(col_max), col_norm_(col_norm), y_(y), C_(C), c_(c),
          spare_(std::max<Index>(64, 4 * y.size())) {}

    // From a feasible beta; returns the steps taken and whether the relative gap was met.
    bool solve(Vector& beta, double gap_tolerance, std::int64_t max_steps, std::int64_t& steps) {
        beta_ = beta;
        rebuild();
        steps = 0;
        // Pair steps solve most problems in a few n steps; one that needs more goes to the
        // interior-point method (and back to pair steps if that does not close the gap). Where
        // n > d its Newton steps cost n |J|^2, less than the many O(n) pair steps (each
        // chooses its pair over all samples) a cold or far start takes there: d + 100 pair
        // steps first, enough for the warm starts of a DCA near its end. The method gets its
        // turn within max_steps.
        const Index n = y_.size(), d = c_.size();
        std::int64_t pair_budget = n > d ? d + 100 : 20 * n + 100;
        pair_budget = std::max<std::int64_t>(1, std::min(pair_budget, max_steps / 2));
        bool solved = false, tried_interior_point = false, stalled = false;
        // Whether the recomputed state, or the primal point of its face, closes the gap.
        const auto closes_after_refresh = [&] {
            refresh();
            return (measure_gap(gap_tolerance) || face_closes_gap(beta_, w_, gap_tolerance)) &&
                   outside_inactive();
        };
        const auto interior_point_closes = [&] {
            tried_interior_point = true;
            return interior_point(gap_tolerance) && outside_inactive();
        };
        for (;;) {
            // The gap (O(n + d)) every few steps: a step can cost as little as O(d).
            if (steps % 8 == 0 && measure_gap(gap_tolerance)) {
                refresh();  // accept only what the recomputed state confirms
                if (measure_gap(gap_tolerance) && outside_inactive()) {
                    solved = true;
                    break;
                }
            }
            if (steps >= max_steps) break;
            Index i = -1, j = -1;
            if (!select_pair(i, j)) {
                // No violating pair in floating point: recompute the state; the primal point
                // of the face may still close the gap.
                if (closes_after_refresh()) {
                    solved = true;
                    break;
                }
                if (!select_pair(i, j)) break;
            }
            const bool moved = take_step(i, j);
            ++steps;
            if (!moved) {
                // The pair violates the conditions by less than a step can resolve in floating
                // point: the same state would choose it forever. Recompute the state (its
                // drift may be what makes the pair look violating) and check the gap; if the
                // recomputed state stalls too, the interior-point method gets its turn, and if
                // it has had it, the solve ends short of the gap.
                if (stalled && tried_interior_point) break;
                solved = stalled ? interior_point_closes() : closes_after_refresh();
                stalled = true;
                if (solved) break;
                continue;
            }
            stalled = false;
            if (steps % 256 == 0) refresh();  // bounds the drift of the incremental state
            // The face's primal point often closes the gap long before the pair steps do.
            if (steps % (2 * y_.size()) == 0 && face_closes_gap(beta_, w_, gap_tolerance) &&
                outside_inactive()) {
                solved = true;
                break;
            }
            if (steps == pair_budget && !tried_interior_point && interior_point_closes()) {
                solved = true;
                break;
            }
        }
        beta = beta_;
        return solved;
    }

    const Vector& w() const { return w_; }
    double b() const { return b_; }
    double primal() const { return primal_; }
    double dual() const { return dual_; }

private:
    // The interior-point solve on the features that are, or are close to, the support and
    // those with c_k = 0; features found violating |u_k| <= c_k at its answer join and it
    // reruns. Its answer, projected onto the constraints, is adopted when its dual is higher.
    // Its dual value is accurate, but w(beta) is not accurate enough for the primal: the
    // primal point comes from the face the answer identifies (face_point). True when the gap
    // is met.
    bool interior_point(double gap_tolerance) {
        const Vector u_all = X_.transpose() * beta_.cwiseProduct(y_);
        std::vector<Index> J;
        for (Index k = 0; k < u_all.size(); ++k)
            if (c_[k] == 0.0 || std::abs(u_all[k]) > 0.5 * c_[k]) J.push_back(k);
        // Where J holds most features, all of them: a second round would cost more.
        if (2 * Index(J.size()) >= u_all.size()) {
            J.resize(std::size_t(u_all.size()));
            std::iota(J.begin(), J.end(), Index(0));
        }
        // Well-posed problems take 20-70 Newton steps; degenerate ones take more, with steps of
        // 0.1-0.3 until the optimal face is found (ijcnn1 on ten of its features, where w = 0 is
        // optimal and the dual's optimal face holds thousands of free samples: 99 steps; 55 for
        // Clarabel's homogeneous embedding, crawling the same way). Short of them the answer
        // was not adopted and pair steps took 44,000 steps (35 s) to close the gap.
        constexpr int newton_steps = 200;
        for (int round = 0; round < 4; ++round) {
            // Complementarity well inside the gap asked for too, so that the dual value is not
            // what falls short of it.
            Vector candidate = interior_point_dual(X_, y_, C_, c_, J, newton_steps, 1e-16,
                                                   1e-2 * gap_tolerance);
            project(candidate, y_, C_);
            Vector u, w;
            weights_of(candidate, u, w);
            std::vector<Index> violators;
            for (Index k = 0; k < w.size(); ++k)
                if (w[k] != 0.0 && !std::binary_search(J.begin(), J.end(), k)) violators.push_back(k);
            if (candidate.sum() - 0.5 * w.squaredNorm() > dual_) {
                beta_ = candidate;
                rebuild();
                if (measure_gap(gap_tolerance)) return true;
            }
            if (face_closes_gap(candidate, w, gap_tolerance)) return true;
            if (violators.empty()) return false;
            J.insert(J.end(), violators.begin(), violators.end());
            std::sort(J.begin(), J.end());
        }
        return false;
    }

    // Whether the primal point of the face of beta (with w_beta = S_c(X'(beta o y))) closes the
    // gap against the current state's dual value; if so it becomes the reported primal point.
    // False also when the current state meets the gap by itself (the caller's check takes it).
    // The face of beta first, then (degenerate faces) the face with the features nearest to
    // activation added: any w gives an upper bound, so trying both is safe.
    bool face_closes_gap(const Vector& beta, const Vector& w_beta, double gap_tolerance) {
        if (measure_gap(gap_tolerance)) return false;  // also measures the current dual value
        Vector w, f;
        double b = 0.0, primal = 0.0;
        bool closes = false;
        for (const bool near_active : {false, true}) {
            if (!face_point(beta, w_beta, near_active, w)) continue;
            f = X_ * w;
            b = optimal_bias(f, y_);
            primal = C_ * hinge_sum(f, y_, b) + 0.5 * w.squaredNorm() + c_.dot(w.cwiseAbs());
            closes = primal - dual_ <= gap_tolerance * std::abs(primal);
            if (closes) break;
        }
        if (!closes) return false;
        refresh();  // report the recomputed dual value, not the incremental one
        if (measure_gap(gap_tolerance)) return true;
        if (!(primal < primal_ && primal - dual_ <= gap_tolerance * std::abs(primal))) return false;
        w_ = w, f_ = f, b_ = b, primal_ = primal;
        support_changed_ = true;
        return true;
    }

    // The primal optimum on the face of the current (near-optimal) beta: samples free
    // (F: margin exactly 1) or at C (U), support S of w with its signs s. There the optimality
    // conditions are linear: w_S = A'lambda - g with A = rows y_i x_iS of F and
    // g = c_S o s - C sum_U y_i x_iS, and
    //   [A A'  y_F] [lambda]   [e + A g        ]
    //   [y_F'  0  ] [b     ] = [-C sum_U y_i   ].
    // lambda need not be unique (more free samples than support features + 1) but A'lambda,
    // hence w, is: least squares gives it. False when the face is empty or the solve fails.
    // With more free samples than support features + 1 the face may also be missing features
    // whose optimal |w_k| is tiny, |u_k| a hair under c_k at this beta (the dual is flat along
    // lambda's free directions, so a beta within 1e-9 of the optimum can sit there): with
    // `near_active`, the features outside S of largest |u_k| - c_k join S with the sign of u_k,
    // up to as many as make the face square (|S| + 1 = |F|).
    bool face_point(const Vector& beta, const Vector& w_beta, bool near_active, Vector& w) const {
        const Index n = y_.size(), d = w_beta.size();
        const double scale = std::max(w_beta.cwiseAbs().maxCoeff(), 1e-300);
        std::vector<Index> free, upper, support;
        const double zero_below = 1e-7 * std::min(C_, beta.maxCoeff());
        for (Index i = 0; i < n; ++i) {
            if (beta[i] >= C_ * (1 - 1e-7)) upper.push_back(i);
            else if (beta[i] > zero_below) free.push_back(i);
        }
        for (Index k = 0; k < d; ++k)
            if (std::abs(w_beta[k]) > 1e-7 * scale) support.push_back(k);
        const Index nf = Index(free.size());
        if (nf == 0 || support.empty()) return false;
        std::vector<double> sign(support.size());
        for (std::size_t a = 0; a < support.size(); ++a)
            sign[a] = w_beta[support[a]] > 0 ? 1.0 : -1.0;
        if (near_active) {
            const Index missing = nf - 1 - Index(support.size());
            if (missing <= 0) return false;  // nothing to add: the plain face was the answer
            const Vector u = X_.transpose() * beta.cwiseProduct(y_);
            std::vector<Index> outside;
            for (Index k = 0, a = 0; k < d; ++k) {
                if (a < Index(support.size()) && support[std::size_t(a)] == k) ++a;
                else if (u[k] != 0.0) outside.push_back(k);
            }
            const auto slack = [&](Index k) { return std::abs(u[k]) - c_[k]; };
            const std::size_t added = std::min(outside.size(), std::size_t(missing));
            std::partial_sort(outside.begin(), outside.begin() + std::ptrdiff_t(added),
                              outside.end(), [&](Index a, Index b) { return slack(a) > slack(b); });
            for (std::size_t a = 0; a < added; ++a) {
                support.push_back(outside[a]);
                sign.push_back(u[outside[a]] > 0 ? 1.0 : -1.0);
            }
        }
        const Index ns = Index(support.size());
        Vector g(ns);
        for (Index a = 0; a < ns; ++a) g[a] = c_[support[std::size_t(a)]] * sign[std::size_t(a)];
        double upper_sum = 0.0;
        for (const Index i : upper) {
            upper_sum += y_[i];
            for (Index a = 0; a < ns; ++a) g[a] -= C_ * y_[i] * X_(i, support[std::size_t(a)]);
        }
        Matrix A(nf, ns);
        for (Index r = 0; r < nf; ++r)
            for (Index a = 0; a < ns; ++a)
                A(r, a) = y_[free[std::size_t(r)]] * X_(free[std::size_t(r)], support[std::size_t(a)]);
        Vector w_s;
        if (nf > ns + 1) {
            w_s = overdetermined_face_point(A, free, g, -C_ * upper_sum);
        } else {
            Matrix K = Matrix::Zero(nf + 1, nf + 1);
            K.topLeftCorner(nf, nf) = A * A.transpose();
            Vector rhs(nf + 1);
            rhs.head(nf) = (1.0 + (A * g).array()).matrix();
            rhs[nf] = -C_ * upper_sum;
            for (Index r = 0; r < nf; ++r) K(r, nf) = K(nf, r) = y_[free[std::size_t(r)]];
            const Vector x = Eigen::CompleteOrthogonalDecomposition<Matrix>(K).solve(rhs);
            w_s = A.transpose() * x.head(nf) - g;
        }
        if (!w_s.allFinite()) return false;
        w = Vector::Zero(d);
        for (Index a = 0; a < ns; ++a) w[support[std::size_t(a)]] = w_s[a];
        return true;
    }

    // The face's primal point where it has more free samples than unknowns (nf > |S| + 1: a
    // problem with n >> d, or an interior-point answer whose face is not yet the optimal one),
    // in the primal space instead of the (nf + 1)-square system above, whose nf^3 work and nf^2
    // memory (20 GB at nf = 50,000) would not do. The conditions are those of the face problem
    //   min_{w_S, b}  1/2 |w_S|^2 + g'w_S + h b   s.t.  A w_S + y_F b = e
    // (h = -C sum_U y_i; its multipliers are lambda): on the optimal face the nf margins hold
    // exactly and [A y_F] has full column rank, so (w_S, b) is the least-squares solution; where
    // the rank falls short, the objective chooses among the solutions (its minimum over the
    // null space of [A y_F]). Returns w_S.
    Vector overdetermined_face_point(const Matrix& A, const std::vector<Index>& free,
                                     const Vector& g, double h) const {
        const Index nf = A.rows(), ns = A.cols();
        Matrix M(nf, ns + 1);
        M.leftCols(ns) = A;
        for (Index r = 0; r < nf; ++r) M(r, ns) = y_[free[std::size_t(r)]];
        const Eigen::BDCSVD<Matrix> svd(M, Eigen::ComputeThinU | Eigen::ComputeThinV);
        Vector z = svd.solve(Vector::Ones(nf));
        const Index rank = svd.rank();
        if (rank < ns + 1) {
            // z + N a over the null space N: minimise 1/2 (z + N a)'H(z + N a) + f'(z + N a),
            // H = diag(1 on w_S, 0 on b), f = (g, h).
            const Matrix N = svd.matrixV().rightCols(ns + 1 - rank);
            Vector Hz_f(ns + 1);
            Hz_f << z.head(ns) + g, h;
            const Matrix NHN = N.topRows(ns).transpose() * N.topRows(ns);
            z -= N * Eigen::CompleteOrthogonalDecomposition<Matrix>(NHN).solve(N.transpose() * Hz_f);
        }
        return z.head(ns);
    }

    // u = X'(beta o y) and w = S_c(u) of a dual point.
    void weights_of(const Vector& beta, Vector& u, Vector& w) const {
        u = X_.transpose() * beta.cwiseProduct(y_);
        w.resize(u.size());
        for (Index k = 0; k < u.size(); ++k) w[k] = soft(u[k], c_[k]);
    }

    // u, w on the working set and f from beta (w outside it is 0).
    void refresh() {
        uJ_.noalias() = XJt_ * beta_.cwiseProduct(y_);
        weights_from_uJ();
    }

    // w = S_c(u) on the working set and f = X w from its nonzeros.
    void weights_from_uJ() {
        f_.setZero(y_.size());
        for (Index l = 0; l < Index(J_.size()); ++l) {
            const Index k = J_[std::size_t(l)];
            w_[k] = soft(uJ_[l], cJ_[l]);
            if (w_[k] != 0.0) f_ += w_[k] * X_.col(k);
        }
        support_changed_ = true;
    }

    // The working set from a full pass at the current beta: the features with no slack and
    // the `spare_` of least positive slack (a constant column has u_k fixed: never in J unless
    // already active).
    void rebuild() { rebuild(X_.transpose() * beta_.cwiseProduct(y_)); }
    void rebuild(const Vector& u) {  // u = X'(beta o y)
        constexpr double inf = std::numeric_limits<double>::infinity();
        Vector slack(u.size());
        std::vector<double> positive;
        for (Index k = 0; k < u.size(); ++k) {
            const double room = c_[k] - std::abs(u[k]);
            slack[k] = col_norm_[k] == 0.0 ? (room >= 0.0 ? inf : -inf) : room / col_norm_[k];
            if (slack[k] > 0.0) positive.push_back(slack[k]);
        }
        double reach = inf;
        budget_l2_ = budget_l1_ = inf;
        if (Index(positive.size()) > spare_) {
            const auto kth = positive.begin() + spare_;
            std::nth_element(positive.begin(), kth, positive.end());
            reach = *std::max_element(positive.begin(), kth);
        }
        J_.clear();
        for (Index k = 0; k < u.size(); ++k) {
            if (slack[k] <= reach) {
                J_.push_back(k);
            } else if (slack[k] < inf) {
                budget_l2_ = std::min(budget_l2_, slack[k]);
                budget_l1_ = std::min(budget_l1_, (c_[k] - std::abs(u[k])) / col_max_[k]);
            }
        }
        XJt_ = Xt_(J_, Eigen::all);
        cJ_ = c_(J_);
        uJ_ = u(J_);
        w_.setZero(u.size());  // every feature outside J has |u_k| < c_k
        weights_from_uJ();
        beta_ref_ = beta_;
        travelled_l1_ = travelled_l2_ = 0.0;
    }

    // Whether every feature outside the working set meets |u_k| <= c_k at beta (a full pass;
    // the bound guarantees it, this guards the stop against rounding); else the working set
    // is rebuilt and the solve goes on.
    bool outside_inactive() {
        const Vector u = X_.transpose() * beta_.cwiseProduct(y_);
        std::size_t l = 0;
        for (Index k = 0; k < u.size(); ++k) {
            if (l < J_.size() && J_[l] == k) {
                ++l;
            } else if (std::abs(u[k]) > c_[k]) {
                rebuild(u);
                return false;
            }
        }
        return true;
    }

    // Sets b (optimal for the current w), the primal value at (w, b) and the dual value at
    // beta from the current state; true when their relative gap is within the tolerance.
    bool measure_gap(double gap_tolerance) {
        double half_w2 = 0.0, l1 = 0.0;
        for (Index l = 0; l < Index(J_.size()); ++l) {
            const double wk = w_[J_[std::size_t(l)]];
            half_w2 += 0.5 * wk * wk;
            l1 += cJ_[l] * std::abs(wk);
        }
        b_ = optimal_bias(f_, y_);
        primal_ = C_ * hinge_sum(f_, y_, b_) + half_w2 + l1;
        dual_ = beta_.sum() - half_w2;
        return primal_ - dual_ <= gap_tolerance * std::abs(primal_);
    }

    bool up(Index i) const { return y_[i] > 0 ? beta_[i] < C_ : beta_[i] > 0; }
    bool low(Index i) const { return y_[i] > 0 ? beta_[i] > 0 : beta_[i] < C_; }

    // Second-order working-set selection (Fan, Chen & Lin 2005): i maximises y_i - f_i over
    // I_up; j, among the I_low with y_j - f_j below it, maximises the gain (m - g_j)^2 / a_ij
    // with a_ij = |x_i - x_j|^2 over the features of the current support (the line's curvature
    // at t = 0). False when no pair violates the optimality conditions.
    bool select_pair(Index& i, Index& j) {
        const Index n = y_.size();
        double m = -std::numeric_limits<double>::infinity();
        for (Index r = 0; r < n; ++r)
            if (up(r) && y_[r] - f_[r] > m) {
                m = y_[r] - f_[r];
                i = r;
            }
        if (i < 0) return false;
        // X_S x_iS and the squared row norms over the support S (the list and the norms kept
        // until S changes).
        if (support_changed_) {
            support_.clear();
            norms_.setZero(n);
            for (const Index k : J_)
                if (w_[k] != 0.0) {
                    support_.push_back(k);
                    norms_ += X_.col(k).cwiseAbs2();
                }
            support_changed_ = false;
        }
        cross_.setZero(n);
        for (const Index k : support_) cross_ += X_(i, k) * X_.col(k);
        double best = 0.0;
        for (Index r = 0; r < n; ++r) {
            if (!low(r)) continue;
            const double b = m - (y_[r] - f_[r]);
            if (!(b > 0.0)) continue;
            const double a = std::max(norms_[i] + norms_[r] - 2.0 * cross_[r], 1e-12);
            if (b * b / a > best) {
                best = b * b / a;
                j = r;
            }
        }
        return j >= 0 && m - (y_[j] - f_[j]) > 1e-15 * (1.0 + std::abs(m));
    }

    // phi(t) and its slope (right derivative) on the line u + t a.
    double phi(double t, double dy, double& slope) const {
        double s = 0.0;
        slope = 0.0;
        for (const Index l : line_) {
            const double v = uJ_[l] + t * a_[l];
            if (v > cJ_[l]) {
                s += a_[l] * (v - cJ_[l]);
                slope += a_[l] * a_[l];
            } else if (v < -cJ_[l]) {
                s += a_[l] * (v + cJ_[l]);
                slope += a_[l] * a_[l];
            }
        }
        return dy - s;
    }

    // The smallest t' > t at which a feature enters or leaves the support (inf if none).
    double next_breakpoint(double t) const {
        double next = std::numeric_limits<double>::infinity();
        for (const Index l : line_) {
            if (a_[l] == 0.0) continue;
            const double v = uJ_[l] + t * a_[l];
            for (const double edge : {cJ_[l], -cJ_[l]}) {
                const double dt = (edge - v) / a_[l];
                if (dt > 0.0) next = std::min(next, t + dt);
            }
        }
        return next;
    }

    // The largest useful step: T when phi(T) >= 0, else the root of phi in (0, T), by Newton
    // steps from both ends of a bracket (each lands on the root when the root lies on the piece
    // it starts from), bisection when a step leaves the bracket. Ends at |phi| within rounding.
    double line_root(double dy, double T) const {
        double slope_hi = 0.0, slope_lo = 0.0;
        double v_hi = phi(T, dy, slope_hi);
        if (v_hi >= 0.0) return T;
        double lo = 0.0, hi = T;
        double v_lo = phi(lo, dy, slope_lo);
        const double small = 1e-14 * (std::abs(dy) + v_lo - v_hi);
        bool from_lo = true;
        for (int k = 0; k < 200; ++k) {
            double t = from_lo ? (slope_lo > 0.0 ? lo + v_lo / slope_lo : next_breakpoint(lo))
                               : (slope_hi > 0.0 ? hi + v_hi / slope_hi : 0.5 * (lo + hi));
            if (!(t > lo && t < hi)) t = 0.5 * (lo + hi);
            double slope = 0.0;
            const double v = phi(t, dy, slope);
            if (std::abs(v) <= small) return t;
            if (v > 0.0) {
                lo = t, v_lo = v, slope_lo = slope;
                from_lo = true;
            } else {
                hi = t, v_hi = v, slope_hi = slope;
                from_lo = !from_lo;
            }
            if (hi - lo <= 1e-15 * (1.0 + hi)) break;
        }
        return lo;
    }

    // Moves along the pair's line; false when beta did not change.
    bool take_step(Index i, Index j) {
        const double dy = y_[i] - y_[j];
        const double room_i = y_[i] > 0 ? C_ - beta_[i] : beta_[i];
        const double room_j = y_[j] > 0 ? beta_[j] : C_ - beta_[j];
        double T = std::min(room_i, room_j);
        // A step stays within the working set's budget (a step cut short by it is still an
        // ascent); after one that used the budget up, the set is rebuilt, twice as wide.
        if (exhausted_) {
            spare_ *= 2;
            rebuild();
            exhausted_ = false;
        }
        // Along the step delta grows by t (y_i e_i - y_j e_j): |delta|_1 by at most 2t, and
        // |delta|_2^2 by 2t delta'v + 2t^2 exactly.
        const double dv = y_[i] * (beta_[i] - beta_ref_[i]) - y_[j] * (beta_[j] - beta_ref_[j]);
        const double l2_room = budget_l2_ * budget_l2_ - travelled_l2_;
        const double T_budget =
            std::max(0.5 * (budget_l1_ - travelled_l1_),
                     l2_room >= 0.0 ? 0.5 * (std::sqrt(dv * dv + 2.0 * l2_room) - dv) : 0.0);
        if (T_budget < T) T = T_budget;
        // Only the features that can reach their threshold within [0, T] shape the line.
        // (one pass: the direction a and the features it can carry across)
        const auto x_i = XJt_.col(i), x_j = XJt_.col(j);
        a_.resize(x_i.size());
        line_.clear();
        for (Index l = 0; l < a_.size(); ++l) {
            a_[l] = x_i[l] - x_j[l];
            if (std::abs(uJ_[l]) + T * std::abs(a_[l]) > cJ_[l]) line_.push_back(l);
        }
        const double t = line_root(dy, T);
        exhausted_ = t == T_budget;
        const double old_i = beta_[i], old_j = beta_[j];
        beta_[i] = t == room_i ? (y_[i] > 0 ? C_ : 0.0) : beta_[i] + y_[i] * t;
        beta_[j] = t == room_j ? (y_[j] > 0 ? 0.0 : C_) : beta_[j] - y_[j] * t;
        beta_[i] = std::clamp(beta_[i], 0.0, C_);
        beta_[j] = std::clamp(beta_[j], 0.0, C_);
        for (const auto& [r, old] : {std::pair{i, old_i}, std::pair{j, old_j}}) {
            const double now = beta_[r] - beta_ref_[r], before = old - beta_ref_[r];
            travelled_l1_ += std::abs(now) - std::abs(before);
            travelled_l2_ += now * now - before * before;
        }
        uJ_ += t * a_;
        for (const Index l : line_) {  // w changes only on the line's features
            const Index k = J_[std::size_t(l)];
            const double w_new = soft(uJ_[l], cJ_[l]);
            const double dw = w_new - w_[k];
            if ((w_new == 0.0) != (w_[k] == 0.0)) support_changed_ = true;
            if (dw != 0.0) {
                f_ += dw * X_.col(k);
                w_[k] = w_new;
            }
        }
        return beta_[i] != old_i || beta_[j] != old_j;
    }

    const Matrix& X_;
    const Matrix& Xt_;        // X', whose columns are the samples
    const Vector& col_max_;   // max_i |x_ik| per feature
    const Vector& col_norm_;  // |x_k - mean(x_k)|_2 per feature
    const Vector& y_;
    const double C_;
    const Vector& c_;
    Vector beta_, w_, f_, cross_, norms_;
    // The working set J of features, X' and u, c on it, and the line's direction a on it.
    std::vector<Index> J_;
    Matrix XJt_;
    Vector uJ_, cJ_, a_;
    std::vector<Index> line_;  // positions in J of the features that can cross during a step
    // beta when J was built, |beta - beta_ref|_1 and |beta - beta_ref|_2^2 since, the largest
    // |beta - beta_ref|_1 and _2 before a feature outside J could become active, how many
    // inactive features J holds, whether the last step stopped at the budget.
    Vector beta_ref_;
    double travelled_l1_ = 0.0, travelled_l2_ = 0.0, budget_l1_ = 0.0, budget_l2_ = 0.0;
    Index spare_;
    bool exhausted_ = false;
    std::vector<Index> support_;   // the features with w_k != 0 (all in J)
    bool support_changed_ = true;  // since support_ and norms_ were computed
    double b_ = 0.0, primal_ = 0.0, dual_ = 0.0;
};

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
    check_batch(X, y, C, costs, warm_beta, gap_tolerance, max_iterations);
    const Index n = X.rows(), d = X.cols(), P = C.size();

    L2L1BatchResult out;
    out.beta = warm_beta.size() > 0 ? warm_beta : Matrix(Matrix::Zero(n, P));
    out.w.resize(d, P);
    out.b.resize(P);
    out.primal.resize(P);
    out.dual.resize(P);
    out.status.assign(std::size_t(P), Status::NoConvergence);
    out.iterations.assign(std::size_t(P), 0);
    const Matrix Xt = X.transpose();
    const Vector col_max = X.cwiseAbs().colwise().maxCoeff().transpose();
    const Eigen::RowVectorXd col_mean = X.colwise().mean();
    const Vector col_norm = (X.rowwise() - col_mean).colwise().norm().transpose();
    for (Index p = 0; p < P; ++p) {
        project(out.beta.col(p), y, C[p]);
        const Vector c = costs.col(p);
        PairSolver solver(X, Xt, col_max, col_norm, y, C[p], c);
        Vector beta = out.beta.col(p);
        std::int64_t steps = 0;
        if (solver.solve(beta, gap_tolerance, max_iterations, steps))
            out.status[std::size_t(p)] = Status::Success;
        out.beta.col(p) = beta;
        out.w.col(p) = solver.w();
        out.b[p] = solver.b();
        out.primal[p] = solver.primal();
        out.dual[p] = solver.dual();
        out.iterations[std::size_t(p)] = steps;
    }
    return out;
}

L2L1BatchResult solve_l2_l1_svm_batch(Backend& backend, const Matrix& X, const Vector& y,
                                      const Vector& C, const Matrix& costs,
                                      const Matrix& warm_beta, double gap_tolerance,
                                      std::int64_t max_iterations) {
    if (X.rows() > X.cols())
        return solve_l2_l1_svm_batch(X, y, C, costs, warm_beta, gap_tolerance, max_iterations);
    check_batch(X, y, C, costs, warm_beta, gap_tolerance, max_iterations);
    return detail::solve_l2_l1_batched(backend, X, y, C, costs, warm_beta, gap_tolerance,
                                       max_iterations);
}

}  // namespace zeronorm
