#include "core/batch_shapes.hpp"

#include <cmath>
#include <initializer_list>
#include <string>

#include "core/op_shapes.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm::detail {

namespace {
// Labels exactly +1 or -1 and a dual point within [0, C], entry by entry.
void check_dual_point(const char* where, const Eigen::Ref<const Vector>& y,
                      const Eigen::Ref<const Vector>& beta, double C) {
    for (Index t = 0; t < y.size(); ++t) {
        ZN_EXPECTS(y[t] == 1.0 || y[t] == -1.0,
                   where << ": label " << t << " is " << y[t] << ", not +1 or -1");
        ZN_EXPECTS(beta[t] >= 0 && beta[t] <= C,
                   where << ": beta[" << t << "] = " << beta[t] << " is outside [0, " << C << "]");
    }
}

// What every alignment sum asks beyond shapes: a finite positive kernel scale and a gradient
// that shares no storage with an input.
void check_alignment_operands(const char* where, const AlignmentKernelSpec& spec,
                              const DeviceMatrix& gradient,
                              std::initializer_list<const DeviceMatrix*> inputs) {
    ZN_EXPECTS(std::isfinite(spec.scale) && spec.scale > 0.0,
               where << ": the kernel scale must be finite and > 0, got " << spec.scale);
    if (gradient.empty()) return;
    for (const DeviceMatrix* in : inputs)
        ZN_EXPECTS(gradient.data() != in->data(),
                   where << ": gradient must not share storage with an input");
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

Index check_kernel_batch(Index batch, const DeviceMatrix& A, const DeviceMatrix& B,
                         const char* where) {
    ZN_EXPECTS(batch >= 1, where << ": batch must be >= 1, got " << batch);
    ZN_EXPECTS_DIM(A.cols() % batch == 0 && A.cols() == B.cols(),
                   where << ": A (" << shape(A) << ") and B (" << shape(B)
                                       << ") are not two batches of " << batch
                                       << " blocks with the same features");
    return A.cols() / batch;
}

std::pair<Index, Index> check_gather_blocks(const DeviceMatrix& K, Index block_width,
                                            const IndexVector& source,
                                            const std::vector<IndexVector>& rows,
                                            const std::vector<IndexVector>& cols) {
    ZN_EXPECTS(!source.empty() && rows.size() == source.size() && cols.size() == source.size(),
               "gather_blocks: " << source.size() << " sources, " << rows.size()
                                 << " row lists and " << cols.size()
                                 << " column lists (need the same number, at least one)");
    ZN_EXPECTS_DIM(block_width >= 1 && K.cols() % block_width == 0,
                   "gather_blocks: K (" << shape(K) << ") is not a batch of blocks "
                                        << block_width << " columns wide");
    const Index blocks = K.cols() / block_width;
    const std::size_t r = rows.front().size();
    const std::size_t c = cols.front().size();
    for (std::size_t q = 0; q < source.size(); ++q) {
        ZN_EXPECTS(source[q] >= 0 && source[q] < blocks,
                   "gather_blocks: problem " << q << " reads block " << source[q] << ", outside 0.."
                                             << blocks - 1);
        ZN_EXPECTS(rows[q].size() == r && cols[q].size() == c,
                   "gather_blocks: problem " << q << " is " << rows[q].size() << " x "
                                             << cols[q].size() << ", problem 0 is " << r << " x "
                                             << c);
        for (const Index i : rows[q])
            ZN_EXPECTS(i >= 0 && i < K.rows(), "gather_blocks: problem " << q << " holds row " << i
                                                   << ", outside 0.." << K.rows() - 1);
        for (const Index j : cols[q])
            ZN_EXPECTS(j >= 0 && j < block_width, "gather_blocks: problem " << q
                                                      << " holds column " << j << ", outside 0.."
                                                      << block_width - 1);
    }
    return {Index(r), Index(c)};
}

void check_smo_working_set(const DeviceMatrix& K, const Vector& y, const Vector& beta,
                           const Vector& gradient, const SmoOptions& options) {
    options.validate();
    const Index q = y.size();
    ZN_EXPECTS_DIM(K.rows() == q && K.cols() == q && beta.size() == q && gradient.size() == q,
                   "solve_smo_working_set: K is " << shape(K) << " with " << q << " labels, "
                                                  << beta.size() << " values and "
                                                  << gradient.size() << " gradient entries");
    check_dual_point("solve_smo_working_set", y, beta, options.C);
    for (Index t = 0; t < q; ++t)
        ZN_EXPECTS(std::isfinite(gradient[t]),
                   "solve_smo_working_set: gradient[" << t << "] is " << gradient[t]);
}

void check_assign_columns(const DeviceMatrix& X, const IndexVector& cols,
                          const DeviceMatrix& source) {
    ZN_EXPECTS_DIM(source.rows() == X.rows() && source.cols() == Index(cols.size()),
                   "assign_columns: " << cols.size() << " columns of " << X.rows()
                                      << " rows from a source of " << shape(source));
    std::vector<char> seen(static_cast<std::size_t>(X.cols()), 0);
    for (const Index c : cols) {
        ZN_EXPECTS(c >= 0 && c < X.cols(),
                   "assign_columns: column " << c << " is outside 0.." << X.cols() - 1);
        ZN_EXPECTS(!seen[std::size_t(c)], "assign_columns: column " << c << " is listed twice");
        seen[std::size_t(c)] = 1;
    }
}

void check_multiplicative_update_batch(const DeviceMatrix& Z, const DeviceMatrix& W,
                                       const std::vector<char>& update, double prune_tolerance,
                                       const DeviceMatrix& normalized, const DeviceMatrix& next) {
    const auto same_shape = [&](const DeviceMatrix& m) {
        return m.rows() == Z.rows() && m.cols() == Z.cols();
    };
    ZN_EXPECTS_DIM(same_shape(W) && same_shape(normalized) && same_shape(next),
                   "multiplicative_update_batch: Z is " << shape(Z) << ", W " << shape(W)
                                                        << ", normalized " << shape(normalized)
                                                        << " and next " << shape(next)
                                                        << " (need one shape)");
    ZN_EXPECTS_DIM(Index(update.size()) == Z.cols(),
                   "multiplicative_update_batch: " << update.size() << " update flags for "
                                                   << Z.cols() << " columns");
    ZN_EXPECTS(prune_tolerance >= 0.0 && prune_tolerance < 1.0,
               "multiplicative_update_batch: prune_tolerance must be in [0, 1), got "
                   << prune_tolerance);
    if (Z.empty()) return;
    for (const DeviceMatrix* out : {&normalized, &next})
        ZN_EXPECTS(out->data() != Z.data() && out->data() != W.data(),
                   "multiplicative_update_batch: the outputs must not share storage with Z or W");
    ZN_EXPECTS(normalized.data() != next.data(),
               "multiplicative_update_batch: normalized and next must be distinct");
}

void check_top_rows(const DeviceMatrix& S, const IndexVector& columns, const IndexVector& counts) {
    ZN_EXPECTS_DIM(columns.size() == counts.size(), "top_rows: " << columns.size()
                                                                  << " columns but " << counts.size()
                                                                  << " counts");
    for (std::size_t q = 0; q < columns.size(); ++q) {
        ZN_EXPECTS(columns[q] >= 0 && columns[q] < S.cols(),
                   "top_rows: column " << columns[q] << " is outside 0.." << S.cols() - 1);
        ZN_EXPECTS(counts[q] >= 0 && counts[q] <= S.rows(),
                   "top_rows: count " << counts[q] << " is outside 0.." << S.rows());
    }
}

void check_eliminate_batch(const DeviceMatrix& X, const DeviceMatrix& W, Index remove,
                           Index report_from) {
    const Index r = W.rows();
    ZN_EXPECTS_DIM(X.cols() == r * W.cols(),
                   "eliminate_batch: X has " << X.cols() << " columns, not " << r << " per split for "
                                             << W.cols() << " splits");
    ZN_EXPECTS(remove >= 0 && remove <= r,
               "eliminate_batch: remove = " << remove << " is outside 0.." << r);
    ZN_EXPECTS(report_from >= 0 && report_from <= r - remove,
               "eliminate_batch: report_from = " << report_from << " is outside 0.." << r - remove);
}

void check_smo_terms(const char* where, Index n, Index P, const SmoBatchTerms& terms) {
    ZN_EXPECTS_DIM((terms.p.size() == 0 || (terms.p.rows() == n && terms.p.cols() == P)) &&
                       (terms.delta.size() == 0 || terms.delta.size() == P),
                   where << ": linear terms " << terms.p.rows() << " x " << terms.p.cols()
                         << " and " << terms.delta.size() << " right-hand sides for " << P
                         << " problems of " << n << " variables");
    ZN_EXPECTS(terms.p.allFinite() && terms.delta.allFinite(),
               where << ": the linear terms or right-hand sides are not finite");
}

void check_newton_finish_batch(const DeviceMatrix& K, const Matrix& Y, const Matrix& beta,
                               const SmoOptions& options, const std::vector<char>& open,
                               const SmoBatchTerms& terms) {
    options.validate();
    const Index n = Y.rows();
    const Index P = Y.cols();
    ZN_EXPECTS_DIM(K.rows() == n && K.cols() == n * P && beta.rows() == n && beta.cols() == P &&
                       Index(open.size()) == P,
                   "newton_finish_batch: K is " << shape(K) << ", labels " << n << " x " << P
                                                << ", beta " << beta.rows() << " x "
                                                << beta.cols() << ", " << open.size()
                                                << " open flags (need K n x n P, the others n x P "
                                                   "and P flags)");
    check_smo_terms("newton_finish_batch", n, P, terms);
    for (Index p = 0; p < P; ++p) {
        if (!open[std::size_t(p)]) continue;
        const std::string where = "newton_finish_batch: problem " + std::to_string(p);
        check_dual_point(where.c_str(), Y.col(p), beta.col(p), options.C);
    }
}

void check_smo_batch(const DeviceMatrix& K, const Matrix& Y, const Matrix* warm_start,
                     const std::vector<char>& active, const SmoBatchTerms& terms,
                     const SmoOptions& options) {
    options.validate();
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
    check_smo_terms("solve_smo_batch", n, P, terms);
}

void check_weighted_kernel_sum_batch(const AlignmentKernelSpec& spec, const DeviceMatrix& X,
                                     const DeviceMatrix& Y, const DeviceMatrix& Theta,
                                     const DeviceMatrix& gradient) {
    ZN_EXPECTS_DIM(Y.rows() == X.rows() && Y.cols() == X.rows() && Theta.rows() == X.cols() &&
                       gradient.rows() == Theta.rows() && gradient.cols() == Theta.cols(),
                   "weighted_kernel_sum_batch: X is " << shape(X) << ", Y " << shape(Y)
                                                      << ", Theta " << shape(Theta)
                                                      << " and gradient " << shape(gradient)
                                                      << " (need n x d, n x n, d x P, d x P)");
    check_alignment_operands("weighted_kernel_sum_batch", spec, gradient, {&X, &Y, &Theta});
}

void check_cross_kernel_sum_batch(const AlignmentKernelSpec& spec, const DeviceMatrix& A,
                                  const DeviceMatrix& B, const DeviceMatrix& Y,
                                  const DeviceMatrix& Theta, const DeviceMatrix& gradient) {
    ZN_EXPECTS_DIM(B.cols() == A.cols() && Y.rows() == A.rows() && Y.cols() == B.rows() &&
                       Theta.rows() == A.cols() && gradient.rows() == Theta.rows() &&
                       gradient.cols() == Theta.cols(),
                   "cross_kernel_sum_batch: A is " << shape(A) << ", B " << shape(B) << ", Y "
                                                   << shape(Y) << ", Theta " << shape(Theta)
                                                   << " and gradient " << shape(gradient)
                                                   << " (need m x d, q x d, m x q, d x P, d x P)");
    check_alignment_operands("cross_kernel_sum_batch", spec, gradient, {&A, &B, &Y, &Theta});
}

void check_gaussian_removal_sums(double scale, const DeviceMatrix& X, const DeviceMatrix& v) {
    ZN_EXPECTS_DIM(v.rows() == X.rows() && v.cols() == 1,
                   "gaussian_removal_sums: X is " << shape(X) << " and v " << shape(v)
                                                  << " (need n x d and n x 1)");
    ZN_EXPECTS(std::isfinite(scale) && scale > 0.0,
               "gaussian_removal_sums: the kernel scale must be finite and > 0, got " << scale);
}

}  // namespace zeronorm::detail
