// The l2-l1-SVM dual (Neumann, Schnoerr & Steidl 2005, eq. (7)) for P problems on one data set,
// by accelerated projected gradient with adaptive restart; the problem, its dual and the method
// are written out in include/zeronorm/methods/dc_svm.hpp.
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <vector>

#include "zeronorm/core/error.hpp"
#include "zeronorm/methods/dc_svm.hpp"

namespace zeronorm {

namespace {

// S_c(u) = sign(u) max(|u| - c, 0), column by column (costs d x P).
Matrix soft_threshold(const Matrix& U, const Matrix& costs) {
    return U.cwiseSign().cwiseProduct((U.cwiseAbs() - costs).cwiseMax(0.0));
}

// beta = clip(z - theta y, 0, C) with y'beta = 0. sum_i y_i clip(z_i - theta y_i, 0, C) falls
// as theta grows, from C n_+ to -C n_-: bisection brackets theta, then one secant step on the
// (piecewise-linear) function lands on the root of its final piece.
void project(Eigen::Ref<Vector> z, const Vector& y, double C) {
    const auto residual = [&](double theta) {
        double s = 0;
        for (Index i = 0; i < z.size(); ++i)
            s += y[i] * std::clamp(z[i] - theta * y[i], 0.0, C);
        return s;
    };
    double hi = z.cwiseAbs().maxCoeff() + C + 1.0;
    double lo = -hi;
    double r_lo = residual(lo), r_hi = residual(hi);
    for (int k = 0; k < 200 && hi - lo > 1e-15 * (1.0 + std::abs(lo) + std::abs(hi)); ++k) {
        const double mid = 0.5 * (lo + hi);
        const double r = residual(mid);
        if (r == 0.0) {
            lo = hi = mid;
            break;
        }
        (r > 0 ? lo : hi) = mid;
        (r > 0 ? r_lo : r_hi) = r;
    }
    const double theta = lo == hi || r_lo == r_hi ? lo : lo + r_lo * (hi - lo) / (r_lo - r_hi);
    for (Index i = 0; i < z.size(); ++i) z[i] = std::clamp(z[i] - theta * y[i], 0.0, C);
}

// Largest eigenvalue of X'X from the smaller of the two Gram matrices.
double squared_spectral_norm(const Matrix& X) {
    const Matrix G = X.rows() <= X.cols() ? Matrix(X * X.transpose()) : Matrix(X.transpose() * X);
    if (G.size() == 0) return 0.0;
    return Eigen::SelfAdjointEigenSolver<Matrix>(G, Eigen::EigenvaluesOnly).eigenvalues().maxCoeff();
}

double hinge_sum(const Vector& f, const Vector& y, double b) {
    return (1.0 - y.array() * (f.array() + b)).max(0.0).sum();
}

}  // namespace

double optimal_bias(const Vector& f, const Vector& y) {
    // sum_i (1 - y_i (f_i + b))_+ has a breakpoint at t_i = y_i - f_i for each i and slope
    // -n_+ + (breakpoints left of b): it is flat between the n_+-th and (n_+ + 1)-th smallest.
    std::vector<double> t(static_cast<std::size_t>(f.size()));
    Index n_plus = 0;
    for (Index i = 0; i < f.size(); ++i) {
        t[std::size_t(i)] = y[i] - f[i];
        n_plus += y[i] > 0 ? 1 : 0;
    }
    if (n_plus == 0 || n_plus == f.size()) return n_plus == 0 ? -1.0 : 1.0;
    const auto k = t.begin() + n_plus;
    std::nth_element(t.begin(), k, t.end());
    const double upper = *k;  // (n_+ + 1)-th smallest
    const double lower = *std::max_element(t.begin(), k);
    return 0.5 * (lower + upper);
}

double l2_l1_primal(const Matrix& X, const Vector& y, double C, const Vector& costs,
                    const Vector& w, double b) {
    return C * hinge_sum(X * w, y, b) + 0.5 * w.squaredNorm() + costs.dot(w.cwiseAbs());
}

double l2_l1_dual(const Matrix& X, const Vector& y, const Vector& costs, const Vector& beta) {
    const Vector w = soft_threshold(X.transpose() * beta.cwiseProduct(y), costs);
    return beta.sum() - 0.5 * w.squaredNorm();
}

L2L1BatchResult solve_l2_l1_svm_batch(const Matrix& X, const Vector& y, const Vector& C,
                                      const Matrix& costs, const Matrix& warm_beta,
                                      double gap_tolerance, std::int64_t max_iterations) {
    const Index n = X.rows(), d = X.cols(), P = C.size();
    ZN_EXPECTS_DIM(y.size() == n, "l2-l1 dual: y has " << y.size() << " entries, X " << n
                                                       << " rows");
    ZN_EXPECTS_DIM(costs.rows() == d && costs.cols() == P,
                   "l2-l1 dual: costs must be " << d << " x " << P << ", got " << costs.rows()
                                                << " x " << costs.cols());
    ZN_EXPECTS_DIM(warm_beta.size() == 0 || (warm_beta.rows() == n && warm_beta.cols() == P),
                   "l2-l1 dual: warm_beta must be " << n << " x " << P);
    ZN_EXPECTS(gap_tolerance > 0, "l2-l1 dual: gap_tolerance must be > 0");
    ZN_EXPECTS(max_iterations >= 1, "l2-l1 dual: max_iterations must be >= 1");
    for (Index p = 0; p < P; ++p)
        ZN_EXPECTS(std::isfinite(C[p]) && C[p] > 0, "l2-l1 dual: C[" << p << "] = " << C[p]
                                                                      << " must be finite, > 0");
    ZN_EXPECTS((costs.array() >= 0).all() && costs.allFinite(),
               "l2-l1 dual: feature costs must be finite and >= 0");

    L2L1BatchResult out;
    out.beta = warm_beta.size() > 0 ? warm_beta : Matrix(Matrix::Zero(n, P));
    for (Index p = 0; p < P; ++p) project(out.beta.col(p), y, C[p]);
    out.w.resize(d, P);
    out.b.resize(P);
    out.primal.resize(P);
    out.dual.resize(P);
    out.status.assign(std::size_t(P), Status::NoConvergence);
    out.iterations.assign(std::size_t(P), 0);

    const double L = std::max(squared_spectral_norm(X) * (1.0 + 1e-10), 1e-300);
    const Matrix Y = y.replicate(1, P);
    Matrix& B = out.beta;
    Matrix Z = B;                   // extrapolated points
    Vector t = Vector::Ones(P);     // momentum sequences
    std::vector<bool> done(std::size_t(P), false);
    Index remaining = P;
    constexpr int check_every = 10;

    // Measures the gap at B for the problems still running; marks those that reached it.
    const auto check = [&](std::int64_t k) {
        const Matrix W = soft_threshold(X.transpose() * B.cwiseProduct(Y), costs);  // GEMM
        const Matrix F = X * W;                                                     // GEMM
        for (Index p = 0; p < P; ++p) {
            if (done[std::size_t(p)]) continue;
            const double b = optimal_bias(F.col(p), y);
            const double half_w2 = 0.5 * W.col(p).squaredNorm();
            const double primal =
                C[p] * hinge_sum(F.col(p), y, b) + half_w2 + costs.col(p).dot(W.col(p).cwiseAbs());
            const double dual = B.col(p).sum() - half_w2;
            out.w.col(p) = W.col(p);
            out.b[p] = b;
            out.primal[p] = primal;
            out.dual[p] = dual;
            out.iterations[std::size_t(p)] = k;
            if (primal - dual <= gap_tolerance * std::abs(primal)) {
                done[std::size_t(p)] = true;
                out.status[std::size_t(p)] = Status::Success;
                --remaining;
            }
        }
    };

    check(0);
    for (std::int64_t k = 1; k <= max_iterations && remaining > 0; ++k) {
        // Ascent step from Z: grad D = e - y o X S_c(X'(Z o y)).
        const Matrix W = soft_threshold(X.transpose() * Z.cwiseProduct(Y), costs);
        const Matrix G = (1.0 - (X * W).cwiseProduct(Y).array()).matrix();
        for (Index p = 0; p < P; ++p) {
            if (done[std::size_t(p)]) continue;
            Vector next = Z.col(p) + G.col(p) / L;
            project(next, y, C[p]);
            const Vector step = next - B.col(p);
            // Adaptive restart: drop the momentum when it points against the gradient step.
            if ((Z.col(p) - next).dot(step) > 0) {
                t[p] = 1.0;
                Z.col(p) = next;
            } else {
                const double t_next = 0.5 * (1.0 + std::sqrt(1.0 + 4.0 * t[p] * t[p]));
                Z.col(p) = next + ((t[p] - 1.0) / t_next) * step;
                t[p] = t_next;
            }
            B.col(p) = next;
        }
        if (k % check_every == 0 || k == max_iterations) check(k);
    }
    return out;
}

}  // namespace zeronorm
