"""Iteration-local or loop-carried through memory (docs/dialect.md, "Buffer semantics").

A `pto.alloc_tile` without `addr` inside a loop body is one buffer for every
iteration. It is *iteration-local* when every element an iteration reads of
it was written before in the same iteration; otherwise (accumulate, in-place
update, a read first, a read of rows a partial write left alone) it is
*loop-carried*: what iteration i-1 left in it is what iteration i reads.
Anything we cannot prove iteration-local counts as loop-carried.

What an op reads and writes of a tile are regions (`regions.py`, from the op
table): a `tload` into a tile with `valid=8x64` writes those 8 rows, and a
`treshape` or `subview` of it whose valid region is larger reads more. We
walk the loop body once in program order, keeping per buffer the rects
*definitely* written so far in this iteration; an op reads its inputs before
it writes its output, and a read not covered by them makes the buffer
loop-carried. Writes in an `scf.if` count only when both branches make them;
writes in a nested `scf.for` count only when its trip count is a known
constant >= 1 (it might run zero times). Accesses through aliases (iter_args,
yields, if results) count for every buffer the alias may name
(`buffers.forward_aliases`): a read reads each of them, and a write is a
definite write only when the alias can name just one tracked buffer. A view
(`subview`, `treshape`, `multi_tile_get`) reads and writes its source's bytes
through its geometry. Valid shapes are followed in program order: an alloc
sets its buffer's, a view takes its own from its source's, and a
`set_validshape` changes a tile's (a resize inside a nested loop or region
makes it unknown there and after). A use the catalogue does not know reads
the whole buffer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from mlir import ir

from ..dialect.effects import CATALOGUE, VIEW_OPS
from ..dialect.types import tile_type
from ..support import trampoline
from ..support.ir_utils import ConstantInts
from .buffers import forward_aliases, op_access, op_display_name
from .loop_body import BodyOp, LoopBody
from .loop_index import static_trip_count
from .regions import Extents, Geometry, Rect, ValidExtents, buffer_root_geometry, covered, invariant_in, may_write, op_regions, root_bytes, view_geometry


@dataclass(frozen=True)
class Carried:
    """Why a buffer is loop-carried: the op that reads it first."""

    op: ir.Operation
    reason: str


_SET_VALIDSHAPE = "pto.set_validshape"
_ALLOC_TILE = "pto.alloc_tile"


@dataclass(frozen=True)
class _Alias:
    """One buffer a value may name: the buffer, where the value's elements lie
    in it, and the tile object whose valid shape the value has (an alloc's
    or a view's result, which iter_args and branch results pass on)."""

    root: ir.Value
    geometry: Geometry
    origin: ir.Value


@dataclass
class _State:
    """At a program point of one iteration: the rects of each buffer written
    for sure so far, and the valid extents of the tile objects followed."""

    written: dict[ir.Value, tuple[Rect, ...]] = field(default_factory=dict)
    extents: dict[ir.Value, Extents] = field(default_factory=dict)

    def copy(self) -> _State:
        return _State(dict(self.written), dict(self.extents))


def _meet(a: _State, b: _State) -> _State:
    """What holds after either of two paths: the rects both wrote, the
    extents both agree on (others unknown)."""
    written = {}
    for root, rects in a.written.items():
        other = b.written.get(root)
        if other:
            common = tuple(r for r in rects if r in other)
            if common:
                written[root] = common
    extents = {}
    for origin in a.extents.keys() | b.extents.keys():
        ea, eb = a.extents.get(origin), b.extents.get(origin)
        extents[origin] = ea if ea == eb else (None, None)
    return _State(written, extents)


def _describe(rows, cols) -> str:
    def one(e) -> str:
        return str(e) if isinstance(e, int) else "?"

    return f"{one(rows)}x{one(cols)}"


class _Walker:
    def __init__(
        self,
        aliases: dict[ir.Value, tuple[_Alias, ...]],
        touched: set[ir.Operation],
        resizes: list[ir.Operation],
        constants: ConstantInts,
        loop: ir.Operation,
    ) -> None:
        self.aliases = aliases  # alias value -> the tracked buffers it may name
        self.touched = touched  # region ops with a use of a tracked alias inside
        self.resizes = resizes  # the set_validshape ops on tracked aliases
        self.constants = constants
        self.static = ValidExtents(constants)
        self.sizes = {a.root: root_bytes(a.root) for entries in aliases.values() for a in entries}
        self.loop = loop
        self.carried: dict[ir.Value, Carried] = {}
        self.state = _State()
        self._loop_writes: dict[ir.Value, tuple[Rect, ...] | None] = {}

    # The walk is a trampoline (trampoline.py): nesting depth is the user's.

    def walk_block(self, block: ir.Block) -> trampoline.Nested:
        touched = self.touched
        for op in block.operations:
            self.access(op)
            if len(op.regions) and op.operation in touched:  # else nothing inside touches a tracked buffer
                yield self.enter(op)

    def walk_region(self, region: ir.Region, entry: _State) -> trampoline.Nested:
        """Walk `region` from `entry` (not changed); what holds after it."""
        blocks = list(region.blocks)
        if len(blocks) != 1:  # unstructured control flow: nothing written is definite
            for block in blocks:
                self.state = entry.copy()
                yield self.walk_block(block)
            return entry.copy()
        self.state = entry.copy()
        yield self.walk_block(blocks[0])
        return self.state

    # --- valid extents --------------------------------------------------------------

    def extents(self, value: ir.Value) -> Extents | None:
        entries = self.aliases.get(value)
        if entries:
            origin = entries[0].origin
            if all(a.origin == origin for a in entries[1:]):
                known = self.state.extents.get(origin)
                if known is not None:
                    return known
            else:
                return (None, None)
        return self.static(value)

    def forget_extents(self, op: ir.Operation) -> None:
        """Make unknown the valid extents of every tile object resized inside `op`."""
        extents = self.state.extents
        for resize in self.resizes:
            if _inside(resize, op):
                for a in self.aliases.get(resize.operands[0], ()):
                    extents[a.origin] = (None, None)

    # --- one op ---------------------------------------------------------------------

    def read(self, value: ir.Value, rows, cols, op: ir.Operation) -> None:
        written = self.state.written
        for a in self.aliases.get(value, ()):
            root = a.root
            if root in self.carried:
                continue
            before = written.get(root, ())
            if not covered(Rect(a.geometry, rows, cols), before, self.sizes[root]) and not self.rewritten(root, before):
                why = never_written(op) if self.loop_writes(root) == () else self.reason(op, a, rows, cols, before)
                self.carried[root] = Carried(op, why)

    def rewritten(self, root: ir.Value, before: tuple[Rect, ...]) -> bool:
        """Whether every byte of `root` that any op of the loop may write, in
        any iteration, is among `before`: then what a read finds beyond
        them no iteration wrote (the same undefined bytes in every
        iteration, as a partial tile's padding is), so nothing is carried."""
        if not before:
            return False
        writes = self.loop_writes(root)
        return writes is not None and all(covered(w, before, self.sizes[root]) for w in writes)

    def loop_writes(self, root: ir.Value) -> tuple[Rect, ...] | None:
        """Rects holding every byte the loop may write of `root`, with
        extents the same in every iteration; None when that is not known."""
        if root not in self._loop_writes:
            self._loop_writes[root] = self._may_write_in_loop(root)
        return self._loop_writes[root]

    def _may_write_in_loop(self, root: ir.Value) -> tuple[Rect, ...] | None:
        rects: list[Rect] = []
        for value, entries in self.aliases.items():
            mine = [a for a in entries if a.root == root]
            if not mine:
                continue
            for use in value.uses:
                owner = use.owner.operation
                if not _inside(owner, self.loop) or owner.name in VIEW_OPS or owner.name in (_SET_VALIDSHAPE, "scf.yield", "scf.for"):
                    continue
                if owner.name not in CATALOGUE:
                    return None  # an op we do not know may write anything
                for i, r, c in may_write(owner, self.static):
                    if i != use.operand_number:
                        continue
                    for a in mine:
                        rect = Rect(a.geometry, r, c) if len(entries) == 1 else Rect(a.geometry, *a.geometry.shape)
                        if not invariant_in((rect.rows, rect.cols, a.geometry.key), self.loop):
                            return None  # its extent or offset changes from one iteration to the next
                        rects.append(rect)
        return tuple(rects)

    @staticmethod
    def reason(op: ir.Operation, alias: _Alias, rows, cols, before: tuple[Rect, ...]) -> str:
        name = op_display_name(op.name)
        if not before:
            how = "read" if op.name in CATALOGUE else "used"
            return f"it is {how} by '{name}' before it is written in the iteration"
        through = "" if alias.origin == alias.root else " (through a view)"
        wrote = ", ".join(_describe(w.rows, w.cols) for w in before[:3])
        return (
            f"'{name}' reads {_describe(rows, cols)} elements of it{through}, more than the iteration writes of it before "
            f"({wrote}): the rest is what an earlier iteration left"
        )

    def access(self, op: ir.Operation) -> None:
        """What `op` itself reads and writes (its operands, not its regions)."""
        name = op.name
        aliases = self.aliases
        if name in VIEW_OPS or name == _ALLOC_TILE:
            result = op.results[0]
            if result in aliases and (name == _ALLOC_TILE or op.operands[0] in aliases):
                tile = tile_type(result.type)
                if tile is not None:
                    self.state.extents[result] = self.static.defined(result, tile, self.extents)
            return
        if name == _SET_VALIDSHAPE:
            entries = aliases.get(op.operands[0], ())
            origins = {a.origin for a in entries}
            new = (self.static.operand(op.operands[1]), self.static.operand(op.operands[2])) if len(origins) == 1 else (None, None)
            for origin in origins:
                self.state.extents[origin] = new
            return
        if name in CATALOGUE:
            if not any(v in aliases for v in op.operands):
                return
            regions = op_regions(op, self.extents)
            operands = op.operands
            for i, rows, cols in regions.reads:
                value = operands[i]
                if value in aliases:
                    self.read(value, rows, cols, op)
            written = self.state.written
            for i, rows, cols in regions.writes:
                entries = aliases.get(operands[i])
                if entries is not None and len(entries) == 1:
                    a = entries[0]
                    written[a.root] = (*written.get(a.root, ()), Rect(a.geometry, rows, cols))
            return
        if name in ("scf.yield", "scf.for"):
            return
        for v in op_access(op).escapes:
            for a in aliases.get(v, ()):
                whole = buffer_root_geometry(a.root)
                if whole is not None:
                    self.read_root(a.root, whole, op)

    def read_root(self, root: ir.Value, whole: Geometry, op: ir.Operation) -> None:
        """A read of every byte of `root` (an op the catalogue does not know)."""
        if root in self.carried:
            return
        before = self.state.written.get(root, ())
        if not covered(Rect(whole, *whole.shape), before, self.sizes[root]):
            self.carried[root] = Carried(op, f"it is used by '{op_display_name(op.name)}' before it is written in the iteration")

    # --- nested regions -------------------------------------------------------------------

    def enter(self, op: ir.Operation) -> trampoline.Nested:
        """The regions of `op`: leaves in `self.state` what holds after them."""
        name = op.name
        entry = self.state
        if name == "scf.if":
            then_state = yield self.walk_region(op.regions[0], entry)
            if len(op.regions) > 1 and len(op.regions[1].blocks):
                else_state = yield self.walk_region(op.regions[1], entry)
            else:
                else_state = entry
            self.state = _meet(then_state, else_state)
            return
        if name == "scf.for":
            entry = entry.copy()
            self.state = entry
            self.forget_extents(op)  # a resize in the body reaches the next iteration
            body_state = yield self.walk_region(op.regions[0], entry)
            self.state = body_state if static_trip_count(op) else entry
            self.forget_extents(op)
            return
        for region in op.regions:
            yield self.walk_region(region, entry)
        self.state = entry.copy()
        self.forget_extents(op)


def never_written(op: ir.Operation) -> str:
    """Why a buffer the loop reads but never writes keeps its one buffer."""
    return f"it is never written in the loop: '{op_display_name(op.name)}' reads what it holds from before the loop"


def _inside(op: ir.Operation, ancestor: ir.Operation) -> bool:
    parent = op.parent
    while parent is not None:
        if parent == ancestor:
            return True
        parent = parent.parent
    return False


def _enclosing_ops(aliases, loop: ir.Operation) -> set[ir.Operation]:
    """The ops inside `loop` whose regions hold a use of a tracked alias: the
    walk enters only these (a deep nest that never touches the tracked
    buffers costs nothing)."""
    touched: set[ir.Operation] = set()
    for value in aliases:
        for use in value.uses:
            parent = use.owner.operation.parent
            while parent is not None and parent != loop and parent not in touched:
                touched.add(parent)
                parent = parent.parent
    return touched


UsesOf = Callable[[ir.Value], "list[tuple[ir.Operation, int]] | None"]
"""The (owner op, operand number) of a value's uses, read before, or None."""

UNDECIDED = object()
# Uses after which the first op alone does not decide: views (their reads
# and writes are elsewhere) and valid-shape changes.
_NOT_STRAIGHT = VIEW_OPS | {_SET_VALIDSHAPE}


def straight_line_verdict(
    buffer: ir.Value,
    body: ir.Block,
    uses: list | None = None,
    extents: ValidExtents | None = None,
    facts: LoopBody | None = None,
):
    """The verdict for a buffer whose every use is a catalogue op directly in
    `body` (the common case), from its uses alone: loop-carried when the
    first op that touches it reads it, iteration-local when that op writes
    every element any later op reads of it. `UNDECIDED` when the uses are
    not that simple (nested regions, aliases, views, unknown ops, a later
    write needed): the full walk decides. `uses` may give the (owner op,
    operand number) of its uses, read before; `extents` the run's
    `ValidExtents`; `facts` the loop body read before (`body` is its
    block), whose ops' names, order and layouts it then reads no more."""
    if uses is None:
        uses = [(use.owner.operation, use.operand_number) for use in buffer.uses]
    first = None
    numbers: dict[ir.Operation, set[int]] = {}  # per op, the operand positions that are the buffer
    records: dict[ir.Operation, BodyOp] = {}
    for owner, number in uses:
        if owner in numbers:
            numbers[owner].add(number)
            continue
        if facts is not None:
            record = facts.of.get(owner)
            if record is None or record.nested:
                return UNDECIDED
        else:
            if owner.block != body:
                return UNDECIDED
            record = BodyOp(owner, owner.name, 0, -1, False)
        if record.spec is None or record.name in _NOT_STRAIGHT:
            return UNDECIDED
        numbers[owner] = {number}
        records[owner] = record
        if first is None or (record.order < first.order if facts is not None else owner.is_before_in_block(first.op)):
            first = record
    if first is None:
        return None  # never used: nothing to carry
    layout = first.layout
    if any(i in layout.reads for i in numbers[first.op]):
        if not any(i in records[owner].layout.writes for owner, positions in numbers.items() for i in positions):
            return Carried(first.op, never_written(first.op))
        return Carried(first.op, f"it is read by '{op_display_name(first.name)}' before it is written in the iteration")
    if extents is None:
        extents = ValidExtents()
    root = buffer_root_geometry(buffer)
    tile = tile_type(buffer.type)
    if tile is not None:
        extents.not_resized(buffer, tile)  # every use is an op of the catalogue in the body
    first_regions = op_regions(first.op, extents, frozenset(numbers[first.op]), layout, first.operands)
    written = tuple(Rect(root, rows, cols) for _, rows, cols in first_regions.writes)
    if root is None or not written:
        return UNDECIDED  # its first use does not write a known part of it
    rows, cols = root.shape
    if any(isinstance(w.rows, int) and w.rows >= rows and isinstance(w.cols, int) and w.cols >= cols for w in written):
        return None  # written whole: whatever later ops read of it is covered
    size = root_bytes(buffer)
    for owner, positions in numbers.items():
        record = records[owner]
        if record is first or not any(i in record.layout.reads for i in positions):
            continue
        for _, rows, cols in op_regions(owner, extents, frozenset(positions), record.layout, record.operands).reads:
            if not covered(Rect(root, rows, cols), written, size):
                return UNDECIDED  # maybe written by another op before: the walk decides
    return None


def _local_through_its_slot(buffer: ir.Value, body: ir.Block, extents: ValidExtents | None, uses_of: UsesOf | None = None):
    """None (iteration-local) for a multi-tile region whose one use is a
    `pto.multi_tile_get` directly in `body` (the form the conversion
    makes), when that slot is iteration-local by `straight_line_verdict`:
    the walk would see the same accesses, through the one view, with the
    same geometry and extents (`ValidExtents.defined` both ways), so it
    finds every read covered too. `UNDECIDED` otherwise, for the walk
    (whose reasons, for a carried region, name the view). `uses_of` as
    `loop_carried_buffers` takes it."""
    uses = uses_of(buffer) if uses_of is not None else None
    if uses is None:
        uses = [(use.owner.operation, use.operand_number) for use in buffer.uses]
    if len(uses) != 1 or uses[0][1] != 0:
        return UNDECIDED
    get = uses[0][0]
    if get.name != "pto.multi_tile_get" or get.block != body:
        return UNDECIDED
    slot = get.results[0]
    verdict = straight_line_verdict(slot, body, uses_of(slot) if uses_of is not None else None, extents=extents)
    return None if verdict is None else UNDECIDED


def _track(
    buffer: ir.Value,
    aliases: dict[ir.Value, tuple[_Alias, ...]],
    resizes: list[ir.Operation],
    constants: ConstantInts,
    name: ir.Value | None = None,
) -> None:
    """Map every alias of `buffer` to it (or to `name`, a buffer naming the
    same bytes), with its geometry; note the set_validshape ops on them."""
    root = buffer_root_geometry(buffer)
    if root is None:
        return
    named = buffer if name is None else name
    work = [(buffer, root)]
    seen: set[ir.Value] = set()
    while work:
        value, geometry = work.pop()
        for alias in forward_aliases(value):
            if alias in seen:
                continue
            seen.add(alias)
            aliases[alias] = (*aliases.get(alias, ()), _Alias(named, geometry, value))
            for use in alias.uses:
                owner = use.owner.operation
                if use.operand_number != 0:
                    continue
                if owner.name in VIEW_OPS:
                    view = view_geometry(owner, geometry, constants)
                    if view is not None:
                        work.append((owner.results[0], view))
                elif owner.name == _SET_VALIDSHAPE:
                    resizes.append(owner)


def loop_carried_buffers(
    loop: ir.Operation,
    buffers,
    verdicts=None,
    extents: ValidExtents | None = None,
    same_bytes: dict[ir.Value, ir.Value] | None = None,
    uses_of: UsesOf | None = None,
) -> dict[ir.Value, Carried]:
    """Of `buffers` (values defined by allocs inside `loop`'s body, at any
    depth), those that are loop-carried through memory in `loop`, with why.
    `verdicts` may hold the `straight_line_verdict`s already computed;
    `uses_of(value)` the (owner op, operand number) of a value's uses, read
    before (None: not read). `same_bytes` maps a buffer to another that names the very same bytes
    (tiles of one type at one constant address: PyPTO renames a buffer by
    allocating it again there); such buffers are one root and share their
    verdict."""
    body = loop.regions[0].blocks[0]
    constants = extents.constants if extents is not None else ConstantInts()
    carried: dict[ir.Value, Carried] = {}
    aliases: dict[ir.Value, tuple[_Alias, ...]] = {}
    resizes: list[ir.Operation] = []
    same_bytes = same_bytes or {}
    members: dict[ir.Value, list[ir.Value]] = {}
    for b in buffers:
        members.setdefault(same_bytes.get(b, b), []).append(b)
    for root, group in members.items():
        if len(group) > 1 or root not in group:
            for b in group:
                _track(b, aliases, resizes, constants, root)
            continue
        b = group[0]
        if verdicts is not None and b in verdicts:
            verdict = verdicts[b]
        else:
            verdict = straight_line_verdict(b, body, uses_of(b) if uses_of is not None else None, extents=extents)
        if verdict is UNDECIDED:
            verdict = _local_through_its_slot(b, body, extents, uses_of)
        if verdict is UNDECIDED:
            _track(b, aliases, resizes, constants)
        elif verdict is not None:
            carried[b] = verdict
    if aliases:
        walker = _Walker(aliases, _enclosing_ops(aliases, loop.operation), resizes, constants, loop.operation)
        trampoline.run(walker.walk_region(loop.regions[0], _State()))
        carried.update(walker.carried)
    for root, group in members.items():
        if root in carried:
            for b in group:
                carried.setdefault(b, carried[root])
    if same_bytes:
        asked = set(buffers)
        carried = {b: why for b, why in carried.items() if b in asked}
    return carried
