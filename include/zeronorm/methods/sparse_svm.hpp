// L0-norm and Lp-norm SVMs: kernel machines with few expansion terms (Huang, Zheng, King & Lyu,
// "Arbitrary norm support vector machines", Neural Computation, 2008, §3.3-3.4).
//
// Each outer step t solves the SVM (3.7) over the expansion coefficients alpha,
//
//   min_{alpha,b,xi}  1/2 alpha' (K + C_alpha Lambda_(t)) alpha + C_xi 1'xi
//   s.t.              y_i (K_i' alpha + b) >= 1 - xi_i,  xi_i >= 0,
//
// with Lambda_(t) = diag(|alpha_(t)|^-(2-p)) (Prop. 3 for p = 0, Prop. 4 for 0 < p <= 2), through
// its dual (3.6): an ordinary SVM dual in beta on the regularized kernel
// Ktilde_(t) = K K_(t) K (3.12), then alpha_(t+1) = K_(t) K (y.*beta) (3.10). As t grows the
// term alpha'Lambda alpha tends to ||alpha||_p^p, so the limit is an Lp-regularized SVM whose
// decision function f(x) = sum_i alpha_i k(x, x_i) + b uses only the few x_i with alpha_i != 0.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/kernel.hpp"
#include "zeronorm/core/status.hpp"
#include "zeronorm/solvers/smo.hpp"
#include "zeronorm/solvers/svm.hpp"

namespace zeronorm {

// How K_(t) is formed (Huang et al. 2008, §3.4.3).
enum class SparseSvmVariant {
    // K_(t) = Lt (Lt K_mm Lt + C_alpha I)^-1 Lt on the active set, Lt = diag|alpha|^((2-p)/2):
    // the exact (K + C_alpha Lambda)^-1 written without inverting a zero alpha; one Cholesky
    // factorisation of an m x m SPD matrix per step.
    Exact,
    // "Avoid matrix inversion": the margin term 1/2 alpha'K alpha replaced by 1/2 alpha'alpha, so
    // K_(t) = (I + C_alpha Lambda)^-1 = diag(Lt_i^2 / (Lt_i^2 + C_alpha)) (= alpha_i^2 /
    // (alpha_i^2 + C_alpha) for L0). Optimises a different (inversion-free) model.
    Diagonal,
};

std::string to_string(SparseSvmVariant variant);
SparseSvmVariant parse_sparse_svm_variant(const std::string& name);  // "exact" or "diagonal"

struct SparseSvmOptions {
    KernelSpec kernel;
    // Norm exponent: 0 = L0 (Jeffreys hyperprior, Prop. 2-3); 0 < p <= 2 = Lp (Prop. 4).
    // Prop. 4 writes Lambda = gamma diag|alpha|^-(2-p); gamma only multiplies C_alpha, so it is
    // absorbed there (gamma = 1): pass C_alpha * gamma for another gamma. With p = 2, Lambda = I
    // never changes and the model is a plain SVM on the kernel K (K + C_alpha I)^-1 K.
    double p = 0.0;
    SparseSvmVariant variant = SparseSvmVariant::Exact;
    double C_xi = 1.0;     // slack penalty (box bound of the dual 3.6); Huang et al. §4.1 use 1
    double C_alpha = 0.2;  // weight of the sparsity term; Huang et al. §4.1 use 0.2
    // Pruning and stopping threshold (Huang et al. §3.4.3, step 2 and step 7: 1e-4): terms with
    // |alpha_i| < epsilon are dropped for good (p < 2 only), and the loop stops when
    // max_i |alpha_i,(t+1) - alpha_i,(t)| < epsilon.
    double epsilon = 1e-4;
    int max_iterations = 100;  // T_max of step 7
    // The inner SMO solver on Ktilde (its box bound is C_xi, no ridge). Its tolerance is
    // tighter than LIBSVM's 1e-3: alpha = K_(t) K (y.*beta) inherits the error of beta, and with
    // 1e-3 the step-to-step jitter of alpha stays above epsilon = 1e-4 on Ripley (the loop then
    // runs to max_iterations); 1e-5 lets it stop by step 7 (about 20 steps).
    SmoSettings smo = inner_smo_settings(1e-5);

    // Throws InvalidArgument naming the bad field.
    void validate(Index n_features) const;
};

struct SparseSvmModel {
    KernelSpec kernel;
    // n_terms x d: the x_i with alpha_i != 0 (|alpha_i| >= epsilon for p < 2), original feature
    // space; identical training points are merged into one term with their coefficients summed.
    // So n_terms counts distinct points, and is not comparable with a support-vector count of
    // LIBSVM or the papers, which count training points: on data with many duplicate rows
    // (titanic) the same decision function has ~10 terms but ~480 training points with
    // alpha_i != 0 (SparseSvmResult::n_support_points).
    Matrix expansion_points;
    Vector alpha;                  // n_terms coefficients (signed; y_i is already folded in, 3.10)
    IndexVector training_indices;  // row of each expansion point in the training set (first copy)
    double bias = 0.0;

    Index n_terms() const { return expansion_points.rows(); }
    Index n_features() const { return expansion_points.cols(); }
    // f(x) = sum_i alpha_i k(x, x_i) + b over the sparse expansion only, for every row of X.
    Vector decision_function(Backend& backend, const Matrix& X) const;
    // sign(f(x)) as +-1 (0 maps to +1).
    Vector predict(Backend& backend, const Matrix& X) const;
    // The same expansion as an SvmModel (support_vectors = expansion points, coef = alpha, same
    // kernel and bias): SvmModel's f(x) = sum_i coef_i k(x, x_i) + b is exactly this model's,
    // so it can be saved and loaded as a model file and predicted through the sparse terms only.
    SvmModel to_svm_model() const;
};

// One outer step t (steps 2-7 of Huang et al. 2008, §3.4.3).
struct SparseSvmIteration {
    Index active_terms = 0;  // m = |{i : |alpha_i,(t)| >= epsilon}| at the start of the step
    double objective = 0.0;  // dual objective (3.6) 1/2 beta'Htilde beta - 1'beta at its optimum
    double max_delta_alpha = 0.0;  // max_i |alpha_i,(t+1) - alpha_i,(t)|
    std::int64_t smo_iterations = 0;
    double jitter = 0.0;  // ridge added to Lt K Lt + C_alpha I when Cholesky failed (else 0)
    double seconds = 0.0;
};

struct SparseSvmResult {
    SparseSvmModel model;
    std::vector<SparseSvmIteration> trace;
    std::int64_t iterations = 0;  // outer steps taken (SMO solves)
    // Success: max|delta alpha| < epsilon. NoConvergence: stopped at max_iterations (the model
    // is the last iterate). NumericalIssue: every coefficient fell below epsilon (the model is
    // the constant b) or a later step failed numerically (the model is the last good iterate);
    // `message` says which.
    // An empty model (every coefficient pruned, f(x) = b: one class for every x) is
    // NumericalIssue with model.n_terms() == 0.
    Status status = Status::Success;
    std::string message;
    // Training points with alpha_i != 0 (|alpha_i| >= epsilon for p < 2) before identical points
    // are merged: the count comparable with LIBSVM's number of support vectors.
    Index n_support_points = 0;
    Vector beta;  // final dual variables of (3.6), one per training sample
    double seconds = 0.0;  // wall time of training
};

// Trains on the whole data set (labels +-1, both classes present). Throws InvalidArgument for
// bad input and NumericalError when the very first step cannot be computed (a kernel that is
// not positive semi-definite, so Lt K Lt + C_alpha I is not positive definite even with jitter).
SparseSvmResult train_sparse_svm(Backend& backend, const Dataset& data,
                                 const SparseSvmOptions& options);

// ---- the step's kernels, exposed for tests and for other loops ------------------------------
// Both are kept in factored form through U (l x m): Ktilde = K_{l x m} K_(t) K_{m x l} = U U' and
// K_(t) K_{m x l} = diag(row_scale) L^-T U', where
//   Exact:    L L' = Lt K_mm Lt + C_alpha I (Cholesky), U = K_{l x m} Lt L^-T, row_scale = Lt;
//   Diagonal: K_(t) = diag(d), L empty (= I), U = K_{l x m} diag(sqrt d), row_scale = sqrt d.
// So a step costs one m x m factorisation, one triangular solve with l right-hand sides and one
// symmetric rank-m product (SYRK), and the update (3.10) one GEMV and one triangular solve.
struct SparseSvmStepKernels {
    DeviceMatrix Ktilde;  // l x l: K_{l x m} K_(t) K_{m x l} (step 4, eq. 3.12), exactly symmetric
    DeviceMatrix U;       // l x m (see above)
    DeviceMatrix L;       // m x m, lower triangle (Exact); empty (Diagonal)
    Vector row_scale;     // m
    double jitter = 0.0;  // added to the diagonal of Lt K_mm Lt + C_alpha I (Exact only)
};

// Steps 3-4 for one active set: K is the full l x l kernel matrix (symmetric), active the m
// indices of the active set (K_{l x m} = K(:, active), K_mm = K(active, active)), lambda_tilde
// the m diagonal entries of Lt (>= 0; zeros allowed: nothing is inverted). Ktilde_storage, when
// it is l x l, receives Ktilde (so a loop can reuse one buffer); otherwise Ktilde is allocated.
// Throws NumericalError if Lt K_mm Lt + C_alpha I cannot be factorised even after adding jitter.
SparseSvmStepKernels sparse_svm_step_kernels(Backend& backend, const DeviceMatrix& K,
                                             const IndexVector& active, const Vector& lambda_tilde,
                                             double C_alpha, SparseSvmVariant variant,
                                             DeviceMatrix Ktilde_storage = DeviceMatrix());

// K_(t) K_{m x l} V (m x k) for V (l x k) from the factored step: with V = y.*beta this is the
// update (3.10) of the active coefficients.
DeviceMatrix sparse_svm_apply_KtK(Backend& backend, const SparseSvmStepKernels& step,
                                  const DeviceMatrix& V);

}  // namespace zeronorm
