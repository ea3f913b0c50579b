"""Two-class kernel classifiers over the library's registered classifiers: SVC and L0SVC."""
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _core
from ._common import parse_device, report

class _KernelClassifier(ClassifierMixin, BaseEstimator):
    """A registered two-class classifier with f(x) = sum_i dual_coef_i k(x, sv_i) + b.

    Attributes in scikit-learn's meanings: ``support_vectors_`` (the expansion points),
    ``dual_coef_`` (1, n_SV) signed coefficients, ``intercept_`` (b), ``n_support_`` the number
    of expansion points of each class (sign of the coefficient), ``classes_``; f > 0 predicts
    ``classes_[1]``.
    """

    def _method(self):
        raise NotImplementedError

    def _box_and_ridge(self):
        """(C, ridge, tol) of the SMO solver (methods with their own box bound ignore C and
        ridge; tol None: the method's own inner tolerance)."""
        return 1.0, 0.0, None

    def _parameters(self):
        """The method's own parameters (the registry's names), as text."""
        return {}

    def _kernel(self, X):
        gamma = self.gamma
        if gamma == "scale":  # as scikit-learn's SVC
            variance = X.var()
            gamma = 1.0 / (X.shape[1] * variance) if variance > 0 else 1.0
        elif gamma == "auto":
            gamma = 1.0 / X.shape[1]
        elif isinstance(gamma, str):
            raise ValueError(f"gamma must be a positive number, 'scale' or 'auto'; got {gamma!r}")
        return {"kernel": str(self.kernel), "gamma": float(gamma), "degree": int(self.degree),
                "coef0": float(self.coef0)}

    def fit(self, X, y):
        """Trains on X with any two labels y."""
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        target = type_of_target(y, input_name="y", raise_unknown=True)
        if target != "binary":
            raise ValueError("Only binary classification is supported. The type of the target "
                             f"is {target}: {type(self).__name__} is a two-class classifier.")
        self.classes_ = np.unique(y)
        if len(self.classes_) < 2:
            raise ValueError(f"{type(self).__name__} needs two classes; y holds one class, "
                             f"{self.classes_[0]!r}")
        labels = np.where(y == self.classes_[1], 1.0, -1.0)
        self._kernel_ = self._kernel(X)
        kind, index = parse_device(self.device)
        C, ridge, tol = self._box_and_ridge()
        r = _core.train_classifier(X, labels, self._method(), self._kernel_, C, ridge, tol,
                                   bool(getattr(self, "shrinking", True)),
                                   float(getattr(self, "cache_size", 200.0)), self._parameters(),
                                   kind, index)
        self.support_vectors_ = r["support_vectors"]
        self.dual_coef_ = r["coef"].reshape(1, -1)
        self.intercept_ = np.array([r["bias"]])
        coef = self.dual_coef_[0]
        self.n_support_ = np.array([np.sum(coef < 0), np.sum(coef > 0)], dtype=np.int32)
        self.n_iter_ = int(r["iterations"])
        self.status_ = r["status"]
        self.converged_ = self.status_ == "success"
        report(self, f"{type(self).__name__} ({self._method()})", self.status_, r["message"],
               self.n_iter_, r["seconds"])
        return self

    @property
    def coef_(self):
        """Primal weights w = sum_i dual_coef_i sv_i, (1, n_features): linear kernel only."""
        check_is_fitted(self, "support_vectors_")
        if self._kernel_["kernel"] != "linear":
            raise AttributeError("coef_ is only defined for kernel='linear'")
        return self.dual_coef_ @ self.support_vectors_

    def decision_function(self, X):
        """f(x) for every row of X; positive values predict ``classes_[1]``."""
        check_is_fitted(self, "support_vectors_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        kind, index = parse_device(self.device)
        return _core.decision_function(self.support_vectors_, self.dual_coef_[0],
                                       float(self.intercept_[0]), self._kernel_, X, kind, index)

    def predict(self, X):
        """The class of every row of X."""
        check_is_fitted(self, "support_vectors_")
        return self.classes_[(self.decision_function(X) >= 0).astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


class SVC(_KernelClassifier):
    """C-support vector classification trained by SMO (Fan, Chen & Lin 2005, as LIBSVM):
    min 1/2 |w|^2 + C sum xi_i. Kernels and their parameters as LIBSVM: "linear", "poly"
    (gamma x.y + coef0)^degree, "rbf" exp(-gamma |x-y|^2), plus "sum-of-powers" and "chi2".
    ``gamma`` also takes scikit-learn's "scale" and "auto". ``ridge`` is added to the kernel
    diagonal (2-norm slack), ``tol`` is the KKT stopping tolerance, ``cache_size`` the kernel
    cache in MiB. Defaults are the library's. On a linear kernel from max(2000, 10 d) training
    rows (at most 1024 features) the same SVM is solved without its kernel, in the primal's
    dimension, to a relative duality gap of 1e-8 (``tol`` and the cache do not apply there).
    """

    def __init__(self, *, C=1.0, kernel="linear", gamma=1.0, degree=3, coef0=0.0, ridge=0.0,
                 tol=1e-3, shrinking=True, cache_size=200.0, device="cpu", verbose=False):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.ridge = ridge
        self.tol = tol
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.device = device
        self.verbose = verbose

    def _method(self):
        return "svm"

    def _box_and_ridge(self):
        return float(self.C), float(self.ridge), float(self.tol)


class L0SVC(_KernelClassifier):
    """The L0-norm (or Lp-norm, 0 < p <= 2) sparse kernel machine of Huang, Zheng, King & Lyu
    (2008): f(x) = sum_i alpha_i k(x, x_i) + b with few nonzero alpha_i, by reweighted SVM
    solves. ``C_xi`` slack penalty, ``C_alpha`` sparsity weight, ``epsilon`` pruning/stopping
    threshold, ``max_iter`` outer steps, ``variant`` "exact" or "diagonal" (sec. 3.4.3),
    ``keep_degenerate`` keeps a model whose every coefficient was pruned (otherwise a
    NumericalError). ``support_vectors_`` are the expansion points (identical training points
    merged), ``dual_coef_`` their alpha. Defaults are the library's.
    """

    def __init__(self, *, kernel="linear", gamma=1.0, degree=3, coef0=0.0, p=0.0,
                 variant="exact", C_xi=1.0, C_alpha=0.2, epsilon=1e-4, max_iter=100,
                 keep_degenerate=False, device="cpu", verbose=False):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.p = p
        self.variant = variant
        self.C_xi = C_xi
        self.C_alpha = C_alpha
        self.epsilon = epsilon
        self.max_iter = max_iter
        self.keep_degenerate = keep_degenerate
        self.device = device
        self.verbose = verbose

    def _method(self):
        return "l0-svm"

    def _parameters(self):
        return {"p": repr(float(self.p)), "variant": str(self.variant),
                "C_xi": repr(float(self.C_xi)), "C_alpha": repr(float(self.C_alpha)),
                "epsilon": repr(float(self.epsilon)), "max_iterations": str(int(self.max_iter)),
                "keep_degenerate": "true" if self.keep_degenerate else "false"}
