#include "blas_threads.hpp"

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
