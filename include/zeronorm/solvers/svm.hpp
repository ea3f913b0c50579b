// Two-class kernel SVM (C-SVC) trained by SMO on a backend:
//   min 1/2 |w|^2 + C sum xi_i   s.t.  y_i (w.phi(x_i) + b) >= 1 - xi_i,  xi >= 0
// with decision function f(x) = sum_i coef_i k(x_i, x) + b over the support vectors.
#pragma once

#include <vector>

#include <string>

#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/kernel.hpp"
#include "zeronorm/solvers/smo.hpp"

namespace zeronorm {

struct SvmOptions {
    KernelSpec kernel;
    SmoOptions smo;
    // Use a precomputed n x n kernel when it takes at most this many MiB (n <= ~2000 at the
    // default), else columns on demand with the SMO cache: SMO touches few columns of a large K.
    double max_kernel_mb = 32.0;
    // false: the SVM without bias (b = 0, no constraint y'beta = 0; Neumann, Schnoerr & Steidl
    // 2005, sec. 3.2.2), solved on the full n x n kernel by coordinate descent (box_dual.hpp)
    // whatever max_kernel_mb says.
    bool bias = true;

    void validate(Index n_features) const;
};

struct SvmModel {
    KernelSpec kernel;
    Matrix support_vectors;   // n_sv x d (original feature space)
    Vector coef;              // n_sv, beta_i y_i
    double bias = 0.0;

    Index n_support() const { return support_vectors.rows(); }
    Index n_features() const { return support_vectors.cols(); }
    // Primal weight vector (linear kernel only): w = sum coef_i x_i.
    Vector linear_weights() const;
    // f(x) for every row of X (X must have n_features columns).
    Vector decision_function(Backend& backend, const Matrix& X) const;
    // sign(f(x)) as +-1 (0 maps to +1).
    Vector predict(Backend& backend, const Matrix& X) const;
};

struct SvmTrainResult {
    SvmModel model;
    SmoResult smo;            // the solver's result (beta, objective, status, iterations)
    double seconds = 0.0;  // wall time of training
};

// Trains on the whole data set; labels must be +-1 with both classes present.
SvmTrainResult train_svm(Backend& backend, const Dataset& data, const SvmOptions& options);

// The SVM without bias (options.bias false) for several box bounds on one data set, each as
// train_svm gives it with options.smo.C = C[k], on one kernel matrix computed once. (Starting
// each dual from the previous bound's solution was tried: greedy coordinate descent then took
// more steps than from zero on a third of random problems.) One result per entry of C.
std::vector<SvmTrainResult> train_svm_without_bias_path(Backend& backend, const Dataset& data,
                                                        const SvmOptions& options,
                                                        const std::vector<double>& C);

// The model of the SVM whose dual solution `dual` was computed on `data` (labels +-1): its
// support vectors are the rows with beta_i > 0, with coefficients beta_i y_i and dual.bias.
SvmModel svm_model_from_dual(const Dataset& data, const KernelSpec& kernel, const SmoResult& dual);

// Labels from decision values: +1 where f >= 0, else -1 (the rule of SvmModel::predict).
Vector labels_from_decision(const Vector& f);

// Fraction of rows whose predicted label differs from y.
double error_rate(const Vector& predicted, const Vector& y);

}  // namespace zeronorm
