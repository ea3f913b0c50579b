// Recursive feature elimination with a linear SVM (Guyon, Weston, Barnhill, Vapnik, Machine
// Learning 46, 2002; Weston et al., JMLR 3, 2003, sec. 4.3).
//
// Backward selection: train the SVM (the same C and ridge as AROM) on the surviving features,
//   w_k = X_alive' (beta_k .* y_k)   for every machine k (one-vs-rest for K >= 3 classes),
// and remove the feature(s) with the smallest criterion c_j = sum_k w_kj^2: for a linear kernel
// this is the feature whose removal changes W^2(alpha) = |w|^2 least at fixed alpha. One feature
// per round, or max(1, floor(rfe_fraction * remaining)) (Guyon et al. remove half at a time when
// d is large); a round never steps past a requested count, so every count is met exactly.
// The features are ranked by elimination order (eliminated last = best; those removed in the
// same round by decreasing c_j); the r left when exactly r remain are the subset for r, so one
// run serves all counts. The last survivors (the smallest count) keep the order of c_j in the
// round that left them (no SVM is trained on them: with r features the data are often no longer
// separable, and that SVM would not change the subset).
// Where the samples outnumber the features (fits_without_kernel: n >= max(2000, 10 d),
// d <= 1024, or n >= 20,000) the rounds' SVMs come from the l2-l1 dual with zero
// costs, or with a ridge from the primal by Newton steps (fit_machines_without_kernel; a hard
// margin through the same staged bounds as SMO's) instead of SMO on the n x n kernel: the same
// SVM, its w the same to the solvers' accuracy.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>
#include <utility>

#include "methods/machine_fits.hpp"
#include "methods/rfe/rfe.hpp"
#include "methods/selection_common.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm::detail {

RfeElimination::RfeElimination(Index d, IndexVector counts_desc, double fraction)
    : d_(d), counts_desc_(std::move(counts_desc)), fraction_(fraction),
      alive_(static_cast<std::size_t>(d)) {
    for (Index j = 0; j < d; ++j) alive_[std::size_t(j)] = j;
}

RfeElimination::Step RfeElimination::step() const {
    const Index r_min = counts_desc_.back();
    const Index remaining = Index(alive_.size());
    if (remaining == r_min) return {0, true};
    // How many to remove: never past the next requested count below `remaining`.
    Index next_count = r_min;
    for (Index c : counts_desc_)
        if (c < remaining) {
            next_count = c;
            break;
        }
    Index remove = 1;
    if (fraction_ > 0)
        remove = std::max<Index>(1, Index(std::floor(fraction_ * double(remaining))));
    remove = std::min(remove, remaining - next_count);
    return {remove, remaining - remove == r_min};
}

void RfeElimination::advance(const RfeRound& scored) {
    ZN_EXPECTS(running_, "RfeElimination::advance: the elimination has ended");
    ZN_EXPECTS_DIM(scored.criterion.size() == Index(alive_.size()),
                   "RfeElimination::advance: " << scored.criterion.size() << " criteria for "
                                               << alive_.size() << " features");
    // Only the removed are put in full order, and the survivors only when they are the last.
    const Step s = step();
    const Index remaining = Index(alive_.size());
    eliminate(order_descending_from(scored.criterion, s.last ? 0 : remaining - s.remove),
              scored.objective, scored.status);
}

void RfeElimination::eliminate(const IndexVector& order_tail, double objective, Status status) {
    ZN_EXPECTS(running_, "RfeElimination::eliminate: the elimination has ended");
    const Index remaining = Index(alive_.size());
    const Step s = step();
    ZN_EXPECTS_DIM(Index(order_tail.size()) == (s.last ? remaining : s.remove),
                   "RfeElimination::eliminate: " << order_tail.size() << " positions for a round of "
                                                 << remaining << " features removing " << s.remove);
    std::vector<char> seen(static_cast<std::size_t>(remaining), 0);
    for (const Index k : order_tail) {
        ZN_EXPECTS(k >= 0 && k < remaining && !seen[std::size_t(k)],
                   "RfeElimination::eliminate: position " << k << " is outside 0.." << remaining - 1
                                                          << " or repeated");
        seen[std::size_t(k)] = 1;
    }
    if (status != Status::Success && out_.status == Status::Success) {
        out_.status = Status::NumericalIssue;
        out_.message = "round " + std::to_string(round_) + " (" + std::to_string(remaining) +
                       " features): an inner SVM stopped at its iteration cap; that round was "
                       "ranked by its last iterate";
    }
    out_.iterations = round_;
    out_.trace.push_back({remaining - s.remove, objective, 0.0});
    const auto removed_begin = order_tail.end() - std::ptrdiff_t(s.remove);
    if (s.remove > 0) {
        IndexVector removed;
        for (auto it = removed_begin; it != order_tail.end(); ++it)
            removed.push_back(alive_[std::size_t(*it)]);
        eliminated_rounds_.push_back(std::move(removed));
    }
    if (s.last) {
        // The last survivors keep this round's order: no SVM on them is needed.
        for (auto it = order_tail.begin(); it != removed_begin; ++it)
            survivors_ranked_.push_back(alive_[std::size_t(*it)]);
        running_ = false;
        return;
    }
    IndexVector next_alive;  // the survivors in column order
    next_alive.reserve(std::size_t(remaining - s.remove));
    for (std::size_t k = 0; k < alive_.size(); ++k)
        if (!seen[k]) next_alive.push_back(alive_[k]);
    alive_ = std::move(next_alive);
    ++round_;
}

Ranking RfeElimination::finish() && {
    ZN_EXPECTS(!running_, "RfeElimination::finish: the elimination has not ended");
    // Full ranking: survivors, then the eliminated in reverse order of elimination.
    IndexVector ranking = survivors_ranked_;
    for (auto it = eliminated_rounds_.rbegin(); it != eliminated_rounds_.rend(); ++it)
        ranking.insert(ranking.end(), it->begin(), it->end());
    out_.scores = Vector::Zero(d_);
    for (std::size_t k = 0; k < ranking.size(); ++k) out_.scores[ranking[k]] = double(d_ - Index(k));
    for (Index r : counts_desc_) out_.selected.emplace_back(ranking.begin(), ranking.begin() + r);
    return std::move(out_);
}

Ranking eliminate_recursively(Index d, const IndexVector& counts_desc, double fraction,
                              const RfeCriterion& criterion_of) {
    RfeElimination elimination(d, counts_desc, fraction);
    while (elimination.running())
        elimination.advance(criterion_of(elimination.round(), elimination.alive()));
    return std::move(elimination).finish();
}

ColumnTracker::ColumnTracker(Backend& backend, const Matrix& X)
    : backend_(backend), X_(backend.upload(X)) {
    for (Index j = 0; j < X.cols(); ++j) columns_.push_back(j);
}

IndexVector positions_within(const IndexVector& held, const IndexVector& alive) {
    IndexVector positions;
    positions.reserve(alive.size());
    std::size_t p = 0;
    for (const Index j : alive) {
        while (held[p] != j) ++p;
        positions.push_back(Index(p));
    }
    return positions;
}

const DeviceMatrix& ColumnTracker::columns(const IndexVector& alive) {
    if (alive != columns_) {
        X_ = backend_.select_columns(X_, positions_within(columns_, alive));
        columns_ = alive;
    }
    return X_;
}

namespace {

// The name of machine k's fit in RFE round `round` (messages).
std::string round_name(std::int64_t round, const IndexVector& alive, const Machines& machines,
                       std::size_t k) {
    std::ostringstream where;
    where << "RFE round " << round << " (" << alive.size() << " features)";
    if (machines.targets.size() > 1) where << ", class " << k << " against the rest";
    return where.str();
}

}  // namespace

MachineFits fit_rfe_round(Backend& backend, ColumnTracker& X, const KernelSpec& kernel,
                          const Machines& machines, const SelectionOptions& options,
                          std::vector<Vector>& beta, const std::function<double()>& radius2,
                          std::int64_t round, const IndexVector& alive) {
    const DeviceMatrix& Xa = X.columns(alive);
    const DeviceMatrix K = backend.kernel_matrix(kernel, Xa, Xa);
    return fit_machines(
        backend, K, Xa, machines, options, beta, radius2,
        [&](std::size_t k) { return round_name(round, alive, machines, k); }, false);
}

Ranking run_rfe(Backend& backend, const Dataset& data, const Machines& machines,
                const SelectionOptions& options, const IndexVector& counts_desc) {
    if (fits_without_kernel(data.n_samples(), data.n_features())) {
        std::vector<Vector> beta(machines.targets.size());
        return eliminate_recursively(
            data.n_features(), counts_desc, options.rfe_fraction,
            [&](std::int64_t round, const IndexVector& alive) {
                const MachineFits fits = fit_machines_without_kernel(
                    data.X(Eigen::all, alive), machines, options, beta,
                    [&] { return max_row_norm2(data.X, alive, Vector()); },
                    [&](std::size_t k) { return round_name(round, alive, machines, k); }, false);
                return RfeRound{fits.W.rowwise().squaredNorm(), fits.objective, fits.status};
            });
    }
    const KernelSpec linear;
    ColumnTracker X(backend, data.X);
    std::vector<Vector> beta(machines.targets.size());
    return eliminate_recursively(
        data.n_features(), counts_desc, options.rfe_fraction,
        [&](std::int64_t round, const IndexVector& alive) {
            const MachineFits fits = fit_rfe_round(
                backend, X, linear, machines, options, beta,
                [&] { return max_row_norm2(data.X, alive, Vector()); }, round, alive);
            // A capped inner solve still gives a usable w for ranking; report it in the status.
            return RfeRound{fits.W.rowwise().squaredNorm(), fits.objective, fits.status};
        });
}

}  // namespace zeronorm::detail
