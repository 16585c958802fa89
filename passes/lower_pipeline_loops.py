"""pto-lower-pipeline-loops: body replication for pipeline loops (the default path)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith
from mlir.dialects.transform import interpreter

from .. import diagnostics
from ..buffers import escape_reason
from ..ir_utils import walk_ops
from ..loop_carried import loop_carried_buffers
from ..loop_index import LoopBounds
from ..pass_infra import ModulePass, PassContext, PassFailed
from ..report import LoopDecision, TileDecision
from ..types import buffer_type
from .convert_to_ptoas_multi_buffer import pipeline_stages, set_pipeline_stages, where

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


def _pipeline_depth(loop: ir.Operation) -> int:
    """How many pipeline loops (N >= 2) enclose `loop`."""
    depth = 0
    parent = loop.parent
    while parent is not None and parent.name != "builtin.module":
        if parent.name == "scf.for" and (pipeline_stages(parent) or 0) >= 2:
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
    allocs = [op for op in body.operations if op.name == "pto.alloc_tile" and not len(op.operands)]
    for alloc in reversed(allocs):  # each to the front: original order kept
        alloc.move_before(body.operations[0])


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


@dataclass
class LowerPipelineLoops(ModulePass):
    """Replicate the body of every pipeline loop still at N >= 2 (CONTRACT 2.2).

    The default path when ptoas multi-buffering is off: a loop with
    `pto.pipeline_stages = N`, N >= 2, is unrolled by N with the upstream
    unroller (`transform.loop.unroll`, run through the transform
    interpreter), which also handles the remainder iterations of static and
    dynamic trip counts. Every copy of the body has its own iteration-local
    tiles (a `pto.alloc_tile` without `addr` is one buffer per op, and each
    copy has its own op), so copy k+1 can load while copy k computes. A tile
    that an iteration reads before writing (loop-carried through memory), or
    that escapes (yielded, passed to a nested loop, used by an unknown op), is
    moved before the loop first, so all copies share its one buffer and the
    carried value survives; each such tile gets a remark saying why. Every
    loop the unroller produces gets `pto.pipeline_stages = 1`. Nested
    pipeline loops are lowered innermost first.

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

    def apply(self, ctx: PassContext, module: ir.Operation) -> None:
        loops = [op for op in walk_ops(module) if op.name == "scf.for" and (pipeline_stages(op) or 0) >= 2]
        by_depth: dict[int, list[ir.Operation]] = {}
        for loop in loops:
            by_depth.setdefault(_pipeline_depth(loop), []).append(loop)
        # Innermost first: an outer loop's copies then contain the already
        # lowered inner loops.
        for depth in sorted(by_depth, reverse=True):
            by_factor: dict[int, list[ir.Operation]] = {}
            for loop in by_depth[depth]:
                factor = pipeline_stages(loop)
                self.share_carried_buffers(ctx, loop, factor)
                by_factor.setdefault(factor, []).append(loop)
            for factor, group in sorted(by_factor.items()):
                for loop in group:
                    clamp_dynamic_upper_bound(loop)
                    loop.attributes[_MARK] = ir.UnitAttr.get()
                self.unroll_marked(module, factor)

    def share_carried_buffers(self, ctx: PassContext, loop: ir.Operation, factor: int) -> None:
        """Move the buffers that must stay one buffer across iterations to
        just before `loop`, and record the decision."""
        decision = LoopDecision(self.name, where(loop), factor, converted=True, slots=factor)
        ctx.report.loops.append(decision)
        body_allocs = [
            op
            for op in walk_ops(loop)
            if op.name in ("pto.alloc_tile", "pto.alloc_multi_tile") and not len(op.operands)
        ]
        tiles = [op.results[0] for op in body_allocs if op.name == "pto.alloc_tile"]
        carried = loop_carried_buffers(loop, tiles)
        for alloc in body_allocs:
            value = alloc.results[0]
            reason = None
            if alloc.name == "pto.alloc_multi_tile":
                reason = "it is a multi-tile region, which already rotates its own slots"
            elif value in carried:
                reason = f"it is loop-carried through memory: {carried[value].reason}"
            else:
                reason = escape_reason(value)
            shared = reason is not None
            view = buffer_type(value.type)
            decision.tiles.append(TileDecision(where(alloc), view.loc if view else "", str(value.type), not shared, reason or ""))
            if shared:
                alloc.move_before(loop)
                diagnostics.emit_remark(
                    alloc.location, f"buffer is shared by all {factor} copies of the loop body: {reason}"
                )
        if ctx.verbose:
            diagnostics.emit_remark(loop.location, f"pipeline loop body replicated {factor} times")

    def unroll_marked(self, module: ir.Operation, factor: int) -> None:
        script = ir.Module.parse(_UNROLL_SCRIPT.replace("MARK", _MARK).replace("FACTOR", str(factor)))
        try:
            interpreter.apply_named_sequence(module, script.body.operations[0], script)
        except ir.MLIRError as e:
            for d in e.error_diagnostics:
                diagnostics.emit_error(d.location, f"could not replicate pipeline loop: {d.message}")
            raise PassFailed() from None
        for op in walk_ops(module):
            if op.name == "scf.for" and _MARK in op.attributes:
                del op.attributes[_MARK]
                set_pipeline_stages(op, 1)
                allocate_copies_up_front(op)
