#!/usr/bin/env python3
"""Figure 1 of Weston, Elisseeff, Schoelkopf & Tipping (JMLR 3, 2003, sec. 5.1).

Runs the C++ driver bench/repro_fig1.cpp (target repro_fig1), which prints one CSV row per
(problem, training size, trial, method), and turns it into
  - bench/fig1.png: test error against training-set size for problems (a)-(f), l2-AROM in the
    polynomial feature space (solid), the polynomial SVM (dashed) and, in (b), a linear SVM
    (dotted), as in the paper's figure;
  - a Markdown table (mean test error +- standard error over the trials, and the mean number of
    monomials AROM keeps) on stdout, for bench/REPRODUCTION.md.

Usage: python3 bench/repro_fig1.py [--driver build/bench/repro_fig1] [--trials 30]
                                   [--basis both|multinomial|tuples] [--seed 1]
                                   [--csv fig1.csv] [--png bench/fig1.png]
Needs matplotlib (pip install matplotlib).
"""
import argparse
import collections
import csv
import io
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

PROBLEMS = {
    "a": "(a) f = x1 x2 + x3",
    "b": "(b) f = x1",
    "c": "(c) 95% sparse",
    "d": "(d) 90% sparse",
    "e": "(e) 80% sparse",
    "f": "(f) 0% sparse",
}
STYLE = {  # method -> (label, line style, colour)
    "arom-poly": ("l2-AROM SVM (polynomial)", "-", "C0"),
    "arom-tuples": ("l2-AROM SVM (ordered tuples)", "-.", "C2"),
    "svm-poly": ("SVM (polynomial)", "--", "C1"),
    "svm-linear": ("SVM (linear)", ":", "C3"),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--driver", default=os.path.join(ROOT, "build", "bench", "repro_fig1"))
    ap.add_argument("--trials", type=int, default=30)
    ap.add_argument("--basis", default="both", choices=["multinomial", "tuples", "both"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--csv", help="also keep the driver's per-trial CSV here")
    ap.add_argument("--png", default=os.path.join(HERE, "fig1.png"))
    args = ap.parse_args()

    cmd = [args.driver, "--trials", str(args.trials), "--basis", args.basis, "--seed", str(args.seed)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    if args.csv:
        with open(args.csv, "w") as f:
            f.write(out)
    errors = collections.defaultdict(list)
    kept = collections.defaultdict(list)
    for row in csv.DictReader(io.StringIO(out)):
        key = (row["problem"], int(row["n"]), row["method"])
        errors[key].append(float(row["error"]))
        kept[key].append(int(row["n_features"]))

    def stats(values):
        m = sum(values) / len(values)
        sd = math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1)) if len(values) > 1 else 0.0
        return m, sd / math.sqrt(len(values))

    sizes = sorted({k[1] for k in errors})
    methods = [m for m in STYLE if any(k[2] == m for k in errors)]

    # Table.
    print("| problem | method | " + " | ".join(f"{n} points" for n in sizes) + " |")
    print("|---|---|" + "---|" * len(sizes))
    for p in PROBLEMS:
        for m in methods:
            if (p, sizes[0], m) not in errors:
                continue
            cells = []
            for n in sizes:
                mean, se = stats(errors[(p, n, m)])
                cell = f"{100 * mean:.1f} ± {100 * se:.1f}"
                if m.startswith("arom"):
                    cell += f" [{sum(kept[(p, n, m)]) / len(kept[(p, n, m)]):.1f}]"
                cells.append(cell)
            print(f"| {PROBLEMS[p]} | {STYLE[m][0]} | " + " | ".join(cells) + " |")
    print(f"\n{args.trials} trials, 500 test points, seed {args.seed}; cells: test error % ± standard "
          "error [mean number of monomials AROM keeps]")

    # Figure.
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("matplotlib is missing: pip install matplotlib")
    fig, axes = plt.subplots(2, 3, figsize=(12, 7), sharex=True)
    for ax, p in zip(axes.flat, PROBLEMS):
        for m in methods:
            if (p, sizes[0], m) not in errors:
                continue
            label, style, colour = STYLE[m]
            means = [100 * stats(errors[(p, n, m)])[0] for n in sizes]
            ses = [100 * stats(errors[(p, n, m)])[1] for n in sizes]
            ax.errorbar(sizes, means, yerr=ses, linestyle=style, color=colour, marker="o",
                        markersize=3, capsize=2, label=label)
        ax.set_title(PROBLEMS[p])
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    for ax in axes[1]:
        ax.set_xlabel("training points")
    for ax in axes[:, 0]:
        ax.set_ylabel("test error (%)")
    handles = {}
    for ax in axes.flat:
        for h, l in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(l, h)
    fig.legend(handles.values(), handles.keys(), loc="lower center", ncol=len(handles))
    fig.suptitle("Weston et al. 2003, Fig. 1: degree-2 polynomials over 10 inputs "
                 f"({args.trials} trials, 500 test points)")
    fig.tight_layout(rect=(0, 0.05, 1, 0.96))
    fig.savefig(args.png, dpi=110)
    print(f"\nwrote {args.png}", file=sys.stderr)


if __name__ == "__main__":
    main()
