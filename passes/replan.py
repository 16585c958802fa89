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

    Before (in PyPTO's style: %x reads what the tload wrote to %a, the same
    bytes at address 0, so the two are one buffer; %y is a buffer of its own):

        !t = !pto.tile_buf<vec, 16x64xf32>
        !pv = !pto.partition_tensor_view<16x64xf32>
        func.func @f(%src: !pto.ptr<f32>, %dst: !pto.ptr<f32>) {
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          %c16 = arith.constant 16 : index
          %c64 = arith.constant 64 : index
          %sv = pto.make_tensor_view %src, shape = [%c16, %c64], strides = [%c64, %c1] : !pto.tensor_view<16x64xf32>
          %dv = pto.make_tensor_view %dst, shape = [%c16, %c64], strides = [%c64, %c1] : !pto.tensor_view<16x64xf32>
          %in = pto.partition_view %sv, offsets = [%c0, %c0], sizes = [%c16, %c64] : !pto.tensor_view<16x64xf32> -> !pv
          %out = pto.partition_view %dv, offsets = [%c0, %c0], sizes = [%c16, %c64] : !pto.tensor_view<16x64xf32> -> !pv
          %at0 = arith.constant 0 : i64
          %at4096 = arith.constant 4096 : i64
          %a = pto.alloc_tile addr = %at0 : !t
          pto.tload ins(%in : !pv) outs(%a : !t)
          %x = pto.alloc_tile addr = %at0 : !t
          %y = pto.alloc_tile addr = %at4096 : !t
          pto.texp ins(%x : !t) outs(%y : !t)
          pto.tstore ins(%y : !t) outs(%out : !pv)
          return
        }

    After (one unaddressed buffer for %a and %x, one for %y; the allocator
    gives them addresses again, and the conversion may multi-buffer them):

        ...
        %a = pto.alloc_tile : !pto.tile_buf<vec, 16x64xf32>
        pto.tload ins(%in : !pto.partition_tensor_view<16x64xf32>) outs(%a : !pto.tile_buf<vec, 16x64xf32>)
        %y = pto.alloc_tile : !pto.tile_buf<vec, 16x64xf32>
        pto.texp ins(%a : !pto.tile_buf<vec, 16x64xf32>) outs(%y : !pto.tile_buf<vec, 16x64xf32>)
        pto.tstore ins(%y : !pto.tile_buf<vec, 16x64xf32>) outs(%out : !pto.partition_tensor_view<16x64xf32>)
        ...
    """

    name: ClassVar[str] = "pto-replan"
    dependent_dialects: ClassVar[tuple[str, ...]] = ("arith",)  # a subview's offsets
    records_changes: ClassVar[bool] = True

    def apply(self, run: PassRun, module: ir.Operation) -> None:
        replan_module(module, run)
