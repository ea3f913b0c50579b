// The CUDA backend is a separately built module (libzeronorm_cuda.so) that the core loads with
// dlopen the first time the CUDA backend is asked for, so CPU runs neither load nor need the CUDA
// libraries. The module exports one extern "C" function returning the table below; the loader
// refuses a module whose table was built for another ABI or from other public headers (a stale
// module would otherwise call through a different Backend vtable).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "zeronorm/core/backend.hpp"

namespace zeronorm::cuda_module {

// Bumped whenever Entry changes.
inline constexpr int abi_version = 1;
inline constexpr const char* entry_symbol = "zeronorm_cuda_module_entry";
inline constexpr const char* file_name = "libzeronorm_cuda.so";
// Names the module file to load, instead of the search below.
inline constexpr const char* path_variable = "ZERONORM_CUDA_MODULE";

struct Entry {
    int abi_version;
    // The zeronorm version and a hash of the public headers (ZERONORM_CUDA_MODULE_KEY).
    const char* build_key;
    // May throw the zeronorm::Error hierarchy (CudaError when the device is missing).
    std::unique_ptr<Backend> (*make_backend)(int device);
    int (*device_count)();
};

using EntryFunction = const Entry* (*)();

// Where the module is looked for, in order: $ZERONORM_CUDA_MODULE alone when it is set; else
// the directory of the executable (or shared object) holding zeronorm and its ../lib, the
// dynamic loader's search path of the program (LD_LIBRARY_PATH, RUNPATH, system directories),
// and the install libdir.
std::vector<std::string> candidate_paths();
// The module's path in each absolute directory of `dirs`, without repeats.
std::vector<std::string> module_paths_in(const std::vector<std::string>& dirs);

struct Loaded {
    const Entry* entry = nullptr;  // null when no candidate loaded
    std::string path;              // the module loaded
    std::string failure;           // otherwise: every path tried and why it was refused
};

// Loads the first candidate that opens and carries `build_key` (the handle is never closed).
Loaded load_first(const std::vector<std::string>& paths, const std::string& build_key);

}  // namespace zeronorm::cuda_module
