// Registration of FS-SVMCP (fs_svmcp.cpp) as a feature ranker. It finds its own support (the
// returned SVM's nonzero weights), ranked by |w_j|: no count asked gives that support; a count r
// gives the min(r, support) features of largest |w_j| (methods.hpp: chooses_own_count). K >= 3
// classes: one run per one-vs-rest machine, |w| summed and the supports united.
#include <algorithm>

#include "methods/method_registry.hpp"
#include "zeronorm/methods/fs_svmcp.hpp"

namespace zeronorm {

namespace {

detail::Ranking run_fs_svmcp(Backend&, const Dataset& data, const detail::Machines& machines,
                             const SelectionOptions& options, const IndexVector& counts_desc) {
    detail::Ranking ranking;
    ranking.scores = Vector::Zero(data.n_features());
    for (std::size_t k = 0; k < machines.targets.size(); ++k) {
        const FsSvmcpResult r = train_fs_svmcp(data.X, machines.targets[k], options.fs_svmcp);
        ranking.scores += r.w.cwiseAbs();
        ranking.iterations += std::int64_t(r.steps.size());
        if (ranking.status == Status::Success && r.status != Status::Success) {
            ranking.status = r.status;
            ranking.message = r.message;
        }
        if (k > 0) continue;
        for (const FsSvmcpStep& step : r.steps)  // features after the step, SVM objective
            ranking.trace.push_back({step.lp_nonzeros > 0 && step.lp_nonzeros < step.svm_nonzeros
                                         ? step.lp_nonzeros
                                         : Index(step.subspace.size()),
                                     step.svm.primal_objective, 0.0});
    }
    const IndexVector support = ranked_support(ranking.scores, 0.0);
    if (counts_desc.empty()) ranking.selected.push_back(support);
    for (const Index count : counts_desc) {
        const auto kept = std::min<std::size_t>(std::size_t(count), support.size());
        ranking.selected.emplace_back(support.begin(), support.begin() + kept);
    }
    return ranking;
}

ParameterInfo parameter(const char* name, const char* flag, ParameterInfo::Type type,
                        const char* value, const char* help, const char* valid,
                        std::vector<std::string> choices = {}) {
    return {name, flag, type, value, help, valid, std::move(choices)};
}

}  // namespace

std::unique_ptr<FeatureRanker> make_fs_svmcp_ranker() {
    using Type = ParameterInfo::Type;
    return detail::make_ranker(
        {SelectionMethod::FsSvmcp,
         "FS-SVMCP: L2-loss linear SVM (C by CV) and one Frank-Wolfe LP step on a concave "
         "zero-norm surrogate, repeated in the shrinking subspace",
         "Rinaldi & Sciandrone 2010, sec. 4.1, 5.1",
         {parameter("fs_svmcp.surrogate", "--surrogate", Type::Choice, "inverse-power",
                    "concave surrogate: exp (8), log (9), power (10), inverse-power (11)",
                    "exp, log, power, inverse-power", {"exp", "log", "power", "inverse-power"}),
          parameter("fs_svmcp.epsilon", "--surrogate-epsilon", Type::Real, "1e-06",
                    "epsilon of the surrogates (9)-(11)", "(0, inf)"),
          parameter("fs_svmcp.p", "--surrogate-p", Type::Real, "1",
                    "p of the surrogates (10) and (11)", "(0, 1) for (10), >= 1 for (11)"),
          parameter("fs_svmcp.alpha", "--surrogate-alpha", Type::Real, "5",
                    "alpha of the surrogate (8)", "(0, inf)"),
          parameter("fs_svmcp.loss", "--svm-loss", Type::Choice, "l2",
                    "loss of the linear SVM: l2 (squared hinge) or l1 (hinge)", "l2, l1",
                    {"l2", "l1"}),
          parameter("fs_svmcp.C", "--svm-C", Type::Real, "0",
                    "C of the linear SVM (0: by cross-validation over 1e-3..1e3 at every step)",
                    "[0, inf)"),
          parameter("fs_svmcp.folds", "--cv-folds", Type::Integer, "5",
                    "folds of the cross-validation of C", ">= 2"),
          parameter("fs_svmcp.svm_tolerance", "--svm-tolerance", Type::Real, "0.001",
                    "stopping tolerance of the linear SVM (dual coordinate descent)",
                    "(0, inf)")}},
        run_fs_svmcp, false, /*chooses_own_count=*/true);
}

}  // namespace zeronorm
