"""The exceptions of zeronorm: the C++ library's ``zeronorm::Error`` hierarchy, same names.

Errors about the caller's input (``InvalidArgument``, ``DimensionMismatch``, ``DataFormatError``)
are also ``ValueError``\\ s, so code written for scikit-learn's conventions catches them.
"""


class Error(Exception):
    """Base class of every error raised by zeronorm's C++ library."""


class InvalidArgument(Error, ValueError):
    """An argument outside its domain (C <= 0, more features requested than there are, ...)."""


class DimensionMismatch(Error, ValueError):
    """The sizes of two inputs do not fit together."""


class DataFormatError(Error, ValueError):
    """A data or model file is malformed (the message gives file:line:column)."""


class OutputError(Error, OSError):
    """An output cannot be written."""


class NumericalError(Error, ArithmeticError):
    """A numerical failure the algorithm cannot recover from (e.g. a hard margin on
    inseparable data)."""


class NotCompiled(Error):
    """The requested backend was not compiled into this build (or its module was not found)."""


class CudaError(Error):
    """A CUDA runtime, cuBLAS or cuSOLVER call failed."""


class OutOfDeviceMemory(CudaError, MemoryError):
    """A device allocation failed."""


__all__ = ["Error", "InvalidArgument", "DimensionMismatch", "DataFormatError", "OutputError",
           "NumericalError", "NotCompiled", "CudaError", "OutOfDeviceMemory"]
