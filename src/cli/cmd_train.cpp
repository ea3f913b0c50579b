// zeronorm train DATA --model FILE: fits a two-class SVM and saves it with its preprocessing.
//
// --method svm (default): the L2-norm (dual) SVM of train_svm.
// --method l0-svm: the sparse L0/Lp-norm SVM of train_sparse_svm (Huang et al. 2008, §3.4). Its
// model f(x) = sum_i alpha_i k(x, x_i) + b is saved as an ordinary model file (the expansion
// points as support vectors, alpha as coefficients) plus a "method l0-svm ..." line, so
// `zeronorm predict` uses it unchanged and evaluates only the sparse terms.
#include <cmath>
#include <sstream>

#include "cli.hpp"
#include "zeronorm/io/json.hpp"
#include "zeronorm/io/model_builders.hpp"
#include "zeronorm/io/model_io.hpp"
#include "zeronorm/methods/methods.hpp"
#include "zeronorm/methods/sparse_svm.hpp"

namespace zeronorm::cli {
namespace {

// Options of --method l0-svm (defaults: the paper's §4.1 settings).
struct SparseCliOptions {
    double p = 0.0;
    std::string variant = "exact";
    double C_xi = 1.0;
    double C_alpha = 0.2;
    double epsilon = 1e-4;
    int max_outer_iterations = 100;
    bool keep_degenerate = false;
    CLI::Option* p_option = nullptr;
    CLI::Option* variant_option = nullptr;
    CLI::Option* C_xi_option = nullptr;
    CLI::Option* C_alpha_option = nullptr;
    CLI::Option* epsilon_option = nullptr;
    CLI::Option* outer_option = nullptr;
    CLI::Option* keep_option = nullptr;

    void add_to(CLI::App& app) {
        p_option = app.add_option("--p", p,
                                  "l0-svm: norm exponent, 0 = L0, 0 < p <= 2 = Lp (Prop. 4)")
                       ->capture_default_str();
        variant_option =
            app.add_option("--variant", variant,
                           "l0-svm: exact K_(t) (one Cholesky per step) or the inversion-free "
                           "diagonal form of 002 §3.4.3")
                ->check(CLI::IsMember({"exact", "diagonal"}))
                ->capture_default_str();
        C_xi_option =
            app.add_option("--C-xi", C_xi, "l0-svm: slack penalty C_xi")->capture_default_str();
        C_alpha_option = app.add_option("--C-alpha", C_alpha,
                                        "l0-svm: weight C_alpha of the sparsity term")
                             ->capture_default_str();
        epsilon_option = app.add_option("--epsilon", epsilon,
                                        "l0-svm: pruning threshold on |alpha_i| and stopping "
                                        "threshold on max|delta alpha|")
                             ->capture_default_str();
        outer_option = app.add_option("--max-outer-iterations", max_outer_iterations,
                                      "l0-svm: cap T_max on the outer (reweighting) steps")
                           ->capture_default_str();
        keep_option = app.add_flag("--keep-degenerate", keep_degenerate,
                                   "l0-svm: write the model even when every coefficient was "
                                   "pruned (it predicts one class; otherwise exit 3, no model)");
    }

    // The names of the l0-svm options that were given (for an error under --method svm).
    std::string given_names() const {
        std::string names;
        for (const CLI::Option* o :
             {p_option, variant_option, C_xi_option, C_alpha_option, epsilon_option, outer_option,
              keep_option})
            if (given(o)) names += (names.empty() ? "" : ", ") + o->get_name();
        return names;
    }
};

// svm_flag_names plus the l0-svm options.
const FlagNames& sparse_flag_names() {
    static const FlagNames names = [] {
        FlagNames n = svm_flag_names;
        n.insert(n.end(), {{"SparseSvmOptions.p", "--p"},
                           {"SparseSvmOptions.variant", "--variant"},
                           {"SparseSvmOptions.C_xi", "--C-xi"},
                           {"SparseSvmOptions.C_alpha", "--C-alpha"},
                           {"SparseSvmOptions.epsilon", "--epsilon"},
                           {"SparseSvmOptions.max_iterations", "--max-outer-iterations"}});
        return n;
    }();
    return names;
}

class TrainCommand : public Command {
public:
    explicit TrainCommand(CLI::App& parent) {
        app = parent.add_subcommand("train", "Train a two-class SVM and save the model");
        app->add_option("data", data_path, "Training data (.csv, else LIBSVM format)")->required();
        app->add_option("-m,--model", model_path, "Where to write the model")->required();
        std::string method_help = "Method:";
        for (const auto& c : classifiers())
            method_help += "\n  " + c->info().name + ": " + c->info().description + " (" +
                           c->info().citation + ")";
        app->add_option("--method", method, method_help)
            ->check(CLI::IsMember(classifier_names()))
            ->capture_default_str();
        svm.add_to(*app);
        width_option_ =
            app->add_option("--width", width,
                            "Gaussian width sigma of the rbf kernel exp(-|x-x'|^2 / (2 sigma^2)), "
                            "i.e. gamma = 1 / (2 sigma^2); instead of --gamma")
                ->excludes(app->get_option("--gamma"));
        sparse.add_to(*app);
        preprocess.add_to(*app);
        common.add_to(*app);
    }

    void run() override {
        svm.check();
        if (given(width_option_)) {
            ZN_EXPECTS(std::isfinite(width) && width > 0, "--width must be positive, got " << width);
            ZN_EXPECTS(svm.kernel == "rbf" || svm.kernel == "weighted-rbf",
                       "--width is the width of a Gaussian kernel (rbf or weighted-rbf), not of "
                       "the " << svm.kernel << " kernel; use --gamma");
        }
        const bool sparse_method = method == "l0-svm";
        if (!sparse_method) {
            const std::string names = sparse.given_names();
            ZN_EXPECTS(names.empty(), "only --method l0-svm takes " << names);
        } else {
            ZN_EXPECTS(!given(app->get_option("--C")),
                       "--method l0-svm takes --C-xi (slack penalty) and --C-alpha (sparsity "
                       "weight), not -C");
            ZN_EXPECTS(!given(app->get_option("--ridge")),
                       "--ridge does not apply to --method l0-svm");
        }

        // Both outputs are checked before any work and replaced only when everything succeeded.
        model_file_ = std::make_unique<StagedFile>(model_path, "--model");
        stage_output(model_file_.get());

        auto backend = open_backend(common);
        Dataset data = load_data(data_path, 2, common, preprocess.log10);
        require_two_classes(data, data_path, "train");

        ModelFile file;
        file.feature_names = data.feature_names;
        file.label_mapping = data.label_mapping;
        file.log10 = preprocess.log10;
        if (preprocess.log10) data.X = checked_log10(data.X, data_path);
        if (preprocess.standardize) {
            file.standardizer = Standardizer::fit(data.X);
            data.X = file.standardizer->transform(data.X);
        }
        SvmOptions options = svm.build(data.n_features());
        if (given(width_option_)) options.kernel.gamma = 1.0 / (2.0 * width * width);
        if (options.kernel.type == KernelType::Chi2) check_chi2_domain(data.X, data_path);
        if (sparse_method) {
            train_sparse(*backend, data, options, file);
        } else {
            train_plain(*backend, data, options, file);
        }
    }

private:
    void train_plain(Backend& backend, const Dataset& data, const SvmOptions& options,
                     ModelFile& file) {
        progress(common, "training " + to_string(options.kernel.type) + " SVM on " +
                             backend.description());
        const SvmTrainResult result = train_svm(backend, data, options);
        if (result.smo.status != Status::Success)
            warning(std::string("the solver stopped with status ") + to_string(result.smo.status));
        file.model = result.model;

        if (common.json) {
            Json j;
            j["model"] = model_path;
            j["method"] = "svm";
            j["kernel"] = to_string(options.kernel.type);
            j["gamma"] = options.kernel.gamma;
            j["C"] = options.smo.C;
            j["ridge"] = options.smo.ridge;
            j["n_samples"] = data.n_samples();
            j["n_features"] = data.n_features();
            j.update(to_json(result));
            j["train_seconds"] = result.seconds;
            j["backend"] = backend.description();
            save(file, j.dump() + "\n");
            return;
        }
        std::ostringstream s;
        s << "trained an SVM (" << to_string(options.kernel.type) << " kernel) on " << data_path
          << " (" << data.n_samples() << " samples x " << data.n_features() << " features)\n"
          << "  support vectors  " << result.model.n_support() << "\n"
          << "  objective        " << fmt(result.smo.objective) << "\n"
          << "  iterations       " << result.smo.iterations << " (" << to_string(result.smo.status)
          << ")\n"
          << "  bias             " << fmt(result.model.bias) << "\n"
          << "  training time    " << fmt(result.seconds) << " s\n"
          << "  model            " << model_path << "\n";
        save(file, s.str());
    }

    void train_sparse(Backend& backend, const Dataset& data, const SvmOptions& svm_options,
                      ModelFile& file) {
        SparseSvmOptions options;
        options.kernel = svm_options.kernel;
        options.p = sparse.p;
        options.variant = parse_sparse_svm_variant(sparse.variant);
        options.C_xi = sparse.C_xi;
        options.C_alpha = sparse.C_alpha;
        options.epsilon = sparse.epsilon;
        options.max_iterations = sparse.max_outer_iterations;
        // The inner SMO keeps its own tighter default tolerance (see SparseSvmOptions::smo)
        // unless --tolerance / --max-iterations were given.
        if (given(app->get_option("--tolerance"))) options.smo.tolerance = svm.tolerance;
        if (given(app->get_option("--max-iterations")))
            options.smo.max_iterations = svm.max_iterations;
        options.smo.cache_mb = svm.cache_mb;
        validate_flags([&] { options.validate(data.n_features()); }, sparse_flag_names());

        const std::string name = sparse.p == 0.0 ? "L0-norm" : "Lp-norm (p = " + fmt(sparse.p) + ")";
        progress(common, "training " + to_string(options.kernel.type) + " " + name + " SVM on " +
                             backend.description());
        const SparseSvmResult result = train_sparse_svm(backend, data, options);
        if (result.model.n_terms() == 0 && !sparse.keep_degenerate)
            throw NumericalError("the " + name + " SVM pruned every coefficient: " +
                                 result.message + "; no model written (--keep-degenerate "
                                 "writes this one-class model)");
        if (result.status != Status::Success)
            warning(std::string("the sparse SVM stopped with status ") + to_string(result.status) +
                    (result.message.empty() ? "" : ": " + result.message));
        ModelFile built = model_file(result, options);
        file.kind = built.kind;
        file.model = std::move(built.model);
        file.method = std::move(built.method);

        const double objective = result.trace.empty() ? 0.0 : result.trace.back().objective;
        if (common.json) {
            Json j;
            j["model"] = model_path;
            j["method"] = "l0-svm";
            j["p"] = options.p;
            j["variant"] = to_string(options.variant);
            j["kernel"] = to_string(options.kernel.type);
            j["gamma"] = options.kernel.gamma;
            j["C_xi"] = options.C_xi;
            j["C_alpha"] = options.C_alpha;
            j["epsilon"] = options.epsilon;
            j["n_samples"] = data.n_samples();
            j["n_features"] = data.n_features();
            j.update(to_json(result));
            j["train_seconds"] = result.seconds;
            j["backend"] = backend.description();
            save(file, j.dump() + "\n");
            return;
        }
        std::ostringstream s;
        s << "trained an " << name << " SVM (" << to_string(options.kernel.type) << " kernel, "
          << to_string(options.variant) << " K_(t)) on " << data_path << " (" << data.n_samples()
          << " samples x " << data.n_features() << " features)\n"
          << "  expansion terms  " << result.model.n_terms() << " (distinct points; "
          << result.n_support_points << " training points with alpha != 0)\n"
          << "  objective        " << fmt(objective) << "\n"
          << "  outer steps      " << result.iterations << " (" << to_string(result.status)
          << ")\n"
          << "  bias             " << fmt(result.model.bias) << "\n"
          << "  training time    " << fmt(result.seconds) << " s\n"
          << "  model            " << model_path << "\n";
        save(file, s.str());
    }

    // Writes the model and the result together (see Command::finish).
    void save(const ModelFile& file, const std::string& result) {
        std::ostringstream model_text;
        write_model(model_text, file);
        finish(result, model_file_.get(), model_text.str());
        progress(common, "model written to " + model_path);
    }

    std::unique_ptr<StagedFile> model_file_;
    std::string data_path;
    std::string model_path;
    std::string method = "svm";
    double width = 0.0;
    CLI::Option* width_option_ = nullptr;
    SvmCliOptions svm;
    SparseCliOptions sparse;
    PreprocessOptions preprocess;
};

}  // namespace

std::unique_ptr<Command> make_train_command(CLI::App& parent) {
    return std::make_unique<TrainCommand>(parent);
}

}  // namespace zeronorm::cli
