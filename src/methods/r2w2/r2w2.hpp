// Internal: the pieces of R2W2 (r2w2.cpp) that the tests check one by one: the radius QP, the
// kernel derivatives' weighted sums, the bound with its gradient at one sigma, and the descent of
// one round. Not installed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "methods/selection_common.hpp"
#include "zeronorm/core/backend.hpp"
#include "zeronorm/methods/r2w2.hpp"

namespace zeronorm::detail {

// R^2 of the points whose kernel matrix is K (n x n, host): the QP
//   max_b  sum_i b_i K_ii - b'K b   s.t.  b >= 0, sum_i b_i = 1
// by SMO on pairs of the simplex (the largest violation of the KKT conditions each step; the
// SMO operation set needs two label classes and has no constraint sum_i b_i = 1 of one class,
// and n is small here), from `start` (projected to the simplex; empty: 1/n each), to a KKT gap
// max_{b_j > 0} g_j - min_i g_i <= tolerance * max(1, max_i K_ii), g = 2 K b - diag(K).
struct RadiusSolution {
    Vector beta;
    double radius2 = 0.0;
    double kkt_gap = 0.0;
    std::int64_t iterations = 0;
};
RadiusSolution solve_radius_qp(const Matrix& K, const Vector& start = Vector(),
                               double tolerance = 1e-12, std::int64_t max_iterations = 1'000'000);

// S_k = sum_ij A_ij dK_ij / dsigma_k for every feature k, with K the kernel (options.kernel,
// gamma) on X * diag(sigma) and A symmetric (n x n), on the backend: linear 2 sigma_k x_k'A x_k
// (one GEMM, column dots); Gaussian -2 gamma sigma_k sum_ij A_ij K_ij (x_ik - x_jk)^2, which is
// 2 sigma_k times the gradient of the kernel-target alignment operation set at theta = sigma^2,
// scale gamma, pair weights A (AlignmentOps: one n x n pass, one GEMM, column reductions).
Vector kernel_derivative_sums(Backend& backend, const DeviceMatrix& X, const Vector& sigma,
                              R2w2Kernel kernel, double gamma, const Matrix& A);

// The bound and its gradient at one sigma: T = R^2 sum_k W^2_k over the machines, W^2_k the
// SVM's optimal dual value (sum beta - 1/2 beta'Q beta; |w|^2 / 2 for a hard margin), R^2 on the
// kernel with the SVMs' ridge on its diagonal (Chapelle et al. 2002 for the 2-norm soft margin).
// Gradient by the envelope theorem (beta and b fixed at their optima):
//   dW^2_k/dsigma = -1/2 sum_ij v_i v_j dK_ij/dsigma (v = beta_k .* y_k),
//   dR^2/dsigma   = sum_i b_i dK_ii/dsigma - sum_ij b_i b_j dK_ij/dsigma,
//   dT/dsigma     = R^2 sum_k dW^2_k/dsigma + (sum_k W^2_k) dR^2/dsigma.
struct R2w2Point {
    Vector sigma;
    double bound = 0.0;
    double radius2 = 0.0;
    double w2 = 0.0;  // sum over the machines
    Vector gradient;
    std::vector<SmoResult> duals;  // per machine
    Vector radius_beta;            // b (1/n each for the variance)
    Status status = Status::Success;  // the first machine's SMO status that is not Success
};

// The warm starts of the SVMs (one beta per machine) and of the radius QP, kept across rounds
// (the samples stay; only the columns change).
struct R2w2Warm {
    std::vector<Vector> svm;
    Vector radius;
};

// Evaluates the bound on the columns of X (host, n x d) for one set of machines, warm-starting
// every solve from the last accepted point (held in `warm`).
class R2w2Objective {
public:
    R2w2Objective(Backend& backend, const Matrix& X, const Machines& machines,
                  const SelectionOptions& options, double gamma, R2w2Warm& warm);
    // The bound at sigma (d entries, >= 0), warm-started from accept()'s point; `where` names the
    // SVMs in messages. Throws NumericalError where a hard-margin SVM finds no solution.
    R2w2Point evaluate(const Vector& sigma, const std::string& where);
    // Makes `point` the warm start of later evaluations.
    void accept(const R2w2Point& point);

private:
    Backend& backend_;
    const Matrix& X_;
    DeviceMatrix X_dev_;  // X in the backend's memory, for the gradient's pair sums
    const Machines& machines_;
    const SelectionOptions& options_;
    double gamma_;
    R2w2Warm& warm_;
};

// The descent of one round from sigma (R2w2Options: step, halving, stop). bounds[0] is the bound
// at the start, then one entry per accepted step (strictly decreasing); on_point, when given,
// sees the starting point and every accepted one. SVMs stopped at their iteration cap end the
// round: at the start (no step; status NumericalIssue) or at a trial (rejected).
struct R2w2Descent {
    R2w2Point point;  // the last accepted point
    std::vector<double> bounds;
    Status status = Status::Success;
};
R2w2Descent descend_r2w2(R2w2Objective& objective, const Vector& sigma,
                         const R2w2Options& options, const std::string& where,
                         const std::function<void(const R2w2Point&)>& on_point = {});

// The ranker: gamma = options.r2w2.gamma, or 1/d when 0 (d of the data, every round).
Ranking run_r2w2(Backend& backend, const Dataset& data, const Machines& machines,
                 const SelectionOptions& options, const IndexVector& counts_desc);

}  // namespace zeronorm::detail
