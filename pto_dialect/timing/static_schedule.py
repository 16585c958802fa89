"""A static pipe schedule of a loop body: what `pto-run --cycles` finds in
the steady state of an `scf.for`, from the IR alone (issue 15).

    from pto_dialect.timing.static_schedule import loop_schedule
    s = loop_schedule(loop_op)            # an scf.for of a parsed module
    s.cycles_per_iteration, s.per_pipe_busy, s.bound_pipe
    print(s.format()); print(s.explain())

The body's ops, in program order, become the events the interpreter's trace
would hold for them, built from the IR instead of from a run: per op its
pipe (the catalogue's), the byte ranges it reads and writes per buffer (as
`interpreter.trace.Access`es, computed exactly as the interpreter computes
them) and its MACs. They are repeated iteration after iteration and placed
on the pipes by `schedule.schedule`, the very function behind
`pto-run --cycles`: the same costs (`costs`), the same in-order pipes and
the same byte-range RAW/WAR/WAW dependences (`dependences`). The body is
unrolled until the iteration end times become periodic (the steady state
of the max-plus system the schedule is), and the cycles per iteration are
the period's cycles over its iterations.

What is known statically is evaluated: integer `arith` on constants, the
induction variable (iteration k has `iv = lb + k * step`), iter_args,
nested `scf.for` loops with known bounds (unrolled) and `scf.if` with a
known condition. An integer the IR does not fix (a scalar argument not
given in `values`, `pto.tgetval`, an unknown loop bound) is an unknown
`const + sum(coeff * symbol)`; a nonlinear expression of unknowns is a
fresh symbol named by the expression, so equal expressions are equal.

The rules for what the IR leaves open:

- Tile buffers: an alloc with a known `addr` is its bytes of its memory
  space; without one (or with an unknown addr) its own private buffer, the
  same bytes in every iteration; a `multi_tile_buf` slot k lies at
  `base + k * stride` (stride: `MultiTileBufType.stride`). Alias views
  (`multi_tile_get`, `subview`, `treshape`) are followed as the
  interpreter follows them.
- The slot of `pto.multi_tile_get` is its evaluated index (`iv mod N`,
  `((iv - lb) / step) mod N`: exact when lb and step are known); when it
  is unknown, iteration k uses slot `k mod N`.
- Valid shapes: the known valid_row/valid_col (operands or type); an
  unknown one is the tile's full shape (so are bytes and MACs).
- Global memory: a tload/tstore of a partition touches the partition's
  bytes of the root pointer (or tensor view argument) it derives from. With
  known offsets and strides these are the interpreter's exact ranges. With
  unknown ones, the unknown part of the byte offset names the range: equal
  offset expressions touch the same bytes, offsets that differ by a known
  constant are compared exactly, and offsets with different unknown parts
  are assumed not to overlap (no false dependences). An offset that depends
  on the induction variable is thus distinct per iteration, a loop-invariant
  one the same in every iteration.
- Ops with data-dependent control flow are refused: an `scf.if` whose
  condition, or an inner `scf.for` whose bounds, are not known
  (StaticScheduleError). So are calls and pto ops without semantics.

A model of the model: it agrees with `--cycles` exactly when every value
is known (the same events, hence the same schedule); see
test/python/test_static_schedule.py for the measured agreement.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from mlir import ir

from ..analysis.loop_index import UNSIGNED, iteration_values, read_int, type_width
from ..dialect.allocs import alloc_operands
from ..dialect.annotations import ArchError, resolve_arch
from ..dialect.effects import CATALOGUE, SYNTAX_OPS
from ..dialect.ops import op_def
from ..dialect.targets import space_spec
from ..dialect.types import DTYPE_BYTES, DYNAMIC, MultiTileBufType, PtrType, ViewType, multi_tile_type, pto_type, tile_type
from ..interpreter import scalars
from ..interpreter.denotations import Arith, alloc_valid, partition_offset, slot_offset, subview_valid, window_offset
from ..interpreter.errors import OpFault
from ..interpreter.memory import TileLayout, reshaped_valid, row_major_strides, tile_layout
from ..interpreter.trace import Access, TraceEvent, block_accesses, op_shape
from ..support.diagnostics import location_text
from .costs import CostTable, cost_table
from .schedule import PIPE_NAMES, Schedule, ScheduledOp, schedule

__all__ = [
    "GM_BIAS",
    "LoopSchedule",
    "StaticEvent",
    "SlotTimer",
    "StaticScheduleError",
    "loop_schedule",
    "measured_cycles_per_iteration",
    "measured_iteration_ends",
    "scf_loops",
    "trace_iterations",
]

GM_BIAS = 1 << 48
"""Added to every global-memory byte offset of a static event, so that
offsets with a negative known part (an unknown base minus a constant) stay
inside the dependence tracker's address range."""

DEFAULT_MAX_ITERATIONS = 1024
"""How far `loop_schedule` unrolls at most while looking for the steady state."""

MAX_EVENTS = 400_000
"""How many events the unrolled schedule may hold (nested loops multiply them)."""

_FIRST_UNROLL = 32


class StaticScheduleError(ValueError):
    """A loop the static model cannot schedule (data-dependent control
    flow, an op without semantics, ...); `location` names the op."""

    def __init__(self, location: ir.Location | None, message: str) -> None:
        where = location_text(location) if location is not None else ""
        super().__init__(f"{where}: {message}" if where else message)
        self.location = location
        self.message = message


# --- integers the IR does not fix ---------------------------------------------------------


@dataclass(frozen=True)
class Unknown:
    """An integer known up to symbols: const + sum(coeff * symbol)."""

    const: int
    terms: tuple[tuple[int, int], ...]  # (symbol, coefficient), sorted by symbol, no zero coefficient

    def describe(self, names: Mapping[int, str]) -> str:
        parts = [f"{c}*{names.get(s, f's{s}')}" if c != 1 else names.get(s, f"s{s}") for s, c in self.terms]
        if self.const or not parts:
            parts.append(str(self.const))
        return " + ".join(parts)


def _linear(const: int, terms: dict[int, int]) -> int | Unknown:
    kept = tuple(sorted((s, c) for s, c in terms.items() if c))
    return Unknown(const, kept) if kept else const


def _parts(x: int | Unknown) -> tuple[int, dict[int, int]]:
    if isinstance(x, Unknown):
        return x.const, dict(x.terms)
    return x, {}


def _add(a: int | Unknown, b: int | Unknown, sign: int = 1) -> int | Unknown:
    ca, ta = _parts(a)
    cb, tb = _parts(b)
    for s, c in tb.items():
        ta[s] = ta.get(s, 0) + sign * c
    return _linear(ca + sign * cb, ta)


def _scale(a: int | Unknown, k: int) -> int | Unknown:
    c, t = _parts(a)
    return _linear(c * k, {s: v * k for s, v in t.items()})


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_scalar(x) -> bool:
    return _is_int(x) or isinstance(x, Unknown)


# --- buffers ----------------------------------------------------------------------------------


class _Tile:
    """A tile as the interpreter's TileRef sees it: element (0, 0) at byte
    `offset` of `storage` (a space name or a private buffer's label)."""

    __slots__ = ("storage", "offset", "layout", "strides", "valid", "slot")

    def __init__(self, storage: str, offset: int, layout: TileLayout, valid, slot=None, strides=None) -> None:
        self.storage = storage
        self.offset = offset
        self.layout = layout
        self.strides = strides or layout.strides
        self.valid = valid
        self.slot = slot

    def accesses(self, rows: int | None = None, cols: int | None = None) -> tuple[Access, ...]:
        vr, vc = self.valid
        rows = vr if rows is None else rows
        cols = vc if cols is None else cols
        return block_accesses(self.storage, self.offset, (rows, cols), self.strides, self.layout.itemsize, self.slot)


@dataclass
class _Multi:
    storage: str
    base: int
    stride: int
    count: int
    layout: TileLayout
    valid: tuple[int, int]


@dataclass(frozen=True)
class _Root:
    """A global-memory buffer: a pointer (or tensor view) argument."""

    label: str


@dataclass(frozen=True)
class _View:
    """A tensor view or partition: `shape` elements of `root` from element
    `offset`, `strides` elements apart (None: a size not known)."""

    root: str
    offset: int | Unknown
    shape: tuple[int | None, ...]
    strides: tuple[int | Unknown, ...]
    itemsize: int


# --- the events -------------------------------------------------------------------------------


@dataclass(frozen=True)
class StaticEvent:
    """One op of one unrolled iteration, where the schedule put it."""

    iteration: int
    index: int  # its position among the iteration's events
    event: TraceEvent  # what it reads and writes, as a trace event
    start: int
    end: int

    @property
    def op(self) -> str:
        return self.event.op

    @property
    def pipe(self) -> str:
        return self.event.pipe

    @property
    def duration(self) -> int:
        return self.end - self.start


def _describe_access(a: Access) -> str:
    start, stop = a.start, a.stop
    label = a.buffer
    if start >= GM_BIAS // 2:  # a global-memory range: show it without the bias
        start, stop = start - GM_BIAS, stop - GM_BIAS
    span = f"[{start}, {stop})" if a.rows == 1 else f"[{start}, {stop}) x{a.rows} pitch {a.pitch}"
    slot = f" slot {a.slot}" if a.slot is not None else ""
    return f"{label} {span}{slot}"


@dataclass
class LoopSchedule:
    """The static schedule of one `scf.for`: `iterations` unrolled
    iterations placed on the pipes, and their steady state.

    `cycles_per_iteration` is the steady state's cycles per iteration
    (`period` iterations repeat every `period * cycles_per_iteration`
    cycles from iteration `steady_from` on); `per_pipe_busy` the cycles
    each pipe runs per iteration in it. `converged` is False when no
    periodic regime was found within the unrolled iterations (then the
    figures are the average of the second half)."""

    arch: str
    location: str
    trip_count: int | None  # when the bounds are known
    iterations: int  # unrolled
    events: list[StaticEvent]
    iteration_ends: list[int]  # when the last op of iteration k ends
    cycles_per_iteration: float
    period: int
    steady_from: int
    converged: bool
    per_pipe_busy: dict[str, float]  # every pipe, in PIPE_NAMES order
    per_pipe_ops: dict[str, float]
    schedule: Schedule  # of all unrolled events
    notes: list[str] = field(default_factory=list)  # the assumptions made

    @property
    def bound_pipe(self) -> str:
        return max(self.per_pipe_busy, key=lambda p: self.per_pipe_busy[p])

    @property
    def bound(self) -> float:
        """The busiest pipe's cycles per iteration: a lower bound of
        `cycles_per_iteration`."""
        return self.per_pipe_busy[self.bound_pipe]

    @property
    def efficiency(self) -> float | None:
        return self.bound / self.cycles_per_iteration if self.cycles_per_iteration else None

    def body(self, iteration: int | None = None) -> list[StaticEvent]:
        """The events of one iteration (default: the first of the steady state)."""
        k = self.steady_from if iteration is None else iteration
        return [e for e in self.events if e.iteration == k]

    def cycles(self, trips: int) -> float:
        """Cycles of `trips` iterations from idle pipes and empty buffers:
        the schedule's when unrolled that far, else extrapolated."""
        if trips <= 0:
            return 0
        ends = self.iteration_ends
        if trips <= len(ends):
            return max(ends[:trips])
        return max(ends) + (trips - len(ends)) * self.cycles_per_iteration

    def format(self) -> str:
        """A summary in the spirit of `pto-run --cycles`."""
        trips = f"{self.trip_count} iterations" if self.trip_count is not None else "trip count not known statically"
        state = (
            f"steady from iteration {self.steady_from}, period {self.period}"
            if self.converged
            else f"no periodic steady state within {self.iterations} iterations (average of the second half)"
        )
        lines = [
            f"loop at {self.location}: {trips}; {state}",
            f"cycles per iteration: {self.cycles_per_iteration:g}",
            "  pipe   ops/iter  busy/iter  utilisation",
        ]
        for pipe in PIPE_NAMES:
            busy = self.per_pipe_busy[pipe]
            util = f"{100 * busy / self.cycles_per_iteration:.1f}%" if self.cycles_per_iteration else "-"
            lines.append(f"  {pipe:<4} {self.per_pipe_ops[pipe]:>10g} {busy:>10g}  {util:>11}")
        if self.cycles_per_iteration:
            lines.append(f"  lower bound: {self.bound:g} ({self.bound_pipe}, the busiest pipe)")
            lines.append(f"  efficiency: {100 * self.efficiency:.1f}% (lower bound / cycles per iteration)")
        if self.trip_count is not None:
            lines.append(f"  predicted loop cycles ({self.trip_count} iterations from idle): {self.cycles(self.trip_count):g}")
        lines.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(lines)

    def explain(self, first: int | None = None, count: int | None = None) -> str:
        """The events of iterations [first, first + count) (default: one
        period of the steady state): per op its pipe, cycles, start and end,
        location and the byte ranges it reads and writes."""
        first = self.steady_from if first is None else first
        count = self.period if count is None else count
        lines = ["iter  #  op                   pipe  cycles   start     end  location"]
        for e in self.events:
            if not first <= e.iteration < first + count:
                continue
            lines.append(f"{e.iteration:>4} {e.index:>2}  {e.op:<20} {e.pipe:<4} {e.duration:>7} {e.start:>7} {e.end:>7}  {e.event.location}")
            for a in e.event.reads:
                lines.append(f"          reads  {_describe_access(a)}")
            for a in e.event.writes:
                lines.append(f"          writes {_describe_access(a)}")
        return "\n".join(lines)


# --- evaluating the IR ------------------------------------------------------------------------

_SIGNED_CASTS = {"arith.index_cast": True, "arith.extsi": True, "arith.trunci": True, "arith.index_castui": False, "arith.extui": False}


def _ptoas_name(name: str) -> str:
    d = op_def(name)
    return d.full_name if d is not None else name


def _operation(op) -> ir.Operation:
    return op.operation if isinstance(op, ir.OpView) else op


class _Evaluator:
    """Runs the loop body over the IR, building trace events instead of
    computing data."""

    def __init__(
        self,
        loop: ir.Operation,
        arch: str,
        func: ir.Operation | None,
        values: Mapping[int, object],
    ) -> None:
        self.loop = loop
        self.arch = arch
        self.func = func
        self.values = values  # function argument index -> given value
        self.env: dict[ir.Value, object] = {}
        self.symbols: dict[tuple, int] = {}
        self.names: dict[int, str] = {}
        self.private: dict[ir.Operation, str] = {}
        self.where: dict[ir.Operation, str] = {}
        self.notes: dict[str, None] = {}
        self.iteration = 0
        self.events: list[tuple[int, TraceEvent]] = []
        self.fresh = 0
        self.alive: list = []
        body = loop.regions[0].blocks[0]
        self.body = body
        self.iv = body.arguments[0]
        self.iter_args = list(body.arguments)[1:]
        lb, ub, step = (self.value(loop.operands[i]) for i in range(3))
        self.lb, self.ub, self.step = lb, ub, step
        # the induction variable's width and the loop's comparison (docs/dialect.md: loops as MLIR defines them)
        self.width, self.unsigned = type_width(loop.operands[0].type), UNSIGNED in loop.attributes
        self.carried = [self.value(v) for v in list(loop.operands)[3:]]
        if _is_int(step) and read_int(step, self.width, self.unsigned) <= 0:
            raise StaticScheduleError(loop.location, f"the loop's step is {step}; scf.for steps must be positive")

    # -- scalars --

    def symbol(self, key: tuple, name: str) -> Unknown:
        s = self.symbols.get(key)
        if s is None:
            s = self.symbols[key] = len(self.symbols)
            self.names[s] = name
        return Unknown(0, ((s, 1),))

    def fresh_symbol(self, name: str) -> Unknown:
        """A symbol equal to no other (a datum, a result the model does not follow)."""
        self.fresh += 1
        return self.symbol(("fresh", self.fresh), name)

    def _form(self, x) -> tuple:
        if _is_int(x) or isinstance(x, float):
            return ("k", x)
        if isinstance(x, Unknown):
            return ("u", x.const, x.terms)
        self.alive.append(x)  # its id names it in symbol keys: keep it alive
        return ("o", id(x))

    def opaque(self, op: ir.Operation, index: int, operands: list) -> Unknown:
        key = (op.name, str(op.attributes), index, tuple(self._form(x) for x in operands))
        return self.symbol(key, f"{op.name.split('.')[-1]}@{self.location(op)}")

    def note(self, text: str) -> None:
        self.notes[text] = None

    def location(self, op: ir.Operation) -> str:
        op = _operation(op)
        text = self.where.get(op)
        if text is None:
            text = self.where[op] = location_text(op.location)
        return text

    def int_of(self, v: ir.Value) -> int | None:
        x = self.value(v)
        return x if _is_int(x) else None

    # -- values defined outside the loop, evaluated on demand --

    def value(self, v: ir.Value):
        try:
            return self.env[v]
        except KeyError:
            pass
        if isinstance(v, ir.BlockArgument):
            x = self.block_argument(v)
            self.env[v] = x
            return x
        op = _operation(v.owner)
        self.run_outside(op)
        return self.env[v]

    def block_argument(self, v: ir.BlockArgument):
        owner = v.owner.owner
        owner = _operation(owner) if owner is not None else None
        if owner is not None and owner.name == "func.func" and owner == self.func:
            return self.function_argument(v.arg_number, v.type)
        return self.fresh_symbol(f"%arg{v.arg_number}@{owner.name if owner else '?'}")  # memoised in env

    def function_argument(self, k: int, t: ir.Type):
        given = self.values.get(k)
        view = pto_type(t)
        if isinstance(view, PtrType) or "memref" in str(t):
            return _Root(f"gm{k}")
        if isinstance(view, ViewType):
            shape = tuple(view.shape)
            if isinstance(given, tuple):
                shape = tuple(given)
            size = _dtype_bytes(view.dtype)
            known = tuple(d if d != DYNAMIC else None for d in shape)
            if None in known:
                strides = tuple(self.symbol(("stride", k, i), f"stride{i}(arg{k})") for i in range(len(known)))
            else:
                strides = row_major_strides(known)
            return _View(f"gm{k}", 0, known, strides, size)
        if tile_type(t) is not None:
            return self.tile_from_type(f"arg{k}", tile_type(t))
        if _is_int(given):
            return given
        return self.symbol(("arg", k), f"arg{k}")

    def run_outside(self, op: ir.Operation) -> None:
        """Evaluate an op before (or around) the loop for its results: no
        events; region ops and pipe ops give unknown results."""
        name = op.name
        spec = CATALOGUE.get(name)
        if len(op.regions) or (spec is not None and spec.pipe is not None):
            for r in op.results:
                self.env[r] = self.fresh_symbol(f"{name}@{self.location(op)}")
            return
        self.run_op(op)

    # -- running --

    def run_block(self, block: ir.Block) -> list:
        for op in block.operations:
            op = _operation(op)
            if op.name == "scf.yield":
                return [self.value(x) for x in op.operands]
            self.run_op(op)
        return []

    def run_iteration(self) -> None:
        k = self.iteration
        iv = _add(self.lb, _scale(self.step, k))
        self.env[self.iv] = scalars.wrap(iv, self.width) if _is_int(iv) else iv
        for arg, x in zip(self.iter_args, self.carried):
            self.env[arg] = x
        yields = self.run_block(self.body)
        if len(yields) == len(self.carried):
            self.carried = yields
        self.iteration += 1

    def run_op(self, op: ir.Operation) -> None:
        name = op.name
        if name.startswith("arith."):
            self.run_arith(op)
            return
        if name == "scf.for":
            self.run_for(op)
            return
        if name == "scf.if":
            self.run_if(op)
            return
        if name in ("func.call", "func.call_indirect"):
            raise StaticScheduleError(op.location, f"'{name}' in the loop: calls are not modelled statically")
        spec = CATALOGUE.get(name)
        if spec is None:
            if name in SYNTAX_OPS:
                raise StaticScheduleError(op.location, f"'{_ptoas_name(name)}' has no semantics in pto-run; the static model cannot time it")
            for i, r in enumerate(op.results):
                self.env[r] = self.opaque(op, i, [self.value(x) for x in op.operands])
            return
        handler = _PTO_HANDLERS.get(name)
        if handler is not None:
            handler(self, op)
        elif spec.pipe is not None:
            _pipe_op(self, op, spec)
        else:  # tgetval, load_scalar (their results are data), tsetval, store_scalar: no event, as in the interpreter
            for r in op.results:
                self.env[r] = self.fresh_symbol(f"{name}@{self.location(op)}")

    def run_for(self, op: ir.Operation) -> None:
        lb, ub, step = (self.value(op.operands[i]) for i in range(3))
        if not (_is_int(lb) and _is_int(ub) and _is_int(step)):
            raise StaticScheduleError(
                op.location, "the bounds of this inner scf.for are not known statically (data-dependent control flow, or arguments not given in `values`)"
            )
        width = type_width(op.operands[0].type)
        induction = iteration_values(lb, ub, step, width, UNSIGNED in op.attributes)
        if induction is None:
            raise StaticScheduleError(op.location, f"the step of this scf.for is {step}; steps must be positive")
        block = op.regions[0].blocks[0]
        args = list(block.arguments)
        values = [self.value(v) for v in list(op.operands)[3:]]
        for i in induction:
            self.env[args[0]] = scalars.wrap(i, width)
            for a, x in zip(args[1:], values):
                self.env[a] = x
            values = self.run_block(block) or values
            if len(self.events) > MAX_EVENTS:
                raise StaticScheduleError(op.location, f"more than {MAX_EVENTS} events: the inner loops are too long to unroll")
        for r, x in zip(op.results, values):
            self.env[r] = x

    def run_if(self, op: ir.Operation) -> None:
        cond = self.value(op.operands[0])
        if not _is_int(cond):
            raise StaticScheduleError(
                op.location, "the condition of this scf.if is not known statically (data-dependent control flow, or arguments not given in `values`)"
            )
        region = op.regions[0] if cond else (op.regions[1] if len(op.regions) > 1 else None)
        yields = []
        if region is not None and len(region.blocks):
            yields = self.run_block(region.blocks[0])
        for r, x in zip(op.results, yields):
            self.env[r] = x

    def run_arith(self, op: ir.Operation) -> None:
        name = op.name
        operands = [self.value(x) for x in op.operands]
        result = op.results[0] if len(op.results) else None
        if result is None:
            return
        out = None
        width = scalars.int_width(result.type)
        if name == "arith.constant":
            attr = op.attributes["value"]
            if width is not None and isinstance(attr, (ir.IntegerAttr, ir.BoolAttr)):
                out = scalars.wrap(int(attr.value), width)
            elif isinstance(attr, ir.FloatAttr):
                out = float(attr.value)
        elif name in scalars.INT_BINARY and width is not None and len(operands) == 2:
            a, b = operands
            if _is_int(a) and _is_int(b):
                try:
                    out = scalars.wrap(scalars.INT_BINARY[name](a, b, width), width)
                except OpFault:
                    out = None
            elif _is_scalar(a) and _is_scalar(b):
                if name == "arith.addi":
                    out = _add(a, b)
                elif name == "arith.subi":
                    out = _add(a, b, -1)
                elif name == "arith.muli" and (_is_int(a) or _is_int(b)):
                    out = _scale(b, a) if _is_int(a) else _scale(a, b)
        elif name == "arith.cmpi" and len(operands) == 2 and all(_is_scalar(x) for x in operands):
            predicate = op.attributes["predicate"].value
            w = scalars.int_width(op.operands[0].type) or 64
            a, b = operands
            if _is_int(a) and _is_int(b):
                if w == 1 and 2 <= predicate <= 5:
                    a, b = -a, -b
                out = 1 if scalars.cmpi(predicate)(a, b, w) else 0
            elif predicate <= 5:  # eq, ne and the signed orders depend on a - b only
                d = _add(a, b, -1)
                if _is_int(d):
                    out = 1 if scalars.cmpi(predicate)(d, 0, 64) else 0
        elif name == "arith.select" and len(operands) == 3:
            cond, a, b = operands
            if _is_int(cond):
                out = a if cond else b
            elif self._form(a) == self._form(b):
                out = a
        elif name in _SIGNED_CASTS and len(operands) == 1:
            (a,) = operands
            src, dst = scalars.int_width(op.operands[0].type), width
            if _is_int(a) and src is not None and dst is not None:
                out = scalars.cast_int(a, src, dst, _SIGNED_CASTS[name])
            elif isinstance(a, Unknown):
                out = a  # truncation of an unknown is not modelled
        if out is None:
            out = self.opaque(op, 0, operands)
        self.env[result] = out

    # -- buffers --

    def private_label(self, op: ir.Operation, loc: str) -> str:
        label = self.private.get(op)
        if label is None:
            label = self.private[op] = f"{loc}#{len(self.private) + 1}"
        return label

    def layout_of(self, op, tile) -> TileLayout:
        try:
            return tile_layout(tile)
        except OpFault as e:
            raise StaticScheduleError(op.location, str(e)) from None

    def valid_of(self, op: ir.Operation, tile, rows_value, cols_value) -> tuple[int, int]:
        given = []
        for i, (static, operand) in enumerate(zip(tile.valid, (rows_value, cols_value))):
            x = self.value(operand) if static == DYNAMIC and operand is not None else None
            given.append(max(0, min(x, tile.shape[i])) if _is_int(x) else None)
            if static == DYNAMIC and given[i] is None:
                self.note(f"the valid {'rows' if i == 0 else 'columns'} of the tile at {self.location(op)} are not known statically: its full shape is assumed")
        return alloc_valid(tile.valid, given, unknown=tile.shape)

    def tile_from_type(self, label: str, tile) -> _Tile:
        layout = tile_layout(tile)
        valid = tuple(s if v == DYNAMIC else v for v, s in zip(tile.valid, tile.shape))
        return _Tile(label, 0, layout, valid)

    def addr_of(self, op: ir.Operation, addr_value) -> int | None:
        if addr_value is None:
            return None
        x = self.value(addr_value)
        if _is_int(x):
            return x
        self.note(f"the addr of the alloc at {self.location(op)} is not known statically: a private buffer is assumed")
        return None


def _dtype_bytes(dtype: str) -> int:
    return DTYPE_BYTES.get(dtype, 1)


# -- the pto ops that move no data: how their results are found --


def _alloc_tile(ev: _Evaluator, op: ir.Operation) -> None:
    tile = tile_type(op.results[0].type)
    operands = alloc_operands(op)
    layout = ev.layout_of(op, tile)
    valid = ev.valid_of(op, tile, operands.valid_row, operands.valid_col)
    addr = ev.addr_of(op, operands.addr)
    if addr is not None:
        ev.env[op.results[0]] = _Tile(tile.loc, addr, layout, valid)
    else:
        ev.env[op.results[0]] = _Tile(ev.private_label(op, tile.loc), 0, layout, valid)


def _alloc_multi_tile(ev: _Evaluator, op: ir.Operation) -> None:
    mb = multi_tile_type(op.results[0].type)
    operands = alloc_operands(op)
    layout = ev.layout_of(op, mb.slot)
    valid = ev.valid_of(op, mb.slot, operands.valid_row, operands.valid_col)
    stride = mb.stride(space_spec(ev.arch, mb.loc).alignment)
    addr = ev.addr_of(op, operands.addr)
    if addr is not None:
        ev.env[op.results[0]] = _Multi(mb.loc, addr, stride, mb.count, layout, valid)
    else:
        ev.env[op.results[0]] = _Multi(ev.private_label(op, mb.loc), 0, stride, mb.count, layout, valid)


def _operand(ev: _Evaluator, op: ir.Operation, name: str):
    index = CATALOGUE[op.name].layout(op).index(name)
    return None if index is None else op.operands[index]


def _multi_tile_get(ev: _Evaluator, op: ir.Operation) -> None:
    source = ev.value(_operand(ev, op, "source"))
    if not isinstance(source, _Multi):
        raise StaticScheduleError(op.location, "operand 'source' is not a multi-tile buffer the static model can follow")
    k = ev.value(_operand(ev, op, "slot"))
    if not _is_int(k):
        k = ev.iteration % source.count
        ev.note(f"the slot of the multi_tile_get at {ev.location(op)} is not known statically: iteration k uses slot k mod {source.count}")
    elif not 0 <= k < source.count:
        raise StaticScheduleError(op.location, f"slot {k} is out of range [0, {source.count})")
    ev.env[op.results[0]] = _Tile(source.storage, slot_offset(source.base, source.stride, k), source.layout, source.valid, k)


def _tile_operand(ev: _Evaluator, op: ir.Operation, name: str) -> _Tile:
    value = ev.value(_operand(ev, op, name))
    if not isinstance(value, _Tile):
        raise StaticScheduleError(op.location, f"operand '{name}' is not a tile the static model can follow")
    return value


def _subview(ev: _Evaluator, op: ir.Operation) -> None:
    layout = CATALOGUE[op.name].layout(op)
    src = _tile_operand(ev, op, "source")
    result_type = tile_type(op.results[0].type)
    offsets = [ev.value(op.operands[i]) for i in layout.span("offsets")]
    if len(offsets) != 2 or not all(_is_int(o) for o in offsets):
        ev.note(f"the offsets of the subview at {ev.location(op)} are not known statically: (0, 0) is assumed")
        offsets = [o if _is_int(o) else 0 for o in (offsets + [0, 0])[:2]]
    r0, c0 = offsets
    given = []
    for name in ("valid_row", "valid_col"):
        index = layout.index(name)
        x = ev.value(op.operands[index]) if index is not None else None
        given.append(x if _is_int(x) else None)
    region = subview_valid(result_type.shape, result_type.valid, given, src.valid, (r0, c0))
    offset = window_offset(src.offset, src.strides, (r0, c0))
    ev.env[op.results[0]] = _Tile(src.storage, offset, ev.layout_of(op, result_type), region, src.slot, src.strides)


def _treshape(ev: _Evaluator, op: ir.Operation) -> None:
    result_type = tile_type(op.results[0].type)
    if result_type is None:
        raise StaticScheduleError(op.location, "a treshape of a tensor view is not modelled")
    src = _tile_operand(ev, op, "src")
    layout = ev.layout_of(op, result_type)
    valid = reshaped_valid(result_type, layout, src.layout, src.valid)
    ev.env[op.results[0]] = _Tile(src.storage, src.offset, layout, valid, src.slot)


def _set_validshape(ev: _Evaluator, op: ir.Operation) -> None:
    ref = _tile_operand(ev, op, "source")
    rows, cols = ev.value(_operand(ev, op, "valid_row")), ev.value(_operand(ev, op, "valid_col"))
    shape = ref.layout.shape
    if not (_is_int(rows) and _is_int(cols)):
        ev.note(f"the valid shape set at {ev.location(op)} is not known statically: the full shape is assumed")
    ref.valid = (rows if _is_int(rows) else shape[0], cols if _is_int(cols) else shape[1])


def _make_tensor_view(ev: _Evaluator, op: ir.Operation) -> None:
    layout = CATALOGUE[op.name].layout(op)
    root = ev.value(op.operands[layout.index("ptr")])
    label = root.label if isinstance(root, _Root) else f"ptr?{ev._form(root)}"
    view = pto_type(op.results[0].type)
    shape = tuple(ev.value(op.operands[i]) for i in layout.span("shape"))
    strides = tuple(ev.value(op.operands[i]) for i in layout.span("strides"))
    shape = tuple(d if _is_int(d) else None for d in shape)
    strides = tuple(s if _is_scalar(s) else ev.opaque(op, 100 + i, [s]) for i, s in enumerate(strides))
    ev.env[op.results[0]] = _View(label, 0, shape, strides, _dtype_bytes(view.dtype))


def _partition_view(ev: _Evaluator, op: ir.Operation) -> None:
    layout = CATALOGUE[op.name].layout(op)
    src = ev.value(op.operands[layout.index("source")])
    if not isinstance(src, _View):
        raise StaticScheduleError(op.location, "operand 'source' is not a tensor view the static model can follow")
    offsets = [ev.value(op.operands[i]) for i in layout.span("offsets")]
    sizes = [ev.value(op.operands[i]) for i in layout.span("sizes")]
    view = pto_type(op.results[0].type)
    static = list(view.shape) if isinstance(view, ViewType) else [DYNAMIC] * len(sizes)
    shape = tuple(n if _is_int(n) else (d if d != DYNAMIC else None) for n, d in zip(sizes, static))
    offsets = [o if _is_scalar(o) else ev.opaque(op, 200 + i, [o]) for i, o in enumerate(offsets)]

    def mul(o, s):
        if _is_int(o) or _is_int(s):
            return _scale(s, o) if _is_int(o) else _scale(o, s)
        # unknown offset times unknown stride: a symbol of its own
        return ev.symbol(("mul", ev._form(o), ev._form(s)), f"({o.describe(ev.names)})*({s.describe(ev.names)})")

    offset = partition_offset(src.offset, offsets, src.strides, Arith(add=_add, mul=mul))
    ev.env[op.results[0]] = _View(src.root, offset, shape, src.strides, src.itemsize)


_PTO_HANDLERS = {
    "pto.alloc_tile": _alloc_tile,
    "pto.alloc_multi_tile": _alloc_multi_tile,
    "pto.multi_tile_get": _multi_tile_get,
    "pto.subview": _subview,
    "pto.treshape": _treshape,
    "pto.set_validshape": _set_validshape,
    "pto.make_tensor_view": _make_tensor_view,
    "pto.partition_view": _partition_view,
}


# -- the ops on pipes: their events --


def _view_accesses(ev: _Evaluator, op: ir.Operation, view: _View, tile: _Tile | None) -> tuple[Access, ...]:
    """The bytes a tload/tstore moves of a partition: the interpreter's
    ranges when everything is known; see the module docstring otherwise."""
    size = view.itemsize
    shape = view.shape
    if None in shape:
        if tile is None or len(shape) != 2:
            raise StaticScheduleError(op.location, "the partition's sizes are not known statically")
        shape = tuple(tile.valid)
        ev.note(f"the partition sizes at {ev.location(op)} are not known statically: the tile's valid shape is assumed")
    byte = _scale(view.offset, size)
    const, terms = _parts(byte)
    if terms:
        ev.note(
            f"the global-memory offset at {ev.location(op)} is not known statically: equal offset expressions are the same "
            "bytes, ones with other unknown parts are assumed not to overlap"
        )
    if all(_is_int(s) for s in view.strides):
        label = view.root if not terms else f"{view.root}+{_linear(0, terms).describe(ev.names)}"
        return block_accesses(label, GM_BIAS + const, tuple(shape), tuple(s * size for s in view.strides), size)
    # strides not known: a dense block named by its offset and strides
    label = f"{view.root}+{_linear(0, terms).describe(ev.names) if terms else '0'}|" + ",".join(
        s.describe(ev.names) if isinstance(s, Unknown) else str(s) for s in view.strides
    )
    ev.note(f"the strides of the view loaded or stored at {ev.location(op)} are not known statically: a dense block is assumed")
    return (Access(label, GM_BIAS + const, GM_BIAS + const + math.prod(shape) * size),)


def _accesses_of(ev: _Evaluator, op: ir.Operation, positions: Iterable[int], tile: _Tile | None) -> tuple[Access, ...]:
    out: list[Access] = []
    for i in positions:
        x = ev.value(op.operands[i])
        if isinstance(x, _Tile):
            out.extend(x.accesses())
        elif isinstance(x, _View):
            out.extend(_view_accesses(ev, op, x, tile))
        elif isinstance(x, (_Multi, _Root)):
            raise StaticScheduleError(op.location, "an operand is a multi-tile buffer or a pointer, not a tile or view")
    return tuple(out)


def _pipe_op(ev: _Evaluator, op: ir.Operation, spec) -> None:
    name = op.name
    layout = spec.layout(op)
    dst_index = layout.index("dst")
    dst = ev.value(op.operands[dst_index]) if dst_index is not None else None
    dst = dst if isinstance(dst, _Tile) else None
    tile = dst
    if name == "pto.tstore":
        src = ev.value(op.operands[layout.index("src")])
        tile = src if isinstance(src, _Tile) else None
    reads = _accesses_of(ev, op, layout.reads, tile)
    writes = _accesses_of(ev, op, layout.writes, tile)
    macs = 0
    elements = dst.valid[0] * dst.valid[1] if dst is not None else 0
    lhs = rhs = None
    if name in ("pto.tmatmul", "pto.tmatmul_acc"):
        lhs, rhs = _tile_operand(ev, op, "lhs"), _tile_operand(ev, op, "rhs")
        rows, inner = lhs.valid
        macs = rows * rhs.valid[1] * inner
        elements = rows * rhs.valid[1]
    elif dst is not None:
        other = tuple(i for i in layout.writes if i != dst_index)
        written = None
        if name == "pto.texpands" and dst.layout.tile.loc == "mat":
            written = dst.accesses(*dst.layout.shape)
        elif name == "pto.tfillpad":
            written = () if 0 in dst.valid else dst.accesses(*dst.layout.shape)
        elif name == "pto.tconcat":
            a, b = _tile_operand(ev, op, "src0"), _tile_operand(ev, op, "src1")
            if dst.valid[1] != a.valid[1] + b.valid[1]:
                written = dst.accesses(dst.valid[0], a.valid[1] + b.valid[1])
        if written is not None:
            writes = tuple(written) + _accesses_of(ev, op, other, tile)
    shape = op_shape(name, _shaped(ev, op, layout.reads), _shaped(ev, op, layout.writes), lhs, rhs)
    ev.events.append((ev.iteration, TraceEvent(_ptoas_name(name), spec.pipe.value, ev.location(op), reads, writes, elements, macs, shape)))


def _shaped(ev: _Evaluator, op: ir.Operation, positions: Iterable[int]) -> list:
    """The operands at `positions` as trace.op_shape reads them."""
    out = []
    for i in positions:
        x = ev.value(op.operands[i])
        out.append(x if isinstance(x, (_Tile, _View)) else None)
    return out


# --- the loop's schedule ------------------------------------------------------------------------


def _enclosing(op: ir.Operation, name: str) -> ir.Operation | None:
    parent = op.parent
    while parent is not None:
        parent = _operation(parent)
        if parent.name == name:
            return parent
        parent = parent.parent
    return None


def _argument_values(func: ir.Operation | None, values, source_text: str | None) -> dict[int, object]:
    """User values (by argument name, `%name`, `argK` or index) by index."""
    if not values or func is None:
        return {}
    from ..interpreter.inputs import arguments, lookup

    args = arguments(func, source_text)
    out: dict[int, object] = {}
    for key, value in values.items():
        if isinstance(key, int):
            out[key] = value
            continue
        arg = lookup(args, key)
        if arg is None:
            raise StaticScheduleError(None, f"the function has no argument '{key}'")
        out[arg.index] = value
    return out


def _periodic(ends: list[int], max_period: int) -> tuple[int, int, int] | None:
    """(period q, cycles D, first iteration k0) with ends[k + q] - ends[k] = D
    for every k >= k0, checked over the last iterations; None when no
    period up to max_period holds there."""
    n = len(ends)
    for q in range(1, max_period + 1):
        window = max(3 * q, 8)
        if n < window + q:
            break
        lo = n - q - window
        d = ends[lo + q] - ends[lo]
        if all(ends[k + q] - ends[k] == d for k in range(lo, n - q)):
            k0 = lo
            while k0 > 0 and ends[k0 - 1 + q] - ends[k0 - 1] == d:
                k0 -= 1
            return q, d, k0
    return None


def _slot_counts(loop: ir.Operation) -> list[int]:
    counts = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "pto.multi_tile_get":
            mb = multi_tile_type(op.operands[0].type)
            if mb is not None:
                counts.append(mb.count)
        return ir.WalkResult.ADVANCE

    loop.walk(visit)
    return counts


def loop_schedule(
    loop_op: ir.Operation | ir.OpView,
    arch: str | None = None,
    iterations: int | None = None,
    *,
    values: Mapping[str | int, object] | None = None,
    source_text: str | None = None,
    costs: CostTable | None = None,
    max_iterations: int = DEFAULT_MAX_ITERATIONS,
    slots: Mapping[ir.Operation, int] | None = None,
) -> LoopSchedule:
    """The static pipe schedule of `loop_op` (an `scf.for`), in the steady
    state, without executing the kernel.

    `arch` defaults to the module's (`pto.target_arch`, else a2a3); `costs`
    to that arch's cost table. `iterations` unrolls exactly that many
    iterations; by default the body is unrolled until the iteration end
    times repeat (at most `max_iterations`). `values` fixes scalar
    arguments of the enclosing function (by name as `pto-run --arg` takes
    them, or by index; `source_text` names them as the source does) and the
    shapes of dynamic tensor view arguments; the others are unknown.
    `slots` models a choice before it is made: a `pto.alloc_tile` without
    addr mapped to s > 1 is timed as if it were slot `((iv - lb) / step)
    mod s` of an s-slot multi-tile buffer (what
    convert-to-ptoas-multi-buffer would make of it), so its bytes in
    iteration k are those of slot k mod s. To time many choices of one
    loop, `SlotTimer` walks the IR once for all of them.
    Raises StaticScheduleError for what it cannot model (module docstring).
    """
    timer = SlotTimer(loop_op, arch, values=values, source_text=source_text, costs=costs)
    return timer.schedule(slots, iterations, max_iterations)


class SlotTimer:
    """The unrolled events of one loop, walked from the IR once and grown
    on demand, timed under any choice of slot counts for its
    `pto.alloc_tile`s without addr (`loop_schedule`'s `slots`): a choice
    only moves those tiles' bytes (slot k mod s of iteration k lies
    k mod s strides up), so the events are rewritten, not recomputed."""

    def __init__(
        self,
        loop_op: ir.Operation | ir.OpView,
        arch: str | None = None,
        *,
        values: Mapping[str | int, object] | None = None,
        source_text: str | None = None,
        costs: CostTable | None = None,
    ) -> None:
        loop = _operation(loop_op)
        if loop.name != "scf.for":
            raise StaticScheduleError(loop.location, f"'{loop.name}' is not an scf.for")
        module = _enclosing(loop, "builtin.module")
        try:
            arch = resolve_arch(module, arch) if module is not None else (arch or "a2a3")
        except ArchError as e:
            raise StaticScheduleError(loop.location, str(e)) from None
        self.loop = loop
        self.arch = arch
        self.table = costs or cost_table(arch)
        func = _enclosing(loop, "func.func")
        self.ev = _Evaluator(loop, arch, func, _argument_values(func, values, source_text))
        self.counts = _slot_counts(loop)
        ev = self.ev
        self.trip = None
        if _is_int(ev.lb) and _is_int(ev.ub) and _is_int(ev.step):
            induction = iteration_values(ev.lb, ev.ub, ev.step, ev.width, ev.unsigned)
            self.trip = len(induction) if induction is not None else None
        self.iteration_starts: list[int] = []  # index in ev.events of each iteration's first event

    def _unroll(self, target: int) -> None:
        ev = self.ev
        while ev.iteration < target and len(ev.events) <= MAX_EVENTS:
            self.iteration_starts.append(len(ev.events))
            ev.run_iteration()

    def _events(self, slots: Mapping[ir.Operation, int] | None, count: int) -> list[tuple[int, TraceEvent]]:
        """The first `count` iterations' events under `slots`."""
        ev = self.ev
        end = self.iteration_starts[count] if count < len(self.iteration_starts) else len(ev.events)
        events = ev.events[:end]
        shifts = {}
        for alloc, n in (slots or {}).items():
            label = ev.private.get(alloc)
            if n > 1 and label is not None:
                tile = tile_type(alloc.results[0].type)
                shifts[label] = (n, MultiTileBufType(tile, n).stride(space_spec(self.arch, tile.loc).alignment))
        if not shifts:
            return events
        out = []
        for k, e in events:
            if any(a.buffer in shifts for a in (*e.reads, *e.writes)):
                e = TraceEvent(
                    e.op, e.pipe, e.location, _shifted(e.reads, shifts, k), _shifted(e.writes, shifts, k), e.elements, e.macs, e.shape
                )
            out.append((k, e))
        return out

    def cycles(self, slots: Mapping[ir.Operation, int] | None = None) -> float:
        """The steady state's cycles per iteration under `slots`."""
        return self.schedule(slots).cycles_per_iteration

    def schedule(
        self, slots: Mapping[ir.Operation, int] | None = None, iterations: int | None = None, max_iterations: int = DEFAULT_MAX_ITERATIONS
    ) -> LoopSchedule:
        """`loop_schedule(loop, slots=slots, iterations=..., ...)`."""
        loop, ev, trip = self.loop, self.ev, self.trip
        if iterations is not None and iterations < 1:
            raise StaticScheduleError(loop.location, f"iterations must be positive, got {iterations}")
        counts = self.counts + [n for n in (slots or {}).values() if n > 1]
        period_hint = max(counts) if counts else 1
        target = iterations if iterations is not None else max(_FIRST_UNROLL, 8 * period_hint)
        cap = iterations if iterations is not None else max(max_iterations, target)
        while True:
            self._unroll(target)
            count = min(target, ev.iteration)
            events = self._events(slots, count)
            sched = schedule((e for _, e in events), self.table)
            ends = _iteration_ends(count, [k for k, _ in events], sched.ops)
            found = _periodic(ends, max(1, min(len(ends) // 4, max(8, 4 * period_hint))))
            if found is not None or iterations is not None or target >= cap or len(ev.events) > MAX_EVENTS:
                break
            target = min(cap, target * 2)
        notes = dict(ev.notes)  # what the walk assumed (this choice's own notes are added below)
        n = len(ends)
        if found is not None:
            q, d, k0 = found
            cpi = d / q
            window = range(k0 + ((n - k0) % q), n)  # whole periods
            converged = True
        else:  # the average of the second half (of the loop's own iterations when it has fewer)
            m = trip if trip is not None and 0 < trip < n else n
            q, k0 = 1, m // 2
            cpi = (ends[m - 1] - ends[k0 - 1]) / (m - k0) if k0 > 0 else ends[m - 1] / m
            window = range(k0, m)
            converged = False
            notes[f"no periodic steady state within {n} iterations: cycles per iteration are the average of iterations {k0} to {m - 1}"] = None
        if converged and trip is not None and trip <= k0:
            notes[f"the loop's {trip} iterations end before its steady state (from iteration {k0})"] = None
        numbered, last, index = [], None, 0
        for (k, e), o in zip(events, sched.ops):
            index = index + 1 if k == last else 0
            last = k
            numbered.append(StaticEvent(k, index, e, o.start, o.end))
        busy = dict.fromkeys(PIPE_NAMES, 0.0)
        ops = dict.fromkeys(PIPE_NAMES, 0.0)
        span = max(1, len(window))
        inside = set(window)
        for e in numbered:
            if e.iteration in inside:
                busy[e.pipe] += e.duration / span
                ops[e.pipe] += 1 / span
        return LoopSchedule(
            arch=self.arch,
            location=location_text(loop.location),
            trip_count=trip,
            iterations=n,
            events=numbered,
            iteration_ends=ends,
            cycles_per_iteration=cpi,
            period=q,
            steady_from=k0,
            converged=converged,
            per_pipe_busy=busy,
            per_pipe_ops=ops,
            schedule=sched,
            notes=list(notes),
        )


def _shifted(accesses: tuple[Access, ...], shifts: dict[str, tuple[int, int]], iteration: int) -> tuple[Access, ...]:
    out = []
    for a in accesses:
        shift = shifts.get(a.buffer)
        if shift is None:
            out.append(a)
        else:
            slot = iteration % shift[0]
            offset = slot * shift[1]
            out.append(Access(a.buffer, a.start + offset, a.stop + offset, a.rows, a.pitch, slot))
    return tuple(out)


def _iteration_ends(count: int, iterations: list[int], ops: list[ScheduledOp]) -> list[int]:
    ends = [0] * count
    for k, o in zip(iterations, ops):
        if o.end > ends[k]:
            ends[k] = o.end
    return ends


# --- measuring a run's loop, to compare ----------------------------------------------------------


def scf_loops(root: ir.Operation | ir.OpView) -> list[ir.Operation]:
    """Every `scf.for` under `root`, outer loops first (walk order)."""
    found: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "scf.for":
            found.append(_operation(op))
        return ir.WalkResult.ADVANCE

    _operation(root).walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def _loop_positions(loop: ir.Operation) -> dict[str, tuple[int, bool]]:
    """Per location of a pipe op under `loop`: the position in the loop body
    of the top-level op it is (True) or lies in (False)."""
    positions: dict[str, tuple[int, bool]] = {}
    for p, op in enumerate(loop.regions[0].blocks[0].operations):
        top = _operation(op)

        def visit(inner: ir.Operation, p=p, top=top) -> ir.WalkResult:
            spec = CATALOGUE.get(inner.name)
            if spec is not None and spec.pipe is not None:
                positions[location_text(inner.location)] = (p, inner == top)
            return ir.WalkResult.ADVANCE

        top.walk(visit)
    return positions


def trace_iterations(items: Iterable, loop_op: ir.Operation | ir.OpView) -> list[int | None]:
    """Per trace event (or scheduled op) of a run, the iteration of
    `loop_op` it belongs to (counted over the whole run), or None for an op
    outside the loop. Ops are matched by location (the loop's ops must have
    locations of their own); an iteration starts where the position in the
    body goes back, or the same top-level op runs again. An iteration whose
    ops all lie in one inner loop or scf.if cannot be told from the next."""
    positions = _loop_positions(_operation(loop_op))
    out: list[int | None] = []
    k, last = -1, None
    for item in items:
        where = positions.get(item.location)
        if where is None:
            out.append(None)
            continue
        p, direct = where
        if last is None or p < last or (p == last and direct):
            k += 1
        last = p
        out.append(k)
    return out


def measured_iteration_ends(run_schedule: Schedule, loop_op: ir.Operation | ir.OpView) -> list[int]:
    """When the last op of each iteration of `loop_op` ends in the schedule
    of a run (what `pto-run --cycles` computes)."""
    tags = trace_iterations(run_schedule.ops, loop_op)
    count = max((k for k in tags if k is not None), default=-1) + 1
    ends = [0] * count
    for k, o in zip(tags, run_schedule.ops):
        if k is not None and o.end > ends[k]:
            ends[k] = o.end
    return ends


def measured_cycles_per_iteration(ends: list[int], skip: int | None = None) -> float | None:
    """The cycles per iteration of a run's loop after its first `skip`
    iterations (default: half of them, the transient): (ends[-1] -
    ends[skip - 1]) / (n - skip). None with fewer than two iterations."""
    n = len(ends)
    if n < 2:
        return None
    skip = n // 2 if skip is None else skip
    skip = min(max(skip, 1), n - 1)
    return (ends[-1] - ends[skip - 1]) / (n - skip)
