"""pto-replan: drop the addresses PyPTO planned, keeping its aliases as views."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from ..analysis.replan import replan_module
from ..pass_infra import ModulePass, PassRun


@dataclass(frozen=True)
class PtoReplan(ModulePass):
    """Drop the constant tile addresses PyPTO planned, keeping its aliases.

    What `replan=true` of `convert-to-ptoas-multi-buffer` and `pto-pipeline`
    runs first (pto-pipeline schedules this pass when its switch is off).
    Tiles at overlapping bytes of one space are one buffer when a write
    through one may reach a read through another (in program order, or from
    one iteration of a loop to a later one), and otherwise separate buffers
    (a scratch PyPTO reused across lifetimes). Each such alias class becomes
    one `pto.alloc_tile` without `addr`, placed where it dominates every
    member, and each other member the buffer itself (the same type), a
    `pto.treshape` of it (the same bytes as another type of the same byte
    size) or a `pto.subview` of its rows or columns (of the buffer's own
    type but for the shape: ptoas rejects a treshape of a subview). A class
    that cannot be written so keeps its addresses, with a remark naming
    why: tiles that overlap without one holding all the others, a member
    whose bytes are no window of the buffer (boxed layouts, a partial row
    span, another type), a dynamic valid shape where a view would be needed
    (a renamed buffer of one type, address and valid operands is fine), a
    tile `pto.set_validshape` resizes. So does every tile of a space the
    function reserves bytes of by other means (`pto.reserve_buffer`, tiles a
    `pto.tpop_*` gives, a tile argument) or where an `addr` is not a
    constant, every class whose tiles flow through `scf.for` iter_args or
    `scf.yield`, and every function that calls or is called (its bytes may
    meet the other
    function's). The decisions are in the pass report (`replan`), and
    `--verbose` adds a remark per function with the counts.

    Before (PyPTO: %x reads what the tcvt wrote to %1, the same bytes;
    %r is a scratch at the same address that nothing flows into from them):

        %1 = pto.alloc_tile addr = %c0 : !pto.tile_buf<vec, 16x64xf32>
        pto.tcvt ins(%in : ...) outs(%1 : ...)
        %x = pto.alloc_tile addr = %c0 : !pto.tile_buf<vec, 16x64xf32>
        %col = pto.alloc_tile addr = %c4096 : !pto.tile_buf<vec, 16x1xf32, blayout=col_major>
        pto.trowsum ins(%x, %tmp : ...) outs(%col : ...)
        %row = pto.alloc_tile addr = %c4096 : !pto.tile_buf<vec, 1x16xf32>
        pto.tstore ins(%row : ...) outs(...)

    After:

        %0 = pto.alloc_tile : !pto.tile_buf<vec, 16x64xf32>
        pto.tcvt ins(%in : ...) outs(%0 : ...)
        %1 = pto.alloc_tile : !pto.tile_buf<vec, 16x1xf32, blayout=col_major>
        pto.trowsum ins(%0, %tmp : ...) outs(%1 : ...)
        %2 = pto.treshape %1 : !pto.tile_buf<vec, 16x1xf32, blayout=col_major> -> !pto.tile_buf<vec, 1x16xf32>
        pto.tstore ins(%2 : ...) outs(...)
    """

    name: ClassVar[str] = "pto-replan"
    dependent_dialects: ClassVar[tuple[str, ...]] = ("arith",)  # a subview's offsets
    records_changes: ClassVar[bool] = True

    def apply(self, run: PassRun, module: ir.Operation) -> None:
        replan_module(module, run)
