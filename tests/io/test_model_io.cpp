// Model files: exact round trips (a loaded model predicts bit-for-bit what the saved one did),
// the atomic write, and every malformed case as a DataFormatError at its line and column.
#include <gtest/gtest.h>

#include <clocale>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "support/backends.hpp"
#include "support/matrix_checks.hpp"
#include "support/model_text_checks.hpp"
#include "support/random.hpp"
#include "support/temp_dir.hpp"
#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/io/model_io.hpp"
#include "zeronorm/methods/sparse_svm.hpp"
#include "zeronorm/solvers/svm.hpp"

namespace {

namespace fs = std::filesystem;
using zeronorm::DataFormatError;
using zeronorm::testing::exactly_equal;
using zeronorm::Index;
using zeronorm::KernelType;
using zeronorm::Matrix;
using zeronorm::ModelFile;
using zeronorm::SvmModel;
using zeronorm::Vector;

const std::string tmp_dir = zeronorm::testing::process_tmp_dir();

// A fresh directory per test, so leftover files can be checked for.
fs::path scratch_dir(const std::string& name) {
    const fs::path dir = fs::path(tmp_dir) / ("model_io_" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

SvmModel trained_model(KernelType type, std::mt19937_64& rng) {
    const zeronorm::Dataset data = zeronorm::testing::random_two_class(60, 4, rng);
    zeronorm::SvmOptions options;
    options.kernel.type = type;
    options.kernel.gamma = 0.37;
    auto backend = zeronorm::make_cpu_backend();
    return zeronorm::train_svm(*backend, data, options).model;
}

void expect_same_model(const SvmModel& a, const SvmModel& b) {
    EXPECT_EQ(a.kernel.type, b.kernel.type);
    EXPECT_EQ(a.kernel.gamma, b.kernel.gamma);
    EXPECT_EQ(a.kernel.degree, b.kernel.degree);
    EXPECT_EQ(a.kernel.coef0, b.kernel.coef0);
    EXPECT_EQ(a.kernel.theta, b.kernel.theta);
    EXPECT_EQ(a.bias, b.bias);
    EXPECT_EQ(a.coef, b.coef);
    EXPECT_EQ(a.support_vectors, b.support_vectors);
}

ModelFile parse(const std::string& text, const std::string& name = "m.model") {
    std::istringstream in(text);
    return zeronorm::parse_model(in, name);
}

// The version-1 text: these tests pin down the version-1 format, which stays readable.
std::string to_text(const ModelFile& file) {
    std::ostringstream out;
    zeronorm::write_model(out, file, 1);
    return out.str();
}

// A valid file, one line per entry (line i+1 of the file is lines[i]).
std::vector<std::string> valid_lines() {
    return {"zeronorm-model 1",  // 1
            "kernel rbf",        // 2
            "gamma 0.5",         // 3
            "degree 3",          // 4
            "coef0 0",           // 5
            "n_features 2",      // 6
            "theta 0",           // 7
            "bias -0.25",        // 8
            "n_support 2",       // 9
            "1 0.5 -1",          // 10
            "-1 2 3",            // 11
            "end"};              // 12
}

std::string join(const std::vector<std::string>& lines) {
    return zeronorm::testing::join_lines(lines);
}

::testing::AssertionResult rejected_at(const std::string& text, std::size_t line,
                                       std::size_t column, const std::string& key) {
    return zeronorm::testing::model_rejected_at(text, line, column, key);
}

::testing::AssertionResult line_replaced(std::size_t line, const std::string& replacement,
                                         std::size_t column, const std::string& key) {
    auto lines = valid_lines();
    lines[line - 1] = replacement;
    return rejected_at(join(lines), line, column, key);
}

// ---- round trips ----------------------------------------------------------------------------

TEST(ModelIoRoundTrip, ValidReferenceFileParses) {
    const ModelFile f = parse(join(valid_lines()));
    EXPECT_EQ(f.model.kernel.type, KernelType::Rbf);
    EXPECT_EQ(f.model.kernel.gamma, 0.5);
    EXPECT_EQ(f.model.bias, -0.25);
    ASSERT_EQ(f.model.n_support(), 2);
    ASSERT_EQ(f.model.n_features(), 2);
    EXPECT_EQ(f.model.coef[1], -1.0);
    EXPECT_EQ(f.model.support_vectors(0, 1), -1.0);
    EXPECT_EQ(f.model.support_vectors(1, 0), 2.0);
    EXPECT_FALSE(f.standardizer);
    EXPECT_FALSE(f.log10);
    EXPECT_TRUE(f.feature_names.empty());
    EXPECT_TRUE(f.label_mapping.empty());
}

TEST(ModelIoRoundTrip, LinearAndRbfPredictIdenticallyAfterSaveLoad) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(zeronorm::testing::test_seed());
    const fs::path dir = scratch_dir("predict");
    auto backend = zeronorm::make_cpu_backend();
    const Matrix X = zeronorm::testing::random_matrix(200, 4, rng, -3, 3);
    for (const KernelType type : {KernelType::Linear, KernelType::Rbf}) {
        SCOPED_TRACE(zeronorm::to_string(type));
        const SvmModel model = trained_model(type, rng);
        ASSERT_GT(model.n_support(), 0);
        const std::string path = (dir / "model.txt").string();
        zeronorm::save_model(model, path);
        const SvmModel loaded = zeronorm::load_model(path);
        expect_same_model(model, loaded);
        const Vector f0 = model.decision_function(*backend, X);
        const Vector f1 = loaded.decision_function(*backend, X);
        for (Index i = 0; i < X.rows(); ++i) ASSERT_EQ(f0[i], f1[i]) << "row " << i;
        EXPECT_EQ(model.predict(*backend, X), loaded.predict(*backend, X));
    }
}

TEST(ModelIoRoundTrip, EveryKernelAndAllSectionsSurvive) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(zeronorm::testing::test_seed());
    for (const KernelType type :
         {KernelType::Linear, KernelType::Polynomial, KernelType::SumOfPowers, KernelType::Rbf,
          KernelType::WeightedRbf, KernelType::Chi2}) {
        SCOPED_TRACE(zeronorm::to_string(type));
        ModelFile file;
        file.model.kernel.type = type;
        file.model.kernel.gamma = 0.1 + std::uniform_real_distribution<double>(0, 1)(rng);
        file.model.kernel.degree = 2;
        file.model.kernel.coef0 = 1.0 / 3.0;
        if (type == KernelType::WeightedRbf)
            file.model.kernel.theta = zeronorm::testing::random_matrix(3, 1, rng, 0, 2).col(0);
        file.model.support_vectors = zeronorm::testing::random_matrix(5, 3, rng, 0, 1);
        file.model.coef = zeronorm::testing::random_matrix(5, 1, rng).col(0);
        file.model.bias = -std::exp(1.0);
        file.log10 = true;
        file.standardizer =
            zeronorm::Standardizer{Vector::Constant(3, 0.1), Vector::LinSpaced(3, 1.0, 3.0)};
        file.feature_names = {"x 1", "quote\"back\\slash", "tab\tnew\nline\x01"};
        file.label_mapping = {{"1", -1.0}, {"2", 1.0}};

        const ModelFile back = parse(to_text(file));
        expect_same_model(file.model, back.model);
        EXPECT_TRUE(back.log10);
        ASSERT_TRUE(back.standardizer);
        EXPECT_EQ(back.standardizer->mean, file.standardizer->mean);
        EXPECT_EQ(back.standardizer->scale, file.standardizer->scale);
        EXPECT_EQ(back.feature_names, file.feature_names);
        EXPECT_EQ(back.label_mapping, file.label_mapping);
        // A second trip gives the same bytes.
        EXPECT_EQ(to_text(back), to_text(file));
    }
}

TEST(ModelIoRoundTrip, ExtremeNumbersAreExact) {
    ModelFile file;
    file.model.kernel.type = KernelType::Linear;
    const double values[] = {-0.0,
                             std::numeric_limits<double>::denorm_min(),
                             std::numeric_limits<double>::min(),
                             std::numeric_limits<double>::max(),
                             -std::numeric_limits<double>::max(),
                             0.1,
                             1.0 / 3.0,
                             123456789.123456789,
                             -1e-300};
    const Index n = Index(std::size(values));
    file.model.support_vectors.resize(n, 1);
    file.model.coef.resize(n);
    for (Index i = 0; i < n; ++i) {
        file.model.support_vectors(i, 0) = values[i];
        file.model.coef[i] = values[n - 1 - i];
    }
    const ModelFile back = parse(to_text(file));
    for (Index i = 0; i < n; ++i) {
        EXPECT_EQ(back.model.support_vectors(i, 0), values[i]);
        EXPECT_EQ(std::signbit(back.model.support_vectors(i, 0)), std::signbit(values[i]));
        EXPECT_EQ(back.model.coef[i], values[n - 1 - i]);
    }
}

TEST(ModelIoRoundTrip, NumbersIgnoreTheGlobalLocale) {
    // The writer and reader use to_chars / from_chars, so a comma-decimal locale changes
    // nothing. Where the system has no such locale this checks the C locale only.
    const char* old = std::setlocale(LC_ALL, nullptr);
    const std::string saved = old ? old : "C";
    std::setlocale(LC_ALL, "de_DE.UTF-8");
    ModelFile file = parse(join(valid_lines()));
    const std::string text = to_text(file);
    const ModelFile back = parse(text);
    std::setlocale(LC_ALL, saved.c_str());
    EXPECT_NE(text.find("gamma 0.5\n"), std::string::npos) << text;
    EXPECT_EQ(back.model.kernel.gamma, 0.5);
}

TEST(ModelIoRoundTrip, PreprocessAppliesLog10ThenStandardizer) {
    ModelFile file = parse(join(valid_lines()));
    file.log10 = true;
    file.standardizer = zeronorm::Standardizer{Vector::Constant(2, 1.0), Vector::Constant(2, 2.0)};
    Matrix X(1, 2);
    X << 10.0, 1000.0;
    const Matrix Z = file.preprocess(X);
    EXPECT_DOUBLE_EQ(Z(0, 0), 0.0);
    EXPECT_DOUBLE_EQ(Z(0, 1), 1.0);
    EXPECT_THROW(file.preprocess(Matrix::Ones(1, 3)), zeronorm::DimensionMismatch);
    X(0, 0) = -1;
    EXPECT_THROW(file.preprocess(X), zeronorm::InvalidArgument);
}

TEST(ModelIoRoundTrip, CrlfLineEndingsAndTrailingBlankLinesAreAccepted) {
    std::string text;
    for (const auto& l : valid_lines()) text += l + "\r\n";
    text += "\n  \n";
    EXPECT_EQ(parse(text).model.n_support(), 2);
}

TEST(ModelIoRoundTrip, ModelWithoutSupportVectorsIsAllowed) {
    auto lines = valid_lines();
    lines[8] = "n_support 0";
    lines.erase(lines.begin() + 9, lines.begin() + 11);
    const ModelFile f = parse(join(lines));
    EXPECT_EQ(f.model.n_support(), 0);
    EXPECT_EQ(f.model.n_features(), 2);
}

// ---- atomic write and file errors ---------------------------------------------------------

TEST(ModelIoAtomicWrite, LeavesNoTemporaryAndReplacesTheOldFile) {
    const fs::path dir = scratch_dir("atomic");
    const std::string path = (dir / "m.model").string();
    {
        std::ofstream old(path);
        old << "old contents\n";
    }
    ModelFile file = parse(join(valid_lines()));
    zeronorm::save_model(file, path);
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir))
        names.push_back(entry.path().filename().string());
    ASSERT_EQ(names.size(), 1u) << "leftover files next to the model";
    EXPECT_EQ(names[0], "m.model");
    EXPECT_EQ(zeronorm::load_model(path).bias, -0.25);
}

TEST(ModelIoAtomicWrite, UnwritableDirectoryLeavesNothing) {
    const fs::path dir = scratch_dir("missing");
    const std::string path = (dir / "no_such_dir" / "m.model").string();
    ModelFile file = parse(join(valid_lines()));
    EXPECT_THROW(zeronorm::save_model(file, path), zeronorm::OutputError);
    EXPECT_TRUE(fs::is_empty(dir));
}

TEST(ModelIoAtomicWrite, InvalidModelsAreRejectedBeforeWriting) {
    const fs::path dir = scratch_dir("invalid");
    const std::string path = (dir / "m.model").string();
    ModelFile file = parse(join(valid_lines()));
    ModelFile bad = file;
    bad.model.coef[0] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_THROW(zeronorm::save_model(bad, path), zeronorm::InvalidArgument);
    bad = file;
    bad.model.coef.resize(3);
    bad.model.coef.setZero();
    EXPECT_THROW(zeronorm::save_model(bad, path), zeronorm::DimensionMismatch);
    bad = file;
    bad.standardizer = zeronorm::Standardizer{Vector::Zero(2), Vector::Zero(2)};
    EXPECT_THROW(zeronorm::save_model(bad, path), zeronorm::InvalidArgument);
    bad = file;
    bad.feature_names = {"only one"};
    EXPECT_THROW(zeronorm::save_model(bad, path), zeronorm::DimensionMismatch);
    bad = file;
    bad.label_mapping = {{"a", 1.0}, {"b", 1.0}};
    EXPECT_THROW(zeronorm::save_model(bad, path), zeronorm::InvalidArgument);
    EXPECT_THROW(zeronorm::save_model(SvmModel{}, path), zeronorm::InvalidArgument);
    EXPECT_TRUE(fs::is_empty(dir));
}

TEST(ModelIoLoad, MissingFileAndDirectoryAreInvalidArguments) {
    const fs::path dir = scratch_dir("load");
    EXPECT_THROW(zeronorm::load_model((dir / "absent.model").string()), zeronorm::InvalidArgument);
    EXPECT_THROW(zeronorm::load_model(dir.string()), zeronorm::InvalidArgument);
}

TEST(ModelIoLoad, ErrorsNameTheFilePath) {
    const fs::path dir = scratch_dir("path");
    const std::string path = (dir / "bad.model").string();
    {
        std::ofstream out(path);
        out << "zeronorm-model 1\nkernel rbf\ngamma x\n";
    }
    try {
        zeronorm::load_model(path);
        FAIL() << "did not throw";
    } catch (const DataFormatError& e) {
        EXPECT_EQ(e.file(), path);
        EXPECT_EQ(e.line(), 3u);
        EXPECT_EQ(e.column(), 7u);
    }
}

// ---- malformed files ----------------------------------------------------------------------

TEST(ModelIoMalformed, WrongMagicOrVersion) {
    EXPECT_TRUE(rejected_at("", 1, 1, "empty file"));
    EXPECT_TRUE(line_replaced(1, "zeronorm-modle 1", 1, "not a zeronorm model file"));
    EXPECT_TRUE(line_replaced(1, "svm_type c_svc", 1, "not a zeronorm model file"));
    EXPECT_TRUE(line_replaced(1, "zeronorm-model 3", 16, "unsupported model format version 3"));
    EXPECT_TRUE(line_replaced(1, "zeronorm-model", 15, "format version"));
    EXPECT_TRUE(line_replaced(1, "zeronorm-model one", 16, "bad format version"));
    EXPECT_TRUE(line_replaced(1, "zeronorm-model 1 extra", 18, "unexpected text 'extra'"));
}

TEST(ModelIoMalformed, MissingOrMisorderedKeys) {
    EXPECT_TRUE(line_replaced(2, "kernal rbf", 1, "expected 'kernel'"));
    EXPECT_TRUE(line_replaced(3, "degree 3", 1, "expected 'gamma'"));
    EXPECT_TRUE(line_replaced(3, "", 1, "expected 'gamma', found an empty line"));
    EXPECT_TRUE(line_replaced(2, "kernel sigmoid", 8, "unknown kernel 'sigmoid'"));
    EXPECT_TRUE(line_replaced(2, "kernel", 7, "expected a kernel name"));
}

TEST(ModelIoMalformed, NonNumericAndNonFiniteValues) {
    EXPECT_TRUE(line_replaced(3, "gamma abc", 7, "expected a number for gamma, got 'abc'"));
    EXPECT_TRUE(line_replaced(3, "gamma 0.5x", 7, "expected a number"));
    EXPECT_TRUE(line_replaced(3, "gamma +0.5", 7, "expected a number"));
    EXPECT_TRUE(line_replaced(8, "bias nan", 6, "non-finite value 'nan' for bias"));
    EXPECT_TRUE(line_replaced(8, "bias NaN", 6, "non-finite"));
    EXPECT_TRUE(line_replaced(8, "bias -inf", 6, "non-finite"));
    EXPECT_TRUE(line_replaced(8, "bias 1e999", 6, "out of the range of a double"));
    EXPECT_TRUE(line_replaced(10, "1 0.5 nan", 7, "non-finite value 'nan' for support vector 1"));
    EXPECT_TRUE(line_replaced(11, "-1 two 3", 4, "support vector 2 of 2"));
    EXPECT_TRUE(line_replaced(4, "degree 3.5", 8, "expected an integer for degree"));
    EXPECT_TRUE(line_replaced(6, "n_features -2", 12, "n_features must be in 1.."));
    EXPECT_TRUE(line_replaced(6, "n_features 0", 12, "n_features must be in 1.."));
    EXPECT_TRUE(line_replaced(6, "n_features 99999999999999999999", 12, "expected an integer"));
}

TEST(ModelIoMalformed, KernelParameterDomains) {
    EXPECT_TRUE(line_replaced(3, "gamma 0", 7, "gamma must be positive"));
    EXPECT_TRUE(line_replaced(3, "gamma -1", 7, "gamma must be positive"));
    auto lines = valid_lines();
    lines[1] = "kernel poly";
    lines[3] = "degree 0";
    EXPECT_TRUE(rejected_at(join(lines), 4, 8, "degree must be in 1..64"));
    lines[1] = "kernel linear";
    lines[2] = "gamma 0";  // unused by the linear kernel
    EXPECT_NO_THROW(parse(join(lines)));
}

TEST(ModelIoMalformed, CountsAreCheckedAgainstWhatIsPresent) {
    auto changed = [](std::size_t line, const std::string& replacement) {
        auto lines = valid_lines();
        lines[line - 1] = replacement;
        return join(lines);
    };
    // n_support larger than the rows present: "end" is read where a row should be.
    EXPECT_TRUE(rejected_at(changed(9, "n_support 3"), 12, 1,
                            "expected a number for support vector 3 of 3"));
    // n_support smaller: a row is read where a section should be.
    EXPECT_TRUE(rejected_at(changed(9, "n_support 1"), 11, 1, "expected a section"));
    // A row with too few or too many values.
    EXPECT_TRUE(line_replaced(10, "1 0.5", 6, "expected 3 values, found 2"));
    EXPECT_TRUE(line_replaced(10, "1 0.5 -1 7", 10, "more than the 3 values announced"));
    EXPECT_TRUE(rejected_at(changed(6, "n_features 3"), 10, 9,
                            "support vector 1 of 2 (coef and 3 features): expected 4 values, "
                            "found 3"));
    // theta count against its values and, for weighted-rbf, against n_features.
    EXPECT_TRUE(line_replaced(7, "theta 2 1", 10, "expected 2 values, found 1"));
    EXPECT_TRUE(line_replaced(7, "theta 1 1 2", 11, "more than the 1 values announced"));
    auto lines = valid_lines();
    lines[1] = "kernel weighted-rbf";
    EXPECT_TRUE(rejected_at(join(lines), 7, 7, "one theta per feature (2), got 0"));
    lines[6] = "theta 2 1 -1";
    EXPECT_TRUE(rejected_at(join(lines), 7, 11, "theta value 2 must be non-negative, got '-1'"));
    lines[6] = "theta 2 1 0.5";
    EXPECT_EQ(parse(join(lines)).model.kernel.theta.size(), 2);
}

TEST(ModelIoMalformed, TruncatedFiles) {
    const std::string full = join(valid_lines());
    // Cut after each complete line: the next expected thing is missing at line k + 1.
    auto lines = valid_lines();
    for (std::size_t k = 1; k < lines.size(); ++k) {
        std::vector<std::string> head(lines.begin(),
                                      lines.begin() + static_cast<std::ptrdiff_t>(k));
        SCOPED_TRACE("first " + std::to_string(k) + " lines");
        EXPECT_TRUE(rejected_at(join(head), k + 1, 1, "unexpected end of file"));
    }
    // Cut in the middle of a support-vector row.
    const std::string mid = full.substr(0, full.find("-1 2 3") + 4);
    EXPECT_TRUE(rejected_at(mid, 11, 5, "expected 3 values, found 2"));
    // Cut inside "end".
    EXPECT_TRUE(rejected_at(full.substr(0, full.size() - 2), 12, 1, "expected a section"));
}

TEST(ModelIoMalformed, TextAfterEnd) {
    EXPECT_TRUE(rejected_at(join(valid_lines()) + "\nextra\n", 14, 1, "after 'end'"));
    EXPECT_TRUE(line_replaced(12, "end now", 5, "unexpected text 'now' after 'end'"));
}

TEST(ModelIoMalformed, Sections) {
    auto with = [](const std::vector<std::string>& section) {
        auto lines = valid_lines();
        lines.insert(lines.end() - 1, section.begin(), section.end());
        return join(lines);
    };
    EXPECT_EQ(parse(with({"log10 1"})).log10, true);
    EXPECT_TRUE(rejected_at(with({"log10 2"}), 12, 7, "log10 flag must be in 0..1"));
    EXPECT_TRUE(rejected_at(with({"log10 1", "log10 0"}), 13, 1, "appears more than once"));
    EXPECT_TRUE(rejected_at(with({"scaling 1"}), 12, 1, "found 'scaling'"));

    EXPECT_TRUE(with({"standardize 2", "mean 0 1", "scale 1 2"}).size() > 0);
    EXPECT_TRUE(parse(with({"standardize 2", "mean 0 1", "scale 1 2"})).standardizer);
    EXPECT_TRUE(rejected_at(with({"standardize 3", "mean 0 1 2", "scale 1 2 3"}), 12, 13,
                            "standardize has 3 entries but the model has 2 features"));
    EXPECT_TRUE(rejected_at(with({"standardize 2", "mean 0", "scale 1 2"}), 13, 7,
                            "mean: expected 2 values, found 1"));
    EXPECT_TRUE(
        rejected_at(with({"standardize 2", "scale 1 2", "mean 0 1"}), 13, 1, "expected 'mean'"));
    EXPECT_TRUE(rejected_at(with({"standardize 2", "mean 0 1", "scale 1 0"}), 14, 9,
                            "scale value 2 must be positive, got '0'"));
    EXPECT_TRUE(rejected_at(with({"standardize 2", "mean 0 1"}), 14, 1, "expected 'scale'"));

    EXPECT_EQ(parse(with({"feature_names 2", "\"a b\"", "\"\\x41\\\\\\\"\""})).feature_names,
              (std::vector<std::string>{"a b", "A\\\""}));
    EXPECT_TRUE(
        rejected_at(with({"feature_names 1", "\"a\""}), 12, 15, "feature_names has 1 entries"));
    EXPECT_TRUE(rejected_at(with({"feature_names 2", "\"a\"", "b"}), 14, 1, "expected a quoted"));
    EXPECT_TRUE(rejected_at(with({"feature_names 2", "\"a\"", "\"b"}), 14, 3, "unterminated"));
    EXPECT_TRUE(
        rejected_at(with({"feature_names 2", "\"a\"", "\"b\\q\""}), 14, 3, "invalid escape"));
    EXPECT_TRUE(
        rejected_at(with({"feature_names 2", "\"a\"", "\"b\\x4\""}), 14, 3, "invalid escape"));
    EXPECT_TRUE(
        rejected_at(with({"feature_names 2", "\"a\"", "\"b\" c"}), 14, 5, "unexpected text 'c'"));

    EXPECT_EQ(parse(with({"labels 2", "\"1\" -1", "\"2\" 1"})).label_mapping.size(), 2u);
    EXPECT_TRUE(
        rejected_at(with({"labels 2", "\"1\" -1", "\"2\" 0"}), 14, 5, "must map to -1 or 1"));
    EXPECT_TRUE(
        rejected_at(with({"labels 2", "\"1\" -1", "\"2\" -1"}), 14, 5, "two labels map to -1"));
    EXPECT_TRUE(rejected_at(with({"labels 3", "\"1\" -1"}), 12, 8, "labels count must be in 1..2"));
    EXPECT_TRUE(
        rejected_at(with({"labels 2", "\"1\" -1"}), 14, 1, "expected a quoted string for label 2"));
}

// ---- the optional "method" line and sparse (L0-norm SVM) models ------------------------------

TEST(ModelIoMethod, MethodLineRoundTripsAndIsOptional) {
    ModelFile file = parse(join(valid_lines()));
    EXPECT_TRUE(file.method.empty());
    // A file without the line is written without it: the bytes of a plain SVM model are as
    // before the line existed.
    EXPECT_EQ(to_text(file), join(valid_lines()));

    file.method.name = "l0-svm";
    file.method.parameters = {{"p", zeronorm::model_number(0.0)},
                              {"variant", "exact"},
                              {"C_alpha", zeronorm::model_number(0.2)}};
    const std::string text = to_text(file);
    EXPECT_NE(text.find("\nmethod l0-svm p=0 variant=exact C_alpha=0.2\n"), std::string::npos)
        << text;
    EXPECT_EQ(text.rfind("zeronorm-model 1\n", 0), 0u) << "version stays 1";
    const ModelFile back = parse(text);
    EXPECT_EQ(back.method.name, "l0-svm");
    EXPECT_EQ(back.method.parameters, file.method.parameters);
    ASSERT_NE(back.method.find("C_alpha"), nullptr);
    EXPECT_EQ(*back.method.find("C_alpha"), "0.2");
    EXPECT_EQ(back.method.find("C_xi"), nullptr);
    expect_same_model(file.model, back.model);
    EXPECT_EQ(to_text(back), text);

    // A method without parameters, and the line after other sections.
    auto lines = valid_lines();
    lines.insert(lines.end() - 1, {"log10 1", "method\tsvm  "});
    const ModelFile plain = parse(join(lines));
    EXPECT_EQ(plain.method.name, "svm");
    EXPECT_TRUE(plain.method.parameters.empty());
    EXPECT_TRUE(plain.log10);
}

TEST(ModelIoMethod, MalformedMethodLines) {
    auto with = [](const std::vector<std::string>& section) {
        auto lines = valid_lines();
        lines.insert(lines.end() - 1, section.begin(), section.end());
        return join(lines);
    };
    EXPECT_TRUE(rejected_at(with({"method"}), 12, 7, "expected a method name"));
    EXPECT_TRUE(rejected_at(with({"method a=b"}), 12, 8, "bad method name 'a=b'"));
    EXPECT_TRUE(rejected_at(with({"method l0-svm p"}), 12, 15, "expected key=value"));
    EXPECT_TRUE(rejected_at(with({"method l0-svm p="}), 12, 17, "bad value '' for method parameter 'p'"));
    EXPECT_TRUE(rejected_at(with({"method l0-svm =1"}), 12, 15, "bad method parameter name ''"));
    EXPECT_TRUE(rejected_at(with({"method l0-svm 2p=1"}), 12, 15, "bad method parameter name '2p'"));
    EXPECT_TRUE(rejected_at(with({"method l0-svm p=1=2"}), 12, 17, "bad value '1=2'"));
    EXPECT_TRUE(rejected_at(with({"method l0-svm p=1 p=2"}), 12, 19, "'p' appears more than once"));
    EXPECT_TRUE(rejected_at(with({"method l0-svm \"x\"=1"}), 12, 15, "bad method parameter name"));
    EXPECT_TRUE(rejected_at(with({"method l0-svm", "method svm"}), 13, 1, "appears more than once"));
    EXPECT_TRUE(rejected_at(with({"method " + std::string(65, 'x')}), 12, 8, "bad method name"));

    // The writer refuses what the reader would reject.
    ModelFile file = parse(join(valid_lines()));
    ModelFile bad = file;
    bad.method.name = "has space";
    EXPECT_THROW(to_text(bad), zeronorm::InvalidArgument);
    bad = file;
    bad.method.parameters = {{"p", "0"}};
    EXPECT_THROW(to_text(bad), zeronorm::InvalidArgument);
    bad.method.name = "l0-svm";
    bad.method.parameters = {{"p", "0"}, {"p", "1"}};
    EXPECT_THROW(to_text(bad), zeronorm::InvalidArgument);
    bad.method.parameters = {{"p", ""}};
    EXPECT_THROW(to_text(bad), zeronorm::InvalidArgument);
    bad.method.parameters = {{"a-b", "1"}};
    EXPECT_THROW(to_text(bad), zeronorm::InvalidArgument);
}

TEST(ModelIoMethod, SparseSvmModelSavesAndPredictsThroughItsExpansionOnly) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(zeronorm::testing::test_seed());
    auto backend = zeronorm::make_cpu_backend();
    const zeronorm::Dataset data = zeronorm::testing::random_two_class(80, 3, rng);
    zeronorm::SparseSvmOptions options;
    options.kernel.type = KernelType::Rbf;
    options.kernel.gamma = 0.5;
    const zeronorm::SparseSvmResult r = zeronorm::train_sparse_svm(*backend, data, options);
    const zeronorm::SparseSvmModel& sparse = r.model;
    ASSERT_GT(sparse.n_terms(), 0);
    ASSERT_LT(sparse.n_terms(), data.n_samples());

    const SvmModel as_svm = sparse.to_svm_model();
    EXPECT_EQ(as_svm.n_support(), sparse.n_terms());
    EXPECT_EQ(as_svm.support_vectors, sparse.expansion_points);
    EXPECT_EQ(as_svm.coef, sparse.alpha);
    EXPECT_EQ(as_svm.bias, sparse.bias);

    const fs::path dir = scratch_dir("sparse");
    const std::string path = (dir / "l0.model").string();
    ModelFile file;
    file.model = as_svm;
    file.method.name = "l0-svm";
    file.method.parameters = {{"p", "0"}, {"variant", "exact"}};
    zeronorm::save_model(file, path);
    const ModelFile loaded = zeronorm::load_model_file(path);
    EXPECT_EQ(loaded.method.name, "l0-svm");
    EXPECT_EQ(loaded.model.n_support(), sparse.n_terms());
    expect_same_model(as_svm, loaded.model);

    const Matrix X = zeronorm::testing::random_matrix(150, 3, rng, -3, 3);
    const Vector f_sparse = sparse.decision_function(*backend, X);
    const Vector f_loaded = loaded.model.decision_function(*backend, X);
    for (Index i = 0; i < X.rows(); ++i) ASSERT_EQ(f_sparse[i], f_loaded[i]) << "row " << i;
    EXPECT_EQ(sparse.predict(*backend, X), loaded.model.predict(*backend, X));
}

TEST(ModelIoMethod, SparseModelWithoutTermsIsTheConstantBias) {
    zeronorm::SparseSvmModel sparse;
    sparse.kernel.type = KernelType::Rbf;
    sparse.expansion_points.resize(0, 2);
    sparse.alpha.resize(0);
    sparse.bias = -0.5;
    ModelFile file;
    file.model = sparse.to_svm_model();
    file.method.name = "l0-svm";
    const ModelFile back = parse(to_text(file));
    EXPECT_EQ(back.model.n_support(), 0);
    EXPECT_EQ(back.model.n_features(), 2);
    auto backend = zeronorm::make_cpu_backend();
    EXPECT_TRUE(exactly_equal(back.model.decision_function(*backend, Matrix::Ones(3, 2)),
                              Vector::Constant(3, -0.5)));

    zeronorm::SparseSvmModel broken = sparse;
    broken.alpha = Vector::Ones(1);
    EXPECT_THROW(broken.to_svm_model(), zeronorm::DimensionMismatch);
}


// ---- endless and binary inputs stop early ------------------------------------------------------

using zeronorm::testing::endless_rejected_at;

TEST(ModelIoLimits, DevZeroStopsAtTheFirstByte) {
    try {
        zeronorm::load_model_file("/dev/zero");
        ADD_FAILURE() << "did not throw";
    } catch (const DataFormatError& e) {
        EXPECT_EQ(std::string(e.what()).rfind("/dev/zero:1:1: ", 0), 0u) << e.what();
        EXPECT_NE(std::string(e.what()).find("NUL byte"), std::string::npos) << e.what();
    }
}

TEST(ModelIoLimits, LinesAreBoundedByWhatTheHeaderDeclares) {
    // No line end at all: 1 MiB before the header says more.
    EXPECT_TRUE(endless_rejected_at("", "x", 1, (1u << 20) + 1, "line longer than 1 MiB"));
    // A support-vector line of n_features = 2 that never ends.
    std::string head;
    for (std::size_t k = 0; k < 9; ++k) head += valid_lines()[k] + "\n";
    EXPECT_TRUE(endless_rejected_at(head + "1 ", "0 ", 10, (1u << 20) + 3 * 64 + 1,
                                    "n_features = 2"));
    // Endless blank lines after "end".
    EXPECT_TRUE(endless_rejected_at(join(valid_lines()), "\n", 12 + 65537, 1,
                                    "blank lines after 'end'"));
}

TEST(ModelIoLimits, LoneCarriageReturnsEndLines) {
    std::string text;
    for (const auto& l : valid_lines()) text += l + "\r";
    EXPECT_EQ(parse(text).model.n_support(), 2);
    auto lines = valid_lines();
    lines[10] = "-1 2 oops";
    std::string bad;
    for (const auto& l : lines) bad += l + "\r";
    EXPECT_TRUE(rejected_at(bad, 11, 6, "'oops'"));
}

}  // namespace
