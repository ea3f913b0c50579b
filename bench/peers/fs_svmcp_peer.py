#!/usr/bin/env python3
"""FS-SVMCP (Rinaldi & Sciandrone 2010, sec. 4.1, 5.1-5.2) written around scikit-learn and SciPy as
a user without zeronorm would write it: the peer of
`zeronorm cv DATA --method fs-svmcp --splits S --train-size N [--log10] [--standardize]`.

Per split (StratifiedShuffleSplit): log10 (elementwise, before splitting), a standardisation
fitted on the training rows, then FS-SVMCP on the training rows:
  (1) in the current subspace W, LinearSVC (LIBLINEAR's L2 (squared hinge) loss, dual coordinate
      descent, tol 1e-3, bias as a regularised constant feature) with C chosen by 5-fold
      StratifiedKFold over 1e-3..1e3 (the smallest C of least CV error), as the library;
  (2) I = the correctly classified training rows; one Frank-Wolfe step on the surrogate (11)
      -(z + 1e-6)^-1: a vertex of LP (15) min grad F(|w*|)'z s.t. y_i (w.x_i + b) >= 1 (i in I),
      -z <= w <= z, by scipy.optimize.linprog with HiGHS's dual simplex ("highs-ds", a vertex
      as the step needs; w = u - v, z = u + v, costs divided by their geometric mean as the
      library does). If |w^|_0 < |w*|_0, W = support(w^) and repeat; else return (w*, b*).
Test error of (w*, b*) on the split's test rows; its training error; |support|.

--n-jobs 1 pins every BLAS/OpenMP pool to one thread (one core); --n-jobs -1 runs the splits in
parallel with joblib. --zeronorm BIN also runs `BIN cv DATA --method fs-svmcp` with the same
protocol and seed (its own splits and inner folds: the two RNGs differ) in the same process
(OPENBLAS_NUM_THREADS=1 with --n-jobs 1), and prints both and the time ratio.
LinearSVC's ConvergenceWarning (LIBLINEAR's 1000-pass cap, which the library's solver shares)
is silenced.

usage: fs_svmcp_peer.py DATA.csv --splits 10 --train-size 50 [--log10] [--standardize]
                        [--folds 5] [--n-jobs 1] [--seed 1] [--zeronorm build/src/cli/zeronorm]
"""
import argparse
import json
import os
import subprocess
import sys
import time
import warnings

import numpy as np
from joblib import Parallel, delayed
from scipy.optimize import linprog
from scipy.sparse import csr_matrix, hstack
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

C_GRID = [1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1000.0]
EPSILON, P = 1e-6, 1.0  # the surrogate (11), the paper's choice


def linear_svm(X, y, C, seed):
    return LinearSVC(C=C, loss="squared_hinge", dual=True, tol=1e-3, max_iter=1000,
                     random_state=seed).fit(X, y)


def choose_C(X, y, folds, seed):
    cv = StratifiedKFold(folds, shuffle=True, random_state=seed)
    parts = list(cv.split(X, y))
    errors = []
    for C in C_GRID:  # ascending: ties go to the smallest C
        wrong = 0
        for tr, te in parts:
            wrong += int(np.sum(linear_svm(X[tr], y[tr], C, seed).predict(X[te]) != y[te]))
        errors.append(wrong)
    return C_GRID[int(np.argmin(errors))]


def frank_wolfe_lp(X, y, costs):
    """A vertex of LP (15): w = u - v, z = u + v, b free; returns w (or None if not optimal)."""
    n, d = X.shape
    costs = costs / np.exp(np.mean(np.log(costs)))
    c = np.concatenate([costs, costs, [0.0]])
    yX = csr_matrix(y[:, None] * X)
    A = -hstack([yX, -yX, csr_matrix(y[:, None])], format="csr")  # -y_i (x_i.(u - v) + b) <= -1
    bounds = [(0, None)] * (2 * d) + [(None, None)]
    r = linprog(c, A_ub=A, b_ub=-np.ones(n), bounds=bounds, method="highs-ds")
    if r.status != 0:
        return None
    w = r.x[:d] - r.x[d:2 * d]
    w[np.abs(w) <= 1e-10 * np.max(np.abs(w))] = 0.0
    return w


def fs_svmcp(X, y, folds, seed):
    subspace = np.arange(X.shape[1])
    while True:
        Xs = X[:, subspace]
        C = choose_C(Xs, y, folds, seed)
        svm = linear_svm(Xs, y, C, seed)
        w, b = svm.coef_.ravel(), float(svm.intercept_[0])
        nonzeros = int(np.count_nonzero(w))
        correct = y * (Xs @ w + b) > 0
        yI = y[correct]
        if not (np.any(yI > 0) and np.any(yI < 0)):
            break
        costs = P * (np.abs(w) + EPSILON) ** (-P - 1.0)
        w_lp = frank_wolfe_lp(Xs[correct], yI, costs)
        if w_lp is None:
            break
        support = np.flatnonzero(w_lp)
        if not 0 < len(support) < nonzeros:
            break
        subspace = subspace[support]
    w_full = np.zeros(X.shape[1])
    w_full[subspace] = w
    return w_full, b, C


def one_split(X, y, train, test, folds, standardize, seed):
    Xtr, Xte = X[train], X[test]
    if standardize:
        mu, sd = Xtr.mean(0), Xtr.std(0)
        sd[sd == 0] = 1
        Xtr, Xte = (Xtr - mu) / sd, (Xte - mu) / sd
    w, b, C = fs_svmcp(Xtr, y[train], folds, seed)
    predict = lambda Z: np.where(Z @ w + b >= 0, 1.0, -1.0)  # noqa: E731
    return {"features": int(np.count_nonzero(w)), "error": float(np.mean(predict(Xte) != y[test])),
            "train_error": float(np.mean(predict(Xtr) != y[train])), "C": C}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("data")
    p.add_argument("--splits", type=int, default=10)
    p.add_argument("--train-size", type=int, default=50)
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--log10", action="store_true")
    p.add_argument("--standardize", action="store_true")
    p.add_argument("--n-jobs", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--zeronorm", help="the zeronorm binary, to run side by side")
    a = p.parse_args()
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    raw = np.loadtxt(a.data, delimiter=",", skiprows=1)
    X, y = raw[:, :-1], np.where(raw[:, -1] > 0, 1.0, -1.0)
    if a.log10:
        X = np.log10(X)
    splitter = StratifiedShuffleSplit(n_splits=a.splits, train_size=a.train_size,
                                      random_state=a.seed)
    jobs = list(splitter.split(X, y))
    t0 = time.perf_counter()
    if a.n_jobs == 1:
        with threadpool_limits(1):
            folds = [one_split(X, y, tr, te, a.folds, a.standardize, a.seed) for tr, te in jobs]
    else:
        folds = Parallel(n_jobs=a.n_jobs)(
            delayed(one_split)(X, y, tr, te, a.folds, a.standardize, a.seed) for tr, te in jobs)
    seconds = time.perf_counter() - t0
    errors = np.array([f["error"] for f in folds])
    out = {"method": "fs-svmcp (scikit-learn + scipy)", "seconds": seconds, "n_jobs": a.n_jobs,
           "results": [{"mean_features": float(np.mean([f["features"] for f in folds])),
                        "mean_error": float(errors.mean()),
                        "std_error": float(errors.std(ddof=1) / np.sqrt(len(errors))),
                        "mean_train_error": float(np.mean([f["train_error"] for f in folds])),
                        "folds": folds}]}
    if a.zeronorm:
        out = {"peer": out, "zeronorm": run_zeronorm(a)}
        inside = out["zeronorm"]["seconds"]
        out["ratio_inside"] = seconds / inside
        out["ratio_process"] = seconds / out["zeronorm"]["process_seconds"]
    json.dump(out, sys.stdout)
    print()


def run_zeronorm(a):
    cmd = [a.zeronorm, "cv", a.data, "--method", "fs-svmcp", "--splits", str(a.splits),
           "--train-size", str(a.train_size), "--cv-folds", str(a.folds), "--seed", str(a.seed),
           "--json", "--quiet"] + ["--log10"] * a.log10 + ["--standardize"] * a.standardize
    env = dict(os.environ)
    if a.n_jobs == 1:
        env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
    process = time.perf_counter() - t0
    d = json.loads(done.stdout)
    r = d["results"][0]
    return {"command": " ".join(cmd), "seconds": d["seconds"], "process_seconds": process,
            "results": [{k: r[k] for k in ("mean_features", "mean_error", "std_error",
                                           "mean_train_error")}]}


if __name__ == "__main__":
    main()
