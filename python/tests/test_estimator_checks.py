"""scikit-learn's estimator checks on every zeronorm estimator."""
from sklearn.utils.estimator_checks import parametrize_with_checks

import zeronorm as zn

# The hard margin (the library's default: C = inf, ridge = 0) needs separable data, which the
# checks' random data are not; the instances checked set a ridge (2-norm soft margin).
ESTIMATORS = [
    zn.AROM(ridge=1e-3),
    zn.AROM(norm="l1", C=10.0),
    zn.RFE(ridge=1e-3),
    zn.CORR(),
    zn.FSV(),
    zn.QuadraticFSV(lam=0.2),
    zn.L2L1SVM(),
    zn.L2L0SVM(),
    zn.RLP(),
    zn.FSSVMCP(),
    zn.RFE(kernel="rbf", step=0.5, ridge=1e-3),
    zn.SVC(kernel="rbf", gamma="scale"),
    zn.L0SVC(keep_degenerate=True),
]

EXPECTED_FAILURES = {}


def expected_failed_checks(estimator):
    return EXPECTED_FAILURES.get(type(estimator).__name__, {})


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# R2W2 with a ridge (the checks' data are not separable), linear and Gaussian.
@parametrize_with_checks([zn.R2W2(ridge=1e-3),
                          zn.R2W2(kernel="rbf", radius="variance", step=0.5, ridge=1e-3)])
def test_r2w2_sklearn_compatible(estimator, check):
    check(estimator)


# Kernel-target alignment, Gaussian, with the paper's penalty weight 0 and 0.3.
@parametrize_with_checks([zn.KTA(), zn.KTA(lam=0.3)])
def test_kta_sklearn_compatible(estimator, check):
    check(estimator)
