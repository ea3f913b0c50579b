// Decomposition SMO for kernel SVM duals too large for a kernel matrix in memory (n = 10^4 ..
// 10^6 on a GPU): the problem of smo.hpp solved a working set of q variables at a time
// (Joachims, "Making large-scale SVM learning practical", 1999; with the second-order working
// sets and caching of Fan, Chen & Lin, JMLR 6 (2005), and the many-variable working sets solved
// on the device by one thread block of Wen et al., "ThunderSVM", JMLR 19 (2018)). Each round:
//   1. the global KKT gap m - M from the gradient G (stop when it is within the tolerance);
//   2. the working set B: the q/2 most violating variables of the last round kept (their kernel
//      columns are cached), the rest filled with the largest violators -y_t G_t of I_up and the
//      smallest of I_low, alternately;
//   3. the kernel columns K(:, B), from a cache of kernel columns in the backend's memory
//      (least recently used evicted; missing columns computed in one kernel_matrix call);
//   4. the subproblem on B by SmoOps::solve_working_set, to the gap max(tolerance, gap / 10);
//   5. G += Q(:, B) (beta_B new - old): one product with the cached columns.
// One implementation over the backend primitives; the CUDA backend runs it when the full kernel
// would not fit in device memory, and the CPU backend runs it in tests against its own solver.
#pragma once

#include "zeronorm/core/backend.hpp"

namespace zeronorm::detail {

struct DecompositionOptions {
    Index working_set = 1024;  // q: variables per round (rounded down to even; at most n)
    Index cache_columns = 0;   // kernel columns kept (at least q, at most n; 0: 4 q)
};

// SMO as SmoOps::solve(spec, X, ...) by decomposition. options.max_iterations bounds the
// SMO steps summed over all rounds (0: max(10^7, 100 n)); iterations in the result counts them.
SmoResult solve_smo_decomposition(Backend& backend, const KernelSpec& spec, const DeviceMatrix& X,
                                  const Vector& y, const SmoOptions& options,
                                  const DecompositionOptions& decomposition,
                                  const Vector* warm_start = nullptr);

}  // namespace zeronorm::detail
