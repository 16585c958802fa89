"""What the timing tests share: the modelled duration of one op, which
their expected cycle counts are sums of."""

from __future__ import annotations

from pto_dialect.interpreter.trace import OpShape, TraceEvent
from pto_dialect.timing import cost_table


def a2a3_duration(op: str, rows: int = 16, cols: int = 64, src: str = "vec", dst: str = "vec") -> int:
    """The a2a3 table's duration of `op` on an f32 rows x cols tile (timing/costs.py's formulas)."""
    shape = OpShape("f32", 4, rows, cols, cols, src, dst)
    return cost_table("a2a3").duration(TraceEvent(op, "V", "", (), (), rows * cols, 0, shape))
