// AROM: approximation of zero-norm minimisation by multiplicative updates (Weston, Elisseeff,
// Schoelkopf, Tipping, "Use of the Zero-Norm with Linear Models and Kernel Methods", JMLR
// 3:1439-1461, 2003). The loop is written once (run_arom); only step 2, "fit w on z * x",
// differs between the variants (an AromFitter):
//
// l2-AROM, two classes (sec. 3.1, Problem 8, with the ridge of sec. 3.2): z = 1; repeat
//   beta = argmax_beta  sum_i beta_i - 1/2 sum_ij beta_i beta_j y_i y_j ((z*x_i).(z*x_j) + lambda [i==j])
//          s.t. sum_i beta_i y_i = 0,  0 <= beta_i <= C          (C = inf: hard margin)
//   w_bar = sum_i beta_i y_i (z * x_i) = (X diag z)' (beta .* y)
//   z <- z .* |w_bar|
// until z stops changing. This is gradient descent on sum_j ln|w_j| (Problem 6) with the l2 norm
// in place of the l1 norm of Problem 7. Several classes, one-vs-rest (sec. 3.3, Problem 11): one
// such SVM per class k against the rest on the same rescaled data, and z <- z .* sum_k |w_bar_k|.
// Weston-Watkins (sec. 3.3, Problem 10 with the objective sum_k |w_k|^2): one M-SVM dual on the
// same rescaled Gram (ww_svm.hpp), w_bar_k = (X diag z)' c_k, and again z <- z .* sum_k |w_bar_k|.
//
// l1-AROM (sec. 3.1, Problem 7): step 2 is the LP
//   min sum_j |w_j|   s.t.  y_i (w . (z * x_i) + b) >= 1 - xi_i,  xi_i >= 0,  + C sum_i xi_i
// (no slacks for C = inf, the paper's form), solved as a vertex LP by train_l1_svm with feature
// scaling z; w_bar = w, z <- z .* |w_bar|. Several classes: one LP per one-vs-rest machine (the
// l1 objective of Problem 9 with one-vs-rest constraints separates into them). The ridge of
// sec. 3.2 is a kernel-diagonal term of the l2 dual and does not enter the LP.
//
// Implementation of the l2 fitters, all through the Backend: the Gram matrix of the rescaled data
// comes from kernel_matrix with the feature scale z (one SYRK), SMO is warm-started from the
// previous beta, w_bar from one GEMM X'(beta .* y) for all machines at once. z is normalised to
// max 1 after each update, and a component that falls to <= prune_tolerance is removed for good:
// its column is compacted out of X (select_columns), so later iterations cost less. Where the
// samples outnumber the features (fits_without_kernel: n >= max(2000, 10 d), d <= 1024, or
// n >= 20,000) the two-class and one-vs-rest SVMs come from the l2-l1 dual's interior point
// with zero costs, or with a ridge from the primal's Newton steps, instead, on the host, without
// the n x n kernel.
#include "methods/arom/arom.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <sstream>

#include "core/scalar_rules.hpp"
#include "methods/machine_fits.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/solvers/lp_svm.hpp"
#include "zeronorm/solvers/ww_svm.hpp"

namespace zeronorm::detail {

AromUpdate arom_update(const Vector& z, const Vector& w_abs_sum, double prune_tolerance) {
    ZN_EXPECTS_DIM(z.size() == w_abs_sum.size(), "arom_update: z has " << z.size()
                                                     << " entries but |w| has " << w_abs_sum.size());
    AromUpdate out;
    const Vector u = z.binaryExpr(w_abs_sum.cwiseAbs(), &rules::arom_unnormalized);
    const double top = u.size() > 0 ? u.maxCoeff() : 0.0;
    if (rules::arom_degenerate(top, !u.allFinite())) {
        out.degenerate = true;
        out.normalized = z;
        out.z = z;
        for (Index j = 0; j < z.size(); ++j) out.keep.push_back(j);
        return out;
    }
    out.normalized.resize(u.size());
    out.z.resize(u.size());
    for (Index j = 0; j < u.size(); ++j) {
        const rules::AromEntry entry = rules::arom_entry(u[j], top, z[j], prune_tolerance);
        out.normalized[j] = entry.normalized;
        out.z[j] = entry.next;
        out.max_change = std::max(out.max_change, entry.change);
        if (entry.keep) out.keep.push_back(j);
    }
    return out;
}

namespace {

// The r largest of `values` (over `features`, original indices), best first.
IndexVector top_r(const IndexVector& features, const Vector& values, Index r) {
    IndexVector out = order_descending_first(values, r);
    for (Index& k : out) k = features[std::size_t(k)];
    return out;
}

// The features alive in scales over all d features (the nonzero ones; prune_tolerance > 0) and
// their scales, in increasing feature order.
struct AliveScales {
    IndexVector features;
    Vector z;
};
AliveScales alive_scales(const Vector& scales) {
    AliveScales out;
    for (Index j = 0; j < scales.size(); ++j)
        if (scales[j] != 0.0) out.features.push_back(j);
    out.z.resize(Index(out.features.size()));
    for (std::size_t k = 0; k < out.features.size(); ++k) out.z[Index(k)] = scales[out.features[k]];
    return out;
}

std::string step_name(const char* method, std::int64_t iteration, std::size_t n_alive,
                      std::size_t n_machines, std::size_t machine) {
    std::ostringstream where;
    where << method << " iteration " << iteration << " (" << n_alive << " features)";
    if (n_machines > 1) where << ", class " << machine << " against the rest";
    return where.str();
}

// l2-AROM, two classes or one-vs-rest: an SVM dual per machine on the rescaled Gram (SMO on the
// backend, warm-started from the previous beta). On many samples (fits_without_kernel) the same
// SVMs without the n x n kernel instead: the interior point on the host copy of the rescaled
// alive columns, warm-started likewise, whose weights are w_bar itself (it sees z * x).
class L2SvmFitter final : public AromFitter {
public:
    L2SvmFitter(Backend& backend, const Dataset& data, const Machines& machines,
                const SelectionOptions& options)
        : backend_(backend), data_(data), machines_(machines), options_(options),
          without_kernel_(fits_without_kernel(data.n_samples(), data.n_features())),
          beta_(machines.targets.size()) {
        if (without_kernel_)
            X_host_ = data.X;
        else
            X_ = backend.upload(data.X);
    }

    AromStep fit(const Vector& z, const IndexVector& alive, std::int64_t iteration) override {
        const std::size_t n_machines = machines_.targets.size();
        const auto radius2 = [&] { return max_row_norm2(data_.X, alive, z); };
        const auto where = [&](std::size_t k) {
            return step_name("l2-AROM", iteration, alive.size(), n_machines, k);
        };
        MachineFits fits;
        if (without_kernel_) {
            fits = fit_machines_without_kernel(X_host_ * z.asDiagonal(), machines_, options_,
                                               beta_, radius2, where, true);
        } else {
            const DeviceMatrix z_dev = backend_.upload(Matrix(z));
            const DeviceMatrix K = backend_.kernel_matrix(KernelSpec{}, X_, X_, &z_dev);
            fits = fit_machines(backend_, K, X_, machines_, options_, beta_, radius2, where, true);
        }
        AromStep step;
        if (fits.status != Status::Success) {
            step.solved = false;
            return step;
        }
        step.objective = fits.objective;
        step.w_abs_sum = without_kernel_ ? Vector(fits.W.cwiseAbs().rowwise().sum())
                                         : scaled_weight_sum(z, fits.W);
        return step;
    }

    void compact(const IndexVector& keep) override {
        if (without_kernel_)
            X_host_ = Matrix(X_host_(Eigen::all, keep));
        else
            X_ = backend_.select_columns(X_, keep);
    }

private:
    Backend& backend_;
    const Dataset& data_;
    const Machines& machines_;
    const SelectionOptions& options_;
    bool without_kernel_;
    DeviceMatrix X_;  // columns of the alive features only (the kernel route)
    Matrix X_host_;   // the same on the host (without the kernel)
    std::vector<Vector> beta_;  // warm starts
};

// Weston-Watkins AROM: one M-SVM dual (ww_svm.hpp) on the rescaled Gram, computed on the backend
// and solved on the host (n x n), warm-started from the previous alpha; w_bar_k = (X diag z)' c_k.
class WwSvmFitter final : public AromFitter {
public:
    WwSvmFitter(Backend& backend, const Dataset& data, const Machines& machines,
                const SelectionOptions& options)
        : backend_(backend), n_classes_(machines.n_classes), options_(options),
          X_(backend.upload(data.X)) {
        for (Index i = 0; i < data.n_samples(); ++i) labels_.push_back(int(data.y[i]));
    }

    AromStep fit(const Vector& z, const IndexVector& alive, std::int64_t iteration) override {
        const DeviceMatrix z_dev = backend_.upload(Matrix(z));
        const Matrix K = backend_.download(backend_.kernel_matrix(KernelSpec{}, X_, X_, &z_dev));
        const WwSvmResult r = solve_ww_svm(K, labels_, n_classes_, ww_options(options_, false),
                                           alpha_.size() ? &alpha_ : nullptr);
        if (r.not_separable)
            throw NumericalError(ww_not_separable_message(
                step_name("l2-AROM (Weston-Watkins)", iteration, alive.size(), 1, 0)));
        AromStep step;
        if (r.status != Status::Success) {
            step.solved = false;
            return step;
        }
        alpha_ = r.alpha;
        step.objective = r.dual_objective;  // 1/2 sum_k |w_bar_k|^2 for a hard margin
        step.w_abs_sum =
            scaled_weight_sum(z, backend_.download(dual_weights(backend_, 1, X_, r.coef)));
        return step;
    }

    void compact(const IndexVector& keep) override { X_ = backend_.select_columns(X_, keep); }

private:
    Backend& backend_;
    int n_classes_;
    const SelectionOptions& options_;
    DeviceMatrix X_;
    std::vector<int> labels_;
    Matrix alpha_;  // warm start
};

// l1-AROM: the LP of Problem 7 per machine, on the host copy of the alive columns.
class L1LpFitter final : public AromFitter {
public:
    L1LpFitter(const Dataset& data, const Machines& machines, const SelectionOptions& options)
        : machines_(machines), options_(options), X_(data.X) {}

    AromStep fit(const Vector& z, const IndexVector& alive, std::int64_t iteration) override {
        const std::size_t n_machines = machines_.targets.size();
        L1SvmOptions lp;
        lp.C = options_.C;
        lp.feature_scaling = z;
        AromStep step;
        step.w_abs_sum = Vector::Zero(X_.cols());
        for (std::size_t k = 0; k < n_machines; ++k) {
            const LpSvmResult r = train_l1_svm(X_, machines_.targets[k], lp);
            if (r.status == Status::Infeasible) {
                std::ostringstream os;
                os << step_name("l1-AROM", iteration, alive.size(), n_machines, k)
                   << ": data not separable: the hard-margin LP of Problem 7 (C = inf) is "
                   << "infeasible, no hyperplane separates the training data on these features; "
                   << "set a finite C (--C) for the soft-margin LP (the ridge, --ridge, does not "
                   << "enter the LP of l1-AROM)";
                throw NumericalError(os.str());
            }
            if (!r.optimal()) {
                step.solved = false;
                return step;
            }
            step.w_abs_sum += r.w.cwiseAbs();  // r.w: weights of the scaled features z * x
            step.objective += r.objective;
        }
        return step;
    }

    void compact(const IndexVector& keep) override {
        Matrix next(X_.rows(), Index(keep.size()));
        for (std::size_t k = 0; k < keep.size(); ++k) next.col(Index(k)) = X_.col(keep[k]);
        X_ = std::move(next);
    }

private:
    const Machines& machines_;
    const SelectionOptions& options_;
    Matrix X_;  // host copy of the alive columns
};

}  // namespace

Vector scaled_weight_sum(const Vector& z, const Matrix& W) {
    // w_bar_k = (X diag z)'(coef_k) = z .* (X' coef_k);  s = sum_k |w_bar_k|.
    return z.cwiseProduct(W.cwiseAbs().rowwise().sum());
}

AromPath::AromPath(Index d, const SelectionOptions& options, const IndexVector& counts_desc)
    : options_(options), counts_desc_(counts_desc), d_(d), z_(Vector::Ones(d)) {
    ranking_.selected.resize(counts_desc.size());
    ranking_.status = Status::NoConvergence;
    alive_.resize(static_cast<std::size_t>(d));
    for (Index j = 0; j < d; ++j) alive_[std::size_t(j)] = j;
}

std::vector<CountReached> AromPath::counts_reached(const ScaleUpdate& update, bool solved) const {
    std::vector<CountReached> reached;
    if (!running_ || !solved || update.degenerate) return reached;
    const std::int64_t iter = next_iteration();
    for (std::size_t k = pending_;
         k < counts_desc_.size() && update.survivors <= counts_desc_[k]; ++k)
        reached.push_back({update.survivors == counts_desc_[k] ? ScaleSource::Next
                           : iter > 1                          ? ScaleSource::Previous
                                                               : ScaleSource::Normalized,
                           counts_desc_[k]});
    return reached;
}

bool AromPath::advance(const ScaleUpdate& update, bool solved, double objective,
                       const TopFeatures& top) {
    ZN_EXPECTS(running_, "AromPath::advance after the path has stopped");
    const std::int64_t iter = next_iteration();
    // A failed fit, or w_bar = 0 (nothing in the data separates the classes): keep the last
    // good iterate.
    if (!solved || update.degenerate) {
        ranking_.status = Status::NumericalIssue;
        ranking_.message =
            "iteration " + std::to_string(iter) + " (" + std::to_string(alive_.size()) +
            " features): " +
            (solved ? std::string("w_bar vanished (no feature separates the classes)")
                    : std::string("an inner solve did not reach its optimum (an SVM at its "
                                  "iteration cap, or an LP without an optimal vertex)")) +
            "; the counts not reached come from the last good iterate";
        running_ = false;
        return false;
    }
    // Feature counts reached at this iterate (the reading is documented at FeatureSubset).
    for (const CountReached& reached : counts_reached(update, solved))
        ranking_.selected[pending_++] = top(reached.source, reached.count);
    ranking_.iterations = iter;
    ranking_.trace.push_back({update.survivors, objective, update.max_change});

    const bool all_served = !counts_desc_.empty() && pending_ == counts_desc_.size();
    if (all_served || update.max_change <= options_.convergence_tolerance) {
        ranking_.status = Status::Success;
        running_ = false;
    } else if (iter >= options_.max_iterations) {
        running_ = false;  // status stays NoConvergence
        std::ostringstream os;
        os << "max_iterations = " << options_.max_iterations << " reached before z settled "
           << "(its largest change " << update.max_change << " > convergence_tolerance "
           << options_.convergence_tolerance << ")";
        ranking_.message = os.str();
    }
    return true;
}

IndexVector AromPath::advance(const AromStep& step) {
    // Step 3: z <- z .* sum_k |w_bar_k|, normalised, pruned.
    const AromUpdate update = step.solved
                                  ? arom_update(z_, step.w_abs_sum, options_.prune_tolerance)
                                  : AromUpdate{};
    const auto over_all = [&](const Vector& alive_values) {
        Vector full = Vector::Zero(d_);
        for (std::size_t k = 0; k < alive_.size(); ++k) full[alive_[k]] = alive_values[Index(k)];
        return full;
    };
    // Before the first update every feature is alive; later the alive ones are exactly the
    // nonzero scales (prune_tolerance > 0).
    const TopFeatures top = [&](ScaleSource source, Index r) {
        if (source == ScaleSource::Normalized) {
            IndexVector all(static_cast<std::size_t>(d_));
            std::iota(all.begin(), all.end(), Index(0));
            return top_r(all, over_all(update.normalized), r);
        }
        const AliveScales alive =
            alive_scales(over_all(source == ScaleSource::Next ? update.z : z_));
        return top_r(alive.features, alive.z, r);
    };
    const ScaleUpdate summary{Index(update.keep.size()), update.max_change, update.degenerate};
    if (!advance(summary, step.solved, step.objective, top)) return {};

    // Compaction: drop the pruned columns for good.
    const Index survivors = summary.survivors;
    if (survivors == Index(alive_.size())) {
        z_ = update.z;
        return {};
    }
    IndexVector next_alive;
    Vector next_z(survivors);
    for (Index k = 0; k < survivors; ++k) {
        next_alive.push_back(alive_[std::size_t(update.keep[std::size_t(k)])]);
        next_z[k] = update.z[update.keep[std::size_t(k)]];
    }
    alive_ = std::move(next_alive);
    z_ = std::move(next_z);
    return update.keep;
}

Ranking AromPath::finish() && {
    // Counts not reached: the r largest z of the last (good) iterate.
    for (; pending_ < counts_desc_.size(); ++pending_)
        ranking_.selected[pending_] = top_r(alive_, z_, counts_desc_[pending_]);
    ranking_.scores = Vector::Zero(d_);
    for (std::size_t k = 0; k < alive_.size(); ++k) ranking_.scores[alive_[k]] = z_[Index(k)];
    return std::move(ranking_);
}

Ranking AromPath::finish(const IndexVector& top_of_last) && {
    for (; pending_ < counts_desc_.size(); ++pending_) {
        const auto r = std::size_t(counts_desc_[pending_]);
        ZN_EXPECTS(r <= top_of_last.size(), "AromPath::finish: " << top_of_last.size()
                                                << " features ordered for the count " << r);
        ranking_.selected[pending_].assign(top_of_last.begin(), top_of_last.begin() + r);
    }
    return std::move(ranking_);
}

Ranking run_arom(AromFitter& fitter, Index d, const SelectionOptions& options,
                 const IndexVector& counts_desc) {
    AromPath path(d, options, counts_desc);
    while (path.running()) {
        const AromStep step = fitter.fit(path.z(), path.alive(), path.next_iteration());
        const IndexVector keep = path.advance(step);
        if (!keep.empty()) fitter.compact(keep);
    }
    return std::move(path).finish();
}

WwSvmOptions ww_options(const SelectionOptions& options, bool final_classifier) {
    WwSvmOptions o;
    if (final_classifier) {
        o.C = options.final_C;
        o.ridge = options.final_ridge;
        o.tolerance = options.final_smo.tolerance;
    } else {
        o.C = options.C;
        o.ridge = options.ridge;
        o.tolerance = options.smo.tolerance;
    }
    return o;
}

std::string ww_not_separable_message(const std::string& where) {
    return where + ": data not separable: the hard-margin M-SVM (Problem 10, C = inf, ridge = 0) "
                   "has no solution or a negligible margin; set a ridge > 0 (--ridge) or a "
                   "finite C (--C)";
}

Ranking run_l2_arom(Backend& backend, const Dataset& data, const Machines& machines,
                    const SelectionOptions& options, const IndexVector& counts_desc) {
    if (!machines.binary() && options.multiclass == MulticlassScheme::WestonWatkins) {
        WwSvmFitter fitter(backend, data, machines, options);
        return run_arom(fitter, data.n_features(), options, counts_desc);
    }
    L2SvmFitter fitter(backend, data, machines, options);
    return run_arom(fitter, data.n_features(), options, counts_desc);
}

Ranking run_l1_arom(const Dataset& data, const Machines& machines,
                    const SelectionOptions& options, const IndexVector& counts_desc) {
    L1LpFitter fitter(data, machines, options);
    return run_arom(fitter, data.n_features(), options, counts_desc);
}

}  // namespace zeronorm::detail
