// Kernel values from a dot product for the device kernels in kernel_matrix.cu, and the tiled
// kernels' per-thread phases; the formulas themselves are the shared rules of
// core/scalar_rules.hpp.
#pragma once

#include <cmath>

#include "core/scalar_rules.hpp"
#include "device_types.hpp"

namespace zeronorm::cuda_detail {

// k(a, b) from dot = a.b; na = |a|^2, nb = |b|^2 (Rbf only). same_point: a and b are the same
// sample (the diagonal of a symmetric kernel), whose squared distance is exactly 0.
ZN_HD inline double kernel_from_dot(const KernelParams& kp, double dot, double na, double nb,
                                    bool same_point) {
    switch (kp.type) {
        case DeviceKernel::Linear: return dot;
        case DeviceKernel::Polynomial:
            return rules::polynomial_kernel(kp.gamma, kp.coef0, kp.degree, dot);
        case DeviceKernel::SumOfPowers: return rules::sum_of_powers_kernel(kp.degree, dot);
        case DeviceKernel::Rbf:
            return rules::exponential_kernel(kp.gamma, same_point ? 0.0 : na + nb - 2.0 * dot);
        case DeviceKernel::Chi2: break;  // no dot-product form
    }
    return NAN;
}

// ---- per-thread phases of the tiled kernels in kernel_matrix.cu ---------------------------------
// Written as functions of (block, thread) with the shared-memory tile passed in, so a host
// program can run them block by block, thread by thread, phase by phase (a barrier between
// phases) to check the index logic without a GPU.

constexpr int kTile = 32;      // tiles are kTile x kTile
constexpr int kTileRows = 8;   // blockDim = (kTile, kTileRows)
constexpr int kPerThread = kTile / kTileRows;
using Tile = double[kTile][kTile + 1];  // +1: conflict-free transposed access

// Symmetric transform, phase 1, for a tile (bi, bj) with bi >= bj: kernel values of its
// lower-triangle entries (i >= j) into tile[tx][c].
ZN_HD inline void sym_tile_load(const KernelParams& kp, const double* K, i64 n,
                                const double* norms, i64 bi, i64 bj, int tx, int ty, Tile& tile) {
    const bool rbf = kp.type == DeviceKernel::Rbf;
    for (int c = ty; c < kTile; c += kTileRows) {
        const i64 i = bi * kTile + tx;
        const i64 j = bj * kTile + c;
        double v = 0.0;
        if (i < n && j < n && i >= j) {
            const double na = rbf ? norms[i] : 0.0;
            const double nb = rbf ? norms[j] : 0.0;
            v = kernel_from_dot(kp, K[i + j * n], na, nb, i == j);
        }
        tile[tx][c] = v;
    }
}

// Phase 2: writes tile (bi, bj) (entries above the diagonal of a diagonal tile take their
// mirror) and, for bi > bj, the mirror tile (bj, bi), whose entry (r, s) is K(s, r), i.e. local
// (c, tx) of the tile. Consecutive tx write consecutive rows in both (coalesced).
ZN_HD inline void sym_tile_store(double* K, i64 n, i64 bi, i64 bj, int tx, int ty,
                                 const Tile& tile) {
    for (int c = ty; c < kTile; c += kTileRows) {
        const i64 i = bi * kTile + tx;
        const i64 j = bj * kTile + c;
        if (i < n && j < n) K[i + j * n] = i >= j ? tile[tx][c] : tile[c][tx];
    }
    if (bi != bj) {
        for (int c = ty; c < kTile; c += kTileRows) {
            const i64 r = bj * kTile + tx;
            const i64 s = bi * kTile + c;
            if (r < n && s < n) K[r + s * n] = tile[c][tx];
        }
    }
}

// Chi2, phase 1 of each feature chunk f0: sa[f][r] = A(row0 + r, f0 + f), sb likewise for B
// (zero outside the matrices).
ZN_HD inline void chi2_load(const double* A, i64 m, const double* B, i64 l, i64 d, i64 row0,
                            i64 col0, i64 f0, int tx, int ty, Tile& sa, Tile& sb) {
    for (int f = ty; f < kTile; f += kTileRows) {
        const i64 feature = f0 + f;
        const i64 ra = row0 + tx;
        const i64 rb = col0 + tx;
        sa[f][tx] = (feature < d && ra < m) ? A[ra + feature * m] : 0.0;
        sb[f][tx] = (feature < d && rb < l) ? B[rb + feature * l] : 0.0;
    }
}

// Phase 2: the thread's outputs (row0 + tx, col0 + ty + r kTileRows) accumulate the chunk's
// terms in feature order (the same order for K_ij and K_ji, so a symmetric K is exact).
ZN_HD inline void chi2_accumulate(i64 d, i64 f0, int tx, int ty, const Tile& sa, const Tile& sb,
                                  double (&acc)[kPerThread]) {
    const int f_end = d - f0 < kTile ? static_cast<int>(d - f0) : kTile;
    for (int f = 0; f < f_end; ++f) {
        const double a = sa[f][tx];
        for (int r = 0; r < kPerThread; ++r) acc[r] += rules::chi2_term(a, sb[f][ty + r * kTileRows]);
    }
}

ZN_HD inline void chi2_store(double gamma, double* K, i64 m, i64 l, i64 row0, i64 col0, int tx,
                             int ty, const double (&acc)[kPerThread]) {
    for (int r = 0; r < kPerThread; ++r) {
        const i64 i = row0 + tx;
        const i64 j = col0 + ty + r * kTileRows;
        if (i < m && j < l) K[i + j * m] = rules::exponential_kernel(gamma, acc[r]);
    }
}

}  // namespace zeronorm::cuda_detail
