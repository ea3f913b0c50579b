// zeronorm train DATA --model FILE: fits a registered two-class classifier and saves it with its
// preprocessing.
//
// --method svm (default): the L2-norm (dual) SVM of train_svm.
// --method l0-svm: the sparse L0/Lp-norm SVM of train_sparse_svm (Huang et al. 2008, §3.4). Its
// model f(x) = sum_i alpha_i k(x, x_i) + b is saved as a sparse expansion with a "method l0-svm
// ..." line, so `zeronorm predict` uses it unchanged and evaluates only the sparse terms.
// Each classifier's own flags come from its registered parameters (MethodFlags).
#include <cmath>
#include <sstream>

#include "cli.hpp"
#include "zeronorm/io/json.hpp"
#include "zeronorm/io/model_io.hpp"
#include "zeronorm/methods/methods.hpp"

namespace zeronorm::cli {
namespace {

class TrainCommand : public Command {
public:
    explicit TrainCommand(CLI::App& parent) {
        app = parent.add_subcommand("train", "Train a two-class SVM and save the model");
        app->add_option("data", data_path,
                        "Training data (.csv, .tsv or .tab, else LIBSVM format)")
            ->required();
        app->add_option("-m,--model", model_path, "Where to write the model")->required();
        std::string method_help = "Method:";
        std::vector<const MethodInfo*> infos;
        for (const auto& c : classifiers()) {
            method_help += "\n  " + c->info().name + ": " + c->info().description + " (" +
                           c->info().citation + ")";
            infos.push_back(&c->info());
        }
        app->add_option("--method", method, method_help)
            ->check(CLI::IsMember(classifier_names()))
            ->capture_default_str();
        svm.add_to(*app);
        width_option_ =
            app->add_option("--width", width,
                            "Gaussian width sigma of the rbf kernel exp(-|x-x'|^2 / (2 sigma^2)), "
                            "i.e. gamma = 1 / (2 sigma^2); instead of --gamma")
                ->excludes(app->get_option("--gamma"));
        method_flags.add_to(*app, infos);
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
        const Classifier& classifier = find_classifier(method);
        const Parameters parameters = method_flags.parameters_for(classifier.info());
        if (!classifier.uses_box_and_ridge()) {
            std::string own;
            for (const ParameterInfo& p : classifier.info().parameters)
                own += (own.empty() ? "" : ", ") + p.flag;
            for (const char* flag : {"--C", "--ridge"})
                ZN_EXPECTS(!svm.given(flag), "--method " << method << " does not take " << flag
                                                         << "; its own parameters: " << own);
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
        // The method's own SMO defaults unless the solver flags were given.
        const SmoSettings defaults = classifier.smo_defaults();
        if (!svm.given("--tolerance")) options.smo.tolerance = defaults.tolerance;
        if (!svm.given("--max-iterations")) options.smo.max_iterations = defaults.max_iterations;

        if (!backend) {  // --backend auto: the kernel SVM's SMO, about two kernel passes
            const double n = double(data.n_samples()), d = double(data.n_features());
            backend = choose_backend(common, estimated_cpu_seconds(1, n, d, 2, false),
                                     "training on " + std::to_string(data.n_samples()) + " x " +
                                         std::to_string(data.n_features()));
        }
        progress(common, "training " + method + " (" + to_string(options.kernel.type) +
                             " kernel) on " + backend->description());
        FlagNames names = svm_flag_names;
        for (const auto& name : method_flags.flag_names()) names.push_back(name);
        TrainedClassifier trained;
        validate_flags([&] { trained = classifier.train(*backend, data, options, parameters); },
                       names);
        if (trained.status != Status::Success)
            warning("the solver stopped with status " + std::string(to_string(trained.status)) +
                    (trained.message.empty() ? "" : ": " + trained.message));
        file.kind = trained.model_kind;
        file.model = trained.model;
        if (!trained.model_parameters.empty())
            file.method = ModelMethod{trained.method, trained.model_parameters};
        report(*backend, data, classifier, options, trained, file);
    }

private:
    void report(Backend& backend, const Dataset& data, const Classifier& classifier,
                const SvmOptions& options, const TrainedClassifier& trained,
                const ModelFile& file) {
        const Json& r = trained.report;
        if (common.json) {
            Json j;
            j["model"] = model_path;
            j["method"] = method;
            j["kernel"] = to_string(options.kernel.type);
            j["gamma"] = options.kernel.gamma;
            if (classifier.uses_box_and_ridge()) {
                j["C"] = options.smo.C;
                j["ridge"] = options.smo.ridge;
            }
            j["n_samples"] = data.n_samples();
            j["n_features"] = data.n_features();
            if (!data.label_mapping.empty()) j["labels"] = label_mapping_json(data);
            j.update(r);
            j["train_seconds"] = trained.seconds;
            j["backend"] = backend.description();
            save(file, j.dump() + "\n");
            return;
        }
        std::ostringstream s;
        s << "trained " << method << " (" << classifier.info().description << "; "
          << to_string(options.kernel.type) << " kernel) on " << data_path << " ("
          << data.n_samples() << " samples x " << data.n_features() << " features)\n"
          << (r.contains("n_expansion_terms") ? "  expansion terms  " : "  support vectors  ")
          << r.value("n_support", 0);
        if (r.contains("n_support_points"))
            s << " (distinct points; " << r["n_support_points"].get<long long>()
              << " training points with alpha != 0)";
        s << "\n"
          << "  objective        " << fmt(r.value("objective", 0.0)) << "\n"
          << "  iterations       " << trained.iterations << " (" << to_string(trained.status)
          << ")\n";
        if (r.contains("solver"))
            s << "  solver           " << r["solver"].get<std::string>() << "\n";
        s << "  bias             " << fmt(trained.model.bias) << "\n"
          << "  training time    " << fmt(trained.seconds) << " s\n"
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
    MethodFlags method_flags;
    PreprocessOptions preprocess;
};

}  // namespace

std::unique_ptr<Command> make_train_command(CLI::App& parent) {
    return std::make_unique<TrainCommand>(parent);
}

}  // namespace zeronorm::cli
