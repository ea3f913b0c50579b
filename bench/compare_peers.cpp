// Side-by-side solver benchmark: zeronorm's SMO against LIBSVM and zeronorm's dual coordinate
// descent against LIBLINEAR, on the same data, same machine, same run. Prints a Markdown table
// (for bench/RESULTS.md) and, with --json FILE, the raw numbers.
//
// usage: compare_peers DATA_DIR [--json FILE] [--max-train N] [--sets sonar,ionosphere,a9a,ijcnn1]
//                      [--solvers smo,decomposition,dcd,linear] [--linear-C C]
//                      [--backend cpu|cuda] [--only ours|peer]
// --backend picks where our SMO runs (LIBSVM and LIBLINEAR always run on one CPU core; our DCD
// is CPU-only). `linear` (a9a and ijcnn1) is `zeronorm train -k linear` against LIBSVM -t 0. `decomposition` is our SMO by working sets of 1024 variables with a kernel-column
// cache (the route of the CUDA backend for problems whose kernel does not fit in device memory),
// run here whatever the size.
#include <linear.h>
#include <svm.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "methods/linear_svm_without_kernel.hpp"
#include "solvers/decomposition_smo.hpp"
#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/preprocess.hpp"
#include "zeronorm/io/io.hpp"
#include "zeronorm/io/json.hpp"
#include "zeronorm/methods/methods.hpp"
#include "zeronorm/solvers/linear_svm.hpp"
#include "zeronorm/solvers/svm.hpp"

using namespace zeronorm;

namespace {

double seconds_of(const std::function<void()>& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Sparse rows as LIBSVM/LIBLINEAR take them (zeros skipped), with an optional bias feature.
struct SparseRows {
    std::vector<std::vector<svm_node>> svm_rows;
    std::vector<std::vector<feature_node>> linear_rows;
    std::vector<svm_node*> svm_ptrs;
    std::vector<feature_node*> linear_ptrs;

    SparseRows(const Matrix& X, double bias) {
        const Index n = X.rows(), d = X.cols();
        svm_rows.resize(std::size_t(n));
        linear_rows.resize(std::size_t(n));
        for (Index i = 0; i < n; ++i) {
            for (Index j = 0; j < d; ++j) {
                if (X(i, j) == 0.0) continue;
                svm_rows[std::size_t(i)].push_back({int(j + 1), X(i, j)});
                linear_rows[std::size_t(i)].push_back({int(j + 1), X(i, j)});
            }
            svm_rows[std::size_t(i)].push_back({-1, 0.0});
            if (bias > 0) linear_rows[std::size_t(i)].push_back({int(d + 1), bias});
            linear_rows[std::size_t(i)].push_back({-1, 0.0});
        }
        for (auto& r : svm_rows) svm_ptrs.push_back(r.data());
        for (auto& r : linear_rows) linear_ptrs.push_back(r.data());
    }
};

// Which side of a comparison to run: both in one process (the default), or ours and the peer
// in separate processes (--only), e.g. the CPU peer running while the GPU does other work.
struct Sides {
    bool ours = true;
    bool peer = true;
};

struct Row {
    std::string set, solver, peer;
    Index n = 0, d = 0;
    double ours_s = 0, peer_s = 0, ours_obj = 0, peer_obj = 0, ours_acc = 0, peer_acc = 0;
};

Dataset load(const std::string& dir, const std::string& name, const std::string& file) {
    return read_csv(dir + "/" + name + "/" + file);
}

// Dual objective 1/2 c'Kc - sum|c| of a LIBSVM model, evaluated by our kernel on its SVs.
double libsvm_objective(const svm_model* model, const Dataset& train, const KernelSpec& spec) {
    const int l = model->l;
    Matrix sv(l, train.n_features());
    Vector c(l);
    for (int k = 0; k < l; ++k) {
        sv.row(k) = train.X.row(model->sv_indices[k] - 1);
        c[k] = model->sv_coef[0][k];
    }
    auto cpu = make_cpu_backend();
    const DeviceMatrix dsv = cpu->upload(sv);
    const Matrix K = cpu->download(cpu->kernel_matrix(spec, dsv, dsv));
    return 0.5 * c.dot(K * c) - c.cwiseAbs().sum();
}

// LIBSVM's C-SVC on the same problem (kernel: linear, or rbf with its gamma): its training
// time, its dual objective by our kernel, its test accuracy, into row's peer fields.
void run_libsvm(Row& row, const Dataset& train, const Dataset& test, double C,
                const KernelSpec& kernel) {
    SparseRows rows(train.X, 0);
    std::vector<double> y(train.y.data(), train.y.data() + train.n_samples());
    svm_problem prob{int(train.n_samples()), y.data(), rows.svm_ptrs.data()};
    svm_parameter param{};
    param.svm_type = C_SVC;
    param.kernel_type = kernel.type == KernelType::Linear ? LINEAR : RBF;
    param.gamma = kernel.gamma;
    param.C = C;
    param.eps = 1e-3;
    param.cache_size = 1000;
    param.shrinking = 1;
    svm_set_print_string_function([](const char*) {});
    svm_model* model = nullptr;
    row.peer_s = seconds_of([&] { model = svm_train(&prob, &param); });
    row.peer_obj = libsvm_objective(model, train, kernel);
    SparseRows test_rows(test.X, 0);
    Index correct = 0;
    for (Index i = 0; i < test.n_samples(); ++i)
        correct += svm_predict(model, test_rows.svm_ptrs[std::size_t(i)]) == test.y[i];
    row.peer_acc = double(correct) / double(test.n_samples());
    svm_free_and_destroy_model(&model);
}

// The linear C-SVM (bias unregularised) as `zeronorm train -k linear` trains it (the svm
// classifier: from 20,000 samples without the kernel) against LIBSVM's -t 0: the same problem.
Row run_linear(const std::string& name, const Dataset& train, const Dataset& test, double C,
               Backend& backend, const Sides& sides) {
    SvmOptions options;  // linear kernel
    options.smo.C = C;
    options.smo.tolerance = 1e-3;
    options.smo.cache_mb = 1000;
    const bool without_kernel = detail::trains_without_kernel(train, options);
    Row row{name,
            std::string("svm linear, C ") + std::to_string(int(C)) +
                (without_kernel ? " (without kernel)" : " (SMO)"),
            "LIBSVM 3.24 -t 0", train.n_samples(), train.n_features()};
    if (sides.ours) {
        TrainedClassifier ours;
        row.ours_s = seconds_of(
            [&] { ours = find_classifier("svm").train(backend, train, options, {}); });
        row.ours_obj = ours.report["objective"].get<double>();
        row.ours_acc = 1 - error_rate(ours.model.predict(backend, test.X), test.y);
    }
    if (!sides.peer) return row;
    run_libsvm(row, train, test, C, options.kernel);
    return row;
}

Row run_smo(const std::string& name, const Dataset& train, const Dataset& test, double C,
            double gamma, Backend& backend, const Sides& sides, bool decomposition) {
    Row row{name, decomposition ? "SMO rbf, decomposition (q = 1024)" : "SMO rbf", "LIBSVM 3.24",
            train.n_samples(), train.n_features()};
    SvmOptions options;
    options.kernel.type = KernelType::Rbf;
    options.kernel.gamma = gamma;
    options.smo.C = C;
    options.smo.tolerance = 1e-3;
    options.smo.cache_mb = 1000;
    if (sides.ours && decomposition) {
        SmoResult r;
        row.ours_s = seconds_of([&] {
            r = detail::solve_smo_decomposition(backend, options.kernel, backend.upload(train.X),
                                                train.y, options.smo, {});
        });
        row.ours_obj = r.objective;
        const SvmModel model = svm_model_from_dual(train, options.kernel, r);
        row.ours_acc = 1 - error_rate(model.predict(backend, test.X), test.y);
    } else if (sides.ours) {
        SvmTrainResult ours;
        row.ours_s = seconds_of([&] { ours = train_svm(backend, train, options); });
        row.ours_obj = ours.smo.objective;
        row.ours_acc = 1 - error_rate(ours.model.predict(backend, test.X), test.y);
    }
    if (!sides.peer) return row;

    run_libsvm(row, train, test, C, options.kernel);
    return row;
}

Row run_dcd(const std::string& name, const Dataset& train, const Dataset& test, double C,
            LinearLoss loss, const Sides& sides) {
    Row row{name, loss == LinearLoss::Hinge ? "DCD L1-loss" : "DCD L2-loss", "LIBLINEAR 2.3",
            train.n_samples(), train.n_features()};
    LinearSvmOptions options;
    options.loss = loss;
    options.C = C;
    options.tolerance = 0.1;
    if (sides.ours) {
        LinearSvmResult ours;
        row.ours_s = seconds_of([&] { ours = train_linear_svm(train, options); });
        row.ours_obj = ours.primal_objective;
        row.ours_acc = 1 - error_rate(ours.predict(test.X), test.y);
    }
    if (!sides.peer) return row;

    SparseRows rows(train.X, 1.0);
    std::vector<double> y(train.y.data(), train.y.data() + train.n_samples());
    problem prob{};
    prob.l = int(train.n_samples());
    prob.n = int(train.n_features() + 1);
    prob.y = y.data();
    prob.x = rows.linear_ptrs.data();
    prob.bias = 1.0;
    parameter param{};
    param.solver_type = loss == LinearLoss::Hinge ? L2R_L1LOSS_SVC_DUAL : L2R_L2LOSS_SVC_DUAL;
    param.C = C;
    param.eps = 0.1;
    set_print_string_function([](const char*) {});
    model* m = nullptr;
    row.peer_s = seconds_of([&] { m = ::train(&prob, &param); });
    // Primal objective of LIBLINEAR's w (bias weight included, as it is regularised there).
    const double sign = m->label[0] == 1 ? 1.0 : -1.0;
    Vector w(train.n_features() + 1);
    for (Index j = 0; j <= train.n_features(); ++j) w[j] = sign * m->w[j];
    const Vector margins =
        (train.X * w.head(train.n_features())).array() + w[train.n_features()];
    double loss_sum = 0;
    for (Index i = 0; i < train.n_samples(); ++i) {
        const double slack = std::max(0.0, 1 - train.y[i] * margins[i]);
        loss_sum += loss == LinearLoss::Hinge ? slack : slack * slack;
    }
    row.peer_obj = 0.5 * w.squaredNorm() + C * loss_sum;
    SparseRows test_rows(test.X, 1.0);
    Index correct = 0;
    for (Index i = 0; i < test.n_samples(); ++i)
        correct += ::predict(m, test_rows.linear_ptrs[std::size_t(i)]) == test.y[i];
    row.peer_acc = double(correct) / double(test.n_samples());
    free_and_destroy_model(&m);
    return row;
}

Dataset head(const Dataset& data, Index n) {
    if (n <= 0 || n >= data.n_samples()) return data;
    IndexVector rows(static_cast<std::size_t>(n));
    for (Index i = 0; i < n; ++i) rows[std::size_t(i)] = i;
    return data.subset(rows);
}

}  // namespace

int main(int argc, char** argv) {
    // LIBSVM and LIBLINEAR run on one thread: so do our products (see set_cpu_blas_threads).
    zeronorm::set_cpu_blas_threads(1);
    std::string dir, json_path, sets = "sonar,ionosphere,a9a,ijcnn1", solvers = "smo,dcd";
    std::string backend_name = "cpu", only;
    Index max_train = 0;
    double linear_C = 1.0;
    CLI::App app{"zeronorm's solvers side by side with LIBSVM and LIBLINEAR"};
    app.add_option("data_dir", dir, "Directory of the data sets")->required();
    app.add_option("--json", json_path, "The raw numbers to this file");
    app.add_option("--max-train", max_train, "Training rows of the large sets (0: all)")
        ->capture_default_str();
    app.add_option("--sets", sets, "Data sets, comma-separated")->capture_default_str();
    app.add_option("--solvers", solvers, "smo, decomposition, dcd, linear (comma-separated)")
        ->capture_default_str();
    app.add_option("--linear-C", linear_C, "C of the linear SVMs (--solvers linear)")
        ->capture_default_str();
    app.add_option("--backend", backend_name, "Where our SMO runs")
        ->check(CLI::IsMember({"cpu", "cuda"}))
        ->capture_default_str();
    app.add_option("--only", only, "Run one side of each comparison")
        ->check(CLI::IsMember({"ours", "peer"}));
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    Sides sides;
    sides.peer = only != "ours";
    sides.ours = only != "peer";
    auto backend = make_backend(parse_backend_kind(backend_name));
    std::cerr << "compare_peers: SMO on " << backend->description() << "\n";
    std::vector<Row> rows;
    auto listed = [](const std::string& list, const std::string& s) {
        return ("," + list + ",").find("," + s + ",") != std::string::npos;
    };
    auto wanted = [&](const std::string& s) { return listed(sets, s); };
    const bool smo = listed(solvers, "smo");
    const bool decomposition = listed(solvers, "decomposition");
    const bool dcd = listed(solvers, "dcd");
    const bool linear = listed(solvers, "linear");
    auto split_holdout = [](const Dataset& all, Dataset& train, Dataset& test) {
        // Standardised, first 2/3 for training (deterministic), the rest for testing.
        IndexVector tr, te;
        for (Index i = 0; i < all.n_samples(); ++i) (i % 3 == 2 ? te : tr).push_back(i);
        train = all.subset(tr);
        test = all.subset(te);
        const Standardizer s = Standardizer::fit(train.X);
        train.X = s.transform(train.X);
        test.X = s.transform(test.X);
    };
    for (const std::string small : {"sonar", "ionosphere"}) {
        if (!wanted(small)) continue;
        Dataset train, test;
        split_holdout(load(dir, small, small + ".csv"), train, test);
        for (const bool by_parts : {false, true})
            if (by_parts ? decomposition : smo)
                rows.push_back(run_smo(small, train, test, 1.0, 1.0 / double(train.n_features()),
                                       *backend, sides, by_parts));
        if (dcd) {
            rows.push_back(run_dcd(small, train, test, 1.0, LinearLoss::Hinge, sides));
            rows.push_back(run_dcd(small, train, test, 1.0, LinearLoss::SquaredHinge, sides));
        }
    }
    struct Big { std::string name; double gamma; };
    for (const Big& big : {Big{"a9a", 1.0 / 123}, Big{"ijcnn1", 1.0 / 22}}) {
        if (!wanted(big.name)) continue;
        const Dataset train = head(load(dir, big.name, big.name + "_train.csv"), max_train);
        const Dataset test = load(dir, big.name, big.name + "_test.csv");
        std::cerr << "compare_peers: " << big.name << " " << train.n_samples() << " x "
                  << train.n_features() << "\n";
        if (dcd) {
            rows.push_back(run_dcd(big.name, train, test, 1.0, LinearLoss::Hinge, sides));
            rows.push_back(run_dcd(big.name, train, test, 1.0, LinearLoss::SquaredHinge, sides));
        }
        for (const bool by_parts : {false, true})
            if (by_parts ? decomposition : smo)
                rows.push_back(
                    run_smo(big.name, train, test, 1.0, big.gamma, *backend, sides, by_parts));
        if (linear) rows.push_back(run_linear(big.name, train, test, linear_C, *backend, sides));
    }

    std::printf("| set | n x d | solver | peer | zeronorm s | peer s | speed-up | rel. objective diff | test acc. zeronorm / peer |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|\n");
    std::ostringstream json;
    json << "[";
    for (std::size_t k = 0; k < rows.size(); ++k) {
        const Row& r = rows[k];
        const double rel = std::abs(r.ours_obj - r.peer_obj) / std::max(1e-300, std::abs(r.peer_obj));
        std::printf("| %s | %ld x %ld | %s | %s | %.3f | %.3f | %.2fx | %.1e | %.4f / %.4f |\n",
                    r.set.c_str(), long(r.n), long(r.d), r.solver.c_str(), r.peer.c_str(),
                    r.ours_s, r.peer_s, r.peer_s / r.ours_s, rel, r.ours_acc, r.peer_acc);
        json << std::setprecision(17) << (k ? "," : "") << "{\"set\":\"" << r.set << "\",\"solver\":\"" << r.solver
             << "\",\"peer\":\"" << r.peer << "\",\"n\":" << r.n << ",\"d\":" << r.d
             << ",\"zeronorm_seconds\":" << r.ours_s << ",\"peer_seconds\":" << r.peer_s
             << ",\"zeronorm_objective\":" << r.ours_obj << ",\"peer_objective\":" << r.peer_obj
             << ",\"zeronorm_accuracy\":" << r.ours_acc << ",\"peer_accuracy\":" << r.peer_acc << "}";
    }
    json << "]\n";
    if (!json_path.empty()) std::ofstream(json_path) << json.str();
    return 0;
}
