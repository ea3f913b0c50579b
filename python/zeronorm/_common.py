"""What the estimators share: device names, labels, logging and the run report."""
import logging
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

logger = logging.getLogger("zeronorm")


def parse_device(device):
    """``"cpu"``, ``"cuda"`` or ``"cuda:N"`` -> (backend kind, device index)."""
    if not isinstance(device, str):
        raise ValueError(f"device must be 'cpu', 'cuda' or 'cuda:N', got {device!r}")
    kind, _, index = device.partition(":")
    if kind not in ("cpu", "cuda") or (index and (kind != "cuda" or not index.isdigit())):
        raise ValueError(f"device must be 'cpu', 'cuda' or 'cuda:N', got {device!r}")
    return kind, int(index or 0)


def encode_labels(y):
    """Any labels -> (classes, labels as the library wants them): two classes as -1/+1
    (classes[1] is +1), K >= 3 classes as 0..K-1 in the order of ``classes``."""
    classes, encoded = np.unique(y, return_inverse=True)
    if len(classes) < 2:
        raise ValueError(f"the data must hold at least two classes; got one class, {classes[0]!r}")
    if len(classes) == 2:
        return classes, np.where(encoded == 1, 1.0, -1.0)
    return classes, encoded.astype(np.float64)


def report(estimator, what, status, message="", iterations=0, seconds=0.0):
    """Logs a finished run when the estimator is verbose; warns when it did not converge."""
    if getattr(estimator, "verbose", False):
        logger.info("%s: %s after %d iterations in %.3f s%s", what, status, iterations, seconds,
                    f" ({message})" if message else "")
    if status != "success":
        warnings.warn(f"{what} ended with status '{status}'" + (f": {message}" if message else ""),
                      ConvergenceWarning, stacklevel=3)
