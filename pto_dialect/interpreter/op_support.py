"""The machinery every op's compile function shares (xDSL keeps its
interpreter helpers public the same way): `TileOp`, the skeleton of a
data-moving op (its operand slots by the catalogue's layout of the
instance, the checks on what it reads, its trace event), and the small
helpers around it (operands as tiles and views, enum attributes, the
faults ops raise, ops that stop the run)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from mlir import ir

from ..dialect.attributes import generic_value
from ..dialect.effects import CATALOGUE
from ..dialect.ops import op_def
from ..support.diagnostics import location_text
from .compiler import Compiler, Frame, Instr, guard_at
from .errors import InterpreterError, OpFault
from .memory import GlobalBuffer, TileRef, ViewRef
from .trace import OpShape, TraceEvent, op_shape


def ptoas_name(name: str) -> str:
    """The name users write (`pto.tmatmul.acc`) for a generic op name."""
    definition = op_def(name)
    return definition.full_name if definition is not None else name


def same_dtype_fault(op: str, a: str, b: str) -> OpFault:
    return OpFault(f"element types differ ({a} and {b}); '{op}' needs equal element types")


def shape_text(shape) -> str:
    return "x".join(map(str, shape))


def enum_value(op: ir.Operation, name: str) -> str | None:
    """The value of a `#pto` enum attribute of `op` (`atomic_add`), or None."""
    attrs = op.attributes
    if name not in attrs:
        return None
    parsed = generic_value(str(attrs[name]))
    return parsed[1] if parsed else str(attrs[name])


def define_results(c: Compiler, op: ir.Operation) -> list[int]:
    return [c.define(r) for r in op.results]


def not_executed(c: Compiler, op: ir.Operation, why: str) -> Instr:
    """An instruction that stops the run at `op` with `why`."""
    define_results(c, op)
    location = op.location
    message = f"'{ptoas_name(op.name)}' {why}"

    def run(frame: Frame) -> None:
        raise InterpreterError(location, message)

    return run


def compile_without_semantics(c: Compiler, op: ir.Operation) -> Instr:
    definition = op_def(op.name)
    if definition is not None and definition.tier == "syntax":
        return not_executed(c, op, "has no semantics in pto-run (the dialect reads, verifies and prints it only)")
    return not_executed(c, op, "is not executed by pto-run yet")


def tile_operand(value, operand: str) -> TileRef:
    if not isinstance(value, TileRef):
        raise OpFault(f"operand '{operand}' is not a tile")
    return value


def view_operand(value, operand: str) -> ViewRef:
    if isinstance(value, GlobalBuffer):
        raise OpFault(f"operand '{operand}' is a memref: pto ops reach global memory through tensor views and partitions")
    if not isinstance(value, ViewRef):
        raise OpFault(f"operand '{operand}' is not a tensor view or partition")
    return value


def operand_slots(c: Compiler, op: ir.Operation, *names: str) -> list[int]:
    """The frame slots of single operands, by name (the catalogue's layout)."""
    layout = CATALOGUE[op.name].layout(op)
    slots = c.uses(op)
    return [slots[layout.index(n)] for n in names]


class TileOp:
    """One pto op that moves or computes tile data: its operand slots (by
    the catalogue's layout of this instance), the checks on what it reads,
    and its trace events."""

    def __init__(self, c: Compiler, op: ir.Operation) -> None:
        self.interp = c.interp
        self.key = c.interp.new_key()
        self.name = ptoas_name(op.name)
        self.generic_name = op.name
        self.location = op.location
        self.spec = CATALOGUE[op.name]
        self.layout = self.spec.layout(op)
        self.pipe = self.spec.pipe.value
        self.where = location_text(op.location)  # once: traces record it per execution
        self.slots = c.uses(op)
        define_results(c, op)  # an optional tensor result: never set (tiles are buffers)
        self.tracing = c.interp.trace is not None
        self.reads = tuple(self.slots[i] for i in self.layout.reads)
        self.writes = tuple(self.slots[i] for i in self.layout.writes)

    def slot(self, operand: str) -> int | None:
        """The frame slot of `operand`, or None when this instance lacks it."""
        index = self.layout.index(operand)
        return None if index is None else self.slots[index]

    def present(self, *operands: str) -> list[str]:
        """Which of these optional operands this instance has."""
        return [o for o in operands if self.layout.index(o) is not None]

    def tile(self, frame: Frame, operand: str) -> TileRef:
        return tile_operand(frame[self.slot(operand)], operand)

    def read(self, ref: TileRef, operand: str, rows: int, cols: int) -> np.ndarray:
        """A copy of elements [0, rows) x [0, cols) of an input tile, as
        stored. The PTO ISA asks a source's valid region to cover the op's
        domain, yet PyPTO kernels read past it (a 1x2 row statistic in a 1x8
        `tmax`), and the vector unit simply reads those bytes: so do we,
        inside the tile's shape, with a warning (once per op and operand)
        that the result there is whatever the bytes hold. Past the shape is
        an error."""
        vr, vc = ref.valid
        if rows > vr or cols > vc:
            sr, sc = ref.layout.shape
            if rows > sr or cols > sc:
                raise OpFault(f"operand '{operand}' is a {sr}x{sc} tile, smaller than the {rows}x{cols} elements the op reads")
            self.interp.warn_beyond_valid(self.key, self.location, self.name, operand, ref, rows, cols)
        missing = ref.unwritten_bytes(rows, cols)
        if missing:
            self.interp.warn_unwritten(self.key, self.location, self.name, operand, ref, missing, rows * cols * ref.layout.itemsize)
        return np.array(ref.region(rows, cols))

    def record(self, frame: Frame, elements: int, macs: int = 0) -> None:
        """Append the trace event of this execution: what the op reads and
        writes is the catalogue's, so the trace and the passes agree."""
        self.interp.trace.append(
            TraceEvent(
                self.name,
                self.pipe,
                self.where,
                buffer_accesses(frame, self.reads),
                buffer_accesses(frame, self.writes),
                elements,
                macs,
                self.shape(frame),
            )
        )

    def shape(self, frame: Frame) -> OpShape | None:
        """What the cost formulas read of this execution (trace.op_shape)."""
        lhs = rhs = None
        if self.name.startswith("pto.tmatmul"):
            lhs, rhs = self.tile(frame, "lhs"), self.tile(frame, "rhs")
        return op_shape(self.name, [_shaped(frame[s]) for s in self.reads], [_shaped(frame[s]) for s in self.writes], lhs, rhs)

    def compile(self, body: Callable[[Frame], tuple[int, ...]]) -> Instr:
        """The op's closure: `body` does the work and returns what the trace
        event counts (elements written, and multiply-accumulates)."""
        if not self.tracing:
            return guard_at(self.location, self.name, body)
        record = self.record

        def traced(frame: Frame) -> None:
            record(frame, *body(frame))

        return guard_at(self.location, self.name, traced)

    def refuse(self, what: str) -> Instr:
        """The op with a variant not executed yet: a runtime error."""
        location, message = self.location, f"'{self.name}' {what} is not executed by pto-run yet"

        def run(frame: Frame) -> None:
            raise InterpreterError(location, message)

        return run

    def reject(self, why: str) -> Instr:
        """The op as written is one the target does not implement (pto-isa
        refuses it): a runtime error saying why, where pto-run would
        otherwise compute something no device does."""
        location, message = self.location, f"'{self.name}' {why}"

        def run(frame: Frame) -> None:
            raise InterpreterError(location, message)

        return run


def _shaped(value):
    """A tile or view operand as trace.op_shape reads it; None for a scalar."""
    return value if isinstance(value, (TileRef, ViewRef)) else None


def buffer_accesses(frame: Frame, slots: tuple[int, ...]) -> tuple:
    out: list = []
    for s in slots:
        value = frame[s]
        if isinstance(value, (TileRef, ViewRef)):  # scalars move no buffer bytes
            out.extend(value.accesses())
    return tuple(out)


def unexecuted_move_variants(t: TileOp, op: ir.Operation) -> list[str]:
    """What a tile-to-tile move (tmov, textract) asks for that pto-run
    does not execute yet: quantisation (`fp`, `preQuantScalar`), a relu
    before it, the acc-to-vec mode."""
    extras = t.present("fp", "preQuantScalar")
    relu = enum_value(op, "reluPreMode")
    if relu not in (None, "no_relu"):
        extras.append(f"reluPreMode {relu}")
    if "accToVecMode" in op.attributes:
        extras.append("accToVecMode")
    return extras
