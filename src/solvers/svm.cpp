#include "zeronorm/solvers/svm.hpp"

#include <cmath>

#include "core/all_finite.hpp"
#include "core/stopwatch.hpp"
#include "solvers/box_dual.hpp"
#include "solvers/dense_dual.hpp"
#include "solvers/expansion.hpp"
#include "solvers/labels.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/ops/smo_ops.hpp"

namespace zeronorm {

void SmoOptions::validate() const {
    ZN_EXPECTS(C > 0 && !std::isnan(C), "smo.C must be positive, got " << C);
    ZN_EXPECTS(std::isfinite(ridge) && ridge >= 0, "smo.ridge must be >= 0, got " << ridge);
    ZN_EXPECTS(std::isfinite(C) || ridge > 0,
               "smo.C = infinity (hard margin) needs a positive ridge, so the dual stays bounded");
    SmoSettings::validate();
}

void SmoSettings::validate() const {
    ZN_EXPECTS(std::isfinite(tolerance) && tolerance > 0,
               "smo.tolerance must be positive, got " << tolerance);
    ZN_EXPECTS(max_iterations >= 0, "smo.max_iterations must be >= 0, got " << max_iterations);
    ZN_EXPECTS(std::isfinite(cache_mb) && cache_mb > 0,
               "smo.cache_mb must be positive, got " << cache_mb);
}

void SvmOptions::validate(Index n_features) const {
    kernel.validate(n_features);
    smo.validate();
    ZN_EXPECTS(max_kernel_mb >= 0, "max_kernel_mb must be >= 0, got " << max_kernel_mb);
}

namespace {

// The chi2 kernel is defined for non-negative features (histograms); elsewhere it is not a kernel
// and can overflow.
void check_kernel_domain(const KernelSpec& spec, const Matrix& X) {
    if (spec.type != KernelType::Chi2) return;
    for (Index j = 0; j < X.cols(); ++j)
        for (Index i = 0; i < X.rows(); ++i)
            ZN_EXPECTS(X(i, j) >= 0, "the chi2 kernel needs non-negative features; sample "
                                         << i << ", feature " << j << " is " << X(i, j));
}

}  // namespace

void check_svm_training(const Dataset& data, const SvmOptions& options) {
    data.validate();
    ZN_EXPECTS(data.n_samples() >= 2, "training needs at least two samples, got " << data.n_samples());
    ZN_EXPECTS(data.n_features() >= 1, "training needs at least one feature");
    check_two_class_labels(data.y, "two-class SVM training");
    options.validate(data.n_features());
    check_kernel_domain(options.kernel, data.X);
    check_kernel_range(options.kernel, data.X, "SVM training");
}

SvmTrainResult train_svm(Backend& backend, const Dataset& data, const SvmOptions& options) {
    if (!options.bias)  // the path over one bound: the box dual on the whole kernel
        return std::move(
            train_svm_without_bias_path(backend, data, options, {options.smo.C}).front());
    const Stopwatch stopwatch;
    check_svm_training(data, options);

    const Index n = data.n_samples();
    const DeviceMatrix X = backend.upload(data.X);
    SvmTrainResult result;
    const double kernel_mb = double(n) * double(n) * 8.0 / (1024.0 * 1024.0);
    if (kernel_mb <= options.max_kernel_mb) {
        const DeviceMatrix K = backend.kernel_matrix(options.kernel, X, X);
        result.smo = detail::solve_dense_dual(backend, K, data.y, options.smo);
    } else {
        result.smo = detail::solve_on_demand_dual(backend, options.kernel, X, data.y, options.smo);
    }

    result.model = svm_model_from_dual(data, options.kernel, result.smo);
    result.seconds = stopwatch.seconds();
    return result;
}

std::vector<SvmTrainResult> train_svm_without_bias_path(Backend& backend, const Dataset& data,
                                                        const SvmOptions& options,
                                                        const std::vector<double>& C) {
    const Stopwatch stopwatch;
    ZN_EXPECTS(!options.bias, "train_svm_without_bias_path: options.bias must be false");
    check_svm_training(data, options);
    std::vector<SmoOptions> boxes(C.size(), options.smo);
    for (std::size_t k = 0; k < C.size(); ++k) {
        boxes[k].C = C[k];
        boxes[k].validate();  // every bound checked before any work
    }
    const DeviceMatrix X = backend.upload(data.X);
    const Matrix K = backend.download(backend.kernel_matrix(options.kernel, X, X));
    std::vector<SvmTrainResult> out(C.size());
    for (std::size_t k = 0; k < C.size(); ++k) {
        out[k].smo = detail::solve_box_dual(K, data.y, boxes[k]);
        out[k].model = svm_model_from_dual(data, options.kernel, out[k].smo);
        out[k].seconds = stopwatch.seconds();
    }
    return out;
}

SvmModel svm_model_from_dual(const Dataset& data, const KernelSpec& kernel, const SmoResult& dual) {
    ZN_EXPECTS_DIM(dual.beta.size() == data.n_samples(),
                   "svm_model_from_dual: " << dual.beta.size() << " dual variables for "
                                           << data.n_samples() << " samples");
    IndexVector support;
    for (Index i = 0; i < data.n_samples(); ++i)
        if (dual.beta[i] > 0) support.push_back(i);
    SvmModel model;
    model.kernel = kernel;
    const auto m = Index(support.size());
    model.support_vectors.resize(m, data.n_features());
    model.coef.resize(m);
    for (Index j = 0; j < data.n_features(); ++j)  // column by column, the storage order
        for (Index k = 0; k < m; ++k)
            model.support_vectors(k, j) = data.X(support[std::size_t(k)], j);
    for (Index k = 0; k < m; ++k)
        model.coef[k] = dual.beta[support[std::size_t(k)]] * data.y[support[std::size_t(k)]];
    model.bias = dual.bias;
    return model;
}

Vector SvmModel::linear_weights() const {
    ZN_EXPECTS(kernel.type == KernelType::Linear,
               "linear_weights: the model's kernel is " << to_string(kernel.type) << ", not linear");
    return support_vectors.transpose() * coef;
}

Vector SvmModel::decision_function(Backend& backend, const Matrix& X) const {
    ZN_EXPECTS_DIM(X.cols() == n_features(), "the model has " << n_features()
                                                 << " features but the data has " << X.cols());
    ZN_EXPECTS(detail::all_finite(X), "prediction data contains NaN or Inf");
    check_kernel_domain(kernel, X);
    if (n_support() == 0 || X.rows() == 0) return Vector::Constant(X.rows(), bias);
    return detail::expansion_values(backend, kernel, backend.upload(X),
                                    backend.upload(support_vectors), coef)
               .array() +
           bias;
}

namespace detail {

Vector expansion_values(Backend& backend, const KernelSpec& kernel, const DeviceMatrix& points,
                        const DeviceMatrix& centres, const Vector& coef) {
    DeviceMatrix f = backend.allocate(points.rows(), 1);
    if (kernel.type == KernelType::Linear && centres.rows() > 1) {
        DeviceMatrix w = backend.allocate(centres.cols(), 1);
        backend.gemm(true, false, 1.0, centres, backend.upload(coef), 0.0, w);
        backend.gemm(false, false, 1.0, points, w, 0.0, f);
    } else {
        const DeviceMatrix K = backend.kernel_matrix(kernel, points, centres);
        backend.gemm(false, false, 1.0, K, backend.upload(coef), 0.0, f);
    }
    return backend.download(f).col(0);
}

}  // namespace detail

Vector SvmModel::predict(Backend& backend, const Matrix& X) const {
    return labels_from_decision(decision_function(backend, X));
}

Vector labels_from_decision(const Vector& f) {
    return f.unaryExpr([](double v) { return v >= 0 ? 1.0 : -1.0; });
}

double error_rate(const Vector& predicted, const Vector& y) {
    ZN_EXPECTS_DIM(predicted.size() == y.size(),
                   "error_rate: " << predicted.size() << " predictions for " << y.size() << " labels");
    if (y.size() == 0) return 0.0;
    Index wrong = 0;
    for (Index i = 0; i < y.size(); ++i) wrong += predicted[i] != y[i];
    return double(wrong) / double(y.size());
}

}  // namespace zeronorm
