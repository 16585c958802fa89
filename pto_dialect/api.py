"""The Python API for embedding the pto passes in other MLIR toolchains
(docs/api.md)."""

from __future__ import annotations

import weakref

from mlir import ir
from mlir.passmanager import PassManager

from .dialect.load import load_dialect
from .dialect.verifier import verify_module
from .driver.pass_pipeline import PipelineRun, PipelineSettings, build_pass_manager, resolve, run_pass_manager
from .driver.session import PARSER_BUFFER, Session, Source, name_locations
from .driver.session import print_module as _print
from .reports.decisions import PipelineReport
from .support import diagnostics
from .support.diagnostics import Diag
from .support.source_text import line_col
from .syntax import ptoas

__all__ = ["ParseError", "add_passes", "load_dialect", "parse", "print_module", "run_passes", "to_generic", "to_ptoas", "verify"]

# The file name each module that `parse` made was given, for the report
# records of `run_passes`. Weak keys and string values: nothing here keeps a
# module or its Context alive.
_SOURCE_NAMES: weakref.WeakKeyDictionary[ir.Module, str] = weakref.WeakKeyDictionary()


class ParseError(ValueError):
    """Text that does not parse or verify; `diagnostics` holds every
    diagnostic, with positions in the file the caller named."""

    def __init__(self, diags: list[Diag], source: Source) -> None:
        errors = [d for d in diags if d.severity == diagnostics.ERROR]
        super().__init__("\n".join(diagnostics.format_diag(d, source) for d in errors) or "the module does not parse")
        self.diagnostics = diags


def parse(text: str, name: str = "<string>", context: ir.Context | None = None) -> ir.Module:
    """Parse and verify kernel text into a module of `context` (default: the
    current Context), loading the pto dialect into it.

    Raises `ParseError` when the text is not a valid module; diagnostics
    name the file `name`, and so do the report records of `run_passes` on
    the module. The warnings and remarks of a module that parses go to the
    Context's diagnostic handlers afterwards, at their positions in `name`
    (as `ir.Module.parse` leaves them to the handlers; with none attached,
    MLIR drops all but errors); its errors are the exception's.
    """
    source = Source(name, text.removeprefix("\ufeff"))  # a byte-order mark is not text (read_source drops it too)
    ctx = context or ir.Context.current
    with Session(source, context=ctx) as session:
        module = session.parse()
    if module is None:
        raise ParseError(session.diagnostics, source)
    _SOURCE_NAMES[module] = name
    for d in session.diagnostics:
        if d.severity != diagnostics.ERROR:
            notes = [(_location(n, ctx), n.message) for n in d.notes]
            diagnostics.emit(_location(d, ctx), d.severity, d.message, notes)
    return module


def _location(d: Diag, context: ir.Context) -> ir.Location:
    if d.file is None:
        return ir.Location.unknown(context)
    return ir.Location.file(d.file, d.line, d.col, context=context)


def to_generic(text: str, name: str = "<string>") -> str:
    """Kernel text in either spelling (or mixed) as the generic form, for a
    caller that parses it with `ir.Module.parse` itself (line and column of
    every op stay the same). Raises `ParseError` for ptoas syntax that does
    not read."""
    translation = ptoas.to_generic(text)
    if translation.problems:
        source = Source(name, text)
        diags = []
        problems, more = ptoas.reported_problems(translation.problems, text)
        for problem in problems:
            line, col = line_col(text, problem.offset)
            diags.append(Diag(diagnostics.ERROR, problem.message, name, line, col))
        if more is not None:
            line, col = line_col(text, more.offset)
            diags.append(Diag(diagnostics.ERROR, f"too many errors emitted, stopping now (at most {ptoas.ERROR_LIMIT})", name, line, col))
        raise ParseError(diags, source)
    return translation.text


def to_ptoas(text: str) -> str:
    """MLIR's printed text of a module (what `str(module)` gives) in ptoas
    syntax, as `print_module` writes it."""
    return ptoas.to_ptoas(text)


def print_module(module: ir.Module | ir.Operation, *, generic: bool = False, debuginfo: bool = False) -> str:
    """The module's text as `pto-opt` prints it (locations, with
    `debuginfo`, name the file `parse` was given)."""
    name = _SOURCE_NAMES.get(module, PARSER_BUFFER) if isinstance(module, ir.Module) else PARSER_BUFFER
    return _print(module, name, generic=generic, debuginfo=debuginfo).decode("utf-8", "surrogateescape")


def _settings(use_ptoas_multi_buffer: bool | None, verify_each: bool, source_name: str | None = None) -> PipelineSettings:
    return PipelineSettings(
        use_ptoas_multi_buffer=use_ptoas_multi_buffer,
        use_ptoas_multi_buffer_source="the use_ptoas_multi_buffer keyword" if use_ptoas_multi_buffer is not None else "",
        verify_each=verify_each,
        source_name=source_name,
    )


def run_passes(
    module: ir.Module | ir.Operation,
    pipeline: str,
    *,
    use_ptoas_multi_buffer: bool | None = None,
    verify_each: bool = True,
    source_name: str | None = None,
) -> PipelineReport:
    """Run a pipeline (pto and upstream passes, MLIR textual syntax) on
    `module` and return the passes' decisions.

    Raises `pipeline.PipelineError` for a pipeline that does not parse and
    `ir.MLIRError` (with the diagnostics) when a pass fails, like
    `PassManager.run`. Remarks go to the Context's diagnostic handlers.
    The pto passes' diagnostics and the report's locations name
    `source_name`, else the name `parse` was given, else what the parser
    named the text (`-` for `ir.Module.parse`).
    """
    op = module.operation
    load_dialect(op.context)
    name = source_name or (_SOURCE_NAMES.get(module) if isinstance(module, ir.Module) else None)
    run = PipelineRun(_settings(use_ptoas_multi_buffer, verify_each, name))
    pm = build_pass_manager(pipeline, run, op.context)
    run_pass_manager(pm, op, run)
    if name:
        name_locations(run.report, name)
    return run.report


def add_passes(
    pm: PassManager,
    pipeline: str,
    *,
    use_ptoas_multi_buffer: bool | None = None,
    verify_each: bool = True,
    source_name: str | None = None,
) -> PipelineReport:
    """Append a pipeline to a caller's module-anchored `PassManager`.

    The returned report fills in when `pm` runs. The pto passes'
    diagnostics and the report's locations name `source_name`, else the
    file as the parser named it (`-` for `ir.Module.parse`).
    """
    run = PipelineRun(_settings(use_ptoas_multi_buffer, verify_each, source_name))
    run.schedule(pm, resolve(pipeline))
    return run.report


def verify(module: ir.Module | ir.Operation, arch: str | None = None) -> bool:
    """Run the pto verifier; errors go to the Context's handlers."""
    return verify_module(module.operation, arch)
