// Build without CUDA: the CUDA backend exists as an entry point that says it was not compiled,
// so CPU-only builds link and callers get a clear error.
#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm {

std::unique_ptr<Backend> make_cuda_backend(int /*device*/) {
    throw NotCompiled("the CUDA backend is not compiled into this build of zeronorm "
                      "(configure with -DZERONORM_CUDA=ON on a machine with the CUDA toolkit)");
}

bool cuda_compiled() { return false; }
std::string cuda_module_path() { return {}; }
int cuda_device_count() { return 0; }

}  // namespace zeronorm
