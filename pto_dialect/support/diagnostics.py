"""Diagnostics: emitting them through MLIR's own engine, and reading them back.

The Python bindings of LLVM 22 can only emit errors (`Location.emit_error`).
Remarks and warnings must reach the same place as errors: the Context's
diagnostic handlers, where `--verify-diagnostics` and an embedding
toolchain's handler see them. So we call the C++ entry points
(`mlir::emitRemark`, `mlir::emitWarning`, `mlir::emitError`,
`Diagnostic::attachNote`, `InFlightDiagnostic::report`) that the bindings'
own shared library exports, through ctypes (native_diagnostics.py, loaded
at the first diagnostic). That is an ABI dependency on the pinned LLVM
(22.1.8, x86-64 System V), so it is proven by a self-test at first use;
where the platform or the self-test says no, remarks and warnings go to
the Python-side fallback sinks instead (the tools register theirs) and errors
use `Location.emit_error`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from mlir import ir

from .value_names import unnamed

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
    """`file:line:col` of the first file position inside `loc` (inside a
    value name too, value_names.py), the parser's buffer named as `naming`
    says (what `_named` would give, without making the renamed Location)."""
    file, line, col = location_position(loc)
    if file == PARSER_BUFFER:
        file = _source_name.get() or file
    return position_text(file, line, col)


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


_native = False  # False: not probed yet; then a NativeEmitter or None


def _native_emitter():
    """The ctypes emitter (native_diagnostics.py), probed at the first
    diagnostic: a run that emits none never loads ctypes."""
    global _native
    if _native is False:
        _native = None
        if os.environ.get("PTO_PYTHON_DIAGNOSTICS") is None and sys.platform.startswith("linux"):
            from . import native_diagnostics

            _native = native_diagnostics.probe()
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


PARSER_BUFFER = "-"
"""The file name MLIR's parser gives text it is handed (`Module.parse`)."""

_source_name: ContextVar[str | None] = ContextVar("pto_source_name", default=None)


@contextmanager
def naming(name: str | None) -> Iterator[None]:
    """Diagnostics emitted inside (`emit`) at positions in the parser's
    buffer `-` name the file `name` instead: a Python API caller's handlers
    see the file it parsed (`pto_dialect.parse(text, name=...)`,
    `run_passes(..., source_name=...)`), as the tools' users do."""
    token = _source_name.set(name)
    try:
        yield
    finally:
        _source_name.reset(token)


def _named(location: ir.Location) -> ir.Location:
    # A diagnostic is at a position: the value name kept around an op's
    # position (value_names.py) is not part of it.
    location = unnamed(location)
    name = _source_name.get()
    if name is None:
        return location
    try:
        if location.is_a_file() and location.filename == PARSER_BUFFER:
            return ir.Location.file(name, location.start_line, location.start_col, context=location.context)
    except Exception:  # an unexpected location kind: as it is
        pass
    return location


def emit(location: ir.Location, severity: str, message: str, notes: Iterable[Note] = ()) -> None:
    """Report a diagnostic at `location` through the Context's handlers."""
    location = _named(location)
    notes = [(_named(loc), m) for loc, m in notes]
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
