// The rows of a dense matrix in compressed sparse row form, for data that are mostly zeros
// (LIBSVM-format sets such as a9a: 11 % non-zeros). Kernel columns and coordinate-descent steps
// over large data are bound by reading the data, not by the multiply-adds, so reading only the
// non-zeros is several times faster there; dense data keep their dense (vectorised) path.
#pragma once

#include <vector>

#include "zeronorm/core/dataset.hpp"

namespace zeronorm::detail {

// Data with at most this share of non-zero entries take the sparse paths.
constexpr double kSparseDensity = 0.25;

class SparseRows {
public:
    // The rows of X when at most max_density of its entries are non-zero; empty() otherwise.
    static SparseRows of(const Matrix& X, double max_density = kSparseDensity);
    // The same for the rows of Xt' (the columns of Xt), read in place: no transposed copy.
    static SparseRows of_columns(const Matrix& Xt, double max_density = kSparseDensity);

    bool empty() const { return start_.empty(); }
    Index rows() const { return empty() ? 0 : Index(start_.size()) - 1; }

    // X x for a dense x (one entry per column of X).
    Vector times(const Vector& x) const;
    // Row i dotted with the dense x.
    double dot(Index i, const Vector& x) const {
        double sum = 0.0;
        for (Index k = start_[std::size_t(i)]; k < start_[std::size_t(i) + 1]; ++k)
            sum += value_[std::size_t(k)] * x[column_[std::size_t(k)]];
        return sum;
    }
    // x += a * row i.
    void add_row(Index i, double a, Vector& x) const {
        for (Index k = start_[std::size_t(i)]; k < start_[std::size_t(i) + 1]; ++k)
            x[column_[std::size_t(k)]] += a * value_[std::size_t(k)];
    }

private:
    // Rows 0..rows-1 of a matrix whose entry (i, j) is at(i, j), with cols columns.
    template <class At>
    static SparseRows build(Index rows, Index cols, Index nnz, double max_density, At at);

    std::vector<Index> start_;  // rows + 1 offsets into column_ / value_
    std::vector<Index> column_;
    std::vector<double> value_;
};

}  // namespace zeronorm::detail
