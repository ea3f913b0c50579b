// Linear feature selection: AROM (Weston, Elisseeff, Schoelkopf, Tipping, JMLR 3, 2003) and the
// baselines CORR and RFE, behind one options/result API. Output: the selected features in rank
// order, the weights, the per-iteration trace, and the classifier retrained on the original
// (unscaled) selected features. The selection is the product: a final classifier that cannot be
// trained is reported in its subset's classifier_status, never by dropping the selection.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/status.hpp"
#include "zeronorm/methods/dc_svm.hpp"
#include "zeronorm/methods/fs_svmcp.hpp"
#include "zeronorm/methods/kta.hpp"
#include "zeronorm/methods/r2w2.hpp"
#include "zeronorm/solvers/smo.hpp"
#include "zeronorm/solvers/svm.hpp"

namespace zeronorm {

// Names of the built-in feature rankers (methods.hpp lists every registered one).
struct SelectionMethod {
    static constexpr const char* L2Arom = "l2-arom";  // Problem 8: SVM on z*x, z <- z*|w|  (sec. 3.1-3.2)
    static constexpr const char* L1Arom = "l1-arom";  // Problem 7: the same loop with an LP per step (sec. 3.1)
    static constexpr const char* Rfe = "rfe";         // recursive feature elimination, linear SVM (sec. 4.3)
    // RFE with a Gaussian-kernel SVM, |W^2 - W^2_(-p)| at fixed alpha (Lal et al. 2006, Alg. 2)
    static constexpr const char* RfeRbf = "rfe-rbf";
    static constexpr const char* Corr = "corr";       // (mu+ - mu-)^2 / (s+^2 + s-^2)  (sec. 4.2)
    // Neumann, Schnoerr & Steidl 2005 (dc_svm.hpp): the support of w, ranked by |w_j|.
    static constexpr const char* Fsv = "fsv";            // eq. (6), DCA of vertex LPs
    static constexpr const char* L2L1Svm = "l2-l1-svm";  // eq. (7), convex
    static constexpr const char* L2L0Svm = "l2-l0-svm";  // eq. (8), DCA of l2-l1-SVMs
    static constexpr const char* Rlp = "rlp";            // eq. (1), Bennett & Mangasarian 1992
    // Rinaldi & Sciandrone 2010 (fs_svmcp.hpp): the support of the last SVM, ranked by |w_j|.
    static constexpr const char* FsSvmcp = "fs-svmcp";
    static constexpr const char* Kta = "kta";            // eq. (12), kernel-target alignment (kta.hpp)
    static constexpr const char* QuadraticFsv = "quadratic-fsv";  // eq. (9), v per feature
    // Weston et al. 2003, sec. 4.4 (r2w2.hpp): sigma by gradient descent on R^2 W^2.
    static constexpr const char* R2w2 = "r2w2";
};
enum class MulticlassScheme { OneVsRest, WestonWatkins };

MulticlassScheme parse_multiclass_scheme(const std::string& name);  // "ovr", "ww"
std::string to_string(MulticlassScheme scheme);

// Labels: two classes as -1/+1, or K >= 3 classes as 0..K-1 (every class present); multi-class
// data is handled by one-vs-rest machines (Problem 11) for every method, or, for l2-AROM with
// multiclass = WestonWatkins, by one Weston-Watkins M-SVM (Problem 10 with the objective
// sum_k |w_k|^2, ww_svm.hpp) inside the loop and as the final classifier.
struct SelectionOptions {
    // A registered feature ranker's name (methods.hpp: feature_rankers()).
    std::string method = SelectionMethod::L2Arom;
    // Feature counts wanted, in any order, each in 1..d, no duplicates; one run serves all of
    // them (AROM and RFE walk down a nested path once). A method that finds its own count
    // (FeatureRanker::chooses_own_count: fsv, l2-l1-svm, l2-l0-svm, rlp, fs-svmcp) takes an empty list
    // as "its support", and caps a larger count at its support: subset r then holds the
    // min(r, support) features of largest |w_j|.
    std::vector<Index> feature_counts;
    // SVM inside AROM and RFE: C = infinity means hard margin, with `ridge` (lambda) added to the
    // kernel diagonal for inseparable data (sec. 3.2). A finite C gives a soft margin.
    // C = infinity with ridge = 0 is the pure hard margin: it needs linearly separable data, and
    // a NumericalError says so when an inner SVM finds the data not separable.
    // l1-AROM: the inner LP (Problem 7) has slacks with cost C when C is finite and none when C
    // is infinite (then inseparable data give a NumericalError asking for a finite C); `ridge`
    // is a kernel-diagonal term of the l2 dual and does not enter the LP.
    // From 20,000 samples, l2-AROM (two classes, one-vs-rest) and RFE solve these SVMs without
    // the n x n kernel, on the host: with ridge = 0 by the interior point of the l2-l1 dual with
    // zero feature costs (the same SVM; a hard margin through the same staged box bounds), with
    // a ridge by Newton steps on the SVM's primal, which the ridge makes smooth.
    double C = std::numeric_limits<double>::infinity();
    double ridge = 0.0;
    // AROM: a component with z_j <= prune_tolerance * max(z) is removed for good.
    double prune_tolerance = 1e-8;
    // AROM: stop when max_j |z_j - z_j_previous| <= convergence_tolerance (z normalised to max 1).
    // AROM also stops once the smallest requested count is reached (see FeatureSubset).
    double convergence_tolerance = 1e-6;
    std::int64_t max_iterations = 1000;  // AROM / DCA iterations; reaching it: NoConvergence
    // fsv, l2-l1-svm, l2-l0-svm: lambda, mu, nu, alpha, the DCA tolerance and the inner solvers'
    // settings (dc_svm.hpp); dc.max_iterations is replaced by max_iterations above.
    DcOptions dc;
    // fs-svmcp: the surrogate, the linear SVM and its cross-validated C (fs_svmcp.hpp).
    FsSvmcpOptions fs_svmcp;
    // kta: the kernel, lambda, widths and DCA tolerance (kta.hpp); kta.max_iterations is replaced
    // by max_iterations above.
    KtaOptions kta;
    // RFE: fraction of the remaining features removed per round, in [0, 1) (0: one per round;
    // otherwise max(1, floor(fraction * remaining)), never stepping past a requested count).
    double rfe_fraction = 0.0;
    // rfe-rbf: gamma of exp(-gamma |x - x'|^2) for every round; 0 means 1/d (d of the data).
    double rfe_gamma = 0.0;
    // r2w2: kernel, radius, descent (r2w2.hpp); C, ridge, smo and rfe_fraction above also apply.
    R2w2Options r2w2;
    // K >= 3 classes: OneVsRest (every method) or WestonWatkins (l2-AROM only; C, ridge and
    // smo.tolerance apply to its M-SVM as to the SVMs above; another method with it is an
    // InvalidArgument). Ignored for two classes, where both are the same machine.
    MulticlassScheme multiclass = MulticlassScheme::OneVsRest;
    // Final classifier retrained on the selected original features (linear kernel). The default
    // is a soft margin with a finite C, whose dual has a solution for any data: it trains even
    // when the few selected features do not separate the classes (Table 1's two features rarely
    // separate 30 points), and on separable data with |x| ~ 1 it is the hard margin whenever no
    // dual variable needs more than 100. final_C = inf with final_ridge = 0 asks for the pure
    // hard margin; on inseparable data it then fails, and the subset reports it
    // (FeatureSubset::classifier_status). final_C = inf with final_ridge > 0 is the 2-norm soft
    // margin of sec. 3.2. Both are independent of C and ridge above.
    double final_C = 100.0;
    double final_ridge = 0.0;
    // SMO settings of the final classifier (its C and ridge are final_C, final_ridge); the
    // LIBSVM default tolerance 1e-3 suffices there, as nothing is iterated on its solution.
    SmoSettings final_smo;
    // Inner SMO settings (C and ridge are the fields above). The tolerance is 1e-8, not LIBSVM's
    // 1e-3: the multiplicative update feeds the SMO's error back into z, and with 1e-3 z keeps
    // moving by ~1e-4 per iteration, so the z-convergence test above would never pass.
    SmoSettings smo = inner_smo_settings(1e-8);

    // Throws InvalidArgument naming the bad field. counts_optional: an empty feature_counts
    // is accepted (a method that chooses its own count).
    void validate(Index n_features, bool counts_optional = false) const;
    // Sets the field a ranker's parameter names (ParameterInfo::name: "rfe_fraction",
    // "dc.mu", "max_iterations", ...) from its text; InvalidArgument naming the parameter for
    // an unknown name or text that is not a number.
    void set_parameter(const std::string& name, const std::string& text);
    // The same with the value as a number (a grid point of the validation protocol).
    void set_parameter(const std::string& name, double value);

private:
    double* real_parameter(const std::string& name);  // the field a real parameter names

public:
};

// `text` as a number (the whole text), or InvalidArgument "<name> must be a number, got ...".
double parse_parameter_number(const std::string& name, const std::string& text);

// One step of AROM (one SVM per machine and one z-update) or one RFE round.
struct SelectionIteration {
    Index n_features = 0;    // features still alive after this iteration
    // Optimal value of the inner SVM(s), summed over machines: minus the SMO dual objective,
    // i.e. 1/2 |w_bar|^2 for a hard margin without ridge (l2-AROM, RFE); l1-AROM: the LP
    // objective sum_j |w_bar_j| (+ C sum_i xi_i).
    double objective = 0.0;
    double max_change = 0.0; // AROM: max_j |z_j - z_j_prev| before pruning; RFE: 0;
                             // DCA: max_j min(|dv_j|, |dv_j / v_j|) (dc_svm.hpp)
};

// The selection for one feature count r.
//
// AROM (sec. 4.1, 4.5): "stop at the last iteration before the constraint |w|_0 <= r is
// satisfied and choose the r largest elements of w". With t* the first iterate whose number of
// surviving features is <= r: if it is exactly r, those r (sec. 4.1, "stopping when the
// constraint is met"); if fewer, the r largest z of the iterate before t* (sec. 4.5). If no
// iterate gets down to r (converged or capped first), the r largest z of the last iterate.
// Because this depends only on the path up to t*, a run asking for {50, 20, 5} gives the same
// subset for 20 as a run asking for {20} alone.
// RFE: the r features left when exactly r remain, ordered by later elimination (the smallest
// count by the criterion of the round that left it). CORR: the r best scores.
struct FeatureSubset {
    Index n_features = 0;
    IndexVector selected;      // column indices into the original data, best first
    // Weight of each selected feature: the final classifier's w (two classes), or
    // sum_k |w_k| over the machines (multi-class; signed w_k in class_weights).
    Vector weights;
    Matrix class_weights;      // r x (number of machines): column k is machine k's w
    // Retrained on the selected columns: one per one-vs-rest machine, or for Weston-Watkins one
    // linear model per class with f_k(x) = w_k.x + b_k; either way the predicted class of x is
    // argmax_k f_k(x). With at least 20,000 samples and at most 64 selected features, each
    // machine comes from the C-SVM's dual solved by the l2-l1 dual's interior-point method
    // (dc_svm.hpp; final_C = inf through the same staged bounds as SMO's), or with a final_ridge
    // from Newton steps on its primal, and is kept as its weight vector (one expansion point w
    // with coefficient 1), not by SMO over its support vectors.
    std::vector<SvmModel> classifiers;
    // How retraining ended: Success; NoConvergence when an SMO hit its iteration cap (the
    // classifiers are its last iterate); NumericalIssue when a classifier could not be trained
    // (a pure hard margin on data the selected features do not separate): then `classifiers`,
    // `weights` and `class_weights` are empty and classifier_message says why. The selection
    // itself (`selected`) is valid either way.
    Status classifier_status = Status::Success;
    std::string classifier_message;
    // kta: its classifier is the kernel SVM without bias on K_theta (kta.hpp), weights holds the
    // selected features' theta and class_weights is empty. A non-empty column_scale says the
    // classifier's inputs are the selected columns times these (the chi-square kernel's theta).
    Vector column_scale;
};

struct SelectionResult {
    std::vector<FeatureSubset> subsets;  // one per requested feature count, same order
    // Per-feature score of the method, d entries, larger is better: AROM the final z (0 once
    // pruned); RFE d minus the feature's 0-based rank; CORR the correlation score; fsv,
    // l2-l1-svm, l2-l0-svm, rlp: |w_j| of the method's own w (not the retrained classifier's).
    Vector scores;
    std::vector<SelectionIteration> trace;
    std::int64_t iterations = 0;     // AROM iterations / RFE rounds (0 for CORR)
    // Success: converged or reached the smallest requested count; NoConvergence: max_iterations
    // reached (subsets taken from the last iterate); NumericalIssue: an inner SMO hit its
    // iteration cap (AROM: the subsets come from the last good iterate; RFE: that round's w was
    // still used) or all of w_bar vanished.
    Status status = Status::Success;
    std::string message;             // why the status is not Success (its first cause), else ""
    double seconds = 0.0;            // wall time of select_features, retraining included
    double method_seconds = 0.0;     // of the method alone, before the retraining
};

// Runs the method on the backend, then retrains a linear SVM (final_C, final_ridge) on the
// original columns of every subset (Weston-Watkins: an M-SVM); a final classifier that fails is
// reported in its subset (classifier_status), not thrown. Throws InvalidArgument for bad options
// or labels, and NumericalError when the inner hard margin without ridge meets data that are not
// linearly separable (l1-AROM: when its hard-margin LP is infeasible), or when the data's values
// are so large that the linear kernel overflows (then standardise the data).
SelectionResult select_features(Backend& backend, const Dataset& data,
                                const SelectionOptions& options);

}  // namespace zeronorm
