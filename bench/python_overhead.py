#!/usr/bin/env python3
"""The Python package's overhead against the command-line tool on the same work, side by side.

  AROM on colon (log10 + standardised, 20 genes, ridge 1e-3): zeronorm.AROM.fit against
  `zeronorm select` (its `seconds`, the time inside the command, and the whole process);
  W1's l2-AROM path over many splits: zeronorm.evaluate_selection against `zeronorm cv`;
  W1's C grid (a linear SVM, C from 5 values by inner 5-fold CV, refit, test):
  zeronorm.evaluate_svm against `zeronorm cv --method svm`.

Runs alternate (Python, tool, Python, ...) and the medians are reported, so load on the machine
affects both sides alike. Usage (repository root, after scripts/test.sh):
  PYTHONPATH=build/python .venv/bin/python bench/python_overhead.py [--zeronorm build/src/cli/zeronorm]
      [--splits 500] [--repeats 5]
"""
import argparse
import json
import os
import statistics
import subprocess
import time

import numpy as np

import zeronorm as zn

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--zeronorm", default=os.path.join(root, "build", "src", "cli", "zeronorm"))
parser.add_argument("--data", default=os.path.join(root, "data", "colon", "colon.csv"))
parser.add_argument("--splits", type=int, default=500)
parser.add_argument("--repeats", type=int, default=5)
args = parser.parse_args()

raw = np.loadtxt(args.data, delimiter=",", skiprows=1)
X, y = raw[:, :-1], raw[:, -1]
Xs = np.log10(X)
Xs = (Xs - Xs.mean(axis=0)) / Xs.std(axis=0)
counts = [2000, 1000, 500, 250, 100, 50, 20]


def tool(*command):
    start = time.perf_counter()
    out = subprocess.run([args.zeronorm, *command, "--json", "--quiet"], check=True,
                         capture_output=True, text=True).stdout
    return time.perf_counter() - start, json.loads(out)


def python_fit():
    start = time.perf_counter()
    zn.AROM(20, ridge=1e-3, final_C=float("inf"), final_ridge=1e-3).fit(Xs, y)
    return time.perf_counter() - start


def python_path():
    start = time.perf_counter()
    r = zn.evaluate_selection(X, y, method="l2-arom", feature_counts=counts, n_splits=args.splits,
                              train_size=50, random_state=1, log10=True, ridge=1e-3,
                              final_C=float("inf"), final_ridge=1e-3)
    return time.perf_counter() - start, r


grid = [0.001, 0.01, 0.1, 1, 10]


def python_grid():
    start = time.perf_counter()
    r = zn.evaluate_svm(X, y, C=grid, kernel="linear", inner_folds=5, n_splits=args.splits,
                        train_size=50, random_state=1, log10=True)
    return time.perf_counter() - start, r


rows = {"fit": ([], [], []), "path": ([], [], []), "grid": ([], [], [])}
for _ in range(args.repeats):
    rows["fit"][0].append(python_fit())
    wall, j = tool("select", args.data, "--method", "l2-arom", "--features", "20", "--ridge",
                   "1e-3", "--log10", "--standardize", "--final-C", "inf", "--final-ridge", "1e-3")
    rows["fit"][1].append(j["seconds"])
    rows["fit"][2].append(wall)
    seconds, r = python_path()
    rows["path"][0].append(seconds)
    wall, j = tool("cv", args.data, "--method", "l2-arom", "--features",
                   ",".join(map(str, counts)), "--ridge", "1e-3", "--final-C", "inf",
                   "--final-ridge", "1e-3", "--splits", str(args.splits), "--train-size", "50",
                   "--log10", "--standardize", "--seed", "1")
    rows["path"][1].append(j["seconds"])
    rows["path"][2].append(wall)
    assert np.allclose(r.mean_error, [p["mean_error"] for p in j["results"]]), "different errors"
    seconds, r = python_grid()
    rows["grid"][0].append(seconds)
    wall, j = tool("cv", args.data, "--method", "svm", "--kernel", "linear", "-C",
                   ",".join(map(str, grid)), "--folds", "5", "--splits", str(args.splits),
                   "--train-size", "50", "--log10", "--standardize", "--seed", "1")
    rows["grid"][1].append(j["seconds"])
    rows["grid"][2].append(wall)
    assert np.allclose(r.split_errors, j["fold_errors"]), "different errors"

print("| workload | Python (median s) | tool, inside (s) | tool, process (s) | Python / inside | Python / process |")
print("|---|---|---|---|---|---|")
names = {"fit": "AROM.fit, colon, 20 genes",
         "path": f"evaluate_selection, l2-AROM path, {args.splits} splits",
         "grid": f"evaluate_svm, linear C grid, {args.splits} splits"}
for key, (python, inside, process) in rows.items():
    p, i, w = (statistics.median(v) for v in (python, inside, process))
    print(f"| {names[key]} | {p:.3f} | {i:.3f} | {w:.3f} | {p / i:.2f} | {p / w:.2f} |")
print(f"\n{args.repeats} alternating repeats; errors of the path and the grid identical on both sides.")
