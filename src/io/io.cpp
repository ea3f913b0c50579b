// CSV and LIBSVM readers. The whole input is read into memory once and parsed by pointer; no
// token is copied into a std::string unless it goes into an error message or a header name.
// Numbers go through std::from_chars, which is independent of the global C/C++ locale.
#include "zeronorm/io/io.hpp"

#include "io/text_file.hpp"

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

#include "zeronorm/core/error.hpp"

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

// Raises DataFormatError at a pointer into the current line.
struct Reporter {
    const std::string& name;
    const detail::LineInput& lines;
    const char* const& line_begin;
    [[noreturn]] void fail(const char* p, const std::string& what) const {
        throw DataFormatError(name, lines.line(), static_cast<std::size_t>(p - line_begin) + 1,
                              what);
    }
};

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

// Refuses fewer than ReadOptions::min_classes distinct labels; `seen` lists them.
void check_class_count(std::size_t k, const std::string& seen, std::size_t rows,
                       const std::string& name, const ReadOptions& options, Position first_label) {
    if (k >= static_cast<std::size_t>(options.min_classes)) return;
    throw DataFormatError(name, first_label.line, first_label.column,
                          "found " + std::to_string(k) + " distinct label" + (k == 1 ? "" : "s") +
                              " (" + seen + ") in " + std::to_string(rows) +
                              " rows, but at least " + std::to_string(options.min_classes) +
                              " classes are required (ReadOptions::min_classes)");
}

// Applies the label rule of io.hpp to y in place and returns the mapping (empty when unchanged).
std::map<std::string, double> map_labels(std::vector<double>& y, const std::string& name,
                                         const ReadOptions& options, Position first_label) {
    std::vector<double> distinct(y);
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    const auto k = static_cast<long long>(distinct.size());
    std::string seen;
    for (double v : distinct) seen += (seen.empty() ? "" : ", ") + label_text(v);
    check_class_count(distinct.size(), seen, y.size(), name, options, first_label);

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

// Class names in byte order: two map to -1 and +1, one or K > 2 to 0..K-1 (the rule of io.hpp).
std::map<std::string, double> map_label_names(const std::vector<std::string>& names,
                                              std::vector<double>& y, const std::string& name,
                                              const ReadOptions& options, Position first_label) {
    std::map<std::string, double> mapping;
    for (const auto& text : names) mapping.emplace(text, 0.0);
    std::string seen;
    for (const auto& entry : mapping) {
        if (seen.size() > 200) {
            seen += ", ...";
            break;
        }
        seen += (seen.empty() ? "'" : ", '") + entry.first + "'";
    }
    check_class_count(mapping.size(), seen, names.size(), name, options, first_label);
    double next = mapping.size() == 2 ? -1.0 : 0.0;
    for (auto& entry : mapping) {
        entry.second = next;
        next += mapping.size() == 2 ? 2.0 : 1.0;
    }
    y.resize(names.size());
    for (std::size_t i = 0; i < names.size(); ++i) y[i] = mapping.at(names[i]);
    return mapping;
}

// Ends the messages of ReadOptions::positive_features.
constexpr const char* positive_reason =
    ", but log10 needs every feature > 0 (ReadOptions::positive_features)";

void check_options(const ReadOptions& options) {
    ZN_EXPECTS(options.min_classes >= 1,
               "ReadOptions::min_classes must be >= 1, got " << options.min_classes);
    ZN_EXPECTS(options.n_features >= 0,
               "ReadOptions::n_features must be >= 0, got " << options.n_features);
    ZN_EXPECTS(options.max_features >= 1,
               "ReadOptions::max_features must be >= 1, got " << options.max_features);
    ZN_EXPECTS(options.max_dense_per_nonzero >= 0,
               "ReadOptions::max_dense_per_nonzero must be >= 0, got "
                   << options.max_dense_per_nonzero);
    ZN_EXPECTS(options.max_line_bytes >= 1,
               "ReadOptions::max_line_bytes must be >= 1, got " << options.max_line_bytes);
    ZN_EXPECTS(options.max_bytes >= 1, "ReadOptions::max_bytes must be >= 1, got " << options.max_bytes);
    const char sep = options.delimiter;
    ZN_EXPECTS(sep != '"' && sep != '\n' && sep != '\r' && sep != ' ',
               "ReadOptions::delimiter may not be a quote, a space or a line end");
}

// ---- CSV ------------------------------------------------------------------------------------

// One field of a CSV line. RFC 4180 quoting: a field in double quotes may hold ',' and '""'
// for one '"'; spaces around a field (quoted or not) are dropped.
struct CsvField {
    const char* b = nullptr;  // its text, inside the quotes when quoted
    const char* e = nullptr;
    bool has_escaped_quote = false;

    std::string text() const {
        std::string s(b, e);
        if (!has_escaped_quote) return s;
        std::string out;
        for (std::size_t k = 0; k < s.size(); ++k) {
            out += s[k];
            if (s[k] == '"') ++k;  // the second quote of a '""' pair
        }
        return out;
    }
};

// Skips spaces and tabs, but not the field separator (a tab in tab-separated files).
const char* skip_blank(const char* p, const char* e, char sep) {
    while (p != e && is_space(*p) && *p != sep) ++p;
    return p;
}

// Splits off the field that starts at p; returns where it ends: at its separator or at le.
const char* split_csv_field(const char* p, const char* le, char sep, const Reporter& at,
                            CsvField& f) {
    const char* b = skip_blank(p, le, sep);
    f.has_escaped_quote = false;
    if (b == le || *b != '"') {
        const char* q =
            static_cast<const char*>(std::memchr(p, sep, static_cast<std::size_t>(le - p)));
        if (!q) q = le;
        f.b = p;
        f.e = q;
        trim(f.b, f.e);
        return q;
    }
    const char* c = b + 1;
    for (;; c += 2) {
        c = static_cast<const char*>(std::memchr(c, '"', static_cast<std::size_t>(le - c)));
        if (!c)
            at.fail(b, "quoted field without its closing '\"' on this line (a line break inside "
                       "a quoted field is not supported)");
        if (c + 1 == le || c[1] != '"') break;
        f.has_escaped_quote = true;
    }
    f.b = b + 1;
    f.e = c;
    const char* after = skip_blank(c + 1, le, sep);
    if (after != le && *after != sep) {
        const char* stop = after;
        while (stop != le && *stop != sep) ++stop;
        at.fail(after, "unexpected " + detail::quote_token(after, stop) +
                           " after the closing '\"' of a quoted field: expected " +
                           detail::quote_token(&sep, &sep + 1) + " or the end of the line");
    }
    return after;
}

// The fields of the line [b, e).
std::vector<CsvField> split_csv_line(const char* b, const char* e, char sep, const Reporter& at) {
    std::vector<CsvField> fields(1);
    for (const char* p = split_csv_field(b, e, sep, at, fields.back()); p != e;
         p = split_csv_field(p + 1, e, sep, at, fields.back()))
        fields.emplace_back();
    return fields;
}

// CsvHeader::detect's rule: the first line is data when every field but the label's (from
// field `from` on) is a number, unless there are three or more and they are the column numbers
// 0, 1, 2, ... or 1, 2, 3, ... (the header a data frame of unnamed columns is written with).
bool first_line_is_data(const std::vector<CsvField>& fields, std::size_t label_col,
                        std::size_t from = 0) {
    std::size_t numbers = 0;
    bool from_zero = true;
    bool from_one = true;
    for (std::size_t j = from; j < fields.size(); ++j) {
        if (j == label_col) continue;
        const char* b = fields[j].b;
        const char* e = fields[j].e;
        trim(b, e);
        double v = 0;
        if (parse_double(b, e, v) != NumStatus::ok) return false;
        from_zero = from_zero && v == static_cast<double>(numbers);
        from_one = from_one && v == static_cast<double>(numbers + 1);
        ++numbers;
    }
    return numbers > 0 && (numbers < 3 || (!from_zero && !from_one));
}

Dataset parse_csv_lines(detail::LineInput& lines, const std::string& name,
                        const ReadOptions& options) {
    ZN_EXPECTS(options.header != CsvHeader::absent || options.label_column.empty(),
               "ReadOptions::label_column ('" << options.label_column
                                              << "') needs a header line");
    ZN_EXPECTS(options.header != CsvHeader::absent || options.ignored_columns.empty(),
               "ReadOptions::ignored_columns needs a header line");
    const char sep = options.delimiter ? options.delimiter : ',';
    const char* lb = nullptr;
    const char* le = nullptr;
    const Reporter at{name, lines, lb};
    auto col = [&](const char* p) { return static_cast<std::size_t>(p - lb) + 1; };

    if (!lines.next_nonblank(lb, le)) {
        throw DataFormatError(name, 1, 1,
                              options.header == CsvHeader::absent
                                  ? "empty file: expected at least one data row"
                                  : "empty file: expected a header line with column names");
    }
    const std::vector<CsvField> first = split_csv_line(lb, le, sep, at);
    const std::size_t n_cols = first.size();
    // A header whose first name is empty heads a column of row names (as R's write.csv and
    // pandas' to_csv write them): that column is not read. (A first line of numbers after an
    // empty field is data short of a value.)
    const bool empty_first = n_cols >= 2 && first[0].b == first[0].e;
    const bool numbers = first_line_is_data(first, n_cols - 1, empty_first ? 1 : 0);
    const bool named_columns = !options.label_column.empty() || !options.ignored_columns.empty();
    const bool has_header = options.header == CsvHeader::present || named_columns ||
                            (options.header == CsvHeader::detect && !numbers);
    const bool row_names = empty_first && has_header;

    // Header names.
    std::vector<std::string> names;
    if (has_header) {
        for (const CsvField& f : first) {
            std::string field = f.text();
            if (field.empty() && !(row_names && names.empty()))
                at.fail(f.b, "empty column name in the header (column " +
                                 std::to_string(names.size() + 1) + ")");
            names.push_back(std::move(field));
        }
    }
    // The column called `wanted` in the header (`what` names it in the messages).
    auto find_column = [&](const std::string& wanted, const char* what) {
        std::size_t found = n_cols;
        for (std::size_t j = 0; j < n_cols; ++j) {
            if (names[j] != wanted) continue;
            if (found != n_cols)
                at.fail(lb, std::string(what) + " '" + wanted +
                                "' appears more than once in the header (columns " +
                                std::to_string(found + 1) + " and " + std::to_string(j + 1) + ")");
            found = j;
        }
        if (found == n_cols) {
            std::string shown;
            for (std::size_t j = 0; j < n_cols && j < 10; ++j)
                shown += (j ? ", " : "") + names[j];
            if (n_cols > 10) shown += ", ... (" + std::to_string(n_cols) + " columns)";
            at.fail(lb, std::string(what) + " '" + wanted +
                            "' not found in the header; columns are: " + shown);
        }
        return found;
    };
    // Columns not read: the row names and the ignored ones.
    std::vector<char> skipped(n_cols, 0);
    if (row_names) skipped[0] = 1;
    for (const std::string& ignored : options.ignored_columns)
        skipped[find_column(ignored, "ignored column")] = 1;
    const auto n_skipped =
        static_cast<std::size_t>(std::count(skipped.begin(), skipped.end(), char{1}));
    const std::size_t n_data = n_cols - n_skipped;  // the features and the label
    const std::string besides =
        n_skipped == 0 ? ""
                       : " besides " + std::string(row_names ? "the row names" : "") +
                             (row_names && n_skipped > 1 ? " and " : "") +
                             (n_skipped > (row_names ? 1u : 0u) ? "the ignored columns" : "");
    if (n_data < 2 && !(options.allow_unlabelled && options.n_features == 1 && n_data == 1)) {
        std::string hint;
        for (char other : {',', ';', '\t', '|'})
            if (other != sep && std::memchr(lb, other, static_cast<std::size_t>(le - lb)))
                hint = " (the separator is " + detail::quote_token(&sep, &sep + 1) +
                       ", but the line holds " + detail::quote_token(&other, &other + 1) +
                       ": ReadOptions::delimiter, --delimiter)";
        at.fail(lb, "expected at least 2 columns (features and a label)" + besides + ", got " +
                        std::to_string(n_data) + hint);
    }
    // A model's feature count says whether the file has a label column.
    const bool labelled = !(options.allow_unlabelled && options.n_features > 0 &&
                            options.label_column.empty() &&
                            n_data == static_cast<std::size_t>(options.n_features));
    if (options.n_features > 0 && labelled &&
        n_data != static_cast<std::size_t>(options.n_features) + 1)
        at.fail(lb, "expected " + std::to_string(options.n_features) +
                        " feature columns and a label (" + std::to_string(options.n_features + 1) +
                        " columns" +
                        (options.allow_unlabelled
                             ? ", or " + std::to_string(options.n_features) + " without labels"
                             : std::string()) +
                        ")" + besides + ", got " + std::to_string(n_data));

    // The label column: by name, else the last one read.
    const std::size_t no_label = n_cols;
    std::size_t label_col = no_label;
    if (!options.label_column.empty()) {
        label_col = find_column(options.label_column, "label column");
        if (skipped[label_col])
            at.fail(lb, "label column '" + options.label_column + "' is " +
                            (label_col == 0 && row_names ? "the row names" : "ignored"));
    } else if (labelled) {
        label_col = n_cols - 1;
        while (skipped[label_col]) --label_col;
    }
    const std::size_t d = labelled ? n_data - 1 : n_data;
    auto column_name = [&](std::size_t j) {
        return names.empty() ? "column " + std::to_string(j + 1)
                             : "column " + std::to_string(j + 1) + " ('" + names[j] + "')";
    };

    std::vector<double> features;
    std::vector<double> y;
    std::vector<std::string> label_names;  // when the labels are class names
    Position first_label;
    Position first_number;  // of a numeric label, for the message when names follow
    std::size_t rows = 0;
    auto mixed_labels = [&](const char* fb, const char* fe, std::size_t j, const char* is,
                            const char* before, Position since) {
        at.fail(fb, "label " + detail::quote_token(fb, fe) + " in " + column_name(j) + " is " +
                        is + ", but the labels before it are " + before + " (line " +
                        std::to_string(since.line) +
                        "): the labels are all numbers or all class names");
    };

    bool have_line = !has_header;  // without a header the first row is already in lb/le
    const std::size_t header_line = lines.line();
    while (have_line || lines.next_nonblank(lb, le)) {
        have_line = false;
        std::size_t j = 0;
        for (const char* p = lb;; ++j) {
            if (j >= n_cols)
                at.fail(p, "expected " + std::to_string(n_cols) + " fields, got " +
                               std::to_string(split_csv_line(lb, le, sep, at).size()));
            CsvField f;
            const char* q = split_csv_field(p, le, sep, at, f);
            const char* fb = f.b;
            const char* fe = f.e;
            trim(fb, fe);
            double v = 0;
            const NumStatus st = parse_double(fb, fe, v);
            if (skipped[j]) {
                // A row's name, or an ignored column: not read.
            } else if (j == label_col) {
                if (rows == 0) first_label = {lines.line(), col(fb)};
                if (st == NumStatus::invalid) {  // a class name
                    if (!y.empty()) mixed_labels(fb, fe, j, "a name", "numbers", first_number);
                    CsvField trimmed = f;
                    trimmed.b = fb;
                    trimmed.e = fe;
                    label_names.push_back(trimmed.text());
                } else {
                    if (st != NumStatus::ok)
                        at.fail(fb, number_problem(st, fb, fe,
                                                   "the label (" + column_name(j) + ")"));
                    if (!label_names.empty())
                        mixed_labels(fb, fe, j, "a number", "class names", first_label);
                    if (!is_integer_label(v))
                        at.fail(fb, "expected an integer class label in " + column_name(j) +
                                        ", got " + detail::quote_token(fb, fe));
                    if (y.empty()) first_number = {lines.line(), col(fb)};
                    y.push_back(v);
                }
            } else {
                if (st != NumStatus::ok)
                    at.fail(fb, number_problem(st, fb, fe, column_name(j)) +
                                    (st == NumStatus::invalid && has_header
                                         ? " (a column of names or notes? ReadOptions::"
                                           "ignored_columns, --ignore-columns, leaves it unread)"
                                         : ""));
                if (options.positive_features && !(v > 0))
                    at.fail(fb, "value " + detail::quote_token(fb, fe) + " in " + column_name(j) +
                                    " is not positive" + positive_reason);
                features.push_back(v);
            }
            if (q == le) break;
            p = q + 1;
        }
        if (j + 1 < n_cols)
            at.fail(le, "expected " + std::to_string(n_cols) + " fields, got " +
                         std::to_string(j + 1));
        ++rows;
    }
    if (rows == 0)
        throw DataFormatError(name, header_line + 1, 1,
                              "no data rows after the header: expected at least one row");

    Dataset ds;
    const auto n = static_cast<Index>(rows);
    ds.X = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
        features.data(), n, static_cast<Index>(d));
    if (labelled) {
        ds.label_mapping = label_names.empty()
                               ? map_labels(y, name, options, first_label)
                               : map_label_names(label_names, y, name, options, first_label);
        ds.y = Eigen::Map<const Vector>(y.data(), n);
    }
    if (!names.empty()) {
        for (std::size_t j = 0; j < n_cols; ++j)
            if (!skipped[j] && j != label_col) ds.feature_names.push_back(std::move(names[j]));
    }
    return ds;
}

// ---- LIBSVM ---------------------------------------------------------------------------------

// Refuses a dense n x d matrix far larger than the data's non-zeros (one stray huge index would
// otherwise allocate gigabytes for a kilobyte file); `at` is where the largest index stands.
void check_dense_size(Index n, Index d, std::size_t nonzeros, const std::string& name,
                      Position at, const ReadOptions& options) {
    if (options.max_dense_per_nonzero <= 0) return;
    const double entries = static_cast<double>(n) * static_cast<double>(d);
    const double allowed = std::max(static_cast<double>(dense_entries_always_allowed),
                                    options.max_dense_per_nonzero * static_cast<double>(nonzeros));
    if (entries <= allowed) return;
    auto general = [](double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.4g", v);
        return std::string(buf);
    };
    throw DataFormatError(
        name, at.line, at.column,
        "feature index " + std::to_string(d) + " makes the dense matrix " + std::to_string(n) +
            " x " + std::to_string(d) + " = " + general(entries) + " entries (" +
            detail::byte_size(static_cast<std::uint64_t>(entries * sizeof(double))) +
            ") for only " + std::to_string(nonzeros) +
            " non-zeros; the limit is max(2^24, ReadOptions::max_dense_per_nonzero = " +
            general(options.max_dense_per_nonzero) +
            " x non-zeros) entries. Is the index a typo? Raise the limit to read it anyway");
}

Dataset parse_libsvm_lines(detail::LineInput& lines, const std::string& name,
                           const ReadOptions& options) {
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
    Position max_index_at;
    std::size_t nonzeros = 0;
    // With positive_features, each row's last index and where its line ends: a row that stops
    // before the last feature leaves the features after it zero.
    std::vector<std::pair<long long, Position>> row_ends;

    while (lines.next_nonblank(lb, le)) {
        // SVMlight: a '#' starts a comment to the end of the line; a line of only a comment is
        // skipped.
        if (const void* hash = std::memchr(lb, '#', static_cast<std::size_t>(le - lb)))
            le = static_cast<const char*>(hash);
        const char* t = skip_space(lb, le);
        if (t == le) continue;
        // Label.
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
            if (prev == 0 && te - t > 4 && std::memcmp(t, "qid:", 4) == 0) {
                // SVMlight's query id, right after the label: not a feature.
                long long qid = 0;
                const auto [qe, qec] = std::from_chars(t + 4, te, qid);
                if (qe != te || qec != std::errc())
                    at.fail(t + 4, "expected an integer query id after 'qid:', got " +
                                       detail::quote_token(t + 4, te));
                continue;
            }
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
                at.fail(t, "feature index " + detail::quote_token(t, colon) + " is above the reader's limit of " +
                            std::to_string(options.max_features) + " features");
            if (options.n_features > 0 && idx > options.n_features)
                at.fail(t, "feature index " + std::to_string(idx) + " exceeds the " +
                               std::to_string(options.n_features) +
                               " features expected (e.g. by a model: a LIBSVM file may "
                               "omit the last ones, not add more)");
            if (idx == prev)
                at.fail(t, "duplicate feature index " + std::to_string(idx) +
                            " (indices must be strictly ascending)");
            if (idx < prev)
                at.fail(t, "feature indices must be strictly ascending: " + std::to_string(idx) +
                            " after " + std::to_string(prev) + " (unsorted)");
            if (options.positive_features && idx != prev + 1)
                at.fail(t, "feature " + std::to_string(prev + 1) + " is missing, so zero" +
                               positive_reason);
            double v = 0;
            const NumStatus vs = parse_double(colon + 1, te, v);
            if (vs != NumStatus::ok)
                at.fail(colon + 1, number_problem(vs, colon + 1, te,
                                               "feature " + std::to_string(idx) + " after ':'"));
            if (options.positive_features && !(v > 0))
                at.fail(colon + 1, "value " + detail::quote_token(colon + 1, te) + " of feature " +
                                       std::to_string(idx) + " is not positive" +
                                       positive_reason);
            if (idx > max_index) {
                max_index = idx;
                max_index_at = {lines.line(), col(t)};
            }
            nonzeros += v != 0;
            prev = idx;
            cols.push_back(static_cast<Index>(idx - 1));
            vals.push_back(v);
        }
        if (options.positive_features) row_ends.push_back({prev, {lines.line(), col(le)}});
        row_start.push_back(cols.size());
    }
    if (y.empty())
        throw DataFormatError(name, 1, 1,
                              "empty file: expected at least one data row");

    Dataset ds;
    const auto n = static_cast<Index>(y.size());
    const Index d = options.n_features > 0 ? options.n_features : static_cast<Index>(max_index);
    if (options.n_features == 0) check_dense_size(n, d, nonzeros, name, max_index_at, options);
    for (const auto& [last, end_at] : row_ends)
        if (last < d)
            throw DataFormatError(name, end_at.line, end_at.column,
                                  "features " + std::to_string(last + 1) + ".." +
                                      std::to_string(d) + " are missing, so zero" +
                                      positive_reason);
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

// Opens a data file; a regular file above ReadOptions::max_bytes is refused before reading.
std::ifstream open_data_file(const std::string& path, const ReadOptions& options) {
    std::ifstream in = detail::open_text_file(path, "");
    const std::uint64_t size = detail::regular_file_size(path);
    if (size > options.max_bytes)
        throw DataFormatError(path, 1, 1,
                              "file of " + detail::byte_size(size) + " is above the reader's limit of " +
                                  detail::byte_size(options.max_bytes) + " (ReadOptions::max_bytes)");
    return in;
}

// The file's extension in lower case, with its dot ("" when there is none).
std::string lower_extension(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext;
}

}  // namespace

Dataset parse_csv(std::istream& in, const std::string& name, const ReadOptions& options) {
    check_options(options);
    detail::LineInput lines(in, name, options.max_line_bytes, options.max_bytes);
    return parse_csv_lines(lines, name, options);
}

Dataset parse_libsvm(std::istream& in, const std::string& name, const ReadOptions& options) {
    check_options(options);
    detail::LineInput lines(in, name, options.max_line_bytes, options.max_bytes);
    return parse_libsvm_lines(lines, name, options);
}

Dataset read_csv(const std::string& path, const ReadOptions& options) {
    std::ifstream in = open_data_file(path, options);
    return parse_csv(in, path, options);
}

Dataset read_libsvm(const std::string& path, const ReadOptions& options) {
    std::ifstream in = open_data_file(path, options);
    return parse_libsvm(in, path, options);
}

bool is_csv_path(const std::string& path) {
    const std::string ext = lower_extension(path);
    return ext == ".csv" || ext == ".tsv" || ext == ".tab";
}

Dataset read_dataset(const std::string& path, const ReadOptions& options) {
    if (!is_csv_path(path)) return read_libsvm(path, options);
    if (lower_extension(path) == ".csv") return read_csv(path, options);
    ReadOptions tab_separated = options;
    if (!tab_separated.delimiter) tab_separated.delimiter = '\t';
    return read_csv(path, tab_separated);
}

}  // namespace zeronorm
