// Internal: the nested cross-validation of evaluate_svm over many splits at once (its Batched
// schedule). Not installed.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "zeronorm/evaluation/model_selection.hpp"

namespace zeronorm::detail {

// Empty when the splits of `data` can run as one batch under `options` (see
// SvmEvaluationOptions::schedule); otherwise the reason, for the error message.
std::string why_not_batched(const Dataset& data, const std::vector<Fold>& splits,
                            const SvmEvaluationOptions& options);

// Every split's inner cross-validation over the C grid, final SVM and test error, the splits
// advancing together (see SvmEvaluationOptions::schedule). Split f's inner folds use seed
// options.seed + f, as evaluate_svm_split. Splits are processed in chunks that bound the device
// memory; on_split_done(f, result) runs for each split as its chunk ends.
std::vector<SvmSplitEvaluation> evaluate_svm_batched(
    Backend& backend, const Dataset& data, const std::vector<Fold>& splits,
    const SvmEvaluationOptions& options,
    const std::function<void(std::size_t, const SvmSplitEvaluation&)>& on_split_done,
    SvmBatchPhaseSeconds& phases);

// One split through the same code, with inner-fold seed `seed` (evaluate_svm_split): its kernel
// may exceed max_kernel_mb, SMO then computing kernel columns on demand.
SvmSplitEvaluation evaluate_svm_split_batched(Backend& backend, const Dataset& data,
                                              const Fold& split,
                                              const SvmEvaluationOptions& options,
                                              std::uint64_t seed);

}  // namespace zeronorm::detail
