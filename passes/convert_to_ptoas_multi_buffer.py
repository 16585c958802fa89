"""convert-to-ptoas-multi-buffer: pipeline loops to ptoas multi-buffer form."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.rewrite import RewritePatternSet, walk_and_apply_patterns

from ..analysis.buffers import escape_reason, op_display_name
from ..analysis.loop_body import BodyOp, LoopBody
from ..analysis.loop_carried import UNDECIDED, loop_carried_buffers, straight_line_verdict
from ..analysis.loop_index import LoopBounds, build_slot_index, normalization_problem, normalize_loop
from ..analysis.loop_memory import LoopMemory
from ..analysis.regions import ValidExtents
from ..dialect.allocs import AllocOperands, create_alloc
from ..dialect.annotations import MAX_SLOTS, MIN_SLOTS, ArchError, asks_for_buffering, pipeline_stages, resolve_arch, set_pipeline_stages, stages_attr
from ..dialect.scratch import tmp_to_add
from ..dialect.targets import ARCH_NAMES, space_spec
from ..dialect.types import LOW_PRECISION, ROW_PLUS_ONE, SPACES, MultiTileBufType, TileBufType, TypeBuilder, align_up, tile_type
from ..pass_infra import ModulePass, PassFailed, PassRun, option
from ..reports.decisions import EventIdTrade, LoopDecision, SlotModelNumbers, SlotTrade, TileDecision
from ..support import diagnostics
from ..support.diagnostics import location_text
from ..support.ir_utils import ConstantInts, Enclosing
from ..support.value_names import derived, unnamed


@dataclass
class _Tile:
    alloc: ir.Operation
    value: ir.Value
    view: TileBufType | None
    reason: str = ""  # why it is not multi-buffered; "" when eligible
    operands: AllocOperands = AllocOperands()
    uses: list | None = None  # (owner op, operand number) of each use, read once
    carried: bool = False  # loop-carried through memory: one buffer, live through the whole loop

    @property
    def space(self) -> str:
        return self.view.loc if self.view else "?"


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
                reason = f"it is defined inside a nested '{op_display_name(outer.name)}', not directly in the pipeline loop's body"
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
    from). The loop then gets `pto.pipeline_stages = 1`. Loops are as MLIR
    defines them (docs/dialect.md): the slot arithmetic is in the induction
    variable's type (`arith.remui %iv, %c2_i32 : i32` for an i32 one, cast to
    `index` with `arith.index_castui`), and an `scf.for unsigned` reads its
    constants unsigned (each is >= 0).

    A tile is eligible when it is a `pto.alloc_tile` without `addr`, directly
    in the loop body (a nested loop or `scf.if` is a boundary), its space is in
    `spaces`, it is iteration-local (every iteration writes it before reading
    it: a tile read before it is written, like a `tmatmul_acc` accumulator or
    an in-place update, keeps its one buffer, or iteration i would read
    iteration i-N's data), and it does not escape (yielded, passed to a
    nested loop's iter_args, used by an op the pass does not know). When the N
    slots of a loop's tiles do not fit a space beside what else the loop
    holds there (the most bytes its single tiles and the level3 tmps that
    pto-allocate-memory-addr will add to its ops hold at once, plus the
    buffers from before the loop that it uses), the loop gets the largest
    N' >= 2 that fits, else stays as it is; more than 16 slots (the most a
    multi-tile buffer holds) become 16. Every tile or loop not converted,
    and every reduced slot count, is reported as a remark with the reason;
    the same decisions are in the pass report (Python API). Running the pass
    twice equals running it once.

    Before (both tiles are iteration-local):

        !t = !pto.tile_buf<vec, 16x16xf32>
        !pv = !pto.partition_tensor_view<16x16xf32>
        func.func @k(%src: !pto.ptr<f32>, %dst: !pto.ptr<f32>) {
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          %c8 = arith.constant 8 : index
          %c16 = arith.constant 16 : index
          %c128 = arith.constant 128 : index
          %sv = pto.make_tensor_view %src, shape = [%c128, %c16], strides = [%c16, %c1] : !pto.tensor_view<128x16xf32>
          %dv = pto.make_tensor_view %dst, shape = [%c128, %c16], strides = [%c16, %c1] : !pto.tensor_view<128x16xf32>
          scf.for %i = %c0 to %c8 step %c1 {
            %row = arith.muli %i, %c16 : index
            %in = pto.partition_view %sv, offsets = [%row, %c0], sizes = [%c16, %c16] : !pto.tensor_view<128x16xf32> -> !pv
            %out = pto.partition_view %dv, offsets = [%row, %c0], sizes = [%c16, %c16] : !pto.tensor_view<128x16xf32> -> !pv
            %t = pto.alloc_tile : !t
            pto.tload ins(%in : !pv) outs(%t : !t)
            %e = pto.alloc_tile : !t
            pto.texp ins(%t : !t) outs(%e : !t)
            pto.tstore ins(%e : !t) outs(%out : !pv)
          } {pto.pipeline_stages = 2 : i64}
          return
        }

    After (as pto-opt prints it; `...` stands for lines left out):

        ...
        %t_mb = pto.alloc_multi_tile : !pto.multi_tile_buf<!pto.tile_buf<vec, 16x16xf32>, count=2>
        %e_mb = pto.alloc_multi_tile : !pto.multi_tile_buf<!pto.tile_buf<vec, 16x16xf32>, count=2>
        scf.for %i = %c0 to %c8 step %c1 {
          %c2 = arith.constant 2 : index
          %i_slot = arith.remui %i, %c2 : index
          ...
          %t = pto.multi_tile_get %t_mb[%i_slot] : !pto.multi_tile_buf<!pto.tile_buf<vec, 16x16xf32>, count=2> -> !pto.tile_buf<vec, 16x16xf32>
          pto.tload ins(%in : !pto.partition_tensor_view<16x16xf32>) outs(%t : !pto.tile_buf<vec, 16x16xf32>)
          %e = pto.multi_tile_get %e_mb[%i_slot] : !pto.multi_tile_buf<!pto.tile_buf<vec, 16x16xf32>, count=2> -> !pto.tile_buf<vec, 16x16xf32>
          pto.texp ins(%t : !pto.tile_buf<vec, 16x16xf32>) outs(%e : !pto.tile_buf<vec, 16x16xf32>)
          ...
        } {pto.pipeline_stages = 1 : i64}
        ...

    With `normalize-loops=true`, a loop whose step is not 1 or whose lower
    bound is not a constant >= 0 is first rewritten to `lb = 0, step = 1`
    (the body uses `lb + k * step`), so its slot is `arith.remui %k, %cN` too.
    The new upper bound is the trip count, `ceildivui(max(ub, lb) - lb,
    step)` in the induction variable's type (`maxui` for an unsigned loop),
    and the loop keeps its signedness (ptoas has no `scf.for unsigned`): a
    signed loop that may run more times than a signed loop from 0 counts (a
    signed i8 loop with dynamic bounds: up to 255 times, and 127 at most) is
    not normalized, with a remark, and keeps the general slot. (A 64-bit
    loop is taken to run fewer than 2^63 times.)

    With `replan=true`, the pass first drops the constant `addr` PyPTO gave
    every tile (what `pto-replan` does): tiles at overlapping bytes through
    which data flows become one unaddressed buffer and views of it
    (`pto.treshape`, `pto.subview`), a scratch PyPTO reused across lifetimes
    becomes separate buffers, and what cannot be expressed so keeps its
    addresses with a remark. The loops are then converted as if PyPTO had
    left the tiles unaddressed; the result computes what the addressed
    kernel computed.

    With `slots=model`, each eligible tile gets its own slot count in
    [1, N], chosen with the static pipe schedule (the costs and dependence
    rules of `pto-run --cycles`, docs/tools.md): a tile only one pipe
    touches gets 1 (that pipe runs in order, so a second slot overlaps
    nothing); the others start at N; while a space cannot hold them, a slot
    is taken from the tile that loses the fewest modelled cycles per
    iteration per byte freed; while ptoas's InsertSync would need more
    than its 8 event ids on a pipe pair (each back-edge sync of an N-slot
    region takes N; docs/timing.md, "Event ids"), a slot is taken the same
    way from a tile syncing on that pair, each such trade a remark at the
    tile; then each tile, largest first, keeps the
    fewest slots at which the loop stays within 1% of the best that fits.
    A tile left at 1 slot stays a `pto.alloc_tile`; each slot count has its
    own slot index (`arith.remui %iv, %c3` beside `%c2`). Every count is a
    remark at the tile with the cycles per iteration it was chosen by, the
    loop's remark gives the cycles with every tile single, with the choice
    and with `slots=uniform`, and the report carries the same numbers
    (`LoopDecision.model`, `TileDecision.slots`). When no tile gets a
    second slot the loop stays as it is but with `pto.pipeline_stages = 1`
    (replicating it would buy nothing either). A loop the static schedule
    cannot time (data-dependent control flow) keeps the single-pipe rule
    and gives its other tiles N slots, reduced together to fit (and to the
    event budget, largest tile first).

    With `slots=uniform`, a loop whose N slots need more event ids on a
    pipe pair than ptoas has gets a warning naming the syncs ptoas falls
    back on: one id for all of a region's slots (on that dependence they
    no longer overlap), or, when no id is left, a `PIPE_ALL` barrier.
    """

    name: ClassVar[str] = "convert-to-ptoas-multi-buffer"
    dependent_dialects: ClassVar[tuple[str, ...]] = ("arith",)  # the slot index
    records_changes: ClassVar[bool] = True
    spaces: tuple[str, ...] = option(("vec", "mat"), "memory spaces whose tiles are multi-buffered", choices=SPACES)
    normalize_loops: bool = option(False, "rewrite non-canonical loops to lb = 0, step = 1 so the slot is arith.remui %k, %cN")
    arch: str | None = option(None, "target arch for capacities (default: the module's pto.target_arch, else a2a3)", choices=ARCH_NAMES)
    slots: str = option(
        "uniform",
        "uniform: every eligible tile gets N slots; model: each its own count in [1, N], chosen by the pipe model",
        choices=("uniform", "model"),
    )
    replan: bool = option(False, "first drop the constant addresses PyPTO planned, keeping its aliases as views (pto-replan)")

    def apply(self, run: PassRun, module: ir.Operation) -> None:
        try:
            arch = resolve_arch(module, self.arch)
        except ArchError as e:
            diagnostics.emit_error(module.location, str(e))
            raise PassFailed() from None
        if self.replan:
            from ..analysis.replan import replan_module  # here: only replan=true needs it

            replan_module(module, run)
            # The rewrite below may erase allocs replan made: the check after
            # the pass looks at the whole module instead of a list of ops.
            run.changed_ops = None
        conversion = _Conversion(self, run, arch, module.context)
        patterns = RewritePatternSet()
        patterns.add("scf.for", lambda op, rewriter: conversion.convert_loop(op.operation))
        walk_and_apply_patterns(module, patterns.freeze())


def _resized(users: list[ir.Operation]) -> bool:
    """Whether a tile whose uses are by `users`, or a treshape of it, is the
    source of a set_validshape."""
    work = [users]
    while work:
        for owner in work.pop():
            name = owner.name
            if name == "pto.set_validshape":
                return True
            if name == "pto.treshape":
                work.append([use.owner.operation for use in owner.results[0].uses])
    return False


class _Conversion:
    """One run of the pass over one module: its options, where its
    decisions go, and what it builds once and reuses for every loop."""

    def __init__(self, options: ConvertToPtoasMultiBuffer, run: PassRun, arch: str, context: ir.Context) -> None:
        self.name = options.name
        self.spaces = options.spaces
        self.normalize_loops = options.normalize_loops
        self.by_model = options.slots == "model"
        self.run = run
        self.arch = arch
        self.constants = ConstantInts()
        self.extents = ValidExtents(self.constants)  # valid shapes of tiles, for what ops read and write
        self.types = TypeBuilder(context)
        self.converted_stages = stages_attr(1, context)
        self.memory = LoopMemory(arch)  # what else each loop holds
        self.enclosing = Enclosing()
        self.region_types: dict[tuple[ir.Type, int], ir.Type] = {}  # (tile type, slots) -> multi-tile type
        self.counts: dict[tuple[ir.Type, int], ir.Attribute] = {}  # (induction variable type, slot count) -> its attribute
        self.type_texts: dict[ir.Type, str] = {}  # a tile type as the report spells it (printing one costs ~6 us)
        self.type_kinds = None  # events.TypeKinds, made at the first loop whose event ids are counted

    # -- per loop ----------------------------------------------------------------

    def convert_loop(self, loop: ir.Operation) -> bool:
        """The pattern: returns False when it rewrote `loop` (pattern
        convention: a falsy result is success)."""
        requested = pipeline_stages(loop)
        if requested is None or requested < 2:
            return True
        decision = LoopDecision(self.name, location_text(loop.location), requested, converted=False)
        self.run.report.loops.append(decision)
        bounds = LoopBounds.of(loop, self.constants)
        problem = bounds.step_problem
        if problem is not None:
            self.decline(loop, decision, problem)
            return True
        body = LoopBody(loop)  # read once, for collect_tiles, bytes_beside and check_events
        tiles = self.collect_tiles(loop, body)
        eligible = [t for t in tiles if not t.reason]
        reasons = {t.reason for t in tiles}
        # A loop none of whose tiles gains, all for one reason, says so once.
        said_once = not eligible and len(tiles) > 1 and len(reasons) == 1 and not self.run.verbose
        for t in tiles:
            decision.tiles.append(TileDecision(location_text(t.alloc.location), t.space, self.type_text(t), not t.reason, t.reason))
            if t.reason and not said_once:
                diagnostics.emit_remark(t.alloc.location, f"tile is not multi-buffered: {t.reason}")
        if not eligible:
            if said_once:
                reason = f"none of the {len(tiles)} tiles in its body is eligible for multi-buffering, each for the same reason: {tiles[0].reason}"
            else:
                reason = "no tile in its body is eligible for multi-buffering" if tiles else "its body allocates no tile"
            self.decline(loop, decision, reason)
            return True
        wanted = requested
        if requested > MAX_SLOTS:
            wanted = MAX_SLOTS
            note = f"pipeline loop asks for {requested} slots but a multi-tile buffer holds at most {MAX_SLOTS}; using {MAX_SLOTS}"
            decision.reasons.append(note)
            diagnostics.emit_remark(loop.location, note)
        beside = self.bytes_beside(loop, tiles, body)
        slots, reason = self.fit_slots(wanted, eligible, beside)
        if slots < MIN_SLOTS and not self.by_model:
            # A space that cannot hold two slots keeps its tiles single; the
            # tiles of the spaces that can are still multi-buffered.
            short = self.short_spaces(eligible, beside)
            kept = [t for t in eligible if t.space not in short]
            if kept:
                for t in eligible:
                    if t.space in short:
                        t.reason = f"{MIN_SLOTS} slots of the loop's tiles in \"{t.space}\" do not fit there: {short[t.space]}"
                        self.mark_single(decision, t)
                eligible = kept
                beside = self.bytes_beside(loop, tiles, body)
                slots, reason = self.fit_slots(wanted, eligible, beside)
        if self.by_model:
            return self.convert_by_model(loop, bounds, decision, eligible, wanted, beside, slots)
        if slots < MIN_SLOTS:
            self.decline(loop, decision, reason)
            for t in decision.tiles:
                t.converted = False
            return True
        if slots < wanted:
            decision.reasons.append(reason)
            diagnostics.emit_remark(loop.location, reason)
        self.check_events(loop, decision, eligible, slots, body)
        self.rewrite(loop, bounds, decision, eligible, [slots] * len(eligible))
        decision.converted = True
        decision.slots = slots
        for t in decision.tiles:
            if t.converted:
                t.slots = slots
        if self.run.verbose:
            diagnostics.emit_remark(
                loop.location,
                f"pipeline loop converted to {slots}-slot multi-buffering of {len(eligible)} tile(s)",
            )
        return False

    def convert_by_model(
        self,
        loop: ir.Operation,
        bounds: LoopBounds,
        decision: LoopDecision,
        eligible: list[_Tile],
        wanted: int,
        beside: dict[str, int],
        uniform: int,
    ) -> bool:
        """slots=model: each eligible tile its own count (pto_dialect/timing/slot_model.py);
        every count is a remark with its numbers, and so is the loop's."""
        # Imported here: the pipe model brings the interpreter and numpy,
        # which a run with slots=uniform never needs at start-up.
        from ..timing.slot_model import Candidate, choose_slots, tile_pipes
        candidates = [
            Candidate(t.alloc, t.space, self.slot_stride(t), tile_pipes(t.alloc), location_text(t.alloc.location)) for t in eligible
        ]
        room = {c.space: space_spec(self.arch, c.space).capacity - beside.get(c.space, 0) for c in candidates}
        choice = choose_slots(loop, candidates, wanted, room, uniform if uniform >= MIN_SLOTS else 0, self.arch)
        decision.model = _model_numbers(choice)
        if not choice.timed:
            note = f"slots=model cannot time this loop ({choice.problem}); its tiles touched by more than one pipe keep the slots that fit"
            decision.reasons.append(note)
            diagnostics.emit_remark(loop.location, note)
        for trade in choice.trades:
            note = f"slots=model: {trade.describe()}"
            decision.reasons.append(f"slots=model, capacity: {trade.describe()}")  # the tile: decision.model.trades
            diagnostics.emit_remark(trade.alloc.location, note)
        for event_trade in choice.event_trades:
            note = f"slots=model: {event_trade.describe()}"
            decision.reasons.append(f"slots=model, event ids: {event_trade.describe()}")
            diagnostics.emit_remark(event_trade.alloc.location, note)
        if choice.fits and choice.events is not None and choice.events.over:
            note = f"slots=model: over ptoas's event budget whatever the slots of its tiles: {over_budget_text(choice.events)}"
            decision.reasons.append(note)
            diagnostics.emit_remark(loop.location, note)
        if not choice.fits:
            self.decline(loop, decision, f"its eligible tiles do not fit \"{choice.full_space}\" on {self.arch} even with one slot each")
            for t in decision.tiles:
                t.converted = False
            return True
        records = {t.location: t for t in decision.tiles}
        for t in eligible:
            count = choice.slots[t.alloc]
            text = f"slots=model: {count} slot{'s' if count != 1 else ''}: {choice.why[t.alloc]}"
            diagnostics.emit_remark(t.alloc.location, text)
            record = records.get(location_text(t.alloc.location))
            if record is not None:
                record.converted = count > 1
                record.slots = count
                if count == 1:
                    record.reason = text
        summary = self.model_summary(eligible, choice)
        buffered = [t for t in eligible if choice.slots[t.alloc] > 1]
        if not buffered:
            # Replicating the body would buy what the slots would: nothing.
            set_pipeline_stages(loop, self.converted_stages)
            self.run.changed(loop)
            decision.slots = 1
            self.decline(loop, decision, f"slots=model gives no tile a second slot ({summary}); pto.pipeline_stages is set to 1")
            return False
        counts = [choice.slots[t.alloc] for t in buffered]
        self.rewrite(loop, bounds, decision, buffered, counts)  # erases the allocs choice.slots is keyed by
        decision.converted = True
        decision.slots = max(counts)
        note = f"pipeline loop converted by slots=model: {summary}"
        decision.reasons.append(note)
        diagnostics.emit_remark(loop.location, note)
        return False

    def check_events(self, loop: ir.Operation, decision: LoopDecision, eligible: list[_Tile], slots: int, body: LoopBody) -> None:
        """slots=uniform: a warning when ptoas's InsertSync would run out of
        event ids for these slots (docs/timing.md, "Event ids"), saying what
        it falls back to."""
        from ..analysis import events

        if self.type_kinds is None:
            self.type_kinds = events.TypeKinds()
        try:
            accesses = events.loop_accesses(loop, self.type_kinds, body)
            counts = {t.value: slots for t in eligible}
            if events.surely_within_budget(accesses, counts):
                return  # the common case, told without placing the syncs
            plan = events.plan(accesses, counts)
        except Exception as err:  # noqa: BLE001 - the count only advises: the conversion is correct without it
            note = f"slots=uniform: the event-id count failed on this loop ({type(err).__name__}: {err}); ptoas's event budget is not checked"
            decision.reasons.append(note)
            diagnostics.emit_remark(loop.location, note)
            return
        if not plan.over:
            return
        note = f"slots=uniform: {slots} slots for every tile: {over_budget_text(plan)}; slots=model chooses slots within the budget"
        decision.reasons.append(note)
        diagnostics.emit_warning(loop.location, note)

    @staticmethod
    def model_summary(eligible: list[_Tile], choice) -> str:
        from ..timing.slot_model import format_cycles

        counts = [choice.slots[t.alloc] for t in eligible]  # before the rewrite erases the allocs
        text = f"slots {', '.join(map(str, counts))} for its {len(eligible)} eligible tile{'s' if len(eligible) != 1 else ''}"
        if choice.cycles_single is not None and choice.cycles_chosen is not None:
            text += f", {format_cycles(choice.cycles_single)} -> {format_cycles(choice.cycles_chosen)} cycles per iteration modelled"
        if choice.cycles_uniform is not None:
            text += f"; {choice.uniform_slots} slots for every tile (slots=uniform) would give {format_cycles(choice.cycles_uniform)}"
        elif not choice.uniform_slots:
            text += f"; slots=uniform would not convert it ({MIN_SLOTS} slots of every tile do not fit)"
        if choice.event_trades and choice.uniform_events is not None and choice.uniform_events.over:
            text += f" but more event ids than ptoas has ({choice.uniform_events.describe_over()})"
        if choice.event_trades and choice.events is not None and not choice.events.over:
            traded = sorted({pair for t in choice.event_trades for pair in t.pairs})
            pairs = ", ".join(f"{pair} {choice.events.needed.get(pair, 0)} of {choice.events.budgets.get(pair, 8)}" for pair in traded)
            text += f"; event ids within ptoas's budget: {pairs}"
        return text

    def decline(self, loop: ir.Operation, decision: LoopDecision, reason: str) -> None:
        decision.reasons.append(reason)
        diagnostics.emit_remark(loop.location, f"pipeline loop is not converted: {reason}")

    def collect_tiles(self, loop: ir.Operation, body: LoopBody) -> list[_Tile]:
        """The loop's tiles (the `pto.alloc_tile`s whose nearest pipeline loop
        is this one), each with why it is not eligible, if it is not."""
        tiles: list[_Tile] = []
        for record in body.direct:
            if record.name == "pto.alloc_tile":
                tiles.append(self.direct_tile(record, loop))
            elif len(record.op.regions):
                _collect_nested_tiles(record.op, tiles)
        # One look at a tile's uses settles the common case (all of them
        # catalogue ops in the body); only the others need the escape check
        # and the full walk.
        verdicts = {}
        undecided = []
        for t in tiles:
            if t.reason:
                continue
            verdict = verdicts[t.value] = straight_line_verdict(t.value, body.block, t.uses, self.extents, body)
            if verdict is UNDECIDED:
                t.reason = escape_reason(t.value) or ""
                if not t.reason:
                    undecided.append(t.value)
            elif verdict is not None:
                t.reason = f"it is loop-carried through memory: {verdict.reason}"
                t.carried = True
        if undecided:
            carried = loop_carried_buffers(loop, undecided, verdicts, self.extents)
            for t in tiles:
                why = carried.get(t.value)
                if why is not None and not t.reason:
                    t.reason = f"it is loop-carried through memory: {why.reason}"
                    t.carried = True
        return tiles

    def direct_tile(self, record: BodyOp, loop: ir.Operation) -> _Tile:
        alloc = record.op
        value = alloc.results[0]
        operands = self.extents.alloc_operands(alloc, record.operands)
        uses = [(use.owner.operation, use.operand_number) for use in value.uses]
        tile = _Tile(alloc, value, tile_type(value.type), operands=operands, uses=uses)
        view = tile.view
        if operands.addr is not None:
            tile.reason = "it has an explicit addr"
        elif tile.space not in self.spaces:
            asked = ",".join(self.spaces)
            tile.reason = f"its space \"{tile.space}\" is not in spaces={asked} (to multi-buffer it: {self.name}{{spaces={asked},{tile.space}}})"
        elif view is not None and view.compact == ROW_PLUS_ONE:
            tile.reason = "it uses row_plus_one compaction, whose padded rows would overlap the next slot"
        elif view is not None and view.dtype in LOW_PRECISION:
            tile.reason = f"its element type {view.dtype} cannot be a multi-tile slot (ptoas does not support it yet)"
        else:
            inside = next((v for v in operands.valid if self.enclosing.defined_inside(v, loop)), None)
            if inside is not None:
                which = "valid_row" if operands.valid_row is not None and inside == operands.valid_row else "valid_col"
                tile.reason = f"its {which} operand is defined inside the loop, so it cannot size a buffer made before it"
            elif _resized([owner for owner, _ in uses]):
                tile.reason = "it is resized by pto.set_validshape, which ptoas allows on a pto.alloc_tile only, not on a multi-tile slot"
        return tile

    def bytes_beside(self, loop: ir.Operation, tiles: list[_Tile], body: LoopBody) -> dict[str, int]:
        """Per space, the most bytes that buffers other than the loop's
        multi-buffered tiles hold at one point of the loop body: its tiles
        that stay single, each live from its alloc to its last use (by the
        body op that holds them), and the tmps pto-allocate-memory-addr
        will give ops of the body for ptoas's level3, each live at its op
        (docs/dialect.md, "Scratch tiles at level3"), plus every buffer
        defined before the loop and used in it, live throughout, and every
        buffer live across the loop that no op in it uses (written before
        it, used after it: the allocator's lifetimes, pto_dialect/analysis/liveness.py)."""
        beside = self.memory.around(loop)
        single = [t for t in tiles if t.reason and t.view is not None]
        tmps = []
        for record in body.ops:
            tile = tmp_to_add(record.op, self.arch)
            if tile is not None:
                tmps.append((record.op, tile, align_up(tile.nbytes, space_spec(self.arch, tile.loc).alignment)))
        if not single and not tmps:
            return beside
        from ..analysis.liveness import buffer_values  # here: most loops have no single tile, and the allocator's module is big

        def position(op: ir.Operation, missing: int) -> int:
            """The index of the body op holding `op`."""
            record = body.of.get(op)
            return missing if record is None else record.top

        events: dict[str, list[tuple[int, int]]] = {}
        last = len(body.direct)
        for t in single:
            start = end = position(t.alloc, 0)
            for value in buffer_values(t.alloc):
                for use in value.uses:
                    end = max(end, position(use.owner.operation, len(body.ops)))
            if t.carried:  # what one iteration leaves, the next reads: live through the loop (liveness.py)
                start, end = 0, last
            size = self.memory.buffer_bytes(t.value.type)
            events.setdefault(t.space, []).extend(((start, size), (end + 1, -size)))
        for op, tile, size in tmps:
            at = position(op, 0)
            events.setdefault(tile.loc, []).extend(((at, size), (at + 1, -size)))
        for space, changes in events.items():
            live = peak = 0
            for _, change in sorted(changes):
                live += change
                peak = max(peak, live)
            beside[space] = beside.get(space, 0) + peak
        return beside

    def slot_stride(self, t: _Tile) -> int:
        """Bytes one slot of `t` takes: its dense bytes, aligned (row_plus_one tiles are not slots)."""
        return align_up(t.view.dense_bytes, space_spec(self.arch, t.space).alignment)

    def short_spaces(self, tiles: list[_Tile], beside: dict[str, int]) -> dict[str, str]:
        """The spaces where even MIN_SLOTS slots of `tiles` do not fit beside
        what else the loop holds, each with why."""
        strides: dict[str, int] = {}
        for t in tiles:
            strides[t.space] = strides.get(t.space, 0) + self.slot_stride(t)
        short = {}
        for space, stride_sum in strides.items():
            capacity = space_spec(self.arch, space).capacity
            others = beside.get(space, 0)
            if others + MIN_SLOTS * stride_sum > capacity:
                beside_text = f" beside {others} bytes of other buffers" if others else ""
                short[space] = f"{MIN_SLOTS * stride_sum} bytes{beside_text}, more than its {capacity} bytes on {self.arch}"
        return short

    def mark_single(self, decision: LoopDecision, t: _Tile) -> None:
        """Record and say that eligible tile `t` stays single (t.reason)."""
        where = location_text(t.alloc.location)
        for record in decision.tiles:
            if record.location == where:
                record.converted = False
                record.reason = t.reason
        diagnostics.emit_remark(t.alloc.location, f"tile is not multi-buffered: {t.reason}")

    def fit_slots(self, requested: int, tiles: list[_Tile], beside: dict[str, int]) -> tuple[int, str]:
        """The largest slot count in [2, requested] at which the loop's
        multi-buffered tiles fit every space next to what else the loop
        holds (`bytes_beside`), with the remark text when it is less than
        requested (0 when even 2 do not fit)."""
        strides: dict[str, int] = {}
        for t in tiles:
            strides[t.space] = strides.get(t.space, 0) + self.slot_stride(t)
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

    def rewrite(self, loop: ir.Operation, bounds: LoopBounds, decision: LoopDecision, tiles: list[_Tile], counts: list[int]) -> None:
        """Hoist an `alloc_multi_tile` of counts[i] slots for tiles[i] and
        replace its alloc by a `multi_tile_get` at the slot index of that
        count (one index per distinct count)."""
        self.memory.forget_reads()  # it read the blocks around this loop as they were
        if self.normalize_loops and not bounds.is_ptoas_canonical:
            problem = normalization_problem(bounds)
            if problem is None:
                normalize_loop(loop)
                bounds = LoopBounds.of(loop)
            else:
                note = f"loop is not normalized: {problem}; its slot is ((iv - lb) / step) mod N instead"
                decision.reasons.append(note)
                diagnostics.emit_remark(loop.location, note)
        regions = []
        with ir.InsertionPoint(loop):
            for t, slots in zip(tiles, counts):
                region_type = self.region_type(t, slots)
                region = create_alloc("pto.alloc_multi_tile", region_type, t.operands.with_addr(None), loc=derived(t.alloc.location, "_mb"))
                self.run.changed(region)
                regions.append(region.result)
        body = loop.regions[0].blocks[0]
        # Each slot count's constant goes next to its one use, the slot
        # index, at the top of the body.
        slot_of: dict[int, ir.Value] = {}
        with ir.InsertionPoint.at_block_begin(body), unnamed(loop.location):
            for slots in sorted(set(counts)):
                slot_of[slots] = build_slot_index(loop, slots, bounds, self.count_attr)
        for t, region, slots in zip(tiles, regions, counts):
            get = ir.Operation.create(
                "pto.multi_tile_get",
                results=[t.value.type],
                operands=[region, slot_of[slots]],
                loc=t.alloc.location,
                ip=ir.InsertionPoint(t.alloc),
            )
            self.run.changed(get)
            t.value.replace_all_uses_with(get.result)
            self.extents.forget(t.alloc, t.value)
            t.alloc.erase()
        set_pipeline_stages(loop, self.converted_stages)
        self.run.changed(loop)

    def type_text(self, t: _Tile) -> str:
        """t's type as the report spells it."""
        key = t.value.type
        text = self.type_texts.get(key)
        if text is None:
            text = self.type_texts[key] = str(t.view or key)
        return text

    def count_attr(self, type_: ir.Type, slots: int) -> ir.Attribute:
        """The attribute of the slot count constant, in the induction
        variable's type, made once per run."""
        key = (type_, slots)
        attr = self.counts.get(key)
        if attr is None:
            attr = self.counts[key] = ir.IntegerAttr.get(type_, slots)
        return attr

    def region_type(self, t: _Tile, slots: int) -> ir.Type:
        """The `!pto.multi_tile_buf` of `slots` slots of t's tile type."""
        key = (t.value.type, slots)
        found = self.region_types.get(key)
        if found is None:
            found = self.region_types[key] = self.types.get(MultiTileBufType(t.view, slots))
        return found


def over_budget_text(plan) -> str:
    """What a loop over ptoas's event budget gets (the plan of `analysis.events`)."""
    from ..analysis import events

    def name(buffer: ir.Value) -> str:
        owner = None if isinstance(buffer, ir.BlockArgument) else buffer.owner
        return f"the tile at {location_text(owner.location)}" if owner is not None else "a block argument"

    return (
        f"ptoas's InsertSync has {events.EVENT_IDS} event ids per pipe pair and the loop needs more ({plan.describe_over()}): "
        f"{events.fallback_text(plan, name)}"
    )


def _model_numbers(choice) -> SlotModelNumbers:
    return SlotModelNumbers(
        timed=choice.timed,
        problem=choice.problem,
        cycles_single=choice.cycles_single,
        cycles_chosen=choice.cycles_chosen,
        cycles_uniform=choice.cycles_uniform,
        uniform_slots=choice.uniform_slots,
        trades=[SlotTrade(t.tile, t.space, t.slots_from, t.slots_to, t.bytes_freed, t.cycles_before, t.cycles_after) for t in choice.trades],
        event_trades=[EventIdTrade(t.tile, t.slots_from, t.slots_to, t.over, t.cycles_before, t.cycles_after) for t in choice.event_trades],
        event_ids=dict(sorted(choice.events.needed.items())) if choice.events is not None else {},
        schedules=choice.schedules,
    )
