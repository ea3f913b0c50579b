// The AROM operation set of a backend (Backend::arom()): the steps of AROM (Weston et al. 2003)
// that keep the feature scalings in the backend's memory between iterations.
#pragma once

#include <vector>

#include "zeronorm/core/backend.hpp"

namespace zeronorm {

// What AromOps::multiplicative_update_batch did to one column.
struct ScaleUpdate {
    Index survivors = 0;      // entries of the new column above the prune tolerance
    double max_change = 0.0;  // max_j |u_j / max(u) - z_j|
    bool degenerate = false;  // u all zero or not finite: the column was left unchanged
};

class AromOps {
public:
    virtual ~AromOps() = default;

    // The multiplicative update of AROM (sec. 3.1 step 3) for a batch of feature scalings: for
    // every column p with update[p] != 0, with z = Z(:, p) and w = W(:, p)
    // (W = X_p'(beta_p .* y_p) from the fit on the rescaled data),
    //   u = z .* |z .* w|,  normalized(:, p) = u / max(u),  next(:, p) = normalized(:, p) with
    //   the entries <= prune_tolerance set to 0.
    // Columns with update[p] == 0, and those whose u is all zero or has a NaN or Inf
    // (degenerate), are copied from Z into both outputs. Z, W, normalized and next are d x P
    // (normalized and next allocated, distinct from Z and W); update has P entries. Returns each
    // column's survivors, largest change and degeneracy (zeros for columns not updated). The
    // same arithmetic as the one-problem update (arom_update), so both give the same scales.
    virtual std::vector<ScaleUpdate> multiplicative_update_batch(
        const DeviceMatrix& Z, const DeviceMatrix& W, const std::vector<char>& update,
        double prune_tolerance, DeviceMatrix& normalized, DeviceMatrix& next) = 0;

    // For each request q: the rows of column columns[q] of S (d x P, entries finite) holding its
    // counts[q] largest entries, largest first and ties to the lower row, i.e. the first
    // counts[q] of the column's stable descending order (0 <= counts[q] <= d; a column may be
    // asked for more than once). What the feature counts reached on the batched AROM path
    // select, without bringing the d x P scales to the host.
    virtual std::vector<IndexVector> top_rows(const DeviceMatrix& S, const IndexVector& columns,
                                              const IndexVector& counts) = 0;
};

}  // namespace zeronorm
