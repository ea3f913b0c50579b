// A backend that computes on an inner backend but reports capabilities of the test's choosing,
// and counts its workers and kernel calls: shows what drives the evaluation schedules.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "zeronorm/core/backend.hpp"

namespace zeronorm::testing {

// concurrent_workers: BackendCapabilities::concurrent_workers (1: in order; 0: no limit).
inline BackendCapabilities capabilities(bool prefers_batched_schedule, unsigned concurrent_workers) {
    BackendCapabilities caps;
    caps.prefers_batched_schedule = prefers_batched_schedule;
    caps.concurrent_workers = concurrent_workers;
    return caps;
}

class CapabilityBackend : public Backend {
public:
    struct Counters {
        std::atomic<int> workers{0};       // make_worker calls
        std::atomic<unsigned> of_workers{0};  // the workers argument of the last of them
        std::atomic<int> kernel_calls{0};  // kernel_matrix, kernel_batch, (scaled_)gram_batch calls
    };

    CapabilityBackend(std::unique_ptr<Backend> inner, BackendCapabilities caps,
                      std::shared_ptr<Counters> counters = std::make_shared<Counters>())
        : inner_(std::move(inner)), caps_(caps), counters_(std::move(counters)) {}

    const Counters& counters() const { return *counters_; }

    BackendKind kind() const override { return inner_->kind(); }
    std::string description() const override { return "capabilities over " + inner_->description(); }
    BackendCapabilities capabilities() const override { return caps_; }
    std::unique_ptr<Backend> make_worker(unsigned workers) const override {
        ++counters_->workers;
        counters_->of_workers = workers;
        return std::make_unique<CapabilityBackend>(inner_->make_worker(workers), caps_, counters_);
    }
    // The inner backend's operation sets: they work on its memory, which this one hands out.
    SmoOps& smo() override { return inner_->smo(); }
    AromOps& arom() override { return inner_->arom(); }
    AlignmentOps& alignment() override { return inner_->alignment(); }
    RfeOps& rfe() override { return inner_->rfe(); }

    DeviceMatrix allocate(Index rows, Index cols) override { return inner_->allocate(rows, cols); }
    DeviceMatrix upload(const Matrix& host) override { return inner_->upload(host); }
    Matrix download(const DeviceMatrix& m) override { return inner_->download(m); }
    DeviceMatrix select_columns(const DeviceMatrix& X, const IndexVector& cols) override {
        return inner_->select_columns(X, cols);
    }
    DeviceMatrix select_rows(const DeviceMatrix& X, const IndexVector& rows) override {
        return inner_->select_rows(X, rows);
    }
    DeviceMatrix kernel_matrix(const KernelSpec& spec, const DeviceMatrix& A, const DeviceMatrix& B,
                               const DeviceMatrix* feature_scale) override {
        ++counters_->kernel_calls;
        // &A == &B selects the symmetric form: keep it.
        return inner_->kernel_matrix(spec, A, &A == &B ? A : B, feature_scale);
    }
    void gemm(bool trans_a, bool trans_b, double alpha, const DeviceMatrix& A, const DeviceMatrix& B,
              double beta, DeviceMatrix& C) override {
        inner_->gemm(trans_a, trans_b, alpha, A, B, beta, C);
    }
    void syrk(bool trans, double alpha, const DeviceMatrix& A, double beta,
              DeviceMatrix& C) override {
        inner_->syrk(trans, alpha, A, beta, C);
    }
    void scale_rows_columns(DeviceMatrix& X, const Vector& row_scale, const Vector& col_scale,
                            double diagonal_shift) override {
        inner_->scale_rows_columns(X, row_scale, col_scale, diagonal_shift);
    }
    bool cholesky_factor(DeviceMatrix& A) override { return inner_->cholesky_factor(A); }
    void triangular_solve(const DeviceMatrix& L, bool transpose, bool on_the_right,
                          DeviceMatrix& B) override {
        inner_->triangular_solve(L, transpose, on_the_right, B);
    }
    void assign_columns(DeviceMatrix& X, const IndexVector& cols,
                        const DeviceMatrix& source) override {
        inner_->assign_columns(X, cols, source);
    }
    SplitBlocks split_batch(const DeviceMatrix& X, const std::vector<IndexVector>& train_rows,
                            const std::vector<IndexVector>& test_rows, bool standardize) override {
        return inner_->split_batch(X, train_rows, test_rows, standardize);
    }
    DeviceMatrix scaled_gram_batch(const DeviceMatrix& A, const DeviceMatrix& B,
                                   const DeviceMatrix& Z, Precision precision) override {
        ++counters_->kernel_calls;
        return inner_->scaled_gram_batch(A, &A == &B ? A : B, Z, precision);
    }
    DeviceMatrix gram_batch(Index batch, const DeviceMatrix& A, const DeviceMatrix& B,
                            Precision precision) override {
        ++counters_->kernel_calls;
        return inner_->gram_batch(batch, A, &A == &B ? A : B, precision);
    }
    DeviceMatrix kernel_batch(const KernelSpec& spec, Index batch, const DeviceMatrix& A,
                              const DeviceMatrix& B) override {
        ++counters_->kernel_calls;
        return inner_->kernel_batch(spec, batch, A, &A == &B ? A : B);
    }
    DeviceMatrix gather_blocks(const DeviceMatrix& K, Index block_width, const IndexVector& source,
                               const std::vector<IndexVector>& rows,
                               const std::vector<IndexVector>& cols) override {
        return inner_->gather_blocks(K, block_width, source, rows, cols);
    }
    void gemm_batch(Index batch, bool trans_a, bool trans_b, double alpha, const DeviceMatrix& A,
                    const DeviceMatrix& B, double beta, DeviceMatrix& C) override {
        inner_->gemm_batch(batch, trans_a, trans_b, alpha, A, B, beta, C);
    }

private:
    std::unique_ptr<Backend> inner_;
    BackendCapabilities caps_;
    std::shared_ptr<Counters> counters_;
};

}  // namespace zeronorm::testing
