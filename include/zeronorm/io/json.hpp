// The JSON form of each result type: what `zeronorm ... --json` prints (the command adds its own
// context: file paths, the backend, the seed) and what bindings hand on. Keys are stable; a
// result's wall time is `seconds`, its iteration count `iterations`, how it ended `status` and
// `converged` (status == success).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "zeronorm/evaluation/evaluation.hpp"
#include "zeronorm/evaluation/model_selection.hpp"
#include "zeronorm/evaluation/validation_protocol.hpp"
#include "zeronorm/methods/selection.hpp"
#include "zeronorm/methods/sparse_svm.hpp"
#include "zeronorm/solvers/svm.hpp"

namespace zeronorm {

using Json = nlohmann::ordered_json;

// The first (largest) subset's `selected` and `weights` at the top level, with
// `selected_names` when `feature_names` is not empty; every subset under `subsets` (features,
// selected, weights, classifier_status, classifier_message when set); `scores`, the method's
// score of every feature; the `trace` (objective, nonzeros: the features still alive, change:
// AROM's max |z - z_prev|, DCA's change in v).
Json to_json(const SelectionResult& result, const std::vector<std::string>& feature_names = {});
// `results` (features, mean_error, std_error, failed_classifiers per count), `splits`, the
// schedule and, batched, `batch_seconds` by phase.
Json to_json(const SelectionEvaluation& result);
// `mean_error`, `std_error`, `fold_errors`, `chosen_C`, the schedule and `batch_seconds`.
Json to_json(const SvmEvaluation& result);
// `parameters` (the grid's names) and `results`: one entry with `mean_features`, `mean_error`,
// `std_error`, `mean_train_error` and `folds` (per fold: `chosen` parameters by name, with those
// the method chose itself such as FS-SVMCP's `fs_svmcp.C`, `features`, `selected`, test `error`,
// `train_error`, the lowest `validation_error`, iterations, status, seconds).
Json to_json(const ValidationProtocolResult& result);
// `n_support`, `objective`, `bias` of the trained SVM, and the solver's stopping measure: SMO's
// `kkt_gap`, or `duality_gap` (primal - dual) of the linear SVM solved without its kernel.
Json to_json(const SvmTrainResult& result);
// `n_support` (= `n_expansion_terms`, distinct expansion points), `n_support_points` (training
// points with alpha != 0), the last step's `objective`, `smo_iterations`, `active_terms` per
// outer step, `training_indices`, `bias`.
Json to_json(const SparseSvmResult& result);

}  // namespace zeronorm
