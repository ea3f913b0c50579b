// Stratified resampling and cross-validated test error of the two-class SVM.
//
// Splits are deterministic for a given seed on every platform: they use std::mt19937_64 (whose
// output the standard fixes) with our own unbiased bounded draws and Fisher-Yates shuffle, never
// std::shuffle or std::uniform_int_distribution (whose output differs between libraries).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/dataset.hpp"
#include "zeronorm/core/status.hpp"
#include "zeronorm/solvers/svm.hpp"

namespace zeronorm {

// How a batch evaluation (evaluate_selection, evaluate_svm) runs its splits. PerSplit: one
// problem after another (several at once on worker threads: the CPU's cores, or CUDA streams).
// Batched: all splits advance together through the backend's batched primitives (a few launches
// per step for the whole batch on CUDA; on the CPU backend a plain loop, the reference for the
// CUDA batch); each evaluation says which problems qualify, and Batched on one that does not is
// an InvalidArgument. Auto: Batched on CUDA where the problem qualifies, else PerSplit.
enum class EvaluationSchedule { Auto, PerSplit, Batched };

// One resampling split: row indices into the data set, each list ascending, disjoint.
struct Fold {
    IndexVector train;
    IndexVector test;
};

// k folds whose test sets partition 0..n-1. Each class (distinct value of y) is shuffled and
// dealt round-robin, continuing across classes, so in every fold each class c has
// floor(n_c / k) or ceil(n_c / k) test rows and the fold sizes differ by at most one.
// Throws InvalidArgument when k < 2 or k exceeds the smallest class count, or y holds NaN.
std::vector<Fold> stratified_kfold(const Vector& y, int k, std::uint64_t seed);

// n_splits independent random train/test splits with train_size training rows each. The
// training rows of class c number round(n_c * train_size / n) by largest remainder (ties to the
// smaller label), adjusted so that every class keeps at least one training row when
// train_size >= number of classes, and every class with >= 2 rows keeps at least one test row
// when n - train_size >= number of such classes. Throws InvalidArgument when n_splits < 1 or
// train_size is not in 1..n-1.
std::vector<Fold> stratified_random_splits(const Vector& y, int n_splits, Index train_size,
                                           std::uint64_t seed);

// What happened on one fold.
struct FoldResult {
    double error = 0.0;  // test error rate
    Index n_train = 0;
    Index n_test = 0;
    Index n_support = 0;
    std::int64_t iterations = 0;
    Status status = Status::Success;
    double seconds = 0.0;  // training and prediction
};

struct CrossValidationResult {
    std::vector<FoldResult> folds;
    std::vector<double> fold_errors;  // folds[i].error, for convenience
    double mean_error = 0.0;          // unweighted mean over folds
    double std_error = 0.0;           // sample sd of the fold errors / sqrt(#folds); 0 for one fold
    // Success when every fold's solver converged, else the first other status met.
    Status status = Status::Success;
    double seconds = 0.0;
};

// Called after each fold with its 0-based index, the number of folds and its result.
using FoldCallback = std::function<void(std::size_t, std::size_t, const FoldResult&)>;

// Trains on each fold's training rows and measures the error on its test rows. With
// `standardize`, a Standardizer is fitted on the training rows of the fold only and applied to
// both parts. Labels must be +-1. Throws InvalidArgument for an empty fold list, an empty part
// or an out-of-range row index.
CrossValidationResult cross_validate_svm(Backend& backend, const Dataset& data,
                                         const SvmOptions& options, const std::vector<Fold>& folds,
                                         bool standardize, const FoldCallback& on_fold = {});

}  // namespace zeronorm
