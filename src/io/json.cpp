#include "zeronorm/io/json.hpp"

#include <algorithm>
#include <cmath>

#include "zeronorm/core/status.hpp"

namespace zeronorm {
namespace {

std::vector<long long> index_list(const IndexVector& v) {
    return std::vector<long long>(v.begin(), v.end());
}

std::vector<double> value_list(const Vector& v) {
    return std::vector<double>(v.data(), v.data() + v.size());
}

// The keys every result ends with.
void add_outcome(Json& j, std::int64_t iterations, Status status, double seconds) {
    j["iterations"] = iterations;
    j["converged"] = status == Status::Success;
    j["status"] = to_string(status);
    j["seconds"] = seconds;
}

// The keys every evaluation ends with (before its phase timings).
void add_evaluation_outcome(Json& j, Status status, double seconds, bool batched) {
    j["converged"] = status == Status::Success;
    j["status"] = to_string(status);
    j["seconds"] = seconds;
    j["schedule"] = batched ? "batched" : "per-split";
}

}  // namespace

Json to_json(const SelectionResult& result, const std::vector<std::string>& feature_names) {
    Json j;
    const FeatureSubset* first = result.subsets.empty() ? nullptr : &result.subsets.front();
    j["selected"] = first ? index_list(first->selected) : std::vector<long long>{};
    j["weights"] = first ? value_list(first->weights) : std::vector<double>{};
    if (first && !feature_names.empty()) {
        std::vector<std::string> names;
        for (const Index c : first->selected)
            names.push_back(std::size_t(c) < feature_names.size() ? feature_names[std::size_t(c)]
                                                                  : std::string());
        j["selected_names"] = names;
    }
    Json subsets = Json::array();
    for (const FeatureSubset& s : result.subsets) {
        Json o;
        o["features"] = s.n_features;
        o["selected"] = index_list(s.selected);
        o["weights"] = value_list(s.weights);
        o["classifier_status"] = to_string(s.classifier_status);
        // A kernel classifier (kta's SVM without bias): its kernel and support vectors.
        if (!s.classifiers.empty() && s.classifiers.front().kernel.type != KernelType::Linear) {
            o["kernel"] = to_string(s.classifiers.front().kernel.type);
            o["support_vectors"] = s.classifiers.front().n_support();
        }
        if (!s.classifier_message.empty()) o["classifier_message"] = s.classifier_message;
        subsets.push_back(std::move(o));
    }
    j["subsets"] = std::move(subsets);
    // The method's score of every feature (AROM's z, RFE's elimination order, |w|, KTA's theta).
    if (result.scores.size() > 0) j["scores"] = value_list(result.scores);
    Json trace = Json::array();
    for (const SelectionIteration& t : result.trace)
        trace.push_back(
            {{"objective", t.objective}, {"nonzeros", t.n_features}, {"change", t.max_change}});
    j["trace"] = std::move(trace);
    if (!result.message.empty()) j["message"] = result.message;
    j["method_seconds"] = result.method_seconds;
    add_outcome(j, result.iterations, result.status, result.seconds);
    return j;
}

Json to_json(const SelectionEvaluation& result) {
    Json j;
    j["splits"] = result.splits.size();
    Json rows = Json::array();
    for (const PathPoint& p : result.path)
        rows.push_back({{"features", p.n_features},
                        {"mean_error", p.mean_error},
                        {"std_error", p.std_error},
                        {"failed_classifiers", p.failed_classifiers}});
    j["results"] = std::move(rows);
    add_evaluation_outcome(j, result.status, result.seconds, result.batched);
    if (result.batched) {
        const BatchPhaseSeconds& b = result.batch_phases;
        j["batch_seconds"] = {{"data", b.data},
                              {"gram", b.gram},
                              {"smo", b.smo},
                              {"weights", b.weights},
                              {"paths", b.paths},
                              {"final_classifiers", b.final_classifiers},
                              {"iterations", b.iterations}};
    }
    return j;
}

Json to_json(const SvmEvaluation& result) {
    Json j;
    std::vector<double> errors, chosen;
    for (const SvmSplitEvaluation& r : result.splits) {
        errors.push_back(r.error);
        chosen.push_back(r.C);
    }
    j["folds"] = errors.size();
    j["mean_error"] = result.mean_error;
    j["std_error"] = result.std_error;
    j["fold_errors"] = errors;
    j["chosen_C"] = chosen;
    add_evaluation_outcome(j, result.status, result.seconds, result.batched);
    if (result.batched) {
        const SvmBatchPhaseSeconds& b = result.batch_phases;
        j["batch_seconds"] = {
            {"data", b.data}, {"kernels", b.kernels}, {"inner", b.inner}, {"final", b.final}};
    }
    return j;
}

Json to_json(const SvmTrainResult& result) {
    Json j;
    j["n_support"] = result.model.n_support();
    j["objective"] = result.smo.objective;
    // The solver's own stopping measure (smo.hpp): SMO's KKT gap or the kernel-free duality gap.
    if (!std::isnan(result.smo.kkt_gap)) j["kkt_gap"] = result.smo.kkt_gap;
    if (!std::isnan(result.smo.duality_gap)) j["duality_gap"] = result.smo.duality_gap;
    j["bias"] = result.model.bias;
    add_outcome(j, result.smo.iterations, result.smo.status, result.seconds);
    return j;
}

Json to_json(const SparseSvmResult& result) {
    Json j;
    // Distinct expansion points (identical training points merged) and the training points with
    // alpha_i != 0, the count comparable with LIBSVM's support vectors.
    j["n_support"] = result.model.n_terms();
    j["n_expansion_terms"] = result.model.n_terms();
    j["n_support_points"] = result.n_support_points;
    j["objective"] = result.trace.empty() ? 0.0 : result.trace.back().objective;
    std::int64_t smo_iterations = 0;
    Json active = Json::array();
    for (const SparseSvmIteration& step : result.trace) {
        smo_iterations += step.smo_iterations;
        active.push_back(step.active_terms);  // m at the start of each outer step
    }
    j["smo_iterations"] = smo_iterations;
    if (!result.message.empty()) j["message"] = result.message;
    j["bias"] = result.model.bias;
    j["active_terms"] = std::move(active);
    j["training_indices"] = index_list(result.model.training_indices);
    add_outcome(j, result.iterations, result.status, result.seconds);
    return j;
}

Json to_json(const ValidationProtocolResult& result) {
    Json folds = Json::array();
    for (const ValidationFold& f : result.folds) {
        Json chosen = Json::object();
        for (std::size_t k = 0; k < result.parameter_names.size(); ++k)
            chosen[result.parameter_names[k]] = f.chosen[k];
        for (const auto& [name, value] : f.own_choices) chosen[name] = value;
        Json o;
        o["chosen"] = std::move(chosen);
        o["features"] = f.selected.size();
        o["selected"] = index_list(f.selected);
        o["error"] = f.error;
        o["train_error"] = f.train_error;
        if (!f.validation_errors.empty())
            o["validation_error"] =
                *std::min_element(f.validation_errors.begin(), f.validation_errors.end());
        add_outcome(o, f.iterations, f.status, f.seconds);
        if (!f.message.empty()) o["message"] = f.message;
        if (f.support_vectors >= 0) o["support_vectors"] = f.support_vectors;
        folds.push_back(std::move(o));
    }
    Json j;
    j["parameters"] = result.parameter_names;
    j["results"] = Json::array({{{"mean_features", result.mean_features},
                                 {"mean_error", result.mean_error},
                                 {"std_error", result.std_error},
                                 {"mean_train_error", result.mean_train_error},
                                 {"mean_iterations", result.mean_iterations},
                                 {"folds", std::move(folds)}}});
    if (result.mean_support_vectors >= 0.0)
        j["results"][0]["mean_support_vectors"] = result.mean_support_vectors;
    add_evaluation_outcome(j, result.status, result.seconds, false);
    j.erase("schedule");
    return j;
}

}  // namespace zeronorm
