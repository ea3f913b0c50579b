"""zeronorm: sparse SVMs by approximate zero-norm minimisation, as scikit-learn estimators.

Feature selectors: :class:`AROM` (Weston et al. 2003), :class:`RFE` (Guyon et al. 2002),
:class:`CORR`, and the DC-programming family of Neumann, Schnoerr & Steidl (2005) :class:`FSV`,
:class:`QuadraticFSV`, :class:`L2L1SVM`, :class:`L2L0SVM`, :class:`RLP`, :class:`KTA` (kernel-target
alignment), and :class:`FSSVMCP` (Rinaldi & Sciandrone 2010).
Classifiers: :class:`SVC` (C-SVC by SMO) and :class:`L0SVC` (the L0-norm sparse
kernel machine of Huang et al. 2008). :func:`evaluate_selection` runs a selection method over
many stratified train/test splits, :func:`evaluate_svm` an SVM with C by nested
cross-validation. Every computation runs in the C++ library (``zeronorm._core``) with the GIL
released.
"""
import os as _os

_here = _os.path.dirname(_os.path.abspath(__file__))
# The CUDA backend's module, when the package was built with it, sits next to the extension.
if "ZERONORM_CUDA_MODULE" not in _os.environ and _os.path.exists(
        _os.path.join(_here, "libzeronorm_cuda.so")):
    _os.environ["ZERONORM_CUDA_MODULE"] = _os.path.join(_here, "libzeronorm_cuda.so")

from . import _core  # noqa: E402
from .errors import (CudaError, DataFormatError, DimensionMismatch, Error,  # noqa: E402
                     InvalidArgument, NotCompiled, NumericalError, OutOfDeviceMemory, OutputError)
from .selection import (AROM, CORR, FSSVMCP, FSV, KTA, L2L0SVM, L2L1SVM, R2W2, RFE,  # noqa: E402
                        RLP, QuadraticFSV)
from .svm import SVC, L0SVC  # noqa: E402
from .evaluation import (SelectionEvaluation, SvmEvaluation, evaluate_selection,  # noqa: E402
                         evaluate_svm)

__version__ = "0.1.0"


def build_info():
    """What this build carries: the version, whether the CUDA backend was compiled, and the CUDA
    architectures its kernels were compiled for (CMake's list: "86" is SASS and PTX for sm_86,
    "86-real" SASS only, "90-virtual" PTX only; empty without CUDA)."""
    return {"version": __version__, "cuda_compiled": bool(_core.cuda_compiled()),
            "cuda_architectures": _core.cuda_architectures().split(";")
            if _core.cuda_architectures() else []}


def cuda_available():
    """True when this build has the CUDA backend and at least one device is usable."""
    return bool(_core.cuda_compiled()) and _core.cuda_device_count() > 0


__all__ = ["AROM", "RFE", "R2W2", "CORR", "FSV", "QuadraticFSV", "L2L1SVM", "L2L0SVM", "RLP", "FSSVMCP", "KTA", "SVC", "L0SVC", "evaluate_selection", "SelectionEvaluation", "evaluate_svm", "SvmEvaluation",
           "cuda_available", "build_info", "Error", "InvalidArgument", "DimensionMismatch", "DataFormatError",
           "OutputError", "NumericalError", "NotCompiled", "CudaError", "OutOfDeviceMemory"]
