"""Where pto-run follows pto-isa's NPU code instead of its CPU simulator,
element by element (docs/semantics.md, "Where the NPU code decides").

The op differential compares pto-run with the simulator bit for bit. Where
the simulator knowingly differs from the NPU implementation of the target,
pto-run follows the NPU code, and an element that differs only for that
reason is explained by a `Choice`: its check recomputes, independently of
the interpreter, what the NPU code gives for that element's input and
accepts the difference only when pto-run gave exactly that. An element no
choice explains is a mismatch.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..interpreter import conversions

INT_RANGES = {"i8": 8, "i16": 16, "i32": 32, "i64": 64}
FLOAT_DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64}


@dataclass(frozen=True)
class Choice:
    name: str
    reason: str  # for docs/semantics.md, with the file that decides
    check: Callable  # (case, difference) -> bool: pto-run gave what the NPU code gives


def _tcvt_parts(case):
    """The source and destination element types, round and saturation
    modes a tcvt case was written with."""
    src = next(a for a in case.args if a.name == "%src")
    dst = next(a for a in case.args if a.name == "%dst")
    rmode = _attr(case.body, "round_mode") or "CAST_RINT"
    satmode = _attr(case.body, "saturation_mode") or conversions.DEFAULT_SATURATION_MODE
    has_tmp = "%tmp" in case.body
    return src, dst, rmode, satmode, has_tmp


def _attr(body: str, name: str) -> str | None:
    marker = f"#pto<{name} "
    at = body.find(marker)
    return body[at + len(marker) : body.index(">", at)] if at >= 0 else None


def _exact(value) -> Fraction | float:
    """The exact value of an element (NaN and infinities as floats)."""
    if isinstance(value, (np.integer, int)):
        return Fraction(int(value))
    v = float(value)
    return Fraction(v) if math.isfinite(v) else v


def _int_limits(dtype: str) -> tuple[int, int]:
    w = INT_RANGES[dtype]
    return -(1 << (w - 1)), (1 << (w - 1)) - 1


def _round_int(x: Fraction, mode: str) -> int:
    """x rounded to an integer under a round mode."""
    floor = math.floor(x)
    frac = x - floor
    if mode == "floor":
        return floor
    if mode == "ceil":
        return math.ceil(x)
    if mode == "trunc":
        return int(x)
    if mode == "round":
        return floor + 1 if frac > Fraction(1, 2) or (frac == Fraction(1, 2) and x > 0) else floor
    # rint: to nearest, ties to even
    if frac != Fraction(1, 2):
        return floor + (1 if frac > Fraction(1, 2) else 0)
    return floor if floor % 2 == 0 else floor + 1


# -- tcvt -------------------------------------------------------------------------------------------


def _directed_float(case, d) -> bool:
    """Into a float type the NPU rounds as `rmode` says (an instruction per
    mode); the simulator's static_cast rounds to nearest whatever the mode."""
    src, dst, rmode, _, _ = _tcvt_parts(case)
    if dst.dtype not in FLOAT_DTYPES:
        return False
    mode = conversions.rounding(case.arch, src.dtype, dst.dtype, rmode)
    if mode == "rint":
        return False
    x = _exact(src.data[d.row, d.col])
    y = float(d.ours)
    if not isinstance(x, Fraction):
        return (math.isnan(x) and math.isnan(y)) or x == y
    t = FLOAT_DTYPES[dst.dtype]
    with np.errstate(over="ignore"):
        below = float(np.nextafter(t(y), t(-np.inf)))
        above = float(np.nextafter(t(y), t(np.inf)))
    fy = Fraction(y) if math.isfinite(y) else None
    fb = Fraction(below) if math.isfinite(below) else None
    fa = Fraction(above) if math.isfinite(above) else None
    if mode == "trunc":
        mode = "floor" if x >= 0 else "ceil"
    if mode == "floor":  # y <= x < above (y the largest finite when x is beyond it)
        return fy is not None and fy <= x and (fa is None or x < fa)
    if mode == "ceil":
        return fy is not None and x <= fy and (fb is None or fb < x)
    if fy is None:
        return False
    if mode == "round":  # nearest, ties away from zero
        other = fa if x > fy else fb
        if other is None:
            return True
        gap_y, gap_o = abs(x - fy), abs(x - other)
        return gap_y < gap_o or (gap_y == gap_o and abs(fy) > abs(other))
    # odd: x itself, else the neighbour of x whose last significand bit is 1
    # (beyond the largest finite value: that value, whose last bit is 1)
    if fy == x:
        return True
    if (fa is None and x > fy) or (fb is None and x < fy):
        return True
    bits = np.array([y], dtype=t).view(np.dtype(f"u{np.dtype(t).itemsize}"))[0]
    return bool(bits & 1) and ((fb is not None and fb < x < fy) or (fa is not None and fy < x < fa))


def _saturating_int(x, rounding: str, dtype: str) -> int:
    """What the NPU's saturating conversion of float x gives in integer
    type `dtype`: rounded and clamped to the type, infinities to its
    limits, NaN to 0."""
    lo, hi = _int_limits(dtype)
    if not isinstance(x, Fraction):
        return 0 if math.isnan(x) else (hi if x > 0 else lo)
    return min(max(_round_int(x, rounding), lo), hi)


def _saturation_into_integers(case, d) -> bool:
    """Saturating into an integer type clamps to the type's range
    (npu/a2a3/TCvt.hpp, SAT_MODE_BIT: "Clamp to datatype range"), with
    infinities at its limits and NaN at 0, what the NPU's PyTorch-aligned
    conversions build on (EDGE_CASE_ALIGN_ENABLE: "inf, -inf, nan,
    overflow"). The simulator clamps to the range both types hold with
    that limit rounded to the source type (INT32_MAX as f32 is 2**31,
    32767 as f16 is 32768, which then overflow), sends f16 infinities to
    +-65504 and NaN to the top."""
    src, dst, rmode, satmode, has_tmp = _tcvt_parts(case)
    if dst.dtype not in INT_RANGES or src.dtype not in FLOAT_DTYPES:
        return False
    if not conversions.effective_saturation(case.arch, src.dtype, dst.dtype, satmode, has_tmp):
        return False
    x = _exact(src.data[d.row, d.col])
    return int(d.ours) == _saturating_int(x, conversions.rounding(case.arch, src.dtype, dst.dtype, rmode), dst.dtype)


def _nonsat_torch(case, d) -> bool:
    """Without saturation the NPU converts f32->i16, f16->i16 and f16->i8 by
    way of int32 with saturation, keeping the low bits (PyTorch's results
    for inf, NaN and overflow: npu/a2a3/TCvt.hpp GenCastCallFp32ToInt16_NonSatTorch,
    GenCastCallFp16ToInt16_NonSatTorch, GenCastCallFp16ToInt8_NonSatTorch;
    npu/a5/TCvt.hpp cast*_NonSatTorch_*); the simulator's static_cast of an
    out-of-range value is the host's."""
    src, dst, rmode, satmode, has_tmp = _tcvt_parts(case)
    if (src.dtype, dst.dtype) not in conversions.NONSAT_TORCH:
        return False
    if conversions.effective_saturation(case.arch, src.dtype, dst.dtype, satmode, has_tmp):
        return False
    x = _exact(src.data[d.row, d.col])
    wide = _saturating_int(x, conversions.rounding(case.arch, src.dtype, dst.dtype, rmode), "i32")
    w = INT_RANGES[dst.dtype]
    low = wide & ((1 << w) - 1)
    want = low - (1 << w) if low >= 1 << (w - 1) else low
    return int(d.ours) == want


def _odd_is_default(case, d) -> bool:
    """The NPU rounds to odd only from f32 to f16 (vconv_f322f16o); with
    ODD any other conversion takes its default, truncation into an integer
    type (npu/a5/TCvt.hpp tcvtDispatchByRound, the default branches of
    npu/a2a3/TCvt.hpp); the simulator rounds to odd into integers too."""
    src, dst, rmode, satmode, has_tmp = _tcvt_parts(case)
    if rmode != "ODD" or dst.dtype not in INT_RANGES:
        return False
    x = _exact(src.data[d.row, d.col])
    if not isinstance(x, Fraction):
        return False
    lo, hi = _int_limits(dst.dtype)
    want = int(x)
    return lo <= want <= hi and int(d.ours) == want


TCVT_CHOICES = (
    Choice("rounding into a float type", _directed_float.__doc__, _directed_float),
    Choice("saturation into an integer type", _saturation_into_integers.__doc__, _saturation_into_integers),
    Choice("non-saturating narrowing by way of int32", _nonsat_torch.__doc__, _nonsat_torch),
    Choice("ODD elsewhere than f32 to f16", _odd_is_default.__doc__, _odd_is_default),
)

# -- trsqrt ---------------------------------------------------------------------------------------


def _rsqrt_two_roundings(case, d) -> bool:
    """trsqrt is vsqrt then vdiv on the NPU, each rounded: on a5 always
    (npu/a5/TRsqrt.hpp), on a2a3 with a tmp (TRsqrtHighPrecision in
    npu/a2a3/TUnaryOp.hpp); the simulator rounds 1/sqrt once, from double."""
    if case.arch != "a5" and "%tmp" not in case.body:
        return False
    src = next(a for a in case.args if a.name == "%src")
    t = FLOAT_DTYPES[src.dtype]
    x = float(src.data[d.row, d.col])
    with np.errstate(all="ignore"):
        root = t(np.sqrt(np.float64(x)))
        want = t(np.float64(1.0) / np.float64(root))
    got = t(d.ours)
    return bool(np.isnan(want) and np.isnan(got)) or want.tobytes() == got.tobytes()


# -- tfillpad -------------------------------------------------------------------------------------


def _f16_pad(case, d) -> bool:
    """An f16 tile's pad values max and min are +inf and -inf (pto-isa's
    PadValueMap<half, ...> in include/pto/common/constants.hpp, what the NPU
    code fills with); the simulator takes them from std::numeric_limits,
    which libstdc++ 12 does not specialise for _Float16 (its max() is 0)."""
    dst = next(a for a in case.args if a.name == "%dst")
    if dst.dtype != "f16":
        return False
    want = {"pad=2": np.inf, "pad=3": -np.inf}.get(next((p for p in ("pad=2", "pad=3") if p in dst.type), ""), None)
    return want is not None and float(d.ours) == want and float(d.theirs) == 0.0


# -- tcolsum --------------------------------------------------------------------------------------


def _column_sums(rows: list, arch: str, binary: bool, add) -> object:
    """The order the NPU adds a column's rows in, each step rounded
    (npu/a2a3/TColSum.hpp, npu/a5/TColSum.hpp)."""
    if binary:
        level = list(rows)
        while len(level) > 1:
            pairs = [add(level[2 * i], level[2 * i + 1]) for i in range(len(level) // 2)]
            if len(level) % 2:
                if arch == "a5":
                    pairs[-1] = add(level[-1], pairs[-1])
                else:
                    pairs[0] = add(pairs[0], level[-1])
            level = pairs
        return level[0] if arch != "a5" or len(rows) > 1 else add(rows[0], type(rows[0])(0))
    if arch == "a5":
        total = rows[0]
        for i in range(1, len(rows) - 1, 2):
            total = add(total, add(rows[i], rows[i + 1]))
        if (len(rows) - 1) % 2:
            total = add(total, rows[-1])
        return total
    total = rows[0]
    for row in rows[1:]:
        total = add(total, row)
    return total


def _colsum_order(case, d) -> bool:
    """tcolsum adds each column's rows in the NPU's order, each step rounded
    to the element type (vadd): a2a3 top to bottom, a5 row pairs into row
    0, and with isBinary a pairwise tree (npu/a2a3/TColSum.hpp,
    npu/a5/TColSum.hpp); the simulator adds top to bottom."""
    src = next(a for a in case.args if a.name == "%src")
    if src.dtype not in FLOAT_DTYPES:
        return False
    t = FLOAT_DTYPES[src.dtype]
    rows = [t(v) for v in src.data[: src.valid[0], d.col]]
    with np.errstate(all="ignore"):
        want = _column_sums(rows, case.arch, "isBinary = true" in case.body, lambda x, y: t(x + y))
    return np.array([want], dtype=t).tobytes() == np.array([d.ours], dtype=t).tobytes()


CHOICES = {
    "tcvt": TCVT_CHOICES,
    "tfillpad": (Choice("f16 pad values", _f16_pad.__doc__, _f16_pad),),
    "tcolsum": (Choice("the NPU's order of column sums", _colsum_order.__doc__, _colsum_order),),
    "trsqrt": (Choice("rsqrt as vsqrt then vdiv", _rsqrt_two_roundings.__doc__, _rsqrt_two_roundings),),
}
"""The choices of each op, by op name."""


@dataclass(frozen=True)
class SimulatorGap:
    """A case the simulator does not compile, or cannot run, although the
    NPU code of the target implements it: neither checked nor refused."""

    name: str
    reason: str
    applies: Callable  # (case) -> bool


def _integer_column_reduction(case) -> bool:
    if case.op not in ("tcolsum", "tcolmax"):
        return False
    src = next(a for a in case.args if a.name == "%src")
    return src.dtype in ("i16", "i32")


_INT32_MIN = -(2**31)


def _int32_min_by_minus_one(case) -> bool:
    """An i32 division whose dividend holds INT32_MIN and whose divisor -1
    (the pair may meet)."""
    if case.op not in ("tdiv", "tdivs", "trowexpanddiv"):
        return False
    named = {a.name: a for a in case.args}
    inputs = [named[n] for n in case.body.split("ins(", 1)[1].split(":", 1)[0].replace(" ", "").split(",") if n in named][:2]
    if len(inputs) != 2 or any(getattr(a, "dtype", getattr(a, "type", None)) != "i32" for a in inputs):
        return False
    held = [set(np.asarray(a.data).ravel().tolist()) if hasattr(a, "data") else {a.value} for a in inputs]
    return _INT32_MIN in held[0] and -1 in held[1]


SIMULATOR_GAPS = (
    SimulatorGap(
        "integer tcolsum and tcolmax",
        "pto-isa's CPU simulator implements them for f16/f32 (include/pto/cpu/TColSum.hpp, TColMax.hpp, their "
        "static_asserts); the NPU code also for i16/i32 (npu/a2a3/TColSum.hpp, npu/a2a3/TColReduceOps.hpp)",
        _integer_column_reduction,
    ),
    SimulatorGap(
        "INT32_MIN / -1",
        "the simulator divides with the host's int32 division, which traps on INT32_MIN / -1 (x86's idiv: SIGFPE), "
        "so a batch holding the pair dies there; pto-run gives INT32_MIN (wrapping, interpreter/tile_ops.py)",
        _int32_min_by_minus_one,
    ),
)


def simulator_gap(case) -> SimulatorGap | None:
    return next((g for g in SIMULATOR_GAPS if g.applies(case)), None)


def explain(case, found) -> tuple[list, set[str]]:
    """The differences no choice explains, and the choices that explained
    the others."""
    unexplained, used = [], set()
    for d in found:
        for choice in CHOICES.get(case.op, ()):
            if choice.check(case, d):
                used.add(choice.name)
                break
        else:
            unexplained.append(d)
    return unexplained, used
