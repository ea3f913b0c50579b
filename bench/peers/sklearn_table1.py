#!/usr/bin/env python3
"""l2-AROM on the Weston et al. 2003 Table 1 protocol (sec. 4.5, "Linear problem") written around
scikit-learn's SVC: the peer of `repro_table1 --methods l2-arom` for the speed comparison in
bench/RESULTS.md.

Same problem and protocol as tests/support/weston2003_linear_problem.hpp and bench/repro_table1.cpp, drawn
with numpy (same distribution, not the same random numbers): 100 features, y = +-1 with equal
probability; with probability 0.7 x_i = y N(i, 1) for i = 1..3 and x_i = N(0, 1) for i = 4..6,
otherwise x_i = N(0, 1) for i = 1..3 and x_i = y N(i - 3, 1) for i = 4..6; x_7..x_100 = N(0, 20)
(sd 20). A training draw with one class is redrawn. Inputs standardised with the training set's
mean and population sd (applied to the test set too). l2-AROM selecting 2 features with the
hyperparameters of repro_table1: C = inf (SVC needs a finite C: 1e10, never reached because the
ridge bounds the dual) with ridge 1e-4 on the kernel diagonal, inner SVM tolerance 1e-8, prune at
z <= 1e-8 max z, stop at z-change <= 1e-6 or once <= 2 features survive; "choose r features" as
documented at FeatureSubset (include/zeronorm/methods/selection.hpp). Final classifier: SVC on the 2
selected standardised features, C = 1e10, ridge 1e-4, tolerance 1e-3; 500 test points.

usage: sklearn_table1.py [--trials 100] [--sizes 10,20,30] [--test 500] [--n-jobs 1] [--seed 1]
                         [--ridge 1e-4] [--final-ridge 1e-4] [--inner-tol 1e-8] [--json]
Output: a Markdown table like repro_table1's (mean test error +- standard error, in brackets the
trials choosing two relevant non-redundant features, mean seconds per trial) and the wall time of
the trial loop (seconds, after imports: data generation and workers included) and the seconds
of selection + final SVM + test predictions summed over trials (the region repro_table1 --time
reports); --json prints the same as one JSON object instead.
"""
import argparse
import json
import time

import numpy as np
from joblib import Parallel, delayed
from sklearn.svm import SVC

HARD_C = 1e10  # SVC needs a finite C; with the ridge on the kernel diagonal this is C = inf
N_FEATURES = 100
R = 2  # features selected


def linear_problem(n, rng):
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    first = rng.random(n) < 0.7
    X = np.empty((n, N_FEATURES))
    shift = np.arange(1, 4, dtype=float)
    rel_a = y[:, None] * (shift + rng.standard_normal((n, 3)))  # y N(i, 1)
    rel_b = y[:, None] * (shift + rng.standard_normal((n, 3)))
    X[:, 0:3] = np.where(first[:, None], rel_a, rng.standard_normal((n, 3)))
    X[:, 3:6] = np.where(first[:, None], rng.standard_normal((n, 3)), rel_b)
    X[:, 6:] = 20.0 * rng.standard_normal((n, N_FEATURES - 6))
    return X, y


def draw_training(n, rng):
    while True:
        X, y = linear_problem(n, rng)
        positives = int((y > 0).sum())
        if 0 < positives < n:
            return X, y


def standardizer(X):
    mu = X.mean(0)
    sd = X.std(0)  # population sd, as zeronorm::Standardizer
    const = X.max(0) == X.min(0)
    mu[const] = X[0, const]
    sd[const | ~(sd > 0)] = 1.0
    return mu, sd


def relevant_non_redundant(selected):
    if len(selected) != 2:
        return False
    group = [0 if j < 3 else (1 if j < 6 else 2) for j in selected]
    return group[0] != 2 and group[1] != 2 and group[0] != group[1]


def svm_dual(K, y, ridge, tol):
    clf = SVC(kernel="precomputed", C=HARD_C, tol=tol)
    clf.fit(K + ridge * np.eye(len(y)), y)
    coef = np.zeros(len(y))  # beta_i y_i up to one global sign (irrelevant: only |w| is used)
    coef[clf.support_] = clf.dual_coef_[0]
    return clf, coef


def top_r(features, values, r):
    order = np.argsort(-values, kind="stable")[:r]
    return features[order]


def l2_arom(X, y, r, ridge, tol, prune_tol=1e-8, conv_tol=1e-6, max_iter=1000):
    alive = np.arange(X.shape[1])
    z = np.ones(X.shape[1])
    Xa = X
    for it in range(1, max_iter + 1):
        Xz = Xa * z
        _, coef = svm_dual(Xz @ Xz.T, y, ridge, tol)
        u = z * np.abs(Xz.T @ coef)  # z .* |w_bar|, w_bar = (X diag z)'(beta .* y)
        top = u.max()
        if not (top > 0) or not np.isfinite(u).all():
            break  # degenerate: the r largest z of the last iterate below
        new_z = u / top
        change = np.abs(new_z - z).max()
        keep = np.flatnonzero(new_z > prune_tol)
        if len(keep) <= r:
            if len(keep) == r:
                return top_r(alive[keep], new_z[keep], r)
            return top_r(alive, z if it > 1 else new_z, r)
        alive, z, Xa = alive[keep], new_z[keep], Xa[:, keep]
        if change <= conv_tol:
            break
    return top_r(alive, z, r)


def one_trial(n, test_size, seed_seq, ridge, final_ridge, tol):
    rng = np.random.default_rng(seed_seq)
    Xtr, ytr = draw_training(n, rng)
    Xte, yte = linear_problem(test_size, rng)
    mu, sd = standardizer(Xtr)
    Xtr, Xte = (Xtr - mu) / sd, (Xte - mu) / sd
    start = time.perf_counter()
    cols = l2_arom(Xtr, ytr, R, ridge, tol)
    A = Xtr[:, cols]
    clf, _ = svm_dual(A @ A.T, ytr, final_ridge, 1e-3)
    error = float(np.mean(clf.predict(Xte[:, cols] @ A.T) != yte))
    seconds = time.perf_counter() - start
    return n, error, relevant_non_redundant(list(cols)), seconds


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--trials", type=int, default=100)
    p.add_argument("--sizes", default="10,20,30")
    p.add_argument("--test", type=int, default=500)
    p.add_argument("--n-jobs", type=int, default=1, help="joblib workers (-1: all cores)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--ridge", type=float, default=1e-4)
    p.add_argument("--final-ridge", type=float, default=1e-4)
    p.add_argument("--inner-tol", type=float, default=1e-8)
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    seeds = np.random.SeedSequence(a.seed).spawn(len(sizes) * a.trials)
    jobs = [(n, seeds[k * a.trials + t]) for k, n in enumerate(sizes) for t in range(a.trials)]
    t0 = time.perf_counter()
    results = Parallel(n_jobs=a.n_jobs)(
        delayed(one_trial)(n, a.test, s, a.ridge, a.final_ridge, a.inner_tol) for n, s in jobs)
    wall = time.perf_counter() - t0
    rows = []
    for n in sizes:
        e = np.array([r[1] for r in results if r[0] == n])
        rows.append({"size": n, "mean_error": float(e.mean()),
                     "std_error": float(e.std(ddof=1) / np.sqrt(len(e))) if len(e) > 1 else 0.0,
                     "hits": int(sum(r[2] for r in results if r[0] == n)),
                     "mean_seconds": float(np.mean([r[3] for r in results if r[0] == n]))})
    timed = float(sum(r[3] for r in results))  # summed over trials (over workers if n_jobs > 1)
    if a.json:
        print(json.dumps({"seconds": wall, "timed_seconds": timed, "trials": a.trials,
                          "n_jobs": a.n_jobs, "rows": rows}))
        return
    print("| method |" + "".join(f" {n} points |" for n in sizes))
    print("|---|" + "---|" * len(sizes))
    print("| l2-arom (sklearn SVC) |" + "".join(
        f" {100 * r['mean_error']:.1f}% ± {100 * r['std_error']:.2f}% ({r['hits']}) "
        f"[{r['mean_seconds']:.3f} s] |" for r in rows))
    print(f"\ntrials {a.trials}, test {a.test}, seed {a.seed}, ridge {a.ridge:g}, final_ridge "
          f"{a.final_ridge:g}, inner tol {a.inner_tol:g}, n_jobs {a.n_jobs}; wall time of the "
          f"trial loop {wall:.2f} s; selection + final SVM + test predictions summed over "
          f"trials {timed:.2f} s")


if __name__ == "__main__":
    main()
