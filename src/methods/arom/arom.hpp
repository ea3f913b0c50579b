// Internal: AROM (Weston, Elisseeff, Schoelkopf, Tipping, JMLR 3:1439-1461, 2003), the
// multiplicative update, the loop shared by l2-AROM, l1-AROM and the Weston-Watkins variant, and
// the drivers. Not installed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "methods/selection_common.hpp"
#include "zeronorm/core/ops/arom_ops.hpp"
#include "zeronorm/solvers/ww_svm.hpp"

namespace zeronorm::detail {

// One multiplicative update of AROM (sec. 3.1 step 3, Problem 11 step 3 for several machines):
//   u = z .* s,  s_j = sum_k |w_bar_kj|,   u <- u / max(u),   u_j <= prune_tolerance -> removed.
// `z` and `w_abs_sum` are over the features still alive.
struct AromUpdate {
    Vector normalized;   // u / max(u) before pruning
    Vector z;            // the same with pruned components set to 0
    IndexVector keep;    // positions (into the alive features) that survive, increasing
    double max_change = 0.0;  // max_j |normalized_j - z_prev_j|
    bool degenerate = false;  // u is all zero or not finite: no update possible
};
AromUpdate arom_update(const Vector& z, const Vector& w_abs_sum, double prune_tolerance);

// What one inner fit returns: s_j = sum_k |w_bar_kj| over the alive features, where w_bar_k are
// the weights of machine k on the rescaled data z * x (so the update is z <- z .* s).
struct AromStep {
    Vector w_abs_sum;
    double objective = 0.0;  // optimal value of the inner problem(s), summed over machines
    bool solved = true;      // false: an inner solver failed; the loop keeps the last iterate
};

// Step 2 of AROM, "fit w on z * x": the only part in which l2-AROM (an SVM dual per machine),
// l1-AROM (an LP per machine) and Weston-Watkins AROM (one M-SVM dual) differ. The fitter owns
// its copy of the alive columns of the data; `compact` drops the pruned ones.
class AromFitter {
public:
    virtual ~AromFitter() = default;
    // z: scale of each alive feature (max 1); alive: their original column indices.
    virtual AromStep fit(const Vector& z, const IndexVector& alive, std::int64_t iteration) = 0;
    // keep: positions into the alive features that survive, increasing.
    virtual void compact(const IndexVector& keep) = 0;
};

// s = sum_k |w_bar_k| with w_bar_k = (X diag z)' coef_k = z .* w_k: the z-update input of the
// dual fitters from W = X' coef (dual_weights; coef_k = beta_k .* y_k for an SVM, c_k for the
// M-SVM).
Vector scaled_weight_sum(const Vector& z, const Matrix& W);

// Which scales (over all d features, 0 = pruned) a feature count reached at an update is read
// from (the reading documented at FeatureSubset): exactly r survivors -> the new scales; fewer
// -> the r largest of the previous ones (on the first update, whose predecessor is z = 1, of the
// normalised u before pruning).
enum class ScaleSource { Next = 0, Previous = 1, Normalized = 2 };  // values index arrays

// A feature count reached at an update reads its selection from one of the scales around it:
// the r features whose scales in `source` are largest, over all d features, largest first and
// ties to the lower feature (the one-problem route computes it, the batched one orders the
// backend's scales with AromOps::top_rows). r never exceeds the nonzero scales of a Next or
// Previous source, so the pruned features (0) are never among them.
using TopFeatures = std::function<IndexVector(ScaleSource source, Index r)>;

// One count reached at an update and the scales its selection is read from.
struct CountReached {
    ScaleSource source;
    Index count;
};

// The bookkeeping of one AROM run around its fits: the z-update and pruning (step 3), the
// feature counts reached on the way (the reading documented at FeatureSubset), the stopping
// rules and the trace. run_arom drives one path with a fitter; the batched driver
// (selection_batch.hpp) drives many paths, one per problem, whose scales stay in the backend's
// memory and are updated there (AromOps::multiplicative_update_batch) with the same arithmetic.
class AromPath {
public:
    AromPath(Index d, const SelectionOptions& options, const IndexVector& counts_desc);

    bool running() const { return running_; }
    std::int64_t next_iteration() const { return ranking_.iterations + 1; }
    const Vector& z() const { return z_; }              // scale of each alive feature
    const IndexVector& alive() const { return alive_; }  // their original column indices

    // Takes the fit of iteration next_iteration() on z(): updates z, serves the counts reached,
    // decides whether to go on. Returns the positions (into the alive features before the call)
    // that survive when some were pruned, for the fitter's compaction; empty otherwise.
    IndexVector advance(const AromStep& step);

    // The same for an update made elsewhere (a batch on the backend), and the step the form
    // above shares: the trace, the counts served and the stopping rules. `update` is what it
    // did, `solved` whether the fit succeeded (if not, update is ignored), `objective` the
    // fit's, `top` reads the selections around it (only as counts_reached names them).
    // Returns false when the update is not taken (failed fit or degenerate u: the path stops at
    // the last good iterate). z() and alive() are not kept up to date on this route: finish it
    // with the last good scales' order.
    bool advance(const ScaleUpdate& update, bool solved, double objective,
                 const TopFeatures& top);
    // The counts such an update reaches (decreasing) and their sources (empty: none reached).
    std::vector<CountReached> counts_reached(const ScaleUpdate& update, bool solved) const;

    // The ranking for every count (counts not reached: the r largest z of the last good
    // iterate) and the final z over all d features as scores.
    Ranking finish() &&;
    // The batched route's: the counts not reached take the first r of `top_of_last` (the
    // r largest of the last good scales over all d features, AromOps::top_rows), asked once
    // for the largest such count, count_pending(); no scores (its evaluation keeps the
    // selections only, and the scales stay on the backend).
    Index count_pending() const { return pending_ < counts_desc_.size() ? counts_desc_[pending_] : 0; }
    Ranking finish(const IndexVector& top_of_last) &&;

private:
    const SelectionOptions& options_;
    const IndexVector& counts_desc_;
    Index d_;
    IndexVector alive_;
    Vector z_;
    std::size_t pending_ = 0;  // next count (descending) not yet served
    bool running_ = true;
    Ranking ranking_;
};

// The AROM loop of sec. 3.1 (z = 1; repeat: fit, z <- z .* s, normalise, prune) with the
// feature-count reading documented at FeatureSubset. Empty counts_desc: run until z converges
// (or the iteration cap). Scores: the final z over all d features (0 once pruned).
Ranking run_arom(AromFitter& fitter, Index d, const SelectionOptions& options,
                 const IndexVector& counts_desc);

// Options of the Weston-Watkins M-SVM inside AROM (C, ridge, smo.tolerance) or of the final
// classifier (final_C, final_ridge, final_smo.tolerance), and the message for data it cannot
// separate with a hard margin.
WwSvmOptions ww_options(const SelectionOptions& options, bool final_classifier);
std::string ww_not_separable_message(const std::string& where);

// The drivers: build the fitter for the method and run the loop. l2-AROM uses the
// Weston-Watkins fitter for K >= 3 classes with MulticlassScheme::WestonWatkins.
Ranking run_l2_arom(Backend& backend, const Dataset& data, const Machines& machines,
                    const SelectionOptions& options, const IndexVector& counts_desc);
Ranking run_l1_arom(const Dataset& data, const Machines& machines,
                    const SelectionOptions& options, const IndexVector& counts_desc);

}  // namespace zeronorm::detail
