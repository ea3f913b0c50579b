// Randomised robustness test of the model loader: mutated valid model files (versions 1 and 2,
// every model kind) must either load into a ModelFile that passes validate() and writes back to
// text that loads to the same model,
// or throw a zeronorm::Error (a DataFormatError with a sane position) -- never another
// exception, never a crash, never a huge allocation from a corrupt count.
// Seeded and time-bounded (about 1.5 s).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "support/random.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/io/model_io.hpp"

namespace {

using zeronorm::Index;
using zeronorm::ModelFile;
using zeronorm::ModelKind;
using zeronorm::SvmModel;

std::string mutate(std::string s, std::mt19937_64& rng) {
    static const std::vector<std::string> pieces = {" ",
                                                    "\n",
                                                    "\r",
                                                    "\t",
                                                    "-",
                                                    "+",
                                                    ".",
                                                    "e",
                                                    "0",
                                                    "1",
                                                    "9",
                                                    "nan",
                                                    "inf",
                                                    "1e999",
                                                    "\"",
                                                    "\\",
                                                    "\\x",
                                                    "99999999999",
                                                    "2147483647",
                                                    "end\n",
                                                    "log10 1\n",
                                                    "standardize 2\n",
                                                    "labels 1\n",
                                                    "feature_names 2\n",
                                                    "n_support 1000000000\n",
                                                    "theta 3",
                                                    "kind one-vs-rest\n",
                                                    "kind weston-watkins\n",
                                                    "kind linear\n",
                                                    "n_classes 3\n",
                                                    "n_inputs 3\n",
                                                    "columns all\n",
                                                    "columns 2 0\n",
                                                    "machine 2\n",
                                                    "weights 1 2\n",
                                                    "kind polynomial\n",
                                                    "n_terms 2\n",
                                                    " 0 1 1",
                                                    "labels 3\n"};
    auto pick = [&](std::size_t n) { return n == 0 ? std::size_t{0} : std::size_t(rng() % n); };
    const int n_mutations = 1 + int(rng() % 4);
    for (int m = 0; m < n_mutations; ++m) {
        switch (rng() % 7) {
            case 0:  // bit flip
                if (!s.empty()) {
                    const std::size_t at = pick(s.size());
                    s[at] = static_cast<char>(s[at] ^ (1 << pick(8)));
                }
                break;
            case 1:  // random byte
                if (!s.empty()) s[pick(s.size())] = static_cast<char>(pick(256));
                break;
            case 2:
            case 3:  // a steering token
                s.insert(pick(s.size() + 1), pieces[pick(pieces.size())]);
                break;
            case 4:  // delete a short run
                if (!s.empty()) s.erase(pick(s.size()), 1 + pick(6));
                break;
            case 5: {  // duplicate or drop a whole line
                const std::size_t at = pick(s.size() + 1);
                const std::size_t b = s.rfind('\n', at == 0 ? 0 : at - 1);
                const std::size_t line_b = b == std::string::npos ? 0 : b + 1;
                const std::size_t e = s.find('\n', line_b);
                const std::size_t line_e = e == std::string::npos ? s.size() : e + 1;
                const std::string line = s.substr(line_b, line_e - line_b);
                if (rng() % 2)
                    s.insert(line_b, line);
                else
                    s.erase(line_b, line_e - line_b);
                break;
            }
            default:  // truncate
                s.resize(pick(s.size() + 1));
                break;
        }
    }
    return s;
}

struct Tally {
    long loaded = 0;
    long rejected = 0;
};

void run_case(const std::string& text, Tally& tally) {
    std::istringstream in(text);
    try {
        const ModelFile file = zeronorm::parse_model(in, "fuzz.model");
        file.validate();
        // What loaded must write back and load to the same thing (the same text again).
        std::ostringstream out;
        zeronorm::write_model(out, file);
        std::istringstream again(out.str());
        const ModelFile back = zeronorm::parse_model(again, "again.model");
        std::ostringstream out_again;
        zeronorm::write_model(out_again, back);
        EXPECT_EQ(out_again.str(), out.str());
        ++tally.loaded;
    } catch (const zeronorm::DataFormatError& e) {
        EXPECT_EQ(e.file(), "fuzz.model");
        EXPECT_GE(e.line(), 1u);
        EXPECT_GE(e.column(), 1u);
        EXPECT_EQ(std::string(e.what()).rfind("fuzz.model:", 0), 0u) << e.what();
        ++tally.rejected;
    } catch (const zeronorm::Error&) {
        ++tally.rejected;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "non-zeronorm exception " << e.what() << " for input:\n" << text;
    } catch (...) {
        ADD_FAILURE() << "unknown exception for input:\n" << text;
    }
}

std::vector<std::string> seed_files(std::mt19937_64& rng) {
    std::vector<std::string> seeds;
    const zeronorm::KernelType types[] = {zeronorm::KernelType::Linear, zeronorm::KernelType::Rbf,
                                          zeronorm::KernelType::WeightedRbf,
                                          zeronorm::KernelType::Polynomial};
    for (const auto type : types) {
        ModelFile f;
        f.model.kernel.type = type;
        f.model.kernel.gamma = 0.25;
        f.model.kernel.degree = 2;
        if (type == zeronorm::KernelType::WeightedRbf)
            f.model.kernel.theta = zeronorm::testing::random_matrix(2, 1, rng, 0, 1).col(0);
        f.model.support_vectors = zeronorm::testing::random_matrix(3, 2, rng);
        f.model.coef = zeronorm::testing::random_matrix(3, 1, rng).col(0);
        f.model.bias = 0.125;
        if (type != zeronorm::KernelType::Linear) {
            f.log10 = true;
            f.standardizer = zeronorm::Standardizer{zeronorm::Vector::Constant(2, 0.5),
                                                    zeronorm::Vector::Constant(2, 2.0)};
            f.feature_names = {"a", "b \"c\""};
            f.label_mapping = {{"1", -1.0}, {"2", 1.0}};
        }
        for (const int version : {1, 2}) {
            std::ostringstream out;
            zeronorm::write_model(out, f, version);
            seeds.push_back(out.str());
        }
    }
    const auto random = [&](Index rows, Index cols) {
        return zeronorm::testing::random_matrix(rows, cols, rng);
    };
    const std::map<std::string, double> three_labels = {{"a", 0.0}, {"b", 1.0}, {"c", 2.0}};
    std::vector<ModelFile> more(5);
    more[0].kind = ModelKind::OneVsRest;
    for (int k = 0; k < 3; ++k) {
        SvmModel m;
        m.kernel.type = zeronorm::KernelType::Rbf;
        m.support_vectors = random(k, 2);
        m.coef = random(k, 1).col(0);
        more[0].machines.push_back(m);
    }
    more[1].kind = ModelKind::WestonWatkins;
    more[1].ww.kernel.type = zeronorm::KernelType::Polynomial;
    more[1].ww.kernel.degree = 2;
    more[1].ww.points = random(2, 2);
    more[1].ww.coef = random(2, 3);
    more[1].ww.bias = random(3, 1).col(0);
    more[1].label_mapping = three_labels;
    more[2].kind = ModelKind::Linear;  // three classes on two of three columns
    more[2].linear.weights = random(2, 3);
    more[2].linear.bias = random(3, 1).col(0);
    more[2].columns = {2, 0};
    more[2].n_inputs = 3;
    more[2].standardizer = zeronorm::Standardizer{zeronorm::Vector::Constant(3, 0.5),
                                                  zeronorm::Vector::Constant(3, 2.0)};
    more[2].label_mapping = three_labels;
    more[3].kind = ModelKind::Linear;  // two classes
    more[3].linear.weights = random(2, 1);
    more[3].linear.bias = random(1, 1).col(0);
    more[3].method = {"l1-svm", {{"C", "1"}}};
    more[4].kind = ModelKind::Polynomial;  // x_0 x_1 and x_1^2 of columns 1, 2 of 3
    more[4].polynomial = {2, {{0, 1}, {1, 1}}, random(2, 1).col(0), 0.25};
    more[4].columns = {1, 2};
    more[4].n_inputs = 3;
    for (const ModelFile& f : more) {
        std::ostringstream out;
        zeronorm::write_model(out, f);
        seeds.push_back(out.str());
    }
    return seeds;
}

TEST(FuzzModelLoader, MutationsLoadOrThrowZeronormError) {
    ZN_SEED_TRACE();
    const std::uint64_t seed = zeronorm::testing::test_seed();
    std::mt19937_64 rng(seed);
    const std::vector<std::string> seeds = seed_files(rng);
    Tally tally;
    for (const auto& s : seeds) run_case(s, tally);
    ASSERT_EQ(tally.loaded, long(seeds.size()));

    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
    constexpr long max_cases = 300'000;
    for (long k = 0; k < max_cases && !::testing::Test::HasFailure(); ++k) {
        if (k % 64 == 0 && std::chrono::steady_clock::now() > deadline) break;
        std::string text = seeds[std::size_t(rng() % seeds.size())];
        text = mutate(std::move(text), rng);
        if (rng() % 4 == 0) text = mutate(std::move(text), rng);
        run_case(text, tally);
    }
    EXPECT_GT(tally.loaded, long(seeds.size()));
    EXPECT_GT(tally.rejected, 0);
    std::cout << "[ fuzz     ] model loader: " << tally.loaded << " loaded, " << tally.rejected
              << " rejected\n";
}

}  // namespace
