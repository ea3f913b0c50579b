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
#include <algorithm>
#include <cmath>
#include <sstream>

#include "methods/machine_fits.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm::detail {

Ranking run_rfe(Backend& backend, const Dataset& data, const Machines& machines,
                const SelectionOptions& options, const IndexVector& counts_desc) {
    const Index d = data.n_features();
    const std::size_t n_machines = machines.targets.size();
    const KernelSpec linear;
    const Index r_min = counts_desc.back();

    Ranking out;
    DeviceMatrix X = backend.upload(data.X);
    IndexVector alive(static_cast<std::size_t>(d));
    for (Index j = 0; j < d; ++j) alive[std::size_t(j)] = j;
    std::vector<Vector> beta(n_machines);
    std::vector<IndexVector> eliminated_rounds;  // in elimination order; each best first
    IndexVector survivors_ranked;

    for (std::int64_t round = 1;; ++round) {
        const DeviceMatrix K = backend.kernel_matrix(linear, X, X);
        const MachineFits fits = fit_machines(
            backend, K, X, machines, options, beta,
            [&] { return max_row_norm2(data.X, alive, Vector()); },
            [&](std::size_t k) {
                std::ostringstream where;
                where << "RFE round " << round << " (" << alive.size() << " features)";
                if (n_machines > 1) where << ", class " << k << " against the rest";
                return where.str();
            },
            false);
        // A capped inner solve still gives a usable w for ranking; report it in the status.
        if (fits.status != Status::Success) out.status = Status::NumericalIssue;
        const double objective = fits.objective;
        const Vector criterion = fits.W.rowwise().squaredNorm();
        out.iterations = round;

        const Index remaining = Index(alive.size());
        const IndexVector order = order_descending(criterion);  // positions, best first
        if (remaining == r_min) {
            for (Index p : order) survivors_ranked.push_back(alive[std::size_t(p)]);
            out.trace.push_back({remaining, objective, 0.0});
            break;
        }
        // How many to remove: never past the next requested count below `remaining`.
        Index next_count = r_min;
        for (Index c : counts_desc)
            if (c < remaining) {
                next_count = c;
                break;
            }
        Index remove = 1;
        if (options.rfe_fraction > 0)
            remove = std::max<Index>(1, Index(std::floor(options.rfe_fraction * double(remaining))));
        remove = std::min(remove, remaining - next_count);

        IndexVector removed, keep_positions;
        for (Index k = remaining - remove; k < remaining; ++k)
            removed.push_back(alive[std::size_t(order[std::size_t(k)])]);
        for (Index k = 0; k < remaining - remove; ++k) keep_positions.push_back(order[std::size_t(k)]);
        std::sort(keep_positions.begin(), keep_positions.end());  // keep column order stable
        eliminated_rounds.push_back(removed);

        out.trace.push_back({remaining - remove, objective, 0.0});
        if (remaining - remove == r_min) {
            // The last survivors keep this round's order: no SVM on them is needed.
            for (Index k = 0; k < r_min; ++k)
                survivors_ranked.push_back(alive[std::size_t(order[std::size_t(k)])]);
            break;
        }
        IndexVector next_alive;
        for (Index p : keep_positions) next_alive.push_back(alive[std::size_t(p)]);
        X = backend.select_columns(X, keep_positions);
        alive = std::move(next_alive);
    }

    // Full ranking: survivors, then the eliminated in reverse order of elimination.
    IndexVector ranking = survivors_ranked;
    for (auto it = eliminated_rounds.rbegin(); it != eliminated_rounds.rend(); ++it)
        ranking.insert(ranking.end(), it->begin(), it->end());
    out.scores = Vector::Zero(d);
    for (std::size_t k = 0; k < ranking.size(); ++k) out.scores[ranking[k]] = double(d - Index(k));
    for (Index r : counts_desc)
        out.selected.emplace_back(ranking.begin(), ranking.begin() + r);
    return out;
}

}  // namespace zeronorm::detail
