#!/usr/bin/env python3
"""SciPy peer of one Table VI row of Neumann, Schnoerr & Steidl 2005 (kernel-target alignment,
lambda = 0, tenfold cross-validation): the same protocol as `zeronorm cv DATA --method kta
--folds 10 --standardize --lambda 0`, written as a user would with NumPy and SciPy:

  per fold: standardise on the training rows; on a stratified half of them run the DCA of
  eq. (12) (theta0 = e/2, sigma = sqrt(d)/2, stop when theta changes < 1e-3), each DCA step
  min g(theta) - theta' grad h(theta^k) over [0, 1]^d by scipy.optimize's L-BFGS-B (started at
  theta^k, projected-gradient tolerance 1e-8 x the largest gradient entry at the start, at most
  200 iterations, the step kept only if it does not raise the subproblem's value); the SVM
  without bias on K_theta over theta_j > 1e-2 (its box-constrained dual by L-BFGS-B too) for
  C in {e^-5, ..., e^5}, chosen on the other half (ties: the smallest C); then the DCA and that
  SVM on all the fold's training rows, tested on the fold.

The value and gradient are the NumPy product form (one GEMM for the kernel exponents, one for
the gradient). Folds and halves come from NumPy's generator, so they differ from zeronorm's:
compare the times, and the errors and dimensions only roughly. Prints one JSON line with the
peer's mean features, error and seconds, and, with --zeronorm, the library's run of the same row.

Usage: /work/main/.venv/bin/python bench/peers/kta_scipy.py [--data data/ionosphere/ionosphere.csv]
           [--seed 1] [--zeronorm build/src/cli/zeronorm] [--threads 0]
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


def weighted_sum(X, Y, theta, s):
    """sum_ij Y_ij K_theta(x_i, x_j) and its gradient in theta (the product form)."""
    a = (X * X) @ theta
    W = Y * np.exp(-s * (a[:, None] + a[None, :] - 2.0 * (X * theta) @ X.T))
    r = W.sum(axis=1)
    return r.sum(), -s * (2.0 * (X * X).T @ r - 2.0 * ((W @ X) * X).sum(axis=0))


def kta(X, y, sigma, tol=1e-3, max_iter=1000):
    n, d = X.shape
    s = 1.0 / (2.0 * sigma * sigma)
    up = np.where(y > 0, 1.0 / np.sum(y > 0), 0.0)
    um = np.where(y < 0, 1.0 / np.sum(y < 0), 0.0)
    cross = 0.5 * (np.outer(up, um) + np.outer(um, up))      # g (lambda = 0)
    same = 0.5 * (np.outer(up, up) + np.outer(um, um))       # h
    upper = (X.max(axis=0) > X.min(axis=0)).astype(float)
    theta = 0.5 * upper
    bounds = list(zip(np.zeros(d), upper))
    for k in range(1, max_iter + 1):
        linear = weighted_sum(X, same, theta, s)[1]

        def sub(t):
            v, g = weighted_sum(X, cross, t, s)
            return v - t @ linear, g - linear

        v0, g0 = sub(theta)
        res = minimize(sub, theta, jac=True, method="L-BFGS-B", bounds=bounds,
                       options={"gtol": max(1e-14, 1e-8 * np.abs(g0).max()), "ftol": 0.0,
                                "maxiter": 200})
        nxt = np.clip(res.x, 0.0, upper) if res.fun <= v0 else theta
        change = np.abs(nxt - theta).max()
        theta = nxt
        if change < tol:
            break
    return theta, sigma, k


def svm_without_bias(K, y, C):
    Q = (y[:, None] * y[None, :]) * K
    res = minimize(lambda b: (0.5 * b @ Q @ b - b.sum(), Q @ b - 1.0), np.zeros(len(y)),
                   jac=True, method="L-BFGS-B", bounds=[(0.0, C)] * len(y),
                   options={"gtol": 1e-3, "maxiter": 100000})
    return res.x


def gaussian(A, B, theta, sigma):
    d2 = ((A * theta) * A).sum(1)[:, None] + ((B * theta) * B).sum(1)[None, :] - 2.0 * (A * theta) @ B.T
    return np.exp(-d2 / (2.0 * sigma * sigma))


def fit_predict(Xtr, ytr, Xte, theta, sigma, C):
    sel = theta > 1e-2
    if not sel.any():
        return np.ones(len(Xte))
    A, B, t = Xtr[:, sel], Xte[:, sel], theta[sel]
    beta = svm_without_bias(gaussian(A, A, t, sigma), ytr, C)
    return np.where(gaussian(B, A, t, sigma) @ (beta * ytr) >= 0.0, 1.0, -1.0)


def run_fold(X, y, train, test, rng):
    mean, std = X[train].mean(0), X[train].std(0, ddof=1)
    std[std == 0] = 1.0
    Xs = (X - mean) / std
    Xtr, ytr = Xs[train], y[train]
    sigma = np.sqrt(X.shape[1]) / 2.0
    fit, val = stratified_halves(ytr, rng)
    theta, _, it_val = kta(Xtr[fit], ytr[fit], sigma)
    errors = [np.mean(fit_predict(Xtr[fit], ytr[fit], Xtr[val], theta, sigma, np.exp(k)) != ytr[val])
              for k in range(-5, 6)]
    C = np.exp(-5 + int(np.argmin(errors)))                  # first minimum: the smallest C
    theta, _, it = kta(Xtr, ytr, sigma)
    err = np.mean(fit_predict(Xtr, ytr, Xs[test], theta, sigma, C) != y[test])
    return err, int((theta > 1e-2).sum()), it_val + it


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", default=os.path.join(ROOT, "data", "ionosphere", "ionosphere.csv"))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--zeronorm", default=None)
    p.add_argument("--threads", type=int, default=0,
                   help="zeronorm's worker threads, one fold each (0: all cores)")
    args = p.parse_args()
    X, y = read_csv(args.data)
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    rows = [run_fold(X, y, tr, te, rng) for tr, te in stratified_folds(y, 10, rng)]
    seconds = time.perf_counter() - start
    out = {"peer": "numpy+scipy L-BFGS-B", "mean_features": float(np.mean([r[1] for r in rows])),
           "mean_error": float(np.mean([r[0] for r in rows])),
           "mean_iterations": float(np.mean([r[2] for r in rows])), "seconds": seconds}
    if args.zeronorm:
        start = time.perf_counter()
        zn = json.loads(subprocess.run(
            [args.zeronorm, "cv", args.data, "--method", "kta", "--folds", "10", "--standardize",
             "--seed", str(args.seed), "--lambda", "0", "--threads", str(args.threads),
             "--json", "-q"],
            check=True, capture_output=True, text=True).stdout)["results"][0]
        out["zeronorm"] = {"mean_features": zn["mean_features"], "mean_error": zn["mean_error"],
                           "mean_iterations": zn["mean_iterations"],
                           "seconds": time.perf_counter() - start}
        out["speedup"] = seconds / out["zeronorm"]["seconds"]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
