#include "reference/reference_backend.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/batch_shapes.hpp"
#include "core/op_shapes.hpp"
#include "reference/reference.hpp"
#include "solvers/dense_dual.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/ops/arom_ops.hpp"
#include "zeronorm/core/ops/rfe_ops.hpp"
#include "zeronorm/core/ops/smo_ops.hpp"

namespace zeronorm::reference {
namespace {

// Copies between the adapter's host storage and Eigen matrices.
Matrix host(const DeviceMatrix& m) { return Eigen::Map<const Matrix>(m.data(), m.rows(), m.cols()); }

DeviceMatrix store(const Matrix& value) {
    const Index count = value.size();
    std::shared_ptr<double> storage(count > 0 ? new double[std::size_t(count)] : nullptr,
                                    std::default_delete<double[]>());
    DeviceMatrix m(std::move(storage), value.rows(), value.cols());
    Eigen::Map<Matrix>(m.data(), m.rows(), m.cols()) = value;
    return m;
}

void overwrite(DeviceMatrix& target, const Matrix& value) {
    Eigen::Map<Matrix>(target.data(), target.rows(), target.cols()) = value;
}

void check_indices(const IndexVector& indices, Index bound, const char* what) {
    for (const Index i : indices)
        ZN_EXPECTS(i >= 0 && i < bound, what << ": index " << i << " is outside [0, " << bound << ")");
}

void check_labels(const Vector& y) {
    bool positive = false, negative = false;
    for (Index i = 0; i < y.size(); ++i) {
        ZN_EXPECTS(y[i] == 1.0 || y[i] == -1.0, "reference SMO: label " << i << " is " << y[i]);
        (y[i] > 0 ? positive : negative) = true;
    }
    ZN_EXPECTS(positive && negative, "reference SMO: the labels hold only one class");
}

SmoResult as_smo_result(const DualSolution& s) {
    SmoResult r;
    r.beta = s.beta;
    r.bias = s.nu;
    r.objective = s.objective;
    r.kkt_gap = s.gap;
    return r;
}

SmoResult solve_svm(const Matrix& K, const Vector& y, const SmoOptions& options) {
    options.validate();
    ZN_EXPECTS_DIM(K.rows() == K.cols() && K.rows() == y.size(),
                   "reference SMO: kernel " << K.rows() << "x" << K.cols() << ", " << y.size()
                                            << " labels");
    check_labels(y);
    return as_smo_result(solve_dual(svm_dual(K, y, options.C, options.ridge)));
}

// The SVM dual of K and y with the given terms (empty p: the SVM's -1).
Dual dual_with_terms(const Matrix& K, const Vector& y, const SmoOptions& options, const Vector& p,
                     double delta) {
    options.validate();
    ZN_EXPECTS_DIM(K.rows() == K.cols() && K.rows() == y.size(),
                   "reference SMO: kernel " << K.rows() << "x" << K.cols() << ", " << y.size()
                                            << " labels");
    check_labels(y);
    Dual dual = svm_dual(K, y, options.C, options.ridge);
    if (p.size() > 0) dual.p = p;
    dual.delta = delta;
    return dual;
}

Vector column_or_empty(const Matrix& M, Index p) { return M.size() > 0 ? Vector(M.col(p)) : Vector(); }

class ReferenceSmoOps final : public SmoOps {
public:
    SmoResult solve(const DeviceMatrix& K, const Vector& y, const SmoOptions& options,
                    const Vector*, const SmoTerms& terms) override {
        detail::check_smo(K, y, terms.p, terms.delta);
        return as_smo_result(solve_dual(dual_with_terms(host(K), y, options, terms.p, terms.delta)));
    }

    SmoResult solve(const KernelSpec& spec, const DeviceMatrix& X, const Vector& y,
                    const SmoOptions& options, const Vector*) override {
        spec.validate(X.cols());
        const Matrix x = host(X);
        return solve_svm(reference::kernel_matrix(spec, x, x), y, options);
    }

    SmoResult solve_working_set(const DeviceMatrix& K, const Vector& y, const Vector& beta,
                                const Vector& gradient, const SmoOptions& options) override {
        detail::check_smo_working_set(K, y, beta, gradient, options);
        Dual dual = svm_dual(host(K), y, options.C, options.ridge);
        dual.p = gradient - dual.Q * beta;
        dual.delta = y.dot(beta);
        return as_smo_result(solve_dual(dual));
    }

    std::vector<SmoResult> solve_batch(const DeviceMatrix& K, const Matrix& Y,
                                       const SmoOptions& options, const Matrix* warm_start,
                                       const std::vector<char>& active,
                                       const SmoBatchTerms& terms) override {
        detail::check_smo_batch(K, Y, warm_start, active, terms, options);
        const Index n = Y.rows();
        const Matrix k = host(K);
        std::vector<SmoResult> out(std::size_t(Y.cols()));
        for (Index p = 0; p < Y.cols(); ++p)
            if (active.empty() || active[std::size_t(p)])
                out[std::size_t(p)] = as_smo_result(solve_dual(dual_with_terms(
                    k.middleCols(p * n, n), Y.col(p), options, column_or_empty(terms.p, p),
                    terms.delta.size() > 0 ? terms.delta[p] : 0.0)));
        return out;
    }

    // The SVM dual by the Newton rule itself; other terms exactly (the rule's answer where it
    // succeeds).
    std::vector<SmoResult> newton_finish_batch(const DeviceMatrix& K, const Matrix& Y,
                                               const Matrix& beta, const SmoOptions& options,
                                               const std::vector<char>& open,
                                               const SmoBatchTerms& terms) override {
        detail::check_newton_finish_batch(K, Y, beta, options, open, terms);
        const Index n = Y.rows();
        const Matrix k = host(K);
        const bool svm_terms = terms.p.size() == 0 && terms.delta.size() == 0;
        std::vector<SmoResult> out(std::size_t(Y.cols()));
        for (Index p = 0; p < Y.cols(); ++p) {
            if (!open[std::size_t(p)]) continue;
            if (!svm_terms) {
                out[std::size_t(p)] = as_smo_result(solve_dual(dual_with_terms(
                    k.middleCols(p * n, n), Y.col(p), options, column_or_empty(terms.p, p),
                    terms.delta.size() > 0 ? terms.delta[p] : 0.0)));
                continue;
            }
            const auto finished = newton_finish(k.middleCols(p * n, n), Y.col(p), options.C,
                                                options.ridge, options.tolerance, beta.col(p),
                                                detail::kNewtonRounds);
            if (finished) out[std::size_t(p)] = as_smo_result(*finished);
        }
        return out;
    }
};

class ReferenceAromOps final : public AromOps {
public:
    std::vector<ScaleUpdate> multiplicative_update_batch(const DeviceMatrix& Z,
                                                         const DeviceMatrix& W,
                                                         const std::vector<char>& update,
                                                         double prune_tolerance,
                                                         DeviceMatrix& normalized,
                                                         DeviceMatrix& next) override {
        detail::check_multiplicative_update_batch(Z, W, update, prune_tolerance, normalized, next);
        const Matrix z = host(Z), w = host(W);
        Matrix u(z.rows(), z.cols()), z_next(z.rows(), z.cols());
        std::vector<ScaleUpdate> out;
        for (Index p = 0; p < z.cols(); ++p) {
            const AromColumn c = arom_update(z.col(p), w.col(p), update[std::size_t(p)] != 0,
                                             prune_tolerance);
            u.col(p) = c.normalized;
            z_next.col(p) = c.next;
            out.push_back(c.summary);
        }
        overwrite(normalized, u);
        overwrite(next, z_next);
        return out;
    }

    // The whole column in stable descending order, cut to the count.
    std::vector<IndexVector> top_rows(const DeviceMatrix& S, const IndexVector& columns,
                                      const IndexVector& counts) override {
        detail::check_top_rows(S, columns, counts);
        const Matrix s = host(S);
        std::vector<IndexVector> out;
        for (std::size_t q = 0; q < columns.size(); ++q) {
            const auto column = s.col(columns[q]);
            IndexVector order(static_cast<std::size_t>(s.rows()));
            std::iota(order.begin(), order.end(), Index(0));
            std::stable_sort(order.begin(), order.end(),
                             [&](Index a, Index b) { return column[a] > column[b]; });
            order.resize(std::size_t(counts[q]));
            out.push_back(order);
        }
        return out;
    }
};

// Each split's whole order by a stable sort (NaN last), cut; the survivors copied one by one.
class ReferenceRfeOps final : public RfeOps {
public:
    EliminationBatch eliminate_batch(const DeviceMatrix& X, const DeviceMatrix& W, Index remove,
                                     Index report_from, bool gather_survivors) override {
        detail::check_eliminate_batch(X, W, remove, report_from);
        const Matrix x = host(X), w = host(W);
        const Index r = w.rows(), kept = r - remove;
        EliminationBatch out;
        Matrix survivors(x.rows(), kept * w.cols());
        for (Index p = 0; p < w.cols(); ++p) {
            const Vector criterion = w.col(p).array().square();
            IndexVector order(static_cast<std::size_t>(r));
            std::iota(order.begin(), order.end(), Index(0));
            std::stable_sort(order.begin(), order.end(), [&](Index a, Index b) {
                const double va = criterion[a], vb = criterion[b];
                return !std::isnan(va) && (std::isnan(vb) || va > vb);
            });
            out.order_tail.emplace_back(order.begin() + report_from, order.end());
            IndexVector alive(order.begin(), order.begin() + kept);
            std::sort(alive.begin(), alive.end());
            for (Index k = 0; k < kept; ++k)
                survivors.col(p * kept + k) = x.col(p * r + alive[std::size_t(k)]);
        }
        if (gather_survivors) out.survivors = store(survivors);
        return out;
    }
};

class ReferenceAlignmentOps final : public AlignmentOps {
public:
    std::vector<double> weighted_kernel_sum_batch(const AlignmentKernelSpec& spec,
                                                  const DeviceMatrix& X, const DeviceMatrix& Y,
                                                  const DeviceMatrix& Theta,
                                                  DeviceMatrix& gradient) override {
        detail::check_weighted_kernel_sum_batch(spec, X, Y, Theta, gradient);
        const Matrix theta = host(Theta);
        Matrix g(theta.rows(), theta.cols());
        std::vector<double> values;
        for (Index p = 0; p < theta.cols(); ++p) {
            Vector column;
            values.push_back(weighted_kernel_sum(spec, host(X), host(Y), theta.col(p), column));
            g.col(p) = column;
        }
        overwrite(gradient, g);
        return values;
    }

    std::vector<double> cross_kernel_sum_batch(const AlignmentKernelSpec& spec,
                                               const DeviceMatrix& A, const DeviceMatrix& B,
                                               const DeviceMatrix& Y, const DeviceMatrix& Theta,
                                               DeviceMatrix& gradient) override {
        detail::check_cross_kernel_sum_batch(spec, A, B, Y, Theta, gradient);
        const Matrix theta = host(Theta);
        Matrix g(theta.rows(), theta.cols());
        std::vector<double> values;
        for (Index p = 0; p < theta.cols(); ++p) {
            Vector column;
            values.push_back(
                cross_kernel_sum(spec, host(A), host(B), host(Y), theta.col(p), column));
            g.col(p) = column;
        }
        overwrite(gradient, g);
        return values;
    }

    std::vector<double> gaussian_removal_sums(double scale, const DeviceMatrix& X,
                                              const DeviceMatrix& v) override {
        detail::check_gaussian_removal_sums(scale, X, v);
        return reference::gaussian_removal_sums(scale, host(X), host(v).col(0));
    }
};

class ReferenceBackend final : public Backend {
public:
    // Runs problems in order on itself: the reference is for checking answers, not speed.
    BackendCapabilities capabilities() const override { return {}; }
    std::unique_ptr<Backend> make_worker(unsigned) const override {
        return std::make_unique<ReferenceBackend>();
    }
    SmoOps& smo() override { return smo_; }
    AromOps& arom() override { return arom_; }
    AlignmentOps& alignment() override { return alignment_; }
    RfeOps& rfe() override { return rfe_; }

    BackendKind kind() const override { return BackendKind::Cpu; }
    std::string description() const override { return "reference (plain loops, exact duals)"; }

    DeviceMatrix allocate(Index rows, Index cols) override {
        ZN_EXPECTS(rows >= 0 && cols >= 0, "allocate: negative shape " << rows << " x " << cols);
        return store(Matrix::Constant(rows, cols, std::numeric_limits<double>::quiet_NaN()));
    }
    DeviceMatrix upload(const Matrix& value) override { return store(value); }
    Matrix download(const DeviceMatrix& m) override { return host(m); }

    DeviceMatrix select_columns(const DeviceMatrix& X, const IndexVector& cols) override {
        check_indices(cols, X.cols(), "select_columns");
        return store(reference::select_columns(host(X), cols));
    }
    DeviceMatrix select_rows(const DeviceMatrix& X, const IndexVector& rows) override {
        check_indices(rows, X.rows(), "select_rows");
        return store(reference::select_rows(host(X), rows));
    }

    DeviceMatrix kernel_matrix(const KernelSpec& spec, const DeviceMatrix& A,
                               const DeviceMatrix& B, const DeviceMatrix* scale) override {
        ZN_EXPECTS_DIM(A.cols() == B.cols(), "kernel_matrix: " << A.cols() << " and " << B.cols()
                                                               << " features");
        ZN_EXPECTS_DIM(scale == nullptr || scale->size() == A.cols(),
                       "kernel_matrix: feature scale for " << A.cols() << " features");
        spec.validate(A.cols());
        const Vector z = scale != nullptr ? Vector(Eigen::Map<const Vector>(scale->data(), scale->size()))
                                         : Vector();
        return store(reference::kernel_matrix(spec, host(A), host(B), scale != nullptr ? &z : nullptr));
    }

    void gemm(bool trans_a, bool trans_b, double alpha, const DeviceMatrix& A,
              const DeviceMatrix& B, double beta, DeviceMatrix& C) override {
        const Index m = trans_a ? A.cols() : A.rows(), k = trans_a ? A.rows() : A.cols();
        const Index k2 = trans_b ? B.cols() : B.rows(), n = trans_b ? B.rows() : B.cols();
        ZN_EXPECTS_DIM(k == k2 && C.rows() == m && C.cols() == n, "gemm: shapes do not match");
        overwrite(C, reference::gemm(trans_a, trans_b, alpha, host(A), host(B), beta, host(C)));
    }

    void syrk(bool trans, double alpha, const DeviceMatrix& A, double beta,
              DeviceMatrix& C) override {
        const Index n = trans ? A.cols() : A.rows();
        ZN_EXPECTS_DIM(C.rows() == n && C.cols() == n, "syrk: C is not " << n << "x" << n);
        overwrite(C, reference::syrk(trans, alpha, host(A), beta, host(C)));
    }

    void scale_rows_columns(DeviceMatrix& X, const Vector& row_scale, const Vector& col_scale,
                            double diagonal_shift) override {
        ZN_EXPECTS_DIM(row_scale.size() == 0 || row_scale.size() == X.rows(), "scale_rows_columns: rows");
        ZN_EXPECTS_DIM(col_scale.size() == 0 || col_scale.size() == X.cols(), "scale_rows_columns: columns");
        overwrite(X, reference::scale_rows_columns(host(X), row_scale, col_scale, diagonal_shift));
    }

    bool cholesky_factor(DeviceMatrix& A) override {
        ZN_EXPECTS_DIM(A.rows() == A.cols(), "cholesky_factor: A is not square");
        const auto L = cholesky(host(A));
        if (L) overwrite(A, *L);
        return L.has_value();
    }

    void triangular_solve(const DeviceMatrix& L, bool transpose, bool on_the_right,
                          DeviceMatrix& B) override {
        ZN_EXPECTS_DIM(L.rows() == L.cols() && (on_the_right ? B.cols() : B.rows()) == L.rows(),
                       "triangular_solve: shapes do not match");
        overwrite(B, reference::triangular_solve(host(L), transpose, on_the_right, host(B)));
    }

    void assign_columns(DeviceMatrix& X, const IndexVector& cols,
                        const DeviceMatrix& source) override {
        detail::check_assign_columns(X, cols, source);
        Matrix value = host(X);
        for (std::size_t k = 0; k < cols.size(); ++k) value.col(cols[k]) = host(source).col(Index(k));
        overwrite(X, value);
    }

    SplitBlocks split_batch(const DeviceMatrix& X, const std::vector<IndexVector>& train_rows,
                            const std::vector<IndexVector>& test_rows, bool standardize) override {
        detail::check_split_batch(X.rows(), train_rows, test_rows);
        const Splits s = reference::split_batch(host(X), train_rows, test_rows, standardize);
        ZN_EXPECTS(!standardize || s.train.allFinite(),
                   "split_batch: a training row holds a non-finite value");
        return {store(s.train), store(s.test)};
    }

    DeviceMatrix scaled_gram_batch(const DeviceMatrix& A, const DeviceMatrix& B,
                                   const DeviceMatrix& Z, Precision precision) override {
        detail::check_scaled_gram_batch(A, B, Z);
        return store(reference::scaled_gram_batch(host(A), host(B), host(Z), precision));
    }

    DeviceMatrix gram_batch(Index batch, const DeviceMatrix& A, const DeviceMatrix& B,
                            Precision precision) override {
        const Index d = detail::check_kernel_batch(batch, A, B, "gram_batch");
        return store(reference::scaled_gram_batch(host(A), host(B), Matrix::Ones(d, batch),
                                                  precision));
    }

    DeviceMatrix kernel_batch(const KernelSpec& spec, Index batch, const DeviceMatrix& A,
                              const DeviceMatrix& B) override {
        spec.validate(detail::check_kernel_batch(batch, A, B));
        return store(reference::kernel_batch(spec, batch, host(A), host(B)));
    }

    DeviceMatrix gather_blocks(const DeviceMatrix& K, Index block_width, const IndexVector& source,
                               const std::vector<IndexVector>& rows,
                               const std::vector<IndexVector>& cols) override {
        detail::check_gather_blocks(K, block_width, source, rows, cols);
        return store(reference::gather_blocks(host(K), block_width, source, rows, cols));
    }

    void gemm_batch(Index batch, bool trans_a, bool trans_b, double alpha, const DeviceMatrix& A,
                    const DeviceMatrix& B, double beta, DeviceMatrix& C) override {
        detail::check_gemm_batch(batch, trans_a, trans_b, A, B, C);
        overwrite(C, reference::gemm_batch(batch, trans_a, trans_b, alpha, host(A), host(B), beta,
                                           host(C)));
    }


private:
    ReferenceSmoOps smo_;
    ReferenceAromOps arom_;
    ReferenceAlignmentOps alignment_;
    ReferenceRfeOps rfe_;
};

}  // namespace

std::unique_ptr<Backend> make_reference_backend() { return std::make_unique<ReferenceBackend>(); }

}  // namespace zeronorm::reference
