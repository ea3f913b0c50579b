#!/usr/bin/env python3
"""The linear SVM on a few raw (unscaled) microarray features: zeronorm.SVC against
scikit-learn's SVC (LIBSVM), side by side, with the primal objective of each answer.

Colon's expression values run from about 10 to 20,000, so a linear kernel on a handful of genes
has entries near 1e6-1e8 and, with the final classifier's C = 100, SMO's steps barely move the
dual objective: LIBSVM needs 10^7-10^8 of them and stops at its tolerance far from the optimum.
The genes are the top 1, 2, 4 and 8 by the signal-to-noise score |mu+ - mu-| / (sd+ + sd-)
(the CORR ranking) on all 62 samples. For each C and gene set: seconds, solver steps, and
0.5 |w|^2 + C sum max(0, 1 - y (w.x + b)) of each answer, as its excess over the lower of the
two (0 is the better one; the problem's optimum is at most that value).

With --synthetic N1,N2,... the problems are instead N points of three raw features (means
10000, 2000 and 300, spreads 3000, 800 and 50: measurements in different units), labelled by
a noisy linear rule on the standardised features (seed 3): above the size of a Newton finish
(n > 1000), and over 32 MiB of kernel matrix (n > 2047: kernel columns on demand).

Usage (repository root, after scripts/test.sh):
  PYTHONPATH=build/python .venv/bin/python bench/raw_features.py [--C 1,100] [--genes 1,2,4,8]
  PYTHONPATH=build/python .venv/bin/python bench/raw_features.py --synthetic 1500,3000
"""
import argparse
import os
import time

import numpy as np
from sklearn.svm import SVC as LibsvmSVC

import zeronorm as zn

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--data", default=os.path.join(root, "data", "colon", "colon.csv"))
parser.add_argument("--C", default="1,100")
parser.add_argument("--genes", default="1,2,4,8")
parser.add_argument("--synthetic", default="", help="sizes N of synthetic problems instead")
args = parser.parse_args()


def problems():
    """(label, X, y) of each problem."""
    if args.synthetic:
        rng = np.random.default_rng(3)
        for n in [int(v) for v in args.synthetic.split(",")]:
            X = rng.normal(size=(n, 3)) * [3000.0, 800.0, 50.0] + [10000.0, 2000.0, 300.0]
            score = (X - X.mean(0)) / X.std(0) @ rng.normal(size=3) + 0.7 * rng.normal(size=n)
            yield f"n = {n}, 3 features", X, np.where(score > 0, 1.0, -1.0)
        return
    raw = np.loadtxt(args.data, delimiter=",", skiprows=1)
    X, y = raw[:, :-1], raw[:, -1]
    pos, neg = X[y > 0], X[y < 0]
    score = np.abs(pos.mean(0) - neg.mean(0)) / (pos.std(0) + neg.std(0))
    order = np.argsort(-score, kind="stable")
    for count in [int(g) for g in args.genes.split(",")]:
        yield f"{count} genes", X[:, order[:count]], y


def primal(w, b, Xs, y, C):
    return 0.5 * w @ w + C * np.maximum(0.0, 1.0 - y * (Xs @ w + b)).sum()


def fit(model, Xs, y):
    start = time.perf_counter()
    model.fit(Xs, y)
    return time.perf_counter() - start, model.coef_.ravel(), float(model.intercept_[0])


print("| C | problem | zeronorm s | LIBSVM s | zeronorm steps | LIBSVM steps | primal (best) "
      "| zeronorm excess | LIBSVM excess |")
print("|---|---|---|---|---|---|---|---|---|")
cases = list(problems())
for C in [float(c) for c in args.C.split(",")]:
    for label, Xs, y in cases:
        ours = zn.SVC(kernel="linear", C=C, tol=1e-3)
        theirs = LibsvmSVC(kernel="linear", C=C, tol=1e-3, max_iter=-1, cache_size=200)
        t_ours, w_ours, b_ours = fit(ours, Xs, y)
        t_theirs, w_theirs, b_theirs = fit(theirs, Xs, y)
        p_ours, p_theirs = primal(w_ours, b_ours, Xs, y, C), primal(w_theirs, b_theirs, Xs, y, C)
        best = min(p_ours, p_theirs)
        print(f"| {C:g} | {label} | {t_ours:.3f} | {t_theirs:.3f} | {ours.n_iter_} "
              f"| {int(np.sum(theirs.n_iter_))} | {best:.6g} | {(p_ours - best) / best:.1e} "
              f"| {(p_theirs - best) / best:.1e} |", flush=True)
