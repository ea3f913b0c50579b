// The CUDA backend's kernel matrices: cuBLAS products and the transforms of kernel_matrix.cu.

#include <algorithm>
#include <vector>

#include "core/batch_shapes.hpp"
#include "core/op_shapes.hpp"
#include "cuda_context.hpp"
#include <cmath>

namespace zeronorm::cuda_detail {

namespace {

DeviceKernel device_kernel(KernelType type) {
    switch (type) {
        case KernelType::Linear: return DeviceKernel::Linear;
        case KernelType::Polynomial: return DeviceKernel::Polynomial;
        case KernelType::SumOfPowers: return DeviceKernel::SumOfPowers;
        case KernelType::Rbf:
        case KernelType::WeightedRbf: return DeviceKernel::Rbf;
        case KernelType::Chi2: return DeviceKernel::Chi2;
    }
    throw InvalidArgument("kernel_matrix: unknown kernel type");
}

// The column weights sqrt(theta) of the weighted RBF (as the RBF of the scaled data) for a batch
// of `blocks` blocks of d features (theta repeated per block); empty for other kernels. theta is
// checked by KernelSpec::validate.
std::vector<double> weighted_rbf_weights(const KernelSpec& spec, Index d, Index blocks) {
    std::vector<double> weights;
    if (spec.type != KernelType::WeightedRbf) return weights;
    weights.reserve(static_cast<std::size_t>(d * blocks));
    for (Index p = 0; p < blocks; ++p)
        for (Index j = 0; j < d; ++j) weights.push_back(std::sqrt(spec.theta[j]));
    return weights;
}

KernelParams kernel_params(const KernelSpec& spec) {
    KernelParams kp;
    kp.type = device_kernel(spec.type);
    kp.gamma = spec.gamma;
    kp.degree = spec.degree;
    kp.coef0 = spec.coef0;
    return kp;
}

}  // namespace

// K_ij = k(z.*a_i, z.*b_j). Dot-product kernels: (scaled copies of A, B when z or theta is
// given) -> GEMM (SYRK when &A == &B) -> one elementwise pass (which also mirrors the SYRK
// triangle). WeightedRbf is Rbf on columns scaled by sqrt(theta). Chi2: one direct tiled kernel.
// Extra device memory: the m x d and l x d scaled copies (only with z or WeightedRbf) and m + l
// norms (RBF only).
DeviceMatrix CudaBackend::kernel_matrix(const KernelSpec& spec, const DeviceMatrix& A,
                                        const DeviceMatrix& B,
                                        const DeviceMatrix* feature_scale) {
    OpScope scope(*this, "kernel_matrix");
    detail::check_kernel_matrix(spec, A, B, feature_scale);
    const Index m = A.rows();
    const Index l = B.rows();
    const Index d = A.cols();
    require_device_memory(A, "A", "kernel_matrix");
    require_device_memory(B, "B", "kernel_matrix");
    const bool symmetric = &A == &B;
    const double* z = nullptr;
    if (feature_scale != nullptr) {
        require_device_memory(*feature_scale, "feature_scale", "kernel_matrix");
        z = feature_scale->data();
    }
    const std::vector<double> sqrt_theta = weighted_rbf_weights(spec, d, 1);

    DeviceMatrix K = allocate_matrix(m, l, true, "kernel_matrix");
    if (K.empty()) {
        sync();
        return K;
    }
    const int bm = blas_int(m, "kernel_matrix");
    const int bl = blas_int(l, "kernel_matrix");
    const int bd = blas_int(d, "kernel_matrix");

    // Column-scaled copies z.*x (and sqrt(theta).*x).
    const std::size_t ud = static_cast<std::size_t>(d);
    DeviceBuffer<double> d_theta(sqrt_theta.size(), memory_);
    copy_to_device(d_theta.get(), sqrt_theta.data(), sqrt_theta.size());
    const double* w = sqrt_theta.empty() ? nullptr : d_theta.get();
    const bool scaled = (z != nullptr || w != nullptr) && d > 0;
    DeviceBuffer<double> As(scaled ? static_cast<std::size_t>(m) * ud : 0, memory_);
    DeviceBuffer<double> Bs(scaled && !symmetric ? static_cast<std::size_t>(l) * ud : 0, memory_);
    const double* Ap = A.data();
    const double* Bp = B.data();
    if (scaled) {
        scale_columns(A.data(), m, d, z, w, As.get(), stream_);
        Ap = As.get();
        if (symmetric) {
            Bp = Ap;
        } else {
            scale_columns(B.data(), l, d, z, w, Bs.get(), stream_);
            Bp = Bs.get();
        }
    }

    const KernelParams kp = kernel_params(spec);

    if (kp.type == DeviceKernel::Chi2) {
        chi2_kernel_matrix(kp.gamma, Ap, m, Bp, l, d, K.data(), stream_);
        sync();
        return K;
    }

    const double one = 1.0;
    const double zero = 0.0;
    if (d == 0) {
        ZN_CUDA_TRY(cudaMemsetAsync(K.data(), 0, static_cast<std::size_t>(K.size()) * sizeof(double),
                                    stream_));
    } else if (symmetric) {
        ZN_CUBLAS_TRY(cublasDsyrk(blas_, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, bm, bd, &one, Ap, bm,
                                  &zero, K.data(), bm));
    } else {
        ZN_CUBLAS_TRY(cublasDgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_T, bm, bl, bd, &one, Ap, bm, Bp,
                                  bl, &zero, K.data(), bm));
    }

    const bool rbf = kp.type == DeviceKernel::Rbf;
    DeviceBuffer<double> norms_a(rbf ? static_cast<std::size_t>(m) : 0, memory_);
    DeviceBuffer<double> norms_b(rbf && !symmetric ? static_cast<std::size_t>(l) : 0, memory_);
    if (rbf) {
        row_squared_norms(Ap, m, d, norms_a.get(), stream_);
        if (!symmetric) row_squared_norms(Bp, l, d, norms_b.get(), stream_);
    }
    if (symmetric) {
        transform_gram_symmetric(kp, K.data(), m, norms_a.get(), stream_);
    } else {
        transform_gram(kp, K.data(), m, l, norms_a.get(), norms_b.get(), stream_);
    }
    sync();
    return K;
}

// Batches (backend.hpp): the column scaling of every block in one pass (Z's column-major order
// is the order of the batch's columns), then one strided-batched GEMM; without scales the GEMM
// reads the blocks in place.
DeviceMatrix CudaBackend::scaled_gram_batch(const DeviceMatrix& A, const DeviceMatrix& B,
                                            const DeviceMatrix& Z, Precision precision) {
    OpScope scope(*this, "scaled_gram_batch");
    const Index d = detail::check_scaled_gram_batch(A, B, Z);
    require_device_memory(Z, "Z", "scaled_gram_batch");
    return gram_blocks(A, B, Z.data(), Z.cols(), d, precision);
}

DeviceMatrix CudaBackend::gram_batch(Index batch, const DeviceMatrix& A, const DeviceMatrix& B,
                                     Precision precision) {
    OpScope scope(*this, "gram_batch");
    const Index d = detail::check_kernel_batch(batch, A, B, "gram_batch");
    return gram_blocks(A, B, nullptr, batch, d, precision);
}

DeviceMatrix CudaBackend::gram_blocks(const DeviceMatrix& A, const DeviceMatrix& B,
                                      const double* z, Index P, Index d, Precision precision) {
    const char* where = z != nullptr ? "scaled_gram_batch" : "gram_batch";
    require_device_memory(A, "A", where);
    require_device_memory(B, "B", where);
    const Index m = A.rows();
    const Index l = B.rows();
    const bool symmetric = &A == &B;
    DeviceMatrix K = allocate_matrix(m, l * P, true, where);
    if (K.empty()) {
        sync();
        return K;
    }
    if (d == 0) {
        ZN_CUDA_TRY(cudaMemsetAsync(K.data(), 0, static_cast<std::size_t>(K.size()) * sizeof(double),
                                    stream_));
        sync();
        return K;
    }
    const int bm = blas_int(m, where);
    const int bl = blas_int(l, where);
    const int bd = blas_int(d, where);
    const int batch = blas_int(P, where);
    if (precision == Precision::Float32) {
        // Single-precision (scaled) copies and product in the workspace (each part starting on a
        // 256-byte boundary), widened into K.
        const auto round_up = [](std::size_t floats) { return (floats + 63) / 64 * 64; };
        const std::size_t a = round_up(static_cast<std::size_t>(A.size()));
        const std::size_t b = symmetric ? 0 : round_up(static_cast<std::size_t>(B.size()));
        const std::size_t k = static_cast<std::size_t>(K.size());
        float* As = reinterpret_cast<float*>(batch_workspace((a + b + k + 1) / 2));
        float* Bs = symmetric ? As : As + a;
        float* Kf = As + a + b;
        scale_columns_to_float(A.data(), m, d * P, z, As, stream_);
        if (!symmetric) scale_columns_to_float(B.data(), l, d * P, z, Bs, stream_);
        const float one = 1.0f;
        const float zero = 0.0f;
        {
            const LaunchTimer timer(*this, "gram gemm (float32)");
            ZN_CUBLAS_TRY(cublasSgemmStridedBatched(blas_, CUBLAS_OP_N, CUBLAS_OP_T, bm, bl, bd,
                                                    &one, As, bm, m * d, Bs, bl, l * d, &zero, Kf,
                                                    bm, m * l, batch));
        }
        widen(Kf, K.data(), K.size(), stream_);
        sync();
        return K;
    }
    const double* Ap = A.data();
    const double* Bp = B.data();
    if (z != nullptr) {
        double* As =
            batch_workspace(static_cast<std::size_t>(A.size() + (symmetric ? 0 : B.size())));
        scale_columns(A.data(), m, d * P, z, nullptr, As, stream_);
        Ap = As;
        Bp = As;
        if (!symmetric) {
            double* Bs = As + A.size();
            scale_columns(B.data(), l, d * P, z, nullptr, Bs, stream_);
            Bp = Bs;
        }
    }
    const double one = 1.0;
    const double zero = 0.0;
    {
        const LaunchTimer timer(*this, "gram gemm (float64)");
        ZN_CUBLAS_TRY(cublasDgemmStridedBatched(blas_, CUBLAS_OP_N, CUBLAS_OP_T, bm, bl, bd, &one,
                                                Ap, bm, m * d, Bp, bl, l * d, &zero, K.data(), bm,
                                                m * l, batch));
    }
    sync();
    return K;
}

// The dot-product kernels: one strided-batched GEMM (A_p B_p'; for A = B both triangles, of
// which the symmetric transform reads the lower one and mirrors it, so every block comes out
// exactly symmetric) and one transform pass over all blocks. The weighted RBF is the RBF of
// sqrt(theta)-scaled copies; chi2, which has no GEMM form, is one launch per block.
DeviceMatrix CudaBackend::kernel_batch(const KernelSpec& spec, Index batch, const DeviceMatrix& A,
                                       const DeviceMatrix& B) {
    OpScope scope(*this, "kernel_batch");
    const Index d = detail::check_kernel_batch(batch, A, B);
    spec.validate(d);
    require_device_memory(A, "A", "kernel_batch");
    require_device_memory(B, "B", "kernel_batch");
    const bool symmetric = &A == &B;
    const Index m = A.rows();
    const Index l = B.rows();
    DeviceMatrix K = allocate_matrix(m, l * batch, true, "kernel_batch");
    if (K.empty()) {
        sync();
        return K;
    }
    const double* Ap = A.data();
    const double* Bp = B.data();
    if (spec.type == KernelType::WeightedRbf && d > 0) {
        const std::vector<double> weights = weighted_rbf_weights(spec, d, batch);
        DeviceBuffer<double> d_weights(weights.size(), memory_);
        copy_to_device(d_weights.get(), weights.data(), weights.size());
        double* scaled =
            batch_workspace(static_cast<std::size_t>(A.size() + (symmetric ? 0 : B.size())));
        scale_columns(A.data(), m, d * batch, nullptr, d_weights.get(), scaled, stream_);
        Ap = scaled;
        Bp = scaled;
        if (!symmetric) {
            scale_columns(B.data(), l, d * batch, nullptr, d_weights.get(), scaled + A.size(),
                          stream_);
            Bp = scaled + A.size();
        }
        sync();  // d_weights is freed on return from this block's scope
    }
    const KernelParams kp = kernel_params(spec);
    if (kp.type == DeviceKernel::Chi2) {
        for (Index p = 0; p < batch; ++p)
            chi2_kernel_matrix(kp.gamma, Ap + p * m * d, m, Bp + p * l * d, l, d,
                               K.data() + p * m * l, stream_);
        sync();
        return K;
    }
    if (d == 0) {
        ZN_CUDA_TRY(cudaMemsetAsync(K.data(), 0, static_cast<std::size_t>(K.size()) * sizeof(double),
                                    stream_));
    } else {
        const double one = 1.0;
        const double zero = 0.0;
        ZN_CUBLAS_TRY(cublasDgemmStridedBatched(
            blas_, CUBLAS_OP_N, CUBLAS_OP_T, blas_int(m, "kernel_batch"), blas_int(l, "kernel_batch"),
            blas_int(d, "kernel_batch"), &one, Ap, blas_int(m, "kernel_batch"), m * d, Bp,
            blas_int(l, "kernel_batch"), l * d, &zero, K.data(), blas_int(m, "kernel_batch"), m * l,
            blas_int(batch, "kernel_batch")));
    }
    const bool rbf = kp.type == DeviceKernel::Rbf;
    DeviceBuffer<double> norms_a(rbf ? static_cast<std::size_t>(m * batch) : 0, memory_);
    DeviceBuffer<double> norms_b(rbf && !symmetric ? static_cast<std::size_t>(l * batch) : 0,
                                 memory_);
    if (rbf) {
        row_squared_norms_batch(Ap, m, d, batch, norms_a.get(), stream_);
        if (!symmetric) row_squared_norms_batch(Bp, l, d, batch, norms_b.get(), stream_);
    }
    if (symmetric)
        transform_gram_symmetric_batch(kp, K.data(), m, batch, norms_a.get(), stream_);
    else
        transform_gram_batch(kp, K.data(), m, l, batch, norms_a.get(), norms_b.get(), stream_);
    sync();
    return K;
}

}  // namespace zeronorm::cuda_detail
