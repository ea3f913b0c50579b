"""Evaluations over many stratified train/test splits: a feature-selection method
(:func:`evaluate_selection`) and a kernel SVM with C chosen by nested cross-validation
(:func:`evaluate_svm`)."""
from dataclasses import dataclass, field
import numbers

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_consistent_length

from . import _core
from ._common import encode_labels, parse_device, report
from .selection import _RankerSelector
from .svm import SVC


@dataclass
class SelectionEvaluation:
    """What :func:`evaluate_selection` measured.

    ``mean_error[c]`` and ``std_error[c]`` (sample sd / sqrt(splits)) of the test error for
    ``feature_counts[c]`` over the splits whose final classifier trained
    (``failed_classifiers[c]`` left out); ``split_errors`` (n_splits, n_counts), NaN where that
    classifier failed; ``selected[s][c]`` the column indices split s chose for count c, best
    first; ``frequencies[c]`` stability selection (Meinshausen & Buehlmann 2010) for count c: a
    pair (features, fractions) of every column chosen in some split and the fraction of the
    splits that chose it, most frequent first (ties by column); ``splits[s]`` the (train, test)
    row indices of split s; ``status`` "success" when every split's selection converged.
    """
    feature_counts: np.ndarray
    mean_error: np.ndarray
    std_error: np.ndarray
    failed_classifiers: np.ndarray
    split_errors: np.ndarray
    selected: list = field(repr=False)
    classes: np.ndarray = field(repr=False)
    frequencies: list = field(default_factory=list, repr=False)
    splits: list = field(default_factory=list, repr=False)
    status: str = "success"
    seconds: float = 0.0


@dataclass
class SvmEvaluation:
    """What :func:`evaluate_svm` measured.

    ``mean_error`` and ``std_error`` (sample sd / sqrt(splits)) of the test error over the
    splits; per split (arrays of n_splits): ``split_errors``, ``chosen_C`` (the C the inner
    cross-validation chose), ``n_support`` and ``iterations`` (SMO, inner and final) of the
    final SVM; ``inner_errors`` (n_splits, len(C_grid)) the mean inner-CV error of each C
    (no columns for a single C); ``C_grid`` ascending; ``splits[s]`` the (train, test) row
    indices of split s; ``status`` "success" when every SMO run converged; ``batched`` which
    schedule ran.
    """
    mean_error: float
    std_error: float
    split_errors: np.ndarray
    chosen_C: np.ndarray
    C_grid: np.ndarray
    inner_errors: np.ndarray = field(repr=False)
    n_support: np.ndarray = field(repr=False)
    iterations: np.ndarray = field(repr=False)
    classes: np.ndarray = field(repr=False)
    splits: list = field(default_factory=list, repr=False)
    status: str = "success"
    seconds: float = 0.0
    batched: bool = False


def _train_rows(train_size, n):
    if isinstance(train_size, numbers.Integral) and not isinstance(train_size, bool):
        return int(train_size)
    if isinstance(train_size, numbers.Real) and 0 < train_size < 1:
        return int(round(train_size * n))
    raise ValueError(f"train_size must be a row count or a fraction in (0, 1); got {train_size!r}")


def _checked_data(X, y):
    """(X as float64, classes, the library's labels) after scikit-learn's checks."""
    X = check_array(X, dtype=np.float64, ensure_min_samples=2)
    y = np.asarray(y)
    check_consistent_length(X, y)
    check_classification_targets(y)
    classes, labels = encode_labels(y)
    return X, classes, labels


def _run_arguments(random_state, device, n_jobs):
    """(seed, backend kind, device index, worker threads) for the library's evaluations."""
    if isinstance(random_state, numbers.Integral):
        seed = int(random_state)
    else:
        seed = int(check_random_state(random_state).randint(np.iinfo(np.int32).max))
    kind, index = parse_device(device)
    threads = 0 if n_jobs is None or n_jobs < 0 else int(n_jobs)
    return seed, kind, index, threads


def evaluate_selection(X, y, method="l2-arom", feature_counts=(10,), n_splits=10, train_size=0.8,
                       random_state=None, log10=False, standardize=True, device="cpu",
                       n_jobs=None, **options):
    """Runs ``method`` on ``n_splits`` stratified random train/test splits of (X, y): for each,
    the preprocessing fitted on its training rows (``log10`` first, then ``standardize``), one
    selection path serving every count of ``feature_counts``, the final linear SVM retrained on
    each subset, and its test error.

    ``method``: a registered ranker name (``_core.ranker_names()``: "l2-arom", "rfe", "fsv",
    "kta", "fs-svmcp", ...) with the library's SelectionOptions fields as keyword ``options``
    (C, ridge, max_iterations, ...), or a selector instance (:class:`AROM`, :class:`RFE`,
    :class:`FSV`, ...) whose parameters are used.
    ``train_size``: rows or a fraction. ``random_state``: an int seed (the same splits as the
    command-line tool's ``--seed``), None or a RandomState. ``n_jobs``: worker threads over the
    splits (None: all cores; on CUDA at most 16, each with its own stream). Returns a :class:`SelectionEvaluation`.
    """
    X, classes, labels = _checked_data(X, y)
    if isinstance(method, _RankerSelector):
        options = {**method._options(), **options}
        device = method.device if device == "cpu" else device
        method = method._method()
    seed, kind, index, threads = _run_arguments(random_state, device, n_jobs)
    r = _core.evaluate_selection(X, labels, {"method": method,
                                             "feature_counts": [int(c) for c in feature_counts],
                                             **options},
                                 int(n_splits), _train_rows(train_size, X.shape[0]), seed,
                                 bool(log10), bool(standardize), threads, kind, index)
    return SelectionEvaluation(feature_counts=r["feature_counts"], mean_error=r["mean_error"],
                               std_error=r["std_error"], failed_classifiers=r["failed_classifiers"],
                               split_errors=r["split_errors"], selected=r["selected"],
                               classes=classes, frequencies=r["frequencies"],
                               splits=r["splits"], status=r["status"], seconds=r["seconds"])


def evaluate_svm(X, y, C=1.0, kernel="linear", gamma="auto", degree=3, coef0=0.0, ridge=0.0,
                 tol=1e-3, inner_folds=5, n_splits=10, train_size=0.8, random_state=None,
                 log10=False, standardize=True, device="cpu", n_jobs=None):
    """A two-class kernel SVM (:class:`SVC`'s solver) over ``n_splits`` stratified random
    train/test splits of (X, y): for each, the preprocessing fitted on its training rows
    (``log10`` first, then ``standardize``), C chosen from the grid ``C`` (a number: no inner
    loop) by ``inner_folds``-fold stratified cross-validation on the training rows (lowest mean
    inner error, ties to the smaller C), the SVM retrained with it and tested. Each split's
    training kernel is computed once and every inner problem is a block of it, each C
    warm-started from the previous one: the same nested cross-validation as scikit-learn's
    ``GridSearchCV(SVC(...), {"C": C}, cv=StratifiedKFold(inner_folds))`` refitted per split,
    in one call to the library (the command-line tool's ``cv --method svm``).

    Kernel parameters as :class:`SVC` (``gamma="auto"``: 1 / n_features). ``train_size``: rows
    or a fraction. ``random_state``: an int seed (the same splits and inner folds as the
    command-line tool's ``--seed``), None or a RandomState. ``n_jobs``: worker threads over the
    splits (None: all cores). Returns an :class:`SvmEvaluation`.
    """
    X, classes, labels = _checked_data(X, y)
    if len(classes) != 2:
        raise ValueError(f"evaluate_svm is for two classes; y holds {len(classes)}")
    grid = [float(c) for c in np.atleast_1d(C)]
    if gamma == "scale":  # SVC's rule reads the data it is given, here not yet standardised
        raise ValueError("gamma='scale' is not defined before the per-split standardisation; "
                         "use 'auto' (1 / n_features) or a number")
    kernel_options = SVC(kernel=kernel, gamma=gamma, degree=degree, coef0=coef0)._kernel(X)
    seed, kind, index, threads = _run_arguments(random_state, device, n_jobs)
    r = _core.evaluate_svm(X, labels, kernel_options, grid, float(ridge), float(tol),
                           int(inner_folds), int(n_splits), _train_rows(train_size, X.shape[0]),
                           seed, bool(log10), bool(standardize), threads, kind, index)
    result = SvmEvaluation(mean_error=r["mean_error"], std_error=r["std_error"],
                           split_errors=r["split_errors"], chosen_C=r["chosen_C"],
                           C_grid=r["C_grid"], inner_errors=r["inner_errors"],
                           n_support=r["n_support"], iterations=r["iterations"], classes=classes,
                           splits=r["splits"], status=r["status"], seconds=r["seconds"],
                           batched=r["batched"])
    report(None, "evaluate_svm", result.status)
    return result
