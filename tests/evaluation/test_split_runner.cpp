// run_per_split (src/evaluation/split_runner.hpp): as many worker backends as the threads and the
// backend's limit allow, each task run and reported once, and the tasks a worker could not fit
// in device memory run again in order on the backend itself.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "evaluation/split_runner.hpp"
#include "support/capability_backend.hpp"
#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm {
namespace {

struct Runs {
    explicit Runs(std::size_t n) : on_worker(n), on_parent(n), reported(n, 0) {}
    std::vector<std::atomic<int>> on_worker, on_parent;
    std::vector<int> reported;  // under run_per_split's serialised done()
};

// Runs n tasks; throw_at(t, on_worker) may throw from task t.
template <class Throw>
void run(testing::CapabilityBackend& backend, std::size_t n, int threads, Runs& runs,
         const Throw& throw_at) {
    detail::run_per_split(
        backend, n, threads,
        [&](Backend& on, std::size_t t) {
            const bool worker = &on != &backend;
            throw_at(t, worker);
            ++(worker ? runs.on_worker : runs.on_parent)[t];
        },
        [&](std::size_t t) { ++runs.reported[t]; });
}

TEST(RunPerSplit, WorkersWithinTheThreadsAndTheBackendsLimit) {
    struct Case {
        unsigned limit;
        int threads;
        std::size_t tasks;
        int workers;  // worker backends made (0: in order on the backend itself)
    };
    for (const Case c : {Case{1, 4, 6, 0}, Case{2, 4, 6, 2}, Case{0, 3, 6, 3}, Case{0, 4, 2, 2},
                         Case{0, 1, 6, 1}, Case{3, 1, 6, 0}, Case{16, 5, 6, 5}}) {
        SCOPED_TRACE(::testing::Message() << "limit " << c.limit << ", threads " << c.threads
                                          << ", tasks " << c.tasks);
        testing::CapabilityBackend backend(make_backend(BackendKind::Cpu),
                                           testing::capabilities(false, c.limit));
        Runs runs(c.tasks);
        run(backend, c.tasks, c.threads, runs, [](std::size_t, bool) {});
        EXPECT_EQ(backend.counters().workers, c.workers);
        if (c.workers > 0) {
            EXPECT_EQ(backend.counters().of_workers, unsigned(c.workers));
        }
        for (std::size_t t = 0; t < c.tasks; ++t) {
            EXPECT_EQ(runs.on_worker[t] + runs.on_parent[t], 1) << t;
            EXPECT_EQ(runs.on_parent[t], c.workers == 0 ? 1 : 0) << t;
            EXPECT_EQ(runs.reported[t], 1) << t;
        }
    }
}

TEST(RunPerSplit, AWorkerIsOneOfAtLeastOne) {
    EXPECT_THROW(make_backend(BackendKind::Cpu)->make_worker(0), InvalidArgument);
    EXPECT_NE(make_backend(BackendKind::Cpu)->make_worker(1), nullptr);
}

TEST(RunPerSplit, OutOfDeviceMemoryOnAWorkerRunsTheRestInOrderOnTheBackend) {
    testing::CapabilityBackend backend(make_backend(BackendKind::Cpu),
                                       testing::capabilities(false, 4));
    const std::size_t n = 40;
    Runs runs(n);
    run(backend, n, 4, runs, [](std::size_t t, bool worker) {
        if (worker && t == 7) throw OutOfDeviceMemory(std::size_t{1} << 30);
    });
    EXPECT_EQ(backend.counters().workers, 4);
    EXPECT_EQ(runs.on_parent[7], 1);
    for (std::size_t t = 0; t < n; ++t) {
        EXPECT_EQ(runs.on_worker[t] + runs.on_parent[t], 1) << t;
        EXPECT_EQ(runs.reported[t], 1) << t;
    }
    // A library's own allocation (cuBLAS, cuSOLVER handles) failing is the same error.
    const OutOfDeviceMemory library("cublasCreate(&blas_) [cuda_backend.cpp:1]");
    EXPECT_EQ(library.bytes_requested(), 0u);
    EXPECT_NE(std::string(library.what()).find("cublasCreate(&blas_)"), std::string::npos);
    EXPECT_NE(std::string(library.what()).find("out of device memory"), std::string::npos);
    Runs after_library(n);
    run(backend, n, 4, after_library, [&](std::size_t t, bool worker) {
        if (worker && t == 0) throw library;
    });
    EXPECT_EQ(after_library.on_parent[0], 1);
    EXPECT_EQ(after_library.reported, std::vector<int>(n, 1));
    // Where it fails on the backend itself too, the error reaches the caller.
    Runs again(n);
    EXPECT_THROW(run(backend, n, 4, again,
                     [](std::size_t t, bool) {
                         if (t == 7) throw OutOfDeviceMemory(std::size_t{1} << 30);
                     }),
                 OutOfDeviceMemory);
}

TEST(RunPerSplit, OtherErrorsStopTheRun) {
    for (const unsigned limit : {1u, 4u}) {
        testing::CapabilityBackend backend(make_backend(BackendKind::Cpu),
                                           testing::capabilities(false, limit));
        Runs runs(20);
        EXPECT_THROW(run(backend, 20, 4, runs,
                         [](std::size_t t, bool) {
                             if (t == 3) throw InvalidArgument("task 3");
                         }),
                     InvalidArgument);
        EXPECT_EQ(runs.on_parent[3] + runs.on_worker[3], 0);
        EXPECT_EQ(runs.reported[3], 0);
    }
}

}  // namespace
}  // namespace zeronorm
