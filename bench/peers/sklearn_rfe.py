#!/usr/bin/env python3
"""Linear RFE (Guyon et al. 2002; Weston et al. 2003 sec. 4.3) written around scikit-learn's
SVC, as a user without zeronorm would write it: the peer of `zeronorm cv --method rfe` in
bench/RESULTS.md, in the style of sklearn_arom.py (same splits, preprocessing, SVM and final
classifiers).

Per split: train the SVM (SVC on the precomputed Gram plus the ridge, C = 1e10 for the hard
margin) on the surviving features, w = X' (beta * y), remove the features with the smallest w^2:
max(1, floor(fraction * remaining)) of them per round (one with --fraction 0), never past the
next requested count, down to the smallest; the survivors when exactly r remain are the subset
for r. A linear SVM is retrained on each subset and tested. scikit-learn's own
`feature_selection.RFE` takes its float step as a share of the original feature count, not of
the survivors, so it cannot run this halving schedule; the loop is the algorithm itself.

usage: sklearn_rfe.py DATA.csv --features 1000,500,100,50,10 --splits 100 --train-size 48
                      [--fraction 0.5] [--ridge 1e-3] [--log10] [--standardize] [--n-jobs 1]
                      [--seed 1]
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np
from joblib import Parallel, delayed
from sklearn.model_selection import StratifiedShuffleSplit
from threadpoolctl import threadpool_limits

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sklearn_arom import svm_dual  # noqa: E402  (the same SVM as the AROM peer)


def rfe_path(X, y, counts, ridge, fraction):
    d = X.shape[1]
    counts_desc = sorted(set(counts), reverse=True)
    r_min = counts_desc[-1]
    alive = np.arange(d)
    chosen = {d: alive} if d in counts_desc else {}
    while len(alive) > r_min:
        Xa = X[:, alive]
        _, beta_y = svm_dual(Xa @ Xa.T, y, ridge)
        criterion = (Xa.T @ beta_y) ** 2
        remaining = len(alive)
        next_count = next((c for c in counts_desc if c < remaining), r_min)
        remove = max(1, math.floor(fraction * remaining)) if fraction > 0 else 1
        remove = min(remove, remaining - next_count)
        order = np.argsort(-criterion, kind="stable")  # largest first, ties by column
        alive = alive[np.sort(order[: remaining - remove])]
        if len(alive) in counts_desc:
            chosen[len(alive)] = alive
    return chosen


def one_split(X, y, train, test, counts, ridge, fraction, standardize):
    Xtr, Xte = X[train], X[test]
    if standardize:
        mu, sd = Xtr.mean(0), Xtr.std(0)
        sd[sd == 0] = 1
        Xtr, Xte = (Xtr - mu) / sd, (Xte - mu) / sd
    chosen = rfe_path(Xtr, y[train], counts, ridge, fraction)
    errors = []
    for r in counts:
        cols = chosen[r]
        clf, _ = svm_dual(Xtr[:, cols] @ Xtr[:, cols].T, y[train], ridge)
        pred = clf.predict(Xte[:, cols] @ Xtr[:, cols].T)
        errors.append(float(np.mean(pred != y[test])))
    return errors


def main():
    p = argparse.ArgumentParser()
    p.add_argument("data")
    p.add_argument("--features", required=True)
    p.add_argument("--splits", type=int, default=100)
    p.add_argument("--train-size", type=int, default=48)
    p.add_argument("--fraction", type=float, default=0.5)
    p.add_argument("--ridge", type=float, default=1e-3)
    p.add_argument("--log10", action="store_true")
    p.add_argument("--standardize", action="store_true")
    p.add_argument("--n-jobs", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    if not 0 <= a.fraction < 1:
        sys.exit(f"sklearn_rfe.py: --fraction must be in [0, 1), got {a.fraction}")
    raw = np.loadtxt(a.data, delimiter=",", skiprows=1)
    X, y = raw[:, :-1], raw[:, -1]
    if a.log10:
        X = np.log10(X)
    counts = [int(c) for c in a.features.split(",")]
    if min(counts) < 1 or max(counts) > X.shape[1]:
        sys.exit(f"sklearn_rfe.py: --features must lie in 1..{X.shape[1]}")
    splitter = StratifiedShuffleSplit(n_splits=a.splits, train_size=a.train_size,
                                      random_state=a.seed)
    t0 = time.perf_counter()
    jobs = list(splitter.split(X, y))
    args = (counts, a.ridge, a.fraction, a.standardize)
    if a.n_jobs == 1:  # one core: numpy's BLAS pool pinned to one thread too
        with threadpool_limits(1):
            results = [one_split(X, y, tr, te, *args) for tr, te in jobs]
    else:
        results = Parallel(n_jobs=a.n_jobs)(delayed(one_split)(X, y, tr, te, *args)
                                            for tr, te in jobs)
    seconds = time.perf_counter() - t0
    E = np.array(results)
    out = {"seconds": seconds, "splits": a.splits, "n_jobs": a.n_jobs, "fraction": a.fraction,
           "results": [{"features": r, "mean_error": float(E[:, k].mean()),
                        "std_error": float(E[:, k].std(ddof=1) / np.sqrt(len(E)))}
                       for k, r in enumerate(counts)]}
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main()
