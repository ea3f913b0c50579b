// Runs one task per resampling split: on the CPU backend across worker threads (each with its
// own backend, one BLAS thread each), on CUDA in order on one device context. The first
// exception stops the other workers and is rethrown. `done(index)` runs serialised, in
// completion order, after each task (progress reporting).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "zeronorm/backend.hpp"
#include "zeronorm/cross_validation.hpp"
#include "zeronorm/dataset.hpp"

namespace zeronorm::detail {

void run_per_split(BackendKind kind, int device, std::size_t n_tasks, int threads,
                   const std::function<void(Backend&, std::size_t)>& task,
                   const std::function<void(std::size_t)>& done);

// body(i) for every i < count on up to `threads` host threads (0: hardware concurrency), for
// independent per-split host work between batched device calls; the first exception is rethrown.
void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t)>& body);

// Every split has training and test rows, all within 0..n_rows-1 (InvalidArgument naming `where`
// and the 1-based split otherwise).
void check_splits(const std::vector<Fold>& splits, Index n_rows, const char* where);

// A split's training and test rows, standardised with statistics of the training rows when asked.
struct TrainTest {
    Dataset train, test;
};
TrainTest split_data(const Dataset& data, const Fold& split, bool standardize);

// Mean and standard error (sample sd / sqrt(count); 0 for one value) of per-split values.
struct MeanAndError {
    double mean = 0.0;
    double std_error = 0.0;
};
MeanAndError mean_and_std_error(const std::vector<double>& values);

}  // namespace zeronorm::detail
