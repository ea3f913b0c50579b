"""The estimators' meanings: defaults, labels, attributes, pickling, pipelines, errors."""
import math
import pickle

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import zeronorm as zn
from zeronorm import _core

from conftest import two_class_problem

SELECTORS = [zn.AROM(3, ridge=1e-3), zn.AROM(3, norm="l1", C=10.0), zn.RFE(3, ridge=1e-3),
             zn.CORR(3)]
CLASSIFIERS = [zn.SVC(), zn.SVC(kernel="rbf", gamma=0.05, C=10.0), zn.L0SVC()]


def test_selector_defaults_are_the_library_defaults():
    cpp = _core.selection_defaults()
    for est in (zn.AROM(), zn.RFE(), zn.CORR()):
        p = est.get_params()
        for name, key in [("C", "C"), ("ridge", "ridge"), ("prune_tolerance", "prune_tolerance"),
                          ("convergence_tolerance", "convergence_tolerance"),
                          ("max_iter", "max_iterations"), ("tol", "smo_tolerance"),
                          ("multiclass", "multiclass"), ("final_C", "final_C"),
                          ("final_ridge", "final_ridge"), ("step", "rfe_fraction")]:
            if name in p:
                assert p[name] == cpp[key], (type(est).__name__, name)


def test_classifier_defaults_are_the_library_defaults():
    cpp = _core.classifier_defaults()
    svc = zn.SVC().get_params()
    for name in ("kernel", "gamma", "degree", "coef0", "C", "ridge", "tol", "shrinking",
                 "cache_size"):
        assert svc[name] == cpp[name], name
    l0, l0_cpp = zn.L0SVC().get_params(), cpp["l0-svm"]
    for name, key in [("p", "p"), ("C_xi", "C_xi"), ("C_alpha", "C_alpha"),
                      ("epsilon", "epsilon"), ("max_iter", "max_iterations")]:
        assert l0[name] == float(l0_cpp[key]), name
    assert l0["variant"] == l0_cpp["variant"]
    assert str(l0["keep_degenerate"]).lower() == l0_cpp["keep_degenerate"]
    assert zn.AROM().C == math.inf


@pytest.mark.parametrize("est", SELECTORS, ids=repr)
def test_selectors_find_the_informative_features(est, problem):
    X, y = problem
    est.fit(X, y)
    assert est.n_features_in_ == X.shape[1]
    assert sorted(est.get_support(indices=True)) == [0, 1, 2]
    assert est.transform(X).shape == (X.shape[0], 3)
    assert sorted(est.ranking_) == list(range(1, X.shape[1] + 1))
    assert set(np.flatnonzero(est.ranking_ <= 3)) == {0, 1, 2}
    assert est.coef_.shape == (1, 3)
    assert list(est.classes_) == ["neg", "pos"]
    assert isinstance(est.converged_, bool) and est.n_iter_ >= 0
    # The final classifier's weights point the way the labels do: "pos" is +1.
    assert np.all(est.coef_[0] > 0)


@pytest.mark.parametrize("est", [zn.FSV(lam=0.1), zn.L2L1SVM(mu=10.0, nu=1.0),
                                 zn.L2L0SVM(mu=10.0, nu=1.0)], ids=repr)
def test_support_selectors_choose_their_own_count(est, problem):
    """Neumann et al. 2005's methods select the support of w (no count asked): the informative
    features among it, ranked first; a count caps it."""
    X, y = problem
    est.fit(X, y)
    support = est.get_support(indices=True)
    assert {0, 1, 2} <= set(support)
    assert set(np.flatnonzero(est.ranking_ <= 3)) == {0, 1, 2}
    capped = type(est)(**{**est.get_params(), "n_features_to_select": 2}).fit(X, y)
    assert len(capped.get_support(indices=True)) == 2
    assert est.n_iter_ >= 1


def test_rlp_selects_a_vertex_support(problem):
    """RLP's LP has a vertex solution: a few features, ranked first, all informative here."""
    X, y = problem
    est = zn.RLP().fit(X, y)
    support = set(est.get_support(indices=True))
    assert 1 <= len(support) <= 3 and support <= {0, 1, 2}
    assert set(np.flatnonzero(est.ranking_ <= len(support))) == support


def test_fs_svmcp_and_gaussian_rfe(problem):
    X, y = problem
    fs = zn.FSSVMCP().fit(X, y)
    assert 1 <= len(fs.get_support(indices=True)) < X.shape[1]
    assert fs.n_iter_ >= 1
    rbf = zn.RFE(3, kernel="rbf", ridge=1e-3).fit(X, y)
    assert len(rbf.get_support(indices=True)) == 3
    with pytest.raises(ValueError, match="kernel"):
        zn.RFE(kernel="poly").fit(X, y)


def test_l2_l0_is_no_denser_than_l2_l1(problem):
    X, y = problem
    l1 = zn.L2L1SVM(mu=10.0, nu=1.0).fit(X, y)
    l0 = zn.L2L0SVM(mu=10.0, nu=1.0).fit(X, y)
    assert len(l0.get_support(indices=True)) <= len(l1.get_support(indices=True))


def test_selector_feature_names_from_pandas(problem):
    pd = pytest.importorskip("pandas")
    X, y = problem
    frame = pd.DataFrame(X, columns=[f"gene{j}" for j in range(X.shape[1])])
    est = zn.AROM(3, ridge=1e-3).fit(frame, y)
    assert list(est.feature_names_in_) == list(frame.columns)
    assert sorted(est.get_feature_names_out()) == ["gene0", "gene1", "gene2"]


def test_multiclass_selection():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(90, 20))
    y = np.repeat(["a", "b", "c"], 30)
    for k, label in enumerate("abc"):
        X[y == label, k] += 4.0
    # One-vs-rest machines: "c vs rest" may use columns 0 and 1 (c is low on both), so only
    # two of the three informative columns are certain; one Weston-Watkins machine and the
    # one-vs-rest CORR scores take all three.
    for est, certain in ((zn.AROM(3, ridge=1e-3), 2), (zn.AROM(3, ridge=1e-3, multiclass="ww"), 3),
                         (zn.RFE(3, ridge=1e-3), 2), (zn.CORR(3), 3)):
        est.fit(X, y)
        assert len(set(est.get_support(indices=True)) & {0, 1, 2}) >= certain, est
        assert list(est.classes_) == ["a", "b", "c"]
        assert est.coef_.shape == (3, 3)
        assert zn.SVC().fit(est.transform(X)[y != "c"], y[y != "c"]).score(
            est.transform(X)[y != "c"], y[y != "c"]) >= 0.95


@pytest.mark.parametrize("est", CLASSIFIERS, ids=repr)
def test_classifiers_any_labels(est):
    X, y = two_class_problem(labels=(3, 7))
    est.fit(X, y)
    assert list(est.classes_) == [3, 7]
    assert est.score(X, y) >= 0.9
    f = est.decision_function(X)
    assert np.array_equal(est.predict(X), np.where(f >= 0, 7, 3))
    # f(x) = sum_i dual_coef_i k(x, sv_i) + b in scikit-learn's meaning; n_support_ per class.
    assert est.dual_coef_.shape == (1, len(est.support_vectors_))
    assert est.n_support_.sum() == len(est.support_vectors_)
    if est.kernel == "linear":
        np.testing.assert_allclose(X @ est.coef_[0] + est.intercept_[0], f, atol=1e-9)


def test_svc_agrees_with_scikit_learn():
    from sklearn.svm import SVC as SkSVC
    X, y = two_class_problem(n=80, d=5, seed=3)
    X += np.random.default_rng(4).normal(scale=1.5, size=X.shape)  # inseparable
    ours = zn.SVC(kernel="rbf", gamma=0.3, C=2.0, tol=1e-6).fit(X, y)
    theirs = SkSVC(kernel="rbf", gamma=0.3, C=2.0, tol=1e-6).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X), atol=1e-4)
    assert ours.n_support_.sum() == theirs.n_support_.sum()


def test_linear_svc_on_many_rows_agrees_with_scikit_learn():
    """From 2000 rows (n >= 10 d) the linear SVC is solved without its kernel: the same SVM as
    scikit-learn's (LIBSVM's) SMO, to LIBSVM's tolerance."""
    from sklearn.svm import SVC as SkSVC
    X, y = two_class_problem(n=2400, d=6, seed=5)
    X += np.random.default_rng(6).normal(scale=1.0, size=X.shape)  # inseparable
    ours = zn.SVC(kernel="linear", C=1.0).fit(X, y)
    theirs = SkSVC(kernel="linear", C=1.0, tol=1e-6).fit(X, y)
    scale = np.abs(theirs.coef_).max()
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=0, atol=1e-4 * scale)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, atol=1e-4)
    assert abs(int(ours.n_support_.sum()) - int(theirs.n_support_.sum())) <= 2
    np.testing.assert_allclose(ours.decision_function(X), X @ ours.coef_[0] + ours.intercept_,
                               atol=1e-9)


def test_l0svc_is_sparser_than_svc():
    X, y = two_class_problem(n=100, d=5, seed=5)
    X += np.random.default_rng(6).normal(scale=1.0, size=X.shape)
    l0 = zn.L0SVC(kernel="rbf", gamma=0.2).fit(X, y)
    svc = zn.SVC(kernel="rbf", gamma=0.2).fit(X, y)
    assert 0 < l0.n_support_.sum() < svc.n_support_.sum()


def test_classifier_rejects_more_than_two_classes():
    X = np.random.default_rng(0).normal(size=(9, 2))
    with pytest.raises(ValueError, match="Only binary classification"):
        zn.SVC().fit(X, [0, 1, 2] * 3)


@pytest.mark.parametrize("est", SELECTORS[:1] + CLASSIFIERS, ids=repr)
def test_pickle_round_trip(est, problem):
    X, y = problem
    est.fit(X, y)
    again = pickle.loads(pickle.dumps(est))
    assert again.get_params() == est.get_params()
    fitted = {k: v for k, v in vars(est).items() if k.endswith("_") and not k.startswith("_")}
    for name, value in fitted.items():
        np.testing.assert_array_equal(getattr(again, name), value, err_msg=name)
    if hasattr(est, "predict"):
        np.testing.assert_array_equal(again.decision_function(X), est.decision_function(X))
    else:
        np.testing.assert_array_equal(again.transform(X), est.transform(X))


def test_pipeline_and_grid_search(problem):
    X, y = problem
    pipe = make_pipeline(StandardScaler(), zn.AROM(ridge=1e-3), zn.SVC())
    grid = GridSearchCV(pipe, {"arom__n_features_to_select": [2, 3, 10], "svc__C": [0.1, 10.0]},
                        cv=3).fit(X, y)
    assert grid.best_score_ >= 0.9
    assert grid.best_estimator_.score(X, y) >= 0.9
    assert len(grid.cv_results_["params"]) == 6


def test_bad_input_keeps_the_library_message(problem):
    X, y = problem
    with pytest.raises(zn.InvalidArgument, match=r"feature_counts\[0\] = 100 is outside 1..40"):
        zn.AROM(100).fit(X, y)
    with pytest.raises(ValueError, match="smo.C must be positive, got -1"):
        zn.SVC(C=-1.0).fit(X, y)
    with pytest.raises(zn.InvalidArgument, match="sigmoidal"):
        zn.SVC(kernel="sigmoidal").fit(X, y)
    with pytest.raises(zn.InvalidArgument, match="multi-class scheme 'xyz'"):
        zn.AROM(3, multiclass="xyz").fit(X, y)
    with pytest.raises(zn.InvalidArgument, match="rfe_fraction"):
        zn.RFE(3, step=1.5).fit(X, y)
    with pytest.raises(zn.NotCompiled if not _core.cuda_compiled() else zn.Error):
        if _core.cuda_compiled() and zn.cuda_available():
            raise zn.Error("a device is present")
        zn.SVC(device="cuda").fit(X, y)
    with pytest.raises(ValueError, match="device must be"):
        zn.SVC(device="gpu").fit(X, y)
    fitted = zn.SVC().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        fitted.predict(X[:, :5])


def test_hard_margin_on_inseparable_data_is_a_numerical_error():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 0.0], [1.0, 1.0]])
    y = [0, 0, 1, 1]
    with pytest.raises(zn.NumericalError) as info:
        zn.AROM(1).fit(X, y)
    assert isinstance(info.value, zn.Error) and "separable" in str(info.value)


def test_error_hierarchy_mirrors_the_library():
    for cls in (zn.InvalidArgument, zn.DimensionMismatch, zn.DataFormatError):
        assert issubclass(cls, zn.Error) and issubclass(cls, ValueError)
    assert issubclass(zn.OutOfDeviceMemory, zn.CudaError)
    for cls in (zn.NumericalError, zn.NotCompiled, zn.CudaError, zn.OutputError):
        assert issubclass(cls, zn.Error)


def test_verbose_logs_and_never_prints(problem, caplog, capfd):
    X, y = problem
    with caplog.at_level("INFO", logger="zeronorm"):
        zn.AROM(3, ridge=1e-3, verbose=True).fit(X, y)
        zn.AROM(3, ridge=1e-3).fit(X, y)
    assert len([r for r in caplog.records if r.name == "zeronorm"]) == 1
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_quadratic_fsv_finds_the_features_of_a_product():
    """A class given by the sign of x0 * x1 (no linear rule explains it): quadratic FSV keeps
    features 0 and 1, ranked first, and its v bounds are the scores."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 6))
    y = np.where(X[:, 0] * X[:, 1] >= 0, 1, -1)
    est = zn.QuadraticFSV(lam=0.05).fit(X, y)
    assert {0, 1} <= set(est.get_support(indices=True))
    assert set(np.flatnonzero(est.ranking_ <= 2)) == {0, 1}
    assert est.n_iter_ >= 1


def test_quadratic_fsv_refuses_too_many_monomials():
    X = np.random.default_rng(0).normal(size=(20, 200))
    y = np.where(X[:, 0] > 0, 1, -1)
    with pytest.raises(zn.InvalidArgument, match="200 features give 20300 quadratic monomials"):
        zn.QuadraticFSV().fit(X, y)


def test_kta_selects_by_theta_with_its_kernel_svm(problem):
    X, y = problem
    kta = zn.KTA(lam=0.3).fit(X, y)
    selected = kta.get_support(indices=True)
    assert 1 <= len(selected) < X.shape[1]
    assert np.all(kta.theta_[selected] > 1e-2)
    assert np.all((kta.theta_ >= 0) & (kta.theta_ <= 1))
    assert set(selected) & {0, 1, 2}
    assert 0 < kta.n_support_ <= X.shape[0]
    assert kta.n_iter_ >= 1
    # More penalty, no more features; n_features_to_select caps the count.
    assert len(zn.KTA(lam=0.9).fit(X, y).get_support(indices=True)) <= len(selected)
    assert len(zn.KTA(1).fit(X, y).get_support(indices=True)) == 1
    with pytest.raises(ValueError, match="chi-square|negative"):
        zn.KTA(kernel="chi2").fit(X, y)
    with pytest.raises(ValueError, match="svm.lambda"):
        zn.KTA(svm_lam=1.0).fit(X, y)
    with pytest.raises(ValueError, match="lambda"):
        zn.KTA(lam=1.0).fit(X, y)
    kta_chi2 = zn.KTA(kernel="chi2", rho=0.5).fit(np.abs(X), y)
    assert kta_chi2.n_support_ > 0


def test_kta_without_a_kept_feature_has_no_support_vectors():
    """A weight lam so high that every theta drops below 1e-2: nothing selected, no SVM."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 4))
    y = np.where(rng.normal(size=30) > 0, 1, -1)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kta = zn.KTA(lam=0.9).fit(X, y)
    if len(kta.get_support(indices=True)) == 0:
        assert kta.n_support_ == 0
    else:
        assert kta.n_support_ >= 1
