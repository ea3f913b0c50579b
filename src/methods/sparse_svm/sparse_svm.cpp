// L0-norm and Lp-norm SVMs (Huang, Zheng, King & Lyu 2008, §3.3-3.4), written once
// over the backend primitives. The loop is the training algorithm of Huang et al. 2008 §3.4.3, steps 1-8:
//
//   1. alpha_(0) = 1, beta_(0) = 0, t = 0
//   2. active set I = {i : |alpha_i| >= epsilon}, m = |I|
//   3. K_(t) = Lt (Lt K_mm Lt + C_alpha I)^-1 Lt                        (3.12, stable form)
//   4. Ktilde_(t) = K_{l x m} K_(t) K_{m x l}                           (3.12, Theorem 1)
//   5. beta_(t+1) = SMO on (3.6) with kernel Ktilde_(t), C = C_xi, warm start beta_(t)
//   6. alpha_(t+1) = K_(t) K_{m x l} (y .* beta_(t+1)) on I, 0 elsewhere (3.10)
//   7. stop when max_i |alpha_i,(t+1) - alpha_i,(t)| < epsilon or t = T_max, else t <- t+1, go to 2
//   8. b = mean over {i : 0 < beta_i < C_xi} of (y_i - alpha' K_i)     (3.11)
//
// Why Lt: Lambda_(t) = diag(|alpha_(t)|^-(2-p)) (Prop. 3 for L0, p = 0; Prop. 4 for Lp, where
// its gamma multiplies C_alpha and is absorbed there). With Lt = diag(|alpha|^((2-p)/2)),
// Lambda = Lt^-2 and K + C_alpha Lambda = Lt^-1 (Lt K Lt + C_alpha I) Lt^-1, so
// (K + C_alpha Lambda)^-1 = Lt (Lt K Lt + C_alpha I)^-1 Lt: no alpha is ever inverted, the matrix
// that is factorised has all eigenvalues >= C_alpha for a PSD kernel, and a zero alpha_i zeroes
// row and column i of K_(t) — which is why the pruning of step 2 is exact in the limit (p < 2).
// For p = 2, Lt = I does not depend on alpha and no term is pruned.
//
// How a step is computed (cheapest order, same quantities): with A = Lt K_mm Lt + C_alpha I = L L'
// and U = K_{l x m} Lt L^-T, Ktilde = K_{l x m} Lt A^-1 Lt K_{m x l} = U U' is one SYRK (m l^2,
// half a GEMM, exactly symmetric), U one TRSM (m^2 l) and L one m x m Cholesky (m^3 / 3); the
// diagonal scalings by Lt are row/column scalings, and (3.10) is alpha = Lt L^-T (U' (y.*beta)):
// one GEMV and one triangular solve. K is computed once; K_{l x m} is a column selection of it
// (contiguous copies), and one l x l buffer holds Ktilde in every step. With m = l (the first
// steps) that is about 2.3 l^3 flops a step (the GEMMs with dense diagonal matrices of the
// direct form took about 10 l^3); once the active set has shrunk it is m l^2 for the SYRK plus
// the SMO on Ktilde.
//
// Reading of the paper: 3.5 writes 1/2 w'w + C_alpha alpha'Lambda alpha, whose substitution
// would give K + 2 C_alpha Lambda; 3.7, Theorem 1 and step 3 all use K + C_alpha Lambda, and we
// follow those (C_alpha is a free constant, so this only rescales it).
#include "zeronorm/methods/sparse_svm.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "core/stopwatch.hpp"
#include "solvers/expansion.hpp"
#include "solvers/labels.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/ops/smo_ops.hpp"

namespace zeronorm {
namespace {

// Diagonal of Lt for the coefficients `alpha` of the active set (Prop. 4: |alpha|^((2-p)/2)).
Vector lambda_tilde_of(const Vector& alpha, double p) {
    if (p >= 2.0) return Vector::Ones(alpha.size());
    if (p == 0.0) return alpha.cwiseAbs();
    return alpha.cwiseAbs().array().pow((2.0 - p) / 2.0).matrix();
}

// A = Lt K_mm Lt + shift I from V = K_{l x m} Lt (its active rows are K_mm Lt).
DeviceMatrix shifted_active_block(Backend& backend, const DeviceMatrix& V,
                                  const IndexVector& active, const Vector& lambda_tilde,
                                  double diagonal_shift) {
    DeviceMatrix A = backend.select_rows(V, active);
    backend.scale_rows_columns(A, lambda_tilde, Vector(), diagonal_shift);
    return A;
}

// The bias of 3.11 from f0_i = alpha' K_i (decision value without bias). Without a free beta_i
// (0 < beta_i < C) 3.11 is empty; then b is the midpoint of the interval the KKT conditions
// of (3.7) allow, as LIBSVM does (y_i f(x_i) >= 1 where beta_i = 0, <= 1 where beta_i = C).
double bias_3_11(const Vector& f0, const Vector& y, const Vector& beta, double C) {
    double free_sum = 0.0;
    Index n_free = 0;
    double lower = -std::numeric_limits<double>::infinity();
    double upper = std::numeric_limits<double>::infinity();
    for (Index i = 0; i < y.size(); ++i) {
        const double g = y[i] - f0[i];
        if (beta[i] > 0.0 && beta[i] < C) {
            free_sum += g;
            ++n_free;
        } else if ((beta[i] <= 0.0) == (y[i] > 0)) {
            lower = std::max(lower, g);
        } else {
            upper = std::min(upper, g);
        }
    }
    if (n_free > 0) return free_sum / double(n_free);
    if (std::isfinite(lower) && std::isfinite(upper)) return 0.5 * (lower + upper);
    if (std::isfinite(lower)) return lower;
    if (std::isfinite(upper)) return upper;
    return 0.0;
}

}  // namespace

std::string to_string(SparseSvmVariant variant) {
    return variant == SparseSvmVariant::Exact ? "exact" : "diagonal";
}

SparseSvmVariant parse_sparse_svm_variant(const std::string& name) {
    if (name == "exact") return SparseSvmVariant::Exact;
    if (name == "diagonal") return SparseSvmVariant::Diagonal;
    throw InvalidArgument("unknown sparse SVM variant '" + name + "' (expected exact or diagonal)");
}

void SparseSvmOptions::validate(Index n_features) const {
    kernel.validate(n_features);
    ZN_EXPECTS(
        std::isfinite(p) && p >= 0.0 && p <= 2.0,
        "SparseSvmOptions.p must be in [0, 2] (0 = L0-norm, 0 < p <= 2 = Lp-norm), got " << p);
    ZN_EXPECTS(variant == SparseSvmVariant::Exact || variant == SparseSvmVariant::Diagonal,
               "SparseSvmOptions.variant must be Exact or Diagonal");
    ZN_EXPECTS(std::isfinite(C_xi) && C_xi > 0,
               "SparseSvmOptions.C_xi must be positive and finite, got " << C_xi);
    ZN_EXPECTS(std::isfinite(C_alpha) && C_alpha > 0,
               "SparseSvmOptions.C_alpha must be positive and finite, got " << C_alpha);
    ZN_EXPECTS(std::isfinite(epsilon) && epsilon > 0,
               "SparseSvmOptions.epsilon must be positive and finite, got " << epsilon);
    ZN_EXPECTS(max_iterations >= 1,
               "SparseSvmOptions.max_iterations must be >= 1, got " << max_iterations);
    try {
        smo.validate();
    } catch (const InvalidArgument& e) {
        throw InvalidArgument(std::string("SparseSvmOptions.") + e.what());
    }
}

SparseSvmStepKernels sparse_svm_step_kernels(Backend& backend, const DeviceMatrix& K,
                                             const IndexVector& active, const Vector& lambda_tilde,
                                             double C_alpha, SparseSvmVariant variant,
                                             DeviceMatrix Ktilde_storage) {
    const Index m = Index(active.size()), l = K.cols();
    ZN_EXPECTS_DIM(K.rows() == l, "sparse_svm_step_kernels: K is " << K.rows() << " x " << l
                                                                   << ", not square");
    ZN_EXPECTS_DIM(lambda_tilde.size() == m,
                   "sparse_svm_step_kernels: active has " << m << " entries, lambda_tilde "
                                                          << lambda_tilde.size());
    ZN_EXPECTS(m > 0, "sparse_svm_step_kernels: empty active set");
    ZN_EXPECTS(lambda_tilde.allFinite() && (lambda_tilde.array() >= 0).all(),
               "sparse_svm_step_kernels: lambda_tilde must be finite and >= 0");
    ZN_EXPECTS(std::isfinite(C_alpha) && C_alpha > 0,
               "sparse_svm_step_kernels: C_alpha must be positive, got " << C_alpha);

    SparseSvmStepKernels out;
    // K_{l x m} as whole columns of K (contiguous copies), transformed into U in place below.
    out.U = backend.select_columns(K, active);
    if (variant == SparseSvmVariant::Diagonal) {
        // Huang et al. 2008 §3.4.3 "Avoid matrix inversion": K_(t) = (I + C_alpha Lambda)^-1
        // = diag(Lt_i^2 / (Lt_i^2 + C_alpha)), a zero alpha giving a zero entry.
        const Vector l2 = lambda_tilde.array().square();
        out.row_scale = (l2.array() / (l2.array() + C_alpha)).sqrt().matrix();
        backend.scale_rows_columns(out.U, Vector(), out.row_scale, 0.0);
    } else {
        // Lt K_mm Lt + C_alpha I = L L'; U = K_{l x m} Lt L^-T.
        out.row_scale = lambda_tilde;
        backend.scale_rows_columns(out.U, Vector(), lambda_tilde, 0.0);
        out.L = shifted_active_block(backend, out.U, active, lambda_tilde, C_alpha);
        if (!backend.cholesky_factor(out.L)) {
            // Lt K_mm Lt + C_alpha I has eigenvalues >= C_alpha for a PSD kernel, so this is a
            // kernel that is not numerically PSD: add a jitter relative to the mean diagonal.
            const Matrix A = backend.download(
                shifted_active_block(backend, out.U, active, lambda_tilde, C_alpha));
            const double mean_diagonal = A.diagonal().mean();
            const double scale = std::max(std::abs(mean_diagonal), C_alpha);
            bool ok = false;
            for (double relative = 1e-10; relative <= 1.01e-6 && !ok; relative *= 10.0) {
                out.jitter = relative * scale;
                out.L = shifted_active_block(backend, out.U, active, lambda_tilde,
                                             C_alpha + out.jitter);
                ok = backend.cholesky_factor(out.L);
            }
            if (!ok) {
                std::ostringstream os;
                os << "sparse SVM: Lt K_mm Lt + C_alpha I (" << m << " x " << m
                   << ") is not positive definite even with a jitter of 1e-6 * trace/m = "
                   << out.jitter << "; is the kernel positive semi-definite?";
                throw NumericalError(os.str());
            }
        }
        backend.triangular_solve(out.L, true, true, out.U);  // U <- U L^-T
    }
    out.Ktilde = Ktilde_storage.rows() == l && Ktilde_storage.cols() == l
                     ? Ktilde_storage
                     : backend.allocate(l, l);
    backend.syrk(false, 1.0, out.U, 0.0, out.Ktilde);  // U U' = K_{l x m} K_(t) K_{m x l}
    return out;
}

DeviceMatrix sparse_svm_apply_KtK(Backend& backend, const SparseSvmStepKernels& step,
                                  const DeviceMatrix& V) {
    ZN_EXPECTS_DIM(V.rows() == step.U.rows(), "sparse_svm_apply_KtK: V has "
                                                  << V.rows() << " rows for a step with l = "
                                                  << step.U.rows());
    DeviceMatrix out = backend.allocate(step.U.cols(), V.cols());
    backend.gemm(true, false, 1.0, step.U, V, 0.0, out);  // U' V
    if (!step.L.empty()) backend.triangular_solve(step.L, true, false, out);
    backend.scale_rows_columns(out, step.row_scale, Vector(), 0.0);
    return out;
}

SparseSvmResult train_sparse_svm(Backend& backend, const Dataset& data,
                                 const SparseSvmOptions& options) {
    const Stopwatch stopwatch;
    data.validate();
    ZN_EXPECTS(data.n_samples() >= 2,
               "sparse SVM training needs at least two samples, got " << data.n_samples());
    ZN_EXPECTS(data.n_features() >= 1, "sparse SVM training needs at least one feature");
    check_two_class_labels(data.y, "sparse SVM training");
    options.validate(data.n_features());
    check_kernel_range(options.kernel, data.X, "sparse SVM training");

    const Index l = data.n_samples();
    const Vector& y = data.y;
    const bool prune = options.p < 2.0;  // with p = 2, Lt = I: a small alpha_i is not driven to 0
    const SmoOptions smo(options.smo, options.C_xi, 0.0);

    const DeviceMatrix X = backend.upload(data.X);
    const DeviceMatrix K = backend.kernel_matrix(options.kernel, X, X);  // l x l, sliced each step
    DeviceMatrix Ktilde_storage;  // one l x l buffer for Ktilde, reused by every step

    SparseSvmResult result;
    Vector alpha = Vector::Ones(l);  // step 1
    Vector beta = Vector::Zero(l);
    bool have_iterate = false;  // alpha/beta come from an SMO solve
    result.status = Status::NoConvergence;
    for (int t = 0;; ++t) {
        const Stopwatch step_stopwatch;
        IndexVector active;  // step 2
        for (Index i = 0; i < l; ++i)
            if (!prune || std::abs(alpha[i]) >= options.epsilon) active.push_back(i);
        if (active.empty()) {
            result.status = Status::NumericalIssue;
            result.message = "every expansion coefficient fell below epsilon at step " +
                             std::to_string(t) +
                             "; the model is the constant b (C_alpha too "
                             "large for this C_xi?)";
            break;
        }
        Vector alpha_active(Index(active.size()));
        for (std::size_t k = 0; k < active.size(); ++k) alpha_active[Index(k)] = alpha[active[k]];

        SparseSvmIteration record;
        record.active_terms = Index(active.size());
        SparseSvmStepKernels step;
        try {
            step = sparse_svm_step_kernels(backend, K, active,
                                           lambda_tilde_of(alpha_active, options.p),
                                           options.C_alpha, options.variant,
                                           Ktilde_storage);  // steps 3-4
            Ktilde_storage = step.Ktilde;
        } catch (const NumericalError& e) {
            if (!have_iterate) throw;
            result.status = Status::NumericalIssue;
            result.message = std::string(e.what()) + " (step " + std::to_string(t) +
                             "; the model is the last good iterate)";
            break;
        }
        record.jitter = step.jitter;

        const SmoResult inner = backend.smo().solve(step.Ktilde, y, smo, &beta);  // step 5, (3.6)
        const DeviceMatrix y_beta = backend.upload(Matrix(y.cwiseProduct(inner.beta)));
        const Matrix a_host =
            backend.download(sparse_svm_apply_KtK(backend, step, y_beta));  // step 6, (3.10)
        if (!a_host.allFinite()) {
            if (!have_iterate)
                throw NumericalError(
                    "sparse SVM: the first coefficient update (3.10) is not finite");
            result.status = Status::NumericalIssue;
            result.message = "the coefficient update (3.10) at step " + std::to_string(t) +
                             " is not finite; the model is the last good iterate";
            break;
        }
        Vector alpha_next = Vector::Zero(l);
        for (std::size_t k = 0; k < active.size(); ++k) alpha_next[active[k]] = a_host(Index(k), 0);

        record.max_delta_alpha = (alpha_next - alpha).cwiseAbs().maxCoeff();
        record.objective = inner.objective;
        record.smo_iterations = inner.iterations;
        alpha = alpha_next;
        beta = inner.beta;
        have_iterate = true;
        result.iterations = t + 1;
        record.seconds = step_stopwatch.seconds();
        result.trace.push_back(record);
        if (record.max_delta_alpha < options.epsilon) {  // step 7
            result.status = Status::Success;
            break;
        }
        if (t + 1 >= options.max_iterations) {
            result.status = Status::NoConvergence;
            result.message =
                "stopped at max_iterations = " + std::to_string(options.max_iterations) +
                " with max|delta alpha| = " + std::to_string(record.max_delta_alpha);
            break;
        }
    }

    // Output (after step 7): the terms with |alpha_i| >= epsilon (p < 2; all nonzero for p = 2).
    // Identical training points are merged into one term (coefficients summed): f is unchanged,
    // and the symmetric iteration cannot break the tie between exact duplicates by itself.
    const auto keep = [&](double a) { return prune ? std::abs(a) >= options.epsilon : a != 0.0; };
    IndexVector terms;
    std::vector<double> coefficients;
    for (Index i = 0; i < l; ++i) {
        if (!keep(alpha[i])) continue;
        ++result.n_support_points;
        std::size_t k = 0;
        while (k < terms.size() && data.X.row(terms[k]) != data.X.row(i)) ++k;
        if (k == terms.size()) {
            terms.push_back(i);
            coefficients.push_back(alpha[i]);
        } else {
            coefficients[k] += alpha[i];
        }
    }
    for (std::size_t k = terms.size(); k-- > 0;) {  // duplicates whose coefficients cancelled
        if (keep(coefficients[k])) continue;
        terms.erase(terms.begin() + std::ptrdiff_t(k));
        coefficients.erase(coefficients.begin() + std::ptrdiff_t(k));
    }
    if (terms.empty() && result.status != Status::NumericalIssue) {
        result.status = Status::NumericalIssue;
        result.message =
            "every expansion coefficient is below epsilon; the model is the constant b";
    }

    SparseSvmModel& model = result.model;
    model.kernel = options.kernel;
    model.training_indices = terms;
    model.expansion_points.resize(Index(terms.size()), data.n_features());
    model.alpha.resize(Index(terms.size()));
    for (std::size_t k = 0; k < terms.size(); ++k) {
        model.expansion_points.row(Index(k)) = data.X.row(terms[k]);
        model.alpha[Index(k)] = coefficients[k];
    }

    // Step 8: b by (3.11), with f0 = K_{l x T} alpha_T over the output terms.
    Vector f0 = Vector::Zero(l);
    if (!terms.empty()) {
        const DeviceMatrix K_tl = backend.select_rows(K, terms);
        const DeviceMatrix a = backend.upload(Matrix(model.alpha));
        DeviceMatrix f = backend.allocate(l, 1);
        backend.gemm(true, false, 1.0, K_tl, a, 0.0, f);
        f0 = backend.download(f).col(0);
    }
    model.bias = bias_3_11(f0, y, beta, options.C_xi);
    result.beta = beta;
    result.seconds = stopwatch.seconds();
    return result;
}

Vector SparseSvmModel::decision_function(Backend& backend, const Matrix& X) const {
    ZN_EXPECTS_DIM(n_terms() == 0 || X.cols() == n_features(),
                   "the model has " << n_features() << " features but the data has " << X.cols());
    ZN_EXPECTS(X.allFinite(), "prediction data contains NaN or Inf");
    ZN_EXPECTS_DIM(alpha.size() == n_terms(), "the model has " << n_terms()
                                                               << " expansion points but "
                                                               << alpha.size() << " coefficients");
    if (n_terms() == 0 || X.rows() == 0) return Vector::Constant(X.rows(), bias);
    return detail::expansion_values(backend, kernel, backend.upload(X),
                                    backend.upload(expansion_points), alpha)
               .array() +
           bias;
}

SvmModel SparseSvmModel::to_svm_model() const {
    ZN_EXPECTS_DIM(alpha.size() == n_terms(), "the model has " << n_terms()
                                                               << " expansion points but "
                                                               << alpha.size() << " coefficients");
    SvmModel out;
    out.kernel = kernel;
    out.support_vectors = expansion_points;
    out.coef = alpha;
    out.bias = bias;
    return out;
}

Vector SparseSvmModel::predict(Backend& backend, const Matrix& X) const {
    const Vector f = decision_function(backend, X);
    return labels_from_decision(f);
}

}  // namespace zeronorm
