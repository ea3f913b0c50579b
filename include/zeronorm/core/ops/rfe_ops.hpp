// The RFE operation set of a backend (Backend::rfe()): the elimination step of linear RFE
// (Guyon et al. 2002) for many splits at once, so that the batched path keeps each split's
// alive columns in the backend's memory and brings only the eliminated features to the host.
#pragma once

#include <vector>

#include "zeronorm/core/backend.hpp"

namespace zeronorm {

// What RfeOps::eliminate_batch hands back.
struct EliminationBatch {
    // Per split: its positions from report_from on in the order of the criterion, best first
    // (the eliminated are the last `remove` of them).
    std::vector<IndexVector> order_tail;
    // When asked: X's columns not eliminated, n x (r - remove) P, each split's in ascending
    // position.
    DeviceMatrix survivors;
};

class RfeOps {
public:
    virtual ~RfeOps() = default;

    // One elimination round for P splits in lockstep. W (r x P): split p's weights w of its r
    // alive features; X (n x r P): those features' columns, split by split. Split p's positions
    // are ordered by the criterion w_k^2, largest first, ties to the lower position and NaN
    // last (the order of the host's elimination, DescendingOrder), and its last `remove` are
    // eliminated. Returns each split's order from position report_from on (0 <= report_from
    // <= r - remove: r - remove for the eliminated alone, 0 for the whole order), and, when
    // gather_survivors, the surviving columns of X.
    virtual EliminationBatch eliminate_batch(const DeviceMatrix& X, const DeviceMatrix& W,
                                             Index remove, Index report_from,
                                             bool gather_survivors) = 0;
};

}  // namespace zeronorm
