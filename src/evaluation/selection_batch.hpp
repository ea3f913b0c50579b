// Internal: l2-AROM and linear RFE over many cross-validation splits at once (the Batched
// schedule of evaluate_selection). Not installed.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "zeronorm/evaluation/evaluation.hpp"

namespace zeronorm::detail {

// Empty when the splits of `data` can run as one batch under `options` (see
// SelectionEvaluationOptions::Schedule); otherwise the reason, for the error message.
std::string why_not_batched(const Dataset& data, const std::vector<Fold>& folds,
                            const SelectionEvaluationOptions& options);

// Every split's l2-AROM path (or linear RFE, selection_batch.cpp: run_rfe), retrained final
// classifiers and test errors, the splits advancing together: per AROM iteration one
// scaled_gram_batch, one solve_dense_dual_batch (batched SMO and Newton finishes,
// warm-started), one gemm_batch and one multiplicative_update_batch for all splits still
// running; the final classifiers of every split and count in one solve_dense_dual_batch. The
// scales stay in the backend's memory (d x P); each split's counts and stopping rules are its
// own AromPath on the host, which reads only the survivors and largest change of each update,
// plus the scale columns a feature count reached is read from. Pruned features keep their
// columns with z_j = 0 (the per-split route drops them), so the products stay one shape for the
// whole batch. Splits are processed in chunks that bound the device memory. `prepared` is the
// data after log10.
std::vector<SplitEvaluation> evaluate_selection_batched(
    Backend& backend, const Dataset& prepared, const std::vector<Fold>& folds,
    const SelectionEvaluationOptions& options,
    const std::function<void(std::size_t, const SplitEvaluation&)>& on_split_done,
    BatchPhaseSeconds& phases);

}  // namespace zeronorm::detail
