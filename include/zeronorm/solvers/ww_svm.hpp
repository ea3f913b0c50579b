// Weston-Watkins multi-class SVM (Weston & Watkins, ESANN 1999), the inner problem of
// multi-class AROM with M-SVM constraints (Weston et al., JMLR 3, 2003, sec. 3.3, Problem 10 with
// the objective sum_k |w_k|^2), solved in the dual on a precomputed kernel.
//
// Primal, classes 0..K-1, c(i) the class of sample i, feature map phi with k(x, x') = phi.phi':
//   min_{w, b, xi}  1/2 sum_m |w_m|^2 + C sum_i sum_{k != c(i)} xi_ik
//   s.t.  (w_c(i) - w_k) . phi(x_i) + b_c(i) - b_k >= 1 - xi_ik,   xi_ik >= 0.
// C = inf: the hard margin of Problem 10 (no slacks). A ridge lambda extends phi(x_i) by
// sqrt(lambda) e_i (sec. 3.2, the data-extension trick), i.e. K -> K + lambda I: the hard margin
// becomes solvable on any data, as for the two-class SVM.
//
// Dual: one variable alpha_ik >= 0 per constraint (k != c(i)); with A_i = sum_k alpha_ik the
// machine coefficients are c_im = [m == c(i)] A_i - alpha_im (alpha_i,c(i) = 0), and
//   max_alpha  sum_ik alpha_ik - 1/2 sum_m c_m' (K + lambda I) c_m
//   s.t.       sum_i c_im = 0  for every class m     (stationarity in the free biases b_m)
//              0 <= alpha_ik <= C,
// w_m = sum_i c_im phi(x_i), f_m(x) = sum_i c_im k(x_i, x) + b_m, prediction argmax_m f_m(x).
// The biases are the multipliers of the K equality constraints (they are kept, as in Problem
// 10: the constraints b_c(i) - b_k cannot be dropped without changing the problem).
//
// Solver. The K equalities couple the variables along cycles of classes, so two-variable
// (SMO) steps cannot reach every feasible direction once K >= 3. Instead: the method of
// multipliers (augmented Lagrangian) on the equalities, b <- b + rho r(alpha) with r_m =
// sum_i c_im, each inner problem (a box-constrained convex QP) by cyclic coordinate descent with
// exact steps and the outputs F = (K + lambda I) C kept up to date (O(n) per step). The inner
// optimality measure with the shifted biases b + rho r is exactly the KKT residual of the
// problem above, so the solver stops when (i) every alpha_ik meets its KKT condition with the
// current b to `tolerance` (margins in units of the functional margin 1), and (ii) |r|_inf <=
// tolerance * max(1, max_i A_i). Coordinate descent finds the sets of alpha at 0, at C and free
// long before it resolves the free values (on rank-deficient kernels the equality residual only
// shrinks by a constant factor per multiplier step), so once the sets have held for some sweeps
// an active-set finish solves the KKT system of the free alpha and the biases exactly, moving
// variables between the sets as a primal active-set method does; it ends the solve when its
// point meets the stopping test above and is otherwise discarded (tries back off
// geometrically). The hard margin without ridge (C = inf, lambda = 0) is solved
// with box bounds growing by 100 from max(1, 10 max warm alpha) to 1e8, as the two-class
// SVM in selection_common.hpp: once no alpha sits at the bound, the hard-margin KKT conditions
// hold. When some do, delta = |w(alpha)| / sum alpha bounds the margin of every separating
// M-SVM from above (ww_svm.cpp); delta <= 1e-3 max|phi(x_i)|, or the bound 1e8 reached, gives
// status NumericalIssue with not_separable set.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "zeronorm/core/dataset.hpp"
#include "zeronorm/core/status.hpp"

namespace zeronorm {

struct WwSvmOptions {
    double C = std::numeric_limits<double>::infinity();  // > 0; inf: hard margin
    double ridge = 0.0;             // lambda >= 0, added to the kernel diagonal
    double tolerance = 1e-6;        // KKT and equality residual (see above)
    std::int64_t max_sweeps = 200000;  // coordinate-descent sweeps over all alpha, in total
    double rho = 0.0;               // augmented-Lagrangian penalty; 0: 0.1 mean(diag(K + lambda I))

    void validate() const;  // InvalidArgument naming the field
};

struct WwSvmResult {
    Matrix alpha;   // n x K, alpha(i, c(i)) = 0
    Matrix coef;    // n x K, c_im (the weights of machine m on the training points)
    Vector bias;    // K biases b_m
    Matrix outputs; // n x K, f_m(x_i) = sum_j c_jm K_ij + b_m (without the ridge term)
    double dual_objective = 0.0;    // sum alpha - 1/2 sum_m c_m'(K + lambda I) c_m
    double primal_objective = 0.0;  // 1/2 sum_m c_m'(K + lambda I) c_m + C sum xi (C finite)
    double max_violation = 0.0;     // hard margin: max_ik (1 - margin_ik)_+ (with the ridge term)
    double kkt_residual = 0.0;      // largest KKT violation at exit
    double equality_residual = 0.0; // max_m |sum_i c_im| at exit
    std::int64_t sweeps = 0;
    Status status = Status::Success;
    bool not_separable = false;     // C = inf, ridge = 0 and the bound 1e8 was reached
};

// K: n x n kernel (symmetric PSD); labels: n classes in 0..n_classes-1, every class present,
// n_classes >= 2. warm_alpha: n x n_classes starting point (clipped to the box), or null.
WwSvmResult solve_ww_svm(const Matrix& K, const std::vector<int>& labels, int n_classes,
                         const WwSvmOptions& options, const Matrix* warm_alpha = nullptr);

}  // namespace zeronorm
