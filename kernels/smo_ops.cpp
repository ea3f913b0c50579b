// The CUDA backend's SMO operations: every SMO problem runs in the batched kernels of smo.cu
// (one launch for a whole batch), the Newton finish in newton.cu; the host prepares the
// starting points and, from the downloaded beta and gradient, each problem's bias, objective
// and gap with the functions the CPU solvers use.
#include <algorithm>
#include <climits>
#include <vector>

#include "core/batch_shapes.hpp"
#include "core/op_shapes.hpp"
#include "cuda_context.hpp"
#include "solvers/decomposition_smo.hpp"
#include "solvers/dense_dual.hpp"
#include "solvers/smo_common.hpp"
#include "zeronorm/core/ops/smo_ops.hpp"

namespace zeronorm::cuda_detail {
namespace {

// The result of one problem from its final beta and gradient G = Q beta + p and the kernel's
// outcome.
SmoResult finish_smo_result(const Vector& beta, const Vector& G, const Vector& y, const Vector& p,
                            const SmoDeviceOutcome& outcome, double C) {
    SmoResult r = smo_detail::smo_result(beta, G, y, C, p);
    r.iterations = outcome.iterations;
    r.status = outcome.status == kSmoConverged ? Status::Success : Status::NoConvergence;
    if (!beta.allFinite() || !G.allFinite()) r.status = Status::NumericalIssue;
    return r;
}

// The batch's terms restricted to the problems `which`.
SmoBatchTerms select_terms(const SmoBatchTerms& terms, const std::vector<Index>& which) {
    SmoBatchTerms out;
    const auto Q = Index(which.size());
    if (terms.p.size() > 0) out.p.resize(terms.p.rows(), Q);
    if (terms.delta.size() > 0) out.delta.resize(Q);
    for (Index k = 0; k < Q; ++k) {
        if (terms.p.size() > 0) out.p.col(k) = terms.p.col(which[std::size_t(k)]);
        if (terms.delta.size() > 0) out.delta[k] = terms.delta[which[std::size_t(k)]];
    }
    return out;
}

class CudaSmoOps final : public SmoOps {
public:
    explicit CudaSmoOps(CudaBackend& backend) : b_(backend) {}

    // The batched solver with one problem (its launcher gives a lone large problem the whole
    // 1024-thread block).
    SmoResult solve(const DeviceMatrix& K, const Vector& y, const SmoOptions& options,
                    const Vector* warm_start, const SmoTerms& terms) override {
        detail::check_smo(K, y, terms.p, terms.delta);
        const Matrix warm = warm_start != nullptr ? Matrix(*warm_start) : Matrix();
        SmoBatchTerms batch_terms;
        if (terms.p.size() > 0) batch_terms.p = terms.p;
        if (terms.delta != 0.0) batch_terms.delta = Vector::Constant(1, terms.delta);
        return solve_batch(K, Matrix(y), options, warm_start != nullptr ? &warm : nullptr, {},
                           batch_terms)
            .front();
    }

    SmoResult solve(const KernelSpec& spec, const DeviceMatrix& X, const Vector& y,
                    const SmoOptions& options, const Vector* warm_start) override;

    SmoResult solve_working_set(const DeviceMatrix& K, const Vector& y, const Vector& beta,
                                const Vector& gradient, const SmoOptions& options) override;

    std::vector<SmoResult> solve_batch(const DeviceMatrix& K, const Matrix& Y,
                                       const SmoOptions& options, const Matrix* warm_start,
                                       const std::vector<char>& active,
                                       const SmoBatchTerms& terms) override;

    std::vector<SmoResult> newton_finish_batch(const DeviceMatrix& K, const Matrix& Y,
                                               const Matrix& beta, const SmoOptions& options,
                                               const std::vector<char>& open,
                                               const SmoBatchTerms& terms) override;

private:
    // One launch of the batched SMO kernels from the starting points beta0 (n x P), whose
    // gradients come from Kv = K_q (y_q o beta0_q), computed here, or Kv_given; the problems
    // with flags[q] == 0 are skipped (empty results).
    std::vector<SmoResult> launch_smo(const DeviceMatrix& K, const Matrix& Y, const Matrix& beta0,
                                      const Matrix* Kv_given, const std::vector<int>& flags,
                                      const SmoOptions& options, i64 max_iterations,
                                      const Matrix& linear);
    // The host rule (detail::newton_finish) on the problems `which`, their kernel blocks
    // gathered and downloaded; results in `out`.
    void finish_on_host(const DeviceMatrix& K, const Matrix& Y, const Matrix& beta,
                        const SmoOptions& options, const SmoBatchTerms& terms,
                        const std::vector<Index>& which, std::vector<SmoResult>& out);

    CudaBackend& b_;
};

// Up to kFullKernelPoints points, the kernel computed in full on the device when it fits, then
// the precomputed solver; beyond, or when it does not fit, the decomposition solver. On an H200
// the decomposition was about twice as fast as the full kernel at n = 32,561 (a9a: 0.24 s
// against 0.49 s) and n = 49,990 (ijcnn1: 0.25 s against 0.58 s), where forming the n x n
// kernel alone moves 8-20 GB; bench/RESULTS.md.
constexpr Index kFullKernelPoints = 20000;

SmoResult CudaSmoOps::solve(const KernelSpec& spec, const DeviceMatrix& X, const Vector& y,
                            const SmoOptions& options, const Vector* warm_start) {
    OpScope scope(b_, "smo.solve");
    options.validate();
    const Index n = X.rows();
    ZN_EXPECTS_DIM(y.size() == n, "solve_smo: X is " << detail::shape(X) << " but y has "
                                                     << y.size() << " entries");
    smo_detail::check_smo_labels(y);
    spec.validate(X.cols());
    b_.require_device_memory(X, "X", "solve_smo");

    const std::size_t kernel_bytes = checked_bytes(n, n, sizeof(double), "solve_smo");
    // Scratch besides K: a scaled copy of X (WeightedRbf), norms and the solver's vectors.
    const std::size_t scratch = checked_bytes(n, X.cols() + 8, sizeof(double), "solve_smo");
    const std::size_t free_bytes = b_.free_memory();  // the pool's unused memory counts
    const std::size_t headroom =
        std::max<std::size_t>(std::size_t{256} << 20, b_.total_memory() / 50);
    const bool fits = kernel_bytes <= free_bytes && scratch <= free_bytes - kernel_bytes &&
                      headroom <= free_bytes - kernel_bytes - scratch;
    if (fits && n <= kFullKernelPoints)
        return solve(b_.kernel_matrix(spec, X, X), y, options, warm_start, {});

    // Decomposition with a kernel-column cache in the free memory: the cache, and per round the
    // working set's columns and the newly computed ones (2 q columns besides the cache).
    detail::DecompositionOptions decomposition;
    decomposition.working_set = std::min<Index>(decomposition.working_set, n);
    const std::size_t column_bytes = checked_bytes(n, 1, sizeof(double), "solve_smo");
    const std::size_t usable = free_bytes > headroom + scratch ? free_bytes - headroom - scratch : 0;
    const auto columns = static_cast<Index>(usable / column_bytes) - 2 * decomposition.working_set;
    if (columns < decomposition.working_set)
        throw OutOfDeviceMemory(checked_bytes(n, 3 * decomposition.working_set, sizeof(double),
                                              "solve_smo") + scratch + headroom);
    decomposition.cache_columns = std::min<Index>(columns, n);
    return detail::solve_smo_decomposition(b_, spec, X, y, options, decomposition, warm_start);
}

// All problems in one launch of the SMO kernels of smo.cu. Device memory beyond K: 5 n doubles
// per problem (y, beta, G, Q_tt, K(y o beta) for a warm start), and n more with a linear term.
std::vector<SmoResult> CudaSmoOps::solve_batch(const DeviceMatrix& K, const Matrix& Y,
                                               const SmoOptions& options,
                                               const Matrix* warm_start,
                                               const std::vector<char>& active,
                                               const SmoBatchTerms& terms) {
    OpScope scope(b_, "smo.solve_batch");
    detail::check_smo_batch(K, Y, warm_start, active, terms, options);
    b_.require_device_memory(K, "K", "solve_smo_batch");
    const Index n = Y.rows();
    const Index P = Y.cols();
    ZN_EXPECTS(n <= INT_MAX, "solve_smo_batch: n = " << n << " is too large");
    std::vector<int> flags(static_cast<std::size_t>(P), 0);
    for (Index q = 0; q < P; ++q) flags[std::size_t(q)] = active.empty() || active[std::size_t(q)];
    // The active problems' blocks only, as the CPU: an inactive one may hold anything.
    ZN_EXPECTS(b_.all_finite(K, n, flags),
               "solve_smo_batch: the kernel matrices contain NaN or Inf");
    Matrix beta0 = Matrix::Zero(n, P);
    for (Index q = 0; q < P; ++q) {
        if (flags[std::size_t(q)] == 0) continue;
        const Vector y = Y.col(q);
        smo_detail::check_smo_labels(y);
        const Vector w = warm_start != nullptr ? Vector(warm_start->col(q)) : Vector();
        beta0.col(q) = smo_detail::smo_starting_point(warm_start != nullptr ? &w : nullptr, y,
                                                      options.C,
                                                      smo_detail::problem_terms(terms, q).delta);
    }
    return launch_smo(K, Y, beta0, nullptr, flags, options,
                      smo_detail::smo_iteration_cap(options, n), terms.p);
}

// The subproblem's starting gradient enters the kernel's G = y o Kv + ridge beta - 1 through
// Kv = y o (gradient + 1 - ridge beta) (y = +-1).
SmoResult CudaSmoOps::solve_working_set(const DeviceMatrix& K, const Vector& y,
                                        const Vector& beta, const Vector& gradient,
                                        const SmoOptions& options) {
    OpScope scope(b_, "smo.solve_working_set");
    detail::check_smo_working_set(K, y, beta, gradient, options);
    b_.require_device_memory(K, "K", "solve_smo_working_set");
    ZN_EXPECTS(y.size() <= INT_MAX, "solve_smo_working_set: q = " << y.size() << " is too large");
    // The subproblem's linear term gradient - Q_BB beta, Q_BB beta = y o Kv + ridge beta with
    // Kv = K (y o beta), the kernel's warm start; finite, as the CPU solver checks (a NaN or Inf
    // anywhere in K makes it NaN: IEEE products with the zeros of y o beta included).
    DeviceMatrix d_Kv = b_.allocate(y.size(), 1);
    b_.gemm(false, false, 1.0, K, b_.upload(Matrix(y.cwiseProduct(beta))), 0.0, d_Kv);
    const Matrix Kv = b_.download(d_Kv);
    const Vector linear = gradient - y.cwiseProduct(Vector(Kv)) - options.ridge * beta;
    ZN_EXPECTS(linear.allFinite(), "SMO: the linear term is not finite");
    return launch_smo(K, Matrix(y), Matrix(beta), &Kv, {1}, options,
                      smo_detail::smo_iteration_cap(options, y.size()), Matrix(linear))
        .front();
}

std::vector<SmoResult> CudaSmoOps::launch_smo(const DeviceMatrix& K, const Matrix& Y,
                                              const Matrix& beta0, const Matrix* Kv_given,
                                              const std::vector<int>& flags,
                                              const SmoOptions& options, i64 max_iterations,
                                              const Matrix& linear) {
    const Index n = Y.rows();
    const Index P = Y.cols();
    const bool warm = Kv_given != nullptr || (beta0.array() != 0.0).any();
    const auto total = static_cast<std::size_t>(n * P);
    DeviceBuffer<double> d_y(total, b_.memory());
    DeviceBuffer<double> d_beta(total, b_.memory());
    DeviceBuffer<double> d_G(total, b_.memory());
    DeviceBuffer<double> d_QD(total, b_.memory());
    DeviceBuffer<double> d_Kv(warm ? total : 0, b_.memory());
    DeviceBuffer<double> d_linear(linear.size() > 0 ? total : 0, b_.memory());
    DeviceBuffer<int> d_active(static_cast<std::size_t>(P), b_.memory());
    DeviceBuffer<SmoDeviceOutcome> d_outcomes(static_cast<std::size_t>(P), b_.memory());
    b_.copy_to_device(d_y.get(), Y.data(), total);
    b_.copy_to_device(d_beta.get(), beta0.data(), total);
    b_.copy_to_device(d_linear.get(), linear.data(), static_cast<std::size_t>(linear.size()));
    b_.copy_to_device(d_active.get(), flags.data(), flags.size());
    // Poisoned: inactive problems leave G unwritten, and a wrong index shows as NaN; an
    // outcome left unwritten reads as status -1 (not converged), gap NaN.
    ZN_CUDA_TRY(cudaMemsetAsync(d_G.get(), 0xFF, total * sizeof(double), b_.stream()));
    ZN_CUDA_TRY(cudaMemsetAsync(d_outcomes.get(), 0xFF,
                                flags.size() * sizeof(SmoDeviceOutcome), b_.stream()));
    Matrix v;  // y o beta0 per problem; kept alive until the sync below
    DeviceBuffer<double> d_v(warm && Kv_given == nullptr ? total : 0, b_.memory());
    if (Kv_given != nullptr) {
        b_.copy_to_device(d_Kv.get(), Kv_given->data(), total);
    } else if (warm) {
        v = Y.cwiseProduct(beta0);
        b_.copy_to_device(d_v.get(), v.data(), total);
        const double one = 1.0;
        const double zero = 0.0;
        const int bn = blas_int(n, "solve_smo_batch");
        ZN_CUBLAS_TRY(cublasDgemmStridedBatched(b_.blas(), CUBLAS_OP_N, CUBLAS_OP_N, bn, 1, bn,
                                                &one, K.data(), bn, n * n, d_v.get(), bn, n,
                                                &zero, d_Kv.get(), bn, n,
                                                blas_int(P, "solve_smo_batch")));
    }
    SmoDeviceBatch batch;
    batch.K = K.data();
    batch.y = d_y.get();
    batch.beta = d_beta.get();
    batch.G = d_G.get();
    batch.QD = d_QD.get();
    batch.Kv = warm ? d_Kv.get() : nullptr;
    batch.linear = linear.size() > 0 ? d_linear.get() : nullptr;
    batch.active = d_active.get();
    batch.n = static_cast<int>(n);
    batch.problems = P;
    batch.C = options.C;
    batch.ridge = options.ridge;
    batch.tolerance = options.tolerance;
    batch.max_iterations = max_iterations;
    {
        const LaunchTimer timer(b_, "smo kernel");
        smo_solve_batch(batch, d_outcomes.get(), b_.limits(), b_.stream());
    }

    Matrix beta(n, P);
    Matrix G(n, P);
    std::vector<SmoDeviceOutcome> outcomes(static_cast<std::size_t>(P));
    b_.copy_to_host(beta.data(), d_beta.get(), total);
    b_.copy_to_host(G.data(), d_G.get(), total);
    b_.copy_to_host(outcomes.data(), d_outcomes.get(), outcomes.size());
    b_.sync();

    std::vector<SmoResult> results(static_cast<std::size_t>(P));
    for (Index q = 0; q < P; ++q) {
        if (flags[std::size_t(q)] == 0) continue;
        const Vector p = linear.size() > 0 ? Vector(linear.col(q)) : Vector();
        results[std::size_t(q)] = finish_smo_result(beta.col(q), G.col(q), Y.col(q), p,
                                                    outcomes[std::size_t(q)], options.C);
    }
    return results;
}

void CudaSmoOps::finish_on_host(const DeviceMatrix& K, const Matrix& Y, const Matrix& beta,
                                const SmoOptions& options, const SmoBatchTerms& terms,
                                const std::vector<Index>& which, std::vector<SmoResult>& out) {
    if (which.empty()) return;
    const Index n = Y.rows();
    const auto Q = Index(which.size());
    // The problems' blocks straight to the host (no gathered copy on the device: this path
    // also serves problems too large for the device's Newton).
    const auto block = static_cast<std::size_t>(n * n);
    Matrix K_sub(n, n * Q), Y_sub(n, Q), beta_sub(n, Q);
    for (Index k = 0; k < Q; ++k) {
        const Index p = which[std::size_t(k)];
        b_.copy_to_host(K_sub.data() + std::size_t(k) * block, K.data() + std::size_t(p) * block,
                        block);
        Y_sub.col(k) = Y.col(p);
        beta_sub.col(k) = beta.col(p);
    }
    b_.sync();
    std::vector<SmoResult> finished =
        detail::newton_finish_on_host(K_sub, Y_sub, beta_sub, options,
                                      std::vector<char>(std::size_t(Q), 1),
                                      select_terms(terms, which));
    for (Index k = 0; k < Q; ++k)
        out[std::size_t(which[std::size_t(k)])] = std::move(finished[std::size_t(k)]);
}

// One launch over the open problems, one block each. The host recomputes each finished
// problem's gap (accepting it only within the tolerance), bias and objective from the beta and
// gradient the kernel wrote, with the functions the CPU solvers use. Problems too large for a
// block's shared memory, and those whose Cholesky factorisation failed on the device, get the
// host rule, so both backends agree on a singular system.
std::vector<SmoResult> CudaSmoOps::newton_finish_batch(const DeviceMatrix& K, const Matrix& Y,
                                                       const Matrix& beta,
                                                       const SmoOptions& options,
                                                       const std::vector<char>& open,
                                                       const SmoBatchTerms& terms) {
    OpScope scope(b_, "smo.newton_finish_batch");
    detail::check_newton_finish_batch(K, Y, beta, options, open, terms);
    b_.require_device_memory(K, "K", "newton_finish_batch");
    const Index n = Y.rows();
    const Index P = Y.cols();
    std::vector<SmoResult> out(static_cast<std::size_t>(P));
    std::vector<Index> opened;
    for (Index p = 0; p < P; ++p)
        if (open[std::size_t(p)]) opened.push_back(p);
    if (n == 0 || opened.empty()) return out;
    if (n > INT_MAX || !newton_fits(static_cast<int>(n), b_.limits())) {
        finish_on_host(K, Y, beta, options, terms, opened, out);
        return out;
    }
    const auto total = static_cast<std::size_t>(n * P);
    const std::vector<int> flags(open.begin(), open.end());
    DeviceBuffer<double> d_y(total, b_.memory());
    DeviceBuffer<double> d_beta(total, b_.memory());
    DeviceBuffer<double> d_G(total, b_.memory());
    DeviceBuffer<double> d_linear(terms.p.size() > 0 ? total : 0, b_.memory());
    DeviceBuffer<double> d_delta(static_cast<std::size_t>(terms.delta.size()), b_.memory());
    DeviceBuffer<int> d_open(flags.size(), b_.memory());
    DeviceBuffer<int> d_finished(flags.size(), b_.memory());
    b_.copy_to_device(d_y.get(), Y.data(), total);
    b_.copy_to_device(d_beta.get(), beta.data(), total);
    b_.copy_to_device(d_linear.get(), terms.p.data(), static_cast<std::size_t>(terms.p.size()));
    b_.copy_to_device(d_delta.get(), terms.delta.data(),
                      static_cast<std::size_t>(terms.delta.size()));
    b_.copy_to_device(d_open.get(), flags.data(), flags.size());
    ZN_CUDA_TRY(cudaMemsetAsync(d_finished.get(), 0, flags.size() * sizeof(int), b_.stream()));
    // Written only for the problems the kernel finishes (the others are read back unused).
    ZN_CUDA_TRY(cudaMemsetAsync(d_G.get(), 0xFF, total * sizeof(double), b_.stream()));
    NewtonDeviceBatch batch;
    batch.K = K.data();
    batch.y = d_y.get();
    batch.beta = d_beta.get();
    batch.G = d_G.get();
    batch.linear = terms.p.size() > 0 ? d_linear.get() : nullptr;
    batch.delta = terms.delta.size() > 0 ? d_delta.get() : nullptr;
    batch.open = d_open.get();
    batch.finished = d_finished.get();
    batch.n = static_cast<int>(n);
    batch.problems = P;
    batch.rounds = detail::kNewtonRounds;
    batch.singular_pivot = detail::kDeviceSingularPivot;
    batch.C = options.C;
    batch.ridge = options.ridge;
    batch.tolerance = options.tolerance;
    {
        const LaunchTimer timer(b_, "newton_finish kernel");
        cuda_detail::newton_finish_batch(batch, b_.limits(), b_.stream());
    }
    Matrix solved(n, P), G(n, P);
    std::vector<int> finished(flags.size());
    b_.copy_to_host(solved.data(), d_beta.get(), total);
    b_.copy_to_host(G.data(), d_G.get(), total);
    b_.copy_to_host(finished.data(), d_finished.get(), finished.size());
    b_.sync();
    std::vector<Index> to_host;
    for (const Index p : opened) {
        const int status = finished[std::size_t(p)];
        if (status == kNewtonToHost) to_host.push_back(p);
        if (status != kNewtonFinished) continue;
        const Vector linear = terms.p.size() > 0 ? Vector(terms.p.col(p)) : Vector();
        SmoResult r = smo_detail::smo_result(solved.col(p), G.col(p), Y.col(p), options.C, linear);
        if (r.kkt_gap <= options.tolerance)
            out[std::size_t(p)] = std::move(r);
        else  // rounding put it just outside: the host rule decides, as on the CPU
            to_host.push_back(p);
    }
    finish_on_host(K, Y, beta, options, terms, to_host, out);
    return out;
}

}  // namespace

std::unique_ptr<SmoOps> make_smo_ops(CudaBackend& backend) {
    return std::make_unique<CudaSmoOps>(backend);
}

}  // namespace zeronorm::cuda_detail
