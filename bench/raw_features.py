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

Usage (repository root, after scripts/test.sh):
  PYTHONPATH=build/python .venv/bin/python bench/raw_features.py [--C 1,100] [--genes 1,2,4,8]
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
args = parser.parse_args()

raw = np.loadtxt(args.data, delimiter=",", skiprows=1)
X, y = raw[:, :-1], raw[:, -1]
pos, neg = X[y > 0], X[y < 0]
score = np.abs(pos.mean(0) - neg.mean(0)) / (pos.std(0) + neg.std(0))
order = np.argsort(-score, kind="stable")


def primal(w, b, Xs, C):
    return 0.5 * w @ w + C * np.maximum(0.0, 1.0 - y * (Xs @ w + b)).sum()


def fit(model, Xs):
    start = time.perf_counter()
    model.fit(Xs, y)
    return time.perf_counter() - start, model.coef_.ravel(), float(model.intercept_[0])


print("| C | genes | zeronorm s | LIBSVM s | zeronorm steps | LIBSVM steps | primal (best) "
      "| zeronorm excess | LIBSVM excess |")
print("|---|---|---|---|---|---|---|---|---|")
for C in [float(c) for c in args.C.split(",")]:
    for count in [int(g) for g in args.genes.split(",")]:
        Xs = X[:, order[:count]]
        ours = zn.SVC(kernel="linear", C=C, tol=1e-3)
        theirs = LibsvmSVC(kernel="linear", C=C, tol=1e-3, max_iter=-1, cache_size=200)
        t_ours, w_ours, b_ours = fit(ours, Xs)
        t_theirs, w_theirs, b_theirs = fit(theirs, Xs)
        p_ours, p_theirs = primal(w_ours, b_ours, Xs, C), primal(w_theirs, b_theirs, Xs, C)
        best = min(p_ours, p_theirs)
        print(f"| {C:g} | {count} | {t_ours:.3f} | {t_theirs:.3f} | {ours.n_iter_} "
              f"| {int(np.sum(theirs.n_iter_))} | {best:.6g} | {(p_ours - best) / best:.1e} "
              f"| {(p_theirs - best) / best:.1e} |", flush=True)
