// FS-SVMCP: feature selection combining a linear SVM with one Frank-Wolfe step of concave
// minimisation (Rinaldi & Sciandrone, Optim. Methods Softw. 25, 2010, sec. 3-4.1, 5.1).
//
// W = R^d. Repeat:
//  (1) in the subspace W train the linear SVM (14): min 1/2 |w|^2 + C sum_i loss(xi_i), with C
//      chosen by cross-validation on the training set (sec. 2, 5.1: LIBLINEAR's L2-loss SVM,
//      here the dual coordinate descent solver of linear_svm.hpp); call it (w*, b*).
//  (2) I = {i : xi*_i < 1} = {i : y_i (w*.x_i + b*) > 0}, the correctly classified points;
//      z* = |w*|; one Frank-Wolfe step with unit stepsize on min F(z) over the constraints of I:
//      a vertex solution (w^, b^, z^) of the LP (15)
//        min grad F(z*)' z   s.t.  y_i (w.x_i + b) >= 1 (i in I),  -z_j <= w_j <= z_j,  w in W.
//      If |w^|_0 < |w*|_0, W = the support of w^ and go to (1); otherwise return (w*, b*).
// F(z) = sum_j f(z_j) is a concave surrogate of the zero norm (sec. 3):
//   (8)  1 - exp(-alpha z)      (9)  ln(epsilon + z)
//   (10) (z + epsilon)^p, 0 < p < 1     (11) -(z + epsilon)^(-p), p >= 1  (the paper's choice,
//        epsilon = 1e-6, p = 1, sec. 5.1).
// The LP is solved as the l1-SVM LP with feature costs grad F(z*) and a hard margin on I
// (lp_svm.hpp), whose split w = u - v, z = u + v is LP (15) written in nonnegative variables;
// its optimal vertices map to vertices of (15). The support shrinks strictly at every repeat,
// so at most d SVMs are trained.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zeronorm/core/dataset.hpp"
#include "zeronorm/core/status.hpp"
#include "zeronorm/solvers/linear_svm.hpp"
#include "zeronorm/solvers/lp_svm.hpp"

namespace zeronorm {

// The concave surrogates of the zero norm, by equation number of Rinaldi & Sciandrone 2010.
enum class ConcaveSurrogate {
    Exponential,   // (8)  1 - exp(-alpha z)
    Logarithm,     // (9)  ln(epsilon + z)
    Power,         // (10) (z + epsilon)^p, 0 < p < 1
    InversePower,  // (11) -(z + epsilon)^(-p), p >= 1
};

// "exp", "log", "power", "inverse-power"; InvalidArgument listing them otherwise.
ConcaveSurrogate parse_concave_surrogate(const std::string& name);
std::string to_string(ConcaveSurrogate surrogate);

struct FsSvmcpOptions {
    ConcaveSurrogate surrogate = ConcaveSurrogate::InversePower;
    double epsilon = 1e-6;  // (9), (10), (11)
    double p = 1.0;         // (10): 0 < p < 1; (11): p >= 1
    double alpha = 5.0;     // (8)
    // Step (1): the SVM's loss (the paper: LIBLINEAR's L2 loss) and its C. C = 0 chooses C at
    // every step by `folds`-fold stratified cross-validation on the training set over C_grid
    // (the smallest C of least CV error); C > 0 fixes it.
    LinearLoss loss = LinearLoss::SquaredHinge;
    double C = 0.0;
    // 10^-3 .. 10^3, a decade apart: the paper does not give its grid.
    std::vector<double> C_grid = {1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1000.0};
    int folds = 5;
    std::uint64_t seed = 0;       // fold assignment and the DCD's coordinate order
    double svm_tolerance = 1e-3;  // DCD projected-gradient stopping tolerance (LIBLINEAR's eps)
    std::int64_t svm_max_iterations = 1000;
    // LP (15): |w^_j| <= zero_tolerance * max|w^| counts as zero.
    double zero_tolerance = 1e-10;

    // InvalidArgument naming the bad field.
    void validate() const;
};

// What one repeat of steps (1)-(2) did, in the coordinates of its subspace.
struct FsSvmcpStep {
    IndexVector subspace;    // W: original column indices, ascending
    double C = 0.0;          // the SVM's C (chosen or fixed)
    double cv_error = 0.0;   // its cross-validation error rate (0 when C was fixed)
    LinearSvmResult svm;     // (w*, b*) over `subspace`
    Index svm_nonzeros = 0;  // |w*|_0
    IndexVector correct;     // I: rows with y_i (w*.x_i + b*) > 0
    Vector costs;            // grad F(z*), one per subspace column
    LpSvmResult lp;          // (w^, b^) over `subspace` (empty when I holds one class only)
    Index lp_nonzeros = 0;   // |w^|_0
};

struct FsSvmcpResult {
    // Success; NumericalIssue when an LP did not end optimal (the last SVM is returned).
    Status status = Status::Success;
    std::string message;
    Vector w;              // d weights of the returned SVM (zero outside its subspace)
    double b = 0.0;
    double C = 0.0;        // the returned SVM's C
    IndexVector selected;  // its support, by decreasing |w_j|
    std::vector<FsSvmcpStep> steps;
    double seconds = 0.0;

    Vector decision_function(const Matrix& X) const;  // X w + b (d columns)
    Vector predict(const Matrix& X) const;            // sign, 0 -> +1
};

// grad F(z) for z >= 0, entry by entry.
Vector concave_surrogate_gradient(const Vector& z, const FsSvmcpOptions& options);

// The C of options.C_grid with the least `folds`-fold cross-validation error of the linear SVM
// (options.loss) on `data`, the smallest among ties; the error rate in `cv_error`.
double select_linear_svm_C(const Dataset& data, const FsSvmcpOptions& options, double* cv_error);

// X: n x d finite, y: +-1 labels with both classes. InvalidArgument for bad input or options.
FsSvmcpResult train_fs_svmcp(const Matrix& X, const Vector& y, const FsSvmcpOptions& options = {});

}  // namespace zeronorm
