// C-SVC training and prediction through the public API.
#include <gtest/gtest.h>

#include <string>

#include "support/backends.hpp"
#include "support/random.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/evaluation/cross_validation.hpp"
#include "zeronorm/evaluation/model_selection.hpp"
#include "zeronorm/io/io.hpp"
#include "zeronorm/solvers/svm.hpp"

namespace zeronorm {
namespace {

class Svm : public ::testing::TestWithParam<BackendKind> {};

TEST_P(Svm, RipleyRbfTestErrorAsPublished) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    const std::string dir = std::string(ZERONORM_DATA_DIR) + "/ripley/";
    const Dataset train = read_csv(dir + "ripley_train.csv");
    const Dataset test = read_csv(dir + "ripley_test.csv");
    SvmOptions options;
    options.kernel.type = KernelType::Rbf;
    options.kernel.gamma = 2.0;
    options.smo.C = 1.0;
    const SvmTrainResult r = train_svm(*backend, train, options);
    EXPECT_EQ(r.smo.status, Status::Success);
    // Ripley's data: the Bayes error is about 8 %, SVMs get 9-11 % on the test set.
    const double err = error_rate(r.model.predict(*backend, test.X), test.y);
    EXPECT_GT(err, 0.07);
    EXPECT_LT(err, 0.12);
    EXPECT_GT(r.model.n_support(), 20);
    EXPECT_LT(r.model.n_support(), 150);
}

TEST_P(Svm, LinearWeightsReproduceTheDecisionFunction) {
    ZN_SEED_TRACE();
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(testing::test_seed() + 30);
    const Dataset data = testing::random_two_class(120, 9, rng);
    SvmOptions options;
    const SvmTrainResult r = train_svm(*backend, data, options);
    const Vector f = r.model.decision_function(*backend, data.X);
    const Vector direct = (data.X * r.model.linear_weights()).array() + r.model.bias;
    EXPECT_LT((f - direct).cwiseAbs().maxCoeff(), 1e-9);
    // The model rebuilt from the dual alone is the trained one.
    const SvmModel rebuilt = svm_model_from_dual(data, options.kernel, r.smo);
    EXPECT_EQ(rebuilt.support_vectors, r.model.support_vectors);
    EXPECT_EQ(rebuilt.coef, r.model.coef);
    EXPECT_EQ(rebuilt.bias, r.model.bias);
    SmoResult short_dual = r.smo;
    short_dual.beta.conservativeResize(data.n_samples() - 1);
    EXPECT_THROW(svm_model_from_dual(data, options.kernel, short_dual), DimensionMismatch);
}

// Every two-class trainer checks its labels with the same words.
TEST_P(Svm, BadLabelsNameTheSample) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    Dataset data;
    data.X = Matrix::Ones(4, 2);
    data.y = (Vector(4) << 1, -1, 2, -1).finished();
    try {
        train_svm(*backend, data, SvmOptions());
        FAIL() << "label 2 accepted";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("labels must be +1/-1, y[2] = 2"),
                  std::string::npos) << e.what();
    }
    data.y.setConstant(-1.0);
    try {
        train_svm(*backend, data, SvmOptions());
        FAIL() << "one class accepted";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("only one class (-1)"), std::string::npos)
            << e.what();
    }
}

TEST_P(Svm, BadInputIsAClearError) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    Dataset data;
    data.X = Matrix::Ones(4, 2);
    data.y = Vector::Ones(4);
    SvmOptions options;
    EXPECT_THROW(train_svm(*backend, data, options), InvalidArgument);  // one class
    data.y << 1, -1, 1, -1;
    data.X(0, 0) = -1;
    options.kernel.type = KernelType::Chi2;
    try {
        train_svm(*backend, data, options);
        FAIL() << "expected InvalidArgument";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("non-negative"), std::string::npos) << e.what();
    }
    options.kernel.type = KernelType::Linear;
    const SvmTrainResult r = train_svm(*backend, data, options);
    EXPECT_THROW(r.model.predict(*backend, Matrix::Ones(3, 5)), DimensionMismatch);
    Matrix nan_points = Matrix::Ones(2, 2);
    nan_points(1, 1) = std::nan("");
    EXPECT_THROW(r.model.predict(*backend, nan_points), InvalidArgument);
}

// Finite values whose squares overflow: the Gaussian kernels, computed from squared norms and
// inner products, would hand the SMO NaN; training (and the cross-validation of raw data) says
// what is wrong, as for the linear kernel. Values under the limit train.
TEST_P(Svm, ValuesTooLargeForTheGaussianKernelsAreNamed) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    Dataset data;
    data.X.resize(4, 2);
    data.X << 1e300, 1, 2e300, -1, -1e300, 2, -3e300, 1;
    data.y.resize(4);
    data.y << 1, 1, -1, -1;
    for (const KernelType type : {KernelType::Rbf, KernelType::WeightedRbf}) {
        SvmOptions options;
        options.kernel.type = type;
        options.kernel.gamma = 0.5;
        if (type == KernelType::WeightedRbf) options.kernel.theta = Vector::Ones(2);
        const std::string kernel = to_string(type);
        try {
            train_svm(*backend, data, options);
            ADD_FAILURE() << "expected NumericalError for " << kernel;
        } catch (const NumericalError& e) {
            const std::string what = e.what();
            const std::string expected =
                "too large for the " + kernel + " kernel: the largest |x| is 3e+300";
            EXPECT_NE(what.find(expected), std::string::npos) << what;
            EXPECT_NE(what.find("--standardize"), std::string::npos) << what;
        }
        SvmEvaluationOptions evaluation;
        evaluation.svm = options;
        evaluation.standardize = false;
        EXPECT_THROW(evaluate_svm(*backend, data, stratified_kfold(data.y, 2, 1), evaluation),
                     NumericalError)
            << kernel;
        Dataset in_range = data;
        in_range.X.col(0) *= 1e-290;
        EXPECT_NO_THROW(train_svm(*backend, in_range, options)) << kernel;
    }
}

// The range check passes most data on the largest |x| alone (largest^2 d bounds every |x|^2);
// where that bound is over the limit, the rows' own norms decide: one huge entry per row is in
// range, two in one row are not.
TEST(KernelRange, TheRowsNormsDecideWhereTheLargestEntryAloneWouldNot) {
    Matrix X = Matrix::Ones(4, 1000);
    X(0, 3) = 1e152;  // largest^2 d = 1e307 > DBL_MAX / (16 (n + 1)) = 2.2e306
    X(2, 7) = -1e152;
    EXPECT_NO_THROW(check_kernel_range(KernelSpec(), X, "test"));
    X(2, 9) = 2e152;  // row 2: |x|^2 = 5e304 ...
    EXPECT_NO_THROW(check_kernel_range(KernelSpec(), X, "test"));
    X(2, 11) = 3e153;  // ... and now 9e306, over the limit
    try {
        check_kernel_range(KernelSpec(), X, "test");
        ADD_FAILURE() << "expected NumericalError";
    } catch (const NumericalError& e) {
        EXPECT_NE(std::string(e.what()).find("the largest |x| is 3e+153 (row 2, column 11"),
                  std::string::npos)
            << e.what();
    }
    X(1, 1) = std::nan("");  // non-finite data are the data checks' to report
    EXPECT_NO_THROW(check_kernel_range(KernelSpec(), X, "test"));
}

ZN_INSTANTIATE_FOR_BACKENDS(Svm);

}  // namespace
}  // namespace zeronorm
