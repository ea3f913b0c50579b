#!/usr/bin/env python3
"""Fig. 2 (right) of Neumann, Schnoerr & Steidl 2005 (Machine Learning 61, sec. 5.1): the chess
board problem (y + 1)/2 = (floor(x1/2) mod 2) xor (floor(x2/2) mod 2) on n = 64 random points of
R^4, whose features 3 and 4 are noise. Kernel-target alignment (eq. (12), sigma = 1) should keep
the relevant pair {1, 2} for most lambda, and discard the noise features even at lambda = 0.

The points are uniform in [0, 4]^4 (a 2 x 2 board: the paper does not give the range; on
[0, 8]^4, a 4 x 4 board with 64 points, lambda = 0 still keeps {1, 2} but lambda >= 0.1 loses
one of them for most seeds). Each lambda in {0, 0.05, ..., 0.95} is one run of

  zeronorm select train.csv --method kta --width 1 --lambda L --json -q

and the top panel shows the decision regions of the final SVM without bias at lambda = 0.1
(`--model`, then `zeronorm predict` on a grid of the selected pair, noise features at 2).
Writes bench/fig2_chessboard.png and prints the selected sets per lambda as Markdown.

Usage: python3 bench/repro_neumann2005_fig2.py [--zeronorm build/src/cli/zeronorm] [--seed 0]
(matplotlib needed: /work/main/.venv/bin/python has it)
"""
import argparse
import json
import os
import subprocess
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
HEADER = "x1,x2,x3,x4,label"


def chess_board(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 4.0, size=(n, 4))
    odd = (np.floor(X[:, 0] / 2) % 2).astype(int) ^ (np.floor(X[:, 1] / 2) % 2).astype(int)
    return X, np.where(odd == 1, 1.0, -1.0)


def save(path, X, y):
    np.savetxt(path, np.c_[X, y], delimiter=",", header=HEADER, comments="", fmt="%.17g")


def zeronorm(binary, *args):
    out = subprocess.run([binary, *args, "--json", "-q"], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--zeronorm", default=os.path.join(ROOT, "build", "src", "cli", "zeronorm"))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=os.path.join(HERE, "fig2_chessboard.png"))
    args = p.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, y = chess_board(64, args.seed)
    lambdas = [round(0.05 * k, 2) for k in range(20)]
    with tempfile.TemporaryDirectory() as tmp:
        train = os.path.join(tmp, "train.csv")
        save(train, X, y)
        theta = []
        for lam in lambdas:
            r = zeronorm(args.zeronorm, "select", train, "--method", "kta", "--width", "1",
                         "--lambda", str(lam))
            theta.append(r["scores"])
        model = os.path.join(tmp, "m.model")
        shown = zeronorm(args.zeronorm, "select", train, "--method", "kta", "--width", "1",
                         "--lambda", "0.1", "--model", model)
        g = np.linspace(0.0, 4.0, 161)
        G1, G2 = np.meshgrid(g, g)
        grid = np.c_[G1.ravel(), G2.ravel(), np.full(G1.size, 2.0), np.full(G1.size, 2.0)]
        grid_csv = os.path.join(tmp, "grid.csv")
        save(grid_csv, grid, np.ones(G1.size))
        regions = np.array(zeronorm(args.zeronorm, "predict", grid_csv, "-m", model)
                           ["predictions"]).reshape(G1.shape)
    theta = np.array(theta)

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(5, 8), gridspec_kw={"height_ratios": [3, 1.4]})
    top.contourf(G1, G2, regions, levels=[-2, 0, 2], colors=["#d0d8f0", "#f0d8d0"])
    top.contour(G1, G2, regions, levels=[0], colors="white", linewidths=2)
    top.scatter(X[y > 0, 0], X[y > 0, 1], marker="o", c="#b03020", label="y = +1")
    top.scatter(X[y < 0, 0], X[y < 0, 1], marker="x", c="#203080", label="y = -1")
    top.set_xlabel("x1")
    top.set_ylabel("x2")
    top.set_title(f"chess board in R^4, sigma = 1, lambda = 0.1: features "
                  f"{[j + 1 for j in shown['selected']]}, "
                  f"{shown['subsets'][0]['support_vectors']} SVs", fontsize=9)
    top.legend(loc="upper right", fontsize=8)
    bottom.imshow((theta > 1e-2).T, aspect="auto", cmap="Greys", origin="lower",
                  extent=[-0.025, 0.975, 0.5, 4.5])
    bottom.set_yticks([1, 2, 3, 4])
    bottom.set_xlabel("lambda")
    bottom.set_ylabel("feature (black: theta > 1e-2)")
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)

    print(f"Fig. 2 (right), seed {args.seed}: features with theta > 1e-2 per lambda\n")
    print("| lambda | " + " | ".join(f"{lam:g}" for lam in lambdas) + " |")
    print("|---|" + "---|" * len(lambdas))
    print("| selected | " + " | ".join(
        "{" + ",".join(str(j + 1) for j in np.flatnonzero(t > 1e-2)) + "}" for t in theta) + " |")


if __name__ == "__main__":
    main()
