"""Buffer lifetimes over one function, in program order (docs/passes.md, `pto-allocate-memory-addr`).

Every op of a function gets a *program point*: its index in a pre-order walk
(an op with regions comes before the ops inside it, so a loop's ops occupy
the points from the loop op to its last nested op). A buffer is what one
`pto.alloc_tile` / `pto.alloc_multi_tile` defines; its *live range* is the
closed interval of points from its first touch (the first use that is not a
view, a valid-shape change or the alloc: where it starts to hold data, as
ptoas's planner counts from the first writer) to its last use, where a use
of any value that may name it counts (`multi_tile_get` results are the
region; where it flows through scf.yield, scf.for iter_args and results,
scf.if results and pto.fusion_region results, `buffers.forward_aliases`). A join like
`%r = scf.if ... yield %a ... yield %b` makes a use of %r a use of both %a
and %b, without making %a and %b one buffer.

The range then covers a whole loop (from the loop op to its last nested op)
when the buffer

- is first touched outside the loop and used inside it: the loop runs its
  uses again, after ops that a straight reading would place after the last
  use;
- is first touched inside the loop and used after it: what an iteration
  wrote is read after the loop, and a later iteration may not write it again
  (a conditional or partial write);
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

from ..dialect.allocs import alloc_operands
from ..dialect.effects import ALLOC_OPS, CATALOGUE, NO_DATA_OPS, VIEW_OPS
from ..dialect.ops import OPS
from ..support.ir_utils import constant_int
from .buffers import forward_aliases, op_display_name, view_results
from .loop_carried import loop_carried_buffers

# Region ops that run each of their regions at most once per execution: and
# the pto ops whose regions the op table says so of (a section, a fusion region).
NON_REPEATING_REGION_OPS = frozenset({"scf.if", "scf.execute_region", "scf.index_switch"}) | frozenset(
    d.generic_name for d in OPS if d.regions and all(r.once for r in d.regions)
)

DEFINED_OUTSIDE = "written before the loop and used in it"
USED_AFTER = "written in the loop and used after it"
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

    @property
    def first_inside(self) -> int:
        """The first point inside the loop."""
        return self.start + 1 if self.first < 0 else self.first

    def contains(self, point: int) -> bool:
        """Whether `point` is an op nested inside the loop."""
        return self.first_inside <= point <= self.end

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
    uses: list[tuple[int, ir.Operation, str, int]] = field(default_factory=list)
    """(point, owner, owner's name, operand number) of every use of a value
    naming it, when asked for (`function_liveness(..., keep_uses=True)`),
    in no particular order."""

    @property
    def is_region(self) -> bool:
        return self.alloc.name == "pto.alloc_multi_tile"


@dataclass
class FunctionLiveness:
    ops: list[ir.Operation]  # ops[p] is the op at program point p
    loops: list[Loop]
    buffers: list[LiveRange]  # one per alloc, in program order
    loop_of: list[int] = field(default_factory=list)  # the innermost loop around point p, -1 none
    calls: list[int] = field(default_factory=list)  # points of func.call and func.call_indirect ops

    def point_of(self, op: ir.Operation) -> int:
        return self._points[op]

    _points: dict[ir.Operation, int] = field(default_factory=dict, repr=False)


# Where forward_aliases follows a buffer value through an op's results or regions.
_ALIASES_FOLLOWED = frozenset({"scf.for", "scf.if"})

# Owners whose buffer operands `untracked_alias` always accepts.
_TRACKED_USERS = frozenset(CATALOGUE) | _ALIASES_FOLLOWED


def untracked_alias(owner: ir.Operation) -> str | None:
    """Why a buffer operand of `owner` may be reachable through values that
    `forward_aliases` does not follow, or None when every alias is followed."""
    name = owner.name
    if name in _TRACKED_USERS:
        return None
    if name == "scf.yield":
        parent = owner.parent.name
        return None if parent in _ALIASES_FOLLOWED else f"it is yielded by '{parent}', whose results are not followed"
    if name == "pto.yield":  # followed to the pto.fusion_region's result (forward_aliases)
        parent = owner.parent.name
        return None if parent == "pto.fusion_region" else f"it is yielded by '{op_display_name(parent)}', whose results are not followed"
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


def _items(sequence) -> list:
    """The items of a bindings sequence (a block's ops, a region's blocks,
    an op's regions) as a list. Each `for` over a bindings iterator ends in
    a StopIteration raised from C++, which costs as much as reading a few
    items, so short sequences (most loop bodies, every region list) are
    read by index; indexing walks from the front, so long ones iterate."""
    n = len(sequence)
    if n <= _BY_INDEX:
        return [sequence[i] for i in range(n)]
    return list(sequence)


_BY_INDEX = 32


class _Numbering:
    """One pre-order walk: program points, loops, allocs.

    Every op costs binding calls, so the walk is MLIR's own (`Operation.walk`
    hands each op to a callback without the OpView that iterating a block
    builds), and each op is asked only how many regions it has and, without
    regions, its name; the op -> point map is built once at the end.

    The callback sees ops one after the other, so where each block ends is
    known from its op count: `frames` is a stack of the blocks being filled
    ([ops left, their loop]) and of actions to run once the frames above
    them are done: entering a region (the blocks it holds, and a loop of its
    own when it has several) and closing a loop (its last point)."""

    def __init__(self, func: ir.Operation) -> None:
        self.ops: list[ir.Operation] = []
        self.loop_of: list[int] = []  # innermost enclosing loop per point, -1 none
        self.loops: list[Loop] = []
        self.allocs: list[int] = []  # points of alloc ops, ascending
        self.calls: list[int] = []  # points of calls, ascending
        self._walk(func)
        self.points: dict[ir.Operation, int] = dict(zip(self.ops, range(len(self.ops))))

    def _walk(self, func: ir.Operation) -> None:
        ops, loop_of, loops, allocs, calls = self.ops, self.loop_of, self.loops, self.allocs, self.calls
        # [ops left, loop, None] for a block; [0, None, action] for an action,
        # ("region", owner, region, loop) or ("end", loop index, lowest end).
        frames: list[list] = []

        def enter(op: ir.Operation, regions, loop: int) -> None:
            point = len(ops) - 1
            name = op.name
            if name in ALLOC_OPS:
                allocs.append(point)
            inner = loop
            if name not in NON_REPEATING_REGION_OPS:
                inner = len(loops)
                loops.append(Loop(op, point, point, loop))
                frames.append([0, None, ("end", inner, point)])
            for region in reversed(_items(regions)):
                frames.append([0, None, ("region", op, region, inner)])

        def pop() -> None:
            action = frames.pop()[2]
            if action is None:  # a block, all numbered
                return
            if action[0] == "end":
                loops[action[1]].end = max(len(ops) - 1, action[2])
                return
            _, owner, region, loop = action
            blocks = _items(region.blocks)
            if len(blocks) > 1:  # may jump back: a loop of its own
                first = len(ops)
                frames.append([0, None, ("end", len(loops), first)])
                loops.append(Loop(owner, first, first, loop, first=first, unstructured=True))
                loop = len(loops) - 1
            for block in reversed(blocks):
                frames.append([len(block.operations), loop, None])

        def visit(op: ir.Operation) -> ir.WalkResult:
            if not frames:  # the function itself
                enter_root(op)
                return _ADVANCE
            frame = frames[-1]
            while frame[0] == 0:
                pop()
                frame = frames[-1]
            frame[0] -= 1
            ops.append(op)
            loop_of.append(frame[1])
            regions = op.regions
            if len(regions):
                enter(op, regions, frame[1])
            else:
                name = op.name
                if name in ALLOC_OPS:
                    allocs.append(len(ops) - 1)
                elif name in _CALL_OPS:
                    calls.append(len(ops) - 1)
            return _ADVANCE

        def enter_root(root: ir.Operation) -> None:
            frames.append([0, None, None])  # the bottom: never popped during the walk
            for region in reversed(_items(root.regions)):
                frames.append([0, None, ("region", root, region, -1)])

        func.walk(visit, ir.WalkOrder.PRE_ORDER)
        while frames:
            pop()


_ADVANCE = ir.WalkResult.ADVANCE
_CALL_OPS = frozenset({"func.call", "func.call_indirect"})


# The uses of a value as the liveness reads them: (point of the owner, or
# None outside the function; the owner; its name; the operand number).
_Use = tuple[int | None, ir.Operation, str, int]

# Uses through which `forward_aliases` follows a value to others.
_FLOW_OPS = frozenset({"scf.yield", "scf.for", "pto.yield"})


class _UseCache:
    """Each value's uses (`known`), read from the bindings once: a use costs several
    binding calls (the operand, its owner, the owner's Operation and name,
    the operand number), and the alias closure, the views and the live range
    each look at the same uses. Reading them also notes what the closure
    needs: the values some scf.yield or scf.for uses, and the results of
    the view ops whose source a value is (`view_results`)."""

    def __init__(self, points: dict[ir.Operation, int]) -> None:
        self.points = points
        self.known: dict[ir.Value, list[_Use]] = {}
        self.flows: set[ir.Value] = set()
        self.views: dict[ir.Value, list[ir.Value]] = {}

    def owners(self, value: ir.Value) -> list[tuple[ir.Operation, int]] | None:
        """The (owner, operand number) of `value`'s uses, when read."""
        known = self.known.get(value)
        return None if known is None else [(use[1], use[3]) for use in known]

    def read(self, value: ir.Value) -> None:
        """Read the uses of `value` into `known` (and `flows`, `views`)."""
        points = self.points
        uses = self.known[value] = []
        for use in value.uses:
            owner = use.owner.operation
            name = owner.name
            number = use.operand_number
            uses.append((points.get(owner), owner, name, number))
            if name in _FLOW_OPS:
                self.flows.add(value)
            elif number == 0 and name in VIEW_OPS:
                self.views.setdefault(value, []).append(owner.results[0])


def _buffer_values(result: ir.Value, uses_of: _UseCache) -> set[ir.Value]:
    """`buffer_values` of the alloc defining `result`, from cached uses: the
    same closure, built in the same order (so the set iterates the same).
    `forward_aliases` is asked only about a value some scf.yield or scf.for
    uses; of any other value it would answer just the value."""
    known, views = uses_of.known, uses_of.views
    values: set[ir.Value] = set()
    work = [result]
    while work:
        v = work.pop()
        if v not in known:
            uses_of.read(v)
        for a in forward_aliases(v) if v in uses_of.flows else (v,):
            if a in values:
                continue
            values.add(a)
            if a not in known:
                uses_of.read(a)
            work.extend(views.get(a, ()))
    return values


def _mark_loop_carried(
    numbering: _Numbering, ranges: list[LiveRange], results: list[ir.Value], confined: list[bool], homes: list[int], uses_of: _UseCache
) -> None:
    """Give every buffer loop-carried through memory in an scf.for that loop.

    A buffer used only inside the innermost loop around its first touch
    (`homes`; the common case) is touched by the loops enclosing that one only through it:
    their walks would see exactly the accesses the inner loop's walk sees,
    so that walk decides for all of them, and one walk per loop over the
    buffers it holds directly keeps the cost linear in the nesting depth.
    A buffer whose aliases leave that loop gets a walk per enclosing scf.for.
    The verdicts read the uses `uses_of` read already (of every value that
    may name a buffer) instead of asking the bindings again.
    """
    loops, loop_of = numbering.loops, numbering.loop_of
    own: dict[int, list[int]] = {}  # loop -> buffers it decides for, with its enclosing loops
    each: dict[int, list[int]] = {}  # loop -> buffers it decides for alone
    for i, p in enumerate(homes):
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
    same_bytes = _same_bytes(numbering, results)
    for index, members in (*own.items(), *each.items()):
        by_value = {results[i]: i for i in members}
        carried = loop_carried_buffers(loops[index].op, list(by_value), same_bytes=same_bytes, uses_of=uses_of.owners)
        for value, why in carried.items():
            live = ranges[by_value[value]]
            reason = f"loop-carried through memory: {why.reason}"
            live.whole_loops.setdefault(index, reason)
            if members is own.get(index):
                loop = loops[index].parent
                while loop != -1:
                    live.whole_loops.setdefault(loop, reason)
                    loop = loops[loop].parent


def _same_bytes(numbering: _Numbering, results: list[ir.Value]) -> dict[ir.Value, ir.Value]:
    """Tiles of one type at one constant address name the very same bytes
    (PyPTO renames a buffer by allocating it again at its address): each
    mapped to the first of them."""
    first: dict[tuple, ir.Value] = {}
    same: dict[ir.Value, ir.Value] = {}
    for p, result in zip(numbering.allocs, results):
        alloc = numbering.ops[p]
        if alloc.name != "pto.alloc_tile" or not len(alloc.operands):
            continue
        addr = alloc_operands(alloc).addr
        known = constant_int(addr) if addr is not None else None
        if known is None:
            continue
        same[result] = first.setdefault((known, str(result.type)), result)
    return same


def function_liveness(func: ir.Operation, keep_uses: bool = False, carried: bool = True) -> FunctionLiveness:
    """The live range of every buffer allocated in `func` (any nesting);
    with `keep_uses`, each range keeps the uses it was computed from; with
    `carried=False`, no loop-carried walk extends the ranges of buffers
    first touched in an scf.for (for a caller that asks only about buffers
    live across loops they do not touch)."""
    numbering = _Numbering(func)
    ops, points, loop_of, loops = numbering.ops, numbering.points, numbering.loop_of, numbering.loops
    uses_of = _UseCache(points)
    known = uses_of.known  # every value _buffer_values returns has its uses here
    ranges: list[LiveRange] = []
    results: list[ir.Value] = []  # per range, the alloc's result
    confined: list[bool] = []  # every use inside the innermost loop around the definition
    homes: list[int] = []  # per range, its first touch (where it starts to hold data)
    for p in numbering.allocs:
        alloc = ops[p]
        result = alloc.results[0]
        live = LiveRange(alloc, p, p)
        values = _buffer_values(result, uses_of)
        # It holds data from the first op that touches its bytes (views and
        # valid-shape changes touch none; PyPTO allocates every tile up front).
        touch = -1
        for v in values:
            for use in known[v]:
                q = use[0]
                if q is not None and use[2] not in NO_DATA_OPS and (touch == -1 or q < touch):
                    touch = q
        d = p if touch == -1 else touch
        end, whole_function = d, ""
        is_region = live.is_region
        climbed: set[int] = set()
        home = loops[loop_of[d]] if loop_of[d] != -1 else None
        home_first = -1 if home is None else home.first_inside
        inside = True
        for v in values:
            for use in known[v]:
                q, owner, name = use[0], use[1], use[2]
                if q is None:  # a use outside the function: cannot happen in valid IR
                    continue
                if keep_uses:
                    live.uses.append(use)
                if q > end:
                    end = q
                if q < d:  # a view or valid-shape change before the first touch: no data yet
                    continue
                if home is not None and not (home_first <= q <= home.end):
                    inside = False
                if not whole_function and name not in _TRACKED_USERS:
                    whole_function = untracked_alias(owner) or ""
                # Every loop around the use that repeats it relative to the first touch.
                loop = loop_of[q]
                while loop != -1 and loop not in climbed:
                    climbed.add(loop)
                    info = loops[loop]
                    if not info.contains(d):
                        live.whole_loops.setdefault(loop, DEFINED_OUTSIDE)
                    elif is_region:
                        live.whole_loops.setdefault(loop, MULTI_TILE_REGION)
                    elif not info.analysed:
                        live.whole_loops.setdefault(loop, f"used in {info.describe()}")
                    loop = info.parent
        live.start = d
        live.end, live.whole_function = end, whole_function
        live.first_use = d
        ranges.append(live)
        results.append(result)
        confined.append(inside)
        homes.append(d)

    if carried:
        _mark_loop_carried(numbering, ranges, results, confined, homes, uses_of)

    for live, d in zip(ranges, homes):
        # Every loop around the first touch that a use leaves: what the loop
        # wrote is read after it (a later iteration may not write it again).
        loop = loop_of[d]
        while loop != -1:
            info = loops[loop]
            if not info.contains(live.end):
                live.whole_loops.setdefault(loop, USED_AFTER)
            loop = info.parent

    for live in ranges:
        for index in live.whole_loops:
            live.start = min(live.start, loops[index].start)
            live.end = max(live.end, loops[index].end)
            live.first_use = min(live.first_use, loops[index].start)
        if live.whole_function:
            live.start, live.end, live.first_use = 0, len(ops) - 1, 0

    result = FunctionLiveness(ops, loops, ranges, loop_of, numbering.calls)
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
