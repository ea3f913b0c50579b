// zeronorm predict DATA --model FILE: applies a saved model (and its preprocessing) to data and
// reports the error rate against the data's labels (a CSV may also come without a label
// column). Every kind of model file (two-class kernel expansions, one-vs-rest and
// Weston-Watkins machines, linear rules, polynomials; on all columns or a column subset)
// predicts through ModelFile's preprocess and decision function.
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>

#include "cli.hpp"
#include "zeronorm/io/json.hpp"
#include "zeronorm/io/model_io.hpp"

namespace zeronorm::cli {
namespace {

// Label text as the readers write it into Dataset::label_mapping.
std::string label_text(double v) {
    return std::to_string(static_cast<long long>(v));
}

// The labels of `data` in the model's +-1 coding, or nothing when they cannot be expressed in
// it (labels the model never saw). The reader remaps a two-valued file by itself and leaves a
// one-valued file as written, so the original text of each label is recovered first.
std::optional<Vector> labels_in_model_coding(const Dataset& data, const ModelFile& file) {
    std::map<double, std::string> original;  // value in data.y -> label as written in the file
    for (const auto& [text, value] : data.label_mapping) original[value] = text;
    Vector y(data.n_samples());
    for (Index i = 0; i < y.size(); ++i) {
        const double v = data.y[i];
        const auto it = original.find(v);
        const std::string text = it != original.end() ? it->second : label_text(v);
        if (file.label_mapping.empty() && file.n_classes() == 2) {
            if (text != "1" && text != "-1") return std::nullopt;
            y[i] = text == "1" ? 1.0 : -1.0;
        } else if (file.label_mapping.empty()) {  // classes written as 0..K-1
            long long k = -1;
            const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), k);
            if (ec != std::errc() || ptr != text.data() + text.size() || k < 0 ||
                k >= file.n_classes())
                return std::nullopt;
            y[i] = double(k);
        } else {
            const auto m = file.label_mapping.find(text);
            if (m == file.label_mapping.end()) return std::nullopt;
            y[i] = m->second;
        }
    }
    return y;
}

// The first few names, for messages.
std::string names_shown(const std::vector<std::string>& names) {
    std::string shown;
    for (std::size_t j = 0; j < names.size() && j < 5; ++j) shown += (j ? ", " : "") + names[j];
    if (names.size() > 5) shown += ", ...";
    return shown;
}

// A label as a JSON number when it is one, else as a string.
Json label_json(const std::string& text) {
    long long v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc() && ptr == text.data() + text.size()) return v;
    return text;
}

// Expansion points in the model (summed over one-vs-rest machines); null for linear rules.
Json support_count(const ModelFile& file) {
    switch (file.kind) {
    case ModelKind::OneVsRest: {
        Index n = 0;
        for (const auto& m : file.machines) n += m.n_support();
        return n;
    }
    case ModelKind::WestonWatkins: return file.ww.points.rows();
    case ModelKind::Linear:
    case ModelKind::Polynomial: return nullptr;
    default: return file.model.n_support();
    }
}

class PredictCommand : public Command {
public:
    explicit PredictCommand(CLI::App& parent) {
        app = parent.add_subcommand("predict", "Predict with a saved model; report the error rate");
        app->add_option("data", data_path,
                        "Data to predict (.csv / .tsv: the model's feature columns, with or "
                        "without a label column; else LIBSVM format)")
            ->required();
        app->add_option("-m,--model", model_path, "Model written by 'zeronorm train'")->required();
        common.add_to(*app);
    }

    void run() override {
        stage_output();
        auto backend = open_backend(common);
        const ModelFile file = load_model_file(model_path);
        const Index n_features = file.n_raw_features();
        Dataset data = load_data(data_path, 1, common, file.log10, n_features);
        if (data.n_features() != n_features)
            throw DimensionMismatch(data_path + " has " + std::to_string(data.n_features()) +
                                    " features but the model was trained on " +
                                    std::to_string(n_features));
        if (!file.feature_names.empty() && !data.feature_names.empty() &&
            file.feature_names != data.feature_names) {
            // Without labels the columns are taken for the model's features only by their
            // count: a header naming others is more likely a labelled file short of a column.
            if (data.y.size() == 0)
                throw DataError(data_path + " has as many columns as the model has features (" +
                                std::to_string(n_features) +
                                "), as data without labels would, but its header names other "
                                "columns (" + names_shown(data.feature_names) +
                                ") than the model's features (" +
                                names_shown(file.feature_names) + ")");
            warning("the column names of " + data_path +
                    " differ from those the model was trained on");
        }
        Matrix input;
        try {
            input = file.preprocess(data.X);
        } catch (const InvalidArgument& e) {  // log10 of a non-positive value
            throw DataError(data_path + ": " + e.what());
        }
        if (file.kernel() && file.kernel()->type == KernelType::Chi2)
            check_chi2_domain(input, data_path);
        if (!backend)  // --backend auto: one kernel pass, taking the model as large as the rows
            backend = choose_backend(
                common, estimated_cpu_seconds(1, double(input.rows()), double(input.cols()), 1, false),
                "predicting " + std::to_string(input.rows()) + " rows");
        const Vector predicted =
            file.labels_from_outputs(file.decision_function(*backend, input));

        // Predictions in the labels of the training file.
        std::map<double, std::string> to_original;
        for (const auto& [text, value] : file.label_mapping) to_original[value] = text;
        std::vector<std::string> labels;
        labels.reserve(static_cast<std::size_t>(predicted.size()));
        for (Index i = 0; i < predicted.size(); ++i) {
            const auto it = to_original.find(predicted[i]);
            labels.push_back(it != to_original.end() ? it->second : label_text(predicted[i]));
        }

        // Data without labels (a CSV of the model's feature columns alone) has no error rate.
        const bool labelled = data.y.size() > 0;
        const std::optional<Vector> y =
            labelled ? labels_in_model_coding(data, file) : std::nullopt;
        std::optional<double> error;
        Index n_errors = 0;
        if (y) {
            error = error_rate(predicted, *y);
            for (Index i = 0; i < y->size(); ++i) n_errors += predicted[i] != (*y)[i];
        } else if (labelled) {
            warning("the labels of " + data_path +
                    " are not labels the model was trained on; no error rate");
        }

        if (common.json) {
            Json j;
            Json p = Json::array();
            for (const auto& l : labels) p.push_back(label_json(l));
            j["predictions"] = std::move(p);
            j["error_rate"] = error ? Json(*error) : Json();
            j["n_errors"] = error ? Json(n_errors) : Json();
            j["n_samples"] = data.n_samples();
            j["method"] = file.method.empty() ? std::string("svm") : file.method.name;
            j["kind"] = to_string(file.kind);
            j["n_support"] = support_count(file);
            finish(j.dump() + "\n");
            return;
        }
        std::string out;
        for (const auto& l : labels) out += l + '\n';
        finish(out);
        if (error) {
            const std::string summary = "error rate " + fmt(*error) + " (" +
                                        std::to_string(n_errors) + " of " +
                                        std::to_string(data.n_samples()) + ")";
            if (common.output.empty())
                progress(common, summary);
            else if (!(std::cout << summary << std::endl))
                throw OutputError("cannot write to standard output");
        }
    }

private:
    std::string data_path;
    std::string model_path;
};

}  // namespace

std::unique_ptr<Command> make_predict_command(CLI::App& parent) {
    return std::make_unique<PredictCommand>(parent);
}

}  // namespace zeronorm::cli
