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
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sklearn_arom import argument_parser, run, svm_dual  # noqa: E402  (the AROM peer's loop)


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


def main():
    p = argument_parser(train_size=48)
    p.add_argument("--fraction", type=float, default=0.5)
    a = p.parse_args()
    if not 0 <= a.fraction < 1:
        sys.exit(f"sklearn_rfe.py: --fraction must be in [0, 1), got {a.fraction}")
    run(a, lambda counts: lambda Xtr, ytr: rfe_path(Xtr, ytr, counts, a.ridge, a.fraction),
        fraction=a.fraction)


if __name__ == "__main__":
    main()
