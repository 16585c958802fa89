"""Buffer lifetimes over one function, in program order (docs/passes.md, `pto-allocate-memory-addr`).

Every op of a function gets a *program point*: its index in a pre-order walk
(an op with regions comes before the ops inside it, so a loop's ops occupy
the points from the loop op to its last nested op). A buffer is what one
`pto.alloc_tile` / `pto.alloc_multi_tile` defines; its *live range* is the
closed interval of points from its definition to its last use, where a use
of any value that may name it counts (`multi_tile_get` results are the
region; where it flows through scf.yield, scf.for iter_args and results and
scf.if results, `buffers.forward_aliases`). A join like
`%r = scf.if ... yield %a ... yield %b` makes a use of %r a use of both %a
and %b, without making %a and %b one buffer.

The range then covers a whole loop (from the loop op to its last nested op)
when the buffer

- is defined outside the loop and used inside it: the loop runs its uses
  again, after ops that a straight reading would place after the last use;
- is loop-carried through memory in it (`loop_carried.loop_carried_buffers`):
  what one iteration leaves in it, the next one reads;
- is a multi-tile region used in it: its N slots rotate across iterations.

A loop here is any region op that may run its region more than once. Only
`scf.for` gets the iteration-local analysis; for any other repeating op
(`scf.while`, `scf.parallel`, an unknown op with regions) every buffer used
inside lives for the whole op. `scf.if`, `scf.execute_region` and
`scf.index_switch` run a region at most once, so their branches are plain
program order: buffers used only in different branches of one `scf.if` have
disjoint ranges and may share memory, which is right because only one
branch runs. A region of several blocks (unstructured `cf` branches, which
may jump back) is treated like an unanalysed loop: program order says
nothing about execution order there.

A buffer value used by an op whose aliasing we do not model (an unknown op
or one with results or regions, like `scf.while` or a `func.call` that
returns something; a yield of an op other than scf.for/scf.if) may be
reached through values we cannot follow, so the buffer lives for the whole
function.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir

from . import trampoline
from .buffers import forward_aliases, op_display_name, view_results
from .catalogue import ALLOC_OPS, CATALOGUE
from .loop_carried import loop_carried_buffers

# Region ops that run each of their regions at most once per execution.
NON_REPEATING_REGION_OPS = frozenset({"scf.if", "scf.execute_region", "scf.index_switch"})

DEFINED_OUTSIDE = "defined before the loop and used in it"
MULTI_TILE_REGION = "a multi-tile region used in the loop (its slots rotate across iterations)"


@dataclass
class Loop:
    """Code that may run more than once: a repeating region op, or a region
    of several blocks; and the points it spans."""

    op: ir.Operation  # the loop op, or the op owning the multi-block region
    start: int  # point of the loop op itself (a multi-block region: its first op)
    end: int  # last point inside it
    parent: int  # index of the enclosing loop in FunctionLiveness.loops, -1 at top level
    first: int = -1  # first point inside it (-1: start + 1)
    unstructured: bool = False  # a multi-block region rather than a loop op

    def contains(self, point: int) -> bool:
        """Whether `point` is an op nested inside the loop."""
        return (self.start + 1 if self.first < 0 else self.first) <= point <= self.end

    @property
    def analysed(self) -> bool:
        """Whether iteration-local buffers are told apart from loop-carried
        ones in this loop (else every buffer used inside lives throughout)."""
        return self.op.name == "scf.for" and not self.unstructured

    def describe(self) -> str:
        if self.unstructured:
            return f"a multi-block region of '{self.op.name}' (its branches may repeat code)"
        return f"'{self.op.name}', whose region may run repeatedly"


@dataclass
class LiveRange:
    """The lifetime of one buffer, as a closed interval of program points."""

    alloc: ir.Operation
    start: int
    end: int
    whole_loops: dict[int, str] = field(default_factory=dict)
    """Loops (indices) the range covers entirely, each with why."""
    whole_function: str = ""  # why it lives for the whole function, if it does
    first_use: int = -1
    """The first point that touches the buffer's bytes (its definition when
    nothing uses it), moved back to the start of every loop the range
    covers entirely. The allocation op itself touches no memory, so a
    buffer holds data only from here; fixed-address checks use this."""
    uses: list[tuple[int, ir.Operation, ir.OpOperand]] = field(default_factory=list)
    """(point, owner, use) of every use of a value naming it, when asked
    for (`function_liveness(..., keep_uses=True)`), in no particular order."""

    @property
    def is_region(self) -> bool:
        return self.alloc.name == "pto.alloc_multi_tile"


@dataclass
class FunctionLiveness:
    ops: list[ir.Operation]  # ops[p] is the op at program point p
    loops: list[Loop]
    buffers: list[LiveRange]  # one per alloc, in program order
    loop_of: list[int] = field(default_factory=list)  # the innermost loop around point p, -1 none

    def point_of(self, op: ir.Operation) -> int:
        return self._points[op]

    _points: dict[ir.Operation, int] = field(default_factory=dict, repr=False)


# Where forward_aliases follows a buffer value through an op's results or regions.
_ALIASES_FOLLOWED = frozenset({"scf.for", "scf.if"})


def untracked_alias(owner: ir.Operation) -> str | None:
    """Why a buffer operand of `owner` may be reachable through values that
    `forward_aliases` does not follow, or None when every alias is followed."""
    name = owner.name
    if name in CATALOGUE or name in _ALIASES_FOLLOWED:
        return None
    if name == "scf.yield":
        parent = owner.parent.name
        return None if parent in _ALIASES_FOLLOWED else f"it is yielded by '{parent}', whose results are not followed"
    if len(owner.results) == 0 and len(owner.regions) == 0:
        return None  # e.g. func.return, or a call without results: the use is all there is
    return f"it is used by '{op_display_name(name)}', whose results or regions may alias it"


def buffer_values(alloc: ir.Operation) -> set[ir.Value]:
    """Every value that may name (part of) the buffer `alloc` defines: where
    its result flows and the results of its views (`multi_tile_get` slots of
    a region, `subview`s, `treshape`s) and where they flow."""
    values: set[ir.Value] = set()
    work = [alloc.results[0]]
    while work:
        for v in forward_aliases(work.pop()):
            if v in values:
                continue
            values.add(v)
            work.extend(view_results(v))
    return values


class _Numbering:
    """One pre-order walk: program points, loops, allocs."""

    def __init__(self, func: ir.Operation) -> None:
        self.ops: list[ir.Operation] = []
        self.points: dict[ir.Operation, int] = {}
        self.loop_of: list[int] = []  # innermost enclosing loop per point, -1 none
        self.loops: list[Loop] = []
        self.allocs: list[int] = []  # points of alloc ops, ascending
        for region in func.regions:
            trampoline.run(self.visit_region(func, region, -1))

    def visit_region(self, owner: ir.Operation, region: ir.Region, loop: int) -> trampoline.Nested:
        blocks = list(region.blocks)
        if len(blocks) > 1:
            first = len(self.ops)
            index = len(self.loops)
            self.loops.append(Loop(owner, first, first, loop, first=first, unstructured=True))
            loop = index
        for block in blocks:
            yield self.visit_block(block, loop)
        if len(blocks) > 1:
            self.loops[index].end = max(len(self.ops) - 1, first)

    def visit_block(self, block: ir.Block, loop: int) -> trampoline.Nested:
        for view in block.operations:
            op = view.operation
            point = len(self.ops)
            self.ops.append(op)
            self.points[op] = point
            self.loop_of.append(loop)
            name = op.name
            if name in ALLOC_OPS:
                self.allocs.append(point)
            regions = op.regions
            if len(regions) == 0:
                continue
            inner = loop
            if name not in NON_REPEATING_REGION_OPS:
                inner = len(self.loops)
                self.loops.append(Loop(op, point, point, loop))
            for region in regions:
                yield self.visit_region(op, region, inner)
            if inner != loop:
                self.loops[inner].end = len(self.ops) - 1


def _mark_loop_carried(numbering: _Numbering, ranges: list[LiveRange], confined: list[bool]) -> None:
    """Give every buffer loop-carried through memory in an scf.for that loop.

    A buffer used only inside the innermost loop around its definition (the
    common case) is touched by the loops enclosing that one only through it:
    their walks would see exactly the accesses the inner loop's walk sees,
    so that walk decides for all of them, and one walk per loop over the
    buffers it holds directly keeps the cost linear in the nesting depth.
    A buffer whose aliases leave that loop gets a walk per enclosing scf.for.
    """
    loops, loop_of = numbering.loops, numbering.loop_of
    own: dict[int, list[int]] = {}  # loop -> buffers it decides for, with its enclosing loops
    each: dict[int, list[int]] = {}  # loop -> buffers it decides for alone
    for i, p in enumerate(numbering.allocs):
        home = loop_of[p]
        if home == -1:
            continue
        if confined[i] and loops[home].analysed:
            own.setdefault(home, []).append(i)
            continue
        loop = home
        while loop != -1:
            if loops[loop].analysed:
                each.setdefault(loop, []).append(i)
            loop = loops[loop].parent
    for index, members in (*own.items(), *each.items()):
        by_value = {ranges[i].alloc.results[0]: i for i in members}
        carried = loop_carried_buffers(loops[index].op, list(by_value))
        for value, why in carried.items():
            live = ranges[by_value[value]]
            reason = f"loop-carried through memory: {why.reason}"
            live.whole_loops.setdefault(index, reason)
            if members is own.get(index):
                loop = loops[index].parent
                while loop != -1:
                    live.whole_loops.setdefault(loop, reason)
                    loop = loops[loop].parent


def function_liveness(func: ir.Operation, keep_uses: bool = False) -> FunctionLiveness:
    """The live range of every buffer allocated in `func` (any nesting);
    with `keep_uses`, each range keeps the uses it was computed from."""
    numbering = _Numbering(func)
    ops, points, loop_of, loops = numbering.ops, numbering.points, numbering.loop_of, numbering.loops
    ranges: list[LiveRange] = []
    confined: list[bool] = []  # every use inside the innermost loop around the definition
    for p in numbering.allocs:
        alloc = ops[p]
        live = LiveRange(alloc, p, p)
        first_use = -1
        is_region = live.is_region
        values = buffer_values(alloc)
        climbed: set[int] = set()
        home = loops[loop_of[p]] if loop_of[p] != -1 else None
        inside = True
        for v in values:
            for use in v.uses:
                owner = use.owner.operation
                q = points.get(owner)
                if q is None:  # a use outside the function: cannot happen in valid IR
                    continue
                if keep_uses:
                    live.uses.append((q, owner, use))
                if q > live.end:
                    live.end = q
                if first_use == -1 or q < first_use:
                    first_use = q
                if home is not None and not home.contains(q):
                    inside = False
                if not live.whole_function:
                    live.whole_function = untracked_alias(owner) or ""
                # Every loop around the use that repeats it relative to the definition.
                loop = loop_of[q]
                while loop != -1 and loop not in climbed:
                    climbed.add(loop)
                    info = loops[loop]
                    if not info.contains(p):
                        live.whole_loops.setdefault(loop, DEFINED_OUTSIDE)
                    elif is_region:
                        live.whole_loops.setdefault(loop, MULTI_TILE_REGION)
                    elif not info.analysed:
                        live.whole_loops.setdefault(loop, f"used in {info.describe()}")
                    loop = info.parent
        live.first_use = p if first_use == -1 else first_use
        ranges.append(live)
        confined.append(inside)

    _mark_loop_carried(numbering, ranges, confined)

    for live in ranges:
        for index in live.whole_loops:
            live.start = min(live.start, loops[index].start)
            live.end = max(live.end, loops[index].end)
            live.first_use = min(live.first_use, loops[index].start)
        if live.whole_function:
            live.start, live.end, live.first_use = 0, len(ops) - 1, 0

    result = FunctionLiveness(ops, loops, ranges, loop_of)
    result._points = points
    return result


__all__ = [
    "DEFINED_OUTSIDE",
    "FunctionLiveness",
    "LiveRange",
    "Loop",
    "MULTI_TILE_REGION",
    "NON_REPEATING_REGION_OPS",
    "buffer_values",
    "function_liveness",
    "untracked_alias",
]
