// The projection onto the SVM dual's constraints (dual_projection.hpp).
#include "solvers/dual_projection.hpp"

#include <algorithm>
#include <cmath>

namespace zeronorm::detail {

// r(theta) = sum_i y_i clip(z_i - theta y_i, 0, C) is piecewise linear and non-increasing, from
// C n_+ to -C n_-, with slope -#{i : 0 < z_i - theta y_i < C}: Newton steps land on the root of
// the current piece; a bracket with bisection guards against flat pieces and overshoots.
void project(Eigen::Ref<Vector> z, const Vector& y, double C) {
    const Index n = z.size();
    double theta = 0.0;
    double hi = z.cwiseAbs().maxCoeff() + C + 1.0;  // r(hi) = -C n_-, r(-hi) = C n_+
    double lo = -hi, r_lo = C * double((y.array() > 0).count()), r_hi = r_lo - C * double(n);
    const double r_small = 1e-15 * C * double(n);
    for (int k = 0; k < 200; ++k) {
        double r = 0.0;
        Index slope = 0;
        for (Index i = 0; i < n; ++i) {
            const double v = z[i] - theta * y[i];
            if (v >= C) {
                r += y[i] * C;
            } else if (v > 0.0) {
                r += y[i] * v;
                ++slope;
            }
        }
        if (std::abs(r) <= r_small) break;
        (r > 0 ? lo : hi) = theta;
        (r > 0 ? r_lo : r_hi) = r;
        if (hi - lo <= 1e-15 * (1.0 + std::abs(lo) + std::abs(hi))) {
            // The root is a breakpoint within rounding: one secant step on the bracket.
            theta = r_lo == r_hi ? lo : lo + r_lo * (hi - lo) / (r_lo - r_hi);
            break;
        }
        const double newton = slope > 0 ? theta + r / double(slope) : lo - 1.0;
        theta = newton > lo && newton < hi && k < 50 ? newton : 0.5 * (lo + hi);
    }
    for (Index i = 0; i < n; ++i) z[i] = std::clamp(z[i] - theta * y[i], 0.0, C);
}

}  // namespace zeronorm::detail
