// Memory-bound helper kernels: gathers for compaction, column scaling, row norms, scaling, and
// the positive-diagonal check after a Cholesky factorisation. Grid-stride loops over 64-bit
// element counts; consecutive threads touch consecutive rows (column-major), so accesses coalesce.
#include <cmath>

#include "core/scalar_rules.hpp"
#include "cuda_check.cuh"
#include "device_ops.hpp"
#include "grid_stride.cuh"

namespace zeronorm::cuda_detail {
namespace {

using grid::blocks_for;
using grid::global_thread;
using grid::grid_stride;
using grid::kThreads;

__global__ void gather_columns_kernel(const double* X, i64 rows, const i64* cols, i64 n_cols,
                                      double* out) {
    const i64 total = rows * n_cols;
    for (i64 e = global_thread(); e < total; e += grid_stride()) {
        const i64 r = e % rows;
        const i64 k = e / rows;
        out[e] = X[r + cols[k] * rows];
    }
}

__global__ void scatter_columns_kernel(const double* source, i64 rows, const i64* cols,
                                       i64 n_cols, double* X) {
    const i64 total = rows * n_cols;
    for (i64 e = global_thread(); e < total; e += grid_stride())
        X[e % rows + cols[e / rows] * rows] = source[e];
}

__global__ void gather_rows_kernel(const double* X, i64 rows, i64 cols, const i64* row_idx,
                                   i64 n_rows, double* out) {
    const i64 total = n_rows * cols;
    for (i64 e = global_thread(); e < total; e += grid_stride()) {
        const i64 r = e % n_rows;
        const i64 c = e / n_rows;
        out[e] = X[row_idx[r] + c * rows];
    }
}

__global__ void scale_columns_kernel(const double* A, i64 rows, i64 cols, const double* z,
                                     const double* w, double* out) {
    const i64 total = rows * cols;
    for (i64 e = global_thread(); e < total; e += grid_stride()) {
        const i64 c = e / rows;
        double v = A[e];
        if (z != nullptr) v *= z[c];
        if (w != nullptr) v *= w[c];
        out[e] = v;
    }
}

// Entry rows[i] of a column, as the standardiser's rule reads it.
struct RowsOfColumn {
    const double* column;
    const i64* rows;
    ZN_HD double operator()(i64 i) const { return column[rows[i]]; }
};

// One thread per (split p, column j): the column's mean and scale over the split's training rows
// (Standardizer's rule: population standard deviation; a constant column is centred on its value
// with scale 1), then the standardised training and test entries.
__global__ void split_blocks_kernel(const double* X, i64 N, i64 d, const i64* train_rows, i64 n,
                                    const i64* test_rows, i64 m, i64 P, bool standardize,
                                    double* train, double* test) {
    for (i64 k = global_thread(); k < d * P; k += grid_stride()) {
        const i64 p = k / d;
        const double* col = X + (k % d) * N;
        const i64* tr = train_rows + p * n;
        const i64* te = test_rows + p * m;
        double mean = 0.0;
        double scale = 1.0;
        if (standardize)
            rules::mean_and_scale(RowsOfColumn{col, tr}, n, mean, scale);
        for (i64 i = 0; i < n; ++i) train[k * n + i] = (col[tr[i]] - mean) / scale;
        for (i64 i = 0; i < m; ++i) test[k * m + i] = (col[te[i]] - mean) / scale;
    }
}

__global__ void row_squared_norms_kernel(const double* A, i64 rows, i64 cols, double* out) {
    for (i64 r = global_thread(); r < rows; r += grid_stride()) {
        double s = 0.0;
        for (i64 c = 0; c < cols; ++c) {
            const double v = A[r + c * rows];
            s += v * v;
        }
        out[r] = s;
    }
}

__global__ void scale_columns_to_float_kernel(const double* A, i64 rows, i64 cols,
                                              const double* z, float* out) {
    for (i64 e = global_thread(); e < rows * cols; e += grid_stride())
        out[e] = static_cast<float>(z != nullptr ? A[e] * z[e / rows] : A[e]);
}

__global__ void widen_kernel(const float* in, double* out, i64 n) {
    for (i64 e = global_thread(); e < n; e += grid_stride()) out[e] = static_cast<double>(in[e]);
}

__global__ void row_squared_norms_batch_kernel(const double* A, i64 rows, i64 cols, i64 batch,
                                               double* out) {
    for (i64 k = global_thread(); k < rows * batch; k += grid_stride()) {
        const i64 r = k % rows;
        const double* row = A + (k / rows) * rows * cols + r;
        double s = 0.0;
        for (i64 c = 0; c < cols; ++c) s += row[c * rows] * row[c * rows];
        out[k] = s;
    }
}

__global__ void gather_blocks_kernel(const double* K, i64 ld, i64 width, const i64* source,
                                     const i64* rows, i64 r, const i64* cols, i64 c, i64 Q,
                                     double* out) {
    const i64 total = r * c * Q;
    for (i64 e = global_thread(); e < total; e += grid_stride()) {
        const i64 i = e % r;
        const i64 column = e / r;  // q c + j
        const i64 q = column / c;
        out[e] = K[rows[q * r + i] + (source[q] * width + cols[column]) * ld];
    }
}

__global__ void scale_in_place_kernel(double* x, i64 n, double beta) {
    for (i64 e = global_thread(); e < n; e += grid_stride()) x[e] = beta == 0.0 ? 0.0 : beta * x[e];
}

__global__ void check_finite_kernel(const double* x, i64 n, int* flag) {
    for (i64 e = global_thread(); e < n; e += grid_stride())
        if (!isfinite(x[e])) atomicExch(flag, 1);
}

__global__ void check_positive_diagonal_kernel(const double* L, i64 n, int* flag) {
    for (i64 k = global_thread(); k < n; k += grid_stride()) {
        const double v = L[k + k * n];
        if (!(v > 0.0 && isfinite(v))) atomicExch(flag, 1);
    }
}

__global__ void scale_rows_columns_kernel(double* X, i64 rows, i64 cols, const double* r,
                                          const double* c, double shift) {
    const i64 total = rows * cols;
    for (i64 e = global_thread(); e < total; e += grid_stride()) {
        const i64 i = e % rows;
        const i64 j = e / rows;
        // x (r_i c_j), the shift only where it is nonzero: the CPU path's rounding, bit for bit.
        double v = X[e] * ((r != nullptr ? r[i] : 1.0) * (c != nullptr ? c[j] : 1.0));
        if (i == j && shift != 0.0) v += shift;
        X[e] = v;
    }
}

}  // namespace

void scale_rows_columns(double* X, i64 rows, i64 cols, const double* r, const double* c,
                        double shift, cudaStream_t stream) {
    if (rows * cols == 0) return;
    scale_rows_columns_kernel<<<blocks_for(rows * cols), kThreads, 0, stream>>>(X, rows, cols, r,
                                                                               c, shift);
    ZN_CUDA_CHECK_LAUNCH("scale_rows_columns_kernel");
}

void gather_columns(const double* X, i64 rows, const i64* cols, i64 n_cols, double* out,
                    cudaStream_t stream) {
    if (rows * n_cols == 0) return;
    gather_columns_kernel<<<blocks_for(rows * n_cols), kThreads, 0, stream>>>(X, rows, cols,
                                                                                n_cols, out);
    ZN_CUDA_CHECK_LAUNCH("gather_columns_kernel");
}

void scatter_columns(const double* source, i64 rows, const i64* cols, i64 n_cols, double* X,
                     cudaStream_t stream) {
    if (rows * n_cols == 0) return;
    scatter_columns_kernel<<<blocks_for(rows * n_cols), kThreads, 0, stream>>>(source, rows, cols,
                                                                               n_cols, X);
    ZN_CUDA_CHECK_LAUNCH("scatter_columns_kernel");
}

void gather_rows(const double* X, i64 rows, i64 cols, const i64* row_idx, i64 n_rows,
                 double* out, cudaStream_t stream) {
    if (n_rows * cols == 0) return;
    gather_rows_kernel<<<blocks_for(n_rows * cols), kThreads, 0, stream>>>(X, rows, cols, row_idx,
                                                                             n_rows, out);
    ZN_CUDA_CHECK_LAUNCH("gather_rows_kernel");
}

void scale_columns(const double* A, i64 rows, i64 cols, const double* z, const double* w,
                   double* out, cudaStream_t stream) {
    if (rows * cols == 0) return;
    scale_columns_kernel<<<blocks_for(rows * cols), kThreads, 0, stream>>>(A, rows, cols, z, w,
                                                                             out);
    ZN_CUDA_CHECK_LAUNCH("scale_columns_kernel");
}

void split_blocks(const double* X, i64 N, i64 d, const i64* train_rows, i64 n,
                  const i64* test_rows, i64 m, i64 P, bool standardize, double* train,
                  double* test, cudaStream_t stream) {
    if (d * P == 0) return;
    split_blocks_kernel<<<blocks_for(d * P), kThreads, 0, stream>>>(
        X, N, d, train_rows, n, test_rows, m, P, standardize, train, test);
    ZN_CUDA_CHECK_LAUNCH("split_blocks_kernel");
}

void row_squared_norms(const double* A, i64 rows, i64 cols, double* out, cudaStream_t stream) {
    if (rows == 0) return;
    row_squared_norms_kernel<<<blocks_for(rows), kThreads, 0, stream>>>(A, rows, cols, out);
    ZN_CUDA_CHECK_LAUNCH("row_squared_norms_kernel");
}

void scale_columns_to_float(const double* A, i64 rows, i64 cols, const double* z, float* out,
                            cudaStream_t stream) {
    if (rows * cols == 0) return;
    scale_columns_to_float_kernel<<<blocks_for(rows * cols), kThreads, 0, stream>>>(A, rows, cols,
                                                                                    z, out);
    ZN_CUDA_CHECK_LAUNCH("scale_columns_to_float_kernel");
}

void widen(const float* in, double* out, i64 n, cudaStream_t stream) {
    if (n == 0) return;
    widen_kernel<<<blocks_for(n), kThreads, 0, stream>>>(in, out, n);
    ZN_CUDA_CHECK_LAUNCH("widen_kernel");
}

void row_squared_norms_batch(const double* A, i64 rows, i64 cols, i64 batch, double* out,
                             cudaStream_t stream) {
    if (rows * batch == 0) return;
    row_squared_norms_batch_kernel<<<blocks_for(rows * batch), kThreads, 0, stream>>>(
        A, rows, cols, batch, out);
    ZN_CUDA_CHECK_LAUNCH("row_squared_norms_batch_kernel");
}

void gather_blocks(const double* K, i64 ld, i64 width, const i64* source, const i64* rows, i64 r,
                   const i64* cols, i64 c, i64 Q, double* out, cudaStream_t stream) {
    if (r * c * Q == 0) return;
    gather_blocks_kernel<<<blocks_for(r * c * Q), kThreads, 0, stream>>>(K, ld, width, source,
                                                                         rows, r, cols, c, Q, out);
    ZN_CUDA_CHECK_LAUNCH("gather_blocks_kernel");
}

void scale_in_place(double* x, i64 n, double beta, cudaStream_t stream) {
    if (n == 0) return;
    scale_in_place_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, n, beta);
    ZN_CUDA_CHECK_LAUNCH("scale_in_place_kernel");
}

void check_finite(const double* x, i64 n, int* flag, cudaStream_t stream) {
    if (n == 0) return;
    check_finite_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, n, flag);
    ZN_CUDA_CHECK_LAUNCH("check_finite_kernel");
}

void check_positive_diagonal(const double* L, i64 n, int* flag, cudaStream_t stream) {
    if (n == 0) return;
    check_positive_diagonal_kernel<<<blocks_for(n), kThreads, 0, stream>>>(L, n, flag);
    ZN_CUDA_CHECK_LAUNCH("check_positive_diagonal_kernel");
}

cudaError_t probe_kernel_image() {
    cudaFuncAttributes attributes{};
    return cudaFuncGetAttributes(&attributes, gather_columns_kernel);
}

}  // namespace zeronorm::cuda_detail
