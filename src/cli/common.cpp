#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <thread>

#include "cli.hpp"
#include "zeronorm/io/io.hpp"
#include "zeronorm/methods/methods.hpp"

namespace zeronorm::cli {

void CommonOptions::add_to(CLI::App& app) {
    app.add_option("--backend", backend,
                   "Compute backend (auto: CUDA where a device is present and the work is large "
                   "enough to pay for its start-up, else the CPU; the choice is reported)")
        ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
        ->capture_default_str();
    app.add_option("--device", device, "CUDA device number")->capture_default_str();
    app.add_option("--seed", seed, "Random seed (fold assignment), 0 .. 2^64 - 1")
        ->check(whole_number(true))
        ->capture_default_str();
    app.add_flag("-q,--quiet", quiet, "No progress messages on stderr");
    app.add_flag("--json", json, "Print one JSON object instead of the human summary");
    app.add_option("-o,--output", output, "Write the result to FILE instead of stdout");
    app.add_option("--header", header,
                   "CSV: whether the first line names the columns (auto: yes, unless every "
                   "field but the label is a number)")
        ->check(CLI::IsMember({"auto", "yes", "no"}))
        ->capture_default_str();
    app.add_option("--label-column", label_column,
                   "CSV: the label column's name in the header (default: the last column read)");
    app.add_option("--ignore-columns", ignored_columns,
                   "CSV: columns not to read (sample names, annotations), by their names in the "
                   "header, comma-separated")
        ->delimiter(',');
    app.add_option("--delimiter", delimiter,
                   "CSV: the field separator, one character or 'tab' (default ',', a tab for "
                   ".tsv and .tab files)")
        ->check([](const std::string& s) {
            return s == "tab" || (s.size() == 1 && s != "\"" && s != " ")
                       ? std::string()
                       : "expected one character other than a quote or a space, or 'tab'";
        });
}

void PreprocessOptions::add_to(CLI::App& app) {
    app.add_flag("--log10", log10, "Take log10 of every feature first (values must be > 0)");
    app.add_flag("--standardize", standardize,
                 "Standardise features to zero mean, unit variance (fitted on training rows)");
}

void SvmCliOptions::add_to(CLI::App& app, bool allow_grid) {
    app_ = &app;
    app.add_option("-k,--kernel", kernel, "Kernel")
        ->check(CLI::IsMember({"linear", "poly", "sum-of-powers", "rbf", "weighted-rbf", "chi2"}))
        ->capture_default_str();
    gamma_option_ = app.add_option("-g,--gamma", gamma,
                                   "Kernel gamma (default 1 / number of features, as LIBSVM)");
    app.add_option("-d,--degree", degree, "Degree of poly / sum-of-powers")->capture_default_str();
    app.add_option("-r,--coef0", coef0, "coef0 of poly")->capture_default_str();
    app.add_option("--theta", theta, "weighted-rbf feature weights, comma-separated (default 1)")
        ->delimiter(',');
    if (allow_grid) {
        C_option_ = app.add_option("-C,--C", C_grid,
                                   "Box constraint C (inf: hard margin, needs --ridge > 0); "
                                   "several comma-separated values: a grid, C chosen per split "
                                   "by an inner --folds-fold cross-validation (default 1)")
                        ->delimiter(',');
    } else {
        C_option_ = app.add_option("-C,--C", C, "Box constraint C (inf: hard margin, needs --ridge > 0)")
                        ->capture_default_str();
    }
    app.add_option("--ridge", ridge, "Added to the kernel diagonal (2-norm slack)")
        ->capture_default_str();
    tolerance_option_ = app.add_option("-t,--tolerance", tolerance,
                                       "SMO stopping tolerance on the KKT gap")
                            ->capture_default_str();
    app.add_option("--max-iterations", max_iterations,
                   "SMO iteration cap (0: automatic); cv with a selection method: the AROM cap")
        ->check(whole_number(false))
        ->capture_default_str();
    app.add_option("--cache-mb", cache_mb, "Kernel cache for large problems (MiB)")
        ->capture_default_str();
}

const FlagNames svm_flag_names = {
    {"smo.C", "--C"},           {"smo.ridge", "--ridge"},
    {"smo.tolerance", "--tolerance"}, {"smo.max_iterations", "--max-iterations"},
    {"smo.cache_mb", "--cache-mb"},   {"kernel.gamma", "--gamma"},
    {"kernel.degree", "--degree"},    {"kernel.coef0", "--coef0"},
    {"kernel.theta", "--theta"}};

bool SvmCliOptions::given(const char* flag) const {
    return app_ != nullptr && cli::given(app_->get_option(flag));
}

void SvmCliOptions::check() {
    if (!C_grid.empty()) C = C_grid.front();
    SmoOptions smo;
    smo.ridge = ridge;
    smo.tolerance = tolerance;
    smo.max_iterations = max_iterations;
    smo.cache_mb = cache_mb;
    for (const double value : C_grid.empty() ? std::vector<double>{C} : C_grid) {
        smo.C = value;
        validate_flags([&] { smo.validate(); }, svm_flag_names);
    }
    const KernelType type = parse_kernel_type(kernel);
    const bool uses_gamma = type != KernelType::Linear && type != KernelType::SumOfPowers;
    const bool uses_degree = type == KernelType::Polynomial || type == KernelType::SumOfPowers;
    const bool uses_coef0 = type == KernelType::Polynomial;
    for (const auto& [flag, used] : {std::pair<const char*, bool>{"--gamma", uses_gamma},
                                     {"--degree", uses_degree},
                                     {"--coef0", uses_coef0}})
        if (given(flag) && !used)
            warning(std::string(flag) + " is not used by the " + kernel + " kernel; ignored");
    // --gamma 0 means the default 1 / n_features, as in LIBSVM.
    if (uses_gamma && given("--gamma"))
        ZN_EXPECTS(std::isfinite(gamma) && gamma >= 0,
                   "--gamma must be positive (0: 1 / number of features), got " << gamma);
    ZN_EXPECTS(theta.empty() || type == KernelType::WeightedRbf,
               "--theta is only used by the weighted-rbf kernel");
}

SvmOptions SvmCliOptions::build(Index n_features) const {
    SvmOptions o;
    o.kernel.type = parse_kernel_type(kernel);
    o.kernel.gamma = cli::given(gamma_option_) && gamma > 0
                         ? gamma
                         : 1.0 / static_cast<double>(std::max<Index>(n_features, 1));
    // Flags the kernel ignores (accepted for LIBSVM command lines) keep their defaults.
    const KernelSpec defaults;
    o.kernel.degree = given("--degree") && (o.kernel.type == KernelType::Polynomial ||
                                            o.kernel.type == KernelType::SumOfPowers)
                          ? degree
                          : defaults.degree;
    o.kernel.coef0 = o.kernel.type == KernelType::Polynomial ? coef0 : defaults.coef0;
    if (o.kernel.type == KernelType::WeightedRbf) {
        if (theta.empty()) {
            o.kernel.theta = Vector::Ones(n_features);
        } else {
            ZN_EXPECTS(Index(theta.size()) == n_features,
                       "--theta has " << theta.size() << " values but the data has " << n_features
                                      << " features");
            o.kernel.theta = Eigen::Map<const Vector>(theta.data(), Index(theta.size()));
        }
    }
    o.smo.C = C;
    o.smo.ridge = ridge;
    o.smo.tolerance = tolerance;
    o.smo.max_iterations = max_iterations;
    o.smo.cache_mb = cache_mb;
    validate_flags([&] { o.validate(n_features); }, svm_flag_names);
    return o;
}

std::unique_ptr<Backend> open_backend(const CommonOptions& common) {
    ZN_EXPECTS(common.device >= 0, "--device must be >= 0, got " << common.device);
    if (common.backend == "auto") return nullptr;
    return make_backend(parse_backend_kind(common.backend), common.device);
}

std::unique_ptr<Backend> choose_backend(const CommonOptions& common, double cpu_seconds,
                                        const std::string& work) {
    const std::string estimate = work + ": about " + fmt(cpu_seconds) + " s on the CPU";
    std::string why = estimate + ", under the CUDA start-up's cost";
    if (cpu_seconds >= kAutoCudaSeconds) {
        try {
            std::unique_ptr<Backend> cuda = make_backend(BackendKind::Cuda, common.device);
            progress(common, "backend auto: cuda (" + estimate + ")");
            return cuda;
        } catch (const Error& e) {
            why = estimate + ", but CUDA does not open: " + e.what();
        }
    }
    progress(common, "backend auto: cpu (" + why + ")");
    return make_cpu_backend();
}

double estimated_cpu_seconds(double problems, double n, double d, double passes, bool parallel) {
    // About 5e9 multiply-adds per second and core in the kernel products (AVX2 / AVX-512 DGEMM
    // at small n), plus the solver, taken as ten more passes over the n^2 kernel.
    const double per_core = 5e9;
    const double cores =
        parallel ? std::max(1u, std::thread::hardware_concurrency()) : 1.0;
    return problems * passes * n * n * (d + 10.0) / (per_core * cores);
}

Dataset load_data(const std::string& path, int min_classes, const CommonOptions& common,
                  bool log10, Index n_features) {
    ReadOptions options;
    options.min_classes = min_classes;
    options.positive_features = log10;  // a non-positive value is reported where it stands
    options.n_features = n_features;
    options.allow_unlabelled = n_features > 0;  // data to predict may come without labels
    options.header = common.header == "yes"  ? CsvHeader::present
                     : common.header == "no" ? CsvHeader::absent
                                             : CsvHeader::detect;
    options.label_column = common.label_column;
    options.ignored_columns = common.ignored_columns;
    if (!common.delimiter.empty())
        options.delimiter = common.delimiter == "tab" ? '\t' : common.delimiter[0];
    const bool csv = is_csv_path(path);
    if (!csv && (common.header != "auto" || !common.label_column.empty() ||
                 !common.ignored_columns.empty() || !common.delimiter.empty()))
        throw InvalidArgument("--header, --label-column, --ignore-columns and --delimiter are for "
                              "CSV data (.csv, .tsv, .tab); " + path + " is read as LIBSVM format");
    if ((!options.label_column.empty() || !options.ignored_columns.empty()) &&
        options.header == CsvHeader::absent)
        throw InvalidArgument("--label-column and --ignore-columns name header columns, but "
                              "--header is 'no'");
    Dataset data = read_dataset(path, options);
    if (data.n_features() == 0)
        throw DataError(path + ": the data has no feature columns (only labels)");
    std::string note;
    if (!data.label_mapping.empty()) {  // what the labels became, e.g. "ALL -> -1, AML -> +1"
        note += " (";
        std::size_t shown = 0;
        for (const auto& [text, value] : data.label_mapping) {
            if (shown++ == 8) {
                note += ", ...";
                break;
            }
            note += (shown > 1 ? ", " : "") + text + " -> " + (value > 0 ? "+" : "") +
                    std::to_string(static_cast<long long>(value));
        }
        note += ")";
    }
    if (csv && data.feature_names.empty() && options.header == CsvHeader::detect)
        note += "; no header line (its first line is numbers: --header yes if it names the columns)";
    progress(common, "read " + path + ": " + std::to_string(data.n_samples()) + " samples x " +
                         std::to_string(data.n_features()) + " features, " +
                         (data.y.size() == 0 ? std::string("no labels")
                                             : std::to_string(data.n_classes()) + " classes") +
                         note);
    return data;
}

Json label_mapping_json(const Dataset& data) {
    Json j = Json::object();
    for (const auto& [text, value] : data.label_mapping) j[text] = value;
    return j;
}

void require_two_classes(const Dataset& data, const std::string& path, const std::string& command) {
    if (data.is_binary()) return;
    throw DataError(path + ": '" + command +
                    "' needs two classes (labels -1/+1 or two distinct "
                    "values), but the data has " +
                    std::to_string(data.n_classes()) + " classes");
}

Matrix checked_log10(const Matrix& X, const std::string& path) {
    try {
        return log10_transform(X);
    } catch (const InvalidArgument& e) {
        throw DataError(path + ": --log10: " + e.what());
    }
}

void progress(const CommonOptions& common, const std::string& message) {
    if (!common.quiet) std::cerr << "zeronorm: " << message << std::endl;
}

void warning(const std::string& message) {
    std::cerr << "zeronorm: warning: " << message << std::endl;
}

void validate_flags(const std::function<void()>& validate, const FlagNames& names) {
    try {
        validate();
    } catch (const InvalidArgument& e) {
        const std::string message = e.what();
        for (const auto& [field, flag] : names) {
            if (message.compare(0, field.size(), field) != 0) continue;
            std::string rest = message.substr(field.size());
            // "feature_counts[1] = 7 is ..." -> "--features 7 is ..."
            if (!rest.empty() && rest[0] == '[' && rest.find("] = ") != std::string::npos)
                rest = " " + rest.substr(rest.find("] = ") + 4);
            if (rest.empty() || rest[0] == ' ') throw InvalidArgument(flag + rest);
        }
        throw;
    }
}

namespace {
template <class T>
bool parses_whole(const std::string& value) {
    T parsed{};
    const char* end = value.data() + value.size();
    const auto [ptr, ec] = std::from_chars(value.data(), end, parsed);
    return ec == std::errc() && ptr == end;
}
}  // namespace

CLI::Validator whole_number(bool non_negative) {
    return CLI::Validator(
        [non_negative](std::string& value) {
            const bool fits = non_negative ? parses_whole<std::uint64_t>(value)
                                           : parses_whole<std::int64_t>(value);
            if (fits) return std::string();
            return "'" + value + "' is not a whole number in " +
                   (non_negative ? "0 .. 2^64 - 1" : "-2^63 .. 2^63 - 1");
        },
        "INTEGER");
}

void check_chi2_domain(const Matrix& X, const std::string& path) {
    for (Index j = 0; j < X.cols(); ++j)
        for (Index i = 0; i < X.rows(); ++i)
            if (X(i, j) < 0)
                throw DataError(path + ": the chi2 kernel needs non-negative features, but sample " +
                                std::to_string(i + 1) + ", feature " + std::to_string(j + 1) +
                                " is " + fmt(X(i, j)) + " (after preprocessing)");
}

void Command::stage_output(const StagedFile* other) {
    if (common.output.empty()) return;
    output_file_ = std::make_unique<StagedFile>(common.output, "--output");
    ZN_EXPECTS(other == nullptr || other->target() != output_file_->target(),
               "--output and --model name the same file '" << output_file_->target() << "'");
}

void Command::finish(const std::string& result, StagedFile* staged, const std::string& staged_text) {
    if (staged != nullptr) staged->write(staged_text);
    if (output_file_) {
        output_file_->write(result);
    } else {
        std::cout << result << std::flush;
        if (!std::cout) throw OutputError("cannot write to standard output");
    }
    if (staged != nullptr) staged->commit();
    if (output_file_) output_file_->commit();
}

std::string fmt(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string column_label(const std::vector<std::string>& names, Index j) {
    if (j >= 0 && static_cast<std::size_t>(j) < names.size())
        return names[static_cast<std::size_t>(j)];
    return "x" + std::to_string(j + 1);
}

}  // namespace zeronorm::cli

namespace zeronorm::cli {

void SelectionCliOptions::add_to(CLI::App& app, const std::vector<std::string>& methods,
                                 bool features_required, bool solver_flags) {
    app_ = &app;
    std::string help = "Method:";
    for (const std::string& name : methods)
        help += "\n  " + name + ": " +
                (name == "svm" ? std::string("the SVM on all features (no selection)")
                               : find_ranker(name).info().description);
    app.add_option("--method", method, help)->check(CLI::IsMember(methods))->capture_default_str();
    auto* features = app.add_option("-f,--features", feature_counts,
                                    "Numbers of features to select, comma-separated (one run "
                                    "serves all)")
                         ->delimiter(',')
                         ->check(whole_number(false));
    if (features_required) features->required();
    app.add_option("--multiclass", multiclass, "Multi-class scheme")
        ->check(CLI::IsMember({"ovr", "ww"}))
        ->capture_default_str();
    app.add_option("--final-C", final_C,
                   "C of the classifier retrained on the selected features (finite: trains on "
                   "inseparable data; inf with --final-ridge 0: the pure hard margin)")
        ->capture_default_str();
    app.add_option("--final-ridge", final_ridge, "Ridge of the retrained classifier")
        ->capture_default_str();
    add_method_flags(app, solver_flags);
    if (!solver_flags) return;
    app.add_option("-C,--C", C, "SVM C inside AROM/RFE (inf: hard margin)")->capture_default_str();
    app.add_option("--ridge", ridge,
                   "Added to the kernel diagonal (needed by a hard margin on inseparable data)")
        ->capture_default_str();
    app.add_option("--max-iterations", max_iterations, "AROM iteration cap")
        ->check(whole_number(false))
        ->capture_default_str();
    tolerance_option_ =
        app.add_option("-t,--tolerance", tolerance, "SMO stopping tolerance of the inner SVMs");
}

void SelectionCliOptions::add_method_flags(CLI::App& app, bool solver_flags) {
    // The rankers' own flags from the registry; the solver flags stay the command's, and so do
    // the kernel flags of a command with SvmCliOptions (cv), which hands them to the method.
    std::vector<const MethodInfo*> infos;
    for (const auto& ranker : feature_rankers()) infos.push_back(&ranker->info());
    std::vector<std::string> shared{"--C", "--ridge", "--tolerance", "--max-iterations"};
    if (!solver_flags) shared.insert(shared.end(), {"--kernel", "--gamma"});
    ranker_flags_.add_to(app, infos, shared);
}

std::string SelectionCliOptions::method_parameter(const std::string& flag) const {
    for (const ParameterInfo& p : find_ranker(method).info().parameters)
        if (p.flag == flag) return p.name;
    return {};
}

namespace {
const FlagNames selection_flag_names = {
    {"feature_counts", "--features"}, {"C", "--C"},
    {"ridge", "--ridge"},             {"max_iterations", "--max-iterations"},
    {"final_C", "--final-C"},         {"final_ridge", "--final-ridge"},
    {"smo.tolerance", "--tolerance"}, {"smo.cache_mb", "--cache-mb"}};
}  // namespace

namespace {
// True when the ranker `method` lists the flag among its parameters.
bool ranker_takes(const std::string& method, const std::string& flag) {
    for (const ParameterInfo& p : find_ranker(method).info().parameters)
        if (p.flag == flag) return true;
    return false;
}
}  // namespace

void SelectionCliOptions::check(bool cap_given) const {
    ZN_EXPECTS(!cap_given || ranker_takes(method, "--max-iterations"),
               "--max-iterations caps the AROM iterations; --method "
                   << method << " has no iteration cap"
                   << (method == "rfe" ? " (--rfe-fraction takes fewer rounds)" : ""));
    ranker_flags_.parameters_for(find_ranker(method).info());  // refuses another method's flags
    if (given(app_->get_option("--final-ridge")))
        ZN_EXPECTS(std::isfinite(final_ridge) && final_ridge >= 0,
                   "--final-ridge must be finite and >= 0, got " << final_ridge);
}

void SelectionCliOptions::refuse_all(const std::string& why) const {
    for (const char* flag : {"--features", "--multiclass", "--final-C", "--final-ridge"})
        ZN_EXPECTS(!given(app_->get_option(flag)), flag << " " << why);
    for (const std::string& flag : ranker_flags_.given_flags())
        throw InvalidArgument(flag + " " + why);
}

void SelectionCliOptions::validate(const SelectionOptions& options, Index n_features) const {
    const bool own_count = find_ranker(options.method).chooses_own_count();
    validate_flags([&] { options.validate(n_features, own_count); }, flag_names());
}

FlagNames SelectionCliOptions::flag_names() const {
    FlagNames names = selection_flag_names;
    for (const auto& name : ranker_flags_.flag_names()) names.push_back(name);
    return names;
}

Parameters SelectionCliOptions::method_parameters() const {
    return ranker_flags_.parameters_for(find_ranker(method).info());
}

SelectionOptions SelectionCliOptions::build() const {
    SelectionOptions options;
    options.method = method;
    options.multiclass = parse_multiclass_scheme(multiclass);
    options.feature_counts = feature_counts;
    std::sort(options.feature_counts.begin(), options.feature_counts.end(), std::greater<Index>());
    options.C = C;
    options.ridge = ridge;
    options.final_C = final_C;
    options.final_ridge = final_ridge;
    options.max_iterations = max_iterations;
    if (tolerance_option_ != nullptr && tolerance_option_->count() > 0)
        options.smo.tolerance = tolerance;
    const Parameters parameters = method_parameters();
    validate_flags(
        [&] {
            for (const auto& [name, text] : parameters) options.set_parameter(name, text);
        },
        flag_names());
    return options;
}

void MethodFlags::add_to(CLI::App& app, const std::vector<const MethodInfo*>& methods,
                         const std::vector<std::string>& shared) {
    for (const MethodInfo* method : methods)
        for (const ParameterInfo& p : method->parameters) {
            if (std::find(shared.begin(), shared.end(), p.flag) != shared.end()) continue;
            auto same = std::find_if(flags_.begin(), flags_.end(),
                                     [&](const auto& f) { return f->info.flag == p.flag; });
            Flag* flag = same != flags_.end() ? same->get() : nullptr;
            if (flag == nullptr) {
                flags_.push_back(std::make_unique<Flag>());
                flag = flags_.back().get();
                flag->info = p;
                if (p.type == ParameterInfo::Type::Flag) {
                    flag->option = app.add_flag(p.flag, flag->on);
                } else {
                    flag->option = app.add_option(p.flag, flag->text);
                    flag->option->type_name(p.type == ParameterInfo::Type::Integer ? "INT"
                                            : p.type == ParameterInfo::Type::Real  ? "FLOAT"
                                                                                   : "TEXT");
                    if (p.type == ParameterInfo::Type::Choice)
                        flag->option->check(CLI::IsMember(p.choices));
                }
            }
            flag->methods.push_back(method->name);
            flag->names.push_back(p.name);
            std::string takers;  // "fsv, l2-l0-svm: "
            for (const std::string& m : flag->methods) takers += (takers.empty() ? "" : ", ") + m;
            flag->option->description(takers + ": " + p.help + " (default " + p.default_value +
                                      (p.valid.empty() ? "" : "; " + p.valid) + ")");
        }
}

Parameters MethodFlags::parameters_for(const MethodInfo& method) const {
    Parameters out;
    for (const auto& flag : flags_) {
        if (!given(flag->option)) continue;
        const auto at = std::find(flag->methods.begin(), flag->methods.end(), method.name);
        if (at == flag->methods.end()) {
            std::string owners;  // "a or b"
            for (const std::string& m : flag->methods) owners += (owners.empty() ? "" : " or ") + m;
            throw InvalidArgument(flag->info.flag + " is for --method " + owners + ", not " +
                                  method.name);
        }
        // Methods may share a flag under different parameter names (--lambda): this method's.
        const std::string& name = flag->names[std::size_t(at - flag->methods.begin())];
        out[name] = flag->info.type == ParameterInfo::Type::Flag ? (flag->on ? "true" : "false")
                                                                 : flag->text;
    }
    return out;
}

std::vector<std::string> MethodFlags::given_flags() const {
    std::vector<std::string> out;
    for (const auto& flag : flags_)
        if (given(flag->option)) out.push_back(flag->info.flag);
    return out;
}

FlagNames MethodFlags::flag_names() const {
    FlagNames names;
    for (const auto& flag : flags_)
        for (const std::string& name : flag->names) names.emplace_back(name, flag->info.flag);
    return names;
}

}  // namespace zeronorm::cli
