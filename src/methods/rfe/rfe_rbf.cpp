// RFE with the Gaussian kernel (Lal, Chapelle, Weston & Elisseeff 2006, sec. 2.3, Algorithm 2;
// Guyon, Weston, Barnhill & Vapnik 2002): per round the SVM (the same C, ridge and tolerance as
// linear RFE) on k(x, x') = exp(-gamma |x - x'|^2) over the alive features gives alpha; at fixed
// alpha each feature p is scored by |W^2(alpha) - W^2_(-p)(alpha)|, W^2 = sum_kl alpha_k alpha_l
// y_k y_l k(x_k, x_l) (= |w|^2 in feature space), summed over the one-vs-rest machines, and
// the feature(s) of smallest change are removed (the elimination loop of rfe.cpp).
#include <algorithm>
#include <cmath>

#include "methods/machine_fits.hpp"
#include "methods/rfe/rfe.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm::detail {

Vector rbf_w2_without_each_feature(const Matrix& X, const Vector& v, double gamma, double* w2) {
    const Index n = X.rows();
    const Index d = X.cols();
    ZN_EXPECTS_DIM(v.size() == n, "rbf_w2_without_each_feature: v has " << v.size()
                                                                        << " entries, X " << n
                                                                        << " rows");
    ZN_EXPECTS(std::isfinite(gamma) && gamma > 0, "gamma must be finite and > 0, got " << gamma);
    // Squared distances summed feature by feature (strict lower triangle), free of the
    // cancellation in |x|^2 + |x'|^2 - 2 x.x'.
    Matrix D = Matrix::Zero(n, n);
    for (Index p = 0; p < d; ++p)
        for (Index j = 0; j < n; ++j)
            for (Index i = j + 1; i < n; ++i) {
                const double diff = X(i, p) - X(j, p);
                D(i, j) += diff * diff;
            }
    const double diagonal = v.squaredNorm();  // k(x, x) = 1
    double total = 0.0;
    for (Index j = 0; j < n; ++j)
        for (Index i = j + 1; i < n; ++i) total += v[i] * v[j] * std::exp(-gamma * D(i, j));
    if (w2 != nullptr) *w2 = diagonal + 2.0 * total;
    Vector out(d);
    for (Index p = 0; p < d; ++p) {
        double sum = 0.0;
        for (Index j = 0; j < n; ++j)
            for (Index i = j + 1; i < n; ++i) {
                const double diff = X(i, p) - X(j, p);
                // D - diff^2 >= 0 up to rounding: then the term is at most |v_i v_j|.
                sum += v[i] * v[j] * std::exp(-gamma * std::max(0.0, D(i, j) - diff * diff));
            }
        out[p] = diagonal + 2.0 * sum;
    }
    return out;
}

Ranking run_rfe_rbf(Backend& backend, const Dataset& data, const Machines& machines,
                    const SelectionOptions& options, const IndexVector& counts_desc) {
    const double gamma =
        options.rfe_gamma > 0 ? options.rfe_gamma : 1.0 / double(data.n_features());
    KernelSpec rbf;
    rbf.type = KernelType::Rbf;
    rbf.gamma = gamma;
    ColumnTracker X(backend, data.X);
    std::vector<Vector> beta(machines.targets.size());
    return eliminate_recursively(
        data.n_features(), counts_desc, options.rfe_fraction,
        [&](std::int64_t round, const IndexVector& alive) {
            const MachineFits fits = fit_rfe_round(backend, X, rbf, machines, options, beta,
                                                   [] { return 1.0; },  // k(x, x) = 1
                                                   round, alive);
            Matrix X_alive(data.n_samples(), Index(alive.size()));
            for (std::size_t k = 0; k < alive.size(); ++k)
                X_alive.col(Index(k)) = data.X.col(alive[k]);
            RfeRound scored{Vector::Zero(Index(alive.size())), fits.objective, fits.status};
            for (std::size_t k = 0; k < machines.targets.size(); ++k) {
                const Vector v = fits.duals[k].beta.cwiseProduct(machines.targets[k]);
                double w2 = 0.0;
                const Vector without = rbf_w2_without_each_feature(X_alive, v, gamma, &w2);
                scored.criterion += (without.array() - w2).abs().matrix();
            }
            return scored;
        });
}

}  // namespace zeronorm::detail
