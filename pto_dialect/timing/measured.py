"""The cycles pto-isa's cost-model tests profiled on hardware
(`measured_cycles.json`, docs/timing.md "Measured points"), as events our
cost tables price: what the precision test and scripts/fit_costs.py read.

Each point becomes the trace event of its one op (`event`), with the
OpShape the interpreter and the static schedule would record for a tile of
that element type and shape, so a table prices it through
`CostTable.duration`, the code `--cycles` and `slots=model` use.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

from ..dialect.effects import CATALOGUE
from ..dialect.ops import ptoas_op_def
from ..interpreter.trace import Access, OpShape, TraceEvent

# pto-isa element type names (lightweight_costmodel.hpp's DType) -> bytes; the
# 4-bit floats count as one byte (the repeat holds 256 of them either way).
_ITEMSIZE = {
    "f32": 4, "i32": 4, "u32": 4, "f16": 2, "bf16": 2, "i16": 2, "u16": 2, "i8": 1, "u8": 1,
    "Float8E4M3": 1, "Float8E5M2": 1, "HFloat8": 1, "Float4E1M2": 1, "Float4E2M1": 1,
}

# pto-isa test directory -> the op as ptoas (and our trace) names it, and its pipe
_OPS = {
    "tload": ("pto.tload", "MTE2"),
    "tmatmul": ("pto.tmatmul", "M"),
    "tmov": ("pto.tmov", "V"),
}


@dataclass(frozen=True)
class Point:
    arch: str  # "a2a3" or "a5"
    op: str  # pto-isa's test directory name: "trowsum"
    case: str  # gtest suite.case, or op.index for a5 tables
    measured: float  # cycles profiled on hardware
    accuracy: float  # the precision pto-isa's own model reaches there (its test's threshold)
    source: str  # the test file in pto-isa
    event: TraceEvent


def precision(ours: float, measured: float) -> float:
    """pto-isa's precision: 1 - |ours - measured| / measured, at least 0
    (tests/costmodel/st/common/cost_check.hpp)."""
    return max(0.0, 1.0 - abs(ours - measured) / measured)


def _event(p: dict) -> TraceEvent:
    op = p["op"]
    name, pipe = _OPS.get(op, (f"pto.{op}", "V"))
    size = max(_ITEMSIZE[p["dtype"]], _ITEMSIZE.get(p.get("dst_dtype", p["dtype"]), 1))
    if op == "tmatmul":
        shape = OpShape(p["dtype"], _ITEMSIZE[p["dtype"]], p["m"], p["n"], p["n"], "left", "acc", k=p["k"])
    elif op == "tload":
        shape = OpShape(p["dtype"], size, p["rows"], p["cols"], p["cols"], "gm", "vec", blocks=p["blocks"])
    else:
        rows, cols = p.get("valid_rows", p["rows"]), p.get("valid_cols", p["cols"])
        dst = p.get("dst_dtype", p["dtype"])
        shape = OpShape(dst, size, rows, cols, p["cols"], "vec", "vec", src_dtype=p["dtype"])
    nbytes = shape.rows * shape.cols * shape.itemsize
    buf = Access("vec", 0, nbytes)
    return TraceEvent(name, pipe, p["source"], (buf,), (buf,), shape.rows * shape.cols, 0, shape)


def _raw() -> list[dict]:
    return json.loads(resources.files(__package__).joinpath("measured_cycles.json").read_text())["points"]


def expressible(p: dict) -> bool:
    """Whether our dialect can write the point's op: it lacks tsel, tsort32
    and tloadconv, and trecip's high-precision mode (pto-isa's a5 op
    parameter `high_precision`)."""
    d = ptoas_op_def(_OPS.get(p["op"], (f"pto.{p['op']}",))[0])
    return d is not None and d.generic_name in CATALOGUE and p.get("params") != "high_precision"


@cache
def points() -> tuple[Point, ...]:
    """Every measured point of measured_cycles.json whose op our dialect has."""
    return tuple(
        Point(p["arch"], p["op"], p["case"], p["profiling"], p["accuracy"], p["source"], _event(p))
        for p in _raw()
        if expressible(p)
    )


def left_out() -> dict[str, int]:
    """The measured points of ops our dialect lacks, per op."""
    out: dict[str, int] = {}
    for p in _raw():
        if not expressible(p):
            key = p["op"] + (f" ({p['params']})" if p.get("params") else "")
            out[key] = out.get(key, 0) + 1
    return out


def commit() -> str:
    return json.loads(resources.files(__package__).joinpath("measured_cycles.json").read_text())["commit"]


@dataclass(frozen=True)
class OpReport:
    arch: str
    op: str
    points: int
    ours: float  # our median precision over the op's points
    theirs: float  # pto-isa's median accuracy there
    low: tuple[tuple[Point, int], ...]  # points where ours < 0.8, with our cycles


def report() -> tuple[float, list[OpReport]]:
    """Our median precision over every point, and per arch and op."""
    from statistics import median

    from .costs import cost_table

    groups: dict[tuple[str, str], list[tuple[Point, int]]] = {}
    for p in points():
        groups.setdefault((p.arch, p.op), []).append((p, cost_table(p.arch).duration(p.event)))
    everything = [precision(c, p.measured) for g in groups.values() for p, c in g]
    out = []
    for (arch, op), g in sorted(groups.items()):
        ours = median(precision(c, p.measured) for p, c in g)
        theirs = median(p.accuracy for p, _ in g)
        low = tuple((p, c) for p, c in g if precision(c, p.measured) < 0.8)
        out.append(OpReport(arch, op, len(g), ours, theirs, low))
    return median(everything), out


def markdown() -> str:
    """The per-op table of docs/timing.md (between its `precision table` markers)."""
    overall, ops = report()
    lines = [
        f"Median precision over all {sum(r.points for r in ops)} points: **{overall:.3f}** "
        f"(pto-isa commit {commit()[:7]}).",
        "",
        "| arch | op | points | ours (median) | pto-isa's model (median) | points below 0.8: case, ours, pto-isa's accuracy, measured |",
        "|---|---|---|---|---|---|",
    ]
    for r in ops:
        low = "; ".join(f"{p.case} {c} ({p.accuracy:.2f}) / {p.measured:g}" for p, c in r.low[:6])
        if len(r.low) > 6:
            low += f"; and {len(r.low) - 6} more"
        lines.append(f"| {r.arch} | {r.op} | {r.points} | {r.ours:.3f} | {r.theirs:.3f} | {low} |")
    return "\n".join(lines) + "\n"


def _write_docs() -> None:
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "docs" / "timing.md"
    start, end = "<!-- precision table: python -m pto_dialect.timing.measured -->\n", "<!-- end of precision table -->"
    text = path.read_text()
    head, rest = text.split(start, 1)
    path.write_text(head + start + markdown() + end + rest.split(end, 1)[1])


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--write"]:
        _write_docs()
    else:
        sys.stdout.write(markdown())
