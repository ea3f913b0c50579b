#include <algorithm>
#include <functional>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <system_error>

#include "cli.hpp"
#include "zeronorm/io.hpp"

namespace zeronorm::cli {

void CommonOptions::add_to(CLI::App& app) {
    app.add_option("--backend", backend, "Compute backend")
        ->check(CLI::IsMember({"cpu", "cuda"}))
        ->capture_default_str();
    app.add_option("--device", device, "CUDA device number")->capture_default_str();
    app.add_option("--seed", seed, "Random seed (fold assignment)")
        ->check(CLI::Validator(
            [](std::string& value) {
                return value.empty() || value[0] != '-' ? std::string()
                                                        : std::string("must be >= 0");
            },
            ""))
        ->capture_default_str();
    app.add_flag("-q,--quiet", quiet, "No progress messages on stderr");
    app.add_flag("--json", json, "Print one JSON object instead of the human summary");
    app.add_option("-o,--output", output, "Write the result to FILE instead of stdout");
}

void PreprocessOptions::add_to(CLI::App& app) {
    app.add_flag("--log10", log10, "Take log10 of every feature first (values must be > 0)");
    app.add_flag("--standardize", standardize,
                 "Standardise features to zero mean, unit variance (fitted on training rows)");
}

void SvmCliOptions::add_to(CLI::App& app, bool allow_grid) {
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
    app.add_option("--max-iterations", max_iterations, "SMO iteration cap (0: automatic)")
        ->capture_default_str();
    app.add_option("--cache-mb", cache_mb, "Kernel cache for large problems (MiB)")
        ->capture_default_str();
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
        smo.validate();
    }
    if (gamma_option_ && gamma_option_->count() > 0)
        ZN_EXPECTS(std::isfinite(gamma) && gamma > 0, "--gamma must be positive, got " << gamma);
}

SvmOptions SvmCliOptions::build(Index n_features) const {
    SvmOptions o;
    o.kernel.type = parse_kernel_type(kernel);
    o.kernel.gamma = (gamma_option_ && gamma_option_->count() > 0)
                         ? gamma
                         : 1.0 / static_cast<double>(std::max<Index>(n_features, 1));
    o.kernel.degree = degree;
    o.kernel.coef0 = coef0;
    if (o.kernel.type == KernelType::WeightedRbf) {
        if (theta.empty()) {
            o.kernel.theta = Vector::Ones(n_features);
        } else {
            ZN_EXPECTS(Index(theta.size()) == n_features,
                       "--theta has " << theta.size() << " values but the data has " << n_features
                                      << " features");
            o.kernel.theta = Eigen::Map<const Vector>(theta.data(), Index(theta.size()));
        }
    } else {
        ZN_EXPECTS(theta.empty(), "--theta is only used by the weighted-rbf kernel");
    }
    o.smo.C = C;
    o.smo.ridge = ridge;
    o.smo.tolerance = tolerance;
    o.smo.max_iterations = max_iterations;
    o.smo.cache_mb = cache_mb;
    o.validate(n_features);
    return o;
}

std::unique_ptr<Backend> open_backend(const CommonOptions& common) {
    const BackendKind kind = parse_backend_kind(common.backend);
    ZN_EXPECTS(common.device >= 0, "--device must be >= 0, got " << common.device);
    return make_backend(kind, common.device);
}

Dataset load_data(const std::string& path, int min_classes, const CommonOptions& common) {
    ReadOptions options;
    options.min_classes = min_classes;
    Dataset data = read_dataset(path, options);
    progress(common, "read " + path + ": " + std::to_string(data.n_samples()) + " samples x " +
                         std::to_string(data.n_features()) + " features, " +
                         std::to_string(data.n_classes()) + " classes");
    return data;
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

void emit(const CommonOptions& common, const std::string& text) {
    if (common.output.empty()) {
        std::cout << text << std::flush;
        if (!std::cout) throw Error("cannot write to standard output");
        return;
    }
    std::ofstream out(common.output, std::ios::binary | std::ios::trunc);
    if (!out) {
        const int err = errno;
        throw InvalidArgument("cannot open '" + common.output +
                              "' for writing: " + std::generic_category().message(err));
    }
    out << text;
    out.close();
    if (!out) throw Error("cannot write '" + common.output + "'");
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
    app.add_option("--method", method, "Method")->check(CLI::IsMember(methods))->capture_default_str();
    auto* features = app.add_option("-f,--features", feature_counts,
                                    "Numbers of features to select, comma-separated (one run "
                                    "serves all)")
                         ->delimiter(',');
    if (features_required) features->required();
    app.add_option("--multiclass", multiclass, "Multi-class scheme")
        ->check(CLI::IsMember({"ovr", "ww"}))
        ->capture_default_str();
    app.add_option("--rfe-fraction", rfe_fraction,
                   "RFE: fraction of features removed per round (0: one per round)")
        ->capture_default_str();
    app.add_option("--final-C", final_C,
                   "C of the classifier retrained on the selected features (finite: trains on "
                   "inseparable data; inf with --final-ridge 0: the pure hard margin)")
        ->capture_default_str();
    app.add_option("--final-ridge", final_ridge, "Ridge of the retrained classifier")
        ->capture_default_str();
    if (!solver_flags) return;
    app.add_option("-C,--C", C, "SVM C inside AROM/RFE (inf: hard margin)")->capture_default_str();
    app.add_option("--ridge", ridge,
                   "Added to the kernel diagonal (needed by a hard margin on inseparable data)")
        ->capture_default_str();
    app.add_option("--max-iterations", max_iterations, "AROM / RFE iteration cap")
        ->capture_default_str();
    tolerance_option_ =
        app.add_option("-t,--tolerance", tolerance, "SMO stopping tolerance of the inner SVMs");
}

SelectionOptions SelectionCliOptions::build() const {
    SelectionOptions options;
    options.method = parse_selection_method(method);
    options.multiclass = parse_multiclass_scheme(multiclass);
    options.feature_counts = feature_counts;
    std::sort(options.feature_counts.begin(), options.feature_counts.end(), std::greater<Index>());
    options.C = C;
    options.ridge = ridge;
    options.final_C = final_C;
    options.final_ridge = final_ridge;
    options.rfe_fraction = rfe_fraction;
    options.max_iterations = max_iterations;
    if (tolerance_option_ != nullptr && tolerance_option_->count() > 0)
        options.smo.tolerance = tolerance;
    return options;
}

}  // namespace zeronorm::cli
