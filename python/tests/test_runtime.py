"""How arrays cross into the library, the GIL during fits, and evaluate_selection."""
import json
import os
import subprocess
import threading
import time

import numpy as np
import pytest

import zeronorm as zn
from zeronorm import _core

from conftest import two_class_problem


def test_float64_arrays_cross_without_a_copy():
    X, _ = two_class_problem()
    for a in (np.ascontiguousarray(X), np.asfortranarray(X), X[::2, ::3]):
        assert _core.buffer_address(a) == a.__array_interface__["data"][0]


def test_c_order_f_order_strided_and_float32_give_the_same_fit():
    X, y = two_class_problem(d=30)
    ref = zn.AROM(3, ridge=1e-3).fit(np.ascontiguousarray(X), y)
    for variant in (np.asfortranarray(X), np.repeat(X, 2, axis=1)[:, ::2]):
        other = zn.AROM(3, ridge=1e-3).fit(variant, y)
        np.testing.assert_array_equal(other.selected_features_, ref.selected_features_)
        np.testing.assert_array_equal(other.scores_, ref.scores_)
    # float32 is accepted and converted (the fit is that of the rounded data).
    X32 = X.astype(np.float32)
    single = zn.AROM(3, ridge=1e-3).fit(X32, y)
    converted = zn.AROM(3, ridge=1e-3).fit(X32.astype(np.float64), y)
    np.testing.assert_array_equal(single.scores_, converted.scores_)
    svc = zn.SVC().fit(X, y)
    np.testing.assert_array_equal(svc.decision_function(np.asfortranarray(X)),
                                  svc.decision_function(X))


def test_fits_release_the_gil():
    # While two fits run in threads, this thread keeps running Python: with the GIL held by a
    # fit it would stall for the whole fit.
    X, y = two_class_problem(n=80, d=300, seed=2)
    start = time.perf_counter()
    zn.RFE(5, ridge=1e-3).fit(X, y)
    one_fit = time.perf_counter() - start

    spans = []

    def fit():
        t0 = time.perf_counter()
        zn.RFE(5, ridge=1e-3).fit(X, y)
        spans.append((t0, time.perf_counter()))

    threads = [threading.Thread(target=fit) for _ in range(2)]
    for t in threads:
        t.start()
    ticks = []
    while any(t.is_alive() for t in threads):
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    for t in threads:
        t.join()
    (a0, a1), (b0, b1) = spans
    assert max(a0, b0) < min(a1, b1), "the two fits did not overlap"
    longest_stall = max(np.diff(ticks)) if len(ticks) > 1 else one_fit
    assert len(ticks) > 5 and longest_stall < 0.5 * one_fit, (longest_stall, one_fit)


def test_evaluate_selection():
    X, y = two_class_problem(n=60, d=40, seed=7)
    r = zn.evaluate_selection(X, y, method="l2-arom", feature_counts=[20, 3], n_splits=6,
                              train_size=0.75, random_state=3, ridge=1e-3, n_jobs=1)
    assert list(r.feature_counts) == [20, 3]
    assert r.split_errors.shape == (6, 2)
    np.testing.assert_allclose(r.mean_error, r.split_errors.mean(axis=0))
    assert len(r.selected) == 6 and all(len(s[1]) == 3 for s in r.selected)
    assert r.mean_error[1] <= 0.2
    # Stability selection: each count's fractions are the splits' choices counted, most frequent
    # first, and sum to the count (every split chose that many columns).
    assert len(r.frequencies) == 2
    for c, count in enumerate(r.feature_counts):
        features, fractions = r.frequencies[c]
        tally = np.bincount(np.concatenate([s[c] for s in r.selected]), minlength=X.shape[1])
        chosen = np.flatnonzero(tally)
        assert sorted(features) == list(chosen)
        np.testing.assert_allclose(fractions, tally[features] / 6)
        assert np.all(np.diff(fractions) <= 0)
        assert abs(fractions.sum() - count) < 1e-12
    # The splits' rows: stratified, disjoint, 45 training rows each.
    assert len(r.splits) == 6
    for train, test in r.splits:
        assert len(train) == 45 and len(test) == 15 and not set(train) & set(test)
        assert set(y[train]) == set(y)
    # The same seed gives the same splits; an estimator instance gives its method and options.
    again = zn.evaluate_selection(X, y, method=zn.AROM(ridge=1e-3), feature_counts=[20, 3],
                                  n_splits=6, train_size=45, random_state=3)
    np.testing.assert_array_equal(again.split_errors, r.split_errors)
    with pytest.raises(zn.InvalidArgument, match="unknown selection method 'nope'"):
        zn.evaluate_selection(X, y, method="nope", feature_counts=[3], n_splits=2)
    with pytest.raises(zn.InvalidArgument, match="no selection parameter is named 'ridg'"):
        zn.evaluate_selection(X, y, feature_counts=[3], n_splits=2, ridg=1.0)


def command_line_tool():
    """The `zeronorm` tool of the build tree this module comes from (the test skips without)."""
    tool = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(zn.__file__))),
                        "src", "cli", "zeronorm")
    if not os.path.exists(tool):
        pytest.skip("the command-line tool is not built next to this module")
    return tool


def colon_data():
    """The bundled colon cancer CSV's path and its rows (features, then the label)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    data = os.path.join(root, "data", "colon", "colon.csv")
    return data, np.loadtxt(data, delimiter=",", skiprows=1)


def test_evaluate_selection_matches_the_command_line_tool():
    # The same seed gives the same splits and errors as `zeronorm cv` (colon cancer data).
    tool = command_line_tool()
    data, raw = colon_data()
    X, y = raw[:, :-1], raw[:, -1]
    ours = zn.evaluate_selection(X, y, feature_counts=[100, 20], n_splits=10, train_size=50,
                                 random_state=1, log10=True, ridge=1e-3, final_C=np.inf,
                                 final_ridge=1e-3)
    out = subprocess.run([tool, "cv", data, "--method", "l2-arom", "--features", "100,20",
                          "--splits", "10", "--train-size", "50", "--ridge", "1e-3",
                          "--final-C", "inf", "--final-ridge", "1e-3", "--log10",
                          "--standardize", "--seed", "1", "--json", "--quiet"],
                         check=True, capture_output=True, text=True).stdout
    theirs = json.loads(out)["results"]
    np.testing.assert_allclose(ours.mean_error, [p["mean_error"] for p in theirs], atol=1e-12)


def test_evaluate_svm():
    X, y = two_class_problem(n=90, d=12, informative=2, seed=11)
    X[:, 0] += np.random.default_rng(11).normal(scale=1.5, size=len(y))  # some test errors
    # One C: no inner loop; each split's error is that of an SVC trained on its training rows.
    r = zn.evaluate_svm(X, y, C=0.5, n_splits=6, train_size=60, random_state=4, standardize=False)
    assert r.split_errors.shape == (6,) and r.inner_errors.shape == (6, 0)
    assert np.all(r.chosen_C == 0.5) and len(r.splits) == 6
    for (train, test), error in zip(r.splits, r.split_errors):
        assert len(train) == 60 and len(test) == 30 and not set(train) & set(test)
        model = zn.SVC(C=0.5).fit(X[train], y[train])
        assert np.mean(model.predict(X[test]) != y[test]) == error
    np.testing.assert_allclose(r.mean_error, r.split_errors.mean())
    np.testing.assert_allclose(r.std_error, r.split_errors.std(ddof=1) / np.sqrt(6))
    # A grid: the chosen C has the lowest mean inner error, ties to the smaller C.
    grid = [10.0, 0.01, 1.0, 0.1]
    g = zn.evaluate_svm(X, y, C=grid, kernel="rbf", gamma=0.1, n_splits=5, train_size=0.7,
                        random_state=2, n_jobs=1)
    np.testing.assert_array_equal(g.C_grid, sorted(grid))
    assert g.inner_errors.shape == (5, 4)
    np.testing.assert_array_equal(g.chosen_C, g.C_grid[np.argmin(g.inner_errors, axis=1)])
    again = zn.evaluate_svm(X, y, C=grid, kernel="rbf", gamma=0.1, n_splits=5, train_size=0.7,
                            random_state=2)
    np.testing.assert_array_equal(again.split_errors, g.split_errors)
    with pytest.raises(zn.InvalidArgument):
        zn.evaluate_svm(X, y, C=[1.0, -1.0], n_splits=2)
    with pytest.raises(ValueError, match="two classes"):
        zn.evaluate_svm(X, np.arange(len(y)) % 3, n_splits=2)
    with pytest.raises(ValueError, match="gamma='scale'"):
        zn.evaluate_svm(X, y, kernel="rbf", gamma="scale", n_splits=2)
    with pytest.raises(zn.InvalidArgument, match="log10"):  # log10 of non-positive data
        zn.evaluate_svm(X, y, n_splits=2, log10=True)


def test_evaluate_svm_matches_the_command_line_tool():
    # The same seed gives the same splits, inner folds and errors as `zeronorm cv --method svm`.
    tool = command_line_tool()
    data, raw = colon_data()
    ours = zn.evaluate_svm(raw[:, :-1], raw[:, -1], C=[0.01, 0.1, 1], kernel="rbf",
                           gamma=1e-3, n_splits=8, train_size=50, random_state=3, log10=True)
    out = subprocess.run([tool, "cv", data, "--method", "svm", "--kernel", "rbf", "--gamma",
                          "1e-3", "-C", "0.01,0.1,1", "--folds", "5", "--splits", "8",
                          "--train-size", "50", "--log10", "--standardize", "--seed", "3",
                          "--json", "--quiet"], check=True, capture_output=True, text=True).stdout
    theirs = json.loads(out)
    np.testing.assert_allclose(ours.split_errors, theirs["fold_errors"], atol=1e-12)
    np.testing.assert_allclose(ours.chosen_C, theirs["chosen_C"], atol=0)


def test_build_info_lists_the_cuda_architectures():
    info = zn.build_info()
    assert info["version"] == zn.__version__
    assert info["cuda_compiled"] == bool(_core.cuda_compiled())
    if info["cuda_compiled"]:
        # CMake's entries: a number, optionally -real (SASS only) or -virtual (PTX only).
        assert info["cuda_architectures"]
        for entry in info["cuda_architectures"]:
            number, _, kind = entry.partition("-")
            assert number.isdigit() and kind in ("", "real", "virtual"), entry
    else:
        assert info["cuda_architectures"] == []
