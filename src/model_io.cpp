// Model files: writer and strict reader of the "zeronorm-model 1" text format (grammar below).
//
//   file      := magic header support* section* "end" blank*
//   magic     := "zeronorm-model" SP version                       (version = 1)
//   header    := "kernel" SP name / "gamma" SP num / "degree" SP int / "coef0" SP num /
//                "n_features" SP d / "theta" SP count (SP num){count} / "bias" SP num /
//                "n_support" SP n                                  (one line each, this order)
//   support   := coef (SP num){d}                                  (exactly n lines)
//   section   := "method" SP name (SP key "=" value)*             (metadata; see ModelMethod)
//              | "log10" SP (0|1)
//              | "standardize" SP d NL "mean" (SP num){d} NL "scale" (SP num){d}
//              | "feature_names" SP d (NL quoted){d}
//              | "labels" SP k (NL quoted SP (-1|1)){k}
//   quoted    := '"' (char | '\\' | '\"' | '\x' hex hex)* '"'
//
//   name, value := 1-64 of the printable ASCII characters except space, '"' and '='
//   key       := [A-Za-z_][A-Za-z0-9_]*, at most 64 characters, each key at most once
//
// SP is one or more spaces or tabs; lines end in LF, CRLF or CR. Nothing is allocated from a
// count read from the file before the values it announces have been read, so a corrupt count
// cannot make the reader allocate more than the file's size; the file is read line by line, each
// line at most as long as its section allows, so an endless input (/dev/zero) stops early.
#include "zeronorm/model_io.hpp"
#include "zeronorm/file_output.hpp"

#include "text_file.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <limits>
#include <ostream>
#include <set>
#include <system_error>
#include <utility>

#include "zeronorm/error.hpp"

namespace zeronorm {
namespace {

constexpr const char* magic = "zeronorm-model";
// Largest n_features / n_support / section count accepted: keeps n_support * (d + 1) far from
// overflowing Index, and no real model comes near it.
constexpr long long max_count = 2'147'483'647LL;

bool uses_gamma(KernelType t) {
    return t == KernelType::Polynomial || t == KernelType::Rbf || t == KernelType::WeightedRbf ||
           t == KernelType::Chi2;
}

bool uses_degree(KernelType t) {
    return t == KernelType::Polynomial || t == KernelType::SumOfPowers;
}

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

// ---- writing --------------------------------------------------------------------------------

// Shortest decimal form that parses back to exactly v (std::to_chars without a precision is
// round-trip exact and locale-independent; it never needs more than %.17g's digits).
void append_number(std::string& s, double v) {
    char buf[64];
    const auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
    if (ec != std::errc()) throw Error("model writer: cannot format a number");
    s.append(buf, ptr);
}

void append_numbers(std::string& s, const Vector& v) {
    for (Index j = 0; j < v.size(); ++j) {
        s += ' ';
        append_number(s, v[j]);
    }
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

std::string format_model(const ModelFile& file) {
    file.validate();
    const SvmModel& m = file.model;
    const KernelSpec& k = m.kernel;
    std::string s;
    s.reserve(static_cast<std::size_t>(m.n_support()) *
                  static_cast<std::size_t>(m.n_features() + 1) * 24 +
              256);
    s += magic;
    s += ' ' + std::to_string(model_format_version) + '\n';
    s += "kernel " + to_string(k.type) + '\n';
    s += "gamma ";
    append_number(s, k.gamma);
    s += "\ndegree " + std::to_string(k.degree) + "\ncoef0 ";
    append_number(s, k.coef0);
    s += "\nn_features " + std::to_string(m.n_features()) + '\n';
    s += "theta " + std::to_string(k.theta.size());
    append_numbers(s, k.theta);
    s += "\nbias ";
    append_number(s, m.bias);
    s += "\nn_support " + std::to_string(m.n_support()) + '\n';
    for (Index i = 0; i < m.n_support(); ++i) {
        append_number(s, m.coef[i]);
        for (Index j = 0; j < m.n_features(); ++j) {
            s += ' ';
            append_number(s, m.support_vectors(i, j));
        }
        s += '\n';
    }
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
    return s;
}

// ---- reading --------------------------------------------------------------------------------

bool is_space(char c) {
    return c == ' ' || c == '\t';
}

// Walks the buffer line by line and token by token; every failure names line and column.
class Parser {
public:
    Parser(const std::string& name, detail::LineInput& lines) : name_(name), lines_(lines) {}

    // Moves to the next line; false at the end of input.
    bool next_line() {
        if (!lines_.next(lb_, le_)) return false;
        cur_ = lb_;
        line_ = lines_.line();
        return true;
    }

    // Moves to the next line, which must exist.
    void expect_line(const std::string& what) {
        if (!next_line())
            throw DataFormatError(name_, line_ + 1, 1, "unexpected end of file: expected " + what);
    }

    [[noreturn]] void fail(const char* at, const std::string& what) const {
        throw DataFormatError(name_, line_, static_cast<std::size_t>(at - lb_) + 1, what);
    }

    // Next whitespace-delimited token on the line; empty (b == e) at the end of the line.
    std::pair<const char*, const char*> token() {
        while (cur_ != le_ && is_space(*cur_)) ++cur_;
        const char* b = cur_;
        while (cur_ != le_ && !is_space(*cur_)) ++cur_;
        return {b, cur_};
    }

    std::pair<const char*, const char*> expect_token(const std::string& what) {
        auto t = token();
        if (t.first == t.second) fail(t.first, "expected " + what + ", found the end of the line");
        return t;
    }

    void expect_end_of_line(const std::string& after) {
        auto [b, e] = token();
        if (b != e) fail(b, "unexpected text " + detail::quote_token(b, e) + " after " + after);
    }

    // Next line must start with `key`; the cursor is left after it.
    void key(const std::string& key) {
        expect_line("the line '" + key + " ...'");
        auto [b, e] = token();
        if (std::string(b, e) != key)
            fail(b, "expected '" + key + "', found " + (b == e ? "an empty line" : detail::quote_token(b, e)));
    }

    double number(const std::string& what) {
        auto [b, e] = expect_token(what);
        double v = 0;
        const auto [ptr, ec] = std::from_chars(b, e, v, std::chars_format::general);
        if (ec == std::errc::result_out_of_range)
            fail(b, "value " + detail::quote_token(b, e) + " for " + what + " is out of the range of a double");
        if (ec != std::errc() || ptr != e)
            fail(b, "expected a number for " + what + ", got " + detail::quote_token(b, e));
        if (!std::isfinite(v))
            fail(b, "non-finite value " + detail::quote_token(b, e) + " for " + what +
                        " (NaN and Inf are not allowed)");
        return v;
    }

    long long integer(const std::string& what, long long lo, long long hi) {
        auto [b, e] = expect_token(what);
        long long v = 0;
        const auto [ptr, ec] = std::from_chars(b, e, v);
        if (ec != std::errc() || ptr != e)
            fail(b, "expected an integer for " + what + ", got " + detail::quote_token(b, e));
        if (v < lo || v > hi)
            fail(b, what + " must be in " + std::to_string(lo) + ".." + std::to_string(hi) +
                        ", got " + std::to_string(v));
        return v;
    }

    enum class Sign { any, non_negative, positive };

    // Exactly `count` numbers from the rest of the line, then the end of the line.
    Vector numbers(long long count, const std::string& what, Sign sign = Sign::any) {
        std::vector<double> values;
        while (true) {
            auto [b, e] = token();
            if (b == e) break;
            if (static_cast<long long>(values.size()) == count)
                fail(b, what + ": more than the " + std::to_string(count) + " values announced");
            cur_ = b;
            const std::string item = what + " value " + std::to_string(values.size() + 1);
            const double v = number(item);
            if (sign == Sign::non_negative && !(v >= 0))
                fail(b, item + " must be non-negative, got " + detail::quote_token(b, cur_));
            if (sign == Sign::positive && !(v > 0))
                fail(b, item + " must be positive, got " + detail::quote_token(b, cur_));
            values.push_back(v);
        }
        if (static_cast<long long>(values.size()) != count)
            fail(cur_, what + ": expected " + std::to_string(count) + " values, found " +
                           std::to_string(values.size()));
        return Eigen::Map<const Vector>(values.data(), static_cast<Index>(values.size()));
    }

    // A double-quoted string with \\, \" and \xHH escapes.
    std::string quoted(const std::string& what) {
        while (cur_ != le_ && is_space(*cur_)) ++cur_;
        if (cur_ == le_ || *cur_ != '"') fail(cur_, "expected a quoted string for " + what);
        std::string s;
        for (++cur_;; ++cur_) {
            if (cur_ == le_) fail(cur_, "unterminated quoted string for " + what);
            const char c = *cur_;
            if (c == '"') {
                ++cur_;
                return s;
            }
            if (c != '\\') {
                s += c;
                continue;
            }
            const char* esc = cur_++;
            if (cur_ == le_) fail(esc, "unterminated escape in " + what);
            if (*cur_ == '\\' || *cur_ == '"') {
                s += *cur_;
            } else if (*cur_ == 'x' && le_ - cur_ >= 3 &&
                       std::isxdigit(static_cast<unsigned char>(cur_[1])) &&
                       std::isxdigit(static_cast<unsigned char>(cur_[2]))) {
                unsigned v = 0;
                std::from_chars(cur_ + 1, cur_ + 3, v, 16);
                s += static_cast<char>(v);
                cur_ += 2;
            } else {
                fail(esc, "invalid escape in " + what + " (expected \\\\, \\\" or \\xHH)");
            }
        }
    }

    // Start of the next token (spaces skipped), for positions of errors found after parsing it.
    const char* here() {
        while (cur_ != le_ && is_space(*cur_)) ++cur_;
        return cur_;
    }
    const char* line_begin() const { return lb_; }
    std::size_t line() const { return line_; }

private:
    const std::string& name_;
    detail::LineInput& lines_;
    const char* lb_ = nullptr;
    const char* le_ = nullptr;
    const char* cur_ = nullptr;
    std::size_t line_ = 0;
};

// Bounds on what is read, so that an endless or binary input stops early: a line holds at most
// the values its section announces, each at most value_bytes long with its spaces, plus
// line_bytes; at most trailing_bytes (blank lines) may follow "end".
constexpr std::size_t line_bytes = std::size_t{1} << 20;
constexpr std::size_t value_bytes = 64;
constexpr std::uint64_t trailing_bytes = 64 << 10;
// The total is bounded by the header's counts and the line bounds, not by a byte count.
constexpr std::uint64_t no_total_limit = std::numeric_limits<std::uint64_t>::max();

// Reads a model from `lines`; `size_hint` (0 if unknown) is the input's size in bytes.
ModelFile parse_lines(const std::string& name, detail::LineInput& lines, std::uint64_t size_hint) {
    Parser in(name, lines);
    if (!in.next_line())
        throw DataFormatError(name, 1, 1,
                              std::string("empty file: expected '") + magic + " " +
                                  std::to_string(model_format_version) + "'");
    {
        auto [b, e] = in.token();
        if (std::string(b, e) != magic)
            in.fail(b, std::string("not a zeronorm model file: expected '") + magic + " " +
                           std::to_string(model_format_version) + "' on the first line, found " +
                           detail::quote_token(in.line_begin(), e));
        auto [vb, ve] = in.expect_token("the format version");
        long long version = 0;
        const auto [ptr, ec] = std::from_chars(vb, ve, version);
        if (ec != std::errc() || ptr != ve) in.fail(vb, "bad format version " + detail::quote_token(vb, ve));
        if (version != model_format_version)
            in.fail(vb, "unsupported model format version " + std::to_string(version) +
                            " (this build reads version " + std::to_string(model_format_version) +
                            ")");
        in.expect_end_of_line("the format version");
    }

    ModelFile file;
    SvmModel& m = file.model;
    KernelSpec& k = m.kernel;

    in.key("kernel");
    const std::size_t kernel_line = in.line();
    {
        auto [b, e] = in.expect_token("a kernel name");
        try {
            k.type = parse_kernel_type(std::string(b, e));
        } catch (const InvalidArgument&) {
            in.fail(b, "unknown kernel " + detail::quote_token(b, e) +
                           " (expected linear, poly, sum-of-powers, rbf, weighted-rbf or chi2)");
        }
        in.expect_end_of_line("the kernel name");
    }

    in.key("gamma");
    {
        const char* at = in.here();
        k.gamma = in.number("gamma");
        if (uses_gamma(k.type) && !(k.gamma > 0))
            in.fail(at, "gamma must be positive for the " + to_string(k.type) + " kernel");
        in.expect_end_of_line("gamma");
    }

    in.key("degree");
    {
        const bool bounded = uses_degree(k.type);
        k.degree = static_cast<int>(
            in.integer("degree", bounded ? 1 : -2147483647 - 1, bounded ? 64 : 2147483647));
        in.expect_end_of_line("degree");
    }

    in.key("coef0");
    k.coef0 = in.number("coef0");
    in.expect_end_of_line("coef0");

    in.key("n_features");
    const auto d = static_cast<Index>(in.integer("n_features", 1, max_count));
    in.expect_end_of_line("n_features");
    // From here a line holds at most d + 1 values (theta, support vectors, mean, scale).
    lines.set_max_line(line_bytes + value_bytes * static_cast<std::size_t>(d + 1),
                       "the longest line n_features = " + std::to_string(d) + " allows");

    in.key("theta");
    {
        const char* at = in.here();
        const long long count = in.integer("the theta count", 0, max_count);
        if (k.type == KernelType::WeightedRbf && count != d)
            in.fail(at, "the weighted-rbf kernel needs one theta per feature (" +
                            std::to_string(d) + "), got " + std::to_string(count));
        k.theta = in.numbers(
            count, "theta",
            k.type == KernelType::WeightedRbf ? Parser::Sign::non_negative : Parser::Sign::any);
    }

    in.key("bias");
    m.bias = in.number("bias");
    in.expect_end_of_line("bias");

    in.key("n_support");
    const auto n_sv = static_cast<Index>(in.integer("n_support", 0, max_count));
    in.expect_end_of_line("n_support");

    // Support vectors row by row into a growing buffer, transposed into the model at the end.
    std::vector<double> rows;
    {
        // Each value takes at least two bytes ("0 "), which bounds a truthful reservation.
        const auto bound = static_cast<std::size_t>(size_hint / 2);
        const auto wanted = static_cast<std::size_t>(n_sv) * static_cast<std::size_t>(d + 1);
        rows.reserve(std::min(bound, wanted));
    }
    for (Index i = 0; i < n_sv; ++i) {
        const std::string what = "support vector " + std::to_string(i + 1) + " of " +
                                 std::to_string(n_sv) + " (coef and " + std::to_string(d) +
                                 " features)";
        in.expect_line(what);
        const Vector v = in.numbers(d + 1, what);
        rows.insert(rows.end(), v.data(), v.data() + v.size());
    }
    m.coef.resize(n_sv);
    m.support_vectors.resize(n_sv, d);
    for (Index i = 0; i < n_sv; ++i) {
        const double* r =
            rows.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(d + 1);
        m.coef[i] = r[0];
        for (Index j = 0; j < d; ++j) m.support_vectors(i, j) = r[j + 1];
    }

    // Optional sections, then "end".
    std::set<std::string> seen;
    while (true) {
        in.expect_line(
            "a section ('method', 'log10', 'standardize', 'feature_names', 'labels') or 'end'");
        auto [b, e] = in.token();
        const std::string section(b, e);
        if (section == "end") {
            in.expect_end_of_line("'end'");
            break;
        }
        if (section != "method" && section != "log10" && section != "standardize" &&
            section != "feature_names" && section != "labels")
            in.fail(b,
                    "expected a section ('method', 'log10', 'standardize', 'feature_names', "
                    "'labels') or 'end', found " +
                        (b == e ? std::string("an empty line") : detail::quote_token(b, e)));
        if (!seen.insert(section).second)
            in.fail(b, "section '" + section + "' appears more than once");

        if (section == "method") {
            auto [nb, ne] = in.expect_token("a method name");
            const std::string method_name(nb, ne);
            if (!is_method_word(method_name))
                in.fail(nb, "bad method name " + detail::quote_token(nb, ne) +
                                " (1-64 printable characters without spaces, '\"' or '=')");
            file.method.name = method_name;
            std::set<std::string> keys;
            while (true) {
                auto [tb, te] = in.token();
                if (tb == te) break;
                const char* eq = std::find(tb, te, '=');
                if (eq == te)
                    in.fail(tb, "expected key=value in the method line, got " + detail::quote_token(tb, te));
                const std::string key(tb, eq), value(eq + 1, te);
                if (!is_method_key(key))
                    in.fail(tb, "bad method parameter name " + detail::quote_token(tb, eq) +
                                    " (letters, digits and '_', not starting with a digit)");
                if (!is_method_word(value))
                    in.fail(eq + 1, "bad value " + detail::quote_token(eq + 1, te) + " for method parameter '" +
                                        key + "'");
                if (!keys.insert(key).second)
                    in.fail(tb, "method parameter '" + key + "' appears more than once");
                file.method.parameters.emplace_back(key, value);
            }
        } else if (section == "log10") {
            file.log10 = in.integer("the log10 flag", 0, 1) == 1;
            in.expect_end_of_line("the log10 flag");
        } else if (section == "standardize") {
            const char* at = in.here();
            const long long count = in.integer("the standardize count", 0, max_count);
            if (count != d)
                in.fail(at, "standardize has " + std::to_string(count) +
                                " entries but the model has " + std::to_string(d) + " features");
            in.expect_end_of_line("the standardize count");
            Standardizer s;
            in.key("mean");
            s.mean = in.numbers(count, "mean");
            in.key("scale");
            s.scale = in.numbers(count, "scale", Parser::Sign::positive);
            file.standardizer = std::move(s);
        } else if (section == "feature_names") {
            const char* at = in.here();
            const long long count = in.integer("the feature_names count", 0, max_count);
            if (count != d)
                in.fail(at, "feature_names has " + std::to_string(count) +
                                " entries but the model has " + std::to_string(d) + " features");
            in.expect_end_of_line("the feature_names count");
            for (long long j = 0; j < count; ++j) {
                const std::string what = "feature name " + std::to_string(j + 1);
                in.expect_line(what);
                file.feature_names.push_back(in.quoted(what));
                in.expect_end_of_line(what);
            }
        } else {  // labels
            const long long count = in.integer("the labels count", 1, 2);
            in.expect_end_of_line("the labels count");
            std::set<double> values;
            for (long long j = 0; j < count; ++j) {
                const std::string what = "label " + std::to_string(j + 1);
                in.expect_line(what);
                std::string text = in.quoted(what);
                const char* at = in.here();
                const double value = in.number(what);
                if (value != 1.0 && value != -1.0) in.fail(at, what + " must map to -1 or 1");
                if (!values.insert(value).second)
                    in.fail(at, "two labels map to " + std::to_string(static_cast<int>(value)));
                if (!file.label_mapping.emplace(std::move(text), value).second)
                    in.fail(in.line_begin(), what + " appears twice");
                in.expect_end_of_line(what);
            }
        }
    }
    const std::uint64_t end_offset = lines.offset();
    while (in.next_line()) {
        auto [b, e] = in.token();
        if (b != e) in.fail(b, "unexpected text " + detail::quote_token(b, e) + " after 'end'");
        if (lines.offset() - end_offset > trailing_bytes)
            in.fail(b, "more than " + detail::byte_size(trailing_bytes) +
                           " of blank lines after 'end'");
    }

    try {
        file.validate();
    } catch (const Error& err) {  // every part was checked above; this is a backstop
        throw DataFormatError(name, kernel_line, 1, err.what());
    }
    return file;
}

}  // namespace

const std::string* ModelMethod::find(const std::string& key) const {
    for (const auto& [k, v] : parameters)
        if (k == key) return &v;
    return nullptr;
}

std::string model_number(double value) {
    std::string s;
    append_number(s, value);
    return s;
}

Matrix ModelFile::preprocess(const Matrix& X) const {
    ZN_EXPECTS_DIM(X.cols() == model.n_features(), "the model has " << model.n_features()
                                                                    << " features but the data has "
                                                                    << X.cols());
    Matrix out = log10 ? log10_transform(X) : X;
    if (standardizer) out = standardizer->transform(out);
    return out;
}

void ModelFile::validate() const {
    const SvmModel& m = model;
    const Index d = m.n_features();
    ZN_EXPECTS(d >= 1, "model: the support-vector matrix has no columns (is the model trained?)");
    ZN_EXPECTS_DIM(
        m.coef.size() == m.n_support(),
        "model: " << m.coef.size() << " coefficients for " << m.n_support() << " support vectors");
    m.kernel.validate(d);
    ZN_EXPECTS(std::isfinite(m.kernel.gamma), "model: kernel.gamma must be finite");
    ZN_EXPECTS(m.kernel.theta.allFinite(), "model: kernel.theta must be finite");
    ZN_EXPECTS(std::isfinite(m.bias), "model: bias must be finite, got " << m.bias);
    ZN_EXPECTS(m.coef.allFinite(), "model: coefficients must be finite");
    ZN_EXPECTS(m.support_vectors.allFinite(), "model: support vectors must be finite");
    if (standardizer) {
        ZN_EXPECTS_DIM(standardizer->mean.size() == d && standardizer->scale.size() == d,
                       "model: the standardizer has " << standardizer->mean.size() << " means and "
                                                      << standardizer->scale.size()
                                                      << " scales for " << d << " features");
        ZN_EXPECTS(standardizer->mean.allFinite(), "model: standardizer means must be finite");
        ZN_EXPECTS(standardizer->scale.allFinite() && (standardizer->scale.array() > 0).all(),
                   "model: standardizer scales must be finite and positive");
    }
    ZN_EXPECTS_DIM(feature_names.empty() || Index(feature_names.size()) == d,
                   "model: " << feature_names.size() << " feature names for " << d << " features");
    if (!method.empty()) {
        ZN_EXPECTS(is_method_word(method.name),
                   "model: bad method name '" << method.name
                                              << "' (1-64 printable characters without spaces, "
                                                 "'\"' or '=')");
        std::set<std::string> keys;
        for (const auto& [key, value] : method.parameters) {
            ZN_EXPECTS(is_method_key(key), "model: bad method parameter name '" << key << "'");
            ZN_EXPECTS(is_method_word(value),
                       "model: bad value '" << value << "' for method parameter '" << key << "'");
            ZN_EXPECTS(keys.insert(key).second,
                       "model: method parameter '" << key << "' appears more than once");
        }
    } else {
        ZN_EXPECTS(method.parameters.empty(), "model: method parameters without a method name");
    }
    ZN_EXPECTS(label_mapping.size() <= 2,
               "model: a two-class model maps at most 2 labels, got " << label_mapping.size());
    std::set<double> values;
    for (const auto& [text, value] : label_mapping) {
        ZN_EXPECTS(value == 1.0 || value == -1.0,
                   "model: label '" << text << "' maps to " << value << ", not -1 or 1");
        ZN_EXPECTS(values.insert(value).second, "model: two labels map to " << value);
    }
}

void write_model(std::ostream& out, const ModelFile& file) {
    const std::string text = format_model(file);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) throw Error("cannot write model: stream error");
}

ModelFile parse_model(std::istream& in, const std::string& name) {
    detail::LineInput lines(in, name, line_bytes, no_total_limit);
    return parse_lines(name, lines, 0);
}

void save_model(const ModelFile& file, const std::string& path) {
    ZN_EXPECTS(!path.empty(), "save_model: empty path");
    const std::string text = format_model(file);
    write_file_atomically(path, text, "model");
}

void save_model(const SvmModel& model, const std::string& path) {
    ModelFile file;
    file.model = model;
    save_model(file, path);
}

ModelFile load_model_file(const std::string& path) {
    std::ifstream in = detail::open_text_file(path, "model ");
    detail::LineInput lines(in, path, line_bytes, no_total_limit);
    return parse_lines(path, lines, detail::regular_file_size(path));
}

SvmModel load_model(const std::string& path) {
    return load_model_file(path).model;
}

}  // namespace zeronorm
