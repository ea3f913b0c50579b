// A two-class SVM evaluated over many resampling splits at once, with C chosen per split by an
// inner cross-validation over a grid (nested cross-validation): for every outer split,
// preprocessing fitted on its training rows, inner_folds stratified folds of those rows, each C
// of the grid trained on every inner training part and scored on its held-out part, the C with
// the lowest mean inner error (ties: the smaller C) retrained on all training rows and tested.
// With one C there is no inner loop. Splits run in parallel on the CPU backend.
//
// Each outer split computes its training kernel matrix once (when it fits in
// svm.max_kernel_mb): every inner problem is a sub-block of it, and each C of the grid (solved
// in increasing order) starts SMO from the previous C's solution, which stays feasible.
#pragma once

#include <functional>
#include <vector>

#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/dataset.hpp"
#include "zeronorm/core/status.hpp"
#include "zeronorm/evaluation/cross_validation.hpp"
#include "zeronorm/solvers/svm.hpp"

namespace zeronorm {

struct SvmEvaluationOptions {
    SvmOptions svm;               // kernel and solver; svm.smo.C is used when C_grid is empty
    std::vector<double> C_grid;   // candidate C values (any order, > 0); empty: svm.smo.C only
    int inner_folds = 5;          // stratified folds of each split's training rows
    std::uint64_t seed = 0;       // inner fold assignment (split f uses seed + f)
    bool standardize = true;      // per-feature standardisation fitted on each training part
    int threads = 0;              // per split: worker threads (0 = hardware concurrency; CUDA
                                  // at most 16, a stream each); batched: host threads for the
                                  // per-problem bookkeeping
    // How the splits are run (EvaluationSchedule). Batched: the splits' standardised blocks and
    // training kernels in one batch each; the inner problems cut from those kernels
    // (gather_blocks) and grouped by size, each grid value one batched dual solve
    // (solve_dense_dual's scheme, warm-started from the previous value) and one batched decision
    // product per group; the final SVMs one batched solve per chosen C, tested in one batched
    // product. It serves splits of equal training and test sizes whose training kernel fits in
    // svm.max_kernel_mb; results equal PerSplit's up to rounding. Splits whose linear SVM is
    // solved without its kernel (n >= max(2000, 10 d), d <= 1024: README, `train`) run one at
    // a time by that route and store no kernel.
    using Schedule = EvaluationSchedule;
    Schedule schedule = Schedule::Auto;

    void validate(Index n_features) const;
    std::vector<double> grid() const;  // C_grid sorted ascending, or {svm.smo.C}
};

struct SvmSplitEvaluation {
    double error = 0.0;               // test error of the SVM retrained with the chosen C
    double C = 0.0;                   // the chosen C
    std::vector<double> inner_errors; // mean inner-CV error per C of grid() (empty: one C)
    Index n_support = 0;
    std::int64_t iterations = 0;      // SMO iterations, inner and final
    Status status = Status::Success;  // the first non-success status of any SMO run
    double seconds = 0.0;
};

// Wall seconds of the batched schedule by phase, summed over its chunks of splits.
struct SvmBatchPhaseSeconds {
    double data = 0.0;     // the splits' standardised training and test blocks (split_batch)
    double kernels = 0.0;  // the training kernels (kernel_batch) and the inner sub-blocks
    double inner = 0.0;    // the inner cross-validation: batched duals and decisions
    double final = 0.0;    // the final SVMs, their test kernels and decisions
};

struct SvmEvaluation {
    std::vector<SvmSplitEvaluation> splits;  // in the order of the splits given
    double mean_error = 0.0;
    double std_error = 0.0;                  // sample sd over splits / sqrt(#splits)
    Status status = Status::Success;
    double seconds = 0.0;
    bool batched = false;                    // which schedule ran
    SvmBatchPhaseSeconds batch_phases;       // batched only
};

using SvmSplitCallback = std::function<void(std::size_t, std::size_t, const SvmSplitEvaluation&)>;

// Labels +-1 with both classes in every split's training part. Runs on `backend` (the per-split
// schedule on its workers where it runs several splits at once, see
// BackendCapabilities::concurrent_workers).
SvmEvaluation evaluate_svm(Backend& backend, const Dataset& data,
                           const std::vector<Fold>& splits, const SvmEvaluationOptions& options,
                           const SvmSplitCallback& on_split = {});

// One split on a given backend (what evaluate_svm runs per split: the batched schedule's code
// with one split).
SvmSplitEvaluation evaluate_svm_split(Backend& backend, const Dataset& data, const Fold& split,
                                      const SvmEvaluationOptions& options, std::uint64_t seed);

}  // namespace zeronorm
