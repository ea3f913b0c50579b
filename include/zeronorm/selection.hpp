// Linear feature selection: AROM (Weston, Elisseeff, Schoelkopf, Tipping, JMLR 3, 2003) and the
// baselines CORR and RFE, behind one options/result API. Output: the selected features in rank
// order, the weights, the per-iteration trace, and the classifier retrained on the original
// (unscaled) selected features.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "zeronorm/backend.hpp"
#include "zeronorm/smo.hpp"
#include "zeronorm/status.hpp"
#include "zeronorm/svm.hpp"

namespace zeronorm {

enum class SelectionMethod {
    L2Arom,  // Problem 8: SVM on z*x, z <- z*|w|  (sec. 3.1-3.2)
    L1Arom,  // Problem 7: an LP per step
    Rfe,     // recursive feature elimination with a linear SVM (sec. 4.3)
    Corr,    // correlation score (mu+ - mu-)^2 / (s+^2 + s-^2)  (sec. 4.2)
};
enum class MulticlassScheme { OneVsRest, WestonWatkins };

SelectionMethod parse_selection_method(const std::string& name);  // "l2-arom", "l1-arom", "rfe", "corr"
std::string to_string(SelectionMethod method);
MulticlassScheme parse_multiclass_scheme(const std::string& name);  // "ovr", "ww"

struct SelectionOptions {
    SelectionMethod method = SelectionMethod::L2Arom;
    // Feature counts wanted, r_1 > r_2 > ...; one run serves all of them. Each must be in 1..d.
    std::vector<Index> feature_counts;
    // SVM inside AROM and RFE: C = infinity means hard margin, with `ridge` (lambda) added to the
    // kernel diagonal for inseparable data (sec. 3.2). A finite C gives a soft margin.
    double C = std::numeric_limits<double>::infinity();
    double ridge = 0.0;
    // AROM: a component with z_j <= prune_tolerance * max(z) is removed for good.
    double prune_tolerance = 1e-8;
    // AROM: stop when max_j |z_j - z_j_previous| <= convergence_tolerance (z normalised to max 1).
    double convergence_tolerance = 1e-6;
    std::int64_t max_iterations = 1000;
    // RFE: fraction of the remaining features removed per round (0: one per round).
    double rfe_fraction = 0.0;
    MulticlassScheme multiclass = MulticlassScheme::OneVsRest;
    // Final classifier retrained on the selected original features (linear kernel).
    double final_C = std::numeric_limits<double>::infinity();
    double final_ridge = -1.0;  // < 0: same as ridge
    SmoOptions smo;

    void validate(Index n_features) const;
};

struct SelectionIteration {
    Index n_features = 0;    // features still alive after this iteration
    double objective = 0.0;  // the inner problem's objective (1/2 |w|^2 for l2-AROM)
    double max_change = 0.0; // max |z - z_prev|
};

// The selection for one feature count r.
struct FeatureSubset {
    Index n_features = 0;
    IndexVector selected;      // column indices into the original data, best first
    Vector weights;            // weight of each selected feature (the final classifier's w)
    std::vector<SvmModel> classifiers;  // retrained on the selected columns; one per one-vs-rest machine
};

struct SelectionResult {
    std::vector<FeatureSubset> subsets;  // one per requested feature count, same order
    Vector scores;                       // per-feature score of the method (|w|, z, or CORR)
    std::vector<SelectionIteration> trace;
    std::int64_t iterations = 0;
    Status status = Status::Success;
    double seconds = 0.0;
};

SelectionResult select_features(Backend& backend, const Dataset& data,
                                const SelectionOptions& options);

}  // namespace zeronorm
