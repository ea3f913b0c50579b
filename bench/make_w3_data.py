#!/usr/bin/env python3
"""W3's synthetic microarray: 72 samples x 7129 genes shaped like the leukemia data of Golub et
al. (47 ALL, 25 AML), with a planted signal, written as CSV (label last, +1/-1).

Genes are log-normal-like expression levels: a per-gene baseline and spread, a shared
sample factor (array brightness) and independent noise. 50 genes carry the signal, in 5
co-regulated blocks of 10: their mean moves by `--shift` of their spread between the classes.
Everything else is noise, so a selection method should find the planted genes (the stability
frequencies of `zeronorm cv --frequencies` show how often it does). Pure Python: no packages.

    python3 bench/make_w3_data.py OUT.csv [--seed 7] [--shift 2.0]
"""
import argparse
import math
import random


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--samples", type=int, default=72)
    parser.add_argument("--positives", type=int, default=47)
    parser.add_argument("--genes", type=int, default=7129)
    parser.add_argument("--informative", type=int, default=50)
    parser.add_argument("--block", type=int, default=10)
    parser.add_argument("--shift", type=float, default=2.0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    n, d = args.samples, args.genes
    labels = [1] * args.positives + [-1] * (n - args.positives)
    rng.shuffle(labels)
    # The planted genes, spread over the columns.
    planted = sorted(rng.sample(range(d), args.informative))
    block_of = {g: i // args.block for i, g in enumerate(planted)}
    baseline = [rng.gauss(6.0, 1.5) for _ in range(d)]
    spread = [0.2 + 0.8 * rng.random() for _ in range(d)]
    brightness = [rng.gauss(0.0, 0.3) for _ in range(n)]
    blocks = (args.informative + args.block - 1) // args.block
    # Co-regulation: each block shares a per-sample factor.
    block_factor = [[rng.gauss(0.0, 1.0) for _ in range(n)] for _ in range(blocks)]
    with open(args.out, "w") as f:
        f.write(",".join("g%d" % j for j in range(d)) + ",label\n")
        for i in range(n):
            row = []
            for j in range(d):
                v = baseline[j] + brightness[i] + spread[j] * rng.gauss(0.0, 1.0)
                if j in block_of:
                    v += spread[j] * (0.5 * args.shift * labels[i]
                                      + 0.5 * block_factor[block_of[j]][i])
                row.append("%.4f" % math.exp(v / 2.0))
            row.append(str(labels[i]))
            f.write(",".join(row) + "\n")
    print("wrote %s: %d x %d, %d positives, planted genes %s"
          % (args.out, n, d, args.positives, " ".join(map(str, planted))))


if __name__ == "__main__":
    main()
