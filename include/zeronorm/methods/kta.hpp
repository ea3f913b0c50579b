// Kernel-target alignment feature selection (Neumann, Schnoerr & Steidl 2005, sec. 3.2.2, 4.2.4):
// weights theta in [0, 1]^d inside a Gaussian (or chi-square, sec. 6) kernel minimise
//   f(theta) = -(1 - lambda) 1/2 y_n' K_theta y_n + (lambda / d) sum_j (1 - exp(-alpha theta_j)),
// y_n = (y_i / n_{y_i}), by DCA from theta = e / 2: g = (1 - lambda) u+' K u- (u+- the class
// indicators over the class sizes, the cross-class pairs, convex in theta), h = (1 - lambda) / 2
// (u+' K u+ + u-' K u-) - the penalty; each step minimises g(theta) - theta' grad h(theta^k) over
// the box by L-BFGS-B (LBFGSpp). The sums and gradients run on the backend (AlignmentOps).
#pragma once

#include <cstdint>
#include <tuple>
#include <vector>

#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/ops/alignment_ops.hpp"
#include "zeronorm/core/status.hpp"
#include "zeronorm/solvers/svm.hpp"

namespace zeronorm {

struct KtaOptions {
    AlignmentKernel kernel = AlignmentKernel::Gaussian;
    double lambda = 0.0;   // weight of the feature penalty, in [0, 1) (0: the alignment alone)
    double alpha = 5.0;    // concave penalty 1 - exp(-alpha theta_j), > 0
    double width = 0.0;    // Gaussian sigma, > 0; 0: sqrt(d) / 2 (sec. 5.2.2)
    double rho = 1.0 / 2048.0;  // chi-square rho (2^-11, sec. 6), > 0
    double tolerance = 1e-3;    // DCA stops when max_j |theta_j - theta_j previous| < this
    std::int64_t max_iterations = 1000;  // DCA steps
    // L-BFGS-B inside each step stops when the projected gradient's largest entry is below
    // inner_tolerance times the largest entry of the subproblem's gradient at theta^k (or 1e-14),
    // or after inner_max_iterations iterations.
    double inner_tolerance = 1e-8;
    int inner_max_iterations = 200;
    double threshold = 1e-2;  // theta_j above it: selected (sec. 5.2.3)
    // The final classifier's weight lambda_s of the SVM (3), (1 - lambda_s) hinge + lambda_s / 2
    // |w|^2, in (0, 1): box bound C = (1 - lambda_s) / lambda_s (0.5: C = 1). Validated over
    // (1 - lambda_s) / lambda_s in {e^-5, ..., e^5} by the protocol (sec. 5.2.2).
    double svm_lambda = 0.5;

    void validate() const;  // InvalidArgument naming the field

    // Everything that shapes the DCA and the selection, i.e. every field but svm_lambda: two
    // option sets with equal fields here select the same features (a validation grid fits the
    // DCA once for all SVM weights).
    auto dca_fields() const {
        return std::tie(kernel, lambda, alpha, width, rho, tolerance, max_iterations,
                        inner_tolerance, inner_max_iterations, threshold);
    }
    bool same_dca(const KtaOptions& other) const { return dca_fields() == other.dca_fields(); }
};

// A field added to KtaOptions must join dca_fields when it shapes the DCA (the size check, on
// 64-bit targets, is the reminder).
static_assert(sizeof(void*) != 8 || sizeof(KtaOptions) == 88,
              "KtaOptions changed: check KtaOptions::dca_fields");

struct KtaStep {
    double objective = 0.0;  // f(theta^k) after step k
    double change = 0.0;     // max_j |theta^k_j - theta^{k-1}_j|
    Index selected = 0;      // theta^k_j > threshold
    int inner_iterations = 0;
};

struct KtaResult {
    Vector theta;                 // d weights in [0, 1]
    IndexVector selected;         // theta_j > threshold, by decreasing theta
    double initial_objective = 0; // f(e / 2)
    std::vector<KtaStep> trace;   // one entry per DCA step
    std::int64_t iterations = 0;
    Status status = Status::Success;  // NoConvergence: max_iterations reached
    double sigma = 0.0;           // the Gaussian width used
};

// The final classifier of sec. 3.2.2 / 4.2.4: the SVM without bias, f(x) = sum_i beta_i y_i
// K_theta(x_i, x), on the selected features with their theta inside the kernel. Gaussian:
// kernel weighted-rbf with gamma = 1 / (2 sigma^2) and theta restricted to the selected columns
// (column_scale empty). Chi-square: theta_k D(x_k, z_k) = D(theta_k x_k, theta_k z_k) (D is
// homogeneous of degree 1), so it is the chi2 kernel (gamma = rho) on the selected columns
// scaled by theta, and column_scale holds those theta.
struct KtaClassifier {
    IndexVector selected;  // columns of the original data, in the order of model's inputs
    Vector column_scale;   // inputs are X(:, selected) times these (empty: unscaled)
    SvmModel model;        // n_support() support vectors, bias 0
    SmoResult dual;

    // f(x) for the rows of X (all the original columns).
    Vector decision_function(Backend& backend, const Matrix& X) const;
};

// Trains it on (X, y) for the weights theta (d entries) and the columns `selected` (non-empty,
// as train_kta chose them), with the width sigma train_kta used, C = (1 - svm_lambda) /
// svm_lambda and the SMO settings `smo` (tolerance and cap of the coordinate descent).
KtaClassifier train_kta_classifier(Backend& backend, const Matrix& X, const Vector& y,
                                   const Vector& theta, const IndexVector& selected,
                                   double sigma, const KtaOptions& options,
                                   const SmoSettings& smo);

// The same for several svm_lambda values (the other options as given) on one theta and
// selection, on one kernel matrix (train_svm_without_bias_path): each classifier is
// train_kta_classifier's for its value. One per value, in order.
std::vector<KtaClassifier> train_kta_classifiers(Backend& backend, const Matrix& X,
                                                 const Vector& y, const Vector& theta,
                                                 const IndexVector& selected, double sigma,
                                                 const KtaOptions& options,
                                                 const std::vector<double>& svm_lambdas,
                                                 const SmoSettings& smo);

// Two-class labels (+-1, both present). A constant feature (all zero included) has no share in
// any kernel distance: its theta is held at 0 (not selected). Throws InvalidArgument for one
// class, every feature constant, non-finite values, negative values with the chi-square kernel,
// or bad options.
KtaResult train_kta(Backend& backend, const Matrix& X, const Vector& y, const KtaOptions& options);

// How train_kta_batch runs its DCAs: Auto is Lockstep where the backend prefers batched
// schedules (CUDA), InOrder elsewhere.
enum class KtaSchedule { Auto, InOrder, Lockstep };

// One DCA per option set on the same data (a validation grid's lambdas), each as train_kta.
// InOrder runs them one after another. Lockstep runs each on its own host thread and evaluates
// the alignment sums of all of them that wait at once in one batched call per sum (many theta
// per call of AlignmentOps; option sets with different kernels or widths form separate
// lockstep groups): the same arithmetic per theta, so on the CPU the results equal InOrder's to
// the bit. Throws what train_kta throws, before any DCA runs for bad options or data.
std::vector<KtaResult> train_kta_batch(Backend& backend, const Matrix& X, const Vector& y,
                                       const std::vector<KtaOptions>& options,
                                       KtaSchedule schedule = KtaSchedule::Auto);

}  // namespace zeronorm
