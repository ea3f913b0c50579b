#include "smo_solver.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "solvers/smo_common.hpp"
#include "zeronorm/core/error.hpp"

namespace zeronorm::cpu {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The loops of one iteration over the active set, as free functions of the position k of each
// active variable t = at(k): AllActive (t = k) while nothing is shrunk, where the compiler
// vectorises them, ListedActive otherwise. They have no data-dependent branches (a branch per
// element on y_t or on the bounds is mispredicted about half the time), and restrict lets the
// compiler vectorise without run-time alias checks. Outputs are indexed by k.
struct AllActive {
    Index operator()(Index k) const { return k; }
};
struct ListedActive {
    const Index* list;
    Index operator()(Index k) const { return list[k]; }
};

// v_k = -y_t G_t on I_up and w_k = y_t G_t on I_low, -inf elsewhere (the masks are 0 or -inf).
template <class At>
void set_values(At at, Index m, const double* __restrict yG, const double* __restrict up_mask,
                const double* __restrict low_mask, double* __restrict v, double* __restrict w) {
    for (Index k = 0; k < m; ++k) {
        v[k] = up_mask[at(k)] - yG[at(k)];
        w[k] = yG[at(k)] + low_mask[at(k)];
    }
}

// a_k = a_it = Q_ii + Q_tt - 2 y_i y_t Q_it = QD_i + QD_t - 2 K_it (t != i), clamped to tau when
// not positive as in LIBSVM. Apart from the division of WSS2: GCC turns a select that feeds a
// division (which may trap) into a branch.
template <class At>
void curvatures(At at, Index m, double QD_i, const double* __restrict QD,
                const double* __restrict K_i, double* __restrict a) {
    for (Index k = 0; k < m; ++k) {
        const double a_it = QD_i + QD[at(k)] - 2.0 * K_i[at(k)];
        a[k] = rules::pair_curvature(a_it);
    }
}

// y_t G_t += c_i K_ti + c_j K_tj.
template <class At>
void update_gradient(At at, Index m, double c_i, const double* __restrict K_i, double c_j,
                     const double* __restrict K_j, double* __restrict yG) {
    for (Index k = 0; k < m; ++k) yG[at(k)] += c_i * K_i[at(k)] + c_j * K_j[at(k)];
}

// State of one SMO run. Notation follows LIBSVM / Fan et al.: alpha (our beta), gradient G of
// f(alpha) = 1/2 alpha'Q alpha - 1'alpha, G_bar_i = sum_{j at upper bound} C Q_ij (to rebuild G
// for shrunk variables), QD = diag(Q), I_up = {t : y_t = +1, alpha_t < C or y_t = -1,
// alpha_t > 0}, I_low = {t : y_t = +1, alpha_t > 0 or y_t = -1, alpha_t < C}.
//
// Layout for speed on small dense problems, where each iteration is a few short passes over the
// active set and branches on y_t and on the bounds were mispredicted: the solver keeps
// yG_t = y_t G_t (and yG_bar_t = y_t G_bar_t) rather than G, since every quantity WSS2 compares
// is +-y_t G_t and the update of yG needs no labels (Q_ti y_t = y_i K_ti); set membership is kept
// as additive masks (0 for members, -inf otherwise), rewritten only for the two variables that
// move.
class Solver {
public:
    // linear: the linear term p of 1/2 beta'Q beta + p'beta (all -1 for the SVM dual).
    Solver(KernelColumns& kernel, const Vector& y, const Vector& linear, const SmoOptions& options)
        : kernel_(kernel), y_(y), C_(options.C), ridge_(options.ridge), eps_(options.tolerance),
          shrinking_(options.shrinking), n_(y.size()) {
        yp_ = y.cwiseProduct(linear);
        QD_ = kernel_.diagonal().array() + ridge_;
        max_iterations_ = smo_detail::smo_iteration_cap(options, n_);
    }

    SmoResult run(const Vector& alpha0) {
        alpha_ = alpha0;
        up_mask_.resize(n_);
        low_mask_.resize(n_);
        v_.resize(n_);
        w_.resize(n_);
        obj_.resize(n_);
        for (Index t = 0; t < n_; ++t) update_masks(t);
        init_gradient();

        SmoResult result;
        std::int64_t iter = 0;
        Index shrink_counter = std::min<Index>(n_, 1000);
        Status status = Status::NoConvergence;
        // The point is checked before the cap: one that the last allowed step made optimal
        // is a success (as on the CUDA backend).
        for (;;) {
            if (shrinking_ && --shrink_counter == 0) {
                shrink_counter = std::min<Index>(n_, 1000);
                do_shrinking();
            }
            Index i = -1, j = -1;
            if (select_working_set(i, j)) {
                // Optimal on the active set: check the whole problem before stopping.
                reconstruct_gradient();
                if (select_working_set(i, j)) {
                    status = Status::Success;
                    break;
                }
                shrink_counter = 1;  // shrink again at the next iteration
            }
            if (iter >= max_iterations_) break;
            ++iter;
            update_pair(i, j);
        }
        if (status != Status::Success) reconstruct_gradient();

        // y_t = +-1, so G_t = y_t (y_t G_t) exactly.
        const Vector G = y_.cwiseProduct(yG_);
        result.beta = alpha_;
        result.iterations = iter;
        result.status = status;
        result.bias = smo_detail::smo_bias(alpha_, G, y_, C_);
        // 1/2 beta'(G + p), as smo_objective's 1/2 beta'(G - 1) shifted by p + 1 (exactly 0 for
        // the SVM dual).
        result.objective =
            smo_detail::smo_objective(alpha_, G + (y_.cwiseProduct(yp_).array() + 1.0).matrix());
        result.kkt_gap = smo_detail::smo_kkt_gap(alpha_, G, y_, C_);
        return result;
    }

private:
    bool is_upper(Index i) const { return alpha_[i] >= C_; }
    bool is_lower(Index i) const { return alpha_[i] <= 0.0; }
    bool in_up(Index t) const { return smo_detail::in_up(y_[t], alpha_[t], C_); }
    bool in_low(Index t) const { return smo_detail::in_low(y_[t], alpha_[t], C_); }

    void update_masks(Index t) {
        up_mask_[t] = in_up(t) ? 0.0 : -kInf;
        low_mask_[t] = in_low(t) ? 0.0 : -kInf;
    }

    // Runs kernel(at, m) over the m active variables; returns m.
    template <class Kernel>
    Index with_active(Kernel&& kernel) const {
        if (!shrunk_) {
            kernel(AllActive{}, n_);
            return n_;
        }
        const Index m = static_cast<Index>(active_.size());
        kernel(ListedActive{active_.data()}, m);
        return m;
    }
    Index active_at(Index k) const { return shrunk_ ? active_[static_cast<std::size_t>(k)] : k; }

    // The last k < m with v_k == value (a value taken from v.head(m)): LIBSVM's loops keep the
    // last of equal candidates.
    static Index last_equal(const Vector& v, Index m, double value) {
        Index k = m - 1;
        while (k > 0 && v[k] != value) --k;
        return k;
    }

    // yG_t += s y_t Q_ti = s y_i (K_ti + ridge [t==i]) for all t. Entry i is redone as
    // old + s y_i (K_ii + ridge), which rounds as the update of G did before, so that
    // yG_t = y_t G_t holds to the bit.
    void add_column(Vector& yG, const double* K_i, Index i, double s) const {
        const double c = s * y_[i];
        const double old_i = yG[i];
        double* out = yG.data();
        for (Index t = 0; t < n_; ++t) out[t] += c * K_i[t];
        out[i] = old_i + c * (K_i[i] + ridge_);
    }

    void init_gradient() {
        yG_ = yp_;  // G = p
        yG_bar_ = Vector::Zero(n_);
        for (Index i = 0; i < n_; ++i) {
            if (is_lower(i)) continue;
            const double* K_i = kernel_.column(i);
            add_column(yG_, K_i, i, alpha_[i]);
            if (is_upper(i)) add_column(yG_bar_, K_i, i, C_);
        }
    }

    // WSS2: i maximises -y_i G_i over I_up; j minimises the second-order decrease
    // -(b_ij^2)/a_ij over I_low with b_ij > 0. Returns true when m - M < eps (optimal).
    // K_i_ keeps column i for update_pair (valid until two further column() calls).
    //
    // Each arg-max is a branch-free pass writing the values into scratch, a vectorised Eigen
    // reduction, and a backward scan for the last position holding the extreme value, which
    // keeps LIBSVM's choice among ties (the last one).
    bool select_working_set(Index& out_i, Index& out_j) {
        out_i = out_j = -1;
        const Index m = with_active([&](auto at, Index count) {
            set_values(at, count, yG_.data(), up_mask_.data(), low_mask_.data(), v_.data(),
                       w_.data());
        });
        if (m == 0) return true;
        const double G_max = v_.head(m).maxCoeff();
        if (G_max == -kInf) return true;  // I_up is empty
        const Index i = out_i = active_at(last_equal(v_, m, G_max));

        const double* K_i = K_i_ = kernel_.column(i);
        with_active([&](auto at, Index count) {
            curvatures(at, count, QD_[i], QD_.data(), K_i, obj_.data());
        });
        const double G_max2 = w_.head(m).maxCoeff();
        // b_it = G_max + y_t G_t. Non-candidates (b_it <= 0, t off I_low, and t = i, where
        // b_ii = 0 so that the ridge on Q_ii never enters a_it) score -0 and lose to every
        // candidate (but one with b_it^2 below the smallest double, far inside any tolerance).
        auto obj = obj_.head(m).array();
        obj = -(w_.head(m).array() + G_max).max(0.0).square() / obj;
        const double obj_min = obj.minCoeff();
        if (obj_min < 0) out_j = active_at(last_equal(obj_, m, obj_min));
        return G_max + G_max2 <= eps_ || out_j == -1;
    }

    void update_pair(Index i, Index j) {
        const double* K_i = K_i_;  // from select_working_set; one further call keeps it valid
        const double* K_j = kernel_.column(j);
        const double old_i = alpha_[i], old_j = alpha_[j];
        const double G_i = y_[i] * yG_[i], G_j = y_[j] * yG_[j];
        const double Q_ij = y_[i] * y_[j] * K_i[j];  // i != j
        double& a_i = alpha_[i];
        double& a_j = alpha_[j];
        if (y_[i] != y_[j]) {
            double quad = QD_[i] + QD_[j] + 2.0 * Q_ij;
            quad = rules::pair_curvature(quad);
            const double delta = (-G_i - G_j) / quad;
            const double diff = a_i - a_j;
            a_i += delta;
            a_j += delta;
            if (diff > 0) {
                if (a_j < 0) { a_j = 0; a_i = diff; }
            } else {
                if (a_i < 0) { a_i = 0; a_j = -diff; }
            }
            if (diff > 0) {  // C_i == C_j, so diff > C_i - C_j reads diff > 0
                if (a_i > C_) { a_i = C_; a_j = C_ - diff; }
            } else {
                if (a_j > C_) { a_j = C_; a_i = C_ + diff; }
            }
        } else {
            double quad = QD_[i] + QD_[j] - 2.0 * Q_ij;
            quad = rules::pair_curvature(quad);
            const double delta = (G_i - G_j) / quad;
            const double sum = a_i + a_j;
            a_i -= delta;
            a_j += delta;
            if (sum > C_) {
                if (a_i > C_) { a_i = C_; a_j = sum - C_; }
            } else {
                if (a_j < 0) { a_j = 0; a_i = sum; }
            }
            if (sum > C_) {
                if (a_j > C_) { a_j = C_; a_i = sum - C_; }
            } else {
                if (a_i < 0) { a_i = 0; a_j = sum; }
            }
        }
        update_masks(i);
        update_masks(j);

        // y_t G_t += y_i d_i (K_ti + ridge [t==i]) + y_j d_j (K_tj + ridge [t==j]); the loop
        // leaves out the ridge, entries i and j are redone with it (rounded as in add_column).
        const double c_i = y_[i] * (a_i - old_i), c_j = y_[j] * (a_j - old_j);
        const double yG_i = yG_[i], yG_j = yG_[j];
        with_active([&](auto at, Index m) {
            update_gradient(at, m, c_i, K_i, c_j, K_j, yG_.data());
        });
        yG_[i] = yG_i + (c_i * (K_i[i] + ridge_) + c_j * K_j[i]);
        yG_[j] = yG_j + (c_i * K_i[j] + c_j * (K_j[j] + ridge_));

        // Keep G_bar current when a variable enters or leaves the upper bound.
        if ((old_i >= C_) != is_upper(i)) add_column(yG_bar_, K_i, i, is_upper(i) ? C_ : -C_);
        if ((old_j >= C_) != is_upper(j)) add_column(yG_bar_, K_j, j, is_upper(j) ? C_ : -C_);
    }

    // Rebuilds G for the shrunk (inactive) variables and reactivates all of them.
    void reconstruct_gradient() {
        if (!shrunk_) return;
        std::vector<char> is_active(static_cast<std::size_t>(n_), 0);
        for (Index t : active_) is_active[static_cast<std::size_t>(t)] = 1;
        std::vector<Index> inactive;
        for (Index t = 0; t < n_; ++t)
            if (!is_active[static_cast<std::size_t>(t)]) inactive.push_back(t);
        for (Index t : inactive) yG_[t] = yG_bar_[t] + yp_[t];
        for (Index i = 0; i < n_; ++i) {
            if (is_lower(i) || is_upper(i)) continue;  // free variables only, never shrunk
            const double* K_i = kernel_.column(i);
            const double c = alpha_[i] * y_[i];
            for (Index t : inactive) yG_[t] += c * K_i[t];  // t != i: no ridge term
        }
        shrunk_ = false;
        active_.clear();
    }

    // As LIBSVM: a variable at a bound leaves the active set when it is only in I_up with
    // -y_t G_t below -G_max2, or only in I_low with y_t G_t below -G_max1.
    bool be_shrunk(Index t, double G_max1, double G_max2) const {
        const bool up = up_mask_[t] == 0.0, low = low_mask_[t] == 0.0;
        if (up && low) return false;  // free
        return up ? yG_[t] > G_max2 : -yG_[t] > G_max1;
    }

    void do_shrinking() {
        double G_max1 = -kInf, G_max2 = -kInf;  // max -yG over I_up; max yG over I_low
        const Index m = with_active([&](auto at, Index count) {
            set_values(at, count, yG_.data(), up_mask_.data(), low_mask_.data(), v_.data(),
                       w_.data());
        });
        if (m > 0) {
            G_max1 = v_.head(m).maxCoeff();
            G_max2 = w_.head(m).maxCoeff();
        }
        if (!unshrunk_ && G_max1 + G_max2 <= eps_ * 10) {
            unshrunk_ = true;
            reconstruct_gradient();
        }
        if (!shrunk_) {
            active_.resize(static_cast<std::size_t>(n_));
            for (Index t = 0; t < n_; ++t) active_[static_cast<std::size_t>(t)] = t;
        }
        active_.erase(std::remove_if(active_.begin(), active_.end(),
                                     [&](Index t) { return be_shrunk(t, G_max1, G_max2); }),
                      active_.end());
        shrunk_ = static_cast<Index>(active_.size()) < n_;
        if (!shrunk_) active_.clear();
    }

    KernelColumns& kernel_;
    const Vector& y_;
    double C_, ridge_, eps_;
    bool shrinking_;
    Index n_;
    std::int64_t max_iterations_;
    bool unshrunk_ = false;
    Vector alpha_, yG_, yG_bar_, QD_, yp_;
    Vector up_mask_, low_mask_;  // 0 on I_up (I_low), -inf elsewhere
    Vector v_, w_, obj_;  // scratch, by position in the active set
    const double* K_i_ = nullptr;
    bool shrunk_ = false;         // active_ lists the active variables only while shrunk_
    std::vector<Index> active_;
};

}  // namespace

SmoResult solve_smo(KernelColumns& kernel, const Vector& y, const SmoOptions& options,
                    const Vector* warm_start, const SmoTerms& terms) {
    options.validate();
    const Index n = kernel.size();
    ZN_EXPECTS_DIM(y.size() == n, "SMO: " << y.size() << " labels for a kernel of size " << n);
    smo_detail::check_smo_labels(y);
    ZN_EXPECTS(kernel.diagonal().allFinite(), "SMO: the kernel diagonal is not finite");
    const Vector alpha0 = smo_detail::smo_starting_point(warm_start, y, options.C, terms.delta);
    Solver solver(kernel, y, terms.p.size() > 0 ? terms.p : Vector::Constant(n, -1.0), options);
    return solver.run(alpha0);
}

SmoResult solve_smo_linear(KernelColumns& kernel, const Vector& y, const Vector& linear,
                           const Vector& start, const SmoOptions& options) {
    options.validate();
    const Index n = kernel.size();
    ZN_EXPECTS_DIM(y.size() == n && linear.size() == n && start.size() == n,
                   "SMO: " << y.size() << " labels, " << linear.size() << " linear terms and "
                           << start.size() << " starting values for a kernel of size " << n);
    ZN_EXPECTS(kernel.diagonal().allFinite(), "SMO: the kernel diagonal is not finite");
    ZN_EXPECTS(linear.allFinite(), "SMO: the linear term is not finite");
    Solver solver(kernel, y, linear, options);
    return solver.run(start);
}

}  // namespace zeronorm::cpu
