#include "solvers/decomposition_smo.hpp"

#include <algorithm>
#include <limits>
#include <list>
#include <utility>
#include <vector>

#include "solvers/smo_common.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/ops/smo_ops.hpp"

namespace zeronorm::detail {

namespace {

// Kernel columns K(:, j) of the training points X, kept in a matrix of `capacity` columns in the
// backend's memory; the least recently used are evicted.
class KernelColumnCache {
public:
    KernelColumnCache(Backend& backend, const KernelSpec& spec, const DeviceMatrix& X,
                      Index capacity)
        : backend_(backend), spec_(spec), X_(X), store_(backend.allocate(X.rows(), capacity)),
          slot_of_(std::size_t(X.rows()), -1), position_(std::size_t(X.rows())) {
        for (Index s = capacity - 1; s >= 0; --s) free_slots_.push_back(s);
    }

    // K(:, cols) (n x cols.size()) for distinct cols, at most `capacity` of them.
    DeviceMatrix columns(const IndexVector& cols) {
        IndexVector missing;
        for (const Index c : cols) {
            if (slot_of_[std::size_t(c)] < 0) {
                missing.push_back(c);
            } else {  // most recently used first
                recent_.splice(recent_.begin(), recent_, position_[std::size_t(c)]);
            }
        }
        if (!missing.empty()) {
            // The requested columns present were just moved to the front, so the back holds
            // only columns this request does not need.
            while (free_slots_.size() < missing.size()) {
                const Index evicted = recent_.back();
                recent_.pop_back();
                free_slots_.push_back(slot_of_[std::size_t(evicted)]);
                slot_of_[std::size_t(evicted)] = -1;
            }
            IndexVector slots;
            for (const Index c : missing) {
                slots.push_back(free_slots_.back());
                free_slots_.pop_back();
                slot_of_[std::size_t(c)] = slots.back();
                recent_.push_front(c);
                position_[std::size_t(c)] = recent_.begin();
            }
            backend_.assign_columns(
                store_, slots, backend_.kernel_matrix(spec_, X_, backend_.select_rows(X_, missing)));
            computed_ += Index(missing.size());
        }
        IndexVector slots;
        for (const Index c : cols) slots.push_back(slot_of_[std::size_t(c)]);
        return backend_.select_columns(store_, slots);
    }

    Index computed() const { return computed_; }

private:
    Backend& backend_;
    const KernelSpec& spec_;
    const DeviceMatrix& X_;
    DeviceMatrix store_;                 // n x capacity
    std::vector<Index> slot_of_;         // column of store_ holding K(:, j), or -1
    std::list<Index> recent_;            // cached columns, most recently used first
    std::vector<std::list<Index>::iterator> position_;  // of each cached column in recent_
    IndexVector free_slots_;
    Index computed_ = 0;
};

// Violators (-y_t G_t, t) of I_up and I_low, and the gap m - M (0 when a set is empty).
struct Violators {
    std::vector<std::pair<double, Index>> up, low;
    double gap = 0.0;
};

Violators violators(const Vector& beta, const Vector& G, const Vector& y, double C) {
    Violators v;
    double m = -std::numeric_limits<double>::infinity();
    double M = std::numeric_limits<double>::infinity();
    for (Index t = 0; t < y.size(); ++t) {
        const double value = -y[t] * G[t];
        if (smo_detail::in_up(y[t], beta[t], C)) {
            v.up.emplace_back(value, t);
            m = std::max(m, value);
        }
        if (smo_detail::in_low(y[t], beta[t], C)) {
            v.low.emplace_back(value, t);
            M = std::min(M, value);
        }
    }
    v.gap = v.up.empty() || v.low.empty() ? 0.0 : std::max(0.0, m - M);
    return v;
}

// The working set: `kept` first, then the largest -y_t G_t of I_up and the smallest of I_low,
// alternately, up to q variables (ties to the larger index, as LIBSVM's scans). `fresh`
// receives the variables added here, most violating first.
IndexVector select_working_set(Violators& v, const IndexVector& kept, Index q, Index n,
                               IndexVector& fresh) {
    std::vector<char> chosen(std::size_t(n), 0);
    IndexVector B;
    for (const Index t : kept) {
        B.push_back(t);
        chosen[std::size_t(t)] = 1;
    }
    const auto top = [q](std::vector<std::pair<double, Index>>& list, bool largest) {
        const std::size_t count = std::min(list.size(), std::size_t(2 * q));
        std::partial_sort(list.begin(), list.begin() + std::ptrdiff_t(count), list.end(),
                          [largest](const auto& a, const auto& b) {
                              if (a.first != b.first) return largest ? a.first > b.first : a.first < b.first;
                              return a.second > b.second;
                          });
        list.resize(count);
    };
    top(v.up, true);
    top(v.low, false);
    fresh.clear();
    std::size_t i = 0, j = 0;
    while (Index(B.size()) < q && (i < v.up.size() || j < v.low.size())) {
        for (auto* list : {&v.up, &v.low}) {
            std::size_t& k = list == &v.up ? i : j;
            while (k < list->size() && chosen[std::size_t((*list)[k].second)]) ++k;
            if (k < list->size() && Index(B.size()) < q) {
                const Index t = (*list)[k++].second;
                chosen[std::size_t(t)] = 1;
                B.push_back(t);
                fresh.push_back(t);
            }
        }
    }
    return B;
}

}  // namespace

SmoResult solve_smo_decomposition(Backend& backend, const KernelSpec& spec, const DeviceMatrix& X,
                                  const Vector& y, const SmoOptions& options,
                                  const DecompositionOptions& decomposition,
                                  const Vector* warm_start) {
    options.validate();
    const Index n = X.rows();
    ZN_EXPECTS_DIM(y.size() == n, "solve_smo_decomposition: X has " << n << " rows but y has "
                                                                    << y.size() << " entries");
    smo_detail::check_smo_labels(y);
    spec.validate(X.cols());
    ZN_EXPECTS(decomposition.working_set >= 2,
               "solve_smo_decomposition: the working set needs at least 2 variables, got "
                   << decomposition.working_set);
    ZN_EXPECTS(decomposition.cache_columns >= 0,
               "solve_smo_decomposition: cache_columns must be >= 0, got "
                   << decomposition.cache_columns);
    Index q = std::min(decomposition.working_set, n);
    q -= q % 2;
    const Index capacity = std::clamp(
        decomposition.cache_columns > 0 ? decomposition.cache_columns : 4 * q, q, n);
    const std::int64_t max_steps = smo_detail::smo_iteration_cap(options, n);
    KernelColumnCache cache(backend, spec, X, capacity);

    Vector beta = smo_detail::smo_starting_point(warm_start, y, options.C);
    Vector G = Vector::Constant(n, -1.0);
    // G += Q(:, cols) delta = y o (K(:, cols) (y_cols o delta)) + ridge delta on cols.
    const auto add_columns = [&](const IndexVector& cols, const DeviceMatrix& K_cols,
                                 const Vector& delta) {
        Vector c(Index(cols.size()));
        for (std::size_t k = 0; k < cols.size(); ++k) c[Index(k)] = y[cols[k]] * delta[Index(k)];
        DeviceMatrix product = backend.allocate(n, 1);
        backend.gemm(false, false, 1.0, K_cols, backend.upload(c), 0.0, product);
        G += y.cwiseProduct(backend.download(product).col(0));
        for (std::size_t k = 0; k < cols.size(); ++k) G[cols[k]] += options.ridge * delta[Index(k)];
    };
    // A warm start's gradient, from the columns of its nonzero entries, q at a time.
    IndexVector nonzero;
    for (Index t = 0; t < n; ++t)
        if (beta[t] != 0) nonzero.push_back(t);
    for (std::size_t first = 0; first < nonzero.size(); first += std::size_t(q)) {
        const IndexVector cols(nonzero.begin() + std::ptrdiff_t(first),
                               nonzero.begin() + std::ptrdiff_t(std::min(nonzero.size(), first + std::size_t(q))));
        Vector values(Index(cols.size()));
        for (std::size_t k = 0; k < cols.size(); ++k) values[Index(k)] = beta[cols[k]];
        add_columns(cols, cache.columns(cols), values);
    }

    std::int64_t steps = 0;
    Status status = Status::NoConvergence;
    IndexVector kept, fresh;
    for (;;) {
        Violators v = violators(beta, G, y, options.C);
        if (v.gap <= options.tolerance) {
            status = Status::Success;
            break;
        }
        if (steps >= max_steps) break;
        const IndexVector B = select_working_set(v, kept, q, n, fresh);
        const DeviceMatrix K_cols = cache.columns(B);
        const Index b = Index(B.size());
        Vector y_B(b), beta_B(b), G_B(b);
        for (Index k = 0; k < b; ++k) {
            y_B[k] = y[B[std::size_t(k)]];
            beta_B[k] = beta[B[std::size_t(k)]];
            G_B[k] = G[B[std::size_t(k)]];
        }
        SmoOptions local = options;
        local.tolerance = std::max(options.tolerance, 0.1 * v.gap);
        local.max_iterations = std::min<std::int64_t>(max_steps - steps, 100 * std::int64_t(b));
        local.shrinking = false;
        const SmoResult sub =
            backend.smo().solve_working_set(backend.select_rows(K_cols, B), y_B, beta_B, G_B, local);
        steps += sub.iterations;
        const Vector delta = sub.beta - beta_B;
        if ((delta.array() == 0.0).all()) break;  // no progress: stop rather than spin
        add_columns(B, K_cols, delta);
        for (Index k = 0; k < b; ++k) beta[B[std::size_t(k)]] = sub.beta[k];
        kept.assign(fresh.begin(), fresh.begin() + std::ptrdiff_t(std::min(fresh.size(), std::size_t(q / 2))));
    }

    SmoResult result = smo_detail::smo_result(beta, G, y, options.C);
    result.iterations = steps;
    result.status = status;
    return result;
}

}  // namespace zeronorm::detail
