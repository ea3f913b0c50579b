// SMO on a precomputed kernel matrix, finished by a Newton step when a tight tolerance is asked.
//
// SMO converges linearly near the optimum: on the small dense problems of feature selection
// (n ~ 50, most points support vectors, hard margin with a ridge) going from a KKT gap of 1e-3 to
// 1e-8 takes two to three times the iterations of reaching 1e-3. Once SMO has found which
// variables are free (0 < beta_i < C) and which sit at a bound, the optimum is the solution of
// one linear system: the stationarity of the free variables plus the equality constraint,
//   Q_FF beta_F + nu y_F = 1 - C Q_FU 1,   y_F' beta_F = -C y_U' 1.
// solve_dense_dual runs SMO to a coarse gap (1e-1, then 1e-3, each only when coarser than the
// requested tolerance; at 1e-1 or above, or for n > 1000, it is SMO alone), solves that
// system, and accepts the result only if it is strictly inside the box and its own KKT gap
// (from the full gradient) meets the requested tolerance; otherwise SMO continues from the coarse point to the requested
// tolerance, so the answer is never worse than plain SMO's. A coarse stage that has not met its
// gap after max(10^5, 100 n) steps has stalled (badly conditioned: a linear kernel on a few raw
// features with a large C); such a problem goes to active_set_solve, and to the final SMO
// only if that fails; where no Newton finish is tried, SMO runs within that budget first and
// a problem that stalls there (with at most 1000 free variables) goes the same way. Each stage
// has the whole iteration cap (as before the active set), so a caller's cap below that stall
// budget sees no active-set solve.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "zeronorm/core/ops/smo_ops.hpp"

namespace zeronorm::detail {

SmoResult solve_dense_dual(Backend& backend, const DeviceMatrix& K, const Vector& y,
                           const SmoOptions& options, const Vector* warm_start = nullptr,
                           const SmoTerms& terms = {});

// The same for a batch of problems (SmoOps::solve_batch's arguments), which the single form
// above runs with one problem: each SMO stage is one batched solve over the problems still open,
// the Newton finishes one SmoOps::newton_finish_batch (on the device for CUDA), and the
// problems no Newton step finished get one batched SMO to the requested tolerance.
std::vector<SmoResult> solve_dense_dual_batch(Backend& backend, const DeviceMatrix& K,
                                              const Matrix& Y, const SmoOptions& options,
                                              const Matrix* warm_start = nullptr,
                                              const std::vector<char>& active = {},
                                              const SmoBatchTerms& terms = {});

// Active-set rounds of the Newton finish (SmoOps::newton_finish_batch) before giving up.
constexpr int kNewtonRounds = 8;

// An LDLT pivot of Q_FF at most kSingularPivot times its largest marks the system as singular
// (rounding leaves such pivots near 1e-17 rather than 0, and dividing by them throws the step
// far out of the box): newton_finish then takes the least-norm step. The device's unpivoted
// Cholesky hands a problem to the host at a pivot below kDeviceSingularPivot times the largest
// diagonal, a margin that keeps every system the host would call singular off the device.
constexpr double kSingularPivot = 1e-11;
constexpr double kDeviceSingularPivot = 1e-8;

// The Newton finish of one problem (linear term and right-hand side in `terms`) from the SMO
// point coarse_beta, on the host (the reference, the CPU backend's newton_finish_batch and the
// CUDA backend's for the problems its device code does not finish): the finished result
// (Success, with bias, objective and KKT gap, iterations 0), or nothing. Each round solves for
// the step from the coarse point on the free variables: by a pivoted LDLT of Q_FF, or where
// Q_FF is singular (fewer features than free variables, as with linear kernels of a few
// features) the least-norm solution of the bordered system [Q_FF y_F; y_F' 0], the step that
// stays nearest the SMO point among the many; the round gives up only where the step or nu is
// not finite.
std::optional<SmoResult> newton_finish(const Eigen::Ref<const Matrix>& K, const Vector& y,
                                       const SmoOptions& options, const Vector& coarse_beta,
                                       const SmoTerms& terms = {});

// Columns K(:, cols) of one problem's kernel matrix (n x cols.size(), without the ridge).
using KernelColumnSource = std::function<Matrix(const IndexVector& cols)>;

// The exact solve of one problem from the feasible point `start` (a stalled SMO's), on the host:
// a primal active-set method (Nocedal & Wright, Numerical Optimization, sec. 16.5) whose steps
// minimise the objective on the face of the free variables (the system of newton_finish), or,
// where that face is unbounded below because Q_FF is singular, follow a direction of zero
// curvature and falling objective; each step either fixes the first variable that reaches a
// bound or, at the face's minimum, releases the bounded variable whose multiplier is the most
// wrong. Unlike SMO its step count does not grow with the conditioning of Q: a linear kernel on
// one raw microarray feature (values near 1e3) with C = 100 takes about 60 steps where SMO
// needs over 10^8. It reads only kernel columns: those of the free variables (each fetched
// once while it stays free) and, where the gradient is recomputed (at the start and where the
// answer is decided), those of the nonzero beta_i; a step costs O(n m + m^3) for m free
// variables. Returns status Success with the solution (gap <= options.tolerance, from the
// recomputed gradient); else the last point (its objective no higher than start's, up to
// rounding) with NoConvergence (its step or work budget spent: 10 n + 100 steps,
// factorisations worth about 20 min(n, 1000)^3), NumericalIssue (a non-finite step, or no
// multiplier left to release above the rounding) or Unbounded (C = inf, a direction without
// a bound). iterations counts the steps.
SmoResult active_set_solve_on_columns(const KernelColumnSource& kernel_columns, const Vector& y,
                           const SmoOptions& options, const Vector& start,
                           const SmoTerms& terms = {});
// The same on a kernel matrix in host memory.
SmoResult active_set_solve(const Eigen::Ref<const Matrix>& K, const Vector& y,
                           const SmoOptions& options, const Vector& start,
                           const SmoTerms& terms = {});

// SmoOps::solve on kernel columns computed on demand from X (problems whose kernel matrix is
// not precomputed), with the stall check of solve_dense_dual: SMO within max(10^5, 100 n)
// steps first; a problem that has not converged by then and has at most 1000 free variables
// goes to active_set_solve on kernel columns from the backend, and SMO continues (with the
// whole cap) only where that fails.
SmoResult solve_on_demand_dual(Backend& backend, const KernelSpec& spec, const DeviceMatrix& X,
                               const Vector& y, const SmoOptions& options,
                               const Vector* warm_start = nullptr);

// newton_finish for the problems with open[p] of a batch on the host (K n x (n P) in host
// memory), in parallel: SmoOps::newton_finish_batch's result.
std::vector<SmoResult> newton_finish_on_host(const Eigen::Ref<const Matrix>& K, const Matrix& Y,
                                             const Matrix& beta, const SmoOptions& options,
                                             const std::vector<char>& open,
                                             const SmoBatchTerms& terms = {});

}  // namespace zeronorm::detail
