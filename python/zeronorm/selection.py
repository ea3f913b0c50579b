"""Feature selectors over the library's registered rankers: AROM, RFE (linear or Gaussian kernel),
CORR, the DC-programming family FSV, L2L1SVM, L2L0SVM, RLP, FSSVMCP, and KTA."""
import math
import numbers

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import ClassifierTags
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _core
from ._common import encode_labels, parse_device, report


def _n_features(requested, d):
    """The feature count to select: None -> half (at least one), a float in (0, 1) -> that
    fraction of d (at least one), an int as given (the library checks 1 <= r <= d)."""
    if requested is None:
        return max(1, d // 2)
    if isinstance(requested, numbers.Integral) and not isinstance(requested, bool):
        return int(requested)
    if isinstance(requested, numbers.Real) and 0 < requested < 1:
        return max(1, int(requested * d))
    raise ValueError("n_features_to_select must be None, an integer in 1..n_features or a "
                     f"fraction in (0, 1); got {requested!r}")


class _RankerSelector(SelectorMixin, BaseEstimator):
    """A registered feature ranker as a scikit-learn selector (subclasses give the method and
    its options). Any two labels; K >= 3 classes by one-vs-rest machines (AROM with
    multiclass="ww": one Weston-Watkins machine)."""

    def _method(self):
        raise NotImplementedError

    def _options(self):
        """The library's SelectionOptions fields this estimator sets (besides the counts)."""
        return {"final_C": float(self.final_C), "final_ridge": float(self.final_ridge)}

    def _counts(self, d):
        """The library's feature_counts for d features."""
        return [_n_features(self.n_features_to_select, d)]

    def fit(self, X, y):
        """Selects ``n_features_to_select`` features of X for the labels y."""
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        self.classes_, labels = encode_labels(y)
        d = X.shape[1]
        kind, index = parse_device(self.device)
        options = {"method": self._method(), "feature_counts": self._counts(d), **self._options()}
        result = _core.rank(X, labels, options, kind, index)
        subset = result["subsets"][0]
        self.selected_features_ = subset["selected"]
        self.n_features_to_select_ = len(self.selected_features_)
        self.scores_ = result["scores"]
        # 1..d, best first: the selected features in their rank order, then the rest by score.
        rest = np.setdiff1d(np.arange(d), self.selected_features_)
        rest = rest[np.argsort(-self.scores_[rest], kind="stable")]
        order = np.concatenate([self.selected_features_, rest])
        self.ranking_ = np.empty(d, dtype=np.int64)
        self.ranking_[order] = np.arange(1, d + 1)
        self.n_iter_ = int(result["iterations"])
        self.status_ = result["status"]
        self.converged_ = self.status_ == "success"
        self.classifier_status_ = subset["classifier_status"]
        # The final linear classifier retrained on the selected columns: coef_ is
        # (n_machines, n_selected), one row per machine (one for two classes).
        if subset["class_weights"].size:
            self.coef_ = subset["class_weights"].T.copy()
            self.intercept_ = np.asarray(subset["bias"], dtype=np.float64)
        if subset["support_vectors"] >= 0:  # a kernel classifier (KTA's SVM without bias)
            self.n_support_ = int(subset["support_vectors"])
        report(self, f"{type(self).__name__} ({self._method()})", self.status_,
               result["message"], iterations=self.n_iter_, seconds=result["seconds"])
        if self.classifier_status_ not in ("success", "no_convergence"):
            report(self, "the final classifier", self.classifier_status_,
                   subset["classifier_message"])
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "selected_features_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_features_] = True
        return mask

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags


class AROM(_RankerSelector):
    """Feature selection by approximation of the zero-norm minimisation (Weston, Elisseeff,
    Schoelkopf & Tipping 2003): z <- z * |w| over repeated linear SVMs on the rescaled data
    (``norm="l2"``, Problem 8) or LPs (``norm="l1"``, Problem 7), keeping the
    ``n_features_to_select`` largest.

    Parameters are the library's SelectionOptions, with its defaults: ``C`` and ``ridge`` of the
    inner SVMs (C = inf with ridge = 0 is the hard margin, which needs separable data: set a
    ridge, e.g. 1e-3, or a finite C otherwise), ``max_iter`` AROM iterations, ``tol`` the inner
    SMO tolerance, ``multiclass`` "ovr" or "ww" (l2 only), ``final_C`` and ``final_ridge`` of the
    linear SVM retrained on the selected features (``coef_``). ``device``: "cpu", "cuda" or
    "cuda:N". ``verbose``: log each fit to the "zeronorm" logger.
    """

    def __init__(self, n_features_to_select=None, *, norm="l2", C=math.inf, ridge=0.0,
                 prune_tolerance=1e-8, convergence_tolerance=1e-6, max_iter=1000, tol=1e-8,
                 multiclass="ovr", final_C=100.0, final_ridge=0.0, device="cpu", verbose=False):
        self.n_features_to_select = n_features_to_select
        self.norm = norm
        self.C = C
        self.ridge = ridge
        self.prune_tolerance = prune_tolerance
        self.convergence_tolerance = convergence_tolerance
        self.max_iter = max_iter
        self.tol = tol
        self.multiclass = multiclass
        self.final_C = final_C
        self.final_ridge = final_ridge
        self.device = device
        self.verbose = verbose

    def _method(self):
        if self.norm not in ("l1", "l2"):
            raise ValueError(f"norm must be 'l1' or 'l2', got {self.norm!r}")
        return f"{self.norm}-arom"

    def _options(self):
        return {**super()._options(), "C": float(self.C), "ridge": float(self.ridge),
                "prune_tolerance": float(self.prune_tolerance),
                "convergence_tolerance": float(self.convergence_tolerance),
                "max_iterations": int(self.max_iter), "smo_tolerance": float(self.tol),
                "multiclass": str(self.multiclass)}


class RFE(_RankerSelector):
    """Recursive feature elimination by the weights of a linear SVM (Guyon, Weston, Barnhill &
    Vapnik 2002), or with ``kernel="rbf"`` by the change of W^2 of a Gaussian-kernel SVM
    exp(-gamma |x - x'|^2) when a feature is left out (Lal et al. 2006; ``gamma`` 0: 1/d). ``step``: the fraction of the remaining features removed per round, in
    [0, 1); 0 removes one per round. ``C``, ``ridge``, ``tol``: the inner SVMs (hard margin by
    default, as AROM). The other parameters as :class:`AROM`.
    """

    def __init__(self, n_features_to_select=None, *, kernel="linear", gamma=0.0, step=0.0,
                 C=math.inf, ridge=0.0, tol=1e-8, final_C=100.0, final_ridge=0.0, device="cpu",
                 verbose=False):
        self.n_features_to_select = n_features_to_select
        self.kernel = kernel
        self.gamma = gamma
        self.step = step
        self.C = C
        self.ridge = ridge
        self.tol = tol
        self.final_C = final_C
        self.final_ridge = final_ridge
        self.device = device
        self.verbose = verbose

    def _method(self):
        if self.kernel not in ("linear", "rbf"):
            raise ValueError(f"kernel must be 'linear' or 'rbf', got {self.kernel!r}")
        return "rfe" if self.kernel == "linear" else "rfe-rbf"

    def _options(self):
        options = {**super()._options(), "C": float(self.C), "ridge": float(self.ridge),
                   "smo_tolerance": float(self.tol), "rfe_fraction": float(self.step)}
        if self.kernel == "rbf":
            options["rfe_gamma"] = float(self.gamma)
        return options


class CORR(_RankerSelector):
    """The correlation filter (mu+ - mu-)^2 / (s+^2 + s-^2) of Weston et al. 2003, sec. 4.2:
    the ``n_features_to_select`` best scores (one-vs-rest for K >= 3 classes). The final linear
    SVM (``final_C``, ``final_ridge``) gives ``coef_``.
    """

    def __init__(self, n_features_to_select=None, *, final_C=100.0, final_ridge=0.0,
                 device="cpu", verbose=False):
        self.n_features_to_select = n_features_to_select
        self.final_C = final_C
        self.final_ridge = final_ridge
        self.device = device
        self.verbose = verbose

    def _method(self):
        return "corr"


class _SupportSelector(_RankerSelector):
    """A method that finds its own support {j : |w_j| > 1e-8} (Neumann, Schnoerr & Steidl 2005):
    ``n_features_to_select=None`` selects that support; a number caps it (the largest |w_j|).
    Two classes."""

    def _counts(self, d):
        if self.n_features_to_select is None:
            return []
        return [min(_n_features(self.n_features_to_select, d), d)]


class FSV(_SupportSelector):
    """FSV (Bradley & Mangasarian 1998; Neumann et al. 2005 eq. (6)): mean hinge loss +
    ``lam`` * sum(1 - exp(-alpha v_j)) over |w| <= v, by successive vertex LPs (DCA), stopping
    when v changes by less than ``tol`` or after ``max_iter`` steps."""

    def __init__(self, n_features_to_select=None, *, lam=0.5, alpha=5.0, tol=1e-5, max_iter=1000,
                 final_C=100.0, final_ridge=0.0, device="cpu", verbose=False):
        self.n_features_to_select = n_features_to_select
        self.lam = lam
        self.alpha = alpha
        self.tol = tol
        self.max_iter = max_iter
        self.final_C = final_C
        self.final_ridge = final_ridge
        self.device = device
        self.verbose = verbose

    def _method(self):
        return "fsv"

    def _options(self):
        return {**super()._options(), "dc.lambda": float(self.lam), "dc.alpha": float(self.alpha),
                "dc.tolerance": float(self.tol), "max_iterations": int(self.max_iter)}


class L2L1SVM(_SupportSelector):
    """The l2-l1-SVM (Neumann et al. 2005 eq. (7)): (mu/n) hinge + |w|^2/2 + nu |w|_1, solved
    through its dual to a relative duality gap of 1e-8; selects the support of w."""

    def __init__(self, n_features_to_select=None, *, mu=100.0, nu=1.0, final_C=100.0,
                 final_ridge=0.0, device="cpu", verbose=False):
        self.n_features_to_select = n_features_to_select
        self.mu = mu
        self.nu = nu
        self.final_C = final_C
        self.final_ridge = final_ridge
        self.device = device
        self.verbose = verbose

    def _method(self):
        return "l2-l1-svm"

    def _options(self):
        return {**super()._options(), "dc.mu": float(self.mu), "dc.nu": float(self.nu)}


class L2L0SVM(_SupportSelector):
    """The l2-l0-SVM (Neumann et al. 2005 eq. (8)): (mu/n) hinge + |w|^2/2 +
    nu sum(1 - exp(-alpha |w_j|)), by DCA whose steps are weighted l2-l1-SVMs."""

    def __init__(self, n_features_to_select=None, *, mu=100.0, nu=1.0, alpha=5.0, tol=1e-5,
                 max_iter=1000, final_C=100.0, final_ridge=0.0, device="cpu", verbose=False):
        self.n_features_to_select = n_features_to_select
        self.mu = mu
        self.nu = nu
        self.alpha = alpha
        self.tol = tol
        self.max_iter = max_iter
        self.final_C = final_C
        self.final_ridge = final_ridge
        self.device = device
        self.verbose = verbose

    def _method(self):
        return "l2-l0-svm"

    def _options(self):
        return {**super()._options(), "dc.mu": float(self.mu), "dc.nu": float(self.nu),
                "dc.alpha": float(self.alpha), "dc.tolerance": float(self.tol),
                "max_iterations": int(self.max_iter)}


class RLP(_SupportSelector):
    """The robust LP (Bennett & Mangasarian 1992; Neumann et al. 2005 eq. (1)): the hinge-loss
    LP, whose vertex solution w selects its support."""

    def __init__(self, n_features_to_select=None, *, final_C=100.0, final_ridge=0.0,
                 device="cpu", verbose=False):
        self.n_features_to_select = n_features_to_select
        self.final_C = final_C
        self.final_ridge = final_ridge
        self.device = device
        self.verbose = verbose

    def _method(self):
        return "rlp"


class FSSVMCP(_SupportSelector):
    """FS-SVMCP (Rinaldi & Sciandrone 2010): a linear SVM (L2 loss, C by ``cv_folds``-fold
    cross-validation on the training set unless ``svm_C`` > 0) on the current features, then one
    Frank-Wolfe vertex LP step on the concave surrogate over the correctly classified points,
    repeated while the support shrinks. ``surrogate``: "inverse-power" (11, the default, with
    ``epsilon`` and ``p``), or the paper's (8)-(10) by the library's names."""

    def __init__(self, n_features_to_select=None, *, surrogate="inverse-power", epsilon=1e-6,
                 p=1.0, alpha=5.0, svm_loss="l2", svm_C=0.0, cv_folds=5, final_C=100.0,
                 final_ridge=0.0, device="cpu", verbose=False):
        self.n_features_to_select = n_features_to_select
        self.surrogate = surrogate
        self.epsilon = epsilon
        self.p = p
        self.alpha = alpha
        self.svm_loss = svm_loss
        self.svm_C = svm_C
        self.cv_folds = cv_folds
        self.final_C = final_C
        self.final_ridge = final_ridge
        self.device = device
        self.verbose = verbose

    def _method(self):
        return "fs-svmcp"

    def _options(self):
        return {**super()._options(), "fs_svmcp.surrogate": str(self.surrogate),
                "fs_svmcp.epsilon": float(self.epsilon), "fs_svmcp.p": float(self.p),
                "fs_svmcp.alpha": float(self.alpha), "fs_svmcp.loss": str(self.svm_loss),
                "fs_svmcp.C": float(self.svm_C), "fs_svmcp.folds": int(self.cv_folds)}


class R2W2(RFE):
    """R2W2 (Weston et al. 2001, as in Weston et al. 2003, sec. 4.4, and Lal et al. 2006, sec.
    3.1): scaling factors sigma of the features inside the kernel k(sigma * x, sigma * x'), found by
    gradient descent on the radius-margin bound R^2 W^2 with the SVMs re-solved at each step; the
    features of smallest sigma are removed (``step``: the fraction of the remaining features per
    round, in [0, 1); 0 removes one) and the descent resumes on the rest. ``kernel``: "linear" or
    "rbf" (exp(-gamma |sigma * (x - x')|^2), ``gamma`` 0: 1/d). ``radius``: "exact" (R^2 by its
    QP) or "variance" (Lal et al. eq. (17)). ``max_iter`` gradient steps per round, ``descent_step``
    the first trial step in units of the largest sigma, ``descent_tol`` the relative decrease that
    ends a round. ``scores_``: each feature's sigma in its last round over that round's largest.
    The other parameters as :class:`RFE`.
    """

    def __init__(self, n_features_to_select=None, *, kernel="linear", gamma=0.0, radius="exact",
                 step=0.0, max_iter=20, descent_step=0.1, descent_tol=1e-3, C=math.inf,
                 ridge=0.0, tol=1e-8, final_C=100.0, final_ridge=0.0, device="cpu",
                 verbose=False):
        super().__init__(n_features_to_select, kernel=kernel, gamma=gamma, step=step, C=C,
                         ridge=ridge, tol=tol, final_C=final_C, final_ridge=final_ridge,
                         device=device, verbose=verbose)
        self.radius = radius
        self.max_iter = max_iter
        self.descent_step = descent_step
        self.descent_tol = descent_tol

    def _method(self):
        return "r2w2"

    def _options(self):
        # RFE's inner SVM and step settings, without its rfe_gamma (r2w2 has its own gamma).
        options = {k: v for k, v in super()._options().items() if k != "rfe_gamma"}
        return {**options, "r2w2.kernel": str(self.kernel), "r2w2.gamma": float(self.gamma),
                "r2w2.radius": str(self.radius), "r2w2.iterations": int(self.max_iter),
                "r2w2.step": float(self.descent_step),
                "r2w2.tolerance": float(self.descent_tol)}


class QuadraticFSV(FSV):
    """Quadratic FSV (Neumann et al. 2005 eq. (9), sec. 4.2.3): FSV on the quadratic monomials
    x_j and x_j x_k of the features, with one bound v_j per original feature on every monomial
    containing it, so that the penalty counts original features; successive vertex LPs (DCA).
    The features are ranked by v_j; the final classifier is the linear SVM on the selected
    original features (as for FSV). Problems whose LP would exceed the library's monomial limit
    are refused with their size (d(d+3)/2 monomials: about 60 features)."""

    def _method(self):
        return "quadratic-fsv"


class KTA(_SupportSelector):
    """Kernel-target alignment (Neumann, Schnoerr & Steidl 2005, eq. (12), sec. 3.2.2, 4.2.4):
    feature weights theta in [0, 1]^d inside a Gaussian kernel exp(-sum theta_k (x_k - z_k)^2 /
    (2 ``width``^2)) (``width`` 0: sqrt(d)/2) or, ``kernel="chi2"``, the chi-square kernel with
    ``rho`` (nonnegative features) minimise -(1 - ``lam``) y_n'K_theta y_n / 2 + (``lam``/d)
    sum(1 - exp(-``alpha`` theta_j)) by DCA from theta = 1/2, each step by L-BFGS-B, until no
    theta_j changes by ``tol`` or after ``max_iter`` steps. Selected: theta_j > 1e-2, best first.
    The final classifier is the SVM without bias on K_theta over the selected features with
    weight ``svm_lam`` (C = (1 - svm_lam) / svm_lam). ``theta_`` (= ``scores_``): the weights;
    ``n_support_``: the final SVM's support vectors. Two classes."""

    def __init__(self, n_features_to_select=None, *, lam=0.0, kernel="gaussian", width=0.0,
                 rho=2.0 ** -11, alpha=5.0, tol=1e-3, max_iter=1000, svm_lam=0.5, device="cpu",
                 verbose=False):
        self.n_features_to_select = n_features_to_select
        self.lam = lam
        self.kernel = kernel
        self.width = width
        self.rho = rho
        self.alpha = alpha
        self.tol = tol
        self.max_iter = max_iter
        self.svm_lam = svm_lam
        self.device = device
        self.verbose = verbose

    def _method(self):
        return "kta"

    def _options(self):
        return {"kta.lambda": float(self.lam), "kta.kernel": str(self.kernel),
                "kta.width": float(self.width), "kta.rho": float(self.rho),
                "kta.alpha": float(self.alpha), "kta.tolerance": float(self.tol),
                "max_iterations": int(self.max_iter), "kta.svm_lambda": float(self.svm_lam)}

    def fit(self, X, y):
        """Selects the features whose theta exceeds 1e-2 (capped by ``n_features_to_select``)
        and trains the SVM without bias on them."""
        super().fit(X, y)
        self.theta_ = self.scores_
        if not hasattr(self, "n_support_"):  # no feature kept: no SVM was trained
            self.n_support_ = 0
        return self

    def __sklearn_tags__(self):
        # Two classes only: scikit-learn's checks then give it two-class targets.
        tags = super().__sklearn_tags__()
        tags.classifier_tags = ClassifierTags(multi_class=False)
        return tags
