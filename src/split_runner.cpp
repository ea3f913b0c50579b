#include "split_runner.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "cpu_fallback/blas_threads.hpp"
#include "zeronorm/error.hpp"
#include "zeronorm/preprocess.hpp"

namespace zeronorm::detail {

void run_per_split(BackendKind kind, int device, std::size_t n_tasks, int threads,
                   const std::function<void(Backend&, std::size_t)>& task,
                   const std::function<void(std::size_t)>& done) {
    unsigned workers = 1;
    if (kind == BackendKind::Cpu) {
        workers = threads > 0 ? unsigned(threads) : std::max(1u, std::thread::hardware_concurrency());
        workers = unsigned(std::min<std::size_t>(workers, std::max<std::size_t>(n_tasks, 1)));
    }
    std::atomic<std::size_t> next{0};
    std::mutex mutex;
    std::exception_ptr failure;
    auto worker = [&] {
        try {
            auto backend = make_backend(kind, device);
            for (std::size_t t = next++; t < n_tasks; t = next++) {
                task(*backend, t);
                std::lock_guard<std::mutex> lock(mutex);
                if (done) done(t);
            }
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex);
            if (!failure) failure = std::current_exception();
            next = n_tasks;  // stop the other workers early
        }
    };
    // One BLAS thread per problem on the CPU, whatever the worker count: the workers fill the
    // cores, and every split computes the same way however many run at once.
    std::optional<cpu::SingleThreadedBlas> one_blas_thread;
    if (kind == BackendKind::Cpu) one_blas_thread.emplace();
    std::vector<std::thread> pool;
    for (unsigned w = 1; w < workers; ++w) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    if (failure) std::rethrow_exception(failure);
}

void check_splits(const std::vector<Fold>& splits, Index n_rows, const char* where) {
    ZN_EXPECTS(!splits.empty(), where << ": no splits given");
    for (std::size_t f = 0; f < splits.size(); ++f) {
        ZN_EXPECTS(!splits[f].train.empty() && !splits[f].test.empty(),
                   where << ": split " << f + 1 << " has an empty "
                         << (splits[f].train.empty() ? "training" : "test") << " part");
        for (const IndexVector* part : {&splits[f].train, &splits[f].test})
            for (const Index r : *part)
                ZN_EXPECTS(r >= 0 && r < n_rows, where << ": split " << f + 1 << " holds row " << r
                                                       << ", out of range for " << n_rows
                                                       << " samples");
    }
}

TrainTest split_data(const Dataset& data, const Fold& split, bool standardize) {
    TrainTest out{data.subset(split.train), data.subset(split.test)};
    if (standardize) {
        const Standardizer s = Standardizer::fit(out.train.X);
        out.train.X = s.transform(out.train.X);
        out.test.X = s.transform(out.test.X);
    }
    return out;
}

MeanAndError mean_and_std_error(const std::vector<double>& values) {
    MeanAndError out;
    if (values.empty()) return out;
    const double k = double(values.size());
    for (const double v : values) out.mean += v;
    out.mean /= k;
    if (values.size() > 1) {
        double ss = 0.0;
        for (const double v : values) ss += (v - out.mean) * (v - out.mean);
        out.std_error = std::sqrt(ss / (k - 1.0)) / std::sqrt(k);
    }
    return out;
}

}  // namespace zeronorm::detail
