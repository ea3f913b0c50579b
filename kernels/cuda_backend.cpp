// The CUDA backend: one device, one non-blocking stream, a cuBLAS and a cuSOLVER dense handle
// bound to that stream. DeviceMatrix storage is cudaMalloc'ed memory freed by the last owner.
// Every public method makes its device current for its duration (and restores the caller's),
// enqueues its work on the stream and synchronises before returning, so errors are reported by
// the call that caused them and no temporary outlives the work that uses it.
// A CudaBackend is not safe to use from several threads at once.
//
// Compiled by the host compiler (Eigen stays out of nvcc); the kernels are launched through
// device_ops.hpp. Built, with the kernels, into the module libzeronorm_cuda.so that the core loads
// on first use (src/cuda_module.hpp).
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iomanip>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "batch_shapes.hpp"
#include "decomposition_smo.hpp"
#include "dense_dual.hpp"
#include "cuda_check.cuh"
#include "cuda_module.hpp"
#include "device_ops.hpp"
#include "smo_common.hpp"
#include "zeronorm/backend.hpp"
#include "zeronorm/error.hpp"

namespace zeronorm {
namespace cuda_detail {
namespace {

// Makes `device` current for a scope and restores the previous device afterwards.
class DeviceGuard {
public:
    explicit DeviceGuard(int device) {
        ZN_CUDA_TRY(cudaGetDevice(&previous_));
        if (previous_ != device) {
            ZN_CUDA_TRY(cudaSetDevice(device));
            switched_ = true;
        }
    }
    ~DeviceGuard() {
        if (switched_ && cudaSetDevice(previous_) != cudaSuccess) (void)cudaGetLastError();
    }
    DeviceGuard(const DeviceGuard&) = delete;
    DeviceGuard& operator=(const DeviceGuard&) = delete;

private:
    int previous_ = 0;
    bool switched_ = false;
};

// Frees device memory of `device` without throwing (used by deleters and destructors, which
// may run after an error or at program exit, when the runtime may already be shutting down).
void free_device_memory(void* p, int device) noexcept {
    if (p == nullptr) return;
    int previous = -1;
    bool switched = false;
    bool failed = false;
    if (cudaGetDevice(&previous) == cudaSuccess) {
        if (previous != device) {
            switched = cudaSetDevice(device) == cudaSuccess;
            failed = !switched;
        }
    } else {
        failed = true;
    }
    if (cudaFree(p) != cudaSuccess) failed = true;
    if (switched && cudaSetDevice(previous) != cudaSuccess) failed = true;
    if (failed) (void)cudaGetLastError();  // keep later launch checks clean
}

struct DeviceDeleter {
    int device;
    void operator()(double* p) const noexcept { free_device_memory(p, device); }
};

std::size_t checked_bytes(Index rows, Index cols, std::size_t element_size, const char* where) {
    ZN_EXPECTS(rows >= 0 && cols >= 0,
               where << ": negative matrix size " << rows << " x " << cols);
    const auto r = static_cast<std::size_t>(rows);
    const auto c = static_cast<std::size_t>(cols);
    ZN_EXPECTS(c == 0 || r <= std::numeric_limits<std::size_t>::max() / element_size / c,
               where << ": a " << rows << " x " << cols << " matrix is too large");
    return r * c * element_size;
}

// Scratch memory owned by one public call.
template <class T>
class DeviceBuffer {
public:
    DeviceBuffer(std::size_t count, int device) : device_(device) {
        if (count == 0) return;
        ZN_EXPECTS(count <= std::numeric_limits<std::size_t>::max() / sizeof(T),
                   "device buffer of " << count << " elements is too large");
        const std::size_t bytes = count * sizeof(T);
        void* p = nullptr;
        ZN_CUDA_TRY_ALLOC(cudaMalloc(&p, bytes), bytes);
        ptr_ = static_cast<T*>(p);
    }
    ~DeviceBuffer() { free_device_memory(ptr_, device_); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    T* get() const { return ptr_; }

private:
    T* ptr_ = nullptr;
    int device_;
};

void check_smo_options(const SmoOptions& options, const char* where) {
    options.validate();
    ZN_EXPECTS(options.max_iterations >= 0,
               where << ": max_iterations = " << options.max_iterations << " is negative");
}

// The result of one problem from its final beta and gradient G and the kernel's outcome.
SmoResult finish_smo_result(const Vector& beta, const Vector& G, const Vector& y,
                            const SmoDeviceOutcome& outcome, double C) {
    SmoResult r = smo_detail::smo_result(beta, G, y, C);
    r.iterations = outcome.iterations;
    r.status = outcome.status == kSmoConverged ? Status::Success : Status::NoConvergence;
    if (!beta.allFinite() || !G.allFinite()) r.status = Status::NumericalIssue;
    return r;
}

int blas_int(Index v, const char* where) {
    ZN_EXPECTS(v >= 0 && v <= INT_MAX,
               where << ": dimension " << v << " exceeds the range of cuBLAS/cuSOLVER (int)");
    return static_cast<int>(v);
}

std::string shape(const DeviceMatrix& m) {
    return std::to_string(m.rows()) + " x " + std::to_string(m.cols());
}

DeviceKernel device_kernel(KernelType type) {
    switch (type) {
        case KernelType::Linear: return DeviceKernel::Linear;
        case KernelType::Polynomial: return DeviceKernel::Polynomial;
        case KernelType::SumOfPowers: return DeviceKernel::SumOfPowers;
        case KernelType::Rbf:
        case KernelType::WeightedRbf: return DeviceKernel::Rbf;
        case KernelType::Chi2: return DeviceKernel::Chi2;
    }
    throw InvalidArgument("kernel_matrix: unknown kernel type");
}

// The column weights sqrt(theta) of the weighted RBF (as the RBF of the scaled data) for a batch
// of `blocks` blocks of d features (theta repeated per block); empty for other kernels. theta is
// checked by KernelSpec::validate.
std::vector<double> weighted_rbf_weights(const KernelSpec& spec, Index d, Index blocks) {
    std::vector<double> weights;
    if (spec.type != KernelType::WeightedRbf) return weights;
    weights.reserve(static_cast<std::size_t>(d * blocks));
    for (Index p = 0; p < blocks; ++p)
        for (Index j = 0; j < d; ++j) weights.push_back(std::sqrt(spec.theta[j]));
    return weights;
}

KernelParams kernel_params(const KernelSpec& spec) {
    KernelParams kp;
    kp.type = device_kernel(spec.type);
    kp.gamma = spec.gamma;
    kp.degree = spec.degree;
    kp.coef0 = spec.coef0;
    return kp;
}

class CudaBackend final : public Backend {
public:
    explicit CudaBackend(int device);
    ~CudaBackend() override { release(); }
    CudaBackend(const CudaBackend&) = delete;
    CudaBackend& operator=(const CudaBackend&) = delete;

    BackendKind kind() const override { return BackendKind::Cuda; }
    std::string description() const override;

    BackendCapabilities capabilities() const override {
        BackendCapabilities caps;
        caps.prefers_batched_schedule = true;  // one launch serves all problems of a batch
        return caps;
    }
    std::unique_ptr<Backend> make_worker() const override {
        return std::make_unique<CudaBackend>(device_);
    }

    DeviceMatrix allocate(Index rows, Index cols) override;
    DeviceMatrix upload(const Matrix& host) override;
    Matrix download(const DeviceMatrix& m) override;

    DeviceMatrix select_columns(const DeviceMatrix& X, const IndexVector& cols) override;
    DeviceMatrix select_rows(const DeviceMatrix& X, const IndexVector& rows) override;

    DeviceMatrix kernel_matrix(const KernelSpec& spec, const DeviceMatrix& A,
                               const DeviceMatrix& B,
                               const DeviceMatrix* feature_scale = nullptr) override;
    void gemm(bool trans_a, bool trans_b, double alpha, const DeviceMatrix& A,
              const DeviceMatrix& B, double beta, DeviceMatrix& C) override;
    bool cholesky_solve(DeviceMatrix& A, DeviceMatrix& B) override;
    void syrk(bool trans, double alpha, const DeviceMatrix& A, double beta,
              DeviceMatrix& C) override;
    void scale_rows_columns(DeviceMatrix& X, const Vector& row_scale, const Vector& col_scale,
                            double diagonal_shift) override;
    bool cholesky_factor(DeviceMatrix& A) override;
    void triangular_solve(const DeviceMatrix& L, bool transpose, bool on_the_right,
                          DeviceMatrix& B) override;

    SmoResult solve_smo(const DeviceMatrix& K, const Vector& y, const SmoOptions& options,
                        const Vector* warm_start = nullptr) override;
    SmoResult solve_smo(const KernelSpec& spec, const DeviceMatrix& X, const Vector& y,
                        const SmoOptions& options, const Vector* warm_start = nullptr) override;

    SplitBlocks split_batch(const DeviceMatrix& X, const std::vector<IndexVector>& train_rows,
                            const std::vector<IndexVector>& test_rows, bool standardize) override;
    DeviceMatrix scaled_gram_batch(const DeviceMatrix& A, const DeviceMatrix& B,
                                   const DeviceMatrix& Z, Precision precision) override;
    DeviceMatrix kernel_batch(const KernelSpec& spec, Index batch, const DeviceMatrix& A,
                              const DeviceMatrix& B) override;
    DeviceMatrix gather_blocks(const DeviceMatrix& K, Index block_width, const IndexVector& source,
                               const std::vector<IndexVector>& rows,
                               const std::vector<IndexVector>& cols) override;
    void gemm_batch(Index batch, bool trans_a, bool trans_b, double alpha, const DeviceMatrix& A,
                    const DeviceMatrix& B, double beta, DeviceMatrix& C) override;
    std::vector<SmoResult> newton_finish_batch(const DeviceMatrix& K, const Matrix& Y,
                                               const Matrix& beta, const SmoOptions& options,
                                               const std::vector<char>& open) override;
    std::vector<ScaleUpdate> multiplicative_update_batch(const DeviceMatrix& Z,
                                                         const DeviceMatrix& W,
                                                         const std::vector<char>& update,
                                                         double prune_tolerance,
                                                         DeviceMatrix& normalized,
                                                         DeviceMatrix& next) override;
    std::vector<SmoResult> solve_smo_batch(const DeviceMatrix& K, const Matrix& Y,
                                           const SmoOptions& options, const Matrix* warm_start,
                                           const std::vector<char>& active) override;
    SmoResult solve_smo_working_set(const DeviceMatrix& K, const Vector& y, const Vector& beta,
                                    const Vector& gradient, const SmoOptions& options) override;
    void assign_columns(DeviceMatrix& X, const IndexVector& cols,
                        const DeviceMatrix& source) override;

private:
    // One launch of the batched SMO kernels from the starting points beta0 (n x P), whose
    // gradients come from Kv = K_q (y_q o beta0_q), computed here, or Kv_given; the problems
    // with flags[q] == 0 are skipped (empty results).
    std::vector<SmoResult> launch_smo(const DeviceMatrix& K, const Matrix& Y, const Matrix& beta0,
                                      const Matrix* Kv_given, const std::vector<int>& flags,
                                      const SmoOptions& options, i64 max_iterations);
    // rows x cols of device memory, NaN-filled when `poison` (0xFF bytes are a NaN double).
    DeviceMatrix allocate_matrix(Index rows, Index cols, bool poison, const char* where);
    // Throws InvalidArgument unless m is empty or its storage is memory of this device.
    void require_device_memory(const DeviceMatrix& m, const char* name, const char* where) const;
    template <class T>
    void copy_to_device(T* dst, const T* src, std::size_t count) {
        if (count == 0) return;
        ZN_CUDA_TRY(cudaMemcpyAsync(dst, src, count * sizeof(T), cudaMemcpyHostToDevice, stream_));
    }
    template <class T>
    void copy_to_host(T* dst, const T* src, std::size_t count) {
        if (count == 0) return;
        ZN_CUDA_TRY(cudaMemcpyAsync(dst, src, count * sizeof(T), cudaMemcpyDeviceToHost, stream_));
    }
    void sync() { ZN_CUDA_TRY(cudaStreamSynchronize(stream_)); }
    void release() noexcept;
    // Grow-only scratch kept across calls, for the scaled copies of scaled_gram_batch: a fresh
    // cudaMalloc of a few hundred MB per AROM iteration would cost more than the product.
    double* batch_workspace(std::size_t count);
    // The cuSOLVER handle, created on first use: most work (SMO, the batched cross-validation)
    // needs no factorisation and need not pay for its set-up.
    cusolverDnHandle_t solver() {
        if (solver_ == nullptr) {
            ZN_CUSOLVER_TRY(cusolverDnCreate(&solver_));
            ZN_CUSOLVER_TRY(cusolverDnSetStream(solver_, stream_));
        }
        return solver_;
    }
    // True when every entry of m is finite (one device pass).
    bool all_finite(const DeviceMatrix& m);

    int device_;
    std::string name_;
    std::size_t total_memory_ = 0;
    cudaStream_t stream_ = nullptr;
    cublasHandle_t blas_ = nullptr;
    cusolverDnHandle_t solver_ = nullptr;
    std::shared_ptr<double> workspace_;
    std::size_t workspace_count_ = 0;
};

bool CudaBackend::all_finite(const DeviceMatrix& m) {
    DeviceBuffer<int> d_flag(1, device_);
    ZN_CUDA_TRY(cudaMemsetAsync(d_flag.get(), 0, sizeof(int), stream_));
    check_finite(m.data(), m.size(), d_flag.get(), stream_);
    int flag = 0;
    copy_to_host(&flag, d_flag.get(), 1);
    sync();
    return flag == 0;
}

double* CudaBackend::batch_workspace(std::size_t count) {
    if (count > workspace_count_) {
        workspace_.reset();  // free the old one first
        workspace_count_ = 0;
        const std::size_t bytes = count * sizeof(double);
        void* p = nullptr;
        ZN_CUDA_TRY_ALLOC(cudaMalloc(&p, bytes), bytes);
        workspace_ = std::shared_ptr<double>(static_cast<double*>(p), DeviceDeleter{device_});
        workspace_count_ = count;
    }
    return workspace_.get();
}

CudaBackend::CudaBackend(int device) : device_(device) {
    DeviceGuard guard(device_);
    cudaDeviceProp prop{};
    ZN_CUDA_TRY(cudaGetDeviceProperties(&prop, device_));
    name_ = prop.name;
    total_memory_ = prop.totalGlobalMem;
    try {
        ZN_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        ZN_CUBLAS_TRY(cublasCreate(&blas_));
        ZN_CUBLAS_TRY(cublasSetStream(blas_, stream_));
        ZN_CUBLAS_TRY(cublasSetPointerMode(blas_, CUBLAS_POINTER_MODE_HOST));
        // Deterministic results: no atomics-based algorithms.
        ZN_CUBLAS_TRY(cublasSetAtomicsMode(blas_, CUBLAS_ATOMICS_NOT_ALLOWED));
    } catch (...) {
        release();
        throw;
    }
}

void CudaBackend::release() noexcept {
    int previous = -1;
    bool switched = false;
    bool failed = false;
    if (cudaGetDevice(&previous) == cudaSuccess && previous != device_)
        switched = cudaSetDevice(device_) == cudaSuccess;
    if (stream_ != nullptr && cudaStreamSynchronize(stream_) != cudaSuccess) failed = true;
    if (solver_ != nullptr) (void)cusolverDnDestroy(solver_);
    if (blas_ != nullptr) (void)cublasDestroy(blas_);
    if (stream_ != nullptr && cudaStreamDestroy(stream_) != cudaSuccess) failed = true;
    solver_ = nullptr;
    blas_ = nullptr;
    stream_ = nullptr;
    if (switched && cudaSetDevice(previous) != cudaSuccess) failed = true;
    if (failed) (void)cudaGetLastError();
}

std::string CudaBackend::description() const {
    std::ostringstream os;
    os << "cuda:" << device_ << " " << name_ << " (" << std::fixed << std::setprecision(1)
       << static_cast<double>(total_memory_) / (1024.0 * 1024.0 * 1024.0) << " GiB)";
    return os.str();
}

DeviceMatrix CudaBackend::allocate_matrix(Index rows, Index cols, bool poison, const char* where) {
    const std::size_t bytes = checked_bytes(rows, cols, sizeof(double), where);
    if (bytes == 0) return DeviceMatrix(std::shared_ptr<double>(), rows, cols);
    void* p = nullptr;
    ZN_CUDA_TRY_ALLOC(cudaMalloc(&p, bytes), bytes);
    // The shared_ptr takes ownership at once (it frees p itself if its own allocation throws).
    std::shared_ptr<double> storage(static_cast<double*>(p), DeviceDeleter{device_});
    if (poison) ZN_CUDA_TRY(cudaMemsetAsync(p, 0xFF, bytes, stream_));
    return DeviceMatrix(std::move(storage), rows, cols);
}

void CudaBackend::require_device_memory(const DeviceMatrix& m, const char* name,
                                        const char* where) const {
    if (m.empty()) return;
    ZN_EXPECTS(m.data() != nullptr, where << ": " << name << " (" << shape(m) << ") has no storage");
    cudaPointerAttributes attr{};
    const cudaError_t err = cudaPointerGetAttributes(&attr, m.data());
    if (err != cudaSuccess) (void)cudaGetLastError();
    ZN_EXPECTS(err == cudaSuccess && attr.type == cudaMemoryTypeDevice && attr.device == device_,
               where << ": " << name << " is not in the memory of cuda:" << device_
                     << " (a matrix from another backend or device?)");
}

DeviceMatrix CudaBackend::allocate(Index rows, Index cols) {
    DeviceGuard guard(device_);
    DeviceMatrix m = allocate_matrix(rows, cols, true, "allocate");
    sync();
    return m;
}

DeviceMatrix CudaBackend::upload(const Matrix& host) {
    DeviceGuard guard(device_);
    DeviceMatrix m = allocate_matrix(host.rows(), host.cols(), false, "upload");
    copy_to_device(m.data(), host.data(), static_cast<std::size_t>(host.size()));
    sync();
    return m;
}

Matrix CudaBackend::download(const DeviceMatrix& m) {
    DeviceGuard guard(device_);
    require_device_memory(m, "the matrix", "download");
    Matrix out(m.rows(), m.cols());
    copy_to_host(out.data(), m.data(), static_cast<std::size_t>(m.size()));
    sync();
    return out;
}

DeviceMatrix CudaBackend::select_columns(const DeviceMatrix& X, const IndexVector& cols) {
    DeviceGuard guard(device_);
    require_device_memory(X, "X", "select_columns");
    std::vector<i64> idx(cols.size());
    for (std::size_t k = 0; k < cols.size(); ++k) {
        ZN_EXPECTS(cols[k] >= 0 && cols[k] < X.cols(),
                   "select_columns: column index " << cols[k] << " (position " << k
                                                   << ") is out of range for a matrix with "
                                                   << X.cols() << " columns");
        idx[k] = static_cast<i64>(cols[k]);
    }
    const auto n_cols = static_cast<Index>(cols.size());
    DeviceMatrix out = allocate_matrix(X.rows(), n_cols, true, "select_columns");
    DeviceBuffer<i64> d_idx(out.empty() ? 0 : idx.size(), device_);
    if (!out.empty()) {
        copy_to_device(d_idx.get(), idx.data(), idx.size());
        gather_columns(X.data(), X.rows(), d_idx.get(), n_cols, out.data(), stream_);
    }
    sync();
    return out;
}

DeviceMatrix CudaBackend::select_rows(const DeviceMatrix& X, const IndexVector& rows) {
    DeviceGuard guard(device_);
    require_device_memory(X, "X", "select_rows");
    std::vector<i64> idx(rows.size());
    for (std::size_t k = 0; k < rows.size(); ++k) {
        ZN_EXPECTS(rows[k] >= 0 && rows[k] < X.rows(),
                   "select_rows: row index " << rows[k] << " (position " << k
                                             << ") is out of range for a matrix with "
                                             << X.rows() << " rows");
        idx[k] = static_cast<i64>(rows[k]);
    }
    const auto n_rows = static_cast<Index>(rows.size());
    DeviceMatrix out = allocate_matrix(n_rows, X.cols(), true, "select_rows");
    DeviceBuffer<i64> d_idx(out.empty() ? 0 : idx.size(), device_);
    if (!out.empty()) {
        copy_to_device(d_idx.get(), idx.data(), idx.size());
        gather_rows(X.data(), X.rows(), X.cols(), d_idx.get(), n_rows, out.data(), stream_);
    }
    sync();
    return out;
}

// K_ij = k(z.*a_i, z.*b_j). Dot-product kernels: (scaled copies of A, B when z or theta is
// given) -> GEMM (SYRK when &A == &B) -> one elementwise pass (which also mirrors the SYRK
// triangle). WeightedRbf is Rbf on columns scaled by sqrt(theta). Chi2: one direct tiled kernel.
// Extra device memory: the m x d and l x d scaled copies (only with z or WeightedRbf) and m + l
// norms (RBF only).
DeviceMatrix CudaBackend::kernel_matrix(const KernelSpec& spec, const DeviceMatrix& A,
                                        const DeviceMatrix& B,
                                        const DeviceMatrix* feature_scale) {
    DeviceGuard guard(device_);
    ZN_EXPECTS_DIM(A.cols() == B.cols(), "kernel_matrix: A is " << shape(A) << " but B is "
                                                                << shape(B)
                                                                << " (feature counts differ)");
    const Index m = A.rows();
    const Index l = B.rows();
    const Index d = A.cols();
    spec.validate(d);
    require_device_memory(A, "A", "kernel_matrix");
    require_device_memory(B, "B", "kernel_matrix");
    const bool symmetric = &A == &B;
    const double* z = nullptr;
    if (feature_scale != nullptr) {
        ZN_EXPECTS_DIM(feature_scale->size() == d, "kernel_matrix: feature scale has "
                                                       << feature_scale->size() << " entries for "
                                                       << d << " features");
        require_device_memory(*feature_scale, "feature_scale", "kernel_matrix");
        z = feature_scale->data();
    }
    const std::vector<double> sqrt_theta = weighted_rbf_weights(spec, d, 1);

    DeviceMatrix K = allocate_matrix(m, l, true, "kernel_matrix");
    if (K.empty()) {
        sync();
        return K;
    }
    const int bm = blas_int(m, "kernel_matrix");
    const int bl = blas_int(l, "kernel_matrix");
    const int bd = blas_int(d, "kernel_matrix");

    // Column-scaled copies z.*x (and sqrt(theta).*x).
    const std::size_t ud = static_cast<std::size_t>(d);
    DeviceBuffer<double> d_theta(sqrt_theta.size(), device_);
    copy_to_device(d_theta.get(), sqrt_theta.data(), sqrt_theta.size());
    const double* w = sqrt_theta.empty() ? nullptr : d_theta.get();
    const bool scaled = (z != nullptr || w != nullptr) && d > 0;
    DeviceBuffer<double> As(scaled ? static_cast<std::size_t>(m) * ud : 0, device_);
    DeviceBuffer<double> Bs(scaled && !symmetric ? static_cast<std::size_t>(l) * ud : 0, device_);
    const double* Ap = A.data();
    const double* Bp = B.data();
    if (scaled) {
        scale_columns(A.data(), m, d, z, w, As.get(), stream_);
        Ap = As.get();
        if (symmetric) {
            Bp = Ap;
        } else {
            scale_columns(B.data(), l, d, z, w, Bs.get(), stream_);
            Bp = Bs.get();
        }
    }

    const KernelParams kp = kernel_params(spec);

    if (kp.type == DeviceKernel::Chi2) {
        chi2_kernel_matrix(kp.gamma, Ap, m, Bp, l, d, K.data(), stream_);
        sync();
        return K;
    }

    const double one = 1.0;
    const double zero = 0.0;
    if (d == 0) {
        ZN_CUDA_TRY(cudaMemsetAsync(K.data(), 0, static_cast<std::size_t>(K.size()) * sizeof(double),
                                    stream_));
    } else if (symmetric) {
        ZN_CUBLAS_TRY(cublasDsyrk(blas_, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, bm, bd, &one, Ap, bm,
                                  &zero, K.data(), bm));
    } else {
        ZN_CUBLAS_TRY(cublasDgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_T, bm, bl, bd, &one, Ap, bm, Bp,
                                  bl, &zero, K.data(), bm));
    }

    const bool rbf = kp.type == DeviceKernel::Rbf;
    DeviceBuffer<double> norms_a(rbf ? static_cast<std::size_t>(m) : 0, device_);
    DeviceBuffer<double> norms_b(rbf && !symmetric ? static_cast<std::size_t>(l) : 0, device_);
    if (rbf) {
        row_squared_norms(Ap, m, d, norms_a.get(), stream_);
        if (!symmetric) row_squared_norms(Bp, l, d, norms_b.get(), stream_);
    }
    if (symmetric) {
        transform_gram_symmetric(kp, K.data(), m, norms_a.get(), stream_);
    } else {
        transform_gram(kp, K.data(), m, l, norms_a.get(), norms_b.get(), stream_);
    }
    sync();
    return K;
}

void CudaBackend::gemm(bool trans_a, bool trans_b, double alpha, const DeviceMatrix& A,
                       const DeviceMatrix& B, double beta, DeviceMatrix& C) {
    DeviceGuard guard(device_);
    const Index m = trans_a ? A.cols() : A.rows();
    const Index k = trans_a ? A.rows() : A.cols();
    const Index kb = trans_b ? B.cols() : B.rows();
    const Index n = trans_b ? B.rows() : B.cols();
    ZN_EXPECTS_DIM(k == kb && C.rows() == m && C.cols() == n,
                   "gemm: op(A) is " << m << " x " << k << ", op(B) is " << kb << " x " << n
                                     << ", C is " << shape(C) << " (A is " << shape(A)
                                     << (trans_a ? " transposed" : "") << ", B is " << shape(B)
                                     << (trans_b ? " transposed" : "") << ")");
    require_device_memory(A, "A", "gemm");
    require_device_memory(B, "B", "gemm");
    require_device_memory(C, "C", "gemm");
    if (C.empty()) return;
    ZN_EXPECTS(C.data() != A.data() && C.data() != B.data(),
               "gemm: C must not share storage with A or B");
    if (k == 0) {  // C = beta C
        scale_in_place(C.data(), C.size(), beta, stream_);
        sync();
        return;
    }
    ZN_CUBLAS_TRY(cublasDgemm(blas_, trans_a ? CUBLAS_OP_T : CUBLAS_OP_N,
                              trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, blas_int(m, "gemm"),
                              blas_int(n, "gemm"), blas_int(k, "gemm"), &alpha, A.data(),
                              blas_int(std::max<Index>(1, A.rows()), "gemm"), B.data(),
                              blas_int(std::max<Index>(1, B.rows()), "gemm"), &beta, C.data(),
                              blas_int(std::max<Index>(1, C.rows()), "gemm")));
    sync();
}

// A X = B for SPD A: cuSOLVER potrf (lower) then potrs. Not positive definite (potrf's info > 0,
// or a factor diagonal that is not finite and positive, e.g. from NaN input) -> false.
bool CudaBackend::cholesky_solve(DeviceMatrix& A, DeviceMatrix& B) {
    DeviceGuard guard(device_);
    ZN_EXPECTS_DIM(A.rows() == A.cols(), "cholesky_solve: A is " << shape(A) << ", not square");
    ZN_EXPECTS_DIM(B.rows() == A.rows(),
                   "cholesky_solve: A is " << shape(A) << " but B is " << shape(B));
    require_device_memory(A, "A", "cholesky_solve");
    require_device_memory(B, "B", "cholesky_solve");
    const Index n = A.rows();
    if (n == 0) return true;
    ZN_EXPECTS(B.empty() || A.data() != B.data(),
               "cholesky_solve: A and B must not share storage");
    if (!cholesky_factor(A)) return false;
    if (B.cols() == 0) return true;
    const int bn = blas_int(n, "cholesky_solve");
    DeviceBuffer<int> d_info(2, device_);  // [0]: cuSOLVER info, [1]: non-finite flag
    ZN_CUDA_TRY(cudaMemsetAsync(d_info.get(), 0, 2 * sizeof(int), stream_));
    int info[2] = {0, 0};
    ZN_CUSOLVER_TRY(cusolverDnDpotrs(solver(), CUBLAS_FILL_MODE_LOWER, bn,
                                     blas_int(B.cols(), "cholesky_solve"), A.data(), bn, B.data(),
                                     bn, d_info.get()));
    // As the CPU backend: a solution with NaN or Inf (overflow) counts as a failure.
    check_finite(B.data(), B.size(), d_info.get() + 1, stream_);
    copy_to_host(info, d_info.get(), 2);
    sync();
    if (info[0] != 0) {
        throw CudaError("cholesky_solve: cusolverDnDpotrs reports invalid parameter " +
                        std::to_string(-info[0]));
    }
    return info[1] == 0;
}

// cublasDsyrk into the lower triangle, then the mirror pass of kernel_matrix (the linear
// "kernel" of transform_gram_symmetric only copies the lower triangle to the upper one).
void CudaBackend::syrk(bool trans, double alpha, const DeviceMatrix& A, double beta,
                       DeviceMatrix& C) {
    DeviceGuard guard(device_);
    const Index n = trans ? A.cols() : A.rows();
    const Index k = trans ? A.rows() : A.cols();
    ZN_EXPECTS_DIM(C.rows() == n && C.cols() == n,
                   "syrk: op(A) has " << n << " columns" << (trans ? " (A transposed)" : "")
                                      << " but C is " << shape(C));
    require_device_memory(A, "A", "syrk");
    require_device_memory(C, "C", "syrk");
    if (C.empty()) return;
    ZN_EXPECTS(C.data() != A.data(), "syrk: C must not share storage with A");
    const int bn = blas_int(n, "syrk");
    if (k == 0) {
        scale_in_place(C.data(), C.size(), beta, stream_);
    } else {
        ZN_CUBLAS_TRY(cublasDsyrk(blas_, CUBLAS_FILL_MODE_LOWER, trans ? CUBLAS_OP_T : CUBLAS_OP_N,
                                  bn, blas_int(k, "syrk"), &alpha, A.data(),
                                  blas_int(std::max<Index>(1, A.rows()), "syrk"), &beta, C.data(),
                                  bn));
    }
    KernelParams mirror;
    mirror.type = DeviceKernel::Linear;
    transform_gram_symmetric(mirror, C.data(), n, nullptr, stream_);
    sync();
}

void CudaBackend::scale_rows_columns(DeviceMatrix& X, const Vector& row_scale,
                                     const Vector& col_scale, double diagonal_shift) {
    DeviceGuard guard(device_);
    ZN_EXPECTS_DIM(row_scale.size() == 0 || row_scale.size() == X.rows(),
                   "scale_rows_columns: " << row_scale.size() << " row scales for " << X.rows()
                                          << " rows");
    ZN_EXPECTS_DIM(col_scale.size() == 0 || col_scale.size() == X.cols(),
                   "scale_rows_columns: " << col_scale.size() << " column scales for "
                                          << X.cols() << " columns");
    require_device_memory(X, "X", "scale_rows_columns");
    if (X.empty()) return;
    const auto nr = static_cast<std::size_t>(row_scale.size());
    const auto nc = static_cast<std::size_t>(col_scale.size());
    DeviceBuffer<double> d_r(nr, device_);
    DeviceBuffer<double> d_c(nc, device_);
    copy_to_device(d_r.get(), row_scale.data(), nr);
    copy_to_device(d_c.get(), col_scale.data(), nc);
    cuda_detail::scale_rows_columns(X.data(), X.rows(), X.cols(), nr > 0 ? d_r.get() : nullptr,
                                    nc > 0 ? d_c.get() : nullptr, diagonal_shift, stream_);
    sync();
}

// cuSOLVER potrf (lower); as in cholesky_solve, a factor diagonal that is not finite and
// positive (e.g. from NaN input) counts as not positive definite.
bool CudaBackend::cholesky_factor(DeviceMatrix& A) {
    DeviceGuard guard(device_);
    ZN_EXPECTS_DIM(A.rows() == A.cols(), "cholesky_factor: A is " << shape(A) << ", not square");
    require_device_memory(A, "A", "cholesky_factor");
    const Index n = A.rows();
    if (n == 0) return true;
    const int bn = blas_int(n, "cholesky_factor");
    int lwork = 0;
    ZN_CUSOLVER_TRY(
        cusolverDnDpotrf_bufferSize(solver(), CUBLAS_FILL_MODE_LOWER, bn, A.data(), bn, &lwork));
    DeviceBuffer<double> work(static_cast<std::size_t>(std::max(lwork, 1)), device_);
    DeviceBuffer<int> d_info(2, device_);  // [0]: cuSOLVER info, [1]: bad-diagonal flag
    ZN_CUDA_TRY(cudaMemsetAsync(d_info.get(), 0, 2 * sizeof(int), stream_));
    ZN_CUSOLVER_TRY(cusolverDnDpotrf(solver(), CUBLAS_FILL_MODE_LOWER, bn, A.data(), bn, work.get(),
                                     lwork, d_info.get()));
    check_positive_diagonal(A.data(), n, d_info.get() + 1, stream_);
    int info[2] = {0, 0};
    copy_to_host(info, d_info.get(), 2);
    sync();
    if (info[0] < 0) {
        throw CudaError("cholesky_factor: cusolverDnDpotrf reports invalid parameter " +
                        std::to_string(-info[0]));
    }
    return info[0] == 0 && info[1] == 0;
}

void CudaBackend::triangular_solve(const DeviceMatrix& L, bool transpose, bool on_the_right,
                                   DeviceMatrix& B) {
    DeviceGuard guard(device_);
    ZN_EXPECTS_DIM(L.rows() == L.cols() && (on_the_right ? B.cols() : B.rows()) == L.rows(),
                   "triangular_solve: L is " << shape(L) << ", B is " << shape(B)
                                             << (on_the_right ? " (L on the right)" : ""));
    require_device_memory(L, "L", "triangular_solve");
    require_device_memory(B, "B", "triangular_solve");
    if (B.empty()) return;
    ZN_EXPECTS(B.data() != L.data(), "triangular_solve: B must not share storage with L");
    const double one = 1.0;
    ZN_CUBLAS_TRY(cublasDtrsm(blas_, on_the_right ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT,
                              CUBLAS_FILL_MODE_LOWER, transpose ? CUBLAS_OP_T : CUBLAS_OP_N,
                              CUBLAS_DIAG_NON_UNIT, blas_int(B.rows(), "triangular_solve"),
                              blas_int(B.cols(), "triangular_solve"), &one, L.data(),
                              blas_int(L.rows(), "triangular_solve"), B.data(),
                              blas_int(B.rows(), "triangular_solve")));
    sync();
}

// The SMO problem of smo.hpp on a precomputed K: the batched solver with one problem (its
// launcher gives a lone large problem the whole 1024-thread block).
SmoResult CudaBackend::solve_smo(const DeviceMatrix& K, const Vector& y,
                                 const SmoOptions& options, const Vector* warm_start) {
    ZN_EXPECTS_DIM(K.rows() == K.cols(), "solve_smo: kernel is " << shape(K));
    ZN_EXPECTS_DIM(y.size() == K.rows(),
                   "SMO: " << y.size() << " labels for a kernel of size " << K.rows());
    const Matrix warm = warm_start != nullptr ? Matrix(*warm_start) : Matrix();
    return solve_smo_batch(K, Matrix(y), options, warm_start != nullptr ? &warm : nullptr, {})
        .front();
}

// Kernel computed in full on the device when it fits, then the precomputed solver; else the
// decomposition solver.
SmoResult CudaBackend::solve_smo(const KernelSpec& spec, const DeviceMatrix& X, const Vector& y,
                                 const SmoOptions& options, const Vector* warm_start) {
    DeviceGuard guard(device_);
    options.validate();
    const Index n = X.rows();
    ZN_EXPECTS_DIM(y.size() == n,
                   "solve_smo: X is " << shape(X) << " but y has " << y.size() << " entries");
    smo_detail::check_smo_labels(y);
    spec.validate(X.cols());
    require_device_memory(X, "X", "solve_smo");

    const std::size_t kernel_bytes = checked_bytes(n, n, sizeof(double), "solve_smo");
    // Scratch besides K: a scaled copy of X (WeightedRbf), norms and the solver's vectors.
    const std::size_t scratch =
        checked_bytes(n, X.cols() + 8, sizeof(double), "solve_smo");
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    ZN_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::size_t headroom = std::max<std::size_t>(std::size_t{256} << 20, total_bytes / 50);
    const bool fits = kernel_bytes <= free_bytes && scratch <= free_bytes - kernel_bytes &&
                      headroom <= free_bytes - kernel_bytes - scratch;
    if (fits) return solve_smo(kernel_matrix(spec, X, X), y, options, warm_start);

    // Decomposition with a kernel-column cache in the free memory: the cache, and per round the
    // working set's columns and the newly computed ones (2 q columns besides the cache).
    detail::DecompositionOptions decomposition;
    decomposition.working_set = std::min<Index>(decomposition.working_set, n);
    const std::size_t column_bytes = checked_bytes(n, 1, sizeof(double), "solve_smo");
    const std::size_t usable = free_bytes > headroom + scratch ? free_bytes - headroom - scratch : 0;
    const auto columns = static_cast<Index>(usable / column_bytes) - 2 * decomposition.working_set;
    if (columns < decomposition.working_set)
        throw OutOfDeviceMemory(checked_bytes(n, 3 * decomposition.working_set, sizeof(double),
                                              "solve_smo") + scratch + headroom);
    decomposition.cache_columns = std::min<Index>(columns, n);
    return detail::solve_smo_decomposition(*this, spec, X, y, options, decomposition, warm_start);
}

// One thread per (split, column) gathers and standardises from X in device memory, so only the
// row indices cross to the device, not the P blocks.
SplitBlocks CudaBackend::split_batch(const DeviceMatrix& X, const std::vector<IndexVector>& train_rows,
                                     const std::vector<IndexVector>& test_rows, bool standardize) {
    DeviceGuard guard(device_);
    const auto [n, m] = detail::check_split_batch(X.rows(), train_rows, test_rows);
    require_device_memory(X, "X", "split_batch");
    const Index d = X.cols();
    const Index P = Index(train_rows.size());
    std::vector<i64> tr, te;
    tr.reserve(std::size_t(n * P));
    te.reserve(std::size_t(m * P));
    for (Index p = 0; p < P; ++p) {
        tr.insert(tr.end(), train_rows[std::size_t(p)].begin(), train_rows[std::size_t(p)].end());
        te.insert(te.end(), test_rows[std::size_t(p)].begin(), test_rows[std::size_t(p)].end());
    }
    DeviceBuffer<i64> d_tr(tr.size(), device_);
    DeviceBuffer<i64> d_te(te.size(), device_);
    copy_to_device(d_tr.get(), tr.data(), tr.size());
    copy_to_device(d_te.get(), te.data(), te.size());
    SplitBlocks out{allocate_matrix(n, d * P, true, "split_batch"),
                    allocate_matrix(m, d * P, true, "split_batch")};
    split_blocks(X.data(), X.rows(), d, d_tr.get(), n, d_te.get(), m, P, standardize,
                 out.train.data(), out.test.data(), stream_);
    sync();
    return out;
}

// Batches (backend.hpp): the column scaling of every block in one pass (Z's column-major order
// is the order of the batch's columns), then one strided-batched GEMM.
DeviceMatrix CudaBackend::scaled_gram_batch(const DeviceMatrix& A, const DeviceMatrix& B,
                                            const DeviceMatrix& Z, Precision precision) {
    DeviceGuard guard(device_);
    const Index d = detail::check_scaled_gram_batch(A, B, Z);
    require_device_memory(A, "A", "scaled_gram_batch");
    require_device_memory(B, "B", "scaled_gram_batch");
    require_device_memory(Z, "Z", "scaled_gram_batch");
    const Index P = Z.cols();
    const Index m = A.rows();
    const Index l = B.rows();
    const bool symmetric = &A == &B;
    DeviceMatrix K = allocate_matrix(m, l * P, true, "scaled_gram_batch");
    if (K.empty()) {
        sync();
        return K;
    }
    if (d == 0) {
        ZN_CUDA_TRY(cudaMemsetAsync(K.data(), 0, static_cast<std::size_t>(K.size()) * sizeof(double),
                                    stream_));
        sync();
        return K;
    }
    if (precision == Precision::Float32) {
        // Single-precision scaled copies and product in the workspace (each part starting on a
        // 256-byte boundary), widened into K.
        const auto round_up = [](std::size_t floats) { return (floats + 63) / 64 * 64; };
        const std::size_t a = round_up(static_cast<std::size_t>(A.size()));
        const std::size_t b = symmetric ? 0 : round_up(static_cast<std::size_t>(B.size()));
        const std::size_t k = static_cast<std::size_t>(K.size());
        float* As = reinterpret_cast<float*>(batch_workspace((a + b + k + 1) / 2));
        float* Bs = symmetric ? As : As + a;
        float* Kf = As + a + b;
        scale_columns_to_float(A.data(), m, d * P, Z.data(), As, stream_);
        if (!symmetric) scale_columns_to_float(B.data(), l, d * P, Z.data(), Bs, stream_);
        const float one = 1.0f;
        const float zero = 0.0f;
        ZN_CUBLAS_TRY(cublasSgemmStridedBatched(
            blas_, CUBLAS_OP_N, CUBLAS_OP_T, blas_int(m, "scaled_gram_batch"),
            blas_int(l, "scaled_gram_batch"), blas_int(d, "scaled_gram_batch"), &one, As,
            blas_int(m, "scaled_gram_batch"), m * d, Bs, blas_int(l, "scaled_gram_batch"), l * d,
            &zero, Kf, blas_int(m, "scaled_gram_batch"), m * l, blas_int(P, "scaled_gram_batch")));
        widen(Kf, K.data(), K.size(), stream_);
        sync();
        return K;
    }
    double* As = batch_workspace(static_cast<std::size_t>(A.size() + (symmetric ? 0 : B.size())));
    scale_columns(A.data(), m, d * P, Z.data(), nullptr, As, stream_);
    const double* Bp = As;
    if (!symmetric) {
        double* Bs = As + A.size();
        scale_columns(B.data(), l, d * P, Z.data(), nullptr, Bs, stream_);
        Bp = Bs;
    }
    const double one = 1.0;
    const double zero = 0.0;
    const int bm = blas_int(m, "scaled_gram_batch");
    const int bl = blas_int(l, "scaled_gram_batch");
    const int bd = blas_int(d, "scaled_gram_batch");
    ZN_CUBLAS_TRY(cublasDgemmStridedBatched(blas_, CUBLAS_OP_N, CUBLAS_OP_T, bm, bl, bd, &one,
                                            As, bm, m * d, Bp, bl, l * d, &zero, K.data(),
                                            bm, m * l, blas_int(P, "scaled_gram_batch")));
    sync();
    return K;
}

// The dot-product kernels: one strided-batched GEMM (A_p B_p'; for A = B both triangles, of
// which the symmetric transform reads the lower one and mirrors it, so every block comes out
// exactly symmetric) and one transform pass over all blocks. The weighted RBF is the RBF of
// sqrt(theta)-scaled copies; chi2, which has no GEMM form, is one launch per block.
DeviceMatrix CudaBackend::kernel_batch(const KernelSpec& spec, Index batch, const DeviceMatrix& A,
                                       const DeviceMatrix& B) {
    DeviceGuard guard(device_);
    const Index d = detail::check_kernel_batch(batch, A, B);
    spec.validate(d);
    require_device_memory(A, "A", "kernel_batch");
    require_device_memory(B, "B", "kernel_batch");
    const bool symmetric = &A == &B;
    const Index m = A.rows();
    const Index l = B.rows();
    DeviceMatrix K = allocate_matrix(m, l * batch, true, "kernel_batch");
    if (K.empty()) {
        sync();
        return K;
    }
    const double* Ap = A.data();
    const double* Bp = B.data();
    if (spec.type == KernelType::WeightedRbf && d > 0) {
        const std::vector<double> weights = weighted_rbf_weights(spec, d, batch);
        DeviceBuffer<double> d_weights(weights.size(), device_);
        copy_to_device(d_weights.get(), weights.data(), weights.size());
        double* scaled =
            batch_workspace(static_cast<std::size_t>(A.size() + (symmetric ? 0 : B.size())));
        scale_columns(A.data(), m, d * batch, nullptr, d_weights.get(), scaled, stream_);
        Ap = scaled;
        Bp = scaled;
        if (!symmetric) {
            scale_columns(B.data(), l, d * batch, nullptr, d_weights.get(), scaled + A.size(),
                          stream_);
            Bp = scaled + A.size();
        }
        sync();  // d_weights is freed on return from this block's scope
    }
    const KernelParams kp = kernel_params(spec);
    if (kp.type == DeviceKernel::Chi2) {
        for (Index p = 0; p < batch; ++p)
            chi2_kernel_matrix(kp.gamma, Ap + p * m * d, m, Bp + p * l * d, l, d,
                               K.data() + p * m * l, stream_);
        sync();
        return K;
    }
    if (d == 0) {
        ZN_CUDA_TRY(cudaMemsetAsync(K.data(), 0, static_cast<std::size_t>(K.size()) * sizeof(double),
                                    stream_));
    } else {
        const double one = 1.0;
        const double zero = 0.0;
        ZN_CUBLAS_TRY(cublasDgemmStridedBatched(
            blas_, CUBLAS_OP_N, CUBLAS_OP_T, blas_int(m, "kernel_batch"), blas_int(l, "kernel_batch"),
            blas_int(d, "kernel_batch"), &one, Ap, blas_int(m, "kernel_batch"), m * d, Bp,
            blas_int(l, "kernel_batch"), l * d, &zero, K.data(), blas_int(m, "kernel_batch"), m * l,
            blas_int(batch, "kernel_batch")));
    }
    const bool rbf = kp.type == DeviceKernel::Rbf;
    DeviceBuffer<double> norms_a(rbf ? static_cast<std::size_t>(m * batch) : 0, device_);
    DeviceBuffer<double> norms_b(rbf && !symmetric ? static_cast<std::size_t>(l * batch) : 0,
                                 device_);
    if (rbf) {
        row_squared_norms_batch(Ap, m, d, batch, norms_a.get(), stream_);
        if (!symmetric) row_squared_norms_batch(Bp, l, d, batch, norms_b.get(), stream_);
    }
    if (symmetric)
        transform_gram_symmetric_batch(kp, K.data(), m, batch, norms_a.get(), stream_);
    else
        transform_gram_batch(kp, K.data(), m, l, batch, norms_a.get(), norms_b.get(), stream_);
    sync();
    return K;
}

DeviceMatrix CudaBackend::gather_blocks(const DeviceMatrix& K, Index block_width,
                                        const IndexVector& source,
                                        const std::vector<IndexVector>& rows,
                                        const std::vector<IndexVector>& cols) {
    DeviceGuard guard(device_);
    const auto [r, c] = detail::check_gather_blocks(K, block_width, source, rows, cols);
    require_device_memory(K, "K", "gather_blocks");
    const Index Q = Index(source.size());
    std::vector<i64> src(source.begin(), source.end());
    std::vector<i64> row_list, col_list;
    row_list.reserve(static_cast<std::size_t>(r * Q));
    col_list.reserve(static_cast<std::size_t>(c * Q));
    for (Index q = 0; q < Q; ++q) {
        row_list.insert(row_list.end(), rows[std::size_t(q)].begin(), rows[std::size_t(q)].end());
        col_list.insert(col_list.end(), cols[std::size_t(q)].begin(), cols[std::size_t(q)].end());
    }
    DeviceBuffer<i64> d_src(src.size(), device_);
    DeviceBuffer<i64> d_rows(row_list.size(), device_);
    DeviceBuffer<i64> d_cols(col_list.size(), device_);
    copy_to_device(d_src.get(), src.data(), src.size());
    copy_to_device(d_rows.get(), row_list.data(), row_list.size());
    copy_to_device(d_cols.get(), col_list.data(), col_list.size());
    DeviceMatrix out = allocate_matrix(r, c * Q, true, "gather_blocks");
    cuda_detail::gather_blocks(K.data(), K.rows(), block_width, d_src.get(), d_rows.get(), r,
                               d_cols.get(), c, Q, out.data(), stream_);
    sync();
    return out;
}

void CudaBackend::gemm_batch(Index batch, bool trans_a, bool trans_b, double alpha,
                             const DeviceMatrix& A, const DeviceMatrix& B, double beta,
                             DeviceMatrix& C) {
    DeviceGuard guard(device_);
    const detail::GemmBatchShape s = detail::check_gemm_batch(batch, trans_a, trans_b, A, B, C);
    require_device_memory(A, "A", "gemm_batch");
    require_device_memory(B, "B", "gemm_batch");
    require_device_memory(C, "C", "gemm_batch");
    if (C.empty()) return;
    ZN_EXPECTS(C.data() != A.data() && C.data() != B.data(),
               "gemm_batch: C must not share storage with A or B");
    if (s.k == 0) {
        scale_in_place(C.data(), C.size(), beta, stream_);
        sync();
        return;
    }
    ZN_CUBLAS_TRY(cublasDgemmStridedBatched(
        blas_, trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N,
        blas_int(s.m, "gemm_batch"), blas_int(s.n, "gemm_batch"), blas_int(s.k, "gemm_batch"),
        &alpha, A.data(), blas_int(A.rows(), "gemm_batch"), A.rows() * s.a_block, B.data(),
        blas_int(B.rows(), "gemm_batch"), B.rows() * s.b_block, &beta, C.data(),
        blas_int(C.rows(), "gemm_batch"), C.rows() * s.n, blas_int(batch, "gemm_batch")));
    sync();
}

// One launch over the open problems, one block each; problems too large for a block's shared
// memory run the host reference on the downloaded kernels. The host recomputes each finished
// problem's gap (accepting it only within the tolerance), bias and objective from the beta and
// gradient the kernel wrote, with the functions the CPU solvers use.
std::vector<SmoResult> CudaBackend::newton_finish_batch(const DeviceMatrix& K, const Matrix& Y,
                                                        const Matrix& beta,
                                                        const SmoOptions& options,
                                                        const std::vector<char>& open) {
    DeviceGuard guard(device_);
    detail::check_newton_finish_batch(K, Y, beta, options, open);
    require_device_memory(K, "K", "newton_finish_batch");
    const Index n = Y.rows();
    const Index P = Y.cols();
    std::vector<SmoResult> out(static_cast<std::size_t>(P));
    if (P == 0 || n == 0 || std::none_of(open.begin(), open.end(), [](char c) { return c != 0; }))
        return out;
    if (n > INT_MAX || !newton_fits(static_cast<int>(n), device_))
        return detail::newton_finish_on_host(download(K), Y, beta, options, open);
    const auto total = static_cast<std::size_t>(n * P);
    const std::vector<int> flags(open.begin(), open.end());
    DeviceBuffer<double> d_y(total, device_);
    DeviceBuffer<double> d_beta(total, device_);
    DeviceBuffer<double> d_G(total, device_);
    DeviceBuffer<int> d_open(flags.size(), device_);
    DeviceBuffer<int> d_finished(flags.size(), device_);
    copy_to_device(d_y.get(), Y.data(), total);
    copy_to_device(d_beta.get(), beta.data(), total);
    copy_to_device(d_open.get(), flags.data(), flags.size());
    ZN_CUDA_TRY(cudaMemsetAsync(d_finished.get(), 0, flags.size() * sizeof(int), stream_));
    NewtonDeviceBatch b;
    b.K = K.data();
    b.y = d_y.get();
    b.beta = d_beta.get();
    b.G = d_G.get();
    b.open = d_open.get();
    b.finished = d_finished.get();
    b.n = static_cast<int>(n);
    b.problems = P;
    b.rounds = detail::kNewtonRounds;
    b.C = options.C;
    b.ridge = options.ridge;
    b.tolerance = options.tolerance;
    cuda_detail::newton_finish_batch(b, stream_);
    Matrix solved(n, P), G(n, P);
    std::vector<int> finished(flags.size());
    copy_to_host(solved.data(), d_beta.get(), total);
    copy_to_host(G.data(), d_G.get(), total);
    copy_to_host(finished.data(), d_finished.get(), finished.size());
    sync();
    for (Index p = 0; p < P; ++p) {
        if (!open[std::size_t(p)] || !finished[std::size_t(p)]) continue;
        SmoResult r = smo_detail::smo_result(solved.col(p), G.col(p), Y.col(p), options.C);
        if (r.kkt_gap <= options.tolerance)  // else rounding put it just outside
            out[std::size_t(p)] = std::move(r);
    }
    return out;
}

// One launch; only the P outcomes come back to the host.
std::vector<ScaleUpdate> CudaBackend::multiplicative_update_batch(
    const DeviceMatrix& Z, const DeviceMatrix& W, const std::vector<char>& update,
    double prune_tolerance, DeviceMatrix& normalized, DeviceMatrix& next) {
    DeviceGuard guard(device_);
    detail::check_multiplicative_update_batch(Z, W, update, prune_tolerance, normalized, next);
    require_device_memory(Z, "Z", "multiplicative_update_batch");
    require_device_memory(W, "W", "multiplicative_update_batch");
    require_device_memory(normalized, "normalized", "multiplicative_update_batch");
    require_device_memory(next, "next", "multiplicative_update_batch");
    const Index P = Z.cols();
    std::vector<ScaleUpdate> out(static_cast<std::size_t>(P));
    if (P == 0) return out;
    const std::vector<int> flags(update.begin(), update.end());
    DeviceBuffer<int> d_flags(flags.size(), device_);
    DeviceBuffer<ScaleUpdateOutcome> d_outcomes(flags.size(), device_);
    copy_to_device(d_flags.get(), flags.data(), flags.size());
    cuda_detail::multiplicative_update_batch(Z.data(), W.data(), Z.rows(), P, d_flags.get(),
                                             prune_tolerance, normalized.data(), next.data(),
                                             d_outcomes.get(), stream_);
    std::vector<ScaleUpdateOutcome> outcomes(flags.size());
    copy_to_host(outcomes.data(), d_outcomes.get(), outcomes.size());
    sync();
    for (Index p = 0; p < P; ++p) {
        const ScaleUpdateOutcome& o = outcomes[std::size_t(p)];
        out[std::size_t(p)] = ScaleUpdate{Index(o.survivors), o.max_change, o.degenerate != 0};
    }
    return out;
}

// All problems in one launch of the SMO kernels of smo.cu; the host prepares the starting points
// and, from the downloaded beta and gradient, the bias, objective and gap of each problem.
// Device memory beyond K: 5 n doubles per problem (y, beta, G, Q_tt, K(y o beta) for a warm
// start).
std::vector<SmoResult> CudaBackend::solve_smo_batch(const DeviceMatrix& K, const Matrix& Y,
                                                    const SmoOptions& options,
                                                    const Matrix* warm_start,
                                                    const std::vector<char>& active) {
    DeviceGuard guard(device_);
    detail::check_smo_batch(K, Y, warm_start, active);
    require_device_memory(K, "K", "solve_smo_batch");
    check_smo_options(options, "solve_smo_batch");
    const Index n = Y.rows();
    const Index P = Y.cols();
    ZN_EXPECTS(n <= INT_MAX, "solve_smo_batch: n = " << n << " is too large");
    ZN_EXPECTS(all_finite(K), "solve_smo_batch: the kernel matrices contain NaN or Inf");
    Matrix beta0 = Matrix::Zero(n, P);
    std::vector<int> flags(static_cast<std::size_t>(P), 0);
    for (Index q = 0; q < P; ++q) {
        if (!active.empty() && active[std::size_t(q)] == 0) continue;
        flags[std::size_t(q)] = 1;
        const Vector y = Y.col(q);
        smo_detail::check_smo_labels(y);
        const Vector w = warm_start != nullptr ? Vector(warm_start->col(q)) : Vector();
        beta0.col(q) = smo_detail::smo_starting_point(warm_start != nullptr ? &w : nullptr, y,
                                                      options.C);
    }
    return launch_smo(K, Y, beta0, nullptr, flags, options,
                      smo_detail::smo_iteration_cap(options, n));
}

// The subproblem's starting gradient enters the kernel's G = y o Kv + ridge beta - 1 through
// Kv = y o (gradient + 1 - ridge beta) (y = +-1).
SmoResult CudaBackend::solve_smo_working_set(const DeviceMatrix& K, const Vector& y,
                                             const Vector& beta, const Vector& gradient,
                                             const SmoOptions& options) {
    DeviceGuard guard(device_);
    detail::check_smo_working_set(K, y, beta, gradient, options);
    require_device_memory(K, "K", "solve_smo_working_set");
    check_smo_options(options, "solve_smo_working_set");
    ZN_EXPECTS(y.size() <= INT_MAX, "solve_smo_working_set: q = " << y.size() << " is too large");
    const Matrix Kv = y.cwiseProduct((gradient.array() + 1.0 - options.ridge * beta.array()).matrix());
    return launch_smo(K, Matrix(y), Matrix(beta), &Kv, {1}, options,
                      smo_detail::smo_iteration_cap(options, y.size()))
        .front();
}

std::vector<SmoResult> CudaBackend::launch_smo(const DeviceMatrix& K, const Matrix& Y,
                                               const Matrix& beta0, const Matrix* Kv_given,
                                               const std::vector<int>& flags,
                                               const SmoOptions& options, i64 max_iterations) {
    const Index n = Y.rows();
    const Index P = Y.cols();
    const bool warm = Kv_given != nullptr || (beta0.array() != 0.0).any();
    const auto total = static_cast<std::size_t>(n * P);
    DeviceBuffer<double> d_y(total, device_);
    DeviceBuffer<double> d_beta(total, device_);
    DeviceBuffer<double> d_G(total, device_);
    DeviceBuffer<double> d_QD(total, device_);
    DeviceBuffer<double> d_Kv(warm ? total : 0, device_);
    DeviceBuffer<int> d_active(static_cast<std::size_t>(P), device_);
    DeviceBuffer<SmoDeviceOutcome> d_outcomes(static_cast<std::size_t>(P), device_);
    copy_to_device(d_y.get(), Y.data(), total);
    copy_to_device(d_beta.get(), beta0.data(), total);
    copy_to_device(d_active.get(), flags.data(), flags.size());
    Matrix v;  // y o beta0 per problem; kept alive until the sync below
    DeviceBuffer<double> d_v(warm && Kv_given == nullptr ? total : 0, device_);
    if (Kv_given != nullptr) {
        copy_to_device(d_Kv.get(), Kv_given->data(), total);
    } else if (warm) {
        v = Y.cwiseProduct(beta0);
        copy_to_device(d_v.get(), v.data(), total);
        const double one = 1.0;
        const double zero = 0.0;
        const int bn = blas_int(n, "solve_smo_batch");
        ZN_CUBLAS_TRY(cublasDgemmStridedBatched(blas_, CUBLAS_OP_N, CUBLAS_OP_N, bn, 1, bn, &one,
                                                K.data(), bn, n * n, d_v.get(), bn, n, &zero,
                                                d_Kv.get(), bn, n,
                                                blas_int(P, "solve_smo_batch")));
    }
    SmoDeviceBatch b;
    b.K = K.data();
    b.y = d_y.get();
    b.beta = d_beta.get();
    b.G = d_G.get();
    b.QD = d_QD.get();
    b.Kv = warm ? d_Kv.get() : nullptr;
    b.active = d_active.get();
    b.n = static_cast<int>(n);
    b.problems = P;
    b.C = options.C;
    b.ridge = options.ridge;
    b.tolerance = options.tolerance;
    b.max_iterations = max_iterations;
    smo_solve_batch(b, d_outcomes.get(), stream_);

    Matrix beta(n, P);
    Matrix G(n, P);
    std::vector<SmoDeviceOutcome> outcomes(static_cast<std::size_t>(P));
    copy_to_host(beta.data(), d_beta.get(), total);
    copy_to_host(G.data(), d_G.get(), total);
    copy_to_host(outcomes.data(), d_outcomes.get(), outcomes.size());
    sync();

    std::vector<SmoResult> results(static_cast<std::size_t>(P));
    for (Index q = 0; q < P; ++q) {
        if (flags[std::size_t(q)] == 0) continue;
        results[std::size_t(q)] = finish_smo_result(beta.col(q), G.col(q), Y.col(q),
                                                    outcomes[std::size_t(q)], options.C);
    }
    return results;
}

void CudaBackend::assign_columns(DeviceMatrix& X, const IndexVector& cols,
                                 const DeviceMatrix& source) {
    DeviceGuard guard(device_);
    detail::check_assign_columns(X, cols, source);
    require_device_memory(X, "X", "assign_columns");
    require_device_memory(source, "source", "assign_columns");
    const std::vector<i64> slots(cols.begin(), cols.end());
    DeviceBuffer<i64> d_slots(slots.size(), device_);
    copy_to_device(d_slots.get(), slots.data(), slots.size());
    scatter_columns(source.data(), X.rows(), d_slots.get(), i64(slots.size()), X.data(), stream_);
    sync();
}

}  // namespace
}  // namespace cuda_detail

namespace {

std::unique_ptr<Backend> make_backend_on(int device) {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        throw CudaError(std::string("make_cuda_backend: no usable CUDA device (") +
                        cudaGetErrorName(err) + ": " + cudaGetErrorString(err) + ")");
    }
    if (device < 0 || device >= count) {
        throw CudaError("make_cuda_backend: CUDA device " + std::to_string(device) +
                        " does not exist (" + std::to_string(count) + " present)");
    }
    return std::make_unique<cuda_detail::CudaBackend>(device);
}

int device_count() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return count > 0 ? count : 0;
}

}  // namespace
}  // namespace zeronorm

// The module's one export (src/cuda_module.hpp); everything else in it is hidden.
extern "C" __attribute__((visibility("default"))) const zeronorm::cuda_module::Entry*
zeronorm_cuda_module_entry() {
    static const zeronorm::cuda_module::Entry entry{zeronorm::cuda_module::abi_version,
                                                    ZERONORM_CUDA_MODULE_KEY,
                                                    &zeronorm::make_backend_on,
                                                    &zeronorm::device_count};
    return &entry;
}
