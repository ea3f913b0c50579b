// Model files from what the trainers return, one builder per result type: the classifier only
// (ModelFile's preprocessing, feature names, label mapping and method are left for the caller).
#pragma once

#include <vector>

#include "zeronorm/io/model_io.hpp"
#include "zeronorm/methods/polynomial_arom.hpp"
#include "zeronorm/methods/selection.hpp"
#include "zeronorm/methods/sparse_svm.hpp"
#include "zeronorm/solvers/linear_svm.hpp"
#include "zeronorm/solvers/lp_svm.hpp"
#include "zeronorm/solvers/svm.hpp"
#include "zeronorm/solvers/ww_svm.hpp"

namespace zeronorm {

// The two-class kernel expansion (kind kernel-expansion).
ModelFile model_file(const SvmModel& model);
// K >= 3 machines, machine k separating class k from the rest (kind one-vs-rest).
ModelFile one_vs_rest_model_file(const std::vector<SvmModel>& machines);
// A Weston-Watkins M-SVM trained on the rows of X with `kernel` (kind weston-watkins); rows
// whose K coefficients are all zero are left out.
ModelFile model_file(const WwSvmResult& result, const KernelSpec& kernel, const Matrix& X);
// w.x + b (kind linear, one rule).
ModelFile model_file(const LinearSvmResult& result);
ModelFile model_file(const LpSvmResult& result);  // weights_original, b
// The final classifiers of a selection on their columns of data with n_inputs columns (kind
// linear: one rule for two classes, K for K classes).
ModelFile model_file(const FeatureSubset& subset, Index n_inputs);
// Polynomial AROM's rule: monomial m of its map, weight(m) * prod x, with coefficient z_m w_m
// (kind polynomial; pruned monomials left out).
ModelFile model_file(const PolynomialAromResult& result);
// The L0/Lp-norm SVM's sparse expansion (kind sparse-expansion), with its method line: the
// options it was trained with and how training ended.
ModelFile model_file(const SparseSvmResult& result, const SparseSvmOptions& options);

}  // namespace zeronorm
