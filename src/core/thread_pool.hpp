// Host threads for independent items: the per-split schedules' workers and the host work
// between batched device calls. A pool started from a worker of another runs inline, since the
// outer one already fills the cores.
#pragma once

#include <cstddef>
#include <functional>

namespace zeronorm::detail {

// `workers` threads (this one included) share the items 0..count-1; each worker first builds its
// own item body (per-worker state such as a backend) with make_body. The first exception stops
// the others early and is rethrown.
void run_pool(std::size_t count, unsigned workers,
              const std::function<std::function<void(std::size_t)>()>& make_body);

// Workers for `count` items: `threads` (0: the hardware's), at most count; 1 inside a pool.
unsigned worker_count(int threads, std::size_t count);

// body(i) for every i < count on up to `threads` host threads (0: hardware concurrency); the
// first exception is rethrown. Called from a worker of a pool, it runs on the calling thread.
void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t)>& body);

}  // namespace zeronorm::detail
