"""What the interpreter tests share: run a kernel given as ptoas text, catch
the runtime error it must stop with (and where), find a buffer of a run."""

from __future__ import annotations

import pytest
from conftest import parse_kernel, run_kernel

from pto_dialect.api import ParseError
from pto_dialect.interpreter import Execution, InterpreterError
from pto_dialect.support.diagnostics import location_position


def run(text: str, func: str = "k", **kw) -> Execution:
    return run_kernel(text, func, **kw)


def run_error(text: str, func: str = "k", **kw) -> InterpreterError:
    """The error the run of `func` stops with; `.position` is its (file,
    line, column) and `.line` its line, or None without a location."""
    with pytest.raises(InterpreterError) as info:
        run_kernel(text, func, **kw)
    err = info.value
    err.position = location_position(err.location) if err.location is not None else None
    err.line = err.position[1] if err.position else None
    return err


def buffer(execution: Execution, name: str):
    return next(b for b in execution.buffers if b.name == name)


def on_a5(text: str) -> str:
    """The kernel as a module for a5 (its type aliases stay at the top):
    for ops and element types only a5 has."""
    lines = text.splitlines()
    aliases = [line for line in lines if line.startswith("!")]
    body = [line for line in lines if not line.startswith("!")]
    return "\n".join([*aliases, 'module attributes {pto.target_arch = "a5"} {', *body, "}", ""])


def verify_error(text: str) -> str:
    """The first error the verifier refuses the kernel with, as
    `<string>:LINE:COL: error: MESSAGE` (what ptoas refuses is refused
    before anything runs)."""
    with pytest.raises(ParseError) as info:
        parse_kernel(text)
    return str(info.value).splitlines()[0]
