// The linear SVM with a ridge, in the primal by Newton steps with an exact line search
// (ridge_svm_primal.hpp).
#include "solvers/ridge_svm_primal.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <limits>

#include "solvers/dual_projection.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm::detail {

namespace {

// The primal's loss at t = 1 - y_i f_i (ridge_svm_primal.hpp) and its derivative, the beta_i
// that the primal point gives: clip(t / ridge, 0, C).
double loss(double t, double C, double ridge) {
    if (t <= 0.0) return 0.0;
    if (t <= ridge * C) return 0.5 * t * t / ridge;
    return C * t - 0.5 * ridge * C * C;
}
double loss_slope(double t, double C, double ridge) { return std::clamp(t / ridge, 0.0, C); }

// The root of a continuous non-decreasing piecewise-linear function h on [lo, hi] (h(lo) < 0,
// or lo where h(lo) >= 0), by Newton steps on its pieces (exact once on the root's piece),
// bisection where a step leaves the bracket. h_and_slope(x, slope) returns h(x) and its slope
// there. hi may be +inf: the bracket then doubles first.
template <class F>
double piecewise_linear_root(const F& h_and_slope, double lo, double hi, double x) {
    for (int k = 0; k < 100; ++k) {
        double slope = 0.0;
        const double h = h_and_slope(x, slope);
        if (h == 0.0) return x;
        (h < 0.0 ? lo : hi) = x;
        if (std::isfinite(hi) && hi - lo <= 1e-15 * (std::abs(lo) + std::abs(hi))) break;
        const double newton = slope > 0.0 ? x - h / slope : lo;  // lo: not inside the bracket
        if (newton > lo && newton < hi)
            x = newton;
        else
            x = std::isfinite(hi) ? 0.5 * (lo + hi) : std::max(2.0 * x, lo + 1.0);
    }
    return x;
}

}  // namespace

LinearSvmSolution solve_ridge_svm_primal(const Matrix& X, const Vector& y, double C, double ridge,
                                         const Vector* warm, double gap_tolerance,
                                         std::int64_t max_steps) {
    const Index n = X.rows(), d = X.cols();
    ZN_EXPECTS(ridge > 0.0 && std::isfinite(ridge), "ridge SVM: ridge " << ridge
                                                                         << " must be finite, > 0");
    ZN_EXPECTS(C > 0.0, "ridge SVM: C " << C << " must be > 0");
    ZN_EXPECTS_DIM(y.size() == n && (warm == nullptr || warm->size() == n),
                   "ridge SVM: " << n << " rows, " << y.size() << " labels");
    // At the optimum beta_i <= sqrt(n) / ridge for every C: the primal's value at w = 0, b = 0 is
    // at most n / (2 ridge) and bounds loss(t_i), so t_i <= sqrt(n). A box of twice that is
    // inactive: the dual point is made feasible within it (C = inf included).
    const double box = std::min(C, 2.0 * std::sqrt(double(std::max<Index>(n, 1))) / ridge);

    LinearSvmSolution out;
    out.w = warm != nullptr ? Vector(X.transpose() * warm->cwiseProduct(y)) : Vector::Zero(d);
    Vector f = X * out.w;
    // The optimal b for this w: the root of -sum_i y_i loss_slope(1 - y_i (f_i + b)).
    const auto bias_slope = [&](double b, double& slope) {
        double h = 0.0, s = 0.0;
        for (Index i = 0; i < n; ++i) {
            const double t = 1.0 - y[i] * (f[i] + b);
            h -= y[i] * loss_slope(t, C, ridge);
            if (t > 0.0 && t < ridge * C) s += 1.0 / ridge;
        }
        slope = s;
        return h;
    };
    const Vector start = y - f;  // sample i's loss is nonzero for b beyond start_i
    const Index n_plus = (y.array() > 0).count();
    double b = (n_plus == 0 || n_plus == n)
                   ? (n_plus == 0 ? -1.0 : 1.0)
                   : piecewise_linear_root(bias_slope, start.minCoeff() - 1.0,
                                           start.maxCoeff() + 1.0, 0.0);

    Vector t(n), beta(n), feasible(n);
    // Each sample's piece of the loss: 0 (t <= 0), 1 (quadratic), 2 (linear, t >= ridge C).
    std::vector<unsigned char> piece(static_cast<std::size_t>(n)), previous_piece;
    SmoResult& dual = out.dual;
    dual.status = Status::NoConvergence;
    dual.kkt_gap = std::numeric_limits<double>::quiet_NaN();  // its measure is duality_gap
    for (std::int64_t step = 0;; ++step) {
        f = X * out.w;  // recomputed each step: no drift to accept a stop on
        t = (1.0 - y.array() * (f.array() + b)).matrix();
        double primal = 0.5 * out.w.squaredNorm();
        for (Index i = 0; i < n; ++i) {
            primal += loss(t[i], C, ridge);
            beta[i] = loss_slope(t[i], C, ridge);
            piece[std::size_t(i)] = t[i] <= 0.0 ? 0 : (t[i] < ridge * C ? 1 : 2);
        }
        // The dual at the primal's beta made feasible (y'beta = 0 only at the optimum).
        feasible = beta;
        project(feasible, y, box);
        const Vector w_dual = X.transpose() * feasible.cwiseProduct(y);
        const double dual_value =
            feasible.sum() - 0.5 * w_dual.squaredNorm() - 0.5 * ridge * feasible.squaredNorm();
        dual.beta = feasible;
        dual.bias = b;
        dual.objective = -dual_value;
        dual.duality_gap = primal - dual_value;
        dual.iterations = step;
        // The finite termination of the method: where the last step left every sample on its
        // piece, the loss was one quadratic along the whole step (t is linear in the step
        // length, each piece an interval), so the step landed on that quadratic's minimiser,
        // where the gradient is zero: the optimum, to the rounding of its linear solve. No
        // tolerance on the gap stops the method earlier: AROM multiplies the scales by |w_j|
        // iteration after iteration, and its small components, which a gap of 1e-8 |P| leaves
        // wrong by 1e-4 |w| (1/2 |w - w*|^2 <= P - D), changed which features a9a's path kept.
        const double gap = primal - dual_value;
        if (!previous_piece.empty() && piece == previous_piece) {
            dual.status = Status::Success;
            break;
        }
        if (step >= max_steps) break;
        previous_piece = piece;

        // The Newton system on the samples of the quadratic piece Q (0 < t_i < ridge C):
        // [I + A'A / ridge, A'e / ridge; e'A / ridge, |Q| / ridge], A = X's rows in Q.
        std::vector<Index> quadratic;
        for (Index i = 0; i < n; ++i)
            if (t[i] > 0.0 && t[i] < ridge * C) quadratic.push_back(i);
        const Index q = Index(quadratic.size());
        Matrix A(q, d + 1);
        for (Index j = 0; j < d; ++j)
            for (Index k = 0; k < q; ++k) A(k, j) = X(quadratic[std::size_t(k)], j);
        A.col(d).setOnes();
        Matrix H = Matrix::Zero(d + 1, d + 1);
        if (q > 0) H.selfadjointView<Eigen::Lower>().rankUpdate(A.transpose(), 1.0 / ridge);
        H.diagonal().head(d).array() += 1.0;
        if (q == 0) H(d, d) = 1.0;  // no curvature in b: a gradient step for it
        Vector gradient(d + 1);
        gradient.head(d) = out.w - X.transpose() * beta.cwiseProduct(y);
        gradient[d] = -y.dot(beta);
        const Eigen::LDLT<Matrix> ldlt(H.selfadjointView<Eigen::Lower>());
        const Vector s = -ldlt.solve(gradient);
        if (ldlt.info() != Eigen::Success || !s.allFinite()) break;
        // A step whose model decrease -descent / 2 lies below P's rounding gains nothing (a
        // sample at a kink may flip its piece by rounding at every step): the point is the
        // optimum where the gap says so, or where the Newton decrement -descent = g'H^-1 g
        // bounds |w - w*| to sqrt(gap_tolerance) |w|. (Where one feature is 1000 times the
        // others' scale the gap stays near 1e-4 |P| at the optimum: the dual point's
        // w = X'(y o beta) magnifies rounding in beta by the large column.)
        const double descent = gradient.dot(s);
        if (!(descent < -1e-15 * std::abs(primal))) {
            const double w2 = out.w.squaredNorm();
            if (gap <= gap_tolerance * std::abs(primal) || -descent <= gap_tolerance * 0.5 * w2)
                dual.status = Status::Success;
            break;
        }

        // Exact line search on phi(a) = P(w + a s_w, b + a s_b): phi' is piecewise linear and
        // non-decreasing, phi'(a) = w's_w + a |s_w|^2 - sum_i y_i delta_i loss_slope(t_i -
        // a y_i delta_i), delta = X s_w + s_b.
        const Vector delta = (X * s.head(d)).array() + s[d];
        const double ws = out.w.dot(s.head(d)), ss = s.head(d).squaredNorm();
        const auto line_slope = [&](double a, double& slope) {
            double h = ws + a * ss, curvature = ss;
            for (Index i = 0; i < n; ++i) {
                const double ti = t[i] - a * y[i] * delta[i];
                h -= y[i] * delta[i] * loss_slope(ti, C, ridge);
                if (ti > 0.0 && ti < ridge * C) curvature += delta[i] * delta[i] / ridge;
            }
            slope = curvature;
            return h;
        };
        const double a = piecewise_linear_root(line_slope, 0.0,
                                               std::numeric_limits<double>::infinity(), 1.0);
        if (!(a > 0.0) || !std::isfinite(a)) break;
        out.w += a * s.head(d);
        b += a * s[d];
    }
    return out;
}

}  // namespace zeronorm::detail
