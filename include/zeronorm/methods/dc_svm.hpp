// Feature selection by d.c. programming (Neumann, Schnoerr & Steidl 2005, "Combined SVM-based
// feature selection and classification", Machine Learning 61; sec. 2-4): FSV, the l2-l1-SVM and
// the l2-l0-SVM, with the paper's symbols. Data X (n x d), labels y in {-1, +1}.
//
// FSV (eq. (6); Bradley & Mangasarian 1998; Weston et al. 2003, Problem 2):
//   min_{w,b,v}  (1 - lambda) (1/n) sum_i (1 - y_i (w.x_i + b))_+ + lambda sum_j (1 - e^{-alpha v_j})
//   s.t.         -v <= w <= v.
// The paper prints the loss as e'xi; its selected dimensions (Table II: 0-20 features for lambda
// in 0.05..0.95 on 150-500 samples) fit the averaged errors of Bradley & Mangasarian, which we
// therefore use: the mean hinge (or, FsvLoss::ClassMean, the sum of the two class means).
// Solved by successive linearisation (sec. 4.2.1, Cor. 2 = DCA with a vertex LP per step):
// v^0 = e; step k minimises (1 - lambda) mean xi + sum_j lambda alpha e^{-alpha v_j^k} v_j
// (an l1-SVM LP with per-feature costs, lp_svm.hpp), v^{k+1} = |w^{k+1}|.
//
// l2-l1-SVM (eq. (7)), convex:  min_{w,b}  (mu/n) sum_i hinge_i + 1/2 |w|^2 + nu sum_j |w_j|,
// i.e. C sum_i hinge_i + 1/2 |w|^2 + sum_j c_j |w_j| with C = mu/n and c_j = nu (our reading of
// the paper's weights: mu multiplies the mean hinge, nu the l1 norm; sec. 5.2.2 searches
// ln mu in {0..10}, ln nu in {-5..5}). Its dual (S_c the soft-threshold by c):
//   max_beta  e'beta - 1/2 |S_c(X'(beta o y))|^2   s.t.  0 <= beta <= C,  y'beta = 0,
// with w = S_c(X'(beta o y)); solved by solve_l2_l1_svm_batch below.
//
// l2-l0-SVM (eq. (8), sec. 4.2.2):
//   min_{w,b}  (mu/n) sum_i hinge_i + 1/2 |w|^2 + nu sum_j (1 - e^{-alpha |w_j|}),
// by DCA: v^0 = e; step k is the l2-l1-SVM with c_j = nu alpha e^{-alpha v_j^k}, warm-started
// from the previous step's dual; v^{k+1} = |w^{k+1}|.
//
// Every DCA stops when min(|v_j^{k+1} - v_j^k|, |v_j^{k+1} - v_j^k| / |v_j^k|) <= tolerance for
// all j (Algorithm 4.1), or with Status::NoConvergence at max_iterations. FSV also stops, as
// the SLA (Algorithm 4.2), when a step's LP does not improve on the previous iterate (a
// degenerate LP's alternative optimal vertices would otherwise let v cycle). Selected features:
// |w_j| > support_threshold (1e-8, the count of sec. 5.2.3), ranked by |w_j|.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/dataset.hpp"
#include "zeronorm/core/status.hpp"
#include "zeronorm/solvers/lp.hpp"

namespace zeronorm {

enum class FsvLoss {
    Mean,       // (1/n) sum_i xi_i
    ClassMean,  // sum_i xi_i / n_{y_i}  (Bradley & Mangasarian 1998)
};

struct DcOptions {
    double lambda = 0.5;         // FSV weight of the feature penalty, in [0, 1) (0: RLP)
    double mu = 100.0;           // l2-l1 / l2-l0: weight of the mean hinge, > 0
    double nu = 1.0;             // l2-l1: l1 weight; l2-l0: weight of the l0 surrogate, >= 0
    double alpha = 5.0;          // concave surrogate 1 - e^{-alpha v}, > 0 (sec. 5.2.2)
    double tolerance = 1e-5;     // DCA stop on v (sec. 5.2.2), >= 0
    std::int64_t max_iterations = 1000;  // DCA steps
    FsvLoss fsv_loss = FsvLoss::Mean;
    double support_threshold = 1e-8;     // |w_j| above it counts as selected
    // Inner l2-l1 dual: stop at relative duality gap (P - D) / P <= gap_tolerance.
    double gap_tolerance = 1e-8;
    std::int64_t max_inner_iterations = 200000;  // SMO pair steps per solve
    LpOptions lp = LpOptions::with_method(LpMethod::Dual);  // FSV's LPs (L1SvmOptions::lp)
    // Quadratic FSV's LP (a cold solve starts its grid; the later steps resume from an optimal
    // basis by the primal simplex whatever the method). Primal by default: a feasible point is
    // at hand (w = 0, v = 0, xi = 1), and the first LP took 28 s by the primal simplex
    // against 90 s by the dual and 84 s by CLP's automatic choice on sonar (208 x 60: 1890
    // monomials, 7528 rows), 5.0 / 9.5 / 11.2 s on ionosphere, half the time on pima and bcw.
    LpOptions quadratic_lp = LpOptions::with_method(LpMethod::Primal);
    // Quadratic FSV refuses data whose d(d+3)/2 monomials exceed this (its LP has that many
    // free columns plus n + 1 + d, and n + 2d(d+1) rows: 5000 monomials is d = 98, an LP CLP
    // solves in seconds to minutes; musk's d = 166, which the paper skips, gives 14027).
    Index quadratic_max_monomials = 5000;

    // InvalidArgument naming the field (lambda, mu, nu, alpha, ...).
    void validate() const;
};

// One DCA step: the objective of the non-convex problem at the new iterate, its nonzero count
// and the change of v (the largest min(|dv_j|, |dv_j / v_j|), the quantity compared with tol).
struct DcIteration {
    double objective = 0.0;
    Index nonzeros = 0;
    double v_change = 0.0;
};

struct DcResult {
    // Success: the DCA stopping rule held. NoConvergence: max_iterations reached (w is the last
    // iterate). NumericalIssue / Infeasible: an inner LP or dual solve failed (message says).
    Status status = Status::NumericalIssue;
    std::string message;
    Vector w;                    // d weights
    double b = 0.0;
    double objective = 0.0;      // of the problem solved (eq. (6), (7) or (8)) at (w, b)
    IndexVector selected;        // |w_j| > support_threshold, by decreasing |w_j|
    // Quadratic FSV: w holds the weights of the quadratic monomials (quadratic_features' column
    // order) and feature_bounds the d values v_j = max |w_i| over the monomials containing
    // feature j, by which `selected` is ranked. Empty for the linear methods.
    Vector feature_bounds;
    std::vector<DcIteration> trace;
    std::int64_t iterations = 0;        // DCA steps (1 for the convex l2-l1-SVM)
    std::int64_t inner_iterations = 0;  // simplex pivots or dual gradient steps, summed
    double seconds = 0.0;

    bool converged() const { return status == Status::Success; }
};

// Throws InvalidArgument for bad options, labels other than +-1 or one class only, non-finite
// X, or sizes that do not fit.
DcResult train_fsv(const Matrix& X, const Vector& y, const DcOptions& options = {});
DcResult train_l2_l1_svm(const Matrix& X, const Vector& y, const DcOptions& options = {});
DcResult train_l2_l0_svm(const Matrix& X, const Vector& y, const DcOptions& options = {});

// ---- grids: one problem per parameter value on one data set, solved together -----------------
// (the validation protocol of sec. 5.2.2 fits a whole grid per training set). Each result is
// what the single-problem call above gives for that value; its `seconds` is the whole grid's.
//
// FSV at every lambda of `lambdas` (options.lambda is not used): the DCAs advance together, one
// vertex LP per problem and step.
std::vector<DcResult> train_fsv_grid(const Matrix& X, const Vector& y,
                                     const std::vector<double>& lambdas,
                                     const DcOptions& options = {});
// The l2-l1-SVM at every pair (mu[p], nu[p]) (options.mu, options.nu are not used), by
// solve_l2_l1_svm_batch in stages of equal mu, increasing: each stage is one batch, started from
// the previous stage's duals at the nearest nu (feasible, as the box 0 <= beta <= mu/n grows).
std::vector<DcResult> train_l2_l1_svm_grid(const Matrix& X, const Vector& y,
                                           const std::vector<double>& mu,
                                           const std::vector<double>& nu,
                                           const DcOptions& options = {});
// The l2-l0-SVM at every pair: the DCAs advance together, each step one batched dual solve of
// the problems still running, each warm-started from its own previous step.
std::vector<DcResult> train_l2_l0_svm_grid(const Matrix& X, const Vector& y,
                                           const std::vector<double>& mu,
                                           const std::vector<double>& nu,
                                           const DcOptions& options = {});
// The two grids with their l2-l1 duals through `backend` (solve_l2_l1_svm_batch(backend, ...):
// where n <= d as batched rounds of box QPs on the backend, else the host solver).
std::vector<DcResult> train_l2_l1_svm_grid(Backend& backend, const Matrix& X, const Vector& y,
                                           const std::vector<double>& mu,
                                           const std::vector<double>& nu,
                                           const DcOptions& options = {});
std::vector<DcResult> train_l2_l0_svm_grid(Backend& backend, const Matrix& X, const Vector& y,
                                           const std::vector<double>& mu,
                                           const std::vector<double>& nu,
                                           const DcOptions& options = {});

// ---- quadratic FSV (eq. (9), sec. 4.2.3) ----------------------------------------------------
// FSV on the explicit quadratic map phi(x) = (x_j; x_j x_k for j <= k), d' = d(d+3)/2, with one
// v_j per original feature bounding every monomial that contains feature j:
//   min (1 - lambda) mean_i (1 - y_i (w.phi(x_i) + b))_+ + lambda sum_j (1 - e^{-alpha v_j})
//   s.t. -v_j <= w_i <= v_j for every monomial i containing feature j
// (the paper's condition phi_i(e_j) != 0 read as "x_j occurs in monomial i": taken literally it
// would leave the cross terms unbounded). The DCA (v^0 = e) solves one LP per step through
// solve_lp, stopping as FSV does. `selected` holds the original features with v_j > 1e-8.
// Throws InvalidArgument when d(d+3)/2 > options.quadratic_max_monomials, naming the sizes.
Matrix quadratic_features(const Matrix& X);  // n x d(d+3)/2: x_j, then x_j x_k for j <= k
DcResult train_quadratic_fsv(const Matrix& X, const Vector& y, const DcOptions& options = {});
std::vector<DcResult> train_quadratic_fsv_grid(const Matrix& X, const Vector& y,
                                               const std::vector<double>& lambdas,
                                               const DcOptions& options = {});

// ---- the l2-l1 dual, for P problems on one data set at once --------------------------------
//
// Problem p: box bound C[p], feature costs costs.col(p) (d x P, >= 0). Each problem is solved
// by SMO on the dual: a step moves a pair (i, j) along beta_i += y_i t, beta_j -= y_j t (y'beta
// stays 0) to the exact maximiser on that line within the box. Along the line the dual's
// derivative y_i - y_j - a'S_c(u + t a) (a = x_i - x_j, u = X'(beta o y)) is piecewise linear
// and non-increasing, so the step is its root, found by safeguarded Newton steps over the
// pieces, on only the features that can reach their threshold within the step. The pair is
// chosen by the second-order rule of Fan, Chen & Lin (2005) with the curvature |x_i - x_j|^2
// over the current support of w. Steps run on a working set of features: those with w_k != 0
// and the few hundred nearest their threshold; a feature outside it provably stays at w_k = 0
// until beta has travelled its slack (c_k - |u_k|) / max_i |x_ik| in l1 or
// (c_k - |u_k|) / |x_k - mean(x_k)| in l2, steps are capped to that budget and the set is
// rebuilt (twice as large) when it runs out. A step costs O(|working set|) plus n per feature
// whose w changed. A step that cannot move beta in floating point ends the pair steps (after
// one recomputation of the state and the interior-point method below).
// Pair steps stall where the dual is degenerate (large C with fewer support features than
// free samples: many optimal beta, one w). Two things end those problems:
//  - the face's primal point: with the free samples, those at C and the support and signs of
//    w fixed, the optimality conditions are one linear system whose solution gives the unique
//    primal (w, b) even when beta is not unique (least squares); tried every 2n steps;
//  - after 20 n + 100 pair steps (d + 100 where n > d), a primal-dual interior-point method
//    (Mehrotra) on the dual written as a bound-constrained QP in (beta, v) with
//    1/2 S_c(u)^2 = min_{|v|<=c} 1/2|u-v|^2, over the features J in or near the support
//    (violators join and it reruns): 20-70 Newton steps, up to 200 on degenerate duals, each
//    one Cholesky of an n x n system where n <= |J|, else of the |J| x |J| one the Woodbury
//    identity leaves (n |J|^2, no n x n storage), whose answer's face gives the primal point.
//    Where n > d it is the main solver of a cold start (pima's tenfold l2-l1 row 15x faster
//    than by pair steps, ijcnn1's 50,000 samples in under a second where pair steps missed the
//    gap after 200,000).
// A problem stops when its relative duality gap (P - D) / P <= gap_tolerance, P the primal at
// the best primal point found (bias optimal for its w), D the dual at the current beta, both
// recomputed from beta before a stop is accepted.
// The problems of a batch share X and X' and run one after the other; on a device they would be
// one block each, as the one-warp SMO of the AROM batch.
struct L2L1BatchResult {
    Matrix beta;                 // n x P dual solutions
    Matrix w;                    // d x P
    Vector b;                    // P biases (optimal for w)
    Vector primal;               // P primal objectives at (w, b)
    Vector dual;                 // P dual objectives at beta
    std::vector<Status> status;  // Success when the gap target was met, else NoConvergence
    std::vector<std::int64_t> iterations;
};

// warm_beta: n x P starting points (projected first) or empty (beta = 0).
L2L1BatchResult solve_l2_l1_svm_batch(const Matrix& X, const Vector& y, const Vector& C,
                                      const Matrix& costs, const Matrix& warm_beta,
                                      double gap_tolerance, std::int64_t max_iterations);

// The same through a backend. Where n <= d (microarray data, the degenerate large-box duals that
// make pair steps crawl) the batch runs as rounds of box QPs over the soft-threshold's pieces
// (active features and signs fixed: kernels X_J X_J' by one scaled Gram batch, one batched n x n
// dense dual, products with X for u, the linear terms and the line search), each round's step
// taken with the exact line search on the dual, so the dual improves monotonically and the
// optimum is reached once the pieces are right; problems still short of gap_tolerance after 30
// rounds finish on the host pair solver from that point (src/methods/dc/l2_l1_active_set.hpp).
// On CUDA the rounds are device work; on the CPU they beat the pair solver too where n <= d
// (one fold's 121-point l2-l0 grid on colon: 6.8 s against 14.2 s at n = 56, 2.7 s against
// 4.0 s at n = 31, the same results) and lose where n >> d (ionosphere, n = 158, d = 34: 46 s
// against 5.3 s), which keeps the host solver above.
L2L1BatchResult solve_l2_l1_svm_batch(Backend& backend, const Matrix& X, const Vector& y,
                                      const Vector& C, const Matrix& costs,
                                      const Matrix& warm_beta, double gap_tolerance,
                                      std::int64_t max_iterations);

// {j : |w_j| > threshold}, by decreasing |w_j| (ties: smaller index first).
IndexVector ranked_support(const Vector& w, double threshold);

// The objectives, exposed for tests: the l2-l1 primal sum_i C hinge_i + 1/2|w|^2 + c'|w| and
// dual e'beta - 1/2 |S_c(X'(beta o y))|^2, and the bias minimising the hinge sum for w.
double l2_l1_primal(const Matrix& X, const Vector& y, double C, const Vector& costs,
                    const Vector& w, double b);
double l2_l1_dual(const Matrix& X, const Vector& y, const Vector& costs, const Vector& beta);
double optimal_bias(const Vector& f, const Vector& y);

}  // namespace zeronorm
