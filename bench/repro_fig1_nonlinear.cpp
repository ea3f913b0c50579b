// Test error against the number of training points on the nonlinear problem of Weston et al.
// 2000 ("Feature Selection for SVMs", sec. 4; 2 relevant features of 52, four Gaussian clusters
// in (x1, x2), tests/support/weston2000_nonlinear_problem.hpp), the nonlinear counterpart of
// bench/repro_fig1 (Weston et al. 2003, Fig. 1): nonlinear RFE with a Gaussian kernel (rfe-rbf;
// Lal et al. 2006, Algorithm 2) and R2W2 with a Gaussian kernel (r2w2, --kernel rbf; Weston et
// al. 2003, sec. 4.4), each selecting 2 features and followed by a Gaussian SVM on them, against
// the Gaussian SVM on all 52 features.
//
// Readings where the paper is silent: features standardised on each training set; every SVM
// soft margin with C = 10 (the clusters overlap a little); gamma = 1/d of the data it sees
// (1/52 for the SVM on all features and inside the selection, whose gamma stays fixed while
// features are removed; 1/2 for the final SVM on the 2 selected features); one feature removed
// per round; 500 test points per trial. A training set with one class is redrawn.
//
// Usage: repro_fig1_nonlinear [--trials 10] [--test 500] [--sizes 10,20,30,50,75,100] [--seed 1]
//                             [--methods svm,rfe-rbf,r2w2] [--C 10]
// Output (stdout): CSV  n,trial,method,error,selected,seconds  (selected: 1-based, space-separated)
#include <chrono>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench_util.hpp"
#include "support/weston2000_nonlinear_problem.hpp"
#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/preprocess.hpp"
#include "zeronorm/methods/selection.hpp"
#include "zeronorm/solvers/svm.hpp"

namespace zn = zeronorm;

namespace {

zn::Matrix columns(const zn::Matrix& X, const zn::IndexVector& selected) {
    zn::Matrix out(X.rows(), zn::Index(selected.size()));
    for (std::size_t k = 0; k < selected.size(); ++k) out.col(zn::Index(k)) = X.col(selected[k]);
    return out;
}

// The Gaussian SVM with gamma = 1/d on (train, test) restricted to `selected` (all if empty).
double gaussian_svm_error(zn::Backend& backend, const zn::Dataset& train, const zn::Dataset& test,
                          const zn::IndexVector& selected, double C) {
    zn::Dataset part = train;
    zn::Matrix X_test = test.X;
    if (!selected.empty()) {
        part.X = columns(train.X, selected);
        X_test = columns(test.X, selected);
    }
    zn::SvmOptions svm;
    svm.kernel.type = zn::KernelType::Rbf;
    svm.kernel.gamma = 1.0 / double(part.X.cols());
    svm.smo.C = C;
    const auto trained = zn::train_svm(backend, part, svm);
    return zn::error_rate(trained.model.predict(backend, X_test), test.y);
}

}  // namespace

int main(int argc, char** argv) {
    int trials = 10;
    zn::Index test_size = 500;
    std::string sizes_text = "10,20,30,50,75,100";
    std::string methods_text = "svm,rfe-rbf,r2w2";
    std::uint64_t seed = 1;
    double C = 10.0;
    CLI::App app{"Weston et al. 2000 nonlinear problem: rfe-rbf, r2w2 (rbf), Gaussian SVM"};
    app.add_option("--trials", trials, "Trials per training-set size")->capture_default_str();
    app.add_option("--test", test_size, "Test points per trial")->capture_default_str();
    app.add_option("--sizes", sizes_text, "Training-set sizes")->capture_default_str();
    app.add_option("--methods", methods_text, "svm, rfe-rbf, r2w2")->capture_default_str();
    app.add_option("--seed", seed, "Seed")->capture_default_str();
    app.add_option("--C", C, "C of every SVM")->capture_default_str();
    CLI11_PARSE(app, argc, argv);
    const std::vector<std::string> methods = zn::bench::split_list(methods_text);

    auto backend = zn::make_backend(zn::BackendKind::Cpu);
    std::cout << "n,trial,method,error,selected,seconds\n";
    for (const std::string& size_text : zn::bench::split_list(sizes_text)) {
        const zn::Index n = std::stol(size_text);
        std::mt19937_64 rng(seed * 1000003ULL + std::uint64_t(n));
        for (int trial = 0; trial < trials; ++trial) {
            zn::Dataset train;
            do {
                train = zn::weston2000::nonlinear_problem(n, rng);
            } while ((train.y.array() > 0).all() || (train.y.array() < 0).all());
            zn::Dataset test = zn::weston2000::nonlinear_problem(test_size, rng);
            const zn::Standardizer scale = zn::Standardizer::fit(train.X);
            train.X = scale.transform(train.X);
            test.X = scale.transform(test.X);
            for (const std::string& method : methods) {
                const auto start = std::chrono::steady_clock::now();
                zn::IndexVector selected;
                if (method != "svm") {
                    zn::SelectionOptions o;
                    o.method = method;
                    o.feature_counts = {2};
                    o.C = C;
                    if (method == "r2w2") o.set_parameter("r2w2.kernel", "rbf");
                    selected = zn::select_features(*backend, train, o).subsets.front().selected;
                }
                const double error = gaussian_svm_error(*backend, train, test, selected, C);
                const double seconds =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                std::cout << n << ',' << trial << ',' << method << ',' << error << ",\"";
                for (std::size_t k = 0; k < selected.size(); ++k)
                    std::cout << (k ? " " : "") << selected[k] + 1;
                std::cout << "\"," << seconds << '\n';
            }
        }
    }
}
