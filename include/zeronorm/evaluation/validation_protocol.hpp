// Cross-validation with the parameters chosen on a validation set (Neumann, Schnoerr & Steidl
// 2005, sec. 5.2.2): for each resampling split, a stratified random half of its training rows is
// the validation set; the method is fitted on the other half at every point of a parameter grid,
// the point with the lowest validation error is chosen (ties: the larger values, compared in
// the grid's order of names), and the final model is fitted at that point on all the split's
// training rows (training + validation) and tested on its test rows. With standardisation, one
// Standardizer is fitted per split on its training rows (both halves) and applied to every part.
//
// Any method plugs in with its own grid through a GridFitter, which fits one training set at
// every point of the grid at once (so a batched method solves the whole grid in one pass) and
// returns decision values for the rows to be scored; the built-in fitters serve the registered
// methods that find their own support (fsv, l2-l1-svm, l2-l0-svm, rlp, quadratic-fsv, fs-svmcp).
// A method that chooses a parameter itself on its training set (FS-SVMCP's C, by its inner
// cross-validation; Rinaldi & Sciandrone 2010, sec. 5.2) runs with no grid and reports its choice.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/dataset.hpp"
#include "zeronorm/core/status.hpp"
#include "zeronorm/evaluation/cross_validation.hpp"
#include "zeronorm/methods/selection.hpp"

namespace zeronorm {

// Points of a parameter grid: each point one value per name. Names are the registered
// parameter names (ParameterInfo::name, e.g. "dc.nu", "dc.mu"), listed in the order in which
// ties are broken (the larger value of the first name wins, then of the second, ...). No names
// and one empty point: a method without parameters (then nothing is validated).
struct ParameterGrid {
    std::vector<std::string> names;
    std::vector<std::vector<double>> points;

    // Every combination of the axes' values (axes[k] for names[k]), the last name varying fastest.
    static ParameterGrid product(const std::vector<std::string>& names,
                                 const std::vector<std::vector<double>>& axes);
    // InvalidArgument: no point, a point of the wrong size, a non-finite value, a repeated name.
    void validate() const;
};

// One grid point's fit on a training set.
struct GridPointFit {
    Vector decision;        // f(x) on the rows to score; predicted class sign(f), f = 0 -> +1
    IndexVector selected;   // the model's features, ranked
    Status status = Status::Success;
    std::string message;
    std::int64_t iterations = 0;
    // Parameters the method chose itself on (X, y), by name (FS-SVMCP: fs_svmcp.C).
    std::vector<std::pair<std::string, double>> own_choices;
    Index support_vectors = -1;  // a kernel classifier's support vectors (-1: not one)
};

// Fits (X, y) (labels +-1) at every point of `grid` and scores the rows X_score; one entry per
// point, in the grid's order.
using GridFitter = std::function<std::vector<GridPointFit>(
    Backend& backend, const Matrix& X, const Vector& y, const Matrix& X_score,
    const ParameterGrid& grid)>;

struct ValidationProtocolOptions {
    ParameterGrid grid;
    bool standardize = true;  // per split, fitted on its training rows
    std::uint64_t seed = 0;   // validation halves: split f uses seed + f
    // Worker threads, one split each (0: all cores; on CUDA at most 16, each with its own
    // stream and handles). The results do not depend on it.
    int threads = 0;

    void validate() const;
};

struct ValidationFold {
    std::vector<double> chosen;             // the chosen point (grid.names order)
    std::vector<double> validation_errors;  // per grid point (empty without parameters)
    IndexVector selected;                   // the final model's features
    double error = 0.0;                     // test error of the final model
    double train_error = 0.0;               // its error on the split's training rows
    std::vector<std::pair<std::string, double>> own_choices;  // the final model's (GridPointFit)
    // The final model's status, or the first non-success status of a validation fit.
    Status status = Status::Success;
    std::string message;
    std::int64_t iterations = 0;            // the method's iterations, validation and final
    Index support_vectors = -1;             // the final model's (-1: not a kernel classifier)
    double seconds = 0.0;
};

struct ValidationProtocolResult {
    std::vector<std::string> parameter_names;  // grid.names
    std::vector<ValidationFold> folds;         // in the order of the folds given
    double mean_features = 0.0;                // mean of |selected| over the folds
    double mean_error = 0.0;
    double mean_train_error = 0.0;
    double std_error = 0.0;                    // sample sd of the fold errors / sqrt(#folds)
    double mean_iterations = 0.0;              // mean of the folds' iterations
    double mean_support_vectors = -1.0;        // mean over the folds, -1 if any has none
    Status status = Status::Success;           // first non-success status of a fold
    double seconds = 0.0;
};

using ValidationFoldCallback =
    std::function<void(std::size_t, std::size_t, const ValidationFold&)>;

// Labels +-1; every fold's training rows need >= 2 rows of each class (one per half).
// Throws InvalidArgument for bad options, labels or folds.
ValidationProtocolResult evaluate_validation_protocol(Backend& backend, const Dataset& data,
                                                      const std::vector<Fold>& folds,
                                                      const GridFitter& fit,
                                                      const ValidationProtocolOptions& options,
                                                      const ValidationFoldCallback& on_fold = {});

// ---- the registered methods that find their own support ----------------------------------
// True for fsv, l2-l1-svm, l2-l0-svm, rlp, quadratic-fsv, fs-svmcp and kta.
bool has_validation_fitter(const std::string& method);
// Their fitters: `base` gives every setting not on the grid (alpha, the DCA tolerance and cap,
// the inner solvers); grid points are set by name (SelectionOptions::set_parameter), and a name
// the method does not take is an InvalidArgument. The l2-l1 and l2-l0 grids are solved as
// batches (train_l2_l1_svm_grid, train_l2_l0_svm_grid), FSV's and quadratic FSV's one DCA per
// lambda advancing together.
GridFitter validation_fitter(const std::string& method, const SelectionOptions& base);
// The paper's grids (sec. 5.2.2): l2-l1-svm, l2-l0-svm: ln nu in {-5..5} x ln mu in {0..10}
// (names dc.nu, dc.mu: ties to the larger nu, then mu); fsv, quadratic-fsv: lambda in
// {0.05, 0.1, 0.2, ..., 0.9, 0.95} (dc.lambda); rlp: no parameters; fs-svmcp: none on the
// grid (Rinaldi & Sciandrone 2010, sec. 5.2: C by the method's own inner cross-validation); kta:
// lambda in {0, 0.1, ..., 0.9} x the final SVM's C = (1 - lambda_s) / lambda_s in
// {e^-5, ..., e^5} (kta.lambda, kta.svm_lambda: ties to the larger lambda, then the smaller C).
// The kta fitter runs one DCA per distinct lambda (its iterations counted once, at the first
// point of that lambda) and one SVM without bias per point, on the kernel of that lambda's theta.
ParameterGrid paper_grid(const std::string& method);

}  // namespace zeronorm
