// Polynomial-kernel AROM (Weston, Elisseeff, Schoelkopf, Tipping, JMLR 3, 2003, sec. 3.4, 5):
// zero-norm minimisation in the feature space of the kernel k(x, y) = sum_{t=1..d} (x.y)^t,
// with an explicit feature map whose coordinates are the monomials of degree 1..d.
//
// The map (sec. 3.4, eq. (6) and below): phi_{1:d}(x) = < phi_t(x) : 1 <= t <= d >, with unit
// weight across degrees and, within degree t, one coordinate per monomial x^a (|a| = t) with
// the multinomial weight sqrt(t! / a!), so that phi_t(x).phi_t(y) = (x.y)^t and
// phi_{1:d}(x).phi_{1:d}(y) = sum_t (x.y)^t (KernelType::SumOfPowers). It collects the n^t
// ordered index tuples of eq. (6), whose products are the monomials, t!/a! tuples per monomial.
// MonomialBasis::OrderedTuples keeps those tuples as separate unit-weight coordinates instead
// (n^t per degree, the same kernel): the space in which the paper's kernel-only implementation
// (elementwise products phi(x) * phi(y) = phi(x * y), sec. 3.4) runs AROM. The two differ in the
// update only: a monomial carried by m = t!/a! equal tuples has weight sqrt(m) times one tuple's,
// so the monomial basis multiplies its z by an extra sqrt(m) per iteration.
//
// AROM in that space: l2-AROM (selection.hpp) on the data phi(x_i), i.e. z over the monomials,
// z <- z .* |w_bar|, until z converges (no feature count: the zero norm is minimised). The
// classifier is the last machine's rule in the rescaled space, f(x) = w . (z * phi(x)) + b,
// retrained on the surviving monomials (footnote 7: in the kernel version the original feature
// scaling is not used again). Two classes (labels -1/+1).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "zeronorm/core/backend.hpp"
#include "zeronorm/methods/selection.hpp"
#include "zeronorm/solvers/svm.hpp"

namespace zeronorm {

enum class MonomialBasis {
    Multinomial,    // one coordinate per monomial, weight sqrt(t!/a!) (the default)
    OrderedTuples,  // one unit-weight coordinate per ordered index tuple (eq. (6))
};

class SumOfPowersMap {
public:
    // All monomials (or tuples) of degree 1..degree in n_inputs variables; InvalidArgument when
    // n_inputs < 1, degree < 1 or there would be more than 10^7 coordinates.
    SumOfPowersMap(Index n_inputs, int degree, MonomialBasis basis = MonomialBasis::Multinomial);

    Index n_inputs() const { return n_inputs_; }
    int degree() const { return degree_; }
    MonomialBasis basis() const { return basis_; }
    Index n_outputs() const { return Index(monomials_.size()); }
    // Coordinate m as its factors (x_0 x_3 -> {0, 3}, x_2^2 -> {2, 2}), sorted for monomials, in
    // tuple order for tuples; degree first, then lexicographic.
    const IndexVector& monomial(Index m) const { return monomials_[std::size_t(m)]; }
    double weight(Index m) const { return weights_[m]; }  // sqrt(t! / a!), or 1 for tuples
    // "x1*x4", "x3^2" (1-based input numbers; tuples "x4*x1" too).
    std::string name(Index m) const;
    // phi(x) for every row of X (n x n_inputs) -> n x n_outputs.
    Matrix transform(const Matrix& X) const;

private:
    Index n_inputs_;
    int degree_;
    MonomialBasis basis_;
    std::vector<IndexVector> monomials_;
    Vector weights_;
};

struct PolynomialAromOptions {
    int degree = 2;
    MonomialBasis basis = MonomialBasis::Multinomial;
    // Inner SVMs and the final one: hard margin (C = inf) with the ridge of sec. 3.2, or a soft
    // margin; as in SelectionOptions.
    double C = std::numeric_limits<double>::infinity();
    double ridge = 0.0;
    double prune_tolerance = 1e-8;
    double convergence_tolerance = 1e-6;
    std::int64_t max_iterations = 1000;
    SmoSettings smo = inner_smo_settings(1e-8);  // as SelectionOptions::smo

    void validate() const;  // InvalidArgument naming the field
};

struct PolynomialAromResult {
    SumOfPowersMap map{1, 1};
    Vector z;               // n_outputs scale factors, max 1, 0 once pruned
    IndexVector selected;   // monomials with z > 0, by decreasing z
    SvmModel model;         // linear SVM on the columns z_m phi_m(x), m in `selected` (that order)
    std::vector<SelectionIteration> trace;
    std::int64_t iterations = 0;
    Status status = Status::Success;  // as SelectionResult::status
    double seconds = 0.0;

    // The rescaled, selected coordinates z_m phi_m(x) of every row of X (n x n_inputs).
    Matrix features(const Matrix& X) const;
    Vector decision_function(Backend& backend, const Matrix& X) const;
    Vector predict(Backend& backend, const Matrix& X) const;  // +-1
    // Weights of the rule in the unscaled monomial coordinates phi(x): v_m = z_m w_m (0 if pruned).
    Vector monomial_weights() const;
};

// data: X (n x n_inputs) with labels -1/+1. Throws as select_features does.
PolynomialAromResult polynomial_arom(Backend& backend, const Dataset& data,
                                     const PolynomialAromOptions& options);

}  // namespace zeronorm
