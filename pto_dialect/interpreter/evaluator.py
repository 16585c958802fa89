"""The evaluator: executes `func.func`s of pto, func, scf and arith ops.

Each function is compiled once, on its first call, into Python closures over
a frame (a list with one slot per SSA value): decoding an op (its types,
attributes, operand slots, location) happens once, and executing it touches
no MLIR object. Constants are pre-filled in the frame template. Regions
become lists of closures; `scf.for`, `scf.if` and `func.call` closures run
them.

What each pto op does to memory is read from the op catalogue (which operand
it reads and writes, its pipe); what it computes lives in tile_ops.py; the
memory model in memory.py. Unknown ops are an error naming the op at its
location, raised when the function containing it is compiled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from mlir import ir

from ..catalogue import CATALOGUE
from ..diagnostics import location_position
from ..targets import ArchError, resolve_arch
from ..types import multi_tile_type, tile_type
from . import scalars, tile_ops
from .elements import to_compute, to_storage
from .errors import InterpreterError, OpFault
from .memory import GlobalBuffer, Memory, TileRef
from .trace import TraceEvent

DEFAULT_MAX_OPS = 20_000_000
"""Executed ops before a run stops with an error (a runaway loop)."""

MAX_CALL_DEPTH = 200

Frame = list
Instr = Callable[[Frame], None]


@dataclass(frozen=True)
class ExecutionWarning:
    location: ir.Location
    message: str


@dataclass
class _Block:
    code: list[Instr]
    yields: list[int]  # slots of the terminator's operands


@dataclass
class _Function:
    name: str
    location: ir.Location
    arg_slots: list[int]
    body: _Block | None  # None for a declaration
    template: list = field(default_factory=list)


def where(location: ir.Location) -> str:
    file, line, col = location_position(location)
    return f"{file}:{line}:{col}" if file is not None else "<unknown>"


class Interpreter:
    """Executes functions of one module. Tile memory (and so every private
    buffer) lives as long as the interpreter: calling a function twice finds
    what the first call left, as on the device."""

    def __init__(
        self,
        module: ir.Operation,
        *,
        arch: str | None = None,
        trace: bool = False,
        max_ops: int = DEFAULT_MAX_OPS,
    ) -> None:
        try:
            self.arch = resolve_arch(module, arch)
        except ArchError as e:
            raise InterpreterError(module.location, str(e)) from None
        self.memory = Memory(self.arch)
        self.trace: list[TraceEvent] | None = [] if trace else None
        self.warnings: list[ExecutionWarning] = []
        self.ops_executed = 0
        self.max_ops = max_ops
        self._functions: dict[str, ir.Operation] = {}
        for op in module.regions[0].blocks[0].operations:
            if op.operation.name == "func.func":
                self._functions[op.attributes["sym_name"].value] = op.operation
        self._compiled: dict[str, _Function] = {}
        self._warned: set[tuple[int, str]] = set()
        self._depth = 0
        self._next_key = 0

    # -- running ------------------------------------------------------------------

    def function(self, name: str) -> ir.Operation | None:
        return self._functions.get(name)

    def call(self, name: str, args: list, location: ir.Location | None = None) -> list:
        fn = self._compiled.get(name)
        if fn is None:
            op = self._functions.get(name)
            if op is None:
                raise InterpreterError(location, f"no function named @{name}")
            fn = self._compiled[name] = self._compile_function(name, op)
        if fn.body is None:
            raise InterpreterError(location or fn.location, f"function @{name} has no body to execute")
        if len(args) != len(fn.arg_slots):
            raise InterpreterError(location, f"@{name} takes {len(fn.arg_slots)} arguments, got {len(args)}")
        if self._depth >= MAX_CALL_DEPTH:
            raise InterpreterError(location, f"call depth exceeds {MAX_CALL_DEPTH} (unbounded recursion?)")
        frame = list(fn.template)
        for slot, value in zip(fn.arg_slots, args):
            frame[slot] = value
        self._depth += 1
        try:
            self._run(fn.body.code, frame, fn.location)
        finally:
            self._depth -= 1
        return [frame[s] for s in fn.body.yields]

    def _run(self, code: list[Instr], frame: Frame, location: ir.Location) -> None:
        # +1: a loop whose body is empty still makes progress toward the limit
        self.ops_executed += len(code) + 1
        if self.ops_executed > self.max_ops:
            raise InterpreterError(
                location, f"execution stopped after {self.max_ops} ops (the limit; pto-run --max-ops raises it)"
            )
        for instr in code:
            instr(frame)

    # -- diagnostics ----------------------------------------------------------------

    def _warn_unwritten(self, key: int, location: ir.Location, op: str, operand: str, ref: TileRef, count: int) -> None:
        if (key, operand) in self._warned:
            return
        self._warned.add((key, operand))
        start = ref.offset
        self.warnings.append(
            ExecutionWarning(
                location,
                f"'{op}' reads {count} of the {ref.layout.nbytes} bytes of operand '{operand}' "
                f"({ref.storage.label} [{start}, {start + ref.layout.nbytes})) that were never written "
                f"(they hold the poison pattern)",
            )
        )

    # -- compiling ----------------------------------------------------------------

    def _compile_function(self, name: str, op: ir.Operation) -> _Function:
        region = op.regions[0]
        blocks = list(region.blocks)
        if not blocks:
            return _Function(name, op.location, [], None)
        compiler = _Compiler(self)
        arg_slots = [compiler.define(a) for a in blocks[0].arguments]
        if len(blocks) != 1:
            raise InterpreterError(op.location, f"@{name} has {len(blocks)} blocks; the interpreter runs structured control flow (scf) only")
        try:
            body = compiler.block(blocks[0], ("func.return",))
        except RecursionError:
            raise InterpreterError(op.location, f"@{name} is nested too deeply for the interpreter") from None
        return _Function(name, op.location, arg_slots, body, compiler.template)

    def new_key(self) -> int:
        self._next_key += 1
        return self._next_key


def _same_dtype_fault(op: str, a: str, b: str) -> OpFault:
    return OpFault(f"element types differ ({a} and {b}); '{op}' needs equal element types")


class _Compiler:
    """Compiles the ops of one function into closures over frame slots."""

    def __init__(self, interp: Interpreter) -> None:
        self.interp = interp
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

    def block(self, block: ir.Block, terminators: tuple[str, ...]) -> _Block:
        code: list[Instr] = []
        ops = list(block.operations)
        yields: list[int] = []
        for i, view in enumerate(ops):
            op = view.operation
            if i == len(ops) - 1 and op.name in terminators:
                yields = self.uses(op)
                break
            instr = self.op(op)
            if instr is not None:
                code.append(instr)
        return _Block(code, yields)

    def region_block(self, region: ir.Region, op: ir.Operation) -> _Block | None:
        blocks = list(region.blocks)
        if not blocks:
            return None
        if len(blocks) != 1:
            raise InterpreterError(op.location, f"'{op.name}' has a region of {len(blocks)} blocks; expected one")
        return self.block(blocks[0], ("scf.yield",))

    def op(self, op: ir.Operation) -> Instr | None:
        name = op.name
        if name in CATALOGUE:
            return _guard(op, PTO_COMPILERS[name](self, op))
        compile_fn = OTHER_COMPILERS.get(name)
        if compile_fn is None:
            raise InterpreterError(
                op.location,
                f"cannot execute '{name}': the interpreter runs pto, func, scf and arith ops, and does not know this one",
            )
        return compile_fn(self, op)


def _guard(op: ir.Operation, fn: Instr | None) -> Instr | None:
    """Turn an OpFault raised by `fn` into an InterpreterError at `op`."""
    if fn is None:
        return None
    location = op.location
    name = op.name

    def run(frame: Frame) -> None:
        try:
            fn(frame)
        except OpFault as e:
            raise InterpreterError(location, f"'{name}': {e}") from None

    return run


# --- pto ops -------------------------------------------------------------------------


def _tile_of(op: ir.Operation, index: int):
    t = tile_type(op.operands[index].type)
    if t is None:
        raise InterpreterError(op.location, f"'{op.name}' operand #{index} is not a !pto.tile_buf")
    return t


def _compile_alloc(c: _Compiler, op: ir.Operation, view, make) -> Instr:
    """An alloc: `make(key, view, addr)` builds its buffer (addr None: the
    op's private buffer)."""
    key = c.interp.new_key()
    result = c.define(op.results[0])
    if len(op.operands):
        addr = c.use(op.operands[0], op)
        return lambda frame: frame.__setitem__(result, make(key, view, frame[addr]))
    return lambda frame: frame.__setitem__(result, make(key, view, None))


def _compile_alloc_tile(c: _Compiler, op: ir.Operation) -> Instr:
    return _compile_alloc(c, op, tile_type(op.results[0].type), c.interp.memory.tile)


def _compile_alloc_multi_tile(c: _Compiler, op: ir.Operation) -> Instr:
    return _compile_alloc(c, op, multi_tile_type(op.results[0].type), c.interp.memory.multi_tile)


def _compile_multi_tile_get(c: _Compiler, op: ir.Operation) -> Instr:
    mb, slot = c.uses(op)
    result = c.define(op.results[0])

    def run(frame: Frame) -> None:
        frame[result] = frame[mb].slot(frame[slot])

    return run


class _TileOp:
    """What every data-moving pto op closure shares: reading tiles (with
    the never-written check) and recording trace events."""

    def __init__(self, c: _Compiler, op: ir.Operation) -> None:
        self.interp = c.interp
        self.key = c.interp.new_key()
        self.name = op.name
        self.location = op.location
        self.spec = CATALOGUE[op.name]
        self.pipe = self.spec.pipe.value
        self.where = where(op.location)  # once: traces record it per execution
        self.slots = c.uses(op)

    def read(self, ref: TileRef, operand: str) -> np.ndarray:
        if not isinstance(ref, TileRef):
            raise OpFault(f"operand '{operand}' is not a tile")
        missing = ref.unwritten_bytes()
        if missing:
            self.interp._warn_unwritten(self.key, self.location, self.name, operand, ref, missing)
        return ref.stored()

    def target(self, ref, operand: str) -> TileRef:
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


def _global(value, operand: str) -> GlobalBuffer:
    if not isinstance(value, GlobalBuffer):
        raise OpFault(f"operand '{operand}' is not a memref argument of the executed function")
    return value


def _compile_tload(c: _Compiler, op: ir.Operation) -> Instr:
    t = _TileOp(c, op)
    src, row, col, dst = t.slots

    def run(frame: Frame) -> None:
        g = _global(frame[src], "src")
        d = t.target(frame[dst], "dst")
        layout = d.layout
        if g.dtype != layout.dtype:
            raise _same_dtype_fault(t.name, g.dtype, layout.dtype)
        r, k = frame[row], frame[col]
        rows, cols = layout.shape
        d.store(g.block(r, k, rows, cols))
        if t.interp.trace is not None:
            t.record(frame, layout.elements)

    return run


def _compile_tstore(c: _Compiler, op: ir.Operation) -> Instr:
    t = _TileOp(c, op)
    src, dst, row, col = t.slots

    def run(frame: Frame) -> None:
        s = t.target(frame[src], "src")
        g = _global(frame[dst], "dst")
        layout = s.layout
        if g.dtype != layout.dtype:
            raise _same_dtype_fault(t.name, layout.dtype, g.dtype)
        r, k = frame[row], frame[col]
        rows, cols = layout.shape
        block = g.block(r, k, rows, cols)
        block[...] = t.read(s, "src")
        g.written = True
        if t.interp.trace is not None:
            t.record(frame, layout.elements)

    return run


def _compile_binary(c: _Compiler, op: ir.Operation) -> Instr:
    t = _TileOp(c, op)
    a, b, dst = t.slots
    name = t.name

    def run(frame: Frame) -> None:
        ra, rb, rd = t.target(frame[a], "a"), t.target(frame[b], "b"), t.target(frame[dst], "dst")
        dtype = rd.layout.dtype
        if ra.layout.dtype != dtype or rb.layout.dtype != dtype:
            raise _same_dtype_fault(name, ra.layout.dtype, rb.layout.dtype if ra.layout.dtype == dtype else dtype)
        va = to_compute(dtype, t.read(ra, "a"))
        vb = to_compute(dtype, t.read(rb, "b"))
        rd.store(to_storage(dtype, tile_ops.binary(name, dtype, va, vb)))
        if t.interp.trace is not None:
            t.record(frame, rd.layout.elements)

    return run


def _compile_with_scalar(c: _Compiler, op: ir.Operation) -> Instr:
    t = _TileOp(c, op)
    a, s, dst = t.slots
    name = t.name

    def run(frame: Frame) -> None:
        ra, rd = t.target(frame[a], "a"), t.target(frame[dst], "dst")
        dtype = rd.layout.dtype
        if ra.layout.dtype != dtype:
            raise _same_dtype_fault(name, ra.layout.dtype, dtype)
        va = to_compute(dtype, t.read(ra, "a"))
        rd.store(to_storage(dtype, tile_ops.with_scalar(name, dtype, va, frame[s])))
        if t.interp.trace is not None:
            t.record(frame, rd.layout.elements)

    return run


def _compile_unary(c: _Compiler, op: ir.Operation) -> Instr:
    t = _TileOp(c, op)
    a, dst = t.slots
    name = t.name

    def run(frame: Frame) -> None:
        ra, rd = t.target(frame[a], "a"), t.target(frame[dst], "dst")
        dtype = rd.layout.dtype
        if ra.layout.dtype != dtype:
            raise _same_dtype_fault(name, ra.layout.dtype, dtype)
        va = to_compute(dtype, t.read(ra, "a"))
        rd.store(to_storage(dtype, tile_ops.unary(name, dtype, va)))
        if t.interp.trace is not None:
            t.record(frame, rd.layout.elements)

    return run


def _check_same_shape(name: str, a: TileRef, b: TileRef) -> None:
    if a.layout.shape != b.layout.shape:
        raise OpFault(f"shapes differ ({a.layout.shape[0]}x{a.layout.shape[1]} and {b.layout.shape[0]}x{b.layout.shape[1]})")


def _compile_tcvt(c: _Compiler, op: ir.Operation) -> Instr:
    t = _TileOp(c, op)
    a, dst = t.slots

    def run(frame: Frame) -> None:
        ra, rd = t.target(frame[a], "a"), t.target(frame[dst], "dst")
        _check_same_shape(t.name, ra, rd)
        src, out = ra.layout.dtype, rd.layout.dtype
        va = to_compute(src, t.read(ra, "a"))
        rd.store(to_storage(out, tile_ops.cvt(src, out, va)))
        if t.interp.trace is not None:
            t.record(frame, rd.layout.elements)

    return run


def _compile_tmov(c: _Compiler, op: ir.Operation) -> Instr:
    t = _TileOp(c, op)
    src, dst = t.slots

    def run(frame: Frame) -> None:
        rs, rd = t.target(frame[src], "src"), t.target(frame[dst], "dst")
        _check_same_shape(t.name, rs, rd)
        if rs.layout.dtype != rd.layout.dtype:
            raise _same_dtype_fault(t.name, rs.layout.dtype, rd.layout.dtype)
        rd.store(t.read(rs, "src"))
        if t.interp.trace is not None:
            t.record(frame, rd.layout.elements)

    return run


def _compile_matmul(c: _Compiler, op: ir.Operation) -> Instr:
    t = _TileOp(c, op)
    lhs, rhs, dst = t.slots
    accumulate = t.name == "pto.tmatmul_acc"
    out_name = "acc" if accumulate else "dst"

    def run(frame: Frame) -> None:
        rl, rr, rd = t.target(frame[lhs], "lhs"), t.target(frame[rhs], "rhs"), t.target(frame[dst], out_name)
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
        if t.interp.trace is not None:
            t.record(frame, m * n, m * n * k)

    return run


PTO_COMPILERS: dict[str, Callable[[_Compiler, ir.Operation], Instr]] = {
    "pto.alloc_tile": _compile_alloc_tile,
    "pto.alloc_multi_tile": _compile_alloc_multi_tile,
    "pto.multi_tile_get": _compile_multi_tile_get,
    "pto.tload": _compile_tload,
    "pto.tstore": _compile_tstore,
    **{n: _compile_binary for n in tile_ops.BINARY_OPS},
    **{n: _compile_with_scalar for n in tile_ops.SCALAR_OPS},
    **{n: _compile_unary for n in tile_ops.UNARY_OPS},
    "pto.tcvt": _compile_tcvt,
    "pto.tmov": _compile_tmov,
    "pto.tmatmul": _compile_matmul,
    "pto.tmatmul_acc": _compile_matmul,
}


# --- arith ---------------------------------------------------------------------------


def _width(op: ir.Operation, value: ir.Value) -> int:
    w = scalars.int_width(value.type)
    if w is None:
        raise InterpreterError(op.location, f"'{op.name}' expects an integer or index type, got {value.type}")
    return w


def _float(op: ir.Operation, value: ir.Value) -> str:
    f = scalars.float_name(value.type)
    if f is None:
        raise InterpreterError(op.location, f"'{op.name}' on {value.type} is not supported (scalar floats: f16, bf16, f32, f64)")
    return f


def _compile_constant(c: _Compiler, op: ir.Operation) -> None:
    attr = op.attributes["value"]
    result = op.results[0]
    w = scalars.int_width(result.type)
    if w is not None and isinstance(attr, (ir.IntegerAttr, ir.BoolAttr)):
        value = scalars.wrap(int(attr.value), w)
    elif isinstance(attr, ir.FloatAttr) and scalars.float_name(result.type):
        value = scalars.round_float(attr.value, scalars.float_name(result.type))
    else:
        raise InterpreterError(op.location, f"arith.constant of type {result.type} is not supported (integers, index and scalar floats are)")
    slot = c.define(result)
    c.template[slot] = value  # SSA: the slot holds this value wherever it is read
    return None


def _compile_int_binary(c: _Compiler, op: ir.Operation) -> Instr:
    a, b = c.uses(op)
    w = _width(op, op.results[0])
    fn = scalars.INT_BINARY[op.name]
    result = c.define(op.results[0])
    wrap = scalars.wrap

    def run(frame: Frame) -> None:
        frame[result] = wrap(fn(frame[a], frame[b], w), w)

    return _guard(op, run)


def _compile_float_binary(c: _Compiler, op: ir.Operation) -> Instr:
    a, b = c.uses(op)
    f = _float(op, op.results[0])
    fn = scalars.FLOAT_BINARY[op.name]
    result = c.define(op.results[0])
    round_float = scalars.round_float

    def run(frame: Frame) -> None:
        frame[result] = round_float(fn(frame[a], frame[b]), f)

    return run


def _compile_negf(c: _Compiler, op: ir.Operation) -> Instr:
    (a,) = c.uses(op)
    _float(op, op.results[0])
    result = c.define(op.results[0])
    return lambda frame: frame.__setitem__(result, -frame[a])


def _compile_cmpi(c: _Compiler, op: ir.Operation) -> Instr:
    a, b = c.uses(op)
    w = _width(op, op.operands[0])
    predicate = op.attributes["predicate"].value
    try:
        fn = scalars.cmpi(predicate)
    except OpFault as e:
        raise InterpreterError(op.location, str(e)) from None
    signed_i1 = w == 1 and 2 <= predicate <= 5  # i1 true is -1 when signed
    result = c.define(op.results[0])

    def run(frame: Frame) -> None:
        x, y = frame[a], frame[b]
        if signed_i1:
            x, y = -x, -y
        frame[result] = 1 if fn(x, y, w) else 0

    return run


def _compile_select(c: _Compiler, op: ir.Operation) -> Instr:
    cond, a, b = c.uses(op)
    if scalars.int_width(op.operands[0].type) != 1:
        raise InterpreterError(op.location, "arith.select with a vector condition is not supported")
    result = c.define(op.results[0])

    def run(frame: Frame) -> None:
        frame[result] = frame[a] if frame[cond] else frame[b]

    return run


_SIGNED_CASTS = {"arith.index_cast": True, "arith.extsi": True, "arith.trunci": True, "arith.index_castui": False, "arith.extui": False}


def _compile_int_cast(c: _Compiler, op: ir.Operation) -> Instr:
    (a,) = c.uses(op)
    src, dst = _width(op, op.operands[0]), _width(op, op.results[0])
    signed = _SIGNED_CASTS[op.name]
    result = c.define(op.results[0])
    cast = scalars.cast_int

    def run(frame: Frame) -> None:
        frame[result] = cast(frame[a], src, dst, signed)

    return run


def _compile_int_to_float(c: _Compiler, op: ir.Operation) -> Instr:
    (a,) = c.uses(op)
    w = _width(op, op.operands[0])
    f = _float(op, op.results[0])
    signed = op.name == "arith.sitofp"
    result = c.define(op.results[0])

    def run(frame: Frame) -> None:
        v = frame[a] if signed else scalars.unsigned(frame[a], w)
        frame[result] = scalars.round_float(float(v), f)

    return run


def _compile_float_to_int(c: _Compiler, op: ir.Operation) -> Instr:
    (a,) = c.uses(op)
    _float(op, op.operands[0])
    w = _width(op, op.results[0])
    signed = op.name == "arith.fptosi"
    result = c.define(op.results[0])
    return lambda frame: frame.__setitem__(result, scalars.float_to_int(frame[a], w, signed))


def _compile_float_cast(c: _Compiler, op: ir.Operation) -> Instr:
    (a,) = c.uses(op)
    _float(op, op.operands[0])
    f = _float(op, op.results[0])
    result = c.define(op.results[0])
    return lambda frame: frame.__setitem__(result, scalars.round_float(frame[a], f))


# --- scf and func ----------------------------------------------------------------------


def _compile_for(c: _Compiler, op: ir.Operation) -> Instr:
    interp = c.interp
    operands = c.uses(op)
    lb, ub, step = operands[:3]
    inits = operands[3:]
    width = _width(op, op.operands[0])
    unsigned_cmp = "unsignedCmp" in op.attributes
    blocks = list(op.regions[0].blocks)
    if len(blocks) != 1:
        raise InterpreterError(op.location, "scf.for must have a body of one block")
    args = list(blocks[0].arguments)
    iv = c.define(args[0])
    iter_slots = [c.define(a) for a in args[1:]]
    body = c.block(blocks[0], ("scf.yield",))
    results = [c.define(r) for r in op.results]
    if len(body.yields) != len(iter_slots) or len(inits) != len(iter_slots) or len(results) != len(iter_slots):
        raise InterpreterError(op.location, "scf.for iter_args, yields and results do not match")
    code, yields, location = body.code, body.yields, op.location
    run_code = interp._run
    top = (1 << width) if unsigned_cmp else (1 << (width - 1))

    def run(frame: Frame) -> None:
        lo, hi, s = frame[lb], frame[ub], frame[step]
        if unsigned_cmp:
            lo, hi, s = scalars.unsigned(lo, width), scalars.unsigned(hi, width), scalars.unsigned(s, width)
        if s <= 0:
            raise InterpreterError(location, f"scf.for step must be positive, got {s}")
        values = [frame[i] for i in inits]
        i = lo
        while i < hi:
            frame[iv] = i if not unsigned_cmp else scalars.wrap(i, width)
            for slot, v in zip(iter_slots, values):
                frame[slot] = v
            run_code(code, frame, location)
            values = [frame[y] for y in yields]
            i += s
            if i >= top:  # the induction variable would overflow: the loop ends
                break
        for slot, v in zip(results, values):
            frame[slot] = v

    return run


def _compile_if(c: _Compiler, op: ir.Operation) -> Instr:
    interp = c.interp
    (cond,) = c.uses(op)
    then_block = c.region_block(op.regions[0], op)
    else_block = c.region_block(op.regions[1], op) if len(op.regions) > 1 else None
    results = [c.define(r) for r in op.results]
    empty = _Block([], [])
    then_block = then_block or empty
    else_block = else_block or empty
    for branch in (then_block, else_block):
        if results and len(branch.yields) != len(results):
            raise InterpreterError(op.location, "scf.if branches must yield one value per result")
    location = op.location
    run_code = interp._run

    def run(frame: Frame) -> None:
        branch = then_block if frame[cond] else else_block
        run_code(branch.code, frame, location)
        for slot, y in zip(results, branch.yields):
            frame[slot] = frame[y]

    return run


def _compile_call(c: _Compiler, op: ir.Operation) -> Instr:
    interp = c.interp
    callee = op.attributes["callee"].value
    args = c.uses(op)
    results = [c.define(r) for r in op.results]
    location = op.location

    def run(frame: Frame) -> None:
        values = interp.call(callee, [frame[a] for a in args], location)
        if len(values) != len(results):
            raise InterpreterError(location, f"@{callee} returned {len(values)} values, the call expects {len(results)}")
        for slot, v in zip(results, values):
            frame[slot] = v

    return run


OTHER_COMPILERS: dict[str, Callable[[_Compiler, ir.Operation], Instr | None]] = {
    "arith.constant": _compile_constant,
    **{n: _compile_int_binary for n in scalars.INT_BINARY},
    **{n: _compile_float_binary for n in scalars.FLOAT_BINARY},
    "arith.negf": _compile_negf,
    "arith.cmpi": _compile_cmpi,
    "arith.select": _compile_select,
    **{n: _compile_int_cast for n in _SIGNED_CASTS},
    "arith.sitofp": _compile_int_to_float,
    "arith.uitofp": _compile_int_to_float,
    "arith.fptosi": _compile_float_to_int,
    "arith.fptoui": _compile_float_to_int,
    "arith.extf": _compile_float_cast,
    "arith.truncf": _compile_float_cast,
    "scf.for": _compile_for,
    "scf.if": _compile_if,
    "func.call": _compile_call,
}

SUPPORTED_OPS = frozenset(PTO_COMPILERS) | frozenset(OTHER_COMPILERS) | {"func.return", "scf.yield"}
"""Every op name the interpreter executes."""
