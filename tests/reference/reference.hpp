// The reference the backends are tested against: each primitive written once more as plain
// loops over its definition (the kernel formulas of kernel.hpp, the per-split standardisation of
// preprocess.hpp, the AROM update of Weston et al. 2003 sec. 3.1, the SVM dual and its KKT
// conditions), on host matrices. Nothing here calls the library's computations, so a test that
// compares a backend with these functions fails when the backend is wrong, CPU included.
// Slow on purpose: small, obviously correct loops, not fast ones.
#pragma once

#include <optional>
#include <vector>

#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/kernel.hpp"
#include "zeronorm/core/ops/alignment_ops.hpp"
#include "zeronorm/core/ops/arom_ops.hpp"

namespace zeronorm::reference {

// ---- kernels -------------------------------------------------------------------------------
// k(a, b) for two points of d features by the formula of its KernelType.
double kernel_value(const KernelSpec& spec, const Vector& a, const Vector& b);

// K_ij = k(z .* a_i, z .* b_j) for the rows of A and B (z all ones when null).
Matrix kernel_matrix(const KernelSpec& spec, const Matrix& A, const Matrix& B,
                     const Vector* z = nullptr);

// Block p of A (m x d batch) against block p of B: m x (l batch).
Matrix kernel_batch(const KernelSpec& spec, Index batch, const Matrix& A, const Matrix& B);

// (A_p diag z_p)(B_p diag z_p)' for the P = Z.cols() blocks; Float32 rounds the scaled operands
// to float and sums in float.
Matrix scaled_gram_batch(const Matrix& A, const Matrix& B, const Matrix& Z,
                         Precision precision = Precision::Float64);

// ---- gathers -------------------------------------------------------------------------------
Matrix select_rows(const Matrix& X, const IndexVector& rows);
Matrix select_columns(const Matrix& X, const IndexVector& cols);

// Centres and scales the columns of `train` and `test` by the mean and population standard
// deviation of train's columns; a constant column is centred on its value with scale 1.
void standardize(Matrix& train, Matrix& test);

// The train and test blocks of every split, each standardised by its own training rows when
// asked (Backend::split_batch).
struct Splits {
    Matrix train, test;
};
Splits split_batch(const Matrix& X, const std::vector<IndexVector>& train_rows,
                   const std::vector<IndexVector>& test_rows, bool standardize);

// Block q: rows[q] x cols[q] of block source[q] of K (Backend::gather_blocks).
Matrix gather_blocks(const Matrix& K, Index block_width, const IndexVector& source,
                     const std::vector<IndexVector>& rows, const std::vector<IndexVector>& cols);

// ---- dense algebra by triple loops ---------------------------------------------------------
// alpha op(A) op(B) + beta C (C not read when beta = 0).
Matrix gemm(bool trans_a, bool trans_b, double alpha, const Matrix& A, const Matrix& B,
            double beta, const Matrix& C);
// The same for each of `batch` blocks of A, B and C.
Matrix gemm_batch(Index batch, bool trans_a, bool trans_b, double alpha, const Matrix& A,
                  const Matrix& B, double beta, const Matrix& C);
// alpha A A' + beta C (trans false) or alpha A' A + beta C (trans true), C taken as symmetric
// from its lower triangle; both triangles of the result written.
Matrix syrk(bool trans, double alpha, const Matrix& A, double beta, const Matrix& C);
// diag(r) X diag(c) + shift on the diagonal (empty scale vectors: ones).
Matrix scale_rows_columns(const Matrix& X, const Vector& r, const Vector& c, double shift);
// The lower Cholesky factor of A (lower triangle read; zeros above), or nothing when a pivot is
// not positive and finite.
std::optional<Matrix> cholesky(const Matrix& A);
// op(L)^-1 B (left) or B op(L)^-1 (right), op = transpose when asked; L's upper triangle unread.
Matrix triangular_solve(const Matrix& L, bool transpose, bool on_the_right, const Matrix& B);

// ---- AROM ----------------------------------------------------------------------------------
// One column of Backend::multiplicative_update_batch: u = z .* |z .* w|, normalized = u /
// max(u), next = normalized with the entries <= tolerance set to 0. Without update, or when u is
// all zero or not finite (degenerate), both copy z (summary zeros but the degenerate flag).
struct AromColumn {
    Vector normalized, next;
    ScaleUpdate summary;
};
AromColumn arom_update(const Vector& z, const Vector& w, bool update, double prune_tolerance);

// AlignmentOps::weighted_kernel_sum_batch for one weight vector, by its definition: every pair,
// every feature, value = sum_ij Y_ij K_ij, gradient_k = -sum_ij Y_ij K_ij D(x_ik, x_jk).
double weighted_kernel_sum(const AlignmentKernelSpec& spec, const Matrix& X, const Matrix& Y,
                           const Vector& theta, Vector& gradient);
// AlignmentOps::cross_kernel_sum_batch for one weight vector, by its definition: every pair
// (a_i, b_j), every feature.
double cross_kernel_sum(const AlignmentKernelSpec& spec, const Matrix& A, const Matrix& B,
                        const Matrix& Y, const Vector& theta, Vector& gradient);

// AlignmentOps::gaussian_removal_sums by its definition: for every feature left out (and none,
// last), the Gaussian kernel rebuilt over the other features and sum_ij v_i v_j K_ij.
std::vector<double> gaussian_removal_sums(double scale, const Matrix& X, const Vector& v);

// ---- the SVM dual --------------------------------------------------------------------------
//   min_beta 1/2 beta'Q beta + p'beta   s.t.  y'beta = delta,  0 <= beta <= C
// (C may be +inf). The SVM dual has Q = diag(y)(K + ridge I)diag(y), p = -1, delta = 0.
struct Dual {
    Matrix Q;
    Vector p, y;
    double delta = 0.0;
    double C = 1.0;
};
Dual svm_dual(const Matrix& K, const Vector& y, double C, double ridge);

double dual_objective(const Dual& dual, const Vector& beta);

// The maximal KKT violation m(beta) - M(beta) (Keerthi et al. 2001): with G = Q beta + p,
// max of -y_t G_t over I_up = {y_t = +1, beta_t < C} u {y_t = -1, beta_t > 0} minus its min over
// I_low = {y_t = +1, beta_t > 0} u {y_t = -1, beta_t < C}; 0 when either set is empty.
double kkt_gap(const Dual& dual, const Vector& beta);

// An exact solution: beta, the equality multiplier nu (the SVM's bias b = nu: y_i f(x_i) = 1 on
// the free variables), the objective and the KKT gap.
struct DualSolution {
    Vector beta;
    double nu = 0.0;
    double objective = 0.0;
    double gap = 0.0;
};

// A primal-dual interior-point method finds the active set, then active-set rounds on the
// free-set system (dense solves) make the solution exact. Throws std::runtime_error if no
// round satisfies the KKT conditions to rounding.
DualSolution solve_dual(const Dual& dual);

// The Newton finish of Backend::newton_finish_batch for one SVM problem, by its rule: from the
// sides of coarse_beta (>= C upper, > 0 free, else lower), up to `rounds` rounds of: solve the
// free-set system (stationarity of the free variables and the equality constraint, bounded
// variables at their bounds); free variables outside (0, C) go to the bound they crossed and the
// round repeats; else the solution is returned if its KKT gap <= tolerance, and otherwise the
// bounded variables whose multiplier G_i + nu y_i has the wrong sign become free. Nothing when
// the free set empties, the system is singular or no round succeeds.
std::optional<DualSolution> newton_finish(const Matrix& K, const Vector& y, double C,
                                          double ridge, double tolerance,
                                          const Vector& coarse_beta, int rounds);

}  // namespace zeronorm::reference
