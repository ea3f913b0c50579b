// R2W2 (Weston, Mukherjee, Chapelle, Pontil, Poggio & Vapnik 2001; Weston et al., JMLR 3, 2003,
// sec. 4.4; Lal, Chapelle, Weston & Elisseeff 2006, sec. 3.1): the kernel k(sigma * x, sigma * x')
// with one scaling factor per feature, sigma chosen by gradient descent on the radius-margin bound
// R^2 W^2 of the leave-one-out error, the SVMs re-solved (warm-started) at every step. Features are
// discarded the first of Lal et al.'s three ways: those of smallest sigma, one or a fraction per
// round by RFE's elimination loop (rfe.cpp), sigma of the survivors carried into the next round.
#include "methods/r2w2/r2w2.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "methods/machine_fits.hpp"
#include "methods/rfe/rfe.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/kernel.hpp"
#include "zeronorm/core/ops/alignment_ops.hpp"

namespace zeronorm {

void R2w2Options::validate() const {
    ZN_EXPECTS(std::isfinite(gamma) && gamma >= 0,
               "gamma must be finite and >= 0 (0: 1/d), got " << gamma);
    ZN_EXPECTS(iterations >= 1, "iterations must be >= 1, got " << iterations);
    ZN_EXPECTS(std::isfinite(step) && step > 0 && step <= 1,
               "step must be in (0, 1], got " << step);
    ZN_EXPECTS(std::isfinite(tolerance) && tolerance >= 0,
               "tolerance must be finite and >= 0, got " << tolerance);
}

namespace detail {

namespace {

// Armijo's sufficient-decrease constant, and the halvings of a step before the round stops.
constexpr double kArmijo = 1e-4;
constexpr int kMaxHalvings = 30;

}  // namespace

RadiusSolution solve_radius_qp(const Matrix& K, const Vector& start, double tolerance,
                               std::int64_t max_iterations) {
    const Index n = K.rows();
    ZN_EXPECTS_DIM(K.cols() == n && n >= 1, "solve_radius_qp: K is " << K.rows() << " x "
                                                                     << K.cols());
    RadiusSolution out;
    out.beta = Vector::Constant(n, 1.0 / double(n));
    if (start.size() == n && start.allFinite() && start.maxCoeff() > 0)
        out.beta = start.cwiseMax(0.0) / start.cwiseMax(0.0).sum();
    const Vector diagonal = K.diagonal();
    const double stop = tolerance * std::max(1.0, diagonal.maxCoeff());
    // Minimises f(b) = b'K b - b'diag(K); moving t from b_j to b_i changes f by
    // t (g_i - g_j) + t^2 (K_ii + K_jj - 2 K_ij).
    Vector g = 2.0 * (K * out.beta) - diagonal;
    for (;; ++out.iterations) {
        Index i = 0, j = -1;
        g.minCoeff(&i);
        for (Index k = 0; k < n; ++k)
            if (out.beta[k] > 0 && (j < 0 || g[k] > g[j])) j = k;
        out.kkt_gap = g[j] - g[i];
        if (out.kkt_gap <= stop || out.iterations >= max_iterations) break;
        const double curvature = K(i, i) + K(j, j) - 2.0 * K(i, j);
        double t = out.beta[j];
        if (curvature > 0) t = std::min(t, out.kkt_gap / (2.0 * curvature));
        out.beta[i] += t;
        out.beta[j] -= t;
        g += 2.0 * t * (K.col(i) - K.col(j));
    }
    out.radius2 = out.beta.dot(diagonal) - out.beta.dot(K * out.beta);
    return out;
}

Vector kernel_derivative_sums(Backend& backend, const DeviceMatrix& X, const Vector& sigma,
                              R2w2Kernel kernel, double gamma, const Matrix& A) {
    ZN_EXPECTS_DIM(sigma.size() == X.cols() && A.rows() == X.rows() && A.cols() == X.rows(),
                   "kernel_derivative_sums: X " << X.rows() << " x " << X.cols() << ", sigma "
                                                << sigma.size() << ", A " << A.rows() << " x "
                                                << A.cols());
    const Index n = X.rows();
    const Index d = X.cols();
    const DeviceMatrix A_dev = backend.upload(A);
    if (kernel == R2w2Kernel::Linear) {
        // x_k'A x_k for every column k: AX, then the column dots with X.
        DeviceMatrix AX = backend.allocate(n, d);
        backend.gemm(false, false, 1.0, A_dev, X, 0.0, AX);
        const Matrix x = backend.download(X);
        const Vector quadratic = x.cwiseProduct(backend.download(AX)).colwise().sum().transpose();
        return 2.0 * sigma.cwiseProduct(quadratic);
    }
    AlignmentKernelSpec spec;
    spec.type = AlignmentKernel::Gaussian;
    spec.scale = gamma;
    const DeviceMatrix theta = backend.upload(Matrix(sigma.cwiseAbs2()));
    DeviceMatrix gradient = backend.allocate(d, 1);
    backend.alignment().weighted_kernel_sum_batch(spec, X, A_dev, theta, gradient);
    return 2.0 * sigma.cwiseProduct(Vector(backend.download(gradient).col(0)));
}

R2w2Objective::R2w2Objective(Backend& backend, const Matrix& X, const Machines& machines,
                             const SelectionOptions& options, double gamma, R2w2Warm& warm)
    : backend_(backend), X_(X), X_dev_(backend.upload(X)), machines_(machines), options_(options),
      gamma_(gamma), warm_(warm) {
    if (warm_.svm.size() != machines.targets.size()) warm_.svm.assign(machines.targets.size(), {});
}

void R2w2Objective::accept(const R2w2Point& point) {
    for (std::size_t k = 0; k < point.duals.size(); ++k) warm_.svm[k] = point.duals[k].beta;
    warm_.radius = point.radius_beta;
}

R2w2Point R2w2Objective::evaluate(const Vector& sigma, const std::string& where) {
    const R2w2Kernel kind = options_.r2w2.kernel;
    KernelSpec spec;  // linear
    if (kind == R2w2Kernel::Rbf) {
        spec.type = KernelType::Rbf;
        spec.gamma = gamma_;
    }
    const Matrix Xs = X_ * sigma.asDiagonal();
    const DeviceMatrix Xs_dev = backend_.upload(Xs);
    const DeviceMatrix K_dev = backend_.kernel_matrix(spec, Xs_dev, Xs_dev);
    std::vector<Vector> warm = warm_.svm;  // a rejected trial leaves the warm start alone
    const std::size_t n_machines = machines_.targets.size();
    const MachineFits fits = fit_machines(
        backend_, K_dev, Xs_dev, machines_, options_, warm,
        [&] { return kind == R2w2Kernel::Rbf ? 1.0 : Xs.rowwise().squaredNorm().maxCoeff(); },
        [&](std::size_t k) {
            return n_machines > 1 ? where + ", class " + std::to_string(k) + " against the rest"
                                  : where;
        },
        false);

    R2w2Point p;
    p.sigma = sigma;
    p.status = fits.status;
    p.w2 = fits.objective;
    p.duals = fits.duals;
    const Matrix K = backend_.download(K_dev);
    const Index n = K.rows();
    Matrix K_ridge = K;
    K_ridge.diagonal().array() += options_.ridge;
    if (options_.r2w2.radius == R2w2Radius::Exact) {
        p.radius_beta = solve_radius_qp(K_ridge, warm_.radius).beta;
    } else {
        p.radius_beta = Vector::Constant(n, 1.0 / double(n));
    }
    const Vector& b = p.radius_beta;
    p.radius2 = b.dot(K_ridge.diagonal()) - b.dot(K_ridge * b);
    p.bound = p.radius2 * p.w2;

    // One weighted sum for the whole gradient: A = R^2 sum_k (-1/2 v_k v_k') + W^2 (diag(b) - bb').
    Matrix A = -p.w2 * (b * b.transpose());
    A.diagonal() += p.w2 * b;
    for (std::size_t k = 0; k < n_machines; ++k) {
        const Vector v = p.duals[k].beta.cwiseProduct(machines_.targets[k]);
        A.noalias() -= 0.5 * p.radius2 * (v * v.transpose());
    }
    p.gradient = kernel_derivative_sums(backend_, X_dev_, sigma, kind, gamma_, A);
    return p;
}

R2w2Descent descend_r2w2(R2w2Objective& objective, const Vector& sigma,
                         const R2w2Options& options, const std::string& where,
                         const std::function<void(const R2w2Point&)>& on_point) {
    R2w2Descent out;
    out.point = objective.evaluate(sigma, where);
    objective.accept(out.point);
    if (on_point) on_point(out.point);
    out.bounds.push_back(out.point.bound);
    // The bound and its gradient hold only at the SVMs' optimum: from SVMs stopped at their
    // iteration cap there is no trustworthy step, and each trial would run to the cap again.
    for (std::int64_t step = 0; step < options.iterations && out.point.status == Status::Success;
         ++step) {
        const R2w2Point& at = out.point;
        const double largest = at.gradient.cwiseAbs().maxCoeff();
        if (!(largest > 0) || !std::isfinite(largest)) break;
        // Step length in units of the largest sigma, so it does not depend on the bound's scale.
        double t = options.step * at.sigma.maxCoeff() / largest;
        bool accepted = false;
        R2w2Point trial;
        for (int halving = 0; halving < kMaxHalvings && !accepted; ++halving, t *= 0.5) {
            const Vector next = (at.sigma - t * at.gradient).cwiseMax(0.0);
            if (!(next.maxCoeff() > 0)) continue;
            try {
                trial = objective.evaluate(next, where);
            } catch (const NumericalError&) {
                continue;  // no hard margin at this sigma: a shorter step
            }
            if (trial.status != Status::Success) break;  // the round ends at the last optimum
            const double decrease = at.bound - trial.bound;
            accepted = decrease > 0 && decrease >= kArmijo * at.gradient.dot(at.sigma - next);
        }
        if (!accepted) break;
        const double relative = (at.bound - trial.bound) / std::abs(at.bound);
        out.point = std::move(trial);
        objective.accept(out.point);
        if (on_point) on_point(out.point);
        out.bounds.push_back(out.point.bound);
        if (relative < options.tolerance) break;
    }
    if (out.point.status != Status::Success) out.status = Status::NumericalIssue;
    return out;
}

Ranking run_r2w2(Backend& backend, const Dataset& data, const Machines& machines,
                 const SelectionOptions& options, const IndexVector& counts_desc) {
    const Index d = data.n_features();
    const double gamma = options.r2w2.gamma > 0 ? options.r2w2.gamma : 1.0 / double(d);
    if (options.r2w2.kernel == R2w2Kernel::Rbf)  // the descent starts at sigma = 1
        check_gaussian_kernel_scale(data.X, gamma, Vector(), "r2w2",
                                    "give a smaller r2w2 gamma (--gamma; 0 is 1/d)");
    Vector sigma = Vector::Ones(d);
    Vector last_sigma = Vector::Zero(d);  // each feature's sigma in its last round, / max
    R2w2Warm warm;
    Ranking ranking = eliminate_recursively(
        d, counts_desc, options.rfe_fraction, [&](std::int64_t round, const IndexVector& alive) {
            Matrix X_alive(data.n_samples(), Index(alive.size()));
            Vector sigma_alive(Index(alive.size()));
            for (std::size_t k = 0; k < alive.size(); ++k) {
                X_alive.col(Index(k)) = data.X.col(alive[k]);
                sigma_alive[Index(k)] = sigma[alive[k]];
            }
            std::ostringstream where;
            where << "R2W2 round " << round << " (" << alive.size() << " features)";
            R2w2Objective objective(backend, X_alive, machines, options, gamma, warm);
            const R2w2Descent descent =
                descend_r2w2(objective, sigma_alive, options.r2w2, where.str());
            const Vector& found = descent.point.sigma;
            const double top = found.maxCoeff();
            for (std::size_t k = 0; k < alive.size(); ++k) {
                sigma[alive[k]] = found[Index(k)];
                last_sigma[alive[k]] = top > 0 ? found[Index(k)] / top : 0.0;
            }
            return RfeRound{found, descent.point.bound, descent.status};
        });
    ranking.scores = last_sigma;
    return ranking;
}

}  // namespace detail
}  // namespace zeronorm
