// Build with CUDA: the CUDA backend lives in libzeronorm_cuda.so, loaded here on first use (see
// cuda_module.hpp), so a CPU run maps none of cuBLAS, cuSOLVER or the CUDA runtime.
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/cuda_module.hpp"
#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm {
namespace cuda_module {
namespace {

const char anchor = 0;  // an address inside the object that holds zeronorm

std::string directory_of(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

// The directory of the executable or shared object this code was linked into.
std::string own_directory() {
    Dl_info info{};
    link_map* map = nullptr;
    if (dladdr1(&anchor, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) != 0 &&
        map != nullptr && map->l_name != nullptr && map->l_name[0] != '\0')
        return directory_of(map->l_name);
    // The main program (its link map has no name): the path the kernel resolved.
    std::string exe(4096, '\0');
    const ssize_t length = readlink("/proc/self/exe", exe.data(), exe.size());
    if (length <= 0) return {};
    exe.resize(static_cast<std::size_t>(length));
    return directory_of(exe);
}

// The directories the dynamic loader searches for the program's libraries (LD_LIBRARY_PATH,
// its RUNPATH, the system directories), those that exist.
std::vector<std::string> loader_search_directories() {
    std::vector<std::string> dirs;
    void* program = dlopen(nullptr, RTLD_LAZY);
    if (program == nullptr) return dirs;
    Dl_serinfo size{};
    if (dlinfo(program, RTLD_DI_SERINFOSIZE, &size) == 0) {
        std::unique_ptr<Dl_serinfo, decltype(&std::free)> info(
            static_cast<Dl_serinfo*>(std::malloc(size.dls_size)), &std::free);
        if (info) {
            info->dls_size = size.dls_size;
            info->dls_cnt = size.dls_cnt;
            if (dlinfo(program, RTLD_DI_SERINFO, info.get()) == 0) {
                const Dl_serpath* paths = info->dls_serpath;
                for (unsigned i = 0; i < info->dls_cnt; ++i) dirs.emplace_back(paths[i].dls_name);
            }
        }
    }
    dlclose(program);
    return dirs;
}

bool file_exists(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

std::string dlerror_text() {
    const char* text = dlerror();
    return text != nullptr ? text : "unknown dlopen error";
}

// Opens `path` and returns its table, or an empty pointer with `why` set.
const Entry* open_module(const std::string& path, const std::string& build_key, std::string& why) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        why = dlerror_text();
        return nullptr;
    }
    void* symbol = dlsym(handle, entry_symbol);
    const Entry* entry = symbol != nullptr ? reinterpret_cast<EntryFunction>(symbol)() : nullptr;
    if (entry == nullptr) {
        why = std::string("no ") + entry_symbol + " (not a zeronorm CUDA module)";
    } else if (entry->abi_version != abi_version) {
        why = "module ABI " + std::to_string(entry->abi_version) + ", this zeronorm needs " +
              std::to_string(abi_version);
    } else if (build_key != entry->build_key) {
        why = std::string("built for zeronorm ") + entry->build_key + ", this is " + build_key +
              " (a stale module: rebuild or reinstall it)";
    } else {
        return entry;  // kept loaded for the life of the process
    }
    dlclose(handle);
    return nullptr;
}

const Loaded& loaded() {
    static const Loaded module = load_first(candidate_paths(), ZERONORM_CUDA_MODULE_KEY);
    return module;
}

}  // namespace

std::vector<std::string> candidate_paths() {
    if (const char* chosen = std::getenv(path_variable); chosen != nullptr && *chosen != '\0')
        return {chosen};
    std::vector<std::string> dirs;
    const std::string own = own_directory();
    if (!own.empty()) {
        dirs.push_back(own);
        dirs.push_back(own + "/" ZERONORM_BINDIR_TO_LIBDIR);
    }
    for (auto& dir : loader_search_directories()) dirs.push_back(std::move(dir));
    dirs.emplace_back(ZERONORM_INSTALL_LIBDIR);
    return module_paths_in(dirs);
}

std::vector<std::string> module_paths_in(const std::vector<std::string>& dirs) {
    std::vector<std::string> paths;
    for (const auto& dir : dirs) {
        // An empty or relative entry (a RUNPATH padded with ':') would mean the working directory.
        if (dir.empty() || dir[0] != '/') continue;
        std::string path = dir + "/" + file_name;
        if (std::find(paths.begin(), paths.end(), path) == paths.end())
            paths.push_back(std::move(path));
    }
    return paths;
}

Loaded load_first(const std::vector<std::string>& paths, const std::string& build_key) {
    Loaded result;
    for (const auto& path : paths) {
        std::string why = "not found";
        if (file_exists(path)) {
            result.entry = open_module(path, build_key, why);
            if (result.entry != nullptr) {
                result.path = path;
                result.failure.clear();
                return result;
            }
        }
        result.failure += (result.failure.empty() ? "" : "; ") + path + ": " + why;
    }
    return result;
}

}  // namespace cuda_module

std::unique_ptr<Backend> make_cuda_backend(int device) {
    const auto& module = cuda_module::loaded();
    if (module.entry == nullptr) {
        throw NotCompiled(std::string("the CUDA backend module (") + cuda_module::file_name +
                          ") could not be loaded; tried " + module.failure + " (set " +
                          cuda_module::path_variable + " to its path)");
    }
    return module.entry->make_backend(device);
}

// Found, not loaded: loading maps the CUDA libraries, which `zeronorm --version` and CPU runs
// should not pay for.
std::string cuda_module_path() {
    for (const auto& path : cuda_module::candidate_paths())
        if (cuda_module::file_exists(path)) return path;
    return {};
}

bool cuda_compiled() { return !cuda_module_path().empty(); }

int cuda_device_count() {
    const auto& module = cuda_module::loaded();
    return module.entry != nullptr ? module.entry->device_count() : 0;
}

}  // namespace zeronorm
