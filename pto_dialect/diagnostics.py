"""Diagnostics: emitting them through MLIR's own engine, and reading them back.

The Python bindings of LLVM 22 can only emit errors (`Location.emit_error`).
Remarks and warnings must reach the same place as errors: the Context's
diagnostic handlers, where `--verify-diagnostics` and an embedding
toolchain's handler see them. So we call the C++ entry points
(`mlir::emitRemark`, `mlir::emitWarning`, `mlir::emitError`,
`Diagnostic::attachNote`, `InFlightDiagnostic::report`) that the bindings'
own shared library exports, through ctypes. That is an ABI dependency on the
pinned LLVM (22.1.8, x86-64 System V), so it is proven by a self-test at first
use; where the platform or the self-test says no, remarks and warnings go to
the Python-side fallback sinks instead (the tools register theirs) and errors
use `Location.emit_error`.
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from mlir import ir

ERROR = "error"
WARNING = "warning"
NOTE = "note"
REMARK = "remark"

_SEVERITY_NAMES = {
    ir.DiagnosticSeverity.ERROR: ERROR,
    ir.DiagnosticSeverity.WARNING: WARNING,
    ir.DiagnosticSeverity.NOTE: NOTE,
    ir.DiagnosticSeverity.REMARK: REMARK,
}


@dataclass
class Diag:
    """One diagnostic, detached from MLIR (safe to keep after the handler)."""

    severity: str
    message: str
    file: str | None = None
    line: int = 0
    col: int = 0
    notes: list[Diag] = field(default_factory=list)

    @classmethod
    def from_mlir(cls, d) -> Diag:
        """From an `ir.Diagnostic` (in a handler) or an `ir.DiagnosticInfo`
        (from an `MLIRError`)."""
        file, line, col = location_position(d.location)
        return cls(
            _SEVERITY_NAMES.get(d.severity, str(d.severity)),
            d.message,
            file,
            line,
            col,
            [cls.from_mlir(n) for n in d.notes],
        )

    def where(self) -> str:
        return position_text(self.file, self.line, self.col)

    def to_dict(self) -> dict:
        return {
            "severity": self.severity,
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "col": self.col,
            "notes": [n.to_dict() for n in self.notes],
        }


def position_text(file: str | None, line: int, col: int) -> str:
    """`file:line:col`, or `<unknown>` without a file position."""
    return f"{file}:{line}:{col}" if file is not None else "<unknown>"


def location_text(loc: ir.Location) -> str:
    """`file:line:col` of the first file position inside `loc`."""
    return position_text(*location_position(loc))


def location_position(loc: ir.Location) -> tuple[str | None, int, int]:
    """(file, line, col) of the first file position inside `loc`."""
    try:
        if loc.is_a_file():
            return loc.filename, loc.start_line, loc.start_col
        if loc.is_a_name():
            return location_position(loc.child_loc)
        if loc.is_a_callsite():
            return location_position(loc.callee)
        if loc.is_a_fused():
            for inner in loc.locations:
                pos = location_position(inner)
                if pos[0] is not None:
                    return pos
    except Exception:  # an unexpected location kind: report no position
        pass
    return None, 0, 0


# --- emission ---------------------------------------------------------------

Note = tuple[ir.Location, str]


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


def _capsule_pointer(capsule) -> int:
    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return api.PyCapsule_GetPointer(capsule, api.PyCapsule_GetName(capsule))


class _NativeEmitter:
    """mlir::emit{Error,Warning,Remark} + notes, called through ctypes."""

    _SYMBOLS = {
        ERROR: "_ZN4mlir9emitErrorENS_8LocationERKN4llvm5TwineE",
        WARNING: "_ZN4mlir11emitWarningENS_8LocationERKN4llvm5TwineE",
        REMARK: "_ZN4mlir10emitRemarkENS_8LocationERKN4llvm5TwineE",
    }

    def __init__(self) -> None:
        from mlir import _mlir_libs

        path = os.path.join(os.path.dirname(_mlir_libs.__file__), "libMLIRPythonCAPI.so")
        # PyDLL keeps the GIL held: the Context's Python handlers run inside.
        lib = ctypes.PyDLL(path)
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
        self._emit[severity](base, _capsule_pointer(location._CAPIPtr), twine(message))
        for note_loc, note_msg in notes:
            note = self._attach_note(base + _DIAGNOSTIC_OFFSET, _capsule_pointer(note_loc._CAPIPtr), 1)
            self._append(note, twine(note_msg))
        self._report(base)


def _self_test(emitter: _NativeEmitter) -> bool:
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


_native: _NativeEmitter | None | bool = False  # False: not probed yet


def _native_emitter() -> _NativeEmitter | None:
    global _native
    if _native is False:
        _native = None
        if (
            os.environ.get("PTO_PYTHON_DIAGNOSTICS") is None
            and sys.platform.startswith("linux")
            and platform.machine() in ("x86_64", "AMD64")
        ):
            try:
                emitter = _NativeEmitter()
                if _self_test(emitter):
                    _native = emitter
            except (OSError, AttributeError):
                pass
    return _native


def native_diagnostics_available() -> bool:
    """True when remarks and warnings go through MLIR's diagnostic engine."""
    return _native_emitter() is not None


FallbackSink = Callable[[Diag], None]
_fallback_sinks: list[FallbackSink] = []


def add_fallback_sink(sink: FallbackSink) -> None:
    """Receive remarks and warnings when they cannot go through MLIR."""
    _fallback_sinks.append(sink)


def remove_fallback_sink(sink: FallbackSink) -> None:
    if sink in _fallback_sinks:
        _fallback_sinks.remove(sink)


def emit(location: ir.Location, severity: str, message: str, notes: Iterable[Note] = ()) -> None:
    """Report a diagnostic at `location` through the Context's handlers."""
    notes = list(notes)
    native = _native_emitter()
    if native is not None:
        native.emit(location, severity, message, notes)
        return
    if severity == ERROR:
        location.emit_error(message + "".join(f"\nnote: {m}" for _, m in notes))
        return
    d = Diag(severity, message, *location_position(location))
    d.notes = [Diag(NOTE, m, *location_position(loc)) for loc, m in notes]
    if not _fallback_sinks:
        print(format_diag(d), file=sys.stderr)
    for sink in list(_fallback_sinks):
        sink(d)


def emit_error(location: ir.Location, message: str, notes: Iterable[Note] = ()) -> None:
    emit(location, ERROR, message, notes)


def emit_warning(location: ir.Location, message: str, notes: Iterable[Note] = ()) -> None:
    emit(location, WARNING, message, notes)


def emit_remark(location: ir.Location, message: str, notes: Iterable[Note] = ()) -> None:
    emit(location, REMARK, message, notes)


# --- printing ---------------------------------------------------------------


def format_diag(d: Diag, source=None) -> str:
    """`file:line:col: severity: message` like mlir-opt, with the source line
    and a caret when the diagnostic is in `source` (a `session.Source`),
    then the notes."""
    lines = [f"{d.where()}: {d.severity}: {d.message}"]
    if source is not None and d.file == source.name and d.line > 0:
        text = source.line(d.line)
        if text is not None:
            lines.append(text)
            lines.append(" " * max(d.col - 1, 0) + "^")
    out = "\n".join(lines)
    for n in d.notes:
        out += "\n" + format_diag(n, source)
    return out
