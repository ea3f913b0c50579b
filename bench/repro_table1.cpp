// Reproduces Table 1 of Weston, Elisseeff, Schoelkopf & Tipping, "Use of the Zero-Norm with
// Linear Models and Kernel Methods", JMLR 3:1439-1461, 2003 (sec. 4.5, "Linear problem"):
// 100 features of which 6 are relevant (with redundancy), 2 features selected, training sets of
// 10, 20 and 30 points, 500 test points, 100 trials; test error mean +- standard error and, in
// brackets, the number of trials that chose two relevant non-redundant features.
//
// Methods: SVM on all features, CORR SVM, RFE SVM, l2-AROM SVM, l1-AROM SVM, and by name any other
// registered ranker (--methods ...,r2w2: R2W2 with the linear kernel, the same C and ridge as RFE,
// one feature removed per round, R^2 exact or by the variance, --r2w2-radius).
// --methods ...,fsv: FSV (Problem 2) by the library's DCA of vertex LPs (train_fsv, alpha = 5,
// the mean hinge weighted 1 - lambda for the paper's hard margin, --fsv-lambda, default 1e-3),
// with the paper's rule for exactly r features: the last DCA iterate before |w|_0 <= r, its r
// largest |w_j| (the first iterate when it already has <= r).
// l1-AROM solves the hard-margin LP of Problem 7 inside (C = inf; the ridge
// is a kernel-diagonal term and does not enter the LP). Every final classifier is a linear SVM
// with C = infinity (sec. 4.5: "the so-called soft margin parameter C, which we left fixed to
// C = infinity"); where the selected
// features do not separate the training set a hard margin has no solution, so a ridge lambda is
// added to the kernel diagonal (sec. 3.2; --ridge, --final-ridge), by default 1e-4: on separable
// data this is the hard margin to within 1e-4, on inseparable data it approaches the limit
// lambda -> 0 of the 2-norm soft margin (results do not move for lambda in 1e-6..1e-2, nor with
// lambda = 0 inside AROM; see bench/REPRODUCTION.md). Smaller values only slow SMO down.
//
// Usage: repro_table1 [--trials 100] [--test 500] [--sizes 10,20,30] [--seed 1]
//                     [--ridge 1e-4] [--final-ridge 1e-4] [--scale train|pooled]
//                     [--methods svm,corr,rfe,l2-arom,l1-arom] [--csv out.csv] [--balanced]
//                     [--time] [--r2w2-radius exact|variance] [--fsv-lambda 1e-3]
// --scale train standardises with the training set's mean and sd (applied to the test set too);
// pooled with those of training and test set together. --balanced draws training sets with n/2
// points per class instead of labels at random. --time also prints, on stderr, each method's total
// seconds over all trials and sizes (selection, final SVM and test predictions; not the data
// generation or standardisation) and the wall time of the whole trial loop.
// Output: a Markdown table on stdout (and per-trial rows in the CSV file when asked).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench_util.hpp"
#include "support/weston2003_linear_problem.hpp"
#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/preprocess.hpp"
#include "zeronorm/methods/dc_svm.hpp"
#include "zeronorm/methods/selection.hpp"
#include "zeronorm/solvers/svm.hpp"

namespace zn = zeronorm;

namespace {

struct Config {
    int trials = 100;
    zn::Index test_size = 500;
    std::vector<zn::Index> sizes{10, 20, 30};
    std::uint64_t seed = 1;
    double ridge = 1e-4;        // inner SVMs of RFE and AROM
    double final_ridge = 1e-4;  // final classifiers (and the all-feature SVM)
    std::string scale = "train";
    std::vector<std::string> methods{"svm", "corr", "rfe", "l2-arom", "l1-arom"};
    std::string csv;
    bool balanced = false;  // training sets with n/2 points of each class
    bool time = false;      // totals in seconds on stderr
    std::string r2w2_radius = "exact";
    double fsv_lambda = 1e-3;
};

Config parse(int argc, char** argv) {
    Config c;
    CLI::App app{"Weston et al. 2003, Table 1 (see the header of repro_table1.cpp)"};
    app.add_option("--trials", c.trials, "Trials per training-set size")->capture_default_str();
    app.add_option("--test", c.test_size, "Test points per trial")->capture_default_str();
    app.add_option("--sizes", c.sizes, "Training-set sizes")->delimiter(',')->capture_default_str();
    app.add_option("--seed", c.seed, "Random seed")->capture_default_str();
    app.add_option("--ridge", c.ridge, "Ridge of the inner SVMs of RFE and AROM")
        ->capture_default_str();
    app.add_option("--final-ridge", c.final_ridge, "Ridge of the final classifiers")
        ->capture_default_str();
    app.add_option("--scale", c.scale, "Standardise on the training set or the pooled sets")
        ->check(CLI::IsMember({"train", "pooled"}))
        ->capture_default_str();
    app.add_option("--methods", c.methods, "Methods")->delimiter(',')->capture_default_str();
    app.add_option("--csv", c.csv, "Per-trial rows to this file");
    app.add_flag("--balanced", c.balanced, "Training sets with n/2 points of each class");
    app.add_flag("--time", c.time, "Totals in seconds on stderr");
    app.add_option("--r2w2-radius", c.r2w2_radius, "R^2 of r2w2: exact or variance")
        ->check(CLI::IsMember({"exact", "variance"}))
        ->capture_default_str();
    app.add_option("--fsv-lambda", c.fsv_lambda, "Weight lambda of FSV's feature penalty")
        ->capture_default_str();
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        std::exit(app.exit(e));
    }
    return c;
}

// A training set with both classes present (the paper does not say how it treats a draw with one
// class; such a draw cannot train an SVM, so it is redrawn).
zn::Dataset draw_training(zn::Index n, bool balanced, std::mt19937_64& rng) {
    for (;;) {
        zn::Dataset d = zn::weston2003::linear_problem(n, rng);
        const zn::Index positives = (d.y.array() > 0).count();
        if (balanced ? positives == n / 2 : positives > 0 && positives < n) return d;
    }
}

// FSV's r features by Weston et al.'s rule (sec. 4.5): "stop at the last iteration before the
// constraint |w|_0 <= r is satisfied and choose the r largest elements of w". The DCA is
// deterministic, so iterate k is a rerun capped at k steps.
zn::IndexVector fsv_features(const zn::Dataset& train, zn::Index r, double lambda) {
    zn::DcOptions o;
    o.lambda = lambda;
    const zn::DcResult full = zn::train_fsv(train.X, train.y, o);
    std::int64_t k = full.iterations;  // no iterate reaches <= r: the last one
    for (std::size_t t = 0; t < full.trace.size(); ++t)
        if (full.trace[t].nonzeros <= r) {
            k = std::max<std::int64_t>(1, std::int64_t(t));
            break;
        }
    zn::DcResult chosen = full;
    if (k != full.iterations) {
        o.max_iterations = k;
        chosen = zn::train_fsv(train.X, train.y, o);
    }
    zn::IndexVector support = zn::ranked_support(chosen.w, o.support_threshold);
    if (zn::Index(support.size()) > r) support.resize(std::size_t(r));
    return support;
}

// A linear SVM with C = inf and the ridge on the columns `selected` of train; its test error.
double subset_svm_error(zn::Backend& backend, const zn::Dataset& train, const zn::Dataset& test,
                        const zn::IndexVector& selected, double ridge) {
    const auto columns = [&](const zn::Matrix& X) {
        zn::Matrix out(X.rows(), zn::Index(selected.size()));
        for (std::size_t k = 0; k < selected.size(); ++k) out.col(zn::Index(k)) = X.col(selected[k]);
        return out;
    };
    zn::Dataset sub;
    sub.X = columns(train.X);
    sub.y = train.y;
    zn::SvmOptions svm;
    svm.smo.ridge = ridge;
    svm.smo.C = std::numeric_limits<double>::infinity();
    const auto trained = zn::train_svm(backend, sub, svm);
    return zn::error_rate(trained.model.predict(backend, columns(test.X)), test.y);
}

struct Tally {
    std::vector<double> errors;
    int hits = 0;
    double seconds = 0;
};

}  // namespace

int main(int argc, char** argv) try {
    const Config cfg = parse(argc, argv);
    auto backend = zn::make_cpu_backend();
    std::ofstream csv;
    if (!cfg.csv.empty()) {
        csv.open(cfg.csv);
        csv << "size,trial,method,test_error,selected,relevant_non_redundant,seconds\n";
    }
    std::map<std::pair<std::string, zn::Index>, Tally> tallies;
    const auto loop_start = std::chrono::steady_clock::now();

    for (zn::Index n : cfg.sizes) {
        std::mt19937_64 rng(cfg.seed * 1000003ULL + std::uint64_t(n));
        for (int trial = 0; trial < cfg.trials; ++trial) {
            zn::Dataset train = draw_training(n, cfg.balanced, rng);
            zn::Dataset test = zn::weston2003::linear_problem(cfg.test_size, rng);
            // "The inputs are then scaled to have mean zero and standard deviation one."
            zn::Matrix pooled(train.X.rows() + test.X.rows(), train.X.cols());
            pooled << train.X, test.X;
            const zn::Standardizer scaler =
                zn::Standardizer::fit(cfg.scale == "train" ? train.X : pooled);
            train.X = scaler.transform(train.X);
            test.X = scaler.transform(test.X);

            for (const std::string& method : cfg.methods) {
                const auto start = std::chrono::steady_clock::now();
                zn::IndexVector selected;
                double error = 0;
                if (method == "svm") {
                    zn::SvmOptions svm;
                    svm.smo.ridge = cfg.final_ridge;
                    // n <= 30 < 100 features: separable, so the bound is never reached.
                    svm.smo.C = cfg.final_ridge > 0 ? std::numeric_limits<double>::infinity() : 1e8;
                    const auto trained = zn::train_svm(*backend, train, svm);
                    error = zn::error_rate(trained.model.predict(*backend, test.X), test.y);
                } else if (method == "fsv") {
                    selected = fsv_features(train, 2, cfg.fsv_lambda);
                    error = subset_svm_error(*backend, train, test, selected, cfg.final_ridge);
                } else {
                    zn::SelectionOptions opt;
                    opt.method = method;
                    opt.feature_counts = {2};
                    opt.C = std::numeric_limits<double>::infinity();
                    opt.ridge = cfg.ridge;
                    opt.final_C = std::numeric_limits<double>::infinity();
                    opt.final_ridge = cfg.final_ridge;
                    opt.set_parameter("r2w2.radius", cfg.r2w2_radius);
                    const zn::SelectionResult result = zn::select_features(*backend, train, opt);
                    const zn::FeatureSubset& s = result.subsets[0];
                    selected = s.selected;
                    zn::Matrix Xt(test.X.rows(), zn::Index(selected.size()));
                    for (std::size_t k = 0; k < selected.size(); ++k)
                        Xt.col(zn::Index(k)) = test.X.col(selected[k]);
                    error = zn::error_rate(s.classifiers[0].predict(*backend, Xt), test.y);
                }
                const double secs =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                Tally& t = tallies[{method, n}];
                t.errors.push_back(error);
                const bool hit = zn::weston2003::relevant_non_redundant(selected);
                t.hits += hit;
                t.seconds += secs;
                if (csv) {
                    csv << n << ',' << trial << ',' << method << ',' << error << ",\"";
                    for (std::size_t k = 0; k < selected.size(); ++k)
                        csv << (k ? " " : "") << selected[k] + 1;  // 1-based like the paper
                    csv << "\"," << hit << ',' << secs << '\n';
                }
            }
        }
    }

    const double loop_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - loop_start).count();
    if (cfg.time) {
        for (const std::string& method : cfg.methods) {
            double total = 0;
            for (zn::Index n : cfg.sizes) total += tallies[{method, n}].seconds;
            std::fprintf(stderr, "time: %s %.4f s over %d trials x %zu sizes\n", method.c_str(),
                         total, cfg.trials, cfg.sizes.size());
        }
        std::fprintf(stderr, "time: trial loop %.4f s (data generation and scaling included)\n",
                     loop_seconds);
    }

    std::cout << "| method |";
    for (zn::Index n : cfg.sizes) std::cout << ' ' << n << " points |";
    std::cout << "\n|---|";
    for (std::size_t k = 0; k < cfg.sizes.size(); ++k) std::cout << "---|";
    std::cout << '\n';
    for (const std::string& method : cfg.methods) {
        std::cout << "| " << method << " |";
        for (zn::Index n : cfg.sizes) {
            const Tally& t = tallies[{method, n}];
            const double m = double(t.errors.size());
            double mean = 0, sq = 0;
            for (double e : t.errors) mean += e;
            mean /= m;
            for (double e : t.errors) sq += (e - mean) * (e - mean);
            const double se = m > 1 ? std::sqrt(sq / (m - 1)) / std::sqrt(m) : 0.0;
            char cell[96];
            std::snprintf(cell, sizeof cell, " %.1f%% ± %.2f%% (%d) [%.3f s] |", 100 * mean,
                          100 * se, t.hits, t.seconds / m);
            std::cout << cell;
        }
        std::cout << '\n';
    }
    std::cout << "\ntrials " << cfg.trials << ", test " << cfg.test_size << ", seed " << cfg.seed
              << ", ridge " << cfg.ridge << ", final_ridge " << cfg.final_ridge << ", scale "
              << cfg.scale << (cfg.balanced ? ", balanced classes" : ", labels at random")
              << ", fsv_lambda " << cfg.fsv_lambda
              << "; cells: mean test error ± standard error (trials choosing two "
              << "relevant non-redundant features) [mean seconds per trial]\n";
    return 0;
} catch (const std::exception& e) {
    std::cerr << "repro_table1: " << e.what() << '\n';
    return 1;
}
