#!/usr/bin/env python3
"""The l2-AROM loop (Weston et al. 2003, Problem 8 with the ridge of sec. 3.2) written around
scikit-learn's SVC, as a user without zeronorm would write it: the peer for bench/RESULTS.md.

Same protocol as `zeronorm cv --method l2-arom`: stratified random splits, log10 and a
standardisation fitted on the training rows, one AROM path per split serving every feature count,
a linear SVM retrained on the selected original features, test error per count.
--n-jobs 1 pins numpy's BLAS to one thread (one core); --n-jobs -1 runs splits with joblib.

usage: sklearn_arom.py DATA.csv --features 2000,1000,...,20 --splits 100 --train-size 50
                       [--ridge 1e-3] [--log10] [--standardize] [--n-jobs 1] [--seed 1]
"""
import argparse
import json
import sys
import time

import numpy as np
from joblib import Parallel, delayed
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

HARD_C = 1e10  # SVC needs a finite C; with the ridge on the kernel this is the hard margin


def svm_dual(K, y, ridge):
    clf = SVC(kernel="precomputed", C=HARD_C, tol=1e-3)
    clf.fit(K + ridge * np.eye(len(y)), y)
    beta_y = np.zeros(len(y))
    beta_y[clf.support_] = clf.dual_coef_[0]
    # scikit-learn orders classes ascending, so dual_coef_ is beta_i * y_i up to one sign.
    sign = 1.0 if clf.classes_[1] == 1 else -1.0
    return clf, sign * beta_y


def kernel_weights(ridge):
    """w of the hard-margin SVM on the precomputed Gram plus the ridge (the split protocol's)."""
    def weights(Xz, y):
        _, beta_y = svm_dual(Xz @ Xz.T, y, ridge)
        return Xz.T @ beta_y
    return weights


def arom_path(X, y, counts, ridge, prune_tol=1e-8, conv_tol=1e-6, max_iter=1000, weights=None):
    """One l2-AROM path; `weights(Xz, y)` fits the SVM on the rescaled data and returns its w
    (default: kernel_weights(ridge))."""
    weights = weights or kernel_weights(ridge)
    d = X.shape[1]
    z = np.ones(d)
    alive = np.arange(d)
    chosen = {}
    pending = sorted(counts, reverse=True)
    prev_z = None
    for _ in range(max_iter):
        w = weights(X[:, alive] * z, y)
        new_z = z * np.abs(w)
        new_z /= new_z.max()
        keep = new_z > prune_tol
        # counts reached at this step: the r largest z of the iterate before it (sec. 4.5)
        while pending and keep.sum() <= pending[0]:
            r = pending.pop(0)
            src_z, src_alive = (new_z, alive) if keep.sum() == r else (z, alive)
            order = np.argsort(-src_z, kind="stable")[:r]
            chosen[r] = src_alive[order]
        change = np.abs(new_z - z).max()
        alive, z = alive[keep], new_z[keep]
        if not pending or change <= conv_tol:
            break
    for r in pending:
        order = np.argsort(-z, kind="stable")[:r]
        chosen[r] = alive[order]
    return chosen


def one_split(X, y, train, test, counts, standardize, ridge, path):
    """Test errors per count of one split: `path(Xtr, ytr)` gives {count: columns}, a linear
    SVM (the same SVC) is retrained on each subset and tested."""
    Xtr, Xte = X[train], X[test]
    if standardize:
        mu, sd = Xtr.mean(0), Xtr.std(0)
        sd[sd == 0] = 1
        Xtr, Xte = (Xtr - mu) / sd, (Xte - mu) / sd
    chosen = path(Xtr, y[train])
    errors = []
    for r in counts:
        cols = chosen[r]
        clf, _ = svm_dual(Xtr[:, cols] @ Xtr[:, cols].T, y[train], ridge)
        pred = clf.predict(Xte[:, cols] @ Xtr[:, cols].T)
        errors.append(float(np.mean(pred != y[test])))
    return errors


def argument_parser(train_size):
    """The options every peer loop of this kind takes."""
    p = argparse.ArgumentParser()
    p.add_argument("data")
    p.add_argument("--features", required=True)
    p.add_argument("--splits", type=int, default=100)
    p.add_argument("--train-size", type=int, default=train_size)
    p.add_argument("--ridge", type=float, default=1e-3)
    p.add_argument("--log10", action="store_true")
    p.add_argument("--standardize", action="store_true")
    p.add_argument("--n-jobs", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    return p


def run(a, path_of, **extra):
    """Reads the data, runs `path_of(counts)` (a function of one split's training rows) on every
    split and prints the JSON summary (`extra` added to it)."""
    raw = np.loadtxt(a.data, delimiter=",", skiprows=1)
    X, y = raw[:, :-1], raw[:, -1]
    if a.log10:
        X = np.log10(X)
    counts = [int(c) for c in a.features.split(",")]
    if min(counts) < 1 or max(counts) > X.shape[1]:
        sys.exit(f"--features must lie in 1..{X.shape[1]}")
    path = path_of(counts)
    splitter = StratifiedShuffleSplit(n_splits=a.splits, train_size=a.train_size, random_state=a.seed)
    t0 = time.perf_counter()
    jobs = list(splitter.split(X, y))
    split_args = (counts, a.standardize, a.ridge, path)
    if a.n_jobs == 1:  # one core: numpy's BLAS pool pinned to one thread too
        with threadpool_limits(1):
            results = [one_split(X, y, tr, te, *split_args) for tr, te in jobs]
    else:
        results = Parallel(n_jobs=a.n_jobs)(delayed(one_split)(X, y, tr, te, *split_args)
                                            for tr, te in jobs)
    seconds = time.perf_counter() - t0
    E = np.array(results)
    out = {"seconds": seconds, "splits": a.splits, "n_jobs": a.n_jobs, **extra, "results": [
        {"features": r, "mean_error": float(E[:, k].mean()),
         "std_error": float(E[:, k].std(ddof=1) / np.sqrt(len(E)))} for k, r in enumerate(counts)]}
    json.dump(out, sys.stdout)
    print()


def main():
    a = argument_parser(train_size=50).parse_args()
    run(a, lambda counts: lambda Xtr, ytr: arom_path(Xtr, ytr, counts, a.ridge))


if __name__ == "__main__":
    main()
