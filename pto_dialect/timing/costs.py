"""How long an op occupies its pipe: per-op formulas fitted to cycles
measured on hardware (docs/timing.md).

The measurements are pto-isa's cost-model tests (github.com/hw-native-sys/
pto-isa at commit 3186c38): `tests/costmodel/st/testcase/<op>/main.cpp`
(a2a3) and `tests/costmodel/st_a5_fit/testcase/<op>_fit/main.cpp` (a5)
give, per op, element type and shape, the cycles profiled on the device.
`measured_cycles.json` holds a copy (scripts/extract_measured_cycles.py);
test/python/test_timing_precision.py checks these formulas against every
point, beside the precision pto-isa's own model reaches there;
scripts/fit_costs.py fits the parameters below.

A vector op (pipe V) runs in repeats: one repeat covers 256 bytes of one
row of its main tile (trace.OpShape: the largest valid region among its
tiles), so a row of `cols` elements of `itemsize` bytes takes
ceil(cols * itemsize / 256) repeats. On a5 a tile whose rows are contiguous
(or a single row) is one 1-D run instead. The op takes

    fixed + per_repeat * repeats + per_row * rows        cycles

with its own three parameters (`VectorFormula`); an a5 op has one such
formula per path, the 1-D run's and the rows' (`PathFormula`), as pto-isa
keys its a5 formulas. The cube unit (M) takes

    fixed + per_fractal * ceil(M/16) * ceil(K/k0) * ceil(N/16)

with k0 = 32 bytes of K per fractal (16 f16, 8 f32, 32 i8) and per_fractal 2
for f32 and 1 otherwise: f32 is four times slower per multiply-accumulate
than f16 (`CubeFormula`, the formula of pto-isa's
tests/costmodel/st_fit/testcase/tmatmul_fit/main.cpp, exact on every
profiled tmatmul). A transfer (MTE2, MTE3, MTE1) takes

    blocks * (fixed + ceil(bytes per block / rate))

where a block is one 2-D DMA command (a partition's outer dimensions each
issue their own; `TransferFormula`). An op without a formula of its own
(an event without an OpShape, or a table such as the tests' hand-built
ones) is priced by its pipe's `PipeCost` on bytes alone:
`fixed + ceil(work * factor / rate)`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..dialect.effects import Pipe
from ..dialect.targets import canonical_arch

if TYPE_CHECKING:
    from ..interpreter.trace import OpShape, TraceEvent

BYTES = "bytes"
WRITTEN = "bytes written"
MACS = "MACs"

REPEAT_BYTES = 256  # one vector repeat: 8 blocks of 32 bytes (pto-isa include/pto/costmodel/arch_config.hpp kBlockBytes)
FREQUENCY_HZ = 1.85e9  # pto-isa include/pto/costmodel/arch_config.hpp kMainFrequencyHz


@dataclass(frozen=True)
class PipeCost:
    fixed: int  # cycles every op pays: issue, DMA descriptor set-up, pipeline fill
    rate: int  # work units done per cycle once the op runs
    work: str = BYTES  # what the rate counts: BYTES (largest access), WRITTEN (bytes written) or MACS
    op_factor: Mapping[str, int] = field(default_factory=dict)  # ops that need this many passes per unit


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def repeats(shape: OpShape, one_d: bool) -> tuple[int, int]:
    """(repeats, rows) of a vector op over its main tile: `rows` is what the
    per-row term counts (0 for a 1-D run)."""
    row_bytes = shape.cols * shape.itemsize
    if one_d and (shape.rows == 1 or shape.cols == shape.row_elems):
        return _ceil(shape.rows * row_bytes, REPEAT_BYTES), 0
    return shape.rows * _ceil(row_bytes, REPEAT_BYTES), shape.rows


@dataclass(frozen=True)
class VectorFormula:
    fixed: float
    per_repeat: float
    per_row: float = 0.0

    def cycles(self, shape: OpShape, one_d: bool) -> float:
        n, rows = repeats(shape, one_d)
        return self.fixed + self.per_repeat * n + self.per_row * rows


@dataclass(frozen=True)
class CubeFormula:
    fixed: float

    def cycles(self, shape: OpShape, one_d: bool) -> float:
        k0 = max(1, 32 // shape.itemsize)
        per_fractal = 2 if shape.dtype == "f32" else 1
        return self.fixed + per_fractal * _ceil(shape.rows, 16) * _ceil(shape.k, k0) * _ceil(shape.cols, 16)


@dataclass(frozen=True)
class TransferFormula:
    fixed: float  # per 2-D transfer
    rate: float  # bytes per cycle

    def cycles(self, shape: OpShape, one_d: bool) -> float:
        blocks = max(1, shape.blocks)
        per_block = _ceil(shape.rows * shape.cols * shape.itemsize, blocks)
        return blocks * (self.fixed + per_block / self.rate)


@dataclass(frozen=True)
class ConstantFormula:
    """An op the hardware finishes at once (pto-isa's measurement and model agree)."""

    fixed: float

    def cycles(self, shape: OpShape, one_d: bool) -> float:
        return self.fixed


@dataclass(frozen=True)
class PathFormula:
    """A vector op timed apart on its two paths, as pto-isa keys its a5
    formulas (include/pto/costmodel/a5/formula_costmodel/formula_params.csv,
    `shape_path` 1D or 2D): a contiguous tile runs as one 1-D run, a tile
    with padded rows row by row (`repeats`)."""

    one_d: VectorFormula
    two_d: VectorFormula

    def cycles(self, shape: OpShape, one_d: bool) -> float:
        _, rows = repeats(shape, one_d)
        return (self.two_d if rows else self.one_d).cycles(shape, one_d)


Formula = VectorFormula | CubeFormula | TransferFormula | ConstantFormula | PathFormula


@dataclass(frozen=True)
class CostTable:
    arch: str
    pipes: Mapping[str, PipeCost]  # by pipe name ("MTE2", ...): the fallback on bytes
    ops: Mapping[str, Formula] = field(default_factory=dict)  # by ptoas op name ("pto.tadd")
    by_dtype: Mapping[tuple[str, str], Formula] = field(default_factory=dict)  # (op, element type): overrides
    by_spaces: Mapping[tuple[str, str, str], Formula] = field(default_factory=dict)  # (op, src space, dst space)
    by_pair: Mapping[tuple[str, str, str], Formula] = field(default_factory=dict)  # (op, src dtype, dst dtype): tcvt
    one_d: bool = False  # contiguous tiles run as one 1-D run (a5)
    f32_lanes: frozenset[str] = frozenset()  # ops whose 16-bit forms run on f32 lanes (widened: 4 bytes per element)

    def lanes(self, op: str, shape: OpShape) -> OpShape:
        """The shape the formula counts repeats of: a 16-bit float of an
        op in `f32_lanes` takes the room of an f32."""
        if op in self.f32_lanes and shape.itemsize == 2 and shape.dtype in ("f16", "bf16"):
            return replace(shape, itemsize=4)
        return shape

    def formula(self, op: str, shape: OpShape | None) -> Formula | None:
        if shape is None:
            return None
        return (
            self.by_pair.get((op, shape.src_dtype, shape.dtype))
            or self.by_dtype.get((op, shape.dtype))
            or self.by_spaces.get((op, shape.src, shape.dst))
            or self.ops.get(op)
        )

    def duration(self, event: TraceEvent) -> int:
        formula = self.formula(event.op, event.shape)
        if formula is not None:
            return max(1, round(formula.cycles(self.lanes(event.op, event.shape), self.one_d)))
        cost = self.pipes[event.pipe]
        if cost.work == MACS:
            work = event.macs
        elif cost.work == WRITTEN:
            work = sum(a.nbytes for a in event.writes)
        else:
            work = max((a.nbytes for a in (*event.reads, *event.writes)), default=0)
        work *= cost.op_factor.get(event.op, 1)
        return cost.fixed + -(-work // cost.rate)  # ceil without floats


# --- the fitted parameters --------------------------------------------------------------
#
# VectorFormula(fixed, per_repeat, per_row), fitted by scripts/fit_costs.py
# (least squares on relative error, parameters >= 0) to the points of
# pto_dialect/timing/measured_cycles.json; the source of each op's points
# is its test file in pto-isa (tests/costmodel/st/testcase/<op>/main.cpp,
# tests/costmodel/st_a5_fit/testcase/<op>_fit/main.cpp). An op without
# measured points takes the formula of the measured op it is built like
# (`_LIKE`), named beside it.

_A2A3_VECTOR = {  # fitted: tests/costmodel/st/testcase/<op>/main.cpp
    "pto.tabs": VectorFormula(4.0, 1.000, 0.00),  # 2 points
    "pto.tadd": VectorFormula(24.0, 2.125, 0.00),  # 4 points
    "pto.tadds": VectorFormula(10.0, 1.000, 0.00),  # 6 points
    "pto.tcolmax": VectorFormula(0.0, 0.009, 7.02),  # 5 points
    "pto.tcolsum": VectorFormula(0.0, 3.156, 0.00),  # 3 points
    "pto.tcvt": VectorFormula(20.0, 3.250, 0.00),  # 2 points
    "pto.tdiv": VectorFormula(30.0, 4.031, 0.00),  # 1 point (f32); the fixed part is pto-isa's vdiv calibration (ISA_FIXED)
    "pto.tdivs": VectorFormula(78.0, 3.968, 0.00),  # 4 points
    "pto.texp": VectorFormula(0.0, 1.469, 0.00),  # 5 points
    "pto.tmins": VectorFormula(12.0, 0.875, 0.00),  # 5 points
    "pto.tmul": VectorFormula(24.0, 2.250, 0.00),  # 4 points
    "pto.tmuls": VectorFormula(10.0, 1.000, 0.00),  # 6 points
    "pto.trowexpand": VectorFormula(20.0, 14.266, 0.00),  # 2 points
    "pto.trowmax": VectorFormula(20.0, 7.195, 0.00),  # 2 points
    "pto.trowsum": VectorFormula(20.0, 7.394, 0.00),  # 2 points
    "pto.trsqrt": VectorFormula(20.0, 0.594, 0.00),  # 1 points
    "pto.tsqrt": VectorFormula(20.0, 2.187, 0.00),  # 4 points
    "pto.tsub": VectorFormula(0.0, 1.859, 0.53),  # 4 points
    "pto.ttrans": VectorFormula(20.0, 1.879, 0.00),  # 1 points
}
_A5_VECTOR = {  # fitted per path (PathFormula): tests/costmodel/st_a5_fit/testcase/<op>_fit/main.cpp
    "pto.tadd": PathFormula(VectorFormula(54.0, 1.300), VectorFormula(48.8, 1.619, 3.87)),  # 44 points
    "pto.tcvt": PathFormula(VectorFormula(65.3, 1.684), VectorFormula(56.8, 1.078, 2.85)),  # 144 points
    "pto.tdivs": PathFormula(VectorFormula(64.3, 1.933), VectorFormula(61.8, 1.890, 2.45)),  # 55 points
    "pto.texp": PathFormula(VectorFormula(63.2, 1.941), VectorFormula(60.7, 1.884, 2.38)),  # 52 points
    "pto.tmins": PathFormula(VectorFormula(54.0, 1.000), VectorFormula(49.0, 1.100, 4.70)),  # 44 points
    "pto.tmul": PathFormula(VectorFormula(56.0, 1.200), VectorFormula(49.8, 1.613, 3.88)),  # 44 points
    "pto.tneg": PathFormula(VectorFormula(56.0, 1.000), VectorFormula(51.0, 1.094, 4.72)),  # 44 points
    "pto.trecip": PathFormula(VectorFormula(64.3, 1.933), VectorFormula(61.8, 1.890, 2.45)),  # 52 points
    "pto.trsqrt": PathFormula(VectorFormula(76.0, 4.000), VectorFormula(77.0, 4.000, 0.00)),  # 52 points
    "pto.tsqrt": PathFormula(VectorFormula(64.2, 1.941), VectorFormula(61.7, 1.884, 2.38)),  # 52 points
    "pto.tsub": PathFormula(VectorFormula(54.0, 1.300), VectorFormula(48.8, 1.619, 3.87)),  # 44 points
}

# Element types whose points a formula of their own fits better (scripts/fit_costs.py);
# on a5 the f16 forms of the divider and transcendental ops run at the f32 rate per element.
_A2A3_VECTOR_BY_DTYPE = {
    # f16 tdiv runs f16 repeats of 128 lanes (pto-isa include/pto/npu/a2a3/TDiv.hpp:
    # one vdiv per repeat) at a little over twice f32's time per repeat:
    # 304 cycles for 64x64 against f32's 288 (tests/costmodel/st/testcase/tdiv/main.cpp);
    # the fixed part is that of f32 (pto-isa's vdiv calibration, scripts/fit_costs.py ISA_FIXED).
    ("pto.tdiv", "f16"): VectorFormula(30.0, 4.281, 0.00),  # 1 point
    ("pto.tadds", "f32"): VectorFormula(27.1, 0.933, 0.00),  # 3 points
    ("pto.tmuls", "f32"): VectorFormula(28.3, 0.929, 0.00),  # 3 points
}
_A5_VECTOR_BY_DTYPE = {
    ("pto.texp", "f16"): PathFormula(VectorFormula(65.2, 1.889), VectorFormula(65.2, 1.963, 0.00)),  # 9 points
    ("pto.trecip", "f16"): PathFormula(VectorFormula(68.4, 1.778), VectorFormula(66.2, 1.963, 0.00)),  # 9 points
    ("pto.trsqrt", "f16"): PathFormula(VectorFormula(80.9, 4.056), VectorFormula(80.9, 4.019, 0.00)),  # 9 points
    ("pto.tsqrt", "f16"): PathFormula(VectorFormula(66.2, 1.889), VectorFormula(66.2, 1.963, 0.00)),  # 9 points
}
# tcvt on a5, per source and target type and per path (1-D: a contiguous
# run; 2-D: row by row), as pto-isa's a5 formula_params.csv keys TCVT:
# tests/costmodel/st_a5_fit/testcase/tcvt_fit/main.cpp, 3 1-D and 6 2-D
# points a pair. The narrowing conversions to 8- and 4-bit floats take
# about 12 cycles a repeat on a 1-D run and 40-80 on rows of more than one
# repeat (3x384 f32 to e4m3: 890 cycles; 1x640: 178); their one-repeat rows
# (3x128: 97) are far faster than that formula (docs/timing.md).
_A5_TCVT = {
    ("pto.tcvt", "Float4E1M2", "bf16"): PathFormula(VectorFormula(90.1, 0.444), VectorFormula(63.0, 1.689, 0.62)),  # 9 points
    ("pto.tcvt", "Float4E2M1", "bf16"): PathFormula(VectorFormula(90.1, 0.444), VectorFormula(63.0, 1.689, 0.62)),  # 9 points
    ("pto.tcvt", "Float8E4M3", "f32"): PathFormula(VectorFormula(88.2, 3.778), VectorFormula(58.2, 5.259, 0.00)),  # 9 points
    ("pto.tcvt", "Float8E5M2", "f32"): PathFormula(VectorFormula(88.2, 3.778), VectorFormula(58.2, 5.259, 0.00)),  # 9 points
    ("pto.tcvt", "HFloat8", "f32"): PathFormula(VectorFormula(88.2, 3.778), VectorFormula(58.2, 5.259, 0.00)),  # 9 points
    ("pto.tcvt", "bf16", "Float4E1M2"): PathFormula(VectorFormula(54.6, 12.444), VectorFormula(59.0, 79.000, 41.00)),  # 9 points
    ("pto.tcvt", "bf16", "Float4E2M1"): PathFormula(VectorFormula(54.6, 12.444), VectorFormula(59.0, 79.000, 41.00)),  # 9 points
    ("pto.tcvt", "bf16", "f16"): PathFormula(VectorFormula(52.8, 1.222), VectorFormula(53.8, 1.392, 0.00)),  # 9 points
    ("pto.tcvt", "bf16", "f32"): PathFormula(VectorFormula(73.0, 0.000), VectorFormula(54.9, 1.381, 0.00)),  # 9 points
    ("pto.tcvt", "f16", "HFloat8"): PathFormula(VectorFormula(52.7, 1.333), VectorFormula(53.8, 1.402, 0.00)),  # 9 points
    ("pto.tcvt", "f16", "f32"): PathFormula(VectorFormula(73.0, 0.000), VectorFormula(54.9, 1.381, 0.00)),  # 9 points
    ("pto.tcvt", "f32", "Float8E4M3"): PathFormula(VectorFormula(54.7, 12.333), VectorFormula(59.0, 39.500, 40.00)),  # 9 points
    ("pto.tcvt", "f32", "Float8E5M2"): PathFormula(VectorFormula(54.7, 12.333), VectorFormula(59.0, 39.500, 40.00)),  # 9 points
    ("pto.tcvt", "f32", "HFloat8"): PathFormula(VectorFormula(54.7, 12.333), VectorFormula(59.0, 39.500, 40.00)),  # 9 points
    ("pto.tcvt", "f32", "bf16"): PathFormula(VectorFormula(51.7, 1.333), VectorFormula(57.0, 1.167, 0.00)),  # 9 points
    ("pto.tcvt", "f32", "f16"): PathFormula(VectorFormula(51.7, 1.333), VectorFormula(57.0, 1.167, 0.00)),  # 9 points
}

# Ops without measured points, priced as the measured op they are built like.
_LIKE = {
    "pto.tlog": "pto.texp",  # a transcendental sequence like texp's
    "pto.tmax": "pto.tadd",  # binary one-pass ops
    "pto.tmin": "pto.tadd",
    "pto.tsubs": "pto.tadds",  # tile-scalar one-pass ops
    "pto.tmaxs": "pto.tmins",
    "pto.tneg": "pto.tabs",  # unary one-pass ops (a2a3)
    "pto.tabs": "pto.tneg",  # (a5)
    "pto.trelu": "pto.tabs",
    "pto.trecip": "pto.tdivs",  # TRECIP is TDIVS(1, x) (docs/isa/TRECIP.md)
    "pto.tdiv": "pto.tdivs",  # (a5: the divider's throughput)
    "pto.tadds": "pto.tmins",  # (a5)
    "pto.tmuls": "pto.tmins",  # (a5)
    "pto.trowmin": "pto.trowmax",  # the a2a3 trowmin points are not a reduction (docs/timing.md)
    "pto.tcolmin": "pto.tcolmax",
    "pto.trowexpandadd": "pto.tadd",  # a broadcast then one binary pass over the full-size operand
    "pto.trowexpandsub": "pto.tsub",
    "pto.trowexpandmul": "pto.tmul",
    "pto.trowexpanddiv": "pto.tdiv",
    "pto.tcolexpand": "pto.trowexpand",
    "pto.tcolexpandadd": "pto.tadd",
    "pto.tcolexpandmul": "pto.tmul",
    "pto.texpands": "pto.tadds",  # one pass writing the tile
    "pto.tci": "pto.tadds",
    "pto.tfillpad": "pto.tadds",
    "pto.tgather": "pto.tadds",
    "pto.tconcat": "pto.tadds",
}


def _with_likes(own: dict, *fallbacks: dict) -> dict:
    out = dict(own)
    for _ in range(3):  # a like may itself be a like
        for op, like in _LIKE.items():
            if op in out:
                continue
            for table in (out, *fallbacks):
                if like in table:
                    out[op] = table[like]
                    break
    for table in fallbacks:  # ops measured on the other arch only
        for op, f in table.items():
            out.setdefault(op, f)
    return out


# MTE2: one 2-D DMA command per block of the partition, each paying a fixed
# set-up; fitted to tests/costmodel/st/testcase/tload/main.cpp (c01-c09: a
# 64 KB block takes 776 cycles, a 16 KB one 392, 32 blocks of 512 bytes 8576).
# The other transfers were not profiled: they take MTE2's fixed part and its
# measured rate scaled by the bandwidth ratio pto-isa's arch_config.hpp
# (kA2A3ArchConfig) gives between their path and GM_TO_UB (100.9 GB/s):
# UB_TO_GM 188.46, GM_TO_L1 135, L0C_TO_GM 70, L1_TO_L0A 441 (L0B 220.5).
_MTE2_FIXED, _MTE2_RATE = 265.0, 128.0
_GM_TO_UB = 100.9


def _transfer(path_gb_s: float, fixed: float = _MTE2_FIXED) -> TransferFormula:
    return TransferFormula(fixed, _MTE2_RATE * path_gb_s / _GM_TO_UB)


_TRANSFERS = {
    ("pto.tload", "gm", "vec"): _transfer(_GM_TO_UB),
    ("pto.tload", "gm", "mat"): _transfer(135.0),
    ("pto.tstore", "vec", "gm"): _transfer(188.46),
    ("pto.tstore", "acc", "gm"): _transfer(70.0),
    ("pto.tstore", "mat", "gm"): _transfer(32.0),
    # MTE1 moves inside the core: pto-isa's transfer model has no fixed part
    # (a2a3/formula_costmodel/formula_backend_transfer.hpp, bytes / bandwidth)
    ("pto.textract", "mat", "left"): _transfer(441.0, 0.0),
    ("pto.textract", "mat", "right"): _transfer(220.5, 0.0),
    ("pto.tmov", "mat", "left"): _transfer(441.0, 0.0),
    ("pto.tmov", "mat", "right"): _transfer(220.5, 0.0),
    ("pto.tmov", "acc", "mat"): _transfer(128.0, 0.0),
    ("pto.tmov", "mat", "bias"): _transfer(32.0, 0.0),
    ("pto.tmov", "mat", "scaling"): _transfer(32.0, 0.0),
    # UB -> UB: fitted to tests/costmodel/st/testcase/tmov/main.cpp (a 64x128
    # f32 copy takes 1029 cycles: 8 per repeat, far below UB_TO_UB's 1024 GB/s)
    ("pto.tmov", "vec", "vec"): VectorFormula(0.0, 8.040, 0.00),
}

# tdivs on integers: 4 cycles measured (tests/costmodel/st/testcase/tdivs/main.cpp
# case3, case4, case7, case8), and pto-isa's model agrees (accuracy 1.0).
_A2A3_BY_DTYPE = {
    **{("pto.tdivs", t): ConstantFormula(4.0) for t in ("i32", "i16", "i8", "u32", "u16", "u8")},
    **_A2A3_VECTOR_BY_DTYPE,
}

# The cube: exact on tests/costmodel/st/testcase/tmatmul/main.cpp, 6 cycles head.
_CUBE = {"pto.tmatmul": CubeFormula(6.0), "pto.tmatmul.acc": CubeFormula(6.0), "pto.tmatmul_acc": CubeFormula(6.0)}

# The fallback on bytes, for events without a shape: the rates above.
_PIPES = {
    Pipe.MTE2.value: PipeCost(fixed=265, rate=128),
    Pipe.MTE1.value: PipeCost(fixed=0, rate=559, work=WRITTEN),
    Pipe.V.value: PipeCost(fixed=30, rate=128),
    Pipe.M.value: PipeCost(fixed=6, rate=4096, work=MACS),
    Pipe.MTE3.value: PipeCost(fixed=265, rate=239),
}

# The divider, square root and transcendental sequences work on f32 lanes:
# their f16 forms take as long per element as the f32 ones (a2a3 tdiv, tdivs
# and tsqrt: tests/costmodel/st/testcase/{tdiv,tdivs,tsqrt}/main.cpp, f16
# 64x64 304 cycles against f32 64x64 288; a5: the f16 tables of
# st_a5_fit/testcase/{tdivs,texp,trecip,trsqrt,tsqrt}_fit).
_A2A3_F32_LANES = frozenset({"pto.tdiv", "pto.tdivs", "pto.trecip", "pto.tsqrt", "pto.trowexpanddiv"})
_A5_F32_LANES = frozenset(
    {"pto.tdiv", "pto.tdivs", "pto.trecip", "pto.tsqrt", "pto.trsqrt", "pto.texp", "pto.tlog", "pto.trowexpanddiv"}
)

_A2A3_OPS = {**_with_likes(_A2A3_VECTOR, _A5_VECTOR), **_CUBE}
_A5_OPS = {**_with_likes(_A5_VECTOR, _A2A3_VECTOR), **_CUBE}

COST_TABLES: dict[str, CostTable] = {
    "a2a3": CostTable("a2a3", _PIPES, _A2A3_OPS, _A2A3_BY_DTYPE, _TRANSFERS, f32_lanes=_A2A3_F32_LANES),
    # a5: its own vector formulas (st_a5_fit); no a5 transfer or cube points
    # were profiled, so those are a2a3's.
    "a5": CostTable("a5", _PIPES, _A5_OPS, _A5_VECTOR_BY_DTYPE, _TRANSFERS, _A5_TCVT, one_d=True, f32_lanes=_A5_F32_LANES),
}


def cost_table(arch: str) -> CostTable:
    """The parameter table of `arch` (one of targets.ARCHS, or an alias
    such as `a3`)."""
    return COST_TABLES[canonical_arch(arch) or arch]
