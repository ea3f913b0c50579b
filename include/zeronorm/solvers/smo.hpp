// Options and result of the SMO solver for the kernel SVM dual with bias:
//
//   min_beta  1/2 beta' Q beta - 1' beta     Q_ij = y_i y_j (K_ij + ridge [i==j])
//   s.t.      y' beta = 0,   0 <= beta_i <= C
//
// C may be +infinity when ridge > 0 (hard margin with 2-norm slack, Weston et al. 2003 sec. 3.2).
// Working-set selection is the second-order rule WSS2 of Fan, Chen & Lin (JMLR 6, 2005), with
// shrinking and a kernel-column cache as in LIBSVM, and LIBSVM's tau clamp for non-PSD kernels.
#pragma once

#include <cstdint>
#include <limits>

#include "zeronorm/core/dataset.hpp"
#include "zeronorm/core/status.hpp"

namespace zeronorm {

// How the SMO iteration runs, apart from the problem it solves: the settings a method passes to
// its inner SVMs, whose C and ridge come from the method's own options.
struct SmoSettings {
    double tolerance = 1e-3;           // stop when the maximal KKT violation m(b) - M(b) <= tolerance
    std::int64_t max_iterations = 0;   // 0: max(10^7, 100 n) as LIBSVM
    bool shrinking = true;
    double cache_mb = 200.0;           // kernel-column cache, used when K is computed on the fly

    // Throws InvalidArgument naming the field ("smo.tolerance ...").
    void validate() const;
};

// The settings of an SMO run inside an outer loop (AROM, RFE, the sparse SVM): LIBSVM's, with a
// tolerance tighter than its 1e-3, since the outer loop feeds the SMO's error back (each
// method's options say why its value).
inline SmoSettings inner_smo_settings(double tolerance) {
    SmoSettings s;
    s.tolerance = tolerance;
    return s;
}

// One SVM dual: the settings plus its box bound and ridge.
struct SmoOptions : SmoSettings {
    double C = 1.0;                    // box bound; +inf allowed when ridge > 0
    double ridge = 0.0;                // added to the kernel diagonal

    SmoOptions() = default;
    SmoOptions(const SmoSettings& settings, double box, double diagonal)
        : SmoSettings(settings), C(box), ridge(diagonal) {}

    void validate() const;
};

struct SmoResult {
    Vector beta;              // dual variables, n
    double bias = 0.0;        // b in f(x) = sum_i beta_i y_i k(x_i, x) + b  (LIBSVM's -rho)
    double objective = 0.0;   // 1/2 beta'Q beta - 1'beta
    // Each solver's own stopping measure, the other one NaN. SMO: the maximal KKT violation
    // m(b) - M(b) at exit. The linear SVM solved without its kernel (interior point, primal
    // Newton): primal minus dual value; its betas come within rounding of a bound without
    // reaching it, and m(b) - M(b) counts those as free (ijcnn1: 7.6 at a gap of 3e-10).
    double kkt_gap = 0.0;
    double duality_gap = std::numeric_limits<double>::quiet_NaN();
    std::int64_t iterations = 0;
    Status status = Status::Success;
};

}  // namespace zeronorm
