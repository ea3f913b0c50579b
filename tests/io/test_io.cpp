// Readers (CSV, LIBSVM) and Dataset: round trips on the real data sets and every validation
// path, each checked for its exception type, its file:line:column and a key word.
#include <gtest/gtest.h>

#include <clocale>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/endless_input.hpp"
#include "support/temp_dir.hpp"
#include "zeronorm/core/dataset.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/io/io.hpp"

namespace {

using zeronorm::Dataset;
using zeronorm::DataFormatError;
using zeronorm::ReadOptions;

const std::string data_dir = ZERONORM_DATA_DIR;
const std::string tmp_dir = zeronorm::testing::process_tmp_dir();

Dataset csv(const std::string& text, const ReadOptions& options = {}) {
    std::istringstream in(text);
    return zeronorm::parse_csv(in, "t.csv", options);
}

Dataset libsvm(const std::string& text, const ReadOptions& options = {}) {
    std::istringstream in(text);
    return zeronorm::parse_libsvm(in, "t.svm", options);
}

// Success when f throws DataFormatError whose message starts with "where: " and contains
// every key.
template <class F>
::testing::AssertionResult format_error(F&& f, const std::string& where,
                                        std::initializer_list<std::string> keys) {
    try {
        f();
    } catch (const DataFormatError& e) {
        const std::string msg = e.what();
        if (msg.rfind(where + ": ", 0) != 0)
            return ::testing::AssertionFailure()
                   << "message does not start with '" << where << ": ': " << msg;
        for (const auto& key : keys)
            if (msg.find(key) == std::string::npos)
                return ::testing::AssertionFailure()
                       << "message lacks '" << key << "': " << msg;
        const std::string expected_where = e.file() + ":" + std::to_string(e.line()) + ":" +
                                           std::to_string(e.column());
        if (expected_where != where)
            return ::testing::AssertionFailure() << "accessors say " << expected_where;
        return ::testing::AssertionSuccess();
    } catch (const std::exception& e) {
        return ::testing::AssertionFailure() << "threw another exception: " << e.what();
    }
    return ::testing::AssertionFailure() << "did not throw";
}

#define EXPECT_CSV_ERROR(text, where, ...) \
    EXPECT_TRUE(format_error([&] { csv(text); }, where, {__VA_ARGS__}))
#define EXPECT_LIBSVM_ERROR(text, where, ...) \
    EXPECT_TRUE(format_error([&] { libsvm(text); }, where, {__VA_ARGS__}))

void write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    ASSERT_TRUE(out.good()) << path;
}

int count_label(const Dataset& ds, double v) {
    return static_cast<int>((ds.y.array() == v).count());
}

// ---- CSV: accepted input --------------------------------------------------------------------

TEST(CsvRead, HeaderWithLabelLast) {
    const Dataset ds = csv("a,b,label\n1,2,1\n3.5,-4e-1,-1\n");
    ASSERT_EQ(ds.n_samples(), 2);
    ASSERT_EQ(ds.n_features(), 2);
    EXPECT_EQ(ds.X(0, 0), 1.0);
    EXPECT_EQ(ds.X(0, 1), 2.0);
    EXPECT_EQ(ds.X(1, 0), 3.5);
    EXPECT_EQ(ds.X(1, 1), -0.4);
    EXPECT_EQ(ds.y[0], 1.0);
    EXPECT_EQ(ds.y[1], -1.0);
    EXPECT_EQ(ds.feature_names, (std::vector<std::string>{"a", "b"}));
    EXPECT_TRUE(ds.label_mapping.empty());
    EXPECT_TRUE(ds.is_binary());
    ds.validate();
}

TEST(CsvRead, LabelColumnByName) {
    ReadOptions opt;
    opt.label_column = "class";
    const Dataset ds = csv("x1,class,x2\n1,-1,2\n3,1,4\n", opt);
    EXPECT_EQ(ds.feature_names, (std::vector<std::string>{"x1", "x2"}));
    EXPECT_EQ(ds.X(1, 0), 3.0);
    EXPECT_EQ(ds.X(1, 1), 4.0);
    EXPECT_EQ(ds.y[0], -1.0);
    EXPECT_EQ(ds.y[1], 1.0);
}

TEST(CsvRead, NoHeader) {
    ReadOptions opt;
    opt.header = zeronorm::CsvHeader::absent;
    const Dataset ds = csv("1,2,1\n3,4,-1\n", opt);
    EXPECT_EQ(ds.n_samples(), 2);
    EXPECT_EQ(ds.n_features(), 2);
    EXPECT_TRUE(ds.feature_names.empty());
    EXPECT_EQ(ds.X(1, 1), 4.0);
}

TEST(CsvRead, HeaderDetectedUnlessTheFirstLineIsNumbers) {
    // Numbers in every field but the label's: data, whatever the label holds.
    const Dataset numbers = csv("1,2,1\n3,4,-1\n");
    EXPECT_EQ(numbers.n_samples(), 2);
    EXPECT_TRUE(numbers.feature_names.empty());
    const Dataset named = csv("1.5,-2e3,tumor\n3,4,normal\n");
    EXPECT_EQ(named.n_samples(), 2);
    EXPECT_EQ(named.X(0, 1), -2000.0);
    // A name anywhere among the features: a header.
    EXPECT_EQ(csv("g1,2,label\n3,4,1\n5,6,-1\n").feature_names,
              (std::vector<std::string>{"g1", "2"}));
    // Column numbers 0, 1, 2, ... or 1, 2, 3, ... (a data frame's unnamed columns): a header.
    const Dataset frame = csv("0,1,2,label\n5,6,7,1\n8,9,1,-1\n");
    EXPECT_EQ(frame.n_samples(), 2);
    EXPECT_EQ(frame.feature_names, (std::vector<std::string>{"0", "1", "2"}));
    EXPECT_EQ(csv("1,2,3,4\n5,6,7,1\n8,9,1,-1\n").n_samples(), 2);
    EXPECT_EQ(csv("0,1,1\n1,0,-1\n").n_samples(), 2);  // two columns: too few to tell
    // Told, the reader does as it is told.
    ReadOptions present;
    present.header = zeronorm::CsvHeader::present;
    EXPECT_EQ(csv("1,2,label\n3,4,1\n5,6,-1\n", present).feature_names,
              (std::vector<std::string>{"1", "2"}));
    ReadOptions absent;
    absent.header = zeronorm::CsvHeader::absent;
    EXPECT_TRUE(format_error([&] { csv("0,1,2,label\n5,6,7,1\n", absent); }, "t.csv:1:7",
                             {"expected a number", "'label'"}) ||
                format_error([&] { csv("0,1,2,label\n5,6,7,1\n", absent); }, "t.csv:2:7",
                             {"is a number", "class names"}));
    // A label column named needs the header that names it.
    ReadOptions by_name;
    by_name.label_column = "2";
    EXPECT_EQ(csv("1,2,3\n4,-1,5\n6,1,7\n", by_name).feature_names,
              (std::vector<std::string>{"1", "3"}));
}

TEST(CsvRead, AColumnOfRowNamesIsSkipped) {
    // R's write.csv: an empty quoted name heads the row names.
    const Dataset r = csv("\"\",\"g1\",\"g2\",\"class\"\n\"s1\",1,2,\"ALL\"\n\"s2\",3,4,\"AML\"\n");
    EXPECT_EQ(r.feature_names, (std::vector<std::string>{"g1", "g2"}));
    EXPECT_EQ(r.X, (zeronorm::Matrix(2, 2) << 1, 2, 3, 4).finished());
    EXPECT_EQ(r.y, (zeronorm::Vector(2) << -1, 1).finished());
    // pandas' to_csv: an empty name, the index numbers, unnamed columns numbered from 0.
    const Dataset frame = csv(",0,1,2,label\n0,5,6,7,1\n1,8,9,1,-1\n");
    EXPECT_EQ(frame.feature_names, (std::vector<std::string>{"0", "1", "2"}));
    EXPECT_EQ(frame.X(1, 2), 1.0);
    // Named by the label column, or data to predict, the row names stay out.
    ReadOptions by_name;
    by_name.label_column = "class";
    EXPECT_EQ(csv(",class,g1\ns1,1,5\ns2,-1,6\n", by_name).X,
              (zeronorm::Matrix(2, 1) << 5, 6).finished());
    ReadOptions model;
    model.n_features = 2;
    model.allow_unlabelled = true;
    const Dataset bare = csv(",a,b\ns1,1,2\n", model);
    EXPECT_EQ(bare.y.size(), 0);
    EXPECT_EQ(bare.feature_names, (std::vector<std::string>{"a", "b"}));
    EXPECT_CSV_ERROR(",label\ns1,1\n", "t.csv:1:1", "at least 2 columns", "besides the row names",
                     "got 1");
    // A first line of numbers after an empty field is data that lacks a value.
    EXPECT_CSV_ERROR(",2,3,1\n1,2,3,-1\n", "t.csv:1:1", "empty field");
    ReadOptions absent;
    absent.header = zeronorm::CsvHeader::absent;
    EXPECT_TRUE(format_error([&] { csv(",g1,label\ns1,1,1\n", absent); }, "t.csv:1:1",
                             {"empty field"}));
}

TEST(CsvRead, IgnoredColumnsAreNotRead) {
    ReadOptions opt;
    opt.ignored_columns = {"sample", "batch"};
    const Dataset ds = csv("sample,g1,batch,g2,class\nGSM1,1,b1,2,ALL\nGSM2,3,b2,4,AML\n", opt);
    EXPECT_EQ(ds.feature_names, (std::vector<std::string>{"g1", "g2"}));
    EXPECT_EQ(ds.X, (zeronorm::Matrix(2, 2) << 1, 2, 3, 4).finished());
    EXPECT_EQ(ds.y, (zeronorm::Vector(2) << -1, 1).finished());
    // The label is the last column read: an ignored last column leaves it to the one before.
    ReadOptions notes;
    notes.ignored_columns = {"note"};
    const Dataset last = csv("g1,g2,label,note\n1,2,1,x\n3,4,-1,y\n", notes);
    EXPECT_EQ(last.y, (zeronorm::Vector(2) << 1, -1).finished());
    EXPECT_EQ(last.feature_names, (std::vector<std::string>{"g1", "g2"}));
    // Names that are not there, twice there, or the label itself are errors.
    ReadOptions missing;
    missing.ignored_columns = {"id"};
    EXPECT_TRUE(format_error([&] { csv("a,b,label\n1,2,1\n", missing); }, "t.csv:1:1",
                             {"ignored column 'id' not found", "a, b, label"}));
    EXPECT_TRUE(format_error([&] { csv("id,id,b,label\nx,y,2,1\n", missing); }, "t.csv:1:1",
                             {"ignored column 'id' appears more than once"}));
    ReadOptions label_ignored = missing;
    label_ignored.label_column = "id";
    EXPECT_TRUE(format_error([&] { csv("id,b,label\n1,2,1\n", label_ignored); }, "t.csv:1:1",
                             {"label column 'id' is ignored"}));
    ReadOptions all_but_one;
    all_but_one.ignored_columns = {"a"};
    EXPECT_CSV_ERROR("a,b,label\nx,1,1\n", "t.csv:2:1", "'x'", "--ignore-columns");
    EXPECT_TRUE(format_error([&] { csv("a,label\nx,1\n", all_but_one); }, "t.csv:1:1",
                             {"besides the ignored columns, got 1"}));
    ReadOptions absent;
    absent.header = zeronorm::CsvHeader::absent;
    absent.ignored_columns = {"a"};
    EXPECT_THROW(csv("1,2,1\n", absent), zeronorm::InvalidArgument);
}

TEST(CsvRead, OtherSeparators) {
    ReadOptions semicolon;
    semicolon.delimiter = ';';
    const Dataset a = csv("a;b;label\n1.5;2;1\n3;\"4\";-1\n", semicolon);
    EXPECT_EQ(a.feature_names, (std::vector<std::string>{"a", "b"}));
    EXPECT_TRUE(format_error([&] { csv("a;b;label\n1,5;2;1\n", semicolon); }, "t.csv:2:1",
                             {"'1,5'"}));
    // Tabs separate fields and are not blanks around them: an empty field stays a field, and
    // a quoted field after it is the next one.
    ReadOptions tab;
    tab.delimiter = '\t';
    const Dataset t = csv("a\tb\tlabel\n \"1\" \t2\t1\n3\t4\t\"-1\"\n", tab);
    EXPECT_EQ(t.X(0, 0), 1.0);
    EXPECT_EQ(t.y[1], -1.0);
    EXPECT_TRUE(format_error([&] { csv("a\tb\tlabel\n1\t\t\"1\"\n", tab); }, "t.csv:2:3",
                             {"empty field"}));
    // The wrong separator is named.
    EXPECT_CSV_ERROR("a;b;label\n1;2;1\n", "t.csv:1:1", "at least 2 columns", "';'",
                     "delimiter");
    EXPECT_CSV_ERROR("a\tlabel\n1\t1\n", "t.csv:1:1", "'\\t'");
    ReadOptions quote;
    quote.delimiter = '"';
    EXPECT_THROW(csv("a,label\n1,1\n", quote), zeronorm::InvalidArgument);
}

TEST(CsvRead, TsvFilesAreTabSeparated) {
    const std::string path = tmp_dir + "/tab_separated.TSV";
    write_file(path, "gene 1\tgene 2\tclass\n1\t2\tALL\n3\t4\tAML\n");
    EXPECT_TRUE(zeronorm::is_csv_path(path));
    const Dataset ds = zeronorm::read_dataset(path);
    EXPECT_EQ(ds.feature_names, (std::vector<std::string>{"gene 1", "gene 2"}));
    EXPECT_EQ(ds.y, (zeronorm::Vector(2) << -1, 1).finished());
    EXPECT_FALSE(zeronorm::is_csv_path(tmp_dir + "/data.svm"));
    EXPECT_FALSE(zeronorm::is_csv_path(tmp_dir + "/csv"));
}

TEST(CsvRead, ModelWidthDataMayComeWithoutLabels) {
    ReadOptions model;
    model.n_features = 2;
    model.allow_unlabelled = true;
    model.min_classes = 1;
    const Dataset bare = csv("a,b\n1,2\n3,4\n5,6\n", model);
    EXPECT_EQ(bare.n_samples(), 3);
    EXPECT_EQ(bare.y.size(), 0);
    EXPECT_EQ(bare.feature_names, (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(bare.X(2, 1), 6.0);
    EXPECT_EQ(csv("1,2\n3,4\n", model).n_samples(), 2);  // no header either
    const Dataset labelled = csv("a,b,label\n1,2,1\n3,4,-1\n", model);
    EXPECT_EQ(labelled.y.size(), 2);
    EXPECT_TRUE(format_error([&] { csv("a,b,c,label\n1,2,3,1\n", model); }, "t.csv:1:1",
                             {"expected 2 feature columns and a label (3 columns, or 2 without "
                              "labels), got 4"}));
    ReadOptions one;
    one.n_features = 1;
    one.allow_unlabelled = true;
    EXPECT_EQ(csv("x\n1\n2\n", one).n_features(), 1);
    // Without allow_unlabelled the label is required.
    ReadOptions strict;
    strict.n_features = 2;
    EXPECT_TRUE(format_error([&] { csv("a,b\n1,2\n", strict); }, "t.csv:1:1",
                             {"expected 2 feature columns and a label (3 columns), got 2"}));
}

TEST(CsvRead, CrlfBlankLinesBomAndNoTrailingNewline) {
    const Dataset ds = csv("\xEF\xBB\xBF\r\na,label\r\n\r\n1,1\r\n  \t\r\n2,-1\r\n\n3,1");
    ASSERT_EQ(ds.n_samples(), 3);
    EXPECT_EQ(ds.feature_names, (std::vector<std::string>{"a"}));
    EXPECT_EQ(ds.X(2, 0), 3.0);
    EXPECT_EQ(ds.y[2], 1.0);
}

TEST(CsvRead, NumberForms) {
    const Dataset ds = csv(" a , \"b\" ,label\n +1.5 , .25 ,+1\n-0, 1E+2 ,-1\n1e-999,5.,1\n");
    EXPECT_EQ(ds.feature_names, (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(ds.X(0, 0), 1.5);
    EXPECT_EQ(ds.X(0, 1), 0.25);
    EXPECT_EQ(ds.X(1, 1), 100.0);
    EXPECT_EQ(ds.X(2, 0), 0.0);  // below the smallest subnormal rounds to zero
    EXPECT_EQ(ds.X(2, 1), 5.0);
}

TEST(CsvRead, IndependentOfGlobalLocale) {
    const char* old = std::setlocale(LC_ALL, nullptr);
    const std::string saved = old ? old : "C";
    const char* names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "de_DE"};
    bool switched = false;
    for (const char* n : names) switched = switched || std::setlocale(LC_ALL, n) != nullptr;
    if (!switched) GTEST_SKIP() << "no locale with a decimal comma installed";
    const Dataset ds = csv("a,label\n1.5,1\n2.25,-1\n");
    std::setlocale(LC_ALL, saved.c_str());
    EXPECT_EQ(ds.X(0, 0), 1.5);
    EXPECT_EQ(ds.X(1, 0), 2.25);
}

// ---- labels ---------------------------------------------------------------------------------

TEST(IoLabels, ZeroOneMapsToMinusPlusOne) {
    const Dataset ds = csv("a,label\n1,0\n2,1\n3,0\n");
    EXPECT_EQ(ds.y[0], -1.0);
    EXPECT_EQ(ds.y[1], 1.0);
    EXPECT_EQ(ds.y[2], -1.0);
    ASSERT_EQ(ds.label_mapping.size(), 2u);
    EXPECT_EQ(ds.label_mapping.at("0"), -1.0);
    EXPECT_EQ(ds.label_mapping.at("1"), 1.0);
    EXPECT_TRUE(ds.is_binary());
}

TEST(IoLabels, TwoOtherValuesSmallerIsMinusOne) {
    const Dataset ds = csv("a,label\n1,4\n2,2\n");
    EXPECT_EQ(ds.y[0], 1.0);
    EXPECT_EQ(ds.y[1], -1.0);
    EXPECT_EQ(ds.label_mapping.at("2"), -1.0);
    EXPECT_EQ(ds.label_mapping.at("4"), 1.0);
}

TEST(IoLabels, PlusMinusOneKept) {
    const Dataset ds = csv("a,label\n1,+1\n2,-1\n3,1.0\n");
    EXPECT_TRUE(ds.label_mapping.empty());
    EXPECT_EQ(ds.y[2], 1.0);
}

TEST(IoLabels, MulticlassZeroBasedKept) {
    const Dataset ds = csv("a,label\n1,2\n2,0\n3,1\n");
    EXPECT_TRUE(ds.label_mapping.empty());
    EXPECT_EQ(ds.n_classes(), 3);
    EXPECT_EQ(ds.y[0], 2.0);
    EXPECT_FALSE(ds.is_binary());
}

TEST(IoLabels, MulticlassOtherValuesMappedInOrder) {
    const Dataset ds = csv("a,label\n1,5\n2,-1\n3,1\n4,5\n");
    EXPECT_EQ(ds.y[0], 2.0);
    EXPECT_EQ(ds.y[1], 0.0);
    EXPECT_EQ(ds.y[2], 1.0);
    EXPECT_EQ(ds.y[3], 2.0);
    EXPECT_EQ(ds.label_mapping.at("-1"), 0.0);
    EXPECT_EQ(ds.label_mapping.at("1"), 1.0);
    EXPECT_EQ(ds.label_mapping.at("5"), 2.0);
}

TEST(IoLabels, OneClassAllowedWithMinClassesOne) {
    ReadOptions opt;
    opt.min_classes = 1;
    const Dataset ds = csv("a,label\n1,1\n2,1\n", opt);
    EXPECT_EQ(ds.n_classes(), 1);
    EXPECT_TRUE(ds.label_mapping.empty());
    const Dataset ds2 = libsvm("3 1:1\n", opt);
    EXPECT_EQ(ds2.y[0], 3.0);
}

TEST(IoLabels, OneClassIsAnError) {
    EXPECT_CSV_ERROR("a,label\n1,1\n2,1\n", "t.csv:2:3", "1 distinct label", "classes");
    EXPECT_LIBSVM_ERROR("\n-1 1:2\n-1 2:3\n", "t.svm:2:1", "1 distinct label", "classes");
    ReadOptions opt;
    opt.min_classes = 3;
    EXPECT_TRUE(format_error([&] { csv("a,label\n1,1\n2,-1\n", opt); }, "t.csv:2:3",
                             {"2 distinct labels", "at least 3 classes"}));
}

TEST(IoLabels, NonIntegerLabel) {
    EXPECT_CSV_ERROR("a,label\n1,1\n2,0.5\n", "t.csv:3:3", "integer", "'0.5'");
    EXPECT_LIBSVM_ERROR("1 1:1\n0.5 1:2\n", "t.svm:2:1", "integer", "'0.5'");
    EXPECT_CSV_ERROR("a,label\n1,1e300\n", "t.csv:2:3", "integer", "'1e300'");
}

TEST(IoLabels, ClassNamesMapInByteOrder) {
    // Two names: the first in byte order is -1 (sonar's M and R as the original file has them).
    const Dataset two = csv("a,label\n1,R\n2, M \n3,R\n");
    EXPECT_EQ(two.y, (zeronorm::Vector(3) << 1, -1, 1).finished());
    EXPECT_EQ(two.label_mapping, (std::map<std::string, double>{{"M", -1.0}, {"R", 1.0}}));
    EXPECT_TRUE(two.is_binary());
    // Quoted names may hold the separator and quotes; three names are classes 0, 1, 2.
    const Dataset three = csv("a,label\n1,\"tumor, grade 2\"\n2,normal\n3,\"say \"\"x\"\"\"\n4,normal\n");
    EXPECT_EQ(three.y, (zeronorm::Vector(4) << 2, 0, 1, 0).finished());
    EXPECT_EQ(three.label_mapping, (std::map<std::string, double>{
                                       {"normal", 0.0}, {"say \"x\"", 1.0}, {"tumor, grade 2", 2.0}}));
    // One name, where one class is allowed (a prediction file): class 0, the name recorded.
    ReadOptions one_class;
    one_class.min_classes = 1;
    const Dataset one = csv("a,label\n1,AML\n2,AML\n", one_class);
    EXPECT_EQ(one.y, zeronorm::Vector::Zero(2));
    EXPECT_EQ(one.label_mapping, (std::map<std::string, double>{{"AML", 0.0}}));
    EXPECT_CSV_ERROR("a,label\n1,AML\n2,AML\n", "t.csv:2:3", "1 distinct label", "'AML'");
}

TEST(IoLabels, NamesAndNumbersDoNotMix) {
    EXPECT_CSV_ERROR("a,label\n1,1\n2,M\n", "t.csv:3:3", "'M'", "is a name", "line 2");
    EXPECT_CSV_ERROR("a,label\n1,M\n2,-1\n", "t.csv:3:3", "'-1'", "is a number", "line 2");
    // NaN and Inf are missing values, not names; a name stays a name in LIBSVM files' eyes.
    EXPECT_CSV_ERROR("a,label\n1,nan\n", "t.csv:2:3", "non-finite", "'nan'");
    EXPECT_CSV_ERROR("a,label\n1,M\n2,\n", "t.csv:3:3", "empty field");
    EXPECT_LIBSVM_ERROR("M 1:1\nR 1:2\n", "t.svm:1:1", "expected a number", "'M'");
}

// ---- CSV: every rejection -------------------------------------------------------------------

TEST(CsvErrors, EmptyFile) {
    EXPECT_CSV_ERROR("", "t.csv:1:1", "empty file", "header");
    EXPECT_CSV_ERROR("\n \r\n\t\n", "t.csv:1:1", "empty file");
    ReadOptions opt;
    opt.header = zeronorm::CsvHeader::absent;
    EXPECT_TRUE(format_error([&] { csv("", opt); }, "t.csv:1:1", {"empty file", "data row"}));
}

TEST(CsvErrors, HeaderOnly) {
    EXPECT_CSV_ERROR("a,b,label\n", "t.csv:2:1", "no data rows");
    EXPECT_CSV_ERROR("\na,b,label\r\n\r\n  \n", "t.csv:3:1", "no data rows");
    EXPECT_CSV_ERROR("a,b,label", "t.csv:2:1", "no data rows");
}

TEST(CsvErrors, RaggedRows) {
    EXPECT_CSV_ERROR("a,b,label\n1,2,1\n1,2\n", "t.csv:3:4", "expected 3 fields, got 2");
    EXPECT_CSV_ERROR("a,b,label\n1,2,1\n1,2,1,4\n", "t.csv:3:7", "expected 3 fields, got 4");
    EXPECT_CSV_ERROR("a,b,label\n1,2,1,4,5\r\n", "t.csv:2:7", "expected 3 fields, got 5");
    ReadOptions opt;
    opt.header = zeronorm::CsvHeader::absent;
    EXPECT_TRUE(format_error([&] { csv("1,2,1\n3,-1\n", opt); }, "t.csv:2:5",
                             {"expected 3 fields, got 2"}));
}

TEST(CsvErrors, NonNumericToken) {
    EXPECT_CSV_ERROR("a,b,label\n1,abc,1\n", "t.csv:2:3", "expected a number", "'abc'",
                     "column 2 ('b')");
    EXPECT_CSV_ERROR("a,b,label\n1,  x y ,1\n", "t.csv:2:5", "'x y'");
    EXPECT_CSV_ERROR("a,b,label\n1,2,1\n1,1e,1\n", "t.csv:3:3", "'1e'");
    EXPECT_CSV_ERROR("a,b,label\n1,0x10,1\n", "t.csv:2:3", "'0x10'");
    EXPECT_CSV_ERROR("a,b,label\n1,+-2,1\n", "t.csv:2:3", "'+-2'");
    EXPECT_CSV_ERROR("a,b,label\n1,1\t2,1\n", "t.csv:2:3", "'1\\t2'");
    EXPECT_CSV_ERROR("a,b,label\n1,,1\n", "t.csv:2:3", "empty field");
    EXPECT_CSV_ERROR("a,b,label\n1,2,\n", "t.csv:2:5", "empty field", "label");
}

TEST(CsvErrors, NanAndInf) {
    EXPECT_CSV_ERROR("a,b,label\nnan,2,1\n", "t.csv:2:1", "non-finite", "'nan'");
    EXPECT_CSV_ERROR("a,b,label\n1,-inf,1\n", "t.csv:2:3", "non-finite", "'-inf'");
    EXPECT_CSV_ERROR("a,b,label\n1,Infinity,1\n", "t.csv:2:3", "non-finite");
    EXPECT_CSV_ERROR("a,b,label\n1,NaN,1\n", "t.csv:2:3", "non-finite");
    EXPECT_CSV_ERROR("a,b,label\n1,1e999,1\n", "t.csv:2:3", "overflow", "'1e999'");
    EXPECT_CSV_ERROR("a,b,label\n1,-1e309,1\n", "t.csv:2:3", "overflow");
}

TEST(CsvErrors, LabelColumnNotFound) {
    ReadOptions opt;
    opt.label_column = "y";
    EXPECT_TRUE(format_error([&] { csv("a,b,label\n1,2,1\n", opt); }, "t.csv:1:1",
                             {"label column 'y' not found", "a, b, label"}));
    EXPECT_TRUE(format_error([&] { csv("y,b,y\n1,2,1\n", opt); }, "t.csv:1:1",
                             {"more than once"}));
}

TEST(CsvErrors, BadHeader) {
    EXPECT_CSV_ERROR("a,,label\n1,2,1\n", "t.csv:1:3", "empty column name");
    EXPECT_CSV_ERROR("label\n1\n", "t.csv:1:1", "at least 2 columns");
}

TEST(CsvErrors, BadOptions) {
    ReadOptions opt;
    opt.header = zeronorm::CsvHeader::absent;
    opt.label_column = "label";
    EXPECT_THROW(csv("1,1\n", opt), zeronorm::InvalidArgument);
    ReadOptions opt2;
    opt2.min_classes = 0;
    EXPECT_THROW(csv("a,label\n1,1\n", opt2), zeronorm::InvalidArgument);
}

TEST(CsvErrors, FileErrorsNameThePath) {
    const std::string path = tmp_dir + "/io_bad.csv";
    write_file(path, "a,label\n1,1\n2,x\n");
    EXPECT_TRUE(format_error([&] { zeronorm::read_csv(path); }, path + ":3:3", {"'x'"}));
    EXPECT_THROW(zeronorm::read_csv(tmp_dir + "/does_not_exist.csv"), zeronorm::InvalidArgument);
    EXPECT_THROW(zeronorm::read_dataset(tmp_dir), zeronorm::InvalidArgument);
}

// ---- CSV: real data sets --------------------------------------------------------------------

TEST(CsvRealData, Colon) {
    const Dataset ds = zeronorm::read_csv(data_dir + "/colon/colon.csv");
    ASSERT_EQ(ds.n_samples(), 62);
    ASSERT_EQ(ds.n_features(), 2000);
    EXPECT_EQ(count_label(ds, 1.0), 40);
    EXPECT_EQ(count_label(ds, -1.0), 22);
    EXPECT_TRUE(ds.is_binary());
    EXPECT_TRUE(ds.label_mapping.empty());
    ASSERT_EQ(ds.feature_names.size(), 2000u);
    EXPECT_EQ(ds.feature_names.front(), "x1");
    EXPECT_EQ(ds.feature_names.back(), "x2000");
    EXPECT_EQ(ds.X(0, 0), 8589.42);
    EXPECT_EQ(ds.X(0, 2), 4263.41);
    EXPECT_EQ(ds.X(61, 1999), 39.63);
    EXPECT_GT(ds.X.minCoeff(), 0.0);  // raw intensities, positive
    ds.validate();
}

TEST(CsvRealData, RipleyTrain) {
    const Dataset ds = zeronorm::read_dataset(data_dir + "/ripley/ripley_train.csv");
    ASSERT_EQ(ds.n_samples(), 250);
    ASSERT_EQ(ds.n_features(), 2);
    EXPECT_EQ(count_label(ds, 1.0), 125);
    EXPECT_EQ(count_label(ds, -1.0), 125);
    EXPECT_EQ(ds.X(0, 0), 0.05100797);
    EXPECT_EQ(ds.X(0, 1), 0.16086164);
    EXPECT_EQ(ds.y[0], -1.0);
    EXPECT_EQ(ds.X(249, 0), -0.40249641);
    EXPECT_EQ(ds.y[249], 1.0);
    ds.validate();
}

TEST(CsvRealData, Sonar) {
    const Dataset ds = zeronorm::read_csv(data_dir + "/sonar/sonar.csv");
    ASSERT_EQ(ds.n_samples(), 208);
    ASSERT_EQ(ds.n_features(), 60);
    EXPECT_EQ(count_label(ds, 1.0), 111);
    EXPECT_EQ(count_label(ds, -1.0), 97);
    EXPECT_EQ(ds.X(0, 0), 0.02);
    EXPECT_EQ(ds.X(0, 1), 0.0371);
    EXPECT_EQ(ds.feature_names[59], "x60");
    ds.validate();
}

TEST(CsvRealData, LabelColumnByNameMatchesDefault) {
    ReadOptions opt;
    opt.label_column = "label";
    const Dataset a = zeronorm::read_csv(data_dir + "/sonar/sonar.csv", opt);
    const Dataset b = zeronorm::read_csv(data_dir + "/sonar/sonar.csv");
    EXPECT_EQ(a.X, b.X);
    EXPECT_EQ(a.y, b.y);
}

// ---- LIBSVM: accepted input -----------------------------------------------------------------

TEST(LibsvmRead, Basic) {
    const Dataset ds = libsvm("+1 1:0.5 3:2\n-1 2:1e1\n");
    ASSERT_EQ(ds.n_samples(), 2);
    ASSERT_EQ(ds.n_features(), 3);
    Eigen::MatrixXd expected(2, 3);
    expected << 0.5, 0, 2, 0, 10, 0;
    EXPECT_EQ(ds.X, expected);
    EXPECT_EQ(ds.y[0], 1.0);
    EXPECT_EQ(ds.y[1], -1.0);
    EXPECT_TRUE(ds.feature_names.empty());
    ds.validate();
}

TEST(LibsvmRead, NFeaturesWidensAndWhitespaceVariants) {
    ReadOptions opt;
    opt.n_features = 5;
    const Dataset ds = libsvm("\n  1\t1:1   2:2 \r\n\r\n-1\r\n   \n1 4:4", opt);
    ASSERT_EQ(ds.n_samples(), 3);
    ASSERT_EQ(ds.n_features(), 5);
    EXPECT_EQ(ds.X(0, 1), 2.0);
    EXPECT_EQ(ds.X.row(1).squaredNorm(), 0.0);  // a label-only line is a zero row
    EXPECT_EQ(ds.X(2, 3), 4.0);
}

TEST(LibsvmRead, LabelsRemapped) {
    const Dataset ds = libsvm("2 1:1\n1 1:2\n");
    EXPECT_EQ(ds.y[0], 1.0);
    EXPECT_EQ(ds.y[1], -1.0);
    EXPECT_EQ(ds.label_mapping.at("1"), -1.0);
    EXPECT_EQ(ds.label_mapping.at("2"), 1.0);
}

TEST(LibsvmRead, FileMatchesCsv) {
    const std::string svm_path = tmp_dir + "/io_small.svm";
    const std::string csv_path = tmp_dir + "/io_small.csv";
    write_file(svm_path, "1 1:0.25 2:-3\n-1 2:4\n1 1:1e-3\n");
    write_file(csv_path, "f1,f2,label\n0.25,-3,1\n0,4,-1\n0.001,0,1\n");
    const Dataset a = zeronorm::read_libsvm(svm_path);
    const Dataset b = zeronorm::read_dataset(svm_path);  // not .csv, so LIBSVM
    const Dataset c = zeronorm::read_dataset(csv_path);
    EXPECT_EQ(a.X, b.X);
    EXPECT_EQ(a.X, c.X);
    EXPECT_EQ(a.y, c.y);
    EXPECT_EQ(c.feature_names, (std::vector<std::string>{"f1", "f2"}));
    write_file(svm_path, "1 1:1\n1 2:x\n");
    EXPECT_TRUE(format_error([&] { zeronorm::read_libsvm(svm_path); }, svm_path + ":2:5",
                             {"'x'"}));
}

TEST(LibsvmRead, RipleyRoundTripThroughLibsvmText) {
    const Dataset ref = zeronorm::read_csv(data_dir + "/ripley/ripley_train.csv");
    std::ostringstream out;
    out.precision(17);
    for (zeronorm::Index i = 0; i < ref.n_samples(); ++i) {
        out << ref.y[i];
        for (zeronorm::Index j = 0; j < ref.n_features(); ++j)
            if (ref.X(i, j) != 0) out << ' ' << j + 1 << ':' << ref.X(i, j);
        out << '\n';
    }
    ReadOptions opt;
    opt.n_features = ref.n_features();
    const Dataset ds = libsvm(out.str(), opt);
    EXPECT_EQ(ds.X, ref.X);
    EXPECT_EQ(ds.y, ref.y);
}

// ---- LIBSVM: every rejection ----------------------------------------------------------------

TEST(LibsvmRead, SvmlightCommentsAndQueryIdsAreSkipped) {
    const Dataset ds = libsvm("# written by hand\n1 qid:3 1:1 2:2 # the first\n  # more\n"
                              "-1 qid:3 2:1#x\n1 1:0.5\n");
    ASSERT_EQ(ds.n_samples(), 3);
    EXPECT_EQ(ds.n_features(), 2);
    EXPECT_EQ(ds.X(0, 1), 2.0);
    EXPECT_EQ(ds.X(1, 0), 0.0);
    EXPECT_EQ(ds.X(2, 0), 0.5);
    EXPECT_LIBSVM_ERROR("1 qid:x 1:1\n", "t.svm:1:7", "query id", "'x'");
    EXPECT_LIBSVM_ERROR("1 1:1 qid:2\n", "t.svm:1:7", "integer feature index", "'qid'");
}

TEST(LibsvmErrors, Empty) {
    EXPECT_LIBSVM_ERROR("", "t.svm:1:1", "empty file");
    EXPECT_LIBSVM_ERROR("\n  \r\n", "t.svm:1:1", "empty file");
}

TEST(LibsvmErrors, MissingOrBadLabel) {
    EXPECT_LIBSVM_ERROR("1 1:1\n1:0.5 2:1\n", "t.svm:2:1", "missing label");
    EXPECT_LIBSVM_ERROR("1 1:1\n  abc 1:2\n", "t.svm:2:3", "expected a number", "label",
                        "'abc'");
    EXPECT_LIBSVM_ERROR("inf 1:2\n", "t.svm:1:1", "non-finite", "label");
}

TEST(LibsvmErrors, TokenWithoutColon) {
    EXPECT_LIBSVM_ERROR("1 1:2 3\n", "t.svm:1:7", "index:value", "':'", "'3'");
    EXPECT_LIBSVM_ERROR("-1 1:2\n1 1:2 x\n", "t.svm:2:7", "':'", "'x'");
}

TEST(LibsvmErrors, BadIndex) {
    EXPECT_LIBSVM_ERROR("1 0:1\n", "t.svm:1:3", ">= 1", "'0'");
    EXPECT_LIBSVM_ERROR("1 -2:1\n", "t.svm:1:3", ">= 1", "'-2'");
    EXPECT_LIBSVM_ERROR("1 a:1\n", "t.svm:1:3", "integer feature index", "'a'");
    EXPECT_LIBSVM_ERROR("1 1.5:1\n", "t.svm:1:3", "integer feature index", "'1.5'");
    EXPECT_LIBSVM_ERROR("1 :1\n", "t.svm:1:3", "feature index before ':'");
}

TEST(LibsvmErrors, IndicesNotStrictlyAscending) {
    EXPECT_LIBSVM_ERROR("1 3:1 2:1\n", "t.svm:1:7", "strictly ascending", "unsorted",
                        "2 after 3");
    EXPECT_LIBSVM_ERROR("1 1:1\n-1 2:1 2:5\n", "t.svm:2:8", "duplicate", "index 2");
}

TEST(LibsvmErrors, AbsurdlyLargeIndex) {
    EXPECT_LIBSVM_ERROR("1 1:1 10000001:1\n", "t.svm:1:7", "above the reader's limit", "10000000 features");
    EXPECT_LIBSVM_ERROR("1 99999999999999999999999999:1\n", "t.svm:1:3", "above the reader's limit");
    ReadOptions opt;
    opt.max_features = 10;
    EXPECT_TRUE(format_error([&] { libsvm("1 11:1\n-1 1:1\n", opt); }, "t.svm:1:3",
                             {"above the reader's limit", "10 features"}));
}

TEST(LibsvmErrors, IndexAboveNFeatures) {
    ReadOptions opt;
    opt.n_features = 3;
    EXPECT_TRUE(format_error([&] { libsvm("1 1:1\n-1 2:1 4:1\n", opt); }, "t.svm:2:8",
                             {"exceeds the 3 features expected", "4"}));
}

TEST(LibsvmErrors, BadValue) {
    EXPECT_LIBSVM_ERROR("1 1:abc\n", "t.svm:1:5", "expected a number", "'abc'");
    EXPECT_LIBSVM_ERROR("1 1:\n", "t.svm:1:5", "empty field");
    EXPECT_LIBSVM_ERROR("1 1:nan\n", "t.svm:1:5", "non-finite");
    EXPECT_LIBSVM_ERROR("1 2:1e999\n", "t.svm:1:5", "overflow");
    EXPECT_LIBSVM_ERROR("1 1:2:3\n", "t.svm:1:5", "'2:3'");
}

TEST(LibsvmErrors, BadOptions) {
    ReadOptions opt;
    opt.n_features = -1;
    EXPECT_THROW(libsvm("1 1:1\n", opt), zeronorm::InvalidArgument);
    opt.n_features = 0;
    opt.max_features = 0;
    EXPECT_THROW(libsvm("1 1:1\n", opt), zeronorm::InvalidArgument);
}

// ---- Dataset --------------------------------------------------------------------------------

Dataset small_set() {
    Dataset ds;
    ds.X.resize(3, 2);
    ds.X << 1, 2, 3, 4, 5, 6;
    ds.y.resize(3);
    ds.y << 1, -1, 1;
    ds.feature_names = {"a", "b"};
    ds.label_mapping = {{"0", -1.0}, {"1", 1.0}};
    return ds;
}

TEST(DatasetMethods, ClassesAndBinary) {
    Dataset ds = small_set();
    EXPECT_EQ(ds.n_classes(), 2);
    EXPECT_TRUE(ds.is_binary());
    ds.y << 1, 1, 1;
    EXPECT_EQ(ds.n_classes(), 1);
    EXPECT_FALSE(ds.is_binary());
    ds.y << 0, 1, 0;
    EXPECT_FALSE(ds.is_binary());
    ds.y << 0, 1, 2;
    EXPECT_EQ(ds.n_classes(), 3);
    ds.y << std::nan(""), 1, std::nan("");
    EXPECT_EQ(ds.n_classes(), 2);
}

TEST(DatasetMethods, Subset) {
    const Dataset ds = small_set();
    const Dataset s = ds.subset({2, 0, 2});
    ASSERT_EQ(s.n_samples(), 3);
    EXPECT_EQ(s.X(0, 0), 5.0);
    EXPECT_EQ(s.X(1, 1), 2.0);
    EXPECT_EQ(s.X(2, 1), 6.0);
    EXPECT_EQ(s.y[1], 1.0);
    EXPECT_EQ(s.feature_names, ds.feature_names);
    EXPECT_EQ(s.label_mapping, ds.label_mapping);
    EXPECT_EQ(ds.subset({}).n_samples(), 0);
    EXPECT_EQ(ds.subset({}).n_features(), 2);
}

TEST(DatasetMethods, SubsetOutOfRangeNamesIndex) {
    const Dataset ds = small_set();
    try {
        ds.subset({0, 7});
        FAIL() << "no throw";
    } catch (const zeronorm::InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("row index 7"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos) << e.what();
    }
    EXPECT_THROW(ds.subset({-1}), zeronorm::InvalidArgument);
    EXPECT_THROW(ds.subset({3}), zeronorm::InvalidArgument);
}

TEST(DatasetMethods, ValidateSizes) {
    Dataset ds = small_set();
    ds.validate();
    ds.y.resize(2);
    EXPECT_THROW(ds.validate(), zeronorm::DimensionMismatch);
    ds = small_set();
    ds.feature_names.push_back("c");
    EXPECT_THROW(ds.validate(), zeronorm::DimensionMismatch);
    ds.feature_names.clear();
    ds.validate();
}

TEST(DatasetMethods, ValidateNonFiniteNamesRowAndColumn) {
    Dataset ds = small_set();
    ds.X(2, 1) = std::numeric_limits<double>::quiet_NaN();
    try {
        ds.validate();
        FAIL() << "no throw";
    } catch (const zeronorm::InvalidArgument& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("row 2"), std::string::npos) << msg;
        EXPECT_NE(msg.find("column 1"), std::string::npos) << msg;
        EXPECT_NE(msg.find("'b'"), std::string::npos) << msg;
    }
    ds = small_set();
    ds.y[1] = std::numeric_limits<double>::infinity();
    try {
        ds.validate();
        FAIL() << "no throw";
    } catch (const zeronorm::InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("row 1"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("label"), std::string::npos) << e.what();
    }
}

}  // namespace

// ---- sizes, endless inputs, line ends, quoting, positive features ------------------------------

namespace {

// Reads `head` and then `pattern` for ever as LIBSVM or CSV text.
Dataset read_endless(const std::string& head, const std::string& pattern, bool as_csv,
                     const ReadOptions& options) {
    zeronorm::testing::EndlessInput in(head, pattern);
    return as_csv ? zeronorm::parse_csv(in, "t.csv", options)
                  : zeronorm::parse_libsvm(in, "t.svm", options);
}

// n rows alternating labels +1/-1 with features 1 and 2, then `last` as the final line.
std::string libsvm_rows(int n, const std::string& last) {
    std::string text;
    for (int i = 0; i < n; ++i) text += (i % 2 ? "-1 1:0.5 2:1\n" : "1 1:1 2:0.25\n");
    return text + last;
}

}  // namespace

TEST(LibsvmDenseLimit, OneHugeIndexIsRefusedWithItsPositionAndSize) {
    // 60 rows and one index 10^7 (= max_features): 6e8 dense entries, 4.5 GiB, for 121 non-zeros.
    EXPECT_LIBSVM_ERROR(libsvm_rows(60, "1 10000000:1\n"), "t.svm:61:3", "feature index 10000000",
                        "61 x 10000000", "GiB", "121 non-zeros", "max_dense_per_nonzero");
}

TEST(LibsvmDenseLimit, IndicesBeyondIntRangeAreRefused) {
    EXPECT_LIBSVM_ERROR("1 1:1\n-1 2147483648:1\n", "t.svm:2:4", "above the reader's limit");
    EXPECT_LIBSVM_ERROR("1 1:1\n-1 -9999999999999999999999:1\n", "t.svm:2:4", ">= 1");
    EXPECT_LIBSVM_ERROR("1 1:1\n-1 0:1\n", "t.svm:2:4", ">= 1", "'0'");
    EXPECT_LIBSVM_ERROR("1 1:1\n-1 4294967297:1 3:1\n", "t.svm:2:4", "above the reader's limit");
    // With the plausibility bound lifted, the dense limit still stops an index beyond int range.
    ReadOptions opt;
    opt.max_features = std::numeric_limits<zeronorm::Index>::max();
    EXPECT_TRUE(format_error([&] { libsvm("1 1:1\n-1 4294967297:1\n", opt); }, "t.svm:2:4",
                             {"4294967297", "dense"}));
    EXPECT_TRUE(format_error([&] { libsvm("1 1:1\n-1 5:1 4294967297:1 3:1\n", opt); },
                             "t.svm:2:21", {"strictly ascending"}));
}

TEST(LibsvmDenseLimit, SmallOrDenseEnoughDataIsRead) {
    // 2 x 2^23 = 2^24 entries is always allowed, however sparse.
    const Dataset ds = libsvm("1 1:1\n-1 8388608:1\n");
    EXPECT_EQ(ds.n_features(), 8388608);
    // One entry more is refused by default and read when the limit is raised.
    EXPECT_LIBSVM_ERROR("1 1:1\n-1 8388609:1\n", "t.svm:2:4", "dense");
    ReadOptions opt;
    opt.max_dense_per_nonzero = 1e7;
    EXPECT_EQ(libsvm("1 1:1\n-1 8388609:1\n", opt).n_features(), 8388609);
    opt.max_dense_per_nonzero = -1;
    EXPECT_THROW(libsvm("1 1:1\n", opt), zeronorm::InvalidArgument);
}

TEST(ReaderLimits, NulBytesStopAtOnce) {
    EXPECT_LIBSVM_ERROR("1 1:1\n-1 2:1\n" + std::string(3, '\0'), "t.svm:3:1", "NUL byte");
    EXPECT_CSV_ERROR("a,label\n1," + std::string(1, '\0'), "t.csv:2:3", "NUL byte");
    EXPECT_TRUE(format_error([] { zeronorm::read_libsvm("/dev/zero"); }, "/dev/zero:1:1",
                             {"NUL byte"}));
    EXPECT_TRUE(format_error([] { zeronorm::read_csv("/dev/zero"); }, "/dev/zero:1:1",
                             {"NUL byte"}));
}

TEST(ReaderLimits, EndlessLineStopsAtTheLineLimit) {
    ReadOptions opt;
    opt.max_line_bytes = 1 << 20;
    EXPECT_TRUE(format_error([&] { read_endless("1 1:1\n-1 2:", "7", false, opt); },
                             "t.svm:2:1048577", {"line longer than 1 MiB"}));
    EXPECT_TRUE(format_error([&] { read_endless("a,label\n", "1,", true, opt); },
                             "t.csv:2:1048577", {"line longer than 1 MiB"}));
    // The default bound holds a 60,000-feature microarray row of 20-character values.
    std::string row;
    for (int j = 0; j < 60000; ++j) row += "1234567.890123456789,";
    const Dataset ds = csv(row + "1\n" + row + "-1\n", [] {
        ReadOptions o;
        o.header = zeronorm::CsvHeader::absent;
        return o;
    }());
    EXPECT_EQ(ds.n_features(), 60000);
}

TEST(ReaderLimits, EndlessInputStopsAtTheTotalLimit) {
    ReadOptions opt;
    opt.max_bytes = 4 << 20;
    EXPECT_TRUE(format_error([&] { read_endless("", "1 1:1\n-1 2:1\n", false, opt); },
                             "t.svm:645278:1", {"input longer than 4 MiB"}));
}

TEST(ReaderLimits, OversizedFileIsRefusedBeforeReading) {
    // A sparse file: 64 GiB of zeros on no disk space.
    const std::string path = tmp_dir + "/huge_sparse.svm";
    {
        std::ofstream create(path, std::ios::binary);
    }
    std::error_code ec;
    std::filesystem::resize_file(path, std::uintmax_t{64} << 30, ec);
    if (ec) GTEST_SKIP() << "cannot make a sparse file: " << ec.message();
    EXPECT_TRUE(format_error([&] { zeronorm::read_libsvm(path); }, path + ":1:1",
                             {"64 GiB", "max_bytes"}));
    ReadOptions opt;
    opt.max_bytes = std::uint64_t{1} << 40;  // then the first bytes are NUL
    EXPECT_TRUE(format_error([&] { zeronorm::read_csv(path, opt); }, path + ":1:1",
                             {"NUL byte"}));
    std::filesystem::remove(path);
}

TEST(LineEnds, LoneCarriageReturnEndsALine) {
    const Dataset c = csv("a,label\r1,1\r\r2,-1\r3,1");
    EXPECT_EQ(c.n_samples(), 3);
    EXPECT_EQ(c.X(2, 0), 3);
    const Dataset s = libsvm("1 1:1\r-1 2:1\r\n1 1:3\r");
    EXPECT_EQ(s.n_samples(), 3);
    EXPECT_EQ(s.X(2, 0), 3);
    // Line numbers count the lone CRs as line ends; mixed ends count once each.
    EXPECT_CSV_ERROR("a,label\r1,1\rx,-1\r", "t.csv:3:1", "'x'");
    EXPECT_CSV_ERROR("a,label\r\n1,1\r\r\nx,-1\n", "t.csv:4:1", "'x'");
    EXPECT_CSV_ERROR("a,b,label\n1,1\r2,1\n", "t.csv:2:4", "expected 3 fields, got 2");
}

TEST(CsvQuoting, QuotedHeaderNamesMayHoldCommasAndQuotes) {
    const Dataset ds = csv("\"a,b\",\"say \"\"hi\"\"\", \"label\" \n1,2,1\n3,4,-1\n");
    ASSERT_EQ(ds.n_features(), 2);
    EXPECT_EQ(ds.feature_names, (std::vector<std::string>{"a,b", "say \"hi\""}));
    ReadOptions opt;
    opt.label_column = "a,b";
    EXPECT_EQ(csv("\"a,b\",c\n1,2\n-1,4\n", opt).feature_names, std::vector<std::string>{"c"});
}

TEST(CsvQuoting, QuotedNumbersAreNumbers) {
    const Dataset ds = csv("a,label\n\"1.5\",\"1\"\n \"-2\" ,-1\n");
    EXPECT_EQ(ds.X(0, 0), 1.5);
    EXPECT_EQ(ds.X(1, 0), -2);
    ReadOptions opt;
    opt.header = zeronorm::CsvHeader::absent;
    EXPECT_TRUE(format_error([&] { csv("\"1,5\",\"2\",1\n-1,0,-1\n", opt); }, "t.csv:1:2",
                             {"'1,5'"}));
}

TEST(CsvQuoting, MalformedQuotesSayWhatIsWrong) {
    EXPECT_CSV_ERROR("\"a,label\n1,1\n", "t.csv:1:1", "without its closing '\"'",
                     "line break inside");
    EXPECT_CSV_ERROR("\"a\"x,label\n1,1\n", "t.csv:1:4", "after the closing", "'x'");
    EXPECT_CSV_ERROR("a,label\n\"1\" 2,1\n", "t.csv:2:5", "after the closing", "'2'");
    EXPECT_CSV_ERROR("a,b,label\n1,2,3,\"4\n", "t.csv:2:7", "without its closing");
    EXPECT_CSV_ERROR("a,\"\",label\n1,1,1\n", "t.csv:1:4", "empty column name", "column 2");
}

TEST(PositiveFeatures, NonPositiveValuesAreReportedWhereTheyStand) {
    ReadOptions opt;
    opt.positive_features = true;
    EXPECT_TRUE(format_error([&] { csv("a,b,label\n1,2,1\n5, -3 ,-1\n", opt); }, "t.csv:3:4",
                             {"'-3'", "column 2 ('b')", "not positive", "log10"}));
    EXPECT_TRUE(format_error([&] { csv("a,b,label\n1,0,1\n", opt); }, "t.csv:2:3", {"'0'"}));
    EXPECT_TRUE(format_error([&] { libsvm("1 1:1 2:2\n-1 1:4 2:0\n", opt); }, "t.svm:2:10",
                             {"'0'", "feature 2", "log10"}));
    // LIBSVM omits zeros: a skipped index and a row that stops early are zeros too.
    EXPECT_TRUE(format_error([&] { libsvm("1 1:1 2:2\n-1 2:3\n", opt); }, "t.svm:2:4",
                             {"feature 1 is missing", "log10"}));
    EXPECT_TRUE(format_error([&] { libsvm("1 1:1\n-1 1:3 2:2 3:1\n", opt); }, "t.svm:1:6",
                             {"features 2..3 are missing"}));
    opt.n_features = 3;
    EXPECT_TRUE(format_error([&] { libsvm("1 1:1 2:1 3:1\n-1 1:3 2:2\n", opt); }, "t.svm:2:11",
                             {"features 3..3"}));
    EXPECT_EQ(libsvm("1 1:1 2:1 3:1\n-1 1:3 2:2 3:5\n", opt).X(1, 2), 5);
}

TEST(LibsvmRead, FewerFeaturesThanNFeaturesArePadded) {
    // A prediction file whose last feature is zero in every row (a9a's test set lacks 123).
    ReadOptions opt;
    opt.n_features = 123;
    opt.min_classes = 1;
    const Dataset ds = libsvm("1 3:1 122:1\n-1 1:1\n", opt);
    EXPECT_EQ(ds.n_features(), 123);
    EXPECT_EQ(ds.X.col(122).squaredNorm(), 0);
    EXPECT_EQ(ds.X(0, 121), 1);
}
