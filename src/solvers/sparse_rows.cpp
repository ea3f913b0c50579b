#include "solvers/sparse_rows.hpp"

namespace zeronorm::detail {

template <class At>
SparseRows SparseRows::build(Index rows, Index cols, Index nnz, double max_density, At at) {
    SparseRows out;
    if (rows * cols == 0 || double(nnz) > max_density * double(rows * cols)) return out;
    out.start_.reserve(std::size_t(rows) + 1);
    out.column_.reserve(std::size_t(nnz));
    out.value_.reserve(std::size_t(nnz));
    out.start_.push_back(0);
    for (Index i = 0; i < rows; ++i) {
        for (Index j = 0; j < cols; ++j)
            if (const double v = at(i, j); v != 0.0) {
                out.column_.push_back(j);
                out.value_.push_back(v);
            }
        out.start_.push_back(Index(out.column_.size()));
    }
    return out;
}

SparseRows SparseRows::of(const Matrix& X, double max_density) {
    return build(X.rows(), X.cols(), (X.array() != 0.0).count(), max_density,
                 [&X](Index i, Index j) { return X(i, j); });
}

SparseRows SparseRows::of_columns(const Matrix& Xt, double max_density) {
    return build(Xt.cols(), Xt.rows(), (Xt.array() != 0.0).count(), max_density,
                 [&Xt](Index i, Index j) { return Xt(j, i); });
}

Vector SparseRows::times(const Vector& x) const {
    Vector out(rows());
    for (Index t = 0; t < out.size(); ++t) out[t] = dot(t, x);
    return out;
}

}  // namespace zeronorm::detail
