// Classifiers through the registry: what a caller that knows only a method's name (the
// command-line tool, bindings) gets back.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "support/random.hpp"
#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/methods/methods.hpp"

namespace zeronorm {
namespace {

Dataset two_blobs() {
    std::mt19937_64 rng(testing::test_seed());
    return testing::random_two_class(60, 3, rng, 1.0);
}

SvmOptions rbf_options(const Classifier& classifier) {
    SvmOptions svm;
    svm.kernel.type = KernelType::Rbf;
    svm.kernel.gamma = 0.5;
    static_cast<SmoSettings&>(svm.smo) = classifier.smo_defaults();
    return svm;
}

TEST(ClassifierRegistry, EveryClassifierTrainsAndReportsItsResult) {
    SCOPED_TRACE(testing::test_seed());
    const Dataset data = two_blobs();
    auto backend = make_cpu_backend();
    for (const auto& classifier : classifiers()) {
        SCOPED_TRACE(classifier->info().name);
        const TrainedClassifier t =
            classifier->train(*backend, data, rbf_options(*classifier), Parameters{});
        EXPECT_EQ(t.method, classifier->info().name);
        EXPECT_GT(t.model.n_support(), 0);
        ASSERT_TRUE(t.report.contains("n_support"));
        EXPECT_EQ(t.report["n_support"], t.model.n_support());
        EXPECT_EQ(t.report["status"], to_string(t.status));
        EXPECT_EQ(t.report["iterations"], t.iterations);
    }
    const TrainedClassifier l0 = find_classifier("l0-svm").train(
        *backend, data, rbf_options(find_classifier("l0-svm")), Parameters{{"C_alpha", "0.5"}});
    EXPECT_EQ(l0.model_kind, ModelKind::SparseExpansion);
    EXPECT_EQ(l0.report["C_alpha"], 0.5);
    EXPECT_EQ(find_classifier("l0-svm").smo_defaults().tolerance, SparseSvmOptions{}.smo.tolerance);
}

TEST(ClassifierRegistry, BadParametersAreNamedAsListed) {
    const Dataset data = two_blobs();
    auto backend = make_cpu_backend();
    const Classifier& l0 = find_classifier("l0-svm");
    for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
             {"C_alpha", "0"}, {"p", "3"}, {"epsilon", "-1"}, {"C_xi", "x"}}) {
        try {
            l0.train(*backend, data, rbf_options(l0), Parameters{{name, value}});
            ADD_FAILURE() << name << " = " << value << " was accepted";
        } catch (const InvalidArgument& e) {
            EXPECT_EQ(std::string(e.what()).rfind(name + " ", 0), 0u) << e.what();
        }
    }
}

// Every parameter a ranker lists is a field set_parameter reaches (the command-line tool and
// bindings pass them by these names), and a bad value names it.
TEST(RankerRegistry, EveryListedParameterIsSettable) {
    for (const auto& ranker : feature_rankers())
        for (const ParameterInfo& p : ranker->info().parameters) {
            SCOPED_TRACE(ranker->info().name + " " + p.name);
            SelectionOptions options;
            EXPECT_NO_THROW(options.set_parameter(p.name, p.default_value));
            try {
                options.set_parameter(p.name, "x");
                ADD_FAILURE() << "'x' was accepted";
            } catch (const InvalidArgument& e) {
                EXPECT_EQ(std::string(e.what()).rfind(p.name + " ", 0), 0u) << e.what();
            }
        }
    SelectionOptions options;
    options.set_parameter("dc.mu", "2.5");
    options.set_parameter("max_iterations", "7");
    EXPECT_EQ(options.dc.mu, 2.5);
    EXPECT_EQ(options.max_iterations, 7);
    EXPECT_THROW(options.set_parameter("max_iterations", "7.5"), InvalidArgument);
    EXPECT_THROW(options.set_parameter("no_such_field", "1"), InvalidArgument);
}

}  // namespace
}  // namespace zeronorm
