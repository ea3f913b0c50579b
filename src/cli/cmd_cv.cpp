// zeronorm cv DATA: test error of a method over resampling splits, mean +- standard error.
//
//   --method svm (default): the two-class SVM on all features; with several values of -C (a
//     grid), C is chosen per split by an inner --folds-fold cross-validation on its training rows.
//   --method l2-arom|l1-arom|rfe|corr --features R1,R2,...: one selection run per split serves the
//     whole feature-count path; a linear SVM retrained on each subset gives that count's error.
// Splits: stratified k-fold (--folds K), or --splits S random stratified splits with
// --train-size N training rows each (the protocol of Weston et al. 2003, sec. 4.6).
//
// The run has three steps so that new resampling schemes or methods only touch one of them:
// make_folds() (how rows are split), evaluate_*() (what is trained) and report_*().
#include <sstream>

#include "cli.hpp"
#include "zeronorm/io/json.hpp"
#include "zeronorm/evaluation/cross_validation.hpp"
#include "zeronorm/evaluation/evaluation.hpp"
#include "zeronorm/evaluation/model_selection.hpp"
#include "zeronorm/methods/methods.hpp"

namespace zeronorm::cli {
namespace {

class CvCommand : public Command {
public:
    explicit CvCommand(CLI::App& parent) {
        app = parent.add_subcommand("cv", "Cross-validated error of the SVM or of a feature-selection path");
        app->add_option("data", data_path, "Data (.csv, else LIBSVM format)")->required();
        folds_option_ = app->add_option("--folds", folds,
                        "Number of folds (k-fold), also of the inner cross-validation over a C grid")
            ->capture_default_str();
        splits_option_ = app->add_option("--splits", splits, "Number of random stratified train/test splits "
                                            "(instead of k-fold; needs --train-size)");
        train_size_option_ = app->add_option("--train-size", train_size, "Training rows per random split")
                                 ->check(whole_number(false));
        app->add_option("--threads", threads, "CPU worker threads, one split each (0: all cores)")
            ->capture_default_str();
        app->add_option("--schedule", schedule,
                        "Splits one by one (per-split) or all together through batched products "
                        "and solvers (batched: the svm and its C grid with equal split sizes; "
                        "l2-arom with two classes and ridge > 0 or finite C); auto: batched on "
                        "cuda where it applies")
            ->check(CLI::IsMember({"auto", "per-split", "batched"}))
            ->capture_default_str();
        app->add_option("--precision", precision,
                        "Arithmetic of the batched l2-arom schedule's Gram matrices (float32: "
                        "single precision, the duals and weights still in double; under "
                        "--schedule auto it picks the batched schedule)")
            ->check(CLI::IsMember({"float64", "float32"}))
            ->capture_default_str();
        std::vector<std::string> methods = ranker_names();
        methods.insert(methods.begin(), "svm");  // the SVM on all features, no selection
        selection.add_to(*app, methods, false, false);
        selection.method = "svm";
        svm.add_to(*app, true);
        preprocess.add_to(*app);
        common.add_to(*app);
    }

    void run() override {
        const bool plain_svm = selection.method == "svm";
        check_flags(plain_svm);
        // Opened first: fails early (exit code 4) when the backend cannot start.
        const std::unique_ptr<Backend> backend = open_backend(common);
        Dataset data = load_data(data_path, 2, common, preprocess.log10);
        // log10 is elementwise, so applying it before splitting leaks nothing; standardisation
        // is fitted inside each split.
        if (preprocess.log10) data.X = checked_log10(data.X, data_path);
        if (plain_svm && svm.kernel == "chi2") check_chi2_domain(data.X, data_path);
        const std::vector<Fold> split = make_folds(data);
        if (plain_svm) {
            require_two_classes(data, data_path, "cv");
            report_svm(data, evaluate_svm(*backend, data, split));
        } else {
            report_path(evaluate_path(*backend, data, split));
        }
    }

private:
    // Every flag is honoured or refused here, before any work; then --output is staged.
    void check_flags(bool plain_svm) {
        const bool has_splits = splits_option_->count() > 0;
        const bool has_train_size = train_size_option_->count() > 0;
        const bool has_folds = folds_option_->count() > 0;
        ZN_EXPECTS(folds >= 2, "--folds must be >= 2, got " << folds);
        ZN_EXPECTS(!has_splits || splits >= 1, "--splits must be >= 1, got " << splits);
        ZN_EXPECTS(!has_train_size || train_size >= 1,
                   "--train-size must be >= 1, got " << train_size);
        ZN_EXPECTS(threads >= 0, "--threads must be >= 0, got " << threads);
        ZN_EXPECTS(!has_splits || has_train_size, "--splits needs --train-size");
        ZN_EXPECTS(has_splits || !has_train_size,
                   "--train-size is the training rows of --splits random splits; give --splits");
        ZN_EXPECTS(!has_splits || !has_folds || svm.C_grid.size() > 1,
                   "--folds with --splits sets the inner cross-validation over a grid of C "
                   "values (-C C1,C2,...); with one C it has no use");
        ZN_EXPECTS(plain_svm || svm.C_grid.size() <= 1,
                   "a grid of C values (-C " << svm.C_grid.size() << " values) is for --method svm; "
                   << selection.method << " takes one C");
        ZN_EXPECTS(!plain_svm || precision == "float64",
                   "--precision float32 is for the batched l2-arom schedule, not --method svm");
        ZN_EXPECTS(plain_svm || !selection.feature_counts.empty(),
                   "--method " << selection.method << " needs --features R1,R2,...");
        if (plain_svm) {
            std::string rankers;
            for (const std::string& name : ranker_names()) rankers += (rankers.empty() ? "" : "|") + name;
            selection.refuse_all("is for a selection method (--method " + rankers + ")");
        } else {
            // The selection trains linear SVMs; the kernel flags of --method svm do not apply.
            ZN_EXPECTS(!svm.given("--kernel") || svm.kernel == "linear",
                       "--method " << selection.method << " selects with linear SVMs; --kernel "
                                   << svm.kernel << " is for --method svm");
            svm.kernel = "linear";
            selection.check(svm.given("--max-iterations"));
        }
        svm.check();
        stage_output();
    }

    std::vector<Fold> make_folds(const Dataset& data) const {
        if (splits > 0) return stratified_random_splits(data.y, splits, train_size, common.seed);
        return stratified_kfold(data.y, folds, common.seed);
    }

    EvaluationSchedule parsed_schedule() const {
        return schedule == "batched"     ? EvaluationSchedule::Batched
               : schedule == "per-split" ? EvaluationSchedule::PerSplit
                                         : EvaluationSchedule::Auto;
    }

    std::string unit() const { return splits > 0 ? "split" : "fold"; }

    std::string scheme(std::size_t n) const {
        return splits > 0 ? std::to_string(n) + " random splits (" + std::to_string(train_size) +
                                " training rows)"
                          : std::to_string(n) + "-fold cross-validation";
    }

    SvmEvaluation evaluate_svm(Backend& backend, const Dataset& data,
                               const std::vector<Fold>& split) {
        SvmEvaluationOptions options;
        options.svm = svm.build(data.n_features());
        if (svm.C_grid.size() > 1) options.C_grid = svm.C_grid;
        options.inner_folds = folds;
        options.seed = common.seed;
        options.standardize = preprocess.standardize;
        options.threads = threads;
        options.schedule = parsed_schedule();
        std::string what = scheme(split.size()) + " of a " + to_string(options.svm.kernel.type) + " SVM";
        if (options.C_grid.size() > 1)
            what += ", C from " + std::to_string(options.grid().size()) + " values by inner " +
                    std::to_string(folds) + "-fold CV";
        progress(common, what + " on " + to_string(parse_backend_kind(common.backend)));
        const auto on_split = [this](std::size_t f, std::size_t n, const SvmSplitEvaluation& r) {
            progress(common, unit() + " " + std::to_string(f + 1) + "/" + std::to_string(n) +
                                 ": error " + fmt(r.error) + " (C " + fmt(r.C) + ", " +
                                 std::to_string(r.n_support) + " support vectors, " +
                                 fmt(r.seconds) + " s)");
            if (r.status != Status::Success)
                warning(unit() + " " + std::to_string(f + 1) + ": the solver stopped with status " +
                        to_string(r.status));
        };
        return zeronorm::evaluate_svm(backend, data, split, options, on_split);
    }

    SelectionEvaluation evaluate_path(Backend& backend, const Dataset& data,
                                      const std::vector<Fold>& split) {
        SelectionEvaluationOptions options;
        options.selection = selection.build();
        // The SVM flags (-C, --ridge, -t) serve the SVMs inside the selection; without -C the
        // selection uses its hard margin (with --ridge), and without -t its own tight inner
        // tolerance, as `select` does.
        options.selection.C = svm.C_given() ? svm.C : std::numeric_limits<double>::infinity();
        options.selection.ridge = svm.ridge;
        if (svm.tolerance_given()) options.selection.smo.tolerance = svm.tolerance;
        if (svm.given("--max-iterations")) options.selection.max_iterations = svm.max_iterations;
        if (svm.given("--cache-mb"))
            options.selection.smo.cache_mb = options.selection.final_smo.cache_mb = svm.cache_mb;
        options.standardize = preprocess.standardize;
        options.threads = threads;
        options.schedule = parsed_schedule();
        options.gram_precision = precision == "float32" ? Precision::Float32 : Precision::Float64;
        progress(common, scheme(split.size()) + " of " + selection.method + " on " +
                             to_string(parse_backend_kind(common.backend)));
        const IndexVector& counts = options.selection.feature_counts;
        const auto on_split = [this, &counts](std::size_t f, std::size_t n,
                                              const SplitEvaluation& r) {
            std::string errors;
            for (const double e : r.errors) errors += " " + fmt(e);
            progress(common, unit() + " " + std::to_string(f + 1) + "/" + std::to_string(n) +
                                 ": errors" + errors + " (" + fmt(r.seconds) + " s)");
            if (r.status != Status::Success)
                warning(unit() + " " + std::to_string(f + 1) + ": selection stopped with status " +
                        to_string(r.status));
            for (std::size_t c = 0; c < r.classifier_status.size(); ++c)
                if (r.classifier_status[c] == Status::NumericalIssue)
                    warning(unit() + " " + std::to_string(f + 1) + ": the final classifier on " +
                            std::to_string(counts[c]) +
                            " features failed; this " + unit() + " is left out of that count's "
                            "error");
        };
        return evaluate_selection(backend, data, split, options, on_split);
    }

    void report_svm(const Dataset& data, const SvmEvaluation& result) {
        std::vector<double> errors, chosen;
        for (const SvmSplitEvaluation& r : result.splits) {
            errors.push_back(r.error);
            chosen.push_back(r.C);
        }
        const bool grid = svm.C_grid.size() > 1;
        // Every SVM fitted: the final one per split, plus inner folds x grid values.
        const double fits = double(result.splits.size()) *
                            (grid ? double(folds) * double(svm.C_grid.size()) + 1.0 : 1.0);
        if (common.json) {
            Json j;
            j["method"] = "svm";
            j.update(to_json(result));
            j["results"] = Json::array({{{"features", data.n_features()},
                                         {"mean_error", result.mean_error},
                                         {"std_error", result.std_error}}});
            if (grid) {
                j["C_grid"] = svm.C_grid;
                j["inner_folds"] = folds;
            } else {
                j.erase("chosen_C");
            }
            j["seed"] = common.seed;
            j["fits_per_second"] = fits / result.seconds;
            finish(j.dump() + "\n");
            return;
        }
        std::ostringstream s;
        s << scheme(errors.size()) << " on " << data_path << "\n"
          << "  error            " << fmt(result.mean_error) << " +- " << fmt(result.std_error)
          << " (standard error)\n"
          << "  " << unit() << " errors     ";
        for (const double e : errors) s << ' ' << fmt(e);
        if (grid) {
            s << "\n  chosen C         ";
            for (const double c : chosen) s << ' ' << fmt(c);
        }
        s << "\n  time             " << fmt(result.seconds) << " s (" << fmt(fits / result.seconds)
          << " SVM fits/s)\n";
        finish(s.str());
    }

    void report_path(const SelectionEvaluation& result) {
        const double fits = double(result.splits.size());
        if (common.json) {
            Json j;
            j["method"] = selection.method;
            j.update(to_json(result));
            j["seed"] = common.seed;
            j["splits_per_second"] = fits / result.seconds;
            j["precision"] = precision;
            finish(j.dump() + "\n");
            return;
        }
        std::ostringstream s;
        s << selection.method << ", " << scheme(result.splits.size()) << " on " << data_path
          << "\n  features   test error (mean +- standard error)\n";
        for (const PathPoint& p : result.path) {
            char line[96];
            std::snprintf(line, sizeof line, "  %8ld   %6.2f%% +- %.2f%%", long(p.n_features),
                          100 * p.mean_error, 100 * p.std_error);
            s << line;
            if (p.failed_classifiers > 0)
                s << "  (" << p.failed_classifiers << " " << unit()
                  << "s left out: final classifier failed)";
            s << "\n";
        }
        s << "  time       " << fmt(result.seconds) << " s (" << fmt(fits / result.seconds)
          << " splits/s)\n";
        finish(s.str());
    }

    CLI::Option* folds_option_ = nullptr;
    CLI::Option* splits_option_ = nullptr;
    CLI::Option* train_size_option_ = nullptr;
    std::string data_path;
    int folds = 5;
    int splits = 0;
    Index train_size = 0;
    int threads = 0;
    std::string schedule = "auto";
    std::string precision = "float64";
    SelectionCliOptions selection;
    SvmCliOptions svm;
    PreprocessOptions preprocess;
};

}  // namespace

std::unique_ptr<Command> make_cv_command(CLI::App& parent) {
    return std::make_unique<CvCommand>(parent);
}

}  // namespace zeronorm::cli
