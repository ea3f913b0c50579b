// The backend seam: one context object (CPU, or CUDA device N) that owns memory, streams and
// library handles, and exposes the few merged primitives the algorithms in src/ are written
// against. An algorithm never branches on the backend; both backends are tested against each
// other and against plain references.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "zeronorm/core/dataset.hpp"
#include "zeronorm/core/kernel.hpp"
#include "zeronorm/solvers/smo.hpp"

namespace zeronorm {

enum class BackendKind { Cpu, Cuda };

BackendKind parse_backend_kind(const std::string& name);  // "cpu" or "cuda"
std::string to_string(BackendKind kind);

class Backend;
class SmoOps;   // zeronorm/ops/smo_ops.hpp
class AromOps;  // zeronorm/ops/arom_ops.hpp
class AlignmentOps;  // zeronorm/ops/alignment_ops.hpp
class RfeOps;  // zeronorm/ops/rfe_ops.hpp

// Arithmetic of a product: Float32 rounds the operands to single precision and accumulates in
// single precision (about 7 significant digits, half the memory traffic, and on GPUs up to twice
// the rate or more), the result stored as double.
enum class Precision { Float64, Float32 };

// A dense column-major double matrix (leading dimension = rows) in a backend's memory: host
// memory for the CPU backend, device memory for CUDA. Copies share the storage.
class DeviceMatrix {
public:
    DeviceMatrix() = default;
    DeviceMatrix(std::shared_ptr<double> storage, Index rows, Index cols)
        : storage_(std::move(storage)), rows_(rows), cols_(cols) {}

    Index rows() const { return rows_; }
    Index cols() const { return cols_; }
    Index size() const { return rows_ * cols_; }
    bool empty() const { return size() == 0; }
    double* data() { return storage_.get(); }
    const double* data() const { return storage_.get(); }
    // The same storage read as a rows x cols matrix of the same size (a d x P matrix as one row
    // of d P entries, say).
    DeviceMatrix reshaped(Index rows, Index cols) const;

private:
    std::shared_ptr<double> storage_;
    Index rows_ = 0;
    Index cols_ = 0;
};

// The training and test blocks of many splits (Backend::split_batch).
struct SplitBlocks {
    DeviceMatrix train;  // n x (d P)
    DeviceMatrix test;   // m x (d P)
};

// What the evaluation schedules need to know about a backend, so that they choose how to run
// without asking which backend it is.
struct BackendCapabilities {
    // Many small problems pay best as one batch of merged calls (the batched schedules run by
    // default): true where each call costs a launch and a synchronisation (CUDA).
    bool prefers_batched_schedule = false;
    // Independent problems (the splits of the per-split schedule) run at once on up to this
    // many host threads (and no more than the threads asked for), each with its own backend
    // from make_worker(); 1: in order on the backend itself. The CPU has no limit of its own
    // (0): its arithmetic runs on the calling thread. CUDA runs 16: each worker has its own
    // stream and handles, so one problem's launches, transfers and synchronisations overlap
    // the others' (small problems are bound by those, not by the device's arithmetic).
    unsigned concurrent_workers = 1;
    // Memory one batch of a batched schedule may take (its splits' data blocks): the batch is
    // cut into chunks of at most this many bytes. 1 GiB on the host; on a device a quarter of its
    // free memory when the backend opened, so that thousands of splits go in one batch.
    std::size_t batch_bytes = std::size_t{1} << 30;
};

class Backend {
public:
    virtual ~Backend() = default;

    virtual BackendKind kind() const = 0;
    // Human-readable description ("cpu (2 threads)", "cuda:0 NVIDIA H100 ...").
    virtual std::string description() const = 0;

    virtual BackendCapabilities capabilities() const = 0;
    // A backend of the same kind and device for one of `workers` (>= 1) threads of a parallel
    // schedule running at once (not shared between threads). The CPU's computes every dense
    // product on one BLAS thread while it lives: the workers already fill the cores, and every
    // problem then computes the same way however many run at once. A device's counts its
    // 1/workers share of the device's free memory as its own (where a solver sizes a cache or
    // a batch by the free memory), so that the workers' allocations together fit.
    virtual std::unique_ptr<Backend> make_worker(unsigned workers) const = 0;

    // ---- operation sets --------------------------------------------------------------------
    // The solver families' merged steps on this backend's memory, owned by the backend (valid
    // while it lives): SMO and its Newton finish, the AROM update, the alignment sums, the RFE
    // elimination.
    virtual SmoOps& smo() = 0;
    virtual AromOps& arom() = 0;
    virtual AlignmentOps& alignment() = 0;
    virtual RfeOps& rfe() = 0;

    // ---- memory ----------------------------------------------------------------------------
    // Uninitialised rows x cols matrix (the CUDA backend fills it with NaN as poison in debug
    // builds so an unwritten output is caught by tests).
    virtual DeviceMatrix allocate(Index rows, Index cols) = 0;
    virtual DeviceMatrix upload(const Matrix& host) = 0;
    virtual Matrix download(const DeviceMatrix& m) = 0;

    // ---- compaction ------------------------------------------------------------------------
    // Columns `cols` of X, in that order (pruning features). Indices must be valid.
    virtual DeviceMatrix select_columns(const DeviceMatrix& X, const IndexVector& cols) = 0;
    // Rows `rows` of X, in that order (training subsets, active sets).
    virtual DeviceMatrix select_rows(const DeviceMatrix& X, const IndexVector& rows) = 0;

    // ---- kernels and products --------------------------------------------------------------
    // K_ij = k(z.*a_i, z.*b_j) for rows a_i of A (m x d) and b_j of B (l x d); z = feature_scale
    // (d x 1) or all ones when null. When &A == &B the symmetric form (one SYRK) is used.
    virtual DeviceMatrix kernel_matrix(const KernelSpec& spec, const DeviceMatrix& A,
                                       const DeviceMatrix& B,
                                       const DeviceMatrix* feature_scale = nullptr) = 0;

    // C = alpha op(A) op(B) + beta C, op = transpose when trans_* is true. C must be allocated.
    virtual void gemm(bool trans_a, bool trans_b, double alpha, const DeviceMatrix& A,
                      const DeviceMatrix& B, double beta, DeviceMatrix& C) = 0;

    // One SYRK: C = alpha A A' + beta C (trans false, A is n x k) or C = alpha A' A + beta C
    // (trans true, A is k x n). C (n x n) must be allocated; it is written in full (both
    // triangles, exactly symmetric). Where beta != 0 only its lower triangle is read: C is taken
    // as symmetric.
    virtual void syrk(bool trans, double alpha, const DeviceMatrix& A, double beta,
                      DeviceMatrix& C) = 0;

    // X <- diag(row_scale) X diag(col_scale) + diagonal_shift I (the shift on X_kk, k <
    // min(rows, cols)), in one pass. An empty scale vector means all ones. Diagonal scalings
    // never go through a GEMM with a dense diagonal matrix.
    virtual void scale_rows_columns(DeviceMatrix& X, const Vector& row_scale,
                                    const Vector& col_scale, double diagonal_shift) = 0;

    // Cholesky factorisation A = L L' in place for symmetric positive definite A (n x n; only
    // its lower triangle is read): the lower triangle of A becomes L, the strictly upper
    // triangle is unspecified. Returns false (A unspecified) if A is not numerically positive
    // definite.
    virtual bool cholesky_factor(DeviceMatrix& A) = 0;

    // One TRSM in place, for L (n x n) lower triangular with a nonzero diagonal (its strictly
    // upper triangle is not read), e.g. the factor left by cholesky_factor, and op(L) = L or L'
    // (transpose): B <- op(L)^-1 B for B n x k (on_the_right false), or B <- B op(L)^-1 for
    // B k x n (on_the_right true).
    virtual void triangular_solve(const DeviceMatrix& L, bool transpose, bool on_the_right,
                                  DeviceMatrix& B) = 0;

    // X(:, cols[k]) = source(:, k) for every k (distinct indices within X; source has X's rows):
    // writes kernel columns into the slots of a device-resident cache.
    virtual void assign_columns(DeviceMatrix& X, const IndexVector& cols,
                                const DeviceMatrix& source) = 0;

    // ---- batches of small independent problems ---------------------------------------------
    // A batch of P equal-shaped blocks (rows x cols each) is one matrix of rows x (cols P), block
    // p in columns [p cols, (p + 1) cols). One call serves the whole batch: on CUDA a few
    // launches for all P problems, not P launches (cross-validation splits, grids, paths).

    // The training and test blocks of P = train_rows.size() splits of the rows of X (N x d):
    // block p of `train` holds rows train_rows[p] of X and block p of `test` rows test_rows[p]
    // (every split with the same n and m). With `standardize`, each split's columns are centred
    // and scaled by the mean and standard deviation of its training rows, by Standardizer's
    // rule (preprocess.hpp). Row indices must be within 0..N-1.
    virtual SplitBlocks split_batch(const DeviceMatrix& X, const std::vector<IndexVector>& train_rows,
                                    const std::vector<IndexVector>& test_rows, bool standardize) = 0;

    // Linear kernels of column-rescaled data, block by block: K_p = (A_p diag z_p)(B_p diag z_p)'
    // for p < P = Z.cols(), A m x (d P), B l x (d P), Z d x P (column p is z_p; zeros drop
    // features). Returns m x (l P). &A == &B gives the P Gram matrices. `precision` is the
    // products' arithmetic.
    virtual DeviceMatrix scaled_gram_batch(const DeviceMatrix& A, const DeviceMatrix& B,
                                           const DeviceMatrix& Z,
                                           Precision precision = Precision::Float64) = 0;
    // The same without scales (every z_p = 1): K_p = A_p B_p' for p < batch, A m x (d batch),
    // B l x (d batch). The products read the blocks where they are (no scaled copies, no scales
    // to send).
    virtual DeviceMatrix gram_batch(Index batch, const DeviceMatrix& A, const DeviceMatrix& B,
                                    Precision precision = Precision::Float64) = 0;

    // Kernel matrices block by block: K_p = k(A_p, B_p) for p < batch, A m x (d batch) and
    // B l x (d batch) (blocks of d features): returns m x (l batch). &A == &B gives the batch's
    // symmetric kernels (exactly symmetric, as kernel_matrix's). Every kernel type; on CUDA the
    // dot-product kernels are one strided-batched GEMM and one pass, chi2 one launch per block.
    virtual DeviceMatrix kernel_batch(const KernelSpec& spec, Index batch, const DeviceMatrix& A,
                                      const DeviceMatrix& B) = 0;

    // Sub-blocks of a batch of blocks: block q of the result is rows[q] x cols[q] of block
    // source[q] of K, whose blocks are block_width columns wide (K is rows x (block_width B)).
    // Every row list has the same length r and every column list the same length c: returns
    // r x (c Q) for Q = source.size() (inner cross-validation problems cut from the Gram
    // matrices of their splits). Indices must be within the blocks.
    virtual DeviceMatrix gather_blocks(const DeviceMatrix& K, Index block_width,
                                       const IndexVector& source,
                                       const std::vector<IndexVector>& rows,
                                       const std::vector<IndexVector>& cols) = 0;

    // C_p = alpha op(A_p) op(B_p) + beta C_p for p < batch, each operand a batch of `batch`
    // blocks; C must be allocated (beta = 0: not read).
    virtual void gemm_batch(Index batch, bool trans_a, bool trans_b, double alpha,
                            const DeviceMatrix& A, const DeviceMatrix& B, double beta,
                            DeviceMatrix& C) = 0;
};

// The CPU backend (Eigen; threads where they pay).
std::unique_ptr<Backend> make_cpu_backend();
// The CUDA backend on device `device`. It lives in a module, libzeronorm_cuda.so, loaded on
// first use (CPU runs never load the CUDA libraries). Throws NotCompiled in a build without CUDA
// or when no module loads (the message lists the paths tried), CudaError if the device does not
// exist.
std::unique_ptr<Backend> make_cuda_backend(int device = 0);
std::unique_ptr<Backend> make_backend(BackendKind kind, int device = 0);

// True when this build has the CUDA backend and its module file is found (without loading it).
bool cuda_compiled();
// The module file found: $ZERONORM_CUDA_MODULE when set, else the first libzeronorm_cuda.so
// next to the program (or its ../lib), on the loader's search path or in the install libdir;
// "" when none.
std::string cuda_module_path();
// Number of usable CUDA devices (0 when not compiled, no module loads or none present).
int cuda_device_count();

// Threads OpenBLAS may use inside one dense product of the CPU backend (process-wide; no-op when
// zeronorm was built without OpenBLAS). Batch evaluations already run one problem per core with
// one BLAS thread each; a single fit's products are small, where extra BLAS threads cost more in
// hand-offs than they save, so the command-line tool sets 1 unless OPENBLAS_NUM_THREADS is set.
void set_cpu_blas_threads(int threads);

}  // namespace zeronorm
