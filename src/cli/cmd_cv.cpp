// zeronorm cv DATA: test error of a method over resampling splits, mean +- standard error.
//
//   --method svm (default): the two-class SVM on all features; with several values of -C (a
//     grid), C is chosen per split by an inner --folds-fold cross-validation on its training rows.
//   --method l2-arom|l1-arom|rfe|corr --features R1,R2,...: one selection run per split serves the
//     whole feature-count path; a linear SVM retrained on each subset gives that count's error.
//   --method fsv|l2-l1-svm|l2-l0-svm|rlp without --features: the validation-set protocol of
//     Neumann, Schnoerr & Steidl 2005, sec. 5.2.2 (validation_protocol.hpp): parameters chosen
//     per split over the paper's grid (--lambda-grid, --mu-grid, --nu-grid to change an axis; a
//     method flag such as --mu fixes one), the method's own classifier tested.
//   --method fs-svmcp without --features: the protocol of Rinaldi & Sciandrone 2010, sec. 5.2
//     (e.g. --splits 10 --train-size 50): FS-SVMCP on each training set, its C chosen by its own
//     inner cross-validation, its feature count its own; training and test errors reported.
// Splits: stratified k-fold (--folds K), or --splits S random stratified splits with
// --train-size N training rows each (the protocol of Weston et al. 2003, sec. 4.6).
//
// The run has three steps so that new resampling schemes or methods only touch one of them:
// make_folds() (how rows are split), evaluate_*() (what is trained) and report_*().
#include <charconv>
#include <cmath>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "cli.hpp"
#include "zeronorm/io/json.hpp"
#include "zeronorm/evaluation/cross_validation.hpp"
#include "zeronorm/evaluation/evaluation.hpp"
#include "zeronorm/evaluation/model_selection.hpp"
#include "zeronorm/evaluation/validation_protocol.hpp"
#include "zeronorm/methods/methods.hpp"

namespace zeronorm::cli {
namespace {

class CvCommand : public Command {
public:
    explicit CvCommand(CLI::App& parent) {
        app = parent.add_subcommand("cv", "Cross-validated error of the SVM or of a feature-selection path");
        app->add_option("data", data_path, "Data (.csv, .tsv or .tab, else LIBSVM format)")
            ->required();
        folds_option_ = app->add_option("--folds", folds,
                        "Number of folds (k-fold), also of the inner cross-validation over a C grid")
            ->capture_default_str();
        splits_option_ = app->add_option("--splits", splits, "Number of random stratified train/test splits "
                                            "(instead of k-fold; needs --train-size)");
        train_size_option_ =
            app->add_option("--train-size", train_size,
                            "Training rows per random split: a count, or a fraction of the rows "
                            "in (0, 1) (rounded to the nearest count)")
                ->check([](const std::string& text) {
                    double v = 0;
                    const char* end = text.data() + text.size();
                    const auto [ptr, ec] = std::from_chars(text.data(), end, v);
                    const bool count = v >= 1 && v <= 9e15 && std::floor(v) == v;
                    const bool ok = ec == std::errc() && ptr == end && ((v > 0 && v < 1) || count);
                    return ok ? std::string()
                              : "'" + text + "' is neither a row count (1, 2, ...) nor a fraction "
                                             "in (0, 1)";
                });
        app->add_option("--threads", threads, "Worker threads of the per-split schedule, one split each (0: all cores; on CUDA at most 16, each with its own stream)")
            ->capture_default_str();
        app->add_option("--repeat", repeat,
                        "Run the whole evaluation this many times in one process and report the "
                        "last (--json: every run's seconds in run_seconds): the first run carries "
                        "the one-time start-up (CUDA context, library handles, kernel loading)")
            ->check(CLI::Validator(
                [](const std::string& text) {
                    int v = 0;
                    const char* end = text.data() + text.size();
                    const auto [ptr, ec] = std::from_chars(text.data(), end, v);
                    return ec == std::errc() && ptr == end && v >= 1
                               ? std::string()
                               : "'" + text + "' is not a whole number of runs >= 1";
                },
                "INT >= 1"))
            ->capture_default_str();
        app->add_option("--schedule", schedule,
                        "Splits one by one (per-split) or all together through batched products "
                        "and solvers (batched: the svm and its C grid with equal split sizes; "
                        "l2-arom and rfe with two classes and ridge > 0 or finite C); auto: "
                        "batched on cuda where it applies")
            ->check(CLI::IsMember({"auto", "per-split", "batched"}))
            ->capture_default_str();
        app->add_option("--precision", precision,
                        "Arithmetic of the batched l2-arom/rfe schedule's Gram matrices (float32: "
                        "single precision, the duals and weights still in double; under "
                        "--schedule auto it picks the batched schedule)")
            ->check(CLI::IsMember({"float64", "float32"}))
            ->capture_default_str();
        app->add_flag(
            "--frequencies", frequencies,
            "Stability selection: with a feature-count path, how often each feature was chosen "
            "over the splits, per count (JSON: `frequencies` of each result, most frequent first)");
        std::vector<std::string> methods = ranker_names();
        methods.insert(methods.begin(), "svm");  // the SVM on all features, no selection
        selection.add_to(*app, methods, false, false);
        selection.method = "svm";
        svm.add_to(*app, true);
        preprocess.add_to(*app);
        common.add_to(*app);
        add_grid_flags();
    }

    void run() override {
        const bool plain_svm = selection.method == "svm";
        check_flags(plain_svm);
        // Opened first: fails early (exit code 4) when the backend cannot start.
        std::unique_ptr<Backend> backend = open_backend(common);
        Dataset data = load_data(data_path, 2, common, preprocess.log10);
        // log10 is elementwise, so applying it before splitting leaks nothing; standardisation
        // is fitted inside each split.
        if (preprocess.log10) data.X = checked_log10(data.X, data_path);
        if (plain_svm && svm.kernel == "chi2") check_chi2_domain(data.X, data_path);
        const std::vector<Fold> split = make_folds(data);
        if (plain_svm || protocol()) require_two_classes(data, data_path, "cv");
        if (!backend) backend = choose_cv_backend(data, split, plain_svm);
        // --repeat: every run timed, the last one reported.
        const auto run_and_report = [&](auto evaluate, auto report) {
            for (int run = 1; run <= repeat; ++run) {
                const auto e = evaluate();
                run_seconds_.push_back(e.seconds);
                if (run == repeat) report(e);
            }
        };
        if (plain_svm)
            run_and_report([&] { return evaluate_svm(*backend, data, split); },
                           [&](const SvmEvaluation& e) { report_svm(data, e); });
        else if (protocol())
            run_and_report([&] { return evaluate_protocol(*backend, data, split); },
                           [&](const ValidationProtocolResult& e) { report_protocol(e); });
        else
            run_and_report([&] { return evaluate_path(*backend, data, split); },
                           [&](const SelectionEvaluation& e) { report_path(e); });
    }

    // --backend auto: the device pays only where the splits run as one batch (the svm and its C
    // grid; l2-arom and rfe on two classes with a bounded inner dual); there the estimate counts
    // the SVM fits of all splits (C grid: folds x values + 1 per split; l2-arom about 15
    // iterations; rfe its rounds, each over the features still alive).
    std::unique_ptr<Backend> choose_cv_backend(const Dataset& data, const std::vector<Fold>& split,
                                               bool plain_svm) const {
        const std::string what = scheme(split.size()) + " of " + selection.method;
        // The selections batch with a bounded inner dual (-C given or --ridge > 0).
        const bool bounded = svm.C_given() || svm.ridge > 0;
        const bool batching_method = selection.method == "l2-arom" || selection.method == "rfe";
        const bool batches = data.is_binary() && (plain_svm || (batching_method && bounded));
        if (!batches) {
            progress(common, "backend auto: cpu (" + what +
                                 " runs split by split, which the CPU's workers serve best)");
            return make_cpu_backend();
        }
        const double d = double(data.n_features());
        double passes = 15.0;
        if (plain_svm)
            passes = svm.C_grid.size() > 1 ? double(folds) * double(svm.C_grid.size()) + 1.0 : 1.0;
        else if (selection.method == "rfe") {
            // The rounds' alive features summed, in units of d: 1 / f for a fraction f per
            // round, else one round per feature down to the smallest count.
            const SelectionOptions built = selection.build();
            const double r = double(built.feature_counts.back());
            passes = built.rfe_fraction > 0 ? 1.0 / built.rfe_fraction
                                            : (d - r) * (d + r) / (2.0 * d);
        }
        const double n = double(split.front().train.size());
        const double problems = double(split.size());
        return choose_backend(common, estimated_cpu_seconds(problems, n, d, passes, true), what);
    }

    // The JSON result, with every run's seconds when --repeat ran it more than once.
    void finish_json(Json& j) {
        if (run_seconds_.size() > 1) j["run_seconds"] = run_seconds_;
        finish(j.dump() + "\n");
    }

private:
    // Every flag is honoured or refused here, before any work; then --output is staged.
    void check_flags(bool plain_svm) {
        const bool has_splits = splits_option_->count() > 0;
        const bool has_train_size = train_size_option_->count() > 0;
        const bool has_folds = folds_option_->count() > 0;
        ZN_EXPECTS(folds >= 2, "--folds must be >= 2, got " << folds);
        ZN_EXPECTS(!has_splits || splits >= 1, "--splits must be >= 1, got " << splits);
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
        ZN_EXPECTS(plain_svm || protocol() || !selection.feature_counts.empty(),
                   "--method " << selection.method << " needs --features R1,R2,...");
        check_grid_flags();
        ZN_EXPECTS(!frequencies || (!plain_svm && !protocol()),
                   "--frequencies counts the features chosen along a --features path; --method "
                       << selection.method << (plain_svm ? " selects none" : " has no path here"));
        if (protocol()) {
            // The protocol tests the method's own classifier: no retrained SVM, one schedule.
            for (const char* flag : {"--final-C", "--final-ridge", "--multiclass"})
                ZN_EXPECTS(!given(app->get_option(flag)),
                           flag << " sets the classifier retrained on --features; --method "
                                << selection.method << " without --features is tested with its "
                                                       "own classifier");
            for (const char* flag : {"--C", "--ridge", "--tolerance", "--kernel", "--cache-mb"})
                ZN_EXPECTS(!svm.given(flag), flag << " is for the SVMs of --method svm or of a "
                                                     "selection path; --method "
                                                  << selection.method << " does not use it");
            ZN_EXPECTS(schedule == "auto" && precision == "float64",
                       "--method " << selection.method
                                   << " without --features runs its splits one by one "
                                      "(no --schedule or --precision)");
        }
        if (plain_svm) {
            std::string rankers;
            for (const std::string& name : ranker_names()) rankers += (rankers.empty() ? "" : "|") + name;
            selection.refuse_all("is for a selection method (--method " + rankers + ")");
        } else {
            // The selection trains linear SVMs, unless the method takes --kernel (r2w2: linear
            // or rbf, with --gamma); the other kernel flags of --method svm do not apply.
            const bool own_kernel = !selection.method_parameter("--kernel").empty();
            ZN_EXPECTS(!svm.given("--kernel") || svm.kernel == "linear" ||
                           (own_kernel && svm.kernel == "rbf"),
                       "--method " << selection.method << " selects with "
                                   << (own_kernel ? "linear or rbf kernels" : "linear SVMs")
                                   << "; --kernel " << svm.kernel << " is for --method svm");
            if (!own_kernel || !svm.given("--kernel")) svm.kernel = "linear";
            selection.check(svm.given("--max-iterations"));
        }
        svm.check();
        stage_output();
    }

    // The folds, and the training rows of the random splits (a fraction of the data's rows
    // rounded).
    std::vector<Fold> make_folds(const Dataset& data) {
        if (splits == 0) return stratified_kfold(data.y, folds, common.seed);
        const double n = double(data.n_samples());
        train_rows_ = Index(train_size < 1 ? std::llround(train_size * n) : train_size);
        // Each class in every training set, and a test row left over.
        const Index least = std::max(2, data.n_classes());
        if (train_rows_ < least || train_rows_ >= data.n_samples()) {
            std::ostringstream why;
            why << "--train-size " << train_size;
            if (train_size < 1)
                why << " gives " << train_rows_ << " of the " << data.n_samples() << " rows";
            why << ": a split needs " << least << " to " << data.n_samples() - 1
                << " training rows (each class among them, a row left to test)";
            throw InvalidArgument(why.str());
        }
        return stratified_random_splits(data.y, splits, train_rows_, common.seed);
    }

    EvaluationSchedule parsed_schedule() const {
        return schedule == "batched"     ? EvaluationSchedule::Batched
               : schedule == "per-split" ? EvaluationSchedule::PerSplit
                                         : EvaluationSchedule::Auto;
    }

    std::string unit() const { return splits > 0 ? "split" : "fold"; }

    std::string scheme(std::size_t n) const {
        return splits > 0 ? std::to_string(n) + " random splits (" + std::to_string(train_rows_) +
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
        progress(common, what + " on " + to_string(backend.kind()));
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
        // --kernel and --gamma, for a method that takes them (r2w2), under its parameter names.
        const std::string kernel_name = selection.method_parameter("--kernel");
        const std::string gamma_name = selection.method_parameter("--gamma");
        if (!kernel_name.empty()) options.selection.set_parameter(kernel_name, svm.kernel);
        if (!gamma_name.empty() && svm.given("--gamma"))
            options.selection.set_parameter(gamma_name, svm.gamma);
        if (svm.tolerance_given()) options.selection.smo.tolerance = svm.tolerance;
        if (svm.given("--max-iterations")) options.selection.max_iterations = svm.max_iterations;
        if (svm.given("--cache-mb"))
            options.selection.smo.cache_mb = options.selection.final_smo.cache_mb = svm.cache_mb;
        options.standardize = preprocess.standardize;
        options.threads = threads;
        options.schedule = parsed_schedule();
        options.gram_precision = precision == "float32" ? Precision::Float32 : Precision::Float64;
        progress(common, scheme(split.size()) + " of " + selection.method + " on " +
                             to_string(backend.kind()));
        const IndexVector& counts = options.selection.feature_counts;
        const auto on_split = [this, &counts](std::size_t f, std::size_t n,
                                              const SplitEvaluation& r) {
            std::string errors;
            for (const double e : r.errors) errors += " " + fmt(e);
            progress(common, unit() + " " + std::to_string(f + 1) + "/" + std::to_string(n) +
                                 ": errors" + errors + " (" + fmt(r.seconds) + " s)");
            if (r.status != Status::Success)
                warning(unit() + " " + std::to_string(f + 1) + ": selection stopped with status " +
                        to_string(r.status) + (r.message.empty() ? "" : ": " + r.message));
            for (std::size_t c = 0; c < r.classifier_status.size(); ++c)
                if (r.classifier_status[c] == Status::NumericalIssue)
                    warning(unit() + " " + std::to_string(f + 1) + ": the final classifier on " +
                            std::to_string(counts[c]) +
                            " features failed; this " + unit() + " is left out of that count's "
                            "error");
        };
        return evaluate_selection(backend, data, split, options, on_split);
    }

    // A method with a validation protocol and no --features: the protocol.
    bool protocol() const {
        return selection.method != "svm" && has_validation_fitter(selection.method) &&
               selection.feature_counts.empty();
    }

    // One --<flag>-grid per parameter that a paper grid searches, named after the parameter's
    // registered flag (--mu -> --mu-grid).
    void add_grid_flags() {
        std::set<std::string> names;
        for (const std::string& method : ranker_names())
            if (has_validation_fitter(method))
                for (const std::string& name : paper_grid(method).names) names.insert(name);
        for (const std::string& name : names)
            for (const auto& ranker : feature_rankers())
                for (const ParameterInfo& p : ranker->info().parameters) {
                    if (p.name != name || grid_flags_.count(name) > 0) continue;
                    GridFlag& flag = grid_flags_[name];
                    flag.flag = p.flag + "-grid";
                    // Parameters of several methods may share a flag (--lambda): one option.
                    const auto shared = std::find_if(
                        grid_flags_.begin(), grid_flags_.end(), [&](const auto& other) {
                            return other.first != name && other.second.flag == flag.flag;
                        });
                    if (shared != grid_flags_.end()) {
                        flag = shared->second;
                        continue;
                    }
                    flag.values = &grid_values_[flag.flag];
                    flag.option = app->add_option(flag.flag, *flag.values,
                                                  "cv, validation protocol: values of " +
                                                      p.flag.substr(2) +
                                                      " to choose from, comma-separated "
                                                      "(default: the paper's grid)")
                                      ->delimiter(',');
                }
    }

    // A grid flag only with the protocol of a method whose grid has that parameter.
    void check_grid_flags() const {
        for (const auto& [name, flag] : grid_flags_) {
            if (!given(flag.option)) continue;
            ZN_EXPECTS(protocol(), flag.flag << " is for the validation protocol (cv --method "
                                                "fsv|l2-l1-svm|l2-l0-svm|kta without --features)");
            const std::vector<std::string> names = paper_grid(selection.method).names;
            ZN_EXPECTS(std::any_of(names.begin(), names.end(),
                                   [&, f = flag.flag](const std::string& n) {
                                       const auto g = grid_flags_.find(n);
                                       return g != grid_flags_.end() && g->second.flag == f;
                                   }),
                       flag.flag << " is not a parameter of --method " << selection.method);
        }
    }

    // The paper's grid with each axis replaced by its --<flag>-grid values, or fixed by the
    // method's own flag (e.g. --mu 5).
    ParameterGrid grid() const {
        const ParameterGrid paper = paper_grid(selection.method);
        const Parameters fixed = selection.method_parameters();
        std::vector<std::vector<double>> axes(paper.names.size());
        for (std::size_t k = 0; k < paper.names.size(); ++k) {
            const std::string& name = paper.names[k];
            const auto flag = grid_flags_.find(name);
            const auto one = fixed.find(name);
            if (flag != grid_flags_.end() && given(flag->second.option)) {
                ZN_EXPECTS(one == fixed.end(), flag->second.flag << " and its single value "
                                                                    "flag cannot both be given");
                axes[k] = *flag->second.values;
            } else if (one != fixed.end()) {
                axes[k] = {parse_parameter_number(name, one->second)};
            } else {
                for (const std::vector<double>& point : paper.points)  // distinct, in order
                    if (std::find(axes[k].begin(), axes[k].end(), point[k]) == axes[k].end())
                        axes[k].push_back(point[k]);
            }
        }
        return ParameterGrid::product(paper.names, axes);
    }

    ValidationProtocolResult evaluate_protocol(Backend& backend, const Dataset& data,
                                               const std::vector<Fold>& split) {
        SelectionOptions base = selection.build();
        if (svm.given("--max-iterations")) base.max_iterations = svm.max_iterations;
        ValidationProtocolOptions options;
        options.grid = grid();
        options.standardize = preprocess.standardize;
        options.seed = common.seed;
        options.threads = threads;
        // Each grid point's options are checked before any work (a bad value names its flag).
        validate_flags(
            [&] {
                options.validate();
                for (const std::vector<double>& point : options.grid.points) {
                    SelectionOptions o = base;
                    for (std::size_t k = 0; k < point.size(); ++k)
                        o.set_parameter(options.grid.names[k], point[k]);
                    o.validate(data.n_features(), true);
                }
            },
            selection.flag_names());
        progress(common, scheme(split.size()) + " of " + selection.method + ", " +
                             (options.grid.points.size() > 1
                                  ? std::to_string(options.grid.points.size()) +
                                        " grid points chosen on half of each training set"
                                  : std::string("no parameter validated")));
        const auto on_fold = [this](std::size_t f, std::size_t n, const ValidationFold& r) {
            progress(common, unit() + " " + std::to_string(f + 1) + "/" + std::to_string(n) +
                                 ": error " + fmt(r.error) + ", " +
                                 std::to_string(r.selected.size()) + " features (" +
                                 fmt(r.seconds) + " s)");
            if (r.status != Status::Success)
                warning(unit() + " " + std::to_string(f + 1) + ": " + selection.method +
                        " stopped with status " + to_string(r.status) +
                        (r.message.empty() ? "" : ": " + r.message));
        };
        return evaluate_validation_protocol(backend, data, split,
                                            validation_fitter(selection.method, base), options,
                                            on_fold);
    }

    void report_protocol(const ValidationProtocolResult& result) {
        if (common.json) {
            Json j;
            j["method"] = selection.method;
            j["folds"] = result.folds.size();
            j.update(to_json(result));
            const ParameterGrid searched = grid();
            Json axes = Json::object();
            for (std::size_t k = 0; k < searched.names.size(); ++k) {
                std::vector<double> axis;
                for (const std::vector<double>& point : searched.points)
                    if (std::find(axis.begin(), axis.end(), point[k]) == axis.end())
                        axis.push_back(point[k]);
                axes[searched.names[k]] = axis;
            }
            j["grid"] = std::move(axes);
            j["seed"] = common.seed;
            finish_json(j);
            return;
        }
        std::ostringstream s;
        s << selection.method << ", " << scheme(result.folds.size()) << " on " << data_path
          << (result.parameter_names.empty() ? "" : ", parameters chosen on a validation half")
          << "\n"
          << "  features         " << fmt(result.mean_features) << " (mean)\n"
          << "  error            " << fmt(result.mean_error) << " +- " << fmt(result.std_error)
          << " (standard error)\n"
          << "  training error   " << fmt(result.mean_train_error) << " (mean)\n";
        for (std::size_t f = 0; f < result.folds.size(); ++f) {
            const ValidationFold& r = result.folds[f];
            s << "  " << unit() << " " << f + 1 << ": error " << fmt(r.error) << ", "
              << r.selected.size() << " features";
            for (std::size_t k = 0; k < result.parameter_names.size(); ++k)
                s << ", " << result.parameter_names[k] << " " << fmt(r.chosen[k]);
            for (const auto& [name, value] : r.own_choices) s << ", " << name << " " << fmt(value);
            s << "\n";
        }
        s << "  time             " << fmt(result.seconds) << " s\n";
        finish(s.str());
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
            finish_json(j);
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
            if (frequencies) {
                for (std::size_t k = 0; k < result.path.size(); ++k) {
                    Json rows = Json::array();
                    for (const FeatureFrequency& f : selection_frequencies(result, k))
                        rows.push_back({f.feature, f.frequency});
                    j["results"][k]["frequencies"] = std::move(rows);
                }
            }
            j["seed"] = common.seed;
            j["splits_per_second"] = fits / result.seconds;
            j["precision"] = precision;
            finish_json(j);
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
        if (frequencies) {
            s << "  most often chosen (feature: fraction of splits)\n";
            for (std::size_t k = 0; k < result.path.size(); ++k) {
                const auto chosen = selection_frequencies(result, k);
                s << "  " << std::setw(8) << result.path[k].n_features << "  ";
                for (std::size_t i = 0; i < std::min<std::size_t>(chosen.size(), 10); ++i)
                    s << " " << chosen[i].feature << ":" << fmt(chosen[i].frequency);
                s << "\n";
            }
        }
        s << "  time       " << fmt(result.seconds) << " s (" << fmt(fits / result.seconds)
          << " splits/s)\n";
        finish(s.str());
    }

    struct GridFlag {
        std::string flag;
        std::vector<double>* values = nullptr;  // in grid_values_
        CLI::Option* option = nullptr;
    };
    std::map<std::string, GridFlag> grid_flags_;  // by parameter name
    std::map<std::string, std::vector<double>> grid_values_;  // by flag
    CLI::Option* folds_option_ = nullptr;
    bool frequencies = false;
    CLI::Option* splits_option_ = nullptr;
    CLI::Option* train_size_option_ = nullptr;
    std::string data_path;
    int folds = 5;
    int splits = 0;
    double train_size = 0;   // --train-size: rows, or a fraction of them
    Index train_rows_ = 0;   // what it comes to on the data
    int threads = 0;
    int repeat = 1;
    std::vector<double> run_seconds_;
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
