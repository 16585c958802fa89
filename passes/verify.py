"""pto-verify: check the dialect rules IRDL cannot express."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from ..dialect.targets import ARCH_NAMES
from ..dialect.verifier import verify_module
from ..pass_infra import ModulePass, PassFailed, PassRun, option


@dataclass(frozen=True)
class PtoVerify(ModulePass):
    """Check the pto rules that IRDL cannot express.

    The rules: tile shapes are rank 2 and positive; slot counts are in
    [2, 16]; a constant `multi_tile_get` slot is in [0, N); a constant `addr`
    is non-negative, aligned for its space, and the buffer ends inside the
    space; no tile or multi-tile region is larger than its space; matmul
    shapes agree; `tload`/`tstore` memrefs are rank 2 with the tile's element
    type and constant offsets in bounds; `pto.pipeline_stages` is an i64 >= 1
    on an `scf.for`; `pto.target_arch` names a known arch.

    `pto-opt` runs these checks after parsing and after every pass anyway;
    the pass exists to check at a chosen point of a pipeline, or under a
    different arch.

    Example: this slot is out of range for a 2-slot buffer

        !t = !pto.tile_buf<vec, 16x16xf32>
        func.func @f() {
          %c2 = arith.constant 2 : index
          %mb = pto.alloc_multi_tile : !pto.multi_tile_buf<!t, count=2>
          %t = pto.multi_tile_get %mb[%c2] : !pto.multi_tile_buf<!t, count=2> -> !t
          return
        }

    and gives `error: 'pto.multi_tile_get' op constant slot 2 is out of range
    for multi_tile_buf count=2` at the op (ptoas's own message).
    """

    name: ClassVar[str] = "pto-verify"
    arch: str | None = option(None, "check capacities for this arch instead of the module's pto.target_arch", choices=ARCH_NAMES)

    def apply(self, run: PassRun, module: ir.Operation) -> None:
        if not verify_module(module, self.arch):
            raise PassFailed()
