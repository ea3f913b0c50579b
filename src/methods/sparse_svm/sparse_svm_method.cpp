// Registration of the L0/Lp-norm SVM (sparse_svm.cpp) as a classifier.
#include "methods/method_registry.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/io/json.hpp"
#include "zeronorm/io/model_builders.hpp"
#include "zeronorm/methods/sparse_svm.hpp"

namespace zeronorm {
namespace {

using Type = ParameterInfo::Type;

double real_parameter(const Parameters& parameters, const std::string& name, double fallback) {
    const auto it = parameters.find(name);
    return it == parameters.end() ? fallback : parse_parameter_number(name, it->second);
}

class L0SvmClassifier final : public Classifier {
public:
    const MethodInfo& info() const override {
        static const MethodInfo info{
            "l0-svm",
            "sparse L0/Lp-norm SVM: few expansion terms, by reweighted SMO solves",
            "Huang, Zheng, King & Lyu 2008, sec. 3.3-3.4",
            {{"p", "--p", Type::Real, "0", "norm exponent, 0 = L0, 0 < p <= 2 = Lp (Prop. 4)",
              "[0, 2]", {}},
             {"variant", "--variant", Type::Choice, "exact",
              "exact K_(t) (one Cholesky per step) or the inversion-free diagonal form of "
              "sec. 3.4.3",
              "exact, diagonal", {"exact", "diagonal"}},
             {"C_xi", "--C-xi", Type::Real, "1", "slack penalty C_xi", "(0, inf)", {}},
             {"C_alpha", "--C-alpha", Type::Real, "0.2", "weight C_alpha of the sparsity term",
              "(0, inf)", {}},
             {"epsilon", "--epsilon", Type::Real, "0.0001",
              "pruning threshold on |alpha_i| and stopping threshold on max|delta alpha|",
              "(0, inf)", {}},
             {"max_iterations", "--max-outer-iterations", Type::Integer, "100",
              "cap T_max on the outer (reweighting) steps", ">= 1", {}},
             {"keep_degenerate", "--keep-degenerate", Type::Flag, "false",
              "keep the model even when every coefficient was pruned (it predicts one class; "
              "otherwise a NumericalError, no model)",
              "true, false", {}}}};
        return info;
    }
    bool uses_box_and_ridge() const override { return false; }
    SmoSettings smo_defaults() const override { return SparseSvmOptions{}.smo; }

    TrainedClassifier train(Backend& backend, const Dataset& data, const SvmOptions& svm,
                            const Parameters& parameters) const override {
        SparseSvmOptions options;
        options.kernel = svm.kernel;
        options.p = real_parameter(parameters, "p", options.p);
        if (parameters.count("variant"))
            options.variant = parse_sparse_svm_variant(parameters.at("variant"));
        options.C_xi = real_parameter(parameters, "C_xi", options.C_xi);
        options.C_alpha = real_parameter(parameters, "C_alpha", options.C_alpha);
        options.epsilon = real_parameter(parameters, "epsilon", options.epsilon);
        options.max_iterations =
            int(real_parameter(parameters, "max_iterations", options.max_iterations));
        options.smo = svm.smo;
        try {
            options.validate(data.n_features());
        } catch (const InvalidArgument& e) {
            // Name the parameter as info() lists it ("C_alpha ...", "smo.tolerance ...").
            const std::string prefix = "SparseSvmOptions.";
            const std::string message = e.what();
            if (message.compare(0, prefix.size(), prefix) != 0) throw;
            throw InvalidArgument(message.substr(prefix.size()));
        }
        const bool keep = parameters.count("keep_degenerate") &&
                          parameters.at("keep_degenerate") == "true";
        const SparseSvmResult r = train_sparse_svm(backend, data, options);
        if (r.model.n_terms() == 0 && !keep)
            throw NumericalError("the sparse SVM pruned every coefficient: " + r.message +
                                 "; no model written (keep_degenerate, --keep-degenerate, keeps "
                                 "this one-class model)");
        TrainedClassifier out;
        out.model = r.model.to_svm_model();
        out.model_kind = ModelKind::SparseExpansion;
        out.method = info().name;
        out.model_parameters = model_file(r, options).method.parameters;
        out.status = r.status;
        out.message = r.message;
        out.iterations = r.iterations;
        out.seconds = r.seconds;
        out.report = {{"p", options.p},
                      {"variant", to_string(options.variant)},
                      {"C_xi", options.C_xi},
                      {"C_alpha", options.C_alpha},
                      {"epsilon", options.epsilon}};
        out.report.update(to_json(r));
        return out;
    }
};

}  // namespace

std::unique_ptr<Classifier> make_l0_svm_classifier() {
    return std::make_unique<L0SvmClassifier>();
}

}  // namespace zeronorm
