"""What each pto compute op computes (docs/dialect.md, "Ops"), on numpy arrays.

Pure functions from input element values to output element values: they
neither read nor write memory (the evaluator does that). Inputs and results
are in the element type's compute dtype (see elements.py); results are
rounded to the destination element type, so f16 stays f16 and bf16 keeps
bf16 precision.

Choices where the contract is silent:
- `texp` is defined for float tiles only (the vector unit has no integer
  exp); on an integer tile it is a runtime error.
- `tadds`/`tmuls` convert their scalar to the tile's element type first
  (integers wrap, floats convert like `tcvt`).
- `tmax`/`tmin` propagate NaN (numpy maximum/minimum).
- matmul: float products are summed in float64 and rounded once to the
  destination type (integers: summed in int64, wrapped); `tmatmul.acc` adds
  the old accumulator before that one rounding.
- `tcvt` rounds as its `rmode` says (ptoas's default CAST_RINT: to nearest,
  ties to even; NONE rounds like RINT, as ptoas's CAST_NONE does when the
  conversion loses precision); float -> int then saturates (NaN gives 0).
  Only the to-nearest-even modes are modelled for conversions into a float
  type; another mode there is a runtime error, as is ODD.
"""

from __future__ import annotations

import numpy as np

from .elements import COMPUTE_DTYPES, convert, is_float, round_to, scalar_as
from .errors import OpFault


def _finish(dtype: str, values: np.ndarray) -> np.ndarray:
    """Round a result computed in a wider or equal type to `dtype`."""
    if dtype == "bf16":
        return round_to("bf16", values)
    return values.astype(COMPUTE_DTYPES[dtype], copy=False)


_BINARY = {
    "pto.tadd": np.add,
    "pto.tsub": np.subtract,
    "pto.tmul": np.multiply,
    "pto.tmax": np.maximum,
    "pto.tmin": np.minimum,
}

_WITH_SCALAR = {"pto.tadds": np.add, "pto.tmuls": np.multiply}

BINARY = "binary"  # dst = f(a, b)
WITH_SCALAR = "with-scalar"  # dst = f(a, s)
UNARY = "unary"  # dst = f(a)
CONVERT = "convert"  # dst = a in another element type
MOVE = "move"  # dst = src, bit for bit

_KINDS = {
    **{name: BINARY for name in _BINARY},
    **{name: WITH_SCALAR for name in _WITH_SCALAR},
    **{name: UNARY for name in ("pto.texp", "pto.tabs", "pto.trelu")},
    "pto.tcvt": CONVERT,
    "pto.tmov": MOVE,
}

ELEMENTWISE_OPS = frozenset(_KINDS)
"""The ops that map each element of their inputs to one of their output."""


def kind(op: str) -> str:
    """How an element-wise op computes (one of the kinds above)."""
    return _KINDS[op]


def binary(op: str, dtype: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return _finish(dtype, _BINARY[op](a, b))


def with_scalar(op: str, dtype: str, a: np.ndarray, scalar: int | float) -> np.ndarray:
    return _finish(dtype, _WITH_SCALAR[op](a, scalar_as(scalar, dtype)))


def unary(op: str, dtype: str, a: np.ndarray) -> np.ndarray:
    if op == "pto.texp":
        if not is_float(dtype):
            raise OpFault(f"exp is defined for float tiles (f16, bf16, f32), not {dtype}")
        return _finish(dtype, np.exp(a))
    if op == "pto.tabs":
        return _finish(dtype, np.abs(a))
    zero = np.zeros((), dtype=a.dtype)
    # max(a, 0) keeps NaN, as tmax does
    return _finish(dtype, np.maximum(a, zero))


_FLOAT_TO_INT = {"RINT": "rint", "CAST_RINT": "rint", "NONE": "rint", "ROUND": "round", "FLOOR": "floor", "CEIL": "ceil", "TRUNC": "trunc"}
_TO_NEAREST_EVEN = frozenset({"RINT", "CAST_RINT", "NONE"})

DEFAULT_ROUND_MODE = "CAST_RINT"
"""tcvt's `rmode` when the op has none (ptoas's default)."""


def cvt(src: str, dst: str, a: np.ndarray, rmode: str = DEFAULT_ROUND_MODE) -> np.ndarray:
    """`a` (of element type `src`) converted to `dst`, rounding per `rmode`."""
    if is_float(src) and not is_float(dst):
        rounding = _FLOAT_TO_INT.get(rmode)
        if rounding is None:
            raise OpFault(f"round mode {rmode} from {src} to {dst} is not executed by pto-run yet")
        return convert(a, src, dst, rounding)
    if is_float(dst) and rmode not in _TO_NEAREST_EVEN and not _exact(src, dst):
        raise OpFault(f"round mode {rmode} from {src} to {dst} is not executed by pto-run yet (only RINT, CAST_RINT and NONE are)")
    return convert(a, src, dst)


_FLOAT_BITS = {"f16": 11, "bf16": 8, "f32": 24, "f64": 53}  # significand bits
_INT_BITS = {"i1": 1, "i8": 7, "i16": 15, "i32": 31, "i64": 63}  # magnitude bits


def _exact(src: str, dst: str) -> bool:
    """Whether every value of `src` is a value of float type `dst` (then
    the round mode cannot matter)."""
    if is_float(src):
        return src == dst or (src in ("f16", "bf16") and dst in ("f32", "f64")) or (src == "f32" and dst == "f64")
    return _INT_BITS[src] <= _FLOAT_BITS[dst]


def matmul(
    in_dtype: str,
    out_dtype: str,
    lhs: np.ndarray,
    rhs: np.ndarray,
    acc: np.ndarray | None = None,
) -> np.ndarray:
    """lhs @ rhs (+ acc) with the result in `out_dtype`."""
    if is_float(out_dtype) or is_float(in_dtype):
        wide = np.float64
        product = convert(lhs, in_dtype, "f64") @ convert(rhs, in_dtype, "f64")
    else:
        wide = np.int64
        product = lhs.astype(wide) @ rhs.astype(wide)
    if acc is not None:
        product = product + convert(acc, out_dtype, "f64" if wide is np.float64 else "i64")
    return convert(product, "f64" if wide is np.float64 else "i64", out_dtype)
