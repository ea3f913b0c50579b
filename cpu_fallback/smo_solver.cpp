#include "smo_solver.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "smo_common.hpp"
#include "zeronorm/error.hpp"

namespace zeronorm::cpu {
namespace {

constexpr double kTau = 1e-12;  // LIBSVM's clamp of a non-positive curvature (non-PSD kernels)
constexpr double kInf = std::numeric_limits<double>::infinity();

// State of one SMO run. Notation follows LIBSVM / Fan et al.: alpha (our beta), gradient G of
// f(alpha) = 1/2 alpha'Q alpha - 1'alpha, G_bar_i = sum_{j at upper bound} C Q_ij (to rebuild G
// for shrunk variables), QD = diag(Q).
class Solver {
public:
    Solver(KernelColumns& kernel, const Vector& y, const SmoOptions& options)
        : kernel_(kernel), y_(y), C_(options.C), ridge_(options.ridge), eps_(options.tolerance),
          shrinking_(options.shrinking), n_(y.size()) {
        QD_ = kernel_.diagonal().array() + ridge_;
        max_iterations_ = options.max_iterations > 0
                              ? options.max_iterations
                              : std::max<std::int64_t>(10'000'000, 100 * std::int64_t(n_));
    }

    SmoResult run(const Vector& alpha0) {
        alpha_ = alpha0;
        active_.resize(static_cast<std::size_t>(n_));
        for (Index i = 0; i < n_; ++i) active_[static_cast<std::size_t>(i)] = i;
        init_gradient();

        SmoResult result;
        std::int64_t iter = 0;
        Index shrink_counter = std::min<Index>(n_, 1000);
        Status status = Status::NoConvergence;
        while (iter < max_iterations_) {
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
            ++iter;
            update_pair(i, j);
        }
        if (status != Status::Success) reconstruct_gradient();

        result.beta = alpha_;
        result.iterations = iter;
        result.status = status;
        result.bias = smo_detail::smo_bias(alpha_, G_, y_, C_);
        result.objective = smo_detail::smo_objective(alpha_, G_);
        result.kkt_gap = smo_detail::smo_kkt_gap(alpha_, G_, y_, C_);
        return result;
    }

private:
    bool is_upper(Index i) const { return alpha_[i] >= C_; }
    bool is_lower(Index i) const { return alpha_[i] <= 0.0; }

    // Q_ij for all j from the kernel column i: y_i y_j (K_ij + ridge [i==j]).
    double q(const double* K_i, Index i, Index j) const {
        return y_[i] * y_[j] * (K_i[j] + (i == j ? ridge_ : 0.0));
    }

    void init_gradient() {
        G_ = Vector::Constant(n_, -1.0);
        G_bar_ = Vector::Zero(n_);
        for (Index i = 0; i < n_; ++i) {
            if (is_lower(i)) continue;
            const double* K_i = kernel_.column(i);
            for (Index j = 0; j < n_; ++j) G_[j] += alpha_[i] * q(K_i, i, j);
            if (is_upper(i))
                for (Index j = 0; j < n_; ++j) G_bar_[j] += C_ * q(K_i, i, j);
        }
    }

    // WSS2: i maximises -y_i G_i over I_up; j minimises the second-order decrease
    // -(b_ij^2)/a_ij over I_low with b_ij > 0. Returns true when m - M < eps (optimal).
    bool select_working_set(Index& out_i, Index& out_j) {
        double G_max = -kInf, G_max2 = -kInf;
        Index i = -1;
        for (Index t : active_) {
            if (y_[t] > 0) {
                if (!is_upper(t) && -G_[t] >= G_max) { G_max = -G_[t]; i = t; }
            } else {
                if (!is_lower(t) && G_[t] >= G_max) { G_max = G_[t]; i = t; }
            }
        }
        const double* K_i = i >= 0 ? kernel_.column(i) : nullptr;
        Index j = -1;
        double obj_diff_min = kInf;
        for (Index t : active_) {
            double grad_diff;
            if (y_[t] > 0) {
                if (is_lower(t)) continue;
                G_max2 = std::max(G_max2, G_[t]);
                grad_diff = G_max + G_[t];
            } else {
                if (is_upper(t)) continue;
                G_max2 = std::max(G_max2, -G_[t]);
                grad_diff = G_max - G_[t];
            }
            if (grad_diff <= 0 || K_i == nullptr) continue;
            // a_it = K_ii + K_tt - 2 K_it (+ ridge on both diagonals)
            const double quad = QD_[i] + QD_[t] - 2.0 * K_i[t] - (i == t ? 2.0 * ridge_ : 0.0);
            const double obj_diff = -(grad_diff * grad_diff) / (quad > 0 ? quad : kTau);
            if (obj_diff <= obj_diff_min) { obj_diff_min = obj_diff; j = t; }
        }
        out_i = i;
        out_j = j;
        return G_max + G_max2 < eps_ || j == -1;
    }

    void update_pair(Index i, Index j) {
        const double* K_i = kernel_.column(i);
        const double* K_j = kernel_.column(j);
        const double old_i = alpha_[i], old_j = alpha_[j];
        const double Q_ij = q(K_i, i, j);
        double& a_i = alpha_[i];
        double& a_j = alpha_[j];
        if (y_[i] != y_[j]) {
            double quad = QD_[i] + QD_[j] + 2.0 * Q_ij;
            if (quad <= 0) quad = kTau;
            const double delta = (-G_[i] - G_[j]) / quad;
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
            if (quad <= 0) quad = kTau;
            const double delta = (G_[i] - G_[j]) / quad;
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
        const double d_i = a_i - old_i, d_j = a_j - old_j;
        for (Index t : active_) G_[t] += q(K_i, i, t) * d_i + q(K_j, j, t) * d_j;

        // Keep G_bar current when a variable enters or leaves the upper bound.
        const bool was_upper_i = old_i >= C_, was_upper_j = old_j >= C_;
        if (was_upper_i != is_upper(i)) {
            const double sign = is_upper(i) ? C_ : -C_;
            K_i = kernel_.column(i);
            for (Index t = 0; t < n_; ++t) G_bar_[t] += sign * q(K_i, i, t);
        }
        if (was_upper_j != is_upper(j)) {
            const double sign = is_upper(j) ? C_ : -C_;
            K_j = kernel_.column(j);
            for (Index t = 0; t < n_; ++t) G_bar_[t] += sign * q(K_j, j, t);
        }
    }

    // Rebuilds G for the shrunk (inactive) variables and reactivates all of them.
    void reconstruct_gradient() {
        if (static_cast<Index>(active_.size()) == n_) return;
        std::vector<char> is_active(static_cast<std::size_t>(n_), 0);
        for (Index t : active_) is_active[static_cast<std::size_t>(t)] = 1;
        std::vector<Index> inactive;
        for (Index t = 0; t < n_; ++t)
            if (!is_active[static_cast<std::size_t>(t)]) inactive.push_back(t);
        for (Index t : inactive) G_[t] = G_bar_[t] - 1.0;
        for (Index i = 0; i < n_; ++i) {
            if (is_lower(i) || is_upper(i)) continue;  // free variables only
            const double* K_i = kernel_.column(i);
            for (Index t : inactive) G_[t] += alpha_[i] * q(K_i, i, t);
        }
        active_.resize(static_cast<std::size_t>(n_));
        for (Index t = 0; t < n_; ++t) active_[static_cast<std::size_t>(t)] = t;
    }

    bool be_shrunk(Index i, double G_max1, double G_max2) const {
        if (is_upper(i)) return y_[i] > 0 ? -G_[i] > G_max1 : -G_[i] > G_max2;
        if (is_lower(i)) return y_[i] > 0 ? G_[i] > G_max2 : G_[i] > G_max1;
        return false;
    }

    void do_shrinking() {
        double G_max1 = -kInf, G_max2 = -kInf;  // max -yG over I_up; max yG over I_low
        for (Index t : active_) {
            if (y_[t] > 0) {
                if (!is_upper(t)) G_max1 = std::max(G_max1, -G_[t]);
                if (!is_lower(t)) G_max2 = std::max(G_max2, G_[t]);
            } else {
                if (!is_upper(t)) G_max2 = std::max(G_max2, -G_[t]);
                if (!is_lower(t)) G_max1 = std::max(G_max1, G_[t]);
            }
        }
        if (!unshrunk_ && G_max1 + G_max2 <= eps_ * 10) {
            unshrunk_ = true;
            reconstruct_gradient();
        }
        active_.erase(std::remove_if(active_.begin(), active_.end(),
                                     [&](Index t) { return be_shrunk(t, G_max1, G_max2); }),
                      active_.end());
    }

    KernelColumns& kernel_;
    const Vector& y_;
    double C_, ridge_, eps_;
    bool shrinking_;
    Index n_;
    std::int64_t max_iterations_;
    bool unshrunk_ = false;
    Vector alpha_, G_, G_bar_, QD_;
    std::vector<Index> active_;
};

}  // namespace

SmoResult solve_smo(KernelColumns& kernel, const Vector& y, const SmoOptions& options,
                    const Vector* warm_start) {
    options.validate();
    const Index n = kernel.size();
    ZN_EXPECTS_DIM(y.size() == n, "SMO: " << y.size() << " labels for a kernel of size " << n);
    smo_detail::check_smo_labels(y);
    ZN_EXPECTS(kernel.diagonal().allFinite(), "SMO: the kernel diagonal is not finite");
    const Vector alpha0 = smo_detail::smo_starting_point(warm_start, y, options.C);
    Solver solver(kernel, y, options);
    return solver.run(alpha0);
}

}  // namespace zeronorm::cpu
