// zeronorm select DATA --method M --features R[,R2,...]: linear feature selection (AROM, RFE,
// CORR, FSV, l2-l1/l2-l0-SVM, RLP) for one or more feature counts in one run (fsv, l2-l1-svm,
// l2-l0-svm and rlp without --features: their own support); --model saves the final classifier of the
// largest count with its columns, for 'zeronorm predict' on the full data.
#include <algorithm>
#include <optional>
#include <sstream>

#include "cli.hpp"
#include "zeronorm/io/json.hpp"
#include "zeronorm/io/file_output.hpp"
#include "zeronorm/io/model_builders.hpp"
#include "zeronorm/methods/methods.hpp"
#include "zeronorm/methods/selection.hpp"

namespace zeronorm::cli {
namespace {

class SelectCommand : public Command {
public:
    explicit SelectCommand(CLI::App& parent) {
        app = parent.add_subcommand(
            "select", "Select features (l2-AROM, l1-AROM, RFE, CORR, FSV, l2-l1/l2-l0-SVM, RLP)");
        app->add_option("data", data_path, "Data (.csv, .tsv or .tab, else LIBSVM format)")
            ->required();
        // Required, except by the methods that find their own count (then: their support).
        selection.add_to(*app, ranker_names(), false);
        app->add_option("-m,--model", model_path,
                        "Also write the final classifier of the largest feature count as a "
                        "model for 'zeronorm predict'");
        preprocess.add_to(*app);
        common.add_to(*app);
    }

    void run() override {
        selection.check(given(app->get_option("--max-iterations")));
        SelectionOptions options = selection.build();
        ZN_EXPECTS(!options.feature_counts.empty() ||
                       find_ranker(options.method).chooses_own_count(),
                   "--features is required for --method " << options.method
                       << " (only methods that find their own support may leave it out)");
        // Both outputs are checked before any work and replaced only when everything succeeded.
        if (!model_path.empty()) model_file_ = std::make_unique<StagedFile>(model_path, "--model");
        stage_output(model_file_.get());

        auto backend = open_backend(common);
        Dataset data = load_data(data_path, 2, common, preprocess.log10);
        if (preprocess.log10) data.X = checked_log10(data.X, data_path);
        std::optional<Standardizer> standardizer;
        if (preprocess.standardize) {
            standardizer = Standardizer::fit(data.X);
            data.X = standardizer->transform(data.X);
        }
        selection.validate(options, data.n_features());

        if (!backend) {  // --backend auto: about 15 SVM fits (AROM iterations, RFE rounds)
            const double n = double(data.n_samples()), d = double(data.n_features());
            backend = choose_backend(common, estimated_cpu_seconds(1, n, d, 15, false),
                                     "one selection on " + std::to_string(data.n_samples()) +
                                         " x " + std::to_string(data.n_features()));
        }
        progress(common,
                 "selecting with " + options.method + " on " + backend->description());
        const SelectionResult result = select_features(*backend, data, options);
        if (result.status != Status::Success)
            warning(std::string("selection stopped with status ") + to_string(result.status) +
                    (result.message.empty() ? "" : ": " + result.message));
        for (const FeatureSubset& subset : result.subsets)
            if (subset.classifier_status != Status::Success)
                warning("the selection of " + std::to_string(subset.n_features) +
                        " features stands, its final classifier " +
                        (subset.classifier_status == Status::NumericalIssue ? "failed"
                                                                           : "did not converge") +
                        ": " + subset.classifier_message);
        // Without a final classifier there is no rule to save: the selection is still reported,
        // then the command fails and leaves the model file as it was.
        const FeatureSubset* unmodelled = nullptr;
        if (model_file_) {
            const FeatureSubset& largest = largest_subset(result);
            if (largest.classifiers.empty()) {
                unmodelled = &largest;
                model_file_.reset();
            } else {
                std::ostringstream text;
                write_model(text, final_model(data, largest, options, standardizer));
                model_text_ = text.str();
            }
        }
        report(data, result);
        if (unmodelled != nullptr)
            throw NumericalError("--model: no model written, the selection stands: " +
                                 unmodelled->classifier_message);
        if (model_file_) progress(common, "model written to " + model_path);
    }

private:
    // The subset --model saves: the largest feature count.
    static const FeatureSubset& largest_subset(const SelectionResult& result) {
        const auto largest = std::max_element(
            result.subsets.begin(), result.subsets.end(),
            [](const FeatureSubset& a, const FeatureSubset& b) {
                return a.n_features < b.n_features;
            });
        ZN_EXPECTS(largest != result.subsets.end(), "--model: the selection kept no subset");
        return *largest;
    }

    // The linear rule(s) retrained on the largest subset, on its original columns.
    ModelFile final_model(const Dataset& data, const FeatureSubset& largest,
                          const SelectionOptions& options,
                          const std::optional<Standardizer>& standardizer) const {
        ModelFile file = model_file(largest, data.n_features());
        file.log10 = preprocess.log10;
        file.standardizer = standardizer;
        file.feature_names = data.feature_names;
        file.label_mapping = data.label_mapping;
        file.method.name = selection.method;
        file.method.parameters = {{"features", std::to_string(largest.n_features)},
                                  {"C", model_number(options.C)},
                                  {"ridge", model_number(options.ridge)},
                                  {"final_C", model_number(options.final_C)},
                                  {"final_ridge", model_number(options.final_ridge)}};
        if (!data.is_binary())
            file.method.parameters.emplace_back("multiclass", to_string(options.multiclass));
        return file;
    }

    void report(const Dataset& data, const SelectionResult& result) {
        if (common.json) {
            Json j;
            j["method"] = selection.method;
            j["n_samples"] = data.n_samples();
            j["n_features"] = data.n_features();
            j.update(to_json(result, data.feature_names));
            if (!data.label_mapping.empty()) j["labels"] = label_mapping_json(data);
            finish(j.dump() + "\n", model_file_.get(), model_text_);
            return;
        }
        std::ostringstream s;
        s << selection.method << " feature selection on " << data_path << " (" << data.n_samples()
          << " samples x " << data.n_features() << " features)\n"
          << "  iterations       " << result.iterations << " (" << to_string(result.status) << ")\n"
          << "  time             " << fmt(result.seconds) << " s\n";
        for (const auto& subset : result.subsets) {
            s << "  " << subset.n_features << " features (best first, 0-based column: name "
              << "weight):\n";
            if (subset.classifier_status == Status::NumericalIssue)
                s << "    (no final classifier, hence no weights: "
                  << subset.classifier_message << ")\n";
            for (std::size_t k = 0; k < subset.selected.size(); ++k) {
                const Index c = subset.selected[k];
                s << "    " << c << ": " << column_label(data.feature_names, c);
                if (Index(k) < subset.weights.size()) s << "  " << fmt(subset.weights[Index(k)]);
                s << "\n";
            }
        }
        finish(s.str(), model_file_.get(), model_text_);
    }

    std::string data_path;
    std::string model_path;
    std::unique_ptr<StagedFile> model_file_;
    std::string model_text_;
    SelectionCliOptions selection;
    PreprocessOptions preprocess;
};

}  // namespace

std::unique_ptr<Command> make_select_command(CLI::App& parent) {
    return std::make_unique<SelectCommand>(parent);
}

}  // namespace zeronorm::cli
