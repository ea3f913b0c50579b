// Which CUDA devices a build can run on. A cubin (SASS) compiled for sm_XY runs on devices of
// compute capability X.Z with Z >= Y; PTX for compute_XY is compiled by the driver for any device
// of capability >= X.Y, provided the driver is at least as new as the toolkit that wrote it. The
// CUDA backend checks a device against these rules before its first launch, so a card the build
// does not carry gets one message naming the card, the build and the fix, not a launch error deep
// inside a solver.
#pragma once

#include <string>
#include <vector>

namespace zeronorm {

// One compiled form of the kernels.
struct CudaArchitecture {
    int capability = 0;  // 10 * major + minor: 86 for sm_86
    bool ptx = false;    // PTX for compute_<capability>, else SASS for sm_<capability>
};

// CMake's CUDA_ARCHITECTURES list: "86" is SASS and PTX, "86-real" SASS only, "86-virtual" PTX
// only ("75-real;80-real;86-real;89-real;90"). The special values (all, all-major, native) and
// malformed entries give an empty list: the build's contents are then not known by number.
std::vector<CudaArchitecture> parse_cuda_architectures(const std::string& cmake_list);

// "sm_75 sm_80 sm_86 sm_89 sm_90 + PTX compute_90" (or "none known" for an empty list).
std::string describe_cuda_architectures(const std::vector<CudaArchitecture>& architectures);

// What the CUDA backend knows of a device and the driver before it launches anything.
struct CudaDeviceDescription {
    int index = 0;
    std::string name;
    int major = 0;
    int minor = 0;
    int driver_version = 0;   // cudaDriverGetVersion: 1000 * major + 10 * minor (13000 = 13.0)
    int runtime_version = 0;  // the CUDA toolkit the kernels were built with, same encoding
};

// Empty when a driver of `driver_version` runs code built with `runtime_version` (any minor of
// the same major, CUDA's minor-version compatibility); otherwise the message naming both.
std::string cuda_driver_incompatibility(int driver_version, int runtime_version);

// Empty when the kernels in `carried` run on `device`: SASS of the device's major version at or
// below its minor, or PTX at or below its capability (JIT-compiled, which needs a driver no older
// than the toolkit). Otherwise one message: the device's name and sm_XY, what the build carries,
// and the CMake option to rebuild with. An empty `carried` (special CMake values) passes: the
// kernel image is then checked by loading it.
std::string cuda_incompatibility(const CudaDeviceDescription& device,
                                 const std::vector<CudaArchitecture>& carried);

// The CUDA_ARCHITECTURES this build's CUDA module was compiled for, as CMake listed them; empty
// in a build without CUDA.
std::string cuda_architectures_built();

}  // namespace zeronorm
