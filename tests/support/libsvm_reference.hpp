// Runs Debian's LIBSVM on a precomputed kernel, the reference our SMO is checked against.
#pragma once

#include <svm.h>

#include <cmath>
#include <vector>

#include "zeronorm/core/dataset.hpp"

namespace zeronorm::testing {

struct LibsvmSolution {
    Vector beta;        // dual variables in sample order
    double bias = 0.0;  // f(x) = sum beta_i y_i K(x_i, x) + bias
};

// C-SVC on the precomputed kernel K (n x n) with labels +-1, stopping tolerance eps.
inline LibsvmSolution run_libsvm(const Matrix& K, const Vector& y, double C, double eps,
                                 bool shrinking = true) {
    const int n = int(K.rows());
    std::vector<std::vector<svm_node>> rows(static_cast<std::size_t>(n));
    std::vector<svm_node*> x(static_cast<std::size_t>(n));
    std::vector<double> labels(y.data(), y.data() + n);
    for (int i = 0; i < n; ++i) {
        auto& r = rows[std::size_t(i)];
        r.resize(std::size_t(n) + 2);
        r[0] = {0, double(i + 1)};  // serial number of the sample
        for (int j = 0; j < n; ++j) r[std::size_t(j) + 1] = {j + 1, K(i, j)};
        r[std::size_t(n) + 1] = {-1, 0.0};
        x[std::size_t(i)] = r.data();
    }
    svm_problem prob{n, labels.data(), x.data()};
    svm_parameter param{};
    param.svm_type = C_SVC;
    param.kernel_type = PRECOMPUTED;
    param.cache_size = 100;
    param.eps = eps;
    param.C = C;
    param.shrinking = shrinking ? 1 : 0;
    param.probability = 0;
    svm_set_print_string_function([](const char*) {});
    svm_model* model = svm_train(&prob, &param);
    LibsvmSolution solution;
    solution.beta = Vector::Zero(n);
    // LIBSVM's internal "+1" is the first label it met; flip signs when that was -1.
    const double sign = model->label[0] == 1 ? 1.0 : -1.0;
    for (int k = 0; k < model->l; ++k)
        solution.beta[model->sv_indices[k] - 1] = std::abs(model->sv_coef[0][k]);
    solution.bias = -sign * model->rho[0];
    svm_free_and_destroy_model(&model);
    return solution;
}

// 1/2 beta'Q beta - 1'beta with Q_ij = y_i y_j K_ij.
inline double dual_objective(const Matrix& K, const Vector& y, const Vector& beta) {
    const Vector c = beta.cwiseProduct(y);
    return 0.5 * c.dot(K * c) - beta.sum();
}

}  // namespace zeronorm::testing
