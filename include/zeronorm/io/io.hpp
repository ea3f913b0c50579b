// Readers for labelled data: CSV (a header line when there is one, label column by name or
// last, a first column of row names under an empty header name skipped; RFC 4180 quoted
// fields, without line breaks inside quotes; ',' or another separator, tab-separated by
// default for .tsv and .tab files) and LIBSVM / SVMlight format (label idx:value ..., 1-based
// ascending indices, densified; a qid:N token and a '#' comment to the end of the line are
// skipped). Lines end in LF, CRLF or a lone CR. Strict: every malformed input is a
// DataFormatError with file:line:column and what was expected. Numbers use the C locale.
// Input is read line by line; a line above max_line_bytes, an input above max_bytes or a NUL
// byte (binary data, UTF-16) stops the reading with a DataFormatError.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "zeronorm/core/dataset.hpp"

namespace zeronorm {

// Whether a CSV file's first line names its columns.
enum class CsvHeader {
    detect,   // a header unless every field of the first line is a number (then it is data)
    present,  // the first line is a header, whatever it holds
    absent,   // every line is data
};

struct ReadOptions {
    std::string label_column;   // CSV: name of the label column; empty = the last one read
    // CSV: columns not read (sample names, annotations), by their names in the header.
    std::vector<std::string> ignored_columns;
    CsvHeader header = CsvHeader::detect;
    // CSV field separator; '\0' = ',' (or a tab for .tsv and .tab files, through read_dataset).
    char delimiter = '\0';
    // The number of features the data must have (e.g. a model's; 0 = any). LIBSVM: rows are
    // padded with zeros up to it, as LIBSVM files omit zeros (a prediction file may lack the
    // last features entirely). CSV: the file has this many feature columns besides its label.
    Index n_features = 0;
    // CSV with n_features > 0: a file of exactly n_features columns is data without labels
    // (to predict): y is left empty.
    bool allow_unlabelled = false;
    int min_classes = 2;        // fewer distinct labels is an error (1 for prediction files)
    Index max_features = 10'000'000;  // LIBSVM: larger indices are rejected as absurd
    // LIBSVM without n_features: the dense n x d matrix may hold at most
    // max(dense_entries_always_allowed, max_dense_per_nonzero * non-zeros) entries; beyond that
    // the largest index is reported as a likely typo. 0: no limit.
    double max_dense_per_nonzero = 64;
    // Every feature value must be > 0, as log10 preprocessing needs; in LIBSVM files every
    // feature must then be present (an omitted one is zero).
    bool positive_features = false;
    std::size_t max_line_bytes = std::size_t{64} << 20;  // 64 MiB: ~3 million CSV values a row
    std::uint64_t max_bytes = std::uint64_t{16} << 30;    // 16 GiB of text in all
};

// n x d entries (128 MiB of doubles) that LIBSVM data may always take, however sparse.
constexpr Index dense_entries_always_allowed = Index{1} << 24;

// Labels: +-1 kept; with exactly two other values the smaller maps to -1 and the larger to +1;
// with K > 2 values, 0..K-1 are kept and other sets map in sorted order to 0..K-1. A CSV label
// column may instead hold class names ("tumor", "ALL"; every label a name, none a number):
// they map in byte order, two to -1 and +1, one or K > 2 to 0..K-1. The mapping is recorded
// in Dataset::label_mapping when labels were changed (always for names).
Dataset read_csv(const std::string& path, const ReadOptions& options = {});
Dataset read_libsvm(const std::string& path, const ReadOptions& options = {});
// CSV when the name ends in .csv, .tsv or .tab (any case; the last two tab-separated unless
// ReadOptions::delimiter says otherwise), LIBSVM format otherwise.
Dataset read_dataset(const std::string& path, const ReadOptions& options = {});
// Whether read_dataset reads `path` as CSV.
bool is_csv_path(const std::string& path);

// The same parsers over a stream; `name` is used in error messages.
Dataset parse_csv(std::istream& in, const std::string& name, const ReadOptions& options = {});
Dataset parse_libsvm(std::istream& in, const std::string& name, const ReadOptions& options = {});

}  // namespace zeronorm
