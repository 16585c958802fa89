"""What the pto ops compile to: allocation and slot selection, tile loads and
stores, and the compute ops, all reading and writing the memory model
(memory.py) and computing with tile_ops.py.

Which operand an op reads and writes, and its pipe, come from the op
catalogue, so the trace a timing model reads and the passes agree on what
every op touches. Every compute op is one `_TileOp` skeleton: read the
input tiles (warning once per op and operand about bytes never written),
check their element types and shapes, compute, store the result, and record
a trace event when the run keeps a trace (decided once, at compile time).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from mlir import ir

from ..catalogue import CATALOGUE
from ..diagnostics import location_text
from ..types import multi_tile_type, tile_type
from . import tile_ops
from .compiler import Compiler, Frame, Instr, guard, guard_at
from .elements import to_compute, to_storage
from .errors import OpFault
from .memory import GlobalBuffer, TileRef
from .trace import TraceEvent


def _same_dtype_fault(op: str, a: str, b: str) -> OpFault:
    return OpFault(f"element types differ ({a} and {b}); '{op}' needs equal element types")


def _check_same_shape(a: TileRef, b: TileRef) -> None:
    if a.layout.shape != b.layout.shape:
        raise OpFault(f"shapes differ ({a.layout.shape[0]}x{a.layout.shape[1]} and {b.layout.shape[0]}x{b.layout.shape[1]})")


# --- buffers -------------------------------------------------------------------------


def _compile_alloc(c: Compiler, op: ir.Operation, view, make) -> Instr:
    """An alloc: `make(key, view, addr)` builds its buffer (addr None: the
    op's private buffer)."""
    key = c.interp.new_key()
    result = c.define(op.results[0])
    if len(op.operands):
        addr = c.use(op.operands[0], op)
        return lambda frame: frame.__setitem__(result, make(key, view, frame[addr]))
    return lambda frame: frame.__setitem__(result, make(key, view, None))


def _compile_alloc_tile(c: Compiler, op: ir.Operation) -> Instr:
    return guard(op, _compile_alloc(c, op, tile_type(op.results[0].type), c.interp.memory.tile))


def _compile_alloc_multi_tile(c: Compiler, op: ir.Operation) -> Instr:
    return guard(op, _compile_alloc(c, op, multi_tile_type(op.results[0].type), c.interp.memory.multi_tile))


def _compile_multi_tile_get(c: Compiler, op: ir.Operation) -> Instr:
    mb, slot = c.uses(op)
    result = c.define(op.results[0])

    def run(frame: Frame) -> None:
        frame[result] = frame[mb].slot(frame[slot])

    return guard(op, run)


# --- the skeleton of data-moving ops ---------------------------------------------------


class _TileOp:
    """One pto op that moves or computes tile data: its operand slots, the
    checks on what it reads, and its trace events."""

    def __init__(self, c: Compiler, op: ir.Operation) -> None:
        self.interp = c.interp
        self.key = c.interp.new_key()
        self.name = op.name
        self.location = op.location
        self.spec = CATALOGUE[op.name]
        self.pipe = self.spec.pipe.value
        self.where = location_text(op.location)  # once: traces record it per execution
        self.slots = c.uses(op)
        self.tracing = c.interp.trace is not None

    def read(self, ref: TileRef, operand: str) -> np.ndarray:
        """The stored elements of an input tile."""
        missing = ref.unwritten_bytes()
        if missing:
            self.interp.warn_unwritten(self.key, self.location, self.name, operand, ref, missing)
        return ref.stored()

    def tile(self, frame: Frame, operand: str) -> TileRef:
        ref = frame[self.slots[self.spec.index(operand)]]
        if not isinstance(ref, TileRef):
            raise OpFault(f"operand '{operand}' is not a tile")
        return ref

    def record(self, frame: Frame, elements: int, macs: int = 0) -> None:
        """Append the trace event of this execution: what the op reads and
        writes is the catalogue's, so the trace and the passes agree."""
        spec = self.spec
        self.interp.trace.append(
            TraceEvent(
                self.name,
                self.pipe,
                self.where,
                tuple(self._access(frame, i) for i in spec.read_indices),
                tuple(self._access(frame, i) for i in spec.write_indices),
                elements,
                macs,
            )
        )

    def _access(self, frame: Frame, index: int):
        value = frame[self.slots[index]]
        if isinstance(value, GlobalBuffer):  # a tload/tstore block, the shape of its tile
            tile = next(frame[s] for s in self.slots if isinstance(frame[s], TileRef))
            row, col = frame[self.slots[self.spec.index("row")]], frame[self.slots[self.spec.index("col")]]
            return value.access(row, col, *tile.layout.shape)
        return value.access()

    def compile(self, body: Callable[[Frame], tuple[int, ...]]) -> Instr:
        """The op's closure: `body` does the work and returns what the trace
        event counts (elements written, and multiply-accumulates)."""
        if not self.tracing:
            return guard_at(self.location, self.name, body)
        record = self.record

        def traced(frame: Frame) -> None:
            record(frame, *body(frame))

        return guard_at(self.location, self.name, traced)


def _global(value, operand: str) -> GlobalBuffer:
    if not isinstance(value, GlobalBuffer):
        raise OpFault(f"operand '{operand}' is not a memref argument of the executed function")
    return value


# --- loads and stores -----------------------------------------------------------------


def _compile_tload(c: Compiler, op: ir.Operation) -> Instr:
    t = _TileOp(c, op)
    src, row, col, _ = t.slots

    def body(frame: Frame) -> tuple[int]:
        g = _global(frame[src], "src")
        d = t.tile(frame, "dst")
        layout = d.layout
        if g.dtype != layout.dtype:
            raise _same_dtype_fault(t.name, g.dtype, layout.dtype)
        rows, cols = layout.shape
        d.store(g.block(frame[row], frame[col], rows, cols))
        return (layout.elements,)

    return t.compile(body)


def _compile_tstore(c: Compiler, op: ir.Operation) -> Instr:
    t = _TileOp(c, op)
    _, dst, row, col = t.slots

    def body(frame: Frame) -> tuple[int]:
        s = t.tile(frame, "src")
        g = _global(frame[dst], "dst")
        layout = s.layout
        if g.dtype != layout.dtype:
            raise _same_dtype_fault(t.name, layout.dtype, g.dtype)
        rows, cols = layout.shape
        block = g.block(frame[row], frame[col], rows, cols)
        block[...] = t.read(s, "src")
        g.written = True
        return (layout.elements,)

    return t.compile(body)


# --- element-wise ops ------------------------------------------------------------------


def _compile_elementwise(c: Compiler, op: ir.Operation) -> Instr:
    """Every element-wise op, by the kind tile_ops gives it: the inputs are
    the catalogue's reads (a scalar operand `s` is a value, not a tile), the
    output its one write. `same` ops need one element type throughout
    (`tcvt` converts, `tmov` copies and also needs equal shapes)."""
    t = _TileOp(c, op)
    name = t.name
    kind = tile_ops.kind(name)
    inputs = t.spec.reads
    (output,) = t.spec.writes
    scalar = t.slots[t.spec.index("s")] if "s" in t.spec.operands else None

    def body(frame: Frame) -> tuple[int]:
        refs = [t.tile(frame, operand) for operand in inputs]
        out = t.tile(frame, output)
        dtype = out.layout.dtype
        if kind == tile_ops.MOVE:
            (src,) = refs
            _check_same_shape(src, out)
            if src.layout.dtype != dtype:
                raise _same_dtype_fault(name, src.layout.dtype, dtype)
            out.store(t.read(src, inputs[0]))  # bit for bit: no conversion
            return (out.layout.elements,)
        if kind == tile_ops.CONVERT:
            (src,) = refs
            _check_same_shape(src, out)
            values = to_compute(src.layout.dtype, t.read(src, inputs[0]))
            out.store(to_storage(dtype, tile_ops.cvt(src.layout.dtype, dtype, values)))
            return (out.layout.elements,)
        if any(ref.layout.dtype != dtype for ref in refs):
            first = refs[0].layout.dtype
            raise _same_dtype_fault(name, first, refs[1].layout.dtype if first == dtype else dtype)
        values = [to_compute(dtype, t.read(ref, operand)) for ref, operand in zip(refs, inputs)]
        if kind == tile_ops.WITH_SCALAR:
            result = tile_ops.with_scalar(name, dtype, values[0], frame[scalar])
        elif kind == tile_ops.BINARY:
            result = tile_ops.binary(name, dtype, *values)
        else:
            result = tile_ops.unary(name, dtype, *values)
        out.store(to_storage(dtype, result))
        return (out.layout.elements,)

    return t.compile(body)


# --- matmul ----------------------------------------------------------------------------


def _compile_matmul(c: Compiler, op: ir.Operation) -> Instr:
    t = _TileOp(c, op)
    accumulate = t.name == "pto.tmatmul_acc"
    out_name = t.spec.writes[0]

    def body(frame: Frame) -> tuple[int, int]:
        rl, rr, rd = t.tile(frame, "lhs"), t.tile(frame, "rhs"), t.tile(frame, out_name)
        (m, k), (k2, n), (m2, n2) = rl.layout.shape, rr.layout.shape, rd.layout.shape
        if k != k2 or (m, n) != (m2, n2):
            raise OpFault(f"shapes do not agree: {m}x{k} @ {k2}x{n} into {m2}x{n2}")
        in_dtype, out_dtype = rl.layout.dtype, rd.layout.dtype
        if rr.layout.dtype != in_dtype:
            raise _same_dtype_fault(t.name, in_dtype, rr.layout.dtype)
        vl = to_compute(in_dtype, t.read(rl, "lhs"))
        vr = to_compute(in_dtype, t.read(rr, "rhs"))
        acc = to_compute(out_dtype, t.read(rd, "acc")) if accumulate else None
        rd.store(to_storage(out_dtype, tile_ops.matmul(in_dtype, out_dtype, vl, vr, acc)))
        return (m * n, m * n * k)

    return t.compile(body)


COMPILERS = {
    "pto.alloc_tile": _compile_alloc_tile,
    "pto.alloc_multi_tile": _compile_alloc_multi_tile,
    "pto.multi_tile_get": _compile_multi_tile_get,
    "pto.tload": _compile_tload,
    "pto.tstore": _compile_tstore,
    **{n: _compile_elementwise for n in tile_ops.ELEMENTWISE_OPS},
    "pto.tmatmul": _compile_matmul,
    "pto.tmatmul_acc": _compile_matmul,
}
