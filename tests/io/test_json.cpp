// The results' JSON form (zeronorm/io/json.hpp): every key the command-line tool documents, with
// the values of the result it came from.
#include <gtest/gtest.h>

#include <random>

#include "support/random.hpp"
#include "zeronorm/core/backend.hpp"
#include "zeronorm/evaluation/cross_validation.hpp"
#include "zeronorm/evaluation/evaluation.hpp"
#include "zeronorm/io/json.hpp"
#include "zeronorm/methods/selection.hpp"
#include "zeronorm/methods/sparse_svm.hpp"
#include "zeronorm/solvers/svm.hpp"

namespace zeronorm {
namespace {

Dataset small_problem() {
    std::mt19937_64 rng(testing::test_seed());
    return testing::random_two_class(40, 6, rng, 0.8);
}

TEST(Json, SelectionResultCarriesEverySubsetAndTheTrace) {
    SCOPED_TRACE(testing::test_seed());
    const Dataset data = small_problem();
    auto backend = make_cpu_backend();
    SelectionOptions options;
    options.method = SelectionMethod::L2Arom;
    options.feature_counts = {4, 2};
    options.ridge = 1e-3;
    options.final_ridge = 1e-3;
    const SelectionResult result = select_features(*backend, data, options);
    const Json j = to_json(result, {"a", "b", "c", "d", "e", "f"});
    ASSERT_EQ(j["subsets"].size(), 2u);
    for (std::size_t k = 0; k < 2; ++k) {
        const FeatureSubset& s = result.subsets[k];
        EXPECT_EQ(j["subsets"][k]["features"], s.n_features);
        ASSERT_EQ(j["subsets"][k]["selected"].size(), std::size_t(s.selected.size()));
        for (std::size_t i = 0; i < s.selected.size(); ++i) {
            EXPECT_EQ(j["subsets"][k]["selected"][i], s.selected[i]);
            EXPECT_EQ(j["subsets"][k]["weights"][i], s.weights[Index(i)]);
        }
        EXPECT_EQ(j["subsets"][k]["classifier_status"], to_string(s.classifier_status));
    }
    EXPECT_EQ(j["selected"], j["subsets"][0]["selected"]);
    const std::string names = "abcdef";
    for (std::size_t i = 0; i < 4; ++i)
        EXPECT_EQ(j["selected_names"][i],
                  std::string(1, names[std::size_t(result.subsets[0].selected[i])]));
    ASSERT_EQ(j["trace"].size(), result.trace.size());
    EXPECT_EQ(j["trace"].back()["nonzeros"], result.trace.back().n_features);
    ASSERT_EQ(j["scores"].size(), std::size_t(result.scores.size()));
    EXPECT_EQ(j["scores"][1], result.scores[1]);
    EXPECT_EQ(j["iterations"], result.iterations);
    EXPECT_EQ(j["converged"], result.status == Status::Success);
    EXPECT_EQ(j["status"], to_string(result.status));
    EXPECT_EQ(j["seconds"], result.seconds);
    EXPECT_EQ(j["method_seconds"], result.method_seconds);
    EXPECT_FALSE(to_json(result).contains("selected_names"));
}

TEST(Json, EvaluationsGiveOneRowPerCount) {
    SCOPED_TRACE(testing::test_seed());
    const Dataset data = small_problem();
    auto backend = make_cpu_backend();
    SelectionEvaluationOptions options;
    options.selection.method = SelectionMethod::Corr;
    options.selection.feature_counts = {3, 1};
    options.selection.final_ridge = 1e-3;
    const SelectionEvaluation result =
        evaluate_selection(*backend, data, stratified_kfold(data.y, 4, 7), options);
    const Json j = to_json(result);
    EXPECT_EQ(j["splits"], 4);
    ASSERT_EQ(j["results"].size(), 2u);
    EXPECT_EQ(j["results"][1]["features"], 1);
    EXPECT_EQ(j["results"][1]["mean_error"], result.path[1].mean_error);
    EXPECT_EQ(j["schedule"], result.batched ? "batched" : "per-split");
}

TEST(Json, TrainedMachinesReportTheirSolver) {
    SCOPED_TRACE(testing::test_seed());
    const Dataset data = small_problem();
    auto backend = make_cpu_backend();
    SvmOptions svm;
    svm.kernel.type = KernelType::Rbf;
    svm.kernel.gamma = 0.5;
    svm.smo.C = 1.0;
    const SvmTrainResult trained = train_svm(*backend, data, svm);
    const Json j = to_json(trained);
    EXPECT_EQ(j["n_support"], trained.model.n_support());
    EXPECT_EQ(j["objective"], trained.smo.objective);
    EXPECT_EQ(j["iterations"], trained.smo.iterations);
    EXPECT_EQ(j["bias"], trained.model.bias);

    SparseSvmOptions sparse;
    sparse.kernel = svm.kernel;
    const SparseSvmResult l0 = train_sparse_svm(*backend, data, sparse);
    const Json k = to_json(l0);
    EXPECT_EQ(k["n_support"], l0.model.n_terms());
    EXPECT_EQ(k["n_support_points"], l0.n_support_points);
    EXPECT_EQ(k["active_terms"].size(), l0.trace.size());
    EXPECT_EQ(k["training_indices"].size(), std::size_t(l0.model.training_indices.size()));
    EXPECT_EQ(k["status"], to_string(l0.status));
}

}  // namespace
}  // namespace zeronorm
