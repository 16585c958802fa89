"""Iteration-local or loop-carried through memory (docs/dialect.md, "Buffer semantics").

A `pto.alloc_tile` without `addr` inside a loop body is one buffer for every
iteration. It is *iteration-local* when every iteration fully writes it before
reading it; otherwise (accumulate, in-place update, a read first) it is
*loop-carried*: what iteration i-1 left in it is what iteration i reads.
Anything we cannot prove iteration-local counts as loop-carried.

We walk the loop body once in program order, keeping the set of buffers that
are *definitely* written so far in this iteration. An op reads its inputs
before it writes its output. A read of a tracked buffer that is not in the set
makes it loop-carried. Writes in an `scf.if` count only when both branches
make them; writes in a nested `scf.for` count only when its trip count is a
known constant >= 1 (it might run zero times). Accesses through aliases
(iter_args, yields, if results) count as accesses to every buffer the alias
may name (`buffers.forward_aliases`): a read reads each of them, and a write
is a definite write only when the alias can name just one tracked buffer
(`%r = scf.if ... yield %a ... yield %b`: writing %r writes %a or %b, so
neither is definitely written). A view of a tracked buffer (`subview`,
`treshape`) is an alias whose reads count and whose writes never do (a
view may cover part of its source only); a `set_validshape` forgets what
was written (the valid region a later read covers may be larger). A write
that covers part of the valid region only (`tsetval`) is no definite write.
A use the catalogue does not know counts as a read.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from . import trampoline
from .buffers import forward_aliases, op_access, op_display_name, view_results
from .catalogue import CATALOGUE, VIEW_OPS
from .loop_index import static_trip_count


@dataclass(frozen=True)
class Carried:
    """Why a buffer is loop-carried: the op that reads it first."""

    op: ir.Operation
    reason: str


_SET_VALIDSHAPE = "pto.set_validshape"


class _Walker:
    def __init__(self, roots: dict[ir.Value, set[ir.Value]], touched: set[ir.Operation], partial: set[ir.Value]) -> None:
        self.roots = roots  # alias value -> the tracked buffers it may name
        self.touched = touched  # region ops with a use of a tracked alias inside
        self.partial = partial  # aliases that are views: their writes are not definite
        self.carried: dict[ir.Value, Carried] = {}

    # The walk is a trampoline (trampoline.py): nesting depth is the user's.

    def walk_block(self, block: ir.Block, written: set[ir.Value]) -> trampoline.Nested:
        touched = self.touched
        for op in block.operations:
            written = self.access(op, written)
            if len(op.regions) and op.operation in touched:  # else nothing inside touches a tracked buffer
                written = yield self.enter(op, written)
        return written

    def walk_region(self, region: ir.Region, written: set[ir.Value]) -> trampoline.Nested:
        blocks = list(region.blocks)
        if len(blocks) != 1:  # unstructured control flow: writes not definite
            for block in blocks:
                yield self.walk_block(block, set(written))
            return written
        return (yield self.walk_block(blocks[0], set(written)))

    def read(self, value: ir.Value, op: ir.Operation, written: set[ir.Value], how: str) -> None:
        for root in self.roots.get(value, ()):
            if root not in written and root not in self.carried:
                self.carried[root] = Carried(op, f"it is {how} by '{op_display_name(op.name)}' before it is written in the iteration")

    def access(self, op: ir.Operation, written: set[ir.Value]) -> set[ir.Value]:
        """What `op` itself reads and writes (its operands, not its regions)."""
        if op.name == _SET_VALIDSHAPE:
            targets = self.roots.get(op.operands[0])
            return written - targets if targets else written
        access = op_access(op)
        for v in access.reads:
            self.read(v, op, written, "read")
        for v in access.escapes:
            if op.name not in ("scf.yield", "scf.for"):
                self.read(v, op, written, "used")
        for v in access.covers:
            targets = self.roots.get(v)
            if targets is not None and len(targets) == 1 and v not in self.partial:
                written = written | targets
        return written

    def enter(self, op: ir.Operation, written: set[ir.Value]) -> trampoline.Nested:
        """The regions of `op`: what is definitely written after them."""
        name = op.name
        if name == "scf.if":
            then_written = yield self.walk_region(op.regions[0], written)
            if len(op.regions) > 1 and len(op.regions[1].blocks):
                else_written = yield self.walk_region(op.regions[1], written)
            else:
                else_written = written
            return then_written & else_written
        if name == "scf.for":
            body_written = yield self.walk_region(op.regions[0], written)
            trips = static_trip_count(op)
            return body_written if trips else written
        for region in op.regions:
            yield self.walk_region(region, written)
        return written


def _enclosing_ops(roots: dict[ir.Value, set[ir.Value]], loop: ir.Operation) -> set[ir.Operation]:
    """The ops inside `loop` whose regions hold a use of a tracked alias: the
    walk enters only these (a deep nest that never touches the tracked
    buffers costs nothing)."""
    touched: set[ir.Operation] = set()
    for value in roots:
        for use in value.uses:
            parent = use.owner.operation.parent
            while parent is not None and parent != loop and parent not in touched:
                touched.add(parent)
                parent = parent.parent
    return touched


UNDECIDED = object()
# Uses after which the first op alone does not decide: views (their reads
# and writes are elsewhere) and valid-shape changes.
_NOT_STRAIGHT = VIEW_OPS | {_SET_VALIDSHAPE}


def straight_line_verdict(buffer: ir.Value, body: ir.Block, uses: list | None = None):
    """The verdict for a buffer whose every use is a catalogue op directly in
    `body` (the common case), from its uses alone: loop-carried iff the first
    op that touches it reads it. `UNDECIDED` when the uses are not that
    simple (nested regions, aliases, unknown ops): the full walk decides.
    `uses` may give the (owner op, operand number) of its uses, read before."""
    if uses is None:
        uses = [(use.owner.operation, use.operand_number) for use in buffer.uses]
    first = None
    first_uses = []
    for owner, number in uses:
        name = owner.name
        if name not in CATALOGUE or name in _NOT_STRAIGHT or owner.block != body:
            return UNDECIDED
        if first is None or owner.is_before_in_block(first):
            first, first_uses = owner, [number]
        elif owner == first:
            first_uses.append(number)
    if first is None:
        return None  # never used: nothing to carry
    layout = CATALOGUE[first.name].layout(first)
    if any(i in layout.reads for i in first_uses):
        return Carried(first, f"it is read by '{op_display_name(first.name)}' before it is written in the iteration")
    if not any(i in layout.covering_writes for i in first_uses):
        return UNDECIDED  # its first use does not write all of it
    return None


def _track(buffer: ir.Value, roots: dict[ir.Value, set[ir.Value]], partial: set[ir.Value]) -> None:
    """Map every alias of `buffer` to it; views (and their aliases) go in `partial`."""
    work = [(buffer, False)]
    seen: set[ir.Value] = set()
    while work:
        value, is_view = work.pop()
        for alias in forward_aliases(value):
            if alias in seen:
                continue
            seen.add(alias)
            roots.setdefault(alias, set()).add(buffer)
            if is_view:
                partial.add(alias)
            work.extend((v, True) for v in view_results(alias))


def loop_carried_buffers(loop: ir.Operation, buffers, verdicts=None) -> dict[ir.Value, Carried]:
    """Of `buffers` (values defined by allocs inside `loop`'s body, at any
    depth), those that are loop-carried through memory in `loop`, with why.
    `verdicts` may hold the `straight_line_verdict`s already computed."""
    body = loop.regions[0].blocks[0]
    carried: dict[ir.Value, Carried] = {}
    roots: dict[ir.Value, set[ir.Value]] = {}
    partial: set[ir.Value] = set()
    for b in buffers:
        verdict = verdicts[b] if verdicts is not None and b in verdicts else straight_line_verdict(b, body)
        if verdict is UNDECIDED:
            _track(b, roots, partial)
        elif verdict is not None:
            carried[b] = verdict
    if roots:
        walker = _Walker(roots, _enclosing_ops(roots, loop.operation), partial)
        trampoline.run(walker.walk_region(loop.regions[0], set()))
        carried.update(walker.carried)
    return carried
