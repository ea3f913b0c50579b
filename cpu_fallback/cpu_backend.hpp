// The CPU backend's private declarations: the CpuBackend context (Eigen for the dense algebra),
// views of its host memory, and the constructors of its operation sets. The core primitives are
// defined by group in cpu_backend.cpp (memory, gathers, batches), dense_ops.cpp (dense linear
// algebra) and kernel_ops.cpp (kernel matrices); the operation sets in smo_ops.cpp,
// arom_ops.cpp, alignment_ops.cpp and rfe_ops.cpp.
#pragma once

#include <memory>
#include <vector>

#include "blas_threads.hpp"
#include "zeronorm/core/backend.hpp"

namespace zeronorm::cpu {

using ConstMap = Eigen::Map<const Matrix>;
using MutableMap = Eigen::Map<Matrix>;

inline ConstMap view(const DeviceMatrix& m) { return ConstMap(m.data(), m.rows(), m.cols()); }
inline MutableMap view(DeviceMatrix& m) { return MutableMap(m.data(), m.rows(), m.cols()); }

// Block p (cols columns from column p cols) of a batch, as a matrix that shares X's storage.
DeviceMatrix block(const DeviceMatrix& X, Index cols, Index p);

DeviceMatrix allocate_host(Index rows, Index cols);

// Turns inner products `dots` (rows of A against rows of B) into kernel values in place;
// sq_a / sq_b are the squared row norms (RBF kinds only).
void finish_kernel(const KernelSpec& spec, Eigen::Ref<Matrix> dots, const Vector& sq_a,
                   const Vector& sq_b);

// K_ij = exp(-gamma sum_k (a_ik - b_jk)^2 / (a_ik + b_jk)) over the rows of A and B.
Matrix chi2_kernel(double gamma, const Eigen::Ref<const Matrix>& A,
                   const Eigen::Ref<const Matrix>& B);

std::unique_ptr<SmoOps> make_smo_ops();
std::unique_ptr<AromOps> make_arom_ops();
std::unique_ptr<AlignmentOps> make_alignment_ops();
std::unique_ptr<RfeOps> make_rfe_ops();

class CpuBackend final : public Backend {
public:
    // single_blas_thread: a worker's backend (make_worker), one BLAS thread while it lives.
    explicit CpuBackend(bool single_blas_thread = false);
    ~CpuBackend() override;

    BackendKind kind() const override { return BackendKind::Cpu; }
    std::string description() const override;
    BackendCapabilities capabilities() const override;
    std::unique_ptr<Backend> make_worker(unsigned workers) const override;
    SmoOps& smo() override { return *smo_; }
    AromOps& arom() override { return *arom_; }
    AlignmentOps& alignment() override { return *alignment_; }
    RfeOps& rfe() override { return *rfe_; }

    DeviceMatrix allocate(Index rows, Index cols) override { return allocate_host(rows, cols); }
    DeviceMatrix upload(const Matrix& host) override;
    Matrix download(const DeviceMatrix& m) override { return view(m); }

    DeviceMatrix select_columns(const DeviceMatrix& X, const IndexVector& cols) override;
    DeviceMatrix select_rows(const DeviceMatrix& X, const IndexVector& rows) override;
    void assign_columns(DeviceMatrix& X, const IndexVector& cols,
                        const DeviceMatrix& source) override;

    DeviceMatrix kernel_matrix(const KernelSpec& spec, const DeviceMatrix& A,
                               const DeviceMatrix& B, const DeviceMatrix* scale) override;
    void gemm(bool trans_a, bool trans_b, double alpha, const DeviceMatrix& A,
              const DeviceMatrix& B, double beta, DeviceMatrix& C) override;
    void syrk(bool trans, double alpha, const DeviceMatrix& A, double beta,
              DeviceMatrix& C) override;
    void scale_rows_columns(DeviceMatrix& X, const Vector& row_scale, const Vector& col_scale,
                            double diagonal_shift) override;
    bool cholesky_factor(DeviceMatrix& A) override;
    void triangular_solve(const DeviceMatrix& L, bool transpose, bool on_the_right,
                          DeviceMatrix& B) override;

    // The batched primitives are plain loops over the blocks: the reference the CUDA batch
    // kernels are tested against.
    SplitBlocks split_batch(const DeviceMatrix& X, const std::vector<IndexVector>& train_rows,
                            const std::vector<IndexVector>& test_rows, bool standardize) override;
    DeviceMatrix scaled_gram_batch(const DeviceMatrix& A, const DeviceMatrix& B,
                                   const DeviceMatrix& Z, Precision precision) override;
    DeviceMatrix gram_batch(Index batch, const DeviceMatrix& A, const DeviceMatrix& B,
                            Precision precision) override;
    DeviceMatrix kernel_batch(const KernelSpec& spec, Index batch, const DeviceMatrix& A,
                              const DeviceMatrix& B) override;
    DeviceMatrix gather_blocks(const DeviceMatrix& K, Index block_width, const IndexVector& source,
                               const std::vector<IndexVector>& rows,
                               const std::vector<IndexVector>& cols) override;
    void gemm_batch(Index batch, bool trans_a, bool trans_b, double alpha, const DeviceMatrix& A,
                    const DeviceMatrix& B, double beta, DeviceMatrix& C) override;

private:
    std::unique_ptr<SmoOps> smo_;
    std::unique_ptr<AromOps> arom_;
    std::unique_ptr<AlignmentOps> alignment_;
    std::unique_ptr<RfeOps> rfe_;
    std::unique_ptr<SingleThreadedBlas> one_blas_thread_;
};

}  // namespace zeronorm::cpu
