"""What the command-line tools share besides the session: starting fast,
and turning whatever ends a run into a message and an exit code."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable
from typing import NoReturn


class ToolError(Exception):
    """A failure outside the IR (bad flag, unwritable file): one message."""


def start_tool_process() -> None:
    """What a tool's own process (console_main, never the API or a test
    calling `main`) sets before it loads anything (docs/performance.md,
    "Start-up"): the extension modules' symbols bound when first called
    rather than all at load (`RTLD_LAZY`: the 200 MB MLIR library has tens
    of thousands), and the cycle collector run 30 times less often (the
    start allocates ~10^5 objects that live to the end; a run's garbage
    is still collected, in larger steps).

    Not done, measured: emptying the bindings' dialect search path
    (`dialect_search_modules`) would save importing `mlir.dialects.scf`
    and the like (~25 ms of a one-loop run), but then every wrap of such an
    op retries the import (the conversion at K = 4000: 9.1 s, not 2.0 s)."""
    flags = sys.getdlopenflags()
    sys.setdlopenflags((flags & ~os.RTLD_NOW) | os.RTLD_LAZY)
    gc.set_threshold(20_000, 20, 20)


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


def run_and_exit(main: Callable[[], int]) -> NoReturn:
    """The command-line entry: run `main`, flush the standard streams and
    end the process with its exit code, without the interpreter's teardown.
    Freeing every object and the MLIR library's globals at exit costs
    ~25 ms of every run (a tenth of a one-loop file's) and the system frees
    it all anyway; clang skips it too (`-cc1 -disable-free`). Every file the
    tool writes is closed before `main` returns. A stream that cannot be
    flushed gets Python's own exit instead."""
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        sys.exit(code)
    os._exit(code)


def exit_code_for(tool: str, e: BaseException) -> int:
    """What the tools do with an exception that ended their run: the user's
    errors (a bad flag, an unreadable file, a pipeline that does not parse,
    a closed stream) get their one message; a closed pipe ends quietly; out
    of memory and runaway nesting say so; anything else is a bug, said
    briefly, without a traceback (PTO_DEBUG=1 shows it). Returns the exit
    code, 1 in every case."""
    from . import output

    if isinstance(e, BrokenPipeError):
        output.silence_stdout()
        return 1
    message = _user_error(tool, e)
    if message is None:
        if os.environ.get("PTO_DEBUG"):
            import traceback

            traceback.print_exception(e)
        message = f"{tool}: error: internal error: {type(e).__name__}: {e} (set PTO_DEBUG=1 for the traceback)"
    output.error_line(message)
    return 1


def _user_error(tool: str, e: BaseException) -> str | None:
    """The message for an exception that is the user's or the machine's
    business, or None for a bug."""
    if isinstance(e, ToolError):
        return f"{tool}: error: {e}"
    # These modules import mlir: only a run that got that far can raise their errors.
    session = sys.modules.get("pto_dialect.driver.session")
    if session is not None and isinstance(e, session.SessionError):
        return f"{tool}: error: {e}"
    syntax = sys.modules.get("pto_dialect.syntax.pass_pipeline")
    if syntax is not None and isinstance(e, syntax.PipelineError):
        return e.render() if e.col else f"{tool}: error: {e}"
    if isinstance(e, MemoryError):
        return f"{tool}: error: out of memory"
    if isinstance(e, RecursionError):
        return f"{tool}: error: input nested too deeply"
    return None
