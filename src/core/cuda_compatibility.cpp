#include "zeronorm/core/cuda_compatibility.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#ifndef ZERONORM_CUDA_ARCHITECTURES
#define ZERONORM_CUDA_ARCHITECTURES ""
#endif

namespace zeronorm {
namespace {

// CMake's list, its entries separated by ';' (or ',' as the build records it).
std::vector<std::string> split_list(std::string text) {
    std::replace(text.begin(), text.end(), ',', ';');
    std::vector<std::string> parts;
    std::string part;
    std::istringstream in(text);
    while (std::getline(in, part, ';'))
        if (!part.empty()) parts.push_back(part);
    return parts;
}

bool all_digits(const std::string& s) {
    return !s.empty() && s.size() <= 4 &&
           std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

std::string version_text(int version) {
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

}  // namespace

std::vector<CudaArchitecture> parse_cuda_architectures(const std::string& cmake_list) {
    std::vector<CudaArchitecture> out;
    for (const auto& entry : split_list(cmake_list)) {
        const auto dash = entry.find('-');
        const std::string number = entry.substr(0, dash);
        const std::string kind = dash == std::string::npos ? "" : entry.substr(dash + 1);
        if (!all_digits(number) || (kind != "" && kind != "real" && kind != "virtual")) return {};
        const int capability = std::stoi(number);
        if (kind != "virtual") out.push_back({capability, false});
        if (kind != "real") out.push_back({capability, true});
    }
    return out;
}

std::string describe_cuda_architectures(const std::vector<CudaArchitecture>& architectures) {
    std::string sass;
    std::string ptx;
    for (const auto& a : architectures) {
        auto& text = a.ptx ? ptx : sass;
        text += (text.empty() ? "" : " ") + std::string(a.ptx ? "compute_" : "sm_") +
                std::to_string(a.capability);
    }
    if (sass.empty() && ptx.empty()) return "none known";
    if (ptx.empty()) return sass;
    return sass.empty() ? "PTX " + ptx : sass + " + PTX " + ptx;
}

std::string cuda_driver_incompatibility(int driver_version, int runtime_version) {
    if (driver_version / 1000 >= runtime_version / 1000) return {};
    return "the NVIDIA driver supports CUDA " + version_text(driver_version) +
           ", older than the CUDA " + version_text(runtime_version) +
           " this build of zeronorm was compiled with: update the driver (CUDA " +
           std::to_string(runtime_version / 1000) +
           ".x drivers), or build zeronorm with a CUDA toolkit no newer than " +
           version_text(driver_version);
}

std::string cuda_incompatibility(const CudaDeviceDescription& device,
                                 const std::vector<CudaArchitecture>& carried) {
    const std::string driver = cuda_driver_incompatibility(device.driver_version,
                                                           device.runtime_version);
    if (!driver.empty()) return driver;
    if (carried.empty()) return {};
    const int capability = 10 * device.major + device.minor;
    bool sass = false;
    bool ptx = false;
    for (const auto& a : carried) {
        if (a.ptx)
            ptx = ptx || a.capability <= capability;
        else
            sass = sass || (a.capability / 10 == device.major && a.capability <= capability);
    }
    const std::string what = "CUDA device " + std::to_string(device.index) + " (" + device.name +
                             ", sm_" + std::to_string(capability) + ")";
    const std::string rebuild = "; rebuild with -DCMAKE_CUDA_ARCHITECTURES=" +
                                std::to_string(capability) +
                                " (or leave it unset on a machine with this card, or add " +
                                std::to_string(capability) + " to the list)";
    if (sass) return {};
    if (ptx && device.driver_version >= device.runtime_version) return {};
    if (ptx) {
        return what + " has no kernels compiled for it in this build (" +
               describe_cuda_architectures(carried) + "), and its PTX cannot be compiled by a "
               "driver (CUDA " + version_text(device.driver_version) +
               ") older than the toolkit (CUDA " + version_text(device.runtime_version) +
               "): update the driver" + rebuild;
    }
    return what + " cannot run this build of zeronorm: it carries kernels for " +
           describe_cuda_architectures(carried) + " only" + rebuild;
}

std::string cuda_architectures_built() {
    std::string list = ZERONORM_CUDA_ARCHITECTURES;
    std::replace(list.begin(), list.end(), ',', ';');
    return list;
}

}  // namespace zeronorm
