// Linear programs solved by a simplex method (COIN-OR CLP behind this interface):
//
//   min  c'x   s.t.  row_lower <= A x <= row_upper,   col_lower <= x <= col_upper
//
// Bounds may be infinite (+-inf); an equality row has row_lower == row_upper. The answer is a
// vertex (basic) solution: the successive-linearisation / Frank-Wolfe steps of FSV, FS-SVMCP and
// l1-AROM (Weston et al. 2003, Problem 7; Rinaldi & Sciandrone 2010, LP (15); Neumann, Schnoerr &
// Steidl 2005, sec. 4.2.1) rely on that, because a concave objective attains its minimum over a
// polyhedron at a vertex. Interior-point methods without crossover are therefore not offered.
//
// Bad input (sizes that do not fit, NaN, lower > upper) is an exception; how the solve ended
// (optimal, infeasible, unbounded, iteration/time limit, numerical trouble) is in the result.
//
// Warm starts: an optimal result carries its basis; passed back with an LP of the same shape
// whose constraints are unchanged (only c differs, as between the steps of a successive
// linearisation or across a grid of its weights) the basis is still primal feasible, and the
// primal simplex resumes from it, usually in a small fraction of a cold solve's pivots.
#pragma once

#include <Eigen/SparseCore>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "zeronorm/core/dataset.hpp"
#include "zeronorm/core/status.hpp"

namespace zeronorm {

using SparseMatrix = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

inline constexpr double lp_infinity = std::numeric_limits<double>::infinity();

struct LinearProgram {
    Vector c;           // n_cols objective coefficients (finite)
    SparseMatrix A;     // n_rows x n_cols constraint matrix (finite entries)
    Vector row_lower;   // n_rows, may hold -inf
    Vector row_upper;   // n_rows, may hold +inf
    Vector col_lower;   // n_cols, may hold -inf; empty = all 0   (x >= 0)
    Vector col_upper;   // n_cols, may hold +inf; empty = all +inf

    Index n_rows() const { return A.rows(); }
    Index n_cols() const { return A.cols(); }
    // DimensionMismatch when sizes do not fit; InvalidArgument naming the field and index for
    // NaN, an infinite c or A entry, lower > upper, a lower bound of +inf or an upper of -inf.
    void validate() const;
};

enum class LpMethod {
    Automatic,  // CLP's initialSolve: presolve, then the simplex variant CLP deems best
    Primal,     // primal simplex, no presolve
    Dual,       // dual simplex, no presolve
};

struct LpOptions {
    LpMethod method = LpMethod::Automatic;
    std::int64_t max_iterations = 1'000'000;  // simplex pivots (at most INT_MAX)
    double time_limit = lp_infinity;          // seconds; +inf = none
    double primal_tolerance = 1e-7;           // CLP's feasibility tolerance
    double dual_tolerance = 1e-7;             // CLP's optimality (reduced cost) tolerance

    static LpOptions with_method(LpMethod m) {
        LpOptions o;
        o.method = m;
        return o;
    }
    void validate() const;
};

// Which variables are basic and at which bound each nonbasic one sits: one status per column,
// then one per row, in the solver's own coding (only for handing back to solve_lp).
struct LpBasis {
    std::vector<unsigned char> status;
    bool empty() const { return status.empty(); }
};

struct LpResult {
    // status == Success exactly when x is an optimal vertex. Infeasible: primal infeasibility
    // proven; Unbounded: the objective is unbounded below (dual infeasibility proven). Iteration
    // or time limit: NoConvergence, x is the last iterate. Solver failure: NumericalIssue.
    Status status = Status::NumericalIssue;
    std::string message;      // how the solve ended, in words

    Vector x;                 // n_cols primal solution
    Vector row_activity;      // n_rows, A x
    // Lagrange multipliers, sign convention: reduced_costs = c - A' duals. At an optimum a row
    // at its lower bound has dual >= 0, at its upper bound dual <= 0 (an equality row: any sign).
    Vector duals;             // n_rows
    Vector reduced_costs;     // n_cols
    double objective = 0.0;   // c'x
    // Largest violation of a bound or row by x, and of the sign conditions above by the
    // reduced costs and duals (both unscaled; at most the tolerances when optimal, barring
    // a polish that could not reach them).
    double max_primal_violation = 0.0;
    double max_dual_violation = 0.0;
    std::int64_t iterations = 0;
    double seconds = 0.0;     // wall time of solve_lp
    LpBasis basis;            // the final basis when optimal (else empty)

    bool optimal() const { return status == Status::Success; }
};

// Solves `lp` with the simplex method (quietly: CLP's log is off). Thread-safe for distinct
// calls; each call owns its own solver object. With a non-empty `start` (the basis of an
// optimal result for an LP of the same size) the primal simplex starts from that basis and
// options.method is not used; a start of the wrong size is a DimensionMismatch.
LpResult solve_lp(const LinearProgram& lp, const LpOptions& options = {},
                  const LpBasis& start = {});

}  // namespace zeronorm
