// R2W2: scaling factors sigma of the features, found by gradient descent on the radius-margin
// bound R^2 W^2 (Weston, Mukherjee, Chapelle, Pontil, Poggio & Vapnik 2001, as cited in Weston
// et al., JMLR 3, 2003, sec. 4.4; Lal, Chapelle, Weston & Elisseeff 2006, sec. 3.1), with the
// features of smallest sigma removed round by round down to the requested counts. The settings
// a SelectionOptions carries for --method r2w2.
#pragma once

#include <cstdint>

namespace zeronorm {

enum class R2w2Kernel { Linear, Rbf };
// Exact: R^2 from its QP, max_b sum_i b_i K_ii - b'K b over the simplex b >= 0, sum b = 1 (the
// smallest ball around the data in feature space). Variance: b = 1/n for every point (Lal et
// al. 2006, eq. (17)), the data's variance in feature space.
enum class R2w2Radius { Exact, Variance };

struct R2w2Options {
    // k(x, x') = sum_j sigma_j^2 x_j x'_j, or exp(-gamma sum_j sigma_j^2 (x_j - x'_j)^2).
    R2w2Kernel kernel = R2w2Kernel::Linear;
    double gamma = 0.0;  // Gaussian kernel's gamma, >= 0; 0: 1 / d (d of the data)
    R2w2Radius radius = R2w2Radius::Exact;
    // Gradient steps per elimination round. Each step moves sigma along minus the gradient by
    // `step` times max(sigma) in its largest entry (sigma kept >= 0), halving the step until the
    // bound decreases (Armijo); the round ends when a step lowers the bound by less than
    // `tolerance` times its value, when no halving decreases it, or after `iterations` steps.
    std::int64_t iterations = 20;
    double step = 0.1;
    double tolerance = 1e-3;

    void validate() const;  // InvalidArgument naming the field
};

}  // namespace zeronorm
