// Readers for labelled data: CSV (header line, label column by name or last) and LIBSVM format
// (label idx:value ..., 1-based ascending indices, densified). Strict: every malformed input is a
// DataFormatError with file:line:column and what was expected. Numbers use the C locale.
#pragma once

#include <iosfwd>
#include <string>

#include "zeronorm/dataset.hpp"

namespace zeronorm {

struct ReadOptions {
    std::string label_column;   // CSV: name of the label column; empty = the last column
    bool has_header = true;     // CSV: first line holds column names
    Index n_features = 0;       // LIBSVM: number of features (0 = the largest index seen)
    int min_classes = 2;        // fewer distinct labels is an error (1 for prediction files)
    Index max_features = 10'000'000;  // LIBSVM: larger indices are rejected as absurd
};

// Labels: +-1 kept; with exactly two other values the smaller maps to -1 and the larger to +1;
// with K > 2 values, 0..K-1 are kept and other sets map in sorted order to 0..K-1. The mapping
// is recorded in Dataset::label_mapping when labels were changed.
Dataset read_csv(const std::string& path, const ReadOptions& options = {});
Dataset read_libsvm(const std::string& path, const ReadOptions& options = {});
// CSV when the name ends in .csv, LIBSVM format otherwise.
Dataset read_dataset(const std::string& path, const ReadOptions& options = {});

// The same parsers over a stream; `name` is used in error messages.
Dataset parse_csv(std::istream& in, const std::string& name, const ReadOptions& options = {});
Dataset parse_libsvm(std::istream& in, const std::string& name, const ReadOptions& options = {});

}  // namespace zeronorm
