// Shared pieces of the `zeronorm` command-line tool: the options every subcommand takes, the
// SVM and preprocessing option groups, data loading, output and progress.
//
// Each subcommand is a Command object that registers its options on its own CLI11 subcommand
// (binding them to its members) and runs after parsing; adding an option to a command touches
// only that command's file.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/dataset.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/preprocess.hpp"
#include "zeronorm/io/file_output.hpp"
#include "zeronorm/io/json.hpp"
#include "zeronorm/methods/methods.hpp"
#include "zeronorm/methods/selection.hpp"
#include "zeronorm/solvers/svm.hpp"

namespace zeronorm::cli {

// The data does not suit the command (one class for training, non-positive values for log10):
// reported like a malformed file, exit code 2.
class DataError : public Error {
public:
    using Error::Error;
};

// Options every subcommand takes.
struct CommonOptions {
    std::string backend = "cpu";
    int device = 0;
    std::uint64_t seed = 0;
    bool quiet = false;
    bool json = false;
    std::string output;  // write the JSON / summary here instead of stdout
    // How CSV data is read: its header line (auto / yes / no), label column, columns left
    // unread and separator.
    std::string header = "auto";
    std::string label_column;
    std::vector<std::string> ignored_columns;
    std::string delimiter;  // one character, or "tab"; empty: ',' (a tab for .tsv / .tab)

    void add_to(CLI::App& app);
};

// Feature preprocessing fitted on training data: log10 first, then standardisation.
struct PreprocessOptions {
    bool standardize = false;
    bool log10 = false;

    void add_to(CLI::App& app);
};

// Library option fields and the flags that set them, e.g. {"smo.C", "--C"}.
using FlagNames = std::vector<std::pair<std::string, std::string>>;

// The flags of registered methods' own parameters (MethodInfo::parameters), declared once each
// from the registry; a method's values reach it as Parameters (text, parsed by the method).
class MethodFlags {
public:
    // Flags in `shared` stay the command's own (declared and checked by it).
    void add_to(CLI::App& app, const std::vector<const MethodInfo*>& methods,
                const std::vector<std::string>& shared = {});
    // The values of the given flags, all of which `method` must take (InvalidArgument naming a
    // flag given for another method).
    Parameters parameters_for(const MethodInfo& method) const;
    std::vector<std::string> given_flags() const;
    // Parameter names with their flags, for validate_flags.
    FlagNames flag_names() const;

private:
    struct Flag {
        ParameterInfo info;
        std::vector<std::string> methods;  // the methods taking it
        std::vector<std::string> names;    // their names for it (ParameterInfo::name)
        std::string text;
        bool on = false;  // Type::Flag
        CLI::Option* option = nullptr;
    };
    std::vector<std::unique_ptr<Flag>> flags_;  // stable addresses: CLI11 binds to them
};

// Kernel and solver options of train and cv.
struct SvmCliOptions {
    std::string kernel = "rbf";
    double gamma = 0.0;  // only used when --gamma was given; else 1 / n_features
    int degree = 3;
    double coef0 = 0.0;
    std::vector<double> theta;  // weighted-rbf: one weight per feature (default all ones)
    double C = 1.0;
    std::vector<double> C_grid;  // cv: several values of -C, chosen per split by inner CV
    double ridge = 0.0;
    double tolerance = 1e-3;
    std::int64_t max_iterations = 0;
    double cache_mb = 200.0;

    // With allow_grid, -C takes comma-separated values (C_grid; C is the first).
    void add_to(CLI::App& app, bool allow_grid = false);
    bool C_given() const { return C_option_ != nullptr && C_option_->count() > 0; }
    bool tolerance_given() const {
        return tolerance_option_ != nullptr && tolerance_option_->count() > 0;
    }
    bool given(const char* flag) const;
    // Checks what can be checked before the data is read (InvalidArgument naming the option).
    // Also sets C to the first value of a grid. Kernel flags the kernel does not use (LIBSVM's
    // -g/-d/-r with a linear kernel) are accepted with a warning, as LIBSVM accepts them.
    void check();
    // The library options for data with n_features columns.
    SvmOptions build(Index n_features) const;

private:
    CLI::App* app_ = nullptr;
    CLI::Option* gamma_option_ = nullptr;
    CLI::Option* C_option_ = nullptr;
    CLI::Option* tolerance_option_ = nullptr;
};

// Feature-selection options of select and cv.
struct SelectionCliOptions {
    std::string method = "l2-arom";
    IndexVector feature_counts;
    double C = std::numeric_limits<double>::infinity();
    double ridge = 0.0;
    std::string multiclass = "ovr";
    std::int64_t max_iterations = 1000;
    // SelectionOptions' defaults: a soft margin that trains on inseparable data.
    double final_C = 100.0;
    double final_ridge = 0.0;
    double tolerance = 1e-3;

    // `methods` lists the accepted --method values; features_required makes --features mandatory;
    // without solver_flags, -C/--ridge/--tolerance/--max-iterations are left to SvmCliOptions.
    void add_to(CLI::App& app, const std::vector<std::string>& methods, bool features_required,
                bool solver_flags = true);
    // Refuses the flags `method` does not use (InvalidArgument naming them); with
    // cap_given, --max-iterations was given (an AROM cap, which RFE and CORR do not have).
    void check(bool cap_given) const;
    // Refuses every selection flag (cv --method svm trains no selection).
    void refuse_all(const std::string& why) const;
    // The library options (feature counts sorted largest first).
    SelectionOptions build() const;
    // options.validate with the flags' names in its messages.
    void validate(const SelectionOptions& options, Index n_features) const;
    FlagNames flag_names() const;  // selection fields and rankers' parameters with their flags
    // The given flags of --method's own parameters, by parameter name.
    Parameters method_parameters() const;
    // The name --method gives the parameter behind `flag` (empty when it has none).
    std::string method_parameter(const std::string& flag) const;

private:
    CLI::App* app_ = nullptr;
    MethodFlags ranker_flags_;  // each ranker's own parameters (--rfe-fraction, --mu, ...)
    void add_method_flags(CLI::App& app, bool solver_flags);
    CLI::Option* tolerance_option_ = nullptr;
};

class Command {
public:
    virtual ~Command() = default;
    virtual void run() = 0;
    CLI::App* app = nullptr;

protected:
    CommonOptions common;
    // Checks --output and creates its temporary now, before any work (an unusable path fails
    // first); `other` (the model) must not name the same file.
    void stage_output(const StagedFile* other = nullptr);
    // The command's result, once everything has succeeded: `staged` (the model) gets
    // `staged_text`, `result` goes to --output or stdout, and only then are the files renamed
    // into place, so a failure anywhere leaves every existing file as it was.
    void finish(const std::string& result, StagedFile* staged = nullptr,
                const std::string& staged_text = {});

private:
    std::unique_ptr<StagedFile> output_file_;
};

std::unique_ptr<Command> make_train_command(CLI::App& parent);
std::unique_ptr<Command> make_predict_command(CLI::App& parent);
std::unique_ptr<Command> make_cv_command(CLI::App& parent);
std::unique_ptr<Command> make_select_command(CLI::App& parent);

// ---- helpers ----------------------------------------------------------------------------

inline bool given(const CLI::Option* option) {
    return option != nullptr && option->count() > 0;
}

extern const FlagNames svm_flag_names;
// Runs `validate`; an InvalidArgument whose message starts with a field of `names` is re-raised
// with the flag in its place ("smo.C must be positive" -> "--C must be positive").
void validate_flags(const std::function<void()>& validate, const FlagNames& names);
// A CLI11 check: the value is a decimal whole number that fits the (unsigned with non_negative)
// 64-bit option (CLI11 itself would clamp 99999999999999999999 silently).
CLI::Validator whole_number(bool non_negative);
// The chi2 kernel takes non-negative features only: a negative entry is a DataError naming `path`.
void check_chi2_domain(const Matrix& X, const std::string& path);

// --backend: cpu or cuda opened here (so a missing device fails before any work); auto gives
// nullptr, and the command calls choose_backend once it knows the work.
std::unique_ptr<Backend> open_backend(const CommonOptions& common);
// --backend auto: CUDA when the work would take the CPU path at least kAutoCudaSeconds (the
// estimate cpu_seconds, from estimated_cpu_seconds) and a device opens, else the CPU; the choice
// and why go to stderr (unless --quiet). `work` names the job in that line.
inline constexpr double kAutoCudaSeconds = 1.0;
std::unique_ptr<Backend> choose_backend(const CommonOptions& common, double cpu_seconds,
                                        const std::string& work);
// The CPU path's time for `problems` dense SVM-sized problems of n points and d features, each
// about `passes` kernel formations (n^2 d multiply-adds) plus the solver on them, spread over
// the host's cores when `parallel` (independent splits). Calibrated on the measured runs in
// bench/RESULTS.md (16-core Xeon: 500 colon splits of the l2-AROM path about 0.4 s, RBF
// training on 12,000 ijcnn1 rows 0.7 s); a guide for --backend auto, not a promise.
double estimated_cpu_seconds(double problems, double n, double d, double passes, bool parallel);
// read_dataset with min_classes; reports what was read unless --quiet. With log10 a non-positive
// value is a data error at its file:line:column; n_features > 0 pads LIBSVM rows up to it.
Dataset load_data(const std::string& path, int min_classes, const CommonOptions& common,
                  bool log10 = false, Index n_features = 0);
// Throws DataError unless the labels are +-1 with both present (two-class commands).
void require_two_classes(const Dataset& data, const std::string& path, const std::string& command);
// Dataset::label_mapping as a JSON object ({"ALL": -1, "AML": 1}).
Json label_mapping_json(const Dataset& data);
// log10 with a non-positive entry reported as DataError (load_data with log10 has already
// rejected those with their position; this guards other callers).
Matrix checked_log10(const Matrix& X, const std::string& path);

// "zeronorm: <message>" on stderr unless --quiet.
void progress(const CommonOptions& common, const std::string& message);
// "zeronorm: warning: <message>" on stderr (even with --quiet).
void warning(const std::string& message);

// Compact number formatting for summaries ("%.6g").
std::string fmt(double v);
// Label of column j: its name, or "x<j+1>" when the data has no names.
std::string column_label(const std::vector<std::string>& names, Index j);

}  // namespace zeronorm::cli
