// Polynomial-kernel AROM (Weston et al., JMLR 3, 2003, sec. 3.4, 5): the explicit sum-of-powers
// feature map and l2-AROM on it; the problem is written out in include/zeronorm/methods/polynomial_arom.hpp.
#include "zeronorm/methods/polynomial_arom.hpp"

#include <cmath>
#include <numeric>
#include <sstream>

#include "core/stopwatch.hpp"
#include "methods/arom/arom.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm {

namespace {

constexpr double kMaxMonomials = 1e7;

// Appends all index tuples of length t over 0..n-1: non-decreasing ones (the monomials of
// degree t) or all ordered ones.
void enumerate(Index n, int t, bool ordered, IndexVector& current, std::vector<IndexVector>& out) {
    if (int(current.size()) == t) {
        out.push_back(current);
        return;
    }
    const Index start = current.empty() || ordered ? 0 : current.back();
    for (Index i = start; i < n; ++i) {
        current.push_back(i);
        enumerate(n, t, ordered, current, out);
        current.pop_back();
    }
}

}  // namespace

SumOfPowersMap::SumOfPowersMap(Index n_inputs, int degree, MonomialBasis basis)
    : n_inputs_(n_inputs), degree_(degree), basis_(basis) {
    const bool ordered = basis == MonomialBasis::OrderedTuples;
    ZN_EXPECTS(n_inputs >= 1, "SumOfPowersMap: n_inputs must be >= 1, got " << n_inputs);
    ZN_EXPECTS(degree >= 1, "SumOfPowersMap: degree must be >= 1, got " << degree);
    double count = 0, per_degree = 1;  // C(n + t - 1, t) monomials or n^t tuples of degree t
    for (int t = 1; t <= degree && count <= kMaxMonomials; ++t) {
        per_degree *= ordered ? double(n_inputs) : double(n_inputs + t - 1) / double(t);
        count += per_degree;
    }
    ZN_EXPECTS(count <= kMaxMonomials, "SumOfPowersMap: " << n_inputs << " inputs of degree "
                                                           << degree << " give more than 10^7 "
                                                           << (ordered ? "tuples" : "monomials"));
    for (int t = 1; t <= degree; ++t) {
        IndexVector current;
        enumerate(n_inputs, t, ordered, current, monomials_);
    }
    weights_ = Vector::Ones(Index(monomials_.size()));
    for (std::size_t m = 0; m < monomials_.size() && !ordered; ++m) {
        const IndexVector& f = monomials_[m];
        // t! / prod_k (multiplicity_k)!, by lgamma to stay exact enough for any degree here.
        double log_w = std::lgamma(double(f.size()) + 1.0);
        for (std::size_t a = 0; a < f.size();) {
            std::size_t b = a;
            while (b < f.size() && f[b] == f[a]) ++b;
            log_w -= std::lgamma(double(b - a) + 1.0);
            a = b;
        }
        weights_[Index(m)] = std::sqrt(std::exp(log_w));
    }
}

std::string SumOfPowersMap::name(Index m) const {
    const IndexVector& f = monomial(m);
    std::ostringstream os;
    for (std::size_t a = 0; a < f.size();) {
        std::size_t b = a;
        while (b < f.size() && f[b] == f[a]) ++b;
        if (a > 0) os << '*';
        os << 'x' << f[a] + 1;
        if (b - a > 1) os << '^' << b - a;
        a = b;
    }
    return os.str();
}

Matrix SumOfPowersMap::transform(const Matrix& X) const {
    ZN_EXPECTS_DIM(X.cols() == n_inputs_, "SumOfPowersMap::transform: X has "
                                              << X.cols() << " columns, the map " << n_inputs_
                                              << " inputs");
    Matrix out(X.rows(), n_outputs());
    for (Index m = 0; m < n_outputs(); ++m) {
        out.col(m).setConstant(weights_[m]);
        for (Index i : monomials_[std::size_t(m)]) out.col(m).array() *= X.col(i).array();
    }
    return out;
}

void PolynomialAromOptions::validate() const {
    ZN_EXPECTS(degree >= 1 && degree <= 64, "PolynomialAromOptions.degree must be in 1..64, got "
                                                << degree);
    SelectionOptions s;
    s.feature_counts = {1};
    s.C = C;
    s.ridge = ridge;
    s.prune_tolerance = prune_tolerance;
    s.convergence_tolerance = convergence_tolerance;
    s.max_iterations = max_iterations;
    s.smo = smo;
    try {
        s.validate(1);
    } catch (const InvalidArgument& e) {
        throw InvalidArgument(std::string("PolynomialAromOptions.") + e.what());
    }
}

Matrix PolynomialAromResult::features(const Matrix& X) const {
    const Matrix phi = map.transform(X);
    Matrix out(X.rows(), Index(selected.size()));
    for (std::size_t k = 0; k < selected.size(); ++k)
        out.col(Index(k)) = z[selected[k]] * phi.col(selected[k]);
    return out;
}

Vector PolynomialAromResult::decision_function(Backend& backend, const Matrix& X) const {
    return model.decision_function(backend, features(X));
}

Vector PolynomialAromResult::predict(Backend& backend, const Matrix& X) const {
    return model.predict(backend, features(X));
}

Vector PolynomialAromResult::monomial_weights() const {
    Vector v = Vector::Zero(map.n_outputs());
    const Vector w = model.linear_weights();
    for (std::size_t k = 0; k < selected.size(); ++k)
        v[selected[k]] = z[selected[k]] * w[Index(k)];
    return v;
}

PolynomialAromResult polynomial_arom(Backend& backend, const Dataset& data,
                                     const PolynomialAromOptions& options) {
    const Stopwatch stopwatch;
    data.validate();
    options.validate();
    const detail::Machines machines = detail::make_machines(data.y);
    ZN_EXPECTS(machines.binary(), "polynomial_arom: labels must be -1/+1 (two classes)");

    PolynomialAromResult result;
    result.map = SumOfPowersMap(data.n_features(), options.degree, options.basis);
    Dataset mapped;
    mapped.X = result.map.transform(data.X);
    mapped.y = data.y;

    SelectionOptions sel;
    sel.C = options.C;
    sel.ridge = options.ridge;
    sel.prune_tolerance = options.prune_tolerance;
    sel.convergence_tolerance = options.convergence_tolerance;
    sel.max_iterations = options.max_iterations;
    sel.smo = options.smo;
    detail::Ranking ranking = detail::run_l2_arom(backend, mapped, machines, sel, IndexVector{});
    result.z = std::move(ranking.scores);
    result.trace = std::move(ranking.trace);
    result.iterations = ranking.iterations;
    result.status = ranking.status;
    for (Index m : detail::order_descending(result.z))
        if (result.z[m] > 0) result.selected.push_back(m);

    // The rule on the rescaled surviving monomials (hard margin with the same C and ridge).
    Dataset scaled;
    scaled.X = Matrix(data.n_samples(), Index(result.selected.size()));
    for (std::size_t k = 0; k < result.selected.size(); ++k)
        scaled.X.col(Index(k)) = result.z[result.selected[k]] * mapped.X.col(result.selected[k]);
    scaled.y = data.y;
    IndexVector all(result.selected.size());
    std::iota(all.begin(), all.end(), Index(0));
    SvmOptions svm;  // linear kernel
    const detail::DualSolver solve = [&](const SmoOptions& smo, const Vector*) {
        svm.smo = smo;
        SvmTrainResult trained = train_svm(backend, scaled, svm);
        result.model = std::move(trained.model);
        return trained.smo;
    };
    const auto radius2 = [&] { return detail::max_row_norm2(scaled.X, all, Vector()); };
    detail::solve_svm_dual(solve, options.smo, options.C, options.ridge, nullptr, radius2,
                           "polynomial AROM, final classifier on the " +
                               std::to_string(result.selected.size()) + " selected monomials");
    result.seconds = stopwatch.seconds();
    return result;
}

}  // namespace zeronorm
