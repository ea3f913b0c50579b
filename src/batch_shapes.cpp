#include "batch_shapes.hpp"

#include "zeronorm/error.hpp"

namespace zeronorm::detail {

namespace {
std::string shape(const DeviceMatrix& m) {
    return std::to_string(m.rows()) + " x " + std::to_string(m.cols());
}
}  // namespace

Index check_scaled_gram_batch(const DeviceMatrix& A, const DeviceMatrix& B, const DeviceMatrix& Z) {
    const Index d = Z.rows();
    const Index P = Z.cols();
    ZN_EXPECTS_DIM(P >= 1 && A.cols() == d * P && B.cols() == d * P,
                   "scaled_gram_batch: Z is " << shape(Z) << " (features x problems), so A and B "
                   "need " << d << " x " << P << " columns, but A is " << shape(A) << " and B is "
                   << shape(B));
    return d;
}

GemmBatchShape check_gemm_batch(Index batch, bool trans_a, bool trans_b, const DeviceMatrix& A,
                                const DeviceMatrix& B, const DeviceMatrix& C) {
    ZN_EXPECTS(batch >= 1, "gemm_batch: batch must be >= 1, got " << batch);
    ZN_EXPECTS_DIM(A.cols() % batch == 0 && B.cols() % batch == 0 && C.cols() % batch == 0,
                   "gemm_batch: A (" << shape(A) << "), B (" << shape(B) << ") and C ("
                                     << shape(C) << ") do not split into " << batch << " blocks");
    GemmBatchShape s;
    s.a_block = A.cols() / batch;
    s.b_block = B.cols() / batch;
    s.m = trans_a ? s.a_block : A.rows();
    s.k = trans_a ? A.rows() : s.a_block;
    const Index k2 = trans_b ? s.b_block : B.rows();
    s.n = trans_b ? B.rows() : s.b_block;
    ZN_EXPECTS_DIM(s.k == k2 && C.rows() == s.m && C.cols() / batch == s.n,
                   "gemm_batch: per block op(A) is " << s.m << " x " << s.k << ", op(B) is " << k2
                                                     << " x " << s.n << ", C is " << C.rows()
                                                     << " x " << C.cols() / batch);
    return s;
}

std::pair<Index, Index> check_split_batch(Index rows, const std::vector<IndexVector>& train_rows,
                                          const std::vector<IndexVector>& test_rows) {
    ZN_EXPECTS(!train_rows.empty() && train_rows.size() == test_rows.size(),
               "split_batch: " << train_rows.size() << " training and " << test_rows.size()
                               << " test row lists (need the same number, at least one)");
    const std::size_t n = train_rows.front().size();
    const std::size_t m = test_rows.front().size();
    ZN_EXPECTS(n > 0, "split_batch: the training row lists are empty");
    for (std::size_t p = 0; p < train_rows.size(); ++p) {
        ZN_EXPECTS(train_rows[p].size() == n && test_rows[p].size() == m,
                   "split_batch: split " << p << " has " << train_rows[p].size() << " training and "
                                         << test_rows[p].size() << " test rows, split 0 has " << n
                                         << " and " << m);
        for (const IndexVector* list : {&train_rows[p], &test_rows[p]})
            for (const Index r : *list)
                ZN_EXPECTS(r >= 0 && r < rows, "split_batch: split " << p << " holds row " << r
                                                                     << ", outside 0.." << rows - 1);
    }
    return {Index(n), Index(m)};
}

void check_smo_batch(const DeviceMatrix& K, const Matrix& Y, const Matrix* warm_start,
                     const std::vector<char>& active) {
    const Index n = Y.rows();
    const Index P = Y.cols();
    ZN_EXPECTS_DIM(P >= 1 && K.rows() == n && K.cols() == n * P,
                   "solve_smo_batch: labels are " << n << " x " << P << " (samples x problems) "
                   "but the kernels are " << shape(K) << " (need " << n << " x " << n * P << ")");
    if (warm_start != nullptr)
        ZN_EXPECTS_DIM(warm_start->rows() == n && warm_start->cols() == P,
                       "solve_smo_batch: warm start is " << warm_start->rows() << " x "
                                                         << warm_start->cols() << ", labels are "
                                                         << n << " x " << P);
    ZN_EXPECTS_DIM(active.empty() || Index(active.size()) == P,
                   "solve_smo_batch: " << active.size() << " active flags for " << P
                                       << " problems");
}

}  // namespace zeronorm::detail
