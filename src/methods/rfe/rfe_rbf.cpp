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
#include "zeronorm/core/kernel.hpp"
#include "zeronorm/core/ops/alignment_ops.hpp"

namespace zeronorm::detail {

Ranking run_rfe_rbf(Backend& backend, const Dataset& data, const Machines& machines,
                    const SelectionOptions& options, const IndexVector& counts_desc) {
    const double gamma =
        options.rfe_gamma > 0 ? options.rfe_gamma : 1.0 / double(data.n_features());
    // Removing features only brings the samples closer: the first round's kernel is the farthest
    // from the identity.
    check_gaussian_kernel_scale(data.X, gamma, Vector(), "rfe-rbf",
                                "give a smaller rfe_gamma (--rfe-gamma; 0 is 1/d)");
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
            // Every W^2_(-p) of the alive columns in one pass (AlignmentOps, on the backend).
            const DeviceMatrix& X_alive = X.columns(alive);
            RfeRound scored{Vector::Zero(Index(alive.size())), fits.objective, fits.status};
            for (std::size_t k = 0; k < machines.targets.size(); ++k) {
                const Vector v = fits.duals[k].beta.cwiseProduct(machines.targets[k]);
                const std::vector<double> sums =
                    backend.alignment().gaussian_removal_sums(gamma, X_alive, backend.upload(v));
                const double w2 = sums.back();
                for (std::size_t p = 0; p < alive.size(); ++p)
                    scored.criterion[Index(p)] += std::abs(sums[p] - w2);
            }
            return scored;
        });
}

}  // namespace zeronorm::detail
