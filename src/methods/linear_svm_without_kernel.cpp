// The linear SVM without its kernel (linear_svm_without_kernel.hpp).
#include "methods/linear_svm_without_kernel.hpp"

#include <cstdint>
#include <utility>

#include "core/stopwatch.hpp"
#include "solvers/labels.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/methods/dc_svm.hpp"

namespace zeronorm::detail {

LinearSvmSolution solve_linear_svm_without_kernel(const Matrix& X, const Vector& y, double C,
                                                  double ridge, const Vector* warm) {
    const DcOptions dc;
    if (ridge > 0.0) {
        // ijcnn1 and a9a at ridge 1e-3 take 5 and 9 steps cold at C = inf, 12-130 at C = 0.5-10
        // (a box that leaves the loss's quadratic piece narrow: nearly the hinge); warm starts
        // from the previous AROM iteration take fewer overall (a9a's path at C = inf: 1.2 s
        // against 2.8 s cold).
        constexpr std::int64_t newton_steps = 500;
        return solve_ridge_svm_primal(X, y, C, ridge, warm, dc.gap_tolerance, newton_steps);
    }
    const L2L1BatchResult s = solve_l2_l1_svm_batch(
        X, y, Vector::Constant(1, C), Matrix::Zero(X.cols(), 1),
        warm != nullptr ? Matrix(*warm) : Matrix(), dc.gap_tolerance, dc.max_inner_iterations);
    LinearSvmSolution out;
    out.dual.beta = s.beta.col(0);
    out.dual.bias = s.b[0];
    out.dual.objective = -s.dual[0];
    out.dual.kkt_gap = s.primal[0] - s.dual[0];
    out.dual.iterations = s.iterations[0];
    out.dual.status = s.status[0];
    out.w = s.w.col(0);
    return out;
}

bool trains_without_kernel(const Dataset& data, const SvmOptions& options) {
    return options.kernel.type == KernelType::Linear && options.bias &&
           fits_without_kernel(data.n_samples()) && data.n_features() <= kKernelFreeFeatures;
}

SvmTrainResult train_svm_without_kernel(const Dataset& data, const SvmOptions& options) {
    const Stopwatch stopwatch;
    ZN_EXPECTS(options.kernel.type == KernelType::Linear && options.bias,
               "train_svm_without_kernel: the SVM needs a linear kernel and a bias");
    check_svm_training(data, options);
    LinearSvmSolution solved = solve_linear_svm_without_kernel(data.X, data.y, options.smo.C,
                                                               options.smo.ridge, nullptr);
    SvmTrainResult result;
    result.smo = std::move(solved.dual);
    if (options.smo.ridge == 0.0) {  // the interior point's zeros (the primal's are exact)
        const double zero = kKernelFreeAtBoundTolerance * options.smo.C;
        for (Index i = 0; i < result.smo.beta.size(); ++i)
            if (result.smo.beta[i] <= zero) result.smo.beta[i] = 0.0;
    }
    result.model = svm_model_from_dual(data, options.kernel, result.smo);
    result.seconds = stopwatch.seconds();
    return result;
}

}  // namespace zeronorm::detail
