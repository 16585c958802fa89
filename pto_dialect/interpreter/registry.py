"""Which op each compile function implements, said where the function is
written (`@impl("pto.tload")`, as xDSL's `@impl`), and the one list of ops
pto-run executes, derived from what is registered.

A compile function takes the `Compiler` and the op and returns the op's
instruction (a closure over the frame) or None. `compilers()` is the
registry once every op module has registered its functions; a pto op no
module implements compiles to a runtime error at it
(`op_support.compile_without_semantics`), any other unknown op is an
error when the function is compiled."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mlir import ir

    from .compiler import Compiler, Instr

OpCompiler = Callable[["Compiler", "ir.Operation"], "Instr | None"]

_COMPILERS: dict[str, OpCompiler] = {}


def impl(*names: str) -> Callable[[OpCompiler], OpCompiler]:
    """Register the decorated compile function for these op names (generic)."""

    def register(fn: OpCompiler) -> OpCompiler:
        for name in names:
            if name in _COMPILERS:
                raise ValueError(f"'{name}' is implemented twice: by {_COMPILERS[name].__qualname__} and {fn.__qualname__}")
            _COMPILERS[name] = fn
        return fn

    return register


def compilers() -> dict[str, OpCompiler]:
    """Op name -> its compile function, every op module registered."""
    from . import arith_ops, control_ops, movement_ops, pto_ops, rowcol_ops  # noqa: F401  (they register their ops)

    return _COMPILERS
