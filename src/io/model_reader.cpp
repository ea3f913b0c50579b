// Model-file reader: strict parsing of versions 1 and 2 of the "zeronorm-model" text format.
//
//   file      := v1 | v2
//   v1        := "zeronorm-model 1" NL kernel "n_features" SP d NL theta expansion section*
//                "end" blank*
//   v2        := "zeronorm-model 2" NL "kind" SP kind NL "n_classes" SP K NL "n_inputs" SP D NL
//                [kernel] "n_features" SP d NL columns [theta] body section* "end" blank*
//   kernel    := "kernel" SP name / "gamma" SP num / "degree" SP int / "coef0" SP num
//                (one line each, this order; present exactly for the kernel kinds)
//   theta     := "theta" SP count (SP num){count}
//   columns   := "columns" SP "all"  (d = D) | "columns" (SP index){d}  (0-based, distinct, < D)
//   expansion := "bias" SP num NL "n_support" SP n NL (num (SP num){d} NL){n}     (coef x)
//   body      := expansion                                 kernel-expansion, sparse-expansion
//                                                          (K = 2)
//              | ("machine" SP k NL expansion){K}          one-vs-rest (K >= 3; k = 1..K)
//              | "bias" (SP num){K} NL "n_support" SP n NL (num{K} (SP num){d} NL){n}
//                                                          weston-watkins (K >= 3)
//              | ("machine" SP k NL "bias" SP num NL "weights" (SP num){d} NL){m}
//                                                          linear (m = 1 for K = 2, else K)
//              | "bias" SP num NL "n_terms" SP n NL (num (SP index){1..64} NL){n}
//                                                          polynomial (K = 2; coef, then the
//                                                          0-based factors of the term)
//   section   := "method" SP name (SP key "=" value)*             (metadata; see ModelMethod)
//              | "log10" SP (0|1)
//              | "standardize" SP D NL "mean" (SP num){D} NL "scale" (SP num){D}
//              | "feature_names" SP D (NL quoted){D}
//              | "labels" SP k (NL quoted SP label){k}    (k <= K; label -1|1 for K = 2, else
//                                                          a class 0..K-1)
//   quoted    := '"' (char | '\\' | '\"' | '\x' hex hex)* '"'
//
//   name, value := 1-64 of the printable ASCII characters except space, '"' and '='
//   key       := [A-Za-z_][A-Za-z0-9_]*, at most 64 characters, each key at most once
//
// In version 1, D = d and K = 2. SP is one or more spaces or tabs; lines end in LF, CRLF or CR.
// Nothing is allocated from a count read from the file before the values it announces have been
// read, so a corrupt count cannot make the reader allocate more than the file's size; the file
// is read line by line, each line at most as long as its section allows, so an endless input
// (/dev/zero) stops early.
#include "zeronorm/io/model_io.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <istream>
#include <limits>
#include <set>
#include <system_error>
#include <utility>

#include "io/model_format.hpp"
#include "io/text_file.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm {
namespace {

using detail::max_model_count;
using detail::max_term_factors;

bool uses_gamma(KernelType t) {
    return t == KernelType::Polynomial || t == KernelType::Rbf || t == KernelType::WeightedRbf ||
           t == KernelType::Chi2;
}

bool uses_degree(KernelType t) {
    return t == KernelType::Polynomial || t == KernelType::SumOfPowers;
}

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

    // Moves the cursor back to `p`, a position on the current line.
    void rewind_to(const char* p) { cur_ = p; }

    // Start of the next token (spaces skipped), for positions of errors found after parsing it.
    const char* here() {
        while (cur_ != le_ && is_space(*cur_)) ++cur_;
        return cur_;
    }
    const char* line_begin() const { return lb_; }
    const char* line_end() const { return le_; }
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
// the values its header's counts allow, each at most value_bytes long with its spaces, plus
// line_bytes; at most trailing_bytes (blank lines) may follow "end".
constexpr std::size_t line_bytes = std::size_t{1} << 20;
constexpr std::size_t value_bytes = 64;
constexpr std::uint64_t trailing_bytes = 64 << 10;
// The total is bounded by the header's counts and the line bounds, not by a byte count.
constexpr std::uint64_t no_total_limit = std::numeric_limits<std::uint64_t>::max();

const std::string sections_expected =
    "a section ('method', 'log10', 'standardize', 'feature_names', 'labels') or 'end'";

class ModelReader {
public:
    ModelReader(const std::string& name, detail::LineInput& lines, std::uint64_t size_hint)
        : name_(name), lines_(lines), in_(name, lines), size_hint_(size_hint) {}

    ModelFile read() {
        const long long version = read_magic();
        if (version == 1)
            read_v1();
        else
            read_v2();
        read_sections();
        // Version 1 told the sparse expansion apart by its method line only.
        if (version == 1 && file_.method.name == "l0-svm") file_.kind = ModelKind::SparseExpansion;
        read_trailing();
        try {
            file_.validate();
        } catch (const Error& err) {  // every part was checked above; this is a backstop
            throw DataFormatError(name_, first_line_, 1, err.what());
        }
        return std::move(file_);
    }

private:
    long long read_magic() {
        const std::string expected = std::string("'") + detail::model_magic + " " +
                                     std::to_string(model_format_version) + "'";
        if (!in_.next_line())
            throw DataFormatError(name_, 1, 1, "empty file: expected " + expected);
        auto [b, e] = in_.token();
        if (std::string(b, e) != detail::model_magic)
            in_.fail(b, "not a zeronorm model file: expected " + expected +
                            " on the first line, found " + detail::quote_token(in_.line_begin(), e));
        auto [vb, ve] = in_.expect_token("the format version");
        long long version = 0;
        const auto [ptr, ec] = std::from_chars(vb, ve, version);
        if (ec != std::errc() || ptr != ve)
            in_.fail(vb, "bad format version " + detail::quote_token(vb, ve));
        if (version != 1 && version != 2)
            in_.fail(vb, "unsupported model format version " + std::to_string(version) +
                             " (this build reads versions 1 and 2)");
        in_.expect_end_of_line("the format version");
        return version;
    }

    void read_v1() {
        first_line_ = 2;
        SvmModel& m = file_.model;
        read_kernel(m.kernel);
        d_ = read_count("n_features", 1);
        raw_ = d_;
        limit_line_values(d_ + 1, "n_features = " + std::to_string(d_) + " allows");
        read_theta(m.kernel);
        read_expansion(m);
    }

    void read_v2() {
        in_.key("kind");
        first_line_ = in_.line();
        {
            auto [b, e] = in_.expect_token("a model kind");
            try {
                file_.kind = parse_model_kind(std::string(b, e));
            } catch (const InvalidArgument& err) {
                in_.fail(b, err.what());
            }
            in_.expect_end_of_line("the model kind");
        }
        const ModelKind kind = file_.kind;
        in_.key("n_classes");
        {
            const char* at = in_.here();
            K_ = read_value("n_classes", 2, max_model_count);
            const bool two =
                detail::is_two_class_expansion(kind) || kind == ModelKind::Polynomial;
            const bool multi = kind == ModelKind::OneVsRest || kind == ModelKind::WestonWatkins;
            if (two && K_ != 2)
                in_.fail(at, "a " + to_string(kind) + " model has 2 classes, not " +
                                 std::to_string(K_));
            if (multi && K_ < 3)
                in_.fail(at, "a " + to_string(kind) + " model needs n_classes >= 3, got " +
                                 std::to_string(K_));
        }
        raw_ = read_count("n_inputs", 1);
        KernelSpec kernel;
        const bool has_kernel = detail::is_kernel_kind(kind);
        if (has_kernel) read_kernel(kernel);
        d_ = read_count("n_features", 1);
        limit_line_values(std::max({raw_, d_ + Index(K_), Index(max_term_factors)}) + 1,
                          "n_inputs = " + std::to_string(raw_) + ", n_features = " +
                              std::to_string(d_) + " and n_classes = " + std::to_string(K_) +
                              " allow");
        read_columns();
        if (has_kernel) read_theta(kernel);
        switch (kind) {
        case ModelKind::KernelExpansion:
        case ModelKind::SparseExpansion:
            file_.model.kernel = kernel;
            read_expansion(file_.model);
            break;
        case ModelKind::OneVsRest:
            for (long long k = 1; k <= K_; ++k) {
                read_machine_number(k);
                SvmModel m;
                m.kernel = kernel;
                read_expansion(m);
                file_.machines.push_back(std::move(m));
            }
            break;
        case ModelKind::WestonWatkins:
            file_.ww.kernel = kernel;
            in_.key("bias");
            file_.ww.bias = in_.numbers(K_, "bias");
            read_rows(K_, file_.ww.coef, file_.ww.points);
            break;
        case ModelKind::Linear:
            read_linear();
            break;
        case ModelKind::Polynomial:
            read_polynomial();
            break;
        }
    }

    // "key n" with n in min..max_model_count, alone on its line.
    Index read_count(const std::string& key, long long min) {
        in_.key(key);
        const auto n = static_cast<Index>(read_value(key, min, max_model_count));
        return n;
    }

    long long read_value(const std::string& what, long long lo, long long hi) {
        const long long v = in_.integer(what, lo, hi);
        in_.expect_end_of_line(what);
        return v;
    }

    // From here a line holds at most `values` numbers, as the header's `counts` say.
    void limit_line_values(Index values, const std::string& counts) {
        lines_.set_max_line(line_bytes + value_bytes * static_cast<std::size_t>(values),
                            "the longest line " + counts);
    }

    void read_kernel(KernelSpec& k) {
        in_.key("kernel");
        {
            auto [b, e] = in_.expect_token("a kernel name");
            try {
                k.type = parse_kernel_type(std::string(b, e));
            } catch (const InvalidArgument&) {
                in_.fail(b, "unknown kernel " + detail::quote_token(b, e) +
                                " (expected linear, poly, sum-of-powers, rbf, weighted-rbf or chi2)");
            }
            in_.expect_end_of_line("the kernel name");
        }
        in_.key("gamma");
        {
            const char* at = in_.here();
            k.gamma = in_.number("gamma");
            if (uses_gamma(k.type) && !(k.gamma > 0))
                in_.fail(at, "gamma must be positive for the " + to_string(k.type) + " kernel");
            in_.expect_end_of_line("gamma");
        }
        in_.key("degree");
        {
            const bool bounded = uses_degree(k.type);
            k.degree = static_cast<int>(read_value("degree", bounded ? 1 : -2147483647 - 1,
                                                   bounded ? 64 : 2147483647));
        }
        in_.key("coef0");
        k.coef0 = in_.number("coef0");
        in_.expect_end_of_line("coef0");
    }

    void read_theta(KernelSpec& k) {
        in_.key("theta");
        const char* at = in_.here();
        const long long count = in_.integer("the theta count", 0, max_model_count);
        if (k.type == KernelType::WeightedRbf && count != d_)
            in_.fail(at, "the weighted-rbf kernel needs one theta per feature (" +
                             std::to_string(d_) + "), got " + std::to_string(count));
        k.theta = in_.numbers(
            count, "theta",
            k.type == KernelType::WeightedRbf ? Parser::Sign::non_negative : Parser::Sign::any);
    }

    void read_columns() {
        in_.key("columns");
        const char* at = in_.here();
        auto [b, e] = in_.expect_token("'all' or " + std::to_string(d_) + " column indices");
        if (std::string(b, e) == "all") {
            if (d_ != raw_)
                in_.fail(b, "'columns all' needs n_features = n_inputs, got " +
                                std::to_string(d_) + " and " + std::to_string(raw_));
            in_.expect_end_of_line("'columns all'");
            return;
        }
        in_.rewind_to(at);
        std::set<Index> seen;
        for (Index j = 0; j < d_; ++j) {
            const char* c_at = in_.here();
            const std::string what =
                "column " + std::to_string(j + 1) + " of " + std::to_string(d_);
            const auto c = static_cast<Index>(in_.integer(what, 0, max_model_count));
            if (c >= raw_)
                in_.fail(c_at, what + " is " + std::to_string(c) + ", outside the " +
                                   std::to_string(raw_) + " inputs (0-based)");
            if (!seen.insert(c).second)
                in_.fail(c_at, what + ": column " + std::to_string(c) + " appears twice");
            file_.columns.push_back(c);
        }
        in_.expect_end_of_line("the " + std::to_string(d_) + " columns");
        file_.n_inputs = raw_;
    }

    void read_machine_number(long long k) {
        in_.key("machine");
        const char* at = in_.here();
        if (in_.integer("the machine number", 1, max_model_count) != k)
            in_.fail(at, "expected machine " + std::to_string(k));
        in_.expect_end_of_line("the machine number");
    }

    void read_expansion(SvmModel& m) {
        in_.key("bias");
        m.bias = in_.number("bias");
        in_.expect_end_of_line("bias");
        Matrix coef;
        read_rows(1, coef, m.support_vectors);
        m.coef = coef.col(0);
    }

    // "n_support n" and n rows of `m` coefficients and d features.
    void read_rows(long long m, Matrix& coef, Matrix& points) {
        const Index n = read_count("n_support", 0);
        const auto width = static_cast<std::size_t>(m) + static_cast<std::size_t>(d_);
        // Rows into a growing buffer, copied into the matrices at the end. Each value takes at
        // least two bytes ("0 "), which bounds a truthful reservation.
        std::vector<double> rows;
        rows.reserve(std::min(static_cast<std::size_t>(size_hint_ / 2),
                              static_cast<std::size_t>(n) * width));
        const std::string coefs = m == 1 ? "coef" : std::to_string(m) + " coefs";
        for (Index i = 0; i < n; ++i) {
            const std::string what = "support vector " + std::to_string(i + 1) + " of " +
                                     std::to_string(n) + " (" + coefs + " and " +
                                     std::to_string(d_) + " features)";
            in_.expect_line(what);
            const Vector v = in_.numbers(static_cast<long long>(width), what);
            rows.insert(rows.end(), v.data(), v.data() + v.size());
        }
        coef.resize(n, Index(m));
        points.resize(n, d_);
        for (Index i = 0; i < n; ++i) {
            const double* r = rows.data() + static_cast<std::size_t>(i) * width;
            for (Index k = 0; k < Index(m); ++k) coef(i, k) = r[k];
            for (Index j = 0; j < d_; ++j) points(i, j) = r[m + j];
        }
    }

    void read_linear() {
        const long long m = K_ == 2 ? 1 : K_;
        std::vector<Vector> weights;
        std::vector<double> bias;
        for (long long k = 1; k <= m; ++k) {
            read_machine_number(k);
            in_.key("bias");
            bias.push_back(in_.number("bias"));
            in_.expect_end_of_line("bias");
            in_.key("weights");
            weights.push_back(in_.numbers(d_, "weights"));
        }
        file_.linear.weights.resize(d_, Index(m));
        for (std::size_t k = 0; k < weights.size(); ++k)
            file_.linear.weights.col(Index(k)) = weights[k];
        file_.linear.bias = Eigen::Map<const Vector>(bias.data(), Index(bias.size()));
    }

    void read_polynomial() {
        PolynomialRule& p = file_.polynomial;
        p.n_features = d_;
        in_.key("bias");
        p.bias = in_.number("bias");
        in_.expect_end_of_line("bias");
        const Index n = read_count("n_terms", 0);
        std::vector<double> coef;
        for (Index t = 0; t < n; ++t) {
            const std::string what = "term " + std::to_string(t + 1) + " of " + std::to_string(n);
            in_.expect_line(what + " (coef and 1-" + std::to_string(max_term_factors) +
                            " factors)");
            coef.push_back(in_.number(what + " coef"));
            IndexVector factors;
            while (true) {
                const char* at = in_.here();
                if (at == in_.line_end()) break;
                if (factors.size() == max_term_factors)
                    in_.fail(at, what + ": more than " + std::to_string(max_term_factors) +
                                     " factors");
                const std::string factor = what + " factor " + std::to_string(factors.size() + 1);
                factors.push_back(static_cast<Index>(in_.integer(factor, 0, d_ - 1)));
            }
            if (factors.empty()) in_.fail(in_.here(), what + " has no factors");
            p.factors.push_back(std::move(factors));
        }
        p.coef = Eigen::Map<const Vector>(coef.data(), Index(coef.size()));
    }

    // Optional sections, then "end".
    void read_sections() {
        std::set<std::string> seen;
        while (true) {
            in_.expect_line(sections_expected);
            auto [b, e] = in_.token();
            const std::string section(b, e);
            if (section == "end") {
                in_.expect_end_of_line("'end'");
                break;
            }
            if (section != "method" && section != "log10" && section != "standardize" &&
                section != "feature_names" && section != "labels")
                in_.fail(b, "expected " + sections_expected + ", found " +
                                (b == e ? std::string("an empty line") : detail::quote_token(b, e)));
            if (!seen.insert(section).second)
                in_.fail(b, "section '" + section + "' appears more than once");
            if (section == "method")
                read_method();
            else if (section == "log10")
                file_.log10 = read_value("the log10 flag", 0, 1) == 1;
            else if (section == "standardize")
                read_standardizer();
            else if (section == "feature_names")
                read_feature_names();
            else
                read_labels();
        }
    }

    void read_method() {
        auto [nb, ne] = in_.expect_token("a method name");
        const std::string method_name(nb, ne);
        if (!detail::is_method_word(method_name))
            in_.fail(nb, "bad method name " + detail::quote_token(nb, ne) +
                             " (1-64 printable characters without spaces, '\"' or '=')");
        file_.method.name = method_name;
        std::set<std::string> keys;
        while (true) {
            auto [tb, te] = in_.token();
            if (tb == te) break;
            const char* eq = std::find(tb, te, '=');
            if (eq == te)
                in_.fail(tb, "expected key=value in the method line, got " + detail::quote_token(tb, te));
            const std::string key(tb, eq), value(eq + 1, te);
            if (!detail::is_method_key(key))
                in_.fail(tb, "bad method parameter name " + detail::quote_token(tb, eq) +
                                 " (letters, digits and '_', not starting with a digit)");
            if (!detail::is_method_word(value))
                in_.fail(eq + 1, "bad value " + detail::quote_token(eq + 1, te) +
                                     " for method parameter '" + key + "'");
            if (!keys.insert(key).second)
                in_.fail(tb, "method parameter '" + key + "' appears more than once");
            file_.method.parameters.emplace_back(key, value);
        }
    }

    // "SECTION n" where n must be the number of raw features.
    long long read_raw_count(const std::string& section) {
        const char* at = in_.here();
        const long long count = in_.integer("the " + section + " count", 0, max_model_count);
        if (count != raw_)
            in_.fail(at, section + " has " + std::to_string(count) + " entries but the model has " +
                             std::to_string(raw_) + (raw_ == d_ ? " features" : " inputs"));
        in_.expect_end_of_line("the " + section + " count");
        return count;
    }

    void read_standardizer() {
        const long long count = read_raw_count("standardize");
        Standardizer s;
        in_.key("mean");
        s.mean = in_.numbers(count, "mean");
        in_.key("scale");
        s.scale = in_.numbers(count, "scale", Parser::Sign::positive);
        file_.standardizer = std::move(s);
    }

    void read_feature_names() {
        const long long count = read_raw_count("feature_names");
        for (long long j = 0; j < count; ++j) {
            const std::string what = "feature name " + std::to_string(j + 1);
            in_.expect_line(what);
            file_.feature_names.push_back(in_.quoted(what));
            in_.expect_end_of_line(what);
        }
    }

    void read_labels() {
        const long long count = read_value("the labels count", 1, K_);
        std::set<double> values;
        for (long long j = 0; j < count; ++j) {
            const std::string what = "label " + std::to_string(j + 1);
            in_.expect_line(what);
            std::string text = in_.quoted(what);
            const char* at = in_.here();
            const double value = in_.number(what);
            if (K_ == 2 && value != 1.0 && value != -1.0)
                in_.fail(at, what + " must map to -1 or 1");
            if (K_ > 2 && !(value >= 0 && value < double(K_) && value == std::floor(value)))
                in_.fail(at, what + " must map to a class 0.." + std::to_string(K_ - 1) +
                                 " of the " + std::to_string(K_) + " classes");
            if (!values.insert(value).second)
                in_.fail(at, "two labels map to " + std::to_string(static_cast<long long>(value)));
            if (!file_.label_mapping.emplace(std::move(text), value).second)
                in_.fail(in_.line_begin(), what + " appears twice");
            in_.expect_end_of_line(what);
        }
    }

    void read_trailing() {
        const std::uint64_t end_offset = lines_.offset();
        while (in_.next_line()) {
            auto [b, e] = in_.token();
            if (b != e) in_.fail(b, "unexpected text " + detail::quote_token(b, e) + " after 'end'");
            if (lines_.offset() - end_offset > trailing_bytes)
                in_.fail(b, "more than " + detail::byte_size(trailing_bytes) +
                                " of blank lines after 'end'");
        }
    }

    const std::string& name_;
    detail::LineInput& lines_;
    Parser in_;
    std::uint64_t size_hint_;
    ModelFile file_;
    std::size_t first_line_ = 1;  // where a failed backstop validation is reported
    Index raw_ = 0;               // raw input columns (D)
    Index d_ = 0;                 // the model's features
    long long K_ = 2;             // classes
};

}  // namespace

ModelFile parse_model(std::istream& in, const std::string& name) {
    detail::LineInput lines(in, name, line_bytes, no_total_limit);
    return ModelReader(name, lines, 0).read();
}

ModelFile load_model_file(const std::string& path) {
    std::ifstream in = detail::open_text_file(path, "model ");
    detail::LineInput lines(in, path, line_bytes, no_total_limit);
    return ModelReader(path, lines, detail::regular_file_size(path)).read();
}

SvmModel load_model(const std::string& path) {
    ModelFile file = load_model_file(path);
    if (!detail::is_two_class_expansion(file.kind))
        throw InvalidArgument(path + " holds a " + to_string(file.kind) +
                              " model, not a two-class kernel expansion");
    return std::move(file.model);
}

}  // namespace zeronorm
