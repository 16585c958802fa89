"""Compiling one function's ops into Python closures over a frame.

A frame is a list with one slot per SSA value. Decoding an op (its types,
attributes, operand slots, location) happens once, when its function is
first called; executing the closure touches no MLIR object. Constants are
pre-filled in the frame template. Regions become lists of closures that the
closures of `scf.for`, `scf.if`, `func.call` and the pto ops with a region
(sections, `pto.fusion_region`) run.

What each op compiles to lives with its dialect: `pto_ops`, `arith_ops`,
`control_ops` (scf and func). `Compiler.op` finds the compiler of an op by
name in the table the evaluator assembles from them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mlir import ir

from .errors import InterpreterError, OpFault

if TYPE_CHECKING:
    from .evaluator import Interpreter

Frame = list
Instr = Callable[[Frame], None]
OpCompiler = Callable[["Compiler", ir.Operation], "Instr | None"]


@dataclass
class Block:
    code: list[Instr]
    yields: list[int]  # slots of the terminator's operands


EMPTY_BLOCK = Block([], [])


class Compiler:
    """Compiles the ops of one function into closures over frame slots."""

    def __init__(self, interp: Interpreter, compilers: dict[str, OpCompiler]) -> None:
        self.interp = interp
        self.compilers = compilers
        self.slots: dict[ir.Value, int] = {}
        self.template: list = []

    def define(self, value: ir.Value) -> int:
        slot = len(self.template)
        self.slots[value] = slot
        self.template.append(None)
        return slot

    def use(self, value: ir.Value, op: ir.Operation) -> int:
        slot = self.slots.get(value)
        if slot is None:
            raise InterpreterError(op.location, f"'{op.name}' uses a value defined outside the function")
        return slot

    def uses(self, op: ir.Operation) -> list[int]:
        return [self.use(v, op) for v in op.operands]

    def block(self, block: ir.Block, terminators: tuple[str, ...], implicit: str | None = None) -> Block:
        """The block's ops as closures, and the slots of what its last op
        yields when that op is one of `terminators` (it is not executed).
        `implicit` names a terminator without operands the block may end in
        after that (a pto region's `gpu.yield`, ops.IMPLICIT_TERMINATOR):
        it is dropped first."""
        code: list[Instr] = []
        ops = list(block.operations)
        if implicit is not None and ops and ops[-1].operation.name == implicit and not len(ops[-1].operation.operands):
            ops.pop()
        yields: list[int] = []
        for i, view in enumerate(ops):
            op = view.operation
            if i == len(ops) - 1 and op.name in terminators:
                yields = self.uses(op)
                break
            instr = self.op(op)
            if instr is not None:
                code.append(instr)
        return Block(code, yields)

    def region_block(self, region: ir.Region, op: ir.Operation) -> Block | None:
        blocks = list(region.blocks)
        if not blocks:
            return None
        if len(blocks) != 1:
            raise InterpreterError(op.location, f"'{op.name}' has a region of {len(blocks)} blocks; expected one")
        return self.block(blocks[0], ("scf.yield",))

    def op(self, op: ir.Operation) -> Instr | None:
        compile_fn = self.compilers.get(op.name)
        if compile_fn is None and op.name.startswith("pto."):
            from .op_support import compile_without_semantics

            compile_fn = compile_without_semantics
        if compile_fn is None:
            raise InterpreterError(
                op.location,
                f"cannot execute '{op.name}': the interpreter runs pto, func, scf and arith ops, and does not know this one",
            )
        return compile_fn(self, op)


def guard(op: ir.Operation, fn: Instr | None) -> Instr | None:
    """Turn an OpFault raised by `fn` into an InterpreterError at `op`."""
    return None if fn is None else guard_at(op.location, op.name, fn)


def guard_at(location: ir.Location, name: str, fn: Callable[[Frame], object]) -> Instr:
    """`guard` for the op named `name` at `location` (`fn`'s result is dropped)."""

    def run(frame: Frame) -> None:
        try:
            fn(frame)
        except OpFault as e:
            raise InterpreterError(location, f"'{name}': {e}") from None

    return run


def int_width(op: ir.Operation, value: ir.Value) -> int:
    """The bit width of an integer or index value, or an error at `op`."""
    from . import scalars

    w = scalars.int_width(value.type)
    if w is None:
        raise InterpreterError(op.location, f"'{op.name}' expects an integer or index type, got {value.type}")
    return w
