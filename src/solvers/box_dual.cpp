#include "solvers/box_dual.hpp"

#include <algorithm>
#include <cmath>

#include "solvers/smo_common.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm::detail {

namespace {

double projected_gradient(double beta, double G, double C) {
    if (beta <= 0.0) return std::min(G, 0.0);
    if (beta >= C) return std::max(G, 0.0);
    return G;
}

}  // namespace

double box_dual_violation(const Vector& beta, const Vector& G, double C) {
    double worst = 0.0;
    for (Index i = 0; i < beta.size(); ++i)
        worst = std::max(worst, std::abs(projected_gradient(beta[i], G[i], C)));
    return worst;
}

SmoResult solve_box_dual(const Matrix& K, const Vector& y, const SmoOptions& options) {
    options.validate();
    const Index n = y.size();
    ZN_EXPECTS_DIM(K.rows() == n && K.cols() == n,
                   "solve_box_dual: kernel is " << K.rows() << " x " << K.cols() << " for " << n
                                                << " labels");
    smo_detail::check_smo_labels(y);
    const double C = options.C;
    const Matrix Q = y.asDiagonal() * K * y.asDiagonal();
    Vector beta = Vector::Zero(n);
    Vector G = Vector::Constant(n, -1.0);
    const std::int64_t cap = smo_detail::smo_iteration_cap(options, n);
    SmoResult r;
    r.status = Status::NoConvergence;
    for (;;) {
        Index best = -1;
        double worst = options.tolerance;
        for (Index i = 0; i < n; ++i) {
            const double pg = std::abs(projected_gradient(beta[i], G[i], C));
            if (pg > worst) {
                worst = pg;
                best = i;
            }
        }
        if (best < 0) {
            r.status = Status::Success;
            break;
        }
        if (r.iterations >= cap) break;
        const double q = Q(best, best) + options.ridge;
        // q > 0 for the kernels here (K_ii = 1); a flat direction goes to the bound G points to.
        const double target = q > 0.0 ? beta[best] - G[best] / q : (G[best] < 0.0 ? C : 0.0);
        const double next = std::clamp(target, 0.0, C);
        const double delta = next - beta[best];
        beta[best] = next;
        G += delta * Q.col(best);
        G[best] += delta * options.ridge;
        ++r.iterations;
    }
    r.beta = beta;
    r.bias = 0.0;
    r.objective = smo_detail::smo_objective(beta, G);
    r.kkt_gap = box_dual_violation(beta, G, C);
    return r;
}

}  // namespace zeronorm::detail
