// Internal pieces shared by the feature-selection methods (AROM, RFE, CORR) and the dispatcher
// in selection.cpp. Not installed.
#pragma once

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "zeronorm/core/backend.hpp"
#include "zeronorm/methods/dc_svm.hpp"
#include "zeronorm/methods/selection.hpp"

namespace zeronorm::detail {

// The two-class problems a data set is split into: one +-1 target vector per machine (the
// labels themselves for two classes; class k against the rest for K >= 3 classes, Problem 11).
struct Machines {
    std::vector<Vector> targets;
    int n_classes = 2;
    bool binary() const { return n_classes == 2; }
};

// Validates the labels (+-1 with both present, or 0..K-1 with K >= 3 and every class present)
// and builds the machines' targets. Throws InvalidArgument naming the offending sample.
Machines make_machines(const Vector& y);

// The inner SVM dual for box bound C and ridge lambda on the kernel diagonal (smo.hpp), solved by
// `solve` (SMO on some kernel, with the given options and warm start).
//
// SMO needs a bounded dual, so the pure hard margin (C = inf, ridge = 0) is solved with finite
// box bounds C_k growing by 100 from max(1, 10 max warm beta) up to kMaxHardMarginBound. When no
// beta reaches C_k, the KKT conditions of the hard-margin dual hold: the solution is exact. When
// some do, beta/sum(beta) per class gives a point of each class's convex hull, and their
// distance delta = 2 |sum_i beta_i y_i x_i| / sum_i beta_i bounds the hulls' distance, i.e. twice
// the best possible margin, from above. If delta <= kSeparabilityTolerance * R (R the largest
// |x_i|), no hard-margin hyperplane exists or its margin is below 5e-4 R, and a NumericalError
// naming `where` says "data not separable" and asks for a ridge. This certificate comes after a
// few cheap stages, instead of after the millions of SMO steps that a huge bound would take.
// `radius2` gives R^2 (called once per pure hard-margin solve). When R^2 lies outside
// [1e-8, 1e8] the bounds are taken in units of 1 / R^2 (1/R^2 .. 1e8/R^2), the same problem
// as for the data divided by R. A beta counts as reaching C_k from C_k (1 - at_bound_tolerance)
// on: 0 for SMO, whose bounded variables sit exactly at C_k; more for a solver whose iterates
// stay inside the box (kKernelFreeAtBoundTolerance).
using DualSolver = std::function<SmoResult(const SmoOptions& smo, const Vector* warm_start)>;
// True unless C = inf with ridge = 0 (the pure hard margin, solved in stages above): then the
// dual is bounded and one solve serves.
inline bool bounded_dual(double C, double ridge) { return !(std::isinf(C) && ridge == 0.0); }
constexpr double kMaxHardMarginBound = 1e8;
// R^2 outside [1 / this, this]: the stage bounds above are taken in units of 1 / R^2.
constexpr double kWellScaledRadius2 = 1e8;
constexpr double kSeparabilityTolerance = 1e-3;
SmoResult solve_svm_dual(const DualSolver& solve, const SmoSettings& base, double C,
                         double ridge, const Vector* warm_start,
                         const std::function<double()>& radius2, const std::string& where,
                         double at_bound_tolerance = 0.0);

// Largest squared row norm of X restricted to `columns`, each column j scaled by scale[k] (scale
// empty: 1): R^2 for solve_svm_dual, from the host copy of the data.
double max_row_norm2(const Matrix& X, const IndexVector& columns, const Vector& scale);

// Ranking of the features for each requested count, produced by a method before retraining.
struct Ranking {
    // selected[k]: original column indices, best first, for counts_desc[k].
    std::vector<IndexVector> selected;
    Vector scores;  // d entries, larger is better
    std::vector<SelectionIteration> trace;
    std::int64_t iterations = 0;
    Status status = Status::Success;
    std::string message;  // why the status is not Success (its first cause); empty on Success
    // A method with its own final classifier (kta: the kernel SVM without bias) gives one subset
    // per entry of `selected`; empty: the linear SVM is retrained on each (retrain).
    std::vector<FeatureSubset> subsets;
};

// The order of the rankings: largest value first, ties by the smaller index, NaNs last (among
// themselves by index). A total order, the same as a stable sort's where there is no NaN.
struct DescendingOrder {
    const Vector& values;
    bool operator()(Index a, Index b) const {
        const double va = values[a], vb = values[b];
        if (std::isnan(va) || std::isnan(vb)) return std::isnan(vb) && (!std::isnan(va) || a < b);
        return va > vb || (va == vb && a < b);
    }
};

// Indices of `values` in DescendingOrder.
IndexVector order_descending(const Vector& values);
// The first min(r, size) of them, ordered the same way, without sorting the rest.
IndexVector order_descending_first(const Vector& values, Index r);
// Those from position `from` on (0 <= from <= size), ordered the same way, without sorting the
// ones before.
IndexVector order_descending_from(const Vector& values, Index from);

// The methods. `counts_desc` holds the requested counts sorted in decreasing order. The AROM
// drivers are declared in arom.hpp.
Ranking run_rfe(Backend& backend, const Dataset& data, const Machines& machines,
                const SelectionOptions& options, const IndexVector& counts_desc);
Ranking run_corr(const Dataset& data, const Machines& machines, const IndexVector& counts_desc);

// CORR score of every feature (sec. 4.2): (mu+ - mu-)^2 / (s+^2 + s-^2) per two-class machine,
// summed over the machines. Exposed for tests.
Vector corr_scores(const Matrix& X, const Machines& machines);

}  // namespace zeronorm::detail
