// The entry-by-entry rules every backend applies, written once as host/device functions: kernel
// values, the index sets and curvature clamp of SMO, the AROM scale update and the
// standardiser's mean and scale. The host library, the CPU backend and the CUDA kernels call
// these same functions; the tests check them on the host against the definitions.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/host_device.hpp"

namespace zeronorm::rules {

// Host code takes the math functions from std; device code finds CUDA's global ones.
#ifndef __CUDA_ARCH__
using std::exp;
using std::fabs;
using std::ilogb;
using std::isfinite;
using std::ldexp;
using std::sqrt;
#endif

// ---- kernel values (include/zeronorm/core/kernel.hpp; LIBSVM's gamma, degree, coef0) ---------

// x^e by repeated squaring, as LIBSVM's powi; e < 0 gives 1 / x^|e|.
ZN_HD inline double powi(double x, int e) {
    unsigned int k = e < 0 ? 0u - static_cast<unsigned int>(e) : static_cast<unsigned int>(e);
    double result = 1.0;
    double base = x;
    while (k != 0u) {
        if ((k & 1u) != 0u) result *= base;
        base *= base;
        k >>= 1u;
    }
    return e < 0 ? 1.0 / result : result;
}

// (gamma a.b + coef0)^degree.
ZN_HD inline double polynomial_kernel(double gamma, double coef0, int degree, double dot) {
    return powi(gamma * dot + coef0, degree);
}

// sum_{t=1..degree} (a.b)^t: the explicit polynomial map of Weston et al. (2003) §3.2.
ZN_HD inline double sum_of_powers_kernel(int degree, double dot) {
    double sum = 0.0;
    double power = dot;
    for (int t = 1; t <= degree; ++t) {
        sum += power;
        power *= dot;
    }
    return sum;
}

// exp(-gamma d) for a squared distance (Gaussian) or a chi-square sum d. A distance computed as
// |a|^2 + |b|^2 - 2 a.b can come out slightly negative by rounding: clamped to 0 (NaN stays).
ZN_HD inline double exponential_kernel(double gamma, double distance) {
    return exp(-gamma * (distance < 0.0 ? 0.0 : distance));
}

// One chi-square term (x - y)^2 / (x + y), omitted (0) when x + y = 0. Symmetric in x, y to the
// bit, so a symmetric chi-square kernel matrix comes out exactly symmetric.
ZN_HD inline double chi2_term(double x, double y) {
    const double s = x + y;
    if (s == 0.0) return 0.0;
    const double d = x - y;
    return (d * d) / s;
}

// ---- SMO (Fan, Chen & Lin 2005, working-set selection WSS 2) ---------------------------------

// The index sets of the KKT conditions of min 1/2 b'Qb + p'b, 0 <= b <= C, y'b = rhs:
// I_up = {t : y_t = +1, b_t < C} u {t : y_t = -1, b_t > 0},
// I_low = {t : y_t = +1, b_t > 0} u {t : y_t = -1, b_t < C}.
ZN_HD inline bool in_up(double y, double beta, double C) { return y > 0 ? beta < C : beta > 0; }
ZN_HD inline bool in_low(double y, double beta, double C) { return y > 0 ? beta > 0 : beta < C; }

// LIBSVM's tau: a non-positive curvature a_it of a pair (non-PSD kernels) is replaced by it.
constexpr double kSmoTau = 1e-12;
ZN_HD inline double pair_curvature(double a) { return a > 0.0 ? a : kSmoTau; }

// ---- AROM (Weston et al. 2003 §3.1) ----------------------------------------------------------

// The unnormalised update of one feature's scale: u_j = z_j |z_j w_j|, with w the weights of the
// scaled features (scaled_weight_abs = |z_j w_j|, summed over machines for several classes).
ZN_HD inline double arom_unnormalized(double z, double scaled_weight_abs) {
    return z * scaled_weight_abs;
}

// The update degenerates (z is kept) when max u is not a positive finite number or any u is
// non-finite.
ZN_HD inline bool arom_degenerate(double top, bool any_non_finite) {
    return any_non_finite || !(top > 0.0) || !isfinite(top);
}

// One feature's step from u_j and max u: the normalised scale v_j = u_j / max u, kept when
// v_j > prune_tolerance (else z_j becomes 0), and its change |v_j - z_j|.
struct AromEntry {
    double normalized;
    double next;
    bool keep;
    double change;
};
ZN_HD inline AromEntry arom_entry(double u, double top, double z, double prune_tolerance) {
    const double v = u / top;
    const bool keep = v > prune_tolerance;
    return {v, keep ? v : 0.0, keep, fabs(v - z)};
}

// ---- kernel-target alignment (Neumann, Schnoerr & Steidl 2005 sec. 3.2.2, 4.2.4, 6) ---------

// One feature's share D(x, z) of the exponent of K_theta(x, z) = exp(-sum_k theta_k D(x_k, z_k)):
// scale (x - z)^2 for the Gaussian kernel (scale = 1 / (2 sigma^2)), scale (x - z)^2 / (x + z)
// for the chi-square kernel (scale = rho; 0 where x + z = 0).
// One pair's Gaussian kernel value without one feature: exp(-scale (D - diff^2)) for the pair's
// squared distance D over all features and its difference diff in the feature left out; the
// distance left is clamped at 0 (D - diff^2 may fall below 0 by rounding).
ZN_HD inline double removal_kernel(double scale, double distance, double diff) {
    return exponential_kernel(scale, distance - diff * diff);
}

ZN_HD inline double alignment_term(bool chi_square, double scale, double x, double z) {
    if (chi_square) return scale * chi2_term(x, z);
    const double d = x - z;
    return scale * (d * d);
}

// d/d theta_k of sum_ij W_ij for the Gaussian kernel over the pairs (a_i, b_j), W = Y o K_theta,
// from the products: -scale sum_ij W_ij (a_ik - b_jk)^2 = -scale (squares - 2 cross) with
// squares = sum_i r_i a_ik^2 + sum_j c_j b_jk^2 (r = W 1, c = W' 1), cross = sum_i a_ik (W B)_ik.
ZN_HD inline double gaussian_alignment_gradient(double scale, double squares, double cross) {
    return -scale * (squares - 2.0 * cross);
}

// ---- standardiser (Standardizer, include/zeronorm/core/preprocess.hpp) -----------------------

// Mean and population standard deviation of the n values value(0..n-1) (two-pass). A constant
// vector gets scale 1: testing max == min, not sd == 0, because summation rounding leaves a tiny
// sd > 0 for e.g. n copies of 0.1, and dividing by it would blow rounding noise up to O(1). The
// sums run on v / 2^e with 2^e near max|v|, so finite data up to the largest double neither
// overflow (a sum of values near 1e300, a square of 1e155) nor lose digits; dividing by a power
// of two is exact, so ordinary data get the same bits as without it. The values are finite (the
// callers check): plain comparisons find the range.
//
// Written for L vectors at once, value(i, c) the i-th value of vector c < L, results in mean[c]
// and scale[c]: each vector's sums run in the same order whatever L is (the same bits), and the
// L independent chains of additions keep a host core's adders busy where one chain waits on
// each addition's latency.
template <int L, class Value>
ZN_HD void mean_and_scale_of(Value value, std::int64_t n, double* mean, double* scale) {
    double lo[L], hi[L], shrink[L], sum[L], squares[L];
    int exponent[L];
    for (int c = 0; c < L; ++c) lo[c] = hi[c] = value(0, c);
    for (std::int64_t i = 1; i < n; ++i)
        for (int c = 0; c < L; ++c) {
            const double v = value(i, c);
            lo[c] = v < lo[c] ? v : lo[c];
            hi[c] = v > hi[c] ? v : hi[c];
        }
    for (int c = 0; c < L; ++c) {
        const double top = -lo[c] > hi[c] ? -lo[c] : hi[c];  // max |v|
        exponent[c] = lo[c] == hi[c] ? 0 : ilogb(top);       // (a constant vector is done)
        shrink[c] = ldexp(1.0, -exponent[c]);
        sum[c] = 0.0;
        squares[c] = 0.0;
    }
    for (std::int64_t i = 0; i < n; ++i)
        for (int c = 0; c < L; ++c) sum[c] += value(i, c) * shrink[c];
    for (int c = 0; c < L; ++c) sum[c] /= static_cast<double>(n);  // the shrunk means
    for (std::int64_t i = 0; i < n; ++i)
        for (int c = 0; c < L; ++c) {
            const double d = value(i, c) * shrink[c] - sum[c];
            squares[c] += d * d;
        }
    for (int c = 0; c < L; ++c) {
        if (lo[c] == hi[c]) {
            mean[c] = lo[c];
            scale[c] = 1.0;
            continue;
        }
        mean[c] = ldexp(sum[c], exponent[c]);
        scale[c] = ldexp(sqrt(squares[c] / static_cast<double>(n)), exponent[c]);
        if (!(scale[c] > 0.0) || !isfinite(scale[c])) scale[c] = 1.0;
    }
}

// One vector: value(i).
template <class Value>
struct OneVector {
    Value value;
    ZN_HD double operator()(std::int64_t i, int) const { return value(i); }
};

template <class Value>
ZN_HD void mean_and_scale(Value value, std::int64_t n, double& mean, double& scale) {
    mean_and_scale_of<1>(OneVector<Value>{value}, n, &mean, &scale);
}

}  // namespace zeronorm::rules
