// Randomised robustness test of the CSV and LIBSVM readers: mutated valid inputs must either
// parse into a Dataset that passes validate() or throw a zeronorm::Error (a DataFormatError
// with a sane position for malformed text) -- never another exception, never a crash.
// Seeded and time-bounded, so it is deterministic up to how many cases fit in the budget.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "zeronorm/core/error.hpp"
#include "zeronorm/io/io.hpp"

namespace {

using zeronorm::Dataset;
using zeronorm::ReadOptions;

// Inserts, flips, deletes or truncates a few times, favouring the bytes that steer the parsers.
std::string mutate(std::string s, std::mt19937_64& rng) {
    static const std::vector<std::string> pieces = {",", ":", "-", "e", "nan", "\r", "\n", " ",
                                                    "+", ".", "0", "9", "inf", "1e999", "\t",
                                                    "\"", "1:", "-1", "99999999999", "\xEF\xBB\xBF",
                                                    "#", "qid:1 ", ";", "M"};
    auto pick = [&](std::size_t n) {
        return n == 0 ? std::size_t{0} : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
    };
    const int n_mutations = std::uniform_int_distribution<int>(1, 4)(rng);
    for (int m = 0; m < n_mutations; ++m) {
        switch (std::uniform_int_distribution<int>(0, 5)(rng)) {
            case 0:  // byte flip
                if (!s.empty()) {
                    const std::size_t at = pick(s.size());
                    s[at] = static_cast<char>(s[at] ^ (1 << pick(8)));
                }
                break;
            case 1:  // random byte
                if (!s.empty()) s[pick(s.size())] = static_cast<char>(pick(256));
                break;
            case 2:
            case 3:  // insertion of a steering token
                s.insert(pick(s.size() + 1), pieces[pick(pieces.size())]);
                break;
            case 4:  // deletion of a short run
                if (!s.empty()) {
                    const std::size_t at = pick(s.size());
                    s.erase(at, 1 + pick(4));
                }
                break;
            default:  // truncation
                s.resize(pick(s.size() + 1));
                break;
        }
    }
    return s;
}

ReadOptions random_options(std::mt19937_64& rng, bool csv) {
    ReadOptions opt;
    std::uniform_int_distribution<int> coin(0, 3);
    opt.min_classes = coin(rng) == 0 ? 1 : 2;
    if (csv) {
        const int header = coin(rng);
        if (header == 0) opt.header = zeronorm::CsvHeader::absent;
        if (header == 1) opt.header = zeronorm::CsvHeader::present;
        if (header != 0 && coin(rng) == 0) opt.label_column = coin(rng) < 2 ? "label" : "a";
        if (header != 0 && coin(rng) == 0) opt.ignored_columns = {coin(rng) < 2 ? "b" : "a"};
        if (coin(rng) == 0) opt.delimiter = coin(rng) < 2 ? '\t' : ';';
        if (coin(rng) == 0) {
            opt.n_features = 1 + coin(rng);
            opt.allow_unlabelled = coin(rng) < 2;
        }
    } else {
        if (coin(rng) == 0) opt.n_features = 1 + coin(rng) * 2;
        if (coin(rng) == 0) opt.max_features = 50;
    }
    return opt;
}

struct Tally {
    long parsed = 0;
    long rejected = 0;
};

// One case: parse, and judge the outcome.
void run_case(const std::string& text, const ReadOptions& opt, bool csv, Tally& tally) {
    const std::string name = csv ? "fuzz.csv" : "fuzz.svm";
    std::istringstream in(text);
    try {
        const Dataset ds = csv ? zeronorm::parse_csv(in, name, opt)
                               : zeronorm::parse_libsvm(in, name, opt);
        EXPECT_GE(ds.n_samples(), 1);
        if (ds.y.size() == 0) {  // data to predict: only where asked for
            EXPECT_TRUE(csv && opt.allow_unlabelled);
            EXPECT_TRUE(ds.X.allFinite());
        } else {
            ds.validate();
            EXPECT_GE(ds.n_classes(), opt.min_classes);
        }
        if (opt.n_features > 0) {
            EXPECT_EQ(ds.n_features(), opt.n_features);
        }
        ++tally.parsed;
    } catch (const zeronorm::DataFormatError& e) {
        EXPECT_EQ(e.file(), name);
        EXPECT_GE(e.line(), 1u);
        EXPECT_GE(e.column(), 1u);
        EXPECT_EQ(std::string(e.what()).rfind(name + ":", 0), 0u) << e.what();
        ++tally.rejected;
    } catch (const zeronorm::Error&) {
        ++tally.rejected;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "non-zeronorm exception " << e.what() << " for input:\n" << text;
    } catch (...) {
        ADD_FAILURE() << "unknown exception for input:\n" << text;
    }
}

void fuzz(const std::vector<std::string>& seeds, bool csv, std::uint64_t seed, double seconds) {
    std::mt19937_64 rng(seed);
    Tally tally;
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(seconds));
    // The unmutated seeds must all parse.
    for (const auto& s : seeds) run_case(s, ReadOptions{}, csv, tally);
    ASSERT_EQ(tally.parsed, static_cast<long>(seeds.size()));
    constexpr long max_cases = 200'000;
    for (long k = 0; k < max_cases && !::testing::Test::HasFailure(); ++k) {
        if (k % 64 == 0 && std::chrono::steady_clock::now() > deadline) break;
        std::string text = seeds[static_cast<std::size_t>(rng() % seeds.size())];
        // Sometimes stack mutations on a previous mutant to reach deeper states.
        text = mutate(std::move(text), rng);
        if (rng() % 4 == 0) text = mutate(std::move(text), rng);
        run_case(text, random_options(rng, csv), csv, tally);
    }
    // Both outcomes must occur, or the mutations are not exercising the parser.
    EXPECT_GT(tally.parsed, static_cast<long>(seeds.size()));
    EXPECT_GT(tally.rejected, 0);
    std::cout << "[ fuzz     ] " << (csv ? "csv" : "libsvm") << ": " << tally.parsed
              << " parsed, " << tally.rejected << " rejected\n";
}

std::string head_of(const std::string& path, int n_lines) {
    std::ifstream in(path, std::ios::binary);
    std::string line;
    std::string out;
    for (int i = 0; i < n_lines && std::getline(in, line); ++i) out += line + "\n";
    return out;
}

TEST(FuzzReaders, CsvMutationsParseOrThrowZeronormError) {
    std::vector<std::string> seeds = {
        "a,b,label\n1,2,1\n3,4,-1\n",
        "a,b,label\r\n0.5,1e-3,0\r\n-2.5,4,1\r\n7,2,+8",
        "x,label\n1,1\n\n2,-1\n3,1\n",
        "p,q,r,label\n1.25,-0,3e2,2\n.5,5.,-7,4\n",
        "\"\",\"a\",\"b\",\"label\"\n\"s1\",1,2,\"x y\"\n\"s2\",3,4,\"z\"\n",
        "1,2,tumor\n3,4,normal\n",
    };
    const std::string ripley = head_of(std::string(ZERONORM_DATA_DIR) +
                                           "/ripley/ripley_train.csv", 1) +
                               "0.05100797,0.16086164,-1\n-0.40249641,0.71301084,1\n";
    seeds.push_back(ripley);
    fuzz(seeds, /*csv=*/true, 20240601, 1.0);
}

TEST(FuzzReaders, LibsvmMutationsParseOrThrowZeronormError) {
    const std::vector<std::string> seeds = {
        "1 1:0.5 3:2\n-1 2:1\n",
        "+1 1:1e-3 2:-4 5:7\r\n-1 3:0.25\r\n+1\r\n-1 1:1",
        "2 1:1\n1 2:2\n\n3 3:3 4:4\n",
        "-1 10:1 20:2 30:3\n1 1:-1\n",
    };
    fuzz(seeds, /*csv=*/false, 977, 1.0);
}

}  // namespace
