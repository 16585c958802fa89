"""pto-lower-pipeline-loops: body replication for pipeline loops (the default path)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith
from mlir.rewrite import RewritePatternSet, walk_and_apply_patterns

from ..analysis.buffers import escape_reason, forward_aliases
from ..analysis.loop_carried import loop_carried_buffers
from ..analysis.loop_index import LoopBounds, binary, constant, emit_span_and_trips, induction_var, rebase_induction_var
from ..analysis.loop_memory import LoopMemory
from ..dialect.allocs import ALLOC_OPS, alloc_operands, has_addr
from ..dialect.annotations import ArchError, asks_for_buffering, pipeline_stages, resolve_arch, set_pipeline_stages, stages_attr
from ..dialect.scratch import TmpFinder
from ..dialect.targets import ARCH_NAMES, space_spec
from ..dialect.types import align_up, buffer_type
from ..pass_infra import ModulePass, PassFailed, PassRun, option
from ..reports.decisions import LoopDecision, TileDecision
from ..support import diagnostics
from ..support.diagnostics import location_text
from ..support.ir_utils import defined_inside, nested_in, walk_ops
from ..support.value_names import unnamed

# Replication bounds: no more copies than a multi-tile buffer has slots, and
# no module growth without bound (k nested pipeline loops multiply: 2^k).
MAX_COPIES = 16
AUTO_MAX_OPS = 50_000
AUTO_GROWTH = 4

_COPY_TAG = "pto.replica_of"
"""Set on a body's iteration-local allocs while its copies are made (the
clones inherit it), to find each tile's copies after; removed after."""


def share_copies(block: ir.Block, tags: list[ir.Operation], depth: int) -> None:
    """After replication: every copy of a tagged alloc past the first
    `depth` in its block uses the buffer of the copy `depth` before it
    (copy k the buffer of copy k mod depth); then the tags go. The copies
    of the main loop's body are in its body, those of a loop of one trip
    (inlined) in `block`, the remainder loop's in its own."""
    if not tags:
        return
    blocks = [block]
    for view in block.operations:
        op = view.operation
        if op.name == "scf.for":
            blocks.append(op.regions[0].blocks[0])
    for b in blocks:
        copies: dict[int, list[ir.Operation]] = {}
        for view in b.operations:
            op = view.operation
            if op.name == "pto.alloc_tile" and _COPY_TAG in op.attributes:
                copies.setdefault(ir.IntegerAttr(op.attributes[_COPY_TAG]).value, []).append(op)
                del op.attributes[_COPY_TAG]
        for ops in copies.values():
            for k in range(depth, len(ops)):
                ops[k].results[0].replace_all_uses_with(ops[k % depth].results[0])
                ops[k].erase()


def pipeline_loops(module: ir.Operation) -> list[ir.Operation]:
    """The scf.for ops asking for buffering (N >= 2), in walk order. A walk
    in C++ calls Python only at scf.for ops."""
    loops: list[ir.Operation] = []

    def visit(op, _rewriter):
        op = op.operation
        if asks_for_buffering(op):
            loops.append(op)
        return True  # "no match": the walk changes nothing

    patterns = RewritePatternSet()
    patterns.add("scf.for", visit)
    walk_and_apply_patterns(module, patterns.freeze())
    return loops


def _pipeline_depth(loop: ir.Operation) -> int:
    """How many pipeline loops (N >= 2) enclose `loop`."""
    depth = 0
    parent = loop.parent
    while parent is not None and parent.name != "builtin.module":
        if asks_for_buffering(parent):
            depth += 1
        parent = parent.parent
    return depth


def allocate_copies_up_front(loop: ir.Operation) -> None:
    """Move the body's unaddressed `pto.alloc_tile`s to the top of the body,
    in order (the form PyPTO and ptoas's planner expect: tiles allocated up
    front). Lifetimes start at each tile's first write, so this changes no
    address by itself; the copies' tiles keep separate bytes because the
    pipe-aware allocator shares bytes only where the pipes already order
    the tiles. (An alloc without operands can move anywhere it dominates
    its uses.)
    """
    body = loop.regions[0].blocks[0]
    allocs = [op for op in body.operations if op.name == "pto.alloc_tile" and _movable(op, loop)]
    for alloc in reversed(allocs):  # each to the front: original order kept
        alloc.move_before(body.operations[0])


def _movable(alloc: ir.Operation, loop: ir.Operation) -> bool:
    """Whether `alloc` is unaddressed and its operands (valid shapes) are
    defined outside `loop`, so it may move anywhere in or before the loop
    body (it then still dominates its uses)."""
    operands = alloc_operands(alloc)
    return operands.addr is None and not any(defined_inside(v, loop) for v in operands.valid)


def _valid_shape_set_in(tile: ir.Value, loop: ir.Operation) -> bool:
    """Whether a `pto.set_validshape` in `loop` changes the valid shape of
    `tile` (through any value that may name it)."""
    for value in forward_aliases(tile):
        for use in value.uses:
            owner = use.owner
            if owner.name == "pto.set_validshape" and use.operand_number == 0 and nested_in(owner.operation.parent, loop):
                return True
    return False


def _reset_valid_shape(alloc: ir.Operation, loop: ir.Operation) -> None:
    """Each execution of an alloc in the body gives its tile the alloc's
    valid shape again; once the alloc moves before the loop, a
    `pto.set_validshape` at its old place does that in every copy (or one
    iteration's set_validshape would outlive it)."""
    operands = alloc_operands(alloc)
    tile = buffer_type(alloc.results[0].type)
    valid = list(operands.valid)
    if len(valid) != 2:  # a static dimension (ptoas requires ?x? for set_validshape)
        with ir.InsertionPoint(loop), unnamed(alloc.location):
            index = ir.IndexType.get()
            rows = operands.valid_row if operands.valid_row is not None else arith.ConstantOp(index, tile.valid_row).result
            cols = operands.valid_col if operands.valid_col is not None else arith.ConstantOp(index, tile.valid_col).result
        valid = [rows, cols]
    ir.Operation.create(
        "pto.set_validshape", operands=[alloc.results[0], *valid], loc=alloc.location, ip=ir.InsertionPoint(alloc)
    )


def _body_copy(template: ir.Operation, before: ir.Operation, iv: ir.Value, iter_values: list[ir.Value]) -> list[ir.Value]:
    """Put a copy of the body of the loop `template` right before `before`,
    its induction variable replaced by `iv` and its iter_args by
    `iter_values`; returns what the copy yields."""
    clone = template.clone(ip=ir.InsertionPoint(before))
    body = clone.regions[0].blocks[0]
    args = list(body.arguments)
    args[0].replace_all_uses_with(iv)
    for arg, value in zip(args[1:], iter_values):
        arg.replace_all_uses_with(value)
    ops = list(body.operations)
    yielded = list(ops[-1].operands)
    for op in ops[:-1]:
        op.move_before(before)
    clone.erase()
    return yielded


def _inline_once(loop: ir.Operation, iv: ir.Value) -> None:
    """Replace a loop that runs exactly once by its body at `iv`."""
    yielded = _body_copy(loop, loop, iv, list(loop.operands)[3:])
    for result, value in zip(loop.results, yielded):
        result.replace_all_uses_with(value)
    loop.erase()


def _predicate_eq() -> ir.Attribute:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)  # arith.cmpi eq


def replicate(loop: ir.Operation, factor: int) -> list[ir.Operation]:
    """Unroll `loop` by `factor` in place; returns the loops left (the
    unrolled main loop and the remainder loop, each when it is still a loop).

    Its iterations k = 0 .. trips-1 split at `done = trips - trips mod
    factor`: the main loop runs `done / factor` times with `factor` copies of
    the body (copy j at `iv + j * step`), the remainder loop the last
    `trips mod factor` iterations from `split = lb + done * step`. The bounds
    are exact for signed and unsigned loops and any induction variable type
    (pto_dialect/analysis/loop_index.py): with dynamic bounds, `trips` is
    `ceildivui(max(ub, lb) - lb, step)`, `split` is `ub' - trips mod factor`
    for step 1, else `lb + done * step`, or `ub'` when nothing remains (that
    sum may pass the type's range). When `factor * step` may not fit the
    type (a dynamic step, or a large constant one) the main loop counts
    `0 .. done / factor` and its body computes `lb + t * factor * step`.
    A static main or remainder loop of one trip is replaced by its body."""
    bounds = LoopBounds.of(loop)
    if factor == 1:
        if bounds.trip_count == 1:
            _inline_once(loop, bounds.lower)
            return []
        return [loop]
    t = bounds.lower.type
    trips = bounds.trip_count
    step_const = bounds.step_const
    wide = step_const is None or factor * step_const > bounds.type_max  # factor * step may wrap
    template = loop.clone(ip=ir.InsertionPoint(loop))  # the body every copy is made from
    single_main = single_rest = no_rest = False
    with ir.InsertionPoint(loop), unnamed(loop.location):
        if trips is not None:
            done = trips - trips % factor
            upper = bounds.upper
            no_rest = done == trips
            single_rest = trips - done == 1
            single_main = done == factor
            split = upper if no_rest else constant(bounds.lower_const + done * step_const, t)
            main_trips = constant(done // factor, t) if wide and not single_main else None
        else:
            upper, trip_count = emit_span_and_trips(bounds)
            count = constant(factor, t)
            rest = binary("arith.remui", trip_count, count)
            if step_const == 1:
                split = binary("arith.subi", upper, rest)
                done_value = None
            else:
                done_value = binary("arith.subi", trip_count, rest)
                following = binary("arith.addi", bounds.lower, binary("arith.muli", done_value, bounds.step))
                whole = ir.Operation.create(
                    "arith.cmpi", results=[ir.IntegerType.get_signless(1)], operands=[rest, constant(0, t)], attributes={"predicate": _predicate_eq()}
                ).result
                split = ir.Operation.create("arith.select", results=[t], operands=[whole, upper, following]).result
            main_trips = None
            if wide:
                if done_value is None:
                    done_value = binary("arith.subi", trip_count, rest)
                main_trips = binary("arith.divui", done_value, count)
        if single_main:
            scaled_step = None  # the one trip is inlined: its step is never taken
        elif step_const is None:
            scaled_step = binary("arith.muli", bounds.step, constant(factor, t))
        elif trips is None and step_const == 1:
            scaled_step = count
        else:
            scaled_step = constant(factor * step_const, t)  # wraps when wide: only the rebased body uses it

    remainder = None
    if not no_rest:
        remainder = loop.clone(ip=ir.InsertionPoint.after(loop))
        for result, new in zip(loop.results, remainder.results):
            result.replace_all_uses_with(new)
        remainder.operands[0] = split
        remainder.operands[1] = upper
        for i, result in enumerate(loop.results):
            remainder.operands[3 + i] = result

    base = induction_var(loop)
    if not single_main:
        if wide:
            base = rebase_induction_var(loop, bounds.lower, scaled_step, bounds.lower_const == 0, False)
            with ir.InsertionPoint(loop), unnamed(loop.location):
                loop.operands[0] = constant(0, t)
                loop.operands[2] = constant(1, t)
            loop.operands[1] = main_trips
        else:
            loop.operands[1] = split
            loop.operands[2] = scaled_step
    body = loop.regions[0].blocks[0]
    terminator = list(body.operations)[-1]
    carried = list(terminator.operands)
    for j in range(1, factor):
        with ir.InsertionPoint(terminator), unnamed(loop.location):
            offset = constant(j * step_const, t) if step_const is not None else binary("arith.muli", bounds.step, constant(j, t))
            copy_iv = binary("arith.addi", base, offset)
        carried = _body_copy(template, terminator, copy_iv, carried)
    for i, value in enumerate(carried):
        terminator.operands[i] = value
    template.erase()

    left = []
    if single_main:
        _inline_once(loop, bounds.lower)
    else:
        left.append(loop)
    if remainder is not None:
        if single_rest:
            _inline_once(remainder, split)
        else:
            left.append(remainder)
    return left


@dataclass(frozen=True)
class LowerPipelineLoops(ModulePass):
    """Replicate the body of every pipeline loop still at N >= 2.

    The default path when ptoas multi-buffering is off: a loop with
    `pto.pipeline_stages = N`, N >= 2, is unrolled by N: a main loop runs
    N copies of the body per trip (copy j at `iv + j * step`), and a
    remainder loop after it the trip count mod N iterations left, for static
    and dynamic trip counts (a static loop of one trip becomes its body).
    Loops are as MLIR defines them, signed or `unsigned`, with an `index` or
    integer induction variable: the bounds are computed in its type with the
    loop's signedness, the trip count as `ceildivui(max(ub, lb) - lb, step)`
    (`maxui` for an unsigned loop), and nothing they compute wraps where
    the loop's own arithmetic did not (the upstream unroller,
    `transform.loop.unroll`, is not used: it reads an unsigned loop's bounds
    signed, takes `remsi` of the trip count, and lets `N * step` wrap).
    When `N * step` may not fit the induction variable's type (a dynamic
    step), the main loop counts its trips from 0 and its body computes the
    induction value. Every copy of the body has its own iteration-local
    tiles (a `pto.alloc_tile` without `addr` is one buffer per op, and each
    copy has its own op), so copy k+1 can load while copy k computes (the
    pipe-aware allocator keeps copies' tiles in separate bytes while the
    space has room). When N copies of the tiles do not fit a space beside
    what else the loop holds (the buffers from before it that it uses and
    those live across it), the copies share D < N buffers per tile, copy k
    using buffer k mod D, D the largest that fits, down to 1; a remark says
    so with the bytes it saves. A tile
    that an iteration reads before writing (loop-carried through memory), or
    that escapes (yielded, passed to a nested loop, used by an unknown op), is
    moved before the loop first, so all copies share its one buffer and the
    carried value survives; each such tile gets a remark saying why (and,
    when a `pto.set_validshape` in the body changes it, a set_validshape
    back to the alloc's valid shape where the alloc was). The main and the
    remainder loop get `pto.pipeline_stages = 1`. Nested pipeline loops are
    lowered innermost first.

    Replication is bounded: a loop asking for more than 16 stages gets 16
    copies, a loop gets no more copies than it can run iterations, and a
    loop whose copies would grow the module past `max-ops` (default: the
    larger of 50000 ops and 4 times the input) is left as it is (k nested
    pipeline loops would otherwise make 2^k copies); each says so in a
    remark.

    Before (the kernel of convert-to-ptoas-multi-buffer's example):

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

    After (each copy allocates its own tiles, before the loop's body):

        ...
        %c2 = arith.constant 2 : index
        scf.for %i = %c0 to %c8 step %c2 {
          %t = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
          %e = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
          %t_0 = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
          %e_1 = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
          ...
          pto.tload ins(%in : !pto.partition_tensor_view<16x16xf32>) outs(%t : !pto.tile_buf<vec, 16x16xf32>)
          pto.texp ins(%t : !pto.tile_buf<vec, 16x16xf32>) outs(%e : !pto.tile_buf<vec, 16x16xf32>)
          ...
          %c1_2 = arith.constant 1 : index
          %0 = arith.addi %i, %c1_2 : index
          ...
          pto.tload ins(%in_4 : !pto.partition_tensor_view<16x16xf32>) outs(%t_0 : !pto.tile_buf<vec, 16x16xf32>)
          pto.texp ins(%t_0 : !pto.tile_buf<vec, 16x16xf32>) outs(%e_1 : !pto.tile_buf<vec, 16x16xf32>)
          ...
        } {pto.pipeline_stages = 1 : i64}
        ...
    """

    name: ClassVar[str] = "pto-lower-pipeline-loops"
    dependent_dialects: ClassVar[tuple[str, ...]] = ("arith",)  # bounds and valid shapes
    arch: str | None = option(None, "target arch for capacities (default: the module's pto.target_arch, else a2a3)", choices=ARCH_NAMES)
    max_ops: int = option(0, f"replicate no loop that would grow the module past this many ops (0: the larger of {AUTO_MAX_OPS} and {AUTO_GROWTH}x its size)")

    def apply(self, run: PassRun, module: ir.Operation) -> None:
        _Lowering(self).apply(run, module)


class _Lowering:
    """One run of the pass: its options (the frozen pass) and the work, loop by loop."""

    def __init__(self, options: LowerPipelineLoops) -> None:
        self.options = options

    def apply(self, run: PassRun, module: ir.Operation) -> None:
        loops = pipeline_loops(module)
        if not loops:
            run.unchanged()  # the common case after convert-to-ptoas-multi-buffer: nothing to verify again
            return
        by_depth: dict[int, list[ir.Operation]] = {}
        for loop in loops:
            by_depth.setdefault(_pipeline_depth(loop), []).append(loop)
        size = len(walk_ops(module))
        limit = self.options.max_ops or max(AUTO_MAX_OPS, AUTO_GROWTH * size)
        # Innermost first: an outer loop's copies then contain the already
        # lowered inner loops.
        lowered = stages_attr(1, module.context)
        try:
            memory = LoopMemory(resolve_arch(module, self.options.arch))
        except ArchError as e:
            diagnostics.emit_error(module.location, str(e))
            raise PassFailed() from None
        for depth in sorted(by_depth, reverse=True):
            ready: list[tuple[ir.Operation, int]] = []  # (loop, copies)
            for loop in by_depth[depth]:
                problem = LoopBounds.of(loop).step_problem
                if problem is not None:
                    self.decline(run, loop, f"pipeline loop is not replicated: {problem}")
                    continue
                factor = self.replication_factor(loop)
                body_size = len(walk_ops(loop)) - 1
                # at most `factor` more copies: factor - 1 in the unrolled
                # body, one for a remainder
                grown = size + body_size * factor
                if grown > limit:
                    self.decline(
                        run,
                        loop,
                        f"pipeline loop is not replicated: {factor} copies of its {body_size} ops would grow "
                        f"the module to {grown} ops, over the limit of {limit} (max-ops)",
                    )
                    continue
                unshareable = self.share_carried_buffers(run, loop, factor)
                if unshareable is not None:
                    self.decline(run, loop, unshareable)
                    continue
                size = grown
                ready.append((loop, factor))
            for loop, factor in ready:
                memory.forget()  # the loops replicated before changed the IR it read
                depth, tags = self.fit_depth(run, loop, factor, memory)
                block = loop.block
                for left in replicate(loop, factor):
                    set_pipeline_stages(left, lowered)
                    allocate_copies_up_front(left)
                share_copies(block, tags, depth)

    def fit_depth(self, run: PassRun, loop: ir.Operation, factor: int, memory: LoopMemory) -> tuple[int, list[ir.Operation]]:
        """How many buffers of each iteration-local tile the `factor` copies
        of `loop`'s body take turns on (CONTRACT 2.2): `factor`, or when the
        copies' tiles do not fit a space beside what else the loop holds
        (`LoopMemory.around`), the largest depth D that fits (copy k uses
        buffer k mod D), down to 1; each step down is a remark with the
        bytes it saves. Tags the body's iteration-local allocs (their copies
        inherit the tag) and returns the depth and the tagged allocs."""
        body = loop.regions[0].blocks[0]
        local = [op for op in body.operations if op.name == "pto.alloc_tile" and _movable(op, loop)]
        if not local:
            return factor, []
        per_copy: dict[str, int] = {}
        for op in local:
            view = buffer_type(op.results[0].type)
            per_copy[view.loc] = per_copy.get(view.loc, 0) + memory.buffer_bytes(op.results[0].type)
        around = memory.around(loop)
        # the tmps pto-allocate-memory-addr gives ops of the body for level3,
        # each live at its op only: the largest of a space adds to its peak
        biggest: dict[str, int] = {}
        for _, tile in TmpFinder(memory.arch).under(loop):
            size = align_up(tile.nbytes, space_spec(memory.arch, tile.loc).alignment)
            biggest[tile.loc] = max(biggest.get(tile.loc, 0), size)
        for space, size in biggest.items():
            around[space] = around.get(space, 0) + size
        depth, limiting = factor, None
        for space, size in per_copy.items():
            capacity = space_spec(memory.arch, space).capacity
            fits = max(1, (capacity - around.get(space, 0)) // size) if size else factor
            if fits < depth:
                depth, limiting = fits, space
        for j, op in enumerate(local):
            op.attributes[_COPY_TAG] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), j)
        if limiting is not None:
            capacity = space_spec(memory.arch, limiting).capacity
            beside = around.get(limiting, 0)
            need = factor * per_copy[limiting]
            saved = (factor - depth) * per_copy[limiting]
            beside_text = f" beside {beside} bytes of other buffers" if beside else ""
            text = (
                f"pipeline loop is replicated {factor} times with {depth} buffer{'s' if depth != 1 else ''} per iteration-local tile "
                f"(copy k uses buffer k mod {depth}): {factor} copies of its tiles need {need} bytes of \"{limiting}\"{beside_text}, "
                f"more than its {capacity} bytes on {memory.arch}; {depth} save {saved} bytes"
            )
            diagnostics.emit_remark(loop.location, text)
            for decision in reversed(run.report.loops):
                if decision.location == location_text(loop.location) and decision.pass_name == self.options.name:
                    decision.reasons.append(text)
                    decision.slots = depth
                    break
        return depth, local

    def decline(self, run: PassRun, loop: ir.Operation, reason: str) -> None:
        run.report.loops.append(LoopDecision(self.options.name, location_text(loop.location), pipeline_stages(loop), converted=False, reasons=[reason]))
        diagnostics.emit_remark(loop.location, reason)

    def replication_factor(self, loop: ir.Operation) -> int:
        requested = pipeline_stages(loop)
        bounds = LoopBounds.of(loop)
        trips = bounds.trip_count
        if trips is not None and trips < requested:
            return max(trips, 1)  # more copies than iterations replicate nothing
        most = bounds.max_trip_count
        if most < min(requested, MAX_COPIES):
            return max(most, 1)  # a type too narrow for more iterations (i2: 3)
        if requested <= MAX_COPIES:
            return requested
        diagnostics.emit_remark(
            loop.location,
            f"pipeline loop asks for {requested} stages; replicating its body {MAX_COPIES} times, the most it makes",
        )
        return MAX_COPIES

    def share_carried_buffers(self, run: PassRun, loop: ir.Operation, factor: int) -> str | None:
        """Move the buffers that must stay one buffer across iterations to
        just before `loop`, and record the decision. Returns, having changed
        nothing, why the loop cannot be replicated (a buffer that must be
        shared cannot move before the loop: its valid shape is computed in
        it), else None."""
        body_allocs = [op for op in walk_ops(loop) if op.name in ALLOC_OPS and not has_addr(op)]
        tiles = [op.results[0] for op in body_allocs if op.name == "pto.alloc_tile"]
        carried = loop_carried_buffers(loop, tiles)
        reasons = []
        for alloc in body_allocs:
            value = alloc.results[0]
            if alloc.name == "pto.alloc_multi_tile":
                reason = "it is a multi-tile region, which already rotates its own slots"
            elif value in carried:
                reason = f"it is loop-carried through memory: {carried[value].reason}"
            else:
                reason = escape_reason(value)
            if reason is not None and not _movable(alloc, loop):
                return (
                    f"pipeline loop is not replicated: the buffer at {location_text(alloc.location)} must be "
                    f"shared by all copies ({reason}), but its valid shape is computed inside the loop"
                )
            reasons.append(reason)
        decision = LoopDecision(self.options.name, location_text(loop.location), factor, converted=True, slots=factor)
        run.report.loops.append(decision)
        for alloc, reason in zip(body_allocs, reasons):
            value = alloc.results[0]
            shared = reason is not None
            view = buffer_type(value.type)
            decision.tiles.append(TileDecision(location_text(alloc.location), view.loc if view else "", str(view or value.type), not shared, reason or ""))
            if shared:
                if _valid_shape_set_in(value, loop):
                    _reset_valid_shape(alloc, loop)
                alloc.move_before(loop)
                diagnostics.emit_remark(
                    alloc.location, f"buffer is shared by all {factor} copies of the loop body: {reason}"
                )
        if run.verbose:
            diagnostics.emit_remark(loop.location, f"pipeline loop body replicated {factor} times")
        return None
