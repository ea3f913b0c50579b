#include "evaluation/split_runner.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <memory>
#include <mutex>
#include <vector>

#include "core/split_rows.hpp"
#include "core/thread_pool.hpp"
#include "methods/machine_fits.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/preprocess.hpp"
#include "zeronorm/solvers/svm.hpp"

namespace zeronorm::detail {

void run_per_split(Backend& backend, std::size_t n_tasks, int threads,
                   const std::function<void(Backend&, std::size_t)>& task,
                   const std::function<void(std::size_t)>& done) {
    const unsigned limit = backend.capabilities().concurrent_workers;
    const unsigned workers =
        limit == 1 ? 1u : std::min(worker_count(threads, n_tasks), limit == 0 ? UINT_MAX : limit);
    std::mutex done_mutex;
    std::vector<char> finished(n_tasks, 0);
    const auto run = [&](Backend& on, std::size_t t) {
        task(on, t);
        std::lock_guard<std::mutex> lock(done_mutex);
        finished[t] = 1;
        if (done) done(t);
    };
    const auto in_order = [&] {
        for (std::size_t t = 0; t < n_tasks; ++t)
            if (!finished[t]) run(backend, t);
    };
    // The CPU's tasks always run on worker backends (one BLAS thread each), so that a problem
    // computes the same way whatever the thread count; a device's only where several run at once.
    if (limit != 0 && workers <= 1) return in_order();
    try {
        run_pool(n_tasks, workers, [&]() -> std::function<void(std::size_t)> {
            std::shared_ptr<Backend> worker = backend.make_worker(workers);
            return [&, worker](std::size_t t) { run(*worker, t); };
        });
    } catch (const OutOfDeviceMemory&) {
        // The workers' problems did not fit in the device's memory together: the ones not
        // finished run again, in order on the backend itself, which has the device to itself.
        in_order();
    }
}

void check_splits(const std::vector<Fold>& splits, Index n_rows, const char* where) {
    ZN_EXPECTS(!splits.empty(), where << ": no splits given");
    for (std::size_t f = 0; f < splits.size(); ++f) {
        ZN_EXPECTS(!splits[f].train.empty() && !splits[f].test.empty(),
                   where << ": split " << f + 1 << " has an empty "
                         << (splits[f].train.empty() ? "training" : "test") << " part");
        for (const IndexVector* part : {&splits[f].train, &splits[f].test})
            for (const Index r : *part)
                ZN_EXPECTS(r >= 0 && r < n_rows, where << ": split " << f + 1 << " holds row " << r
                                                       << ", out of range for " << n_rows
                                                       << " samples");
    }
}

TrainTest split_data(const Dataset& data, const Fold& split, bool standardize) {
    // The rows alone: the names only label errors in data already checked, and copying a
    // microarray's thousands of them per split costs as much as standardising its rows.
    detail::SplitRows rows = split_rows(data.X, split.train, split.test, standardize);
    TrainTest out;
    out.train.X = std::move(rows.train);
    out.train.y = data.y(split.train);
    out.test.X = std::move(rows.test);
    out.test.y = data.y(split.test);
    out.train.label_mapping = out.test.label_mapping = data.label_mapping;
    return out;
}

bool runs_batched(EvaluationSchedule schedule, bool preferred, const std::string& not_batched,
                  const char* where) {
    ZN_EXPECTS(schedule != EvaluationSchedule::Batched || not_batched.empty(),
               where << ": the batched schedule cannot run this problem: " << not_batched);
    return schedule == EvaluationSchedule::Batched ||
           (schedule == EvaluationSchedule::Auto && preferred && not_batched.empty());
}

SplitBatch gather_splits(Backend& backend, const DeviceMatrix& X, const Vector& y,
                         const std::vector<Fold>& folds, std::size_t first, std::size_t count,
                         bool standardize) {
    std::vector<IndexVector> train_rows, test_rows;
    for (std::size_t k = first; k < first + count; ++k) {
        train_rows.push_back(folds[k].train);
        test_rows.push_back(folds[k].test);
    }
    SplitBatch batch;
    batch.blocks = backend.split_batch(X, train_rows, test_rows, standardize);
    const auto labels = [&y](const std::vector<IndexVector>& rows) {
        Matrix Y(Index(rows.front().size()), Index(rows.size()));
        for (std::size_t p = 0; p < rows.size(); ++p)
            for (std::size_t i = 0; i < rows[p].size(); ++i) Y(Index(i), Index(p)) = y[rows[p][i]];
        return Y;
    };
    batch.y_train = labels(train_rows);
    batch.y_test = labels(test_rows);
    return batch;
}

std::vector<double> batch_test_errors(Backend& backend, const DeviceMatrix& K_eval,
                                      const std::vector<SmoResult>& duals, const Matrix& Y,
                                      const Matrix& Y_eval) {
    const Index P = Y.cols();
    DeviceMatrix F = backend.allocate(Y_eval.rows(), P);
    backend.gemm_batch(P, false, false, 1.0, K_eval, backend.upload(dual_coefficients(duals, Y)),
                       0.0, F);
    const Matrix f = backend.download(F);
    std::vector<double> errors(std::size_t(P), 0.0);
    for (Index p = 0; p < P; ++p) {
        const Vector decision = f.col(p).array() + duals[std::size_t(p)].bias;
        errors[std::size_t(p)] = error_rate(labels_from_decision(decision), Y_eval.col(p));
    }
    return errors;
}

MeanAndError mean_and_std_error(const std::vector<double>& values) {
    MeanAndError out;
    if (values.empty()) return out;
    const double k = double(values.size());
    for (const double v : values) out.mean += v;
    out.mean /= k;
    if (values.size() > 1) {
        double ss = 0.0;
        for (const double v : values) ss += (v - out.mean) * (v - out.mean);
        out.std_error = std::sqrt(ss / (k - 1.0)) / std::sqrt(k);
    }
    return out;
}

}  // namespace zeronorm::detail
