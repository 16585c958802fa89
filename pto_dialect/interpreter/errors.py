"""What goes wrong while executing a kernel, tied to the op that did it."""

from __future__ import annotations

from mlir import ir


class InterpreterError(Exception):
    """A runtime error at an op: out-of-bounds access, slot out of range,
    division by zero, an op the interpreter does not know, ...

    `location` is the op's `ir.Location` (None when no op is to blame, e.g. a
    missing argument); tools print it as `file:line:col: error: message`.
    """

    def __init__(self, location: ir.Location | None, message: str) -> None:
        super().__init__(message)
        self.location = location
        self.message = message


class OpFault(Exception):
    """Raised by op semantics that do not know their op's location; the
    evaluator turns it into an `InterpreterError` at the executing op."""
