// The CPU backend's alignment sums (AlignmentOps): per weight vector, the Gaussian kernel by one
// Gram product and the gradient by one more product and column reductions; the chi-square
// kernel by the direct pair sums (over one set of points, using the symmetry of its terms).
#include <vector>

#include "core/batch_shapes.hpp"
#include "core/scalar_rules.hpp"
#include "cpu_backend.hpp"
#include "vector_exp.hpp"
#include "zeronorm/core/ops/alignment_ops.hpp"

namespace zeronorm::cpu {
namespace {

using ThetaColumn = Eigen::Ref<const Vector>;
using GradientColumn = Eigen::Ref<Vector>;

// K(a_i, b_j) for the rows i < length: exponential_kernel (scalar_rules.hpp) of the distances
// |a_i|^2_theta + |b_j|^2_theta - 2 a_i' diag(theta) b_j, the exponentials by exp_in_place.
void gaussian_column(double scale, const Vector& norms_a, double norm_b, const Matrix& dots,
                     Index j, Index length, Eigen::ArrayXd& K) {
    K.head(length) = -scale * (norms_a.head(length).array() + norm_b -
                               2.0 * dots.col(j).head(length).array())
                                  .max(0.0);
    exp_in_place(K.data(), length);
}

// The value sum W and the Gaussian gradient from W = Y o K (m x q) over the pairs (a_i, b_j):
// gradient_k = -scale (sum_i r_i a_ik^2 + sum_j c_j b_jk^2 - 2 sum_i a_ik (W B)_ik), r = W 1,
// c = W' 1 (rules::gaussian_alignment_gradient).
double gaussian_value_and_gradient(double scale, const ConstMap& A, const ConstMap& B,
                                   const Matrix& W, GradientColumn gradient) {
    const Vector r = W.rowwise().sum(), c = W.colwise().sum().transpose();
    const Matrix WB = W * B;
    for (Index k = 0; k < A.cols(); ++k)
        gradient[k] = rules::gaussian_alignment_gradient(
            scale, r.dot(A.col(k).cwiseAbs2()) + c.dot(B.col(k).cwiseAbs2()),
            A.col(k).dot(WB.col(k)));
    return r.sum();
}

// sum_ij Y_ij K_theta(x_i, x_j) and its gradient for the Gaussian kernel: the exponents from one
// SYRK (one GEMM for a weight vector with negative entries), W = Y o K, the gradient from W X.
// K is symmetric: each pair's exponential, the bulk of the time, is taken once (i <= j).
double gaussian_sum(double scale, const ConstMap& X, const ConstMap& Y, ThetaColumn theta,
                    GradientColumn gradient) {
    const Index n = X.rows();
    Matrix dots(n, n);
    Vector norms;
    if ((theta.array() >= 0.0).all()) {
        // x_i' diag(theta) x_j = s_i' s_j with S = X diag(sqrt(theta)): one SYRK for the upper
        // triangle, the only part read below.
        const Matrix S = X * theta.cwiseSqrt().asDiagonal();
        dots.triangularView<Eigen::Upper>().setZero();
        dots.selfadjointView<Eigen::Upper>().rankUpdate(S);
        norms = S.rowwise().squaredNorm();
    } else {
        const Matrix weighted = X * theta.asDiagonal();
        dots.noalias() = weighted * X.transpose();
        norms = weighted.cwiseProduct(X).rowwise().sum();
    }
    Matrix W(n, n);
    Eigen::ArrayXd K(n);
    for (Index j = 0; j < n; ++j) {
        gaussian_column(scale, norms, norms[j], dots, j, j + 1, K);
        W.col(j).head(j + 1) = Y.col(j).head(j + 1).array() * K.head(j + 1);
        W.row(j).head(j) = Y.row(j).head(j).array() * K.head(j).transpose();
    }
    return gaussian_value_and_gradient(scale, X, X, W, gradient);
}

// sum_ij Y_ij K_theta(a_i, b_j) and its gradient for the Gaussian kernel (m x q pairs).
double gaussian_cross_sum(double scale, const ConstMap& A, const ConstMap& B, const ConstMap& Y,
                          ThetaColumn theta, GradientColumn gradient) {
    const Matrix weighted = A * theta.asDiagonal();
    const Matrix dots = weighted * B.transpose();
    const Vector norms_a = weighted.cwiseProduct(A).rowwise().sum();
    const Vector norms_b = (B * theta.asDiagonal()).cwiseProduct(B).rowwise().sum();
    const Index m = A.rows(), q = B.rows();
    Matrix W(m, q);
    Eigen::ArrayXd K(m);
    for (Index j = 0; j < q; ++j) {
        gaussian_column(scale, norms_a, norms_b[j], dots, j, m, K);
        W.col(j) = Y.col(j).array() * K;
    }
    return gaussian_value_and_gradient(scale, A, B, W, gradient);
}

// The chi-square pair (a, b): its terms D(a_k, b_k) into `terms`, its weight w K_theta(a, b)
// returned.
double chi_square_pair(double scale, const ConstMap& A, Index i, const ConstMap& B, Index j,
                       ThetaColumn theta, double weight, Vector& terms) {
    double exponent = 0.0;
    for (Index k = 0; k < A.cols(); ++k) {
        terms[k] = rules::alignment_term(true, scale, A(i, k), B(j, k));
        exponent += theta[k] * terms[k];
    }
    return weight * rules::exponential_kernel(1.0, exponent);
}

double chi_square_sum(double scale, const ConstMap& X, const ConstMap& Y, ThetaColumn theta,
                      GradientColumn gradient) {
    gradient.setZero();
    double value = Y.diagonal().sum();  // K_ii = 1: every term of a pair with itself is 0
    Vector terms(X.cols());
    for (Index j = 0; j < X.rows(); ++j)
        for (Index i = 0; i < j; ++i) {
            const double w = chi_square_pair(scale, X, i, X, j, theta, Y(i, j) + Y(j, i), terms);
            value += w;
            gradient -= w * terms;
        }
    return value;
}

double chi_square_cross_sum(double scale, const ConstMap& A, const ConstMap& B,
                            const ConstMap& Y, ThetaColumn theta, GradientColumn gradient) {
    gradient.setZero();
    double value = 0.0;
    Vector terms(A.cols());
    for (Index j = 0; j < B.rows(); ++j)
        for (Index i = 0; i < A.rows(); ++i) {
            const double w = chi_square_pair(scale, A, i, B, j, theta, Y(i, j), terms);
            value += w;
            gradient -= w * terms;
        }
    return value;
}

// sum(theta_p, gradient_p) for every column p of Theta.
template <class Sum>
std::vector<double> per_weight_vector(const DeviceMatrix& Theta, DeviceMatrix& gradient, Sum sum) {
    std::vector<double> values;
    for (Index p = 0; p < Theta.cols(); ++p)
        values.push_back(sum(view(Theta).col(p), view(gradient).col(p)));
    return values;
}

class CpuAlignmentOps final : public AlignmentOps {
public:
    std::vector<double> weighted_kernel_sum_batch(const AlignmentKernelSpec& spec,
                                                  const DeviceMatrix& X, const DeviceMatrix& Y,
                                                  const DeviceMatrix& Theta,
                                                  DeviceMatrix& gradient) override {
        detail::check_weighted_kernel_sum_batch(spec, X, Y, Theta, gradient);
        return per_weight_vector(Theta, gradient, [&](ThetaColumn theta, GradientColumn g) {
            return spec.type == AlignmentKernel::Gaussian
                       ? gaussian_sum(spec.scale, view(X), view(Y), theta, g)
                       : chi_square_sum(spec.scale, view(X), view(Y), theta, g);
        });
    }

    std::vector<double> cross_kernel_sum_batch(const AlignmentKernelSpec& spec,
                                               const DeviceMatrix& A, const DeviceMatrix& B,
                                               const DeviceMatrix& Y, const DeviceMatrix& Theta,
                                               DeviceMatrix& gradient) override {
        detail::check_cross_kernel_sum_batch(spec, A, B, Y, Theta, gradient);
        return per_weight_vector(Theta, gradient, [&](ThetaColumn theta, GradientColumn g) {
            return spec.type == AlignmentKernel::Gaussian
                       ? gaussian_cross_sum(spec.scale, view(A), view(B), view(Y), theta, g)
                       : chi_square_cross_sum(spec.scale, view(A), view(B), view(Y), theta, g);
        });
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
