// Model files from training results (see model_builders.hpp).
#include "zeronorm/io/model_builders.hpp"

#include "zeronorm/core/error.hpp"

namespace zeronorm {
namespace {

ModelFile linear_model_file(const Vector& w, double bias) {
    ModelFile file;
    file.kind = ModelKind::Linear;
    file.linear.weights = w;
    file.linear.bias = Vector::Constant(1, bias);
    return file;
}

}  // namespace

ModelFile model_file(const SvmModel& model) {
    ModelFile file;
    file.model = model;
    return file;
}

ModelFile one_vs_rest_model_file(const std::vector<SvmModel>& machines) {
    ModelFile file;
    file.kind = ModelKind::OneVsRest;
    file.machines = machines;
    return file;
}

ModelFile model_file(const WwSvmResult& result, const KernelSpec& kernel, const Matrix& X) {
    ZN_EXPECTS_DIM(result.coef.rows() == X.rows(),
                   "model_file: " << result.coef.rows() << " coefficient rows for " << X.rows()
                                  << " training rows");
    std::vector<Index> rows;
    for (Index i = 0; i < X.rows(); ++i)
        if ((result.coef.row(i).array() != 0.0).any()) rows.push_back(i);
    ModelFile file;
    file.kind = ModelKind::WestonWatkins;
    file.ww.kernel = kernel;
    file.ww.points.resize(Index(rows.size()), X.cols());
    file.ww.coef.resize(Index(rows.size()), result.coef.cols());
    for (std::size_t k = 0; k < rows.size(); ++k) {
        file.ww.points.row(Index(k)) = X.row(rows[k]);
        file.ww.coef.row(Index(k)) = result.coef.row(rows[k]);
    }
    file.ww.bias = result.bias;
    return file;
}

ModelFile model_file(const LinearSvmResult& result) {
    return linear_model_file(result.w, result.bias);
}

ModelFile model_file(const LpSvmResult& result) {
    return linear_model_file(result.weights_original, result.b);
}

ModelFile model_file(const FeatureSubset& subset, Index n_inputs) {
    ZN_EXPECTS(!subset.classifiers.empty(),
               "model_file: the subset has no final classifier (" << subset.classifier_message
                                                                   << ")");
    ModelFile file;
    file.columns = subset.selected;
    file.n_inputs = n_inputs;
    if (subset.classifiers.front().kernel.type != KernelType::Linear) {  // kta's kernel SVM
        ZN_EXPECTS(subset.column_scale.size() == 0,
                   "model_file: this classifier runs on scaled columns (kta with the chi-square "
                   "kernel), which a model file cannot hold");
        file.model = subset.classifiers.front();
        return file;
    }
    file.kind = ModelKind::Linear;
    file.linear.weights = subset.class_weights;
    file.linear.bias.resize(Index(subset.classifiers.size()));
    for (std::size_t k = 0; k < subset.classifiers.size(); ++k)
        file.linear.bias[Index(k)] = subset.classifiers[k].bias;
    file.columns = subset.selected;
    file.n_inputs = n_inputs;
    return file;
}

ModelFile model_file(const SparseSvmResult& result, const SparseSvmOptions& options) {
    ModelFile file;
    file.kind = ModelKind::SparseExpansion;
    file.model = result.model.to_svm_model();
    file.method.name = "l0-svm";
    file.method.parameters = {{"p", model_number(options.p)},
                              {"variant", to_string(options.variant)},
                              {"C_xi", model_number(options.C_xi)},
                              {"C_alpha", model_number(options.C_alpha)},
                              {"epsilon", model_number(options.epsilon)},
                              {"iterations", std::to_string(result.iterations)},
                              {"status", to_string(result.status)}};
    return file;
}

ModelFile model_file(const PolynomialAromResult& result) {
    ModelFile file;
    file.kind = ModelKind::Polynomial;
    file.polynomial.n_features = result.map.n_inputs();
    file.polynomial.bias = result.model.bias;
    const Vector v = result.monomial_weights();
    std::vector<double> coef;
    for (Index m = 0; m < v.size(); ++m) {
        if (v[m] == 0.0) continue;
        file.polynomial.factors.push_back(result.map.monomial(m));
        coef.push_back(v[m] * result.map.weight(m));
    }
    file.polynomial.coef = Eigen::Map<const Vector>(coef.data(), Index(coef.size()));
    return file;
}

}  // namespace zeronorm
