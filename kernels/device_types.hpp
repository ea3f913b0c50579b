// The plain types that the device code shares with host code (no CUDA headers), so that a host
// program can run the host-runnable phases of kernel_functions.cuh, smo_device.cuh,
// newton_device.cuh, alignment_device.cuh and scale_update_device.cuh thread by thread
// (tests/core/test_device_phases.cpp). The launchers that take them are in device_ops.hpp.
#pragma once

#include <cstdint>

#include "core/host_device.hpp"

namespace zeronorm::cuda_detail {

using i64 = std::int64_t;

// Kernel functions computed from a dot product (and the two squared norms for Rbf). The
// feature-weighted RBF is Rbf on sqrt(theta)-scaled columns; Chi2 has no dot-product form.
enum class DeviceKernel : int { Linear, Polynomial, SumOfPowers, Rbf, Chi2 };

struct KernelParams {
    DeviceKernel type = DeviceKernel::Linear;
    double gamma = 1.0;
    int degree = 3;
    double coef0 = 0.0;
};

// One SMO problem on a precomputed kernel in device memory (see smo_device.cuh).
struct SmoDeviceProblem {
    const double* K = nullptr;   // n x n, column-major, leading dimension n, symmetric
    const double* y = nullptr;   // n labels, exactly +1 or -1
    double* beta = nullptr;      // n: the feasible starting point in, the solution out
    double* G = nullptr;         // n: the final gradient Q beta + p out
    double* QD = nullptr;        // n: scratch, Q_tt = K_tt + ridge
    const double* Kv = nullptr;  // n: K (y o beta_start), or null when beta_start = 0
    const double* linear = nullptr;  // n: the linear term p, or null for all -1
    int n = 0;
    double C = 1.0;              // may be +inf
    double ridge = 0.0;
    double tolerance = 1e-3;
    i64 max_iterations = 0;      // > 0
};

enum SmoDeviceStatus : int { kSmoRunning = -1, kSmoConverged = 0, kSmoIterationCap = 1 };

struct SmoDeviceOutcome {
    i64 iterations = 0;
    double gap = 0.0;    // m(beta) - M(beta) at exit
    int status = kSmoConverged;
    int i = -1;          // last working set (diagnostics)
    int j = -1;
};

// What the AROM update did to one column (AromOps::multiplicative_update_batch's ScaleUpdate;
// see scale_update_device.cuh).
struct ScaleUpdateOutcome {
    i64 survivors = 0;
    double max_change = 0.0;
    int degenerate = 0;
};

// A batch of Newton finishes (SmoOps::newton_finish_batch) of one size n, stored back to back
// (see newton_device.cuh).
struct NewtonDeviceBatch {
    const double* K = nullptr;   // n x (n problems)
    const double* y = nullptr;   // n x problems, +-1
    double* beta = nullptr;      // n x problems: the SMO points in, the finished solutions out
    double* G = nullptr;         // n x problems: the finished solutions' gradients Q beta + p
    const double* linear = nullptr;  // n x problems: the linear terms p, or null for all -1
    const double* delta = nullptr;   // problems: y'beta = delta, or null for all 0
    const int* open = nullptr;   // problems: 0 skips the problem (nothing written)
    int* finished = nullptr;     // problems: a NewtonDeviceStatus
    int n = 0;
    i64 problems = 0;
    int rounds = 0;              // active-set rounds at most
    double C = 1.0;              // may be +inf
    double ridge = 0.0;
    double tolerance = 1e-3;
    double singular_pivot = 0.0;  // pivots <= this times the largest free diagonal: to the host
};

// How the device's Newton finish of a problem ended: finished (a round met the tolerance), not
// finished (the free set emptied, nu or a solution was not finite, or no round met the
// tolerance), or for the host: the free variables' system had no Cholesky factorisation with
// pivots above the singular floor (a singular or indefinite Q_FF), where the host rule decides.
enum NewtonDeviceStatus : int { kNewtonOpen = 0, kNewtonFinished = 1, kNewtonToHost = 2 };

// The point pairs of the alignment sums (alignment_device.cuh): the rows a_i of A (m x d) and
// b_j of B (q x d), column-major; the sums over one set of points pass A = B (and m = q).
struct AlignmentPairs {
    const double* A = nullptr;
    const double* B = nullptr;
    i64 m = 0, q = 0, d = 0;
    // One set of points: the weighted norms of B are those of A.
    ZN_HD bool same_points() const { return A == B && m == q; }
};

}  // namespace zeronorm::cuda_detail
