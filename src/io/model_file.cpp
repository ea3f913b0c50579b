// The model-file representation: model kinds, validation, and prediction for every kind.
#include "zeronorm/io/model_io.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <system_error>

#include "io/model_format.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm {
namespace detail {

constexpr std::size_t max_method_token = 64;

bool is_method_word(const std::string& s) {
    if (s.empty() || s.size() > max_method_token) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return c > 0x20 && c < 0x7f && c != '"' && c != '=';
    });
}

bool is_method_key(const std::string& s) {
    if (s.empty() || s.size() > max_method_token) return false;
    const auto alpha = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    };
    if (!alpha(s[0])) return false;
    return std::all_of(s.begin(), s.end(), [&](char c) { return alpha(c) || (c >= '0' && c <= '9'); });
}

// std::to_chars without a precision is round-trip exact and locale-independent; it never needs
// more than %.17g's digits.
void append_number(std::string& s, double v) {
    char buf[64];
    const auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
    if (ec != std::errc()) throw Error("model writer: cannot format a number");
    s.append(buf, ptr);
}

bool is_kernel_kind(ModelKind kind) {
    return kind != ModelKind::Linear && kind != ModelKind::Polynomial;
}

bool is_two_class_expansion(ModelKind kind) {
    return kind == ModelKind::KernelExpansion || kind == ModelKind::SparseExpansion;
}

}  // namespace detail

namespace {

constexpr std::pair<ModelKind, const char*> kind_names[] = {
    {ModelKind::KernelExpansion, "kernel-expansion"},
    {ModelKind::SparseExpansion, "sparse-expansion"},
    {ModelKind::OneVsRest, "one-vs-rest"},
    {ModelKind::WestonWatkins, "weston-watkins"},
    {ModelKind::Linear, "linear"},
    {ModelKind::Polynomial, "polynomial"},
};


using detail::max_term_factors;

bool same_kernel(const KernelSpec& a, const KernelSpec& b) {
    return a.type == b.type && a.gamma == b.gamma && a.degree == b.degree && a.coef0 == b.coef0 &&
           a.theta.size() == b.theta.size() && a.theta == b.theta;
}

// One kernel expansion on d >= 1 features with finite parts; `what` names it in messages.
void validate_expansion(const KernelSpec& kernel, const Matrix& points, Index n_coef_rows,
                        const std::string& what) {
    const Index d = points.cols();
    ZN_EXPECTS(d >= 1,
               what << ": the support-vector matrix has no columns (is the model trained?)");
    ZN_EXPECTS_DIM(n_coef_rows == points.rows(), what << ": " << n_coef_rows
                                                      << " coefficient rows for " << points.rows()
                                                      << " support vectors");
    kernel.validate(d);
    ZN_EXPECTS(std::isfinite(kernel.gamma), what << ": kernel.gamma must be finite");
    ZN_EXPECTS(kernel.theta.allFinite(), what << ": kernel.theta must be finite");
    ZN_EXPECTS(points.allFinite(), what << ": support vectors must be finite");
}

void validate_svm(const SvmModel& m, const std::string& what) {
    validate_expansion(m.kernel, m.support_vectors, m.coef.size(), what);
    ZN_EXPECTS(std::isfinite(m.bias), what << ": bias must be finite, got " << m.bias);
    ZN_EXPECTS(m.coef.allFinite(), what << ": coefficients must be finite");
}

void validate_method(const ModelMethod& method) {
    if (method.empty()) {
        ZN_EXPECTS(method.parameters.empty(), "model: method parameters without a method name");
        return;
    }
    ZN_EXPECTS(detail::is_method_word(method.name),
               "model: bad method name '" << method.name
                                          << "' (1-64 printable characters without spaces, "
                                             "'\"' or '=')");
    std::set<std::string> keys;
    for (const auto& [key, value] : method.parameters) {
        ZN_EXPECTS(detail::is_method_key(key), "model: bad method parameter name '" << key << "'");
        ZN_EXPECTS(detail::is_method_word(value),
                   "model: bad value '" << value << "' for method parameter '" << key << "'");
        ZN_EXPECTS(keys.insert(key).second,
                   "model: method parameter '" << key << "' appears more than once");
    }
}

// The kind's own part; the blocks of the other kinds must be empty.
void validate_classifier(const ModelFile& f) {
    ZN_EXPECTS(detail::is_two_class_expansion(f.kind) ||
                   (f.model.support_vectors.size() == 0 && f.model.coef.size() == 0),
               "model: a " << to_string(f.kind) << " model keeps its machines outside `model`");
    ZN_EXPECTS(f.kind == ModelKind::OneVsRest || f.machines.empty(),
               "model: `machines` is for one-vs-rest models only");
    ZN_EXPECTS(f.kind == ModelKind::WestonWatkins ||
                   (f.ww.points.size() == 0 && f.ww.coef.size() == 0 && f.ww.bias.size() == 0),
               "model: `ww` is for weston-watkins models only");
    ZN_EXPECTS(f.kind == ModelKind::Linear ||
                   (f.linear.weights.size() == 0 && f.linear.bias.size() == 0),
               "model: `linear` is for linear models only");
    ZN_EXPECTS(f.kind == ModelKind::Polynomial ||
                   (f.polynomial.n_features == 0 && f.polynomial.factors.empty() &&
                    f.polynomial.coef.size() == 0),
               "model: `polynomial` is for polynomial models only");
    switch (f.kind) {
    case ModelKind::KernelExpansion:
    case ModelKind::SparseExpansion:
        validate_svm(f.model, "model");
        break;
    case ModelKind::OneVsRest:
        ZN_EXPECTS(f.machines.size() >= 3,
                   "model: one-vs-rest needs K >= 3 machines, got " << f.machines.size());
        for (std::size_t k = 0; k < f.machines.size(); ++k) {
            const std::string what = "model: machine " + std::to_string(k + 1);
            validate_svm(f.machines[k], what);
            ZN_EXPECTS(same_kernel(f.machines[k].kernel, f.machines[0].kernel),
                       what << " has another kernel than machine 1");
            ZN_EXPECTS_DIM(f.machines[k].n_features() == f.machines[0].n_features(),
                           what << " has " << f.machines[k].n_features() << " features, machine 1 "
                                << f.machines[0].n_features());
        }
        break;
    case ModelKind::WestonWatkins:
        validate_expansion(f.ww.kernel, f.ww.points, f.ww.coef.rows(), "model");
        ZN_EXPECTS(f.ww.bias.size() >= 3,
                   "model: weston-watkins needs K >= 3 machines, got " << f.ww.bias.size());
        ZN_EXPECTS_DIM(f.ww.coef.cols() == f.ww.bias.size(),
                       "model: " << f.ww.coef.cols() << " coefficient columns for "
                                 << f.ww.bias.size() << " biases");
        ZN_EXPECTS(f.ww.coef.allFinite() && f.ww.bias.allFinite(),
                   "model: coefficients and biases must be finite");
        break;
    case ModelKind::Linear: {
        const Index m = f.linear.bias.size();
        ZN_EXPECTS(m == 1 || m >= 3, "model: linear needs 1 rule or K >= 3, got " << m);
        ZN_EXPECTS(f.linear.weights.rows() >= 1, "model: the linear weights have no features");
        ZN_EXPECTS_DIM(f.linear.weights.cols() == m,
                       "model: " << f.linear.weights.cols() << " weight vectors for " << m
                                 << " biases");
        ZN_EXPECTS(f.linear.weights.allFinite() && f.linear.bias.allFinite(),
                   "model: weights and biases must be finite");
        break;
    }
    case ModelKind::Polynomial: {
        const PolynomialRule& p = f.polynomial;
        ZN_EXPECTS(p.n_features >= 1, "model: the polynomial has no features");
        ZN_EXPECTS_DIM(p.coef.size() == Index(p.factors.size()),
                       "model: " << p.coef.size() << " coefficients for " << p.factors.size()
                                 << " terms");
        for (const IndexVector& term : p.factors) {
            ZN_EXPECTS(!term.empty() && term.size() <= max_term_factors,
                       "model: a polynomial term has " << term.size() << " factors (1.."
                                                       << max_term_factors << ")");
            for (const Index j : term)
                ZN_EXPECTS(j >= 0 && j < p.n_features,
                           "model: polynomial factor " << j << " outside the " << p.n_features
                                                       << " features");
        }
        ZN_EXPECTS(p.coef.allFinite() && std::isfinite(p.bias),
                   "model: coefficients and bias must be finite");
        break;
    }
    }
}

}  // namespace

std::string to_string(ModelKind kind) {
    for (const auto& [k, name] : kind_names)
        if (k == kind) return name;
    throw InvalidArgument("unknown model kind");
}

ModelKind parse_model_kind(const std::string& name) {
    for (const auto& [k, n] : kind_names)
        if (name == n) return k;
    throw InvalidArgument("unknown model kind '" + name +
                          "' (expected kernel-expansion, sparse-expansion, one-vs-rest, "
                          "weston-watkins or linear)");
}

const std::string* ModelMethod::find(const std::string& key) const {
    for (const auto& [k, v] : parameters)
        if (k == key) return &v;
    return nullptr;
}

std::string model_number(double value) {
    std::string s;
    detail::append_number(s, value);
    return s;
}

Index ModelFile::n_features() const {
    switch (kind) {
    case ModelKind::OneVsRest: return machines.empty() ? 0 : machines[0].n_features();
    case ModelKind::WestonWatkins: return ww.points.cols();
    case ModelKind::Linear: return linear.weights.rows();
    case ModelKind::Polynomial: return polynomial.n_features;
    default: return model.n_features();
    }
}

Index ModelFile::n_raw_features() const {
    return columns.empty() ? n_features() : n_inputs;
}

int ModelFile::n_classes() const {
    switch (kind) {
    case ModelKind::OneVsRest: return int(machines.size());
    case ModelKind::WestonWatkins: return int(ww.bias.size());
    case ModelKind::Linear: return linear.bias.size() == 1 ? 2 : int(linear.bias.size());
    default: return 2;
    }
}

Index ModelFile::n_outputs() const {
    return n_classes() == 2 ? 1 : n_classes();
}

const KernelSpec* ModelFile::kernel() const {
    switch (kind) {
    case ModelKind::OneVsRest: return machines.empty() ? nullptr : &machines[0].kernel;
    case ModelKind::WestonWatkins: return &ww.kernel;
    case ModelKind::Linear:
    case ModelKind::Polynomial: return nullptr;
    default: return &model.kernel;
    }
}

Matrix ModelFile::preprocess(const Matrix& X) const {
    ZN_EXPECTS_DIM(X.cols() == n_raw_features(), "the model has " << n_raw_features()
                                                                  << " features but the data has "
                                                                  << X.cols());
    Matrix out = log10 ? log10_transform(X) : X;
    if (standardizer) out = standardizer->transform(out);
    if (columns.empty()) return out;
    Matrix picked(out.rows(), Index(columns.size()));
    for (std::size_t j = 0; j < columns.size(); ++j) picked.col(Index(j)) = out.col(columns[j]);
    return picked;
}

Matrix ModelFile::decision_function(Backend& backend, const Matrix& input) const {
    ZN_EXPECTS_DIM(input.cols() == n_features(), "the model has " << n_features()
                                                                   << " features but the data has "
                                                                   << input.cols());
    Matrix out(input.rows(), n_outputs());
    switch (kind) {
    case ModelKind::OneVsRest:
        for (std::size_t k = 0; k < machines.size(); ++k)
            out.col(Index(k)) = machines[k].decision_function(backend, input);
        break;
    case ModelKind::WestonWatkins:
        // Machine k as a plain expansion over the shared points.
        for (Index k = 0; k < ww.bias.size(); ++k)
            out.col(k) = SvmModel{ww.kernel, ww.points, ww.coef.col(k), ww.bias[k]}
                             .decision_function(backend, input);
        break;
    case ModelKind::Linear:
        ZN_EXPECTS(input.allFinite(), "prediction data contains NaN or Inf");
        out = (input * linear.weights).rowwise() + linear.bias.transpose();
        break;
    case ModelKind::Polynomial:
        ZN_EXPECTS(input.allFinite(), "prediction data contains NaN or Inf");
        out.setConstant(polynomial.bias);
        for (std::size_t t = 0; t < polynomial.factors.size(); ++t) {
            Vector term = Vector::Constant(input.rows(), polynomial.coef[Index(t)]);
            for (const Index j : polynomial.factors[t]) term.array() *= input.col(j).array();
            out.col(0) += term;
        }
        break;
    default:
        out.col(0) = model.decision_function(backend, input);
    }
    return out;
}

Vector ModelFile::labels_from_outputs(const Matrix& outputs) const {
    ZN_EXPECTS_DIM(outputs.cols() == n_outputs(),
                   outputs.cols() << " decision values per row for " << n_outputs() << " outputs");
    if (outputs.cols() == 1) return labels_from_decision(outputs.col(0));
    Vector labels(outputs.rows());
    for (Index i = 0; i < outputs.rows(); ++i) {
        Index best = 0;
        outputs.row(i).maxCoeff(&best);  // the first maximum
        labels[i] = double(best);
    }
    return labels;
}

Vector ModelFile::predict(Backend& backend, const Matrix& X) const {
    return labels_from_outputs(decision_function(backend, preprocess(X)));
}

void ModelFile::validate() const {
    validate_classifier(*this);
    const Index d = n_features();
    if (columns.empty()) {
        ZN_EXPECTS(n_inputs == 0 || n_inputs == d,
                   "model: n_inputs " << n_inputs << " without columns for " << d << " features");
    } else {
        ZN_EXPECTS_DIM(Index(columns.size()) == d,
                       "model: " << columns.size() << " columns for " << d << " features");
        std::set<Index> seen;
        for (const Index c : columns) {
            ZN_EXPECTS(c >= 0 && c < n_inputs,
                       "model: column " << c << " is outside the " << n_inputs << " inputs");
            ZN_EXPECTS(seen.insert(c).second, "model: column " << c << " appears twice");
        }
    }
    const Index raw = n_raw_features();
    if (standardizer) {
        ZN_EXPECTS_DIM(standardizer->mean.size() == raw && standardizer->scale.size() == raw,
                       "model: the standardizer has " << standardizer->mean.size() << " means and "
                                                      << standardizer->scale.size()
                                                      << " scales for " << raw << " features");
        ZN_EXPECTS(standardizer->mean.allFinite(), "model: standardizer means must be finite");
        ZN_EXPECTS(standardizer->scale.allFinite() && (standardizer->scale.array() > 0).all(),
                   "model: standardizer scales must be finite and positive");
    }
    ZN_EXPECTS_DIM(feature_names.empty() || Index(feature_names.size()) == raw,
                   "model: " << feature_names.size() << " feature names for " << raw
                             << " features");
    validate_method(method);
    const int K = n_classes();
    ZN_EXPECTS(label_mapping.size() <= std::size_t(K),
               "model: a " << K << "-class model maps at most " << K << " labels, got "
                           << label_mapping.size());
    std::set<double> values;
    for (const auto& [text, value] : label_mapping) {
        if (K == 2)
            ZN_EXPECTS(value == 1.0 || value == -1.0,
                       "model: label '" << text << "' maps to " << value << ", not -1 or 1");
        else
            ZN_EXPECTS(value >= 0 && value < K && value == std::floor(value),
                       "model: label '" << text << "' maps to " << value << ", not a class in 0.."
                                        << K - 1);
        ZN_EXPECTS(values.insert(value).second, "model: two labels map to " << value);
    }
}

}  // namespace zeronorm
