// The AROM multiplicative update of one column (AromOps::multiplicative_update_batch) by one
// block of threads, written once over a Block (newton_device.cuh lists its steps): the kernel in
// scale_update.cu runs it with barriers and CUB reductions, and a host program runs it thread by
// thread (tests/core/test_device_phases.cpp) to check the device logic without a GPU. The
// arithmetic is the one-problem update's (arom_update, scalar_rules.hpp): u_j = z_j |z_j w_j|,
// then v_j = u_j / max u, pruned at the tolerance; a column not updated, or whose u is not
// finite or has no positive maximum (degenerate), is copied.
#pragma once

#include <cmath>

#include "core/scalar_rules.hpp"
#include "device_types.hpp"

namespace zeronorm::cuda_detail {

using std::fabs;
using std::isfinite;

// One column: z and w (d entries each) in, normalized and next (d each) out.
struct ScaleUpdateColumn {
    const double* z = nullptr;
    const double* w = nullptr;
    double* normalized = nullptr;
    double* next = nullptr;
    i64 d = 0;
    bool update = true;
    double prune_tolerance = 0.0;
};

template <class Block>
ZN_HD ScaleUpdateOutcome scale_update_block(Block& block, const ScaleUpdateColumn& c) {
    ScaleUpdateOutcome outcome{};
    bool copy = !c.update;
    double top = 0.0;
    if (!copy) {
        // A non-finite u counts as +inf, so one reduction gives both max u and whether any u
        // is not finite.
        top = block.max([=](int tid, int threads) {
            double local = 0.0;
            for (i64 j = tid; j < c.d; j += threads) {
                const double u = rules::arom_unnormalized(c.z[j], fabs(c.z[j] * c.w[j]));
                if (!isfinite(u)) return HUGE_VAL;
                if (u > local) local = u;
            }
            return local;
        });
        const bool any_non_finite = !isfinite(top);
        copy = rules::arom_degenerate(top, any_non_finite);
        outcome.degenerate = copy ? 1 : 0;
    }
    if (copy) {
        block.each([=](int tid, int threads) {
            for (i64 j = tid; j < c.d; j += threads) {
                c.normalized[j] = c.z[j];
                c.next[j] = c.z[j];
            }
        });
        return outcome;
    }
    // Writes the column; the largest change and then the survivors, each a block reduction.
    outcome.max_change = block.max([=](int tid, int threads) {
        double local = 0.0;
        for (i64 j = tid; j < c.d; j += threads) {
            const rules::AromEntry entry = rules::arom_entry(
                rules::arom_unnormalized(c.z[j], fabs(c.z[j] * c.w[j])), top, c.z[j],
                c.prune_tolerance);
            c.normalized[j] = entry.normalized;
            c.next[j] = entry.next;
            if (entry.change > local) local = entry.change;
        }
        return local;
    });
    // Exact as a double: a count below 2^53.
    outcome.survivors = static_cast<i64>(block.sum([=](int tid, int threads) {
        double local = 0.0;
        for (i64 j = tid; j < c.d; j += threads) local += c.next[j] != 0.0 ? 1.0 : 0.0;
        return local;
    }));
    return outcome;
}

}  // namespace zeronorm::cuda_detail
