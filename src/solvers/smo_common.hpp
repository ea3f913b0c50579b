// The backend-independent parts of SMO (problem in zeronorm/solvers/smo.hpp), shared by the CPU solver
// (cpu_fallback/smo_solver.cpp) and the CUDA one (kernels/smo.cu): label checks, the feasible
// starting point, and the bias, objective and KKT gap from the final beta and gradient.
#pragma once

#include <cstdint>
#include <utility>

#include "core/scalar_rules.hpp"
#include "zeronorm/core/ops/smo_ops.hpp"

namespace zeronorm::smo_detail {

// The index sets of the KKT conditions, I_up and I_low (core/scalar_rules.hpp).
using rules::in_low;
using rules::in_up;

// SMO steps allowed: options.max_iterations when positive, else max(10^7, 100 n) as LIBSVM.
std::int64_t smo_iteration_cap(const SmoOptions& options, Index n);

// Throws InvalidArgument unless y has at least two entries, all exactly +1 or -1, with both
// classes present (the checks of the CPU solver).
void check_smo_labels(const Vector& y);

// Clips beta into [0, C] and scales one class side down so that y'beta = delta (a rounding-level
// imbalance is left alone; delta = 0: the side with the larger sum, and a zero vector stays
// zero). Where no side can be scaled down to delta, the cold start below.
Vector make_feasible(const Vector& beta, const Vector& y, double C, double delta = 0.0);

// The starting beta for SMO (n = y.size()): without a warm start, 0 for delta = 0, else delta
// spread evenly over the class of its sign (InvalidArgument when the box cannot hold it);
// otherwise the warm start (n finite entries, else DimensionMismatch / InvalidArgument) made
// feasible by make_feasible.
Vector smo_starting_point(const Vector* warm_start, const Vector& y, double C, double delta = 0.0);

// b = -rho, rho as LIBSVM's Solver::calculate_rho: the mean of y_i G_i over the free variables
// (0 < beta_i < C), else the midpoint of the bounds given by the bounded ones.
double smo_bias(const Vector& beta, const Vector& G, const Vector& y, double C);

// 1/2 beta'Q beta + p'beta = 1/2 sum_i beta_i (G_i + p_i), with G = Q beta + p (p empty: -1).
double smo_objective(const Vector& beta, const Vector& G, const Vector& p = Vector());

// The maximal violating pair: the index of max of -y_t G_t over I_up and that of its min over
// I_low (-1 where the set is empty).
std::pair<Index, Index> maximal_violating_pair(const Vector& beta, const Vector& G, const Vector& y,
                                               double C);

// m(beta) - M(beta) (max of -y_t G_t over I_up minus its min over I_low), clamped at 0, and 0
// when either set is empty.
double smo_kkt_gap(const Vector& beta, const Vector& G, const Vector& y, double C);

// The result for the final beta and its gradient G = Q beta + p (p empty: -1): beta, bias,
// objective and KKT gap, status Success and 0 iterations (the caller sets those it knows better).
SmoResult smo_result(const Vector& beta, const Vector& G, const Vector& y, double C,
                     const Vector& p = Vector());

// The terms of problem p of a batch (empty p and delta 0 where the batch's are empty).
SmoTerms problem_terms(const SmoBatchTerms& terms, Index p);

}  // namespace zeronorm::smo_detail
