#include "methods/machine_fits.hpp"

#include "solvers/dense_dual.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm::detail {

Matrix dual_coefficients(const std::vector<SmoResult>& duals, const Matrix& Y) {
    Matrix coef = Matrix::Zero(Y.rows(), Y.cols());
    for (Index q = 0; q < Y.cols(); ++q)
        if (duals[std::size_t(q)].beta.size() == Y.rows())
            coef.col(q) = duals[std::size_t(q)].beta.cwiseProduct(Y.col(q));
    return coef;
}

DeviceMatrix dual_weights(Backend& backend, Index batch, const DeviceMatrix& X, const Matrix& coef) {
    const DeviceMatrix coef_dev = backend.upload(coef);
    DeviceMatrix W = backend.allocate(batch > 0 ? X.cols() / batch : 0, coef.cols());
    if (batch == 1)  // one block: the plain product
        backend.gemm(true, false, 1.0, X, coef_dev, 0.0, W);
    else
        backend.gemm_batch(batch, true, false, 1.0, X, coef_dev, 0.0, W);
    return W;
}

MachineFits fit_machines(Backend& backend, const DeviceMatrix& K, const DeviceMatrix& X,
                         const Machines& machines, const SelectionOptions& options,
                         std::vector<Vector>& warm, const std::function<double()>& radius2,
                         const std::function<std::string(std::size_t)>& where,
                         bool stop_at_failure) {
    MachineFits out;
    const std::size_t n_machines = machines.targets.size();
    Matrix Y(K.rows(), Index(n_machines));
    for (std::size_t k = 0; k < n_machines; ++k) {
        const Vector& y = machines.targets[k];
        Y.col(Index(k)) = y;
        const DualSolver solve = [&](const SmoOptions& smo, const Vector* start) {
            return solve_dense_dual(backend, K, y, smo, start);
        };
        SmoResult r = solve_svm_dual(solve, options.smo, options.C, options.ridge,
                                     warm[k].size() ? &warm[k] : nullptr, radius2, where(k));
        if (r.status != Status::Success && out.status == Status::Success) out.status = r.status;
        if (stop_at_failure && r.status != Status::Success) return out;
        warm[k] = r.beta;
        out.objective -= r.objective;
        out.duals.push_back(std::move(r));
    }
    out.W = backend.download(dual_weights(backend, 1, X, dual_coefficients(out.duals, Y)));
    return out;
}

MachineFits fit_machines_without_kernel(const Matrix& X, const Machines& machines,
                                        const SelectionOptions& options,
                                        std::vector<Vector>& warm,
                                        const std::function<double()>& radius2,
                                        const std::function<std::string(std::size_t)>& where,
                                        bool stop_at_failure) {
    MachineFits out;
    const std::size_t n_machines = machines.targets.size();
    Matrix W(X.cols(), Index(n_machines));
    for (std::size_t k = 0; k < n_machines; ++k) {
        const Vector& y = machines.targets[k];
        const DualSolver solve = [&](const SmoOptions& smo, const Vector* start) {
            LinearSvmSolution solved =
                solve_linear_svm_without_kernel(X, y, smo.C, smo.ridge, start);
            W.col(Index(k)) = solved.w;  // of the last stage: the one returned
            return solved.dual;
        };
        SmoResult r = solve_svm_dual(solve, options.smo, options.C, options.ridge,
                                     warm[k].size() ? &warm[k] : nullptr, radius2, where(k),
                                     kKernelFreeAtBoundTolerance);
        if (r.status != Status::Success && out.status == Status::Success) out.status = r.status;
        if (stop_at_failure && r.status != Status::Success) return out;
        warm[k] = r.beta;
        out.objective -= r.objective;
        out.duals.push_back(std::move(r));
    }
    out.W = std::move(W);
    return out;
}

}  // namespace zeronorm::detail
