// The CUDA backend's private context: one device, one non-blocking stream, a cuBLAS and a
// cuSOLVER dense handle bound to that stream. DeviceMatrix storage comes from the device's
// memory pool in the stream's order (DeviceMemory) and is freed by the last owner. Every public
// method makes its device current for its duration (and restores the caller's), enqueues its
// work on the stream and synchronises before returning, so errors are reported by the call that
// caused them. A CudaBackend is not safe to use from several threads at once.
//
// Compiled by the host compiler (Eigen stays out of nvcc); the kernels are launched through
// device_ops.hpp. The primitives are defined by group next to their kernels: cuda_backend.cpp
// (the context, memory, the module entry), dense_ops.cpp (dense linear algebra),
// kernel_ops.cpp (kernel matrices, kernel_matrix.cu), gather_ops.cpp (gathers, splits and
// batched GEMMs, elementwise.cu), smo_ops.cpp (SMO and the Newton finish, smo.cu and
// newton.cu), arom_ops.cpp (scale_update.cu, and ColumnOrder), alignment_ops.cpp
// (alignment.cu) and rfe_ops.cpp (elimination.cu).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <cstddef>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/op_profile.hpp"
#include "core/stopwatch.hpp"
#include "cuda_check.cuh"
#include "device_ops.hpp"
#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm::cuda_detail {

// Makes `device` current for a scope and restores the previous device afterwards.
class DeviceGuard {
public:
    explicit DeviceGuard(int device);
    ~DeviceGuard();
    DeviceGuard(const DeviceGuard&) = delete;
    DeviceGuard& operator=(const DeviceGuard&) = delete;

private:
    int previous_ = 0;
    bool switched_ = false;
};

// A stream of `device`, destroyed with its last owner: the backend and every allocation freed in
// its order (an allocation may outlive the backend that made it).
class OwnedStream {
public:
    explicit OwnedStream(int device);
    ~OwnedStream();
    OwnedStream(const OwnedStream&) = delete;
    OwnedStream& operator=(const OwnedStream&) = delete;
    cudaStream_t get() const { return stream_; }

private:
    int device_;
    cudaStream_t stream_ = nullptr;
};

// Where a backend's device memory comes from. With a pool (the default), allocations and frees
// are ordered on the backend's stream and what is freed stays in the pool, kept for the next
// allocation, instead of a cudaMalloc and a device-wide synchronising cudaFree per temporary
// (a batched solve makes dozens of them); a request the device cannot serve first returns the
// pool's unused memory to the device and tries once more. ZERONORM_CUDA_ALLOCATOR=malloc (or a
// device without memory pools) gives plain cudaMalloc/cudaFree.
struct DeviceMemory {
    int device = 0;
    cudaMemPool_t pool = nullptr;  // null: cudaMalloc / cudaFree
    std::shared_ptr<OwnedStream> stream;

    // `bytes` (> 0) of device memory; OutOfDeviceMemory(bytes) when it cannot be had.
    void* allocate(std::size_t bytes) const;
    // Frees without throwing (deleters and destructors run after errors and at exit).
    void free(void* p) const noexcept;
    // Bytes the device has free plus those the pool holds unused.
    std::size_t available() const;
    // Hands what the pool holds unused back to the device (after this stream's pending frees),
    // for an allocation that failed: ours, or a library's (cuSOLVER's handle).
    void release_unused() const;
};

// The pool of `device` that every backend on it shares (created on first use, for the life of
// the process), or null where the device has none or ZERONORM_CUDA_ALLOCATOR=malloc.
cudaMemPool_t shared_device_pool(int device);

struct DeviceDeleter {
    DeviceMemory memory;
    void operator()(double* p) const noexcept { memory.free(p); }
};

// rows x cols x element_size, checked against negative sizes and overflow.
std::size_t checked_bytes(Index rows, Index cols, std::size_t element_size, const char* where);

// v as a cuBLAS/cuSOLVER dimension (InvalidArgument beyond int).
int blas_int(Index v, const char* where);

// Scratch memory owned by one public call.
template <class T>
class DeviceBuffer {
public:
    DeviceBuffer(std::size_t count, const DeviceMemory& memory) : memory_(memory) {
        if (count == 0) return;
        ZN_EXPECTS(count <= std::numeric_limits<std::size_t>::max() / sizeof(T),
                   "device buffer of " << count << " elements is too large");
        ptr_ = static_cast<T*>(memory_.allocate(count * sizeof(T)));
    }
    ~DeviceBuffer() { memory_.free(ptr_); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    T* get() const { return ptr_; }

private:
    DeviceMemory memory_;  // a copy: the buffer's stream lives as long as the buffer
    T* ptr_ = nullptr;
};

class CudaBackend;
std::unique_ptr<SmoOps> make_smo_ops(CudaBackend& backend);
std::unique_ptr<AromOps> make_arom_ops(CudaBackend& backend);
std::unique_ptr<AlignmentOps> make_alignment_ops(CudaBackend& backend);
std::unique_ptr<RfeOps> make_rfe_ops(CudaBackend& backend);

// The profiles of a backend's workers (make_worker), each added when its worker ends.
struct WorkerProfiles {
    std::mutex mutex;
    OpProfile profile;
    int workers = 0;
};

// The device memory that the workers running at once share (make_worker(workers)): measured
// once, when the first of them starts and none holds memory yet, so that what a worker may take
// (the full kernel or the decomposition solver, a batch's size) does not depend on how far the
// others have got; the device's actual free memory still bounds it.
struct WorkerMemoryShare {
    std::mutex mutex;
    unsigned live = 0;      // workers alive
    unsigned workers = 0;   // the workers argument they were made with
    std::size_t bytes = 0;  // each one's share
};

class CudaBackend final : public Backend {
public:
    explicit CudaBackend(int device) : CudaBackend(device, nullptr, 1) {}
    // With a parent: a worker of a parallel schedule, one of `workers` running at once
    // (make_worker): 1/workers of the free memory is its own, and under a profile its rows go to
    // the parent's workers' table when it ends.
    CudaBackend(int device, const CudaBackend* parent, unsigned workers);
    ~CudaBackend() override;
    CudaBackend(const CudaBackend&) = delete;
    CudaBackend& operator=(const CudaBackend&) = delete;

    BackendKind kind() const override { return BackendKind::Cuda; }
    std::string description() const override;
    BackendCapabilities capabilities() const override {
        BackendCapabilities caps;
        caps.prefers_batched_schedule = true;  // one launch serves all problems of a batch
        // Each worker its own stream and handles: the problems' round trips overlap.
        caps.concurrent_workers = 16;
        caps.batch_bytes = batch_bytes_;
        return caps;
    }
    std::unique_ptr<Backend> make_worker(unsigned workers) const override;
    SmoOps& smo() override { return *smo_; }
    AromOps& arom() override { return *arom_; }
    AlignmentOps& alignment() override { return *alignment_; }
    RfeOps& rfe() override { return *rfe_; }

    DeviceMatrix allocate(Index rows, Index cols) override;
    DeviceMatrix upload(const Matrix& host) override;
    Matrix download(const DeviceMatrix& m) override;

    DeviceMatrix select_columns(const DeviceMatrix& X, const IndexVector& cols) override;
    DeviceMatrix select_rows(const DeviceMatrix& X, const IndexVector& rows) override;
    void assign_columns(DeviceMatrix& X, const IndexVector& cols,
                        const DeviceMatrix& source) override;

    DeviceMatrix kernel_matrix(const KernelSpec& spec, const DeviceMatrix& A,
                               const DeviceMatrix& B,
                               const DeviceMatrix* feature_scale = nullptr) override;
    void gemm(bool trans_a, bool trans_b, double alpha, const DeviceMatrix& A,
              const DeviceMatrix& B, double beta, DeviceMatrix& C) override;
    void syrk(bool trans, double alpha, const DeviceMatrix& A, double beta,
              DeviceMatrix& C) override;
    void scale_rows_columns(DeviceMatrix& X, const Vector& row_scale, const Vector& col_scale,
                            double diagonal_shift) override;
    bool cholesky_factor(DeviceMatrix& A) override;
    void triangular_solve(const DeviceMatrix& L, bool transpose, bool on_the_right,
                          DeviceMatrix& B) override;

    SplitBlocks split_batch(const DeviceMatrix& X, const std::vector<IndexVector>& train_rows,
                            const std::vector<IndexVector>& test_rows, bool standardize) override;
    DeviceMatrix scaled_gram_batch(const DeviceMatrix& A, const DeviceMatrix& B,
                                   const DeviceMatrix& Z, Precision precision) override;
    DeviceMatrix gram_batch(Index batch, const DeviceMatrix& A, const DeviceMatrix& B,
                            Precision precision) override;
    DeviceMatrix kernel_batch(const KernelSpec& spec, Index batch, const DeviceMatrix& A,
                              const DeviceMatrix& B) override;
    DeviceMatrix gather_blocks(const DeviceMatrix& K, Index block_width, const IndexVector& source,
                               const std::vector<IndexVector>& rows,
                               const std::vector<IndexVector>& cols) override;
    void gemm_batch(Index batch, bool trans_a, bool trans_b, double alpha, const DeviceMatrix& A,
                    const DeviceMatrix& B, double beta, DeviceMatrix& C) override;

    // ---- for the operation sets ------------------------------------------------------------
    int device() const { return device_; }
    const DeviceMemory& memory() const { return memory_; }
    // The device's free memory (the pool's unused part counted) that this backend may take: all
    // of it, or a worker's share (WorkerMemoryShare) where that is less.
    std::size_t free_memory() const;
    std::size_t total_memory() const { return total_memory_; }
    // The device's limits the launch-size rules read (launch_rules.hpp).
    const launch_rules::DeviceLimits& limits() const { return limits_; }
    cudaStream_t stream() const { return stream_; }
    cublasHandle_t blas() const { return blas_; }
    // rows x cols of device memory, NaN-filled when `poison` (0xFF bytes are a NaN double).
    DeviceMatrix allocate_matrix(Index rows, Index cols, bool poison, const char* where);
    // Throws InvalidArgument unless m is empty or its storage is memory of this device.
    void require_device_memory(const DeviceMatrix& m, const char* name, const char* where) const;
    template <class T>
    void copy_to_device(T* dst, const T* src, std::size_t count) {
        if (count == 0) return;
        ZN_CUDA_TRY(cudaMemcpyAsync(dst, src, count * sizeof(T), cudaMemcpyHostToDevice, stream_));
        if (profile_ != nullptr) profile_->to_device(std::int64_t(count * sizeof(T)));
    }
    template <class T>
    void copy_to_host(T* dst, const T* src, std::size_t count) {
        if (count == 0) return;
        ZN_CUDA_TRY(cudaMemcpyAsync(dst, src, count * sizeof(T), cudaMemcpyDeviceToHost, stream_));
        if (profile_ != nullptr) profile_->to_host(std::int64_t(count * sizeof(T)));
    }
    void sync() {
        ZN_CUDA_TRY(cudaStreamSynchronize(stream_));
        if (profile_ != nullptr) {
            profile_->sync();
            read_timings();
        }
    }
    // The operations' profile under ZERONORM_CUDA_PROFILE (op_profile.hpp), else null.
    OpProfile* profile() const { return profile_.get(); }
    // Under a profile, an event recorded on the stream now (else null), and a timed launch:
    // the time between two such events, added to the profile under `name` at the next sync.
    cudaEvent_t record_event();
    void add_timing(const char* name, cudaEvent_t start, cudaEvent_t end) noexcept;
    // True when every entry of m is finite (one device pass).
    bool all_finite(const DeviceMatrix& m);
    // The same over the blocks of m (block_cols columns each) whose flag is nonzero: one pass
    // per run of consecutive flagged blocks, one synchronisation.
    bool all_finite(const DeviceMatrix& m, Index block_cols, const std::vector<int>& flags);
    // Grow-only scratch kept across calls, for the scaled copies of scaled_gram_batch: a fresh
    // cudaMalloc of a few hundred MB per AROM iteration would cost more than the product.
    double* batch_workspace(std::size_t count);

private:
    void release() noexcept;
    // A worker's share of the memory the root's `root` has free (WorkerMemoryShare).
    void join_worker_share(const DeviceMemory& root, unsigned workers);
    // The timed launches' device times, into the profile (the stream has synchronised).
    void read_timings() noexcept;
    void destroy_timings() noexcept;
    // scaled_gram_batch and gram_batch: z = Z's data (d x P) or null for unit scales.
    DeviceMatrix gram_blocks(const DeviceMatrix& A, const DeviceMatrix& B, const double* z,
                             Index P, Index d, Precision precision);
    // The cuSOLVER handle, created on first use: most work (SMO, the batched cross-validation)
    // needs no factorisation and need not pay for its set-up.
    cusolverDnHandle_t solver();

    int device_;
    bool worker_ = false;
    // The root's, shared with its workers; a worker's share of the memory once it has joined.
    std::shared_ptr<WorkerMemoryShare> worker_share_;
    std::size_t share_bytes_ = 0;
    bool in_worker_share_ = false;
    std::string name_;
    launch_rules::DeviceLimits limits_;
    std::size_t total_memory_ = 0;
    std::size_t batch_bytes_ = std::size_t{1} << 30;  // BackendCapabilities::batch_bytes
    DeviceMemory memory_;          // owns the stream (memory_.stream)
    cudaStream_t stream_ = nullptr;  // memory_.stream->get()
    cublasHandle_t blas_ = nullptr;
    cusolverDnHandle_t solver_ = nullptr;
    std::shared_ptr<double> workspace_;
    std::size_t workspace_count_ = 0;
    std::unique_ptr<SmoOps> smo_;
    std::unique_ptr<AromOps> arom_;
    std::unique_ptr<AlignmentOps> alignment_;
    std::unique_ptr<RfeOps> rfe_;
    std::unique_ptr<OpProfile> profile_;  // under ZERONORM_CUDA_PROFILE
    // Under a profile, the workers' table (a worker's: its root backend's), else null.
    std::shared_ptr<WorkerProfiles> worker_profiles_;
    struct Timing {
        const char* name;
        cudaEvent_t start;
        cudaEvent_t end;
    };
    std::vector<Timing> timings_;  // recorded, not yet read
};

// Under ZERONORM_CUDA_PROFILE, the device time of the launches enqueued in its scope, by CUDA
// events on the backend's stream, under `name` (a string literal); nothing otherwise.
class LaunchTimer {
public:
    LaunchTimer(CudaBackend& backend, const char* name)
        : backend_(backend), name_(name), start_(backend.record_event()) {}
    ~LaunchTimer() {
        if (start_ == nullptr) return;
        cudaEvent_t end = nullptr;
        try {
            end = backend_.record_event();
        } catch (...) {
            end = nullptr;  // the launch's own error is the one to report
        }
        backend_.add_timing(name_, start_, end);
    }
    LaunchTimer(const LaunchTimer&) = delete;
    LaunchTimer& operator=(const LaunchTimer&) = delete;

private:
    CudaBackend& backend_;
    const char* name_;
    cudaEvent_t start_;
};

// The rows of each column of a d x Q matrix of keys in stable descending order
// (descending_column_order: ties keep the lower row first), on the device, the sort timed under
// `name`: rows() for later launches, download(from, count) for rows [from, from + count) of
// every column on the host (count x Q, column by column; synchronises). At most max_columns(d)
// columns per order. Shared by AromOps::top_rows and RfeOps::eliminate_batch (arom_ops.cpp).
class ColumnOrder {
public:
    static Index max_columns(Index d);
    ColumnOrder(CudaBackend& backend, const double* keys, Index d, Index Q, const char* name);
    const int* rows() const { return rows_.get(); }
    std::vector<int> download(Index from, Index count);

private:
    CudaBackend& b_;
    Index d_, Q_;
    DeviceBuffer<int> rows_;
};

// A public operation's scope: its backend's device current for the call and, under
// ZERONORM_CUDA_PROFILE, its wall time recorded under `op` (a string literal).
class OpScope {
public:
    OpScope(const CudaBackend& backend, const char* op)
        : guard_(backend.device()), profile_(backend.profile()) {
        if (profile_ != nullptr) profile_->enter(op);
    }
    ~OpScope() {
        if (profile_ != nullptr) profile_->leave(clock_.seconds());
    }
    OpScope(const OpScope&) = delete;
    OpScope& operator=(const OpScope&) = delete;

private:
    DeviceGuard guard_;
    OpProfile* profile_;
    Stopwatch clock_;
};

}  // namespace zeronorm::cuda_detail
