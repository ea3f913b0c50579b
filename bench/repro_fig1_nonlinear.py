#!/usr/bin/env python3
"""Test error against the number of training points on the nonlinear problem of Weston et al.
2000 (2 relevant features of 52), for nonlinear RFE (rfe-rbf), R2W2 with a Gaussian kernel and
the Gaussian SVM on all features: the nonlinear counterpart of bench/fig1.png.

Runs the C++ driver bench/repro_fig1_nonlinear.cpp (target repro_fig1_nonlinear), which prints
one CSV row per (training size, trial, method), and writes
  - bench/fig1_nonlinear.png: mean test error (+- standard error) against training-set size;
  - a Markdown table on stdout (mean test error +- standard error, and how often the 2 selected
    features are x1 and x2), for bench/REPRODUCTION.md.

Usage: python3 bench/repro_fig1_nonlinear.py [--driver build/bench/repro_fig1_nonlinear]
           [--trials 30] [--sizes 10,20,30,50,75,100] [--seed 1] [--png bench/fig1_nonlinear.png]
Needs matplotlib.
"""
import argparse
import collections
import csv
import io
import math
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STYLE = {  # method -> (label, line style, colour)
    "svm": ("Gaussian SVM, all 52 features", "--", "C1"),
    "rfe-rbf": ("RFE (Gaussian kernel), 2 features", "-", "C0"),
    "r2w2": ("R2W2 (Gaussian kernel), 2 features", "-.", "C2"),
}


def mean_se(values):
    m = sum(values) / len(values)
    if len(values) < 2:
        return m, 0.0
    var = sum((v - m) ** 2 for v in values) / (len(values) - 1)
    return m, math.sqrt(var / len(values))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--driver", default=os.path.join(ROOT, "build", "bench", "repro_fig1_nonlinear"))
    p.add_argument("--trials", type=int, default=30)
    p.add_argument("--sizes", default="10,20,30,50,75,100")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--png", default=os.path.join(HERE, "fig1_nonlinear.png"))
    a = p.parse_args()
    out = subprocess.run([a.driver, "--trials", str(a.trials), "--sizes", a.sizes,
                          "--seed", str(a.seed)], check=True, capture_output=True, text=True)
    errors = collections.defaultdict(list)
    hits = collections.defaultdict(int)
    seconds = collections.defaultdict(float)
    for row in csv.DictReader(io.StringIO(out.stdout)):
        key = (row["method"], int(row["n"]))
        errors[key].append(float(row["error"]))
        hits[key] += sorted(row["selected"].split()) == ["1", "2"]
        seconds[row["method"]] += float(row["seconds"])
    sizes = sorted({n for _, n in errors})
    methods = [m for m in STYLE if any(k[0] == m for k in errors)]

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5.5, 4))
    for m in methods:
        label, style, colour = STYLE[m]
        ms = [mean_se(errors[(m, n)]) for n in sizes]
        ax.errorbar(sizes, [v for v, _ in ms], yerr=[s for _, s in ms], linestyle=style,
                    color=colour, marker="o", markersize=3, capsize=2, label=label)
    ax.set_xlabel("number of training points")
    ax.set_ylabel("test error")
    ax.set_ylim(0, 0.6)
    ax.set_title("Nonlinear problem (2 of 52 features relevant), %d trials" % a.trials)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(a.png, dpi=120)

    print("| training points | " + " | ".join(STYLE[m][0] for m in methods) + " |")
    print("|---|" + "---|" * len(methods))
    for n in sizes:
        cells = []
        for m in methods:
            v, s = mean_se(errors[(m, n)])
            cell = "%.1f %% ± %.1f" % (100 * v, 100 * s)
            if m != "svm":
                cell += " (x1, x2: %d/%d)" % (hits[(m, n)], len(errors[(m, n)]))
            cells.append(cell)
        print("| %d | %s |" % (n, " | ".join(cells)))
    print()
    print("seconds in all: " + ", ".join("%s %.1f" % (m, seconds[m]) for m in methods))


if __name__ == "__main__":
    main()
