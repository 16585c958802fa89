"""convert-to-ptoas-multi-buffer: pipeline loops to ptoas multi-buffer form."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.rewrite import RewritePatternSet, walk_and_apply_patterns

from .. import diagnostics
from ..allocs import AllocOperands, alloc_operands, create_alloc
from ..buffers import escape_reason, is_buffer
from ..catalogue import ALLOC_OPS, VIEW_OPS
from ..diagnostics import location_text
from ..ir_utils import ConstantInts, defined_inside, nested_in
from ..liveness import buffer_values
from ..loop_carried import UNDECIDED, loop_carried_buffers, straight_line_verdict
from ..loop_index import LoopBounds, build_slot_index, normalize_loop
from ..pass_infra import ModulePass, PassFailed, PassRun, option
from ..report import LoopDecision, TileDecision
from ..targets import ARCH_NAMES, space_spec
from ..types import LOW_PRECISION, ROW_PLUS_ONE, SPACES, MultiTileBufType, TileBufType, TypeBuilder, align_up, buffer_type, tile_type
from ..vocabulary import (
    MAX_SLOTS,
    MIN_SLOTS,
    ArchError,
    asks_for_buffering,
    pipeline_stages,
    resolve_arch,
    set_pipeline_stages,
    stages_attr,
)


@dataclass
class _Tile:
    alloc: ir.Operation
    value: ir.Value
    view: TileBufType | None
    reason: str = ""  # why it is not multi-buffered; "" when eligible
    operands: AllocOperands = AllocOperands()

    @property
    def space(self) -> str:
        return self.view.loc if self.view else "?"

    @property
    def type_text(self) -> str:
        return str(self.view or self.value.type)


def _nested_ops(op: ir.Operation):
    """(op, each op directly in its regions), in program order."""
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield op, inner


def _collect_nested_tiles(op: ir.Operation, tiles: list[_Tile]) -> None:
    """The allocs inside `op`'s regions that belong to the enclosing pipeline
    loop, in program order: everything but what a nested pipeline loop owns.
    Not eligible: a nested region is a boundary (docs/passes.md, rule 1).
    The walk keeps its own stack: nesting depth is the user's."""
    if asks_for_buffering(op):
        return
    stack = [_nested_ops(op)]
    while stack:
        for outer, inner in stack[-1]:
            if inner.name == "pto.alloc_tile":
                value = inner.results[0]
                reason = f"it is defined inside a nested '{outer.name}', not directly in the pipeline loop's body"
                tiles.append(_Tile(inner, value, tile_type(value.type), reason))
            elif len(inner.regions) and not asks_for_buffering(inner):
                stack.append(_nested_ops(inner))
                break
        else:
            stack.pop()


@dataclass(frozen=True)
class ConvertToPtoasMultiBuffer(ModulePass):
    """Turn pipeline loops into ptoas multi-buffer form.

    For every `scf.for` with `pto.pipeline_stages = N`, N >= 2, each eligible
    tile gets one `pto.alloc_multi_tile` of N slots hoisted right before the
    loop, and its `pto.alloc_tile` in the body becomes, at the same place,
    `pto.multi_tile_get %mb[%slot]`. All tiles of a loop share one slot value,
    `((iv - lb) / step) mod N`, which is exactly `arith.remui %iv, %cN` when
    step = 1 and lb is a constant >= 0 (the form ptoas derives per-slot events
    from). The loop then gets `pto.pipeline_stages = 1`.

    A tile is eligible when it is a `pto.alloc_tile` without `addr`, directly
    in the loop body (a nested loop or `scf.if` is a boundary), its space is in
    `spaces`, it is iteration-local (every iteration writes it before reading
    it: a tile read before it is written, like a `tmatmul_acc` accumulator or
    an in-place update, keeps its one buffer, or iteration i would read
    iteration i-N's data), and it does not escape (yielded, passed to a
    nested loop's iter_args, used by an op the pass does not know). When the N
    slots of a loop's tiles do not fit a space beside what else the loop
    holds there (the most bytes its single tiles hold at once, plus the
    buffers from before the loop that it uses), the loop gets the largest
    N' >= 2 that fits, else stays as it is; more than 16 slots (the most a
    multi-tile buffer holds) become 16. Every tile or loop not converted,
    and every reduced slot count, is reported as a remark with the reason;
    the same decisions are in the pass report (Python API). Running the pass
    twice equals running it once.

    Before:

        scf.for %i = %c0 to %c8 step %c1 {
          %t = "pto.alloc_tile"() : () -> !t
          "pto.tload"(%src, %i, %c0, %t) : (memref<128x16xf32>, index, index, !t) -> ()
          "pto.texp"(%t, %t2) : (!t, !t) -> ()
          ...
        } {pto.pipeline_stages = 2 : i64}

    After:

        %mb = "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<!t, 2 : i64>
        scf.for %i = %c0 to %c8 step %c1 {
          %c2 = arith.constant 2 : index
          %slot = arith.remui %i, %c2 : index
          %t = "pto.multi_tile_get"(%mb, %slot) : (!pto.multi_tile_buf<!t, 2 : i64>, index) -> !t
          "pto.tload"(%src, %i, %c0, %t) : (memref<128x16xf32>, index, index, !t) -> ()
          ...
        } {pto.pipeline_stages = 1 : i64}

    With `normalize-loops=true`, a loop whose step is not 1 or whose lower
    bound is not a constant >= 0 is first rewritten to `lb = 0, step = 1`
    (the body uses `lb + k * step`), so its slot is `arith.remui %k, %cN` too.
    """

    name: ClassVar[str] = "convert-to-ptoas-multi-buffer"
    records_changes: ClassVar[bool] = True
    spaces: tuple[str, ...] = option(("vec", "mat"), "memory spaces whose tiles are multi-buffered", choices=SPACES)
    normalize_loops: bool = option(False, "rewrite non-canonical loops to lb = 0, step = 1 so the slot is arith.remui %k, %cN")
    arch: str | None = option(None, "target arch for capacities (default: the module's pto.target_arch, else a2a3)", choices=ARCH_NAMES)

    def apply(self, run: PassRun, module: ir.Operation) -> None:
        try:
            arch = resolve_arch(module, self.arch)
        except ArchError as e:
            diagnostics.emit_error(module.location, str(e))
            raise PassFailed() from None
        conversion = _Conversion(self, run, arch, module.context)
        patterns = RewritePatternSet()
        patterns.add("scf.for", lambda op, rewriter: conversion.convert_loop(op.operation))
        walk_and_apply_patterns(module, patterns.freeze())


def _resized(tile: ir.Value) -> bool:
    """Whether `tile`, or a treshape of it, is the source of a set_validshape."""
    work = [tile]
    while work:
        for use in work.pop().uses:
            owner = use.owner
            if owner.name == "pto.set_validshape":
                return True
            if owner.name == "pto.treshape":
                work.append(owner.results[0])
    return False


class _Conversion:
    """One run of the pass over one module: its options, where its
    decisions go, and what it builds once and reuses for every loop."""

    def __init__(self, options: ConvertToPtoasMultiBuffer, run: PassRun, arch: str, context: ir.Context) -> None:
        self.name = options.name
        self.spaces = options.spaces
        self.normalize_loops = options.normalize_loops
        self.run = run
        self.arch = arch
        self.constants = ConstantInts()
        self.types = TypeBuilder(context)
        self.converted_stages = stages_attr(1, context)
        self.block_buffers: dict[ir.Block, list[ir.Value]] = {}  # buffers_defined_in, per block

    # -- per loop ----------------------------------------------------------------

    def convert_loop(self, loop: ir.Operation) -> bool:
        """The pattern: returns False when it rewrote `loop` (pattern
        convention: a falsy result is success)."""
        requested = pipeline_stages(loop)
        if requested is None or requested < 2:
            return True
        decision = LoopDecision(self.name, location_text(loop.location), requested, converted=False)
        self.run.report.loops.append(decision)
        problem = LoopBounds.of(loop, self.constants).step_problem
        if problem is not None:
            self.decline(loop, decision, problem)
            return True
        tiles = self.collect_tiles(loop)
        eligible = [t for t in tiles if not t.reason]
        for t in tiles:
            decision.tiles.append(TileDecision(location_text(t.alloc.location), t.space, t.type_text, not t.reason, t.reason))
            if t.reason:
                diagnostics.emit_remark(t.alloc.location, f"tile is not multi-buffered: {t.reason}")
        if not eligible:
            reason = "no tile in its body is eligible for multi-buffering" if tiles else "its body allocates no tile"
            self.decline(loop, decision, reason)
            return True
        wanted = requested
        if requested > MAX_SLOTS:
            wanted = MAX_SLOTS
            note = f"pipeline loop asks for {requested} slots but a multi-tile buffer holds at most {MAX_SLOTS}; using {MAX_SLOTS}"
            decision.reasons.append(note)
            diagnostics.emit_remark(loop.location, note)
        slots, reason = self.fit_slots(wanted, eligible, self.bytes_beside(loop, tiles))
        if slots < MIN_SLOTS:
            self.decline(loop, decision, reason)
            for t in decision.tiles:
                t.converted = False
            return True
        if slots < wanted:
            decision.reasons.append(reason)
            diagnostics.emit_remark(loop.location, reason)
        self.rewrite(loop, eligible, slots)
        decision.converted = True
        decision.slots = slots
        if self.run.verbose:
            diagnostics.emit_remark(
                loop.location,
                f"pipeline loop converted to {slots}-slot multi-buffering of {len(eligible)} tile(s)",
            )
        return False

    def decline(self, loop: ir.Operation, decision: LoopDecision, reason: str) -> None:
        decision.reasons.append(reason)
        diagnostics.emit_remark(loop.location, f"pipeline loop is not converted: {reason}")

    def collect_tiles(self, loop: ir.Operation) -> list[_Tile]:
        """The loop's tiles (the `pto.alloc_tile`s whose nearest pipeline loop
        is this one), each with why it is not eligible, if it is not."""
        body = loop.regions[0].blocks[0]
        tiles: list[_Tile] = []
        for op in body.operations:
            if op.name == "pto.alloc_tile":
                tiles.append(self.direct_tile(op, loop))
            elif len(op.regions):
                _collect_nested_tiles(op, tiles)
        # One look at a tile's uses settles the common case (all of them
        # catalogue ops in the body); only the others need the escape check
        # and the full walk.
        verdicts = {}
        undecided = []
        for t in tiles:
            if t.reason:
                continue
            verdict = verdicts[t.value] = straight_line_verdict(t.value, body)
            if verdict is UNDECIDED:
                t.reason = escape_reason(t.value) or ""
                if not t.reason:
                    undecided.append(t.value)
            elif verdict is not None:
                t.reason = f"it is loop-carried through memory: {verdict.reason}"
        if undecided:
            carried = loop_carried_buffers(loop, undecided, verdicts)
            for t in tiles:
                why = carried.get(t.value)
                if why is not None and not t.reason:
                    t.reason = f"it is loop-carried through memory: {why.reason}"
        return tiles

    def direct_tile(self, alloc: ir.Operation, loop: ir.Operation) -> _Tile:
        value = alloc.results[0]
        operands = alloc_operands(alloc)
        tile = _Tile(alloc, value, tile_type(value.type), operands=operands)
        view = tile.view
        if operands.addr is not None:
            tile.reason = "it has an explicit addr"
        elif tile.space not in self.spaces:
            tile.reason = f"its space \"{tile.space}\" is not in spaces={','.join(self.spaces)}"
        elif view is not None and view.compact == ROW_PLUS_ONE:
            tile.reason = "it uses row_plus_one compaction, whose padded rows would overlap the next slot"
        elif view is not None and view.dtype in LOW_PRECISION:
            tile.reason = f"its element type {view.dtype} cannot be a multi-tile slot (ptoas does not support it yet)"
        else:
            inside = next((v for v in operands.valid if defined_inside(v, loop)), None)
            if inside is not None:
                which = "valid_row" if operands.valid_row is not None and inside == operands.valid_row else "valid_col"
                tile.reason = f"its {which} operand is defined inside the loop, so it cannot size a buffer made before it"
            elif _resized(value):
                tile.reason = "it is resized by pto.set_validshape, which ptoas allows on a pto.alloc_tile only, not on a multi-tile slot"
        return tile

    def bytes_beside(self, loop: ir.Operation, tiles: list[_Tile]) -> dict[str, int]:
        """Per space, the most bytes that buffers other than the loop's
        multi-buffered tiles hold at one point of the loop body: its tiles
        that stay single, each live from its alloc to its last use (by the
        body op that holds them), plus every buffer defined before the loop
        and used in it, live throughout. Buffers live across the loop but
        not used in it are not seen (the allocator still counts them)."""
        beside: dict[str, int] = {}
        for value in self.used_from_outside(loop):
            size, space = self.buffer_bytes(value.type), buffer_type(value.type).loc
            beside[space] = beside.get(space, 0) + size
        single = [t for t in tiles if t.reason and t.view is not None]
        if not single:
            return beside
        body = loop.regions[0].blocks[0]
        position: dict[ir.Operation, int] = {}  # every op in the body -> the index of the body op holding it
        for index, view in enumerate(body.operations):
            stack = [view.operation]
            while stack:
                op = stack.pop()
                position[op] = index
                stack.extend(inner.operation for region in op.regions for block in region.blocks for inner in block.operations)
        events: dict[str, list[tuple[int, int]]] = {}
        for t in single:
            start = end = position.get(t.alloc, 0)
            for value in buffer_values(t.alloc):
                for use in value.uses:
                    end = max(end, position.get(use.owner.operation, len(position)))
            size = self.buffer_bytes(t.value.type)
            events.setdefault(t.space, []).extend(((start, size), (end + 1, -size)))
        for space, changes in events.items():
            live = peak = 0
            for _, change in sorted(changes):
                live += change
                peak = max(peak, live)
            beside[space] = beside.get(space, 0) + peak
        return beside

    def used_from_outside(self, loop: ir.Operation) -> list[ir.Value]:
        """The buffer values defined before `loop` (in the blocks around it)
        that ops inside it use."""
        used = []
        op = loop
        while op is not None and op.name != "func.func":
            block = op.block
            for value in self.buffers_defined_in(block):
                if any(nested_in(use.owner.operation, loop) for use in value.uses):  # the loop op itself too (an iter_args init)
                    used.append(value)
            owner = block.owner
            op = owner.operation if owner is not None else None
        return used

    def buffers_defined_in(self, block: ir.Block) -> list[ir.Value]:
        """The buffer values a block defines: its arguments, and the results
        of its allocs, views and region ops (an scf.for or scf.if yielding
        a tile), once per block and run."""
        found = self.block_buffers.get(block)
        if found is None:
            found = [a for a in block.arguments if is_buffer(a)]
            for view in block.operations:
                op = view.operation
                if op.name in ALLOC_OPS or op.name in VIEW_OPS or (len(op.regions) and len(op.results)):
                    found.extend(r for r in op.results if is_buffer(r))
            self.block_buffers[block] = found
        return found

    def buffer_bytes(self, t: ir.Type) -> int:
        view = buffer_type(t)
        alignment = space_spec(self.arch, view.loc).alignment
        if isinstance(view, MultiTileBufType):
            return view.region_bytes(alignment)
        return align_up(view.nbytes, alignment)

    def fit_slots(self, requested: int, tiles: list[_Tile], beside: dict[str, int]) -> tuple[int, str]:
        """The largest slot count in [2, requested] at which the loop's
        multi-buffered tiles fit every space next to what else the loop
        holds (`bytes_beside`), with the remark text when it is less than
        requested (0 when even 2 do not fit)."""
        strides: dict[str, int] = {}
        for t in tiles:
            alignment = space_spec(self.arch, t.space).alignment
            # a slot's stride counts its dense bytes (row_plus_one tiles are not slots)
            strides[t.space] = strides.get(t.space, 0) + align_up(t.view.dense_bytes, alignment)
        slots = requested
        limiting = None
        for space, stride_sum in strides.items():
            capacity = space_spec(self.arch, space).capacity - beside.get(space, 0)
            fit = max(capacity, 0) // stride_sum
            if fit < slots:
                slots, limiting = fit, space
        if limiting is None:
            return requested, ""
        capacity = space_spec(self.arch, limiting).capacity
        others = beside.get(limiting, 0)
        per_slot = strides[limiting]
        beside_text = f" beside {others} bytes of other buffers" if others else ""
        if slots < MIN_SLOTS:
            return 0, (
                f"even {MIN_SLOTS} slots of its tiles need {MIN_SLOTS * per_slot} bytes of "
                f"\"{limiting}\"{beside_text}, more than its {capacity} bytes on {self.arch}"
            )
        return slots, (
            f"pipeline loop asks for {requested} slots but only {slots} fit in \"{limiting}\" "
            f"({slots} x {per_slot} = {slots * per_slot}{beside_text} of {capacity} bytes on {self.arch}); using {slots}"
        )

    # -- rewriting ----------------------------------------------------------------

    def rewrite(self, loop: ir.Operation, tiles: list[_Tile], slots: int) -> None:
        bounds = LoopBounds.of(loop, self.constants)
        if self.normalize_loops and not bounds.is_ptoas_canonical:
            normalize_loop(loop)
            bounds = LoopBounds.of(loop)
        index = ir.IndexType.get()
        regions = []
        with ir.InsertionPoint(loop):
            for t in tiles:
                region_type = self.types.get(MultiTileBufType(t.view, slots))
                region = create_alloc("pto.alloc_multi_tile", region_type, t.operands.with_addr(None), loc=t.alloc.location)
                self.run.changed(region)
                regions.append(region.result)
        body = loop.regions[0].blocks[0]
        # The slot count constant goes next to its one use, the slot index,
        # at the top of the body.
        with ir.InsertionPoint.at_block_begin(body), loop.location:
            count = ir.Operation.create(
                "arith.constant", results=[index], attributes={"value": ir.IntegerAttr.get(index, slots)}
            ).result
            slot = build_slot_index(loop, count, bounds)
        for t, region in zip(tiles, regions):
            get = ir.Operation.create(
                "pto.multi_tile_get",
                results=[t.value.type],
                operands=[region, slot],
                loc=t.alloc.location,
                ip=ir.InsertionPoint(t.alloc),
            )
            self.run.changed(get)
            t.value.replace_all_uses_with(get.result)
            t.alloc.erase()
        set_pipeline_stages(loop, self.converted_stages)
        self.run.changed(loop)
