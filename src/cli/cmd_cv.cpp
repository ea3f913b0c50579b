// zeronorm cv DATA: test error of a method over resampling splits, mean +- standard error.
//
//   --method svm (default): the two-class SVM on all features.
//   --method l2-arom|l1-arom|rfe|corr --features R1,R2,...: one selection run per split serves the
//     whole feature-count path; a linear SVM retrained on each subset gives that count's error.
// Splits: stratified k-fold (--folds K), or --splits S random stratified splits with
// --train-size N training rows each (the protocol of Weston et al. 2003, sec. 4.6).
//
// The run has three steps so that new resampling schemes or methods only touch one of them:
// make_folds() (how rows are split), evaluate_*() (what is trained) and report_*().
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli.hpp"
#include "zeronorm/cross_validation.hpp"
#include "zeronorm/evaluation.hpp"

namespace zeronorm::cli {
namespace {

class CvCommand : public Command {
public:
    explicit CvCommand(CLI::App& parent) {
        app = parent.add_subcommand("cv", "Cross-validated error of the SVM or of a feature-selection path");
        app->add_option("data", data_path, "Data (.csv, else LIBSVM format)")->required();
        app->add_option("--folds", folds, "Number of folds (k-fold)")->capture_default_str();
        app->add_option("--splits", splits, "Number of random stratified train/test splits "
                                            "(instead of k-fold; needs --train-size)");
        app->add_option("--train-size", train_size, "Training rows per random split");
        selection.add_to(*app, {"svm", "l2-arom", "l1-arom", "rfe", "corr"}, false, false);
        selection.method = "svm";
        svm.add_to(*app);
        preprocess.add_to(*app);
        common.add_to(*app);
    }

    void run() override {
        svm.check();
        ZN_EXPECTS(folds >= 2, "--folds must be >= 2, got " << folds);
        ZN_EXPECTS(splits >= 0, "--splits must be >= 1, got " << splits);
        ZN_EXPECTS(splits == 0 || train_size > 0, "--splits needs --train-size");
        const bool plain_svm = selection.method == "svm";
        ZN_EXPECTS(plain_svm || !selection.feature_counts.empty(),
                   "--method " << selection.method << " needs --features R1,R2,...");
        auto backend = open_backend(common);
        Dataset data = load_data(data_path, 2, common);
        // log10 is elementwise, so applying it before splitting leaks nothing; standardisation
        // is fitted inside each split.
        if (preprocess.log10) data.X = checked_log10(data.X, data_path);
        const std::vector<Fold> split = make_folds(data);
        if (plain_svm) {
            require_two_classes(data, data_path, "cv");
            report_svm(data, evaluate_svm(*backend, data, split));
        } else {
            report_path(evaluate_path(data, split));
        }
    }

private:
    std::vector<Fold> make_folds(const Dataset& data) const {
        if (splits > 0) return stratified_random_splits(data.y, splits, train_size, common.seed);
        return stratified_kfold(data.y, folds, common.seed);
    }

    std::string unit() const { return splits > 0 ? "split" : "fold"; }

    std::string scheme(std::size_t n) const {
        return splits > 0 ? std::to_string(n) + " random splits (" + std::to_string(train_size) +
                                " training rows)"
                          : std::to_string(n) + "-fold cross-validation";
    }

    CrossValidationResult evaluate_svm(Backend& backend, const Dataset& data,
                                       const std::vector<Fold>& split) {
        const SvmOptions options = svm.build(data.n_features());
        progress(common, scheme(split.size()) + " of a " + to_string(options.kernel.type) +
                             " SVM on " + backend.description());
        const auto on_fold = [this](std::size_t f, std::size_t n, const FoldResult& r) {
            progress(common, unit() + " " + std::to_string(f + 1) + "/" + std::to_string(n) +
                                 ": error " + fmt(r.error) + " (" + std::to_string(r.n_test) +
                                 " test rows, " + std::to_string(r.n_support) +
                                 " support vectors, " + fmt(r.seconds) + " s)");
            if (r.status != Status::Success)
                warning(unit() + " " + std::to_string(f + 1) + ": the solver stopped with status " +
                        to_string(r.status));
        };
        return cross_validate_svm(backend, data, options, split, preprocess.standardize, on_fold);
    }

    SelectionEvaluation evaluate_path(const Dataset& data, const std::vector<Fold>& split) {
        SelectionEvaluationOptions options;
        options.selection = selection.build();
        // The SVM flags (-C, --ridge, -t) serve the SVMs inside the selection; without -C the
        // selection uses its hard margin (with --ridge), and without -t its own tight inner
        // tolerance, as `select` does.
        options.selection.C = svm.C_given() ? svm.C : std::numeric_limits<double>::infinity();
        options.selection.ridge = svm.ridge;
        if (svm.tolerance_given()) options.selection.smo.tolerance = svm.tolerance;
        if (!selection.final_C_given()) options.selection.final_C = options.selection.C;
        options.standardize = preprocess.standardize;
        progress(common, scheme(split.size()) + " of " + selection.method + " on " +
                             to_string(parse_backend_kind(common.backend)));
        const auto on_split = [this](std::size_t f, std::size_t n, const SplitEvaluation& r) {
            std::string errors;
            for (const double e : r.errors) errors += " " + fmt(e);
            progress(common, unit() + " " + std::to_string(f + 1) + "/" + std::to_string(n) +
                                 ": errors" + errors + " (" + fmt(r.seconds) + " s)");
            if (r.status != Status::Success)
                warning(unit() + " " + std::to_string(f + 1) + ": selection stopped with status " +
                        to_string(r.status));
        };
        return evaluate_selection(parse_backend_kind(common.backend), common.device, data, split,
                                  options, on_split);
    }

    void report_svm(const Dataset& data, const CrossValidationResult& result) const {
        if (common.json) {
            nlohmann::ordered_json j;
            j["method"] = "svm";
            j["folds"] = result.fold_errors.size();
            j["mean_error"] = result.mean_error;
            j["std_error"] = result.std_error;
            j["fold_errors"] = result.fold_errors;
            j["results"] = nlohmann::ordered_json::array(
                {{{"features", data.n_features()},
                  {"mean_error", result.mean_error},
                  {"std_error", result.std_error}}});
            j["seed"] = common.seed;
            j["converged"] = result.status == Status::Success;
            j["status"] = to_string(result.status);
            j["seconds"] = result.seconds;
            emit(common, j.dump() + "\n");
            return;
        }
        std::ostringstream s;
        s << scheme(result.fold_errors.size()) << " on " << data_path << "\n"
          << "  error            " << fmt(result.mean_error) << " +- " << fmt(result.std_error)
          << " (standard error)\n"
          << "  " << unit() << " errors     ";
        for (const double e : result.fold_errors) s << ' ' << fmt(e);
        s << "\n  time             " << fmt(result.seconds) << " s\n";
        emit(common, s.str());
    }

    void report_path(const SelectionEvaluation& result) const {
        const double fits = double(result.splits.size());
        if (common.json) {
            nlohmann::ordered_json j;
            j["method"] = selection.method;
            j["splits"] = result.splits.size();
            nlohmann::ordered_json rows = nlohmann::ordered_json::array();
            for (const PathPoint& p : result.path)
                rows.push_back({{"features", p.n_features},
                                {"mean_error", p.mean_error},
                                {"std_error", p.std_error}});
            j["results"] = std::move(rows);
            j["seed"] = common.seed;
            j["converged"] = result.status == Status::Success;
            j["status"] = to_string(result.status);
            j["seconds"] = result.seconds;
            j["splits_per_second"] = fits / result.seconds;
            emit(common, j.dump() + "\n");
            return;
        }
        std::ostringstream s;
        s << selection.method << ", " << scheme(result.splits.size()) << " on " << data_path
          << "\n  features   test error (mean +- standard error)\n";
        for (const PathPoint& p : result.path) {
            char line[96];
            std::snprintf(line, sizeof line, "  %8ld   %6.2f%% +- %.2f%%\n", long(p.n_features),
                          100 * p.mean_error, 100 * p.std_error);
            s << line;
        }
        s << "  time       " << fmt(result.seconds) << " s (" << fmt(fits / result.seconds)
          << " splits/s)\n";
        emit(common, s.str());
    }

    std::string data_path;
    int folds = 5;
    int splits = 0;
    Index train_size = 0;
    SelectionCliOptions selection;
    SvmCliOptions svm;
    PreprocessOptions preprocess;
};

}  // namespace

std::unique_ptr<Command> make_cv_command(CLI::App& parent) {
    return std::make_unique<CvCommand>(parent);
}

}  // namespace zeronorm::cli
