"""The pass manager's IR printing with every printing flag, via MLIR's C API.

The bindings' `PassManager.enable_ir_printing` builds its printing flags
from its own arguments, which have no `use_name_loc_as_prefix`: the value
names kept as name locations (value_names.py) would be lost when a large
module is printed through a file (docs/performance.md, "Where the time
goes"). The C API's `mlirPassManagerEnableIRPrinting` takes an
`MlirOpPrintingFlags` (copied into the pass manager's printing config), so
this module makes the flags and calls it with ctypes. These are plain C
entry points of the bindings' own shared library (mlir-c/Pass.h,
mlir-c/IR.h of LLVM 22); any failure to find them answers False, and the
caller prints the other way.
"""

from __future__ import annotations

import ctypes

from . import c_api


class _StringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_char_p), ("length", ctypes.c_size_t)]


class _Pointer(ctypes.Structure):  # MlirPassManager, MlirOpPrintingFlags: one `void *ptr`
    _fields_ = [("ptr", ctypes.c_void_p)]


_library: ctypes.CDLL | None | bool = False  # False: not loaded yet


def _c_api() -> ctypes.CDLL | None:
    global _library
    if _library is False:
        _library = None
        try:
            lib = ctypes.CDLL(c_api.library_path())
            lib.mlirOpPrintingFlagsCreate.restype = _Pointer
            lib.mlirOpPrintingFlagsCreate.argtypes = []
            for name, extra in (
                ("mlirOpPrintingFlagsDestroy", []),
                ("mlirOpPrintingFlagsPrintNameLocAsPrefix", []),
                ("mlirOpPrintingFlagsPrintGenericOpForm", []),
                ("mlirOpPrintingFlagsEnableDebugInfo", [ctypes.c_bool, ctypes.c_bool]),
            ):
                function = getattr(lib, name)
                function.restype = None
                function.argtypes = [_Pointer, *extra]
            lib.mlirPassManagerEnableIRPrinting.restype = None
            lib.mlirPassManagerEnableIRPrinting.argtypes = [_Pointer] + [ctypes.c_bool] * 5 + [_Pointer, _StringRef]
            _library = lib
        except (OSError, AttributeError, ImportError):
            pass
    return _library


def print_before_all_to_tree(pass_manager, directory: str, *, generic: bool, debuginfo: bool) -> bool:
    """Have `pass_manager` print the IR before each pass into files under
    `directory` (MLIR's file-tree printing), values named by their name
    locations; False when the C API is not there (nothing was changed)."""
    lib = _c_api()
    if lib is None:
        return False
    try:
        manager = _Pointer(c_api.capsule_pointer(pass_manager._CAPIPtr))
    except (AttributeError, TypeError, ValueError):
        return False
    flags = lib.mlirOpPrintingFlagsCreate()
    try:
        lib.mlirOpPrintingFlagsPrintNameLocAsPrefix(flags)
        if generic:
            lib.mlirOpPrintingFlagsPrintGenericOpForm(flags)
        if debuginfo:
            lib.mlirOpPrintingFlagsEnableDebugInfo(flags, True, False)
        path = directory.encode()
        lib.mlirPassManagerEnableIRPrinting(manager, True, False, False, False, False, flags, _StringRef(path, len(path)))
    finally:
        lib.mlirOpPrintingFlagsDestroy(flags)
    return True
