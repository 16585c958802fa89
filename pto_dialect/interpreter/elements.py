"""Element types of tiles and global memory as numpy arrays, and conversions
between them.

Each element type has a *storage* dtype (the bytes in tile memory) and a
*compute* dtype (what arithmetic runs in). They agree for every type but
bf16, which numpy lacks: a bf16 element is stored as its 16-bit pattern
(uint16) and computed on as the float32 it denotes; every result is rounded
back to bf16 (round to nearest even), so values always have bf16 precision.
f16 stays numpy float16 (numpy rounds every f16 operation to f16). Integer
arithmetic wraps, as numpy's fixed-width arrays do.

Conversions (`convert`, used by tcvt, matmul and scalar operands) follow
arith's casts: float -> float rounds to nearest even; float -> int truncates
toward zero (or rounds as `rounding` says: tcvt's round modes) and
saturates (NaN gives 0); int -> float rounds to nearest; int -> int wraps.
"""

from __future__ import annotations

import numpy as np

FLOAT_TYPES = frozenset({"f16", "bf16", "f32", "f64"})
INT_WIDTHS = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64}

STORAGE_DTYPES: dict[str, np.dtype] = {
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(np.uint16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
}

COMPUTE_DTYPES: dict[str, np.dtype] = {**STORAGE_DTYPES, "bf16": np.dtype(np.float32)}


def is_float(dtype: str) -> bool:
    return dtype in FLOAT_TYPES


def bf16_bits_to_f32(bits: np.ndarray) -> np.ndarray:
    """The float32 values that bf16 bit patterns denote (exact)."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16_bits(values: np.ndarray) -> np.ndarray:
    """float32 values rounded to bf16 (nearest even), as uint16 patterns.

    NaNs stay NaNs (quietened) instead of rounding into infinities.
    """
    x = np.asarray(values, dtype=np.float32)
    u = x.view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(x)
    if nan.any():
        rounded = np.where(nan, ((u >> 16) | 0x0040).astype(np.uint16), rounded)
    return rounded


def to_compute(dtype: str, stored: np.ndarray) -> np.ndarray:
    """Stored elements -> values to compute on (a new array for bf16)."""
    return bf16_bits_to_f32(stored) if dtype == "bf16" else stored


def to_storage(dtype: str, values: np.ndarray) -> np.ndarray:
    """Computed values (already of the compute dtype) -> stored elements."""
    if dtype == "bf16":
        return f32_to_bf16_bits(values)
    return np.asarray(values).astype(STORAGE_DTYPES[dtype], copy=False)


def round_to(dtype: str, values: np.ndarray) -> np.ndarray:
    """Values of any float dtype rounded to `dtype`'s precision, in its
    compute dtype (bf16: float32 holding a bf16 value)."""
    if dtype == "bf16":
        return bf16_bits_to_f32(f32_to_bf16_bits(np.asarray(values, dtype=np.float32)))
    return np.asarray(values).astype(COMPUTE_DTYPES[dtype])


def _round_half_away(x: np.ndarray) -> np.ndarray:
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


FLOAT_TO_INT_ROUNDING = {
    "trunc": np.trunc,
    "rint": np.rint,  # to nearest, ties to even
    "round": _round_half_away,  # to nearest, ties away from zero
    "floor": np.floor,
    "ceil": np.ceil,
}
"""How a float -> int conversion may round before it saturates."""


def convert(values: np.ndarray, src: str, dst: str, rounding: str = "trunc") -> np.ndarray:
    """Compute-dtype values of element type `src` as element type `dst`
    (in `dst`'s compute dtype), per the rules in the module docstring;
    `rounding` (a key of FLOAT_TO_INT_ROUNDING) is how float -> int rounds."""
    values = np.asarray(values)
    if src == dst:
        return values.astype(COMPUTE_DTYPES[dst], copy=False)
    if is_float(dst):
        if is_float(src):
            return round_to(dst, values)
        if dst == "bf16":  # ints reach bf16 through one rounding to f32, then bf16
            return round_to("bf16", values.astype(np.float32))
        return values.astype(COMPUTE_DTYPES[dst])
    width = INT_WIDTHS[dst]
    if is_float(src):
        wide = FLOAT_TO_INT_ROUNDING[rounding](values.astype(np.float64))
        if width == 1:
            return (wide != 0).astype(np.bool_)
        lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
        wide = np.nan_to_num(np.clip(wide, lo, hi), nan=0.0)
        return wide.astype(np.int64).astype(COMPUTE_DTYPES[dst])
    if width == 1:
        return (values.astype(np.int64) & 1).astype(np.bool_)
    return values.astype(np.int64).astype(COMPUTE_DTYPES[dst])


def _step(y: np.ndarray, dst: str, up: np.ndarray) -> np.ndarray:
    """The neighbour of each `dst` value `y` (compute dtype) toward +inf
    where `up`, else toward -inf."""
    if dst != "bf16":
        dtype = COMPUTE_DTYPES[dst]
        return np.where(up, np.nextafter(y, dtype.type(np.inf)), np.nextafter(y, dtype.type(-np.inf))).astype(dtype)
    b = f32_to_bf16_bits(y).astype(np.int32)  # exact: y holds bf16 values
    negative = b >= 0x8000
    zero = (b & 0x7FFF) == 0
    away = np.where(up, ~negative, negative)  # the step grows the magnitude
    stepped = np.where(away, b + 1, b - 1)
    stepped = np.where(zero & ~away, np.where(up, 0x0001, 0x8001), stepped)  # from +-0 across to the other sign
    return bf16_bits_to_f32(stepped.astype(np.uint16))


FLOAT_ROUNDING = frozenset({"rint", "round", "floor", "ceil", "trunc", "odd"})
"""How a conversion into a float type may round: to nearest (ties to even;
`round`: ties away from zero), toward -inf, +inf, zero, or to odd (the
neighbour whose last significand bit is 1)."""


def round_float(values: np.ndarray, src: str, dst: str, rounding: str) -> np.ndarray:
    """Values of element type `src` converted to float type `dst` with
    `rounding` (one of FLOAT_ROUNDING), in `dst`'s compute dtype. Every
    source value is exact in float64 (i64 beyond 2**53 is not: it is
    rounded to float64 first). Found from the nearest-even result and its
    neighbour on the other side of the exact value."""
    with np.errstate(all="ignore"):  # infinities and overflow are values here
        nearest = np.asarray(convert(values, src, dst))
        if rounding == "rint":
            return nearest
        return _round_directed(np.asarray(values).astype(np.float64), nearest, dst, rounding)


def _round_directed(x: np.ndarray, nearest: np.ndarray, dst: str, rounding: str) -> np.ndarray:
    back = nearest.astype(np.float64)
    inexact = (back != x) & np.isfinite(x)
    if not inexact.any():
        return nearest
    above = back > x  # the nearest result lies above the exact value
    other = _step(nearest, dst, ~above)
    lower = np.where(above, other, nearest)
    upper = np.where(above, nearest, other)
    if rounding == "floor":
        chosen = lower
    elif rounding == "ceil":
        chosen = upper
    elif rounding == "trunc":
        chosen = np.where(x > 0, lower, upper)
    elif rounding == "round":
        tie = (x - lower.astype(np.float64)) == (upper.astype(np.float64) - x)
        chosen = np.where(tie, np.where(x > 0, upper, lower), nearest)
    else:  # odd: of the two neighbours, the one with an odd significand
        bits = f32_to_bf16_bits(lower) if dst == "bf16" else lower.view(np.dtype(f"u{lower.dtype.itemsize}"))
        chosen = np.where((bits & 1) == 1, lower, upper)
    return np.where(inexact, chosen, nearest).astype(nearest.dtype)


def scalar_as(value: int | float, dst: str) -> np.ndarray:
    """A scalar operand (Python int or float) as a 0-d array of `dst`'s
    compute dtype: ints wrap, floats convert per `convert`."""
    if isinstance(value, (bool, int, np.integer)):
        if is_float(dst):
            return convert(np.array(int(value), dtype=np.int64), "i64", dst)
        width = INT_WIDTHS[dst]
        wrapped = int(value) & ((1 << width) - 1)
        if width > 1 and wrapped >= 1 << (width - 1):
            wrapped -= 1 << width
        return np.array(wrapped, dtype=COMPUTE_DTYPES[dst])
    return convert(np.array(float(value), dtype=np.float64), "f64", dst)
