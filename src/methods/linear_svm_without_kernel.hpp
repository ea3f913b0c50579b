// Internal: the linear soft-margin SVM (unregularised bias) solved without its n x n kernel,
// for the data sets whose kernel alone would take gigabytes. Not installed.
#pragma once

#include "solvers/ridge_svm_primal.hpp"
#include "zeronorm/solvers/svm.hpp"

namespace zeronorm::detail {

// Without a ridge (C finite) the SVM's dual is the l2-l1 dual with zero feature costs
// (dc_svm.hpp), whose interior point costs n d^2 per Newton step, at DcOptions' gap tolerance
// and pair-step cap, `warm` the starting beta (null: 0). With a ridge > 0 on the kernel's
// diagonal (C finite or inf) the primal is smooth and is solved directly by Newton steps
// (solve_ridge_svm_primal), warm-started from the w of `warm`. The dual as SMO reports it
// (beta, bias, objective 1/2 beta'(Q + ridge I) beta - e'beta, primal - dual gap, pair or
// Newton steps, status), so that it serves as a DualSolver for solve_svm_dual, and the primal
// weights.
LinearSvmSolution solve_linear_svm_without_kernel(const Matrix& X, const Vector& y, double C,
                                                  double ridge, const Vector* warm);

// From kKernelFreeSamples samples on the kernel alone takes 3.2 GB or more (20 GB at ijcnn1's
// 49,990 rows).
constexpr Index kKernelFreeSamples = 20'000;

// The interior point's betas at the bound come out within ~1e-12 C of it (the projection clips
// only those beyond); this margin keeps a hard-margin stage (solve_svm_dual) from taking them as
// free.
constexpr double kKernelFreeAtBoundTolerance = 1e-6;

// Whether the `svm` classifier (train, cv's per-split solves on kernel columns) trains
// train_svm's SVM without the kernel: a linear kernel with a bias, at most kKernelFreeFeatures
// features and at least max(kKernelFreeSvmSamples, 10 d) samples. Each Newton step takes n d^2
// and a (d + 1)-square solve, SMO's steps n d each (or n on a stored kernel), but on data with
// n >> d it takes millions of them: Gaussian classes at C = 1, n = 20,000 and d = 64 / 256:
// 0.48 / 5.2 s against SMO's 23 / 527 s (its step cap), d = 512 / 1024: 14 / 51 s; at C = 100,
// n = 5000 / 2000, d = 250 / 100: 0.52 / 0.07 s against 210 / 13.6 s, SMO stopped by its cap
// short of the optimum (objective 2 % / 0.02 % off).
constexpr Index kKernelFreeFeatures = 1024;
constexpr Index kKernelFreeSvmSamples = 2000;
bool trains_without_kernel(Index n_samples, Index n_features, const SvmOptions& options);
inline bool trains_without_kernel(const Dataset& data, const SvmOptions& options) {
    return trains_without_kernel(data.n_samples(), data.n_features(), options);
}

// Whether l2-AROM's and RFE's SVMs (fit_machines_without_kernel; ridge or not, a hard margin
// through solve_svm_dual's staged bounds) take this route on n samples and d features: where
// the `svm` classifier does (trains_without_kernel), and from kKernelFreeSamples on whatever d.
// SMO on the kernel, warm-started along the path, against this route (2 threads, the same
// subsets): at C = 1, ijcnn1 / a9a rows, n = 5000: 4.1 / 4.5 s against 0.43 / 1.1 s for
// l2-AROM, 4.0 / 30 s against 0.41 / 5.7 s for RFE; with a ridge on a hard margin (C = inf,
// ridge 0.01) on Gaussian data SMO takes millions of steps (Q's condition grows as 1 / ridge):
// 2000 x 200, l2-AROM 33 s against 0.22 s, and at 3000 x 64 it stopped at its step cap
// (10^7, 48 s) where the Newton steps took 0.06 s. At the rule's edge without a ridge, d =
// n / 10 = 500, l2-AROM took 12 s against SMO's 8.6 s (RFE 13 s against 55 s).
bool fits_without_kernel(Index n_samples, Index n_features);

// The dual of that SVM on X (n x d, host), labels y, smo's C and ridge, from `warm` (null: cold)
// by solve_linear_svm_without_kernel, the interior point's betas within
// kKernelFreeAtBoundTolerance C of zero set to zero (without a ridge; with one the primal's
// beta is exact), so that beta > 0 marks the support vectors.
SmoResult svm_dual_without_kernel(const Matrix& X, const Vector& y, const SmoOptions& smo,
                                  const Vector* warm);

// train_svm's SVM (the same checks, the same problem, its result in the same form) by
// svm_dual_without_kernel, at the solver's own gap tolerance: options.smo's C and ridge apply,
// its SMO settings (tolerance, iteration cap, cache, shrinking) do not. The model's support
// vectors are the samples with beta_i > 0 (the zeros dropped move w by 2e-9 of its norm on a9a
// at C = 1, 3e-6 at C = 100).
SvmTrainResult train_svm_without_kernel(const Dataset& data, const SvmOptions& options);

}  // namespace zeronorm::detail
