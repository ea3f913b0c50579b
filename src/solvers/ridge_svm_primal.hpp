// Internal: the linear SVM with a ridge on the kernel's diagonal, solved in the primal. Not
// installed.
#pragma once
#include <cstdint>

#include "zeronorm/core/dataset.hpp"
#include "zeronorm/solvers/smo.hpp"

namespace zeronorm::detail {

// The dual min 1/2 beta'(Y X X' Y + ridge I) beta - e'beta over 0 <= beta <= C, y'beta = 0
// (ridge > 0, C finite or inf: Weston et al. 2003 sec. 3.2's hard margin for inseparable data)
// is that of the primal
//   min_{w, b}  1/2 |w|^2 + sum_i loss(1 - y_i (w.x_i + b)),
// loss(t) = 0 for t <= 0, t^2 / (2 ridge) up to t = ridge C, then C t - ridge C^2 / 2 (the
// 2-norm soft margin's squared slack where C = inf), with beta_i = clip(t_i / ridge, 0, C).
// The primal is once differentiable and piecewise quadratic in d + 1 unknowns, so where
// n >> d it is solved by Newton steps with an exact line search (the modified finite Newton
// method of Keerthi & DeCoste, JMLR 2005): each step one (d + 1)-square system over the samples
// on the quadratic piece, n d^2 work, no n x n kernel; the method ends in finitely many steps
// once the pieces are right, few when warm-started near the answer.
// A linear SVM solved without its kernel: the dual as SMO reports it, and the primal weights.
struct LinearSvmSolution {
    SmoResult dual;  // beta (feasible), bias, objective -D(beta), duality_gap P - D, steps
    Vector w;        // the primal weights, X'(y o beta) at the optimum
};

// `warm`: a beta of a nearby problem (null: start from w = 0): w starts at X'(y o warm), b at
// its optimal value. Success when a step leaves every sample on its piece of the loss (the
// method's finite termination: the optimum to rounding), or, where rounding ends the descent
// first, when (P - D) <= gap_tolerance |P| (D at the primal's beta made feasible) or the Newton
// decrement puts w within sqrt(gap_tolerance) |w| of the optimum; NoConvergence after
// max_steps steps or a descent that ends otherwise. dual.duality_gap reports P - D (kkt_gap
// NaN: smo.hpp).
LinearSvmSolution solve_ridge_svm_primal(const Matrix& X, const Vector& y, double C, double ridge,
                                         const Vector* warm, double gap_tolerance,
                                         std::int64_t max_steps);

}  // namespace zeronorm::detail
