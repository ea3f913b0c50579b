// Kernel-target alignment feature selection (Neumann, Schnoerr & Steidl 2005, sec. 3.2.2, 4.2.4):
// weights theta in [0, 1]^d inside a Gaussian (or chi-square, sec. 6) kernel minimise
//   f(theta) = -(1 - lambda) 1/2 y_n' K_theta y_n + (lambda / d) sum_j (1 - exp(-alpha theta_j)),
// y_n = (y_i / n_{y_i}), by DCA from theta = e / 2: g = (1 - lambda) u+' K u- (u+- the class
// indicators over the class sizes, the cross-class pairs, convex in theta), h = (1 - lambda) / 2
// (u+' K u+ + u-' K u-) - the penalty; each step minimises g(theta) - theta' grad h(theta^k) over
// the box by L-BFGS-B (LBFGSpp). The sums and gradients run on the backend (AlignmentOps).
#pragma once

#include <cstdint>
#include <vector>

#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/ops/alignment_ops.hpp"
#include "zeronorm/core/status.hpp"

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

    void validate() const;  // InvalidArgument naming the field
};

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

// Two-class labels (+-1, both present). A constant feature (all zero included) has no share in
// any kernel distance: its theta is held at 0 (not selected). Throws InvalidArgument for one
// class, every feature constant, non-finite values, negative values with the chi-square kernel,
// or bad options.
KtaResult train_kta(Backend& backend, const Matrix& X, const Vector& y, const KtaOptions& options);

}  // namespace zeronorm
