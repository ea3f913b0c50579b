#include "blas_threads.hpp"

#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/error.hpp"

#include <mutex>

#ifdef ZERONORM_WITH_OPENBLAS
extern "C" {
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
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
