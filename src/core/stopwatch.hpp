// Wall-clock time since construction, for the `seconds` field of the results. Not installed.
#pragma once

#include <chrono>

namespace zeronorm {

class Stopwatch {
public:
    double seconds() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }

private:
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace zeronorm
