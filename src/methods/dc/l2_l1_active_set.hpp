// Internal: the l2-l1-SVM duals of a batch by a sequence of box QPs through the backend's
// batched primitives (the device form of solve_l2_l1_svm_batch). Not installed.
#pragma once

#include <cstdint>

#include "solvers/dual_projection.hpp"
#include "zeronorm/core/backend.hpp"
#include "zeronorm/methods/dc_svm.hpp"

namespace zeronorm::detail {

// sum_i (1 - y_i (f_i + b))_+ (l2_l1_dual.cpp), and the soft-threshold S_c(u) of one entry.
double hinge_sum(const Vector& f, const Vector& y, double b);
inline double soft(double u, double c) { return u > c ? u - c : (u < -c ? u + c : 0.0); }

// The dual of every problem p (C[p], costs.col(p)) minimises
//   F(beta) = sum_k phi_k(u_k) - e'beta,  u = X'(beta o y),  phi_k(u) = 1/2 S_{c_k}(u)^2,
// over 0 <= beta <= C, y'beta = 0. phi_k is quadratic on each of its three pieces (u > c_k,
// |u| <= c_k, u < -c_k), so with the pieces of the current u fixed (active features J with signs
// s) F is the box QP
//   min 1/2 beta' Y X_J X_J' Y beta + p'beta,  p = -e - Y X_J (s o c)_J,
// solved for all problems of the batch together: the problems in groups of active lists
// within a factor two in length, per group one gather of each problem's active columns, one
// batched product for f = X w and X_J (s o c)_J, one scaled_gram_batch for the kernels X_J X_J'
// and one batched dense dual (SMO capped at 5n + 100 steps, then the Newton finish; the QP is
// scaled to unit box and gradients of order one). Each round then moves beta toward its QP's
// solution with the exact line search on F (convex and piecewise quadratic along the segment:
// its slope's breakpoints in order), so F never increases, and u is carried along (u += t du);
// once the pieces are right the step is the optimum. A problem ends when its relative duality
// gap (primal at w = S_c(u) with the optimal bias) is at most gap_tolerance (status Success);
// after max_rounds, or when a round cannot decrease F, it keeps NoConvergence with its current
// feasible beta for the caller's fallback (solve_l2_l1_svm_batch, the host pair solver).
// The rounds' work is GEMM-shaped: per round about n^2 |J| per problem for the kernels, 2 n |J|
// for the gathers and products on the active columns, n d for du = X'(delta o y), and the
// n x n duals.
L2L1BatchResult solve_l2_l1_active_set(Backend& backend, const Matrix& X, const Vector& y,
                                       const Vector& C, const Matrix& costs,
                                       const Matrix& warm_beta, double gap_tolerance,
                                       int max_rounds = 30);

// solve_l2_l1_active_set, then the host pair solver (solve_l2_l1_svm_batch, max_iterations pair
// steps) from its point for the problems it left open: what solve_l2_l1_svm_batch(backend, ...)
// runs on a backend that prefers batched work.
L2L1BatchResult solve_l2_l1_batched(Backend& backend, const Matrix& X, const Vector& y,
                                    const Vector& C, const Matrix& costs, const Matrix& warm_beta,
                                    double gap_tolerance, std::int64_t max_iterations);

}  // namespace zeronorm::detail
