// Model-file writer: the text of versions 1 and 2 (grammar in model_reader.cpp), written
// atomically by save_model.
#include "zeronorm/io/model_io.hpp"

#include <cstdio>
#include <ostream>

#include "io/model_format.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/io/file_output.hpp"

namespace zeronorm {
namespace {

using detail::append_number;

void append_numbers(std::string& s, const Vector& v) {
    for (Index j = 0; j < v.size(); ++j) {
        s += ' ';
        append_number(s, v[j]);
    }
}

void append_line(std::string& s, const char* key, double v) {
    s += key;
    s += ' ';
    append_number(s, v);
    s += '\n';
}

void append_quoted(std::string& s, const std::string& text) {
    s += '"';
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (ch == '"' || ch == '\\') {
            s += '\\';
            s += ch;
        } else if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(c));
            s += buf;
        } else {
            s += ch;
        }
    }
    s += '"';
}

void append_kernel(std::string& s, const KernelSpec& k) {
    s += "kernel " + to_string(k.type) + '\n';
    append_line(s, "gamma", k.gamma);
    s += "degree " + std::to_string(k.degree) + '\n';
    append_line(s, "coef0", k.coef0);
}

void append_theta(std::string& s, const KernelSpec& k) {
    s += "theta " + std::to_string(k.theta.size());
    append_numbers(s, k.theta);
    s += '\n';
}

// "n_support n" and n rows "coef(i, 0..m-1) x_i".
void append_rows(std::string& s, const Matrix& points, const Matrix& coef) {
    s += "n_support " + std::to_string(points.rows()) + '\n';
    for (Index i = 0; i < points.rows(); ++i) {
        for (Index k = 0; k < coef.cols(); ++k) {
            if (k > 0) s += ' ';
            append_number(s, coef(i, k));
        }
        for (Index j = 0; j < points.cols(); ++j) {
            s += ' ';
            append_number(s, points(i, j));
        }
        s += '\n';
    }
}

void append_expansion(std::string& s, const SvmModel& m) {
    append_line(s, "bias", m.bias);
    append_rows(s, m.support_vectors, m.coef);
}

void append_body(std::string& s, const ModelFile& file) {
    switch (file.kind) {
    case ModelKind::KernelExpansion:
    case ModelKind::SparseExpansion:
        append_expansion(s, file.model);
        break;
    case ModelKind::OneVsRest:
        for (std::size_t k = 0; k < file.machines.size(); ++k) {
            s += "machine " + std::to_string(k + 1) + '\n';
            append_expansion(s, file.machines[k]);
        }
        break;
    case ModelKind::WestonWatkins:
        s += "bias";
        append_numbers(s, file.ww.bias);
        s += '\n';
        append_rows(s, file.ww.points, file.ww.coef);
        break;
    case ModelKind::Linear:
        for (Index k = 0; k < file.linear.bias.size(); ++k) {
            s += "machine " + std::to_string(k + 1) + '\n';
            append_line(s, "bias", file.linear.bias[k]);
            s += "weights";
            append_numbers(s, file.linear.weights.col(k));
            s += '\n';
        }
        break;
    case ModelKind::Polynomial:
        append_line(s, "bias", file.polynomial.bias);
        s += "n_terms " + std::to_string(file.polynomial.factors.size()) + '\n';
        for (std::size_t t = 0; t < file.polynomial.factors.size(); ++t) {
            append_number(s, file.polynomial.coef[Index(t)]);
            for (const Index j : file.polynomial.factors[t]) s += ' ' + std::to_string(j);
            s += '\n';
        }
        break;
    }
}

void append_sections(std::string& s, const ModelFile& file) {
    if (!file.method.empty()) {
        s += "method " + file.method.name;
        for (const auto& [key, value] : file.method.parameters) s += ' ' + key + '=' + value;
        s += '\n';
    }
    if (file.log10) s += "log10 1\n";
    if (file.standardizer) {
        s += "standardize " + std::to_string(file.standardizer->mean.size()) + "\nmean";
        append_numbers(s, file.standardizer->mean);
        s += "\nscale";
        append_numbers(s, file.standardizer->scale);
        s += '\n';
    }
    if (!file.feature_names.empty()) {
        s += "feature_names " + std::to_string(file.feature_names.size()) + '\n';
        for (const auto& name : file.feature_names) {
            append_quoted(s, name);
            s += '\n';
        }
    }
    if (!file.label_mapping.empty()) {
        s += "labels " + std::to_string(file.label_mapping.size()) + '\n';
        for (const auto& [text, value] : file.label_mapping) {
            append_quoted(s, text);
            s += ' ';
            append_number(s, value);
            s += '\n';
        }
    }
    s += "end\n";
}

std::string format_v1(const ModelFile& file) {
    ZN_EXPECTS(detail::is_two_class_expansion(file.kind) && file.columns.empty(),
               "model format version 1 holds a two-class kernel expansion on all columns, not a "
                   << to_string(file.kind) << " model"
                   << (file.columns.empty() ? "" : " on a column subset"));
    const SvmModel& m = file.model;
    std::string s = std::string(detail::model_magic) + " 1\n";
    append_kernel(s, m.kernel);
    s += "n_features " + std::to_string(m.n_features()) + '\n';
    append_theta(s, m.kernel);
    append_expansion(s, m);
    return s;
}

std::string format_v2(const ModelFile& file) {
    std::string s = std::string(detail::model_magic) + " 2\n";
    s += "kind " + to_string(file.kind) + '\n';
    s += "n_classes " + std::to_string(file.n_classes()) + '\n';
    s += "n_inputs " + std::to_string(file.n_raw_features()) + '\n';
    const KernelSpec* kernel = file.kernel();
    if (kernel) append_kernel(s, *kernel);
    s += "n_features " + std::to_string(file.n_features()) + '\n';
    if (file.columns.empty()) {
        s += "columns all\n";
    } else {
        s += "columns";
        for (const Index c : file.columns) s += ' ' + std::to_string(c);
        s += '\n';
    }
    if (kernel) append_theta(s, *kernel);
    append_body(s, file);
    return s;
}

std::string format_model(const ModelFile& file, int version) {
    ZN_EXPECTS(version == 1 || version == 2,
               "model format version " << version << " does not exist (1 or 2)");
    file.validate();
    std::string s = version == 1 ? format_v1(file) : format_v2(file);
    append_sections(s, file);
    return s;
}

}  // namespace

void write_model(std::ostream& out, const ModelFile& file, int version) {
    const std::string text = format_model(file, version);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) throw Error("cannot write model: stream error");
}

void save_model(const ModelFile& file, const std::string& path, int version) {
    ZN_EXPECTS(!path.empty(), "save_model: empty path");
    write_file_atomically(path, format_model(file, version), "model");
}

void save_model(const SvmModel& model, const std::string& path) {
    ModelFile file;
    file.model = model;
    save_model(file, path);
}

}  // namespace zeronorm
