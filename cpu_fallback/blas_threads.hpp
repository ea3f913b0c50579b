#pragma once
// OpenBLAS runs its own thread pool inside each product. Where zeronorm already runs one problem
// per core (the per-split schedules' workers), that would oversubscribe the cores, so each
// worker's backend (Backend::make_worker) holds a SingleThreadedBlas. Without OpenBLAS this is a
// no-op.

namespace zeronorm::cpu {

class SingleThreadedBlas {
public:
    SingleThreadedBlas();
    ~SingleThreadedBlas();
    SingleThreadedBlas(const SingleThreadedBlas&) = delete;
    SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;
};

}  // namespace zeronorm::cpu
