#include "blas_threads.hpp"

#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/cpu_blas.hpp"
#include "zeronorm/core/error.hpp"

#include <algorithm>
#include <array>
#include <mutex>

#ifdef ZERONORM_WITH_OPENBLAS
extern "C" {
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
char* openblas_get_corename(void);
}
#endif

namespace zeronorm::cpu {
namespace {
// The BLAS thread count is process-wide: nested or concurrent scopes share one saved value.
std::mutex scope_mutex;
int open_scopes = 0;
int saved_threads = 1;
}  // namespace

SingleThreadedBlas::SingleThreadedBlas() {
    std::lock_guard<std::mutex> lock(scope_mutex);
#ifdef ZERONORM_WITH_OPENBLAS
    if (open_scopes == 0) {
        saved_threads = openblas_get_num_threads();
        openblas_set_num_threads(1);
    }
#endif
    ++open_scopes;
}

SingleThreadedBlas::~SingleThreadedBlas() {
    std::lock_guard<std::mutex> lock(scope_mutex);
    --open_scopes;
#ifdef ZERONORM_WITH_OPENBLAS
    if (open_scopes == 0) openblas_set_num_threads(saved_threads);
#else
    (void)saved_threads;
#endif
}

}  // namespace zeronorm::cpu

namespace zeronorm {

void set_cpu_blas_threads(int threads) {
    ZN_EXPECTS(threads >= 1, "set_cpu_blas_threads: threads must be >= 1, got " << threads);
    std::lock_guard<std::mutex> lock(cpu::scope_mutex);
#ifdef ZERONORM_WITH_OPENBLAS
    if (cpu::open_scopes == 0)
        openblas_set_num_threads(threads);
    else
        cpu::saved_threads = threads;  // applies when the single-threaded regions end
#endif
}

}  // namespace zeronorm

namespace zeronorm {

std::string cpu_blas_kernels() {
#ifdef ZERONORM_WITH_OPENBLAS
    const char* name = openblas_get_corename();
    return name != nullptr ? std::string(name) : std::string("unknown");
#else
    return "Eigen";
#endif
}

std::string better_blas_coretype() {
#if defined(ZERONORM_WITH_OPENBLAS) && (defined(__x86_64__) || defined(__i386__))
    // OpenBLAS's x86 kernels without AVX: what it loads for a processor it does not know.
    static constexpr std::array<const char*, 6> sse_era = {"Prescott", "Core2",     "Penryn",
                                                           "Dunnington", "Nehalem", "Atom"};
    const std::string loaded = cpu_blas_kernels();
    if (std::find(sse_era.begin(), sse_era.end(), loaded) == sse_era.end()) return "";
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        return "SkylakeX";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
#endif
    return "";
}

}  // namespace zeronorm
