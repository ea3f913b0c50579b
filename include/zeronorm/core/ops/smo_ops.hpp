// The SMO operation set of a backend (Backend::smo()): the inner QP solver and its batched
// forms. Every problem is
//
//   min_beta  1/2 beta'Q beta + p'beta      Q_ij = y_i y_j (K_ij + ridge [i==j])
//   s.t.      y'beta = delta,   0 <= beta_i <= C
//
// with labels y = +-1. The SVM dual of smo.hpp is p = -1, delta = 0 (SmoTerms{}, the default);
// other linear terms and right-hand sides serve subproblems and variants (nu- and one-class
// forms, decomposition). The result's bias and KKT gap come from the gradient G = Q beta + p,
// its objective is 1/2 beta'(G + p).
#pragma once

#include <vector>

#include "zeronorm/core/backend.hpp"

namespace zeronorm {

// The linear term and the equality's right-hand side of one problem.
struct SmoTerms {
    Vector p;            // n entries; empty: all -1 (the SVM dual)
    double delta = 0.0;  // y'beta = delta
};

// The same for a batch of P problems.
struct SmoBatchTerms {
    Matrix p;      // n x P; empty: all -1
    Vector delta;  // P entries; empty: all 0
};

class SmoOps {
public:
    virtual ~SmoOps() = default;

    // SMO on a precomputed kernel K (n x n) in the backend's memory; labels y are +-1 of both
    // classes. warm_start, when given, is a starting beta: it is clipped to [0, C] and repaired
    // to y'beta = delta if needed. Without one the start is 0 (delta = 0), else delta spread
    // evenly over the class of its sign (InvalidArgument when that leaves the box).
    virtual SmoResult solve(const DeviceMatrix& K, const Vector& y, const SmoOptions& options,
                            const Vector* warm_start = nullptr, const SmoTerms& terms = {}) = 0;

    // SMO (the SVM dual, p = -1, delta = 0) with kernel columns computed on demand from X
    // (n x d) and cached (options.cache_mb), for n too large for a full kernel matrix. The CUDA
    // backend forms the n x n kernel in device memory when it fits, and otherwise runs
    // solve_smo_decomposition with a kernel-column cache in the free device memory
    // (OutOfDeviceMemory, with the bytes it needed, when not even the working set's columns
    // fit); the CPU backend runs LIBSVM's scheme with its column cache.
    virtual SmoResult solve(const KernelSpec& spec, const DeviceMatrix& X, const Vector& y,
                            const SmoOptions& options, const Vector* warm_start = nullptr) = 0;

    // SMO on the dual restricted to a working set B of a larger problem (decomposition, as in
    // solve_smo_decomposition): K (q x q) is the kernel among B's points, y their labels (+-1,
    // one class allowed), beta their current values (within [0, C]) and gradient the whole
    // problem's gradient on B there ((Q beta - 1)_B). Solves
    //   min_b 1/2 b'Q_BB b + (gradient - Q_BB beta)'b,  0 <= b <= C,  y'b = y'beta
    // from b = beta to options.tolerance (KKT gap of the subproblem) or options.max_iterations,
    // without shrinking. Returns b as beta, with iterations, status and the subproblem's gap.
    virtual SmoResult solve_working_set(const DeviceMatrix& K, const Vector& y, const Vector& beta,
                                        const Vector& gradient, const SmoOptions& options) = 0;

    // solve with the same options for every problem, on the P = Y.cols() kernels of K
    // (n x (n P)) with labels Y (n x P, +-1) and the terms of each problem. warm_start (n x P),
    // when given, holds the starting betas. Only the problems with active[p] != 0 are solved
    // (empty: all); the others get an empty result (beta of size 0). Each result equals solve's
    // on its problem up to rounding.
    virtual std::vector<SmoResult> solve_batch(const DeviceMatrix& K, const Matrix& Y,
                                               const SmoOptions& options,
                                               const Matrix* warm_start = nullptr,
                                               const std::vector<char>& active = {},
                                               const SmoBatchTerms& terms = {}) = 0;

    // The Newton finish of the dense dual (solve_dense_dual's, dense_dual.hpp) for a batch of
    // problems: for each p with open[p] != 0, from the SMO point beta(:, p) on the kernel of
    // block p of K (n x (n P)) with labels Y(:, p) (+-1), the terms of problem p and options.C /
    // options.ridge, up to kNewtonRounds active-set rounds of the stationarity system of the
    // free variables with the equality constraint. Returns, where a round met
    // options.tolerance (KKT gap of the full gradient), the solution (status Success with beta,
    // bias, objective and gap, iterations 0); elsewhere, and where the free set emptied or the
    // system was singular, an empty result (beta of size 0). Both backends give the host rule's
    // answer (detail::newton_finish): CUDA runs one thread block per problem, its system in
    // shared memory, and hands the problems whose Cholesky factorisation fails (a singular or
    // indefinite system, which the host's pivoted LDLT may still solve) and those above the
    // device's shared-memory limit to the host code.
    virtual std::vector<SmoResult> newton_finish_batch(const DeviceMatrix& K, const Matrix& Y,
                                                       const Matrix& beta,
                                                       const SmoOptions& options,
                                                       const std::vector<char>& open,
                                                       const SmoBatchTerms& terms = {}) = 0;
};

}  // namespace zeronorm
