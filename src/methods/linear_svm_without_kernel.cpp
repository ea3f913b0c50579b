// The linear SVM without its kernel (linear_svm_without_kernel.hpp).
#include "methods/linear_svm_without_kernel.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
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
    out.dual.duality_gap = s.primal[0] - s.dual[0];
    out.dual.kkt_gap = std::numeric_limits<double>::quiet_NaN();  // its measure is duality_gap
    out.dual.iterations = s.iterations[0];
    out.dual.status = s.status[0];
    out.w = s.w.col(0);
    return out;
}

bool trains_without_kernel(Index n_samples, Index n_features, const SvmOptions& options) {
    return options.kernel.type == KernelType::Linear && options.bias &&
           n_features <= kKernelFreeFeatures &&
           n_samples >= std::max(kKernelFreeSvmSamples, 10 * n_features);
}

bool fits_without_kernel(Index n_samples, Index n_features) {
    return n_samples >= kKernelFreeSamples ||
           trains_without_kernel(n_samples, n_features, SvmOptions{});  // linear kernel, bias
}

SmoResult svm_dual_without_kernel(const Matrix& X, const Vector& y, const SmoOptions& smo,
                                  const Vector* warm) {
    SmoResult dual = solve_linear_svm_without_kernel(X, y, smo.C, smo.ridge, warm).dual;
    if (smo.ridge == 0.0) {  // the interior point's zeros
        const double zero = kKernelFreeAtBoundTolerance * smo.C;
        for (Index i = 0; i < dual.beta.size(); ++i)
            if (dual.beta[i] <= zero) dual.beta[i] = 0.0;
    }
    return dual;
}

SvmTrainResult train_svm_without_kernel(const Dataset& data, const SvmOptions& options) {
    const Stopwatch stopwatch;
    ZN_EXPECTS(options.kernel.type == KernelType::Linear && options.bias,
               "train_svm_without_kernel: the SVM needs a linear kernel and a bias");
    check_svm_training(data, options);
    SvmTrainResult result;
    result.smo = svm_dual_without_kernel(data.X, data.y, options.smo, nullptr);
    result.model = svm_model_from_dual(data, options.kernel, result.smo);
    result.seconds = stopwatch.seconds();
    return result;
}

}  // namespace zeronorm::detail
