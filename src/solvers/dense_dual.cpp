#include "solvers/dense_dual.hpp"

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/thread_pool.hpp"
#include "solvers/smo_common.hpp"

namespace zeronorm::detail {
namespace {

// The Newton finish is tried after SMO reaches each of these KKT gaps in turn (the first is often
// enough: the active-set rounds repair a free set that is nearly right); n above kMaxNewtonSize
// would make the dense factorisation cost more than the SMO iterations it saves.
constexpr double kCoarseTolerances[] = {1e-1, 1e-3};
constexpr Index kMaxNewtonSize = 1000;

// The relative residual above which active_set_solve takes its bordered system as inconsistent.
constexpr double kInconsistentResidual = 1e-9;

// Which bound each variable sits at, or free.
enum class Side : char { Lower, Free, Upper };

// Q = y y' .* (K + ridge I): the Hessian of the dual.
Matrix dual_hessian(const Eigen::Ref<const Matrix>& K, const Vector& y, double ridge) {
    Matrix Q = y.asDiagonal() * K * y.asDiagonal();
    Q.diagonal().array() += ridge;
    return Q;
}

// The gradient Q beta + p of 1/2 beta'Q beta + p'beta (p empty: -1).
Vector dual_gradient(const Matrix& Q, const Vector& beta, const Vector& p) {
    return p.size() == 0 ? Vector(Q * beta - Vector::Ones(beta.size())) : Vector(Q * beta + p);
}

}  // namespace

// Solve the system of the current free set; variables that leave the box go to the bound they
// crossed, bounded variables whose multiplier has the wrong sign become free, and the system is
// solved again (a few active-set rounds). Nothing when the free set empties, the system is
// singular, or no round meets the tolerance: the caller then finishes with SMO.
std::optional<SmoResult> newton_finish(const Eigen::Ref<const Matrix>& K, const Vector& y,
                                       const SmoOptions& options, const Vector& coarse_beta,
                                       const SmoTerms& terms) {
    const Index n = y.size();
    const double C = options.C;
    std::vector<Side> side(std::size_t(n), Side::Lower);
    for (Index i = 0; i < n; ++i)
        side[std::size_t(i)] = coarse_beta[i] >= C ? Side::Upper
                               : coarse_beta[i] > 0 ? Side::Free : Side::Lower;
    const Matrix Q = dual_hessian(K, y, options.ridge);

    // Each round solves for the step from `base` (the coarse point, clipped to the box): where
    // Q_FF is singular (fewer features than free variables) the system has many solutions, and
    // the one nearest the SMO point is the one likely to stay inside the box.
    const Vector base = coarse_beta.cwiseMax(0.0).cwiseMin(C);
    for (int round = 0; round < kNewtonRounds; ++round) {
        IndexVector free;
        Vector beta = Vector::Zero(n);
        for (Index i = 0; i < n; ++i) {
            if (side[std::size_t(i)] == Side::Free) {
                free.push_back(i);
                beta[i] = base[i];
            }
            if (side[std::size_t(i)] == Side::Upper) beta[i] = C;
        }
        if (free.empty()) return std::nullopt;
        const Index m = Index(free.size());
        // The step on F: Q_FF step + nu y_F = -g_F (g the gradient at beta), y_F' step = gap in
        // the equality constraint.
        const Vector g_at = dual_gradient(Q, beta, terms.p);
        Matrix Q_FF(m, m);
        Vector rhs(m), y_F(m);
        for (Index a = 0; a < m; ++a) {
            const Index i = free[std::size_t(a)];
            y_F[a] = y[i];
            rhs[a] = -g_at[i];
            for (Index b = 0; b < m; ++b) Q_FF(a, b) = Q(i, free[std::size_t(b)]);
        }
        const double equality_gap = terms.delta - y.dot(beta);
        Vector step;
        double nu = 0.0;
        const Eigen::LDLT<Matrix> ldlt(Q_FF);
        if (ldlt.info() != Eigen::Success) return std::nullopt;
        const Vector pivots = ldlt.vectorD().cwiseAbs();
        // (m >= 1; the test also keeps GCC 12 from a false null-dereference warning here.)
        if (pivots.size() == 0) return std::nullopt;
        if (pivots.minCoeff() > kSingularPivot * pivots.maxCoeff()) {
            const Vector a = ldlt.solve(rhs), b = ldlt.solve(y_F);
            const double yb = y_F.dot(b);
            if (!(std::abs(yb) > 0) || !a.allFinite() || !b.allFinite()) return std::nullopt;
            nu = (y_F.dot(a) - equality_gap) / yb;
            step = a - nu * b;
        } else {
            // Singular: the least-norm solution of the bordered system [Q_FF y_F; y_F' 0].
            Matrix M(m + 1, m + 1);
            M.topLeftCorner(m, m) = Q_FF;
            M.col(m).head(m) = y_F;
            M.row(m).head(m) = y_F.transpose();
            M(m, m) = 0.0;
            Vector right(m + 1);
            right.head(m) = rhs;
            right[m] = equality_gap;
            const Vector solution = Eigen::CompleteOrthogonalDecomposition<Matrix>(M).solve(right);
            step = solution.head(m);
            nu = solution[m];
        }
        if (!step.allFinite() || !std::isfinite(nu)) return std::nullopt;
        Vector beta_F(m);
        for (Index k = 0; k < m; ++k) beta_F[k] = beta[free[std::size_t(k)]] + step[k];

        bool left_box = false;
        for (Index k = 0; k < m; ++k) {
            const Index i = free[std::size_t(k)];
            if (beta_F[k] <= 0) { side[std::size_t(i)] = Side::Lower; left_box = true; }
            else if (beta_F[k] >= C) { side[std::size_t(i)] = Side::Upper; left_box = true; }
            else beta[i] = beta_F[k];
        }
        if (left_box) continue;

        // gradient of 1/2 b'Qb + p'b
        const Vector G = dual_gradient(Q, beta, terms.p);
        SmoResult out = smo_detail::smo_result(beta, G, y, C, terms.p);
        if (out.kkt_gap <= options.tolerance) return out;
        // Bounded variables with a multiplier of the wrong sign (G_i + nu y_i < 0 at the lower
        // bound, > 0 at the upper) join the free set.
        bool moved = false;
        for (Index i = 0; i < n; ++i) {
            const double reduced = G[i] + nu * y[i];
            const Side s = side[std::size_t(i)];
            if ((s == Side::Lower && reduced < 0) || (s == Side::Upper && reduced > 0)) {
                side[std::size_t(i)] = Side::Free;
                moved = true;
            }
        }
        if (!moved) return std::nullopt;
    }
    return std::nullopt;
}

SmoResult active_set_solve_on_columns(const KernelColumnSource& kernel_columns, const Vector& y,
                           const SmoOptions& options, const Vector& start, const SmoTerms& terms) {
    const Index n = y.size();
    const double C = options.C, ridge = options.ridge;
    std::vector<Side> side(std::size_t(n), Side::Free);
    Vector beta = start;
    for (Index i = 0; i < n; ++i) {
        if (beta[i] <= 0) { beta[i] = 0.0; side[std::size_t(i)] = Side::Lower; }
        else if (beta[i] >= C) { beta[i] = C; side[std::size_t(i)] = Side::Upper; }
    }
    // Columns of the variables that are or were lately free, fetched once each.
    std::unordered_map<Index, Vector> cached;
    const auto columns_of = [&](const IndexVector& cols) {
        IndexVector missing;
        for (const Index c : cols)
            if (cached.find(c) == cached.end()) missing.push_back(c);
        if (!missing.empty()) {
            const Matrix fetched = kernel_columns(missing);
            for (std::size_t k = 0; k < missing.size(); ++k)
                cached.emplace(missing[k], fetched.col(Index(k)));
        }
        Matrix out(n, Index(cols.size()));
        for (std::size_t k = 0; k < cols.size(); ++k) out.col(Index(k)) = cached.at(cols[k]);
        return out;
    };
    // g += Q(:, cols) change, Q = y y' .* (K + ridge I), for K(:, cols) in K_cols.
    const auto add_change = [&](Vector& g, const IndexVector& cols, const Matrix& K_cols,
                                const Vector& change) {
        Vector yc(Index(cols.size()));
        for (std::size_t k = 0; k < cols.size(); ++k) yc[Index(k)] = y[cols[k]] * change[Index(k)];
        g += y.cwiseProduct(K_cols * yc);
        for (std::size_t k = 0; k < cols.size(); ++k) g[cols[k]] += ridge * change[Index(k)];
    };
    // The gradient Q beta + p from the columns of the nonzero beta_i, a block at a time
    // (recomputed where the answer is decided: the steps update it, and rounding drifts).
    const auto full_gradient = [&] {
        Vector g = terms.p.size() == 0 ? Vector(Vector::Constant(n, -1.0)) : terms.p;
        IndexVector nonzero;
        for (Index i = 0; i < n; ++i)
            if (beta[i] != 0) nonzero.push_back(i);
        constexpr std::size_t kBlock = 256;
        for (std::size_t first = 0; first < nonzero.size(); first += kBlock) {
            const IndexVector cols(nonzero.begin() + std::ptrdiff_t(first),
                                   nonzero.begin() + std::ptrdiff_t(std::min(nonzero.size(), first + kBlock)));
            Vector values(Index(cols.size()));
            for (std::size_t k = 0; k < cols.size(); ++k) values[Index(k)] = beta[cols[k]];
            add_change(g, cols, kernel_columns(cols), values);
        }
        return g;
    };
    Vector g = full_gradient();  // at beta, updated after every move
    bool exact = true;           // g recomputed since the last move
    const auto refresh = [&] {
        if (!exact) g = full_gradient();
        exact = true;
    };
    const auto result = [&](Status status, std::int64_t steps) {
        refresh();
        SmoResult r = smo_detail::smo_result(beta, g, y, C, terms.p);
        if (status == Status::Success && r.kkt_gap > options.tolerance)
            status = Status::NumericalIssue;  // no multiplier left to release: rounding
        r.status = status;
        r.iterations = steps;
        return r;
    };
    // A bounded variable is released when its multiplier has the wrong sign by more than this:
    // the KKT gap is then at most twice it, plus the rounding of the free variables' gradients.
    const double release = options.tolerance / 4;
    // A fixed budget of factorisation work, about that of 20 n x n ones (n at most
    // kMaxNewtonSize), so that a start far from the optimum (hundreds of free variables to
    // move one at a time) gives up in bounded time and hands back to SMO.
    const double scale = double(std::min(n, kMaxNewtonSize));
    const double work_budget = 20.0 * scale * scale * scale + 1e6;
    double work = 0.0;
    const std::int64_t max_steps = 10 * std::int64_t(n) + 100;
    const bool recompute_each_step = n <= kMaxNewtonSize;
    for (std::int64_t step = 0; step < max_steps; ++step) {
        // Up to kMaxNewtonSize the gradient is recomputed at every step (as cheap as the step
        // there): on degenerate faces (duplicate points, singular Q_FF) differences of 1e-14
        // in it can make the releases cycle.
        if (recompute_each_step) refresh();
        IndexVector free;
        for (Index i = 0; i < n; ++i)
            if (side[std::size_t(i)] == Side::Free) free.push_back(i);
        const Index m = Index(free.size());
        if (m == 0) {  // the equality constraint pins a lone variable: release the worst pair
            refresh();
            const auto [up, low] = smo_detail::maximal_violating_pair(beta, g, y, C);
            if (up < 0 || low < 0 || -y[up] * g[up] + y[low] * g[low] <= options.tolerance)
                return result(Status::Success, step);
            side[std::size_t(up)] = side[std::size_t(low)] = Side::Free;
            continue;
        }
        work += double(m + 1) * double(m + 1) * double(m + 1);
        if (work > work_budget) return result(Status::NoConvergence, step);
        if (cached.size() > 4 * std::size_t(m) + 256) {  // forget columns no longer free
            for (auto it = cached.begin(); it != cached.end();)
                it = side[std::size_t(it->first)] == Side::Free ? std::next(it) : cached.erase(it);
        }
        const Matrix K_F = columns_of(free);  // K(:, F)
        // The step d on F minimises the objective on F's face: [Q_FF y_F; y_F' 0][d; nu] =
        // [-g_F; delta - y'beta]. Where that system is inconsistent (Q_FF singular, the face
        // unbounded below), its residual is a direction of zero curvature along which the
        // objective falls, followed to the first bound.
        Matrix M(m + 1, m + 1);
        Vector rhs(m + 1);
        for (Index a = 0; a < m; ++a) {
            const Index i = free[std::size_t(a)];
            for (Index b = 0; b < m; ++b)
                M(a, b) = y[i] * y[free[std::size_t(b)]] * K_F(i, b) + (a == b ? ridge : 0.0);
            M(a, m) = M(m, a) = y[i];
            rhs[a] = -g[i];
        }
        M(m, m) = 0.0;
        rhs[m] = terms.delta - y.dot(beta);
        const Vector solution = Eigen::CompleteOrthogonalDecomposition<Matrix>(M).solve(rhs);
        const Vector residual = rhs - M * solution;
        const bool ray = residual.norm() > kInconsistentResidual * rhs.norm();
        const Vector d = ray ? Vector(residual.head(m)) : Vector(solution.head(m));
        const double nu = ray ? 0.0 : solution[m];
        if (!d.allFinite() || !std::isfinite(nu)) return result(Status::NumericalIssue, step);
        double alpha = ray ? std::numeric_limits<double>::infinity() : 1.0;
        Index blocking = -1;
        for (Index a = 0; a < m; ++a) {
            const double b = beta[free[std::size_t(a)]];
            const double to_bound = d[a] < 0 ? b / -d[a] : d[a] > 0 ? (C - b) / d[a] : alpha;
            if (to_bound < alpha) { alpha = to_bound; blocking = a; }
        }
        if (!std::isfinite(alpha)) return result(Status::Unbounded, step);
        Vector change(m);
        for (Index a = 0; a < m; ++a) {
            const Index i = free[std::size_t(a)];
            const double moved = blocking == a ? (d[a] < 0 ? 0.0 : C)
                                               : std::clamp(beta[i] + alpha * d[a], 0.0, C);
            change[a] = moved - beta[i];
            beta[i] = moved;
        }
        if (blocking >= 0)
            side[std::size_t(free[std::size_t(blocking)])] = d[blocking] < 0 ? Side::Lower : Side::Upper;
        add_change(g, free, K_F, change);
        exact = false;
        if (blocking >= 0) continue;
        // The minimum on the face: release the bounded variable whose multiplier is the most
        // wrong (g_i + nu y_i < 0 at the lower bound, > 0 at the upper), or stop, deciding on
        // the gradient recomputed.
        const auto most_wrong = [&] {
            double worst = release;
            Index released = -1;
            for (Index i = 0; i < n; ++i) {
                const double multiplier = g[i] + nu * y[i];
                const Side s = side[std::size_t(i)];
                const double wrong = s == Side::Lower ? -multiplier : s == Side::Upper ? multiplier : 0.0;
                if (wrong > worst) { worst = wrong; released = i; }
            }
            return released;
        };
        refresh();  // (a release decided on a drifted gradient can start a cycle)
        const Index released = most_wrong();
        if (released < 0) return result(Status::Success, step + 1);
        side[std::size_t(released)] = Side::Free;
    }
    return result(Status::NoConvergence, max_steps);
}

SmoResult active_set_solve(const Eigen::Ref<const Matrix>& K, const Vector& y,
                           const SmoOptions& options, const Vector& start, const SmoTerms& terms) {
    const auto columns = [&K](const IndexVector& cols) {
        Matrix out(K.rows(), Index(cols.size()));
        for (std::size_t k = 0; k < cols.size(); ++k) out.col(Index(k)) = K.col(cols[k]);
        return out;
    };
    return active_set_solve_on_columns(columns, y, options, start, terms);
}

namespace {

// True when solve_dense_dual attempts Newton finishes for problems of size n under `options`
// (a tolerance below the first coarse stage, n small enough for dense factorisations); else it
// is SMO with the stall check alone (smo_with_stall_check).
bool tries_newton(const SmoOptions& options, Index n) {
    return options.tolerance < kCoarseTolerances[0] && n <= kMaxNewtonSize;
}

// SMO steps after which a coarse stage that has not reached its gap is taken to have stalled
// (a badly conditioned problem: the dual of a linear kernel on a few raw features with a large
// C moves its objective by a constant amount per step, and LIBSVM's own SMO needs 10^8 steps on
// such problems, to a solution far from the optimum). Well-posed problems of this size reach a
// gap of 1e-1 in well under 100 n steps.
std::int64_t stall_steps(Index n) { return std::max<std::int64_t>(100'000, 100 * std::int64_t(n)); }

// Whether a problem whose SMO stopped at `r` (NoConvergence after stall_steps) goes to the
// active-set solve: not when so many variables are free that its first face solve alone would
// spend a good part of the budget (a large problem converging slowly, not a stalled one).
bool worth_an_active_set(const SmoResult& r, double C) {
    const Index free = Index((r.beta.array() > 0 && r.beta.array() < C).count());
    return free <= kMaxNewtonSize;
}

// Active-set solves of the problems marked `stalled`, each from its column of beta, on the host
// (K downloaded once): a problem finished gets its result (iterations added to its count) and
// leaves `open`; the others keep the active set's last point in beta for the SMO that follows.
void finish_stalled(Backend& backend, const DeviceMatrix& K, const Matrix& Y,
                    const SmoOptions& options, const SmoBatchTerms& terms,
                    const std::vector<char>& stalled, Matrix& beta,
                    std::vector<std::int64_t>& iterations, std::vector<SmoResult>& results,
                    std::vector<char>& open) {
    if (std::none_of(stalled.begin(), stalled.end(), [](char c) { return c != 0; })) return;
    const Index n = Y.rows();
    const Matrix K_host = backend.download(K);
    parallel_for(stalled.size(), 0, [&](std::size_t p) {
        if (!stalled[p]) return;
        const Index q = Index(p);
        SmoResult r = active_set_solve(K_host.middleCols(q * n, n), Y.col(q), options,
                                       beta.col(q), smo_detail::problem_terms(terms, q));
        iterations[p] += r.iterations;
        beta.col(q) = r.beta;  // its last point, where the final SMO starts
        if (r.status != Status::Success) return;
        r.iterations = iterations[p];
        results[p] = std::move(r);
        open[p] = 0;
    });
}

// SMO to the requested tolerance for the problems still open, from beta (or cold when nothing
// has run yet), their earlier iterations added.
void finish_by_smo(SmoOps& smo, const DeviceMatrix& K, const Matrix& Y, const SmoOptions& options,
                   const SmoBatchTerms& terms, const Matrix* beta,
                   const std::vector<std::int64_t>& iterations, std::vector<SmoResult>& results,
                   const std::vector<char>& open) {
    if (std::none_of(open.begin(), open.end(), [](char c) { return c != 0; })) return;
    std::vector<SmoResult> tail = smo.solve_batch(K, Y, options, beta, open, terms);
    for (std::size_t p = 0; p < open.size(); ++p) {
        if (!open[p]) continue;
        tail[p].iterations += iterations[p];
        results[p] = std::move(tail[p]);
    }
}

// Plain SMO (no Newton finish), but within stall_steps first: the problems that stall there go
// to the active-set solve, and continue by SMO only where it fails.
std::vector<SmoResult> smo_with_stall_check(Backend& backend, const DeviceMatrix& K,
                                            const Matrix& Y, const SmoOptions& options,
                                            const Matrix* warm_start,
                                            const std::vector<char>& active,
                                            const SmoBatchTerms& terms) {
    SmoOps& smo = backend.smo();
    const Index n = Y.rows();
    if (smo_detail::smo_iteration_cap(options, n) <= stall_steps(n))
        return smo.solve_batch(K, Y, options, warm_start, active, terms);
    const Index P = Y.cols();
    SmoOptions first = options;
    first.max_iterations = stall_steps(n);
    std::vector<SmoResult> results = smo.solve_batch(K, Y, first, warm_start, active, terms);
    std::vector<char> stalled(static_cast<std::size_t>(P), 0), open(static_cast<std::size_t>(P), 0);
    std::vector<std::int64_t> iterations(static_cast<std::size_t>(P), 0);
    Matrix beta = Matrix::Zero(n, P);
    for (Index p = 0; p < P; ++p) {
        const SmoResult& r = results[std::size_t(p)];
        if ((!active.empty() && !active[std::size_t(p)]) || r.status != Status::NoConvergence)
            continue;
        stalled[std::size_t(p)] = worth_an_active_set(r, options.C);
        open[std::size_t(p)] = 1;  // on to SMO with the whole cap unless the active set ends it
        iterations[std::size_t(p)] = r.iterations;
        beta.col(p) = r.beta;
    }
    finish_stalled(backend, K, Y, options, terms, stalled, beta, iterations, results, open);
    finish_by_smo(smo, K, Y, options, terms, &beta, iterations, results, open);
    return results;
}

}  // namespace

SmoResult solve_dense_dual(Backend& backend, const DeviceMatrix& K, const Vector& y,
                           const SmoOptions& options, const Vector* warm_start,
                           const SmoTerms& terms) {
    const Matrix warm = warm_start != nullptr ? Matrix(*warm_start) : Matrix();
    SmoBatchTerms batch_terms;
    if (terms.p.size() > 0) batch_terms.p = terms.p;
    if (terms.delta != 0.0) batch_terms.delta = Vector::Constant(1, terms.delta);
    return solve_dense_dual_batch(backend, K, Matrix(y), options,
                                  warm_start != nullptr ? &warm : nullptr, {}, batch_terms)
        .front();
}

std::vector<SmoResult> solve_dense_dual_batch(Backend& backend, const DeviceMatrix& K,
                                              const Matrix& Y, const SmoOptions& options,
                                              const Matrix* warm_start,
                                              const std::vector<char>& active,
                                              const SmoBatchTerms& terms) {
    const Index n = Y.rows();
    const Index P = Y.cols();
    SmoOps& smo = backend.smo();
    if (!tries_newton(options, n))
        return smo_with_stall_check(backend, K, Y, options, warm_start, active, terms);
    const std::int64_t cap = smo_detail::smo_iteration_cap(options, n);
    std::vector<char> open(static_cast<std::size_t>(P), 1);  // not finished by a Newton step
    if (!active.empty()) open = active;
    std::vector<char> staged = open;   // open and its last coarse SMO succeeded
    std::vector<char> stalled(static_cast<std::size_t>(P), 0);  // for the active-set solve
    std::vector<SmoResult> results(static_cast<std::size_t>(P));
    std::vector<std::int64_t> iterations(static_cast<std::size_t>(P), 0);
    Matrix beta = warm_start != nullptr ? *warm_start : Matrix::Zero(n, P);
    bool started = warm_start != nullptr;
    for (const double coarse_tolerance : kCoarseTolerances) {
        if (coarse_tolerance <= options.tolerance) break;
        if (std::none_of(staged.begin(), staged.end(), [](char c) { return c != 0; })) break;
        SmoOptions coarse = options;
        coarse.tolerance = coarse_tolerance;
        coarse.max_iterations = std::min(cap, stall_steps(n));
        const std::vector<SmoResult> current =
            smo.solve_batch(K, Y, coarse, started ? &beta : nullptr, staged, terms);
        started = true;
        for (Index p = 0; p < P; ++p) {
            if (!staged[std::size_t(p)]) continue;
            const SmoResult& r = current[std::size_t(p)];
            iterations[std::size_t(p)] += r.iterations;
            beta.col(p) = r.beta;
            if (r.status == Status::Success) continue;
            staged[std::size_t(p)] = 0;  // to the final SMO, through the active set if stalled
            stalled[std::size_t(p)] =
                r.status == Status::NoConvergence && coarse.max_iterations < cap;
        }
        std::vector<SmoResult> finished = smo.newton_finish_batch(K, Y, beta, options, staged, terms);
        for (Index p = 0; p < P; ++p) {
            SmoResult& f = finished[std::size_t(p)];
            if (!staged[std::size_t(p)] || f.beta.size() == 0) continue;
            f.iterations = iterations[std::size_t(p)];
            results[std::size_t(p)] = std::move(f);
            open[std::size_t(p)] = 0;
            staged[std::size_t(p)] = 0;
        }
    }
    finish_stalled(backend, K, Y, options, terms, stalled, beta, iterations, results, open);
    finish_by_smo(smo, K, Y, options, terms, started ? &beta : nullptr, iterations, results, open);
    return results;
}

SmoResult solve_on_demand_dual(Backend& backend, const KernelSpec& spec, const DeviceMatrix& X,
                               const Vector& y, const SmoOptions& options,
                               const Vector* warm_start) {
    SmoOps& smo = backend.smo();
    const Index n = X.rows();
    if (smo_detail::smo_iteration_cap(options, n) <= stall_steps(n))
        return smo.solve(spec, X, y, options, warm_start);
    SmoOptions first = options;
    first.max_iterations = stall_steps(n);
    SmoResult last = smo.solve(spec, X, y, first, warm_start);
    if (last.status != Status::NoConvergence) return last;
    if (worth_an_active_set(last, options.C)) {
        const auto columns = [&](const IndexVector& cols) {
            return backend.download(backend.kernel_matrix(spec, X, backend.select_rows(X, cols)));
        };
        SmoResult finished = active_set_solve_on_columns(columns, y, options, last.beta);
        finished.iterations += last.iterations;
        if (finished.status == Status::Success) return finished;
        last = std::move(finished);
    }
    SmoResult tail = smo.solve(spec, X, y, options, &last.beta);
    tail.iterations += last.iterations;
    return tail;
}

std::vector<SmoResult> newton_finish_on_host(const Eigen::Ref<const Matrix>& K, const Matrix& Y,
                                             const Matrix& beta, const SmoOptions& options,
                                             const std::vector<char>& open,
                                             const SmoBatchTerms& terms) {
    const Index n = Y.rows();
    std::vector<SmoResult> out(static_cast<std::size_t>(Y.cols()));
    parallel_for(out.size(), 0, [&](std::size_t p) {
        if (!open[p]) return;
        if (auto finished = newton_finish(K.middleCols(Index(p) * n, n), Y.col(Index(p)), options,
                                          beta.col(Index(p)),
                                          smo_detail::problem_terms(terms, Index(p))))
            out[p] = std::move(*finished);
    });
    return out;
}

}  // namespace zeronorm::detail
