// The l2-l1-SVM duals of a batch by box QPs over the pieces of the soft-threshold, through the
// backend's batched primitives (l2_l1_active_set.hpp).
#include "methods/dc/l2_l1_active_set.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "solvers/dense_dual.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm::detail {

namespace {

// F'(t) along beta + t delta: sum_k S_c(u_k + t du_k) du_k - e'delta (non-decreasing in t).
double slope_at(double t, const Vector& u, const Vector& du, const Vector& c, double e_delta) {
    double s = -e_delta;
    for (Index k = 0; k < u.size(); ++k) s += soft(u[k] + t * du[k], c[k]) * du[k];
    return s;
}

// The minimiser over [0, 1] of the convex F along the segment, from its slope: 1 when F still
// decreases at 1, else the root of F'. F' is continuous and piecewise linear: feature k adds
// du_k^2 to its rate while |u_k + t du_k| > c_k, so the root is found by walking the points
// where features enter or leave that range in order of t, O(m log m), instead of bisecting.
double line_step(const Vector& u, const Vector& du, const Vector& c, double e_delta) {
    const double slope0 = slope_at(0.0, u, du, c, e_delta);
    if (slope0 >= 0.0) return 0.0;
    if (slope_at(1.0, u, du, c, e_delta) <= 0.0) return 1.0;
    double rate = 0.0;  // d F'/dt just after t = 0
    struct Event {
        double t, change;
    };
    std::vector<Event> events;
    for (Index k = 0; k < u.size(); ++k) {
        const double a = du[k] * du[k];
        if (a == 0.0) continue;
        if (c[k] == 0.0) {  // S_0 is the identity: always on
            rate += a;
            continue;
        }
        const bool on = std::abs(u[k]) > c[k] || (u[k] == c[k] && du[k] > 0) ||
                        (u[k] == -c[k] && du[k] < 0);
        if (on) rate += a;
        // Reaching +c moving up enters, moving down leaves; -c the other way round.
        const double to_upper = (c[k] - u[k]) / du[k], to_lower = (-c[k] - u[k]) / du[k];
        if (to_upper > 0.0 && to_upper < 1.0) events.push_back({to_upper, du[k] > 0 ? a : -a});
        if (to_lower > 0.0 && to_lower < 1.0) events.push_back({to_lower, du[k] < 0 ? a : -a});
    }
    std::sort(events.begin(), events.end(),
              [](const Event& x, const Event& y) { return x.t < y.t; });
    double t = 0.0, slope = slope0;
    for (const Event& e : events) {
        const double at_event = slope + rate * (e.t - t);
        if (at_event >= 0.0) break;
        t = e.t;
        slope = at_event;
        rate = std::max(rate + e.change, 0.0);
    }
    // The root on the last piece; F' > 0 at 1, so it lies before 1 (rounding aside).
    return rate > 0.0 ? std::clamp(t - slope / rate, t, 1.0) : t;
}

DeviceMatrix product(Backend& backend, bool trans_a, const DeviceMatrix& A, const Matrix& B) {
    DeviceMatrix out = backend.allocate(trans_a ? A.cols() : A.rows(), B.cols());
    backend.gemm(trans_a, false, 1.0, A, backend.upload(B), 0.0, out);
    return out;
}

// Block m of `blocks` (its columns `width` wide) times column m of `values`: n x values.cols().
Matrix block_products(Backend& backend, const DeviceMatrix& blocks, const Matrix& values) {
    DeviceMatrix out = backend.allocate(blocks.rows(), values.cols());
    backend.gemm_batch(values.cols(), false, false, 1.0, blocks, backend.upload(values), 0.0, out);
    return backend.download(out);
}

// One group of problems' pieces: their active columns of X (n x (width members), padded), and
// per member (column) w and s o c on those columns and f = X w.
struct PieceBlocks {
    Index width = 1;
    DeviceMatrix blocks;
    Matrix w, sc, f;
};

// The problems (indices into lists) in groups whose list lengths are within a factor two:
// sorted by length, a group closes before the first list longer than twice its shortest (at
// most about log2 of the longest groups).
std::vector<std::vector<Index>> groups_by_length(const std::vector<IndexVector>& lists) {
    std::vector<Index> order(lists.size());
    for (std::size_t r = 0; r < lists.size(); ++r) order[r] = Index(r);
    const auto length = [&](Index r) { return Index(lists[std::size_t(r)].size()); };
    std::stable_sort(order.begin(), order.end(),
                     [&](Index a, Index b) { return length(a) < length(b); });
    std::vector<std::vector<Index>> groups;
    for (const Index r : order) {
        if (groups.empty() || length(r) > 2 * std::max<Index>(1, length(groups.back().front())))
            groups.emplace_back();
        groups.back().push_back(r);
    }
    return groups;
}

// The QP solver's iterations per round, per variable: a round only needs a descent direction
// (the line search on F keeps every round monotone), and SMO on the rank-deficient kernels of
// few active features at a large box crawls (hundreds of thousands of steps at n = 28), so a
// capped solve hands over to the next round, which starts from the better point.
constexpr std::int64_t kQpStepsPerVariable = 5;

// The rounds' state and phases for one batch (solve_l2_l1_active_set): the problems' data, the
// result being built and u = X'(beta o y) per problem, carried along the steps (u += t du).
class ActiveSetRounds {
public:
    ActiveSetRounds(Backend& backend, const Matrix& X, const Vector& y, const Vector& C,
                    const Matrix& costs, L2L1BatchResult& out)
        : backend_(backend), y_(y), C_(C), costs_(costs), out_(out), n_(X.rows()), d_(X.cols()),
          dX_(backend.upload(X)), row_norm2_max_(X.rowwise().squaredNorm().maxCoeff()) {
        Matrix coef(n_, C.size());
        for (Index p = 0; p < C.size(); ++p) coef.col(p) = out.beta.col(p).cwiseProduct(y);
        U_ = backend.download(product(backend, true, dX_, coef));
    }

    // One round over the problems `open`: their gaps (recorded in out; those meeting
    // gap_tolerance end with Success), then, unless this is the last round, one QP step for
    // each of the others. Returns the problems that stepped (the next round's).
    std::vector<Index> round(const std::vector<Index>& open, int round, bool last,
                             double gap_tolerance) {
        gather_pieces(open);
        std::vector<char> stepping = record_gaps(open, round, gap_tolerance);
        if (last) return {};
        if (std::none_of(stepping.begin(), stepping.end(), [](char c) { return c != 0; }))
            return {};
        const std::vector<SmoResult> solved = solve_qps(open, stepping);
        return take_steps(open, stepping, solved);
    }

private:
    // The pieces at u: the active features (|u_k| > c_k, or c_k = 0), where w = S_c(u) and
    // s o c are nonzero. The lists range from a few genes to nearly all of them across a grid,
    // so the products run on each problem's own columns, in groups of lists within a factor two
    // in length, each padded to its group's longest list with column 0 at value 0: one gather
    // of the columns and batched products per group (one padding to the longest list of all
    // would multiply the work of the short ones).
    void gather_pieces(const std::vector<Index>& open) {
        const Index Q = Index(open.size());
        active_.assign(std::size_t(Q), IndexVector());
        for (Index q = 0; q < Q; ++q) {
            const Index p = open[std::size_t(q)];
            for (Index k = 0; k < d_; ++k)
                if (costs_(k, p) == 0.0 || std::abs(U_(k, p)) > costs_(k, p))
                    active_[std::size_t(q)].push_back(k);
        }
        groups_ = groups_by_length(active_);
        pieces_.clear();
        for (const std::vector<Index>& group : groups_) {
            PieceBlocks g;
            for (const Index q : group)
                g.width = std::max(g.width, Index(active_[std::size_t(q)].size()));
            IndexVector columns;
            columns.reserve(std::size_t(g.width) * group.size());
            g.w = Matrix::Zero(g.width, Index(group.size()));
            g.sc = Matrix::Zero(g.width, Index(group.size()));
            for (Index m = 0; m < Index(group.size()); ++m) {
                const Index q = group[std::size_t(m)], p = open[std::size_t(q)];
                const IndexVector& list = active_[std::size_t(q)];
                for (Index j = 0; j < g.width; ++j) {
                    if (j >= Index(list.size())) {
                        columns.push_back(0);
                        continue;
                    }
                    const Index k = list[std::size_t(j)];
                    columns.push_back(k);
                    g.w(j, m) = soft(U_(k, p), costs_(k, p));
                    g.sc(j, m) = U_(k, p) > 0 ? costs_(k, p) : -costs_(k, p);
                }
            }
            g.blocks = backend_.select_columns(dX_, columns);
            g.f = block_products(backend_, g.blocks, g.w);  // f = X w
            pieces_.push_back(std::move(g));
        }
    }

    // w, b, the primal and dual values of every open problem; 1 for those above the gap.
    std::vector<char> record_gaps(const std::vector<Index>& open, int round,
                                  double gap_tolerance) {
        std::vector<char> above(open.size(), 0);
        for (std::size_t gi = 0; gi < groups_.size(); ++gi) {
            const PieceBlocks& g = pieces_[gi];
            for (Index m = 0; m < Index(groups_[gi].size()); ++m) {
                const Index q = groups_[gi][std::size_t(m)], p = open[std::size_t(q)];
                const IndexVector& list = active_[std::size_t(q)];
                out_.w.col(p).setZero();
                double l1 = 0.0;
                for (Index j = 0; j < Index(list.size()); ++j) {
                    out_.w(list[std::size_t(j)], p) = g.w(j, m);
                    l1 += costs_(list[std::size_t(j)], p) * std::abs(g.w(j, m));
                }
                const double half_w2 = 0.5 * g.w.col(m).squaredNorm();
                const double b = optimal_bias(g.f.col(m), y_);
                const double primal = C_[p] * hinge_sum(g.f.col(m), y_, b) + half_w2 + l1;
                const double dual = out_.beta.col(p).sum() - half_w2;
                out_.b[p] = b;
                out_.primal[p] = primal;
                out_.dual[p] = dual;
                out_.iterations[std::size_t(p)] = round;
                if (primal - dual <= gap_tolerance * std::max(std::abs(primal), 1e-300))
                    out_.status[std::size_t(p)] = Status::Success;
                else
                    above[std::size_t(q)] = 1;
            }
        }
        return above;
    }

    // Each stepping problem's box QP over its pieces, in units of its gradients, which grow
    // with C_p |x_i|^2: scaled by 1/s_q, s_q = max(1, C_p max_i |x_i|^2), so that the SMO's
    // tolerances (the requested one and the Newton finish's coarse stages) mean the same for
    // every C. Per group one scaled Gram batch gives the kernels (C_p / s_q) X_J X_J' (unit
    // box) and one batched dense dual solves them, with p = (-e - y o (X (s o c))) / s_q and
    // beta = C_p beta~, beta~ in [0, 1]. Returns the QP solutions by position in `open`.
    std::vector<SmoResult> solve_qps(const std::vector<Index>& open,
                                     const std::vector<char>& stepping) {
        SmoOptions qp;
        qp.C = 1.0;
        qp.ridge = 0.0;
        qp.tolerance = 1e-9;
        qp.max_iterations = kQpStepsPerVariable * n_ + 100;
        std::vector<SmoResult> solved(open.size());
        for (std::size_t gi = 0; gi < groups_.size(); ++gi) {
            const PieceBlocks& g = pieces_[gi];
            const std::vector<Index>& group = groups_[gi];
            std::vector<Index> members;  // positions in the group of its stepping problems
            for (Index m = 0; m < Index(group.size()); ++m)
                if (stepping[std::size_t(group[std::size_t(m)])]) members.push_back(m);
            if (members.empty()) continue;
            const Index Rg = Index(members.size());
            const bool whole_group = Rg == Index(group.size());
            IndexVector block_columns;  // the members' blocks, where not the whole group
            Matrix Z = Matrix::Zero(g.width, Rg), sc(g.width, Rg);
            Vector unit(Rg);
            for (Index r = 0; r < Rg; ++r) {
                const Index m = members[std::size_t(r)];
                const Index q = group[std::size_t(m)], p = open[std::size_t(q)];
                unit[r] = std::max(1.0, C_[p] * row_norm2_max_);
                const double scale = std::sqrt(C_[p] / unit[r]);
                Z.col(r).head(Index(active_[std::size_t(q)].size())).setConstant(scale);
                if (!whole_group)
                    for (Index j = 0; j < g.width; ++j) block_columns.push_back(m * g.width + j);
                sc.col(r) = g.sc.col(m);
            }
            const DeviceMatrix sub =
                whole_group ? g.blocks : backend_.select_columns(g.blocks, block_columns);
            const DeviceMatrix K = backend_.scaled_gram_batch(sub, sub, backend_.upload(Z));
            const Matrix XG = block_products(backend_, sub, sc);
            SmoBatchTerms terms{Matrix(n_, Rg), Vector::Zero(Rg)};
            Matrix Y(n_, Rg), start(n_, Rg);
            for (Index r = 0; r < Rg; ++r) {
                const Index p = open[std::size_t(group[std::size_t(members[std::size_t(r)])])];
                terms.p.col(r) = (-1.0 - y_.array() * XG.col(r).array()).matrix() / unit[r];
                Y.col(r) = y_;
                start.col(r) = out_.beta.col(p) / C_[p];
            }
            std::vector<SmoResult> group_solved =
                solve_dense_dual_batch(backend_, K, Y, qp, &start, {}, terms);
            for (Index r = 0; r < Rg; ++r) {
                const Index q = group[std::size_t(members[std::size_t(r)])];
                solved[std::size_t(q)] = std::move(group_solved[std::size_t(r)]);
            }
        }
        return solved;
    }

    // The steps toward the QP solutions, each by the exact line search on F; u follows.
    // Returns the problems that moved (no step, or no descent, leaves a problem to the
    // caller's fallback).
    std::vector<Index> take_steps(const std::vector<Index>& open,
                                  const std::vector<char>& stepping,
                                  const std::vector<SmoResult>& solved) {
        std::vector<Index> which;  // positions in `open`
        for (std::size_t q = 0; q < open.size(); ++q)
            if (stepping[q]) which.push_back(Index(q));
        const Index R = Index(which.size());
        Matrix delta = Matrix::Zero(n_, R);
        std::vector<char> moving(static_cast<std::size_t>(R), 0);
        for (Index r = 0; r < R; ++r) {
            const Index q = which[std::size_t(r)], p = open[std::size_t(q)];
            const SmoResult& s = solved[std::size_t(q)];
            if (s.beta.size() != n_ || !s.beta.allFinite()) continue;
            Vector target = C_[p] * s.beta;
            project(target, y_, C_[p]);  // rounding of y'beta = 0
            delta.col(r) = target - out_.beta.col(p);
            moving[std::size_t(r)] = delta.col(r).cwiseAbs().maxCoeff() > 0.0;
        }
        Matrix delta_coef = delta;
        for (Index r = 0; r < R; ++r) delta_coef.col(r) = delta.col(r).cwiseProduct(y_);
        const Matrix dU = backend_.download(product(backend_, true, dX_, delta_coef));
        std::vector<Index> moved;
        for (Index r = 0; r < R; ++r) {
            const Index p = open[std::size_t(which[std::size_t(r)])];
            if (!moving[std::size_t(r)]) continue;
            const double e_delta = delta.col(r).sum();
            // Only features whose segment leaves [-c_k, c_k] contribute to F' along it.
            std::vector<Index> crossing;
            for (Index k = 0; k < d_; ++k)
                if (std::max(std::abs(U_(k, p)), std::abs(U_(k, p) + dU(k, r))) > costs_(k, p))
                    crossing.push_back(k);
            Vector u(Index(crossing.size())), du(u.size()), cc(u.size());
            for (Index m = 0; m < u.size(); ++m) {
                const Index k = crossing[std::size_t(m)];
                u[m] = U_(k, p);
                du[m] = dU(k, r);
                cc[m] = costs_(k, p);
            }
            const double t = line_step(u, du, cc, e_delta);
            if (!(t > 0.0)) continue;
            out_.beta.col(p) += t * delta.col(r);
            for (Index i = 0; i < n_; ++i)
                out_.beta(i, p) = std::clamp(out_.beta(i, p), 0.0, C_[p]);
            U_.col(p) += t * dU.col(r);  // the clamp moves beta by rounding only
            moved.push_back(p);
        }
        return moved;
    }

    Backend& backend_;
    const Vector& y_;
    const Vector& C_;
    const Matrix& costs_;
    L2L1BatchResult& out_;
    Index n_, d_;
    DeviceMatrix dX_;
    double row_norm2_max_;
    Matrix U_;
    // The current round's pieces: per open problem its active list, the groups and their blocks.
    std::vector<IndexVector> active_;
    std::vector<std::vector<Index>> groups_;
    std::vector<PieceBlocks> pieces_;
};

}  // namespace

L2L1BatchResult solve_l2_l1_active_set(Backend& backend, const Matrix& X, const Vector& y,
                                       const Vector& C, const Matrix& costs,
                                       const Matrix& warm_beta, double gap_tolerance,
                                       int max_rounds) {
    const Index n = X.rows(), d = X.cols(), P = C.size();
    ZN_EXPECTS_DIM(y.size() == n && costs.rows() == d && costs.cols() == P &&
                       (warm_beta.size() == 0 || (warm_beta.rows() == n && warm_beta.cols() == P)),
                   "l2-l1 active set: shapes of y, costs or warm_beta do not match X ("
                       << n << " x " << d << ") and " << P << " problems");
    ZN_EXPECTS(gap_tolerance > 0 && max_rounds >= 1,
               "l2-l1 active set: gap_tolerance > 0 and max_rounds >= 1 required");
    L2L1BatchResult out;
    out.beta = warm_beta.size() > 0 ? warm_beta : Matrix(Matrix::Zero(n, P));
    for (Index p = 0; p < P; ++p) project(out.beta.col(p), y, C[p]);
    out.w = Matrix::Zero(d, P);
    out.b = Vector::Zero(P);
    out.primal = Vector::Zero(P);
    out.dual = Vector::Zero(P);
    out.status.assign(std::size_t(P), Status::NoConvergence);
    out.iterations.assign(std::size_t(P), 0);
    ActiveSetRounds rounds(backend, X, y, C, costs, out);
    std::vector<Index> open(static_cast<std::size_t>(P));
    for (Index p = 0; p < P; ++p) open[std::size_t(p)] = p;
    for (int round = 0; round <= max_rounds && !open.empty(); ++round)
        open = rounds.round(open, round, round == max_rounds, gap_tolerance);
    return out;
}

namespace {

// The host pair solver on the problems `which` of the batch, started from starts.col(p) (or 0
// when starts is empty); their results replace those in `out` (inner counts added) where
// `replace(status)` accepts the host's status.
template <class Replace>
void host_solve(const Matrix& X, const Vector& y, const Vector& C, const Matrix& costs,
                const Matrix& starts, const std::vector<Index>& which, double gap_tolerance,
                std::int64_t max_iterations, L2L1BatchResult& out, Replace replace) {
    if (which.empty()) return;
    const Index L = Index(which.size());
    Vector C_which(L);
    Matrix costs_which(X.cols(), L), beta_which = Matrix::Zero(X.rows(), L);
    for (Index q = 0; q < L; ++q) {
        const Index p = which[std::size_t(q)];
        C_which[q] = C[p];
        costs_which.col(q) = costs.col(p);
        if (starts.size() > 0) beta_which.col(q) = starts.col(p);
    }
    const L2L1BatchResult host = solve_l2_l1_svm_batch(X, y, C_which, costs_which, beta_which,
                                                       gap_tolerance, max_iterations);
    for (Index q = 0; q < L; ++q) {
        const Index p = which[std::size_t(q)];
        out.iterations[std::size_t(p)] += host.iterations[std::size_t(q)];
        if (!replace(host.status[std::size_t(q)])) continue;
        out.beta.col(p) = host.beta.col(q);
        out.w.col(p) = host.w.col(q);
        out.b[p] = host.b[q];
        out.primal[p] = host.primal[q];
        out.dual[p] = host.dual[q];
        out.status[std::size_t(p)] = host.status[std::size_t(q)];
    }
}

std::vector<Index> unsolved(const L2L1BatchResult& r) {
    std::vector<Index> left;
    for (std::size_t p = 0; p < r.status.size(); ++p)
        if (r.status[p] != Status::Success) left.push_back(Index(p));
    return left;
}

}  // namespace

L2L1BatchResult solve_l2_l1_batched(Backend& backend, const Matrix& X, const Vector& y,
                                    const Vector& C, const Matrix& costs, const Matrix& warm_beta,
                                    double gap_tolerance, std::int64_t max_iterations) {
    L2L1BatchResult out =
        solve_l2_l1_active_set(backend, X, y, C, costs, warm_beta, gap_tolerance);
    const Matrix rounds_beta = out.beta;
    const auto always = [](Status) { return true; };
    host_solve(X, y, C, costs, rounds_beta, unsolved(out), gap_tolerance, max_iterations, out,
               always);
    // Where the pair solver cannot finish from the rounds' point (pair steps that no longer
    // move beta in floating point), it runs once more from the caller's start, as without the
    // rounds, its answer taken when that one finishes.
    host_solve(X, y, C, costs, warm_beta, unsolved(out), gap_tolerance, max_iterations, out,
               [](Status s) { return s == Status::Success; });
    return out;
}

}  // namespace zeronorm::detail
