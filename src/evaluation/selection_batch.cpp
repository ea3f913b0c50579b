#include "evaluation/selection_batch.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <numeric>

#include "evaluation/split_runner.hpp"
#include "methods/arom/arom.hpp"
#include "methods/machine_fits.hpp"
#include "methods/rfe/rfe.hpp"
#include "solvers/dense_dual.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/ops/arom_ops.hpp"
#include "zeronorm/core/ops/rfe_ops.hpp"
#include "zeronorm/solvers/svm.hpp"

namespace zeronorm::detail {

namespace {

SmoOptions dual_options(const SmoSettings& base, double C, double ridge) {
    return SmoOptions(base, C, ridge);
}

// The columns the AROM paths still read. The blocks and the scales hold `width` columns per
// split; column k of split p is original feature original(p, k), or -1 for padding: a column
// whose scale is 0, which the update keeps at 0 and no selection reaches. All d at first; when
// the widest split has pruned down to half the width, narrow() cuts every split to that.
class PathColumns {
public:
    explicit PathColumns(Index d) : width_(d) {}
    Index width() const { return width_; }
    Index original(std::size_t p, Index k) const { return narrowed_ ? feature_[p][std::size_t(k)] : k; }
    // For each i: the original features of the first counts[i] rows of the stable descending
    // order of split splits[i]'s column of S (width x P), ordered on the backend.
    std::vector<IndexVector> top_features(Backend& backend, const DeviceMatrix& S,
                                          const IndexVector& splits,
                                          const IndexVector& counts) const {
        if (splits.empty()) return {};
        std::vector<IndexVector> tops = backend.arom().top_rows(S, splits, counts);
        for (std::size_t i = 0; i < tops.size(); ++i)
            for (Index& k : tops[i]) k = original(std::size_t(splits[i]), k);
        return tops;
    }

    // Keeps each split's first kept[p].size() columns as kept[p] (ascending positions in the
    // current width) and pads it to `width` columns: X (n x width P) and Z (width x P), cut on
    // the backend. zero_at: the position in Z (flat) of an entry that is 0.
    void narrow(Backend& backend, const std::vector<IndexVector>& kept, Index width,
                Index zero_at, DeviceMatrix& X, DeviceMatrix& Z) {
        const std::size_t P = kept.size();
        IndexVector x_columns(P * std::size_t(width)), z_entries(P * std::size_t(width));
        std::vector<IndexVector> feature(P, IndexVector(std::size_t(width), -1));
        for (std::size_t p = 0; p < P; ++p)
            for (std::size_t k = 0; k < std::size_t(width); ++k) {
                const std::size_t at = p * std::size_t(width) + k;
                const Index first = Index(p) * width_;
                if (k < kept[p].size()) {
                    x_columns[at] = first + kept[p][k];
                    z_entries[at] = first + kept[p][k];
                    feature[p][k] = original(p, kept[p][k]);
                } else {  // any column of the split's block, its scale 0
                    x_columns[at] = first;
                    z_entries[at] = zero_at;
                }
            }
        X = backend.select_columns(X, x_columns);
        Z = backend.select_columns(Z.reshaped(1, Z.size()), z_entries).reshaped(width, Index(P));
        width_ = width;
        feature_ = std::move(feature);
        narrowed_ = true;
    }

private:
    Index width_;
    bool narrowed_ = false;
    std::vector<IndexVector> feature_;  // once narrowed: original(p, k) = feature_[p][k]
};

// The selections of the counts reached at one update, ordered on the backend (AromOps::
// top_rows): per source one request per split that reads from it, for the largest count it
// reached there (a smaller count's selection is the first part of a larger one's).
class FetchedTops {
public:
    // sources[s]: the width x P scales of ScaleSource s, whose columns are `columns`.
    FetchedTops(Backend& backend, const std::vector<AromPath>& paths,
                const std::vector<ScaleUpdate>& updates, const std::vector<char>& solved,
                const std::array<const DeviceMatrix*, 3>& sources, const PathColumns& columns) {
        const std::size_t P = paths.size();
        std::array<IndexVector, 3> splits, counts;  // the requests to each source
        for (std::size_t s = 0; s < 3; ++s) position_[s].assign(P, -1);
        for (std::size_t p = 0; p < P; ++p) {
            if (!paths[p].running()) continue;
            for (const CountReached& reached : paths[p].counts_reached(updates[p], solved[p] != 0)) {
                const auto s = std::size_t(reached.source);
                if (position_[s][p] >= 0) continue;  // counts decrease: the first is the largest
                position_[s][p] = Index(splits[s].size());
                splits[s].push_back(Index(p));
                counts[s].push_back(reached.count);
            }
        }
        for (std::size_t s = 0; s < 3; ++s)
            tops_[s] = columns.top_features(backend, *sources[s], splits[s], counts[s]);
    }

    // Split p's selections around the update (only the requested ones may be read), as
    // original features: the order of the columns is theirs, so ties still go to the lower.
    TopFeatures of(std::size_t p) const {
        return [this, p](ScaleSource source, Index r) {
            const IndexVector& top = tops_[std::size_t(source)][std::size_t(
                position_[std::size_t(source)][p])];
            return IndexVector(top.begin(), top.begin() + r);
        };
    }

private:
    std::array<std::vector<IndexVector>, 3> tops_;
    std::array<std::vector<Index>, 3> position_;  // request of split p to source s, or -1
};

// Every split's AROM path, advancing together. The scales live in the backend's memory (column
// p = split p's z, 0 = pruned) and are updated there; the host sees each split's survivors and
// largest change, and the selections of the feature counts reached. As the paths prune, the
// blocks and scales narrow to the widest split's survivors (W3: 7,129 columns per split, a few
// hundred after four iterations), and the splits that stopped are settled and padded.
std::vector<Ranking> run_paths(Backend& backend, const SplitBatch& c,
                               const SelectionEvaluationOptions& options,
                               const IndexVector& counts_desc, BatchPhaseSeconds& phases) {
    const SelectionOptions& sel = options.selection;
    const Index P = c.splits(), n = c.train_rows(), d = c.features();
    PhaseClock clock;
    std::vector<AromPath> paths;
    paths.reserve(std::size_t(P));
    for (Index p = 0; p < P; ++p) paths.emplace_back(d, sel, counts_desc);
    std::vector<Ranking> rankings(static_cast<std::size_t>(P));
    std::vector<char> settled(std::size_t(P), 0);
    PathColumns columns(d);
    // Settles the stopped paths among `splits`: their counts not reached read the last good
    // scales (Z: a split whose fit failed or whose update was degenerate kept its column).
    const auto settle = [&](const DeviceMatrix& Z, const IndexVector& splits) {
        IndexVector pending_splits, pending_counts;
        for (const Index p : splits)
            if (const Index r = paths[std::size_t(p)].count_pending(); r > 0) {
                pending_splits.push_back(p);
                pending_counts.push_back(r);
            }
        const std::vector<IndexVector> tops =
            columns.top_features(backend, Z, pending_splits, pending_counts);
        for (std::size_t i = 0, k = 0; i < splits.size(); ++i) {
            const auto p = std::size_t(splits[i]);
            const bool pending = k < pending_splits.size() && pending_splits[k] == Index(p);
            rankings[p] = std::move(paths[p]).finish(pending ? tops[k++] : IndexVector{});
            settled[p] = 1;
        }
    };
    const SmoOptions inner = dual_options(sel.smo, sel.C, sel.ridge);
    Matrix beta = Matrix::Zero(n, P);  // warm starts
    DeviceMatrix X = c.blocks.train;
    DeviceMatrix Z = backend.upload(Matrix::Ones(d, P));
    DeviceMatrix Z_next = backend.allocate(d, P), normalized = backend.allocate(d, P);
    std::int64_t iterations = 0;
    for (;;) {
        std::vector<char> active(std::size_t(P), 0);
        for (Index p = 0; p < P; ++p) active[std::size_t(p)] = paths[std::size_t(p)].running();
        if (std::none_of(active.begin(), active.end(), [](char a) { return a != 0; })) break;
        const DeviceMatrix K = backend.scaled_gram_batch(X, X, Z, options.gram_precision);
        clock.lap(phases.gram);
        const std::vector<SmoResult> duals =
            solve_dense_dual_batch(backend, K, c.y_train, inner, &beta, active);
        clock.lap(phases.smo);
        std::vector<char> solved(std::size_t(P), 0);
        for (Index p = 0; p < P; ++p) {
            if (!active[std::size_t(p)] || duals[std::size_t(p)].status != Status::Success)
                continue;
            solved[std::size_t(p)] = 1;
            beta.col(p) = duals[std::size_t(p)].beta;
        }
        // W_p = X_p' (beta_p .* y_p) for all splits in one product (the splits not solved are
        // not updated), then the update on the backend.
        const DeviceMatrix XtC = dual_weights(backend, P, X, dual_coefficients(duals, c.y_train));
        clock.lap(phases.weights);
        const std::vector<ScaleUpdate> updates = backend.arom().multiplicative_update_batch(
            Z, XtC, solved, sel.prune_tolerance, normalized, Z_next);
        const FetchedTops fetched(backend, paths, updates, solved, {&Z_next, &Z, &normalized},
                                  columns);
        parallel_for(std::size_t(P), options.threads, [&](std::size_t p) {
            if (!active[p]) return;
            const double objective = solved[p] ? -duals[p].objective : 0.0;
            paths[p].advance(updates[p], solved[p] != 0, objective, fetched.of(p));
        });
        std::swap(Z, Z_next);
        ++iterations;
        // Narrowing: every running split took this update, its survivors are its nonzero scales.
        IndexVector running, stopped;
        Index widest = 0;
        for (Index p = 0; p < P; ++p) {
            if (settled[std::size_t(p)]) continue;
            if (paths[std::size_t(p)].running()) {
                running.push_back(p);
                widest = std::max(widest, updates[std::size_t(p)].survivors);
            } else {
                stopped.push_back(p);
            }
        }
        if (!running.empty() && 2 * widest <= columns.width()) {
            settle(Z, stopped);  // padded from here on
            // Each running split's nonzero scales, and one more row of the first: a zero (the
            // scales are >= 0 and it has fewer survivors than the width).
            IndexVector counts;
            for (const Index p : running) counts.push_back(updates[std::size_t(p)].survivors);
            ++counts.front();
            std::vector<IndexVector> tops = backend.arom().top_rows(Z, running, counts);
            const Index zero_at = running.front() * columns.width() + tops.front().back();
            tops.front().pop_back();
            std::vector<IndexVector> kept(static_cast<std::size_t>(P));
            for (std::size_t i = 0; i < running.size(); ++i) {
                std::sort(tops[i].begin(), tops[i].end());
                kept[std::size_t(running[i])] = std::move(tops[i]);
            }
            columns.narrow(backend, kept, std::max<Index>(widest, 1), zero_at, X, Z);
            Z_next = backend.allocate(columns.width(), P);
            normalized = backend.allocate(columns.width(), P);
        }
        clock.lap(phases.paths);
    }
    phases.iterations = std::max(phases.iterations, iterations);
    IndexVector unsettled;
    for (Index p = 0; p < P; ++p)
        if (!settled[std::size_t(p)]) unsettled.push_back(p);
    settle(Z, unsettled);
    return rankings;
}

// Every split's linear RFE, in lockstep (the schedule of alive counts is the same for all):
// per round one gram_batch over every split's alive columns, one solve_dense_dual_batch
// warm-started from the previous round, one gemm_batch for W = X_alive'(beta .* y), and one
// RfeOps::eliminate_batch that orders each split's criterion w^2 on the backend, hands the
// eliminated features to the host (each split's elimination on host threads) and gathers the
// survivors' columns for the next round.
std::vector<Ranking> run_rfe(Backend& backend, const SplitBatch& c,
                             const SelectionEvaluationOptions& options,
                             const IndexVector& counts_desc, BatchPhaseSeconds& phases) {
    const SelectionOptions& sel = options.selection;
    const Index P = c.splits(), n = c.train_rows(), d = c.features();
    PhaseClock clock;
    std::vector<RfeElimination> runs(std::size_t(P),
                                     RfeElimination(d, counts_desc, sel.rfe_fraction));
    const SmoOptions inner = dual_options(sel.smo, sel.C, sel.ridge);
    Matrix beta = Matrix::Zero(n, P);  // warm starts
    DeviceMatrix X = c.blocks.train;   // every split's alive columns, side by side
    std::int64_t rounds = 0;
    while (runs.front().running()) {
        const Index r = Index(runs.front().alive().size());
        const RfeElimination::Step step = runs.front().step();
        for (const RfeElimination& e : runs)
            ZN_EXPECTS(e.running() && Index(e.alive().size()) == r,
                       "batched RFE: the splits left lockstep");
        const DeviceMatrix K = backend.gram_batch(P, X, X, options.gram_precision);
        clock.lap(phases.gram);
        const std::vector<SmoResult> duals =
            solve_dense_dual_batch(backend, K, c.y_train, inner, &beta);
        clock.lap(phases.smo);
        for (Index p = 0; p < P; ++p)
            if (duals[std::size_t(p)].status == Status::Success)
                beta.col(p) = duals[std::size_t(p)].beta;
        const DeviceMatrix W = dual_weights(backend, P, X, dual_coefficients(duals, c.y_train));
        clock.lap(phases.weights);
        EliminationBatch eliminated = backend.rfe().eliminate_batch(
            X, W, step.remove, step.last ? 0 : r - step.remove, !step.last);
        parallel_for(std::size_t(P), options.threads, [&](std::size_t p) {
            runs[p].eliminate(eliminated.order_tail[p], -duals[p].objective, duals[p].status);
        });
        if (!step.last) X = std::move(eliminated.survivors);
        ++rounds;
        clock.lap(phases.paths);
    }
    phases.iterations = std::max(phases.iterations, rounds);
    std::vector<Ranking> rankings;
    for (RfeElimination& e : runs) rankings.push_back(std::move(e).finish());
    return rankings;
}

// The final classifiers on each split's selected original columns, cut from its blocks (so the
// products cover r features), and their test errors: every count's Grams side by side, then one
// batch of duals and one of test decisions for all counts (problem k P + p is split p's
// classifier on its subset for the k-th count), so the solver's stages run once, not once per
// count.
std::vector<SplitEvaluation> evaluate_selections(Backend& backend, const SplitBatch& c,
                                                 const SelectionEvaluationOptions& options,
                                                 const IndexVector& counts_desc,
                                                 const std::vector<Ranking>& rankings,
                                                 BatchPhaseSeconds& phases) {
    const SelectionOptions& sel = options.selection;
    const IndexVector& counts = sel.feature_counts;  // the caller's order
    const Index P = c.splits(), d = c.features(), n = c.train_rows(), m = c.y_test.rows();
    const Index R = Index(counts.size());
    PhaseClock clock;
    std::vector<std::size_t> ranked(counts.size());  // position of counts[k] in counts_desc
    for (std::size_t k = 0; k < counts.size(); ++k)
        ranked[k] = std::size_t(std::find(counts_desc.begin(), counts_desc.end(), counts[k]) -
                                counts_desc.begin());
    DeviceMatrix K = backend.allocate(n, n * P * R);
    DeviceMatrix K_test = backend.allocate(m, n * P * R);
    const auto slots = [](Index first, Index count) {
        IndexVector out(static_cast<std::size_t>(count));
        std::iota(out.begin(), out.end(), first);
        return out;
    };
    for (Index k = 0; k < R; ++k) {
        const Index r = counts[std::size_t(k)];
        IndexVector columns;  // of the blocks, split by split
        columns.reserve(std::size_t(r * P));
        for (Index p = 0; p < P; ++p) {
            const IndexVector& selected = rankings[std::size_t(p)].selected[ranked[std::size_t(k)]];
            ZN_EXPECTS(Index(selected.size()) == r, "batched selection: split "
                                                        << p << " selected " << selected.size()
                                                        << " features for the count " << r);
            for (const Index j : selected) columns.push_back(p * d + j);
        }
        const DeviceMatrix S_train = backend.select_columns(c.blocks.train, columns);
        const DeviceMatrix S_test = backend.select_columns(c.blocks.test, columns);
        backend.assign_columns(K, slots(k * n * P, n * P),
                               backend.gram_batch(P, S_train, S_train, options.gram_precision));
        backend.assign_columns(K_test, slots(k * n * P, n * P),
                               backend.gram_batch(P, S_test, S_train, options.gram_precision));
    }
    const Matrix Y = c.y_train.replicate(1, R), Y_test = c.y_test.replicate(1, R);
    const SmoOptions final_dual = dual_options(sel.final_smo, sel.final_C, sel.final_ridge);
    const std::vector<SmoResult> duals = solve_dense_dual_batch(backend, K, Y, final_dual);
    const std::vector<double> errors = batch_test_errors(backend, K_test, duals, Y, Y_test);
    std::vector<SplitEvaluation> out(static_cast<std::size_t>(P));
    for (Index p = 0; p < P; ++p) {
        SplitEvaluation& e = out[std::size_t(p)];
        const Ranking& ranking = rankings[std::size_t(p)];
        for (Index k = 0; k < R; ++k) {
            const auto q = std::size_t(k * P + p);
            e.errors.push_back(errors[q]);
            e.selected.push_back(ranking.selected[ranked[std::size_t(k)]]);
            e.classifier_status.push_back(duals[q].status);
        }
        e.iterations = ranking.iterations;
        e.status = ranking.status;
        e.message = ranking.message;
    }
    clock.lap(phases.final_classifiers);
    return out;
}

}  // namespace

std::string why_not_batched(const Dataset& data, const std::vector<Fold>& folds,
                            const SelectionEvaluationOptions& options) {
    const SelectionOptions& sel = options.selection;
    if (sel.method != SelectionMethod::L2Arom && sel.method != SelectionMethod::Rfe)
        return "only l2-arom and rfe run batched, not " + sel.method;
    for (Index i = 0; i < data.n_samples(); ++i)
        if (data.y[i] != 1.0 && data.y[i] != -1.0)
            return "only two classes (labels -1/+1) run batched";
    if (!bounded_dual(sel.C, sel.ridge) || !bounded_dual(sel.final_C, sel.final_ridge))
        return "the hard margin without a ridge (C = inf, ridge = 0) does not run batched; set "
               "a ridge > 0 or a finite C";
    for (const Fold& f : folds)
        if (f.train.size() != folds.front().train.size() ||
            f.test.size() != folds.front().test.size())
            return "the splits differ in training or test size";
    return {};
}

std::vector<SplitEvaluation> evaluate_selection_batched(
    Backend& backend, const Dataset& prepared, const std::vector<Fold>& folds,
    const SelectionEvaluationOptions& options,
    const std::function<void(std::size_t, const SplitEvaluation&)>& on_split_done,
    BatchPhaseSeconds& phases) {
    IndexVector counts_desc = options.selection.feature_counts;
    std::sort(counts_desc.begin(), counts_desc.end(), std::greater<Index>());
    if (folds.empty()) return {};
    const std::size_t rows = folds.front().train.size() + folds.front().test.size();
    // Per split: its blocks and their scaled copies, and the final classifiers' Grams of every
    // count (training and test rows against the training rows, each with its temporary).
    const std::size_t per_split =
        2 * rows *
        (static_cast<std::size_t>(prepared.n_features()) +
         folds.front().train.size() * counts_desc.size()) *
        sizeof(double);
    const DeviceMatrix X = backend.upload(prepared.X);
    return run_in_chunks<SplitEvaluation>(
        folds.size(), backend.capabilities().batch_bytes, per_split,
        [&](std::size_t first, std::size_t count) {
            PhaseClock clock;
            const SplitBatch c =
                gather_splits(backend, X, prepared.y, folds, first, count, options.standardize);
            clock.lap(phases.data);
            const std::vector<Ranking> rankings =
                options.selection.method == SelectionMethod::Rfe
                    ? run_rfe(backend, c, options, counts_desc, phases)
                    : run_paths(backend, c, options, counts_desc, phases);
            return evaluate_selections(backend, c, options, counts_desc, rankings, phases);
        },
        on_split_done);
}

}  // namespace zeronorm::detail
