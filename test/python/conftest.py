"""What the unit tests share: a Context with the pto dialect loaded,
parsing a kernel into it, and running a function with pto-run's
interpreter. Tests take the fixtures (`context`, `parse`, `run`); helpers
a test module calls at import time or from its own helpers import the
functions (`from conftest import parse_kernel`), as pytest puts this
directory on the path.

A module keeps its Context alive, so `parse_kernel` gives each kernel a
Context of its own; a test that parses several kernels into one takes the
`context` fixture and passes it. A helper that goes on working in the
Context after parsing (passes, printing, executing) enters `module.context`, as
`run_kernel` does; one that needs a Context before any kernel (to catch
the diagnostics of parsing, or to hand to a Session) makes it with
`pto_context` and, to see the diagnostics, `record_diagnostics`."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from mlir import ir

import pto_dialect
from pto_dialect.dialect.load import load_dialect


def pto_context(allow_unregistered: bool = False, quiet: bool = False) -> ir.Context:
    """A new Context with the pto dialect loaded; `allow_unregistered` for
    kernels with test ops (`"test.peek"`), `quiet` to drop the remarks and
    warnings a pass emits (not what the test is about)."""
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = allow_unregistered
    load_dialect(ctx)
    if quiet:
        ctx.attach_diagnostic_handler(lambda _d: True)
    return ctx


@dataclass(frozen=True)
class SeenDiagnostic:
    """A diagnostic as a handler saw it (MLIR's own object is valid only
    inside the handler)."""

    severity: str  # "error", "warning", "remark" or "note"
    message: str
    location: str  # str(d.location), e.g. 'loc("k.pto":9:3)'
    line: int  # 0 when the location is not a file position


SEVERITY_NAMES = {
    ir.DiagnosticSeverity.ERROR: "error",
    ir.DiagnosticSeverity.WARNING: "warning",
    ir.DiagnosticSeverity.REMARK: "remark",
    ir.DiagnosticSeverity.NOTE: "note",
}


def record_diagnostics(ctx: ir.Context) -> list[SeenDiagnostic]:
    """The list every diagnostic `ctx` emits from now on is appended to.
    Remarks and warnings stop there; errors go on to whoever raises them
    (a ParseError, an MLIRError), so a failing parse or pass still fails."""
    seen: list[SeenDiagnostic] = []

    def handler(d) -> bool:
        loc = d.location
        line = loc.start_line if loc.is_a_file() else 0
        seen.append(SeenDiagnostic(SEVERITY_NAMES[d.severity], str(d.message), str(loc), line))
        return d.severity != ir.DiagnosticSeverity.ERROR

    ctx.attach_diagnostic_handler(handler)
    return seen


def parse_kernel(text: str, *, name: str | None = None, allow_unregistered: bool = False, quiet: bool = False, context: ir.Context | None = None) -> ir.Module:
    """`text` (either spelling) as a module. With `allow_unregistered` it
    is read by MLIR's own parser from the generic form (unregistered ops may
    appear; the pto verifier does not run), else by `pto_dialect.parse`
    (the verifier runs; a refused kernel raises ParseError)."""
    ctx = context or pto_context(allow_unregistered, quiet)
    with ctx, ir.Location.unknown():
        if allow_unregistered:
            return ir.Module.parse(pto_dialect.to_generic(text))
        return pto_dialect.parse(text, name=name) if name else pto_dialect.parse(text)


def run_kernel(text: str, func: str = "k", **kw):
    """An `Execution` of `func` (pto-run's interpreter), `kw` as
    `interpreter.execute` takes them."""
    from pto_dialect.interpreter import execute

    module = parse_kernel(text)
    with module.context:
        return execute(module.operation, func, source_text=text, **kw)


@pytest.fixture
def context() -> Iterator[ir.Context]:
    """A Context with the pto dialect, entered, at an unknown location."""
    ctx = pto_context()
    with ctx, ir.Location.unknown():
        yield ctx


@pytest.fixture
def parse():
    """`parse_kernel`."""
    return parse_kernel


@pytest.fixture
def run():
    """`run_kernel`."""
    return run_kernel
