"""The bindings' own shared library and the pointers their objects wrap, for
the ctypes calls of native_diagnostics.py (C++ diagnostics) and
native_printing.py (C API printing flags). Imports nothing of MLIR until
asked: both callers load it only when they first need it."""

from __future__ import annotations

import ctypes
import os


def library_path() -> str:
    """`libMLIRPythonCAPI.so` beside the bindings' extension modules (the
    library they are linked against, so ctypes gets the same one)."""
    from mlir import _mlir_libs

    return os.path.join(os.path.dirname(_mlir_libs.__file__), "libMLIRPythonCAPI.so")


def capsule_pointer(capsule) -> int:
    """The pointer inside a bindings object's `_CAPIPtr` capsule (the C
    API struct's one `void *ptr`)."""
    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return api.PyCapsule_GetPointer(capsule, api.PyCapsule_GetName(capsule))
