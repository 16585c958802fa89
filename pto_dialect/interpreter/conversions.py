"""What `pto.tcvt` computes on each target (docs/semantics.md, "tcvt").

ptoas lowers `pto.tcvt` to pto-isa's `TCVT(dst, src[, tmp], rmode, satmode)`
with `rmode` CAST_RINT and `satmode` OFF when the op leaves them out
(PTOAS lib/PTO/Transforms/PTOToEmitC.cpp, PTOCvtToEmitC), and adds a
scratch `tmp` on a2a3 for a non-saturating f32->i16, f16->i16 or f16->i8
(lib/PTO/Transforms/PTOMaterializeImplicitTmp.cpp, tcvtNeedsTmp). What TCVT
then does is pto-isa's: its CPU simulator (include/pto/cpu/TCvt.hpp) where
it models the NPU, the NPU code of the target
(include/pto/npu/a2a3/TCvt.hpp, include/pto/npu/a5/TCvt.hpp) where the
simulator knowingly differs:

- Conversions: only those the target's TCVT implements (`PAIRS`); on a2a3
  any other pair compiles to no instruction at all, on a5 to none that
  exists: pto-run refuses them.
- Rounding: RINT/CAST_RINT to nearest even, ROUND to nearest away from
  zero, FLOOR, CEIL, TRUNC; ODD (round to odd) only f32 -> f16; NONE, and
  ODD elsewhere, the conversion's default: float -> integer truncates,
  everything else rounds to nearest even (a5 tcvtDispatchByRound, the
  default branches of a2a3's GenCastCall*). Into a float type every mode
  is honoured (the NPU has an instruction per mode; the simulator rounds
  to nearest whatever the mode).
- Saturation (`effective_saturation`): on a2a3 TCVT without a tmp applies
  `satmode` only to its narrowing conversions (kIsNarrowingCvt: f16->i8,
  f32->i16, f16->i16, i64->i32, i32->i16) and saturates every other one;
  with a tmp it applies `satmode` as given. a2a3's saturation bit governs
  float -> integer and integer -> integer only (SAT_MODE_BIT, CTRL[59]),
  so a conversion into a float type never saturates there. a5 applies
  `satmode` as given, except into f32, which never saturates (its
  SaturationCtrlTraits and "SATURATION MODE RULES").
- Saturating into an integer type clamps to the type's range ("Clamp to
  datatype range", a2a3 SAT_MODE_BIT), infinities to its limits and NaN to
  0: what the NPU's PyTorch-aligned paths (EDGE_CASE_ALIGN_ENABLE: "inf,
  -inf, nan, overflow") rely on its saturating conversion to give. The
  simulator clamps to the range both types hold after rounding that limit
  to the source type (so f32 -> i32 clamps to 2**31, outside the type, and
  f16 inf -> i32 gives 65504) and sends NaN to the top. Saturating into a
  float type clamps as the simulator does: overflow and infinities to the
  largest finite values, NaN to the largest.
- Without saturation: f32->i16, f16->i16 and f16->i8 go through the NPU's
  PyTorch-compatible path (the *_NonSatTorch functions): convert to int32
  with saturation, then keep the low bits; another float -> integer
  conversion out of range (or of NaN) gives the integer type's minimum,
  what the simulator's host (x86's "integer indefinite") gives; integer ->
  integer keeps the low bits; into a float type, overflow gives infinity.
"""

from __future__ import annotations

import numpy as np

from .elements import COMPUTE_DTYPES, FLOAT_TO_INT_ROUNDING, INT_WIDTHS, is_float, round_float
from .errors import OpFault

PAIRS = {
    # include/pto/npu/a2a3/TCvt.hpp: GenCastCall and GenCastCallSpecialCases
    "a2a3": {
        "f32": {"f16", "f32", "i64", "i32", "i16", "bf16"},
        "f16": {"f32", "i32", "i16", "i8"},
        "bf16": {"f32", "i32"},
        "i16": {"f16", "f32"},
        "i32": {"f32", "i64", "i16", "f16"},
        "i64": {"f32", "i32"},
        "i8": {"f16"},
    },
    # include/pto/npu/a5/TCvt.hpp: the castData overloads
    "a5": {
        "f32": {"f32", "f16", "bf16", "i16", "i32", "i64"},
        "f16": {"f32", "i32", "i16", "i8"},
        "bf16": {"f32", "i32", "f16"},
        "i8": {"f16", "i16", "i32"},
        "i16": {"f16", "f32", "i32"},
        "i32": {"f32", "i16", "i64"},
        "i64": {"f32", "i32"},
    },
}
"""The conversions each target's TCVT implements, among the element types
pto-run holds."""

A2A3_NARROWING = frozenset({("f16", "i8"), ("f32", "i16"), ("f16", "i16"), ("i64", "i32"), ("i32", "i16")})
"""a2a3's kIsNarrowingCvt: the conversions whose satmode TCVT honours
without a tmp."""

NONSAT_TORCH = frozenset({("f32", "i16"), ("f16", "i16"), ("f16", "i8")})
"""The conversions the NPU does without saturation by way of int32
(GenCastCallFp32ToInt16_NonSatTorch and the like, cast*_NonSatTorch_* on a5)."""

DEFAULT_SATURATION_MODE = "OFF"
"""tcvt's `satmode` when the op has none (ptoas's default)."""

BF16_MAX = float(np.uint32(0x7F7F0000).view(np.float32))

_MODES = {"RINT": "rint", "CAST_RINT": "rint", "ROUND": "round", "FLOOR": "floor", "CEIL": "ceil", "TRUNC": "trunc"}


def supported(arch: str, src: str, dst: str) -> bool:
    return dst in PAIRS.get(arch, {}).get(src, ())


def rounding(arch: str, src: str, dst: str, rmode: str) -> str:
    """How a conversion rounds under `rmode` (a FLOAT_TO_INT_ROUNDING key or
    "odd")."""
    if arch == "a2a3" and (src, dst) == ("i32", "f16"):
        return "rint"  # vconv_deq, which has no round modes (GenCastCallSpecialCases)
    if rmode == "ODD" and (src, dst) == ("f32", "f16"):
        return "odd"
    if rmode in _MODES:
        return _MODES[rmode]
    return "trunc" if is_float(src) and not is_float(dst) else "rint"


def effective_saturation(arch: str, src: str, dst: str, satmode: str, has_tmp: bool) -> bool:
    """Whether the conversion saturates on `arch`, for the op's `satmode`."""
    if is_float(dst):
        return arch != "a2a3" and dst != "f32" and satmode == "ON"
    if arch == "a2a3" and not has_tmp and (src, dst) not in A2A3_NARROWING:
        return True
    return satmode == "ON"


def _limits(dtype: str) -> tuple[float, float]:
    if is_float(dtype):
        top = BF16_MAX if dtype == "bf16" else float(np.finfo(COMPUTE_DTYPES[dtype]).max)
        return -top, top
    width = INT_WIDTHS[dtype]
    return float(-(1 << (width - 1))), float((1 << (width - 1)) - 1)


def _wrap(values: np.ndarray, dst: str) -> np.ndarray:
    width = INT_WIDTHS[dst]
    if width == 64:
        return values.astype(np.int64)
    mask = (1 << width) - 1
    low = values.astype(np.int64) & mask
    low = np.where(low >= 1 << (width - 1), low - (1 << width), low)
    return low.astype(COMPUTE_DTYPES[dst])


def tcvt(arch: str, src: str, dst: str, values: np.ndarray, rmode: str, satmode: str, has_tmp: bool = False) -> np.ndarray:
    """`values` (compute dtype of `src`) converted by pto.tcvt on `arch`."""
    if not supported(arch, src, dst):
        raise OpFault(f"pto-isa's TCVT has no conversion from {src} to {dst} on {arch} (include/pto/npu/{arch}/TCvt.hpp)")
    mode = rounding(arch, src, dst, rmode)
    saturate = effective_saturation(arch, src, dst, satmode, has_tmp)
    values = np.asarray(values)
    with np.errstate(all="ignore"):
        if is_float(src):
            return _from_float(src, dst, values.astype(np.float64), mode, saturate)
        if is_float(dst):  # integer -> float: the integers are exact in float64 (i64 rounds first, as the simulator does)
            return round_float(values.astype(np.float64), "f64", dst, mode)
        if saturate:
            lo, hi = _limits(dst)
            return np.clip(values.astype(np.int64), int(lo), int(hi)).astype(COMPUTE_DTYPES[dst])
        return _wrap(values, dst)


def _saturated(src: str, dst: str, x: np.ndarray) -> np.ndarray:
    """Float x clamped to what float type `dst` holds, as the simulator
    clamps (to the range both types hold, infinities and NaN to its ends)."""
    slo, shi = _limits(src)
    dlo, dhi = _limits(dst)
    lo, hi = max(slo, dlo), min(shi, dhi)
    return np.clip(np.where(np.isnan(x), hi, x), lo, hi)


def _saturated_int(rounded: np.ndarray, dst: str) -> np.ndarray:
    """Rounded float values clamped to integer type `dst`'s range, NaN to 0
    (the NPU's saturating conversion, which its PyTorch-aligned paths build
    on: infinities and overflow to the limits, NaN to 0)."""
    lo, hi = _limits(dst)
    return np.clip(np.nan_to_num(rounded, nan=0.0, posinf=hi, neginf=lo), lo, hi).astype(np.int64)


def _from_float(src: str, dst: str, x: np.ndarray, mode: str, saturate: bool) -> np.ndarray:
    if is_float(dst):
        if saturate:
            x = _saturated(src, dst, x)
        return round_float(x, "f64", dst, mode)
    rounded = FLOAT_TO_INT_ROUNDING[mode](x)
    if saturate:
        return _saturated_int(rounded, dst).astype(COMPUTE_DTYPES[dst])
    if (src, dst) in NONSAT_TORCH:
        return _wrap(_saturated_int(rounded, "i32"), dst)
    lo, hi = _limits(dst)
    inside = (rounded >= lo) & (rounded <= hi)
    return np.where(inside, np.where(inside, rounded, 0).astype(np.int64), int(lo)).astype(COMPUTE_DTYPES[dst])
