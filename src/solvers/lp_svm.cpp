// l1-norm SVM and RLP as simplex LPs; the problems are written out in include/zeronorm/solvers/lp_svm.hpp.
#include "zeronorm/solvers/lp_svm.hpp"

#include <cmath>
#include <vector>

#include "core/stopwatch.hpp"
#include "solvers/labels.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm {

namespace {

void check_data(const Matrix& X, const Vector& y, const char* who) {
    ZN_EXPECTS_DIM(y.size() == X.rows(), who << ": y has " << y.size() << " labels but X has "
                                             << X.rows() << " rows");
    ZN_EXPECTS(X.rows() >= 2, who << ": need at least 2 samples, got " << X.rows());
    check_two_class_labels(y, who);
    for (Index j = 0; j < X.cols(); ++j)
        for (Index i = 0; i < X.rows(); ++i)
            ZN_EXPECTS(std::isfinite(X(i, j)),
                       who << ": X(" << i << ", " << j << ") = " << X(i, j) << " is not finite");
}

// Builds and solves
//   min sum_j c_j |w_j| + C sum_i s_i xi_i  s.t.  y_i (sum_j w_j z_j x_ij + b) + xi_i >= 1
// (no xi for C = +inf). Columns: per kept feature u_j, v_j >= 0 (c_j > 0) or one free w_j
// (c_j = 0), then b (free), then xi_1..xi_n >= 0. Rows: one per sample, lower bound 1.
LpSvmResult solve_lp_svm(const Matrix& X, const Vector& y, const Vector& c, const Vector& z,
                         const Vector& s, double C, double zero_tolerance,
                         const LpOptions& lp_options, const LpBasis& start = {}) {
    const Stopwatch stopwatch;
    const Index n = X.rows();
    const Index d = X.cols();
    const bool hard = std::isinf(C);
    const bool scaled = z.size() == d;

    // first_col[j]: first LP column of feature j (-1 when z_j = 0 drops it).
    std::vector<Index> first_col(static_cast<std::size_t>(d), -1);
    std::vector<bool> split(static_cast<std::size_t>(d), false);
    Index n_cols = 0;
    Index nnz = 0;
    for (Index j = 0; j < d; ++j) {
        if (scaled && z[j] == 0.0) continue;
        const auto uj = static_cast<std::size_t>(j);
        first_col[uj] = n_cols;
        split[uj] = c[j] > 0.0;
        const Index copies = split[uj] ? 2 : 1;
        n_cols += copies;
        nnz += copies * (X.col(j).array() != 0.0).count();
    }
    const Index b_col = n_cols++;
    const Index xi_col = n_cols;
    if (!hard) n_cols += n;
    nnz += n + (hard ? 0 : n);

    LinearProgram lp;
    lp.c = Vector::Zero(n_cols);
    lp.col_lower = Vector::Zero(n_cols);
    lp.col_upper = Vector::Constant(n_cols, lp_infinity);
    lp.row_lower = Vector::Ones(n);
    lp.row_upper = Vector::Constant(n, lp_infinity);
    lp.A.resize(n, n_cols);
    lp.A.reserve(nnz);
    for (Index j = 0; j < d; ++j) {
        const Index col = first_col[static_cast<std::size_t>(j)];
        if (col < 0) continue;
        const double zj = scaled ? z[j] : 1.0;
        const bool is_split = split[static_cast<std::size_t>(j)];
        for (Index copy = 0; copy < (is_split ? 2 : 1); ++copy) {
            const double sign = copy == 0 ? 1.0 : -1.0;
            lp.A.startVec(col + copy);
            for (Index i = 0; i < n; ++i) {
                const double value = sign * y[i] * zj * X(i, j);
                if (value != 0.0) lp.A.insertBack(i, col + copy) = value;
            }
        }
        if (is_split) {
            lp.c[col] = lp.c[col + 1] = c[j];
        } else {
            lp.col_lower[col] = -lp_infinity;
        }
    }
    lp.A.startVec(b_col);
    for (Index i = 0; i < n; ++i) lp.A.insertBack(i, b_col) = y[i];
    lp.col_lower[b_col] = -lp_infinity;
    if (!hard) {
        for (Index i = 0; i < n; ++i) {
            lp.A.startVec(xi_col + i);
            lp.A.insertBack(i, xi_col + i) = 1.0;
            lp.c[xi_col + i] = C * (s.size() == n ? s[i] : 1.0);
        }
    }
    lp.A.finalize();

    const bool fits = start.status.size() == std::size_t(lp.n_cols() + lp.n_rows());
    const LpResult sol = solve_lp(lp, lp_options, fits ? start : LpBasis{});

    LpSvmResult result;
    result.status = sol.status;
    result.message = sol.message;
    result.iterations = sol.iterations;
    result.objective = sol.objective;
    result.alpha = sol.duals;
    result.basis = sol.basis;
    result.w = Vector::Zero(d);
    for (Index j = 0; j < d; ++j) {
        const Index col = first_col[static_cast<std::size_t>(j)];
        if (col < 0) continue;
        result.w[j] = split[static_cast<std::size_t>(j)] ? sol.x[col] - sol.x[col + 1] : sol.x[col];
    }
    result.b = sol.x[b_col];
    result.xi = hard ? Vector::Zero(n) : Vector(sol.x.segment(xi_col, n));
    result.weights_original = scaled ? Vector(result.w.cwiseProduct(z)) : result.w;

    const double w_max = d > 0 ? result.w.cwiseAbs().maxCoeff() : 0.0;
    for (Index j = 0; j < d; ++j)
        if (w_max > 0.0 && std::abs(result.w[j]) > zero_tolerance * w_max)
            result.selected.push_back(j);
    result.n_nonzero = static_cast<Index>(result.selected.size());
    result.seconds = stopwatch.seconds();
    return result;
}

}  // namespace

void L1SvmOptions::validate(Index n_samples, Index n_features) const {
    ZN_EXPECTS(!std::isnan(C) && C > 0.0,
               "L1SvmOptions.C must be > 0 (+inf for a hard margin), got " << C);
    ZN_EXPECTS_DIM(feature_costs.size() == 0 || feature_costs.size() == n_features,
                   "L1SvmOptions.feature_costs has " << feature_costs.size() << " entries but X has "
                                                     << n_features << " features");
    for (Index j = 0; j < feature_costs.size(); ++j)
        ZN_EXPECTS(std::isfinite(feature_costs[j]) && feature_costs[j] >= 0.0,
                   "L1SvmOptions.feature_costs[" << j << "] must be finite and >= 0, got "
                                                 << feature_costs[j]);
    ZN_EXPECTS_DIM(feature_scaling.size() == 0 || feature_scaling.size() == n_features,
                   "L1SvmOptions.feature_scaling has " << feature_scaling.size()
                                                       << " entries but X has " << n_features
                                                       << " features");
    for (Index j = 0; j < feature_scaling.size(); ++j)
        ZN_EXPECTS(std::isfinite(feature_scaling[j]),
                   "L1SvmOptions.feature_scaling[" << j << "] must be finite, got "
                                                   << feature_scaling[j]);
    ZN_EXPECTS_DIM(sample_weights.size() == 0 || sample_weights.size() == n_samples,
                   "L1SvmOptions.sample_weights has " << sample_weights.size()
                                                      << " entries but X has " << n_samples
                                                      << " samples");
    for (Index i = 0; i < sample_weights.size(); ++i)
        ZN_EXPECTS(std::isfinite(sample_weights[i]) && sample_weights[i] >= 0.0,
                   "L1SvmOptions.sample_weights[" << i << "] must be finite and >= 0, got "
                                                  << sample_weights[i]);
    ZN_EXPECTS(std::isfinite(zero_tolerance) && zero_tolerance >= 0.0 && zero_tolerance < 1.0,
               "L1SvmOptions.zero_tolerance must be in [0, 1), got " << zero_tolerance);
    lp.validate();
}

void RlpOptions::validate() const {
    ZN_EXPECTS(weighting == RlpWeighting::Uniform || weighting == RlpWeighting::ClassBalanced,
               "RlpOptions.weighting is not a known RlpWeighting (" << static_cast<int>(weighting)
                                                                    << ")");
    ZN_EXPECTS(std::isfinite(zero_tolerance) && zero_tolerance >= 0.0 && zero_tolerance < 1.0,
               "RlpOptions.zero_tolerance must be in [0, 1), got " << zero_tolerance);
    lp.validate();
}

LpSvmResult train_l1_svm(const Matrix& X, const Vector& y, const L1SvmOptions& options) {
    check_data(X, y, "train_l1_svm");
    options.validate(X.rows(), X.cols());
    const Vector c = options.feature_costs.size() == 0 ? Vector::Ones(X.cols())
                                                       : options.feature_costs;
    return solve_lp_svm(X, y, c, options.feature_scaling, options.sample_weights, options.C,
                        options.zero_tolerance, options.lp, options.start);
}

LpSvmResult train_rlp(const Matrix& X, const Vector& y, const RlpOptions& options) {
    check_data(X, y, "train_rlp");
    options.validate();
    const Index n = X.rows();
    Vector p = Vector::Ones(n);
    if (options.weighting == RlpWeighting::ClassBalanced) {
        const double n_pos = static_cast<double>((y.array() > 0.0).count());
        const double n_neg = static_cast<double>(n) - n_pos;
        for (Index i = 0; i < n; ++i) p[i] = y[i] > 0 ? 1.0 / n_pos : 1.0 / n_neg;
    }
    return solve_lp_svm(X, y, Vector::Zero(X.cols()), Vector(), p, 1.0, options.zero_tolerance,
                        options.lp);
}

Vector LpSvmResult::decision_function(const Matrix& X) const {
    ZN_EXPECTS_DIM(X.cols() == weights_original.size(),
                   "LpSvmResult::decision_function: X has " << X.cols() << " columns but the model has "
                                                             << weights_original.size()
                                                             << " features");
    return (X * weights_original).array() + b;
}

Vector LpSvmResult::predict(const Matrix& X) const {
    const Vector f = decision_function(X);
    return f.unaryExpr([](double v) { return v >= 0.0 ? 1.0 : -1.0; });
}

}  // namespace zeronorm
