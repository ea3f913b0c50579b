#include "core/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace zeronorm::detail {

namespace {

// True on the threads of a pool.
thread_local bool inside_pool = false;

}  // namespace

void run_pool(std::size_t count, unsigned workers,
              const std::function<std::function<void(std::size_t)>()>& make_body) {
    std::atomic<std::size_t> next{0};
    std::mutex mutex;
    std::exception_ptr failure;
    auto worker = [&] {
        const bool outer = inside_pool;
        inside_pool = true;
        try {
            const std::function<void(std::size_t)> body = make_body();
            for (std::size_t i = next++; i < count; i = next++) body(i);
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex);
            if (!failure) failure = std::current_exception();
            next = count;
        }
        inside_pool = outer;
    };
    std::vector<std::thread> pool;
    for (unsigned w = 1; w < workers; ++w) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    if (failure) std::rethrow_exception(failure);
}

unsigned worker_count(int threads, std::size_t count) {
    if (inside_pool) return 1;
    const unsigned w =
        threads > 0 ? unsigned(threads) : std::max(1u, std::thread::hardware_concurrency());
    return unsigned(std::min<std::size_t>(w, std::max<std::size_t>(count, 1)));
}

void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t)>& body) {
    run_pool(count, worker_count(threads, count), [&] { return body; });
}

}  // namespace zeronorm::detail
