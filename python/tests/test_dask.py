"""Scale-out with Dask: a grid search over a zeronorm pipeline under joblib's dask backend,
and evaluate_selection mapped over several data sets, on a two-process local cluster."""
import numpy as np
import pytest

distributed = pytest.importorskip(
    "distributed", reason="dask[distributed] is not installed (pip install 'zeronorm[test]')")

import joblib  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402

import zeronorm as zn  # noqa: E402

from conftest import two_class_problem  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def test_grid_search_on_the_cluster(client):
    X, y = two_class_problem(n=60, d=30, seed=11)
    grid = GridSearchCV(make_pipeline(zn.AROM(ridge=1e-3), zn.SVC()),
                        {"arom__n_features_to_select": [3, 10], "svc__C": [0.1, 10.0]}, cv=3)
    with distributed.get_task_stream(client) as stream, joblib.parallel_backend("dask"):
        grid.fit(X, y)
    local = GridSearchCV(grid.estimator, grid.param_grid, cv=3).fit(X, y)
    np.testing.assert_allclose(grid.cv_results_["mean_test_score"],
                               local.cv_results_["mean_test_score"])
    # The fits ran on the cluster's workers. (client.nthreads() asks the scheduler directly;
    # scheduler_info() can return a periodic refresh's cache, which lists no workers.)
    workers = {task["worker"] for task in stream.data}
    assert workers and workers <= set(client.nthreads())
    assert len(client.nthreads()) == 2


def test_evaluate_selection_over_data_sets(client):
    sets = [two_class_problem(n=50, d=30, seed=s) for s in range(4)]
    futures = client.map(zn.evaluate_selection, [X for X, _ in sets], [y for _, y in sets],
                         feature_counts=[10, 3], n_splits=4, train_size=40, random_state=1,
                         ridge=1e-3, n_jobs=1, pure=False)
    results = client.gather(futures)
    for (X, y), r in zip(sets, results):
        assert isinstance(r, zn.SelectionEvaluation)
        local = zn.evaluate_selection(X, y, feature_counts=[10, 3], n_splits=4, train_size=40,
                                      random_state=1, ridge=1e-3, n_jobs=1)
        np.testing.assert_array_equal(r.split_errors, local.split_errors)


def test_evaluate_svm_over_data_sets(client):
    sets = [two_class_problem(n=50, d=10, seed=s) for s in range(3)]
    futures = client.map(zn.evaluate_svm, [X for X, _ in sets], [y for _, y in sets],
                         C=[0.1, 1, 10], n_splits=3, train_size=40, random_state=2, n_jobs=1,
                         pure=False)
    for (X, y), r in zip(sets, client.gather(futures)):
        assert isinstance(r, zn.SvmEvaluation)
        local = zn.evaluate_svm(X, y, C=[0.1, 1, 10], n_splits=3, train_size=40, random_state=2,
                                n_jobs=1)
        np.testing.assert_array_equal(r.split_errors, local.split_errors)
        np.testing.assert_array_equal(r.chosen_C, local.chosen_C)
