// Stratified k-fold and random splits (exact class counts, disjoint parts that cover the data,
// determinism down to fixed golden outputs) and cross_validate_svm against a by-hand loop.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "evaluation/split_runner.hpp"
#include "support/random.hpp"
#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/preprocess.hpp"
#include "zeronorm/evaluation/cross_validation.hpp"
#include "zeronorm/solvers/svm.hpp"

namespace {

using zeronorm::Fold;
using zeronorm::Index;
using zeronorm::IndexVector;
using zeronorm::Vector;

// Labels with the given class sizes (labels 0, 1, 2, ...), interleaved then shuffled by rng.
Vector labels_with_counts(const std::vector<int>& counts, std::mt19937_64& rng) {
    std::vector<double> y;
    for (std::size_t c = 0; c < counts.size(); ++c)
        for (int i = 0; i < counts[c]; ++i) y.push_back(double(c));
    std::shuffle(y.begin(), y.end(), rng);  // test data only; the splitter has its own shuffle
    return Eigen::Map<const Vector>(y.data(), Index(y.size()));
}

std::map<double, Index> class_counts(const Vector& y, const IndexVector& rows) {
    std::map<double, Index> counts;
    for (const Index r : rows) ++counts[y[r]];
    return counts;
}

// train and test ascending, disjoint, in range, and together all of 0..n-1.
void expect_partition(const Fold& f, Index n) {
    EXPECT_TRUE(std::is_sorted(f.train.begin(), f.train.end()));
    EXPECT_TRUE(std::is_sorted(f.test.begin(), f.test.end()));
    IndexVector all = f.train;
    all.insert(all.end(), f.test.begin(), f.test.end());
    std::sort(all.begin(), all.end());
    ASSERT_EQ(Index(all.size()), n);
    for (Index i = 0; i < n; ++i) ASSERT_EQ(all[std::size_t(i)], i);
}

TEST(CrossValidationKFold, ExactStratifiedCountsDisjointAndCovering) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(zeronorm::testing::test_seed());
    for (const auto& counts :
         std::vector<std::vector<int>>{{23, 17, 5}, {40, 22}, {5, 5}, {7, 3, 3, 9}}) {
        const Vector y = labels_with_counts(counts, rng);
        const Index n = y.size();
        for (int k = 2; k <= *std::min_element(counts.begin(), counts.end()); ++k) {
            SCOPED_TRACE("k = " + std::to_string(k) + ", n = " + std::to_string(n));
            const auto folds = zeronorm::stratified_kfold(y, k, rng());
            ASSERT_EQ(int(folds.size()), k);
            std::vector<int> seen(std::size_t(n), 0);
            Index smallest = n, largest = 0;
            for (const Fold& f : folds) {
                expect_partition(f, n);
                for (const Index r : f.test) ++seen[std::size_t(r)];
                smallest = std::min(smallest, Index(f.test.size()));
                largest = std::max(largest, Index(f.test.size()));
                const auto per_class = class_counts(y, f.test);
                for (std::size_t c = 0; c < counts.size(); ++c) {
                    const Index got = per_class.count(double(c)) ? per_class.at(double(c)) : 0;
                    EXPECT_GE(got, counts[c] / k) << "class " << c;
                    EXPECT_LE(got, (counts[c] + k - 1) / k) << "class " << c;
                }
            }
            EXPECT_LE(largest - smallest, 1);
            // Every row is a test row exactly once.
            EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }));
        }
    }
}

TEST(CrossValidationKFold, DeterministicForASeedAndDifferentAcrossSeeds) {
    std::mt19937_64 rng(5);
    const Vector y = labels_with_counts({30, 20}, rng);
    const auto a = zeronorm::stratified_kfold(y, 5, 42);
    const auto b = zeronorm::stratified_kfold(y, 5, 42);
    const auto c = zeronorm::stratified_kfold(y, 5, 43);
    bool differs = false;
    for (std::size_t f = 0; f < a.size(); ++f) {
        EXPECT_EQ(a[f].test, b[f].test);
        EXPECT_EQ(a[f].train, b[f].train);
        differs = differs || a[f].test != c[f].test;
    }
    EXPECT_TRUE(differs);
}

// Fixed outputs: the splitter must give these on every platform and standard library (it uses
// only mt19937_64's specified stream and its own bounded draws and shuffle).
TEST(CrossValidationKFold, GoldenOutputIsPlatformIndependent) {
    Vector y(10);
    y << 1, -1, 1, 1, -1, 1, -1, 1, 1, -1;
    const auto folds = zeronorm::stratified_kfold(y, 2, 2024);
    ASSERT_EQ(folds.size(), 2u);
    EXPECT_EQ(folds[0].test, (IndexVector{0, 1, 3, 4, 5}));
    EXPECT_EQ(folds[1].test, (IndexVector{2, 6, 7, 8, 9}));
    const auto splits = zeronorm::stratified_random_splits(y, 2, 6, 7);
    ASSERT_EQ(splits.size(), 2u);
    EXPECT_EQ(splits[0].train, (IndexVector{3, 4, 5, 6, 7, 8}));
    EXPECT_EQ(splits[1].train, (IndexVector{0, 1, 2, 3, 7, 9}));
}

TEST(CrossValidationKFold, Errors) {
    Vector y(7);
    y << 1, 1, 1, 1, -1, -1, -1;
    EXPECT_THROW(zeronorm::stratified_kfold(y, 1, 0), zeronorm::InvalidArgument);
    EXPECT_THROW(zeronorm::stratified_kfold(y, 0, 0), zeronorm::InvalidArgument);
    EXPECT_NO_THROW(zeronorm::stratified_kfold(y, 3, 0));
    try {
        zeronorm::stratified_kfold(y, 4, 0);
        FAIL() << "k > smallest class did not throw";
    } catch (const zeronorm::InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("smallest class has only 3"), std::string::npos)
            << e.what();
    }
    EXPECT_THROW(zeronorm::stratified_kfold(Vector(), 2, 0), zeronorm::InvalidArgument);
    y[2] = std::nan("");
    EXPECT_THROW(zeronorm::stratified_kfold(y, 2, 0), zeronorm::InvalidArgument);
}

TEST(CrossValidationRandomSplits, ProportionalCountsAndPartition) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(zeronorm::testing::test_seed());
    const std::vector<int> counts{40, 22};
    const Vector y = labels_with_counts(counts, rng);
    for (const Index train_size : {Index(2), Index(31), Index(50), Index(61)}) {
        SCOPED_TRACE("train_size " + std::to_string(train_size));
        const auto splits = zeronorm::stratified_random_splits(y, 4, train_size, rng());
        ASSERT_EQ(splits.size(), 4u);
        for (const Fold& s : splits) {
            expect_partition(s, y.size());
            ASSERT_EQ(Index(s.train.size()), train_size);
            const auto per_class = class_counts(y, s.train);
            for (std::size_t c = 0; c < counts.size(); ++c) {
                const double ideal = double(counts[c]) * double(train_size) / double(y.size());
                const Index got = per_class.count(double(c)) ? per_class.at(double(c)) : 0;
                EXPECT_LE(std::abs(double(got) - ideal), 1.0) << "class " << c;
                EXPECT_GE(got, 1) << "class " << c;
            }
        }
        // Independent draws: not all four splits alike.
        EXPECT_FALSE(splits[1].train == splits[0].train && splits[2].train == splits[0].train &&
                     splits[3].train == splits[0].train);
    }
}

TEST(CrossValidationRandomSplits, EveryClassOnBothSidesWhenPossible) {
    Vector y = Vector::Ones(102);
    y[0] = y[1] = -1;  // 100 vs 2: proportional rounding would give the small class no train row
    for (const Index train_size : {Index(10), Index(95)}) {
        const auto splits = zeronorm::stratified_random_splits(y, 3, train_size, 11);
        for (const Fold& s : splits) {
            const auto tr = class_counts(y, s.train);
            const auto te = class_counts(y, s.test);
            EXPECT_EQ(tr.count(-1.0), 1u);
            EXPECT_EQ(te.count(-1.0), 1u);
            EXPECT_EQ(Index(s.train.size()), train_size);
        }
    }
}

TEST(CrossValidationRandomSplits, Errors) {
    Vector y(6);
    y << 1, 1, 1, -1, -1, -1;
    EXPECT_THROW(zeronorm::stratified_random_splits(y, 0, 3, 0), zeronorm::InvalidArgument);
    EXPECT_THROW(zeronorm::stratified_random_splits(y, 2, 0, 0), zeronorm::InvalidArgument);
    EXPECT_THROW(zeronorm::stratified_random_splits(y, 2, 6, 0), zeronorm::InvalidArgument);
    EXPECT_THROW(zeronorm::stratified_random_splits(y, 2, -1, 0), zeronorm::InvalidArgument);
    EXPECT_NO_THROW(zeronorm::stratified_random_splits(y, 2, 5, 0));
    EXPECT_NO_THROW(zeronorm::stratified_random_splits(y, 2, 1, 0));
}

// The chunking of the batched schedules: every split once, in order, in chunks of as many as
// fit the byte budget (at least one), each chunk's wall time shared out, the callback after each.
TEST(BatchChunks, EverySplitOnceInOrderWithinTheBudget) {
    struct Result {
        std::size_t index = 0;
        double seconds = -1.0;
    };
    const std::size_t budget = std::size_t{1} << 30;
    for (const std::size_t per_split : {budget / 3 + 1, budget * 2, std::size_t(0)}) {
        std::vector<std::size_t> chunk_sizes, reported;
        const std::vector<Result> out = zeronorm::detail::run_in_chunks<Result>(
            7, budget, per_split,
            [&](std::size_t first, std::size_t count) {
                chunk_sizes.push_back(count);
                std::vector<Result> part(count);
                for (std::size_t k = 0; k < count; ++k) part[k].index = first + k;
                return part;
            },
            [&](std::size_t f, const Result& r) {
                EXPECT_EQ(r.index, f);
                reported.push_back(f);
            });
        ASSERT_EQ(out.size(), 7u);
        for (std::size_t f = 0; f < out.size(); ++f) {
            EXPECT_EQ(out[f].index, f);
            EXPECT_GE(out[f].seconds, 0.0);
        }
        EXPECT_EQ(reported, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6}));
        const std::size_t expected = per_split == 0 ? 7 : per_split > budget ? 1 : 2;
        for (std::size_t k = 0; k + 1 < chunk_sizes.size(); ++k) EXPECT_EQ(chunk_sizes[k], expected);
        EXPECT_LE(chunk_sizes.back(), expected);
    }
}

TEST(CrossValidationSvm, MatchesAHandWrittenLoop) {
    ZN_SEED_TRACE();
    std::mt19937_64 rng(zeronorm::testing::test_seed());
    zeronorm::Dataset data = zeronorm::testing::random_two_class(90, 3, rng, 0.6);
    data.X.col(1) *= 100.0;  // so that standardisation matters
    zeronorm::SvmOptions options;
    options.kernel.type = zeronorm::KernelType::Rbf;
    options.kernel.gamma = 0.3;
    auto backend = zeronorm::make_cpu_backend();
    const auto folds = zeronorm::stratified_kfold(data.y, 4, 99);

    for (const bool standardize : {false, true}) {
        SCOPED_TRACE(standardize ? "standardized" : "raw");
        std::size_t calls = 0;
        const auto result = zeronorm::cross_validate_svm(
            *backend, data, options, folds, standardize,
            [&](std::size_t f, std::size_t n, const zeronorm::FoldResult& r) {
                EXPECT_EQ(f, calls);
                EXPECT_EQ(n, folds.size());
                EXPECT_GE(r.error, 0.0);
                EXPECT_LE(r.error, 1.0);
                ++calls;
            });
        EXPECT_EQ(calls, folds.size());
        ASSERT_EQ(result.fold_errors.size(), folds.size());
        std::vector<double> expected;
        for (const Fold& f : folds) {
            zeronorm::Dataset train = data.subset(f.train), test = data.subset(f.test);
            if (standardize) {
                const auto s = zeronorm::Standardizer::fit(train.X);
                train.X = s.transform(train.X);
                test.X = s.transform(test.X);
            }
            const auto model = zeronorm::train_svm(*backend, train, options).model;
            expected.push_back(zeronorm::error_rate(model.predict(*backend, test.X), test.y));
        }
        EXPECT_EQ(result.fold_errors, expected);
        double mean = 0;
        for (const double e : expected) mean += e;
        mean /= double(expected.size());
        double ss = 0;
        for (const double e : expected) ss += (e - mean) * (e - mean);
        const double se =
            std::sqrt(ss / double(expected.size() - 1)) / std::sqrt(double(expected.size()));
        EXPECT_NEAR(result.mean_error, mean, 1e-15);
        EXPECT_NEAR(result.std_error, se, 1e-15);
        if (standardize) {  // raw, the scaled feature dominates the kernel
            EXPECT_LT(result.mean_error, 0.4);
        }
        for (std::size_t f = 0; f < folds.size(); ++f) {
            EXPECT_EQ(result.folds[f].n_test, Index(folds[f].test.size()));
            EXPECT_EQ(result.folds[f].n_train, Index(folds[f].train.size()));
        }
    }
}

TEST(CrossValidationSvm, Errors) {
    std::mt19937_64 rng(3);
    const zeronorm::Dataset data = zeronorm::testing::random_two_class(20, 2, rng);
    auto backend = zeronorm::make_cpu_backend();
    const zeronorm::SvmOptions options;
    EXPECT_THROW(zeronorm::cross_validate_svm(*backend, data, options, {}, false),
                 zeronorm::InvalidArgument);
    std::vector<Fold> folds = zeronorm::stratified_kfold(data.y, 2, 0);
    folds[0].test.push_back(20);
    EXPECT_THROW(zeronorm::cross_validate_svm(*backend, data, options, folds, false),
                 zeronorm::InvalidArgument);
    folds[0].test.clear();
    EXPECT_THROW(zeronorm::cross_validate_svm(*backend, data, options, folds, false),
                 zeronorm::InvalidArgument);
    zeronorm::SvmOptions bad;
    bad.smo.C = -1;
    EXPECT_THROW(zeronorm::cross_validate_svm(*backend, data, bad,
                                              zeronorm::stratified_kfold(data.y, 2, 0), false),
                 zeronorm::InvalidArgument);
}

}  // namespace
