"""Remarks, warnings and notes through MLIR's own diagnostic engine, via ctypes.

The Python bindings of LLVM 22 can only emit errors (`Location.emit_error`);
diagnostics.py explains why the rest must reach the Context's handlers too.
This module calls the C++ entry points (`mlir::emitRemark`,
`mlir::emitWarning`, `mlir::emitError`, `Diagnostic::attachNote`,
`InFlightDiagnostic::report`) that the bindings' own shared library exports.
That is an ABI dependency on the pinned LLVM (22.1.8, x86-64 System V), so
`probe` proves it with a self-test and says None where it does not hold.
Imported at the first diagnostic only: most runs emit none.
"""

from __future__ import annotations

import ctypes
import platform
from collections.abc import Sequence

from mlir import ir

from .c_api import capsule_pointer, library_path
from .diagnostics import ERROR, NOTE, REMARK, WARNING, Diag, Note


class _Twine(ctypes.Structure):
    # llvm::Twine: two 16-byte children and two kind bytes. We only build the
    # unary C-string form: LHS = char*, LHSKind = CStringKind, RHSKind = Empty.
    _fields_ = [
        ("lhs", ctypes.c_void_p),
        ("lhs_pad", ctypes.c_void_p),
        ("rhs", ctypes.c_void_p),
        ("rhs_pad", ctypes.c_void_p),
        ("lhs_kind", ctypes.c_ubyte),
        ("rhs_kind", ctypes.c_ubyte),
    ]


_EMPTY_KIND = 1
_CSTRING_KIND = 3
_IN_FLIGHT_BYTES = 1024  # InFlightDiagnostic is ~250 bytes; generous room
_DIAGNOSTIC_OFFSET = 8  # InFlightDiagnostic = {DiagnosticEngine *owner; optional<Diagnostic> impl}


class NativeEmitter:
    """mlir::emit{Error,Warning,Remark} + notes, called through ctypes."""

    _SYMBOLS = {
        ERROR: "_ZN4mlir9emitErrorENS_8LocationERKN4llvm5TwineE",
        WARNING: "_ZN4mlir11emitWarningENS_8LocationERKN4llvm5TwineE",
        REMARK: "_ZN4mlir10emitRemarkENS_8LocationERKN4llvm5TwineE",
    }

    def __init__(self) -> None:
        # PyDLL keeps the GIL held: the Context's Python handlers run inside.
        lib = ctypes.PyDLL(library_path())
        self._emit = {}
        for severity, symbol in self._SYMBOLS.items():
            fn = getattr(lib, symbol)
            fn.restype = ctypes.c_void_p
            fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
            self._emit[severity] = fn
        self._attach_note = lib._ZN4mlir10Diagnostic10attachNoteESt8optionalINS_8LocationEE
        self._attach_note.restype = ctypes.c_void_p
        self._attach_note.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64]
        self._append = lib._ZN4mlir10DiagnosticlsERKN4llvm5TwineE
        self._append.restype = ctypes.c_void_p
        self._append.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self._report = lib._ZN4mlir18InFlightDiagnostic6reportEv
        self._report.restype = None
        self._report.argtypes = [ctypes.c_void_p]

    def emit(self, location: ir.Location, severity: str, message: str, notes: Sequence[Note]) -> None:
        keep = []

        def twine(text: str) -> int:
            data = ctypes.create_string_buffer(text.encode("utf-8", "replace"))
            t = _Twine(ctypes.addressof(data), None, None, None, _CSTRING_KIND, _EMPTY_KIND)
            keep.append((data, t))
            return ctypes.addressof(t)

        in_flight = ctypes.create_string_buffer(_IN_FLIGHT_BYTES)
        base = ctypes.addressof(in_flight)
        self._emit[severity](base, capsule_pointer(location._CAPIPtr), twine(message))
        for note_loc, note_msg in notes:
            note = self._attach_note(base + _DIAGNOSTIC_OFFSET, capsule_pointer(note_loc._CAPIPtr), 1)
            self._append(note, twine(note_msg))
        self._report(base)


def _self_test(emitter: NativeEmitter) -> bool:
    """Emit one remark with a note into a private Context; True when both
    arrive intact at a Python handler."""
    seen = []
    with ir.Context() as ctx:
        ctx.attach_diagnostic_handler(lambda d: seen.append(Diag.from_mlir(d)) or True)
        emitter.emit(ir.Location.file("probe.mlir", 3, 7), REMARK, "probe \u00b5", [(ir.Location.file("probe.mlir", 5, 1), "probe note")])
    if len(seen) != 1:
        return False
    d = seen[0]
    return (
        (d.severity, d.message, d.file, d.line, d.col) == (REMARK, "probe \u00b5", "probe.mlir", 3, 7)
        and len(d.notes) == 1
        and (d.notes[0].severity, d.notes[0].message, d.notes[0].line) == (NOTE, "probe note", 5)
    )


def probe() -> NativeEmitter | None:
    """The emitter, when this platform has the ABI and the self-test passes."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return None
    try:
        emitter = NativeEmitter()
    except (OSError, AttributeError):
        return None
    return emitter if _self_test(emitter) else None
