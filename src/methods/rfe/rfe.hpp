// Internal: the backward elimination loop RFE's linear and Gaussian-kernel forms share, and the
// Gaussian kernel's batched sensitivity (Lal, Chapelle, Weston & Elisseeff 2006, sec. 2.3,
// Algorithm 2). Not installed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "methods/machine_fits.hpp"
#include "methods/selection_common.hpp"

namespace zeronorm::detail {

// One round's criterion: larger is better (kept longer), one entry per alive feature.
struct RfeRound {
    Vector criterion;
    double objective = 0.0;  // the inner SVMs' optimal values, for the trace
    Status status = Status::Success;
};
using RfeCriterion = std::function<RfeRound(std::int64_t round, const IndexVector& alive)>;

// The elimination one round at a time (rfe.cpp): each round scores alive() (original column
// indices, ascending) and advance() removes the feature(s) of smallest criterion (one, or
// max(1, floor(fraction * remaining)), never past a requested count), down to the smallest of
// counts_desc; finish() ranks by elimination order. The schedule of alive counts depends only on
// d, the counts and the fraction, so many eliminations of one shape (the splits of a batch) stay
// in lockstep.
class RfeElimination {
public:
    // What the next round removes, and whether it is the last (it leaves the smallest count).
    struct Step {
        Index remove = 0;
        bool last = false;
    };

    RfeElimination(Index d, IndexVector counts_desc, double fraction);
    bool running() const { return running_; }
    std::int64_t round() const { return round_; }
    const IndexVector& alive() const { return alive_; }
    Step step() const;
    // Orders the criterion (DescendingOrder) and eliminates.
    void advance(const RfeRound& scored);
    // The round with alive()'s positions already ordered by the criterion, best first: the last
    // step().remove of that order, or the whole order when step().last (RfeOps::
    // eliminate_batch orders them on the backend).
    void eliminate(const IndexVector& order_tail, double objective, Status status);
    Ranking finish() &&;

private:
    Index d_;
    IndexVector counts_desc_;
    double fraction_;
    bool running_ = true;
    std::int64_t round_ = 1;
    IndexVector alive_;
    std::vector<IndexVector> eliminated_rounds_;  // in elimination order; each best first
    IndexVector survivors_ranked_;
    Ranking out_;
};

// RfeElimination run to the end, round r scored by criterion_of(r, alive).
Ranking eliminate_recursively(Index d, const IndexVector& counts_desc, double fraction,
                              const RfeCriterion& criterion_of);

// The positions of `alive` within `held` (both ascending, alive a subsequence of held): the
// columns to keep of a matrix whose columns are `held`.
IndexVector positions_within(const IndexVector& held, const IndexVector& alive);

// The data in the backend's memory restricted to the alive columns, narrowed by one column
// selection per round on the previous round's matrix.
class ColumnTracker {
public:
    ColumnTracker(Backend& backend, const Matrix& X);
    const DeviceMatrix& columns(const IndexVector& alive);

private:
    Backend& backend_;
    DeviceMatrix X_;
    IndexVector columns_;
};

// The SVMs of every machine (fit_machines, warm-started from beta) on `kernel` over the alive
// columns of X, named "RFE round r (f features)[, class k against the rest]" in messages.
MachineFits fit_rfe_round(Backend& backend, ColumnTracker& X, const KernelSpec& kernel,
                          const Machines& machines, const SelectionOptions& options,
                          std::vector<Vector>& beta, const std::function<double()>& radius2,
                          std::int64_t round, const IndexVector& alive);

// RFE with the Gaussian kernel (rfe_rbf.cpp); gamma = options.rfe_gamma, or 1/d when 0.
Ranking run_rfe_rbf(Backend& backend, const Dataset& data, const Machines& machines,
                    const SelectionOptions& options, const IndexVector& counts_desc);

}  // namespace zeronorm::detail
