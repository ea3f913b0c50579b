// The linear SVM without its kernel (linear_svm_without_kernel.hpp).
#include "methods/linear_svm_without_kernel.hpp"

#include <cstdint>

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

}  // namespace zeronorm::detail
