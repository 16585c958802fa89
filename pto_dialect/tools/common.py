"""What the command-line tools share: reading input, splitting it, and
collecting the diagnostics MLIR and the passes produce."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..source_text import MAX_NESTING, line_col, parser_hazard  # noqa: F401  (used by the tools)

if TYPE_CHECKING:
    from ..diagnostics import Diag

# `..diagnostics` imports mlir: it is imported where it is used, so that
# `pto-opt --version` and `--help` do not pay for loading MLIR.

# Module.parse(str) names every location's file "-"; the tools map it back to
# the input's name when they print.
PARSED_FILE_NAME = "-"


def import_mlir_without_numpy() -> None:
    """Import `mlir.ir` without letting it import numpy.

    `mlir.ir` imports numpy, when it is installed, only to register builders
    for dense elements attributes, which pto-opt never builds; numpy is half
    of `mlir.ir`'s import time (~0.12 s of every pto-opt run). A later
    `import numpy` (pto-run, the interpreter) works as usual.
    """
    if "mlir.ir" in sys.modules or "numpy" in sys.modules:
        return
    sys.modules["numpy"] = None  # makes `import numpy` raise ImportError
    try:
        import mlir.ir  # noqa: F401
    finally:
        del sys.modules["numpy"]


def report_exception(tool: str, e: Exception) -> int:
    """What the tools do with an exception that reached `main`: a pipeline
    that does not parse is the user's error; anything else is a bug, said
    briefly, without a traceback (PTO_DEBUG=1 shows it). Returns the exit code."""
    import os
    import traceback

    # pipeline.py imports mlir: only a run that got that far can raise its error.
    pipeline = sys.modules.get("pto_dialect.pipeline")
    if pipeline is not None and isinstance(e, pipeline.PipelineError):
        print(e.render() if e.col else f"{tool}: error: {e}", file=sys.stderr)
        return 1
    if os.environ.get("PTO_DEBUG"):
        traceback.print_exc()
    print(f"{tool}: error: internal error: {type(e).__name__}: {e} (set PTO_DEBUG=1 for the traceback)", file=sys.stderr)
    return 1


class ToolError(Exception):
    """A failure outside the IR (bad flag, unreadable file): one message."""


def read_input(path: str, errors: str = "replace") -> tuple[str, str]:
    """(display name, text) of a file or `-` for stdin. Undecodable bytes
    become U+FFFD so the parser reports them with a position, or, with
    errors="surrogateescape", stand-ins that `source_bytes` turns back into
    the original bytes."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
            name = "<stdin>"
        else:
            with open(path, "rb") as f:
                data = f.read()
            name = path
    except OSError as e:
        raise ToolError(f"could not open input file '{path}': {e.strerror or e}") from None
    return name, data.decode("utf-8", errors=errors)


def source_bytes(text: str) -> bytes:
    """What to give the MLIR parser for text from `read_input(...,
    errors="surrogateescape")`: the input's own bytes, so that a non-UTF-8
    byte in a string attribute stays that byte (MLIR strings are bytes)."""
    return text.encode("utf-8", errors="surrogateescape")


@dataclass
class Chunk:
    """A piece of the input; `first_line` is its first line in the file."""

    text: str
    first_line: int
    last_line: int

    def padded(self) -> str:
        # Blank lines in front keep every location's line number that of the
        # original file, so diagnostics and expected-* lines agree.
        return "\n" * (self.first_line - 1) + self.text


DEFAULT_SPLIT_MARKER = "// -----"


def split_input(text: str, marker: str | None) -> list[Chunk]:
    """The whole input, or the pieces between lines that start with `marker`."""
    lines = text.split("\n")
    if marker is None:
        return [Chunk(text, 1, len(lines))]
    pattern = re.compile(r"^\s*" + re.escape(marker))
    chunks: list[Chunk] = []
    start = 0
    for i, line in enumerate(lines):
        if pattern.match(line):
            chunks.append(Chunk("\n".join(lines[start:i]), start + 1, i))
            start = i + 1
    chunks.append(Chunk("\n".join(lines[start:]), start + 1, len(lines)))
    return chunks


def parse_source(source: str, collector: "DiagnosticCollector"):
    """Parse `source` (text from `read_input`, possibly padded) into an
    `ir.Module` in the current Context, or return None after putting the
    diagnostics in `collector`: the parser hazards above become errors
    instead of crashing the process."""
    from mlir import ir

    from ..diagnostics import Diag

    hazard = parser_hazard(source)
    if hazard is not None:
        offset, message = hazard
        collector.add(Diag("error", message, PARSED_FILE_NAME, *line_col(source, offset)))
        return None
    try:
        return ir.Module.parse(source_bytes(source))
    except ir.MLIRError as e:
        collector.add_error(e)
        return None


class DiagnosticCollector:
    """Every diagnostic of one Context, in emission order.

    Errors raised out of `Module.parse` and `PassManager.run` arrive as
    `MLIRError`s (the bindings capture them); everything else arrives at the
    handler this attaches. Remarks and warnings that could not go through MLIR
    (see diagnostics.py) arrive through the fallback sink.
    """

    def __init__(self, context, on_diag=None) -> None:
        from .. import diagnostics

        self.diags: list[Diag] = []
        self._on_diag = on_diag
        self._handler = context.attach_diagnostic_handler(self._handle)
        diagnostics.add_fallback_sink(self._add)

    def add(self, d: Diag) -> None:
        """Take a diagnostic the tool produced itself."""
        self.diags.append(d)
        if self._on_diag:
            self._on_diag(d)

    _add = add

    def _handle(self, d) -> bool:
        from ..diagnostics import Diag

        try:
            self._add(Diag.from_mlir(d))
        except Exception:  # never let an exception cross into C++
            pass
        return True

    def add_error(self, error) -> None:
        """Take the diagnostics an `ir.MLIRError` carries."""
        from .. import diagnostics
        from ..diagnostics import Diag

        details = getattr(error, "error_diagnostics", None) or []
        if not details:
            self._add(Diag(diagnostics.ERROR, str(error)))
        for d in details:
            self._add(Diag.from_mlir(d))

    def close(self) -> None:
        from .. import diagnostics

        diagnostics.remove_fallback_sink(self._add)
        try:
            self._handler.detach()
        except Exception:
            pass

    def __enter__(self) -> "DiagnosticCollector":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def drop_op_dump_notes(d: Diag) -> Diag:
    """Without mlir-opt's `printOpOnDiagnostic`, which the bindings cannot
    turn off: drop the "see current operation" notes (as mlir-opt does under
    --verify-diagnostics)."""
    d.notes = [n for n in d.notes if not n.message.startswith("see current operation:")]
    return d
