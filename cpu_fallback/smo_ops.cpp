// The CPU backend's SMO operations: LIBSVM-style SMO (smo_solver.hpp) on kernel columns, from a
// precomputed matrix or computed on demand into an LRU cache; batches are loops over problems,
// the Newton finish is the host code of dense_dual.cpp.
#include <algorithm>
#include <list>
#include <unordered_map>

#include "core/all_finite.hpp"
#include "core/batch_shapes.hpp"
#include "core/op_shapes.hpp"
#include "cpu_backend.hpp"
#include "smo_solver.hpp"
#include "solvers/dense_dual.hpp"
#include "solvers/smo_common.hpp"
#include "solvers/sparse_rows.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/ops/smo_ops.hpp"

namespace zeronorm::cpu {
namespace {

// Kernel columns computed on demand from the data and kept in an LRU cache.
class CachedKernelColumns final : public KernelColumns {
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
        if (spec_.type == KernelType::Chi2) {
            Matrix row = X_.row(i);
            return chi2_kernel(spec_.gamma, X_, row);
        }
        Matrix col = sparse_.empty() ? Matrix(X_ * X_.row(i).transpose())
                                     : Matrix(sparse_.times(X_.row(i).transpose()));
        finish_kernel(spec_, col, sq_norms_, sq_norms_.segment(i, 1));
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
class DenseKernelColumns final : public KernelColumns {
public:
    explicit DenseKernelColumns(const DeviceMatrix& K) : K_(K), diagonal_(view(K).diagonal()) {}
    Index size() const override { return K_.rows(); }
    const double* column(Index i) override { return K_.data() + i * K_.rows(); }
    const Vector& diagonal() const override { return diagonal_; }

private:
    const DeviceMatrix& K_;
    Vector diagonal_;
};

class CpuSmoOps final : public SmoOps {
public:
    SmoResult solve(const DeviceMatrix& K, const Vector& y, const SmoOptions& options,
                    const Vector* warm_start, const SmoTerms& terms) override {
        detail::check_smo(K, y, terms.p, terms.delta);
        ZN_EXPECTS(detail::all_finite(view(K)), "solve_smo: the kernel matrix contains NaN or Inf");
        DenseKernelColumns columns(K);
        return solve_smo(columns, y, options, warm_start, terms);
    }

    SmoResult solve(const KernelSpec& spec, const DeviceMatrix& X, const Vector& y,
                    const SmoOptions& options, const Vector* warm_start) override {
        spec.validate(X.cols());
        Matrix data = view(X);
        if (spec.type == KernelType::WeightedRbf) data *= spec.theta.cwiseSqrt().asDiagonal();
        KernelSpec plain = spec;
        if (spec.type == KernelType::WeightedRbf) plain.type = KernelType::Rbf;
        CachedKernelColumns columns(plain, std::move(data), options.cache_mb);
        return solve_smo(columns, y, options, warm_start);
    }

    SmoResult solve_working_set(const DeviceMatrix& K, const Vector& y, const Vector& beta,
                                const Vector& gradient, const SmoOptions& options) override {
        detail::check_smo_working_set(K, y, beta, gradient, options);
        // The subproblem's linear term: gradient - Q_BB beta, Q_BB beta = y o (K (y o beta)) +
        // ridge beta.
        const Vector Qb = y.cwiseProduct(view(K) * y.cwiseProduct(beta)) + options.ridge * beta;
        SmoOptions local = options;
        local.shrinking = false;
        DenseKernelColumns columns(K);
        return solve_smo_linear(columns, y, gradient - Qb, beta, local);
    }

    std::vector<SmoResult> solve_batch(const DeviceMatrix& K, const Matrix& Y,
                                       const SmoOptions& options, const Matrix* warm_start,
                                       const std::vector<char>& active,
                                       const SmoBatchTerms& terms) override {
        detail::check_smo_batch(K, Y, warm_start, active, terms, options);
        const Index n = Y.rows();
        std::vector<SmoResult> out(static_cast<std::size_t>(Y.cols()));
        for (Index p = 0; p < Y.cols(); ++p) {
            if (!active.empty() && !active[std::size_t(p)]) continue;
            const Vector warm = warm_start != nullptr ? Vector(warm_start->col(p)) : Vector();
            out[std::size_t(p)] = solve(block(K, n, p), Y.col(p), options,
                                        warm_start != nullptr ? &warm : nullptr,
                                        smo_detail::problem_terms(terms, p));
        }
        return out;
    }

    std::vector<SmoResult> newton_finish_batch(const DeviceMatrix& K, const Matrix& Y,
                                               const Matrix& beta, const SmoOptions& options,
                                               const std::vector<char>& open,
                                               const SmoBatchTerms& terms) override {
        detail::check_newton_finish_batch(K, Y, beta, options, open, terms);
        return detail::newton_finish_on_host(view(K), Y, beta, options, open, terms);
    }
};

}  // namespace

std::unique_ptr<SmoOps> make_smo_ops() { return std::make_unique<CpuSmoOps>(); }

}  // namespace zeronorm::cpu
