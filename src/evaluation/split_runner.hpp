// Runs one task per resampling split: across up to `threads` worker threads (0: the hardware's)
// within the backend's BackendCapabilities::concurrent_workers, each with its own backend from
// backend.make_worker(workers), or in order on `backend` itself where one runs at a time. The
// first exception stops the other workers and is rethrown; where it is OutOfDeviceMemory, the
// tasks not finished run again in order on `backend` (the workers' problems did not fit in the
// device together). `done(index)` runs serialised, in completion order, after each task
// (progress reporting).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/thread_pool.hpp"  // parallel_for
#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/dataset.hpp"
#include "zeronorm/evaluation/cross_validation.hpp"

namespace zeronorm::detail {

void run_per_split(Backend& backend, std::size_t n_tasks, int threads,
                   const std::function<void(Backend&, std::size_t)>& task,
                   const std::function<void(std::size_t)>& done);

// Every split has training and test rows, all within 0..n_rows-1 (InvalidArgument naming `where`
// and the 1-based split otherwise).
void check_splits(const std::vector<Fold>& splits, Index n_rows, const char* where);

// A split's training and test rows, standardised with statistics of the training rows when asked.
struct TrainTest {
    Dataset train, test;
};
TrainTest split_data(const Dataset& data, const Fold& split, bool standardize);

// ---- what the batched schedules (selection_batch, svm_batch) share ----------------------------

// Whether an evaluation runs its batched schedule: Batched always (InvalidArgument naming
// `where` and the reason when `not_batched` is non-empty), Auto when `preferred` (e.g. on CUDA)
// and the problem qualifies (`not_batched` empty), PerSplit never.
bool runs_batched(EvaluationSchedule schedule, bool preferred, const std::string& not_batched,
                  const char* where);

// The splits' results under either schedule: run_batched(on_done) all at once (it calls on_done
// as splits finish), or run_split(backend, f) for each split f through run_per_split. on_split
// (index, count, result) reports each split as it finishes.
template <class Result>
std::vector<Result> run_schedule(
    Backend& backend, bool batched, std::size_t count, int threads,
    const std::function<std::vector<Result>(const std::function<void(std::size_t, const Result&)>&)>&
        run_batched,
    const std::function<Result(Backend&, std::size_t)>& run_split,
    const std::function<void(std::size_t, std::size_t, const Result&)>& on_split) {
    if (batched)
        return run_batched([&](std::size_t f, const Result& r) {
            if (on_split) on_split(f, count, r);
        });
    std::vector<Result> out(count);
    run_per_split(
        backend, count, threads, [&](Backend& worker, std::size_t f) { out[f] = run_split(worker, f); },
        [&](std::size_t f) {
            if (on_split) on_split(f, count, out[f]);
        });
    return out;
}

// Splits first..first+count-1 of `folds` on the backend: their training and test blocks side by
// side (Backend::split_batch of X, standardised when asked) and their labels.
struct SplitBatch {
    SplitBlocks blocks;  // n x (d P) and m x (d P)
    Matrix y_train;      // n x P
    Matrix y_test;       // m x P

    Index splits() const { return y_train.cols(); }            // P
    Index train_rows() const { return y_train.rows(); }        // n
    Index features() const { return blocks.train.cols() / splits(); }  // d
};
SplitBatch gather_splits(Backend& backend, const DeviceMatrix& X, const Vector& y,
                         const std::vector<Fold>& folds, std::size_t first, std::size_t count,
                         bool standardize);

// Test errors of a batch of SVMs: duals[p] trained with labels Y.col(p) (n x P), block p of
// K_eval (m x n P) the kernel between its evaluation points and training points. One batched
// product gives the decisions K_eval (beta .* y) + b, scored against Y_eval (m x P). A problem
// with an empty beta (not solved) is scored on its bias alone.
std::vector<double> batch_test_errors(Backend& backend, const DeviceMatrix& K_eval,
                                      const std::vector<SmoResult>& duals, const Matrix& Y,
                                      const Matrix& Y_eval);

// The splits 0..total-1 in chunks of as many as fit in `chunk_bytes` (the backend's
// BackendCapabilities::batch_bytes) at `bytes_per_split` (at least one): run_chunk(first, count)
// returns the results of splits first..first+count-1, whose `seconds` become the chunk's wall
// time shared out; on_done(index, result) runs for each split as its chunk ends.
template <class Result>
std::vector<Result> run_in_chunks(
    std::size_t total, std::size_t chunk_bytes, std::size_t bytes_per_split,
    const std::function<std::vector<Result>(std::size_t, std::size_t)>& run_chunk,
    const std::function<void(std::size_t, const Result&)>& on_done) {
    const std::size_t chunk =
        std::max<std::size_t>(1, chunk_bytes / std::max<std::size_t>(1, bytes_per_split));
    std::vector<Result> out;
    out.reserve(total);
    for (std::size_t first = 0; first < total; first += chunk) {
        const auto start = std::chrono::steady_clock::now();
        const std::size_t count = total - first < chunk ? total - first : chunk;
        std::vector<Result> part = run_chunk(first, count);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        for (std::size_t k = 0; k < part.size(); ++k) {
            part[k].seconds = seconds / double(count);
            out.push_back(std::move(part[k]));
            if (on_done) on_done(first + k, out.back());
        }
    }
    return out;
}

// Wall seconds by phase: lap(total) adds the seconds since the previous lap (or construction)
// to `total`.
class PhaseClock {
public:
    void lap(double& total) {
        const auto now = std::chrono::steady_clock::now();
        total += std::chrono::duration<double>(now - start_).count();
        start_ = now;
    }

private:
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Mean and standard error (sample sd / sqrt(count); 0 for one value) of per-split values.
struct MeanAndError {
    double mean = 0.0;
    double std_error = 0.0;
};
MeanAndError mean_and_std_error(const std::vector<double>& values);

}  // namespace zeronorm::detail
