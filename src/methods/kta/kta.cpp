// Kernel-target alignment feature selection by DCA (Neumann, Schnoerr & Steidl 2005, sec. 4.2.4).
//
// Each DCA step minimises the convex g(theta) - theta' grad h(theta^k) over [0, 1]^d with
// L-BFGS-B (LBFGSpp's LBFGSBSolver), started at theta^k. The step is accepted only when it does
// not raise that subproblem's value above its value at theta^k, so f never increases (DCA's
// descent property holds for any such point). g is one call of the backend's cross sums between
// the two classes' samples, h's kernel part one symmetric sum per class (AlignmentOps).
#include "zeronorm/methods/kta.hpp"

#include <LBFGSB.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "methods/selection_common.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm {

void KtaOptions::validate() const {
    ZN_EXPECTS(lambda >= 0.0 && lambda < 1.0, "lambda must be in [0, 1), got " << lambda);
    ZN_EXPECTS(std::isfinite(alpha) && alpha > 0.0, "alpha must be finite and > 0, got " << alpha);
    ZN_EXPECTS(std::isfinite(width) && width >= 0.0,
               "width must be finite and > 0 (0: sqrt(d) / 2), got " << width);
    ZN_EXPECTS(std::isfinite(rho) && rho > 0.0, "rho must be finite and > 0, got " << rho);
    ZN_EXPECTS(std::isfinite(tolerance) && tolerance > 0.0,
               "tolerance must be finite and > 0, got " << tolerance);
    ZN_EXPECTS(max_iterations >= 1, "max_iterations must be >= 1, got " << max_iterations);
    ZN_EXPECTS(std::isfinite(inner_tolerance) && inner_tolerance > 0.0,
               "inner_tolerance must be finite and > 0, got " << inner_tolerance);
    ZN_EXPECTS(inner_max_iterations >= 1,
               "inner_max_iterations must be >= 1, got " << inner_max_iterations);
    ZN_EXPECTS(threshold >= 0.0 && threshold < 1.0,
               "threshold must be in [0, 1), got " << threshold);
    ZN_EXPECTS(svm_lambda > 0.0 && svm_lambda < 1.0,
               "svm_lambda must be in (0, 1) (C = (1 - svm_lambda) / svm_lambda), got "
                   << svm_lambda);
}

namespace {

// Checks the data; returns the upper bounds of theta: 1, or 0 for a constant feature (it enters
// no kernel distance, so its theta would only follow the penalty: it is held at 0, unselected).
Vector check_data(const Matrix& X, const Vector& y, const KtaOptions& options) {
    ZN_EXPECTS_DIM(y.size() == X.rows(), "kta: " << X.rows() << " samples but " << y.size()
                                                 << " labels");
    ZN_EXPECTS(X.cols() >= 1, "kta: the data have no feature");
    Index positives = 0;
    for (Index i = 0; i < y.size(); ++i) {
        ZN_EXPECTS(y[i] == 1.0 || y[i] == -1.0,
                   "kta is for two classes labelled -1/+1; label of sample " << i << " is " << y[i]);
        positives += y[i] > 0 ? 1 : 0;
    }
    ZN_EXPECTS(positives > 0 && positives < y.size(),
               "kta needs samples of both classes; all " << y.size() << " are of class "
                                                         << (positives > 0 ? "+1" : "-1"));
    for (Index j = 0; j < X.cols(); ++j) {
        for (Index i = 0; i < X.rows(); ++i) {
            ZN_EXPECTS(std::isfinite(X(i, j)),
                       "kta: value (" << i << ", " << j << ") is " << X(i, j) << ", not finite");
            ZN_EXPECTS(options.kernel != AlignmentKernel::ChiSquare || X(i, j) >= 0.0,
                       "kta with the chi-square kernel needs nonnegative features (histograms); "
                       "value (" << i << ", " << j << ") is " << X(i, j));
        }
    }
    Vector upper(X.cols());
    for (Index j = 0; j < X.cols(); ++j)
        upper[j] = X.col(j).maxCoeff() > X.col(j).minCoeff() ? 1.0 : 0.0;
    ZN_EXPECTS(upper.sum() > 0.0,
               "kta: every feature is constant (all zero included): no kernel distance to weight");
    return upper;
}

// The rows of X of class `sign`.
Matrix rows_of_class(const Matrix& X, const Vector& y, double sign) {
    Matrix out(Index((y.array() * sign > 0).count()), X.cols());
    for (Index i = 0, r = 0; i < y.size(); ++i)
        if (y[i] * sign > 0) out.row(r++) = X.row(i);
    return out;
}

// The alignment objective's pieces over the backend's copies of the two classes' samples. With
// u+- the class indicators over n+-, -(1 - lambda) 1/2 y_n' K y_n = g - h_K:
//   g   = (1 - lambda) u+' K u- / (n+ n-)                 (the cross-class pairs: cross sums)
//   h_K = (1 - lambda) / 2 (u+' K u+ / n+^2 + u-' K u- / n-^2)   (one symmetric sum per class)
// and f = g - h_K + p with the concave penalty p = (lambda / d) sum_j (1 - exp(-alpha theta_j)),
// so the DCA's h = h_K - p.
class Alignment {
public:
    Alignment(Backend& backend, const Matrix& X, const Vector& y, const KtaOptions& options,
              double sigma)
        : backend_(backend), options_(options), d_(X.cols()) {
        spec_.type = options.kernel;
        spec_.scale = options.kernel == AlignmentKernel::Gaussian ? 1.0 / (2.0 * sigma * sigma)
                                                                  : options.rho;
        const Matrix plus = rows_of_class(X, y, 1.0), minus = rows_of_class(X, y, -1.0);
        const Index n_plus = plus.rows(), n_minus = minus.rows();
        const double weight = 1.0 - options.lambda;
        plus_ = backend.upload(plus);
        minus_ = backend.upload(minus);
        cross_ = backend.upload(
            Matrix::Constant(n_plus, n_minus, weight / (double(n_plus) * double(n_minus))));
        same_plus_ = backend.upload(
            Matrix::Constant(n_plus, n_plus, 0.5 * weight / (double(n_plus) * double(n_plus))));
        same_minus_ = backend.upload(Matrix::Constant(
            n_minus, n_minus, 0.5 * weight / (double(n_minus) * double(n_minus))));
    }

    // g(theta) and its gradient.
    double g(const Vector& theta, Vector& gradient) {
        const DeviceMatrix T = backend_.upload(theta);
        DeviceMatrix G = backend_.allocate(d_, 1);
        const double value =
            backend_.alignment().cross_kernel_sum_batch(spec_, plus_, minus_, cross_, T, G)[0];
        gradient = backend_.download(G).col(0);
        return value;
    }

    // h_K(theta) and its gradient.
    double h_kernel(const Vector& theta, Vector& gradient) {
        const DeviceMatrix T = backend_.upload(theta);
        DeviceMatrix G = backend_.allocate(d_, 1);
        double value = 0.0;
        gradient = Vector::Zero(d_);
        for (const auto& [X, Y] : {std::pair{&plus_, &same_plus_}, {&minus_, &same_minus_}}) {
            value += backend_.alignment().weighted_kernel_sum_batch(spec_, *X, *Y, T, G)[0];
            gradient += backend_.download(G).col(0);
        }
        return value;
    }

    double penalty(const Vector& theta) const {
        return (options_.lambda / double(d_)) *
               (1.0 - (-options_.alpha * theta.array()).exp()).sum();
    }
    Vector penalty_gradient(const Vector& theta) const {
        return (options_.lambda / double(d_)) * options_.alpha *
               (-options_.alpha * theta.array()).exp().matrix();
    }

private:
    Backend& backend_;
    const KtaOptions& options_;
    DeviceMatrix plus_, minus_, cross_, same_plus_, same_minus_;
    Index d_;
    AlignmentKernelSpec spec_;
};

// What one DCA step needs at theta: g and h_K with their gradients, and f.
struct DcaPoint {
    Vector theta;
    double g = 0.0, h_kernel = 0.0, f = 0.0;
    Vector g_gradient, h_kernel_gradient;
};

DcaPoint evaluate(Alignment& a, const Vector& theta) {
    DcaPoint p;
    p.theta = theta;
    p.g = a.g(theta, p.g_gradient);
    p.h_kernel = a.h_kernel(theta, p.h_kernel_gradient);
    p.f = p.g - p.h_kernel + a.penalty(theta);
    return p;
}

// min g(theta) - theta' linear over [0, upper] from `start`, linear = grad h(start); returns the
// accepted point (start unless L-BFGS-B found one with a value no larger) and the inner
// iterations.
Vector dca_step(Alignment& a, const DcaPoint& start, const Vector& upper,
                const KtaOptions& options, int& iterations) {
    const Vector linear = start.h_kernel_gradient - a.penalty_gradient(start.theta);
    const auto subproblem = [&](const Vector& theta, Vector& gradient) {
        const double value = a.g(theta, gradient) - theta.dot(linear);
        gradient -= linear;
        return value;
    };
    const double start_value = start.g - start.theta.dot(linear);
    LBFGSpp::LBFGSBParam<double> param;
    // Relative to the subproblem's gradient scale at the start (1 / (2 sigma^2) for the
    // Gaussian kernel), so the stop means the same for every d and sigma.
    param.epsilon = std::max(
        1e-14, options.inner_tolerance * (start.g_gradient - linear).cwiseAbs().maxCoeff());
    param.epsilon_rel = 0.0;
    param.max_iterations = options.inner_max_iterations;
    LBFGSpp::LBFGSBSolver<double> solver(param);
    const Vector lower = Vector::Zero(start.theta.size());
    Vector theta = start.theta, gradient;
    double value = start_value;
    iterations = 0;
    try {
        iterations = solver.minimize(subproblem, theta, value, lower, upper);
    } catch (const std::exception&) {
        // The line search gave up (rounding near the optimum): keep the last point if it helps.
        theta = theta.cwiseMax(lower).cwiseMin(upper);
        value = subproblem(theta, gradient);
    }
    return value <= start_value && theta.allFinite() ? theta : start.theta;
}

}  // namespace

KtaResult train_kta(Backend& backend, const Matrix& X, const Vector& y, const KtaOptions& options) {
    options.validate();
    const Vector upper = check_data(X, y, options);
    KtaResult result;
    result.sigma = options.width > 0.0 ? options.width : std::sqrt(double(X.cols())) / 2.0;
    Alignment a(backend, X, y, options, result.sigma);
    DcaPoint point = evaluate(a, 0.5 * upper);
    result.initial_objective = point.f;
    result.status = Status::NoConvergence;
    for (std::int64_t k = 0; k < options.max_iterations; ++k) {
        KtaStep step;
        const Vector next = dca_step(a, point, upper, options, step.inner_iterations);
        step.change = (next - point.theta).cwiseAbs().maxCoeff();
        point = evaluate(a, next);
        step.objective = point.f;
        step.selected = Index((next.array() > options.threshold).count());
        result.trace.push_back(step);
        result.iterations = k + 1;
        if (step.change < options.tolerance) {
            result.status = Status::Success;
            break;
        }
    }
    result.theta = point.theta;
    for (const Index j : detail::order_descending(point.theta))
        if (point.theta[j] > options.threshold) result.selected.push_back(j);
    return result;
}

namespace {

Matrix kta_inputs(const Matrix& X, const IndexVector& selected, const Vector& scale) {
    Matrix out(X.rows(), Index(selected.size()));
    for (std::size_t k = 0; k < selected.size(); ++k)
        out.col(Index(k)) = X.col(selected[k]) * (scale.size() > 0 ? scale[Index(k)] : 1.0);
    return out;
}

}  // namespace

Vector KtaClassifier::decision_function(Backend& backend, const Matrix& X) const {
    if (selected.empty()) return Vector::Zero(X.rows());
    return model.decision_function(backend, kta_inputs(X, selected, column_scale));
}

KtaClassifier train_kta_classifier(Backend& backend, const Matrix& X, const Vector& y,
                                   const Vector& theta, const IndexVector& selected,
                                   double sigma, const KtaOptions& options,
                                   const SmoSettings& smo) {
    options.validate();
    ZN_EXPECTS_DIM(theta.size() == X.cols(), "kta classifier: " << theta.size()
                                                 << " weights for " << X.cols() << " features");
    ZN_EXPECTS(!selected.empty(), "kta classifier: no feature selected");
    ZN_EXPECTS(std::isfinite(sigma) && sigma > 0.0, "kta classifier: sigma must be > 0, got "
                                                        << sigma);
    KtaClassifier out;
    out.selected = selected;
    Vector weights(Index(selected.size()));
    for (std::size_t k = 0; k < selected.size(); ++k) {
        ZN_EXPECTS(selected[k] >= 0 && selected[k] < X.cols(),
                   "kta classifier: column " << selected[k] << " of " << X.cols());
        weights[Index(k)] = theta[selected[k]];
    }
    SvmOptions svm;
    svm.bias = false;
    svm.smo = SmoOptions(smo, (1.0 - options.svm_lambda) / options.svm_lambda, 0.0);
    if (options.kernel == AlignmentKernel::Gaussian) {
        svm.kernel.type = KernelType::WeightedRbf;
        svm.kernel.gamma = 1.0 / (2.0 * sigma * sigma);
        svm.kernel.theta = weights;
    } else {
        svm.kernel.type = KernelType::Chi2;
        svm.kernel.gamma = options.rho;
        out.column_scale = weights;
    }
    Dataset data;
    data.X = kta_inputs(X, selected, out.column_scale);
    data.y = y;
    SvmTrainResult trained = train_svm(backend, data, svm);
    out.model = std::move(trained.model);
    out.dual = std::move(trained.smo);
    return out;
}

}  // namespace zeronorm
