// The CPU backend's kernel matrices: one product (SYRK for the symmetric form, through Eigen)
// and one pass of the kernel function (the RBF's exponentials vectorised); chi2 directly. The
// batched forms loop over the blocks.
#include <algorithm>
#include <cmath>

#include "core/batch_shapes.hpp"
#include "core/op_shapes.hpp"
#include "core/scalar_rules.hpp"
#include "cpu_backend.hpp"
#include "vector_exp.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm::cpu {
namespace {

// Whether the kernel reads rescaled rows: by z, and by sqrt(theta) for the weighted RBF (which
// turns it into a plain RBF).
bool rows_rescaled(const KernelSpec& spec, const DeviceMatrix* scale) {
    return scale != nullptr || spec.type == KernelType::WeightedRbf;
}

// The rows rescaled, in one pass over A.
Matrix rescaled_rows(const KernelSpec& spec, const ConstMap& A, const DeviceMatrix* scale) {
    const bool weighted = spec.type == KernelType::WeightedRbf;
    Vector s = weighted ? Vector(spec.theta.cwiseSqrt()) : Vector::Ones(A.cols());
    if (scale != nullptr) s = s.cwiseProduct(Eigen::Map<const Vector>(scale->data(), scale->size()));
    return A * s.asDiagonal();
}

}  // namespace

void finish_kernel(const KernelSpec& spec, Eigen::Ref<Matrix> dots, const Vector& sq_a,
                   const Vector& sq_b) {
    switch (spec.type) {
        case KernelType::Linear: return;
        case KernelType::Polynomial:
            dots = dots.unaryExpr([&](double dot) {
                return rules::polynomial_kernel(spec.gamma, spec.coef0, spec.degree, dot);
            });
            return;
        case KernelType::SumOfPowers:
            dots = dots.unaryExpr(
                [&](double dot) { return rules::sum_of_powers_kernel(spec.degree, dot); });
            return;
        case KernelType::Rbf:
        case KernelType::WeightedRbf:
            // exponential_kernel (scalar_rules.hpp) column by column, the exponentials by
            // exp_in_place.
            for (Index j = 0; j < dots.cols(); ++j) {
                auto column = dots.col(j);
                column = -spec.gamma * (sq_a.array() + sq_b[j] - 2.0 * column.array()).max(0.0);
                exp_in_place(column.data(), column.size());
            }
            return;
        case KernelType::Chi2: break;
    }
    throw InvalidArgument("finish_kernel: chi2 has no inner-product form");
}

Matrix chi2_kernel(double gamma, const Eigen::Ref<const Matrix>& A,
                   const Eigen::Ref<const Matrix>& B) {
    Matrix K(A.rows(), B.rows());
    for (Index j = 0; j < B.rows(); ++j)
        for (Index i = 0; i < A.rows(); ++i) {
            double acc = 0.0;
            for (Index k = 0; k < A.cols(); ++k) acc += rules::chi2_term(A(i, k), B(j, k));
            K(i, j) = rules::exponential_kernel(gamma, acc);
        }
    return K;
}

DeviceMatrix CpuBackend::kernel_matrix(const KernelSpec& spec, const DeviceMatrix& A,
                                       const DeviceMatrix& B, const DeviceMatrix* scale) {
    detail::check_kernel_matrix(spec, A, B, scale);
    const bool symmetric = &A == &B;
    // Unscaled rows are read where they are (no copy of the data per kernel).
    const bool rescaled = rows_rescaled(spec, scale);
    const Matrix scaled_a = rescaled ? rescaled_rows(spec, view(A), scale) : Matrix();
    const Matrix scaled_b =
        rescaled && !symmetric ? rescaled_rows(spec, view(B), scale) : Matrix();
    const ConstMap SA = rescaled ? ConstMap(scaled_a.data(), A.rows(), A.cols()) : view(A);
    const ConstMap rhs = symmetric  ? SA
                         : rescaled ? ConstMap(scaled_b.data(), B.rows(), B.cols())
                                    : view(B);
    DeviceMatrix K = allocate_host(A.rows(), B.rows());
    auto out = view(K);
    if (spec.type == KernelType::Chi2) {
        out = chi2_kernel(spec.gamma, SA, rhs);
        return K;
    }
    if (symmetric) {
        out.setZero();
        out.selfadjointView<Eigen::Lower>().rankUpdate(SA);
        out.triangularView<Eigen::StrictlyUpper>() = out.transpose();
    } else {
        out.noalias() = SA * rhs.transpose();
    }
    // Squared norms only where the kernel needs distances; for A = B they are the Gram's
    // diagonal, which keeps every point at distance exactly 0 from itself.
    Vector sq_a, sq_b;
    if (spec.type == KernelType::Rbf || spec.type == KernelType::WeightedRbf) {
        sq_a = symmetric ? Vector(out.diagonal()) : Vector(SA.rowwise().squaredNorm());
        sq_b = symmetric ? sq_a : Vector(rhs.rowwise().squaredNorm());
    }
    finish_kernel(spec, out, sq_a, sq_b);
    if (symmetric && (spec.type == KernelType::Rbf || spec.type == KernelType::WeightedRbf))
        out.diagonal().setOnes();  // distance of a point to itself is exactly 0
    return K;
}

namespace {

// K_p = (A_p diag z_p)(B_p diag z_p)' for p < P, z_p = column p of Z, or A_p B_p' when Z is null.
DeviceMatrix gram_blocks(const DeviceMatrix& A, const DeviceMatrix& B, const DeviceMatrix* Z,
                         Index P, Index d, Precision precision) {
    const bool symmetric = &A == &B;
    const Index l = B.rows();
    DeviceMatrix K = allocate_host(A.rows(), l * P);
    auto out = view(K);
    for (Index p = 0; p < P; ++p) {
        const DeviceMatrix a = block(A, d, p), b = block(B, d, p);
        if (Z == nullptr && precision == Precision::Float64) {
            out.middleCols(p * l, l).noalias() = view(a) * view(b).transpose();
            continue;
        }
        Matrix SA = view(a), SB = symmetric ? Matrix() : Matrix(view(b));
        if (Z != nullptr) {
            const auto z = view(*Z).col(p).asDiagonal();
            SA = SA * z;
            if (!symmetric) SB = SB * z;
        }
        const Matrix& rhs = symmetric ? SA : SB;
        if (precision == Precision::Float32) {
            const Eigen::MatrixXf fa = SA.cast<float>(), fb = rhs.cast<float>();
            out.middleCols(p * l, l) = (fa * fb.transpose()).cast<double>();
        } else {
            out.middleCols(p * l, l).noalias() = SA * rhs.transpose();
        }
    }
    return K;
}

}  // namespace

DeviceMatrix CpuBackend::scaled_gram_batch(const DeviceMatrix& A, const DeviceMatrix& B,
                                           const DeviceMatrix& Z, Precision precision) {
    const Index d = detail::check_scaled_gram_batch(A, B, Z);
    return gram_blocks(A, B, &Z, Z.cols(), d, precision);
}

DeviceMatrix CpuBackend::gram_batch(Index batch, const DeviceMatrix& A, const DeviceMatrix& B,
                                    Precision precision) {
    const Index d = detail::check_kernel_batch(batch, A, B, "gram_batch");
    return gram_blocks(A, B, nullptr, batch, d, precision);
}

DeviceMatrix CpuBackend::kernel_batch(const KernelSpec& spec, Index batch, const DeviceMatrix& A,
                                      const DeviceMatrix& B) {
    const Index d = detail::check_kernel_batch(batch, A, B);
    const Index l = B.rows();
    DeviceMatrix K = allocate_host(A.rows(), l * batch);
    for (Index p = 0; p < batch; ++p) {
        const DeviceMatrix a = block(A, d, p);  // passed twice: the symmetric form
        const DeviceMatrix K_p = &A == &B ? kernel_matrix(spec, a, a, nullptr)
                                          : kernel_matrix(spec, a, block(B, d, p), nullptr);
        view(K).middleCols(p * l, l) = view(K_p);
    }
    return K;
}

}  // namespace zeronorm::cpu
