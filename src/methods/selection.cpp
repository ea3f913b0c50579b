// Feature selection front end: option and label validation, the run of a registered ranker
// (methods.hpp), and the final linear SVM retrained on the original (unscaled) selected
// columns (Weston et al. 2003, sec. 4.1 footnote 7: the rescaling by z is used only to find the
// features).
#include "zeronorm/methods/selection.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <sstream>

#include "core/stopwatch.hpp"
#include "methods/arom/arom.hpp"
#include "methods/linear_svm_without_kernel.hpp"
#include "methods/selection_common.hpp"
#include "solvers/labels.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/methods/methods.hpp"
#include "zeronorm/solvers/ww_svm.hpp"

namespace zeronorm {

MulticlassScheme parse_multiclass_scheme(const std::string& name) {
    if (name == "ovr" || name == "one-vs-rest") return MulticlassScheme::OneVsRest;
    if (name == "ww" || name == "weston-watkins") return MulticlassScheme::WestonWatkins;
    throw InvalidArgument("unknown multi-class scheme '" + name + "' (expected ovr or ww)");
}

std::string to_string(MulticlassScheme scheme) {
    return scheme == MulticlassScheme::OneVsRest ? "ovr" : "ww";
}

namespace {

// Runs a part's validate(), naming the part in its message ("dc.mu must be ...").
template <class Validate>
void validate_part(const char* prefix, Validate validate) {
    try {
        validate();
    } catch (const InvalidArgument& e) {
        throw InvalidArgument(std::string(prefix) + e.what());
    }
}

}  // namespace

double parse_parameter_number(const std::string& name, const std::string& text) {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    ZN_EXPECTS(!text.empty() && *end == '\0', name << " must be a number, got '" << text << "'");
    return value;
}

double* SelectionOptions::real_parameter(const std::string& name) {
    // The fields rankers list as parameters, by ParameterInfo::name.
    const std::pair<const char*, double*> reals[] = {
        {"C", &C},           {"ridge", &ridge},          {"rfe_fraction", &rfe_fraction},
        {"rfe_gamma", &rfe_gamma},
        {"dc.lambda", &dc.lambda}, {"dc.mu", &dc.mu},    {"dc.nu", &dc.nu},
        {"dc.alpha", &dc.alpha},   {"dc.tolerance", &dc.tolerance},
        {"smo.tolerance", &smo.tolerance}, {"fs_svmcp.epsilon", &fs_svmcp.epsilon},
        {"fs_svmcp.p", &fs_svmcp.p},       {"fs_svmcp.alpha", &fs_svmcp.alpha},
        {"fs_svmcp.C", &fs_svmcp.C},       {"fs_svmcp.svm_tolerance", &fs_svmcp.svm_tolerance},
        {"kta.lambda", &kta.lambda}, {"kta.width", &kta.width}, {"kta.rho", &kta.rho},
        {"kta.alpha", &kta.alpha}, {"kta.tolerance", &kta.tolerance},
        {"kta.svm_lambda", &kta.svm_lambda},
        {"r2w2.gamma", &r2w2.gamma}, {"r2w2.step", &r2w2.step},
        {"r2w2.tolerance", &r2w2.tolerance}};
    for (const auto& [field, target] : reals)
        if (name == field) return target;
    return nullptr;
}

void SelectionOptions::set_parameter(const std::string& name, const std::string& text) {
    if (double* field = real_parameter(name)) {
        *field = parse_parameter_number(name, text);
        return;
    }
    if (name == "kta.kernel") {
        ZN_EXPECTS(text == "gaussian" || text == "chi2",
                   name << " must be gaussian or chi2, got '" << text << "'");
        kta.kernel = text == "chi2" ? AlignmentKernel::ChiSquare : AlignmentKernel::Gaussian;
        return;
    }
    if (name == "fs_svmcp.surrogate") {
        ZN_EXPECTS(text == "exp" || text == "log" || text == "power" || text == "inverse-power",
                   name << " must be exp, log, power or inverse-power, got '" << text << "'");
        fs_svmcp.surrogate = parse_concave_surrogate(text);
        return;
    }
    if (name == "fs_svmcp.loss") {
        ZN_EXPECTS(text == "l1" || text == "l2",
                   name << " must be l1 (hinge) or l2 (squared hinge), got '" << text << "'");
        fs_svmcp.loss = text == "l1" ? LinearLoss::Hinge : LinearLoss::SquaredHinge;
        return;
    }
    if (name == "r2w2.kernel" || name == "r2w2.radius") {
        const bool kernel = name == "r2w2.kernel";
        const char* first = kernel ? "linear" : "exact";
        const char* second = kernel ? "rbf" : "variance";
        ZN_EXPECTS(text == first || text == second,
                   name << " must be " << first << " or " << second << ", got '" << text << "'");
        if (kernel) r2w2.kernel = text == first ? R2w2Kernel::Linear : R2w2Kernel::Rbf;
        else r2w2.radius = text == first ? R2w2Radius::Exact : R2w2Radius::Variance;
        return;
    }
    ZN_EXPECTS(name == "max_iterations" || name == "fs_svmcp.folds" || name == "r2w2.iterations",
               "no selection parameter is named '" << name << "'");
    const double value = parse_parameter_number(name, text);
    ZN_EXPECTS(value == std::floor(value) && std::fabs(value) < 9e18,
               name << " must be a whole number, got '" << text << "'");
    if (name == "max_iterations") max_iterations = static_cast<std::int64_t>(value);
    else if (name == "r2w2.iterations") r2w2.iterations = static_cast<std::int64_t>(value);
    else fs_svmcp.folds = int(std::clamp(value, -1e9, 1e9));
}

void SelectionOptions::set_parameter(const std::string& name, double value) {
    if (double* field = real_parameter(name)) {
        *field = value;
        return;
    }
    std::ostringstream text;
    text << value;
    set_parameter(name, text.str());
}

void SelectionOptions::validate(Index n_features, bool counts_optional) const {
    ZN_EXPECTS(n_features >= 1, "feature selection needs at least one feature");
    ZN_EXPECTS(counts_optional || !feature_counts.empty(),
               "feature_counts is empty: give at least one number of features to select");
    for (std::size_t k = 0; k < feature_counts.size(); ++k)
        ZN_EXPECTS(feature_counts[k] >= 1 && feature_counts[k] <= n_features,
                   "feature_counts[" << k << "] = " << feature_counts[k] << " is outside 1.."
                                     << n_features << " (the number of features)");
    IndexVector sorted = feature_counts;
    std::sort(sorted.begin(), sorted.end());
    const auto dup = std::adjacent_find(sorted.begin(), sorted.end());
    ZN_EXPECTS(dup == sorted.end(),
               "feature_counts lists " << (dup == sorted.end() ? 0 : *dup) << " more than once");
    ZN_EXPECTS(C > 0 && !std::isnan(C), "C must be positive (or infinity), got " << C);
    ZN_EXPECTS(std::isfinite(ridge) && ridge >= 0, "ridge must be finite and >= 0, got " << ridge);
    ZN_EXPECTS(prune_tolerance > 0 && prune_tolerance < 1,
               "prune_tolerance must be in (0, 1), got " << prune_tolerance);
    ZN_EXPECTS(std::isfinite(convergence_tolerance) && convergence_tolerance >= 0,
               "convergence_tolerance must be finite and >= 0, got " << convergence_tolerance);
    ZN_EXPECTS(max_iterations >= 1, "max_iterations must be >= 1, got " << max_iterations);
    ZN_EXPECTS(rfe_fraction >= 0 && rfe_fraction < 1,
               "rfe_fraction must be in [0, 1), got " << rfe_fraction);
    ZN_EXPECTS(std::isfinite(rfe_gamma) && rfe_gamma >= 0,
               "rfe_gamma must be finite and >= 0 (0: 1/d), got " << rfe_gamma);
    ZN_EXPECTS(final_C > 0 && !std::isnan(final_C),
               "final_C must be positive (or infinity), got " << final_C);
    ZN_EXPECTS(std::isfinite(final_ridge) && final_ridge >= 0,
               "final_ridge must be finite and >= 0, got " << final_ridge);
    smo.validate();
    validate_part("dc.", [&] { dc.validate(); });
    validate_part("fs_svmcp.", [&] { fs_svmcp.validate(); });
    validate_part("kta.", [&] { kta.validate(); });
    validate_part("r2w2.", [&] { r2w2.validate(); });
    validate_part("final_", [&] { final_smo.validate(); });
}

namespace detail {

Machines make_machines(const Vector& y) {
    Machines m;
    ZN_EXPECTS(y.size() >= 2, "feature selection needs at least two samples, got " << y.size());
    bool plus_minus = true;
    for (Index i = 0; i < y.size(); ++i) plus_minus = plus_minus && (y[i] == 1.0 || y[i] == -1.0);
    if (plus_minus) {
        check_two_class_labels(y, "two-class feature selection");
        m.n_classes = 2;
        m.targets.push_back(y);
        return m;
    }
    double top = 0;
    for (Index i = 0; i < y.size(); ++i) {
        ZN_EXPECTS(y[i] >= 0 && y[i] == std::floor(y[i]) && y[i] < 1e6,
                   "labels must be -1/+1 (two classes) or 0..K-1 (K >= 3 classes); label of "
                   "sample " << i << " is " << y[i]);
        top = std::max(top, y[i]);
    }
    const int K = int(top) + 1;
    ZN_EXPECTS(K >= 3, "labels 0..K-1 are for K >= 3 classes; two classes must be labelled -1/+1 "
                       "(got labels in 0.." << K - 1 << ")");
    std::vector<Index> count(std::size_t(K), 0);
    for (Index i = 0; i < y.size(); ++i) ++count[std::size_t(y[i])];
    for (int k = 0; k < K; ++k)
        ZN_EXPECTS(count[std::size_t(k)] > 0, "class " << k << " of 0.." << K - 1
                                                        << " has no samples");
    m.n_classes = K;
    for (int k = 0; k < K; ++k)
        m.targets.push_back(y.unaryExpr([k](double v) { return v == double(k) ? 1.0 : -1.0; }));
    return m;
}

SmoResult solve_svm_dual(const DualSolver& solve, const SmoSettings& base, double C,
                         double ridge, const Vector* warm_start,
                         const std::function<double()>& radius2, const std::string& where,
                         double at_bound_tolerance) {
    SmoOptions smo(base, C, ridge);
    if (bounded_dual(C, ridge)) return solve(smo, warm_start);
    Vector warm;
    if (warm_start != nullptr) warm = *warm_start;
    // Stage bounds in units of 1 / R^2 when R^2 is far from 1: with one feature near 1e12
    // (K ~ 1e24, hard-margin beta ~ 1e-24) a bound of 1 lets SMO chase dual variables whose
    // gradients (~1e24) can never meet the tolerance, up to its 10^7-step cap (seconds). So
    // scaled, such data get the stages of data with |x| ~ 1; those keep their bounds exactly.
    const double R2 = radius2();
    const double unit =
        R2 > kWellScaledRadius2 || (R2 > 0 && R2 < 1.0 / kWellScaledRadius2) ? 1.0 / R2 : 1.0;
    double bound = std::max(unit, warm.size() > 0 ? 10.0 * warm.maxCoeff() : 0.0);
    for (;; bound *= 100.0) {
        smo.C = std::min(bound, kMaxHardMarginBound * unit);
        SmoResult r = solve(smo, warm.size() > 0 ? &warm : nullptr);
        const bool at_bound =
            r.beta.size() > 0 && r.beta.maxCoeff() >= smo.C * (1.0 - at_bound_tolerance);
        if (!at_bound && r.status == Status::Success) return r;  // the hard-margin optimum
        // Convex-hull certificate: beta'Q beta = 2 (objective + sum beta) without ridge.
        const double sum = r.beta.sum();
        const double w2 = std::max(0.0, 2.0 * (r.objective + sum));
        const double delta = sum > 0 ? 2.0 * std::sqrt(w2) / sum : 0.0;
        const double radius = std::sqrt(std::max(0.0, R2));
        std::ostringstream os;
        os << where << ": data not separable: ";
        if (delta <= kSeparabilityTolerance * radius) {
            os << "the two classes' convex hulls come within " << delta
               << " of each other (largest |x| " << radius << "), so the hard-margin SVM "
               << "(C = inf, ridge = 0) has no solution or a negligible margin";
        } else if (r.status != Status::Success) {
            os << "the dual solver hit its iteration cap (" << r.iterations
               << ") on the hard-margin SVM (C = inf, ridge = 0) with box bound " << smo.C
               << "; the data are probably not linearly separable";
        } else if (smo.C >= kMaxHardMarginBound * unit) {
            os << "the hard-margin SVM (C = inf, ridge = 0) needs dual variables beyond "
               << smo.C << " (convex hulls " << delta << " apart)";
        } else {
            warm = r.beta;
            continue;
        }
        os << "; set a ridge > 0 (--ridge) or a finite C (--C)";
        throw NumericalError(os.str());
    }
}

double max_row_norm2(const Matrix& X, const IndexVector& columns, const Vector& scale) {
    Vector norm2 = Vector::Zero(X.rows());
    for (std::size_t k = 0; k < columns.size(); ++k) {
        const double s = scale.size() > 0 ? scale[Index(k)] : 1.0;
        norm2 += (s * X.col(columns[k])).cwiseAbs2();
    }
    return norm2.size() > 0 ? norm2.maxCoeff() : 0.0;
}

IndexVector order_descending(const Vector& values) {
    return order_descending_first(values, values.size());
}

namespace {

// DescendingOrder as plain integer comparisons on contiguous pairs (no indirect loads or NaN
// tests inside the sort: 1.2-1.6x faster sorts of 2,000-7,000 scales, 4 % off a colon AROM path):
// the key's ascending order is the values' descending one, -0 and +0 the same key, NaN after
// every number; equal keys by index.
struct KeyedIndex {
    std::uint64_t key;
    Index index;
    bool operator<(const KeyedIndex& other) const {
        return key < other.key || (key == other.key && index < other.index);
    }
};

std::uint64_t descending_key(double value) {
    if (std::isnan(value)) return ~std::uint64_t(0);
    if (value == 0.0) value = 0.0;  // -0 == +0
    std::uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    // The IEEE bits in ascending order of the values: negatives flipped, positives' sign set.
    const std::uint64_t ascending = (bits >> 63) != 0 ? ~bits : bits | (std::uint64_t(1) << 63);
    return ~ascending;
}

std::vector<KeyedIndex> keyed(const Vector& values) {
    std::vector<KeyedIndex> out(static_cast<std::size_t>(values.size()));
    for (Index j = 0; j < values.size(); ++j)
        out[std::size_t(j)] = {descending_key(values[j]), j};
    return out;
}

IndexVector indices_of(std::vector<KeyedIndex>::const_iterator begin,
                       std::vector<KeyedIndex>::const_iterator end) {
    IndexVector out;
    out.reserve(std::size_t(end - begin));
    for (auto it = begin; it != end; ++it) out.push_back(it->index);
    return out;
}

}  // namespace

IndexVector order_descending_first(const Vector& values, Index r) {
    std::vector<KeyedIndex> order = keyed(values);
    const auto first = std::min<std::size_t>(order.size(), std::size_t(std::max<Index>(r, 0)));
    const auto end = order.begin() + std::ptrdiff_t(first);
    if (end != order.end()) std::nth_element(order.begin(), end, order.end());
    std::sort(order.begin(), end);
    return indices_of(order.begin(), end);
}

IndexVector order_descending_from(const Vector& values, Index from) {
    std::vector<KeyedIndex> order = keyed(values);
    const auto begin = order.begin() + std::ptrdiff_t(std::clamp<Index>(from, 0, values.size()));
    if (begin != order.begin()) std::nth_element(order.begin(), begin, order.end());
    std::sort(begin, order.end());
    return indices_of(begin, order.end());
}

namespace {

// Weston-Watkins: one M-SVM (final_C, final_ridge) on the selected original columns, stored as
// one linear SvmModel per class (f_m(x) = w_m.x + b_m; the class is argmax_m f_m, as for
// one-vs-rest machines).
FeatureSubset retrain_ww(const Dataset& data, const Machines& machines,
                         const IndexVector& selected, const SelectionOptions& options) {
    FeatureSubset subset;
    const Index r = Index(selected.size());
    subset.n_features = r;
    subset.selected = selected;
    Matrix Xs(data.n_samples(), r);
    for (Index k = 0; k < r; ++k) Xs.col(k) = data.X.col(selected[std::size_t(k)]);
    std::vector<int> labels;
    for (Index i = 0; i < data.n_samples(); ++i) labels.push_back(int(data.y[i]));
    const WwSvmResult ww = solve_ww_svm(Xs * Xs.transpose(), labels, machines.n_classes,
                                        ww_options(options, true));
    std::ostringstream where;
    where << "final classifier on the " << r << " selected features (Weston-Watkins M-SVM)";
    if (ww.not_separable) {
        subset.classifier_status = Status::NumericalIssue;
        subset.classifier_message = ww_not_separable_message(where.str());
        return subset;
    }
    subset.class_weights = Xs.transpose() * ww.coef;
    for (int m = 0; m < machines.n_classes; ++m) {
        SvmModel model;  // linear kernel
        IndexVector rows;
        for (Index i = 0; i < Xs.rows(); ++i)
            if (ww.coef(i, m) != 0.0) rows.push_back(i);
        model.support_vectors.resize(Index(rows.size()), r);
        model.coef.resize(Index(rows.size()));
        for (std::size_t k = 0; k < rows.size(); ++k) {
            model.support_vectors.row(Index(k)) = Xs.row(rows[k]);
            model.coef[Index(k)] = ww.coef(rows[k], m);
        }
        model.bias = ww.bias[m];
        subset.classifiers.push_back(std::move(model));
    }
    subset.weights = subset.class_weights.cwiseAbs().rowwise().sum();
    return subset;
}

// The linear machine f(x) = w.x + b as an SvmModel: one expansion point w with coefficient 1
// (the dual of an interior-point solve is not sparse; the expansion over all samples would
// predict the same at n times the cost).
SvmModel linear_machine(const Vector& w, double b) {
    SvmModel model;  // linear kernel
    model.support_vectors = w.transpose();
    model.coef = Vector::Ones(1);
    model.bias = b;
    return model;
}

// Retrains the final linear SVM(s) on the original columns `selected` (footnote 7).
FeatureSubset retrain(Backend& backend, const Dataset& data, const Machines& machines,
                      const IndexVector& selected, const SelectionOptions& options) {
    FeatureSubset subset;
    const Index r = Index(selected.size());
    subset.n_features = r;
    subset.selected = selected;
    if (r == 0) {  // a method with its own count may keep no feature (FSV with a large lambda)
        subset.classifier_status = Status::NumericalIssue;
        subset.classifier_message = "the method selected no feature (w = 0): no classifier";
        return subset;
    }
    SvmOptions svm;  // linear kernel

    Dataset sub;
    sub.X.resize(data.n_samples(), r);
    for (Index k = 0; k < r; ++k) sub.X.col(k) = data.X.col(selected[std::size_t(k)]);
    IndexVector all_columns(static_cast<std::size_t>(r));
    std::iota(all_columns.begin(), all_columns.end(), Index(0));
    const auto radius2 = [&] { return max_row_norm2(sub.X, all_columns, Vector()); };
    subset.class_weights.resize(r, Index(machines.targets.size()));
    // The final soft-margin SVM is solved in the primal's dimension here: the l2-l1 dual with zero
    // costs is its dual, and where the samples far outnumber the selected features the
    // interior-point method of that dual (Newton steps of n r^2, dc_svm.hpp) beats SMO's O(n)
    // steps, of which a large C asks many. On ijcnn1's first ten CORR features (r = 10), C = 1 /
    // 100: 0.65 / 0.70 s against SMO's 4.7 / 27.5 s at n = 49,990 and 0.14 / 0.48 s against 0.50 /
    // 2.1 s at n = 20,000; at n = 5000 both took 0.03-0.3 s. a9a's 32,561 rows on ten of its binary
    // columns: 0.08 s against 1.9 / 3.2 s. It is taken where the `svm` classifier takes it
    // (trains_without_kernel: n >= max(2000, 10 r), r <= 1024; on Gaussian data SMO's large-C runs
    // end at its step cap). A hard margin (final_C = inf) goes through solve_svm_dual's staged
    // bounds on the same solver; with a ridge (final_ridge > 0) the primal's Newton steps solve it
    // (solve_ridge_svm_primal). (Not fits_without_kernel's n >= 20,000 at any r: train_svm's SMO
    // stores no kernel beyond max_kernel_mb, its columns computed on demand.)
    const bool without_kernel = trains_without_kernel(data.n_samples(), r, SvmOptions{});
    for (std::size_t k = 0; k < machines.targets.size(); ++k) {
        sub.y = machines.targets[k];
        std::ostringstream where;
        where << "final classifier on the " << r << " selected features";
        if (!machines.binary()) where << " (class " << k << " against the rest)";
        SvmModel model;
        const DualSolver solve = [&](const SmoOptions& smo, const Vector* start) {
            if (without_kernel) {
                LinearSvmSolution solved =
                    solve_linear_svm_without_kernel(sub.X, sub.y, smo.C, smo.ridge, start);
                model = linear_machine(solved.w, solved.dual.bias);
                return solved.dual;
            }
            svm.smo = smo;  // train_svm has no warm start; only the final hard margin restarts
            SvmTrainResult trained = train_svm(backend, sub, svm);
            model = std::move(trained.model);
            return trained.smo;
        };
        try {
            const SmoResult dual = solve_svm_dual(
                solve, options.final_smo, options.final_C, options.final_ridge, nullptr, radius2,
                where.str(), without_kernel ? kKernelFreeAtBoundTolerance : 0.0);
            if (dual.status != Status::Success && subset.classifier_status == Status::Success) {
                subset.classifier_status = dual.status;
                std::ostringstream why;
                why << where.str() << ": ";
                if (without_kernel)
                    why << "the C-SVM's dual stopped short of its relative duality gap "
                        << DcOptions().gap_tolerance << " after " << dual.iterations
                        << (options.final_ridge > 0 ? " Newton steps" : " pair steps");
                else
                    why << "SMO stopped with status " << to_string(dual.status) << " after "
                        << dual.iterations << " iterations";
                subset.classifier_message = why.str();
            }
        } catch (const NumericalError& e) {  // the selection stands without its classifier
            subset.classifier_status = Status::NumericalIssue;
            subset.classifier_message = e.what();
            subset.classifiers.clear();
            subset.class_weights.resize(0, 0);
            return subset;
        }
        subset.class_weights.col(Index(k)) = model.linear_weights();
        subset.classifiers.push_back(std::move(model));
    }
    subset.weights = machines.binary() ? Vector(subset.class_weights.col(0))
                                       : Vector(subset.class_weights.cwiseAbs().rowwise().sum());
    return subset;
}

}  // namespace
}  // namespace detail

SelectionResult FeatureRanker::rank(Backend& backend, const Dataset& data,
                                    const SelectionOptions& options) const {
    const Stopwatch stopwatch;
    data.validate();
    options.validate(data.n_features(), chooses_own_count());
    const detail::Machines machines = detail::make_machines(data.y);
    check_kernel_range(KernelSpec(), data.X, "feature selection");  // the linear SVMs
    if (!machines.binary() && options.multiclass == MulticlassScheme::WestonWatkins &&
        !supports_weston_watkins())
        throw InvalidArgument("multiclass scheme ww (Weston-Watkins M-SVM, Problem 10 with the "
                              "l2 objective) is implemented for l2-arom only, not for " +
                              info().name + "; use ovr (one-vs-rest)");

    IndexVector counts_desc = options.feature_counts;
    std::sort(counts_desc.begin(), counts_desc.end(), std::greater<Index>());
    detail::Ranking ranking = run(backend, data, machines, options, counts_desc);
    const double method_seconds = stopwatch.seconds();

    const bool ww = !machines.binary() && options.multiclass == MulticlassScheme::WestonWatkins;
    SelectionResult result;
    // No count asked (a method with its own count): ranking.selected[0] is the method's support.
    const IndexVector own_count{-1};
    for (Index r : options.feature_counts.empty() ? own_count : options.feature_counts) {
        const auto pos = r < 0 ? 0 : std::find(counts_desc.begin(), counts_desc.end(), r) -
                                         counts_desc.begin();
        const IndexVector& selected = ranking.selected[std::size_t(pos)];
        if (!ranking.subsets.empty())
            result.subsets.push_back(ranking.subsets[std::size_t(pos)]);
        else
            result.subsets.push_back(ww ? detail::retrain_ww(data, machines, selected, options)
                                        : detail::retrain(backend, data, machines, selected,
                                                          options));
    }
    result.scores = std::move(ranking.scores);
    result.trace = std::move(ranking.trace);
    result.iterations = ranking.iterations;
    result.status = ranking.status;
    result.message = std::move(ranking.message);
    result.seconds = stopwatch.seconds();
    result.method_seconds = method_seconds;
    return result;
}

SelectionResult select_features(Backend& backend, const Dataset& data,
                                const SelectionOptions& options) {
    return find_ranker(options.method).rank(backend, data, options);
}

}  // namespace zeronorm
