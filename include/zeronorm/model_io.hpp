// Saving and loading trained two-class SVMs, with the preprocessing they were trained behind.
//
// The format is versioned, line-oriented text in the C locale (see src/model_io.cpp for the
// full grammar):
//
//   zeronorm-model 1
//   kernel rbf                 kernel name as to_string(KernelType)
//   gamma 0.5
//   degree 3
//   coef0 0
//   n_features 2
//   theta 0                    count, then that many values (n_features of them for weighted-rbf)
//   bias -0.25
//   n_support 3
//   0.75 0.1 -2.5              n_support lines: coef x_1 ... x_d
//   ...
//   method l0-svm p=0 C_xi=1   optional sections, any order, each at most once: how the
//   log10 1                    expansion was trained (metadata only), log10 flag,
//   standardize 2              standardizer (then "mean ..." and "scale ..." lines),
//   mean 0.5 1                 feature names (one quoted name per line), label mapping
//   scale 2 3                  (one quoted original label and its +-1 value per line)
//   feature_names 2
//   "x1"
//   "x2"
//   labels 2
//   "1" -1
//   "2" 1
//   end
//
// Every model is the kernel expansion f(x) = sum_i coef_i k(x, x_i) + bias: the dual SVM
// (coef = beta_i y_i over its support vectors) and the sparse L0/Lp-norm SVM (coef = alpha_i over
// its expansion points; see SparseSvmModel::to_svm_model) alike, so prediction never depends on
// the optional "method" line. Files without it are plain SVMs; it was added to version 1 as an
// optional section, so every earlier version-1 file still reads unchanged (a reader older than
// the line rejects a file that has it, at that line, with "expected a section").
//
// Numbers are written in the shortest form that reads back to the same double (std::to_chars),
// so a loaded model predicts bit-for-bit what the saved one did. Loading is strict: every count
// is checked against what is present, and every malformed thing (wrong magic, bad or
// non-finite number, truncation, trailing text) is a DataFormatError with file:line:column.
// Files are written atomically (write_file_atomically in file_output.hpp: a temporary in the
// target's directory, fsync, rename; a symbolic link is followed, a non-regular target refused).
#pragma once

#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "zeronorm/dataset.hpp"
#include "zeronorm/preprocess.hpp"
#include "zeronorm/svm.hpp"

namespace zeronorm {

// The optional "method" line: which training method produced the expansion, and its settings,
// as "method NAME KEY=VALUE ...". Metadata for people and tools; prediction ignores it.
// NAME and each VALUE are 1-64 printable ASCII characters without spaces, '"' or '='; each KEY
// is [A-Za-z_][A-Za-z0-9_]* (at most 64 characters), every key at most once.
struct ModelMethod {
    std::string name;  // e.g. "l0-svm"; empty: no method line (a plain SVM)
    std::vector<std::pair<std::string, std::string>> parameters;  // in file order

    bool empty() const { return name.empty(); }
    // The value of `key`, or nullptr.
    const std::string* find(const std::string& key) const;
};

// A number as the model writer writes it (shortest round-trip form, C locale), for
// ModelMethod values.
std::string model_number(double value);

// A model together with what turns raw data into the model's input.
struct ModelFile {
    SvmModel model;
    ModelMethod method;  // how it was trained (optional metadata)
    // Raw features -> log10 (when log10 is set) -> standardizer (when present) -> model.
    bool log10 = false;
    std::optional<Standardizer> standardizer;
    std::vector<std::string> feature_names;       // empty or model.n_features() names
    std::map<std::string, double> label_mapping;  // as Dataset::label_mapping: original -> +-1

    // The model's input for raw rows X (log10 and standardisation as stored).
    Matrix preprocess(const Matrix& X) const;
    // Throws InvalidArgument / DimensionMismatch if the parts do not fit together or hold
    // values the format cannot represent (NaN, Inf, a non-positive scale).
    void validate() const;
};

// The version written by this build and the only one it reads.
constexpr int model_format_version = 1;

void save_model(const ModelFile& file, const std::string& path);
void save_model(const SvmModel& model, const std::string& path);
ModelFile load_model_file(const std::string& path);
// The model alone (any preprocessing sections in the file are checked but dropped).
SvmModel load_model(const std::string& path);

// The same over streams; `name` is used in error messages.
void write_model(std::ostream& out, const ModelFile& file);
ModelFile parse_model(std::istream& in, const std::string& name);

}  // namespace zeronorm
