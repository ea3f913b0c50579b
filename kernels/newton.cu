// The Newton finish of the dense dual on the device (SmoOps::newton_finish_batch): one thread
// block per problem, its system in shared memory. Each round builds the stationarity system of
// the free variables with the bounded variables' rows and columns replaced by the identity (so
// every problem's system is n x n and its solution is 0 there), factors it by Cholesky, solves
// it for the two right-hand sides -p_F - Q_FU C 1 and y_F, fixes the multiplier nu of
// y'beta = delta,
// and applies the active-set rules of the host reference (newton_finish in dense_dual.cpp):
// variables that leave the box go to the bound they crossed; once inside, the KKT gap of the
// full gradient decides; otherwise bounded variables whose multiplier has the wrong sign become
// free. The host recomputes the gap, bias and objective from the beta and gradient written here.
// Where the Cholesky factorisation fails or meets a pivot near zero (Q_FF singular or
// indefinite, which the host solves by a least-norm step) the problem is marked kNewtonToHost
// and the host rule finishes it, so both backends agree.
#include <cub/block/block_reduce.cuh>

#include <cmath>

#include "cuda_check.cuh"
#include "device_ops.hpp"
#include "smo_device.cuh"

namespace zeronorm::cuda_detail {
namespace {

constexpr int kThreads = launch_rules::newton_threads;
enum : int { kLower = 0, kFree = 1, kUpper = 2 };

using Reduce = cub::BlockReduce<double, kThreads>;

struct Sum {
    __device__ double operator()(double a, double b) const { return a + b; }
};
struct Max {
    __device__ double operator()(double a, double b) const { return a > b ? a : b; }
};
struct Min {
    __device__ double operator()(double a, double b) const { return a < b ? a : b; }
};

// The block-wide reduction of v, returned to every thread; storage reusable afterwards.
template <class Op>
__device__ double block_reduce(double v, Op op, Reduce::TempStorage& storage, double* slot) {
    const double r = Reduce(storage).Reduce(v, op);
    if (threadIdx.x == 0) *slot = r;
    __syncthreads();
    const double out = *slot;
    __syncthreads();
    return out;
}

__global__ void __launch_bounds__(kThreads) newton_finish_kernel(NewtonDeviceBatch b) {
    extern __shared__ double shared[];
    __shared__ Reduce::TempStorage storage;
    __shared__ double slot;
    __shared__ int flag;

    const i64 p = blockIdx.x;
    if (b.open[p] == 0) return;
    const int n = b.n;
    const double C = b.C;
    const double* K = b.K + p * n * n;
    const double* y = b.y + p * n;
    const double* linear = b.linear != nullptr ? b.linear + p * n : nullptr;
    const double delta = b.delta != nullptr ? b.delta[p] : 0.0;
    double* M = shared;        // n x n: the system, then its Cholesky factor (lower)
    double* rhs = M + n * n;   // -p_F - Q_FU C 1, then a = M^-1 (that), then the gradient
    double* rhs_y = rhs + n;   // y_F, then b = M^-1 y_F
    double* beta = rhs_y + n;
    int* side = reinterpret_cast<int*>(beta + n);
    const auto Q = [&](int i, int j) {
        return y[i] * K[i + i64(j) * n] * y[j] + (i == j ? b.ridge : 0.0);
    };

    for (int i = threadIdx.x; i < n; i += kThreads) {
        const double start = b.beta[p * n + i];
        side[i] = start >= C ? kUpper : start > 0 ? kFree : kLower;
    }
    __syncthreads();

    for (int round = 0; round < b.rounds; ++round) {
        double free_count = 0.0;
        for (int i = threadIdx.x; i < n; i += kThreads) {
            beta[i] = side[i] == kUpper ? C : 0.0;
            free_count += side[i] == kFree ? 1.0 : 0.0;
        }
        if (block_reduce(free_count, Sum(), storage, &slot) == 0.0) break;
        for (int i = threadIdx.x; i < n; i += kThreads) {
            double bounds = 0.0;  // (Q beta)_i with beta = C on the upper bounds, 0 elsewhere
            for (int j = 0; j < n; ++j)
                if (side[j] == kUpper) bounds += Q(i, j) * C;
            const bool free_i = side[i] == kFree;
            rhs[i] = free_i ? (linear != nullptr ? -linear[i] : 1.0) - bounds : 0.0;
            rhs_y[i] = free_i ? y[i] : 0.0;
        }
        for (i64 e = threadIdx.x; e < i64(n) * n; e += kThreads) {
            const int i = int(e % n), j = int(e / n);
            M[e] = side[i] == kFree && side[j] == kFree ? Q(i, j) : (i == j ? 1.0 : 0.0);
        }
        __syncthreads();

        // Cholesky, column by column (right-looking), lower triangle. A free variable's pivot
        // at most singular_pivot times the largest free diagonal marks Q_FF as (nearly)
        // singular: the host's rule solves those systems differently, so they go to the host.
        // The bounded variables' pivots are the identity's 1 whatever the scale of Q.
        double diagonal_max = 0.0;
        for (int i = threadIdx.x; i < n; i += kThreads)
            if (side[i] == kFree) diagonal_max = fmax(diagonal_max, fabs(Q(i, i)));
        diagonal_max = block_reduce(diagonal_max, Max(), storage, &slot);
        const double pivot_floor = b.singular_pivot * diagonal_max;
        bool factored = true;
        for (int k = 0; k < n; ++k) {
            if (threadIdx.x == 0) {
                const double pivot = M[k + i64(k) * n];
                flag = (side[k] != kFree || pivot > pivot_floor) && pivot > 0.0 &&
                       isfinite(pivot);
                if (flag) M[k + i64(k) * n] = sqrt(pivot);
            }
            __syncthreads();
            if (!flag) {
                factored = false;
                break;
            }
            const double diagonal = M[k + i64(k) * n];
            for (int i = k + 1 + threadIdx.x; i < n; i += kThreads) M[i + i64(k) * n] /= diagonal;
            __syncthreads();
            const int rest = n - k - 1;
            for (i64 e = threadIdx.x; e < i64(rest) * rest; e += kThreads) {
                const int i = k + 1 + int(e % rest), j = k + 1 + int(e / rest);
                if (i >= j) M[i + i64(j) * n] -= M[i + i64(k) * n] * M[j + i64(k) * n];
            }
            __syncthreads();
        }
        if (!factored) {
            if (threadIdx.x == 0) b.finished[p] = kNewtonToHost;
            return;
        }
        // L x = rhs, then L' x = x, for both right-hand sides.
        for (int k = 0; k < n; ++k) {
            if (threadIdx.x == 0) {
                rhs[k] /= M[k + i64(k) * n];
                rhs_y[k] /= M[k + i64(k) * n];
            }
            __syncthreads();
            for (int i = k + 1 + threadIdx.x; i < n; i += kThreads) {
                rhs[i] -= M[i + i64(k) * n] * rhs[k];
                rhs_y[i] -= M[i + i64(k) * n] * rhs_y[k];
            }
            __syncthreads();
        }
        for (int k = n - 1; k >= 0; --k) {
            if (threadIdx.x == 0) {
                rhs[k] /= M[k + i64(k) * n];
                rhs_y[k] /= M[k + i64(k) * n];
            }
            __syncthreads();
            for (int i = threadIdx.x; i < k; i += kThreads) {
                rhs[i] -= M[k + i64(i) * n] * rhs[k];
                rhs_y[i] -= M[k + i64(i) * n] * rhs_y[k];
            }
            __syncthreads();
        }

        // nu from y'beta = delta: y_F'(a - nu b) + C y_U'1 = delta.
        double ya = 0.0, yb = 0.0, y_bounds = 0.0;
        int bad = 0;
        for (int i = threadIdx.x; i < n; i += kThreads) {
            if (side[i] == kFree) {
                ya += y[i] * rhs[i];
                yb += y[i] * rhs_y[i];
                if (!isfinite(rhs[i]) || !isfinite(rhs_y[i])) bad = 1;
            }
            y_bounds += y[i] * beta[i];
        }
        bad = __syncthreads_or(bad);
        ya = block_reduce(ya, Sum(), storage, &slot);
        yb = block_reduce(yb, Sum(), storage, &slot);
        y_bounds = block_reduce(y_bounds, Sum(), storage, &slot);
        if (bad || !(fabs(yb) > 0.0)) break;
        const double nu = (ya + y_bounds - delta) / yb;

        // beta_F = a - nu b; the variables that leave the box go to the bound they crossed.
        int left_box = 0;
        for (int i = threadIdx.x; i < n; i += kThreads) {
            if (side[i] != kFree) continue;
            const double v = rhs[i] - nu * rhs_y[i];
            if (!isfinite(v)) bad = 1;
            else if (v <= 0.0) { side[i] = kLower; left_box = 1; }
            else if (v >= C) { side[i] = kUpper; left_box = 1; }
            else beta[i] = v;
        }
        bad = __syncthreads_or(bad);
        left_box = __syncthreads_or(left_box);
        if (bad) break;
        if (left_box) continue;

        // The gradient Q beta + p (into rhs) and the KKT gap.
        for (int i = threadIdx.x; i < n; i += kThreads) {
            double g = 0.0;
            for (int j = 0; j < n; ++j) g += Q(i, j) * beta[j];
            rhs[i] = linear != nullptr ? g + linear[i] : g - 1.0;
        }
        __syncthreads();
        double up = -INFINITY, low = INFINITY;
        for (int i = threadIdx.x; i < n; i += kThreads) {
            const double v = -y[i] * rhs[i];
            if (in_up(y[i], beta[i], C)) up = fmax(up, v);
            if (in_low(y[i], beta[i], C)) low = fmin(low, v);
        }
        up = block_reduce(up, Max(), storage, &slot);
        low = block_reduce(low, Min(), storage, &slot);
        const double gap = isfinite(up) && isfinite(low) ? fmax(0.0, up - low) : 0.0;
        if (gap <= b.tolerance) {
            for (int i = threadIdx.x; i < n; i += kThreads) {
                b.beta[p * n + i] = beta[i];
                b.G[p * n + i] = rhs[i];
            }
            if (threadIdx.x == 0) b.finished[p] = kNewtonFinished;
            return;
        }
        // Bounded variables whose multiplier has the wrong sign join the free set.
        int moved = 0;
        for (int i = threadIdx.x; i < n; i += kThreads) {
            const double reduced = rhs[i] + nu * y[i];
            if ((side[i] == kLower && reduced < 0.0) || (side[i] == kUpper && reduced > 0.0)) {
                side[i] = kFree;
                moved = 1;
            }
        }
        if (!__syncthreads_or(moved)) break;
    }
    if (threadIdx.x == 0) b.finished[p] = kNewtonOpen;
}

}  // namespace

bool newton_fits(int n, const launch_rules::DeviceLimits& limits) {
    cudaFuncAttributes attributes{};
    ZN_CUDA_TRY(cudaFuncGetAttributes(&attributes, newton_finish_kernel));
    return launch_rules::newton_fits(n, attributes.sharedSizeBytes, limits);
}

void newton_finish_batch(const NewtonDeviceBatch& batch, const launch_rules::DeviceLimits& limits,
                         cudaStream_t stream) {
    if (batch.problems == 0) return;
    const std::size_t bytes = launch_rules::newton_bytes(batch.n);
    // The ceiling is the kernel's, on the whole device: always the device's largest, so that
    // another backend's launch between this setting and the launch cannot lower it.
    cudaFuncAttributes attributes{};
    ZN_CUDA_TRY(cudaFuncGetAttributes(&attributes, newton_finish_kernel));
    const int ceiling = static_cast<int>(limits.shared_per_block_optin - attributes.sharedSizeBytes);
    ZN_CUDA_TRY(cudaFuncSetAttribute(newton_finish_kernel,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, ceiling));
    const unsigned blocks = one_block_each(batch.problems, "newton_finish_kernel");
    newton_finish_kernel<<<blocks, kThreads, bytes, stream>>>(batch);
    ZN_CUDA_CHECK_LAUNCH("newton_finish_kernel");
}

}  // namespace zeronorm::cuda_detail
