#!/usr/bin/env python3
"""FSV's linearised LPs (Bradley & Mangasarian 1998; Neumann, Schnoerr & Steidl 2005, eq. (6),
sec. 4.2.1) through HiGHS (SciPy's linprog, method "highs-ds": the dual simplex, so vertex
solutions as CLP's), in the library's form of the LP (--form split) or the paper's (bounds): the
peer of `zeronorm select DATA --method fsv --lambda L --json`, whose LPs
go through CLP's dual simplex.

Both run the same DCA: v^0 = e; step k minimises (1 - lambda) mean_i xi_i + sum_j c_j v_j with
c_j = lambda alpha e^{-alpha v_j^k} (costs below 1e-7 of the LP's largest cost set to zero, as the
library does), over -v <= w <= v, y_i (w.x_i + b) + xi_i >= 1, xi, v >= 0; v^{k+1} = |w^{k+1}|;
stop when v changes by at most tol (min of absolute and relative change), or, as the SLA, when
the LP does not improve on the current iterate (which is then kept). Reports per data set the
seconds, the number of LPs, the final objective of eq. (6) and the support of each, and how far
the supports agree.

Data: ionosphere (standardised) and colon (log10, standardised), all rows, written to a temporary
CSV that both read.

Usage: python3 bench/peers/fsv_highs.py [--zeronorm build/src/cli/zeronorm]
                                         [--lambdas 0.05,0.2,0.5] [--data ionosphere,colon]
                                         [--repeats 3] [--lp-method highs-ds|highs]
                                         [--form split|bounds]
"""
import argparse
import csv
import json
import os
import subprocess
import tempfile
import time

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ALPHA, TOL, MAX_ITER, LP_TOL, DESCENT = 5.0, 1e-5, 1000, 1e-7, 1e-8


def load(name):
    path = os.path.join(ROOT, "data", name, f"{name}.csv")
    with open(path) as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    X = np.array([[float(v) for v in r[:-1]] for r in body])
    labels = [r[-1] for r in body]
    first = sorted(set(labels))[0]
    y = np.array([-1.0 if l == first else 1.0 for l in labels])
    if name == "colon":
        X = np.log10(X)
    sd = X.std(axis=0, ddof=1)
    X = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    return header, X, y


def objective(X, y, w, b, lam):
    hinge = np.maximum(0.0, 1.0 - y * (X @ w + b)).mean()
    return (1 - lam) * hinge + lam * (1.0 - np.exp(-ALPHA * np.abs(w))).sum()


def lp_form(X, y, form):
    """A_ub, b_ub, bounds and the cost layout of the step's LP. "split" (the library's form,
    src/solvers/lp_svm.cpp): columns w+ (d), w- (d) >= 0 with w = w+ - w-, b free, xi (n) >= 0,
    one row per sample, a feature's cost on w+ and w-. "bounds" (the paper's form): columns w (d,
    free), b, xi (n), v (d) >= 0, with the 2d rows -v <= w <= v and the cost on v."""
    n, d = X.shape
    YX = sparse.csr_matrix(y[:, None] * X)
    if form == "split":
        A = sparse.hstack([-YX, YX, sparse.csr_matrix(-y[:, None]), -sparse.identity(n)]).tocsc()
        rhs = -np.ones(n)
        bounds = [(0, None)] * (2 * d) + [(None, None)] + [(0, None)] * n
    else:
        margins = sparse.hstack([-YX, sparse.csr_matrix(-y[:, None]), -sparse.identity(n),
                                 sparse.csr_matrix((n, d))])
        eye = sparse.identity(d)
        rows = sparse.vstack([sparse.hstack([eye, sparse.csr_matrix((d, 1 + n)), -eye]),
                              sparse.hstack([-eye, sparse.csr_matrix((d, 1 + n)), -eye])])
        A = sparse.vstack([margins, rows]).tocsc()
        rhs = np.concatenate([-np.ones(n), np.zeros(2 * d)])
        bounds = [(None, None)] * (d + 1) + [(0, None)] * (n + d)
    return A, rhs, bounds


def fsv_highs(X, y, lam, method="highs-ds", form="split"):
    """The DCA with every LP through HiGHS; (w, b, LPs solved, seconds in linprog)."""
    n, d = X.shape
    A, rhs, bounds = lp_form(X, y, form)
    loss_cost = (1 - lam) / n
    v = np.ones(d)
    w = b = None
    lps, lp_seconds = 0, 0.0
    for _ in range(MAX_ITER):
        costs = lam * ALPHA * np.exp(-ALPHA * v)
        costs[costs < LP_TOL * max(loss_cost, costs.max())] = 0.0
        if form == "split":
            c = np.concatenate([costs, costs, [0.0], np.full(n, loss_cost)])
        else:
            c = np.concatenate([np.zeros(d + 1), np.full(n, loss_cost), costs])
        start = time.perf_counter()
        sol = linprog(c, A_ub=A, b_ub=rhs, bounds=bounds, method=method)
        lp_seconds += time.perf_counter() - start
        lps += 1
        if sol.status != 0:
            raise RuntimeError(f"HiGHS: {sol.message}")
        if form == "split":
            w_new, b_new = sol.x[:d] - sol.x[d:2 * d], sol.x[2 * d]
        else:
            w_new, b_new = sol.x[:d], sol.x[d]

        def model(w_, b_):
            return loss_cost * np.maximum(0.0, 1.0 - y * (X @ w_ + b_)).sum() + costs @ np.abs(w_)

        if w is not None and model(w_new, b_new) >= model(w, b) - DESCENT * (1 + abs(model(w, b))):
            break  # the SLA's stop: the current iterate is kept
        w, b = w_new, b_new
        v_new = np.abs(w)
        diff = np.abs(v_new - v)
        rel = np.where(v != 0, diff / np.where(v != 0, np.abs(v), 1.0), diff)
        v, change = v_new, np.minimum(diff, rel).max()
        if change <= TOL:
            break
    return w, b, lps, lp_seconds


def ours(args, path, lam):
    cmd = [args.zeronorm, "select", path, "--method", "fsv", "--lambda", str(lam), "--json"]
    start = time.perf_counter()
    out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    wall = time.perf_counter() - start
    return out, wall


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--zeronorm", default=os.path.join(ROOT, "build", "src", "cli", "zeronorm"))
    ap.add_argument("--lambdas", default="0.05,0.2,0.5")
    ap.add_argument("--data", default="ionosphere,colon")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--form", default="split", choices=["split", "bounds"],
                    help="the LP's form: the library's (split) or the paper's (bounds)")
    ap.add_argument("--lp-method", default="highs-ds",
                    help="linprog method: highs-ds (dual simplex, vertices as the DCA needs) or "
                         "highs (HiGHS chooses; may end off a vertex)")
    args = ap.parse_args()
    print("| data (n x d) | lambda | zeronorm (CLP): s, LPs, objective, support | "
          "HiGHS: s (in linprog), LPs, objective, support | supports: common / union |")
    print("|---|---|---|---|---|")
    for name in args.data.split(","):
        header, X, y = load(name)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, f"{name}.csv")
            with open(path, "w", newline="") as f:
                out = csv.writer(f)
                out.writerow(header)
                for row, label in zip(X, y):
                    out.writerow([repr(float(v)) for v in row] + [int(label)])
            for lam in map(float, args.lambdas.split(",")):
                runs = [ours(args, path, lam) for _ in range(args.repeats)]
                zn, _ = runs[0]
                zn_seconds = float(np.median([r[0]["seconds"] for r in runs]))
                zn_support = set(zn["selected"])
                zn_objective = zn["trace"][-1]["objective"]
                peer = []
                for _ in range(args.repeats):
                    start = time.perf_counter()
                    w, b, lps, lp_seconds = fsv_highs(X, y, lam, args.lp_method, args.form)
                    peer.append((time.perf_counter() - start, lp_seconds))
                hs_support = set(np.flatnonzero(np.abs(w) > 1e-8).tolist())
                hs_seconds = float(np.median([p[0] for p in peer]))
                hs_lp = float(np.median([p[1] for p in peer]))
                print(f"| {name} ({X.shape[0]} x {X.shape[1]}) | {lam:g} | {zn_seconds:.3f}, "
                      f"{zn['iterations']}, {zn_objective:.6f}, {len(zn_support)} | "
                      f"{hs_seconds:.3f} ({hs_lp:.3f}), {lps}, "
                      f"{objective(X, y, w, b, lam):.6f}, {len(hs_support)} | "
                      f"{len(zn_support & hs_support)} / {len(zn_support | hs_support)} |",
                      flush=True)
    print(f"\nmedian of {args.repeats} runs each; zeronorm: the selection's own seconds (JSON "
          "'seconds', the DCA only); HiGHS: the whole DCA in Python, in brackets the seconds "
          "inside linprog.")


if __name__ == "__main__":
    main()
