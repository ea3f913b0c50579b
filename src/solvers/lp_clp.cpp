// solve_lp (include/zeronorm/solvers/lp.hpp) on COIN-OR CLP's simplex (Debian coinor-libclp-dev).
// CLP returns basic solutions from both its primal and dual simplex (and after presolve it
// postsolves to a basis), which is what the SLA / Frank-Wolfe callers need.
#include <ClpSimplex.hpp>
#include <ClpSolve.hpp>
#include <CoinError.hpp>
#include <CoinFinite.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <sstream>
#include <vector>

#include "core/stopwatch.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/solvers/lp.hpp"

namespace zeronorm {

namespace {

void check_bounds(const Vector& lower, const Vector& upper, const char* lower_name,
                  const char* upper_name) {
    for (Index k = 0; k < lower.size(); ++k) {
        const double lo = lower[k];
        const double hi = upper[k];
        ZN_EXPECTS(!std::isnan(lo), "LinearProgram: " << lower_name << "[" << k << "] is NaN");
        ZN_EXPECTS(!std::isnan(hi), "LinearProgram: " << upper_name << "[" << k << "] is NaN");
        ZN_EXPECTS(lo != lp_infinity,
                   "LinearProgram: " << lower_name << "[" << k << "] is +inf (no feasible value)");
        ZN_EXPECTS(hi != -lp_infinity,
                   "LinearProgram: " << upper_name << "[" << k << "] is -inf (no feasible value)");
        ZN_EXPECTS(lo <= hi, "LinearProgram: " << lower_name << "[" << k << "] = " << lo << " > "
                                               << upper_name << "[" << k << "] = " << hi);
    }
}

// CLP spells infinity as COIN_DBL_MAX.
std::vector<double> to_clp_bounds(const Vector& v, Index size, double default_value) {
    std::vector<double> out(static_cast<std::size_t>(size), default_value);
    for (Index k = 0; k < v.size(); ++k) out[static_cast<std::size_t>(k)] = v[k];
    for (double& b : out) {
        if (b == lp_infinity) b = COIN_DBL_MAX;
        if (b == -lp_infinity) b = -COIN_DBL_MAX;
    }
    return out;
}

struct Violations {
    double primal = 0.0;  // largest bound or row violation
    double dual = 0.0;    // largest reduced cost / dual of the wrong sign for its bound
};

// KKT violations of the unscaled solution held by `model`, in the convention of LpResult
// (reduced costs d = c - A'y): a column at its lower bound needs d >= 0, at its upper d <= 0,
// strictly between d = 0; a row at its lower bound needs y >= 0, at its upper y <= 0.
Violations kkt_violations(const ClpSimplex& model, double primal_tolerance) {
    Violations v;
    auto check = [&](const double* value, const double* lower, const double* upper,
                     const double* price, int count) {
        for (int k = 0; k < count; ++k) {
            const double lo = lower[k];
            const double hi = upper[k];
            const double x = value[k];
            v.primal = std::max({v.primal, lo - x, x - hi});
            const bool at_lo = lo > -COIN_DBL_MAX && x <= lo + primal_tolerance * (1.0 + std::abs(lo));
            const bool at_hi = hi < COIN_DBL_MAX && x >= hi - primal_tolerance * (1.0 + std::abs(hi));
            const double d = price[k];
            if (at_lo && at_hi) continue;  // fixed
            if (at_lo) v.dual = std::max(v.dual, -d);
            else if (at_hi) v.dual = std::max(v.dual, d);
            else v.dual = std::max(v.dual, std::abs(d));
        }
    };
    check(model.primalColumnSolution(), model.columnLower(), model.columnUpper(),
          model.dualColumnSolution(), model.numberColumns());
    check(model.primalRowSolution(), model.rowLower(), model.rowUpper(), model.dualRowSolution(),
          model.numberRows());
    return v;
}

}  // namespace

void LinearProgram::validate() const {
    const Index m = n_rows();
    const Index n = n_cols();
    ZN_EXPECTS(m <= INT_MAX && n <= INT_MAX && A.nonZeros() <= INT_MAX,
               "LinearProgram: A is too large for the LP solver (" << m << " x " << n << ", "
                                                                   << A.nonZeros() << " nonzeros)");
    ZN_EXPECTS_DIM(c.size() == n, "LinearProgram: c has " << c.size() << " entries but A has " << n
                                                          << " columns");
    ZN_EXPECTS_DIM(row_lower.size() == m, "LinearProgram: row_lower has "
                                              << row_lower.size() << " entries but A has " << m
                                              << " rows");
    ZN_EXPECTS_DIM(row_upper.size() == m, "LinearProgram: row_upper has "
                                              << row_upper.size() << " entries but A has " << m
                                              << " rows");
    ZN_EXPECTS_DIM(col_lower.size() == 0 || col_lower.size() == n,
                   "LinearProgram: col_lower has " << col_lower.size() << " entries but A has " << n
                                                   << " columns (empty means all 0)");
    ZN_EXPECTS_DIM(col_upper.size() == 0 || col_upper.size() == n,
                   "LinearProgram: col_upper has " << col_upper.size() << " entries but A has " << n
                                                   << " columns (empty means all +inf)");
    for (Index j = 0; j < n; ++j)
        ZN_EXPECTS(std::isfinite(c[j]), "LinearProgram: c[" << j << "] = " << c[j]
                                                            << " is not finite");
    for (Index j = 0; j < A.outerSize(); ++j)
        for (SparseMatrix::InnerIterator it(A, j); it; ++it)
            ZN_EXPECTS(std::isfinite(it.value()), "LinearProgram: A(" << it.row() << ", " << it.col()
                                                                       << ") = " << it.value()
                                                                       << " is not finite");
    check_bounds(row_lower, row_upper, "row_lower", "row_upper");
    const Vector lower = col_lower.size() == 0 ? Vector::Zero(n) : col_lower;
    const Vector upper = col_upper.size() == 0 ? Vector::Constant(n, lp_infinity) : col_upper;
    check_bounds(lower, upper, "col_lower", "col_upper");
}

void LpOptions::validate() const {
    ZN_EXPECTS(method == LpMethod::Automatic || method == LpMethod::Primal ||
                   method == LpMethod::Dual,
               "LpOptions.method is not a known LpMethod (" << static_cast<int>(method) << ")");
    ZN_EXPECTS(max_iterations > 0 && max_iterations <= INT_MAX,
               "LpOptions.max_iterations must be in 1.." << INT_MAX << ", got " << max_iterations);
    ZN_EXPECTS(!std::isnan(time_limit) && time_limit > 0.0,
               "LpOptions.time_limit must be > 0 seconds (+inf for none), got " << time_limit);
    ZN_EXPECTS(std::isfinite(primal_tolerance) && primal_tolerance > 0.0,
               "LpOptions.primal_tolerance must be finite and > 0, got " << primal_tolerance);
    ZN_EXPECTS(std::isfinite(dual_tolerance) && dual_tolerance > 0.0,
               "LpOptions.dual_tolerance must be finite and > 0, got " << dual_tolerance);
}

LpResult solve_lp(const LinearProgram& lp, const LpOptions& options, const LpBasis& start) {
    lp.validate();
    options.validate();
    ZN_EXPECTS_DIM(start.empty() || start.status.size() == std::size_t(lp.n_cols() + lp.n_rows()),
                   "solve_lp: the starting basis has " << start.status.size()
                                                       << " statuses, the LP " << lp.n_cols()
                                                       << " columns and " << lp.n_rows()
                                                       << " rows");
    const Stopwatch stopwatch;

    const Index m = lp.n_rows();
    const Index n = lp.n_cols();

    // CLP reads the compressed column-major arrays directly; only an uncompressed A is copied.
    SparseMatrix compressed_copy;
    const SparseMatrix* A = &lp.A;
    if (!lp.A.isCompressed()) {
        compressed_copy = lp.A;
        compressed_copy.makeCompressed();
        A = &compressed_copy;
    }
    static_assert(sizeof(CoinBigIndex) == sizeof(int), "CLP built with a wide CoinBigIndex");

    const std::vector<double> col_lower = to_clp_bounds(lp.col_lower, n, 0.0);
    const std::vector<double> col_upper = to_clp_bounds(lp.col_upper, n, COIN_DBL_MAX);
    const std::vector<double> row_lower = to_clp_bounds(lp.row_lower, m, 0.0);
    const std::vector<double> row_upper = to_clp_bounds(lp.row_upper, m, 0.0);
    // An empty (0 x n) Eigen matrix may have no outer index array; CLP needs n + 1 zeros.
    std::vector<CoinBigIndex> empty_starts;
    const CoinBigIndex* starts = A->outerIndexPtr();
    if (starts == nullptr) {
        empty_starts.assign(static_cast<std::size_t>(n) + 1, 0);
        starts = empty_starts.data();
    }

    LpResult result;
    ClpSimplex model;
    bool polished = false;
    int main_iterations = 0;
    int polish_iterations = 0;
    model.setLogLevel(0);
    try {
        model.loadProblem(static_cast<int>(n), static_cast<int>(m), starts, A->innerIndexPtr(),
                          A->valuePtr(), col_lower.data(), col_upper.data(), lp.c.data(),
                          row_lower.data(), row_upper.data());
        model.setMaximumIterations(static_cast<int>(options.max_iterations));
        if (options.time_limit != lp_infinity) model.setMaximumSeconds(options.time_limit);
        model.setPrimalTolerance(options.primal_tolerance);
        model.setDualTolerance(options.dual_tolerance);
        if (!start.empty()) {
            model.copyinStatus(start.status.data());
            model.primal();  // with a status array present CLP starts from it (no crash)
        } else switch (options.method) {
            case LpMethod::Automatic: {
                ClpSolve solve_options;
                model.initialSolve(solve_options);
                break;
            }
            case LpMethod::Primal: model.primal(); break;
            case LpMethod::Dual: model.dual(); break;
        }
        // CLP's tolerances hold for its internally scaled problem; unscaled, a reduced cost or
        // bound can be off by more. Then polish: primal simplex on the unscaled problem, warm
        // started from the basis found (usually a handful of pivots or none), at a tenth of the
        // dual tolerance: at the requested one CLP's primal may stop without a pivot on a dual
        // infeasibility a few times above it (2.6e-7 at 1e-7 on a random 20 x 33 LP). The
        // primal tolerance stays: tighter, a nearly infeasible LP could turn infeasible.
        if (model.status() == 0) {
            const Violations v = kkt_violations(model, options.primal_tolerance);
            if (v.primal > options.primal_tolerance || v.dual > options.dual_tolerance) {
                main_iterations = model.numberIterations();
                model.scaling(0);
                model.setDualTolerance(0.1 * options.dual_tolerance);
                model.primal(0);
                polish_iterations = model.numberIterations();
                polished = true;
            }
        }
    } catch (const CoinError& e) {
        result.status = Status::NumericalIssue;
        result.message = "CLP failed: " + e.className() + "::" + e.methodName() + ": " + e.message();
        result.x = Vector::Zero(n);
        result.reduced_costs = Vector::Zero(n);
        result.row_activity = Vector::Zero(m);
        result.duals = Vector::Zero(m);
        result.seconds = stopwatch.seconds();
        return result;
    }

    result.iterations = polished ? std::int64_t{main_iterations} + polish_iterations
                                 : std::int64_t{model.numberIterations()};
    if (n > 0) {
        result.x = Eigen::Map<const Vector>(model.primalColumnSolution(), n);
        result.reduced_costs = Eigen::Map<const Vector>(model.dualColumnSolution(), n);
    } else {
        result.x.resize(0);
        result.reduced_costs.resize(0);
    }
    if (m > 0) {
        result.row_activity = Eigen::Map<const Vector>(model.primalRowSolution(), m);
        result.duals = Eigen::Map<const Vector>(model.dualRowSolution(), m);
    } else {
        result.row_activity.resize(0);
        result.duals.resize(0);
    }
    result.objective = lp.c.dot(result.x);
    const Violations violations = kkt_violations(model, options.primal_tolerance);
    result.max_primal_violation = violations.primal;
    result.max_dual_violation = violations.dual;

    std::ostringstream msg;
    const int secondary = model.secondaryStatus();
    switch (model.status()) {
        case 0:
            result.status = Status::Success;
            msg << "optimal";
            if (polished) msg << " (polished without scaling)";
            if (violations.primal > options.primal_tolerance ||
                violations.dual > options.dual_tolerance)
                msg << " (unscaled KKT violations remain: primal " << violations.primal
                    << ", dual " << violations.dual << ")";
            break;
        case 1:
            result.status = Status::Infeasible;
            msg << "primal infeasible";
            break;
        case 2:
            result.status = Status::Unbounded;
            msg << "unbounded (dual infeasible)";
            break;
        case 3:
            result.status = Status::NoConvergence;
            msg << (secondary == 9 ? "stopped at the time limit" : "stopped at the iteration limit")
                << " after " << result.iterations << " iterations";
            break;
        default:
            result.status = Status::NumericalIssue;
            msg << "CLP stopped on numerical difficulties (status " << model.status()
                << ", secondary " << secondary << ")";
            break;
    }
    result.message = msg.str();
    if (result.status == Status::Success) {
        const unsigned char* status = model.statusArray();
        result.basis.status.assign(status, status + n + m);
    }
    result.seconds = stopwatch.seconds();
    return result;
}

}  // namespace zeronorm
