// The CPU backend: Eigen for the dense algebra, LIBSVM-style SMO on kernel columns.
#include <algorithm>
#include <cmath>
#include <list>
#include <memory>
#include <thread>
#include <unordered_map>
#include <vector>

#include "arom.hpp"
#include "batch_shapes.hpp"
#include "blas_threads.hpp"
#include "dense_dual.hpp"
#include "smo_solver.hpp"
#include "sparse_rows.hpp"
#include "zeronorm/backend.hpp"
#include "zeronorm/error.hpp"
#include "zeronorm/preprocess.hpp"

namespace zeronorm {
namespace {

using ConstMap = Eigen::Map<const Matrix>;
using MutableMap = Eigen::Map<Matrix>;

ConstMap view(const DeviceMatrix& m) { return ConstMap(m.data(), m.rows(), m.cols()); }
MutableMap view(DeviceMatrix& m) { return MutableMap(m.data(), m.rows(), m.cols()); }

// Block p (cols columns from column p cols) of a batch, as a matrix that shares X's storage.
DeviceMatrix block(const DeviceMatrix& X, Index cols, Index p) {
    double* first = const_cast<double*>(X.data()) + p * cols * X.rows();
    return DeviceMatrix(std::shared_ptr<double>(std::shared_ptr<double>(), first), X.rows(), cols);
}

DeviceMatrix allocate_host(Index rows, Index cols) {
    ZN_EXPECTS(rows >= 0 && cols >= 0, "allocate: negative shape " << rows << " x " << cols);
    const Index count = rows * cols;
    std::shared_ptr<double> storage(count > 0 ? new double[static_cast<std::size_t>(count)] : nullptr,
                                    std::default_delete<double[]>());
    return DeviceMatrix(std::move(storage), rows, cols);
}

// Turns inner products `dots` (rows of A against rows of B) into kernel values in place;
// sq_a / sq_b are the squared row norms (RBF kinds only).
void finish_kernel(const KernelSpec& spec, Eigen::Ref<Matrix> dots, const Vector& sq_a,
                   const Vector& sq_b) {
    switch (spec.type) {
        case KernelType::Linear: return;
        case KernelType::Polynomial:
            dots = (spec.gamma * dots.array() + spec.coef0).pow(double(spec.degree)).matrix();
            return;
        case KernelType::SumOfPowers: {
            Matrix power = dots, sum = dots;
            for (int t = 2; t <= spec.degree; ++t) {
                power.array() *= dots.array();
                sum += power;
            }
            dots = sum;
            return;
        }
        case KernelType::Rbf:
        case KernelType::WeightedRbf:
            for (Index j = 0; j < dots.cols(); ++j)
                for (Index i = 0; i < dots.rows(); ++i)
                    dots(i, j) = std::exp(-spec.gamma *
                                          std::max(0.0, sq_a[i] + sq_b[j] - 2.0 * dots(i, j)));
            return;
        case KernelType::Chi2: break;
    }
    throw InvalidArgument("finish_kernel: chi2 has no inner-product form");
}

// Rows scaled by z (and by sqrt(theta) for the weighted RBF, which turns it into a plain RBF).
Matrix prepare_rows(const KernelSpec& spec, const ConstMap& A, const DeviceMatrix* scale) {
    const bool weighted = spec.type == KernelType::WeightedRbf;
    if (scale == nullptr && !weighted) return A;
    Vector s = weighted ? Vector(spec.theta.cwiseSqrt()) : Vector::Ones(A.cols());
    if (scale != nullptr) s = s.cwiseProduct(Eigen::Map<const Vector>(scale->data(), scale->size()));
    return A * s.asDiagonal();  // one pass over A
}

Matrix chi2_kernel(double gamma, const Matrix& A, const Matrix& B) {
    Matrix K(A.rows(), B.rows());
    for (Index j = 0; j < B.rows(); ++j)
        for (Index i = 0; i < A.rows(); ++i) {
            double acc = 0.0;
            for (Index k = 0; k < A.cols(); ++k) {
                const double sum = A(i, k) + B(j, k);
                if (sum == 0.0) continue;
                const double diff = A(i, k) - B(j, k);
                acc += diff * diff / sum;
            }
            K(i, j) = std::exp(-gamma * acc);
        }
    return K;
}

// Kernel columns computed on demand from the data and kept in an LRU cache.
class CachedKernelColumns final : public cpu::KernelColumns {
public:
    CachedKernelColumns(const KernelSpec& spec, Matrix X, double cache_mb)
        : spec_(spec), X_(std::move(X)) {
        if (spec_.type != KernelType::Chi2) sparse_ = detail::SparseRows::of(X_);
        const Index n = X_.rows();
        sq_norms_ = X_.rowwise().squaredNorm();
        diagonal_.resize(n);
        for (Index i = 0; i < n; ++i)
            diagonal_[i] = kernel_value(spec_, X_.data() + i, n, X_.data() + i, n, X_.cols());
        const double bytes_per_column = 8.0 * double(std::max<Index>(n, 1));
        capacity_ = std::max<std::size_t>(2, std::size_t(cache_mb * 1024 * 1024 / bytes_per_column));
    }
    Index size() const override { return X_.rows(); }
    const Vector& diagonal() const override { return diagonal_; }

    const double* column(Index i) override {
        auto found = index_.find(i);
        if (found != index_.end()) {
            lru_.splice(lru_.begin(), lru_, found->second);
            return found->second->second.data();
        }
        if (lru_.size() >= capacity_) {
            index_.erase(lru_.back().first);
            lru_.pop_back();
        }
        lru_.emplace_front(i, compute(i));
        index_[i] = lru_.begin();
        return lru_.front().second.data();
    }

private:
    Vector compute(Index i) const {
        const Index n = X_.rows();
        if (spec_.type == KernelType::Chi2) {
            Matrix row = X_.row(i);
            return chi2_kernel(spec_.gamma, X_, row);
        }
        Matrix col = sparse_.empty() ? Matrix(X_ * X_.row(i).transpose())
                                     : Matrix(sparse_.times(X_.row(i).transpose()));
        finish_kernel(spec_, col, sq_norms_, sq_norms_.segment(i, 1));
        (void)n;
        return col;
    }

    KernelSpec spec_;
    Matrix X_;
    detail::SparseRows sparse_;  // empty unless X is mostly zeros
    Vector sq_norms_, diagonal_;
    std::size_t capacity_;
    std::list<std::pair<Index, Vector>> lru_;
    std::unordered_map<Index, std::list<std::pair<Index, Vector>>::iterator> index_;
};

// A precomputed kernel matrix seen as columns.
class DenseKernelColumns final : public cpu::KernelColumns {
public:
    explicit DenseKernelColumns(const DeviceMatrix& K) : K_(K), diagonal_(view(K).diagonal()) {}
    Index size() const override { return K_.rows(); }
    const double* column(Index i) override { return K_.data() + i * K_.rows(); }
    const Vector& diagonal() const override { return diagonal_; }

private:
    const DeviceMatrix& K_;
    Vector diagonal_;
};

void check_indices(const IndexVector& indices, Index bound, const char* what) {
    for (std::size_t k = 0; k < indices.size(); ++k)
        ZN_EXPECTS(indices[k] >= 0 && indices[k] < bound,
                   what << ": index " << indices[k] << " at position " << k
                        << " is outside [0, " << bound << ")");
}

class CpuBackend final : public Backend {
public:
    // single_blas_thread: a worker's backend (make_worker), one BLAS thread while it lives.
    explicit CpuBackend(bool single_blas_thread = false) {
        if (single_blas_thread) one_blas_thread_ = std::make_unique<cpu::SingleThreadedBlas>();
    }

    BackendKind kind() const override { return BackendKind::Cpu; }
    std::string description() const override {
        return "cpu (" + std::to_string(std::max(1u, std::thread::hardware_concurrency())) +
               " hardware threads)";
    }

    BackendCapabilities capabilities() const override {
        BackendCapabilities caps;
        caps.parallel_host_workers = true;
        return caps;
    }

    std::unique_ptr<Backend> make_worker() const override {
        return std::make_unique<CpuBackend>(true);
    }

    DeviceMatrix allocate(Index rows, Index cols) override { return allocate_host(rows, cols); }

    DeviceMatrix upload(const Matrix& host) override {
        DeviceMatrix m = allocate_host(host.rows(), host.cols());
        view(m) = host;
        return m;
    }

    Matrix download(const DeviceMatrix& m) override { return view(m); }

    DeviceMatrix select_columns(const DeviceMatrix& X, const IndexVector& cols) override {
        check_indices(cols, X.cols(), "select_columns");
        DeviceMatrix out = allocate_host(X.rows(), Index(cols.size()));
        auto src = view(X);
        auto dst = view(out);
        for (std::size_t k = 0; k < cols.size(); ++k) dst.col(Index(k)) = src.col(cols[k]);
        return out;
    }

    DeviceMatrix select_rows(const DeviceMatrix& X, const IndexVector& rows) override {
        check_indices(rows, X.rows(), "select_rows");
        DeviceMatrix out = allocate_host(Index(rows.size()), X.cols());
        auto src = view(X);
        auto dst = view(out);
        for (std::size_t k = 0; k < rows.size(); ++k) dst.row(Index(k)) = src.row(rows[k]);
        return out;
    }

    DeviceMatrix kernel_matrix(const KernelSpec& spec, const DeviceMatrix& A,
                               const DeviceMatrix& B, const DeviceMatrix* scale) override {
        ZN_EXPECTS_DIM(A.cols() == B.cols(), "kernel_matrix: A has " << A.cols()
                                                 << " features but B has " << B.cols());
        if (scale != nullptr)
            ZN_EXPECTS_DIM(scale->size() == A.cols(), "kernel_matrix: feature scale has "
                                                          << scale->size() << " entries for "
                                                          << A.cols() << " features");
        spec.validate(A.cols());
        const bool symmetric = &A == &B;
        const Matrix SA = prepare_rows(spec, view(A), scale);
        const Matrix SB = symmetric ? Matrix() : prepare_rows(spec, view(B), scale);
        const Matrix& rhs = symmetric ? SA : SB;
        DeviceMatrix K = allocate_host(A.rows(), B.rows());
        auto out = view(K);
        if (spec.type == KernelType::Chi2) {
            out = chi2_kernel(spec.gamma, SA, rhs);
            return K;
        }
        if (symmetric) {
            out.setZero();
            out.selfadjointView<Eigen::Lower>().rankUpdate(SA);
            out.triangularView<Eigen::StrictlyUpper>() = out.transpose();
        } else {
            out.noalias() = SA * rhs.transpose();
        }
        // Squared norms only where the kernel needs distances; for A = B they are the Gram's
        // diagonal, which keeps every point at distance exactly 0 from itself.
        Vector sq_a, sq_b;
        if (spec.type == KernelType::Rbf || spec.type == KernelType::WeightedRbf) {
            sq_a = symmetric ? Vector(out.diagonal()) : Vector(SA.rowwise().squaredNorm());
            sq_b = symmetric ? sq_a : Vector(rhs.rowwise().squaredNorm());
        }
        finish_kernel(spec, out, sq_a, sq_b);
        if (symmetric && (spec.type == KernelType::Rbf || spec.type == KernelType::WeightedRbf))
            out.diagonal().setOnes();  // distance of a point to itself is exactly 0
        return K;
    }

    void gemm(bool trans_a, bool trans_b, double alpha, const DeviceMatrix& A,
              const DeviceMatrix& B, double beta, DeviceMatrix& C) override {
        const Index m = trans_a ? A.cols() : A.rows();
        const Index k = trans_a ? A.rows() : A.cols();
        const Index k2 = trans_b ? B.cols() : B.rows();
        const Index n = trans_b ? B.rows() : B.cols();
        ZN_EXPECTS_DIM(k == k2 && C.rows() == m && C.cols() == n,
                       "gemm: op(A) is " << m << "x" << k << ", op(B) is " << k2 << "x" << n
                                         << ", C is " << C.rows() << "x" << C.cols());
        auto a = view(A);
        auto b = view(B);
        auto c = view(C);
        if (beta == 0.0) c.setZero(); else c *= beta;
        if (!trans_a && !trans_b) c.noalias() += alpha * a * b;
        else if (trans_a && !trans_b) c.noalias() += alpha * a.transpose() * b;
        else if (!trans_a && trans_b) c.noalias() += alpha * a * b.transpose();
        else c.noalias() += alpha * a.transpose() * b.transpose();
    }

    bool cholesky_solve(DeviceMatrix& A, DeviceMatrix& B) override {
        ZN_EXPECTS_DIM(A.rows() == A.cols() && B.rows() == A.rows(),
                       "cholesky_solve: A is " << A.rows() << "x" << A.cols() << ", B is "
                                               << B.rows() << "x" << B.cols());
        auto a = view(A);
        Eigen::LLT<Eigen::Ref<Matrix>> llt(a);
        if (llt.info() != Eigen::Success) return false;
        auto b = view(B);
        llt.solveInPlace(b);
        return b.allFinite();
    }

    void syrk(bool trans, double alpha, const DeviceMatrix& A, double beta,
              DeviceMatrix& C) override {
        const Index n = trans ? A.cols() : A.rows();
        ZN_EXPECTS_DIM(C.rows() == n && C.cols() == n,
                       "syrk: op(A) has " << n << " columns" << (trans ? " (A transposed)" : "")
                                          << " but C is " << C.rows() << "x" << C.cols());
        ZN_EXPECTS(C.empty() || C.data() != A.data(), "syrk: C must not share storage with A");
        if (n == 0) return;
        auto a = view(A);
        auto c = view(C);
        if (beta == 0.0)
            c.triangularView<Eigen::Lower>().setZero();
        else if (beta != 1.0)
            c.triangularView<Eigen::Lower>() *= beta;
        // Lower triangle by one rank-k update (dsyrk through EIGEN_USE_BLAS), then mirrored.
        if (trans)
            c.selfadjointView<Eigen::Lower>().rankUpdate(a.transpose(), alpha);
        else
            c.selfadjointView<Eigen::Lower>().rankUpdate(a, alpha);
        // Mirror tile by tile: a whole-matrix transposed copy strides through memory and costs
        // more than the product itself for l in the thousands and small k.
        constexpr Index tile = 64;
        for (Index j0 = 0; j0 < n; j0 += tile) {
            const Index jb = std::min(tile, n - j0);
            auto diagonal = c.block(j0, j0, jb, jb);
            diagonal.triangularView<Eigen::StrictlyUpper>() = diagonal.transpose();
            for (Index i0 = j0 + tile; i0 < n; i0 += tile) {
                const Index ib = std::min(tile, n - i0);
                c.block(j0, i0, jb, ib) = c.block(i0, j0, ib, jb).transpose();
            }
        }
    }

    void scale_rows_columns(DeviceMatrix& X, const Vector& row_scale, const Vector& col_scale,
                            double diagonal_shift) override {
        ZN_EXPECTS_DIM(row_scale.size() == 0 || row_scale.size() == X.rows(),
                       "scale_rows_columns: " << row_scale.size() << " row scales for "
                                              << X.rows() << " rows");
        ZN_EXPECTS_DIM(col_scale.size() == 0 || col_scale.size() == X.cols(),
                       "scale_rows_columns: " << col_scale.size() << " column scales for "
                                              << X.cols() << " columns");
        auto x = view(X);
        const bool rows = row_scale.size() > 0;
        for (Index j = 0; j < x.cols(); ++j) {
            const double c = col_scale.size() > 0 ? col_scale[j] : 1.0;
            if (rows)
                x.col(j).array() *= row_scale.array() * c;
            else if (c != 1.0)
                x.col(j) *= c;
        }
        if (diagonal_shift != 0.0) x.diagonal().array() += diagonal_shift;
    }

    bool cholesky_factor(DeviceMatrix& A) override {
        ZN_EXPECTS_DIM(A.rows() == A.cols(),
                       "cholesky_factor: A is " << A.rows() << "x" << A.cols() << ", not square");
        if (A.empty()) return true;
        auto a = view(A);
        Eigen::LLT<Eigen::Ref<Matrix>> llt(a);  // in place: the lower triangle becomes L
        if (llt.info() != Eigen::Success) return false;
        const auto d = a.diagonal().array();
        return (d > 0.0).all() && d.isFinite().all();
    }

    void triangular_solve(const DeviceMatrix& L, bool transpose, bool on_the_right,
                          DeviceMatrix& B) override {
        ZN_EXPECTS_DIM(L.rows() == L.cols() && (on_the_right ? B.cols() : B.rows()) == L.rows(),
                       "triangular_solve: L is " << L.rows() << "x" << L.cols() << ", B is "
                                                 << B.rows() << "x" << B.cols()
                                                 << (on_the_right ? " (L on the right)" : ""));
        ZN_EXPECTS(B.empty() || B.data() != L.data(),
                   "triangular_solve: B must not share storage with L");
        if (B.empty()) return;
        auto l = view(L);
        auto b = view(B);
        // dtrsm through EIGEN_USE_BLAS; L' is the upper triangle of the transposed view.
        if (!transpose && !on_the_right)
            l.triangularView<Eigen::Lower>().solveInPlace(b);
        else if (transpose && !on_the_right)
            l.transpose().triangularView<Eigen::Upper>().solveInPlace(b);
        else if (!transpose && on_the_right)
            l.triangularView<Eigen::Lower>().solveInPlace<Eigen::OnTheRight>(b);
        else
            l.transpose().triangularView<Eigen::Upper>().solveInPlace<Eigen::OnTheRight>(b);
    }

    SmoResult solve_smo(const DeviceMatrix& K, const Vector& y, const SmoOptions& options,
                        const Vector* warm_start) override {
        ZN_EXPECTS_DIM(K.rows() == K.cols(), "solve_smo: kernel is " << K.rows() << "x" << K.cols());
        // Finite data give an infinite kernel only by overflow: a numerical failure.
        if (!view(K).allFinite())
            throw NumericalError("solve_smo: the kernel matrix contains NaN or Inf (values of the "
                                 "data too large for the kernel? standardise them)");
        DenseKernelColumns columns(K);
        return cpu::solve_smo(columns, y, options, warm_start);
    }

    SmoResult solve_smo_working_set(const DeviceMatrix& K, const Vector& y, const Vector& beta,
                                    const Vector& gradient, const SmoOptions& options) override {
        detail::check_smo_working_set(K, y, beta, gradient, options);
        // The subproblem's linear term: gradient - Q_BB beta, Q_BB beta = y o (K (y o beta)) +
        // ridge beta.
        const Vector Qb =
            y.cwiseProduct(view(K) * y.cwiseProduct(beta)) + options.ridge * beta;
        SmoOptions local = options;
        local.shrinking = false;
        DenseKernelColumns columns(K);
        return cpu::solve_smo_linear(columns, y, gradient - Qb, beta, local);
    }

    void assign_columns(DeviceMatrix& X, const IndexVector& cols,
                        const DeviceMatrix& source) override {
        detail::check_assign_columns(X, cols, source);
        for (std::size_t k = 0; k < cols.size(); ++k)
            view(X).col(cols[k]) = view(source).col(Index(k));
    }

    // The batched primitives are plain loops over the blocks: the reference the CUDA batch
    // kernels are tested against.
    SplitBlocks split_batch(const DeviceMatrix& X, const std::vector<IndexVector>& train_rows,
                            const std::vector<IndexVector>& test_rows, bool standardize) override {
        const auto [n, m] = detail::check_split_batch(X.rows(), train_rows, test_rows);
        const Index d = X.cols();
        const Index P = Index(train_rows.size());
        SplitBlocks out{allocate_host(n, d * P), allocate_host(m, d * P)};
        for (Index p = 0; p < P; ++p) {
            Matrix train = view(select_rows(X, train_rows[std::size_t(p)]));
            Matrix test = view(select_rows(X, test_rows[std::size_t(p)]));
            if (standardize) {
                const Standardizer s = Standardizer::fit(train);
                train = s.transform(train);
                test = s.transform(test);
            }
            view(out.train).middleCols(p * d, d) = train;
            view(out.test).middleCols(p * d, d) = test;
        }
        return out;
    }

    DeviceMatrix scaled_gram_batch(const DeviceMatrix& A, const DeviceMatrix& B,
                                   const DeviceMatrix& Z, Precision precision) override {
        const Index d = detail::check_scaled_gram_batch(A, B, Z);
        const Index P = Z.cols();
        const Index l = B.rows();
        DeviceMatrix K = allocate_host(A.rows(), l * P);
        auto out = view(K);
        for (Index p = 0; p < P; ++p) {
            const auto z = view(Z).col(p).asDiagonal();
            const Matrix SA = view(block(A, d, p)) * z;
            const Matrix SB = &A == &B ? Matrix() : Matrix(view(block(B, d, p)) * z);
            const Matrix& rhs = &A == &B ? SA : SB;
            if (precision == Precision::Float32) {
                const Eigen::MatrixXf a = SA.cast<float>(), b = rhs.cast<float>();
                out.middleCols(p * l, l) = (a * b.transpose()).cast<double>();
            } else {
                out.middleCols(p * l, l).noalias() = SA * rhs.transpose();
            }
        }
        return K;
    }

    DeviceMatrix kernel_batch(const KernelSpec& spec, Index batch, const DeviceMatrix& A,
                              const DeviceMatrix& B) override {
        const Index d = detail::check_kernel_batch(batch, A, B);
        const Index l = B.rows();
        DeviceMatrix K = allocate_host(A.rows(), l * batch);
        for (Index p = 0; p < batch; ++p) {
            const DeviceMatrix a = block(A, d, p);  // passed twice: the symmetric form
            const DeviceMatrix K_p = &A == &B ? kernel_matrix(spec, a, a, nullptr)
                                              : kernel_matrix(spec, a, block(B, d, p), nullptr);
            view(K).middleCols(p * l, l) = view(K_p);
        }
        return K;
    }

    DeviceMatrix gather_blocks(const DeviceMatrix& K, Index block_width, const IndexVector& source,
                               const std::vector<IndexVector>& rows,
                               const std::vector<IndexVector>& cols) override {
        const auto [r, c] = detail::check_gather_blocks(K, block_width, source, rows, cols);
        DeviceMatrix out = allocate_host(r, c * Index(source.size()));
        for (std::size_t q = 0; q < source.size(); ++q)
            view(out).middleCols(Index(q) * c, c) = view(
                select_rows(select_columns(block(K, block_width, source[q]), cols[q]), rows[q]));
        return out;
    }

    void gemm_batch(Index batch, bool trans_a, bool trans_b, double alpha, const DeviceMatrix& A,
                    const DeviceMatrix& B, double beta, DeviceMatrix& C) override {
        const detail::GemmBatchShape s = detail::check_gemm_batch(batch, trans_a, trans_b, A, B, C);
        for (Index p = 0; p < batch; ++p) {
            DeviceMatrix c = block(C, s.n, p);
            gemm(trans_a, trans_b, alpha, block(A, s.a_block, p), block(B, s.b_block, p), beta, c);
        }
    }

    std::vector<ScaleUpdate> multiplicative_update_batch(const DeviceMatrix& Z,
                                                         const DeviceMatrix& W,
                                                         const std::vector<char>& update,
                                                         double prune_tolerance,
                                                         DeviceMatrix& normalized,
                                                         DeviceMatrix& next) override {
        detail::check_multiplicative_update_batch(Z, W, update, prune_tolerance, normalized, next);
        std::vector<ScaleUpdate> out(static_cast<std::size_t>(Z.cols()));
        for (Index p = 0; p < Z.cols(); ++p) {
            const Vector z = view(Z).col(p);
            if (!update[std::size_t(p)]) {
                view(normalized).col(p) = z;
                view(next).col(p) = z;
                continue;
            }
            // arom_update over all d entries: a pruned entry (z_j = 0) has u_j = 0, so it
            // changes neither max(u), the change nor the survivors.
            const detail::AromUpdate u = detail::arom_update(
                z, z.cwiseProduct(view(W).col(p)).cwiseAbs(), prune_tolerance);
            view(normalized).col(p) = u.normalized;
            view(next).col(p) = u.z;
            ScaleUpdate& s = out[std::size_t(p)];
            s.degenerate = u.degenerate;
            s.survivors = u.degenerate ? 0 : Index(u.keep.size());
            s.max_change = u.max_change;
        }
        return out;
    }

    std::vector<SmoResult> solve_smo_batch(const DeviceMatrix& K, const Matrix& Y,
                                           const SmoOptions& options, const Matrix* warm_start,
                                           const std::vector<char>& active) override {
        detail::check_smo_batch(K, Y, warm_start, active);
        const Index n = Y.rows();
        std::vector<SmoResult> out(static_cast<std::size_t>(Y.cols()));
        for (Index p = 0; p < Y.cols(); ++p) {
            if (!active.empty() && !active[std::size_t(p)]) continue;
            const Vector warm = warm_start != nullptr ? Vector(warm_start->col(p)) : Vector();
            out[std::size_t(p)] = solve_smo(block(K, n, p), Y.col(p), options,
                                            warm_start != nullptr ? &warm : nullptr);
        }
        return out;
    }

    std::vector<SmoResult> newton_finish_batch(const DeviceMatrix& K, const Matrix& Y,
                                               const Matrix& beta, const SmoOptions& options,
                                               const std::vector<char>& open) override {
        detail::check_newton_finish_batch(K, Y, beta, options, open);
        return detail::newton_finish_on_host(view(K), Y, beta, options, open);
    }

    SmoResult solve_smo(const KernelSpec& spec, const DeviceMatrix& X, const Vector& y,
                        const SmoOptions& options, const Vector* warm_start) override {
        spec.validate(X.cols());
        Matrix data = view(X);
        if (spec.type == KernelType::WeightedRbf) data *= spec.theta.cwiseSqrt().asDiagonal();
        KernelSpec plain = spec;
        if (spec.type == KernelType::WeightedRbf) plain.type = KernelType::Rbf;
        CachedKernelColumns columns(plain, std::move(data), options.cache_mb);
        return cpu::solve_smo(columns, y, options, warm_start);
    }

private:
    std::unique_ptr<cpu::SingleThreadedBlas> one_blas_thread_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace zeronorm
