"""Our cost formulas (timing/costs.py) against the cycles pto-isa's cost-model
tests profiled on hardware (timing/measured_cycles.json), priced through
CostTable.duration, the code `--cycles` and `slots=model` use; the per-op
table of docs/timing.md is this test's report."""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_dialect.interpreter.trace import OpShape, op_shape
from pto_dialect.timing import cost_table
from pto_dialect.timing.measured import markdown, points, precision, report

DOCS = Path(__file__).resolve().parents[2] / "docs" / "timing.md"


def test_the_median_precision_over_all_measured_points_is_at_least_0_9():
    overall, ops = report()
    print("\n" + markdown())
    assert len(points()) > 700
    assert overall >= 0.90


def test_per_op_our_precision_is_at_least_pto_isas_own():
    _, ops = report()
    short = [(r.arch, r.op, round(r.ours, 3), round(r.theirs, 3)) for r in ops if r.ours < r.theirs]
    assert not short


def test_docs_timing_md_holds_the_current_table():
    text = DOCS.read_text()
    start, end = "<!-- precision table: python -m pto_dialect.timing.measured -->\n", "<!-- end of precision table -->"
    assert start in text and end in text
    assert text.split(start, 1)[1].split(end, 1)[0] == markdown(), "run: python -m pto_dialect.timing.measured --write"


def test_every_op_below_pto_isa_and_every_point_below_0_8_is_explained_in_docs():
    text = DOCS.read_text().split("<!-- end of precision table -->", 1)[1]
    _, ops = report()
    for r in ops:
        if r.low or r.ours < r.theirs:
            assert f"`{r.arch} {r.op}`" in text, f"docs/timing.md explains no {r.arch} {r.op}"


def test_precision_is_pto_isas_formula():
    assert precision(492, 492) == 1.0
    assert precision(51, 492) == pytest.approx(1 - 441 / 492)
    assert precision(2000, 492) == 0.0


class _Layout:
    def __init__(self, loc, dtype, itemsize, shape):
        self.tile = type("T", (), {"loc": loc})()
        self.dtype, self.itemsize, self.shape = dtype, itemsize, shape


class _Tile:
    def __init__(self, loc, dtype, itemsize, shape, valid=None):
        self.layout = _Layout(loc, dtype, itemsize, shape)
        self.valid = valid or shape


def test_op_shape_reads_what_the_formulas_need():
    # trowsum f32 64x64 with its 64x1 result: the main tile is the source
    src, tmp, dst = _Tile("vec", "f32", 4, (64, 64)), _Tile("vec", "f32", 4, (64, 64)), _Tile("vec", "f32", 4, (64, 8), (64, 1))
    s = op_shape("pto.trowsum", [src], [tmp, dst])
    assert (s.dtype, s.rows, s.cols, s.row_elems, s.src, s.dst) == ("f32", 64, 64, 64, "vec", "vec")
    # and is priced as the measured point is: 492 cycles on the device
    from pto_dialect.interpreter.trace import TraceEvent

    ev = TraceEvent("pto.trowsum", "V", "x", (), (), 64, 0, s)
    assert precision(cost_table("a2a3").duration(ev), 492) > 0.95
    # a matmul: M x N with K inner, f32 at a quarter of the f16 rate
    lhs, rhs = _Tile("left", "f32", 4, (128, 112), (120, 110)), _Tile("right", "f32", 4, (112, 64), (110, 50))
    mm = op_shape("pto.tmatmul", [lhs, rhs], [_Tile("acc", "f32", 4, (128, 64))], lhs, rhs)
    assert (mm.rows, mm.k, mm.cols) == (120, 110, 50)
    assert cost_table("a2a3").duration(TraceEvent("pto.tmatmul", "M", "x", (), (), 0, 0, mm)) == 902  # measured: 902
    # a load of a 5-D partition: one DMA command per outer index
    view = type("V", (), {"shape": (2, 2, 2, 32, 64)})()
    ld = op_shape("pto.tload", [view], [_Tile("vec", "f32", 4, (256, 64))])
    assert (ld.blocks, ld.src, ld.dst) == (8, "gm", "vec")
    assert isinstance(ld, OpShape)


def test_a5_prices_a_contiguous_run_and_padded_rows_on_their_own_paths():
    # f32 to e4m3 (tests/costmodel/st_a5_fit/testcase/tcvt_fit/main.cpp): the
    # 1x640 run takes 178 cycles, 3x384 rows of a 448-wide tile 890
    from pto_dialect.interpreter.trace import TraceEvent

    table = cost_table("a5")

    def cycles(rows, cols, row_elems):
        shape = OpShape("Float8E4M3", 4, rows, cols, row_elems, "vec", "vec", src_dtype="f32")
        return table.duration(TraceEvent("pto.tcvt", "V", "x", (), (), rows * cols, 0, shape))

    assert precision(cycles(1, 640, 640), 178) > 0.97
    assert precision(cycles(3, 384, 448), 890) > 0.97
    assert cycles(3, 384, 384) < cycles(3, 384, 448) / 3  # the same elements as one contiguous run
