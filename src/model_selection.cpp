#include "zeronorm/model_selection.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "dense_dual.hpp"
#include "split_runner.hpp"
#include "svm_batch.hpp"
#include "zeronorm/error.hpp"
#include "zeronorm/ops/smo_ops.hpp"
#include "zeronorm/preprocess.hpp"

namespace zeronorm {

void SvmEvaluationOptions::validate(Index n_features) const {
    svm.validate(n_features);
    for (const double C : C_grid)
        ZN_EXPECTS(C > 0 && !std::isnan(C), "C grid: every C must be positive, got " << C);
    if (std::any_of(C_grid.begin(), C_grid.end(), [](double C) { return std::isinf(C); }))
        ZN_EXPECTS(svm.smo.ridge > 0, "C grid: C = inf (hard margin) needs a positive ridge");
    ZN_EXPECTS(inner_folds >= 2, "inner_folds must be >= 2, got " << inner_folds);
    ZN_EXPECTS(threads >= 0, "threads must be >= 0, got " << threads);
    ZN_EXPECTS(!(standardize && svm.kernel.type == KernelType::Chi2),
               "the chi2 kernel needs non-negative features, which standardisation does not keep");
}

std::vector<double> SvmEvaluationOptions::grid() const {
    if (C_grid.empty()) return {svm.smo.C};
    std::vector<double> out = C_grid;
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

namespace {

IndexVector positive_entries(const Vector& beta) {
    IndexVector out;
    for (Index i = 0; i < beta.size(); ++i)
        if (beta[i] > 0) out.push_back(i);
    return out;
}

IndexVector pick(const IndexVector& indices, const IndexVector& positions) {
    IndexVector out;
    out.reserve(positions.size());
    for (const Index p : positions) out.push_back(indices[std::size_t(p)]);
    return out;
}

// The SVMs of one split: every problem trains on a subset of the split's (preprocessed) training
// rows. Their kernel matrix is computed once when it fits in max_kernel_mb, and every inner
// problem and prediction reads sub-blocks of it; otherwise SMO computes kernel columns on demand
// and predictions compute the kernel against the support vectors only.
class SplitProblems {
public:
    SplitProblems(Backend& backend, const Matrix& X, const Vector& y, const SvmOptions& options)
        : backend_(backend), spec_(options.kernel), y_(y), X_(backend.upload(X)) {
        const double n = double(X.rows());
        if (n * n * 8.0 / (1024.0 * 1024.0) <= options.max_kernel_mb)
            K_ = backend.kernel_matrix(spec_, X_, X_);
    }

    // SMO on the training rows `rows`, warm-started from `warm` (same length) when given.
    SmoResult solve(const IndexVector& rows, const SmoOptions& smo, const Vector* warm) {
        Vector y(Index(rows.size()));
        for (std::size_t k = 0; k < rows.size(); ++k) y[Index(k)] = y_[rows[k]];
        if (!K_.empty())
            return detail::solve_dense_dual(
                backend_, backend_.select_rows(backend_.select_columns(K_, rows), rows), y, smo,
                warm);
        return backend_.smo().solve(spec_, backend_.select_rows(X_, rows), y, smo, warm);
    }

    // Decision values of the SVM `r` (trained on `rows`) on the training rows `eval`, or on new
    // points when `X_new` is given.
    Vector decision(const SmoResult& r, const IndexVector& rows, const IndexVector& eval,
                    const Matrix* X_new = nullptr) {
        const IndexVector sv_pos = positive_entries(r.beta);
        const IndexVector sv = pick(rows, sv_pos);
        const Index n_eval = X_new ? X_new->rows() : Index(eval.size());
        if (sv.empty() || n_eval == 0) return Vector::Constant(n_eval, r.bias);
        Vector coef(Index(sv.size()));
        for (std::size_t k = 0; k < sv.size(); ++k)
            coef[Index(k)] = r.beta[sv_pos[k]] * y_[sv[k]];
        DeviceMatrix K_eval;
        if (X_new != nullptr)
            K_eval = backend_.kernel_matrix(spec_, backend_.upload(*X_new),
                                            backend_.select_rows(X_, sv));
        else if (!K_.empty())
            K_eval = backend_.select_rows(backend_.select_columns(K_, sv), eval);
        else
            K_eval = backend_.kernel_matrix(spec_, backend_.select_rows(X_, eval),
                                            backend_.select_rows(X_, sv));
        DeviceMatrix f = backend_.allocate(n_eval, 1);
        backend_.gemm(false, false, 1.0, K_eval, backend_.upload(coef), 0.0, f);
        return backend_.download(f).col(0).array() + r.bias;
    }

private:
    Backend& backend_;
    KernelSpec spec_;
    Vector y_;
    DeviceMatrix X_, K_;
};

double sign_error(const Vector& f, const Vector& y) {
    return error_rate(labels_from_decision(f), y);
}

}  // namespace

SvmSplitEvaluation evaluate_svm_split(Backend& backend, const Dataset& data, const Fold& split,
                                      const SvmEvaluationOptions& options, std::uint64_t seed) {
    const auto start = std::chrono::steady_clock::now();
    auto [train, test] = detail::split_data(data, split, options.standardize);
    if (options.svm.kernel.type == KernelType::Chi2)  // histograms: defined for x >= 0 only
        ZN_EXPECTS((train.X.array() >= 0).all() && (test.X.array() >= 0).all(),
                   "the chi2 kernel needs non-negative features");
    SplitProblems problems(backend, train.X, train.y, options.svm);
    const std::vector<double> grid = options.grid();
    SvmSplitEvaluation out;
    const auto record = [&out](const SmoResult& r) {
        out.iterations += r.iterations;
        if (out.status == Status::Success) out.status = r.status;
    };

    out.C = grid.front();
    if (grid.size() > 1) {
        const std::vector<Fold> inner = stratified_kfold(train.y, options.inner_folds, seed);
        out.inner_errors.assign(grid.size(), 0.0);
        for (const Fold& fold : inner) {
            Vector y_eval(Index(fold.test.size()));
            for (std::size_t k = 0; k < fold.test.size(); ++k)
                y_eval[Index(k)] = train.y[fold.test[k]];
            Vector warm;  // the previous (smaller) C's solution: still feasible for this C
            for (std::size_t c = 0; c < grid.size(); ++c) {
                SmoOptions smo = options.svm.smo;
                smo.C = grid[c];
                const SmoResult r = problems.solve(fold.train, smo, warm.size() ? &warm : nullptr);
                record(r);
                warm = r.beta;
                out.inner_errors[c] +=
                    sign_error(problems.decision(r, fold.train, fold.test), y_eval) /
                    double(inner.size());
            }
        }
        // Lowest mean inner error; ties go to the smaller C (the first in ascending order).
        out.C = grid[std::size_t(std::min_element(out.inner_errors.begin(), out.inner_errors.end()) -
                                 out.inner_errors.begin())];
    }

    IndexVector all(std::size_t(train.n_samples()));
    for (Index i = 0; i < train.n_samples(); ++i) all[std::size_t(i)] = i;
    SmoOptions smo = options.svm.smo;
    smo.C = out.C;
    const SmoResult final_fit = problems.solve(all, smo, nullptr);
    record(final_fit);
    out.n_support = Index(positive_entries(final_fit.beta).size());
    out.error = sign_error(problems.decision(final_fit, all, {}, &test.X), test.y);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

SvmEvaluation evaluate_svm(BackendKind kind, int device, const Dataset& data,
                           const std::vector<Fold>& splits, const SvmEvaluationOptions& options,
                           const SvmSplitCallback& on_split) {
    const auto start = std::chrono::steady_clock::now();
    data.validate();
    options.validate(data.n_features());
    detail::check_splits(splits, data.n_samples(), "evaluate_svm");
    for (Index i = 0; i < data.y.size(); ++i)
        ZN_EXPECTS(data.y[i] == 1.0 || data.y[i] == -1.0,
                   "evaluate_svm needs labels +1/-1; label of sample " << i << " is " << data.y[i]);

    SvmEvaluation result;
    if (detail::runs_batched(options.schedule, kind == BackendKind::Cuda,
                             detail::why_not_batched(data, splits, options), "evaluate_svm")) {
        auto backend = make_backend(kind, device);
        result.splits = detail::evaluate_svm_batched(
            *backend, data, splits, options,
            [&](std::size_t f, const SvmSplitEvaluation& e) {
                if (on_split) on_split(f, splits.size(), e);
            },
            result.batch_phases);
        result.batched = true;
    } else {
        result.splits.resize(splits.size());
        detail::run_per_split(
            kind, device, splits.size(), options.threads,
            [&](Backend& backend, std::size_t f) {
                result.splits[f] =
                    evaluate_svm_split(backend, data, splits[f], options, options.seed + f);
            },
            [&](std::size_t f) {
                if (on_split) on_split(f, splits.size(), result.splits[f]);
            });
    }

    std::vector<double> errors;
    for (const SvmSplitEvaluation& s : result.splits) {
        errors.push_back(s.error);
        if (result.status == Status::Success) result.status = s.status;
    }
    const detail::MeanAndError m = detail::mean_and_std_error(errors);
    result.mean_error = m.mean;
    result.std_error = m.std_error;
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

}  // namespace zeronorm
