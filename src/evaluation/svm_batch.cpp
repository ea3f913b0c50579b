#include "evaluation/svm_batch.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

#include "evaluation/split_runner.hpp"
#include "methods/linear_svm_without_kernel.hpp"
#include "solvers/dense_dual.hpp"
#include "solvers/expansion.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/core/ops/smo_ops.hpp"
#include "zeronorm/solvers/svm.hpp"

namespace zeronorm::detail {

namespace {

// The inner problems of a chunk that share one shape: (split in the chunk, inner fold) pairs
// with their training and held-out positions within the split's training rows.
struct InnerGroup {
    IndexVector split;                // chunk-local split of each problem
    std::vector<std::size_t> fold;    // its inner fold
    std::vector<IndexVector> train;   // positions in the split's training rows
    std::vector<IndexVector> test;
};

bool kernel_fits(std::size_t n, const SvmEvaluationOptions& options) {
    return double(n) * double(n) * 8.0 / (1024.0 * 1024.0) <= options.svm.max_kernel_mb;
}

// The splits first..first+count-1 of `splits`, advancing together: the nested cross-validation
// of evaluate_svm written once for both schedules (the per-split one runs it with one split).
// The training kernels are computed once and every inner problem is a sub-block of them; when
// one split's kernel exceeds max_kernel_mb (one split only), SMO computes kernel columns on
// demand and the decisions use the kernel against the support vectors only.
class ChunkRun {
public:
    ChunkRun(Backend& backend, const DeviceMatrix& X, const Vector& y,
             const std::vector<Fold>& splits, std::size_t first, std::size_t count,
             std::uint64_t first_seed, const SvmEvaluationOptions& options,
             SvmBatchPhaseSeconds& phases)
        : backend_(backend), options_(options), grid_(options.grid()), phases_(phases),
          first_seed_(first_seed), out_(count),
          batch_(gather_splits(backend, X, y, splits, first, count, options.standardize)) {
        clock_.lap(phases_.data);
        // One split whose linear SVM is solved without the kernel (n >> d) stores none.
        const bool without_kernel =
            P() == 1 && trains_without_kernel(n(), batch_.blocks.train.cols(), options.svm);
        if (!without_kernel && kernel_fits(std::size_t(n()), options))
            K_ = backend.kernel_batch(options.svm.kernel, P(), batch_.blocks.train,
                                      batch_.blocks.train);
        else
            ZN_EXPECTS(P() == 1, "the batched schedule needs the training kernels in memory");
        clock_.lap(phases_.kernels);
    }

    std::vector<SvmSplitEvaluation> run() {
        for (SvmSplitEvaluation& e : out_) e.C = grid_.front();
        if (grid_.size() > 1) choose_C();
        fit_final();
        return std::move(out_);
    }

private:
    Index P() const { return batch_.y_train.cols(); }
    Index n() const { return batch_.y_train.rows(); }

    void record(std::size_t p, const SmoResult& r) {
        out_[p].iterations += r.iterations;
        if (out_[p].status == Status::Success) out_[p].status = r.status;
    }

    SmoOptions smo_for(double C) const {
        SmoOptions smo = options_.svm.smo;
        smo.C = C;
        return smo;
    }

    // The duals of the problems q with active[q] (empty: all) on their kernels K (n_q x (n_q Q),
    // the sub-blocks of K_ for rows train[q] of the training block), labels Y (n_q x Q), warm
    // starts from `warm`. Without K_ (one split): on a linear kernel with n >> d the dual
    // without the kernel (trains_without_kernel), else SMO on kernel columns computed on demand.
    std::vector<SmoResult> solve(const DeviceMatrix& K, const std::vector<IndexVector>& train,
                                 const Matrix& Y, const SmoOptions& smo, const Matrix* warm,
                                 const std::vector<char>& active = {}) {
        if (!K_.empty()) return solve_dense_dual_batch(backend_, K, Y, smo, warm, active);
        std::vector<SmoResult> out(train.size());
        for (std::size_t q = 0; q < train.size(); ++q) {
            if (!active.empty() && !active[q]) continue;
            const Vector start = warm != nullptr ? Vector(warm->col(Index(q))) : Vector();
            const DeviceMatrix rows = backend_.select_rows(batch_.blocks.train, train[q]);
            if (trains_without_kernel(rows.rows(), rows.cols(), options_.svm)) {
                out[q] = svm_dual_without_kernel(backend_.download(rows), Y.col(Index(q)), smo,
                                                 warm != nullptr ? &start : nullptr);
                continue;
            }
            out[q] = solve_on_demand_dual(backend_, options_.svm.kernel,
                                          rows, Y.col(Index(q)), smo,
                                          warm != nullptr ? &start : nullptr);
        }
        return out;
    }

    // Test errors of the SVMs duals[q] (trained on rows train[q] of the training block) on
    // rows eval[q] of the training block, or on the test block when `eval` is null, against
    // Y_eval; K_eval holds the kernels between those points and the training rows (with K_).
    std::vector<double> test_errors(const DeviceMatrix& K_eval,
                                    const std::vector<IndexVector>& train,
                                    const std::vector<IndexVector>* eval,
                               const std::vector<SmoResult>& duals, const Matrix& Y,
                               const Matrix& Y_eval) {
        if (!K_.empty()) return batch_test_errors(backend_, K_eval, duals, Y, Y_eval);
        std::vector<double> out(duals.size());
        for (std::size_t q = 0; q < duals.size(); ++q) {
            const SmoResult& r = duals[q];
            IndexVector sv;  // support vectors: rows of the training block
            for (Index i = 0; i < r.beta.size(); ++i)
                if (r.beta[i] > 0) sv.push_back(train[q][std::size_t(i)]);
            Vector coef(Index(sv.size()));  // their beta .* y
            for (Index i = 0, k = 0; i < r.beta.size(); ++i)
                if (r.beta[i] > 0) coef[k++] = r.beta[i] * Y(i, Index(q));
            Vector decision = Vector::Constant(Y_eval.rows(), r.bias);
            if (!sv.empty() && Y_eval.rows() > 0) {
                const DeviceMatrix& train_block = batch_.blocks.train;
                const DeviceMatrix points = eval != nullptr
                                                ? backend_.select_rows(train_block, (*eval)[q])
                                                : batch_.blocks.test;
                decision += expansion_values(backend_, options_.svm.kernel, points,
                                             backend_.select_rows(train_block, sv), coef);
            }
            out[q] = error_rate(labels_from_decision(decision), Y_eval.col(Index(q)));
        }
        return out;
    }

    // The inner cross-validation of every split: errors per (split, fold, C), summed in fold
    // order as evaluate_svm_split does, so that ties between C values break the same way.
    void choose_C() {
        const std::size_t G = grid_.size();
        std::vector<std::vector<std::vector<double>>> fold_errors(out_.size());
        std::map<std::pair<std::size_t, std::size_t>, InnerGroup> groups;  // by (train, test) size
        for (Index p = 0; p < P(); ++p) {
            const std::vector<Fold> inner = stratified_kfold(
                batch_.y_train.col(p), options_.inner_folds, first_seed_ + std::size_t(p));
            fold_errors[std::size_t(p)].assign(inner.size(), std::vector<double>(G, 0.0));
            for (std::size_t f = 0; f < inner.size(); ++f) {
                InnerGroup& g = groups[{inner[f].train.size(), inner[f].test.size()}];
                g.split.push_back(p);
                g.fold.push_back(f);
                g.train.push_back(inner[f].train);
                g.test.push_back(inner[f].test);
            }
        }
        for (const auto& entry : groups) {
            const InnerGroup& g = entry.second;
            DeviceMatrix K_train, K_test;
            if (!K_.empty()) {
                K_train = backend_.gather_blocks(K_, n(), g.split, g.train, g.train);
                K_test = backend_.gather_blocks(K_, n(), g.split, g.test, g.train);
            }
            Matrix Y(Index(g.train.front().size()), Index(g.split.size()));
            Matrix Y_eval(Index(g.test.front().size()), Index(g.split.size()));
            for (std::size_t q = 0; q < g.split.size(); ++q) {
                for (std::size_t i = 0; i < g.train[q].size(); ++i)
                    Y(Index(i), Index(q)) = batch_.y_train(g.train[q][i], g.split[q]);
                for (std::size_t i = 0; i < g.test[q].size(); ++i)
                    Y_eval(Index(i), Index(q)) = batch_.y_train(g.test[q][i], g.split[q]);
            }
            clock_.lap(phases_.kernels);
            Matrix warm;  // the previous (smaller) C's solutions: still feasible for this C
            for (std::size_t c = 0; c < G; ++c) {
                const std::vector<SmoResult> duals =
                    solve(K_train, g.train, Y, smo_for(grid_[c]), c > 0 ? &warm : nullptr);
                warm.resize(Y.rows(), Y.cols());
                for (std::size_t q = 0; q < duals.size(); ++q) {
                    record(std::size_t(g.split[q]), duals[q]);
                    warm.col(Index(q)) = duals[q].beta;
                }
                const std::vector<double> errors =
                    test_errors(K_test, g.train, &g.test, duals, Y, Y_eval);
                for (std::size_t q = 0; q < errors.size(); ++q)
                    fold_errors[std::size_t(g.split[q])][g.fold[q]][c] = errors[q];
            }
            clock_.lap(phases_.inner);
        }
        for (std::size_t p = 0; p < out_.size(); ++p) {
            SvmSplitEvaluation& e = out_[p];
            e.inner_errors.assign(G, 0.0);
            const double folds = double(fold_errors[p].size());
            for (const std::vector<double>& per_C : fold_errors[p])
                for (std::size_t c = 0; c < G; ++c) e.inner_errors[c] += per_C[c] / folds;
            // Lowest mean inner error; ties go to the smaller C (the first in ascending order).
            e.C = grid_[std::size_t(std::min_element(e.inner_errors.begin(), e.inner_errors.end()) -
                                    e.inner_errors.begin())];
        }
    }

    // Each split's SVM with its chosen C on all its training rows (one batched solve per distinct
    // C), then all test decisions in one product.
    void fit_final() {
        IndexVector all(static_cast<std::size_t>(n()));
        for (Index i = 0; i < n(); ++i) all[std::size_t(i)] = i;
        const std::vector<IndexVector> all_rows(out_.size(), all);
        std::vector<SmoResult> finals(out_.size());
        for (const double C : grid_) {
            std::vector<char> chosen(out_.size(), 0);
            for (std::size_t p = 0; p < out_.size(); ++p) chosen[p] = out_[p].C == C;
            if (std::none_of(chosen.begin(), chosen.end(), [](char c) { return c != 0; })) continue;
            std::vector<SmoResult> duals =
                solve(K_, all_rows, batch_.y_train, smo_for(C), nullptr, chosen);
            for (std::size_t p = 0; p < out_.size(); ++p)
                if (chosen[p]) finals[p] = std::move(duals[p]);
        }
        DeviceMatrix K_test;
        if (!K_.empty())
            K_test = backend_.kernel_batch(options_.svm.kernel, P(), batch_.blocks.test,
                                           batch_.blocks.train);
        const std::vector<double> errors =
            test_errors(K_test, all_rows, nullptr, finals, batch_.y_train, batch_.y_test);
        for (std::size_t p = 0; p < out_.size(); ++p) {
            record(p, finals[p]);
            out_[p].error = errors[p];
            out_[p].n_support = Index((finals[p].beta.array() > 0).count());
        }
        clock_.lap(phases_.final);
    }

    Backend& backend_;
    const SvmEvaluationOptions& options_;
    const std::vector<double> grid_;
    SvmBatchPhaseSeconds& phases_;
    const std::uint64_t first_seed_;  // inner-fold seed of the chunk's first split
    std::vector<SvmSplitEvaluation> out_;
    PhaseClock clock_;
    SplitBatch batch_;
    DeviceMatrix K_;  // the training kernels, n x n P (empty: kernel columns on demand)
};

}  // namespace

std::string why_not_batched(const Dataset& data, const std::vector<Fold>& splits,
                            const SvmEvaluationOptions& options) {
    if (splits.empty()) return "there are no splits";
    for (const Fold& f : splits)
        if (f.train.size() != splits.front().train.size() ||
            f.test.size() != splits.front().test.size())
            return "the splits differ in training or test size";
    // (A linear SVM solved without its kernel needs none: ChunkRun runs those splits one each.)
    const Index n = Index(splits.front().train.size());
    if (!trains_without_kernel(n, data.n_features(), options.svm) &&
        !kernel_fits(std::size_t(n), options))
        return "a split's training kernel (" + std::to_string(splits.front().train.size()) +
               " rows) exceeds max_kernel_mb";
    if (options.svm.kernel.type == KernelType::Chi2 && (data.X.array() < 0).any())
        return "the chi2 kernel needs non-negative features";
    return {};
}

std::vector<SvmSplitEvaluation> evaluate_svm_batched(
    Backend& backend, const Dataset& data, const std::vector<Fold>& splits,
    const SvmEvaluationOptions& options,
    const std::function<void(std::size_t, const SvmSplitEvaluation&)>& on_split_done,
    SvmBatchPhaseSeconds& phases) {
    if (splits.empty()) return {};
    const std::size_t n = splits.front().train.size();
    const std::size_t m = splits.front().test.size();
    const std::size_t d = std::size_t(data.n_features());
    // Per split: its blocks, training and test kernels, and the inner sub-blocks: over F folds
    // (F - 1)^2 / F n^2 for training and (F - 1) / F n^2 for the held-out parts, so under F n^2.
    // Splits whose linear SVM is solved without its kernel (n >> d) go one to a chunk, where
    // ChunkRun stores no kernel (batched, each split would store its n x n kernels for SMO).
    const std::size_t F = std::size_t(options.inner_folds);
    const std::size_t per_split =
        trains_without_kernel(Index(n), Index(d), options.svm)
            ? std::numeric_limits<std::size_t>::max()
            : ((n + m) * d + (F + 1) * n * n + m * n) * sizeof(double);
    const DeviceMatrix X = backend.upload(data.X);
    return run_in_chunks<SvmSplitEvaluation>(
        splits.size(), backend.capabilities().batch_bytes, per_split,
        [&](std::size_t first, std::size_t count) {
            return ChunkRun(backend, X, data.y, splits, first, count, options.seed + first,
                            options, phases)
                .run();
        },
        on_split_done);
}

SvmSplitEvaluation evaluate_svm_split_batched(Backend& backend, const Dataset& data,
                                              const Fold& split,
                                              const SvmEvaluationOptions& options,
                                              std::uint64_t seed) {
    // Only the split's rows go to the backend: its training rows, then its test rows.
    IndexVector rows = split.train;
    rows.insert(rows.end(), split.test.begin(), split.test.end());
    // (The rows alone, without the feature names.)
    const Matrix local_X = data.X(rows, Eigen::all);
    const Vector local_y = data.y(rows);
    Fold fold;
    for (Index i = 0; i < Index(rows.size()); ++i)
        (i < Index(split.train.size()) ? fold.train : fold.test).push_back(i);
    SvmBatchPhaseSeconds phases;
    return std::move(ChunkRun(backend, backend.upload(local_X), local_y, {fold}, 0, 1, seed,
                              options, phases)
                         .run()
                         .front());
}

}  // namespace zeronorm::detail
