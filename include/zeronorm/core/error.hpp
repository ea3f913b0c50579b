// Errors raised by zeronorm. Bad input is an exception of one library type; how an
// algorithm ended (converged, hit its cap) is a Status in the result, never an exception.
#pragma once

#include <cstddef>
#include <sstream>
#include <stdexcept>
#include <string>

namespace zeronorm {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A caller passed an argument outside its domain (C <= 0, r > d, ...).
class InvalidArgument : public Error {
public:
    using Error::Error;
};

// Sizes of two inputs do not fit together.
class DimensionMismatch : public Error {
public:
    using Error::Error;
};

// A data or model file is malformed; the message carries file:line:column.
class DataFormatError : public Error {
public:
    DataFormatError(const std::string& file, std::size_t line, std::size_t column,
                    const std::string& what)
        : Error(file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what),
          file_(file), line_(line), column_(column) {}
    const std::string& file() const { return file_; }
    std::size_t line() const { return line_; }
    std::size_t column() const { return column_; }

private:
    std::string file_;
    std::size_t line_;
    std::size_t column_;
};

// An output (a model file, a results file, standard output) cannot be written: the target is
// not a writable regular file, or the write itself failed (disk full, I/O error).
class OutputError : public Error {
public:
    using Error::Error;
};

// A computation met a numerical failure it cannot recover from (NaN, singular system).
class NumericalError : public Error {
public:
    using Error::Error;
};

// The requested backend was not compiled into this build.
class NotCompiled : public Error {
public:
    using Error::Error;
};

// A CUDA runtime / cuBLAS / cuSOLVER call failed.
class CudaError : public Error {
public:
    using Error::Error;
};

// A device allocation failed; bytes_requested says how much was asked for (0 where a library
// such as cuBLAS could not allocate its own memory and does not say how much: `call` names it).
class OutOfDeviceMemory : public CudaError {
public:
    explicit OutOfDeviceMemory(std::size_t bytes_requested)
        : CudaError("out of device memory: failed to allocate " + std::to_string(bytes_requested) +
                    " bytes"),
          bytes_requested_(bytes_requested) {}
    explicit OutOfDeviceMemory(const std::string& call)
        : CudaError("out of device memory: " + call + " could not allocate its device memory"),
          bytes_requested_(0) {}
    std::size_t bytes_requested() const { return bytes_requested_; }

private:
    std::size_t bytes_requested_;
};

namespace detail {
template <class E>
[[noreturn]] inline void raise(const char* file, int line, const std::string& msg) {
    std::ostringstream os;
    os << msg << " [" << file << ":" << line << "]";
    throw E(os.str());
}
}  // namespace detail

}  // namespace zeronorm

// Throws InvalidArgument with the given message (stream syntax allowed) unless cond holds.
#define ZN_EXPECTS(cond, msg)                                                              \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            std::ostringstream zn_os_;                                                     \
            zn_os_ << msg;                                                                 \
            throw ::zeronorm::InvalidArgument(zn_os_.str());                               \
        }                                                                                  \
    } while (0)

#define ZN_EXPECTS_DIM(cond, msg)                                                          \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            std::ostringstream zn_os_;                                                     \
            zn_os_ << msg;                                                                 \
            throw ::zeronorm::DimensionMismatch(zn_os_.str());                             \
        }                                                                                  \
    } while (0)
