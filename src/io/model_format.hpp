// What the model-file writer, reader and validation share: the magic line, the limits on counts
// and method tokens, and the number format.
#pragma once

#include <string>

#include "zeronorm/io/model_io.hpp"

namespace zeronorm::detail {

constexpr const char* model_magic = "zeronorm-model";
// Largest count accepted (features, support vectors, classes, sections): keeps n_support *
// (d + K) far from overflowing Index, and no real model comes near it.
constexpr long long max_model_count = 2'147'483'647LL;
// Most factors of a polynomial term (its degree).
constexpr std::size_t max_term_factors = 64;

// NAME and VALUE of a method line: 1-64 printable ASCII characters without spaces, '"' or '='.
bool is_method_word(const std::string& s);
// KEY of a method line: [A-Za-z_][A-Za-z0-9_]*, at most 64 characters.
bool is_method_key(const std::string& s);

// Appends the shortest decimal form that parses back to exactly v.
void append_number(std::string& s, double v);

// Whether the kind is a kernel expansion (has a kernel header).
bool is_kernel_kind(ModelKind kind);
// Whether the kind is the two-class kernel expansion of `ModelFile::model` (all of version 1).
bool is_two_class_expansion(ModelKind kind);

}  // namespace zeronorm::detail
