#!/usr/bin/env python3
"""Table II's 'microarray' column of Neumann, Schnoerr & Steidl 2005 (Machine Learning 61,
sec. 5.2.2) on the bundled colon data (62 tissues x 2000 genes): "We first partition the data
equally into a training, a validation and a test set", the parameters chosen on the validation
third (the paper's grids, ties to the larger values), the final model trained on training +
validation and tested on the test third. `zeronorm cv --splits S --train-size 41` draws S such
partitions (41 rows for training + validation, halved by the validation protocol, 21 for test;
stratified), so one run gives the spread the paper's single partition cannot show:

  zeronorm cv data/colon/colon.csv --method M --splits S --train-size 41 --standardize
           --seed 1 --json -q

Prints a Markdown table: mean (and median) features and mean test error over the partitions
(with their standard deviations), the paper's single-partition numbers beside them, and the run time.

Usage: python3 bench/repro_neumann2005_table2.py [--zeronorm build/src/cli/zeronorm]
           [--splits 20] [--seed 1] [--methods rlp,fsv,l2-l1-svm,l2-l0-svm]
"""
import argparse
import json
import os
import statistics
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Table II, 'microarray' column: dim, err % (None where the extracted text lost the number).
PAPER = {"rlp": (41, 40), "fsv": (1, 15), "l2-l1-svm": (21, None), "l2-l0-svm": (18, None)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--zeronorm", default=os.path.join(ROOT, "build", "src", "cli", "zeronorm"))
    parser.add_argument("--splits", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--methods", default="rlp,fsv,l2-l1-svm,l2-l0-svm")
    args = parser.parse_args()
    print("| method | dim (mean ± sd) | dim (median) | paper dim | err % (mean ± sd) | paper err % "
          "| partitions | time |")
    print("|---|---|---|---|---|---|---|---|")
    for method in args.methods.split(","):
        cmd = [args.zeronorm, "cv", os.path.join(ROOT, "data", "colon", "colon.csv"),
               "--method", method, "--splits", str(args.splits), "--train-size", "41",
               "--standardize", "--seed", str(args.seed), "--json", "-q"]
        start = time.time()
        out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        seconds = time.time() - start
        folds = out["results"][0]["folds"]
        dims = [f["features"] for f in folds]
        errs = [100.0 * f["error"] for f in folds]
        paper_dim, paper_err = PAPER.get(method, (None, None))
        show = lambda v: "—" if v is None else str(v)  # noqa: E731
        print(f"| {method} | {statistics.mean(dims):.1f} ± {statistics.pstdev(dims):.1f} | "
              f"{statistics.median(dims):g} | {show(paper_dim)} | {statistics.mean(errs):.1f} ± {statistics.pstdev(errs):.1f} | "
              f"{show(paper_err)} | {len(folds)} | {seconds:.0f} s |", flush=True)


if __name__ == "__main__":
    main()
