#!/usr/bin/env python3
"""A linear SVM with C chosen by inner cross-validation, over many random splits, written around
scikit-learn as a user without zeronorm would write it: the peer of
`zeronorm cv --method svm --kernel linear -C GRID --folds F --splits S --train-size N`.

Per split: log10 (elementwise, before splitting), a standardisation fitted on the training rows,
GridSearchCV(SVC(kernel="linear"), C grid, StratifiedKFold(F)) on the training rows (best mean
accuracy, ties to the first = smallest C; refit on all training rows), test error.

--n-jobs 1 pins every BLAS/OpenMP pool to one thread (one core); --n-jobs -1 runs the splits in
parallel with joblib on all cores. --estimator thundersvm puts ThunderSVM's scikit-learn
interface (its GPU SVC, one problem at a time; the `thundersvm` package on PYTHONPATH, not part
of this project) in place of scikit-learn's SVC, for the GPU peer.

usage: sklearn_svm_grid.py DATA.csv --splits 500 --train-size 50 --C 0.001,0.01,0.1,1,10
                           [--folds 5] [--log10] [--standardize] [--n-jobs 1] [--seed 1]
                           [--estimator sklearn|thundersvm]
"""
import argparse
import json
import sys
import time

import numpy as np
from joblib import Parallel, delayed
from sklearn.model_selection import GridSearchCV, StratifiedKFold, StratifiedShuffleSplit
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits


def one_split(X, y, train, test, grid, folds, standardize, seed, estimator=SVC):
    Xtr, Xte = X[train], X[test]
    if standardize:
        mu, sd = Xtr.mean(0), Xtr.std(0)
        sd[sd == 0] = 1
        Xtr, Xte = (Xtr - mu) / sd, (Xte - mu) / sd
    search = GridSearchCV(estimator(kernel="linear", tol=1e-3), {"C": grid},
                          cv=StratifiedKFold(folds, shuffle=True, random_state=seed))
    search.fit(Xtr, y[train])
    error = float(np.mean(search.predict(Xte) != y[test]))
    return error, float(search.best_params_["C"])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("data")
    p.add_argument("--splits", type=int, default=500)
    p.add_argument("--train-size", type=int, default=50)
    p.add_argument("--C", default="0.001,0.01,0.1,1,10")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--log10", action="store_true")
    p.add_argument("--standardize", action="store_true")
    p.add_argument("--n-jobs", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--estimator", choices=["sklearn", "thundersvm"], default="sklearn")
    a = p.parse_args()
    estimator = SVC
    if a.estimator == "thundersvm":
        from thundersvm import SVC as estimator  # noqa: N813
    raw = np.loadtxt(a.data, delimiter=",", skiprows=1)
    X, y = raw[:, :-1], raw[:, -1]
    if a.log10:
        X = np.log10(X)
    grid = sorted(float(c) for c in a.C.split(","))
    splitter = StratifiedShuffleSplit(n_splits=a.splits, train_size=a.train_size, random_state=a.seed)
    jobs = [(tr, te, a.seed + f) for f, (tr, te) in enumerate(splitter.split(X, y))]
    t0 = time.perf_counter()
    if a.n_jobs == 1:
        with threadpool_limits(1):
            results = [one_split(X, y, tr, te, grid, a.folds, a.standardize, s, estimator)
                       for tr, te, s in jobs]
    else:
        results = Parallel(n_jobs=a.n_jobs)(
            delayed(one_split)(X, y, tr, te, grid, a.folds, a.standardize, s, estimator)
            for tr, te, s in jobs)
    seconds = time.perf_counter() - t0
    errors = np.array([e for e, _ in results])
    fits = a.splits * (a.folds * len(grid) + 1)
    out = {"seconds": seconds, "splits": a.splits, "n_jobs": a.n_jobs, "estimator": a.estimator,
           "fits_per_second": fits / seconds, "chosen_C": [c for _, c in results],
           "results": [{"features": int(X.shape[1]), "mean_error": float(errors.mean()),
                        "std_error": float(errors.std(ddof=1) / np.sqrt(len(errors)))}]}
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main()
