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
it moves; for a vector op its widest operand), on MTE1 the bytes it writes
(a `textract` reads a window of a larger tile: what it moves is the
window), or, on the cube unit, its multiply-accumulates; factor(op) is how
many passes over that work the op needs (1 unless the table says
otherwise). Ops without a pipe (scalar `arith`, `scf`, allocation,
`pto.multi_tile_get`) are not in the trace and cost nothing in the model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..dialect.effects import Pipe
from ..dialect.targets import canonical_arch

if TYPE_CHECKING:
    from ..interpreter.trace import TraceEvent

BYTES = "bytes"
WRITTEN = "bytes written"
MACS = "MACs"


@dataclass(frozen=True)
class PipeCost:
    fixed: int  # cycles every op pays: issue, DMA descriptor set-up, pipeline fill
    rate: int  # work units done per cycle once the op runs
    work: str = BYTES  # what the rate counts: BYTES (largest access), WRITTEN (bytes written) or MACS
    op_factor: Mapping[str, int] = field(default_factory=dict)  # ops that need this many passes per unit


@dataclass(frozen=True)
class CostTable:
    arch: str
    pipes: Mapping[str, PipeCost]  # by pipe name ("MTE2", ...)

    def duration(self, event: TraceEvent) -> int:
        cost = self.pipes[event.pipe]
        if cost.work == MACS:
            work = event.macs
        elif cost.work == WRITTEN:
            work = sum(a.nbytes for a in event.writes)
        else:
            work = max((a.nbytes for a in (*event.reads, *event.writes)), default=0)
        work *= cost.op_factor.get(event.op, 1)
        return cost.fixed + -(-work // cost.rate)  # ceil without floats


# Why these numbers (a2/a3: Ascend 910B/910C class AI cores):
# - MTE2 (global memory -> tile): 64 bytes/cycle, and a 64-cycle set-up that
#   stands for the global-memory latency a DMA transfer exposes.
# - MTE3 (tile -> global memory): the same bandwidth, half the set-up
#   (writes are posted, nothing waits for data to come back).
# - MTE1 (tile -> tile inside the core: `tmov`, `textract` from L1 to
#   L0A/L0B): 128 bytes/cycle, 16 cycles set-up, counted on the bytes written
#   (a textract of a 32-wide half of a 64-wide L1 chunk moves half the chunk).
# - V (vector unit): one 256-byte repeat per cycle, 8 cycles issue, for the
#   one-pass ops (add, mul, max, the scalar forms, neg, abs, relu, cvt,
#   expands). Ops that need more than one pass per repeat (`_V_PASSES`):
#   - texp, tlog: 4. A transcendental is a multi-instruction sequence on the
#     vector unit (range reduction, a polynomial, the exponent fix-up).
#   - tdiv, tdivs, trecip, tsqrt: 2. Division and square root are iterative
#     units with about half the throughput of an add; trecip is TDIVS(1, x)
#     in the PTO ISA's implementation (docs/isa/TRECIP.md).
#   - trsqrt: 4, a square root followed by a division (the default-precision
#     implementation is vsqrt + vdiv, docs/isa/TRSQRT.md).
#   - trowsum, trowmax, trowmin: 2. On a2/a3 a float row reduction folds the
#     row in halves into `tmp` (vadd/vmax over a shrinking row: at most one
#     pass of the source in all) and then reduces each 256-byte repeat to
#     one value (vcadd/vcmax, a second pass), docs/isa/TROWSUM.md.
#   - tcolsum, tcolmax: 1. A column reduction adds (maxes) the rows into one
#     accumulator row: one ordinary pass over the source.
#   - row and column broadcasts (trowexpand, trowexpand{add,sub,mul,div},
#     tcolexpand, tcolexpand{add,mul}): 1 (listed, not left out): one pass
#     of the binary op over the full-size operand. The per-row values are
#     first broadcast into 32-byte blocks (vbrcb, 8 rows per repeat): for
#     rows of 256 bytes or more under 1/8 of a pass, not counted. The
#     division broadcast pays the divider's 2.
# - M (cube unit): a 16x16x16 fractal per cycle, 4096 MACs/cycle (the f16
#   rate; input dtypes are not distinguished), 16 cycles fill; `tmatmul` and
#   `tmatmul.acc` alike (the accumulator is read in place in L0C).
_V_PASSES = {  # by ptoas op name, as the trace has them
    "pto.texp": 4,
    "pto.tlog": 4,
    "pto.tdiv": 2,
    "pto.tdivs": 2,
    "pto.trecip": 2,
    "pto.tsqrt": 2,
    "pto.trsqrt": 4,
    "pto.trowsum": 2,
    "pto.trowmax": 2,
    "pto.trowmin": 2,
    "pto.tcolsum": 1,
    "pto.tcolmax": 1,
    "pto.trowexpand": 1,
    "pto.trowexpandadd": 1,
    "pto.trowexpandsub": 1,
    "pto.trowexpandmul": 1,
    "pto.trowexpanddiv": 2,
    "pto.tcolexpand": 1,
    "pto.tcolexpandadd": 1,
    "pto.tcolexpandmul": 1,
}
_A2_A3 = {
    Pipe.MTE2.value: PipeCost(fixed=64, rate=64),
    Pipe.MTE1.value: PipeCost(fixed=16, rate=128, work=WRITTEN),
    Pipe.V.value: PipeCost(fixed=8, rate=256, op_factor=_V_PASSES),
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
