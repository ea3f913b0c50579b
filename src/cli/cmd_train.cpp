// zeronorm train DATA --model FILE: fits a two-class SVM and saves it with its preprocessing.
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli.hpp"
#include "zeronorm/model_io.hpp"

namespace zeronorm::cli {
namespace {

class TrainCommand : public Command {
public:
    explicit TrainCommand(CLI::App& parent) {
        app = parent.add_subcommand("train", "Train a two-class SVM and save the model");
        app->add_option("data", data_path, "Training data (.csv, else LIBSVM format)")->required();
        app->add_option("-m,--model", model_path, "Where to write the model")->required();
        svm.add_to(*app);
        preprocess.add_to(*app);
        common.add_to(*app);
    }

    void run() override {
        svm.check();
        auto backend = open_backend(common);
        Dataset data = load_data(data_path, 2, common);
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
        const SvmOptions options = svm.build(data.n_features());
        progress(common, "training " + to_string(options.kernel.type) + " SVM on " +
                             backend->description());
        const SvmTrainResult result = train_svm(*backend, data, options);
        if (result.smo.status != Status::Success)
            warning(std::string("the solver stopped with status ") + to_string(result.smo.status));
        file.model = result.model;
        save_model(file, model_path);
        progress(common, "model written to " + model_path);

        const bool converged = result.smo.status == Status::Success;
        if (common.json) {
            nlohmann::ordered_json j;
            j["model"] = model_path;
            j["kernel"] = to_string(options.kernel.type);
            j["gamma"] = options.kernel.gamma;
            j["C"] = options.smo.C;
            j["ridge"] = options.smo.ridge;
            j["n_samples"] = data.n_samples();
            j["n_features"] = data.n_features();
            j["n_support"] = result.model.n_support();
            j["objective"] = result.smo.objective;
            j["kkt_gap"] = result.smo.kkt_gap;
            j["iterations"] = result.smo.iterations;
            j["converged"] = converged;
            j["status"] = to_string(result.smo.status);
            j["bias"] = result.model.bias;
            j["train_seconds"] = result.train_seconds;
            j["backend"] = backend->description();
            emit(common, j.dump() + "\n");
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
          << "  training time    " << fmt(result.train_seconds) << " s\n"
          << "  model            " << model_path << "\n";
        emit(common, s.str());
    }

private:
    std::string data_path;
    std::string model_path;
    SvmCliOptions svm;
    PreprocessOptions preprocess;
};

}  // namespace

std::unique_ptr<Command> make_train_command(CLI::App& parent) {
    return std::make_unique<TrainCommand>(parent);
}

}  // namespace zeronorm::cli
