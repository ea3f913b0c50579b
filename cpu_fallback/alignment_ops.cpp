// The CPU backend's alignment sums (AlignmentOps): per weight vector, the Gaussian kernel by one
// Gram product and the gradient by one more product and column reductions; the chi-square
// kernel by the direct pair sums, using the symmetry of its terms (pairs i < j once).
#include <vector>

#include "core/batch_shapes.hpp"
#include "core/scalar_rules.hpp"
#include "cpu_backend.hpp"
#include "zeronorm/core/ops/alignment_ops.hpp"

namespace zeronorm::cpu {
namespace {

// sum_ij Y_ij K_theta(x_i, x_j) and its gradient for the Gaussian kernel: the exponent
// scale (|x_i|^2_theta + |x_j|^2_theta - 2 x_i' diag(theta) x_j) from one GEMM, W = Y o K,
// then gradient_k = -scale (2 sum_i r_i x_ik^2 - 2 sum_i x_ik (W X)_ik), r = W 1.
double gaussian_sum(double scale, const ConstMap& X, const ConstMap& Y,
                    const Eigen::Ref<const Vector>& theta, Eigen::Ref<Vector> gradient) {
    const Matrix weighted = X * theta.asDiagonal();
    const Matrix dots = weighted * X.transpose();
    const Vector norms = weighted.cwiseProduct(X).rowwise().sum();
    const Index n = X.rows();
    Matrix W(n, n);
    for (Index j = 0; j < n; ++j)
        for (Index i = 0; i < n; ++i)
            W(i, j) = Y(i, j) * rules::exponential_kernel(
                                    scale, norms[i] + norms[j] - 2.0 * dots(i, j));
    const Vector r = W.rowwise().sum();
    const Matrix WX = W * X;
    for (Index k = 0; k < X.cols(); ++k)
        gradient[k] = rules::gaussian_alignment_gradient(
            scale, r.dot(X.col(k).cwiseAbs2()), X.col(k).dot(WX.col(k)));
    return r.sum();
}

double chi_square_sum(double scale, const ConstMap& X, const ConstMap& Y,
                      const Eigen::Ref<const Vector>& theta, Eigen::Ref<Vector> gradient) {
    const Index n = X.rows(), d = X.cols();
    gradient.setZero();
    double value = Y.diagonal().sum();  // K_ii = 1: every term of a pair with itself is 0
    Vector terms(d);
    for (Index j = 0; j < n; ++j)
        for (Index i = 0; i < j; ++i) {
            double exponent = 0.0;
            for (Index k = 0; k < d; ++k) {
                terms[k] = rules::alignment_term(true, scale, X(i, k), X(j, k));
                exponent += theta[k] * terms[k];
            }
            const double w = (Y(i, j) + Y(j, i)) * rules::exponential_kernel(1.0, exponent);
            value += w;
            gradient -= w * terms;
        }
    return value;
}

class CpuAlignmentOps final : public AlignmentOps {
public:
    std::vector<double> weighted_kernel_sum_batch(const AlignmentKernelSpec& spec,
                                                  const DeviceMatrix& X, const DeviceMatrix& Y,
                                                  const DeviceMatrix& Theta,
                                                  DeviceMatrix& gradient) override {
        detail::check_weighted_kernel_sum_batch(spec, X, Y, Theta, gradient);
        std::vector<double> values;
        for (Index p = 0; p < Theta.cols(); ++p) {
            const auto theta = view(Theta).col(p);
            auto g = view(gradient).col(p);
            values.push_back(spec.type == AlignmentKernel::Gaussian
                                 ? gaussian_sum(spec.scale, view(X), view(Y), theta, g)
                                 : chi_square_sum(spec.scale, view(X), view(Y), theta, g));
        }
        return values;
    }

    // The squared distances over the pairs i > j, summed feature by feature (free of the
    // cancellation in |x|^2 + |z|^2 - 2 x.z), then every removal from them.
    std::vector<double> gaussian_removal_sums(double scale, const DeviceMatrix& X_dev,
                                              const DeviceMatrix& v_dev) override {
        detail::check_gaussian_removal_sums(scale, X_dev, v_dev);
        const ConstMap X = view(X_dev);
        const auto v = view(v_dev).col(0);
        const Index n = X.rows(), d = X.cols();
        Matrix D = Matrix::Zero(n, n);
        for (Index k = 0; k < d; ++k)
            for (Index j = 0; j < n; ++j)
                for (Index i = j + 1; i < n; ++i) {
                    const double diff = X(i, k) - X(j, k);
                    D(i, j) += diff * diff;
                }
        const double diagonal = v.squaredNorm();  // k(x, x) = 1
        std::vector<double> out(static_cast<std::size_t>(d + 1));
        for (Index p = 0; p <= d; ++p) {
            double sum = 0.0;
            for (Index j = 0; j < n; ++j)
                for (Index i = j + 1; i < n; ++i) {
                    const double diff = p < d ? X(i, p) - X(j, p) : 0.0;
                    sum += v[i] * v[j] * rules::removal_kernel(scale, D(i, j), diff);
                }
            out[static_cast<std::size_t>(p)] = diagonal + 2.0 * sum;
        }
        return out;
    }
};

}  // namespace

std::unique_ptr<AlignmentOps> make_alignment_ops() { return std::make_unique<CpuAlignmentOps>(); }

}  // namespace zeronorm::cpu
