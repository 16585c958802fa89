"""Lowering the slot count of a multi-tile buffer whose iterations do not
depend on each other (docs/passes.md, `pto-allocate-memory-addr`, `degrade`).

A multi-tile buffer used in a loop at slot `x mod N` holds N copies of a
tile that iterations take turns on. When no iteration reads what an earlier
one left in it (it is iteration-local in the loop: `loop_carried.py`), the
number of copies changes only how far apart iterations may run, never what
they compute: N - 1 slots at `x mod (N - 1)` give the same results, and one
slot is the plain tile. This is how a pipeline that does not fit its memory
gives up depth instead of failing (CONTRACT 2.4).

A buffer qualifies when it has no `addr`, each of its uses is a
`pto.multi_tile_get` whose slot is `arith.remui x, c` (or that cast to
index) with the constant c its slot count, all in one `scf.for` whose body defines x (its induction
variable or a value computed from it), and it is iteration-local there.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from ..analysis.loop_carried import loop_carried_buffers
from ..dialect.allocs import alloc_operands, create_alloc
from ..dialect.types import MultiTileBufType, TypeBuilder, multi_tile_type
from ..support.ir_utils import constant_int, nested_in
from ..support.value_names import unnamed


@dataclass(frozen=True)
class Step:
    """One slot taken from a multi-tile buffer."""

    loop: ir.Operation
    space: str
    slot_type: str
    before: int
    after: int
    freed: int
    cycles_text: str = ""


_CASTS = ("arith.index_castui", "arith.index_cast")


def _remui_count(slot: ir.Value) -> tuple[ir.Value, int, str | None] | None:
    """(x, c, cast) when `slot` is `arith.remui x, c` with a constant c, or
    that remainder cast to index (`cast`: the cast op's name; the
    conversion computes a slot in the induction variable's type)."""
    cast = None
    if not isinstance(slot, ir.BlockArgument) and slot.owner.name in _CASTS:
        cast = slot.owner.name
        slot = slot.owner.operands[0]
    if isinstance(slot, ir.BlockArgument) or slot.owner.name != "arith.remui":
        return None
    c = constant_int(slot.owner.operands[1])
    return (slot.owner.operands[0], c, cast) if c is not None else None


def _defining_loop(x: ir.Value) -> ir.Operation | None:
    """The scf.for whose body defines `x` (its induction variable, or a
    value computed from it there): the loop whose iterations the slot
    follows."""
    op = x.owner.owner if isinstance(x, ir.BlockArgument) else x.owner.operation.parent
    return op if op is not None and op.name == "scf.for" else None


def lower_by_one(alloc: ir.Operation, alignment: int) -> Step | None:
    """Take one slot from the multi-tile buffer `alloc` defines, if it
    qualifies (module docstring); None, changing nothing, if it does not."""
    region = alloc.results[0]
    view = multi_tile_type(region.type)
    if view is None or alloc_operands(alloc).addr is not None:
        return None
    gets = []
    loop = None
    for use in region.uses:
        owner = use.owner.operation
        if owner.name != "pto.multi_tile_get" or use.operand_number != 0:
            return None
        form = _remui_count(owner.operands[1])
        if form is None or form[1] != view.count:
            return None
        where = _defining_loop(form[0])
        if where is None or (loop is not None and where != loop) or not nested_in(owner, where):
            return None
        loop = where
        gets.append((owner, form[0], form[2]))
    if loop is None or loop_carried_buffers(loop, [region]):
        return None
    before_cycles = _cycles(loop)
    after = view.count - 1
    freed = view.stride(alignment)
    loc = alloc.location
    operands = alloc_operands(alloc)
    if after == 1:
        new = create_alloc("pto.alloc_tile", view.slot.to_ir(region.type.context), operands, loc=loc, ip=ir.InsertionPoint(alloc))
        for get, _, _ in gets:
            get.results[0].replace_all_uses_with(new.results[0])
            get.erase()
    else:
        smaller = MultiTileBufType(view.slot, after)
        new = create_alloc("pto.alloc_multi_tile", TypeBuilder(region.type.context).get(smaller), operands, loc=loc, ip=ir.InsertionPoint(alloc))
        for get, x, cast in gets:
            with ir.InsertionPoint(get), unnamed(get.location):
                count = ir.Operation.create("arith.constant", results=[x.type], attributes={"value": ir.IntegerAttr.get(x.type, after)}).result
                slot = ir.Operation.create("arith.remui", results=[x.type], operands=[x, count]).result
                if cast is not None:
                    slot = ir.Operation.create(cast, results=[ir.IndexType.get()], operands=[slot]).result
            replacement = ir.Operation.create(
                "pto.multi_tile_get", results=[get.results[0].type], operands=[new.results[0], slot], loc=get.location, ip=ir.InsertionPoint(get)
            )
            get.results[0].replace_all_uses_with(replacement.results[0])
            get.erase()
    alloc.erase()
    after_cycles = _cycles(loop)
    cycles = ""
    if before_cycles is not None and after_cycles is not None:
        cycles = f"; modelled cycles per iteration {before_cycles:.0f} -> {after_cycles:.0f}"
    return Step(loop, view.loc, view.slot.ptoas(), view.count, after, freed, cycles)


def _cycles(loop: ir.Operation) -> float | None:
    """The loop's steady-state cycles per iteration by the static pipe
    schedule, or None where it cannot time the loop."""
    from .static_schedule import loop_schedule  # the pipe model: only for a loop that gives up depth

    try:
        return loop_schedule(loop).cycles_per_iteration
    except Exception:  # the model only advises: any failure leaves the figure out
        return None
