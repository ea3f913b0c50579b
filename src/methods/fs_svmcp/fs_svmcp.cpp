// FS-SVMCP (Rinaldi & Sciandrone 2010, sec. 4.1); the algorithm is written out in
// include/zeronorm/methods/fs_svmcp.hpp.
#include "zeronorm/methods/fs_svmcp.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <utility>

#include "core/stopwatch.hpp"
#include "solvers/labels.hpp"
#include "solvers/linear_svm_gram.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/methods/dc_svm.hpp"

namespace zeronorm {

ConcaveSurrogate parse_concave_surrogate(const std::string& name) {
    if (name == "exp") return ConcaveSurrogate::Exponential;
    if (name == "log") return ConcaveSurrogate::Logarithm;
    if (name == "power") return ConcaveSurrogate::Power;
    if (name == "inverse-power") return ConcaveSurrogate::InversePower;
    throw InvalidArgument("unknown concave surrogate '" + name +
                          "' (expected exp, log, power or inverse-power)");
}

std::string to_string(ConcaveSurrogate surrogate) {
    switch (surrogate) {
        case ConcaveSurrogate::Exponential: return "exp";
        case ConcaveSurrogate::Logarithm: return "log";
        case ConcaveSurrogate::Power: return "power";
        case ConcaveSurrogate::InversePower: break;
    }
    return "inverse-power";
}

void FsSvmcpOptions::validate() const {
    ZN_EXPECTS(std::isfinite(epsilon) && epsilon > 0,
               "epsilon must be finite and > 0, got " << epsilon);
    ZN_EXPECTS(std::isfinite(alpha) && alpha > 0, "alpha must be finite and > 0, got " << alpha);
    if (surrogate == ConcaveSurrogate::Power)
        ZN_EXPECTS(p > 0 && p < 1, "p must be in (0, 1) for the power surrogate (10), got " << p);
    if (surrogate == ConcaveSurrogate::InversePower)
        ZN_EXPECTS(p >= 1 && std::isfinite(p),
                   "p must be finite and >= 1 for the inverse-power surrogate (11), got " << p);
    ZN_EXPECTS(std::isfinite(C) && C >= 0, "C must be finite and >= 0 (0: cross-validated), got "
                                               << C);
    ZN_EXPECTS(C > 0 || !C_grid.empty(), "C_grid is empty: give C > 0 or grid values");
    for (std::size_t k = 0; k < C_grid.size(); ++k)
        ZN_EXPECTS(std::isfinite(C_grid[k]) && C_grid[k] > 0,
                   "C_grid[" << k << "] must be finite and > 0, got " << C_grid[k]);
    ZN_EXPECTS(folds >= 2, "folds must be >= 2, got " << folds);
    ZN_EXPECTS(std::isfinite(svm_tolerance) && svm_tolerance > 0,
               "svm_tolerance must be finite and > 0, got " << svm_tolerance);
    ZN_EXPECTS(svm_max_iterations >= 1,
               "svm_max_iterations must be >= 1, got " << svm_max_iterations);
    ZN_EXPECTS(zero_tolerance >= 0 && zero_tolerance < 1,
               "zero_tolerance must be in [0, 1), got " << zero_tolerance);
}

Vector concave_surrogate_gradient(const Vector& z, const FsSvmcpOptions& o) {
    switch (o.surrogate) {
        case ConcaveSurrogate::Exponential:
            return o.alpha * (-o.alpha * z.array()).exp();
        case ConcaveSurrogate::Logarithm:
            return (o.epsilon + z.array()).inverse();
        case ConcaveSurrogate::Power:
            return o.p * (z.array() + o.epsilon).pow(o.p - 1.0);
        case ConcaveSurrogate::InversePower:
            break;
    }
    return o.p * (z.array() + o.epsilon).pow(-o.p - 1.0);
}

Vector FsSvmcpResult::decision_function(const Matrix& X) const {
    ZN_EXPECTS_DIM(X.cols() == w.size(),
                   "decision_function: X has " << X.cols() << " columns, w has " << w.size());
    return (X * w).array() + b;
}

Vector FsSvmcpResult::predict(const Matrix& X) const {
    return decision_function(X).unaryExpr([](double f) { return f >= 0 ? 1.0 : -1.0; });
}

namespace {

Matrix submatrix(const Matrix& X, const IndexVector& rows, const IndexVector& cols) {
    Matrix out(Index(rows.size()), Index(cols.size()));
    for (std::size_t c = 0; c < cols.size(); ++c)
        for (std::size_t r = 0; r < rows.size(); ++r)
            out(Index(r), Index(c)) = X(rows[r], cols[c]);
    return out;
}

Dataset make_dataset(Matrix X, Vector y) {
    Dataset data;
    data.X = std::move(X);
    data.y = std::move(y);
    return data;
}

IndexVector all_indices(Index n) {
    IndexVector v(static_cast<std::size_t>(n));
    std::iota(v.begin(), v.end(), Index(0));
    return v;
}

// Fold of every row: each class shuffled and dealt round-robin, continuing across classes, so
// both classes of a +-1 problem with >= 2 samples each appear in every training part.
std::vector<int> stratified_fold_of(const Vector& y, int folds, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<int> fold(static_cast<std::size_t>(y.size()), 0);
    int next = 0;
    for (const double label : {-1.0, 1.0}) {
        IndexVector members;
        for (Index i = 0; i < y.size(); ++i)
            if (y[i] == label) members.push_back(i);
        ZN_EXPECTS(members.size() >= 2, "cross-validation of C needs at least 2 samples of each "
                                        "class; class " << label << " has " << members.size());
        std::shuffle(members.begin(), members.end(), rng);
        for (const Index i : members) fold[std::size_t(i)] = next++ % folds;
    }
    return fold;
}

LinearSvmOptions svm_options(const FsSvmcpOptions& o, double C) {
    LinearSvmOptions svm;
    svm.loss = o.loss;
    svm.C = C;
    svm.tolerance = o.svm_tolerance;
    svm.max_iterations = o.svm_max_iterations;
    svm.seed = o.seed;
    return svm;
}

}  // namespace

double select_linear_svm_C(const Dataset& data, const FsSvmcpOptions& options, double* cv_error) {
    options.validate();
    const Index n = data.n_samples();
    ZN_EXPECTS(n >= options.folds,
               "cross-validation of C: " << options.folds << " folds need at least as many "
                                         << "samples, got " << n);
    const std::vector<int> fold = stratified_fold_of(data.y, options.folds, options.seed);
    const IndexVector columns = all_indices(data.n_features());
    std::vector<Dataset> train(std::size_t(options.folds));
    std::vector<Dataset> test(std::size_t(options.folds));
    // Far fewer samples than features: one Gram matrix of all rows serves every fold and C
    // (the linear SVM's Gram form, linear_svm_gram.hpp).
    const LinearSvmOptions svm = svm_options(options, options.C_grid.front());
    Matrix gram;
    std::vector<Matrix> train_gram(std::size_t(options.folds));  // empty: not in Gram form
    for (int k = 0; k < options.folds; ++k) {
        IndexVector in, out;
        for (Index i = 0; i < n; ++i) (fold[std::size_t(i)] == k ? out : in).push_back(i);
        if (detail::linear_svm_gram_form(Index(in.size()), data.n_features(), svm)) {
            if (gram.size() == 0) gram = detail::linear_svm_gram(data.X, svm);
            train_gram[std::size_t(k)] = submatrix(gram, in, in);
        }
        const auto labels = [&](const IndexVector& rows) {
            Vector y(Index(rows.size()));
            for (std::size_t r = 0; r < rows.size(); ++r) y[Index(r)] = data.y[rows[r]];
            return y;
        };
        train[std::size_t(k)] = make_dataset(submatrix(data.X, in, columns), labels(in));
        test[std::size_t(k)] = make_dataset(submatrix(data.X, out, columns), labels(out));
    }
    double best_C = options.C_grid.front();
    Index best_errors = n + 1;
    std::vector<double> grid = options.C_grid;
    std::sort(grid.begin(), grid.end());  // ties go to the smallest C
    for (const double C : grid) {
        Index errors = 0;
        for (int k = 0; k < options.folds; ++k) {
            const Dataset& part = test[std::size_t(k)];
            const Dataset& fit = train[std::size_t(k)];
            const Matrix& fit_gram = train_gram[std::size_t(k)];
            const LinearSvmOptions o = svm_options(options, C);
            const Vector predicted = (fit_gram.size() > 0
                                          ? detail::train_linear_svm_with_gram(fit, o, fit_gram)
                                          : train_linear_svm(fit, o))
                                         .predict(part.X);
            errors += (predicted.array() != part.y.array()).count();
        }
        if (errors < best_errors) {
            best_errors = errors;
            best_C = C;
        }
    }
    if (cv_error != nullptr) *cv_error = double(best_errors) / double(n);
    return best_C;
}

FsSvmcpResult train_fs_svmcp(const Matrix& X, const Vector& y, const FsSvmcpOptions& options) {
    const Stopwatch stopwatch;
    options.validate();
    ZN_EXPECTS_DIM(y.size() == X.rows(),
                   "FS-SVMCP: y has " << y.size() << " labels but X has " << X.rows() << " rows");
    ZN_EXPECTS(X.cols() >= 1, "FS-SVMCP needs at least one feature");
    check_two_class_labels(y, "FS-SVMCP");
    ZN_EXPECTS(X.allFinite(), "FS-SVMCP: X has a value that is not finite");

    const Index n = X.rows();
    const IndexVector rows = all_indices(n);
    FsSvmcpResult result;
    IndexVector subspace = all_indices(X.cols());
    for (;;) {
        FsSvmcpStep step;
        step.subspace = subspace;
        const Dataset sub = make_dataset(submatrix(X, rows, subspace), y);
        // Step (1): the SVM (14) in W, C by cross-validation at every step (sec. 5.1).
        step.C = options.C > 0 ? options.C : select_linear_svm_C(sub, options, &step.cv_error);
        step.svm = train_linear_svm(sub, svm_options(options, step.C));
        step.svm_nonzeros = (step.svm.w.array() != 0.0).count();
        if (step.svm.status != Status::Success && result.status == Status::Success) {
            result.status = step.svm.status;
            result.message = "the linear SVM on " + std::to_string(subspace.size()) +
                             " features stopped at its iteration cap";
        }

        // Step (2): I, then LP (15) with costs grad F(|w*|) (a vertex, by the simplex method).
        const Vector f = step.svm.decision_function(sub.X);
        for (Index i = 0; i < n; ++i)
            if (y[i] * f[i] > 0) step.correct.push_back(i);
        step.costs = concave_surrogate_gradient(step.svm.w.cwiseAbs(), options);
        Vector y_correct(Index(step.correct.size()));
        for (std::size_t r = 0; r < step.correct.size(); ++r)
            y_correct[Index(r)] = y[step.correct[r]];
        const bool both_classes =
            (y_correct.array() > 0).any() && (y_correct.array() < 0).any();
        bool shrinks = false;
        if (both_classes) {
            L1SvmOptions lp;
            lp.C = lp_infinity;  // hard margin on I: no slacks in (15)
            // Costs divided by their geometric mean: the same argmin, and the spread of
            // (z + 1e-6)^-2 stays on both sides of 1 within the simplex tolerances.
            lp.feature_costs = step.costs / std::exp(step.costs.array().log().mean());
            lp.zero_tolerance = options.zero_tolerance;
            step.lp = train_l1_svm(submatrix(X, step.correct, subspace), y_correct, lp);
            step.lp_nonzeros = step.lp.n_nonzero;
            if (!step.lp.optimal() && result.status == Status::Success) {
                result.status = Status::NumericalIssue;
                result.message = "LP (15) on " + std::to_string(subspace.size()) +
                                 " features ended without an optimal vertex: " + step.lp.message;
            }
            // An empty support (|w^|_0 = 0) cannot happen with both classes in I.
            shrinks = step.lp.optimal() && step.lp_nonzeros < step.svm_nonzeros &&
                      step.lp_nonzeros > 0;
        }
        result.steps.push_back(step);
        if (!shrinks) break;
        IndexVector next;
        for (const Index k : step.lp.selected) next.push_back(subspace[std::size_t(k)]);
        subspace = std::move(next);  // lp.selected is ascending, so subspace stays ascending
    }

    const FsSvmcpStep& last = result.steps.back();
    result.w = Vector::Zero(X.cols());
    for (std::size_t k = 0; k < last.subspace.size(); ++k)
        result.w[last.subspace[k]] = last.svm.w[Index(k)];
    result.b = last.svm.bias;
    result.C = last.C;
    result.selected = ranked_support(result.w, 0.0);
    result.seconds = stopwatch.seconds();
    return result;
}

}  // namespace zeronorm
