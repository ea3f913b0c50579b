#include "reference/reference.hpp"

#include <cmath>

#include "core/scalar_rules.hpp"

namespace zeronorm::reference {
namespace {

double dot(const Vector& a, const Vector& b) {
    double sum = 0.0;
    for (Index k = 0; k < a.size(); ++k) sum += a[k] * b[k];
    return sum;
}

// Columns [p width, (p + 1) width) of a batch.
Matrix block(const Matrix& X, Index width, Index p) { return X.middleCols(p * width, width); }

double op_entry(const Matrix& A, bool trans, Index i, Index j) { return trans ? A(j, i) : A(i, j); }

}  // namespace

double kernel_value(const KernelSpec& spec, const Vector& a, const Vector& b) {
    switch (spec.type) {
        case KernelType::Linear: return dot(a, b);
        case KernelType::Polynomial: {
            const double base = spec.gamma * dot(a, b) + spec.coef0;
            double value = 1.0;
            for (int t = 0; t < spec.degree; ++t) value *= base;
            return value;
        }
        case KernelType::SumOfPowers: {
            double sum = 0.0;
            for (int t = 1; t <= spec.degree; ++t) sum += std::pow(dot(a, b), t);
            return sum;
        }
        case KernelType::Rbf:
        case KernelType::WeightedRbf: {
            double distance = 0.0;
            for (Index j = 0; j < a.size(); ++j) {
                const double theta = spec.type == KernelType::WeightedRbf ? spec.theta[j] : 1.0;
                distance += theta * (a[j] - b[j]) * (a[j] - b[j]);
            }
            return std::exp(-spec.gamma * distance);
        }
        case KernelType::Chi2: {
            double distance = 0.0;
            for (Index j = 0; j < a.size(); ++j)
                if (a[j] + b[j] != 0.0) distance += (a[j] - b[j]) * (a[j] - b[j]) / (a[j] + b[j]);
            return std::exp(-spec.gamma * distance);
        }
    }
    return 0.0;
}

Matrix kernel_matrix(const KernelSpec& spec, const Matrix& A, const Matrix& B, const Vector* z) {
    const Vector ones = Vector::Ones(A.cols());
    const Vector& scale = z != nullptr ? *z : ones;
    Matrix K(A.rows(), B.rows());
    for (Index i = 0; i < A.rows(); ++i)
        for (Index j = 0; j < B.rows(); ++j) {
            Vector a(A.cols()), b(B.cols());
            for (Index k = 0; k < A.cols(); ++k) {
                a[k] = scale[k] * A(i, k);
                b[k] = scale[k] * B(j, k);
            }
            K(i, j) = kernel_value(spec, a, b);
        }
    return K;
}

Matrix kernel_batch(const KernelSpec& spec, Index batch, const Matrix& A, const Matrix& B) {
    const Index d = A.cols() / batch, l = B.rows();
    Matrix K(A.rows(), l * batch);
    for (Index p = 0; p < batch; ++p)
        K.middleCols(p * l, l) = kernel_matrix(spec, block(A, d, p), block(B, d, p));
    return K;
}

Matrix scaled_gram_batch(const Matrix& A, const Matrix& B, const Matrix& Z, Precision precision) {
    const Index d = Z.rows(), P = Z.cols(), m = A.rows(), l = B.rows();
    Matrix K(m, l * P);
    for (Index p = 0; p < P; ++p)
        for (Index i = 0; i < m; ++i)
            for (Index j = 0; j < l; ++j) {
                double sum = 0.0;
                float sum32 = 0.0f;
                for (Index k = 0; k < d; ++k) {
                    const double a = A(i, p * d + k) * Z(k, p), b = B(j, p * d + k) * Z(k, p);
                    sum += a * b;
                    sum32 += float(a) * float(b);
                }
                K(i, p * l + j) = precision == Precision::Float32 ? double(sum32) : sum;
            }
    return K;
}

Matrix select_rows(const Matrix& X, const IndexVector& rows) {
    Matrix out(Index(rows.size()), X.cols());
    for (std::size_t i = 0; i < rows.size(); ++i)
        for (Index j = 0; j < X.cols(); ++j) out(Index(i), j) = X(rows[i], j);
    return out;
}

Matrix select_columns(const Matrix& X, const IndexVector& cols) {
    Matrix out(X.rows(), Index(cols.size()));
    for (std::size_t j = 0; j < cols.size(); ++j)
        for (Index i = 0; i < X.rows(); ++i) out(i, Index(j)) = X(i, cols[j]);
    return out;
}

void standardize(Matrix& train, Matrix& test) {
    const Index n = train.rows();
    for (Index j = 0; j < train.cols(); ++j) {
        double mean = 0.0, lo = train(0, j), hi = train(0, j);
        for (Index i = 0; i < n; ++i) {
            mean += train(i, j);
            lo = std::min(lo, train(i, j));
            hi = std::max(hi, train(i, j));
        }
        mean /= double(n);
        double variance = 0.0;
        for (Index i = 0; i < n; ++i) variance += (train(i, j) - mean) * (train(i, j) - mean);
        double scale = std::sqrt(variance / double(n));
        if (lo == hi) {  // constant: exactly its value, not a rounded mean
            mean = lo;
            scale = 1.0;
        }
        for (Index i = 0; i < n; ++i) train(i, j) = (train(i, j) - mean) / scale;
        for (Index i = 0; i < test.rows(); ++i) test(i, j) = (test(i, j) - mean) / scale;
    }
}

Splits split_batch(const Matrix& X, const std::vector<IndexVector>& train_rows,
                   const std::vector<IndexVector>& test_rows, bool standardize_splits) {
    const Index d = X.cols(), P = Index(train_rows.size());
    const Index n = Index(train_rows[0].size()), m = Index(test_rows[0].size());
    Splits out{Matrix(n, d * P), Matrix(m, d * P)};
    for (Index p = 0; p < P; ++p) {
        Matrix train = select_rows(X, train_rows[std::size_t(p)]);
        Matrix test = select_rows(X, test_rows[std::size_t(p)]);
        if (standardize_splits) standardize(train, test);
        out.train.middleCols(p * d, d) = train;
        out.test.middleCols(p * d, d) = test;
    }
    return out;
}

Matrix gather_blocks(const Matrix& K, Index block_width, const IndexVector& source,
                     const std::vector<IndexVector>& rows, const std::vector<IndexVector>& cols) {
    const Index r = Index(rows[0].size()), c = Index(cols[0].size());
    Matrix out(r, c * Index(source.size()));
    for (std::size_t q = 0; q < source.size(); ++q)
        for (Index j = 0; j < c; ++j)
            for (Index i = 0; i < r; ++i)
                out(i, Index(q) * c + j) =
                    K(rows[q][std::size_t(i)], source[q] * block_width + cols[q][std::size_t(j)]);
    return out;
}

Matrix gemm(bool trans_a, bool trans_b, double alpha, const Matrix& A, const Matrix& B,
            double beta, const Matrix& C) {
    const Index m = trans_a ? A.cols() : A.rows(), k = trans_a ? A.rows() : A.cols();
    const Index n = trans_b ? B.rows() : B.cols();
    Matrix out(m, n);
    for (Index i = 0; i < m; ++i)
        for (Index j = 0; j < n; ++j) {
            double sum = 0.0;
            for (Index t = 0; t < k; ++t) sum += op_entry(A, trans_a, i, t) * op_entry(B, trans_b, t, j);
            out(i, j) = alpha * sum + (beta == 0.0 ? 0.0 : beta * C(i, j));
        }
    return out;
}

Matrix gemm_batch(Index batch, bool trans_a, bool trans_b, double alpha, const Matrix& A,
                  const Matrix& B, double beta, const Matrix& C) {
    const Index a_width = A.cols() / batch, b_width = B.cols() / batch, c_width = C.cols() / batch;
    Matrix out(C.rows(), C.cols());
    for (Index p = 0; p < batch; ++p)
        out.middleCols(p * c_width, c_width) =
            gemm(trans_a, trans_b, alpha, block(A, a_width, p), block(B, b_width, p), beta,
                 block(C, c_width, p));
    return out;
}

Matrix syrk(bool trans, double alpha, const Matrix& A, double beta, const Matrix& C) {
    const Index n = trans ? A.cols() : A.rows(), k = trans ? A.rows() : A.cols();
    Matrix out(n, n);
    for (Index i = 0; i < n; ++i)
        for (Index j = 0; j <= i; ++j) {
            double sum = 0.0;
            for (Index t = 0; t < k; ++t) sum += op_entry(A, trans, i, t) * op_entry(A, trans, j, t);
            out(i, j) = out(j, i) = alpha * sum + (beta == 0.0 ? 0.0 : beta * C(i, j));
        }
    return out;
}

Matrix scale_rows_columns(const Matrix& X, const Vector& r, const Vector& c, double shift) {
    Matrix out(X.rows(), X.cols());
    for (Index i = 0; i < X.rows(); ++i)
        for (Index j = 0; j < X.cols(); ++j)
            out(i, j) = (r.size() ? r[i] : 1.0) * X(i, j) * (c.size() ? c[j] : 1.0) +
                        (i == j ? shift : 0.0);
    return out;
}

std::optional<Matrix> cholesky(const Matrix& A) {
    const Index n = A.rows();
    Matrix L = Matrix::Zero(n, n);
    for (Index j = 0; j < n; ++j) {
        double pivot = A(j, j);
        for (Index t = 0; t < j; ++t) pivot -= L(j, t) * L(j, t);
        if (!(pivot > 0.0) || !std::isfinite(pivot)) return std::nullopt;
        L(j, j) = std::sqrt(pivot);
        for (Index i = j + 1; i < n; ++i) {
            double v = A(i, j);
            for (Index t = 0; t < j; ++t) v -= L(i, t) * L(j, t);
            L(i, j) = v / L(j, j);
        }
    }
    return L;
}

Matrix triangular_solve(const Matrix& L, bool transpose, bool on_the_right, const Matrix& B) {
    // B op(L)^-1 = (op(L)' \ B')': solve with the transposed operator on the left.
    if (on_the_right)
        return triangular_solve(L, !transpose, false, Matrix(B.transpose())).transpose();
    const Index n = L.rows();
    // op(L) is lower (forward substitution) without transpose, upper (backward) with it.
    const auto entry = [&](Index i, Index j) { return transpose ? L(j, i) : L(i, j); };
    Matrix X = B;
    for (Index col = 0; col < B.cols(); ++col)
        for (Index s = 0; s < n; ++s) {
            const Index i = transpose ? n - 1 - s : s;
            double v = B(i, col);
            for (Index s2 = 0; s2 < s; ++s2) {
                const Index j = transpose ? n - 1 - s2 : s2;
                v -= entry(i, j) * X(j, col);
            }
            X(i, col) = v / L(i, i);
        }
    return X;
}

AromColumn arom_update(const Vector& z, const Vector& w, bool update, double prune_tolerance) {
    AromColumn out{z, z, ScaleUpdate{}};
    if (!update) return out;
    const Index d = z.size();
    Vector u(d);
    double top = 0.0;
    bool finite = true;
    for (Index j = 0; j < d; ++j) {
        u[j] = z[j] * std::abs(z[j] * w[j]);
        finite = finite && std::isfinite(u[j]);
        if (u[j] > top) top = u[j];
    }
    if (!finite || !(top > 0.0)) {
        out.summary.degenerate = true;
        return out;
    }
    for (Index j = 0; j < d; ++j) {
        out.normalized[j] = u[j] / top;
        const bool survives = out.normalized[j] > prune_tolerance;
        out.next[j] = survives ? out.normalized[j] : 0.0;
        out.summary.survivors += survives;
        out.summary.max_change = std::max(out.summary.max_change, std::abs(out.normalized[j] - z[j]));
    }
    return out;
}

double cross_kernel_sum(const AlignmentKernelSpec& spec, const Matrix& A, const Matrix& B,
                        const Matrix& Y, const Vector& theta, Vector& gradient) {
    const bool chi_square = spec.type == AlignmentKernel::ChiSquare;
    const Index d = A.cols();
    gradient = Vector::Zero(d);
    double value = 0.0;
    for (Index i = 0; i < A.rows(); ++i)
        for (Index j = 0; j < B.rows(); ++j) {
            Vector terms(d);
            for (Index k = 0; k < d; ++k)
                terms[k] = rules::alignment_term(chi_square, spec.scale, A(i, k), B(j, k));
            const double w = Y(i, j) * std::exp(-theta.dot(terms));
            value += w;
            gradient -= w * terms;
        }
    return value;
}

double weighted_kernel_sum(const AlignmentKernelSpec& spec, const Matrix& X, const Matrix& Y,
                           const Vector& theta, Vector& gradient) {
    return cross_kernel_sum(spec, X, X, Y, theta, gradient);
}

std::vector<double> gaussian_removal_sums(double scale, const Matrix& X, const Vector& v) {
    const Index n = X.rows(), d = X.cols();
    std::vector<double> out;
    for (Index skip = 0; skip <= d; ++skip) {
        double sum = 0.0;
        for (Index i = 0; i < n; ++i)
            for (Index j = 0; j < n; ++j) {
                double distance = 0.0;
                for (Index k = 0; k < d; ++k)
                    if (k != skip) distance += (X(i, k) - X(j, k)) * (X(i, k) - X(j, k));
                sum += v[i] * v[j] * std::exp(-scale * distance);
            }
        out.push_back(sum);
    }
    return out;
}

}  // namespace zeronorm::reference
