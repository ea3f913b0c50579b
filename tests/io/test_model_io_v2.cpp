// Model files, version 2: every kind the library trains survives save and load with identical
// predictions, a version-1 file still loads and predicts as it did, and malformed version-2
// files are DataFormatErrors at their line and column.
#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "support/model_text_checks.hpp"
#include "support/random.hpp"
#include "support/temp_dir.hpp"
#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/io/io.hpp"
#include "zeronorm/io/model_builders.hpp"
#include "zeronorm/io/model_io.hpp"
#include "zeronorm/methods/polynomial_arom.hpp"
#include "zeronorm/methods/selection.hpp"
#include "zeronorm/methods/sparse_svm.hpp"
#include "zeronorm/solvers/linear_svm.hpp"
#include "zeronorm/solvers/lp_svm.hpp"
#include "zeronorm/solvers/svm.hpp"
#include "zeronorm/solvers/ww_svm.hpp"

namespace {

using zeronorm::DataFormatError;
using zeronorm::Dataset;
using zeronorm::Index;
using zeronorm::KernelSpec;
using zeronorm::KernelType;
using zeronorm::Matrix;
using zeronorm::ModelFile;
using zeronorm::ModelKind;
using zeronorm::SvmModel;
using zeronorm::Vector;
namespace testing = zeronorm::testing;

const std::string tmp_dir = zeronorm::testing::process_tmp_dir();

std::string to_text(const ModelFile& file) {
    std::ostringstream out;
    zeronorm::write_model(out, file);
    return out.str();
}

ModelFile parse(const std::string& text) {
    std::istringstream in(text);
    return zeronorm::parse_model(in, "m.model");
}

// A rbf SVM separating class `positive` (or +1) from the rest of `data`.
SvmModel rbf_machine(zeronorm::Backend& backend, Dataset data, double positive) {
    for (Index i = 0; i < data.y.size(); ++i) data.y[i] = data.y[i] == positive ? 1.0 : -1.0;
    zeronorm::SvmOptions options;
    options.kernel.type = KernelType::Rbf;
    options.kernel.gamma = 0.3;
    return zeronorm::train_svm(backend, data, options).model;
}

zeronorm::FeatureSubset select_three(zeronorm::Backend& backend, const Dataset& data) {
    zeronorm::SelectionOptions selection;
    selection.feature_counts = {3};
    selection.ridge = 1e-3;
    return zeronorm::select_features(backend, data, selection).subsets.front();
}

// n points in d dimensions labelled by the sign of x_0 x_1: separable by degree 2.
Dataset xor_data(Index n, Index d, std::mt19937_64& rng) {
    Dataset data;
    data.X = testing::random_matrix(n, d, rng);
    data.y.resize(n);
    for (Index i = 0; i < n; ++i) data.y[i] = data.X(i, 0) * data.X(i, 1) >= 0 ? 1.0 : -1.0;
    return data;
}

struct WwTrained {
    KernelSpec kernel;
    zeronorm::WwSvmResult result;
};

WwTrained train_ww(zeronorm::Backend& backend, const Dataset& data) {
    WwTrained t;
    t.kernel.type = KernelType::Rbf;
    t.kernel.gamma = 0.2;
    const zeronorm::DeviceMatrix X = backend.upload(data.X);
    const Matrix K = backend.download(backend.kernel_matrix(t.kernel, X, X));
    std::vector<int> classes;
    for (Index i = 0; i < data.y.size(); ++i) classes.push_back(int(data.y[i]));
    zeronorm::WwSvmOptions options;
    options.C = 1.0;
    t.result = zeronorm::solve_ww_svm(K, classes, 3, options);
    return t;
}

struct Trained {
    std::string what;
    ModelFile file;
};

// One model of every kind, trained by the library's trainers on data drawn from `rng`.
std::vector<Trained> trained_models(zeronorm::Backend& backend, std::mt19937_64& rng) {
    std::vector<Trained> out;
    const Dataset two = testing::random_two_class(50, 4, rng);
    const Dataset three = testing::marked_classes(60, 7, 2, 0, rng());
    const auto labelled = [](ModelFile f, std::size_t classes) {
        const char* names[] = {"no", "yes", "maybe"};
        for (std::size_t k = 0; k < classes; ++k)
            f.label_mapping[names[k]] = classes == 2 ? (k == 0 ? -1.0 : 1.0) : double(k);
        return f;
    };

    ModelFile svm = zeronorm::model_file(rbf_machine(backend, two, 1.0));
    svm.standardizer = zeronorm::Standardizer::fit(two.X);
    svm.feature_names = {"a", "b", "c", "d \"quoted\""};
    out.push_back({"kernel SVM", labelled(svm, 2)});

    zeronorm::SparseSvmOptions sparse_options;
    sparse_options.kernel.type = KernelType::Rbf;
    sparse_options.kernel.gamma = 0.5;
    ModelFile sparse;
    sparse.kind = ModelKind::SparseExpansion;
    sparse.model = zeronorm::train_sparse_svm(backend, two, sparse_options).model.to_svm_model();
    sparse.method = {"l0-svm", {{"p", "0"}}};
    out.push_back({"L0-SVM", sparse});

    std::vector<SvmModel> machines;
    for (int k = 0; k < 3; ++k) machines.push_back(rbf_machine(backend, three, double(k)));
    out.push_back({"one-vs-rest", labelled(zeronorm::one_vs_rest_model_file(machines), 3)});

    const WwTrained ww = train_ww(backend, three);
    const ModelFile ww_file = zeronorm::model_file(ww.result, ww.kernel, three.X);
    out.push_back({"Weston-Watkins", labelled(ww_file, 3)});
    out.push_back({"linear SVM", zeronorm::model_file(zeronorm::train_linear_svm(two, {}))});
    out.push_back({"l1-SVM", zeronorm::model_file(zeronorm::train_l1_svm(two.X, two.y))});

    zeronorm::PolynomialAromOptions poly_options;
    poly_options.basis = rng() % 2 ? zeronorm::MonomialBasis::Multinomial
                                   : zeronorm::MonomialBasis::OrderedTuples;
    const zeronorm::PolynomialAromResult poly =
        zeronorm::polynomial_arom(backend, xor_data(60, 4, rng), poly_options);
    out.push_back({"polynomial AROM", zeronorm::model_file(poly)});

    // The final one-vs-rest classifiers of a selection, on 3 of the 7 columns.
    ModelFile selected = zeronorm::model_file(select_three(backend, three), three.n_features());
    selected.method = {"l2-arom", {{"features", "3"}}};
    out.push_back({"selection on a column subset", labelled(selected, 3)});
    return out;
}

// ---- round trips ----------------------------------------------------------------------------

TEST(ModelIoV2, EveryKindPredictsIdenticallyAfterSaveAndLoad) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed());
    auto backend = zeronorm::make_cpu_backend();
    const std::string path = tmp_dir + "/model_io_v2_round_trip.model";
    for (const Trained& t : trained_models(*backend, rng)) {
        SCOPED_TRACE(t.what);
        zeronorm::save_model(t.file, path);
        const ModelFile back = zeronorm::load_model_file(path);
        EXPECT_EQ(back.kind, t.file.kind);
        EXPECT_EQ(back.n_classes(), t.file.n_classes());
        EXPECT_EQ(back.columns, t.file.columns);
        EXPECT_EQ(back.label_mapping, t.file.label_mapping);
        EXPECT_EQ(back.feature_names, t.file.feature_names);
        EXPECT_EQ(back.method.parameters, t.file.method.parameters);
        EXPECT_EQ(to_text(back), to_text(t.file));

        const Matrix X = testing::random_matrix(120, t.file.n_raw_features(), rng, -3, 3);
        const Matrix f = t.file.decision_function(*backend, t.file.preprocess(X));
        const Matrix g = back.decision_function(*backend, back.preprocess(X));
        EXPECT_EQ(f, g);
        const Vector labels = back.predict(*backend, X);
        EXPECT_EQ(labels, t.file.predict(*backend, X));
        // The labels use the model's coding: +-1, or 0..K-1.
        for (Index i = 0; i < labels.size(); ++i)
            ASSERT_TRUE(t.file.n_classes() == 2 ? std::abs(labels[i]) == 1.0
                                                : labels[i] >= 0 && labels[i] < t.file.n_classes())
                << labels[i];
    }
}

TEST(ModelIoV2, SelectedColumnsPredictAsTheSelectionsClassifiers) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed());
    auto backend = zeronorm::make_cpu_backend();
    const Dataset three = testing::marked_classes(60, 7, 2, 0, rng());
    const zeronorm::FeatureSubset subset = select_three(*backend, three);
    const ModelFile back = parse(to_text(zeronorm::model_file(subset, 7)));
    // The selection's own machines on its columns of fresh data.
    const Matrix X = testing::random_matrix(80, 7, rng, -1, 4);
    Matrix Xs(X.rows(), 3);
    for (Index j = 0; j < 3; ++j) Xs.col(j) = X.col(subset.selected[std::size_t(j)]);
    const Matrix f = back.decision_function(*backend, back.preprocess(X));
    ASSERT_EQ(f.cols(), 3);
    for (Index k = 0; k < 3; ++k) {
        const Vector expected = subset.classifiers[std::size_t(k)].decision_function(*backend, Xs);
        EXPECT_LT((f.col(k) - expected).cwiseAbs().maxCoeff(), 1e-9) << "machine " << k;
    }
    // Class k is the argmax, and on the training data the marked columns give it away.
    EXPECT_EQ(back.predict(*backend, three.X), three.y);
}

TEST(ModelIoV2, SubsetWithoutFinalClassifierHasNoModel) {
    // As select_features leaves a subset whose final classifier could not be trained.
    zeronorm::FeatureSubset subset;
    subset.n_features = 2;
    subset.selected = {4, 1};
    subset.classifier_status = zeronorm::Status::NumericalIssue;
    subset.classifier_message = "data not separable";
    try {
        (void)zeronorm::model_file(subset, 7);
        FAIL() << "a model without classifiers was built";
    } catch (const zeronorm::InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("data not separable"), std::string::npos) << e.what();
    }
}

TEST(ModelIoV2, PolynomialRulePredictsAsPolynomialArom) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed());
    auto backend = zeronorm::make_cpu_backend();
    zeronorm::PolynomialAromOptions options;
    options.degree = 3;
    options.C = 10.0;
    const zeronorm::PolynomialAromResult r =
        zeronorm::polynomial_arom(*backend, xor_data(50, 3, rng), options);
    ASSERT_FALSE(r.selected.empty());
    const ModelFile back = parse(to_text(zeronorm::model_file(r)));
    EXPECT_EQ(back.polynomial.factors.size(), r.selected.size());
    const Matrix X = testing::random_matrix(100, 3, rng, -2, 2);
    const Vector expected = r.decision_function(*backend, X);
    const Vector f = back.decision_function(*backend, back.preprocess(X)).col(0);
    const double scale = 1.0 + expected.cwiseAbs().maxCoeff();
    EXPECT_LT((f - expected).cwiseAbs().maxCoeff(), 1e-9 * scale);
}

// The builders' models give the trainers' own decision values.
TEST(ModelIoV2, BuiltModelsDecideAsTheirTrainers) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed());
    auto backend = zeronorm::make_cpu_backend();
    const Dataset three = testing::marked_classes(60, 5, 2, 0, rng());
    const WwTrained ww = train_ww(*backend, three);
    const ModelFile ww_file = zeronorm::model_file(ww.result, ww.kernel, three.X);
    EXPECT_LE(ww_file.ww.points.rows(), three.X.rows());
    const Matrix f = ww_file.decision_function(*backend, three.X);
    EXPECT_LT((f - ww.result.outputs).cwiseAbs().maxCoeff(), 1e-9);

    const Dataset two = testing::random_two_class(50, 4, rng);
    const Matrix X = testing::random_matrix(40, 4, rng, -2, 2);
    const zeronorm::LinearSvmResult lin = zeronorm::train_linear_svm(two, {});
    EXPECT_LT((zeronorm::model_file(lin).decision_function(*backend, X).col(0) -
               lin.decision_function(X)).cwiseAbs().maxCoeff(), 1e-12);
    const zeronorm::LpSvmResult lp = zeronorm::train_l1_svm(two.X, two.y);
    EXPECT_LT((zeronorm::model_file(lp).decision_function(*backend, X).col(0) -
               lp.decision_function(X)).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(ModelIoV2, VersionTwoIsTheDefaultAndVersionOneOnlyHoldsTwoClassExpansions) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(testing::test_seed());
    auto backend = zeronorm::make_cpu_backend();
    for (const Trained& t : trained_models(*backend, rng)) {
        SCOPED_TRACE(t.what);
        const std::string head = "zeronorm-model 2\nkind " + zeronorm::to_string(t.file.kind);
        EXPECT_EQ(to_text(t.file).rfind(head + "\n", 0), 0u);
        std::ostringstream v1;
        const bool two_class_kernel =
            t.file.kind == ModelKind::KernelExpansion || t.file.kind == ModelKind::SparseExpansion;
        if (two_class_kernel) {
            zeronorm::write_model(v1, t.file, 1);
            const ModelFile back = parse(v1.str());
            EXPECT_EQ(back.kind, t.file.kind);  // the sparse one by its method line
            EXPECT_EQ(back.model.coef, t.file.model.coef);
        } else {
            EXPECT_THROW(zeronorm::write_model(v1, t.file, 1), zeronorm::InvalidArgument);
            EXPECT_THROW(
                {
                    const std::string path = tmp_dir + "/model_io_v2_kind.model";
                    zeronorm::save_model(t.file, path);
                    zeronorm::load_model(path);
                },
                zeronorm::InvalidArgument);
        }
    }
}

// A file written by the version-1 writer (zeronorm train --kernel rbf --gamma 2 -C 10
// --standardize on ripley_train.csv) loads and predicts as it did: 116 errors of 1000 on
// ripley_test.csv; rewritten as version 2 it predicts the same.
TEST(ModelIoV2, VersionOneFixtureStillLoadsAndPredicts) {
    const ModelFile v1 = zeronorm::load_model_file(ZERONORM_TEST_FIXTURES "/ripley_rbf_v1.model");
    EXPECT_EQ(v1.kind, ModelKind::KernelExpansion);
    EXPECT_EQ(v1.model.n_support(), 87);
    ASSERT_TRUE(v1.standardizer.has_value());
    const Dataset test = zeronorm::read_dataset(ZERONORM_DATA_DIR "/ripley/ripley_test.csv");
    auto backend = zeronorm::make_cpu_backend();
    const Vector predicted = v1.predict(*backend, test.X);
    Index errors = 0;
    for (Index i = 0; i < predicted.size(); ++i) errors += predicted[i] != test.y[i];
    EXPECT_EQ(errors, 116);
    const ModelFile v2 = parse(to_text(v1));
    EXPECT_EQ(v2.predict(*backend, test.X), predicted);
}

// ---- malformed version-2 files ----------------------------------------------------------------

using testing::join_lines;
using testing::model_rejected_at;

// Line i+1 of the file is lines[i].
const std::vector<std::string> linear_lines = {
    "zeronorm-model 2",                                                             // 1
    "kind linear", "n_classes 3", "n_inputs 4", "n_features 2", "columns 3 1",      // 2-6
    "machine 1", "bias 0.5", "weights 1 -1",                                         // 7-9
    "machine 2", "bias 0", "weights 0.5 2",                                          // 10-12
    "machine 3", "bias -1", "weights -2 0.25",                                       // 13-15
    "standardize 4", "mean 0 1 2 3", "scale 1 1 2 2",                                // 16-18
    "labels 3", "\"a\" 0", "\"b\" 1", "\"c\" 2",                                     // 19-22
    "end"};                                                                          // 23

const std::vector<std::string> ww_lines = {
    "zeronorm-model 2", "kind weston-watkins", "n_classes 3", "n_inputs 2",          // 1-4
    "kernel rbf", "gamma 0.5", "degree 3", "coef0 0",                                // 5-8
    "n_features 2", "columns all", "theta 0",                                        // 9-11
    "bias 0.1 -0.2 0.1", "n_support 2",                                              // 12-13
    "0.5 -0.25 -0.25 1 2", "-0.5 0.25 0.25 0 1",                                     // 14-15
    "end"};                                                                          // 16

const std::vector<std::string> poly_lines = {
    "zeronorm-model 2", "kind polynomial", "n_classes 2", "n_inputs 3",               // 1-4
    "n_features 2", "columns 2 0",                                                    // 5-6
    "bias 0.5", "n_terms 2", "1.5 0 1", "-2 1 1 1",                                   // 7-10
    "end"};                                                                           // 11

const std::vector<std::string> ovr_lines = {
    "zeronorm-model 2", "kind one-vs-rest", "n_classes 3", "n_inputs 1",             // 1-4
    "kernel linear", "gamma 1", "degree 3", "coef0 0",                               // 5-8
    "n_features 1", "columns all", "theta 0",                                        // 9-11
    "machine 1", "bias 0", "n_support 1", "1 2",                                     // 12-15
    "machine 2", "bias 1", "n_support 0",                                            // 16-18
    "machine 3", "bias -1", "n_support 1", "-1 0.5",                                 // 19-22
    "end"};                                                                          // 23

// Line `line` of one of the valid files above replaced; the error is expected at error_line
// (0: the replaced line) and column, with `key` in its message.
struct Malformed {
    const std::vector<std::string>& lines;
    std::size_t line;
    std::string replacement;
    std::size_t error_line;
    std::size_t column;
    std::string key;
};

void expect_rejected(const std::vector<Malformed>& cases) {
    for (const Malformed& c : cases) {
        auto lines = c.lines;
        lines[c.line - 1] = c.replacement;
        EXPECT_TRUE(model_rejected_at(join_lines(lines), c.error_line == 0 ? c.line : c.error_line,
                                      c.column, c.key))
            << "line " << c.line << " replaced by '" << c.replacement << "'";
    }
}

TEST(ModelIoV2, InconsistentModelsAreRejectedBeforeWriting) {
    const ModelFile valid = parse(join_lines(linear_lines));
    const auto rejected = [&](const std::string& what, auto change) {
        ModelFile bad = valid;
        change(bad);
        std::ostringstream out;
        EXPECT_THROW(zeronorm::write_model(out, bad), zeronorm::Error) << what;
        EXPECT_TRUE(out.str().empty()) << what;
    };
    rejected("column outside the inputs", [](ModelFile& f) { f.columns[0] = 4; });
    rejected("column twice", [](ModelFile& f) { f.columns[0] = 1; });
    rejected("columns for other features", [](ModelFile& f) { f.columns.push_back(0); });
    rejected("label outside the classes", [](ModelFile& f) { f.label_mapping["c"] = 3; });
    rejected("two rules", [](ModelFile& f) {
        f.linear.weights.conservativeResize(2, 2);
        f.linear.bias.conservativeResize(2);
    });
    rejected("a block of another kind", [](ModelFile& f) { f.ww.bias = Vector::Zero(3); });
    rejected("standardizer of the selected columns", [](ModelFile& f) {
        f.standardizer = zeronorm::Standardizer{Vector::Zero(2), Vector::Ones(2)};
    });
    const ModelFile ovr_valid = parse(join_lines(ovr_lines));
    ModelFile ovr = ovr_valid;
    ovr.machines[2].kernel.type = KernelType::Rbf;
    std::ostringstream out;
    EXPECT_THROW(zeronorm::write_model(out, ovr), zeronorm::InvalidArgument);
}

// A line holds at most the values the header's counts allow (at least a polynomial term's 65).
TEST(ModelIoV2Malformed, LinesAreBoundedByTheHeadersCounts) {
    const std::vector<std::string> head(ww_lines.begin(), ww_lines.begin() + 13);
    EXPECT_TRUE(testing::endless_rejected_at(join_lines(head), "0 ", 14,
                                             (1u << 20) + 65 * 64 + 1,
                                             "n_inputs = 2, n_features = 2 and n_classes = 3"));
    // 1000 inputs allow a standardize line of 1000 values.
    const std::vector<std::string> wide = {"zeronorm-model 2", "kind linear", "n_classes 2",
                                           "n_inputs 1000",    "n_features 1", "columns 999",
                                           "machine 1",        "bias 0",      "weights 1",
                                           "standardize 1000"};
    EXPECT_TRUE(testing::endless_rejected_at(join_lines(wide) + "mean", " 0", 11,
                                             (1u << 20) + 1001 * 64 + 1, "n_inputs = 1000"));
}

TEST(ModelIoV2Malformed, ValidFilesLoad) {
    const ModelFile linear = parse(join_lines(linear_lines));
    EXPECT_EQ(linear.kind, ModelKind::Linear);
    EXPECT_EQ(linear.n_classes(), 3);
    EXPECT_EQ(linear.columns, (zeronorm::IndexVector{3, 1}));
    EXPECT_EQ(linear.linear.weights(1, 2), 0.25);
    EXPECT_EQ(to_text(linear), join_lines(linear_lines));
    const ModelFile ww = parse(join_lines(ww_lines));
    EXPECT_EQ(ww.ww.coef(1, 0), -0.5);
    EXPECT_EQ(ww.ww.points(0, 1), 2.0);
    EXPECT_EQ(to_text(ww), join_lines(ww_lines));
    const ModelFile poly = parse(join_lines(poly_lines));
    EXPECT_EQ(poly.polynomial.factors[1], (zeronorm::IndexVector{1, 1, 1}));
    EXPECT_EQ(to_text(poly), join_lines(poly_lines));
    const ModelFile ovr = parse(join_lines(ovr_lines));
    EXPECT_EQ(ovr.machines[1].n_support(), 0);
    EXPECT_EQ(ovr.machines[2].coef[0], -1.0);
    EXPECT_EQ(to_text(ovr), join_lines(ovr_lines));
    // Decision values on raw rows: standardised, then columns 3 and 1.
    auto backend = zeronorm::make_cpu_backend();
    Matrix X(1, 4);
    X << 0, 3, 2, 7;  // standardised: (0, 2, 0, 2); columns 3, 1: (2, 2)
    const Matrix f = linear.decision_function(*backend, linear.preprocess(X));
    EXPECT_EQ(f(0, 0), 0.5);
    EXPECT_EQ(f(0, 1), 5.0);
    EXPECT_EQ(f(0, 2), -4.5);
    EXPECT_EQ(linear.predict(*backend, X)[0], 1.0);
    Matrix P(1, 3);
    P << 2, 7, 3;  // columns 2, 0: (3, 2); 0.5 + 1.5 * 3 * 2 - 2 * 2^3
    EXPECT_EQ(poly.decision_function(*backend, poly.preprocess(P))(0, 0), -6.5);
}

// Kind and class count, the columns, every count, and labels that must fit the classes.
TEST(ModelIoV2Malformed, RejectedAtTheirLineAndColumn) {
    std::string many_factors = "-2";
    for (int k = 0; k < 65; ++k) many_factors += " 1";
    expect_rejected({
        {linear_lines, 2, "kind poly", 0, 6, "unknown model kind 'poly'"},
        {ww_lines, 3, "n_classes 2", 0, 11, "needs n_classes >= 3"},
        {ovr_lines, 2, "kind kernel-expansion", 3, 11, "has 2 classes, not 3"},
        {linear_lines, 3, "n_classes 1", 0, 11, "n_classes must be in 2.."},
        // A linear model has no kernel lines; a kernel kind needs them.
        {linear_lines, 5, "kernel linear", 0, 1, "expected 'n_features', found 'kernel'"},
        {ww_lines, 5, "n_features 2", 0, 1, "expected 'kernel', found 'n_features'"},
        {linear_lines, 6, "columns 4 1", 0, 9, "outside the 4 inputs"},
        {linear_lines, 6, "columns 1 1", 0, 11, "column 1 appears twice"},
        {linear_lines, 6, "columns -1 1", 0, 9, "must be in 0.."},
        {linear_lines, 6, "columns 3", 0, 10, "expected column 2 of 2"},
        {linear_lines, 6, "columns 3 1 0", 0, 13, "unexpected text '0'"},
        {linear_lines, 6, "columns all", 0, 9, "needs n_features = n_inputs"},
        {linear_lines, 6, "columns", 0, 8, "expected 'all' or 2 column indices"},
        // Linear: weights per machine; machines numbered 1..K, K of them.
        {linear_lines, 9, "weights 1", 0, 10, "expected 2 values, found 1"},
        {linear_lines, 12, "weights 1 2 3", 0, 13, "more than the 2 values"},
        {linear_lines, 10, "machine 3", 0, 9, "expected machine 2"},
        {linear_lines, 13, "standardize 4", 0, 1, "expected 'machine'"},
        {ovr_lines, 19, "end", 0, 1, "expected 'machine', found 'end'"},
        // One-vs-rest: each machine's n_support.
        {ovr_lines, 18, "n_support 1", 19, 1,
         "support vector 1 of 1 (coef and 1 features) value 1, got 'machine'"},
        {ovr_lines, 14, "n_support 2", 16, 1, "support vector 2 of 2"},
        // Weston-Watkins: K biases, K coefficients and d features per row.
        {ww_lines, 12, "bias 0.1 -0.2", 0, 14, "expected 3 values, found 2"},
        {ww_lines, 14, "0.5 -0.25 -0.25 1", 0, 18, "expected 5 values, found 4"},
        {ww_lines, 13, "n_support 3", 16, 1, "support vector 3 of 3 (3 coefs and 2"},
        // Sections describe the n_inputs raw columns.
        {linear_lines, 16, "standardize 2", 0, 13,
         "standardize has 2 entries but the model has 4 inputs"},
        {linear_lines, 17, "mean 0 1 2", 0, 11, "expected 4 values, found 3"},
        {linear_lines, 22, "\"c\" 3", 0, 5, "must map to a class 0..2 of the 3"},
        {linear_lines, 22, "\"c\" 1.5", 0, 5, "must map to a class 0..2"},
        {linear_lines, 22, "\"c\" -1", 0, 5, "must map to a class 0..2"},
        {linear_lines, 22, "\"c\" 1", 0, 5, "two labels map to 1"},
        {linear_lines, 19, "labels 4", 0, 8, "the labels count must be in 1..3"},
        // Polynomial: two classes, terms of 1..64 factors among the features.
        {poly_lines, 3, "n_classes 3", 0, 11, "has 2 classes, not 3"},
        {poly_lines, 9, "1.5 0 2", 0, 7, "term 1 of 2 factor 2 must be in 0..1, got 2"},
        {poly_lines, 9, "1.5", 0, 4, "term 1 of 2 has no factors"},
        {poly_lines, 10, many_factors, 0, 132, "more than 64 factors"},
        {poly_lines, 8, "n_terms 3", 11, 1, "term 3 of 3"},
    });
    // Two classes: +-1 as in version 1.
    auto two = linear_lines;
    two[2] = "n_classes 2";
    two.erase(two.begin() + 9, two.begin() + 15);  // machines 2 and 3
    two.erase(two.begin() + 13, two.begin() + 17);  // the labels
    two.insert(two.end() - 1, {"labels 2", "\"a\" -1", "\"b\" 0"});
    EXPECT_TRUE(model_rejected_at(join_lines(two), 15, 5, "must map to -1 or 1"));
}

}  // namespace
