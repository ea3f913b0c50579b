// CPU SMO for the kernel SVM dual with bias (problem in zeronorm/solvers/smo.hpp), after LIBSVM's
// Solver (Chang & Lin) with the second-order working-set selection of Fan, Chen & Lin (2005).
// The solver sees the kernel only through KernelColumns, so precomputed and cached on-demand
// kernels share it.
#pragma once

#include "zeronorm/core/ops/smo_ops.hpp"

namespace zeronorm::cpu {

// Provides columns of the kernel matrix K (n x n, without labels or ridge).
class KernelColumns {
public:
    virtual ~KernelColumns() = default;
    virtual Index size() const = 0;
    // Column i (n entries). The pointer stays valid until two further calls of column().
    virtual const double* column(Index i) = 0;
    // K_ii for all i.
    virtual const Vector& diagonal() const = 0;
};

// SmoOps::solve's problem (linear term and right-hand side in `terms`, checked by the caller)
// on the columns of K.
SmoResult solve_smo(KernelColumns& kernel, const Vector& y, const SmoOptions& options,
                    const Vector* warm_start, const SmoTerms& terms = {});

// The same solver on min 1/2 beta'Q beta + linear'beta (the SVM dual has linear = -1) from
// `start`, taken as given (within [0, C]; y'beta keeps its value), with labels +-1 of one or
// both classes. The result's bias and gap are computed from its gradient Q beta + linear.
SmoResult solve_smo_linear(KernelColumns& kernel, const Vector& y, const Vector& linear,
                           const Vector& start, const SmoOptions& options);

}  // namespace zeronorm::cpu
