// Internal: the linear SVM fits that the feature-selection methods share (AROM's step 2, RFE's
// ranking criterion, the batched l2-AROM of many splits): the dual per machine on a linear
// kernel, and the weights w = X'(beta .* y) read off the duals. Not installed.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "methods/linear_svm_without_kernel.hpp"
#include "methods/selection_common.hpp"

namespace zeronorm::detail {

// beta .* y per column of Y (n x Q) for the duals whose beta has n entries (a solution); zero
// columns elsewhere (problems not solved).
Matrix dual_coefficients(const std::vector<SmoResult>& duals, const Matrix& Y);

// The weights of linear machines from their dual coefficients: W_p = X_p' coef_p for the
// `batch` blocks of X (n x (d batch)) and of coef (n x (c batch)), in one product. Returns
// d x (c batch) in the backend's memory.
DeviceMatrix dual_weights(Backend& backend, Index batch, const DeviceMatrix& X, const Matrix& coef);

// The SVMs of every machine on one linear kernel K (n x n) of the data X (n x d, in the
// backend's memory): for machine k (the two-class problem, or class k against the rest)
// solve_svm_dual with options.C, options.ridge and options.smo on K with targets
// machines.targets[k], warm-started from warm[k] (empty: cold), which takes the new beta.
struct MachineFits {
    std::vector<SmoResult> duals;  // per machine
    Matrix W;                      // d x machines: w_k = X'(beta_k .* y_k); empty when stopped
    double objective = 0.0;        // sum over the machines of minus the dual objective
    Status status = Status::Success;  // the first machine's status that is not Success
};
// radius2: R^2 for solve_svm_dual; where(k): the name of machine k's fit in messages. With
// stop_at_failure the fits stop at the first machine that does not end in Success (no W).
MachineFits fit_machines(Backend& backend, const DeviceMatrix& K, const DeviceMatrix& X,
                         const Machines& machines, const SelectionOptions& options,
                         std::vector<Vector>& warm, const std::function<double()>& radius2,
                         const std::function<std::string(std::size_t)>& where,
                         bool stop_at_failure);

// The same fits without the n x n kernel (fits_without_kernel), ridge or not: each
// machine's dual by solve_linear_svm_without_kernel on the host matrix X of the data the
// SVMs see, through solve_svm_dual's staged bounds when options.C = inf. W holds the solver's
// primal weights, in X's coordinates.
MachineFits fit_machines_without_kernel(const Matrix& X, const Machines& machines,
                                        const SelectionOptions& options,
                                        std::vector<Vector>& warm,
                                        const std::function<double()>& radius2,
                                        const std::function<std::string(std::size_t)>& where,
                                        bool stop_at_failure);

}  // namespace zeronorm::detail
