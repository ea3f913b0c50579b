// Registration of FSV, the l2-l1-SVM, the l2-l0-SVM (dc_svm.cpp) and RLP (lp_svm.cpp) as
// feature rankers. Each finds its own support {j : |w_j| > 1e-8} (Neumann, Schnoerr & Steidl
// 2005, sec. 5.2.3), ranked by |w_j|: no count asked gives that support; a count r gives the
// min(r, support) features of largest |w_j| (methods.hpp: chooses_own_count).
#include <algorithm>
#include <functional>

#include "methods/method_registry.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/methods/dc_svm.hpp"
#include "zeronorm/solvers/lp_svm.hpp"

namespace zeronorm {

namespace {

using DcTrainer =
    std::function<DcResult(Backend&, const Matrix& X, const Vector& y, const DcOptions&)>;

// A trainer that runs on the host whatever the backend (the LP methods).
DcTrainer on_host(DcResult (*train)(const Matrix&, const Vector&, const DcOptions&)) {
    return [train](Backend&, const Matrix& X, const Vector& y, const DcOptions& o) {
        return train(X, y, o);
    };
}

// The methods' w as a ranking: scores |w|, summed over the machines (one-vs-rest for K >= 3
// classes, as CORR's scores), and the union of the supports ranked by that score; one subset per
// requested count (or the support). Iterations add up; the trace is the first machine's.
detail::Ranking ranking_of(const std::vector<DcResult>& machines, double threshold,
                           const IndexVector& counts_desc) {
    detail::Ranking ranking;
    ranking.scores = Vector::Zero(machines.front().w.size());
    ranking.status = Status::Success;
    for (const DcResult& r : machines) {
        ranking.scores += r.w.cwiseAbs();
        ranking.iterations += r.iterations;
        if (ranking.status == Status::Success && r.status != Status::Success) {
            ranking.status = r.status;
            ranking.message = r.message;
        }
    }
    for (const DcIteration& it : machines.front().trace)
        ranking.trace.push_back({it.nonzeros, it.objective, it.v_change});
    const IndexVector support = ranked_support(ranking.scores, threshold);
    if (counts_desc.empty()) ranking.selected.push_back(support);
    for (const Index count : counts_desc) {
        const auto kept = std::min<std::size_t>(std::size_t(count), support.size());
        ranking.selected.emplace_back(support.begin(), support.begin() + kept);
    }
    return ranking;
}

detail::RankerRun dc_run(DcTrainer train) {
    return [train](Backend& backend, const Dataset& data, const detail::Machines& machines,
                   const SelectionOptions& options, const IndexVector& counts_desc) {
        DcOptions dc = options.dc;
        dc.max_iterations = options.max_iterations;
        std::vector<DcResult> results;
        for (const Vector& target : machines.targets)
            results.push_back(train(backend, data.X, target, dc));
        return ranking_of(results, dc.support_threshold, counts_desc);
    };
}

// RLP (eq. (1)) in the same form: one LP, its w ranked.
DcResult train_rlp_as_dc(const Matrix& X, const Vector& y, const DcOptions& options) {
    const LpSvmResult lp = train_rlp(X, y);
    DcResult r;
    r.status = lp.status;
    r.message = lp.message;
    r.w = lp.w;
    r.b = lp.b;
    r.objective = lp.objective;
    r.iterations = 1;
    r.inner_iterations = lp.iterations;
    r.selected = ranked_support(r.w, options.support_threshold);
    r.trace.push_back({lp.objective, Index(r.selected.size()), 0.0});
    return r;
}

ParameterInfo real_parameter(const char* name, const char* flag, const char* value,
                             const char* help, const char* valid) {
    return {name, flag, ParameterInfo::Type::Real, value, help, valid, {}};
}
ParameterInfo alpha_parameter() {
    return real_parameter("dc.alpha", "--alpha", "5",
                          "alpha of the concave penalty 1 - exp(-alpha |w_j|)", "(0, inf)");
}
ParameterInfo dca_tolerance_parameter() {
    return real_parameter("dc.tolerance", "--dc-tolerance", "1e-05",
                          "DCA stops when every v_j changes by at most this (absolute or "
                          "relative)", "[0, inf)");
}
ParameterInfo dca_cap_parameter() {
    return {"max_iterations", "--max-iterations", ParameterInfo::Type::Integer, "1000",
            "DCA iteration cap", ">= 1", {}};
}
ParameterInfo mu_parameter() {
    return real_parameter("dc.mu", "--mu", "100", "weight mu of the mean hinge loss", "(0, inf)");
}

std::vector<ParameterInfo> fsv_parameters() {
    return {real_parameter("dc.lambda", "--lambda", "0.5", "weight lambda of the feature penalty",
                           "[0, 1)"),
            alpha_parameter(), dca_tolerance_parameter(), dca_cap_parameter()};
}

// Quadratic FSV ranks the original features by v_j (its w is over the monomials).
DcResult train_quadratic_fsv_by_feature(const Matrix& X, const Vector& y,
                                        const DcOptions& options) {
    DcResult r = train_quadratic_fsv(X, y, options);
    r.w = r.feature_bounds;
    return r;
}

}  // namespace

std::unique_ptr<FeatureRanker> make_fsv_ranker() {
    return detail::make_ranker(
        {SelectionMethod::Fsv,
         "FSV: mean hinge + lambda sum(1 - exp(-alpha |w_j|)) by successive vertex LPs (DCA)",
         "Bradley & Mangasarian 1998; Neumann, Schnoerr & Steidl 2005, eq. (6), sec. 4.2.1",
         fsv_parameters()},
        dc_run(on_host(train_fsv)), false, /*chooses_own_count=*/true);
}

std::unique_ptr<FeatureRanker> make_l2_l1_svm_ranker() {
    return detail::make_ranker(
        {SelectionMethod::L2L1Svm,
         "l2-l1-SVM: (mu/n) hinge + |w|^2/2 + nu |w|_1, by its dual (SMO)",
         "Neumann, Schnoerr & Steidl 2005, eq. (7)",
         {mu_parameter(),
          real_parameter("dc.nu", "--nu", "1", "weight nu of the l1 penalty", "[0, inf)")}},
        dc_run([](Backend& backend, const Matrix& X, const Vector& y, const DcOptions& o) {
            return train_l2_l1_svm_grid(backend, X, y, {o.mu}, {o.nu}, o).front();
        }),
        false, true);
}

std::unique_ptr<FeatureRanker> make_l2_l0_svm_ranker() {
    return detail::make_ranker(
        {SelectionMethod::L2L0Svm,
         "l2-l0-SVM: (mu/n) hinge + |w|^2/2 + nu sum(1 - exp(-alpha |w_j|)), DCA of l2-l1-SVMs",
         "Neumann, Schnoerr & Steidl 2005, eq. (8), sec. 4.2.2",
         {mu_parameter(),
          real_parameter("dc.nu", "--nu", "1", "weight nu of the concave penalty", "[0, inf)"),
          alpha_parameter(), dca_tolerance_parameter(), dca_cap_parameter()}},
        dc_run([](Backend& backend, const Matrix& X, const Vector& y, const DcOptions& o) {
            return train_l2_l0_svm_grid(backend, X, y, {o.mu}, {o.nu}, o).front();
        }),
        false, true);
}

std::unique_ptr<FeatureRanker> make_quadratic_fsv_ranker() {
    return detail::make_ranker(
        {SelectionMethod::QuadraticFsv,
         "quadratic FSV: FSV on the quadratic monomials, one v_j per original feature bounding "
         "every monomial containing it (vertex LPs, DCA)",
         "Neumann, Schnoerr & Steidl 2005, eq. (9), sec. 4.2.3", fsv_parameters()},
        dc_run(on_host(train_quadratic_fsv_by_feature)), false, true);
}

std::unique_ptr<FeatureRanker> make_rlp_ranker() {
    return detail::make_ranker(
        {SelectionMethod::Rlp, "RLP: the hinge-loss LP, w ranked by |w_j| (its support)",
         "Bennett & Mangasarian 1992; Neumann, Schnoerr & Steidl 2005, eq. (1)",
         {}},
        dc_run(on_host(train_rlp_as_dc)), false, true);
}

}  // namespace zeronorm
