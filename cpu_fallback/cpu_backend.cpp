// The CPU backend: memory (host arrays), gathers and the batched gathers and splits. The dense
// algebra is in dense_ops.cpp, the kernel matrices in kernel_ops.cpp, the operation sets in
// smo_ops.cpp and arom_ops.cpp.
#include "cpu_backend.hpp"

#include <algorithm>
#include <thread>

#include "core/batch_shapes.hpp"
#include "core/op_shapes.hpp"
#include "core/thread_pool.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/ops/alignment_ops.hpp"
#include "zeronorm/core/ops/arom_ops.hpp"
#include "zeronorm/core/ops/rfe_ops.hpp"
#include "zeronorm/core/ops/smo_ops.hpp"
#include "zeronorm/core/preprocess.hpp"

namespace zeronorm {
namespace cpu {
namespace {

// dst(k, j) = X(rows[k], j), column by column: a row of a column-major matrix is strided, and
// copying row by row walked the whole of X once per row.
void gather_rows(const ConstMap& X, const IndexVector& rows, Eigen::Ref<Matrix> dst) {
    for (Index j = 0; j < X.cols(); ++j) {
        const double* from = X.data() + j * X.rows();
        double* to = dst.data() + j * dst.outerStride();
        for (std::size_t k = 0; k < rows.size(); ++k) to[k] = from[rows[k]];
    }
}

}  // namespace

DeviceMatrix block(const DeviceMatrix& X, Index cols, Index p) {
    double* first = const_cast<double*>(X.data()) + p * cols * X.rows();
    return DeviceMatrix(std::shared_ptr<double>(std::shared_ptr<double>(), first), X.rows(), cols);
}

DeviceMatrix allocate_host(Index rows, Index cols) {
    ZN_EXPECTS(rows >= 0 && cols >= 0, "allocate: negative shape " << rows << " x " << cols);
    const Index count = rows * cols;
    std::shared_ptr<double> storage(count > 0 ? new double[static_cast<std::size_t>(count)] : nullptr,
                                    std::default_delete<double[]>());
    return DeviceMatrix(std::move(storage), rows, cols);
}

CpuBackend::CpuBackend(bool single_blas_thread)
    : smo_(make_smo_ops()), arom_(make_arom_ops()), alignment_(make_alignment_ops()),
      rfe_(make_rfe_ops()) {
    if (single_blas_thread) one_blas_thread_ = std::make_unique<SingleThreadedBlas>();
}
CpuBackend::~CpuBackend() = default;

std::string CpuBackend::description() const {
    return "cpu (" + std::to_string(std::max(1u, std::thread::hardware_concurrency())) +
           " hardware threads)";
}

BackendCapabilities CpuBackend::capabilities() const {
    BackendCapabilities caps;
    caps.concurrent_workers = 0;  // as many as the threads asked for
    return caps;
}

std::unique_ptr<Backend> CpuBackend::make_worker(unsigned workers) const {
    ZN_EXPECTS(workers >= 1, "make_worker: workers must be >= 1, got " << workers);
    return std::make_unique<CpuBackend>(true);
}

DeviceMatrix CpuBackend::upload(const Matrix& host) {
    DeviceMatrix m = allocate_host(host.rows(), host.cols());
    view(m) = host;
    return m;
}

DeviceMatrix CpuBackend::select_columns(const DeviceMatrix& X, const IndexVector& cols) {
    detail::check_indices(cols, X.cols(), "select_columns", "column");
    DeviceMatrix out = allocate_host(X.rows(), Index(cols.size()));
    auto src = view(X);
    auto dst = view(out);
    for (std::size_t k = 0; k < cols.size(); ++k) dst.col(Index(k)) = src.col(cols[k]);
    return out;
}

DeviceMatrix CpuBackend::select_rows(const DeviceMatrix& X, const IndexVector& rows) {
    detail::check_indices(rows, X.rows(), "select_rows", "row");
    DeviceMatrix out = allocate_host(Index(rows.size()), X.cols());
    gather_rows(view(X), rows, view(out));
    return out;
}

void CpuBackend::assign_columns(DeviceMatrix& X, const IndexVector& cols,
                                const DeviceMatrix& source) {
    detail::check_assign_columns(X, cols, source);
    for (std::size_t k = 0; k < cols.size(); ++k) view(X).col(cols[k]) = view(source).col(Index(k));
}

SplitBlocks CpuBackend::split_batch(const DeviceMatrix& X,
                                    const std::vector<IndexVector>& train_rows,
                                    const std::vector<IndexVector>& test_rows, bool standardize) {
    const auto [n, m] = detail::check_split_batch(X.rows(), train_rows, test_rows);
    const Index d = X.cols();
    const Index P = Index(train_rows.size());
    SplitBlocks out{allocate_host(n, d * P), allocate_host(m, d * P)};
    // The splits on the hardware's threads (like this backend's BLAS), each into its own columns.
    detail::parallel_for(std::size_t(P), 0, [&](std::size_t p) {
        auto train = view(out.train).middleCols(Index(p) * d, d);
        auto test = view(out.test).middleCols(Index(p) * d, d);
        gather_rows(view(X), train_rows[p], train);
        gather_rows(view(X), test_rows[p], test);
        if (standardize) {
            const Standardizer s = Standardizer::fit(train);
            s.transform_in_place(train);
            s.transform_in_place(test);
        }
    });
    return out;
}

DeviceMatrix CpuBackend::gather_blocks(const DeviceMatrix& K, Index block_width,
                                       const IndexVector& source,
                                       const std::vector<IndexVector>& rows,
                                       const std::vector<IndexVector>& cols) {
    const auto [r, c] = detail::check_gather_blocks(K, block_width, source, rows, cols);
    DeviceMatrix out = allocate_host(r, c * Index(source.size()));
    for (std::size_t q = 0; q < source.size(); ++q)
        view(out).middleCols(Index(q) * c, c) = view(
            select_rows(select_columns(block(K, block_width, source[q]), cols[q]), rows[q]));
    return out;
}

}  // namespace cpu

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<cpu::CpuBackend>(); }

}  // namespace zeronorm
