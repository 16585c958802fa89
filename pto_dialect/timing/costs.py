"""How long an op occupies its pipe: the per-arch parameter table of the
timing model.

THIS IS A MODEL, NOT MEASURED HARDWARE. Every number below is a round figure
of the right order for a DaVinci-class AI core, chosen so that the relative
cost of moving a tile and computing on it is plausible; none is measured on a
device or taken from a datasheet. The model exists to compare schedules of
the same kernel (before and after multi-buffering), not to predict time on
a device. Change the numbers here, and only here.

An op on pipe P that does W units of work takes

    P.fixed + ceil(W * factor(op) / P.rate)   cycles

where the work is the bytes of the op's largest access (the tile or block
it moves; for a vector op its widest operand) or, on the cube unit, its
multiply-accumulates. Ops without a pipe (scalar `arith`, `scf`, allocation,
`pto.multi_tile_get`) are not in the trace and cost nothing in the model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..catalogue import Pipe
from ..targets import canonical_arch

if TYPE_CHECKING:
    from ..interpreter.trace import TraceEvent

BYTES = "bytes"
MACS = "MACs"


@dataclass(frozen=True)
class PipeCost:
    fixed: int  # cycles every op pays: issue, DMA descriptor set-up, pipeline fill
    rate: int  # work units done per cycle once the op runs
    work: str = BYTES  # what the rate counts: BYTES (largest access) or MACS
    op_factor: Mapping[str, int] = field(default_factory=dict)  # ops that need this many passes per unit


@dataclass(frozen=True)
class CostTable:
    arch: str
    pipes: Mapping[str, PipeCost]  # by pipe name ("MTE2", ...)

    def duration(self, event: TraceEvent) -> int:
        cost = self.pipes[event.pipe]
        if cost.work == MACS:
            work = event.macs
        else:
            work = max((a.nbytes for a in (*event.reads, *event.writes)), default=0)
        work *= cost.op_factor.get(event.op, 1)
        return cost.fixed + -(-work // cost.rate)  # ceil without floats


# Why these numbers (a2/a3: Ascend 910B/910C class AI cores):
# - MTE2 (global memory -> tile): 64 bytes/cycle, and a 64-cycle set-up that
#   stands for the global-memory latency a DMA transfer exposes.
# - MTE3 (tile -> global memory): the same bandwidth, half the set-up
#   (writes are posted, nothing waits for data to come back).
# - MTE1 (tile -> tile inside the core): 128 bytes/cycle, 16 cycles set-up.
# - V (vector unit): one 256-byte repeat per cycle, 8 cycles issue;
#   `pto.texp` takes 4 cycles per repeat (a transcendental is a
#   multi-instruction sequence on the vector unit).
# - M (cube unit): a 16x16x16 fractal per cycle, 4096 MACs/cycle (the f16
#   rate; input dtypes are not distinguished), 16 cycles fill.
_A2_A3 = {
    Pipe.MTE2.value: PipeCost(fixed=64, rate=64),
    Pipe.MTE1.value: PipeCost(fixed=16, rate=128),
    Pipe.V.value: PipeCost(fixed=8, rate=256, op_factor={"pto.texp": 4}),  # by ptoas op name, as the trace has them
    Pipe.M.value: PipeCost(fixed=16, rate=4096, work=MACS),
    Pipe.MTE3.value: PipeCost(fixed=32, rate=64),
}

COST_TABLES: dict[str, CostTable] = {
    "a2a3": CostTable("a2a3", _A2_A3),
    # No figures of its own are modelled for a5 yet: the a2/a3 numbers, so
    # that a5 kernels get an estimate rather than an error.
    "a5": CostTable("a5", _A2_A3),
}


def cost_table(arch: str) -> CostTable:
    """The parameter table of `arch` (one of targets.ARCHS, or an alias
    such as `a3`)."""
    return COST_TABLES[canonical_arch(arch) or arch]
