// The SVM dual by a primal-dual interior-point method (Nocedal & Wright, Numerical Optimization,
// ch. 16.6) to find the active set, then exact active-set rounds on the free-set system.
#include <Eigen/LU>
#include <Eigen/QR>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "reference/reference.hpp"

namespace zeronorm::reference {
namespace {

enum class Side { Lower, Free, Upper };

Vector gradient(const Dual& dual, const Vector& beta) {
    const Index n = beta.size();
    Vector G(n);
    for (Index i = 0; i < n; ++i) {
        G[i] = dual.p[i];
        for (Index j = 0; j < n; ++j) G[i] += dual.Q(i, j) * beta[j];
    }
    return G;
}

// beta at the bounds of `side` and the free variables solving
//   Q_FF beta_F + nu y_F = -p_F - Q_FU beta_U,   y_F' beta_F = delta - y_U' beta_U.
// Nothing when the free set is empty or, unless allow_singular (then the least-norm solution),
// the bordered system is singular.
std::optional<std::pair<Vector, double>> solve_free_set(const Dual& dual, const std::vector<Side>& side,
                                                        bool allow_singular) {
    const Index n = dual.y.size();
    Vector beta = Vector::Zero(n);
    IndexVector free;
    for (Index i = 0; i < n; ++i) {
        if (side[std::size_t(i)] == Side::Upper) beta[i] = dual.C;
        if (side[std::size_t(i)] == Side::Free) free.push_back(i);
    }
    if (free.empty()) return std::nullopt;
    const Index m = Index(free.size());
    Matrix M = Matrix::Zero(m + 1, m + 1);
    Vector rhs(m + 1);
    rhs[m] = dual.delta;
    for (Index i = 0; i < n; ++i)
        if (side[std::size_t(i)] == Side::Upper) rhs[m] -= dual.y[i] * beta[i];
    for (Index a = 0; a < m; ++a) {
        const Index i = free[std::size_t(a)];
        rhs[a] = -dual.p[i];
        for (Index j = 0; j < n; ++j)
            if (side[std::size_t(j)] == Side::Upper) rhs[a] -= dual.Q(i, j) * beta[j];
        for (Index b = 0; b < m; ++b) M(a, b) = dual.Q(i, free[std::size_t(b)]);
        M(a, m) = M(m, a) = dual.y[i];
    }
    Vector solution;
    const Eigen::FullPivLU<Matrix> lu(M);
    if (lu.isInvertible()) {
        solution = lu.solve(rhs);
    } else {
        if (!allow_singular) return std::nullopt;
        solution = Eigen::CompleteOrthogonalDecomposition<Matrix>(M).solve(rhs);
    }
    if (!solution.allFinite()) return std::nullopt;
    for (Index a = 0; a < m; ++a) beta[free[std::size_t(a)]] = solution[a];
    return std::make_pair(beta, solution[m]);
}

// Active-set rounds from `side` (the rule at newton_finish in reference.hpp).
std::optional<DualSolution> active_set_rounds(const Dual& dual, std::vector<Side> side, int rounds,
                                              double tolerance, bool allow_singular) {
    const Index n = dual.y.size();
    for (int round = 0; round < rounds; ++round) {
        const auto solved = solve_free_set(dual, side, allow_singular);
        if (!solved) return std::nullopt;
        const auto& [beta, nu] = *solved;
        bool left_box = false;
        for (Index i = 0; i < n; ++i) {
            if (side[std::size_t(i)] != Side::Free) continue;
            if (beta[i] <= 0.0) { side[std::size_t(i)] = Side::Lower; left_box = true; }
            else if (beta[i] >= dual.C) { side[std::size_t(i)] = Side::Upper; left_box = true; }
        }
        if (left_box) continue;
        const double gap = kkt_gap(dual, beta);
        if (gap <= tolerance) return DualSolution{beta, nu, dual_objective(dual, beta), gap};
        const Vector G = gradient(dual, beta);
        bool moved = false;
        for (Index i = 0; i < n; ++i) {
            const double multiplier = G[i] + nu * dual.y[i];
            const Side s = side[std::size_t(i)];
            if ((s == Side::Lower && multiplier < 0) || (s == Side::Upper && multiplier > 0)) {
                side[std::size_t(i)] = Side::Free;
                moved = true;
            }
        }
        if (!moved) return std::nullopt;
    }
    return std::nullopt;
}

// Infeasible primal-dual path following with multipliers z_l >= 0 of beta >= 0 and z_u >= 0 of
// beta <= C: Newton steps on the perturbed KKT conditions
//   Q beta + p + nu y - z_l + z_u = 0,  y'beta = delta,  beta .* z_l = mu,  (C - beta) .* z_u = mu
// with mu shrinking tenfold per step. Returns the last iterate and the sides its multipliers
// point to.
struct InteriorPoint {
    Vector beta;
    std::vector<Side> side;
};
InteriorPoint interior_point(const Dual& dual) {
    const Index n = dual.y.size();
    const bool boxed = std::isfinite(dual.C);
    Vector beta = Vector::Constant(n, boxed ? dual.C / 2 : 1.0);
    Vector zl = Vector::Ones(n), zu = boxed ? Vector::Ones(n) : Vector::Zero(n);
    double nu = 0.0;
    const auto slack = [&](Index i) { return dual.C - beta[i]; };
    for (int iteration = 0; iteration < 500; ++iteration) {
        const Vector G = gradient(dual, beta);
        double mu = 0.0;
        for (Index i = 0; i < n; ++i) mu += beta[i] * zl[i] + (boxed ? slack(i) * zu[i] : 0.0);
        mu /= double(boxed ? 2 * n : n);
        if (mu < 1e-15 * (1.0 + G.cwiseAbs().maxCoeff())) break;
        const double sigma_mu = 0.1 * mu;
        Matrix M = Matrix::Zero(n + 1, n + 1);
        Vector rhs(n + 1);
        double primal = -dual.delta;
        for (Index i = 0; i < n; ++i) {
            primal += dual.y[i] * beta[i];
            for (Index j = 0; j < n; ++j) M(i, j) = dual.Q(i, j);
            M(i, i) += zl[i] / beta[i] + (boxed ? zu[i] / slack(i) : 0.0);
            M(i, n) = M(n, i) = dual.y[i];
            const double residual = G[i] + nu * dual.y[i] - zl[i] + zu[i];
            rhs[i] = -residual + sigma_mu / beta[i] - zl[i] + (boxed ? zu[i] - sigma_mu / slack(i) : 0.0);
        }
        rhs[n] = -primal;
        const Vector step = M.partialPivLu().solve(rhs);
        Vector d_zl(n), d_zu = Vector::Zero(n);
        double alpha = 1.0;
        const auto limit = [&](double value, double change) {
            if (change < 0) alpha = std::min(alpha, -0.99 * value / change);
        };
        for (Index i = 0; i < n; ++i) {
            d_zl[i] = sigma_mu / beta[i] - zl[i] - zl[i] / beta[i] * step[i];
            limit(beta[i], step[i]);
            limit(zl[i], d_zl[i]);
            if (boxed) {
                d_zu[i] = sigma_mu / slack(i) - zu[i] + zu[i] / slack(i) * step[i];
                limit(slack(i), -step[i]);
                limit(zu[i], d_zu[i]);
            }
        }
        beta += alpha * step.head(n);
        nu += alpha * step[n];
        zl += alpha * d_zl;
        zu += alpha * d_zu;
    }
    std::vector<Side> side(std::size_t(n), Side::Free);
    for (Index i = 0; i < n; ++i) {
        if (zl[i] > beta[i]) side[std::size_t(i)] = Side::Lower;
        if (boxed && zu[i] > slack(i)) side[std::size_t(i)] = Side::Upper;
    }
    return {beta, side};
}

}  // namespace

Dual svm_dual(const Matrix& K, const Vector& y, double C, double ridge) {
    const Index n = y.size();
    Dual dual{Matrix(n, n), Vector::Constant(n, -1.0), y, 0.0, C};
    for (Index i = 0; i < n; ++i)
        for (Index j = 0; j < n; ++j) dual.Q(i, j) = y[i] * y[j] * (K(i, j) + (i == j ? ridge : 0.0));
    return dual;
}

double dual_objective(const Dual& dual, const Vector& beta) {
    const Vector G = gradient(dual, beta);  // 1/2 b'Qb + p'b = 1/2 b'(G + p)
    double value = 0.0;
    for (Index i = 0; i < beta.size(); ++i) value += 0.5 * beta[i] * (G[i] + dual.p[i]);
    return value;
}

double kkt_gap(const Dual& dual, const Vector& beta) {
    const Vector G = gradient(dual, beta);
    double m = -std::numeric_limits<double>::infinity(), M = std::numeric_limits<double>::infinity();
    for (Index t = 0; t < beta.size(); ++t) {
        const bool positive = dual.y[t] > 0;
        const bool up = positive ? beta[t] < dual.C : beta[t] > 0;
        const bool low = positive ? beta[t] > 0 : beta[t] < dual.C;
        if (up) m = std::max(m, -dual.y[t] * G[t]);
        if (low) M = std::min(M, -dual.y[t] * G[t]);
    }
    return std::isfinite(m) && std::isfinite(M) ? std::max(0.0, m - M) : 0.0;
}

DualSolution solve_dual(const Dual& dual) {
    const InteriorPoint start = interior_point(dual);
    // Rounding in G = Q beta + p grows with the terms summed.
    const double scale = 1.0 + (dual.Q.cwiseAbs() * start.beta.cwiseAbs()).maxCoeff() +
                         dual.p.cwiseAbs().maxCoeff();
    const auto exact = active_set_rounds(dual, start.side, 100, 1e-12 * scale, true);
    if (!exact) throw std::runtime_error("reference::solve_dual: the active-set rounds did not converge");
    return *exact;
}

std::optional<DualSolution> newton_finish(const Matrix& K, const Vector& y, double C,
                                          double ridge, double tolerance,
                                          const Vector& coarse_beta, int rounds) {
    std::vector<Side> side(std::size_t(y.size()));
    for (Index i = 0; i < y.size(); ++i)
        side[std::size_t(i)] = coarse_beta[i] >= C ? Side::Upper
                               : coarse_beta[i] > 0 ? Side::Free : Side::Lower;
    return active_set_rounds(svm_dual(K, y, C, ridge), side, rounds, tolerance, false);
}

}  // namespace zeronorm::reference
