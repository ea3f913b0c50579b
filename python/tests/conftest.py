import numpy as np
import pytest


def two_class_problem(n=60, d=40, informative=3, seed=0, labels=("neg", "pos")):
    """n x d Gaussian data whose class is the sign of the sum of the first `informative`
    columns (shifted apart so the problem is separable on them)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    s = X[:, :informative].sum(axis=1)
    X[:, :informative] += np.sign(s)[:, None]
    y = np.where(s > 0, labels[1], labels[0])
    return X, y


@pytest.fixture
def problem():
    return two_class_problem()
