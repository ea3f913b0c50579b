// The label check of every two-class trainer. Not installed.
#pragma once

#include <string>

#include "zeronorm/core/dataset.hpp"

namespace zeronorm {

// Throws InvalidArgument, its message starting with `who`, unless every y_i is -1 or +1 and both
// classes occur.
void check_two_class_labels(const Vector& y, const std::string& who);

}  // namespace zeronorm
