// Host-callable launchers of the CUDA kernels in kernels/*.cu. This header is plain C++ (no device
// code, no Eigen), so the backend class in cuda_backend.cpp, compiled by the host compiler, can
// call the kernels. Every launcher enqueues work on `stream` and checks the launch; execution
// errors surface at the caller's next synchronisation. All matrices are column-major with
// leading dimension = rows. Sizes are in elements.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "core/host_device.hpp"
#include "core/launch_rules.hpp"
#include "device_types.hpp"

namespace zeronorm::cuda_detail {

// ---- elementwise.cu --------------------------------------------------------------------------

// out (rows x n_cols) = columns cols[0..n_cols) of X (rows x *). Indices must be valid.
void gather_columns(const double* X, i64 rows, const i64* cols, i64 n_cols, double* out,
                    cudaStream_t stream);
// X(:, cols[k]) = source(:, k) for k < n_cols, X and source with `rows` rows (distinct cols).
void scatter_columns(const double* source, i64 rows, const i64* cols, i64 n_cols, double* X,
                     cudaStream_t stream);
// out (n_rows x cols) = rows row_idx[0..n_rows) of X (rows x cols). Indices must be valid.
void gather_rows(const double* X, i64 rows, i64 cols, const i64* row_idx, i64 n_rows,
                 double* out, cudaStream_t stream);
// out(i, j) = A(i, j) * z[j] * w[j] for A rows x cols; z or w may be null (= all ones).
void scale_columns(const double* A, i64 rows, i64 cols, const double* z, const double* w,
                   double* out, cudaStream_t stream);
// out(i, j) = float(A(i, j) * z[j]) for A rows x cols (z null: all ones).
void scale_columns_to_float(const double* A, i64 rows, i64 cols, const double* z, float* out,
                            cudaStream_t stream);
// out[e] = in[e] for n entries (single to double precision).
void widen(const float* in, double* out, i64 n, cudaStream_t stream);
// Training (n x d P) and test (m x d P) blocks of P splits of X (N x d): rows train_rows[p n ..]
// and test_rows[p m ..] of X, standardised with the training rows' statistics when asked
// (Backend::split_batch).
void split_blocks(const double* X, i64 N, i64 d, const i64* train_rows, i64 n,
                  const i64* test_rows, i64 m, i64 P, bool standardize, double* train,
                  double* test, cudaStream_t stream);
// out[i] = sum_j A(i, j)^2 for A rows x cols.
void row_squared_norms(const double* A, i64 rows, i64 cols, double* out, cudaStream_t stream);
// The same per block of a batch: A is rows x (cols batch), out (rows x batch) column p holds the
// squared row norms of block p.
void row_squared_norms_batch(const double* A, i64 rows, i64 cols, i64 batch, double* out,
                             cudaStream_t stream);
// Block q of out (r x c Q) = K(rows[q r + i], source[q] width + cols[q c + j]) for K of `ld`
// rows (Backend::gather_blocks). Indices must be valid.
void gather_blocks(const double* K, i64 ld, i64 width, const i64* source, const i64* rows, i64 r,
                   const i64* cols, i64 c, i64 Q, double* out, cudaStream_t stream);
// x *= beta for n entries; beta == 0 writes zeros (x is not read, as BLAS does for beta = 0).
void scale_in_place(double* x, i64 n, double beta, cudaStream_t stream);
// Sets *flag = 1 if some of the n entries of x is NaN or infinite (*flag must be 0 before).
void check_finite(const double* x, i64 n, int* flag, cudaStream_t stream);
// Sets *flag = 1 if some diagonal entry of the n x n matrix L is not finite and positive
// (*flag must be 0 before; it is left untouched otherwise).
void check_positive_diagonal(const double* L, i64 n, int* flag, cudaStream_t stream);
// X(i, j) <- r[i] * X(i, j) * c[j] + (i == j ? shift : 0) in place for X rows x cols; r or c
// may be null (= all ones).
void scale_rows_columns(double* X, i64 rows, i64 cols, const double* r, const double* c,
                        double shift, cudaStream_t stream);

// ---- scale_update.cu -------------------------------------------------------------------------

// The AROM multiplicative update of every column p < P of Z (d x P) with update[p] != 0, from
// W (d x P): normalized and next (d x P) as AromOps::multiplicative_update_batch; columns not
// updated or degenerate are copied. update and outcomes (P entries) are device memory.
void multiplicative_update_batch(const double* Z, const double* W, i64 d, i64 P,
                                 const int* update, double prune_tolerance, double* normalized,
                                 double* next, ScaleUpdateOutcome* outcomes, cudaStream_t stream);

// The rows of each column of G (d x Q, d * Q <= INT_MAX) in stable descending order of its
// entries (ties keep the lower row first; -0.0 equals 0.0): rows_out (d x Q ints), with
// keys_out (d x Q) and rows_in (d x Q ints) as scratch and `scratch` of
// descending_column_order_scratch(d, Q) bytes. One segmented radix sort (CUB).
std::size_t descending_column_order_scratch(i64 d, i64 Q);
void descending_column_order(const double* G, i64 d, i64 Q, double* keys_out, int* rows_in,
                             int* rows_out, void* scratch, std::size_t scratch_bytes,
                             cudaStream_t stream);

// ---- elimination.cu --------------------------------------------------------------------------
// RfeOps::eliminate_batch's steps for Q splits of r alive features (r * Q <= INT_MAX).

// keys (total entries) = W^2 entrywise, NaN as -1 (sorted last by descending_column_order).
void criterion_keys(const double* W, i64 total, double* keys, cudaStream_t stream);
// The positions first_position + k (k < r Q) of the rows not eliminated, ascending: `order`
// (r x Q ints) holds each column's rows in descending order of the criterion, its last `remove`
// eliminated. flags (r Q chars) is scratch, positions receives (r - remove) Q entries and count
// (device) their number; scratch of survivor_positions_scratch(r Q) bytes. CUB's DeviceSelect.
std::size_t survivor_positions_scratch(i64 total);
void survivor_positions(const int* order, i64 r, i64 Q, i64 remove, i64 first_position,
                        char* flags, i64* positions, int* count, void* scratch,
                        std::size_t scratch_bytes, cudaStream_t stream);

// ---- alignment.cu ----------------------------------------------------------------------------
// The passes of AlignmentOps' sums for P weight vectors (Theta d x P) over the pairs (a_i, b_j)
// of AlignmentPairs (A m x d, B q x d; one set of points: A = B) with the pair weights Y
// (m x q); blocks of a batch side by side, column-major (alignment_device.cuh).

// As (m x d P): block p = A diag(theta_p).
void weight_columns(const AlignmentPairs& s, const double* Theta, i64 P, double* As,
                    cudaStream_t stream);
// na (m x P) = |a_i|^2_theta_p and nb (q x P) = |b_j|^2_theta_p (nb unwritten for one set of
// points: na serves both).
void weighted_norms(const AlignmentPairs& s, const double* Theta, i64 P, double* na, double* nb,
                    cudaStream_t stream);
// In place on G (m x q P) holding the dots a_i' diag(theta_p) b_j: the Gaussian pair weights
// Y_ij exp(-scale (na_ip + nb_jp - 2 G_p(i, j))).
void gaussian_pair_weights(const double* Y, const double* na, const double* nb, i64 m, i64 q,
                           i64 P, double scale, double* G, cudaStream_t stream);
// W (m x q P): the chi-square pair weights Y_ij exp(-sum_k theta_kp D(a_ik, b_jk)).
void chi_square_pair_weights(const AlignmentPairs& s, const double* Y, const double* Theta, i64 P,
                             double scale, double* W, cudaStream_t stream);
// out[c] = sum_i A(i, c) for A rows x cols.
void column_sums(const double* A, i64 rows, i64 cols, double* out, cudaStream_t stream);
// r (m x P): r_ip = sum_j W_p(i, j) for W (m x q P).
void row_sums(const double* W, i64 m, i64 q, i64 P, double* r, cudaStream_t stream);
// gradient (d x P) of the Gaussian sums from r = W 1 (m x P), c = W' 1 (q x P) and M (m x d P,
// M_p = W_p B).
void gaussian_alignment_gradient(const AlignmentPairs& s, const double* r, const double* c,
                                 const double* M, i64 P, double scale, double* gradient,
                                 cudaStream_t stream);
// gradient (d x P) of the chi-square sums from W (m x q P): the direct pair sums.
void chi_square_alignment_gradient(const AlignmentPairs& s, const double* W, i64 P, double scale,
                                   double* gradient, cudaStream_t stream);
// AlignmentOps::gaussian_removal_sums without the diagonal: D (n x n, scratch) the squared
// distances of the pairs i > j, out[p] (d + 1 entries) = 2 sum_{i > j} v_i v_j
// exp(-scale (D_ij - (x_ip - x_jp)^2)), p = d leaving no feature out.
void gaussian_removal_sums(const double* X, const double* v, i64 n, i64 d, double scale,
                           double* D, double* out, cudaStream_t stream);

// ---- newton.cu -------------------------------------------------------------------------------

// Whether a problem of size n fits the shared memory a block may opt in to on a device with
// `limits` (else the caller runs the host reference).
bool newton_fits(int n, const launch_rules::DeviceLimits& limits);
// One block per problem, one launch, for n that newton_fits on a device with `limits`.
void newton_finish_batch(const NewtonDeviceBatch& batch, const launch_rules::DeviceLimits& limits,
                         cudaStream_t stream);

// ---- kernel_matrix.cu ------------------------------------------------------------------------

// In place on K (m x l) holding dot products a_i.b_j: K_ij = k(a_i, b_j), with norms_a (m) and
// norms_b (l) the squared row norms (used by Rbf only; may be null otherwise).
void transform_gram(const KernelParams& params, double* K, i64 m, i64 l, const double* norms_a,
                    const double* norms_b, cudaStream_t stream);
// In place on K (n x n) whose LOWER triangle holds the dot products a_i.a_j (as left by SYRK):
// writes the full symmetric K_ij = k(a_i, a_j); for Rbf the diagonal distance is exactly 0.
// With params.type == Linear this only mirrors the triangle.
void transform_gram_symmetric(const KernelParams& params, double* K, i64 n, const double* norms,
                              cudaStream_t stream);
// The two transforms above on a batch of blocks side by side: K is m x (l batch) (n x (n batch)
// for the symmetric form), norms_a m x batch and norms_b l x batch (block p's norms in column p).
void transform_gram_batch(const KernelParams& params, double* K, i64 m, i64 l, i64 batch,
                          const double* norms_a, const double* norms_b, cudaStream_t stream);
void transform_gram_symmetric_batch(const KernelParams& params, double* K, i64 n, i64 batch,
                                    const double* norms, cudaStream_t stream);
// K (m x l): K_ij = exp(-gamma sum_f (a_if - b_jf)^2 / (a_if + b_jf)), terms with a_if + b_jf = 0
// omitted; A is m x d, B is l x d.
void chi2_kernel_matrix(double gamma, const double* A, i64 m, const double* B, i64 l, i64 d,
                        double* K, cudaStream_t stream);

// ---- smo.cu ----------------------------------------------------------------------------------

// `problems` SMO problems of one size n, stored back to back (problem q: K + q n n, y + q n, ...;
// Kv null when no problem has a warm start, else K_q (y_q o beta_q) for every q), sharing the
// options; active (device memory, one int per problem, or null for all) skips the problems
// marked 0, whose outputs are left untouched.
struct SmoDeviceBatch {
    const double* K = nullptr;
    const double* y = nullptr;
    double* beta = nullptr;
    double* G = nullptr;
    double* QD = nullptr;
    const double* Kv = nullptr;
    const double* linear = nullptr;  // n x problems, or null for all -1
    const int* active = nullptr;
    int n = 0;
    i64 problems = 0;
    double C = 1.0;
    double ridge = 0.0;
    double tolerance = 1e-3;
    i64 max_iterations = 0;
};

// One block per problem, one launch (the kernel chosen by launch_rules::smo_kernel_for for the
// device's `limits`); outcomes (device memory) has one entry per problem.
void smo_solve_batch(const SmoDeviceBatch& batch, SmoDeviceOutcome* outcomes,
                     const launch_rules::DeviceLimits& limits, cudaStream_t stream);

// Zero when the module holds a kernel image the current device can load, else the runtime's
// error (cudaErrorNoKernelImageForDevice, ...).
cudaError_t probe_kernel_image();

}  // namespace zeronorm::cuda_detail
