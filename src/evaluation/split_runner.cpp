#include "evaluation/split_runner.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "methods/machine_fits.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/preprocess.hpp"
#include "zeronorm/solvers/svm.hpp"

namespace zeronorm::detail {

namespace {

// True on the threads of a pool: a pool started from one runs its items inline, since the
// outer pool already fills the cores.
thread_local bool inside_pool = false;

// `workers` threads (this one included) share the items 0..count-1; each worker first builds its
// own item body (per-worker state such as a backend) with make_body. The first exception stops
// the others early and is rethrown.
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

}  // namespace

void run_per_split(Backend& backend, std::size_t n_tasks, int threads,
                   const std::function<void(Backend&, std::size_t)>& task,
                   const std::function<void(std::size_t)>& done) {
    const bool parallel = backend.capabilities().parallel_host_workers;
    std::mutex done_mutex;
    run_pool(n_tasks, parallel ? worker_count(threads, n_tasks) : 1,
             [&]() -> std::function<void(std::size_t)> {
                 std::shared_ptr<Backend> worker;
                 if (parallel) worker = backend.make_worker();
                 Backend& own = parallel ? *worker : backend;
                 return [&, worker](std::size_t t) {
                     task(own, t);
                     std::lock_guard<std::mutex> lock(done_mutex);
                     if (done) done(t);
                 };
             });
}

void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t)>& body) {
    run_pool(count, worker_count(threads, count), [&] { return body; });
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

bool runs_batched(EvaluationSchedule schedule, bool preferred, const std::string& not_batched,
                  const char* where) {
    ZN_EXPECTS(schedule != EvaluationSchedule::Batched || not_batched.empty(),
               where << ": the batched schedule cannot run this problem: " << not_batched);
    return schedule == EvaluationSchedule::Batched ||
           (schedule == EvaluationSchedule::Auto && preferred && not_batched.empty());
}

SplitBatch gather_splits(Backend& backend, const DeviceMatrix& X, const Vector& y,
                         const std::vector<Fold>& folds, std::size_t first, std::size_t count,
                         bool standardize) {
    std::vector<IndexVector> train_rows, test_rows;
    for (std::size_t k = first; k < first + count; ++k) {
        train_rows.push_back(folds[k].train);
        test_rows.push_back(folds[k].test);
    }
    SplitBatch batch;
    batch.blocks = backend.split_batch(X, train_rows, test_rows, standardize);
    const auto labels = [&y](const std::vector<IndexVector>& rows) {
        Matrix Y(Index(rows.front().size()), Index(rows.size()));
        for (std::size_t p = 0; p < rows.size(); ++p)
            for (std::size_t i = 0; i < rows[p].size(); ++i) Y(Index(i), Index(p)) = y[rows[p][i]];
        return Y;
    };
    batch.y_train = labels(train_rows);
    batch.y_test = labels(test_rows);
    return batch;
}

std::vector<double> batch_test_errors(Backend& backend, const DeviceMatrix& K_eval,
                                      const std::vector<SmoResult>& duals, const Matrix& Y,
                                      const Matrix& Y_eval) {
    const Index P = Y.cols();
    DeviceMatrix F = backend.allocate(Y_eval.rows(), P);
    backend.gemm_batch(P, false, false, 1.0, K_eval, backend.upload(dual_coefficients(duals, Y)),
                       0.0, F);
    const Matrix f = backend.download(F);
    std::vector<double> errors(std::size_t(P), 0.0);
    for (Index p = 0; p < P; ++p) {
        const Vector decision = f.col(p).array() + duals[std::size_t(p)].bias;
        errors[std::size_t(p)] = error_rate(labels_from_decision(decision), Y_eval.col(p));
    }
    return errors;
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
