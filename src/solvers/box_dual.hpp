// The kernel SVM dual without bias (no equality constraint y'beta = 0; Neumann, Schnoerr &
// Steidl 2005, sec. 3.2.2 classify with f(x) = sum_i beta_i y_i k(x_i, x), b = 0):
//
//   min_beta  1/2 beta' Q beta - 1' beta     Q_ij = y_i y_j (K_ij + ridge [i==j])
//   s.t.      0 <= beta_i <= C
//
// solved by greedy coordinate descent (the Gauss-Southwell rule: each step minimises exactly
// over the coordinate whose projected gradient is largest, as SMO's working-set selection does
// for pairs, Fan, Chen & Lin 2005), on a precomputed kernel matrix in host memory. Without the
// equality constraint one variable moves alone, so a step is one clip and one column update.
// Optimality: the projected gradient PG_i = min(G_i, 0) at beta_i = 0, max(G_i, 0) at C, G_i
// when free; the solver stops when max_i |PG_i| <= tolerance (reported as kkt_gap).
#pragma once

#include "zeronorm/solvers/smo.hpp"

namespace zeronorm::detail {

// K: n x n kernel (symmetric); y: +-1 labels. Result: beta, bias 0, objective, kkt_gap =
// max |PG_i|, iterations (coordinate steps), NoConvergence at the step cap (as SMO's).
SmoResult solve_box_dual(const Matrix& K, const Vector& y, const SmoOptions& options);

// max_i |PG_i| for beta and the gradient G = Q beta - 1.
double box_dual_violation(const Vector& beta, const Vector& G, double C);

}  // namespace zeronorm::detail
