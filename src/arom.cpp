// l2-AROM: approximation of zero-norm minimisation by multiplicative updates with an SVM inside
// (Weston, Elisseeff, Schoelkopf, Tipping, "Use of the Zero-Norm with Linear Models and Kernel
// Methods", JMLR 3:1439-1461, 2003).
//
// Two classes (sec. 3.1, Problem 8, with the ridge of sec. 3.2): z = 1; repeat
//   beta = argmax_beta  sum_i beta_i - 1/2 sum_ij beta_i beta_j y_i y_j ((z*x_i).(z*x_j) + lambda [i==j])
//          s.t. sum_i beta_i y_i = 0,  0 <= beta_i <= C          (C = inf: hard margin)
//   w_bar = sum_i beta_i y_i (z * x_i) = (X diag z)' (beta .* y)
//   z <- z .* |w_bar|
// until z stops changing. This is gradient descent on sum_j ln|w_j| (Problem 6) with the l2 norm
// in place of the l1 norm of Problem 7. Several classes, one-vs-rest (sec. 3.3, Problem 11): one
// such SVM per class k against the rest on the same rescaled data, and z <- z .* sum_k |w_bar_k|.
//
// Implementation, all through the Backend: the Gram matrix of the rescaled data comes from
// kernel_matrix with the feature scale z (one SYRK), SMO is warm-started from the previous beta,
// w_bar from one GEMM X'(beta .* y) for all machines at once. z is normalised to max 1 after each
// update, and a component that falls to <= prune_tolerance is removed for good: its column is
// compacted out of X (select_columns), so later iterations cost less.
#include "arom.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "zeronorm/error.hpp"

namespace zeronorm::detail {

AromUpdate arom_update(const Vector& z, const Vector& w_abs_sum, double prune_tolerance) {
    ZN_EXPECTS_DIM(z.size() == w_abs_sum.size(), "arom_update: z has " << z.size()
                                                     << " entries but |w| has " << w_abs_sum.size());
    AromUpdate out;
    const Vector u = z.cwiseProduct(w_abs_sum.cwiseAbs());
    const double top = u.size() > 0 ? u.maxCoeff() : 0.0;
    if (!(top > 0.0) || !std::isfinite(top) || !u.allFinite()) {
        out.degenerate = true;
        out.normalized = z;
        out.z = z;
        for (Index j = 0; j < z.size(); ++j) out.keep.push_back(j);
        return out;
    }
    out.normalized = u / top;
    out.z = out.normalized;
    out.max_change = (out.normalized - z).cwiseAbs().maxCoeff();
    for (Index j = 0; j < u.size(); ++j) {
        if (out.normalized[j] > prune_tolerance)
            out.keep.push_back(j);
        else
            out.z[j] = 0.0;
    }
    return out;
}

namespace {

// The r largest of `values` (over `features`, original indices), best first.
IndexVector top_r(const IndexVector& features, const Vector& values, Index r) {
    const IndexVector order = order_descending(values);
    IndexVector out;
    for (Index k = 0; k < r && k < Index(order.size()); ++k)
        out.push_back(features[std::size_t(order[std::size_t(k)])]);
    return out;
}

}  // namespace

Ranking run_l2_arom(Backend& backend, const Dataset& data, const Machines& machines,
                    const SelectionOptions& options, const IndexVector& counts_desc) {
    const Index n = data.n_samples();
    const Index d = data.n_features();
    const std::size_t n_machines = machines.targets.size();
    const KernelSpec linear;  // x.y

    Ranking out;
    out.selected.resize(counts_desc.size());
    out.status = Status::NoConvergence;

    DeviceMatrix X = backend.upload(data.X);  // columns of the alive features only
    IndexVector alive(static_cast<std::size_t>(d));
    for (Index j = 0; j < d; ++j) alive[std::size_t(j)] = j;
    Vector z = Vector::Ones(d);
    std::vector<Vector> beta(n_machines);  // warm starts
    std::size_t pending = 0;               // next count (descending) not yet assigned

    for (std::int64_t iter = 1; iter <= options.max_iterations; ++iter) {
        // Step 2: the SVM(s) on z * x.
        const DeviceMatrix z_dev = backend.upload(Matrix(z));
        const DeviceMatrix K = backend.kernel_matrix(linear, X, X, &z_dev);
        Matrix coef(n, Index(n_machines));  // beta .* y per machine
        double objective = 0.0;
        bool solved = true;
        for (std::size_t k = 0; k < n_machines; ++k) {
            const Vector& y = machines.targets[k];
            std::ostringstream where;
            where << "l2-AROM iteration " << iter << " (" << alive.size() << " features)";
            if (n_machines > 1) where << ", class " << k << " against the rest";
            const DualSolver solve = [&](const SmoOptions& smo, const Vector* warm) {
                return backend.solve_smo(K, y, smo, warm);
            };
            const auto radius2 = [&] { return max_row_norm2(data.X, alive, z); };
            const SmoResult r = solve_svm_dual(solve, options.smo, options.C, options.ridge,
                                               beta[k].size() ? &beta[k] : nullptr, radius2,
                                               where.str());
            if (r.status != Status::Success) {
                solved = false;
                break;
            }
            beta[k] = r.beta;
            coef.col(Index(k)) = r.beta.cwiseProduct(y);
            objective -= r.objective;
        }
        if (!solved) {
            out.status = Status::NumericalIssue;  // keep the last good iterate
            break;
        }

        // Step 3: w_bar_k = (X diag z)'(beta_k .* y_k) = z .* (X' coef_k); z <- z .* sum_k |w_bar_k|.
        const DeviceMatrix coef_dev = backend.upload(coef);
        DeviceMatrix G = backend.allocate(Index(alive.size()), Index(n_machines));
        backend.gemm(true, false, 1.0, X, coef_dev, 0.0, G);
        const Matrix g = backend.download(G);
        const Vector w_abs_sum = z.cwiseProduct(g.cwiseAbs().rowwise().sum());
        const AromUpdate update = arom_update(z, w_abs_sum, options.prune_tolerance);
        if (update.degenerate) {  // w_bar = 0: nothing in the data separates the classes
            out.status = Status::NumericalIssue;
            break;
        }
        out.iterations = iter;
        const Index survivors = Index(update.keep.size());
        out.trace.push_back({survivors, objective, update.max_change});

        // Feature counts reached at this iterate (the reading is documented at FeatureSubset):
        // exactly r survivors -> those r; fewer -> the r largest z of the previous iterate (on
        // the first iterate, whose predecessor is z = 1, the r largest before pruning).
        while (pending < counts_desc.size() && survivors <= counts_desc[pending]) {
            const Index r = counts_desc[pending];
            if (survivors == r) {
                IndexVector kept_features;
                Vector kept_z(survivors);
                for (Index k = 0; k < survivors; ++k) {
                    kept_features.push_back(alive[std::size_t(update.keep[std::size_t(k)])]);
                    kept_z[k] = update.z[update.keep[std::size_t(k)]];
                }
                out.selected[pending] = top_r(kept_features, kept_z, r);
            } else if (iter > 1) {
                out.selected[pending] = top_r(alive, z, r);
            } else {
                out.selected[pending] = top_r(alive, update.normalized, r);
            }
            ++pending;
        }

        // Compaction: drop the pruned columns for good.
        if (survivors < Index(alive.size())) {
            X = backend.select_columns(X, update.keep);
            IndexVector next_alive;
            Vector next_z(survivors);
            for (Index k = 0; k < survivors; ++k) {
                next_alive.push_back(alive[std::size_t(update.keep[std::size_t(k)])]);
                next_z[k] = update.z[update.keep[std::size_t(k)]];
            }
            alive = std::move(next_alive);
            z = std::move(next_z);
        } else {
            z = update.z;
        }

        if (pending == counts_desc.size()) {  // every requested count is served
            out.status = Status::Success;
            break;
        }
        if (update.max_change <= options.convergence_tolerance) {
            out.status = Status::Success;
            break;
        }
    }

    // Counts not reached: the r largest z of the last (good) iterate.
    for (; pending < counts_desc.size(); ++pending)
        out.selected[pending] = top_r(alive, z, counts_desc[pending]);

    out.scores = Vector::Zero(d);
    for (std::size_t k = 0; k < alive.size(); ++k) out.scores[alive[k]] = z[Index(k)];
    return out;
}

}  // namespace zeronorm::detail
