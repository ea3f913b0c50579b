// Linear SVM by dual coordinate descent (Hsieh, Chang, Lin, Keerthi, Sathiya, ICML 2008):
//   min_w 1/2 |w|^2 + C sum_i loss(y_i w.x_i),  loss = max(0, 1 - t)      (L1-loss)
//                                               loss = max(0, 1 - t)^2    (L2-loss)
// The bias is handled as LIBLINEAR does: x is augmented with a constant feature `bias_feature`
// (so b is regularised as w_{d+1} * bias_feature); bias_feature <= 0 means no bias.
#pragma once

#include <cstdint>

#include "zeronorm/core/dataset.hpp"
#include "zeronorm/core/status.hpp"

namespace zeronorm {

enum class LinearLoss { Hinge, SquaredHinge };

struct LinearSvmOptions {
    LinearLoss loss = LinearLoss::Hinge;
    double C = 1.0;
    double bias_feature = 1.0;       // LIBLINEAR's -B; <= 0: no bias term
    double tolerance = 0.1;          // LIBLINEAR's eps: projected-gradient gap stopping rule
    std::int64_t max_iterations = 1000;  // outer passes over the data
    bool shrinking = true;           // drop bounded coordinates from passes (Hsieh et al. Alg. 3)
    std::uint64_t seed = 0;          // permutation order of coordinates

    void validate() const;
};

struct LinearSvmResult {
    Vector w;                 // d weights
    double bias = 0.0;        // b = w_{d+1} * bias_feature (0 without bias)
    Vector alpha;             // n dual variables
    // The minimised dual f(alpha) = 1/2 |w~|^2 - sum alpha (+ sum alpha^2 / (4C) for the L2 loss);
    // at the optimum f(alpha) = -primal_objective.
    double dual_objective = 0.0;
    double primal_objective = 0.0;
    std::int64_t iterations = 0;     // outer passes over the (active) coordinates
    Status status = Status::Success;
    double seconds = 0.0;

    Vector decision_function(const Matrix& X) const;  // X w + b
    Vector predict(const Matrix& X) const;            // sign, 0 -> +1
};

// Labels must be +-1 with both classes present.
LinearSvmResult train_linear_svm(const Dataset& data, const LinearSvmOptions& options);

}  // namespace zeronorm
