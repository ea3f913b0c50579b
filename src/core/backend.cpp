#include "zeronorm/core/backend.hpp"

#include "zeronorm/core/error.hpp"

namespace zeronorm {

DeviceMatrix DeviceMatrix::reshaped(Index rows, Index cols) const {
    ZN_EXPECTS_DIM(rows >= 0 && cols >= 0 && rows * cols == size(),
                   "DeviceMatrix::reshaped: a " << rows_ << " x " << cols_ << " matrix read as "
                                                << rows << " x " << cols);
    return DeviceMatrix(storage_, rows, cols);
}

BackendKind parse_backend_kind(const std::string& name) {
    if (name == "cpu") return BackendKind::Cpu;
    if (name == "cuda" || name == "gpu") return BackendKind::Cuda;
    throw InvalidArgument("unknown backend '" + name + "' (expected cpu or cuda)");
}

std::string to_string(BackendKind kind) { return kind == BackendKind::Cpu ? "cpu" : "cuda"; }

std::unique_ptr<Backend> make_backend(BackendKind kind, int device) {
    if (kind == BackendKind::Cpu) return make_cpu_backend();
    return make_cuda_backend(device);
}

}  // namespace zeronorm
