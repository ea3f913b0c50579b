// FSV, the l2-l1-SVM and the l2-l0-SVM (Neumann, Schnoerr & Steidl 2005, eq. (6)-(8), sec. 4);
// the problems are written out in include/zeronorm/methods/dc_svm.hpp.
#include "zeronorm/methods/dc_svm.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/stopwatch.hpp"
#include "methods/selection_common.hpp"
#include "solvers/labels.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/solvers/lp_svm.hpp"

namespace zeronorm {

void DcOptions::validate() const {
    ZN_EXPECTS(lambda >= 0 && lambda < 1, "lambda must be in [0, 1), got " << lambda);
    ZN_EXPECTS(std::isfinite(mu) && mu > 0, "mu must be finite and > 0, got " << mu);
    ZN_EXPECTS(std::isfinite(nu) && nu >= 0, "nu must be finite and >= 0, got " << nu);
    ZN_EXPECTS(std::isfinite(alpha) && alpha > 0, "alpha must be finite and > 0, got " << alpha);
    ZN_EXPECTS(std::isfinite(tolerance) && tolerance >= 0,
               "tolerance must be finite and >= 0, got " << tolerance);
    ZN_EXPECTS(max_iterations >= 1, "max_iterations must be >= 1, got " << max_iterations);
    ZN_EXPECTS(std::isfinite(support_threshold) && support_threshold >= 0,
               "support_threshold must be finite and >= 0, got " << support_threshold);
    ZN_EXPECTS(gap_tolerance > 0 && gap_tolerance < 1,
               "gap_tolerance must be in (0, 1), got " << gap_tolerance);
    ZN_EXPECTS(max_inner_iterations >= 1,
               "max_inner_iterations must be >= 1, got " << max_inner_iterations);
    lp.validate();
}

IndexVector ranked_support(const Vector& w, double threshold) {
    IndexVector support;
    for (const Index j : detail::order_descending(w.cwiseAbs()))
        if (std::abs(w[j]) > threshold) support.push_back(j);
    return support;
}

namespace {

void check_input(const Matrix& X, const Vector& y, const DcOptions& options, const char* who) {
    options.validate();
    ZN_EXPECTS_DIM(y.size() == X.rows(), who << ": y has " << y.size() << " labels but X has "
                                             << X.rows() << " rows");
    ZN_EXPECTS(X.cols() >= 1, who << ": need at least one feature");
    check_two_class_labels(y, who);
    for (Index j = 0; j < X.cols(); ++j)
        for (Index i = 0; i < X.rows(); ++i)
            ZN_EXPECTS(std::isfinite(X(i, j)),
                       who << ": X(" << i << ", " << j << ") = " << X(i, j) << " is not finite");
}

// The concave surrogate sum_j (1 - e^{-alpha |w_j|}) of |w|_0 (eq. (5)).
double concave_penalty(const Vector& w, double alpha) {
    return (1.0 - (-alpha * w.cwiseAbs().array()).exp()).sum();
}

// Its gradient alpha e^{-alpha v}: the per-feature costs of the linearised step (sec. 4.2).
Vector linearised_costs(const Vector& v, double alpha, double weight) {
    return (weight * alpha * (-alpha * v.array()).exp()).matrix();
}

// max_j min(|v'_j - v_j|, |v'_j - v_j| / |v_j|): at most tol ends Algorithm 4.1.
double v_change(const Vector& v_new, const Vector& v_old) {
    double worst = 0.0;
    for (Index j = 0; j < v_new.size(); ++j) {
        const double diff = std::abs(v_new[j] - v_old[j]);
        const double rel = v_old[j] != 0.0 ? diff / std::abs(v_old[j]) : diff;
        worst = std::max(worst, std::min(diff, rel));
    }
    return worst;
}

void finish(DcResult& r, const DcOptions& options) {
    if (r.w.size() > 0) r.selected = ranked_support(r.w, options.support_threshold);
}

Index count_nonzeros(const Vector& w, double threshold) {
    return Index((w.cwiseAbs().array() > threshold).count());
}

enum class StepOutcome {
    Failed,      // the inner solver failed; r.status and r.message say why
    Moved,       // a new iterate
    Stationary,  // no descent of the convex model: the SLA's stop (Algorithm 4.2)
};

// The DCA of Algorithm 4.1 with a differentiable h, shared by FSV and the l2-l0-SVM: from
// v^0 = e, `step(v)` solves the convex subproblem at v (filling w, b and its inner count) and
// `objective(w, b)` evaluates the non-convex objective; v^{k+1} = |w^{k+1}|.
template <class Step, class Objective>
void run_dca(DcResult& r, Index d, const DcOptions& options, Step step, Objective objective) {
    Vector v = Vector::Ones(d);
    r.status = Status::NoConvergence;
    for (std::int64_t k = 0; k < options.max_iterations; ++k) {
        const StepOutcome outcome = step(v);
        if (outcome == StepOutcome::Failed) return;
        ++r.iterations;
        const Vector v_next = r.w.cwiseAbs();
        DcIteration it;
        it.objective = r.objective = objective(r.w, r.b);
        it.nonzeros = count_nonzeros(r.w, options.support_threshold);
        it.v_change = v_change(v_next, v);
        r.trace.push_back(it);
        v = v_next;
        if (it.v_change <= options.tolerance || outcome == StepOutcome::Stationary) {
            r.status = Status::Success;
            return;
        }
    }
    std::ostringstream os;
    os << "DCA stopped at max_iterations = " << options.max_iterations << " with v changing by "
       << r.trace.back().v_change;
    r.message = os.str();
}

}  // namespace

// Smallest relative decrease of the FSV LP that counts as a move (its tolerances are 1e-7).
constexpr double kLpDescent = 1e-8;

DcResult train_fsv(const Matrix& X, const Vector& y, const DcOptions& options) {
    const Stopwatch stopwatch;
    check_input(X, y, options, "FSV");
    const Index n = X.rows(), d = X.cols();
    // Sample weights s_i of the loss: 1/n (mean) or 1/n_{y_i} (sum of the class means).
    Vector s = Vector::Constant(n, 1.0 / double(n));
    if (options.fsv_loss == FsvLoss::ClassMean) {
        const double n_plus = double((y.array() > 0).count());
        for (Index i = 0; i < n; ++i) s[i] = 1.0 / (y[i] > 0 ? n_plus : double(n) - n_plus);
    }
    L1SvmOptions lp;
    lp.C = 1.0 - options.lambda;
    lp.sample_weights = s;
    lp.lp = options.lp;

    DcResult r;
    // The LP's objective at (w, b, v = |w|): the linearisation of eq. (6) at the current v.
    const auto lp_objective = [&](const Vector& w, double b) {
        const Vector margin = 1.0 - y.array() * ((X * w).array() + b);
        return lp.C * s.dot(margin.cwiseMax(0.0)) + lp.feature_costs.dot(w.cwiseAbs());
    };
    const auto step = [&](const Vector& v) {
        lp.feature_costs = linearised_costs(v, options.alpha, options.lambda);
        const LpSvmResult sol = train_l1_svm(X, y, lp);
        r.inner_iterations += sol.iterations;
        if (!sol.optimal()) {
            r.status = sol.status;
            r.message = "FSV: the linearised LP failed: " + sol.message;
            return StepOutcome::Failed;
        }
        // Degenerate LPs have several optimal vertices, and the DCA may cycle among them with
        // v changing by O(1): so also stop, as the SLA does, when the new vertex does not
        // improve the LP over the previous iterate (feasible for it) beyond the LP's accuracy.
        const bool stationary =
            r.iterations > 0 &&
            lp_objective(sol.w, sol.b) >= lp_objective(r.w, r.b) - kLpDescent *
                                                                      (1.0 + std::abs(sol.objective));
        r.w = sol.w;
        r.b = sol.b;
        return stationary ? StepOutcome::Stationary : StepOutcome::Moved;
    };
    const auto objective = [&](const Vector& w, double b) {
        const Vector margin = 1.0 - y.array() * ((X * w).array() + b);
        return (1.0 - options.lambda) * s.dot(margin.cwiseMax(0.0)) +
               options.lambda * concave_penalty(w, options.alpha);
    };
    run_dca(r, d, options, step, objective);
    finish(r, options);
    r.seconds = stopwatch.seconds();
    return r;
}

namespace {

// One l2-l1 solve on (X, y) with C = mu/n, per-feature costs and a warm start (beta, updated).
bool solve_l2_l1_step(const Matrix& X, const Vector& y, const DcOptions& options,
                      const Vector& costs, Vector& beta, DcResult& r) {
    // (Returns true when solved; the l2-l0 steps are strictly convex in w, so they cannot cycle.)
    const Vector C = Vector::Constant(1, options.mu / double(X.rows()));
    const L2L1BatchResult sol = solve_l2_l1_svm_batch(
        X, y, C, costs, beta.size() > 0 ? Matrix(beta) : Matrix(), options.gap_tolerance,
        options.max_inner_iterations);
    r.inner_iterations += sol.iterations[0];
    beta = sol.beta.col(0);
    r.w = sol.w.col(0);
    r.b = sol.b[0];
    if (sol.status[0] != Status::Success) {
        std::ostringstream os;
        os << "l2-l1 dual: relative duality gap " << (sol.primal[0] - sol.dual[0]) / sol.primal[0]
           << " above " << options.gap_tolerance << " after " << sol.iterations[0] << " steps";
        r.status = Status::NumericalIssue;
        r.message = os.str();
        return false;
    }
    return true;
}

double mean_hinge_term(const Matrix& X, const Vector& y, double mu, const Vector& w, double b) {
    return mu / double(X.rows()) *
           (1.0 - y.array() * ((X * w).array() + b)).max(0.0).sum();
}

}  // namespace

DcResult train_l2_l1_svm(const Matrix& X, const Vector& y, const DcOptions& options) {
    const Stopwatch stopwatch;
    check_input(X, y, options, "l2-l1-SVM");
    DcResult r;
    Vector beta;
    const Vector costs = Vector::Constant(X.cols(), options.nu);
    if (solve_l2_l1_step(X, y, options, costs, beta, r)) {
        r.status = Status::Success;
        r.iterations = 1;
        r.objective = mean_hinge_term(X, y, options.mu, r.w, r.b) + 0.5 * r.w.squaredNorm() +
                      options.nu * r.w.lpNorm<1>();
        r.trace.push_back({r.objective, count_nonzeros(r.w, options.support_threshold), 0.0});
    }
    finish(r, options);
    r.seconds = stopwatch.seconds();
    return r;
}

DcResult train_l2_l0_svm(const Matrix& X, const Vector& y, const DcOptions& options) {
    const Stopwatch stopwatch;
    check_input(X, y, options, "l2-l0-SVM");
    DcResult r;
    Vector beta;  // each step starts from the previous step's dual solution
    const auto step = [&](const Vector& v) {
        return solve_l2_l1_step(X, y, options, linearised_costs(v, options.alpha, options.nu),
                                beta, r)
                   ? StepOutcome::Moved
                   : StepOutcome::Failed;
    };
    const auto objective = [&](const Vector& w, double b) {
        return mean_hinge_term(X, y, options.mu, w, b) + 0.5 * w.squaredNorm() +
               options.nu * concave_penalty(w, options.alpha);
    };
    run_dca(r, X.cols(), options, step, objective);
    finish(r, options);
    r.seconds = stopwatch.seconds();
    return r;
}

}  // namespace zeronorm
