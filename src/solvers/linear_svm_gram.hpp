// The linear SVM's Gram form (linear_svm.cpp): dense data with fewer than a quarter as many
// samples as features keep the margins of all samples through the Gram matrix of the augmented
// samples x~ = (x, bias_feature). Several fits on rows of one data set (a cross-validation over
// C) can share one Gram matrix, computed once.
#pragma once

#include "zeronorm/solvers/linear_svm.hpp"

namespace zeronorm::detail {

// True when train_linear_svm uses the Gram form for dense data of this size.
bool linear_svm_gram_form(Index n_samples, Index n_features, const LinearSvmOptions& options);

// x~_i . x~_j for the rows of X (bias_feature^2 added when options has a bias).
Matrix linear_svm_gram(const Matrix& X, const LinearSvmOptions& options);

// train_linear_svm with `gram` = linear_svm_gram(data.X, options) computed by the caller, always
// in the Gram form (meant for dense data, linear_svm_gram_form). The caller has validated
// `data` (it is not scanned again: a cross-validation fits the same rows many times).
LinearSvmResult train_linear_svm_with_gram(const Dataset& data, const LinearSvmOptions& options,
                                           const Matrix& gram);

}  // namespace zeronorm::detail
