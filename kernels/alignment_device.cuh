// The work of the alignment sums' kernels (alignment.cu), written as host-and-device functions:
// the elementwise passes over a range of entries (first, first + stride, ...: a grid-stride
// loop on the device), the reductions as one thread's share (entries tid, tid + threads, ...)
// that the kernel's block reduction adds up. A host program runs them as the launches would
// (tests/core/test_device_phases.cpp). The pairs are the rows a_i of A (m x d) and b_j of B
// (q x d) (AlignmentPairs; one set of points: A = B), the pair weights Y (m x q), and a batch of
// P weight vectors Theta (d x P) whose blocks lie side by side, column-major. The formulas are
// scalar_rules.hpp's, as on the CPU.
#pragma once

#include "core/scalar_rules.hpp"
#include "device_types.hpp"

namespace zeronorm::cuda_detail::alignment {

// Entry e of a batch of m x q blocks: block p, row i, column j, and ij = i + j m in the block.
struct Pair {
    i64 p, i, j, ij;
};
ZN_HD inline Pair pair_of(i64 e, i64 m, i64 q) {
    const i64 ij = e % (m * q);
    return {e / (m * q), ij % m, ij / m, ij};
}

// As (m x d P): block p is A diag(theta_p).
ZN_HD inline void weight_columns(const AlignmentPairs& s, const double* Theta, i64 P, double* As,
                                 i64 first, i64 stride) {
    const i64 md = s.m * s.d;
    for (i64 e = first; e < md * P; e += stride) {
        const i64 p = e / md;
        const i64 k = (e % md) / s.m;
        As[e] = s.A[e % md] * Theta[k + p * s.d];
    }
}

// |x_i|^2_theta = sum_k (x_ik theta_k) x_ik, features in order, for row i of X (rows x d).
ZN_HD inline double weighted_norm(const double* X, i64 rows, i64 d, const double* theta, i64 i) {
    double sum = 0.0;
    for (i64 k = 0; k < d; ++k) sum += X[i + k * rows] * theta[k] * X[i + k * rows];
    return sum;
}

// na (m x P) = |a_i|^2_theta_p and, unless the points are the same (then na serves both),
// nb (q x P) = |b_j|^2_theta_p: the norms of weighted_norm_rows(s) rows per weight vector.
ZN_HD inline i64 weighted_norm_rows(const AlignmentPairs& s) {
    return s.m + (s.same_points() ? 0 : s.q);
}
ZN_HD inline void weighted_norms(const AlignmentPairs& s, const double* Theta, i64 P, double* na,
                                 double* nb, i64 first, i64 stride) {
    const i64 rows = weighted_norm_rows(s);
    for (i64 e = first; e < rows * P; e += stride) {
        const i64 p = e / rows;
        const i64 r = e % rows;
        const double* theta = Theta + p * s.d;
        if (r < s.m)
            na[r + p * s.m] = weighted_norm(s.A, s.m, s.d, theta, r);
        else
            nb[(r - s.m) + p * s.q] = weighted_norm(s.B, s.q, s.d, theta, r - s.m);
    }
}

// In place on G (m x q P) holding the dots a_i' diag(theta_p) b_j: the Gaussian pair weights
// W_p(i, j) = Y_ij exp(-scale (|a_i|^2 + |b_j|^2 - 2 G_p(i, j))), the distance clamped at 0.
ZN_HD inline void gaussian_pair_weights(const double* Y, const double* na, const double* nb, i64 m,
                                        i64 q, i64 P, double scale, double* G, i64 first,
                                        i64 stride) {
    for (i64 e = first; e < m * q * P; e += stride) {
        const Pair pair = pair_of(e, m, q);
        const double distance = na[pair.i + pair.p * m] + nb[pair.j + pair.p * q] - 2.0 * G[e];
        G[e] = Y[pair.ij] * rules::exponential_kernel(scale, distance);
    }
}

// W (m x q P): the chi-square pair weights W_p(i, j) = Y_ij exp(-sum_k theta_kp D(a_ik, b_jk)).
ZN_HD inline void chi_square_pair_weights(const AlignmentPairs& s, const double* Y,
                                          const double* Theta, i64 P, double scale, double* W,
                                          i64 first, i64 stride) {
    for (i64 e = first; e < s.m * s.q * P; e += stride) {
        const Pair pair = pair_of(e, s.m, s.q);
        const double* theta = Theta + pair.p * s.d;
        double exponent = 0.0;
        for (i64 k = 0; k < s.d; ++k)
            exponent += theta[k] * rules::alignment_term(true, scale, s.A[pair.i + k * s.m],
                                                         s.B[pair.j + k * s.q]);
        W[e] = Y[pair.ij] * rules::exponential_kernel(1.0, exponent);
    }
}

// r (m x P): r_ip = sum_j W_p(i, j), j in order (entries e < m P).
ZN_HD inline void row_sums(const double* W, i64 m, i64 q, i64 P, double* r, i64 first,
                           i64 stride) {
    for (i64 e = first; e < m * P; e += stride) {
        const double* w = W + (e / m) * m * q + e % m;
        double sum = 0.0;
        for (i64 j = 0; j < q; ++j) sum += w[j * m];
        r[e] = sum;
    }
}

// A thread's share of sum_i A(i, c), A with `rows` rows.
ZN_HD inline double column_sum_part(const double* A, i64 rows, i64 c, int tid, int threads) {
    const double* a = A + c * rows;
    double sum = 0.0;
    for (i64 i = tid; i < rows; i += threads) sum += a[i];
    return sum;
}

// A thread's share of the Gaussian gradient's sums for feature k and weight vector p:
//   squares = sum_i r_ip a_ik^2 + sum_j c_jp b_jk^2,   cross = sum_i a_ik M_p(i, k),
// r = W 1 (m x P), c = W' 1 (q x P), M_p = W_p B (m x d P); the block's sums give the gradient
// by rules::gaussian_alignment_gradient.
struct GaussianGradientParts {
    double squares = 0.0, cross = 0.0;
};
ZN_HD inline GaussianGradientParts gaussian_gradient_part(const AlignmentPairs& s, const double* r,
                                                          const double* c, const double* M, i64 k,
                                                          i64 p, int tid, int threads) {
    const double* a = s.A + k * s.m;
    const double* b = s.B + k * s.q;
    const double* rp = r + p * s.m;
    const double* cp = c + p * s.q;
    const double* mk = M + p * s.m * s.d + k * s.m;
    GaussianGradientParts part;
    for (i64 i = tid; i < s.m; i += threads) {
        part.squares += rp[i] * a[i] * a[i];
        part.cross += a[i] * mk[i];
    }
    for (i64 j = tid; j < s.q; j += threads) part.squares += cp[j] * b[j] * b[j];
    return part;
}

// A thread's share of the chi-square gradient(k, p) = -sum_ij W_p(i, j) D(a_ik, b_jk), the
// pairs' entries ij = i + j m.
ZN_HD inline double chi_square_gradient_part(const AlignmentPairs& s, const double* W, i64 k,
                                             i64 p, double scale, int tid, int threads) {
    const double* a = s.A + k * s.m;
    const double* b = s.B + k * s.q;
    const double* w = W + p * s.m * s.q;
    double sum = 0.0;
    for (i64 e = tid; e < s.m * s.q; e += threads)
        sum += w[e] * rules::alignment_term(true, scale, a[e % s.m], b[e / s.m]);
    return -sum;
}

}  // namespace zeronorm::cuda_detail::alignment
