// The CUDA backend's gathers, scatters, splits and batched GEMMs (elementwise.cu, cuBLAS).
#include <algorithm>
#include <vector>

#include "core/batch_shapes.hpp"
#include "core/op_shapes.hpp"
#include "cuda_context.hpp"

namespace zeronorm::cuda_detail {

DeviceMatrix CudaBackend::select_columns(const DeviceMatrix& X, const IndexVector& cols) {
    OpScope scope(*this, "select_columns");
    require_device_memory(X, "X", "select_columns");
    detail::check_indices(cols, X.cols(), "select_columns", "column");
    const std::vector<i64> idx(cols.begin(), cols.end());
    const auto n_cols = static_cast<Index>(cols.size());
    DeviceMatrix out = allocate_matrix(X.rows(), n_cols, true, "select_columns");
    DeviceBuffer<i64> d_idx(out.empty() ? 0 : idx.size(), memory_);
    if (!out.empty()) {
        copy_to_device(d_idx.get(), idx.data(), idx.size());
        gather_columns(X.data(), X.rows(), d_idx.get(), n_cols, out.data(), stream_);
    }
    sync();
    return out;
}

DeviceMatrix CudaBackend::select_rows(const DeviceMatrix& X, const IndexVector& rows) {
    OpScope scope(*this, "select_rows");
    require_device_memory(X, "X", "select_rows");
    detail::check_indices(rows, X.rows(), "select_rows", "row");
    const std::vector<i64> idx(rows.begin(), rows.end());
    const auto n_rows = static_cast<Index>(rows.size());
    DeviceMatrix out = allocate_matrix(n_rows, X.cols(), true, "select_rows");
    DeviceBuffer<i64> d_idx(out.empty() ? 0 : idx.size(), memory_);
    if (!out.empty()) {
        copy_to_device(d_idx.get(), idx.data(), idx.size());
        gather_rows(X.data(), X.rows(), X.cols(), d_idx.get(), n_rows, out.data(), stream_);
    }
    sync();
    return out;
}

void CudaBackend::assign_columns(DeviceMatrix& X, const IndexVector& cols,
                                 const DeviceMatrix& source) {
    OpScope scope(*this, "assign_columns");
    detail::check_assign_columns(X, cols, source);
    require_device_memory(X, "X", "assign_columns");
    require_device_memory(source, "source", "assign_columns");
    const std::vector<i64> slots(cols.begin(), cols.end());
    DeviceBuffer<i64> d_slots(slots.size(), memory_);
    copy_to_device(d_slots.get(), slots.data(), slots.size());
    scatter_columns(source.data(), X.rows(), d_slots.get(), i64(slots.size()), X.data(), stream_);
    sync();
}

// One thread per (split, column) gathers and standardises from X in device memory, so only the
// row indices cross to the device, not the P blocks.
SplitBlocks CudaBackend::split_batch(const DeviceMatrix& X, const std::vector<IndexVector>& train_rows,
                                     const std::vector<IndexVector>& test_rows, bool standardize) {
    OpScope scope(*this, "split_batch");
    const auto [n, m] = detail::check_split_batch(X.rows(), train_rows, test_rows);
    require_device_memory(X, "X", "split_batch");
    const Index d = X.cols();
    const Index P = Index(train_rows.size());
    std::vector<i64> tr, te;
    tr.reserve(std::size_t(n * P));
    te.reserve(std::size_t(m * P));
    for (Index p = 0; p < P; ++p) {
        tr.insert(tr.end(), train_rows[std::size_t(p)].begin(), train_rows[std::size_t(p)].end());
        te.insert(te.end(), test_rows[std::size_t(p)].begin(), test_rows[std::size_t(p)].end());
    }
    DeviceBuffer<i64> d_tr(tr.size(), memory_);
    DeviceBuffer<i64> d_te(te.size(), memory_);
    copy_to_device(d_tr.get(), tr.data(), tr.size());
    copy_to_device(d_te.get(), te.data(), te.size());
    SplitBlocks out{allocate_matrix(n, d * P, true, "split_batch"),
                    allocate_matrix(m, d * P, true, "split_batch")};
    split_blocks(X.data(), X.rows(), d, d_tr.get(), n, d_te.get(), m, P, standardize,
                 out.train.data(), out.test.data(), stream_);
    sync();
    // A non-finite training value makes its column's statistics, and so the whole standardised
    // column, non-finite (the CPU's Standardizer::fit refuses it).
    ZN_EXPECTS(!standardize || all_finite(out.train),
               "split_batch: a training row holds a non-finite value (NaN or Inf), which cannot "
               "be standardised");
    return out;
}

DeviceMatrix CudaBackend::gather_blocks(const DeviceMatrix& K, Index block_width,
                                        const IndexVector& source,
                                        const std::vector<IndexVector>& rows,
                                        const std::vector<IndexVector>& cols) {
    OpScope scope(*this, "gather_blocks");
    const auto [r, c] = detail::check_gather_blocks(K, block_width, source, rows, cols);
    require_device_memory(K, "K", "gather_blocks");
    const Index Q = Index(source.size());
    std::vector<i64> src(source.begin(), source.end());
    std::vector<i64> row_list, col_list;
    row_list.reserve(static_cast<std::size_t>(r * Q));
    col_list.reserve(static_cast<std::size_t>(c * Q));
    for (Index q = 0; q < Q; ++q) {
        row_list.insert(row_list.end(), rows[std::size_t(q)].begin(), rows[std::size_t(q)].end());
        col_list.insert(col_list.end(), cols[std::size_t(q)].begin(), cols[std::size_t(q)].end());
    }
    DeviceBuffer<i64> d_src(src.size(), memory_);
    DeviceBuffer<i64> d_rows(row_list.size(), memory_);
    DeviceBuffer<i64> d_cols(col_list.size(), memory_);
    copy_to_device(d_src.get(), src.data(), src.size());
    copy_to_device(d_rows.get(), row_list.data(), row_list.size());
    copy_to_device(d_cols.get(), col_list.data(), col_list.size());
    DeviceMatrix out = allocate_matrix(r, c * Q, true, "gather_blocks");
    cuda_detail::gather_blocks(K.data(), K.rows(), block_width, d_src.get(), d_rows.get(), r,
                               d_cols.get(), c, Q, out.data(), stream_);
    sync();
    return out;
}

void CudaBackend::gemm_batch(Index batch, bool trans_a, bool trans_b, double alpha,
                             const DeviceMatrix& A, const DeviceMatrix& B, double beta,
                             DeviceMatrix& C) {
    OpScope scope(*this, "gemm_batch");
    const detail::GemmBatchShape s = detail::check_gemm_batch(batch, trans_a, trans_b, A, B, C);
    require_device_memory(A, "A", "gemm_batch");
    require_device_memory(B, "B", "gemm_batch");
    require_device_memory(C, "C", "gemm_batch");
    if (C.empty()) return;
    ZN_EXPECTS(C.data() != A.data() && C.data() != B.data(),
               "gemm_batch: C must not share storage with A or B");
    if (s.k == 0) {
        scale_in_place(C.data(), C.size(), beta, stream_);
        sync();
        return;
    }
    ZN_CUBLAS_TRY(cublasDgemmStridedBatched(
        blas_, trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N,
        blas_int(s.m, "gemm_batch"), blas_int(s.n, "gemm_batch"), blas_int(s.k, "gemm_batch"),
        &alpha, A.data(), blas_int(A.rows(), "gemm_batch"), A.rows() * s.a_block, B.data(),
        blas_int(B.rows(), "gemm_batch"), B.rows() * s.b_block, &beta, C.data(),
        blas_int(C.rows(), "gemm_batch"), C.rows() * s.n, blas_int(batch, "gemm_batch")));
    sync();
}

}  // namespace zeronorm::cuda_detail
