// Polynomial-kernel AROM (Weston et al., JMLR 3, 2003, sec. 3.4, 5): the explicit feature map
// against the kernel sum_t (x.y)^t, and AROM in its monomial space on a sparse target.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "support/backends.hpp"
#include "support/random.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/kernel.hpp"
#include "zeronorm/methods/polynomial_arom.hpp"

namespace zeronorm {
namespace {

TEST(SumOfPowersMap, MonomialsWeightsAndNames) {
    const SumOfPowersMap map(3, 2);
    ASSERT_EQ(map.n_outputs(), 9);  // 3 + 6
    const char* names[] = {"x1", "x2", "x3", "x1^2", "x1*x2", "x1*x3", "x2^2", "x2*x3", "x3^2"};
    const double r2 = std::sqrt(2.0);
    const double weights[] = {1, 1, 1, 1, r2, r2, 1, r2, 1};
    for (Index m = 0; m < 9; ++m) {
        EXPECT_EQ(map.name(m), names[m]);
        EXPECT_NEAR(map.weight(m), weights[m], 1e-15) << names[m];
    }
    EXPECT_EQ(map.monomial(5), (IndexVector{0, 2}));
    // Degree 3 in 4 inputs: 4 + 10 + 20 monomials; x1^2*x2 has weight sqrt(3!/(2!1!)) = sqrt(3),
    // x1*x2*x3 sqrt(6).
    const SumOfPowersMap cubic(4, 3);
    EXPECT_EQ(cubic.n_outputs(), 34);
    for (Index m = 0; m < cubic.n_outputs(); ++m) {
        if (cubic.name(m) == "x1^2*x2") {
            EXPECT_NEAR(cubic.weight(m), std::sqrt(3.0), 1e-14);
        }
        if (cubic.name(m) == "x1*x2*x3") {
            EXPECT_NEAR(cubic.weight(m), std::sqrt(6.0), 1e-14);
        }
    }
}

// phi(x).phi(y) = sum_{t=1..d} (x.y)^t, the kernel KernelType::SumOfPowers, for every degree.
TEST(SumOfPowersMap, InnerProductIsTheSumOfPowersKernel) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed());
    const Matrix X = testing::random_matrix(6, 5, rng, -1.5, 1.5);
    for (int degree = 1; degree <= 4; ++degree) {
        for (MonomialBasis basis : {MonomialBasis::Multinomial, MonomialBasis::OrderedTuples}) {
            const SumOfPowersMap map(5, degree, basis);
            Index expected_count = 0, binom = 1, power = 1;
            for (Index t = 1; t <= degree; ++t) {
                binom = binom * (5 + t - 1) / t;
                power *= 5;
                expected_count += basis == MonomialBasis::Multinomial ? binom : power;
            }
            EXPECT_EQ(map.n_outputs(), expected_count);
            const Matrix phi = map.transform(X);
            KernelSpec spec;
            spec.type = KernelType::SumOfPowers;
            spec.degree = degree;
            const Matrix G = phi * phi.transpose();
            for (Index i = 0; i < 6; ++i)
                for (Index j = 0; j < 6; ++j) {
                    const double k =
                        kernel_value(spec, X.data() + i, X.rows(), X.data() + j, X.rows(), 5);
                    EXPECT_NEAR(G(i, j), k, 1e-10 * std::max(1.0, std::abs(k)))
                        << "degree " << degree << " (" << i << ", " << j << ")";
                }
            // The same through a backend's kernel matrix.
            auto backend = make_cpu_backend();
            const DeviceMatrix X_dev = backend->upload(X);
            const Matrix K = backend->download(backend->kernel_matrix(spec, X_dev, X_dev));
            EXPECT_LE((K - G).cwiseAbs().maxCoeff(),
                      1e-9 * std::max(1.0, K.cwiseAbs().maxCoeff()));
        }
    }
}

class PolynomialArom : public ::testing::TestWithParam<BackendKind> {};

// Target sign(x1 x2) in 5 inputs (20 monomials of degree <= 2), 60 noiseless training points:
// AROM in the monomial space keeps x1*x2 and (almost) nothing else, and generalises better than
// the polynomial SVM on all 20 monomials (sec. 5.1, problem (a)-like).
TEST_P(PolynomialArom, FindsTheSparseTarget) {
    ZN_BACKEND_OR_SKIP(backend, GetParam());
    std::mt19937_64 rng(51);
    std::normal_distribution<double> g(0.0, 1.0);
    const auto draw = [&](Index n) {
        Dataset d;
        d.X.resize(n, 5);
        d.y.resize(n);
        for (Index i = 0; i < n; ++i) {
            for (Index j = 0; j < 5; ++j) d.X(i, j) = g(rng);
            d.y[i] = d.X(i, 0) * d.X(i, 1) >= 0 ? 1.0 : -1.0;
        }
        return d;
    };
    const Dataset train = draw(60), test = draw(500);
    PolynomialAromOptions opt;
    const PolynomialAromResult r = polynomial_arom(*backend, train, opt);
    EXPECT_EQ(r.status, Status::Success);
    ASSERT_FALSE(r.selected.empty());
    EXPECT_EQ(r.map.name(r.selected[0]), "x1*x2");
    EXPECT_LE(r.selected.size(), 3u);
    EXPECT_EQ(r.z.size(), 20);
    EXPECT_DOUBLE_EQ(r.z[r.selected[0]], 1.0);
    // Training points separated with the hard margin.
    const Vector f = r.decision_function(*backend, train.X);
    EXPECT_GE(f.cwiseProduct(train.y).minCoeff(), 1.0 - 1e-2);
    const double arom_error = error_rate(r.predict(*backend, test.X), test.y);

    SvmOptions svm;
    svm.kernel.type = KernelType::SumOfPowers;
    svm.kernel.degree = 2;
    svm.smo.C = 1e8;  // separable: a hard margin
    const SvmTrainResult plain = train_svm(*backend, train, svm);
    const double svm_error = error_rate(plain.model.predict(*backend, test.X), test.y);
    RecordProperty("arom_error", std::to_string(arom_error));
    RecordProperty("svm_error", std::to_string(svm_error));
    EXPECT_LT(arom_error, 0.05);
    EXPECT_LT(arom_error, svm_error);
    // monomial_weights: the rule in unscaled phi coordinates gives the same outputs.
    const Vector v = r.monomial_weights();
    const Vector f2 = r.map.transform(train.X) * v + Vector::Constant(60, r.model.bias);
    EXPECT_LE((f - f2).cwiseAbs().maxCoeff(), 1e-8);
}

TEST(PolynomialAromInput, BadInputSaysWhat) {
    auto backend = make_cpu_backend();
    EXPECT_THROW(SumOfPowersMap(0, 2), InvalidArgument);
    try {
        SumOfPowersMap(1000, 3);
        ADD_FAILURE();
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("more than 10^7"), std::string::npos) << e.what();
    }
    Dataset data;
    data.X = Matrix::Identity(3, 3);
    data.y.resize(3);
    data.y << 0, 1, 2;
    PolynomialAromOptions opt;
    try {
        polynomial_arom(*backend, data, opt);
        ADD_FAILURE();
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("two classes"), std::string::npos) << e.what();
    }
    opt.degree = 0;
    try {
        polynomial_arom(*backend, data, opt);
        ADD_FAILURE();
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("PolynomialAromOptions.degree"), std::string::npos);
    }
    opt.degree = 2;
    opt.ridge = -1;
    try {
        polynomial_arom(*backend, data, opt);
        ADD_FAILURE();
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("PolynomialAromOptions.ridge"), std::string::npos)
            << e.what();
    }
}

ZN_INSTANTIATE_FOR_BACKENDS(PolynomialArom);

}  // namespace
}  // namespace zeronorm
