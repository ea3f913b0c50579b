#!/usr/bin/env python3
"""Figure 5 of Huang et al. 2008 (Huang et al. 2008): the number of expansion terms (active set |I_alpha|)
at each epoch (outer step) of the L0-norm SVM, for the final fit of the first outer CV fold of
each data set (the paper's footnote 4).

Input: the --trace CSV of bench/repro_huang2008_tables45 (columns set,epoch,active_terms; epoch t
is the active-set size m at the start of outer step t, the last row the final number of terms).
Output: a PNG with one panel per data set (default bench/fig5_huang2008.png).

usage: repro_huang2008_tables45.py TRACE.csv [--out bench/fig5_huang2008.png]
Needs matplotlib (pip install matplotlib).
"""
import argparse
import csv
import os
from collections import OrderedDict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PAPER_NAMES = {"pima": "pima (Diabetes)", "colon": "colon"}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--out", default=os.path.join(here, "fig5_huang2008.png"))
    args = ap.parse_args()

    series = OrderedDict()
    with open(args.trace) as f:
        for row in csv.DictReader(f):
            series.setdefault(row["set"], []).append(
                (int(row["epoch"]), int(row["active_terms"])))

    n = len(series)
    cols = min(3, n)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.3 * rows), squeeze=False)
    for k, (name, points) in enumerate(series.items()):
        ax = axes[k // cols][k % cols]
        epochs = [p[0] for p in points]
        terms = [p[1] for p in points]
        ax.plot(epochs, terms, "o-", ms=3, lw=1)
        ax.set_title(f"({chr(ord('a') + k)}) {PAPER_NAMES.get(name, name)}: "
                     f"{terms[0]} -> {terms[-1]}", fontsize=10)
        ax.set_xlabel("Epoch")
        ax.set_ylabel("Number of SVs")
        ax.grid(alpha=0.3)
    for k in range(n, rows * cols):
        axes[k // cols][k % cols].axis("off")
    fig.suptitle("L0-norm SVM: active-set size per epoch (first outer CV fold; cf. Huang et al. 2008 Fig. 5)",
                 fontsize=11)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
