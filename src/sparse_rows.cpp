#include "sparse_rows.hpp"

namespace zeronorm::detail {

SparseRows SparseRows::of(const Matrix& X, double max_density) {
    SparseRows out;
    const Index nnz = (X.array() != 0.0).count();
    if (X.size() == 0 || double(nnz) > max_density * double(X.size())) return out;
    out.start_.reserve(std::size_t(X.rows()) + 1);
    out.column_.reserve(std::size_t(nnz));
    out.value_.reserve(std::size_t(nnz));
    out.start_.push_back(0);
    for (Index i = 0; i < X.rows(); ++i) {
        for (Index j = 0; j < X.cols(); ++j)
            if (X(i, j) != 0.0) {
                out.column_.push_back(j);
                out.value_.push_back(X(i, j));
            }
        out.start_.push_back(Index(out.column_.size()));
    }
    return out;
}

Vector SparseRows::times(const Vector& x) const {
    Vector out(rows());
    for (Index t = 0; t < out.size(); ++t) out[t] = dot(t, x);
    return out;
}

}  // namespace zeronorm::detail
