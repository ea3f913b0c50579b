// FSV, the l2-l1-SVM and the l2-l0-SVM (Neumann, Schnoerr & Steidl 2005, eq. (6)-(8), sec. 4);
// the problems are written out in include/zeronorm/methods/dc_svm.hpp.
#include "zeronorm/methods/dc_svm.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

#include "core/stopwatch.hpp"
#include "methods/selection_common.hpp"
#include "solvers/labels.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/solvers/lp.hpp"
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
    ZN_EXPECTS(quadratic_max_monomials >= 1,
               "quadratic_max_monomials must be >= 1, got " << quadratic_max_monomials);
    lp.validate();
    quadratic_lp.validate();
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

// The concave surrogate sum_j (1 - e^{-alpha |w_j|}) of |w|_0 (eq. (5)). Its terms at w_j = 0
// are 0, and most of w is 0 (microarray data: thousands of genes, a few dozen kept), so only
// the nonzeros take an exponential.
double concave_penalty(const Vector& w, double alpha) {
    double sum = 0.0;
    for (Index j = 0; j < w.size(); ++j)
        if (w[j] != 0.0) sum += 1.0 - std::exp(-alpha * std::abs(w[j]));
    return sum;
}

// Its gradient alpha e^{-alpha v}: the per-feature costs of the linearised step (sec. 4.2);
// weight alpha where v_j = 0, as above.
Vector linearised_costs(const Vector& v, double alpha, double weight) {
    Vector costs(v.size());
    for (Index j = 0; j < v.size(); ++j)
        costs[j] = v[j] != 0.0 ? weight * alpha * std::exp(-alpha * v[j]) : weight * alpha;
    return costs;
}

// X w from the nonzero entries of w only (most of them are 0: see concave_penalty).
Vector sparse_product(const Matrix& X, const Vector& w) {
    Vector f = Vector::Zero(X.rows());
    for (Index j = 0; j < w.size(); ++j)
        if (w[j] != 0.0) f += w[j] * X.col(j);
    return f;
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

// The DCA of Algorithm 4.1 with a differentiable h, shared by FSV and the l2-l0-SVM, for P
// problems on one data set advancing together: from v^0 = e, `step(active, V)` solves the convex
// subproblem of every problem p in `active` at v = V.col(p) (filling rs[p].w, .b and its inner
// count) and returns one outcome per entry of `active`; `objective(p, w, b)` evaluates problem
// p's non-convex objective; v^{k+1} = |w^{k+1}|. A problem leaves the batch when it stops.
// `v_of(w)` gives v from w (|w| by default; quadratic FSV: the largest |w_i| per feature).
template <class Step, class Objective, class VOf>
void run_dca(std::vector<DcResult>& rs, Index d, const DcOptions& options, Step step,
             Objective objective, VOf v_of) {
    Matrix V = Matrix::Ones(d, Index(rs.size()));
    std::vector<std::size_t> active;
    for (std::size_t p = 0; p < rs.size(); ++p) {
        rs[p].status = Status::NoConvergence;
        active.push_back(p);
    }
    for (std::int64_t k = 0; k < options.max_iterations && !active.empty(); ++k) {
        const std::vector<StepOutcome> outcomes = step(active, V);
        std::vector<std::size_t> running;
        for (std::size_t a = 0; a < active.size(); ++a) {
            const std::size_t p = active[a];
            DcResult& r = rs[p];
            if (outcomes[a] == StepOutcome::Failed) continue;
            ++r.iterations;
            const Vector v_next = v_of(r.w);
            DcIteration it;
            it.objective = r.objective = objective(p, r.w, r.b);
            it.nonzeros = count_nonzeros(v_next, options.support_threshold);
            it.v_change = v_change(v_next, V.col(Index(p)));
            r.trace.push_back(it);
            V.col(Index(p)) = v_next;
            if (it.v_change <= options.tolerance || outcomes[a] == StepOutcome::Stationary)
                r.status = Status::Success;
            else
                running.push_back(p);
        }
        active = std::move(running);
    }
    for (const std::size_t p : active) {
        std::ostringstream os;
        os << "DCA stopped at max_iterations = " << options.max_iterations
           << " with v changing by " << rs[p].trace.back().v_change;
        rs[p].message = os.str();
    }
}

template <class Step, class Objective>
void run_dca(std::vector<DcResult>& rs, Index d, const DcOptions& options, Step step,
             Objective objective) {
    run_dca(rs, d, options, step, objective, [](const Vector& w) { return Vector(w.cwiseAbs()); });
}

// The options of grid point p (validated, so a bad value names its field).
DcOptions point_options(const DcOptions& options, double lambda, double mu, double nu) {
    DcOptions o = options;
    o.lambda = lambda;
    o.mu = mu;
    o.nu = nu;
    o.validate();
    return o;
}

void check_fsv_input(const Matrix& X, const Vector& y, const std::vector<double>& lambdas,
                     const DcOptions& options, const char* who) {
    check_input(X, y, options, who);
    for (const double lambda : lambdas) point_options(options, lambda, options.mu, options.nu);
}

void finish_all(std::vector<DcResult>& rs, const DcOptions& options, double seconds) {
    for (DcResult& r : rs) {
        finish(r, options);
        r.seconds = seconds;
    }
}

}  // namespace

namespace {

// Starting bases for the LPs of a grid whose constraints never change (only the costs move,
// along each DCA and across the grid): problem p's own last optimal basis, else the last one
// any problem found.
class LpBases {
public:
    explicit LpBases(std::size_t problems) : own_(problems) {}
    const LpBasis& start(std::size_t p) const { return own_[p].empty() ? last_ : own_[p]; }
    void keep(std::size_t p, const LpBasis& basis) {
        if (!basis.empty()) own_[p] = last_ = basis;
    }

private:
    std::vector<LpBasis> own_;
    LpBasis last_;
};

}  // namespace

// Smallest relative decrease of the FSV LP that counts as a move (its tolerances are 1e-7).
constexpr double kLpDescent = 1e-8;

// The linearised costs of an LP step, with those the LP cannot tell from zero set to zero: a
// feature whose v grew large gets alpha e^{-alpha v} far below the simplex's dual (reduced-cost)
// tolerance (2e-27 after one step is common), which leaves its columns numerically free; CLP
// then wanders along them (|w| ~ 1e17) and stops at a point it calls optimal whose objective is
// many orders above the current iterate's. Relative to the largest cost of the LP (the hinge's
// `loss_cost` or a feature's), the change to the LP is below its own accuracy.
Vector lp_feature_costs(const Vector& v, double alpha, double lambda, double loss_cost,
                        const LpOptions& lp) {
    Vector costs = linearised_costs(v, alpha, lambda);
    const double floor = lp.dual_tolerance * std::max(loss_cost, costs.maxCoeff());
    for (Index j = 0; j < costs.size(); ++j)
        if (costs[j] < floor) costs[j] = 0.0;
    return costs;
}

// How an LP step of the DCA ends, from the convex model (the LP's objective, linearised at the
// current iterate) at the LP's point and at the current iterate, which is feasible for the LP:
// no descent beyond the LP's accuracy stops the DCA (the SLA's rule), and a point worse than
// the current iterate (an inaccurate solve) is not taken, so the objective never increases
// (DCA: f(x_{k+1}) <= model_k(x_{k+1}) <= model_k(x_k) = f(x_k)).
struct LpStepJudgement {
    bool take = true;
    bool stationary = false;
};
LpStepJudgement judge_lp_step(bool first, double model_new, double model_current,
                              double lp_objective) {
    LpStepJudgement j;
    if (first) return j;
    const double accuracy = kLpDescent * (1.0 + std::abs(lp_objective));
    j.stationary = model_new >= model_current - accuracy;
    j.take = model_new <= model_current + accuracy;
    return j;
}

std::vector<DcResult> train_fsv_grid(const Matrix& X, const Vector& y,
                                     const std::vector<double>& lambdas,
                                     const DcOptions& options) {
    const Stopwatch stopwatch;
    check_fsv_input(X, y, lambdas, options, "FSV");
    const Index n = X.rows(), d = X.cols();
    // Sample weights s_i of the loss: 1/n (mean) or 1/n_{y_i} (sum of the class means).
    Vector s = Vector::Constant(n, 1.0 / double(n));
    if (options.fsv_loss == FsvLoss::ClassMean) {
        const double n_plus = double((y.array() > 0).count());
        for (Index i = 0; i < n; ++i) s[i] = 1.0 / (y[i] > 0 ? n_plus : double(n) - n_plus);
    }
    std::vector<L1SvmOptions> lps(lambdas.size());
    for (std::size_t p = 0; p < lambdas.size(); ++p) {
        lps[p].C = 1.0 - lambdas[p];
        lps[p].sample_weights = s;
        lps[p].lp = options.lp;
    }

    std::vector<DcResult> rs(lambdas.size());
    // Problem p's LP objective at (w, b, v = |w|): the linearisation of eq. (6) at its current v.
    const auto lp_objective = [&](std::size_t p, const Vector& w, double b) {
        const Vector margin = 1.0 - y.array() * ((X * w).array() + b);
        return lps[p].C * s.dot(margin.cwiseMax(0.0)) + lps[p].feature_costs.dot(w.cwiseAbs());
    };
    // One vertex LP per problem (the LP layer solves one at a time), each from an optimal basis.
    LpBases bases(lambdas.size());
    const auto step = [&](const std::vector<std::size_t>& active, const Matrix& V) {
        std::vector<StepOutcome> outcomes;
        for (const std::size_t p : active) {
            DcResult& r = rs[p];
            lps[p].feature_costs = lp_feature_costs(V.col(Index(p)), options.alpha, lambdas[p],
                                                    lps[p].C * s.maxCoeff(), options.lp);
            lps[p].start = bases.start(p);
            const LpSvmResult sol = train_l1_svm(X, y, lps[p]);
            bases.keep(p, sol.basis);
            r.inner_iterations += sol.iterations;
            if (!sol.optimal()) {
                r.status = sol.status;
                r.message = "FSV: the linearised LP failed: " + sol.message;
                outcomes.push_back(StepOutcome::Failed);
                continue;
            }
            // Degenerate LPs have several optimal vertices, and the DCA may cycle among them
            // with v changing by O(1): so also stop, as the SLA does, when the new vertex does
            // not improve the LP over the previous iterate (feasible for it) beyond the LP's
            // accuracy.
            const LpStepJudgement judged =
                judge_lp_step(r.iterations == 0, lp_objective(p, sol.w, sol.b),
                              r.iterations == 0 ? 0.0 : lp_objective(p, r.w, r.b), sol.objective);
            if (judged.take) {
                r.w = sol.w;
                r.b = sol.b;
            }
            outcomes.push_back(judged.stationary ? StepOutcome::Stationary : StepOutcome::Moved);
        }
        return outcomes;
    };
    const auto objective = [&](std::size_t p, const Vector& w, double b) {
        const Vector margin = 1.0 - y.array() * ((X * w).array() + b);
        return (1.0 - lambdas[p]) * s.dot(margin.cwiseMax(0.0)) +
               lambdas[p] * concave_penalty(w, options.alpha);
    };
    run_dca(rs, d, options, step, objective);
    finish_all(rs, options, stopwatch.seconds());
    return rs;
}

DcResult train_fsv(const Matrix& X, const Vector& y, const DcOptions& options) {
    return train_fsv_grid(X, y, {options.lambda}, options).front();
}

// ---- quadratic FSV (eq. (9), sec. 4.2.3) ------------------------------------------------------

namespace {

// The monomials of the quadratic map, in the column order of quadratic_features: x_j (second
// index -1), then x_j x_k for j <= k.
std::vector<std::pair<Index, Index>> quadratic_monomials(Index d) {
    std::vector<std::pair<Index, Index>> m;
    for (Index j = 0; j < d; ++j) m.emplace_back(j, -1);
    for (Index j = 0; j < d; ++j)
        for (Index k = j; k < d; ++k) m.emplace_back(j, k);
    return m;
}

// v_j = max |w_i| over the monomials i containing feature j: the smallest v feasible for w.
Vector feature_bounds(const Vector& w, Index d) {
    Vector v = Vector::Zero(d);
    const auto monomials = quadratic_monomials(d);
    for (std::size_t i = 0; i < monomials.size(); ++i) {
        const auto [j, k] = monomials[i];
        v[j] = std::max(v[j], std::abs(w[Index(i)]));
        if (k >= 0) v[k] = std::max(v[k], std::abs(w[Index(i)]));
    }
    return v;
}

}  // namespace

Matrix quadratic_features(const Matrix& X) {
    const auto monomials = quadratic_monomials(X.cols());
    Matrix Phi(X.rows(), Index(monomials.size()));
    for (std::size_t i = 0; i < monomials.size(); ++i) {
        const auto [j, k] = monomials[i];
        Phi.col(Index(i)) = k < 0 ? Vector(X.col(j)) : Vector(X.col(j).cwiseProduct(X.col(k)));
    }
    return Phi;
}

std::vector<DcResult> train_quadratic_fsv_grid(const Matrix& X, const Vector& y,
                                               const std::vector<double>& lambdas,
                                               const DcOptions& options) {
    const Stopwatch stopwatch;
    check_fsv_input(X, y, lambdas, options, "quadratic FSV");
    const Index n = X.rows(), d = X.cols(), m = d * (d + 3) / 2;
    ZN_EXPECTS(m <= options.quadratic_max_monomials,
               "quadratic FSV: " << d << " features give " << m
                                 << " quadratic monomials, an LP of " << n + 2 * d * (d + 1)
                                 << " rows and " << m + 1 + n + d
                                 << " columns; the limit is quadratic_max_monomials = "
                                 << options.quadratic_max_monomials
                                 << " (select fewer features first)");
    const Matrix Phi = quadratic_features(X);
    const auto monomials = quadratic_monomials(d);
    // Columns: w (m, free), b (free), xi (n, >= 0), v (d, >= 0). Rows: the n margins
    // y_i (w.phi_i + b) + xi_i >= 1, then per monomial i and feature j in it w_i - v_j <= 0 and
    // w_i + v_j >= 0.
    const Index b_col = m, xi0 = m + 1, v0 = m + 1 + n;
    std::vector<Eigen::Triplet<double>> entries;
    for (Index i = 0; i < n; ++i) {
        for (Index c = 0; c < m; ++c)
            if (Phi(i, c) != 0.0) entries.emplace_back(int(i), int(c), y[i] * Phi(i, c));
        entries.emplace_back(int(i), int(b_col), y[i]);
        entries.emplace_back(int(i), int(xi0 + i), 1.0);
    }
    Index row = n;
    for (std::size_t i = 0; i < monomials.size(); ++i)
        for (const Index j : {monomials[i].first, monomials[i].second}) {
            if (j < 0) continue;
            for (const double sign : {-1.0, 1.0}) {
                entries.emplace_back(int(row), int(i), 1.0);
                entries.emplace_back(int(row), int(v0 + j), sign);
                ++row;
            }
            if (monomials[i].first == monomials[i].second) break;  // x_j^2: feature j once
        }
    LinearProgram lp;
    lp.A.resize(row, v0 + d);
    lp.A.setFromTriplets(entries.begin(), entries.end());
    lp.row_lower = Vector::Constant(row, 0.0);
    lp.row_upper = Vector::Constant(row, lp_infinity);
    lp.row_lower.head(n).setOnes();
    for (Index r = n; r < row; r += 2) {  // w_i - v_j <= 0, then w_i + v_j >= 0
        lp.row_lower[r] = -lp_infinity;
        lp.row_upper[r] = 0.0;
    }
    lp.col_lower = Vector::Zero(v0 + d);
    lp.col_lower.head(m + 1).setConstant(-lp_infinity);
    lp.col_upper = Vector::Constant(v0 + d, lp_infinity);

    std::vector<DcResult> rs(lambdas.size());
    std::vector<Vector> costs(lambdas.size());
    LpBases bases(lambdas.size());  // every LP of the grid starts from an optimal basis
    const auto hinge_mean = [&](const Vector& w, double b) {
        return (1.0 - y.array() * ((Phi * w).array() + b)).max(0.0).sum() / double(n);
    };
    const auto lp_objective = [&](std::size_t p, const Vector& w, double b) {
        return (1.0 - lambdas[p]) * hinge_mean(w, b) + costs[p].dot(feature_bounds(w, d));
    };
    const auto step = [&](const std::vector<std::size_t>& active, const Matrix& V) {
        std::vector<StepOutcome> outcomes;
        for (const std::size_t p : active) {
            DcResult& r = rs[p];
            costs[p] = lp_feature_costs(V.col(Index(p)), options.alpha, lambdas[p],
                                        (1.0 - lambdas[p]) / double(n), options.quadratic_lp);
            lp.c = Vector::Zero(v0 + d);
            lp.c.segment(xi0, n).setConstant((1.0 - lambdas[p]) / double(n));
            lp.c.tail(d) = costs[p];
            const LpResult sol = solve_lp(lp, options.quadratic_lp, bases.start(p));
            r.inner_iterations += sol.iterations;
            bases.keep(p, sol.basis);
            if (!sol.optimal()) {
                r.status = sol.status;
                r.message = "quadratic FSV: the linearised LP failed: " + sol.message;
                outcomes.push_back(StepOutcome::Failed);
                continue;
            }
            const Vector w = sol.x.head(m);
            const double b = sol.x[b_col];
            const LpStepJudgement judged =
                judge_lp_step(r.iterations == 0, lp_objective(p, w, b),
                              r.iterations == 0 ? 0.0 : lp_objective(p, r.w, r.b), sol.objective);
            if (judged.take) {
                r.w = w;
                r.b = b;
            }
            outcomes.push_back(judged.stationary ? StepOutcome::Stationary : StepOutcome::Moved);
        }
        return outcomes;
    };
    const auto objective = [&](std::size_t p, const Vector& w, double b) {
        return (1.0 - lambdas[p]) * hinge_mean(w, b) +
               lambdas[p] * concave_penalty(feature_bounds(w, d), options.alpha);
    };
    run_dca(rs, d, options, step, objective, [d](const Vector& w) { return feature_bounds(w, d); });
    for (DcResult& r : rs) {
        if (r.w.size() > 0) {
            r.feature_bounds = feature_bounds(r.w, d);
            r.selected = ranked_support(r.feature_bounds, options.support_threshold);
        }
        r.seconds = stopwatch.seconds();
    }
    return rs;
}

DcResult train_quadratic_fsv(const Matrix& X, const Vector& y, const DcOptions& options) {
    return train_quadratic_fsv_grid(X, y, {options.lambda}, options).front();
}

namespace {

// One batched l2-l1 solve on (X, y) of the problems `which` (C = mu/n, per-feature costs, one
// column per problem, warm starts `beta`, n x |which|, or empty), through `backend` when given
// (else the host solver); fills their w, b, inner counts and, on failure, status and message.
// Returns the solutions' duals and per-problem success.
std::vector<bool> solve_l2_l1_steps(Backend* backend, const Matrix& X, const Vector& y,
                                    const DcOptions& options,
                                    const std::vector<std::size_t>& which, const Vector& C,
                                    const Matrix& costs, Matrix& beta, std::vector<DcResult>& rs) {
    const L2L1BatchResult sol =
        backend != nullptr
            ? solve_l2_l1_svm_batch(*backend, X, y, C, costs, beta, options.gap_tolerance,
                                    options.max_inner_iterations)
            : solve_l2_l1_svm_batch(X, y, C, costs, beta, options.gap_tolerance,
                                    options.max_inner_iterations);
    beta = sol.beta;
    std::vector<bool> solved;
    for (std::size_t a = 0; a < which.size(); ++a) {
        DcResult& r = rs[which[a]];
        const Index q = Index(a);
        r.inner_iterations += sol.iterations[a];
        r.w = sol.w.col(q);
        r.b = sol.b[q];
        solved.push_back(sol.status[a] == Status::Success);
        if (!solved.back()) {
            std::ostringstream os;
            os << "l2-l1 dual: relative duality gap " << (sol.primal[q] - sol.dual[q]) / sol.primal[q]
               << " above " << options.gap_tolerance << " after " << sol.iterations[a]
               << " steps";
            r.status = Status::NumericalIssue;
            r.message = os.str();
        }
    }
    return solved;
}

double mean_hinge_term(const Matrix& X, const Vector& y, double mu, const Vector& w, double b) {
    return mu / double(X.rows()) *
           (1.0 - y.array() * (sparse_product(X, w).array() + b)).max(0.0).sum();
}

void check_pairs(const std::vector<double>& mu, const std::vector<double>& nu,
                 const DcOptions& options) {
    ZN_EXPECTS_DIM(mu.size() == nu.size(), "the grid has " << mu.size() << " values of mu but "
                                                           << nu.size() << " of nu");
    for (std::size_t p = 0; p < mu.size(); ++p) point_options(options, options.lambda, mu[p], nu[p]);
}

std::vector<DcResult> l2_l1_grid(Backend* backend, const Matrix& X, const Vector& y,
                                 const std::vector<double>& mu, const std::vector<double>& nu,
                                 const DcOptions& options) {
    const Stopwatch stopwatch;
    check_input(X, y, options, "l2-l1-SVM");
    check_pairs(mu, nu, options);
    const Index n = X.rows(), d = X.cols();
    std::vector<DcResult> rs(mu.size());
    // Stages of equal mu, increasing: a solution for a smaller box 0 <= beta <= mu/n stays
    // feasible for a larger one, so each stage starts from the previous stage's duals (at the
    // nearest ln nu); each stage is one batch.
    std::vector<std::size_t> order(mu.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return mu[a] < mu[b]; });
    std::vector<std::size_t> previous;
    Matrix previous_beta;
    for (std::size_t first = 0; first < order.size();) {
        std::size_t last = first;
        while (last < order.size() && mu[order[last]] == mu[order[first]]) ++last;
        const std::vector<std::size_t> stage(order.begin() + std::ptrdiff_t(first),
                                             order.begin() + std::ptrdiff_t(last));
        const Index P = Index(stage.size());
        Vector C(P);
        Matrix costs(d, P);
        Matrix beta = previous.empty() ? Matrix() : Matrix(n, P);
        for (Index q = 0; q < P; ++q) {
            const std::size_t p = stage[std::size_t(q)];
            C[q] = mu[p] / double(n);
            costs.col(q).setConstant(nu[p]);
            if (previous.empty()) continue;
            Index nearest = 0;  // the previous stage's problem with the closest nu
            for (Index r = 1; r < Index(previous.size()); ++r)
                if (std::abs(nu[previous[std::size_t(r)]] - nu[p]) <
                    std::abs(nu[previous[std::size_t(nearest)]] - nu[p]))
                    nearest = r;
            beta.col(q) = previous_beta.col(nearest);
        }
        const std::vector<bool> solved =
            solve_l2_l1_steps(backend, X, y, options, stage, C, costs, beta, rs);
        for (Index q = 0; q < P; ++q) {
            const std::size_t p = stage[std::size_t(q)];
            DcResult& r = rs[p];
            if (!solved[std::size_t(q)]) continue;
            r.status = Status::Success;
            r.iterations = 1;
            r.objective = mean_hinge_term(X, y, mu[p], r.w, r.b) + 0.5 * r.w.squaredNorm() +
                          nu[p] * r.w.lpNorm<1>();
            r.trace.push_back({r.objective, count_nonzeros(r.w, options.support_threshold), 0.0});
        }
        previous = stage;
        previous_beta = beta;
        first = last;
    }
    finish_all(rs, options, stopwatch.seconds());
    return rs;
}

std::vector<DcResult> l2_l0_grid(Backend* backend, const Matrix& X, const Vector& y,
                                 const std::vector<double>& mu, const std::vector<double>& nu,
                                 const DcOptions& options) {
    const Stopwatch stopwatch;
    check_input(X, y, options, "l2-l0-SVM");
    check_pairs(mu, nu, options);
    const Index n = X.rows(), d = X.cols();
    std::vector<DcResult> rs(mu.size());
    Matrix betas = Matrix::Zero(n, Index(mu.size()));  // each problem's last dual solution
    // Every DCA step of the problems still running is one batch, each warm-started from its own
    // previous step.
    const auto step = [&](const std::vector<std::size_t>& active, const Matrix& V) {
        const Index P = Index(active.size());
        Vector C(P);
        Matrix costs(d, P), beta(n, P);
        for (Index q = 0; q < P; ++q) {
            const std::size_t p = active[std::size_t(q)];
            C[q] = mu[p] / double(n);
            costs.col(q) = linearised_costs(V.col(Index(p)), options.alpha, nu[p]);
            beta.col(q) = betas.col(Index(p));
        }
        const std::vector<bool> solved =
            solve_l2_l1_steps(backend, X, y, options, active, C, costs, beta, rs);
        std::vector<StepOutcome> outcomes;
        for (Index q = 0; q < P; ++q) {
            betas.col(Index(active[std::size_t(q)])) = beta.col(q);
            outcomes.push_back(solved[std::size_t(q)] ? StepOutcome::Moved : StepOutcome::Failed);
        }
        return outcomes;
    };
    const auto objective = [&](std::size_t p, const Vector& w, double b) {
        return mean_hinge_term(X, y, mu[p], w, b) + 0.5 * w.squaredNorm() +
               nu[p] * concave_penalty(w, options.alpha);
    };
    run_dca(rs, d, options, step, objective);
    finish_all(rs, options, stopwatch.seconds());
    return rs;
}

}  // namespace

std::vector<DcResult> train_l2_l1_svm_grid(const Matrix& X, const Vector& y,
                                           const std::vector<double>& mu,
                                           const std::vector<double>& nu,
                                           const DcOptions& options) {
    return l2_l1_grid(nullptr, X, y, mu, nu, options);
}

std::vector<DcResult> train_l2_l1_svm_grid(Backend& backend, const Matrix& X, const Vector& y,
                                           const std::vector<double>& mu,
                                           const std::vector<double>& nu,
                                           const DcOptions& options) {
    return l2_l1_grid(&backend, X, y, mu, nu, options);
}

std::vector<DcResult> train_l2_l0_svm_grid(const Matrix& X, const Vector& y,
                                           const std::vector<double>& mu,
                                           const std::vector<double>& nu,
                                           const DcOptions& options) {
    return l2_l0_grid(nullptr, X, y, mu, nu, options);
}

std::vector<DcResult> train_l2_l0_svm_grid(Backend& backend, const Matrix& X, const Vector& y,
                                           const std::vector<double>& mu,
                                           const std::vector<double>& nu,
                                           const DcOptions& options) {
    return l2_l0_grid(&backend, X, y, mu, nu, options);
}

DcResult train_l2_l1_svm(const Matrix& X, const Vector& y, const DcOptions& options) {
    return train_l2_l1_svm_grid(X, y, {options.mu}, {options.nu}, options).front();
}

DcResult train_l2_l0_svm(const Matrix& X, const Vector& y, const DcOptions& options) {
    return train_l2_l0_svm_grid(X, y, {options.mu}, {options.nu}, options).front();
}

}  // namespace zeronorm
