// Internal: the backward elimination loop RFE's linear and Gaussian-kernel forms share, and the
// Gaussian kernel's batched sensitivity (Lal, Chapelle, Weston & Elisseeff 2006, sec. 2.3,
// Algorithm 2). Not installed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

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

// Removes the feature(s) of smallest criterion per round (one, or max(1, floor(fraction *
// remaining)), never past a requested count) down to the smallest of counts_desc; ranks by
// elimination order (rfe.cpp). `alive` holds original column indices, ascending.
Ranking eliminate_recursively(Index d, const IndexVector& counts_desc, double fraction,
                              const RfeCriterion& criterion_of);

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
