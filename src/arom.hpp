// Internal: l2-AROM (Weston, Elisseeff, Schoelkopf, Tipping, JMLR 3:1439-1461, 2003), the
// multiplicative update and its driver. Not installed.
#pragma once

#include "selection_common.hpp"

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

}  // namespace zeronorm::detail
