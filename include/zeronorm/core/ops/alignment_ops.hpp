// The kernel-target alignment operation set of a backend (Backend::alignment()): the weighted
// sums of a feature-weighted kernel and their gradients in the weights, for a batch of weight
// vectors at once (Neumann, Schnoerr & Steidl 2005, sec. 3.2.2 and 4.2.4; the chi-square kernel
// of sec. 6). These are the n^2 d sums every step of the alignment DCA evaluates many times.
#pragma once

#include <vector>

#include "zeronorm/core/backend.hpp"

namespace zeronorm {

// K_theta(x, z) = exp(-sum_k theta_k D(x_k, z_k)) with
//   Gaussian:   D(x, z) = scale (x - z)^2,           scale = 1 / (2 sigma^2)
//   ChiSquare:  D(x, z) = scale (x - z)^2 / (x + z),  scale = rho (0 where x + z = 0; x, z >= 0)
enum class AlignmentKernel { Gaussian, ChiSquare };

struct AlignmentKernelSpec {
    AlignmentKernel type = AlignmentKernel::Gaussian;
    double scale = 1.0;  // finite and > 0
};

class AlignmentOps {
public:
    virtual ~AlignmentOps() = default;

    // For every column theta_p of Theta (d x P):
    //   value[p]        = sum_ij Y_ij K_theta_p(x_i, x_j)
    //   gradient(k, p)  = d value[p] / d theta_k = -sum_ij Y_ij K_theta_p(x_i, x_j) D(x_ik, x_jk)
    // for the rows x_i of X (n x d) and the pair weights Y (n x n; e.g. y_n y_n' for the
    // alignment y_n' K y_n). gradient (d x P) must be allocated. With W = Y o K_theta, r = W 1
    // and c = W' 1 the Gaussian gradient is one n x n pass, one GEMM and row and column
    // reductions:
    //   gradient_k = -scale ((X' diag(r + c) X)_kk - 2 (X' W X)_kk);
    // the chi-square one has no product form and is the direct pair sum. Returns the P values.
    virtual std::vector<double> weighted_kernel_sum_batch(const AlignmentKernelSpec& spec,
                                                          const DeviceMatrix& X,
                                                          const DeviceMatrix& Y,
                                                          const DeviceMatrix& Theta,
                                                          DeviceMatrix& gradient) = 0;

    // The same sums over the pairs of a row a_i of A (m x d) and a row b_j of B (q x d), with
    // the weights Y (m x q), for every column theta_p of Theta (d x P):
    //   value[p]        = sum_ij Y_ij K_theta_p(a_i, b_j)
    //   gradient(k, p)  = -sum_ij Y_ij K_theta_p(a_i, b_j) D(a_ik, b_jk).
    // The alignment DCA's convex part g is such a sum between the two classes (A and B their
    // samples): m q pairs, where weighted_kernel_sum_batch over [A; B] with zero diagonal
    // blocks takes (m + q)^2. With W = Y o K_theta, r = W 1 and c = W' 1 the Gaussian gradient is
    //   gradient_k = -scale (sum_i r_i a_ik^2 + sum_j c_j b_jk^2 - 2 (A' W B)_kk).
    // gradient (d x P) must be allocated. Returns the P values.
    virtual std::vector<double> cross_kernel_sum_batch(const AlignmentKernelSpec& spec,
                                                       const DeviceMatrix& A,
                                                       const DeviceMatrix& B,
                                                       const DeviceMatrix& Y,
                                                       const DeviceMatrix& Theta,
                                                       DeviceMatrix& gradient) = 0;

    // W^2 with each feature left out of the Gaussian kernel exp(-scale |x - z|^2), for the
    // nonlinear RFE (Lal et al. 2006, Algorithm 2): for the rows x_i of X (n x d) and v (n x 1,
    // the dual's beta o y), entry p < d of the result is
    //   sum_ij v_i v_j exp(-scale sum_{k != p} (x_ik - x_jk)^2)
    // and entry d the same sum over every feature. One pass over the pairs for the squared
    // distances D_ij, one for all d removals (exp(-scale (D_ij - (x_ip - x_jp)^2)), the
    // difference clamped at 0 against rounding): O(n^2 d), where d kernel rebuilds cost
    // O(n^2 d^2). Returns d + 1 values.
    virtual std::vector<double> gaussian_removal_sums(double scale, const DeviceMatrix& X,
                                                      const DeviceMatrix& v) = 0;
};

}  // namespace zeronorm
