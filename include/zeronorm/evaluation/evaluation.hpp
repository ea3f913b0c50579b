// Batch evaluation of a feature-selection method over many train/test splits: for every split,
// preprocessing fitted on its training rows, one selection run that serves every requested
// feature count (the path), the retrained classifiers, and their test errors; then mean and
// standard error per feature count. Splits run in parallel on the CPU backend.
#pragma once

#include <functional>
#include <vector>

#include "zeronorm/evaluation/cross_validation.hpp"
#include "zeronorm/methods/selection.hpp"

namespace zeronorm {

struct SelectionEvaluationOptions {
    SelectionOptions selection;  // feature_counts is the path evaluated
    bool log10 = false;          // elementwise log10 of the data first (needs positive data)
    bool standardize = true;     // per-feature standardisation fitted on each split's training rows
    int threads = 0;             // per split: worker threads (0 = hardware concurrency; CUDA
                                 // at most 16, a stream each); batched: host threads for the
                                 // per-split bookkeeping
    // How the splits are run (EvaluationSchedule). Batched: all splits advance together, each
    // AROM iteration being one batched Gram, batched SMO stages with batched Newton finishes
    // (solve_dense_dual's scheme), one batched weight product and one batched z-update for
    // every split (the final classifiers likewise), the scales staying in the backend's memory
    // and only the per-split bookkeeping on the host; it serves l2-AROM (and linear RFE, whose
    // rounds advance in lockstep: per round one column selection, one batched Gram, dual and
    // weight product over the alive features) on two classes (+-1 labels) with a bounded inner
    // dual (finite C or ridge > 0, for the final classifier too) and splits of equal training
    // and test sizes. Results agree with PerSplit
    // to solver tolerance (pruned features are zero-scaled instead of dropped, so sums differ by
    // rounding).
    using Schedule = EvaluationSchedule;
    Schedule schedule = Schedule::Auto;
    // Arithmetic of the batched schedule's Gram matrices (every AROM iteration's and the final
    // classifiers'); the duals, weights and bookkeeping stay in double. Float32 is for the
    // batched schedule only (Auto then picks it on either backend; InvalidArgument where it
    // cannot run); its effect on the selections and errors is measured in bench/RESULTS.md.
    Precision gram_precision = Precision::Float64;

    void validate(Index n_features) const;
};

struct SplitEvaluation {
    // Test error per feature count (selection order); NaN where that count's final classifier
    // failed (classifier_status NumericalIssue: e.g. a forced pure hard margin on inseparable
    // data), which the path's means leave out and count in PathPoint::failed_classifiers.
    std::vector<double> errors;
    std::vector<IndexVector> selected;   // chosen columns per feature count
    std::vector<Status> classifier_status;  // per feature count: how the final classifier ended
    std::int64_t iterations = 0;
    Status status = Status::Success;
    std::string message;  // why the status is not Success (SelectionResult::message)
    double seconds = 0.0;
};

struct PathPoint {
    Index n_features = 0;
    // Over the splits whose final classifier trained (NaN when none did).
    double mean_error = 0.0;
    double std_error = 0.0;  // sample sd over those splits / sqrt(their number)
    Index failed_classifiers = 0;  // splits left out: their final classifier failed
};

// Wall seconds of the batched schedule by phase, summed over its chunks of splits.
struct BatchPhaseSeconds {
    double data = 0.0;     // the splits' standardised training and test blocks (split_batch)
    double gram = 0.0;     // batched Gram matrices of the rescaled data (with the upload of z)
    double smo = 0.0;      // batched SMO
    double weights = 0.0;  // batched X'(beta .* y) and its download
    double paths = 0.0;    // per-split z-updates, pruning and counts on the host
    double final_classifiers = 0.0;  // retraining on the selected columns and testing
    std::int64_t iterations = 0;     // batched AROM iterations (the slowest split's count)
};

struct SelectionEvaluation {
    std::vector<PathPoint> path;          // one per feature count, in the order requested
    std::vector<SplitEvaluation> splits;  // in the order of the folds given
    Status status = Status::Success;      // Success when every split's selection did
    double seconds = 0.0;
    bool batched = false;                 // which schedule ran
    BatchPhaseSeconds batch_phases;       // batched only
};

// Called as each split finishes (from a worker thread, serialised): index, count, result.
using SplitCallback = std::function<void(std::size_t, std::size_t, const SplitEvaluation&)>;

// Runs on `backend` (the per-split schedule on its workers where it runs several splits at once,
// see BackendCapabilities::concurrent_workers). Labels: +-1, or 0..K-1 for K classes (predicted class = largest
// one-vs-rest decision value).
SelectionEvaluation evaluate_selection(Backend& backend, const Dataset& data,
                                       const std::vector<Fold>& folds,
                                       const SelectionEvaluationOptions& options,
                                       const SplitCallback& on_split = {});

// Stability selection over an evaluation's splits (Meinshausen & Buehlmann 2010): for the path's
// point `path_index`, every feature chosen in at least one split, with the fraction of the splits
// that chose it (the splits the path's errors are computed on); most frequent first, ties by
// feature index.
struct FeatureFrequency {
    Index feature = 0;
    double frequency = 0.0;
};
std::vector<FeatureFrequency> selection_frequencies(const SelectionEvaluation& evaluation,
                                                    std::size_t path_index);

}  // namespace zeronorm
