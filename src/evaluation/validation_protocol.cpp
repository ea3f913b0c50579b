// The validation-set protocol of Neumann, Schnoerr & Steidl 2005, sec. 5.2.2 (described in
// include/zeronorm/evaluation/validation_protocol.hpp) and the fitters of the methods that find
// their own support.
#include "zeronorm/evaluation/validation_protocol.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/stopwatch.hpp"
#include "evaluation/split_runner.hpp"
#include "solvers/labels.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/preprocess.hpp"
#include "zeronorm/methods/dc_svm.hpp"
#include "zeronorm/methods/fs_svmcp.hpp"
#include "zeronorm/methods/methods.hpp"
#include "zeronorm/solvers/lp_svm.hpp"

namespace zeronorm {

ParameterGrid ParameterGrid::product(const std::vector<std::string>& names,
                                     const std::vector<std::vector<double>>& axes) {
    ZN_EXPECTS_DIM(names.size() == axes.size(),
                   "parameter grid: " << names.size() << " names but " << axes.size() << " axes");
    ParameterGrid grid;
    grid.names = names;
    grid.points = {{}};
    for (const std::vector<double>& axis : axes) {
        ZN_EXPECTS(!axis.empty(), "parameter grid: the axis of "
                                      << names[std::size_t(&axis - axes.data())] << " is empty");
        std::vector<std::vector<double>> next;
        for (const std::vector<double>& point : grid.points)
            for (const double value : axis) {
                next.push_back(point);
                next.back().push_back(value);
            }
        grid.points = std::move(next);
    }
    return grid;
}

void ParameterGrid::validate() const {
    ZN_EXPECTS(!points.empty(), "parameter grid: no points");
    const std::set<std::string> distinct(names.begin(), names.end());
    ZN_EXPECTS(distinct.size() == names.size(), "parameter grid: a parameter is named twice");
    for (std::size_t p = 0; p < points.size(); ++p) {
        ZN_EXPECTS_DIM(points[p].size() == names.size(),
                       "parameter grid: point " << p << " has " << points[p].size()
                                                << " values for " << names.size() << " names");
        for (std::size_t k = 0; k < names.size(); ++k)
            ZN_EXPECTS(std::isfinite(points[p][k]),
                       "parameter grid: " << names[k] << " = " << points[p][k] << " at point "
                                          << p << " is not finite");
    }
}

void ValidationProtocolOptions::validate() const {
    grid.validate();
    ZN_EXPECTS(threads >= 0, "threads must be >= 0, got " << threads);
}

namespace {

Matrix rows_of(const Matrix& X, const IndexVector& rows) {
    Matrix out(Index(rows.size()), X.cols());
    for (std::size_t r = 0; r < rows.size(); ++r) out.row(Index(r)) = X.row(rows[r]);
    return out;
}

Vector entries_of(const Vector& y, const IndexVector& rows) {
    Vector out(Index(rows.size()));
    for (std::size_t r = 0; r < rows.size(); ++r) out[Index(r)] = y[rows[r]];
    return out;
}

// Fraction of rows whose sign(f) (f = 0 -> +1) differs from y.
double error_rate(const Vector& decision, const Vector& y) {
    Index wrong = 0;
    for (Index i = 0; i < y.size(); ++i) wrong += ((decision[i] >= 0 ? 1.0 : -1.0) != y[i]) ? 1 : 0;
    return double(wrong) / double(y.size());
}

// True when point a wins a tie against point b: the larger value of the first name that differs.
bool larger_point(const std::vector<double>& a, const std::vector<double>& b) {
    return std::lexicographical_compare(b.begin(), b.end(), a.begin(), a.end());
}

void note_status(Status& status, std::string& message, const GridPointFit& fit) {
    if (status != Status::Success || fit.status == Status::Success) return;
    status = fit.status;
    message = fit.message;
}

ValidationFold run_fold(Backend& backend, const Dataset& data, const Fold& fold,
                        const GridFitter& fit, const ValidationProtocolOptions& options,
                        std::uint64_t seed) {
    const Stopwatch stopwatch;
    ValidationFold out;
    Matrix X_train = rows_of(data.X, fold.train), X_test = rows_of(data.X, fold.test);
    const Vector y_train = entries_of(data.y, fold.train), y_test = entries_of(data.y, fold.test);
    if (options.standardize) {
        const Standardizer standardizer = Standardizer::fit(X_train);
        X_train = standardizer.transform(X_train);
        X_test = standardizer.transform(X_test);
    }
    const ParameterGrid& grid = options.grid;
    std::size_t best = 0;
    if (grid.points.size() > 1) {
        // Stratified halves of the training rows: fit on one, validate on the other.
        const Index n = Index(fold.train.size());
        const Fold half = stratified_random_splits(y_train, 1, n - n / 2, seed).front();
        const std::vector<GridPointFit> fits = fit(backend, rows_of(X_train, half.train),
                                                   entries_of(y_train, half.train),
                                                   rows_of(X_train, half.test), grid);
        ZN_EXPECTS_DIM(fits.size() == grid.points.size(),
                       "the grid fitter returned " << fits.size() << " fits for "
                                                   << grid.points.size() << " grid points");
        const Vector y_validation = entries_of(y_train, half.test);
        for (std::size_t p = 0; p < fits.size(); ++p) {
            const double e = error_rate(fits[p].decision, y_validation);
            out.validation_errors.push_back(e);
            out.iterations += fits[p].iterations;
            note_status(out.status, out.message, fits[p]);
            const double e_best = out.validation_errors[best];
            if (e < e_best || (e == e_best && larger_point(grid.points[p], grid.points[best])))
                best = p;
        }
    }
    out.chosen = grid.points[best];
    ParameterGrid chosen;
    chosen.names = grid.names;
    chosen.points = {out.chosen};
    // The final model scores its training rows too, for the training error.
    Matrix X_score(X_train.rows() + X_test.rows(), X_train.cols());
    X_score << X_train, X_test;
    const GridPointFit final_fit = fit(backend, X_train, y_train, X_score, chosen).front();
    ZN_EXPECTS_DIM(final_fit.decision.size() == X_score.rows(),
                   "the grid fitter scored " << final_fit.decision.size() << " rows of "
                                             << X_score.rows());
    out.selected = final_fit.selected;
    out.own_choices = final_fit.own_choices;
    out.train_error = error_rate(final_fit.decision.head(X_train.rows()), y_train);
    out.error = error_rate(final_fit.decision.tail(X_test.rows()), y_test);
    out.iterations += final_fit.iterations;
    out.support_vectors = final_fit.support_vectors;
    if (final_fit.status != Status::Success) {  // the final model's status comes first
        out.status = final_fit.status;
        out.message = final_fit.message;
    }
    out.seconds = stopwatch.seconds();
    return out;
}

void check_folds(const Dataset& data, const std::vector<Fold>& folds) {
    ZN_EXPECTS(!folds.empty(), "validation protocol: no folds");
    check_two_class_labels(data.y, "validation protocol");
    for (std::size_t f = 0; f < folds.size(); ++f) {
        ZN_EXPECTS(!folds[f].train.empty() && !folds[f].test.empty(),
                   "validation protocol: fold " << f << " has an empty part");
        for (const IndexVector* part : {&folds[f].train, &folds[f].test})
            for (const Index i : *part)
                ZN_EXPECTS(i >= 0 && i < data.n_samples(),
                           "validation protocol: fold " << f << " names row " << i
                                                        << " of " << data.n_samples());
        Index plus = 0;
        for (const Index i : folds[f].train) plus += data.y[i] > 0 ? 1 : 0;
        const Index minus = Index(folds[f].train.size()) - plus;
        ZN_EXPECTS(std::min(plus, minus) >= 2,
                   "validation protocol: fold " << f << "'s training rows hold " << plus
                                                << " of class +1 and " << minus
                                                << " of class -1; each half needs both classes, "
                                                   "so at least 2 of each");
    }
}

}  // namespace

ValidationProtocolResult evaluate_validation_protocol(Backend& backend, const Dataset& data,
                                                      const std::vector<Fold>& folds,
                                                      const GridFitter& fit,
                                                      const ValidationProtocolOptions& options,
                                                      const ValidationFoldCallback& on_fold) {
    const Stopwatch stopwatch;
    options.validate();
    ZN_EXPECTS(bool(fit), "validation protocol: no grid fitter");
    check_folds(data, folds);
    ValidationProtocolResult result;
    result.parameter_names = options.grid.names;
    result.folds.resize(folds.size());
    detail::run_per_split(
        backend, folds.size(), options.threads,
        [&](Backend& worker, std::size_t f) {
            result.folds[f] = run_fold(worker, data, folds[f], fit, options, options.seed + f);
        },
        [&](std::size_t f) {
            if (on_fold) on_fold(f, folds.size(), result.folds[f]);
        });
    for (const ValidationFold& r : result.folds)
        if (result.status == Status::Success) result.status = r.status;
    const double k = double(folds.size());
    double sum = 0.0, features = 0.0, train_sum = 0.0;
    for (const ValidationFold& r : result.folds) {
        sum += r.error;
        train_sum += r.train_error;
        features += double(r.selected.size());
    }
    result.mean_error = sum / k;
    result.mean_train_error = train_sum / k;
    result.mean_features = features / k;
    double iterations = 0.0, support = 0.0;
    bool kernel_models = true;
    for (const ValidationFold& r : result.folds) {
        iterations += double(r.iterations);
        support += double(r.support_vectors);
        kernel_models = kernel_models && r.support_vectors >= 0;
    }
    result.mean_iterations = iterations / k;
    if (kernel_models) result.mean_support_vectors = support / k;
    double ss = 0.0;
    for (const ValidationFold& r : result.folds) ss += (r.error - result.mean_error) * (r.error - result.mean_error);
    result.std_error = folds.size() > 1 ? std::sqrt(ss / (k - 1.0) / k) : 0.0;
    result.seconds = stopwatch.seconds();
    return result;
}

// ---- fitters of the registered methods ------------------------------------------------------

namespace {

// The options at every grid point, set by name; a name the method does not take is refused.
std::vector<SelectionOptions> point_options(const std::string& method,
                                            const SelectionOptions& base,
                                            const ParameterGrid& grid) {
    std::set<std::string> taken;
    for (const ParameterInfo& p : find_ranker(method).info().parameters) taken.insert(p.name);
    for (const std::string& name : grid.names)
        ZN_EXPECTS(taken.count(name) > 0,
                   "--method " << method << " has no parameter " << name << " to search");
    std::vector<SelectionOptions> out;
    for (const std::vector<double>& point : grid.points) {
        out.push_back(base);
        for (std::size_t k = 0; k < grid.names.size(); ++k)
            out.back().set_parameter(grid.names[k], point[k]);
        out.back().dc.max_iterations = out.back().max_iterations;
    }
    return out;
}

GridPointFit fit_of(const DcResult& r, const Matrix& X_score) {
    GridPointFit out;
    out.decision = (X_score * r.w).array() + r.b;
    out.selected = r.selected;
    out.status = r.status;
    out.message = r.message;
    out.iterations = r.iterations;
    return out;
}

std::vector<GridPointFit> fits_of(const std::vector<DcResult>& rs, const Matrix& X_score) {
    std::vector<GridPointFit> out;
    for (const DcResult& r : rs) out.push_back(fit_of(r, X_score));
    return out;
}

// FS-SVMCP at every point; its C is its own (inner cross-validation) unless fs_svmcp.C fixes it.
std::vector<GridPointFit> fs_svmcp_fits(const Matrix& X, const Vector& y, const Matrix& X_score,
                                        const std::vector<SelectionOptions>& points) {
    std::vector<GridPointFit> out;
    for (const SelectionOptions& o : points) {
        const FsSvmcpResult r = train_fs_svmcp(X, y, o.fs_svmcp);
        GridPointFit fit;
        fit.decision = r.decision_function(X_score);
        fit.selected = r.selected;
        fit.status = r.status;
        fit.message = r.message;
        fit.iterations = std::int64_t(r.steps.size());
        fit.own_choices = {{"fs_svmcp.C", r.C}};
        out.push_back(std::move(fit));
    }
    return out;
}

// kta at every grid point: one DCA per distinct set of alignment options (the grid's lambdas),
// all of them through train_kta_batch (in lockstep where the backend prefers batches), then the
// SVM without bias for each point's svm_lambda on that DCA's theta.
std::vector<GridPointFit> kta_fits(Backend& backend, const Matrix& X, const Vector& y,
                                   const Matrix& X_score,
                                   const std::vector<SelectionOptions>& points) {
    std::vector<KtaOptions> options;  // each point's DCA options
    for (const SelectionOptions& point : points) {
        options.push_back(point.kta);
        options.back().max_iterations = point.max_iterations;
    }
    std::vector<std::size_t> firsts;  // the first point of each distinct DCA
    for (std::size_t p = 0; p < points.size(); ++p)
        if (std::none_of(firsts.begin(), firsts.end(),
                         [&](std::size_t q) { return options[q].same_dca(options[p]); }))
            firsts.push_back(p);
    std::vector<KtaOptions> dcas;
    for (const std::size_t p : firsts) dcas.push_back(options[p]);
    const std::vector<KtaResult> results = train_kta_batch(backend, X, y, dcas);
    std::vector<GridPointFit> out(points.size());
    for (std::size_t k = 0; k < firsts.size(); ++k) {
        const KtaOptions& kta = dcas[k];
        const KtaResult& r = results[k];
        out[firsts[k]].iterations = r.iterations;
        std::vector<std::size_t> members;  // the points of this DCA
        std::vector<double> svm_lambdas;
        for (std::size_t q = firsts[k]; q < points.size(); ++q) {
            if (!options[q].same_dca(kta)) continue;
            ZN_EXPECTS(points[q].final_smo.tolerance == points[firsts[k]].final_smo.tolerance &&
                           points[q].final_smo.max_iterations ==
                               points[firsts[k]].final_smo.max_iterations,
                       "kta grid: the final SVM's settings differ between grid points");
            members.push_back(q);
            svm_lambdas.push_back(points[q].kta.svm_lambda);
            GridPointFit& fit = out[q];
            fit.selected = r.selected;
            fit.status = r.status;
            if (r.status != Status::Success)
                fit.message = "kta: DCA stopped at its iteration cap (" +
                              std::to_string(r.iterations) + ")";
        }
        if (r.selected.empty()) {  // no feature: f = 0, every row +1
            for (const std::size_t q : members) {
                out[q].decision = Vector::Zero(X_score.rows());
                out[q].support_vectors = 0;
            }
            continue;
        }
        // The points' SVMs on this theta in one path over their weights (the final SVM's
        // settings are the protocol's, the same at every point).
        const std::vector<KtaClassifier> classifiers =
            train_kta_classifiers(backend, X, y, r.theta, r.selected, r.sigma, kta, svm_lambdas,
                                  points[members.front()].final_smo);
        for (std::size_t m = 0; m < members.size(); ++m) {
            GridPointFit& fit = out[members[m]];
            const KtaClassifier& c = classifiers[m];
            fit.decision = c.decision_function(backend, X_score);
            fit.support_vectors = c.model.n_support();
            if (c.dual.status != Status::Success && fit.status == Status::Success) {
                fit.status = c.dual.status;
                fit.message = "kta: the final SVM stopped at its step cap";
            }
        }
    }
    return out;
}

}  // namespace

bool has_validation_fitter(const std::string& method) {
    return method == SelectionMethod::Fsv || method == SelectionMethod::L2L1Svm ||
           method == SelectionMethod::L2L0Svm || method == SelectionMethod::Rlp ||
           method == SelectionMethod::QuadraticFsv || method == SelectionMethod::FsSvmcp ||
           method == SelectionMethod::Kta;
}

GridFitter validation_fitter(const std::string& method, const SelectionOptions& base) {
    ZN_EXPECTS(has_validation_fitter(method),
               "--method " << method << " has no validation-set protocol (fsv, l2-l1-svm, "
                              "l2-l0-svm, rlp, quadratic-fsv, fs-svmcp, kta have)");
    return [method, base](Backend& backend, const Matrix& X, const Vector& y,
                          const Matrix& X_score, const ParameterGrid& grid) {
        const std::vector<SelectionOptions> points = point_options(method, base, grid);
        if (method == SelectionMethod::FsSvmcp) return fs_svmcp_fits(X, y, X_score, points);
        if (method == SelectionMethod::Kta) return kta_fits(backend, X, y, X_score, points);
        const DcOptions& dc = points.front().dc;
        std::vector<double> lambda, mu, nu;
        for (const SelectionOptions& o : points) {
            lambda.push_back(o.dc.lambda);
            mu.push_back(o.dc.mu);
            nu.push_back(o.dc.nu);
        }
        if (method == SelectionMethod::Fsv) return fits_of(train_fsv_grid(X, y, lambda, dc), X_score);
        if (method == SelectionMethod::QuadraticFsv)
            return fits_of(train_quadratic_fsv_grid(X, y, lambda, dc), quadratic_features(X_score));
        if (method == SelectionMethod::L2L1Svm)
            return fits_of(train_l2_l1_svm_grid(backend, X, y, mu, nu, dc), X_score);
        if (method == SelectionMethod::L2L0Svm)
            return fits_of(train_l2_l0_svm_grid(backend, X, y, mu, nu, dc), X_score);
        // RLP has no parameters: one LP serves every point.
        const LpSvmResult lp = train_rlp(X, y);
        GridPointFit one;
        one.decision = lp.decision_function(X_score);
        one.selected = ranked_support(lp.w, dc.support_threshold);
        one.status = lp.status;
        one.message = lp.message;
        one.iterations = 1;
        return std::vector<GridPointFit>(points.size(), one);
    };
}

ParameterGrid paper_grid(const std::string& method) {
    ZN_EXPECTS(has_validation_fitter(method),
               "--method " << method << " has no validation-set protocol");
    if (method == SelectionMethod::Rlp || method == SelectionMethod::FsSvmcp)
        return ParameterGrid::product({}, {});
    if (method == SelectionMethod::Kta) {
        // lambda_s with (1 - lambda_s) / lambda_s = C = e^k: ties to the larger lambda_s are
        // ties to the smaller C, the paper's rule.
        std::vector<double> svm_lambda;
        for (int k = -5; k <= 5; ++k) svm_lambda.push_back(1.0 / (1.0 + std::exp(double(k))));
        return ParameterGrid::product(
            {"kta.lambda", "kta.svm_lambda"},
            {{0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}, svm_lambda});
    }
    if (method == SelectionMethod::Fsv || method == SelectionMethod::QuadraticFsv)
        return ParameterGrid::product(
            {"dc.lambda"}, {{0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95}});
    std::vector<double> nu, mu;
    for (int k = -5; k <= 5; ++k) nu.push_back(std::exp(double(k)));
    for (int k = 0; k <= 10; ++k) mu.push_back(std::exp(double(k)));
    return ParameterGrid::product({"dc.nu", "dc.mu"}, {nu, mu});
}

}  // namespace zeronorm
