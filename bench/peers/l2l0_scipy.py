#!/usr/bin/env python3
"""SciPy peer of the l2-l0-SVM's validation grid (Neumann, Schnoerr & Steidl 2005, sec. 4.2.2
and 5.2.2): the same protocol as `zeronorm cv DATA --method l2-l0-svm --folds 10 --standardize`,
written as a user would with NumPy and SciPy:

  per fold: standardise on the training rows; on a stratified half of them run, for each of the
  121 pairs ln mu in {0..10} x ln nu in {-5..5}, the DCA of eq. (8) (v0 = e, alpha = 5, stop
  when max_j min(|dv_j|, |dv_j / v_j|) <= 1e-5, at most 1000 steps), each step the l2-l1-SVM
  (mu/n) sum hinge + |w|^2/2 + sum_j c_j |w_j| with c_j = nu alpha e^{-alpha v_j}, solved through
  its dual  max e'beta - |S_c(X'(beta o y))|^2 / 2,  0 <= beta <= mu/n,  y'beta = 0  by
  scipy.optimize's SLSQP (the generic solver for a smooth objective with bounds and one equality;
  analytic gradient, warm-started from the previous step's beta, ftol 1e-12); w = S_c(X'(beta o y))
  and b the bias minimising the hinge sum. The pair with the smallest error on the other half
  wins (ties: the larger mu, then the larger nu); its DCA on all the fold's training rows is
  tested on the fold.

Folds and halves come from NumPy's generator, so they differ from zeronorm's: compare the times,
and the errors and dimensions only roughly. Prints one JSON line with the peer's mean features,
error, seconds and the number of convex solves, and, with --zeronorm, the library's run.

Usage: /work/main/.venv/bin/python bench/peers/l2l0_scipy.py [--data data/colon/colon.csv]
           [--seed 1] [--folds-run 10] [--zeronorm build/src/cli/zeronorm] [--threads 0]
"""
import argparse
import json
import os
import subprocess
import time

import numpy as np
from scipy.optimize import minimize

from cv_splits import read_csv, stratified_folds, stratified_halves

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ALPHA = 5.0


def soft(u, c):
    return np.sign(u) * np.maximum(np.abs(u) - c, 0.0)


def best_bias(f, y):
    """The b minimising sum_i (1 - y_i (f_i + b))_+: between the n_+-th and next breakpoint."""
    t = np.sort(y - f)
    k = int(np.sum(y > 0))
    return 0.5 * (t[k - 1] + t[k])


def l2_l1_svm(X, y, C, c, beta0):
    def dual(beta):
        w = soft(X.T @ (beta * y), c)
        return 0.5 * w @ w - beta.sum(), y * (X @ w) - 1.0

    res = minimize(dual, beta0, jac=True, method="SLSQP", bounds=[(0.0, C)] * len(y),
                   constraints=[{"type": "eq", "fun": lambda b: b @ y, "jac": lambda b: y}],
                   options={"ftol": 1e-12, "maxiter": 1000})
    beta = np.clip(res.x, 0.0, C)
    w = soft(X.T @ (beta * y), c)
    return w, best_bias(X @ w, y), beta


def l2_l0_svm(X, y, mu, nu, tol=1e-5, max_iter=1000):
    n, d = X.shape
    v, beta, solves = np.ones(d), np.zeros(n), 0
    for _ in range(max_iter):
        w, b, beta = l2_l1_svm(X, y, mu / n, nu * ALPHA * np.exp(-ALPHA * v), beta)
        solves += 1
        v_new = np.abs(w)
        diff = np.abs(v_new - v)
        change = np.max(np.minimum(diff, np.where(v != 0, diff / np.where(v != 0, v, 1), diff)))
        v = v_new
        if change <= tol:
            break
    return w, b, solves


def run_fold(X, y, train, test, rng):
    mean, std = X[train].mean(0), X[train].std(0, ddof=1)
    std[std == 0] = 1.0
    Xs = (X - mean) / std
    Xtr, ytr = Xs[train], y[train]
    fit, val = stratified_halves(ytr, rng)
    best, solves = None, 0
    for ln_mu in range(0, 11):
        for ln_nu in range(-5, 6):
            w, b, s = l2_l0_svm(Xtr[fit], ytr[fit], np.exp(ln_mu), np.exp(ln_nu))
            solves += s
            err = np.mean(np.where(Xtr[val] @ w + b >= 0, 1.0, -1.0) != ytr[val])
            key = (err, -ln_mu, -ln_nu)          # smallest error, ties to the larger values
            if best is None or key < best[0]:
                best = (key, ln_mu, ln_nu)
    _, ln_mu, ln_nu = best
    w, b, s = l2_l0_svm(Xtr, ytr, np.exp(ln_mu), np.exp(ln_nu))
    err = np.mean(np.where(Xs[test] @ w + b >= 0, 1.0, -1.0) != y[test])
    return err, int(np.sum(np.abs(w) > 1e-8)), solves + s


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", default=os.path.join(ROOT, "data", "colon", "colon.csv"))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--folds-run", type=int, default=10, help="run only the first folds of ten")
    p.add_argument("--zeronorm", default=None)
    p.add_argument("--threads", type=int, default=0,
                   help="zeronorm's worker threads, one fold each (0: all cores)")
    args = p.parse_args()
    X, y = read_csv(args.data)
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    rows = [run_fold(X, y, tr, te, rng)
            for tr, te in stratified_folds(y, 10, rng)[: args.folds_run]]
    seconds = time.perf_counter() - start
    out = {"peer": "numpy+scipy SLSQP", "folds_run": args.folds_run,
           "mean_features": float(np.mean([r[1] for r in rows])),
           "mean_error": float(np.mean([r[0] for r in rows])),
           "convex_solves": int(sum(r[2] for r in rows)), "seconds": seconds}
    if args.zeronorm:
        start = time.perf_counter()
        zn = json.loads(subprocess.run(
            [args.zeronorm, "cv", args.data, "--method", "l2-l0-svm", "--folds", "10",
             "--standardize", "--seed", str(args.seed), "--threads", str(args.threads),
             "--json", "-q"],
            check=True, capture_output=True, text=True).stdout)["results"][0]
        out["zeronorm"] = {"mean_features": zn["mean_features"], "mean_error": zn["mean_error"],
                           "seconds": time.perf_counter() - start}
        out["speedup_per_fold"] = (seconds / args.folds_run) / (out["zeronorm"]["seconds"] / 10)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
