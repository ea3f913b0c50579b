#!/usr/bin/env python3
"""One kernel-target alignment value and its gradient in theta (Neumann, Schnoerr & Steidl 2005,
sec. 4.2.4: the sum every DCA step of kta evaluates), in the library (bench_alignment, CPU backend
and CUDA where present) against the NumPy expression a user would write:

  K = exp(-s * (a_i + a_j - 2 (X diag(theta) X')_ij)),  a_i = sum_k theta_k x_ik^2,  s = 1/(2 sigma^2)
  W = Y * K,  value = W.sum(),  grad = -s * (2 * (X**2).T @ W.sum(1) - 2 * ((W @ X) * X).sum(0))

(and, where the n x n x d tensor fits, the direct form -s * sum_ij W_ij (x_ik - x_jk)^2). Y =
y_n y_n', sigma = sqrt(d)/2, theta uniform in [0, 1]. Problems: n = 62, d = 2000 (colon's shape)
and n = 700, d = 166 (musk's shape). Prints a Markdown table of median times and the largest
relative difference of the gradients.

Usage: python3 bench/bench_alignment.py [--binary build/bench/bench_alignment] [--repeats 20]
"""
import argparse
import json
import os
import subprocess
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def problem(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(rng.random(n) < 0.4, 1.0, -1.0)
    y[0], y[1] = 1.0, -1.0
    theta = rng.random(d)
    return X, y, theta


def numpy_product(X, Y, theta, s):
    a = (X * X) @ theta
    K = np.exp(-s * (a[:, None] + a[None, :] - 2.0 * (X * theta) @ X.T))
    W = Y * K
    value = W.sum()
    grad = -s * (2.0 * (X * X).T @ W.sum(axis=1) - 2.0 * ((W @ X) * X).sum(axis=0))
    return value, grad


def numpy_direct(X, Y, theta, s):
    diff2 = (X[:, None, :] - X[None, :, :]) ** 2            # n x n x d
    W = Y * np.exp(-s * diff2 @ theta)
    return W.sum(), -s * np.einsum("ij,ijk->k", W, diff2)


def median_ms(f, repeats):
    f()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append(1e3 * (time.perf_counter() - start))
    return float(np.median(times))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--binary", default=os.path.join(ROOT, "build", "bench", "bench_alignment"))
    p.add_argument("--repeats", type=int, default=20)
    args = p.parse_args()
    print("| n | d | backend | median ms | max rel. gradient difference to NumPy |")
    print("|---|---|---|---|---|")
    for n, d in [(62, 2000), (700, 166)]:
        X, y, theta = problem(n, d, 1)
        yn = np.where(y > 0, 1.0 / (y > 0).sum(), -1.0 / (y < 0).sum())
        Y = np.outer(yn, yn)
        s = 1.0 / (2.0 * d / 4.0)
        with tempfile.NamedTemporaryFile(suffix=".bin", delete=False) as f:
            np.concatenate([[n, d], X.ravel(), y, theta]).astype("<f8").tofile(f)
            path = f.name
        try:
            out = subprocess.run([args.binary, path, str(args.repeats)], check=True,
                                 capture_output=True, text=True).stdout
        finally:
            os.unlink(path)
        value, grad = numpy_product(X, Y, theta, s)
        scale = np.abs(grad).max()
        rows = [("NumPy (product form)", median_ms(lambda: numpy_product(X, Y, theta, s),
                                                   args.repeats), 0.0)]
        if n * n * d * 8 < 2e9:
            v2, g2 = numpy_direct(X, Y, theta, s)
            rows.append(("NumPy (n x n x d tensor)",
                         median_ms(lambda: numpy_direct(X, Y, theta, s), max(3, args.repeats // 5)),
                         np.abs(g2 - grad).max() / scale))
        for line in out.splitlines():
            r = json.loads(line)
            assert abs(r["value"] - value) <= 1e-10 * max(1.0, abs(value)), (r["value"], value)
            rows.append((f"zeronorm {r['backend']}", r["median_ms"],
                         np.abs(np.asarray(r["gradient"]) - grad).max() / scale))
        for name, ms, diff in rows:
            print(f"| {n} | {d} | {name} | {ms:.2f} | {diff:.1e} |", flush=True)


if __name__ == "__main__":
    main()
