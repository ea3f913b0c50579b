#!/usr/bin/env python3
"""Clarabel peer of the l2-l1-SVM (Neumann, Schnoerr & Steidl 2005, eq. (7)) where n >> d:

  min_{w,b}  (mu/n) sum_i (1 - y_i (w.x_i + b))_+ + |w|^2/2 + nu |w|_1,

written as the QP a user would hand an interior-point solver (variables w, t >= |w|, b and the
hinge slacks xi):  min |w|^2/2 + nu e't + (mu/n) e'xi  s.t.  -t <= w <= t,
y_i (w.x_i + b) + xi_i >= 1,  xi >= 0,  solved by Clarabel (a primal-dual interior-point
solver for conic programs, its default relative gap and feasibility tolerances 1e-8, as the
library's relative duality gap). Side by side with `zeronorm select DATA --method l2-l1-svm
--mu MU --nu NU --json`, whose `method_seconds` is the l2-l1 solve alone (the retrained final
classifier excluded); the peer's time covers building its matrices and the solve (reading the
CSV excluded on both sides). Prints one Markdown row per (data set, mu): both times, both
objectives and their relative difference, the selected counts.

Needs `pip install clarabel==0.11.1` (the `bench` extra of pyproject.toml).

Usage: .venv/bin/python bench/peers/l2l1_clarabel.py --zeronorm build/src/cli/zeronorm
           --data data/pima/pima.csv [--data ...] [--mu-per-n 1,100] [--nu 0.1] [--standardize]
   (--mu-per-n k: mu = k n, i.e. C = k)
"""
import argparse
import json
import subprocess
import time

import clarabel
import numpy as np
from scipy import sparse

from cv_splits import read_csv


def standardized(X):
    scale = X.std(axis=0)
    scale[scale == 0] = 1.0
    return (X - X.mean(axis=0)) / scale


def l2_l1_objective(X, y, C, nu, w, b):
    return C * np.maximum(0.0, 1.0 - y * (X @ w + b)).sum() + 0.5 * w @ w + nu * np.abs(w).sum()


def clarabel_l2_l1(X, y, C, nu):
    """The primal QP in x = (w, t, b, xi); returns (w, b, seconds, status)."""
    start = time.perf_counter()
    n, d = X.shape
    N = 2 * d + 1 + n
    P = sparse.diags(np.r_[np.ones(d), np.zeros(N - d)], format="csc")
    q = np.r_[np.zeros(d), np.full(d, nu), 0.0, np.full(n, C)]
    eye_d, eye_n = sparse.identity(d, format="csc"), sparse.identity(n, format="csc")
    # A x <= rhs (Clarabel: A x + s = rhs, s in the nonnegative cone).
    A = sparse.vstack([
        sparse.hstack([eye_d, -eye_d, sparse.csc_matrix((d, 1 + n))]),
        sparse.hstack([-eye_d, -eye_d, sparse.csc_matrix((d, 1 + n))]),
        sparse.hstack([sparse.csc_matrix(-y[:, None] * X), sparse.csc_matrix((n, d)),
                       sparse.csc_matrix(-y[:, None]), -eye_n]),
        sparse.hstack([sparse.csc_matrix((n, 2 * d + 1)), -eye_n]),
    ], format="csc")
    rhs = np.r_[np.zeros(2 * d), -np.ones(n), np.zeros(n)]
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    solver = clarabel.DefaultSolver(P, q, A, rhs, [clarabel.NonnegativeConeT(A.shape[0])],
                                    settings)
    solution = solver.solve()
    x = np.asarray(solution.x)
    return x[:d], x[2 * d], time.perf_counter() - start, str(solution.status)


def zeronorm_l2_l1(binary, path, mu, nu, standardize):
    # The retrained final classifier is not timed; a small C keeps its kernel SMO short.
    cmd = [binary, "select", path, "--method", "l2-l1-svm", "--mu", repr(mu), "--nu", repr(nu),
           "--final-C", "0.01", "--json", "-q"] + (["--standardize"] if standardize else [])
    out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--zeronorm", required=True)
    p.add_argument("--data", action="append", required=True)
    p.add_argument("--mu-per-n", default="1,100")
    p.add_argument("--nu", type=float, default=0.1)
    p.add_argument("--standardize", action="store_true")
    args = p.parse_args()
    print("| data | n × d | C = mu/n | zeronorm s | Clarabel s | ratio | objective (zeronorm) | "
          "relative difference (Clarabel - zeronorm) | features (zeronorm / Clarabel) | status |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for path in args.data:
        X, y = read_csv(path)
        if args.standardize:
            X = standardized(X)
        n, d = X.shape
        for k in (float(v) for v in args.mu_per_n.split(",")):
            mu, C = k * n, k
            ours = zeronorm_l2_l1(args.zeronorm, path, mu, args.nu, args.standardize)
            w, b, peer_seconds, status = clarabel_l2_l1(X, y, C, args.nu)
            peer_objective = l2_l1_objective(X, y, C, args.nu, w, b)
            our_objective = ours["trace"][0]["objective"]
            our_seconds = ours["method_seconds"]
            features_peer = int((np.abs(w) > 1e-8).sum())
            print(f"| {path.split('/')[-1]} | {n} × {d} | {C:g} | {our_seconds:.3f} | "
                  f"{peer_seconds:.3f} | {peer_seconds / our_seconds:.1f}x | {our_objective:.10g} | "
                  f"{(peer_objective - our_objective) / abs(our_objective):.1e} | "
                  f"{len(ours['selected'])} / {features_peer} | {ours['status']} / {status} |",
                  flush=True)


if __name__ == "__main__":
    main()
