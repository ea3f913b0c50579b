// Kernel functions. Meanings of gamma, degree and coef0 follow LIBSVM.
#pragma once

#include <string>

#include "zeronorm/core/dataset.hpp"

namespace zeronorm {

enum class KernelType {
    Linear,        // x.y
    Polynomial,    // (gamma x.y + coef0)^degree
    SumOfPowers,   // sum_{t=1..degree} (x.y)^t   (Weston et al. 2003, sec. 3.4)
    Rbf,           // exp(-gamma |x-y|^2)
    WeightedRbf,   // exp(-gamma sum_j theta_j (x_j-y_j)^2)   (Neumann et al. 2005, eq. 12)
    Chi2,          // exp(-gamma sum_j (x_j-y_j)^2 / (x_j+y_j)), terms with x_j+y_j = 0 omitted
};

struct KernelSpec {
    KernelType type = KernelType::Linear;
    double gamma = 1.0;
    int degree = 3;
    double coef0 = 0.0;
    Vector theta;  // per-feature weights, WeightedRbf only (d entries, >= 0)

    // Throws InvalidArgument naming the bad field.
    void validate(Index n_features) const;
};

KernelType parse_kernel_type(const std::string& name);  // "linear", "poly", "sum-of-powers", "rbf", "weighted-rbf", "chi2"
std::string to_string(KernelType type);

// Plain reference: k(a, b) for one pair of points (used as test oracle and in prediction).
double kernel_value(const KernelSpec& spec, const double* a, Index a_stride, const double* b,
                    Index b_stride, Index d);

// Throws NumericalError, naming `where`, the largest |x| and where it sits, when the values of X
// are so large that the kernel (linear, poly, sum-of-powers: inner products; the Gaussian ones:
// the squared norms and inner products their distances are computed from) overflows double
// precision or leaves no room for the solver's sums over n samples: finite data that must be
// rescaled (standardised) first. The chi2 kernel never overflows; nothing to check.
void check_kernel_range(const KernelSpec& spec, const Matrix& X, const std::string& where);

// Throws NumericalError, naming `where`, the nearest two distinct rows and `remedy`, when the
// Gaussian kernel exp(-gamma sum_j w_j (x_j - x'_j)^2) (w: `weights`, empty for all 1) is the
// identity to double precision on the rows of X: every value between two distinct rows below
// the machine epsilon (gamma |x - x'|^2_w > ln(1 / epsilon) = 36.04). Such a kernel tells no
// feature from another: a method that ranks features by it would order them by index. Rows
// that are all equal (no distinct pair), non-finite values and gamma = 0 pass.
void check_gaussian_kernel_scale(const Matrix& X, double gamma, const Vector& weights,
                                 const std::string& where, const std::string& remedy);

}  // namespace zeronorm
