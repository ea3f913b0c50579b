"""Data reading and the stratified folds and halves shared by the SciPy peers of the validation
protocols (kta_scipy.py, l2l0_scipy.py): CSV with the label last, the first label sorted as -1."""
import numpy as np


def read_csv(path):
    raw = np.genfromtxt(path, delimiter=",", skip_header=1, dtype=str)
    X = raw[:, :-1].astype(float)
    labels = raw[:, -1]
    first = sorted(set(labels))[0]
    return X, np.where(labels == first, -1.0, 1.0)


def stratified_halves(y, rng):
    a, b = [], []
    for c in (-1.0, 1.0):
        idx = rng.permutation(np.flatnonzero(y == c))
        a += list(idx[: len(idx) - len(idx) // 2])
        b += list(idx[len(idx) - len(idx) // 2:])
    return np.array(a), np.array(b)


def stratified_folds(y, k, rng):
    fold = np.empty(len(y), dtype=int)
    for c in (-1.0, 1.0):
        idx = rng.permutation(np.flatnonzero(y == c))
        fold[idx] = np.arange(len(idx)) % k
    return [(np.flatnonzero(fold != f), np.flatnonzero(fold == f)) for f in range(k)]
