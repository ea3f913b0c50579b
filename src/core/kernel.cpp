#include "zeronorm/core/kernel.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/all_finite.hpp"
#include "core/scalar_rules.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm {

void KernelSpec::validate(Index n_features) const {
    const bool uses_gamma = type == KernelType::Polynomial || type == KernelType::Rbf ||
                            type == KernelType::WeightedRbf || type == KernelType::Chi2;
    if (uses_gamma) {
        ZN_EXPECTS(std::isfinite(gamma) && gamma > 0,
                   "kernel.gamma must be positive and finite, got " << gamma);
    }
    if (type == KernelType::Polynomial || type == KernelType::SumOfPowers) {
        ZN_EXPECTS(degree >= 1 && degree <= 64, "kernel.degree must be in 1..64, got " << degree);
    }
    ZN_EXPECTS(std::isfinite(coef0), "kernel.coef0 must be finite, got " << coef0);
    if (type == KernelType::WeightedRbf) {
        ZN_EXPECTS_DIM(theta.size() == n_features, "kernel.theta has " << theta.size()
                                                       << " entries but the data has "
                                                       << n_features << " features");
        ZN_EXPECTS(theta.allFinite() && (theta.array() >= 0).all(),
                   "kernel.theta entries must be finite and non-negative");
    }
}

KernelType parse_kernel_type(const std::string& name) {
    if (name == "linear") return KernelType::Linear;
    if (name == "poly" || name == "polynomial") return KernelType::Polynomial;
    if (name == "sum-of-powers") return KernelType::SumOfPowers;
    if (name == "rbf" || name == "gaussian") return KernelType::Rbf;
    if (name == "weighted-rbf") return KernelType::WeightedRbf;
    if (name == "chi2") return KernelType::Chi2;
    throw InvalidArgument("unknown kernel '" + name +
                          "' (expected linear, poly, sum-of-powers, rbf, weighted-rbf or chi2)");
}

std::string to_string(KernelType type) {
    switch (type) {
        case KernelType::Linear: return "linear";
        case KernelType::Polynomial: return "poly";
        case KernelType::SumOfPowers: return "sum-of-powers";
        case KernelType::Rbf: return "rbf";
        case KernelType::WeightedRbf: return "weighted-rbf";
        case KernelType::Chi2: return "chi2";
    }
    return "unknown";
}

double kernel_value(const KernelSpec& spec, const double* a, Index a_stride, const double* b,
                    Index b_stride, Index d) {
    double acc = 0.0;
    switch (spec.type) {
        case KernelType::Linear:
        case KernelType::Polynomial:
        case KernelType::SumOfPowers: {
            for (Index k = 0; k < d; ++k) acc += a[k * a_stride] * b[k * b_stride];
            if (spec.type == KernelType::Linear) return acc;
            if (spec.type == KernelType::Polynomial)
                return rules::polynomial_kernel(spec.gamma, spec.coef0, spec.degree, acc);
            return rules::sum_of_powers_kernel(spec.degree, acc);
        }
        case KernelType::Rbf:
        case KernelType::WeightedRbf: {
            for (Index k = 0; k < d; ++k) {
                const double diff = a[k * a_stride] - b[k * b_stride];
                const double weight = spec.type == KernelType::WeightedRbf ? spec.theta[k] : 1.0;
                acc += weight * diff * diff;
            }
            return rules::exponential_kernel(spec.gamma, acc);
        }
        case KernelType::Chi2: {
            for (Index k = 0; k < d; ++k) acc += rules::chi2_term(a[k * a_stride], b[k * b_stride]);
            return rules::exponential_kernel(spec.gamma, acc);
        }
    }
    return 0.0;
}

void check_kernel_range(const KernelSpec& spec, const Matrix& X, const std::string& where) {
    // The Gaussian kernels are computed from squared norms and inner products (|x|^2 + |x'|^2 -
    // 2 x.x'), which overflow as the linear kernel does; chi2 sums bounded terms.
    const bool gaussian = spec.type == KernelType::Rbf || spec.type == KernelType::WeightedRbf;
    const bool weighted = spec.type == KernelType::WeightedRbf;
    if (spec.type == KernelType::Chi2 || X.size() == 0) return;
    if (weighted && spec.theta.size() != X.cols()) return;  // KernelSpec::validate says so
    // One vectorised pass; NaN propagates, so non-finite data (reported by the data checks, not
    // here) fail the test below and return.
    const double largest = X.cwiseAbs().template maxCoeff<Eigen::PropagateNaN>();
    if (!std::isfinite(largest) || largest == 0.0) return;
    // |k(x, x')| <= k-bound of the largest |x|^2 (Cauchy-Schwarz), in long double so that the
    // bound itself does not overflow.
    using Wide = long double;
    const auto kernel_bound = [&spec](Wide norm2) {
        if (spec.type == KernelType::Polynomial)
            return std::pow(Wide(spec.gamma) * norm2 + std::fabs(spec.coef0), spec.degree);
        if (spec.type == KernelType::SumOfPowers) {
            Wide sum = 0;
            for (int t = 1; t <= spec.degree; ++t) sum += std::pow(norm2, t);
            return sum;
        }
        return norm2;
    };
    // The solver adds up to n kernel values, each times dual variables that may exceed 1; a
    // Gaussian kernel's values are at most 1, but its distances sum four norms' worth.
    const Wide limit =
        gaussian ? Wide(DBL_MAX) / 4.0L : Wide(DBL_MAX) / (16.0L * Wide(X.rows() + 1));
    // Every |x|^2 is at most largest^2 times the sum of the weights: data of a sensible scale
    // pass on that alone, without a pass for the rows' norms.
    const Wide weight_sum = weighted ? Wide(spec.theta.sum()) : Wide(X.cols());
    if (kernel_bound(Wide(largest) * largest * weight_sum) <= limit) return;
    // Else the rows' |x|^2 from X / largest, which cannot overflow (summed column by column, the
    // order of X's storage, without a scaled copy).
    const Vector weights = weighted ? spec.theta : Vector::Ones(X.cols());
    Vector row_norm2 = Vector::Zero(X.rows());
    for (Index j = 0; j < X.cols(); ++j)
        row_norm2.array() += weights[j] * (X.col(j).array() / largest).square();
    double largest_row_norm2 = 0.0;  // (a loop: GCC 12 warns of a null read in maxCoeff here)
    for (Index i = 0; i < row_norm2.size(); ++i)
        largest_row_norm2 = std::max(largest_row_norm2, row_norm2[i]);
    const Wide bound = kernel_bound(Wide(largest) * largest * largest_row_norm2);
    if (bound <= limit) return;
    Index row = 0, col = 0;
    X.cwiseAbs().maxCoeff(&row, &col);
    std::ostringstream os;
    os << where << ": the data's values are too large for the " << to_string(spec.type)
       << " kernel: the largest |x| is " << largest << " (row " << row << ", column " << col
       << ", 0-based), so "
       << (gaussian ? "the squared norms it is computed from" : "kernel values") << " reach about "
       << bound
       << ", beyond what double precision can sum; standardise the data (--standardize) or "
          "rescale it";
    throw NumericalError(os.str());
}

void check_gaussian_kernel_scale(const Matrix& X, double gamma, const Vector& weights,
                                 const std::string& where, const std::string& remedy) {
    ZN_EXPECTS_DIM(weights.size() == 0 || weights.size() == X.cols(),
                   "check_gaussian_kernel_scale: " << weights.size() << " weights for "
                                                   << X.cols() << " columns");
    const Index n = X.rows();
    if (n < 2 || !(gamma > 0) || !detail::all_finite(X)) return;
    const double identity_exponent = -std::log(DBL_EPSILON);  // exp(-36.04) = epsilon
    // Samples as columns, so that a pair's distance runs over contiguous memory.
    Matrix samples = X.transpose();
    if (weights.size() != 0) samples = weights.cwiseSqrt().asDiagonal() * samples;
    // Nearest distinct pair by exponent gamma |x - x'|^2; the first pair under the identity's
    // exponent ends the search (first sample 0 against all: on data of a sensible scale, at once).
    double nearest = std::numeric_limits<double>::infinity();
    Index nearest_i = -1, nearest_j = -1;
    for (Index i = 0; i + 1 < n; ++i) {
        for (Index j = i + 1; j < n; ++j) {
            const double exponent = gamma * (samples.col(i) - samples.col(j)).squaredNorm();
            if (!(exponent > 0) || exponent >= nearest) continue;  // equal rows: no distance
            if (exponent <= identity_exponent) return;
            nearest = exponent;
            nearest_i = i;
            nearest_j = j;
        }
    }
    if (nearest_i < 0) return;
    std::ostringstream os;
    os << where << ": the Gaussian kernel is the identity to double precision on these data: "
       << "even the nearest two distinct samples (rows " << nearest_i << " and " << nearest_j
       << ", 0-based) are at an exponent gamma |x - x'|^2 of " << nearest << " (gamma = " << gamma
       << "; kernel value " << std::exp(-nearest) << ", below the machine epsilon), so the "
       << "kernel tells no feature from another; standardise the data (--standardize) or "
       << remedy;
    throw NumericalError(os.str());
}

}  // namespace zeronorm
