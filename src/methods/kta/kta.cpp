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
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "methods/selection_common.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/kernel.hpp"

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

double kta_sigma(const KtaOptions& options, Index d) {
    return options.width > 0.0 ? options.width : std::sqrt(double(d)) / 2.0;
}

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
    if (options.kernel == AlignmentKernel::Gaussian) {  // at the DCA's start, theta = upper / 2
        const double sigma = kta_sigma(options, X.cols());
        check_gaussian_kernel_scale(X, 1.0 / (2.0 * sigma * sigma), 0.5 * upper,
                                    "kta (at its start, theta = 1/2)",
                                    "give a larger width (--width; 0 is sqrt(d) / 2)");
    }
    return upper;
}

// The rows of X of class `sign`.
Matrix rows_of_class(const Matrix& X, const Vector& y, double sign) {
    Matrix out(Index((y.array() * sign > 0).count()), X.cols());
    for (Index i = 0, r = 0; i < y.size(); ++i)
        if (y[i] * sign > 0) out.row(r++) = X.row(i);
    return out;
}

enum class PairSum { Cross, Same };

// The alignment sums of the DCA with unit class weights, over the backend's copies of the two
// classes' samples (u+- the class indicators over n+-):
//   cross = u+' K u- / (n+ n-)                       (the cross-class pairs: cross sums)
//   same  = (u+' K u+ / n+^2 + u-' K u- / n-^2) / 2  (one symmetric sum per class)
// with their gradients, for every column of Theta (d x P) in one call of each operation.
class ClassPairs {
public:
    ClassPairs(Backend& backend, const Matrix& X, const Vector& y, const AlignmentKernelSpec& spec)
        : backend_(backend), spec_(spec), d_(X.cols()) {
        const Matrix plus = rows_of_class(X, y, 1.0), minus = rows_of_class(X, y, -1.0);
        const double n_plus = double(plus.rows()), n_minus = double(minus.rows());
        plus_ = backend.upload(plus);
        minus_ = backend.upload(minus);
        cross_ = backend.upload(
            Matrix::Constant(plus.rows(), minus.rows(), 1.0 / (n_plus * n_minus)));
        same_plus_ =
            backend.upload(Matrix::Constant(plus.rows(), plus.rows(), 0.5 / (n_plus * n_plus)));
        same_minus_ = backend.upload(
            Matrix::Constant(minus.rows(), minus.rows(), 0.5 / (n_minus * n_minus)));
    }

    Index features() const { return d_; }

    std::vector<double> sums(PairSum which, const Matrix& Theta, Matrix& gradient) {
        const DeviceMatrix T = backend_.upload(Theta);
        DeviceMatrix G = backend_.allocate(d_, Theta.cols());
        AlignmentOps& ops = backend_.alignment();
        if (which == PairSum::Cross) {
            std::vector<double> values =
                ops.cross_kernel_sum_batch(spec_, plus_, minus_, cross_, T, G);
            gradient = backend_.download(G);
            return values;
        }
        std::vector<double> values(std::size_t(Theta.cols()), 0.0);
        gradient = Matrix::Zero(d_, Theta.cols());
        for (const auto& [X, Y] : {std::pair{&plus_, &same_plus_}, {&minus_, &same_minus_}}) {
            const std::vector<double> part = ops.weighted_kernel_sum_batch(spec_, *X, *Y, T, G);
            for (std::size_t p = 0; p < part.size(); ++p) values[p] += part[p];
            gradient += backend_.download(G);
        }
        return values;
    }

private:
    Backend& backend_;
    AlignmentKernelSpec spec_;
    DeviceMatrix plus_, minus_, cross_, same_plus_, same_minus_;
    Index d_;
};

// One DCA's access to the two sums at its theta.
class AlignmentSums {
public:
    virtual ~AlignmentSums() = default;
    virtual double sum(PairSum which, const Vector& theta, Vector& gradient) = 0;
};

// Straight from the backend, one theta per call.
class DirectSums final : public AlignmentSums {
public:
    explicit DirectSums(ClassPairs& pairs) : pairs_(pairs) {}
    double sum(PairSum which, const Vector& theta, Vector& gradient) override {
        Matrix G;
        const double value = pairs_.sums(which, theta, G)[0];
        gradient = G.col(0);
        return value;
    }

private:
    ClassPairs& pairs_;
};

// DCAs in lockstep, one host thread each: a DCA hands its theta to the current round and waits;
// the last running DCA to arrive (or to finish) evaluates every waiting theta, one batched call
// per sum, and wakes the others. The backend is used by one thread at a time. A failed round
// fails every DCA waiting on it.
class SumRounds {
public:
    SumRounds(ClassPairs& pairs, std::size_t count)
        : pairs_(pairs), requests_(count), running_(count) {}

    double evaluate(std::size_t k, PairSum which, const Vector& theta, Vector& gradient) {
        std::unique_lock<std::mutex> lock(mutex_);
        if (failure_) std::rethrow_exception(failure_);
        Request& r = requests_[k];
        r.waiting = true;
        r.which = which;
        r.theta = theta;
        ++waiting_;
        if (waiting_ == running_) {
            run_round();
        } else {
            wake_.wait(lock, [&] { return !r.waiting || failure_; });
        }
        if (failure_) std::rethrow_exception(failure_);
        gradient = r.gradient;
        return r.value;
    }

    // DCA k is done (or failed): the others no longer wait for it.
    void leave() {
        std::lock_guard<std::mutex> lock(mutex_);
        --running_;
        if (running_ > 0 && waiting_ == running_ && !failure_) run_round();
    }

private:
    struct Request {
        bool waiting = false;
        PairSum which = PairSum::Cross;
        Vector theta, gradient;
        double value = 0.0;
    };

    // With the lock held and every running DCA waiting.
    void run_round() {
        try {
            for (const PairSum which : {PairSum::Cross, PairSum::Same}) {
                std::vector<std::size_t> batch;
                for (std::size_t k = 0; k < requests_.size(); ++k)
                    if (requests_[k].waiting && requests_[k].which == which) batch.push_back(k);
                if (batch.empty()) continue;
                Matrix Theta(pairs_.features(), Index(batch.size())), G;
                for (std::size_t b = 0; b < batch.size(); ++b)
                    Theta.col(Index(b)) = requests_[batch[b]].theta;
                const std::vector<double> values = pairs_.sums(which, Theta, G);
                for (std::size_t b = 0; b < batch.size(); ++b) {
                    requests_[batch[b]].value = values[b];
                    requests_[batch[b]].gradient = G.col(Index(b));
                }
            }
        } catch (...) {
            failure_ = std::current_exception();
        }
        for (Request& r : requests_) r.waiting = false;
        waiting_ = 0;
        wake_.notify_all();
    }

    ClassPairs& pairs_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::vector<Request> requests_;
    std::size_t running_, waiting_ = 0;
    std::exception_ptr failure_;
};

class RoundSums final : public AlignmentSums {
public:
    RoundSums(SumRounds& rounds, std::size_t k) : rounds_(rounds), k_(k) {}
    double sum(PairSum which, const Vector& theta, Vector& gradient) override {
        return rounds_.evaluate(k_, which, theta, gradient);
    }

private:
    SumRounds& rounds_;
    std::size_t k_;
};

// The alignment objective's pieces for one lambda. With the sums above,
// -(1 - lambda) 1/2 y_n' K y_n = g - h_K, g = (1 - lambda) cross, h_K = (1 - lambda) same, and
// f = g - h_K + p with the concave penalty p = (lambda / d) sum_j (1 - exp(-alpha theta_j)), so
// the DCA's h = h_K - p.
class Alignment {
public:
    Alignment(AlignmentSums& sums, const KtaOptions& options, Index d)
        : sums_(sums), options_(options), weight_(1.0 - options.lambda), d_(d) {}

    // g(theta) and its gradient.
    double g(const Vector& theta, Vector& gradient) {
        const double value = weight_ * sums_.sum(PairSum::Cross, theta, gradient);
        gradient *= weight_;
        return value;
    }

    // h_K(theta) and its gradient.
    double h_kernel(const Vector& theta, Vector& gradient) {
        const double value = weight_ * sums_.sum(PairSum::Same, theta, gradient);
        gradient *= weight_;
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
    AlignmentSums& sums_;
    const KtaOptions& options_;
    double weight_;
    Index d_;
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
    } catch (const Error&) {
        throw;  // the sums failed (a device error, out of memory): not the line search
    } catch (const std::exception&) {
        // The line search gave up (rounding near the optimum): keep the last point if it helps.
        theta = theta.cwiseMax(lower).cwiseMin(upper);
        value = subproblem(theta, gradient);
    }
    return value <= start_value && theta.allFinite() ? theta : start.theta;
}

AlignmentKernelSpec kta_spec(const KtaOptions& options, double sigma) {
    AlignmentKernelSpec spec;
    spec.type = options.kernel;
    spec.scale = options.kernel == AlignmentKernel::Gaussian ? 1.0 / (2.0 * sigma * sigma)
                                                             : options.rho;
    return spec;
}

// The DCA from theta = upper / 2 (upper: 1, or 0 for a constant feature).
KtaResult run_dca(AlignmentSums& sums, const Vector& upper, const KtaOptions& options) {
    KtaResult result;
    result.sigma = kta_sigma(options, upper.size());
    Alignment a(sums, options, upper.size());
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

}  // namespace

KtaResult train_kta(Backend& backend, const Matrix& X, const Vector& y, const KtaOptions& options) {
    options.validate();
    const Vector upper = check_data(X, y, options);
    ClassPairs pairs(backend, X, y, kta_spec(options, kta_sigma(options, X.cols())));
    DirectSums sums(pairs);
    return run_dca(sums, upper, options);
}

std::vector<KtaResult> train_kta_batch(Backend& backend, const Matrix& X, const Vector& y,
                                       const std::vector<KtaOptions>& options,
                                       KtaSchedule schedule) {
    std::vector<Vector> uppers;
    for (const KtaOptions& o : options) {
        o.validate();
        uppers.push_back(check_data(X, y, o));
    }
    std::vector<KtaResult> results(options.size());
    const bool lockstep = schedule == KtaSchedule::Lockstep ||
                          (schedule == KtaSchedule::Auto &&
                           backend.capabilities().prefers_batched_schedule);
    if (!lockstep) {
        for (std::size_t k = 0; k < options.size(); ++k)
            results[k] = train_kta(backend, X, y, options[k]);
        return results;
    }
    // One lockstep group per kernel (its type and scale): the sums of a batched call share it.
    std::vector<char> done(options.size(), 0);
    for (std::size_t first = 0; first < options.size(); ++first) {
        if (done[first]) continue;
        const AlignmentKernelSpec spec = kta_spec(options[first], kta_sigma(options[first], X.cols()));
        std::vector<std::size_t> group;
        for (std::size_t k = first; k < options.size(); ++k) {
            const AlignmentKernelSpec other = kta_spec(options[k], kta_sigma(options[k], X.cols()));
            if (!done[k] && other.type == spec.type && other.scale == spec.scale) {
                group.push_back(k);
                done[k] = 1;
            }
        }
        ClassPairs pairs(backend, X, y, spec);
        SumRounds rounds(pairs, group.size());
        std::vector<std::exception_ptr> failures(group.size());
        std::vector<std::thread> threads;
        for (std::size_t g = 0; g < group.size(); ++g)
            threads.emplace_back([&, g] {
                try {
                    RoundSums sums(rounds, g);
                    results[group[g]] = run_dca(sums, uppers[group[g]], options[group[g]]);
                } catch (...) {
                    failures[g] = std::current_exception();
                }
                rounds.leave();
            });
        for (std::thread& t : threads) t.join();
        for (const std::exception_ptr& failure : failures)
            if (failure) std::rethrow_exception(failure);
    }
    return results;
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

std::vector<KtaClassifier> train_kta_classifiers(Backend& backend, const Matrix& X,
                                                 const Vector& y, const Vector& theta,
                                                 const IndexVector& selected, double sigma,
                                                 const KtaOptions& options,
                                                 const std::vector<double>& svm_lambdas,
                                                 const SmoSettings& smo) {
    options.validate();
    ZN_EXPECTS_DIM(theta.size() == X.cols(), "kta classifier: " << theta.size()
                                                 << " weights for " << X.cols() << " features");
    ZN_EXPECTS(!selected.empty(), "kta classifier: no feature selected");
    ZN_EXPECTS(std::isfinite(sigma) && sigma > 0.0, "kta classifier: sigma must be > 0, got "
                                                        << sigma);
    std::vector<double> C;
    for (const double svm_lambda : svm_lambdas) {
        KtaOptions point = options;
        point.svm_lambda = svm_lambda;
        point.validate();
        C.push_back((1.0 - svm_lambda) / svm_lambda);
    }
    KtaClassifier common;
    common.selected = selected;
    Vector weights(Index(selected.size()));
    for (std::size_t k = 0; k < selected.size(); ++k) {
        ZN_EXPECTS(selected[k] >= 0 && selected[k] < X.cols(),
                   "kta classifier: column " << selected[k] << " of " << X.cols());
        weights[Index(k)] = theta[selected[k]];
    }
    SvmOptions svm;
    svm.bias = false;
    svm.smo = SmoOptions(smo, 1.0, 0.0);
    if (options.kernel == AlignmentKernel::Gaussian) {
        svm.kernel.type = KernelType::WeightedRbf;
        svm.kernel.gamma = 1.0 / (2.0 * sigma * sigma);
        svm.kernel.theta = weights;
    } else {
        svm.kernel.type = KernelType::Chi2;
        svm.kernel.gamma = options.rho;
        common.column_scale = weights;
    }
    Dataset data;
    data.X = kta_inputs(X, selected, common.column_scale);
    data.y = y;
    std::vector<SvmTrainResult> trained = train_svm_without_bias_path(backend, data, svm, C);
    std::vector<KtaClassifier> out;
    for (SvmTrainResult& t : trained) {
        out.push_back(common);
        out.back().model = std::move(t.model);
        out.back().dual = std::move(t.smo);
    }
    return out;
}

KtaClassifier train_kta_classifier(Backend& backend, const Matrix& X, const Vector& y,
                                   const Vector& theta, const IndexVector& selected,
                                   double sigma, const KtaOptions& options,
                                   const SmoSettings& smo) {
    return std::move(train_kta_classifiers(backend, X, y, theta, selected, sigma, options,
                                           {options.svm_lambda}, smo)
                         .front());
}

}  // namespace zeronorm
