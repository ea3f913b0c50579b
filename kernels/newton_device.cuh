// The Newton finish of the dense dual (SmoOps::newton_finish_batch) of one problem by one block
// of threads, written once over a Block that supplies the block-wide steps: the CUDA kernel in
// newton.cu runs it with barriers and CUB reductions, and a host program runs it thread by
// thread (tests/core/test_device_phases.cpp) to check the device logic without a GPU.
//
// Each round builds the stationarity system of the free variables with the bounded variables'
// rows and columns replaced by the identity (so every problem's system is n x n and its solution
// is 0 there), factors it by Cholesky, solves it for the two right-hand sides -p_F - Q_FU C 1 and
// y_F, fixes the multiplier nu of y'beta = delta, and applies the active-set rules of the host
// reference (newton_finish in dense_dual.cpp): variables that leave the box go to the bound they
// crossed; once inside, the KKT gap of the full gradient decides; otherwise bounded variables
// whose multiplier has the wrong sign become free. Where the Cholesky factorisation fails or
// meets a pivot near zero (Q_FF singular or indefinite, which the host solves by a least-norm
// step) the problem goes to the host (kNewtonToHost), so both backends agree.
//
// A Block's steps are called by every thread of the block with the same arguments, and each
// ends in a barrier, so a step sees what every thread wrote in the steps before it:
//   each(f)               f(tid, threads) on every thread
//   single(f)             f() on thread 0 alone; its value (a double) to every thread
//   sum(f), max(f), min(f)  the reduction of f(tid, threads) over the threads, to every thread
//   any(f)                whether f(tid, threads) is true on some thread
// A step's f writes only entries no other thread touches in the same step (i = tid,
// tid + threads, ...; in single, any) and reads what earlier steps wrote. Every branch below
// depends on block-wide values alone, so the threads stay together. The steps capture by value
// (the problem is pointers and scalars), which keeps the kernel's locals in registers.
#pragma once

#include <cmath>
#include <cstddef>

#include "core/scalar_rules.hpp"
#include "device_types.hpp"

namespace zeronorm::cuda_detail {

using std::fabs;
using std::fmax;
using std::fmin;
using std::isfinite;
using std::sqrt;

enum NewtonSide : int { kNewtonLower = 0, kNewtonFree = 1, kNewtonUpper = 2 };

// One problem: its data in global memory and the block's scratch (shared memory on the device).
struct NewtonDeviceProblem {
    const double* K = nullptr;       // n x n, column-major, symmetric
    const double* y = nullptr;       // n labels, +-1
    const double* linear = nullptr;  // n: the linear term p, or null for all -1
    double delta = 0.0;              // y'beta = delta
    double* beta_io = nullptr;       // n: the SMO point in; the solution out, when finished
    double* G_out = nullptr;         // n: the solution's gradient Q beta + p, when finished
    double* M = nullptr;             // n x n scratch: the system, then its Cholesky factor
    double* rhs = nullptr;           // n: -p_F - Q_FU C 1, then M^-1 (that), then the gradient
    double* rhs_y = nullptr;         // n: y_F, then M^-1 y_F
    double* beta = nullptr;          // n: the round's point
    int* side = nullptr;             // n: NewtonSide of each variable
    int n = 0;
    int rounds = 0;
    double C = 1.0;  // may be +inf
    double ridge = 0.0;
    double tolerance = 1e-3;
    double singular_pivot = 0.0;
};

// Problem p of a batch over `scratch`, launch_rules::newton_bytes(n) bytes: M, rhs, rhs_y,
// beta, then side.
ZN_HD inline NewtonDeviceProblem newton_problem(const NewtonDeviceBatch& b, i64 p,
                                                double* scratch) {
    const i64 n = b.n;
    NewtonDeviceProblem q;
    q.K = b.K + p * n * n;
    q.y = b.y + p * n;
    q.linear = b.linear != nullptr ? b.linear + p * n : nullptr;
    q.delta = b.delta != nullptr ? b.delta[p] : 0.0;
    q.beta_io = b.beta + p * n;
    q.G_out = b.G + p * n;
    q.M = scratch;
    q.rhs = q.M + n * n;
    q.rhs_y = q.rhs + n;
    q.beta = q.rhs_y + n;
    q.side = reinterpret_cast<int*>(q.beta + n);
    q.n = b.n;
    q.rounds = b.rounds;
    q.C = b.C;
    q.ridge = b.ridge;
    q.tolerance = b.tolerance;
    q.singular_pivot = b.singular_pivot;
    return q;
}

// Q_ij = y_i y_j K_ij + ridge [i == j].
ZN_HD inline double newton_q(const NewtonDeviceProblem& p, int i, int j) {
    return p.y[i] * p.K[i + static_cast<std::size_t>(j) * static_cast<std::size_t>(p.n)] * p.y[j] +
           (i == j ? p.ridge : 0.0);
}

// Entry (i, j) of the n x n scratch matrix.
ZN_HD inline double& newton_m(const NewtonDeviceProblem& p, int i, int j) {
    return p.M[i + static_cast<std::size_t>(j) * static_cast<std::size_t>(p.n)];
}

// The finish by one block: kNewtonFinished (beta_io and G_out written), kNewtonOpen or
// kNewtonToHost (nothing written).
template <class Block>
ZN_HD int newton_finish_block(Block& block, const NewtonDeviceProblem& p) {
    const int n = p.n;
    const double C = p.C;
    block.each([=](int tid, int threads) {
        for (int i = tid; i < n; i += threads) {
            const double start = p.beta_io[i];
            p.side[i] = start >= C ? kNewtonUpper : start > 0 ? kNewtonFree : kNewtonLower;
        }
    });
    for (int round = 0; round < p.rounds; ++round) {
        // The bounded variables at their bounds; how many are free.
        const double free_count = block.sum([=](int tid, int threads) {
            double count = 0.0;
            for (int i = tid; i < n; i += threads) {
                p.beta[i] = p.side[i] == kNewtonUpper ? C : 0.0;
                count += p.side[i] == kNewtonFree ? 1.0 : 0.0;
            }
            return count;
        });
        if (free_count == 0.0) return kNewtonOpen;
        block.each([=](int tid, int threads) {
            for (int i = tid; i < n; i += threads) {
                double bounds = 0.0;  // (Q beta)_i with beta = C on the upper bounds, 0 elsewhere
                for (int j = 0; j < n; ++j)
                    if (p.side[j] == kNewtonUpper) bounds += newton_q(p, i, j) * C;
                const bool free_i = p.side[i] == kNewtonFree;
                p.rhs[i] = free_i ? (p.linear != nullptr ? -p.linear[i] : 1.0) - bounds : 0.0;
                p.rhs_y[i] = free_i ? p.y[i] : 0.0;
            }
            // The system column by column, consecutive threads on consecutive rows.
            for (int j = 0; j < n; ++j)
                for (int i = tid; i < n; i += threads)
                    newton_m(p, i, j) = p.side[i] == kNewtonFree && p.side[j] == kNewtonFree
                                            ? newton_q(p, i, j)
                                            : (i == j ? 1.0 : 0.0);
        });

        // Cholesky, column by column (right-looking), lower triangle. A free variable's pivot at
        // most singular_pivot times the largest free diagonal marks Q_FF as (nearly) singular:
        // the host's rule solves those systems differently, so they go to the host. The bounded
        // variables' pivots are the identity's 1 whatever the scale of Q.
        const double diagonal_max = block.max([=](int tid, int threads) {
            double largest = 0.0;
            for (int i = tid; i < n; i += threads)
                if (p.side[i] == kNewtonFree) largest = fmax(largest, fabs(newton_q(p, i, i)));
            return largest;
        });
        const double pivot_floor = p.singular_pivot * diagonal_max;
        for (int k = 0; k < n; ++k) {
            const double factored = block.single([=] {
                const double pivot = newton_m(p, k, k);
                const bool ok = (p.side[k] != kNewtonFree || pivot > pivot_floor) && pivot > 0.0 &&
                                isfinite(pivot);
                if (ok) newton_m(p, k, k) = sqrt(pivot);
                return ok ? 1.0 : 0.0;
            });
            if (factored == 0.0) return kNewtonToHost;
            block.each([=](int tid, int threads) {
                const double diagonal = newton_m(p, k, k);
                for (int i = k + 1 + tid; i < n; i += threads) newton_m(p, i, k) /= diagonal;
            });
            // The trailing lower triangle row by row, consecutive threads on consecutive rows.
            block.each([=](int tid, int threads) {
                for (int i = k + 1 + tid; i < n; i += threads) {
                    const double l_ik = newton_m(p, i, k);
                    for (int j = k + 1; j <= i; ++j) newton_m(p, i, j) -= l_ik * newton_m(p, j, k);
                }
            });
        }
        // L x = rhs, then L' x = x, for both right-hand sides.
        for (int k = 0; k < n; ++k) {
            block.single([=] {
                p.rhs[k] /= newton_m(p, k, k);
                p.rhs_y[k] /= newton_m(p, k, k);
                return 0.0;
            });
            block.each([=](int tid, int threads) {
                for (int i = k + 1 + tid; i < n; i += threads) {
                    p.rhs[i] -= newton_m(p, i, k) * p.rhs[k];
                    p.rhs_y[i] -= newton_m(p, i, k) * p.rhs_y[k];
                }
            });
        }
        for (int k = n - 1; k >= 0; --k) {
            block.single([=] {
                p.rhs[k] /= newton_m(p, k, k);
                p.rhs_y[k] /= newton_m(p, k, k);
                return 0.0;
            });
            block.each([=](int tid, int threads) {
                for (int i = tid; i < k; i += threads) {
                    p.rhs[i] -= newton_m(p, k, i) * p.rhs[k];
                    p.rhs_y[i] -= newton_m(p, k, i) * p.rhs_y[k];
                }
            });
        }

        // nu from y'beta = delta: y_F'(a - nu b) + C y_U'1 = delta (a = rhs, b = rhs_y). A
        // non-finite entry of a or b makes its sum non-finite.
        const double ya = block.sum([=](int tid, int threads) {
            double sum = 0.0;
            for (int i = tid; i < n; i += threads)
                if (p.side[i] == kNewtonFree) sum += p.y[i] * p.rhs[i];
            return sum;
        });
        const double yb = block.sum([=](int tid, int threads) {
            double sum = 0.0;
            for (int i = tid; i < n; i += threads)
                if (p.side[i] == kNewtonFree) sum += p.y[i] * p.rhs_y[i];
            return sum;
        });
        const double y_bounds = block.sum([=](int tid, int threads) {
            double sum = 0.0;
            for (int i = tid; i < n; i += threads) sum += p.y[i] * p.beta[i];
            return sum;
        });
        if (!isfinite(ya) || !isfinite(yb) || !(fabs(yb) > 0.0)) return kNewtonOpen;
        const double nu = (ya + y_bounds - p.delta) / yb;

        // beta_F = a - nu b; the variables that leave the box go to the bound they crossed. The
        // step's worst entry over the block: inside the box, left it, or not finite.
        constexpr double kInside = 0.0, kLeftBox = 1.0, kNotFinite = 2.0;
        const double step = block.max([=](int tid, int threads) {
            double worst = kInside;
            for (int i = tid; i < n; i += threads) {
                if (p.side[i] != kNewtonFree) continue;
                const double v = p.rhs[i] - nu * p.rhs_y[i];
                if (!isfinite(v)) {
                    worst = kNotFinite;
                } else if (v <= 0.0 || v >= C) {
                    p.side[i] = v <= 0.0 ? kNewtonLower : kNewtonUpper;
                    worst = fmax(worst, kLeftBox);
                } else {
                    p.beta[i] = v;
                }
            }
            return worst;
        });
        if (step == kNotFinite) return kNewtonOpen;
        if (step == kLeftBox) continue;

        // The gradient Q beta + p (into rhs) and the KKT gap.
        block.each([=](int tid, int threads) {
            for (int i = tid; i < n; i += threads) {
                double g = 0.0;
                for (int j = 0; j < n; ++j) g += newton_q(p, i, j) * p.beta[j];
                p.rhs[i] = p.linear != nullptr ? g + p.linear[i] : g - 1.0;
            }
        });
        const double up = block.max([=](int tid, int threads) {
            double m = -HUGE_VAL;
            for (int i = tid; i < n; i += threads)
                if (rules::in_up(p.y[i], p.beta[i], C)) m = fmax(m, -p.y[i] * p.rhs[i]);
            return m;
        });
        const double low = block.min([=](int tid, int threads) {
            double m = HUGE_VAL;
            for (int i = tid; i < n; i += threads)
                if (rules::in_low(p.y[i], p.beta[i], C)) m = fmin(m, -p.y[i] * p.rhs[i]);
            return m;
        });
        const double gap = isfinite(up) && isfinite(low) ? fmax(0.0, up - low) : 0.0;
        if (gap <= p.tolerance) {
            block.each([=](int tid, int threads) {
                for (int i = tid; i < n; i += threads) {
                    p.beta_io[i] = p.beta[i];
                    p.G_out[i] = p.rhs[i];
                }
            });
            return kNewtonFinished;
        }
        // Bounded variables whose multiplier has the wrong sign join the free set.
        const bool moved = block.any([=](int tid, int threads) {
            bool any_moved = false;
            for (int i = tid; i < n; i += threads) {
                const double reduced = p.rhs[i] + nu * p.y[i];
                if ((p.side[i] == kNewtonLower && reduced < 0.0) ||
                    (p.side[i] == kNewtonUpper && reduced > 0.0)) {
                    p.side[i] = kNewtonFree;
                    any_moved = true;
                }
            }
            return any_moved;
        });
        if (!moved) return kNewtonOpen;
    }
    return kNewtonOpen;
}

}  // namespace zeronorm::cuda_detail
