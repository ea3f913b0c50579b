// Saving and loading trained models, with the preprocessing they were trained behind.
//
// The format is versioned, line-oriented text in the C locale; the full grammar of both
// versions is in src/io/model_reader.cpp. Version 2 (written by default) holds every model the
// library trains, as a kind:
//
//   zeronorm-model 2
//   kind weston-watkins        kernel-expansion, sparse-expansion, one-vs-rest,
//                              weston-watkins, linear or polynomial (ModelKind)
//   n_classes 3                K; 2 for the two-class kinds
//   n_inputs 5                 columns of the raw data the file applies to
//   kernel rbf                 kernel kinds only: kernel, gamma, degree, coef0 as in version 1
//   gamma 0.5
//   degree 3
//   coef0 0
//   n_features 2               the model's input dimension
//   columns 4 0                0-based raw columns the model runs on, or "columns all"
//   theta 0                    kernel kinds only
//   bias 0.1 -0.2 0.3          then the kind's body (see model_reader.cpp), e.g. for
//   n_support 1                weston-watkins: K biases and rows "coef_1..coef_K x_1..x_d"
//   0.5 -0.25 -0.25 1 2
//   method l2-arom C=1         optional sections as in version 1 (log10, standardize and
//   standardize 5 ...          feature_names describe the n_inputs raw columns; labels map to
//   labels 3 ...               +-1 for two classes, to 0..K-1 for K)
//   end
//
// Version 1 (still read; written on request) is the two-class kernel expansion alone:
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
// A version-1 file is the kernel expansion f(x) = sum_i coef_i k(x, x_i) + bias: the dual SVM
// (coef = beta_i y_i over its support vectors) and the sparse L0/Lp-norm SVM (coef = alpha_i
// over its expansion points; see SparseSvmModel::to_svm_model) alike; it loads as kind
// kernel-expansion, or sparse-expansion when its method line names l0-svm.
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

#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/dataset.hpp"
#include "zeronorm/core/kernel.hpp"
#include "zeronorm/core/preprocess.hpp"
#include "zeronorm/solvers/svm.hpp"

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

// What a model file's classifier is.
enum class ModelKind {
    KernelExpansion,  // two classes: f(x) = sum_i coef_i k(x, x_i) + bias (a dual SVM)
    SparseExpansion,  // the same form, from a sparse L0/Lp-norm SVM (coef = alpha_i)
    OneVsRest,        // K >= 3 kernel expansions; machine k scores class k against the rest
    WestonWatkins,    // K >= 3 kernel expansions on shared points (one M-SVM)
    Linear,           // f_k(x) = w_k.x + b_k: one rule (two classes) or K >= 3 (one per class)
    Polynomial,       // two classes: f(x) = bias + sum_t coef_t prod_{j in term t} x_j
};
std::string to_string(ModelKind kind);  // "kernel-expansion", "one-vs-rest", ...
ModelKind parse_model_kind(const std::string& name);  // InvalidArgument for unknown names

// K kernel expansions on shared points: f_k(x) = sum_i coef(i, k) k(x, x_i) + bias_k.
struct MultiExpansion {
    KernelSpec kernel;
    Matrix points;  // n x d
    Matrix coef;    // n x K
    Vector bias;    // K
};

// Linear rules f_k(x) = weights.col(k).x + bias_k.
struct LinearRules {
    Matrix weights;  // d x m: m = 1 (two classes, sign) or K (argmax)
    Vector bias;     // m
};

// A polynomial in the model's inputs, f(x) = bias + sum_t coef_t prod_{j in factors_t} x_j: the
// rule of polynomial AROM (w . (z * phi(x)) + b over its surviving monomials, each monomial's
// multinomial weight, z and w folded into coef_t).
struct PolynomialRule {
    Index n_features = 0;
    std::vector<IndexVector> factors;  // per term: 1..64 input indices; a repeat is a power
    Vector coef;                       // one per term
    double bias = 0.0;
};

// A model together with what turns raw data into the model's input.
struct ModelFile {
    ModelKind kind = ModelKind::KernelExpansion;
    SvmModel model;                  // KernelExpansion, SparseExpansion
    std::vector<SvmModel> machines;  // OneVsRest: K machines with one kernel
    MultiExpansion ww;               // WestonWatkins
    LinearRules linear;              // Linear
    PolynomialRule polynomial;       // Polynomial
    // The raw columns the model runs on (0-based, distinct, each < n_inputs), in the model's
    // feature order; empty: all columns as they are.
    IndexVector columns;
    Index n_inputs = 0;  // raw columns when `columns` is set (else 0 or n_features())
    ModelMethod method;  // how it was trained (optional metadata)
    // Raw features -> log10 (when log10 is set) -> standardizer (when present) -> columns ->
    // model; log10, standardizer and feature names describe the raw columns.
    bool log10 = false;
    std::optional<Standardizer> standardizer;
    std::vector<std::string> feature_names;       // empty or n_raw_features() names
    // As Dataset::label_mapping: original -> +-1 (two classes) or 0..K-1 (K classes).
    std::map<std::string, double> label_mapping;

    Index n_features() const;      // the model's input dimension
    Index n_raw_features() const;  // columns of the raw data
    int n_classes() const;         // 2, or K
    Index n_outputs() const;       // decision values per row: 1 (two classes) or K
    // The kernel of the kernel kinds, nullptr for linear rules.
    const KernelSpec* kernel() const;

    // The model's input for raw rows X (log10, standardisation and column subset as stored).
    Matrix preprocess(const Matrix& X) const;
    // Decision values (rows x n_outputs()) for the model's input (preprocess(X)).
    Matrix decision_function(Backend& backend, const Matrix& input) const;
    // Labels from decision values: sign as +-1 (0 -> +1) for one output, else the index of the
    // largest (the first on ties).
    Vector labels_from_outputs(const Matrix& outputs) const;
    // Predicted labels (+-1, or 0..K-1) for raw rows X.
    Vector predict(Backend& backend, const Matrix& X) const;
    // Throws InvalidArgument / DimensionMismatch if the parts do not fit together or hold
    // values the format cannot represent (NaN, Inf, a non-positive scale).
    void validate() const;
};

// The version written by default; this build reads versions 1 and 2.
constexpr int model_format_version = 2;

// Version 1 holds only the two-class kernel kinds on all columns (InvalidArgument otherwise).
void save_model(const ModelFile& file, const std::string& path,
                int version = model_format_version);
void save_model(const SvmModel& model, const std::string& path);
ModelFile load_model_file(const std::string& path);
// The two-class kernel expansion alone (any preprocessing sections in the file are checked but
// dropped); a file of another kind is an InvalidArgument.
SvmModel load_model(const std::string& path);

// The same over streams; `name` is used in error messages.
void write_model(std::ostream& out, const ModelFile& file, int version = model_format_version);
ModelFile parse_model(std::istream& in, const std::string& name);

}  // namespace zeronorm
