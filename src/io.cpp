// CSV and LIBSVM readers. The whole input is read into memory once and parsed by pointer; no
// token is copied into a std::string unless it goes into an error message or a header name.
// Numbers go through std::from_chars, which is independent of the global C/C++ locale.
#include "zeronorm/io.hpp"

#include "text_file.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <map>
#include <new>
#include <string>
#include <system_error>
#include <vector>

#include "zeronorm/error.hpp"

namespace zeronorm {
namespace {

// ---- small text helpers ---------------------------------------------------------------------

bool is_space(char c) { return c == ' ' || c == '\t'; }

const char* skip_space(const char* p, const char* e) {
    while (p != e && is_space(*p)) ++p;
    return p;
}

void trim(const char*& b, const char*& e) {
    while (b != e && is_space(*b)) ++b;
    while (e != b && is_space(e[-1])) --e;
}

bool is_blank(const char* b, const char* e) {
    for (; b != e; ++b)
        if (!is_space(*b) && *b != '\r') return false;
    return true;
}

// Splits a buffer into lines: '\n' ends a line, a '\r' just before it is dropped, the last
// line needs no newline, and a UTF-8 byte-order mark at the start is skipped.
class LineReader {
public:
    LineReader(const char* b, const char* e) : p_(b), end_(e) {
        if (end_ - p_ >= 3 && std::memcmp(p_, "\xEF\xBB\xBF", 3) == 0) p_ += 3;
    }
    // Next line in [b, e); false at the end of input. line() is its 1-based number.
    bool next(const char*& b, const char*& e) {
        if (p_ == end_) return false;
        b = p_;
        const void* nl = std::memchr(p_, '\n', static_cast<std::size_t>(end_ - p_));
        if (nl) {
            e = static_cast<const char*>(nl);
            p_ = e + 1;
        } else {
            e = end_;
            p_ = end_;
        }
        if (e != b && e[-1] == '\r') --e;
        ++line_;
        return true;
    }
    // Next line that is not blank; false at the end of input.
    bool next_nonblank(const char*& b, const char*& e) {
        while (next(b, e))
            if (!is_blank(b, e)) return true;
        return false;
    }
    std::size_t line() const { return line_; }

private:
    const char* p_;
    const char* end_;
    std::size_t line_ = 0;
};

// Raises DataFormatError at a pointer into the current line.
struct Reporter {
    const std::string& name;
    const LineReader& lines;
    const char* const& line_begin;
    [[noreturn]] void fail(const char* p, const std::string& what) const {
        throw DataFormatError(name, lines.line(), static_cast<std::size_t>(p - line_begin) + 1,
                              what);
    }
};

std::size_t count_lines(const char* b, const char* e) {
    return static_cast<std::size_t>(std::count(b, e, '\n')) + 1;
}

// ---- numbers --------------------------------------------------------------------------------

enum class NumStatus { ok, empty, invalid, non_finite, overflow };

// True when a decimal literal that from_chars reported out of range is tiny rather than huge:
// its decimal exponent (position of the first nonzero digit plus the written exponent) < 0.
bool is_underflow(const char* p, const char* e) {
    if (p != e && (*p == '-' || *p == '+')) ++p;
    bool found = false;
    long long int_digits = 0;
    long long lead_frac_zeros = 0;
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    for (; p != e && digit(*p); ++p) {
        if (found) {
            ++int_digits;
        } else if (*p != '0') {
            found = true;
            int_digits = 1;
        }
    }
    if (p != e && *p == '.') {
        for (++p; p != e && digit(*p); ++p) {
            if (found) continue;
            if (*p == '0')
                ++lead_frac_zeros;
            else
                found = true;
        }
    }
    if (!found) return true;
    const long long magnitude = int_digits > 0 ? int_digits - 1 : -(lead_frac_zeros + 1);
    long long exponent = 0;
    if (p != e && (*p == 'e' || *p == 'E')) {
        ++p;
        bool negative = false;
        if (p != e && (*p == '-' || *p == '+')) negative = (*p++ == '-');
        for (; p != e && digit(*p); ++p)
            if (exponent < 1'000'000'000) exponent = exponent * 10 + (*p - '0');
        if (negative) exponent = -exponent;
    }
    return magnitude + exponent < 0;
}

// Parses the whole of [b, e) as a finite double. A leading '+' is allowed; NaN, Inf and values
// beyond the double range are rejected; values below the smallest subnormal round to zero.
NumStatus parse_double(const char* b, const char* e, double& out) {
    if (b == e) return NumStatus::empty;
    const char* s = b;
    if (*s == '+') {
        ++s;
        if (s == e || *s == '+' || *s == '-') return NumStatus::invalid;
    }
    const auto [ptr, ec] = std::from_chars(s, e, out, std::chars_format::general);
    if (ptr != e) return NumStatus::invalid;
    if (ec == std::errc::result_out_of_range) {
        if (!is_underflow(s, e)) return NumStatus::overflow;
        out = (*s == '-') ? -0.0 : 0.0;
        return NumStatus::ok;
    }
    if (ec != std::errc()) return NumStatus::invalid;
    if (!std::isfinite(out)) return NumStatus::non_finite;
    return NumStatus::ok;
}

// Message for a number that failed to parse; `what` names the field ("column 'x3'").
std::string number_problem(NumStatus st, const char* b, const char* e, const std::string& what) {
    switch (st) {
        case NumStatus::empty:
            return "expected a number for " + what + ", got an empty field";
        case NumStatus::non_finite:
            return "non-finite value " + detail::quote_token(b, e) + " for " + what +
                   " (NaN and Inf are not allowed)";
        case NumStatus::overflow:
            return "value " + detail::quote_token(b, e) + " for " + what + " overflows a double";
        default:
            return "expected a number for " + what + ", got " + detail::quote_token(b, e);
    }
}

// Labels must be integers that a double holds exactly.
constexpr double max_label = 9007199254740992.0;  // 2^53

bool is_integer_label(double v) { return std::floor(v) == v && std::fabs(v) <= max_label; }

std::string label_text(double v) { return std::to_string(static_cast<long long>(v)); }

// Position of a token in the input, for errors found after parsing.
struct Position {
    std::size_t line = 0;
    std::size_t column = 0;
};

// Applies the label rule of io.hpp to y in place and returns the mapping (empty when unchanged).
std::map<std::string, double> map_labels(std::vector<double>& y, const std::string& name,
                                         const ReadOptions& options, Position first_label) {
    std::vector<double> distinct(y);
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    const auto k = static_cast<long long>(distinct.size());

    if (k < options.min_classes) {
        std::string seen;
        for (double v : distinct) seen += (seen.empty() ? "" : ", ") + label_text(v);
        throw DataFormatError(name, first_label.line, first_label.column,
                              "found " + std::to_string(k) + " distinct label" +
                                  (k == 1 ? "" : "s") + " (" + seen + ") in " +
                                  std::to_string(y.size()) + " rows, but at least " +
                                  std::to_string(options.min_classes) +
                                  " classes are required (ReadOptions::min_classes)");
    }

    std::vector<double> target;
    const bool plus_minus_one =
        std::all_of(distinct.begin(), distinct.end(), [](double v) { return v == -1 || v == 1; });
    if (plus_minus_one || k < 2) {
        return {};
    } else if (k == 2) {
        target = {-1.0, 1.0};
    } else {
        bool zero_based = true;
        for (long long i = 0; i < k; ++i) zero_based = zero_based && distinct[static_cast<std::size_t>(i)] == static_cast<double>(i);
        if (zero_based) return {};
        for (long long i = 0; i < k; ++i) target.push_back(static_cast<double>(i));
    }

    std::map<std::string, double> mapping;
    for (std::size_t i = 0; i < distinct.size(); ++i) mapping[label_text(distinct[i])] = target[i];
    for (double& v : y)
        v = target[static_cast<std::size_t>(std::lower_bound(distinct.begin(), distinct.end(), v) -
                                            distinct.begin())];
    return mapping;
}

void check_options(const ReadOptions& options) {
    ZN_EXPECTS(options.min_classes >= 1,
               "ReadOptions::min_classes must be >= 1, got " << options.min_classes);
    ZN_EXPECTS(options.n_features >= 0,
               "ReadOptions::n_features must be >= 0, got " << options.n_features);
    ZN_EXPECTS(options.max_features >= 1,
               "ReadOptions::max_features must be >= 1, got " << options.max_features);
}

// ---- CSV ------------------------------------------------------------------------------------

std::string strip_quotes(const char* b, const char* e) {
    if (e - b >= 2 && *b == '"' && e[-1] == '"') return std::string(b + 1, e - 1);
    return std::string(b, e);
}

Dataset parse_csv_buffer(const char* data, std::size_t size, const std::string& name,
                         const ReadOptions& options) {
    check_options(options);
    ZN_EXPECTS(options.has_header || options.label_column.empty(),
               "ReadOptions::label_column ('" << options.label_column
                                              << "') needs has_header = true");
    const char* const end = data + size;
    LineReader lines(data, end);
    const char* lb = nullptr;
    const char* le = nullptr;
    const Reporter at{name, lines, lb};
    auto col = [&](const char* p) { return static_cast<std::size_t>(p - lb) + 1; };

    // Header, or the first row's field count when there is none.
    std::vector<std::string> names;
    std::size_t n_cols = 0;
    if (!lines.next_nonblank(lb, le)) {
        throw DataFormatError(name, 1, 1,
                              options.has_header
                                  ? "empty file: expected a header line with column names"
                                  : "empty file: expected at least one data row");
    }
    if (options.has_header) {
        for (const char* p = lb;;) {
            const char* q = static_cast<const char*>(
                std::memchr(p, ',', static_cast<std::size_t>(le - p)));
            if (!q) q = le;
            const char* fb = p;
            const char* fe = q;
            trim(fb, fe);
            std::string field = strip_quotes(fb, fe);
            if (field.empty())
                at.fail(fb, "empty column name in the header (column " +
                             std::to_string(names.size() + 1) + ")");
            names.push_back(std::move(field));
            if (q == le) break;
            p = q + 1;
        }
        n_cols = names.size();
    } else {
        n_cols = static_cast<std::size_t>(std::count(lb, le, ',')) + 1;
    }
    if (n_cols < 2)
        at.fail(lb, "expected at least 2 columns (features and a label), got " +
                     std::to_string(n_cols));

    std::size_t label_col = n_cols - 1;
    if (!options.label_column.empty()) {
        label_col = n_cols;
        for (std::size_t j = 0; j < n_cols; ++j) {
            if (names[j] != options.label_column) continue;
            if (label_col != n_cols)
                at.fail(lb, "label column '" + options.label_column +
                             "' appears more than once in the header (columns " +
                             std::to_string(label_col + 1) + " and " + std::to_string(j + 1) +
                             ")");
            label_col = j;
        }
        if (label_col == n_cols) {
            std::string shown;
            for (std::size_t j = 0; j < n_cols && j < 10; ++j)
                shown += (j ? ", " : "") + names[j];
            if (n_cols > 10) shown += ", ... (" + std::to_string(n_cols) + " columns)";
            at.fail(lb, "label column '" + options.label_column +
                         "' not found in the header; columns are: " + shown);
        }
    }
    const std::size_t d = n_cols - 1;
    auto column_name = [&](std::size_t j) {
        return names.empty() ? "column " + std::to_string(j + 1)
                             : "column " + std::to_string(j + 1) + " ('" + names[j] + "')";
    };

    std::vector<double> features;
    std::vector<double> y;
    const std::size_t row_estimate = count_lines(lb, end);
    // Every value takes at least two bytes ("0,"), which bounds the reservation for odd inputs.
    features.reserve(std::min(row_estimate * d, size / 2 + d));
    y.reserve(row_estimate);
    Position first_label;

    bool have_line = !options.has_header;  // without a header the first row is already in lb/le
    std::size_t header_line = lines.line();
    while (have_line || lines.next_nonblank(lb, le)) {
        have_line = false;
        std::size_t j = 0;
        for (const char* p = lb;; ++j) {
            const char* q = static_cast<const char*>(
                std::memchr(p, ',', static_cast<std::size_t>(le - p)));
            if (!q) q = le;
            if (j >= n_cols)
                at.fail(p, "expected " + std::to_string(n_cols) + " fields, got " +
                            std::to_string(std::count(lb, le, ',') + 1));
            const char* fb = p;
            const char* fe = q;
            trim(fb, fe);
            double v = 0;
            const NumStatus st = parse_double(fb, fe, v);
            if (j == label_col) {
                if (st != NumStatus::ok)
                    at.fail(fb, number_problem(st, fb, fe, "the label (" + column_name(j) + ")"));
                if (!is_integer_label(v))
                    at.fail(fb, "expected an integer class label in " + column_name(j) + ", got " +
                                 detail::quote_token(fb, fe));
                if (y.empty()) first_label = {lines.line(), col(fb)};
                y.push_back(v);
            } else {
                if (st != NumStatus::ok) at.fail(fb, number_problem(st, fb, fe, column_name(j)));
                features.push_back(v);
            }
            if (q == le) break;
            p = q + 1;
        }
        if (j + 1 < n_cols)
            at.fail(le, "expected " + std::to_string(n_cols) + " fields, got " +
                         std::to_string(j + 1));
    }
    if (y.empty())
        throw DataFormatError(name, header_line + 1, 1,
                              "no data rows after the header: expected at least one row");

    Dataset ds;
    const auto n = static_cast<Index>(y.size());
    ds.X = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
        features.data(), n, static_cast<Index>(d));
    ds.label_mapping = map_labels(y, name, options, first_label);
    ds.y = Eigen::Map<const Vector>(y.data(), n);
    if (!names.empty()) {
        names.erase(names.begin() + static_cast<std::ptrdiff_t>(label_col));
        ds.feature_names = std::move(names);
    }
    return ds;
}

// ---- LIBSVM ---------------------------------------------------------------------------------

Dataset parse_libsvm_buffer(const char* data, std::size_t size, const std::string& name,
                            const ReadOptions& options) {
    check_options(options);
    const char* const end = data + size;
    LineReader lines(data, end);
    const char* lb = nullptr;
    const char* le = nullptr;
    const Reporter at{name, lines, lb};
    auto col = [&](const char* p) { return static_cast<std::size_t>(p - lb) + 1; };

    // Rows in compressed form: entries [row_start[i], row_start[i+1]) belong to row i.
    std::vector<std::size_t> row_start{0};
    std::vector<Index> cols;
    std::vector<double> vals;
    std::vector<double> y;
    Position first_label;
    long long max_index = 0;

    while (lines.next_nonblank(lb, le)) {
        // Label.
        const char* t = skip_space(lb, le);
        const char* te = t;
        while (te != le && !is_space(*te)) ++te;
        if (std::memchr(t, ':', static_cast<std::size_t>(te - t)))
            at.fail(t, "missing label: expected a class label before the first index:value pair, "
                    "got " + detail::quote_token(t, te));
        double label = 0;
        const NumStatus st = parse_double(t, te, label);
        if (st != NumStatus::ok) at.fail(t, number_problem(st, t, te, "the label"));
        if (!is_integer_label(label))
            at.fail(t, "expected an integer class label, got " + detail::quote_token(t, te));
        if (y.empty()) first_label = {lines.line(), col(t)};
        y.push_back(label);

        // index:value pairs.
        long long prev = 0;
        for (t = skip_space(te, le); t != le; t = skip_space(te, le)) {
            te = t;
            while (te != le && !is_space(*te)) ++te;
            const char* colon =
                static_cast<const char*>(std::memchr(t, ':', static_cast<std::size_t>(te - t)));
            if (!colon) at.fail(t, "expected index:value (no ':'), got " + detail::quote_token(t, te));
            if (colon == t) at.fail(t, "expected a feature index before ':', got " + detail::quote_token(t, te));
            long long idx = 0;
            const auto [ptr, ec] = std::from_chars(t, colon, idx);
            if (ptr != colon || ec == std::errc::invalid_argument)
                at.fail(t, "expected an integer feature index before ':', got " + detail::quote_token(t, colon));
            if (ec == std::errc::result_out_of_range) idx = (*t == '-') ? LLONG_MIN : LLONG_MAX;
            if (idx <= 0)
                at.fail(t, "feature index must be >= 1 (indices are 1-based), got " +
                            detail::quote_token(t, colon));
            if (idx > options.max_features)
                at.fail(t, "feature index " + detail::quote_token(t, colon) + " is absurdly large (above " +
                            "ReadOptions::max_features = " +
                            std::to_string(options.max_features) + ")");
            if (options.n_features > 0 && idx > options.n_features)
                at.fail(t, "feature index " + std::to_string(idx) + " exceeds n_features = " +
                            std::to_string(options.n_features));
            if (idx == prev)
                at.fail(t, "duplicate feature index " + std::to_string(idx) +
                            " (indices must be strictly ascending)");
            if (idx < prev)
                at.fail(t, "feature indices must be strictly ascending: " + std::to_string(idx) +
                            " after " + std::to_string(prev) + " (unsorted)");
            double v = 0;
            const NumStatus vs = parse_double(colon + 1, te, v);
            if (vs != NumStatus::ok)
                at.fail(colon + 1, number_problem(vs, colon + 1, te,
                                               "feature " + std::to_string(idx) + " after ':'"));
            prev = idx;
            cols.push_back(static_cast<Index>(idx - 1));
            vals.push_back(v);
        }
        max_index = std::max(max_index, prev);
        row_start.push_back(cols.size());
    }
    if (y.empty())
        throw DataFormatError(name, 1, 1,
                              "empty file: expected at least one data row");

    Dataset ds;
    const auto n = static_cast<Index>(y.size());
    const Index d = options.n_features > 0 ? options.n_features : static_cast<Index>(max_index);
    try {
        ds.X = Matrix::Zero(n, d);
    } catch (const std::bad_alloc&) {
        throw Error("'" + name + "': cannot allocate the dense " + std::to_string(n) + " x " +
                    std::to_string(d) + " matrix for this LIBSVM data (" +
                    std::to_string(static_cast<double>(n) * static_cast<double>(d) * 8e-9) +
                    " GB)");
    }
    for (Index i = 0; i < n; ++i) {
        const auto row = static_cast<std::size_t>(i);
        for (std::size_t k = row_start[row]; k < row_start[row + 1]; ++k) ds.X(i, cols[k]) = vals[k];
    }
    ds.label_mapping = map_labels(y, name, options, first_label);
    ds.y = Eigen::Map<const Vector>(y.data(), n);
    return ds;
}

bool ends_with_csv(const std::string& path) {
    if (path.size() < 4) return false;
    std::string ext = path.substr(path.size() - 4);
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext == ".csv";
}

}  // namespace

Dataset parse_csv(std::istream& in, const std::string& name, const ReadOptions& options) {
    const std::string buf = detail::read_stream(in, name, 0);
    return parse_csv_buffer(buf.data(), buf.size(), name, options);
}

Dataset parse_libsvm(std::istream& in, const std::string& name, const ReadOptions& options) {
    const std::string buf = detail::read_stream(in, name, 0);
    return parse_libsvm_buffer(buf.data(), buf.size(), name, options);
}

Dataset read_csv(const std::string& path, const ReadOptions& options) {
    const std::string buf = detail::read_text_file(path, "");
    return parse_csv_buffer(buf.data(), buf.size(), path, options);
}

Dataset read_libsvm(const std::string& path, const ReadOptions& options) {
    const std::string buf = detail::read_text_file(path, "");
    return parse_libsvm_buffer(buf.data(), buf.size(), path, options);
}

Dataset read_dataset(const std::string& path, const ReadOptions& options) {
    return ends_with_csv(path) ? read_csv(path, options) : read_libsvm(path, options);
}

}  // namespace zeronorm
