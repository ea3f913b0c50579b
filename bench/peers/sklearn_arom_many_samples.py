#!/usr/bin/env python3
"""One l2-AROM path on a whole data set with many samples (ijcnn1, a9a), written around
scikit-learn's SVC(kernel="linear", C) as a user without zeronorm would write it: LIBSVM's SMO
with kernel rows computed on demand (a precomputed n x n Gram would take 20 GB at ijcnn1's
49,990 rows). The same loop as sklearn_arom.py (z <- z |w|, normalised to max 1, pruned at
1e-8, stopped at a change of 1e-6); the peer of `zeronorm select DATA --method l2-arom -f R --C C`
in bench/RESULTS.md. Prints the time of the path and the features it selects.

With --ridge L instead of --C (zeronorm's `--ridge L`, the hard margin with L on the kernel's
diagonal: the squared slack (1/(2L)) sum_i xi_i^2), the SVM is scikit-learn's
LinearSVC(loss="squared_hinge", C=1/(2L)), LIBLINEAR's dual coordinate descent for the same
primal, except that LIBLINEAR's bias is a feature of value 1 and so is penalised by b^2/2
(against objectives of order 10^6 on these data: no difference to the features chosen).

With --rfe (and --C) it runs scikit-learn's RFE(SVC(kernel="linear", C), step=1) to the
smallest count instead: the peer of `zeronorm select DATA --method rfe -f R --C C`.

usage: sklearn_arom_many_samples.py DATA.csv --features 10 (--C 1 | --ridge 1e-3) [--rfe]
"""
import argparse
import json
import os
import sys
import time

import numpy as np
from sklearn.feature_selection import RFE
from sklearn.svm import SVC, LinearSVC
from threadpoolctl import threadpool_limits

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sklearn_arom import arom_path  # noqa: E402


def linear_svc_weights(C):
    def weights(Xz, y):
        clf = SVC(kernel="linear", C=C, tol=1e-3, cache_size=2000).fit(Xz, y)
        sign = 1.0 if clf.classes_[1] == 1 else -1.0  # coef_ is for classes_[1]
        return sign * clf.coef_[0]
    return weights


def squared_slack_weights(ridge):
    def weights(Xz, y):
        clf = LinearSVC(loss="squared_hinge", C=1.0 / (2.0 * ridge), tol=1e-4,
                        max_iter=100000).fit(Xz, y)
        sign = 1.0 if clf.classes_[1] == 1 else -1.0
        return sign * clf.coef_[0]
    return weights


def main():
    p = argparse.ArgumentParser()
    p.add_argument("data")
    p.add_argument("--features", required=True)
    box = p.add_mutually_exclusive_group(required=True)
    box.add_argument("--C", type=float)
    box.add_argument("--ridge", type=float)
    p.add_argument("--rfe", action="store_true")
    a = p.parse_args()
    if a.rfe and a.C is None:
        sys.exit("sklearn_arom_many_samples.py: --rfe needs --C")
    weights = linear_svc_weights(a.C) if a.C is not None else squared_slack_weights(a.ridge)
    raw = np.loadtxt(a.data, delimiter=",", skiprows=1)
    X, y = raw[:, :-1], raw[:, -1]
    counts = [int(c) for c in a.features.split(",")]
    t0 = time.perf_counter()
    with threadpool_limits(1):
        if a.rfe:
            r = min(counts)
            rfe = RFE(SVC(kernel="linear", C=a.C, tol=1e-3, cache_size=2000),
                      n_features_to_select=r, step=1).fit(X, y)
            # ranking_: 1 for the survivors, then the reverse order of elimination
            order = np.lexsort((np.arange(X.shape[1]), rfe.ranking_))
            chosen = {c: order[:c] for c in counts}
        else:
            chosen = arom_path(X, y, counts, 0.0, weights=weights)
    seconds = time.perf_counter() - t0
    print(json.dumps({"seconds": seconds,
                      "selected": {str(r): [int(j) for j in chosen[r]] for r in counts}}))


if __name__ == "__main__":
    main()
