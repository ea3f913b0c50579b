// The input checks of the two-class trainers. Not installed.
#pragma once

#include <string>

#include "zeronorm/core/dataset.hpp"
#include "zeronorm/solvers/svm.hpp"

namespace zeronorm {

// Throws InvalidArgument, its message starting with `who`, unless every y_i is -1 or +1 and both
// classes occur.
void check_two_class_labels(const Vector& y, const std::string& who);

// train_svm's checks (svm.cpp): the data (finite, at least two samples and one feature, labels),
// the options, and the kernel's domain and range on these data.
void check_svm_training(const Dataset& data, const SvmOptions& options);

}  // namespace zeronorm
