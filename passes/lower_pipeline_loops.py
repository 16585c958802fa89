"""pto-lower-pipeline-loops: body replication for pipeline loops (the default path)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith
from mlir.dialects.transform import interpreter
from mlir.rewrite import RewritePatternSet, walk_and_apply_patterns

from .. import diagnostics
from ..allocs import ALLOC_OPS, alloc_operands, has_addr
from ..buffers import escape_reason, forward_aliases
from ..diagnostics import location_text
from ..ir_utils import defined_inside, nested_in, walk_ops
from ..loop_carried import loop_carried_buffers
from ..loop_index import LoopBounds, static_trip_count
from ..pass_infra import ModulePass, PassFailed, PassRun, option
from ..report import LoopDecision, TileDecision
from ..types import buffer_type
from ..vocabulary import asks_for_buffering, pipeline_stages, set_pipeline_stages, stages_attr

# Replication bounds: no more copies than a multi-tile buffer has slots, and
# no module growth without bound (k nested pipeline loops multiply: 2^k).
MAX_COPIES = 16
AUTO_MAX_OPS = 50_000
AUTO_GROWTH = 4

# Marks the loops one interpreter run unrolls; the main loop and the remainder
# loop the unroller makes both keep it, which is how we find them afterwards.
_MARK = "pto.lower_pipeline_loop"

_UNROLL_SCRIPT = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loops = transform.structured.match ops{["scf.for"]} attributes {MARK} in %root
        : (!transform.any_op) -> !transform.op<"scf.for">
    transform.loop.unroll %loops {factor = FACTOR} : !transform.op<"scf.for">
    transform.yield
  }
}
"""


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
    """Move the body's unaddressed `pto.alloc_tile`s to the top of the body.

    The copies run one after the other, so by program order copy 0's tiles
    are dead before copy 1's are defined, and an address allocator would
    give them the same bytes: copy 1's load would then wait for copy 0's
    compute, which is the overlap replication exists for. Defined together
    at the top, each copy's tiles are live together and get their own
    addresses. (An alloc without operands can move anywhere it dominates its
    uses.)
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
        with ir.InsertionPoint(loop), alloc.location:
            index = ir.IndexType.get()
            rows = operands.valid_row if operands.valid_row is not None else arith.ConstantOp(index, tile.valid_row).result
            cols = operands.valid_col if operands.valid_col is not None else arith.ConstantOp(index, tile.valid_col).result
        valid = [rows, cols]
    ir.Operation.create(
        "pto.set_validshape", operands=[alloc.results[0], *valid], loc=alloc.location, ip=ir.InsertionPoint(alloc)
    )


def clamp_dynamic_upper_bound(loop: ir.Operation) -> None:
    """Make ub >= lb when either is dynamic, without changing the iterations.

    The upstream unroller computes the unrolled bound with an unsigned
    division of (ub - lb + step - 1): for ub < lb that wraps, and the
    remainder loop it builds can then run iterations the original loop never
    ran (lb = 1, ub = -5, step 2, factor 2 runs iv = -7). A loop with ub <= lb
    runs no iteration either way, so `ub := max(ub, lb)` is exact.
    """
    bounds = LoopBounds.of(loop)
    if bounds.lower_const is not None and bounds.upper_const is not None:
        return
    with ir.InsertionPoint(loop), loop.location:
        loop.operands[1] = arith.MaxSIOp(bounds.upper, bounds.lower).result


@dataclass(frozen=True)
class LowerPipelineLoops(ModulePass):
    """Replicate the body of every pipeline loop still at N >= 2.

    The default path when ptoas multi-buffering is off: a loop with
    `pto.pipeline_stages = N`, N >= 2, is unrolled by N with the upstream
    unroller (`transform.loop.unroll`, run through the transform
    interpreter), which also handles the remainder iterations of static and
    dynamic trip counts. Every copy of the body has its own iteration-local
    tiles (a `pto.alloc_tile` without `addr` is one buffer per op, and each
    copy has its own op), so copy k+1 can load while copy k computes; the
    copies' allocs move to the top of the body, so that an address allocator
    sees their tiles live together and gives them separate bytes. A tile
    that an iteration reads before writing (loop-carried through memory), or
    that escapes (yielded, passed to a nested loop, used by an unknown op), is
    moved before the loop first, so all copies share its one buffer and the
    carried value survives; each such tile gets a remark saying why (and,
    when a `pto.set_validshape` in the body changes it, a set_validshape
    back to the alloc's valid shape where the alloc was). Every
    loop the unroller produces gets `pto.pipeline_stages = 1`. Nested
    pipeline loops are lowered innermost first.

    Replication is bounded: a loop asking for more than 16 stages gets 16
    copies, and a loop whose copies would grow the module past `max-ops`
    (default: the larger of 200000 ops and 8 times the input) is left as it
    is (k nested pipeline loops would otherwise make 2^k copies); both say so
    in a remark.

    Before:

        scf.for %i = %c0 to %c8 step %c1 {
          %t = "pto.alloc_tile"() : () -> !t
          "pto.tload"(%src, %i, %c0, %t) : (...) -> ()
          "pto.tstore"(%t, %dst, %i, %c0) : (...) -> ()
        } {pto.pipeline_stages = 2 : i64}

    After:

        scf.for %i = %c0 to %c8 step %c2 {
          %t = "pto.alloc_tile"() : () -> !t
          "pto.tload"(%src, %i, %c0, %t) : (...) -> ()
          "pto.tstore"(%t, %dst, %i, %c0) : (...) -> ()
          %i1 = arith.addi %i, %c1_1 : index
          %t1 = "pto.alloc_tile"() : () -> !t
          "pto.tload"(%src, %i1, %c0, %t1) : (...) -> ()
          "pto.tstore"(%t1, %dst, %i1, %c0) : (...) -> ()
        } {pto.pipeline_stages = 1 : i64}
    """

    name: ClassVar[str] = "pto-lower-pipeline-loops"
    dependent_dialects: ClassVar[tuple[str, ...]] = ("arith", "transform")  # bounds and valid shapes; the unroll script it parses
    max_ops: int = option(0, f"replicate no loop that would grow the module past this many ops (0: the larger of {AUTO_MAX_OPS} and {AUTO_GROWTH}x its size)")

    def apply(self, run: PassRun, module: ir.Operation) -> None:
        loops = pipeline_loops(module)
        if not loops:
            run.unchanged()  # the common case after convert-to-ptoas-multi-buffer: nothing to verify again
            return
        by_depth: dict[int, list[ir.Operation]] = {}
        for loop in loops:
            by_depth.setdefault(_pipeline_depth(loop), []).append(loop)
        size = len(walk_ops(module))
        limit = self.max_ops or max(AUTO_MAX_OPS, AUTO_GROWTH * size)
        # Innermost first: an outer loop's copies then contain the already
        # lowered inner loops.
        for depth in sorted(by_depth, reverse=True):
            by_factor: dict[int, list[ir.Operation]] = {}
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
                by_factor.setdefault(factor, []).append(loop)
            for factor, group in sorted(by_factor.items()):
                blocks = set()
                for loop in group:
                    clamp_dynamic_upper_bound(loop)
                    loop.attributes[_MARK] = ir.UnitAttr.get()
                    blocks.add(loop.block)
                self.unroll_marked(module, factor, blocks, stages_attr(1, module.context))

    def decline(self, run: PassRun, loop: ir.Operation, reason: str) -> None:
        run.report.loops.append(LoopDecision(self.name, location_text(loop.location), pipeline_stages(loop), converted=False, reasons=[reason]))
        diagnostics.emit_remark(loop.location, reason)

    def replication_factor(self, loop: ir.Operation) -> int:
        requested = pipeline_stages(loop)
        trips = static_trip_count(loop)
        if trips is not None and trips < requested:
            return max(trips, 1)  # more copies than iterations replicate nothing
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
        decision = LoopDecision(self.name, location_text(loop.location), factor, converted=True, slots=factor)
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

    def unroll_marked(self, module: ir.Operation, factor: int, blocks: set, lowered: ir.Attribute) -> None:
        """Unroll the marked loops by `factor`; `blocks` holds their parent
        blocks, where the loops the unroller leaves (main and remainder) are.
        (The loop ops themselves may be gone: a one-trip loop is inlined.)"""
        script = ir.Module.parse(_UNROLL_SCRIPT.replace("MARK", _MARK).replace("FACTOR", str(factor)))
        try:
            interpreter.apply_named_sequence(module, script.body.operations[0], script)
        except ir.MLIRError as e:
            for d in e.error_diagnostics:
                diagnostics.emit_error(d.location, f"could not replicate pipeline loop: {d.message}")
            raise PassFailed() from None
        for block in blocks:
            for op in block.operations:
                if op.name == "scf.for" and _MARK in op.attributes:
                    del op.attributes[_MARK]
                    set_pipeline_stages(op, lowered)
                    allocate_copies_up_front(op)
