// The phases of one SMO iteration, as functions of (thread id, thread count), and the loop over
// them written once over a Block (smo_solve_block), so that the CUDA kernels in smo.cu run it
// with block-wide reductions and barriers, and a host program runs it thread by thread to check
// the device logic without a GPU.
//
// Problem (ops/smo_ops.hpp):  min_beta 1/2 beta'Q beta + p'beta,  Q_ij = y_i y_j (K_ij + ridge
//                     [i==j]), s.t. y'beta = delta, 0 <= beta_i <= C (p = -1 unless given; delta
//                     is the starting point's y'beta, which every step keeps).
// Gradient G = Q beta + p. With I_up = {t : y_t = +1, beta_t < C} u {t : y_t = -1, beta_t > 0}
// and I_low = {t : y_t = +1, beta_t > 0} u {t : y_t = -1, beta_t < C}, the KKT violation is
// m - M with m = max_{I_up} -y_t G_t, M = min_{I_low} -y_t G_t (Fan, Chen & Lin, JMLR 6 (2005),
// eq. (7)). Working set WSS2 (their Algorithm 2 / WSS 2, as LIBSVM's Solver::select_working_set):
//   i = argmax_{t in I_up} -y_t G_t,
//   j = argmin_{t in I_low, -y_t G_t < m} -b_it^2 / a_it,   b_it = m + y_t G_t,
//   a_it = Q_ii + Q_tt - 2 y_i y_t Q_it = K_ii + K_tt - 2 K_it + 2 ridge   (tau = 1e-12 if <= 0).
// Ties go to the larger index, as LIBSVM's ">=" / "<=" scans do. The two-variable update with
// clipping is LIBSVM's Solver::Solve, and G += Q_i dbeta_i + Q_j dbeta_j.
#pragma once

#include <cmath>
#include <cstddef>

#include "core/scalar_rules.hpp"
#include "device_types.hpp"

namespace zeronorm::cuda_detail {

ZN_HD inline double smo_inf() { return HUGE_VAL; }

// Column `col` of the n x n kernel.
ZN_HD inline const double* smo_column(const SmoDeviceProblem& p, int col) {
    return p.K + static_cast<std::size_t>(col) * static_cast<std::size_t>(p.n);
}

using rules::in_low;
using rules::in_up;

// (value, index) with the larger value winning, ties to the larger index; NaN never wins.
struct SmoSelectI {
    double Gmax;  // m = max_{I_up} -y_t G_t
    int i;        // its index, -1 when I_up is empty
};

// argmin of the WSS2 objective decrease (ties to the larger index) and M's negation.
struct SmoSelectJ {
    double obj_min;  // min -b_it^2 / a_it
    int j;           // its index, -1 when no t in I_low has -y_t G_t < m
    double Gmax2;    // max_{I_low} y_t G_t = -M
};

ZN_HD inline SmoSelectI smo_identity_i() { return SmoSelectI{-smo_inf(), -1}; }
ZN_HD inline SmoSelectJ smo_identity_j() { return SmoSelectJ{smo_inf(), -1, -smo_inf()}; }

ZN_HD inline SmoSelectI smo_combine(const SmoSelectI& a, const SmoSelectI& b) {
    const bool b_wins = b.Gmax > a.Gmax || (b.Gmax == a.Gmax && b.i > a.i);
    return b_wins ? b : a;
}

ZN_HD inline SmoSelectJ smo_combine(const SmoSelectJ& a, const SmoSelectJ& b) {
    const bool b_wins = b.obj_min < a.obj_min || (b.obj_min == a.obj_min && b.j > a.j);
    SmoSelectJ r = b_wins ? b : a;
    r.Gmax2 = b.Gmax2 > a.Gmax2 ? b.Gmax2 : a.Gmax2;
    return r;
}

// Q_tt, and G = Q beta + p = y o (K (y o beta)) + ridge beta + p (Kv = K (y o beta), null when
// beta = 0; p = -1 when linear is null).
ZN_HD inline void smo_init_thread(const SmoDeviceProblem& p, int tid, int n_threads) {
    for (int t = tid; t < p.n; t += n_threads) {
        p.QD[t] = smo_column(p, t)[t] + p.ridge;
        double g = p.linear != nullptr ? p.linear[t] : -1.0;
        if (p.Kv != nullptr) g += p.y[t] * p.Kv[t] + p.ridge * p.beta[t];
        p.G[t] = g;
    }
}

ZN_HD inline SmoSelectI smo_select_i_thread(const SmoDeviceProblem& p, int tid, int n_threads) {
    SmoSelectI best = smo_identity_i();
    for (int t = tid; t < p.n; t += n_threads) {
        const double yt = p.y[t];
        if (!in_up(yt, p.beta[t], p.C)) continue;
        const double v = -yt * p.G[t];
        if (v > best.Gmax || (v == best.Gmax && t > best.i)) best = SmoSelectI{v, t};
    }
    return best;
}

// `i`, `Gmax` from the first reduction (i = -1: I_up empty; then no j is found).
ZN_HD inline SmoSelectJ smo_select_j_thread(const SmoDeviceProblem& p, int i, double Gmax, int tid,
                                            int n_threads) {
    SmoSelectJ best = smo_identity_j();
    const double* Ki = i >= 0 ? smo_column(p, i) : nullptr;
    const double QDi = i >= 0 ? p.QD[i] : 0.0;
    for (int t = tid; t < p.n; t += n_threads) {
        const double yt = p.y[t];
        if (!in_low(yt, p.beta[t], p.C)) continue;
        const double ytGt = yt * p.G[t];
        if (ytGt >= best.Gmax2) best.Gmax2 = ytGt;
        const double grad_diff = Gmax + ytGt;  // b_it; > 0 excludes t = i
        if (grad_diff > 0 && Ki != nullptr) {
            double quad = QDi + p.QD[t] - 2.0 * Ki[t];
            quad = rules::pair_curvature(quad);
            const double obj = -(grad_diff * grad_diff) / quad;
            if (obj < best.obj_min || (obj == best.obj_min && t > best.j)) {
                best.obj_min = obj;
                best.j = t;
            }
        }
    }
    return best;
}

// Whether the loop stops after the two selections of iteration `iterations` (steps taken so
// far): converged when the gap m - M meets the tolerance or no j was found (checked first, so a
// step that reaches the optimum on the last allowed iteration is a success), else at the cap.
ZN_HD inline int smo_stop_status(const SmoDeviceProblem& p, const SmoSelectI& si,
                                 const SmoSelectJ& sj, i64 iterations) {
    if (sj.j < 0 || si.Gmax + sj.Gmax2 <= p.tolerance) return kSmoConverged;
    if (iterations >= p.max_iterations) return kSmoIterationCap;
    return kSmoRunning;
}

struct SmoStep {
    double d_i;  // beta_i new - old
    double d_j;
};

// The analytic two-variable update with clipping to the box (LIBSVM Solver::Solve), writing
// beta_i and beta_j. Run by one thread.
ZN_HD inline SmoStep smo_update_pair(const SmoDeviceProblem& p, int i, int j) {
    const double C = p.C;
    const double yi = p.y[i];
    const double yj = p.y[j];
    const double Qij = yi * yj * smo_column(p, i)[j];
    const double old_i = p.beta[i];
    const double old_j = p.beta[j];
    double ai = old_i;
    double aj = old_j;
    if (yi != yj) {
        double quad = p.QD[i] + p.QD[j] + 2.0 * Qij;
        quad = rules::pair_curvature(quad);
        const double delta = (-p.G[i] - p.G[j]) / quad;
        const double diff = ai - aj;
        ai += delta;
        aj += delta;
        if (diff > 0) {
            if (aj < 0) {
                aj = 0;
                ai = diff;
            }
        } else {
            if (ai < 0) {
                ai = 0;
                aj = -diff;
            }
        }
        // C_i = C_j = C, so LIBSVM's test diff > C_i - C_j is diff > 0 (C = inf: both clips are
        // inactive, as LIBSVM's inf - inf = NaN comparison also gives).
        if (diff > 0) {
            if (ai > C) {
                ai = C;
                aj = C - diff;
            }
        } else {
            if (aj > C) {
                aj = C;
                ai = C + diff;
            }
        }
    } else {
        double quad = p.QD[i] + p.QD[j] - 2.0 * Qij;
        quad = rules::pair_curvature(quad);
        const double delta = (p.G[i] - p.G[j]) / quad;
        const double sum = ai + aj;
        ai -= delta;
        aj += delta;
        if (sum > C) {
            if (ai > C) {
                ai = C;
                aj = sum - C;
            }
        } else {
            if (aj < 0) {
                aj = 0;
                ai = sum;
            }
        }
        if (sum > C) {
            if (aj > C) {
                aj = C;
                ai = sum - C;
            }
        } else {
            if (ai < 0) {
                ai = 0;
                aj = sum;
            }
        }
    }
    p.beta[i] = ai;
    p.beta[j] = aj;
    return SmoStep{ai - old_i, aj - old_j};
}

// G_t += Q_ti d_i + Q_tj d_j for this thread's t.
ZN_HD inline void smo_update_gradient_thread(const SmoDeviceProblem& p, int i, int j,
                                             const SmoStep& step, int tid, int n_threads) {
    const double* Ki = smo_column(p, i);
    const double* Kj = smo_column(p, j);
    const double yi = p.y[i];
    const double yj = p.y[j];
    for (int t = tid; t < p.n; t += n_threads) {
        const double yt = p.y[t];
        double Qti = yi * yt * Ki[t];
        double Qtj = yj * yt * Kj[t];
        if (t == i) Qti += p.ridge;
        if (t == j) Qtj += p.ridge;
        p.G[t] += Qti * step.d_i + Qtj * step.d_j;
    }
}

// The whole SMO loop on one problem by one Block of threads. A Block's steps are called by every
// thread with the same arguments and end in a barrier among the problem's threads:
//   each(f)              f(tid, threads) on every thread
//   select(f, identity)  the smo_combine of f(tid, threads) over the threads (SmoSelectI or
//                        SmoSelectJ), to every thread
//   single(f)            f() (an SmoStep) on thread 0 alone, its value to every thread
// Every branch depends on block-wide values alone, so the threads stay together.
template <class Block>
ZN_HD SmoDeviceOutcome smo_solve_block(Block& block, const SmoDeviceProblem& p) {
    block.each([=](int tid, int threads) { smo_init_thread(p, tid, threads); });
    SmoDeviceOutcome out;
    for (;;) {
        const SmoSelectI si = block.select(
            [=](int tid, int threads) { return smo_select_i_thread(p, tid, threads); },
            smo_identity_i());
        const SmoSelectJ sj = block.select(
            [=](int tid, int threads) {
                return smo_select_j_thread(p, si.i, si.Gmax, tid, threads);
            },
            smo_identity_j());
        out.gap = si.Gmax + sj.Gmax2;
        out.i = si.i;
        out.j = sj.j;
        out.status = smo_stop_status(p, si, sj, out.iterations);
        if (out.status != kSmoRunning) return out;
        const SmoStep step = block.single([=] { return smo_update_pair(p, si.i, sj.j); });
        block.each([=](int tid, int threads) {
            smo_update_gradient_thread(p, si.i, sj.j, step, tid, threads);
        });
        ++out.iterations;
    }
}

}  // namespace zeronorm::cuda_detail
