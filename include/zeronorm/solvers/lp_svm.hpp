// Linear-programming SVMs, solved as vertex LPs by solve_lp (include/zeronorm/solvers/lp.hpp).
//
// l1-norm SVM (Bradley & Mangasarian 1998; Lal, Chapelle, Weston & Elisseeff 2006, sec. 4.2),
// here with per-feature costs c, per-sample weights s and a per-feature scaling z of the data:
//
//   min_{w,b,xi}  sum_j c_j |w_j| + C sum_i s_i xi_i
//   s.t.          y_i ( sum_j w_j z_j x_ij + b ) >= 1 - xi_i,   xi_i >= 0,   b free.
//
// c = 1, z = 1, s = 1 is the plain l1-SVM; C = +inf is the hard margin (no slacks; Weston et al.
// 2003, Problem 7, the l1-AROM step, on the rescaled data z*x). Non-uniform c is the linearised
// step of FSV / DCA (Neumann, Schnoerr & Steidl 2005, eq. (6), sec. 4.2.1:
// c_j = lambda alpha exp(-alpha v_j), C = 1 - lambda).
// The LP splits w = u - v with u, v >= 0 (a feature with c_j = 0 gets one free column instead)
// and has n rows and 2d + 1 + n columns. Its dual, whose multipliers are returned as alpha, is
//   max sum_i alpha_i  s.t.  |sum_i alpha_i y_i z_j x_ij| <= c_j,  sum_i alpha_i y_i = 0,
//                            0 <= alpha_i <= C s_i.
//
// RLP (Robust Linear Programming, Bennett & Mangasarian 1992; Neumann et al. 2005, eq. (1)):
//   min_{w,b} sum_i p_i (1 - y_i (w.x_i + b))_+ ,
// p_i = 1 as in Neumann et al. eq. (1), or p_i = 1/n_{y_i} (the original paper's weighting,
// n_{+-1} the class sizes). It is the problem above with c = 0, C = 1, s = p.
#pragma once

#include <cstdint>
#include <string>

#include "zeronorm/core/dataset.hpp"
#include "zeronorm/core/status.hpp"
#include "zeronorm/solvers/lp.hpp"

namespace zeronorm {

struct L1SvmOptions {
    double C = 1.0;               // slack cost, > 0; +inf: hard margin
    Vector feature_costs;         // c: d entries, finite, >= 0; empty = all 1
    Vector feature_scaling;       // z: d entries, finite; empty = all 1. The LP is built on
                                  // z_j x_ij directly (no scaled copy of X); z_j = 0 drops
                                  // feature j (w_j = 0, no LP columns).
    Vector sample_weights;        // s: n entries, finite, >= 0; empty = all 1 (soft margin only)
    double zero_tolerance = 1e-10;  // |w_j| <= zero_tolerance * max|w| counts as zero
    // Dual simplex by default: 2-3x faster than primal or CLP's automatic choice on colon
    // (62 x 2000), ionosphere and sonar; about even on n >> d (a9a, 3000 x 123).
    LpOptions lp = LpOptions::with_method(LpMethod::Dual);
    // The basis of an earlier solve (LpSvmResult::basis) on the same data: the primal simplex
    // starts from it (the successive-linearisation steps of FSV change only the costs). Used
    // when its size fits this LP (features with c_j = 0 or z_j = 0 change the layout); CLP
    // repairs a start that is not primal feasible. Empty: a cold solve by `lp.method`.
    LpBasis start;

    // InvalidArgument naming the field; DimensionMismatch for vectors of the wrong length.
    void validate(Index n_samples, Index n_features) const;
};

enum class RlpWeighting {
    Uniform,        // p_i = 1 (Neumann et al. 2005, eq. (1))
    ClassBalanced,  // p_i = 1 / n_{y_i} (Bennett & Mangasarian 1992)
};

struct RlpOptions {
    RlpWeighting weighting = RlpWeighting::Uniform;
    double zero_tolerance = 1e-10;
    // Primal simplex by default: fastest here on ionosphere, sonar, colon and a9a (free w columns).
    LpOptions lp = LpOptions::with_method(LpMethod::Primal);

    void validate() const;
};

struct LpSvmResult {
    // As in LpResult: Success exactly when (w, b, xi) is an optimal vertex; a hard margin on
    // data that no hyperplane separates is Infeasible (Unbounded cannot happen for valid
    // options: the objective is >= 0).
    Status status = Status::NumericalIssue;
    std::string message;

    Vector w;                     // d weights of the LP, i.e. for the scaled features z*x
    Vector weights_original;      // z * w: weights for the unscaled x (= w without scaling)
    double b = 0.0;
    Vector xi;                    // n slacks (zeros for the hard margin)
    Vector alpha;                 // n dual multipliers of the margin constraints (see above)
    double objective = 0.0;       // sum c_j |w_j| + C sum s_i xi_i (RLP: sum p_i xi_i)
    Index n_nonzero = 0;          // features with |w_j| > zero_tolerance * max|w|
    IndexVector selected;         // those features, ascending
    std::int64_t iterations = 0;  // simplex pivots
    double seconds = 0.0;         // building and solving the LP
    LpBasis basis;                // the LP's optimal basis (empty unless optimal)

    bool optimal() const { return status == Status::Success; }
    // x.weights_original + b for every row of X (unscaled data, d columns).
    Vector decision_function(const Matrix& X) const;
    // sign of the decision function as +-1 (0 maps to +1).
    Vector predict(const Matrix& X) const;
};

// X: n x d, finite; y: n labels, each -1 or +1, both classes present.
LpSvmResult train_l1_svm(const Matrix& X, const Vector& y, const L1SvmOptions& options = {});
LpSvmResult train_rlp(const Matrix& X, const Vector& y, const RlpOptions& options = {});

}  // namespace zeronorm
