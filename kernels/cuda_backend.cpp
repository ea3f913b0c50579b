// The CUDA backend's context (cuda_context.hpp): set-up and release of the stream and handles,
// device memory, and the module's entry point. Built, with the kernels, into the module
// libzeronorm_cuda.so that the core loads on first use (src/core/cuda_module.hpp).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <utility>

#include "core/cuda_module.hpp"
#include "core/op_shapes.hpp"
#include "cuda_context.hpp"
#include "zeronorm/core/cuda_compatibility.hpp"
#include "zeronorm/core/ops/alignment_ops.hpp"
#include "zeronorm/core/ops/arom_ops.hpp"
#include "zeronorm/core/ops/rfe_ops.hpp"
#include "zeronorm/core/ops/smo_ops.hpp"

namespace zeronorm {
namespace cuda_detail {

DeviceGuard::DeviceGuard(int device) {
    ZN_CUDA_TRY(cudaGetDevice(&previous_));
    if (previous_ != device) {
        ZN_CUDA_TRY(cudaSetDevice(device));
        switched_ = true;
    }
}

DeviceGuard::~DeviceGuard() {
    if (switched_ && cudaSetDevice(previous_) != cudaSuccess) (void)cudaGetLastError();
}

namespace {

// Runs `body` with `device` current and restores the caller's device, without throwing: false
// where switching failed (the runtime's last error is then cleared).
template <class Body>
bool on_device_quietly(int device, Body body) noexcept {
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
    if (!failed && !body()) failed = true;
    if (switched && cudaSetDevice(previous) != cudaSuccess) failed = true;
    if (failed) (void)cudaGetLastError();  // keep later launch checks clean
    return !failed;
}

bool pool_wanted() {
    const char* choice = std::getenv("ZERONORM_CUDA_ALLOCATOR");
    if (choice == nullptr || *choice == '\0' || std::string(choice) == "pool") return true;
    if (std::string(choice) == "malloc") return false;
    throw InvalidArgument(std::string("ZERONORM_CUDA_ALLOCATOR must be pool or malloc, not '") +
                          choice + "'");
}

}  // namespace

OwnedStream::OwnedStream(int device) : device_(device) {
    DeviceGuard guard(device_);
    ZN_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
}

OwnedStream::~OwnedStream() {
    on_device_quietly(device_, [this] { return cudaStreamDestroy(stream_) == cudaSuccess; });
}

cudaMemPool_t shared_device_pool(int device) {
    static std::mutex mutex;
    static std::map<int, cudaMemPool_t> pools;  // kept to the end of the process
    std::lock_guard<std::mutex> lock(mutex);
    const auto found = pools.find(device);
    if (found != pools.end()) return found->second;
    cudaMemPool_t pool = nullptr;
    int supported = 0;
    ZN_CUDA_TRY(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device));
    if (supported != 0 && pool_wanted()) {
        cudaMemPoolProps props{};
        props.allocType = cudaMemAllocationTypePinned;
        props.handleTypes = cudaMemHandleTypeNone;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = device;
        ZN_CUDA_TRY(cudaMemPoolCreate(&pool, &props));
        // Keep what is freed (the default, 0, hands it back to the device at every
        // synchronisation, and the next allocation maps it again).
        std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
        ZN_CUDA_TRY(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    }
    pools.emplace(device, pool);
    return pool;
}

void* DeviceMemory::allocate(std::size_t bytes) const {
    void* p = nullptr;
    if (pool == nullptr) {
        ZN_CUDA_TRY_ALLOC(cudaMalloc(&p, bytes), bytes);
        return p;
    }
    cudaError_t err = cudaMallocFromPoolAsync(&p, bytes, pool, stream->get());
    if (err == cudaErrorMemoryAllocation) {
        // What the pool holds unused (other backends' frees included) back, and once more.
        (void)cudaGetLastError();
        release_unused();
        err = cudaMallocFromPoolAsync(&p, bytes, pool, stream->get());
    }
    ZN_CUDA_TRY_ALLOC(err, bytes);
    return p;
}

void DeviceMemory::free(void* p) const noexcept {
    if (p == nullptr) return;
    on_device_quietly(device, [&] {
        return (pool != nullptr ? cudaFreeAsync(p, stream->get()) : cudaFree(p)) == cudaSuccess;
    });
}

void DeviceMemory::release_unused() const {
    if (pool == nullptr) return;
    ZN_CUDA_TRY(cudaStreamSynchronize(stream->get()));
    ZN_CUDA_TRY(cudaMemPoolTrimTo(pool, 0));
}

std::size_t DeviceMemory::available() const {
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    ZN_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (pool != nullptr) {
        std::uint64_t reserved = 0;
        std::uint64_t used = 0;
        ZN_CUDA_TRY(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
        ZN_CUDA_TRY(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
        if (reserved > used) free_bytes += static_cast<std::size_t>(reserved - used);
    }
    return free_bytes;
}

std::size_t checked_bytes(Index rows, Index cols, std::size_t element_size, const char* where) {
    ZN_EXPECTS(rows >= 0 && cols >= 0,
               where << ": negative matrix size " << rows << " x " << cols);
    const auto r = static_cast<std::size_t>(rows);
    const auto c = static_cast<std::size_t>(cols);
    ZN_EXPECTS(c == 0 || r <= std::numeric_limits<std::size_t>::max() / element_size / c,
               where << ": a " << rows << " x " << cols << " matrix is too large");
    return r * c * element_size;
}

int blas_int(Index v, const char* where) {
    ZN_EXPECTS(v >= 0 && v <= INT_MAX,
               where << ": dimension " << v << " exceeds the range of cuBLAS/cuSOLVER (int)");
    return static_cast<int>(v);
}

CudaBackend::CudaBackend(int device, const CudaBackend* parent, unsigned workers)
    : device_(device), worker_(parent != nullptr),
      worker_share_(parent != nullptr ? parent->worker_share_
                                      : std::make_shared<WorkerMemoryShare>()) {
    ZN_EXPECTS(workers >= 1, "CUDA backend: workers must be >= 1, got " << workers);
    const Stopwatch start_up;  // the context (on the first backend), handles and module image
    if (const char* profile = std::getenv("ZERONORM_CUDA_PROFILE");
        profile != nullptr && *profile != '\0' && std::string(profile) != "0") {
        profile_ = std::make_unique<OpProfile>();
        worker_profiles_ = parent != nullptr ? parent->worker_profiles_
                                             : std::make_shared<WorkerProfiles>();
    }
    DeviceGuard guard(device_);
    cudaDeviceProp prop{};
    ZN_CUDA_TRY(cudaGetDeviceProperties(&prop, device_));
    name_ = prop.name;
    total_memory_ = prop.totalGlobalMem;
    int shared = 0;
    int optin = 0;
    ZN_CUDA_TRY(cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerBlock, device_));
    ZN_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device_));
    limits_.shared_per_block = static_cast<std::size_t>(shared);
    limits_.shared_per_block_optin = static_cast<std::size_t>(optin);
    limits_.max_threads_per_block = prop.maxThreadsPerBlock;
    const std::string unsupported = launch_rules::unsupported_limits(limits_);
    if (!unsupported.empty())
        throw CudaError("CUDA device " + std::to_string(device_) + " (" + name_ + "): " + unsupported);
    // The rule in cuda_incompatibility knows the architectures by number; loading a kernel is
    // the last word (special CMake values, hand-made flags).
    const cudaError_t image = probe_kernel_image();
    if (image != cudaSuccess) {
        (void)cudaGetLastError();
        throw CudaError("CUDA device " + std::to_string(device_) + " (" + name_ + ", sm_" +
                        std::to_string(prop.major) + std::to_string(prop.minor) +
                        ") cannot load this build's kernels (" + cudaGetErrorName(image) +
                        "); the build carries " +
                        describe_cuda_architectures(parse_cuda_architectures(
                            cuda_architectures_built())) +
                        " (CMAKE_CUDA_ARCHITECTURES=" + cuda_architectures_built() +
                        "): rebuild with -DCMAKE_CUDA_ARCHITECTURES=" +
                        std::to_string(prop.major) + std::to_string(prop.minor));
    }
    try {
        memory_.device = device_;
        memory_.pool = shared_device_pool(device_);
        memory_.stream = std::make_shared<OwnedStream>(device_);
        stream_ = memory_.stream->get();
        if (parent != nullptr) join_worker_share(parent->memory_, workers);
        // The other workers' pool may hold most of the device: trimmed, once more.
        cublasStatus_t cublas_create = cublasCreate(&blas_);
        if (cublas_create == CUBLAS_STATUS_ALLOC_FAILED) {
            memory_.release_unused();
            cublas_create = cublasCreate(&blas_);
        }
        ZN_CUBLAS_TRY(cublas_create);
        ZN_CUBLAS_TRY(cublasSetStream(blas_, stream_));
        ZN_CUBLAS_TRY(cublasSetPointerMode(blas_, CUBLAS_POINTER_MODE_HOST));
        // Deterministic results: no atomics-based algorithms.
        ZN_CUBLAS_TRY(cublasSetAtomicsMode(blas_, CUBLAS_ATOMICS_NOT_ALLOWED));
        batch_bytes_ = std::max(free_memory() / 4, std::size_t{256} << 20);
        smo_ = make_smo_ops(*this);
        arom_ = make_arom_ops(*this);
        alignment_ = make_alignment_ops(*this);
        rfe_ = make_rfe_ops(*this);
    } catch (...) {
        release();
        throw;
    }
    if (profile_ != nullptr) {
        profile_->enter("(backend start-up)");
        profile_->leave(start_up.seconds());
    }
}

cudaEvent_t CudaBackend::record_event() {
    if (profile_ == nullptr) return nullptr;
    cudaEvent_t event = nullptr;
    ZN_CUDA_TRY(cudaEventCreate(&event));
    const cudaError_t recorded = cudaEventRecord(event, stream_);
    if (recorded != cudaSuccess) {
        (void)cudaEventDestroy(event);
        ZN_CUDA_TRY(recorded);
    }
    return event;
}

void CudaBackend::add_timing(const char* name, cudaEvent_t start, cudaEvent_t end) noexcept {
    if (end == nullptr) {
        (void)cudaEventDestroy(start);
        return;
    }
    try {
        timings_.push_back(Timing{name, start, end});
    } catch (...) {
        (void)cudaEventDestroy(start);
        (void)cudaEventDestroy(end);
    }
}

void CudaBackend::read_timings() noexcept {
    for (const Timing& t : timings_) {
        float ms = 0.0f;
        if (cudaEventElapsedTime(&ms, t.start, t.end) == cudaSuccess)
            profile_->kernel(t.name, 1e-3 * double(ms));
        else
            (void)cudaGetLastError();
    }
    destroy_timings();
}

void CudaBackend::destroy_timings() noexcept {
    for (const Timing& t : timings_) {
        (void)cudaEventDestroy(t.start);
        (void)cudaEventDestroy(t.end);
    }
    timings_.clear();
}

std::unique_ptr<Backend> CudaBackend::make_worker(unsigned workers) const {
    return std::make_unique<CudaBackend>(device_, this, workers);
}

CudaBackend::~CudaBackend() {
    release();
    if (profile_ == nullptr) return;
    if (worker_ && worker_profiles_ != nullptr) {
        std::lock_guard<std::mutex> lock(worker_profiles_->mutex);
        worker_profiles_->profile.merge(*profile_);
        ++worker_profiles_->workers;
        return;
    }
    const std::string device = "device " + std::to_string(device_) + " (" + name_ + ")";
    std::string tables =
        profile_->table("zeronorm CUDA profile, " + device + ", wall time of each operation:");
    if (worker_profiles_ != nullptr) {
        std::lock_guard<std::mutex> lock(worker_profiles_->mutex);
        if (worker_profiles_->workers > 0)
            tables += worker_profiles_->profile.table(
                "zeronorm CUDA profile, " + device + ", its " +
                std::to_string(worker_profiles_->workers) +
                " worker backends together (concurrent streams: their times overlap):");
    }
    std::fputs(tables.c_str(), stderr);
}

void CudaBackend::join_worker_share(const DeviceMemory& root, unsigned workers) {
    std::lock_guard<std::mutex> lock(worker_share_->mutex);
    if (worker_share_->live == 0 || worker_share_->workers != workers) {
        worker_share_->bytes = root.available() / workers;
        worker_share_->workers = workers;
    }
    ++worker_share_->live;
    share_bytes_ = worker_share_->bytes;
    in_worker_share_ = true;
}

std::size_t CudaBackend::free_memory() const {
    const std::size_t available = memory_.available();
    return in_worker_share_ ? std::min(share_bytes_, available) : available;
}

void CudaBackend::release() noexcept {
    if (in_worker_share_) {
        try {
            std::lock_guard<std::mutex> lock(worker_share_->mutex);
            --worker_share_->live;
        } catch (...) {  // std::mutex::lock failing (system_error): the count stays high
        }
        in_worker_share_ = false;
    }
    on_device_quietly(device_, [this] {
        const bool synchronised = stream_ == nullptr || cudaStreamSynchronize(stream_) == cudaSuccess;
        if (profile_ != nullptr && synchronised) read_timings();
        destroy_timings();
        if (solver_ != nullptr) (void)cusolverDnDestroy(solver_);
        if (blas_ != nullptr) (void)cublasDestroy(blas_);
        return synchronised;
    });
    workspace_.reset();  // frees on its own device
    workspace_count_ = 0;
    memory_.stream.reset();  // the stream goes with the last allocation freed in its order
    solver_ = nullptr;
    blas_ = nullptr;
    stream_ = nullptr;
}

cusolverDnHandle_t CudaBackend::solver() {
    if (solver_ == nullptr) {
        // Created on first use, when the pool may hold most of the device: trimmed, once more.
        cusolverDnHandle_t handle = nullptr;
        cusolverStatus_t status = cusolverDnCreate(&handle);
        if (status == CUSOLVER_STATUS_ALLOC_FAILED) {
            memory_.release_unused();
            status = cusolverDnCreate(&handle);
        }
        ZN_CUSOLVER_TRY(status);
        solver_ = handle;
        ZN_CUSOLVER_TRY(cusolverDnSetStream(solver_, stream_));
    }
    return solver_;
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
    void* p = memory_.allocate(bytes);
    // The shared_ptr takes ownership at once (it frees p itself if its own allocation throws).
    std::shared_ptr<double> storage(static_cast<double*>(p), DeviceDeleter{memory_});
    if (poison) ZN_CUDA_TRY(cudaMemsetAsync(p, 0xFF, bytes, stream_));
    return DeviceMatrix(std::move(storage), rows, cols);
}

void CudaBackend::require_device_memory(const DeviceMatrix& m, const char* name,
                                        const char* where) const {
    if (m.empty()) return;
    ZN_EXPECTS(m.data() != nullptr,
               where << ": " << name << " (" << detail::shape(m) << ") has no storage");
    cudaPointerAttributes attr{};
    const cudaError_t err = cudaPointerGetAttributes(&attr, m.data());
    if (err != cudaSuccess) (void)cudaGetLastError();
    ZN_EXPECTS(err == cudaSuccess && attr.type == cudaMemoryTypeDevice && attr.device == device_,
               where << ": " << name << " is not in the memory of cuda:" << device_
                     << " (a matrix from another backend or device?)");
}

bool CudaBackend::all_finite(const DeviceMatrix& m) {
    return all_finite(m, m.cols(), {1});  // one block: the whole matrix
}

bool CudaBackend::all_finite(const DeviceMatrix& m, Index block_cols,
                             const std::vector<int>& flags) {
    ZN_EXPECTS(block_cols >= 0 && Index(flags.size()) * block_cols <= m.cols(),
               "all_finite: " << flags.size() << " blocks of " << block_cols
                              << " columns are beyond the matrix's " << m.cols());
    DeviceBuffer<int> d_flag(1, memory_);
    ZN_CUDA_TRY(cudaMemsetAsync(d_flag.get(), 0, sizeof(int), stream_));
    const auto block_entries = static_cast<std::size_t>(m.rows() * block_cols);
    for (std::size_t first = 0; first < flags.size();) {
        if (flags[first] == 0) {
            ++first;
            continue;
        }
        std::size_t end = first;
        while (end < flags.size() && flags[end] != 0) ++end;
        check_finite(m.data() + first * block_entries, i64((end - first) * block_entries),
                     d_flag.get(), stream_);
        first = end;
    }
    int flag = 0;
    copy_to_host(&flag, d_flag.get(), 1);
    sync();
    return flag == 0;
}

double* CudaBackend::batch_workspace(std::size_t count) {
    if (count > workspace_count_) {
        workspace_.reset();  // free the old one first
        workspace_count_ = 0;
        void* p = memory_.allocate(count * sizeof(double));
        workspace_ = std::shared_ptr<double>(static_cast<double*>(p), DeviceDeleter{memory_});
        workspace_count_ = count;
    }
    return workspace_.get();
}

DeviceMatrix CudaBackend::allocate(Index rows, Index cols) {
    OpScope scope(*this, "allocate");
    DeviceMatrix m = allocate_matrix(rows, cols, true, "allocate");
    sync();
    return m;
}

DeviceMatrix CudaBackend::upload(const Matrix& host) {
    OpScope scope(*this, "upload");
    DeviceMatrix m = allocate_matrix(host.rows(), host.cols(), false, "upload");
    copy_to_device(m.data(), host.data(), static_cast<std::size_t>(host.size()));
    sync();
    return m;
}

Matrix CudaBackend::download(const DeviceMatrix& m) {
    OpScope scope(*this, "download");
    require_device_memory(m, "the matrix", "download");
    Matrix out(m.rows(), m.cols());
    copy_to_host(out.data(), m.data(), static_cast<std::size_t>(m.size()));
    sync();
    return out;
}

}  // namespace cuda_detail

namespace {

// The driver's and the toolkit's CUDA versions (0 where the driver cannot say).
std::pair<int, int> cuda_versions() {
    int driver = 0;
    int runtime = 0;
    if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
    if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) runtime = CUDART_VERSION;
    (void)cudaGetLastError();
    return {driver, runtime};
}

std::unique_ptr<Backend> make_backend_on(int device) {
    const auto [driver, runtime] = cuda_versions();
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        const std::string old_driver =
            driver > 0 ? cuda_driver_incompatibility(driver, runtime) : std::string();
        if (!old_driver.empty()) throw CudaError("make_cuda_backend: " + old_driver);
        throw CudaError(std::string("make_cuda_backend: no usable CUDA device (") +
                        cudaGetErrorName(err) + ": " + cudaGetErrorString(err) + ")");
    }
    if (device < 0 || device >= count) {
        throw CudaError("make_cuda_backend: CUDA device " + std::to_string(device) +
                        " does not exist (" + std::to_string(count) + " present)");
    }
    cudaDeviceProp prop{};
    ZN_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
    CudaDeviceDescription description;
    description.index = device;
    description.name = prop.name;
    description.major = prop.major;
    description.minor = prop.minor;
    description.driver_version = driver;
    description.runtime_version = runtime;
    const std::string incompatible = cuda_incompatibility(
        description, parse_cuda_architectures(cuda_architectures_built()));
    if (!incompatible.empty()) throw CudaError("make_cuda_backend: " + incompatible);
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

// The module's one export (src/core/cuda_module.hpp); everything else in it is hidden.
extern "C" __attribute__((visibility("default"))) const zeronorm::cuda_module::Entry*
zeronorm_cuda_module_entry() {
    static const zeronorm::cuda_module::Entry entry{zeronorm::cuda_module::abi_version,
                                                    ZERONORM_CUDA_MODULE_KEY,
                                                    &zeronorm::make_backend_on,
                                                    &zeronorm::device_count};
    return &entry;
}
