// Reproduction of Huang, Zheng, King & Lyu, "Arbitrary norm support vector machines" (Neural
// Computation, accepted 2008), Tables 1 and 2: Ripley's synthetic data.
//
// Protocol (Huang et al. 2008 §4.1): 20 random 100-point subsets of Ripley's 250 training points; test on the
// 1000 test points; Gaussian kernel of width 0.5 as in Tipping's RVM experiment,
// k(x, x') = exp(-|x - x'|^2 / r^2), r = 0.5, i.e. gamma = 1 / r^2 = 4; L0-norm SVM with
// C_xi = 1, C_alpha = 0.2 (and epsilon = 1e-4, T_max = 100 from §3.4.3). The L2-norm SVM's C is
// not given in the paper; we use C = 1 (= C_xi). Table 2 flips the labels of 5/10/15% of each
// training subset. Reported: training time, number of SVs (expansion terms), test error, as
// mean +- standard error over the runs, beside the paper's numbers.
//
// Usage: repro_huang2008 [--data-dir DIR] [--runs N] [--seed S] [--backend cpu|cuda]
//                        [--csv FILE] [--subsets FILE]
//        repro_huang2008 --speed [--reps R] [--twonorm-n N] [--data-dir DIR] [--backend cpu|cuda]
// --subsets writes the training subsets of Tables 1 and 2, one line per noise level and run:
// `noise;rows;flipped`, the 0-based rows of ripley_train.csv and those of them whose labels were
// flipped, comma-separated (flipped empty at noise 0), so that a peer (bench/peers/rvm_peer.py)
// trains on exactly the same subsets and labels.
// --speed times training only (no tables): per-fit seconds of the L0-norm SVM (exact, paper
// settings: C_xi = 1, C_alpha = 0.2) and of train_svm (C = 1) on the same data, median and
// minimum over R repetitions (default 5), wall clock and process CPU time (run with
// OPENBLAS_NUM_THREADS=1 for single-core numbers): the 20 Table 1 subsets (gamma = 2), all 250
// Ripley training points (gamma = 2), pima (768 x 8, standardised, gamma = 1/8) and, when
// --twonorm-n N > 0, a Twonorm-like synthetic set (Breiman: N(+-a 1, I) in 20 dimensions,
// a = 2/sqrt(20), gamma = 1/80). It also prints outer steps, SMO iterations and terms, so runs of
// two builds can be checked for the same results.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench_util.hpp"
#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/preprocess.hpp"
#include "zeronorm/io/io.hpp"
#include "zeronorm/methods/sparse_svm.hpp"
#include "zeronorm/solvers/svm.hpp"

#ifndef ZERONORM_DATA_DIR
#define ZERONORM_DATA_DIR "data"
#endif

namespace {

using namespace zeronorm;
using namespace zeronorm::bench;

struct MethodStats {
    std::string name;
    Stats seconds, terms, error_percent, iterations;
    int not_converged = 0;
};

struct PaperRow {
    double seconds;  // < 0: not reported
    double terms;
    double error_percent;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Draws the Table 1 subsets exactly as the tables below do for noise level 0 (same RNG calls).
std::vector<Dataset> table1_subsets(const Dataset& train, int runs, std::uint64_t seed,
                                    Index subset_size) {
    std::mt19937_64 rng(seed);
    std::vector<Dataset> out;
    for (int run = 0; run < runs; ++run) {
        IndexVector order(static_cast<std::size_t>(train.n_samples()));
        std::iota(order.begin(), order.end(), Index(0));
        for (;;) {
            std::shuffle(order.begin(), order.end(), rng);
            Dataset subset = train.subset(IndexVector(order.begin(), order.begin() + subset_size));
            IndexVector rows(static_cast<std::size_t>(subset_size));
            std::iota(rows.begin(), rows.end(), Index(0));
            std::shuffle(rows.begin(), rows.end(), rng);  // the label-flip draw (none at noise 0)
            if (subset.is_binary()) {
                out.push_back(std::move(subset));
                break;
            }
        }
    }
    return out;
}

// Twonorm (Breiman 1996): two Gaussians N(+-a 1, I) in d = 20 dimensions, a = 2 / sqrt(20).
Dataset twonorm_like(Index n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    const Index d = 20;
    const double a = 2.0 / std::sqrt(double(d));
    Dataset data;
    data.X.resize(n, d);
    data.y.resize(n);
    for (Index i = 0; i < n; ++i) {
        data.y[i] = i % 2 == 0 ? -1.0 : 1.0;
        for (Index j = 0; j < d; ++j) data.X(i, j) = normal(rng) + data.y[i] * a;
    }
    return data;
}

// --speed: per-fit training time of L0 (paper settings) and L2 (train_svm, C = 1) per data set.
int run_speed(Backend& backend, const std::string& data_dir, int reps, Index twonorm_n,
              std::uint64_t seed) {
    struct SpeedSet {
        std::string name;
        std::vector<Dataset> fits;
        double gamma;
    };
    std::vector<SpeedSet> sets;
    const Dataset ripley = read_csv(data_dir + "/ripley/ripley_train.csv");
    sets.push_back({"ripley, Table 1 subsets (20 x 100)", table1_subsets(ripley, 20, seed, 100),
                    2.0});
    sets.push_back({"ripley, all 250", {ripley}, 2.0});
    Dataset pima = read_csv(data_dir + "/pima/pima.csv");
    pima.X = Standardizer::fit(pima.X).transform(pima.X);
    sets.push_back({"pima (standardised)", {pima}, 1.0 / 8.0});
    if (twonorm_n > 0)
        sets.push_back({"twonorm-like", {twonorm_like(twonorm_n, seed)}, 1.0 / 80.0});

    std::cout << "# L0- vs L2-norm SVM training time per fit, backend " << backend.description()
              << ", median (min) of " << reps << " repetitions\n\n"
              << "| data | n | method | wall s | CPU s | outer steps | SMO iterations | terms |\n"
                 "|---|---|---|---|---|---|---|---|\n";
    for (const SpeedSet& set : sets) {
        double l0_wall = 0.0, l2_wall = 0.0;
        for (const bool sparse : {true, false}) {
            std::vector<double> wall, cpu;
            double steps = 0.0, smo_iterations = 0.0, terms = 0.0;
            for (int rep = 0; rep < reps; ++rep) {
                double w = 0.0, c = 0.0;
                steps = smo_iterations = terms = 0.0;
                for (const Dataset& fit : set.fits) {
                    const auto t0 = std::chrono::steady_clock::now();
                    const std::clock_t c0 = std::clock();
                    if (sparse) {
                        SparseSvmOptions o;
                        o.kernel.type = KernelType::Rbf;
                        o.kernel.gamma = set.gamma;
                        const SparseSvmResult r = train_sparse_svm(backend, fit, o);
                        c += double(std::clock() - c0) / CLOCKS_PER_SEC;
                        w += seconds_since(t0);
                        steps += r.iterations;
                        for (const SparseSvmIteration& it : r.trace)
                            smo_iterations += double(it.smo_iterations);
                        terms += double(r.model.n_terms());
                    } else {
                        SvmOptions o;
                        o.kernel.type = KernelType::Rbf;
                        o.kernel.gamma = set.gamma;
                        o.smo.C = 1.0;
                        const SvmTrainResult r = train_svm(backend, fit, o);
                        c += double(std::clock() - c0) / CLOCKS_PER_SEC;
                        w += seconds_since(t0);
                        steps += 1.0;
                        smo_iterations += double(r.smo.iterations);
                        terms += double(r.model.n_support());
                    }
                }
                const double fits = double(set.fits.size());
                wall.push_back(w / fits);
                cpu.push_back(c / fits);
                steps /= fits;
                smo_iterations /= fits;
                terms /= fits;
            }
            std::sort(wall.begin(), wall.end());
            std::sort(cpu.begin(), cpu.end());
            const std::size_t mid = wall.size() / 2;
            (sparse ? l0_wall : l2_wall) = wall[mid];
            std::cout << "| " << set.name << " | " << set.fits.front().n_samples() << " | "
                      << (sparse ? "L0 (exact)" : "L2 (train_svm)") << " | " << fmt(wall[mid], 5)
                      << " (" << fmt(wall.front(), 5) << ") | " << fmt(cpu[mid], 5) << " ("
                      << fmt(cpu.front(), 5) << ") | " << fmt(steps, 2) << " | "
                      << fmt(smo_iterations, 1) << " | " << fmt(terms, 2) << " |\n";
        }
        std::cout << "| " << set.name << " | | L0 / L2 (wall) | " << fmt(l0_wall / l2_wall, 1)
                  << "x | | | | |\n";
        std::cout.flush();
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::string data_dir = ZERONORM_DATA_DIR;
    std::string backend_name = "cpu";
    std::string csv_path;
    std::string subsets_path;
    bool speed = false;
    int reps = 5;
    Index twonorm_n = 0;
    int runs = 20;
    std::uint64_t seed = 2008;
    CLI::App app{"Huang et al. 2008: Tables 1-2 on Ripley (default) or the speed runs (--speed)"};
    app.add_option("--data-dir", data_dir, "Directory of the data sets")->capture_default_str();
    app.add_option("--runs", runs, "Random subsets per size (Tables 1-2)")->capture_default_str();
    app.add_option("--seed", seed, "Random seed")->capture_default_str();
    app.add_option("--backend", backend_name, "cpu or cuda")
        ->check(CLI::IsMember({"cpu", "cuda"}))
        ->capture_default_str();
    app.add_option("--csv", csv_path, "Per-run rows to this file");
    app.add_option("--subsets", subsets_path, "Per-subset rows to this file");
    app.add_flag("--speed", speed, "Time the L0 and L2 SVMs instead");
    app.add_option("--reps", reps, "Repetitions of each timed fit (--speed)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--twonorm-n", twonorm_n, "Also time a Twonorm-sized problem of n points (--speed)");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }

    try {
        auto backend = make_backend(parse_backend_kind(backend_name));
        if (speed) return run_speed(*backend, data_dir, reps, twonorm_n, seed);
        const Dataset train = read_csv(data_dir + "/ripley/ripley_train.csv");
        const Dataset test = read_csv(data_dir + "/ripley/ripley_test.csv");

        KernelSpec rbf;
        rbf.type = KernelType::Rbf;
        rbf.gamma = 1.0 / (0.5 * 0.5);  // width r = 0.5: exp(-|x-x'|^2 / r^2)

        // First reading (Tipping's form): gamma = 1 / r^2 = 4. Sensitivity rows: gamma = 1 / (2 r^2) = 2
        // (width read as sigma in exp(-|x-x'|^2 / (2 sigma^2))), and C_alpha = 0.4 (3.5 read
        // literally: 1/2 w'w + C_alpha alpha'Lambda alpha gives K + 2 C_alpha Lambda in 3.7).
        KernelSpec rbf_sigma = rbf;
        rbf_sigma.gamma = 1.0 / (2.0 * 0.5 * 0.5);

        struct Config {
            std::string name, tag;
            bool sparse;
            SvmOptions l2;
            SparseSvmOptions l0;
            bool paper_row;
        };
        std::vector<Config> configs;
        {
            SvmOptions l2;
            l2.kernel = rbf;
            l2.smo.C = 1.0;
            SparseSvmOptions l0;  // paper defaults: p = 0, C_xi = 1, C_alpha = 0.2, epsilon = 1e-4
            l0.kernel = rbf;
            configs.push_back({"L2-norm SVM (train_svm, C = 1)", "l2", false, l2, l0, true});
            configs.push_back({"L0-norm SVM (exact K_(t))", "l0", true, l2, l0, true});
            SparseSvmOptions diag = l0;
            diag.variant = SparseSvmVariant::Diagonal;
            configs.push_back(
                {"L0-norm SVM, diagonal K_(t) (§3.4.3)", "l0_diagonal", true, l2, diag, false});
            SparseSvmOptions l1 = l0;
            l1.p = 1.0;
            configs.push_back({"L1-norm SVM (p = 1, exact)", "l1", true, l2, l1, false});
            SvmOptions l2_sigma = l2;
            l2_sigma.kernel = rbf_sigma;
            SparseSvmOptions l0_sigma = l0;
            l0_sigma.kernel = rbf_sigma;
            configs.push_back({"L2-norm SVM, gamma = 2", "l2_gamma2", false, l2_sigma, l0, true});
            configs.push_back({"L0-norm SVM, gamma = 2", "l0_gamma2", true, l2, l0_sigma, true});
            SparseSvmOptions l0_double = l0;
            l0_double.C_alpha = 0.4;
            configs.push_back(
                {"L0-norm SVM, C_alpha = 0.4", "l0_calpha04", true, l2, l0_double, true});
        }

        std::ofstream csv;
        if (!csv_path.empty()) {
            csv.open(csv_path);
            csv << "noise,run,method,seconds,terms,test_error,iterations,status\n";
        }
        std::ofstream subsets_out;
        if (!subsets_path.empty()) {
            subsets_out.open(subsets_path);
            if (!subsets_out) throw InvalidArgument("cannot write '" + subsets_path + "'");
        }

        std::cout << "# Huang et al. 2008 (Huang et al. 2008) Tables 1-2 on Ripley, " << runs
                  << " runs, seed " << seed << ", backend " << backend->description() << "\n\n";

        const double noise_levels[] = {0.0, 0.05, 0.10, 0.15};
        // Paper: Table 1 (noise 0) and Table 2; L2-norm SVM then L0-norm SVM.
        const PaperRow paper_l2[] = {
            {0.0098, 49.8, 9.65}, {-1, 55.5, 9.53}, {-1, 61.5, 10.59}, {-1, 67.4, 10.90}};
        const PaperRow paper_l0[] = {
            {0.0972, 4.15, 9.36}, {-1, 4.20, 9.46}, {-1, 4.20, 9.58}, {-1, 4.10, 10.11}};
        const Index subset_size = 100;

        for (int level = 0; level < 4; ++level) {
            const double noise = noise_levels[level];
            std::mt19937_64 rng(seed + std::uint64_t(level) * 1000003ULL);
            std::vector<MethodStats> stats(configs.size());
            for (std::size_t c = 0; c < configs.size(); ++c) stats[c].name = configs[c].name;
            for (int run = 0; run < runs; ++run) {
                IndexVector order(static_cast<std::size_t>(train.n_samples()));
                std::iota(order.begin(), order.end(), Index(0));
                Dataset subset;
                IndexVector rows(static_cast<std::size_t>(subset_size));
                const Index flips = Index(std::lround(noise * double(subset_size)));
                for (;;) {  // redraw in the (unlikely) case a subset holds one class only
                    std::shuffle(order.begin(), order.end(), rng);
                    subset = train.subset(IndexVector(order.begin(), order.begin() + subset_size));
                    std::iota(rows.begin(), rows.end(), Index(0));
                    std::shuffle(rows.begin(), rows.end(), rng);
                    for (Index k = 0; k < flips; ++k) subset.y[rows[std::size_t(k)]] *= -1.0;
                    if (subset.is_binary()) break;
                }
                if (subsets_out) {
                    subsets_out << noise << ";";
                    for (Index k = 0; k < subset_size; ++k)
                        subsets_out << (k ? "," : "") << order[std::size_t(k)];
                    subsets_out << ";";
                    for (Index k = 0; k < flips; ++k)
                        subsets_out << (k ? "," : "") << order[std::size_t(rows[std::size_t(k)])];
                    subsets_out << "\n";
                }

                for (std::size_t c = 0; c < configs.size(); ++c) {
                    const Config& config = configs[c];
                    MethodStats& st = stats[c];
                    const auto t0 = std::chrono::steady_clock::now();
                    double err = 0.0, terms = 0.0, iterations = 0.0;
                    Status status = Status::Success;
                    if (config.sparse) {
                        const SparseSvmResult r = train_sparse_svm(*backend, subset, config.l0);
                        st.seconds.values.push_back(seconds_since(t0));
                        err = 100.0 * error_rate(r.model.predict(*backend, test.X), test.y);
                        terms = double(r.model.n_terms());
                        iterations = double(r.iterations);
                        status = r.status;
                    } else {
                        const SvmTrainResult r = train_svm(*backend, subset, config.l2);
                        st.seconds.values.push_back(seconds_since(t0));
                        err = 100.0 * error_rate(r.model.predict(*backend, test.X), test.y);
                        terms = double(r.model.n_support());
                        iterations = double(r.smo.iterations);
                        status = r.smo.status;
                    }
                    st.terms.values.push_back(terms);
                    st.error_percent.values.push_back(err);
                    st.iterations.values.push_back(iterations);
                    if (status != Status::Success) ++st.not_converged;
                    if (csv)
                        csv << noise << "," << run << "," << config.tag << ","
                            << st.seconds.values.back() << "," << terms << "," << err / 100 << ","
                            << iterations << "," << to_string(status) << "\n";
                }
            }

            if (level == 0)
                std::cout << "## Table 1: Ripley, 100-point training subsets, 1000 test points\n\n";
            else
                std::cout << "## Table 2: " << int(std::lround(noise * 100))
                          << "% of the training labels flipped\n\n";
            std::cout
                << "| method | train time (s) | SVs / terms | paper | gap (SE) | test error (%) "
                   "| paper | gap (SE) | iterations (outer; SMO for L2) | not converged |\n"
                   "|---|---|---|---|---|---|---|---|---|---|\n";
            for (std::size_t c = 0; c < configs.size(); ++c) {
                const MethodStats& st = stats[c];
                const PaperRow* paper =
                    configs[c].paper_row ? (configs[c].sparse ? &paper_l0[level] : &paper_l2[level])
                                         : nullptr;
                std::cout << "| " << st.name << " | " << mean_se(st.seconds, 4) << " | "
                          << mean_se(st.terms, 2) << " | "
                          << (paper ? fmt(paper->terms, 2) : std::string("–")) << " | "
                          << (paper ? gap(st.terms, paper->terms) : std::string("–")) << " | "
                          << mean_se(st.error_percent, 2) << " | "
                          << (paper ? fmt(paper->error_percent, 2) : std::string("–")) << " | "
                          << (paper ? gap(st.error_percent, paper->error_percent)
                                    : std::string("–"))
                          << " | " << fmt(st.iterations.mean(), 1) << " | " << st.not_converged
                          << " |\n";
            }
            if (level == 0)
                std::cout << "\nPaper training times (3 GHz PC, 2008): L2 " << paper_l2[0].seconds
                          << " s, L0 " << paper_l0[0].seconds << " s.\n";
            std::cout << "\n";
        }
    } catch (const Error& e) {
        std::cerr << "repro_huang2008: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
