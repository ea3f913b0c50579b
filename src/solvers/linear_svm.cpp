// Linear SVM by dual coordinate descent.
//
// Problem (primal), with x~_i = [x_i; B] when bias_feature B > 0 and x~_i = x_i otherwise:
//   min_w  P(w) = 1/2 |w|^2 + C sum_i xi(w; x~_i, y_i)
//   xi = max(0, 1 - y_i w.x~_i)      (L1-loss, LinearLoss::Hinge)
//   xi = max(0, 1 - y_i w.x~_i)^2    (L2-loss, LinearLoss::SquaredHinge)
// Dual (Hsieh et al. 2008, eq. (4)):
//   min_alpha  f(alpha) = 1/2 alpha^T Q_bar alpha - e^T alpha,  0 <= alpha_i <= U
//   Q_bar = Q + D,  Q_ij = y_i y_j x~_i.x~_j,
//   L1-loss: U = C,   D_ii = 0;     L2-loss: U = inf, D_ii = 1/(2C).
// The primal is recovered as w = sum_i y_i alpha_i x~_i (eq. (3)) and kept up to date after every
// coordinate step, so the partial gradient costs one dot product (eq. (10)):
//   G_i = y_i w.x~_i - 1 + D_ii alpha_i.
//
// Reference: C.-J. Hsieh, K.-W. Chang, C.-J. Lin, S. S. Keerthi, S. Sundararajan, "A Dual
// Coordinate Descent Method for Large-scale Linear SVM", ICML 2008: Algorithm 1 (one-variable
// Newton steps in a random order, eq. (7)-(9)) with the shrinking of Algorithm 3 (eq. (14)-(15))
// and the stopping rule used by LIBLINEAR: the spread of the projected gradient over the active
// set, max PG - min PG, is at most `tolerance`; when that holds on a shrunken set, the set is
// restored and the rule must hold again over all n variables before the solver stops.
#include "core/stopwatch.hpp"
#include "solvers/labels.hpp"
#include "zeronorm/solvers/linear_svm.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/stopwatch.hpp"
#include "solvers/labels.hpp"
#include "solvers/linear_svm_gram.hpp"
#include "solvers/sparse_rows.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm {

void LinearSvmOptions::validate() const {
    ZN_EXPECTS(loss == LinearLoss::Hinge || loss == LinearLoss::SquaredHinge,
               "LinearSvmOptions.loss must be Hinge or SquaredHinge, got "
                   << static_cast<int>(loss));
    ZN_EXPECTS(std::isfinite(C) && C > 0.0,
               "LinearSvmOptions.C must be positive and finite, got " << C);
    ZN_EXPECTS(std::isfinite(bias_feature),
               "LinearSvmOptions.bias_feature must be finite (<= 0 disables the bias), got "
                   << bias_feature);
    ZN_EXPECTS(std::isfinite(tolerance) && tolerance > 0.0,
               "LinearSvmOptions.tolerance must be positive and finite, got " << tolerance);
    ZN_EXPECTS(max_iterations > 0,
               "LinearSvmOptions.max_iterations must be positive, got " << max_iterations);
}

Vector LinearSvmResult::decision_function(const Matrix& X) const {
    ZN_EXPECTS_DIM(X.cols() == w.size(), "decision_function: X has " << X.cols()
                                             << " columns but the model has " << w.size()
                                             << " weights");
    Vector f = X * w;
    f.array() += bias;
    return f;
}

Vector LinearSvmResult::predict(const Matrix& X) const {
    return decision_function(X).unaryExpr([](double v) { return v < 0.0 ? -1.0 : 1.0; });
}

namespace {

// Uniform integer in [0, k) from the raw 64-bit stream. std::uniform_int_distribution is not
// specified bit-for-bit, so it would make the coordinate order (and thus the iterate) differ
// between standard libraries for the same seed; rejection sampling keeps it portable.
std::size_t uniform_below(std::mt19937_64& rng, std::size_t k) {
    const std::uint64_t range = static_cast<std::uint64_t>(k);
    const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() -
                                std::numeric_limits<std::uint64_t>::max() % range;
    std::uint64_t r = rng();
    while (r >= limit) r = rng();
    return static_cast<std::size_t>(r % range);
}

LinearSvmResult train(const Dataset& data, const LinearSvmOptions& options, const Matrix* given_gram);

}  // namespace

LinearSvmResult train_linear_svm(const Dataset& data, const LinearSvmOptions& options) {
    return train(data, options, nullptr);
}

namespace detail {

bool linear_svm_gram_form(Index n_samples, Index n_features, const LinearSvmOptions& options) {
    return 4 * n_samples < n_features + (options.bias_feature > 0.0 ? 1 : 0);
}

Matrix linear_svm_gram(const Matrix& X, const LinearSvmOptions& options) {
    Matrix gram = Matrix::Zero(X.rows(), X.rows());  // one triangle by a rank update, mirrored
    gram.selfadjointView<Eigen::Lower>().rankUpdate(X);
    gram.triangularView<Eigen::StrictlyUpper>() = gram.transpose();
    if (options.bias_feature > 0.0) gram.array() += options.bias_feature * options.bias_feature;
    return gram;
}

LinearSvmResult train_linear_svm_with_gram(const Dataset& data, const LinearSvmOptions& options,
                                           const Matrix& gram) {
    ZN_EXPECTS_DIM(gram.rows() == data.n_samples() && gram.cols() == data.n_samples(),
                   "train_linear_svm: the Gram matrix is " << gram.rows() << " x " << gram.cols()
                                                           << " for " << data.n_samples()
                                                           << " samples");
    return train(data, options, &gram);
}

}  // namespace detail

namespace {

LinearSvmResult train(const Dataset& data, const LinearSvmOptions& options, const Matrix* given_gram) {
    const Stopwatch stopwatch;
    options.validate();
    // A given Gram matrix comes with rows of data its caller has validated (a cross-validation
    // over C fits the same rows many times): no second pass over them.
    if (given_gram == nullptr) data.validate();
    const Index n = data.n_samples();
    const Index d = data.n_features();
    ZN_EXPECTS_DIM(data.y.size() == n,
                   "train_linear_svm: X has " << n << " rows but y has " << data.y.size());
    check_two_class_labels(data.y, "train_linear_svm");

    const bool use_bias = options.bias_feature > 0.0;
    const Index dd = d + (use_bias ? 1 : 0);
    const double C = options.C;
    const bool l1_loss = options.loss == LinearLoss::Hinge;
    // D_ii and U of the dual (see the header comment).
    const double D_ii = l1_loss ? 0.0 : 0.5 / C;
    const double U = l1_loss ? C : std::numeric_limits<double>::infinity();
    const double inf = std::numeric_limits<double>::infinity();
    const bool shrinking = options.shrinking;

    // Samples as contiguous columns of x~ (dd x n): each coordinate step reads one of them. With
    // a given Gram matrix the steps read only it (the Gram form): no copy, no sparsity scan.
    const bool given = given_gram != nullptr;
    Matrix Xt;
    if (!given) {
        Xt.resize(dd, n);
        Xt.topRows(d) = data.X.transpose();
        if (use_bias) Xt.row(d).setConstant(options.bias_feature);
    }
    const Vector& y = data.y;
    // Mostly-zero data: the coordinate steps read only the non-zeros of x~_i.
    const detail::SparseRows sparse =
        given ? detail::SparseRows() : detail::SparseRows::of_columns(Xt);


    Vector alpha = Vector::Zero(n);
    Vector w = Vector::Zero(dd);
    // Dense data with far fewer samples than features (gene expression): the margins w.x~_j of
    // all samples are kept up to date through the Gram matrix, O(n) per coordinate step instead
    // of O(d) (one GEMM first); w = sum_i alpha_i y_i x~_i is formed at the end.
    // The Gram matrix may be given (shared by the fits of a cross-validation over C).
    const bool gram_form =
        given || (sparse.empty() && detail::linear_svm_gram_form(n, d, options));
    Matrix own_gram;
    if (gram_form && !given) own_gram = detail::linear_svm_gram(data.X, options);
    const Matrix& gram = given ? *given_gram : own_gram;
    // Q_bar_ii = x~_i.x~_i + D_ii (eq. (6)), from the Gram matrix in the Gram form.
    Vector Q_bar_ii = gram_form ? Vector(gram.diagonal())
                                : Vector(Xt.colwise().squaredNorm().transpose());
    Q_bar_ii.array() += D_ii;
    Vector margin;  // w.x~_j, gram form only
    if (gram_form) margin = Vector::Zero(n);
    std::vector<Index> index(static_cast<std::size_t>(n));
    for (Index i = 0; i < n; ++i) index[static_cast<std::size_t>(i)] = i;
    std::mt19937_64 rng(options.seed);

    // Shrinking thresholds M_bar, m_bar of Algorithm 3: the previous pass's max and min PG.
    double PG_max_old = inf;
    double PG_min_old = -inf;
    std::size_t active_size = static_cast<std::size_t>(n);
    std::int64_t iter = 0;
    Status status = Status::NoConvergence;

    while (iter < options.max_iterations) {
        double PG_max_new = -inf;
        double PG_min_new = inf;

        for (std::size_t s = 0; s + 1 < active_size; ++s) {
            std::swap(index[s], index[s + uniform_below(rng, active_size - s)]);
        }

        for (std::size_t s = 0; s < active_size;) {
            const Index i = index[s];
            const double y_i = y(i);
            const double alpha_i = alpha(i);
            // Partial gradient, eq. (10).
            const double w_x = gram_form      ? margin(i)
                               : sparse.empty() ? Xt.col(i).dot(w)
                                                : sparse.dot(i, w);
            const double G = y_i * w_x - 1.0 + D_ii * alpha_i;

            // Projected gradient, eq. (8), and the shrinking conditions, eq. (14)-(15): a variable
            // at a bound whose gradient points outward by more than last pass's PG spread is
            // removed from the active set.
            double PG = 0.0;
            if (alpha_i == 0.0) {
                if (shrinking && G > PG_max_old) {
                    // Slot s now holds a variable not yet visited in this pass: do not advance.
                    --active_size;
                    std::swap(index[s], index[active_size]);
                    continue;
                }
                if (G < 0.0) PG = G;
            } else if (alpha_i == U) {
                if (shrinking && G < PG_min_old) {
                    --active_size;
                    std::swap(index[s], index[active_size]);
                    continue;
                }
                if (G > 0.0) PG = G;
            } else {
                PG = G;
            }
            PG_max_new = std::max(PG_max_new, PG);
            PG_min_new = std::min(PG_min_new, PG);

            if (std::fabs(PG) > 1e-12) {
                // One-variable Newton step clipped to [0, U], eq. (9). Q_bar_ii = 0 only for an
                // all-zero sample under the L1 loss; f is then linear in alpha_i (G = -1), so the
                // minimiser is the bound G points to.
                double alpha_new;
                if (Q_bar_ii(i) > 0.0) {
                    alpha_new = std::min(std::max(alpha_i - G / Q_bar_ii(i), 0.0), U);
                } else {
                    alpha_new = G < 0.0 ? U : 0.0;
                }
                alpha(i) = alpha_new;
                const double step = (alpha_new - alpha_i) * y_i;  // keep eq. (3) true
                if (gram_form)
                    margin.noalias() += step * gram.col(i);
                else if (sparse.empty())
                    w.noalias() += step * Xt.col(i);
                else
                    sparse.add_row(i, step, w);
            }
            ++s;
        }
        ++iter;

        if (PG_max_new - PG_min_new <= options.tolerance) {
            if (active_size == static_cast<std::size_t>(n)) {
                status = Status::Success;
                break;
            }
            // Converged on the shrunken problem: restore all variables and check again.
            active_size = static_cast<std::size_t>(n);
            PG_max_old = inf;
            PG_min_old = -inf;
            continue;
        }
        PG_max_old = PG_max_new;
        PG_min_old = PG_min_new;
        // With no positive (negative) PG seen, the bound would shrink every variable at 0 (at U)
        // with a positive (negative) gradient, however small; disable it instead.
        if (PG_max_old <= 0.0) PG_max_old = inf;
        if (PG_min_old >= 0.0) PG_min_old = -inf;
    }

    if (gram_form) {  // w = sum_i alpha_i y_i x~_i
        const Vector coef = alpha.cwiseProduct(y);
        w.head(d).noalias() = data.X.transpose() * coef;
        if (use_bias) w[d] = options.bias_feature * coef.sum();
    }

    LinearSvmResult result;
    result.iterations = iter;
    result.status = status;

    const double w_sq = w.squaredNorm();
    double loss_sum = 0.0;
    // w.x~_i: in the Gram form from the Gram matrix, else from the data.
    Vector margins;
    if (gram_form)
        margins = gram * alpha.cwiseProduct(y);
    else
        margins = (w.transpose() * Xt).transpose();
    for (Index i = 0; i < n; ++i) {
        const double xi = std::max(0.0, 1.0 - y(i) * margins(i));
        loss_sum += l1_loss ? xi : xi * xi;
    }
    result.primal_objective = 0.5 * w_sq + C * loss_sum;
    // f(alpha) = 1/2 |w|^2 - sum alpha + 1/2 alpha^T D alpha, since alpha^T Q alpha = |w|^2.
    result.dual_objective = 0.5 * w_sq - alpha.sum() + 0.5 * D_ii * alpha.squaredNorm();

    result.w = w.head(d);
    result.bias = use_bias ? w(d) * options.bias_feature : 0.0;
    result.alpha = std::move(alpha);
    result.seconds = stopwatch.seconds();
    return result;
}

}  // namespace

}  // namespace zeronorm
