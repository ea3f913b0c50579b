// The list of registered methods. A new method adds its factory here, one line each.
#include "methods/method_registry.hpp"

#include <algorithm>

#include "zeronorm/core/error.hpp"

namespace zeronorm {

// Factories, defined next to each method's code.
std::unique_ptr<FeatureRanker> make_l2_arom_ranker();  // arom_method.cpp
std::unique_ptr<FeatureRanker> make_l1_arom_ranker();  // arom_method.cpp
std::unique_ptr<FeatureRanker> make_rfe_ranker();      // rfe_method.cpp
std::unique_ptr<FeatureRanker> make_rfe_rbf_ranker();  // rfe_method.cpp
std::unique_ptr<FeatureRanker> make_corr_ranker();     // corr.cpp
std::unique_ptr<FeatureRanker> make_fsv_ranker();      // dc_method.cpp
std::unique_ptr<FeatureRanker> make_l2_l1_svm_ranker();  // dc_method.cpp
std::unique_ptr<FeatureRanker> make_l2_l0_svm_ranker();  // dc_method.cpp
std::unique_ptr<FeatureRanker> make_rlp_ranker();      // dc_method.cpp
std::unique_ptr<FeatureRanker> make_fs_svmcp_ranker();  // fs_svmcp_method.cpp
std::unique_ptr<FeatureRanker> make_kta_ranker();      // kta_method.cpp
std::unique_ptr<FeatureRanker> make_quadratic_fsv_ranker();  // dc_method.cpp
std::unique_ptr<FeatureRanker> make_r2w2_ranker();     // r2w2_method.cpp
std::unique_ptr<Classifier> make_svm_classifier();     // svm_method.cpp
std::unique_ptr<Classifier> make_l0_svm_classifier();  // sparse_svm_method.cpp

const std::vector<std::unique_ptr<FeatureRanker>>& feature_rankers() {
    static const auto list = [] {
        std::vector<std::unique_ptr<FeatureRanker>> v;
        for (auto make : {make_l2_arom_ranker, make_l1_arom_ranker, make_rfe_ranker,
                          make_corr_ranker, make_fsv_ranker, make_l2_l1_svm_ranker,
                          make_l2_l0_svm_ranker, make_rlp_ranker, make_fs_svmcp_ranker,
                          make_rfe_rbf_ranker, make_kta_ranker,
                          make_quadratic_fsv_ranker, make_r2w2_ranker})
            v.push_back(make());
        return v;
    }();
    return list;
}

const std::vector<std::unique_ptr<Classifier>>& classifiers() {
    static const auto list = [] {
        std::vector<std::unique_ptr<Classifier>> v;
        for (auto make : {make_svm_classifier, make_l0_svm_classifier}) v.push_back(make());
        return v;
    }();
    return list;
}

namespace {

template <class Method>
std::vector<std::string> names_of(const std::vector<std::unique_ptr<Method>>& methods) {
    std::vector<std::string> names;
    for (const auto& m : methods) names.push_back(m->info().name);
    return names;
}

template <class Method>
const Method& find_method(const std::vector<std::unique_ptr<Method>>& methods,
                          const std::string& name, const char* what) {
    for (const auto& m : methods)
        if (m->info().name == name) return *m;
    const std::vector<std::string> names = names_of(methods);
    std::string known;  // "a, b or c"
    for (std::size_t k = 0; k < names.size(); ++k)
        known += (k == 0 ? "" : k + 1 == names.size() ? " or " : ", ") + names[k];
    throw InvalidArgument("unknown " + std::string(what) + " '" + name + "' (expected " + known +
                          ")");
}

class FunctionRanker final : public FeatureRanker {
public:
    FunctionRanker(MethodInfo info, detail::RankerRun run, bool weston_watkins, bool own_count)
        : info_(std::move(info)),
          run_(std::move(run)),
          weston_watkins_(weston_watkins),
          own_count_(own_count) {}
    const MethodInfo& info() const override { return info_; }
    bool supports_weston_watkins() const override { return weston_watkins_; }
    bool chooses_own_count() const override { return own_count_; }
    detail::Ranking run(Backend& backend, const Dataset& data, const detail::Machines& machines,
                        const SelectionOptions& options,
                        const IndexVector& counts_desc) const override {
        return run_(backend, data, machines, options, counts_desc);
    }

private:
    MethodInfo info_;
    detail::RankerRun run_;
    bool weston_watkins_;
    bool own_count_;
};

}  // namespace

const FeatureRanker& find_ranker(const std::string& name) {
    return find_method(feature_rankers(), name, "selection method");
}
const Classifier& find_classifier(const std::string& name) {
    return find_method(classifiers(), name, "classifier");
}
std::vector<std::string> ranker_names() { return names_of(feature_rankers()); }
std::vector<std::string> classifier_names() { return names_of(classifiers()); }

namespace detail {

std::unique_ptr<FeatureRanker> make_ranker(MethodInfo info, RankerRun run, bool weston_watkins,
                                           bool chooses_own_count) {
    return std::make_unique<FunctionRanker>(std::move(info), std::move(run), weston_watkins,
                                            chooses_own_count);
}

ParameterInfo inner_C_parameter() {
    return {"C", "--C", ParameterInfo::Type::Real, "inf",
            "C of the inner SVMs (inf: hard margin)", "(0, inf]", {}};
}
ParameterInfo inner_ridge_parameter() {
    return {"ridge", "--ridge", ParameterInfo::Type::Real, "0",
            "added to the kernel diagonal of the inner SVMs (2-norm slack)", "[0, inf)", {}};
}
ParameterInfo inner_tolerance_parameter() {
    return {"smo.tolerance", "--tolerance", ParameterInfo::Type::Real, "1e-08",
            "SMO stopping tolerance of the inner SVMs", "(0, inf)", {}};
}
ParameterInfo arom_cap_parameter() {
    return {"max_iterations", "--max-iterations", ParameterInfo::Type::Integer, "1000",
            "AROM iteration cap", ">= 1", {}};
}

}  // namespace detail
}  // namespace zeronorm
