// Error checking for CUDA runtime, cuBLAS and cuSOLVER calls: every failing call becomes a
// zeronorm::CudaError carrying the call text, file, line and the library's error name/string;
// a failed allocation becomes zeronorm::OutOfDeviceMemory with the bytes that were asked for.
//
// Host-only (no device code), so it is usable from both nvcc (.cu) and the host compiler (.cpp).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "core/launch_rules.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm::cuda_detail {

inline const char* cusolver_status_name(cusolverStatus_t status) {
    switch (status) {
        case CUSOLVER_STATUS_SUCCESS: return "CUSOLVER_STATUS_SUCCESS";
        case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
        case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
        case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
        case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
        case CUSOLVER_STATUS_MAPPING_ERROR: return "CUSOLVER_STATUS_MAPPING_ERROR";
        case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
        case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
        case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED:
            return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
        case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
        case CUSOLVER_STATUS_ZERO_PIVOT: return "CUSOLVER_STATUS_ZERO_PIVOT";
        case CUSOLVER_STATUS_INVALID_LICENSE: return "CUSOLVER_STATUS_INVALID_LICENSE";
        case CUSOLVER_STATUS_INVALID_WORKSPACE: return "CUSOLVER_STATUS_INVALID_WORKSPACE";
        default: return "CUSOLVER_STATUS_(other)";
    }
}

inline std::string where(const char* call, const char* file, int line) {
    std::ostringstream os;
    os << call << " [" << file << ":" << line << "]";
    return os.str();
}

// `bytes` is the size of the allocation when `call` allocates, else 0.
[[noreturn]] inline void throw_cuda(cudaError_t err, const char* call, const char* file, int line,
                                    std::size_t bytes = 0) {
    // Reset the runtime's non-sticky "last error" so that a later cudaGetLastError() after a
    // kernel launch does not report this (already reported) failure again.
    (void)cudaGetLastError();
    if (err == cudaErrorMemoryAllocation) throw OutOfDeviceMemory(bytes);
    std::ostringstream os;
    os << "CUDA error " << cudaGetErrorName(err) << " (" << cudaGetErrorString(err)
       << ") in " << where(call, file, line);
    throw CudaError(os.str());
}

// A library's failure to allocate its own memory is OutOfDeviceMemory, as the runtime's is (a
// parallel schedule falls back to one split at a time on it).
[[noreturn]] inline void throw_cublas(cublasStatus_t status, const char* call, const char* file,
                                      int line) {
    if (status == CUBLAS_STATUS_ALLOC_FAILED) throw OutOfDeviceMemory(where(call, file, line));
    std::ostringstream os;
    os << "cuBLAS error " << cublasGetStatusName(status) << " (" << cublasGetStatusString(status)
       << ") in " << where(call, file, line);
    throw CudaError(os.str());
}

[[noreturn]] inline void throw_cusolver(cusolverStatus_t status, const char* call,
                                        const char* file, int line) {
    if (status == CUSOLVER_STATUS_ALLOC_FAILED) throw OutOfDeviceMemory(where(call, file, line));
    std::ostringstream os;
    os << "cuSOLVER error " << cusolver_status_name(status) << " (code "
       << static_cast<int>(status) << ") in " << where(call, file, line);
    throw CudaError(os.str());
}

using launch_rules::one_block_each;

}  // namespace zeronorm::cuda_detail

#define ZN_CUDA_TRY(call)                                                                   \
    do {                                                                                    \
        const cudaError_t zn_err_ = (call);                                                 \
        if (zn_err_ != cudaSuccess)                                                         \
            ::zeronorm::cuda_detail::throw_cuda(zn_err_, #call, __FILE__, __LINE__);        \
    } while (0)

// As ZN_CUDA_TRY, for a call that allocates `bytes` bytes (cudaErrorMemoryAllocation then
// becomes OutOfDeviceMemory(bytes)).
#define ZN_CUDA_TRY_ALLOC(call, bytes)                                                      \
    do {                                                                                    \
        const cudaError_t zn_err_ = (call);                                                 \
        if (zn_err_ != cudaSuccess)                                                         \
            ::zeronorm::cuda_detail::throw_cuda(zn_err_, #call, __FILE__, __LINE__,         \
                                                (bytes));                                   \
    } while (0)

#define ZN_CUBLAS_TRY(call)                                                                 \
    do {                                                                                    \
        const cublasStatus_t zn_st_ = (call);                                               \
        if (zn_st_ != CUBLAS_STATUS_SUCCESS)                                                \
            ::zeronorm::cuda_detail::throw_cublas(zn_st_, #call, __FILE__, __LINE__);       \
    } while (0)

#define ZN_CUSOLVER_TRY(call)                                                               \
    do {                                                                                    \
        const cusolverStatus_t zn_st_ = (call);                                             \
        if (zn_st_ != CUSOLVER_STATUS_SUCCESS)                                              \
            ::zeronorm::cuda_detail::throw_cusolver(zn_st_, #call, __FILE__, __LINE__);     \
    } while (0)

// After a kernel launch (`kernel_name` a string literal): reports a bad launch configuration;
// execution errors surface at the next synchronisation.
#define ZN_CUDA_CHECK_LAUNCH(kernel_name)                                                   \
    do {                                                                                    \
        const cudaError_t zn_err_ = cudaGetLastError();                                     \
        if (zn_err_ != cudaSuccess)                                                         \
            ::zeronorm::cuda_detail::throw_cuda(zn_err_, "launch of " kernel_name, __FILE__, \
                                                __LINE__);                                  \
    } while (0)
