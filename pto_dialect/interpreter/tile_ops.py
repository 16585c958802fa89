"""What each pto compute op computes (docs/dialect.md, "Ops";
docs/semantics.md: pto-isa's CPU simulator, or the target's NPU code where
the simulator knowingly differs), on numpy arrays.

Pure functions from input element values to output element values: they
neither read nor write memory (the evaluator does that). Inputs and results
are in the element type's compute dtype (see elements.py); results are
rounded to the destination element type, so f16 stays f16 and bf16 keeps
bf16 precision.

Choices where the contract is silent (the PTO ISA docs, docs/isa/<OP>.md
of pto-isa, leave domain errors "target-defined"):
- `texp`, `tlog`, `tsqrt`, `trsqrt` are defined for float tiles only (the
  vector unit has no integer forms; ptoas's verifier, and ours, refuse
  integer tiles, and here they are a runtime error). Each is the exact
  result rounded once to the element type, as the simulator computes it in
  double; out of their domain they give IEEE results: log(0) = -inf,
  log(x < 0) = sqrt(x < 0) = NaN, rsqrt(0) = +inf.
- `trsqrt` is 1 / sqrt(x) rounded twice, after the sqrt and after the
  division (vsqrt then vdiv) on a5 and on a2a3 with a `tmp`
  (npu/a5/TRsqrt.hpp; TRsqrtHighPrecision in npu/a2a3/TUnaryOp.hpp), else
  rounded once; its `tmp` is neither read nor written.
- The scalar ops (`tadds tsubs tmuls tdivs tmaxs tmins`) convert their
  scalar to the tile's element type first (integers wrap, floats convert
  like `tcvt`).
- `tdivs` has two forms, told apart by which operand is the tile:
  `ins(%t, %s : tile, T)` is t / s, `ins(%s, %t : T, tile)` is s / t.
- Division (`tdiv`, `tdivs`, `trecip` = 1 / x, and `trowexpanddiv`): floats
  divide as IEEE (correctly rounded in the element type; x / 0 = +-inf,
  0 / 0 = NaN, as A5's tdivs documents for 1/0), whatever `precisionType`
  says (both precisions are modelled as the exact quotient rounded once);
  integers divide truncating toward zero (C's `/`, which the ISA's
  implementation and CPU simulator use; INT_MIN / -1 wraps to INT_MIN), and
  an integer division by zero is a runtime error naming the element (the ISA
  leaves it target-defined; its CPU simulator asserts).
- `tneg` negates (integers wrap: -INT_MIN = INT_MIN; floats flip the sign
  bit: -(+0) = -0).
- `tmax`/`tmin`/`tmaxs`/`tmins` (and `trelu`, `tabs`) take std::max's and
  std::min's order, as the simulator does: a NaN second operand loses, and
  of -0 and 0 the first stays.
- matmul: as pto-isa's CPU simulator: per output element a running sum
  over k of fused multiply-adds in f32, then the old accumulator added
  (`tmatmul.acc`), rounded once more (integers wrap); the cube unit's own
  order is not in pto-isa's NPU code.
- `tcvt` converts as the target's TCVT does: conversions.py (the pairs it
  implements, the rounding of each mode, saturation per target).
"""

from __future__ import annotations

import numpy as np

from .elements import COMPUTE_DTYPES, convert, is_float, round_float, round_to, scalar_as
from .errors import OpFault


def _finish(dtype: str, values: np.ndarray) -> np.ndarray:
    """Round a result computed in a wider or equal type to `dtype`."""
    if dtype == "bf16":
        return round_to("bf16", values)
    return values.astype(COMPUTE_DTYPES[dtype], copy=False)


def divide(dtype: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a / b in element type `dtype` (compute-dtype arrays or 0-d scalars,
    broadcast together): IEEE for floats, truncating for integers, where a
    zero divisor is an OpFault naming its element (of the broadcast shape,
    i.e. the op's iteration domain)."""
    if is_float(dtype):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return _finish(dtype, np.divide(a, b))
    a64, b64 = np.broadcast_arrays(np.asarray(a).astype(np.int64), np.asarray(b).astype(np.int64))
    zero = b64 == 0
    if zero.any():
        if np.ndim(b) == 0:
            raise OpFault("integer division by zero (the scalar divisor is 0)")
        where = ", ".join(str(int(i)) for i in np.argwhere(zero)[0])
        raise OpFault(f"integer division by zero (the divisor of element ({where}) is 0)")
    with np.errstate(over="ignore"):
        q = a64 // b64  # floor; INT64_MIN // -1 wraps
        q = q + ((a64 - q * b64 != 0) & ((a64 < 0) != (b64 < 0)))  # toward zero
    return convert(q, "i64", dtype)


def _maximum(dtype: str, a, b) -> np.ndarray:
    # std::max(a, b): b where a < b, else a (pto-isa include/pto/cpu/TMax.hpp)
    return _finish(dtype, np.where(a < b, b, a))


def _minimum(dtype: str, a, b) -> np.ndarray:
    # std::min(a, b): b where b < a, else a (pto-isa include/pto/cpu/ElementOp.h, OP_MIN)
    return _finish(dtype, np.where(b < a, b, a))


def _arith(ufunc):
    def apply(dtype: str, a, b) -> np.ndarray:
        return _finish(dtype, ufunc(a, b))

    return apply


_BINARY = {
    "pto.tadd": _arith(np.add),
    "pto.tsub": _arith(np.subtract),
    "pto.tmul": _arith(np.multiply),
    "pto.tdiv": divide,
    "pto.tmax": _maximum,
    "pto.tmin": _minimum,
}

_WITH_SCALAR = {
    "pto.tadds": _BINARY["pto.tadd"],
    "pto.tsubs": _BINARY["pto.tsub"],
    "pto.tmuls": _BINARY["pto.tmul"],
    "pto.tdivs": divide,
    "pto.tmaxs": _maximum,
    "pto.tmins": _minimum,
}

REVERSIBLE = frozenset({"pto.tdivs"})

ROW_MAJOR_ONLY = frozenset({"pto.tadds", "pto.tdivs", "pto.tmuls", "pto.tmaxs"})
"""Scalar ops pto-isa implements on row-major tiles only (its CPU
simulator's CONSTRAINT_VEC_ROWMAJOR, include/pto/cpu/TBinSOps.hpp)."""
"""Scalar ops whose scalar may come first (`ins(%s, %t : T, tile)`: s op t)."""


def _float_only(name: str, dtype: str) -> None:
    if not is_float(dtype):
        raise OpFault(f"{name} is defined for float tiles (f16, bf16, f32), not {dtype}")


def _in_double(dtype: str, fn, a: np.ndarray) -> np.ndarray:
    """fn computed in double and rounded once to `dtype`, as pto-isa's CPU
    simulator computes exp, log and sqrt (include/pto/cpu/ElementOp.h)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return round_to(dtype, fn(np.asarray(a, dtype=np.float64)))


def _exp(dtype: str, a: np.ndarray) -> np.ndarray:
    _float_only("exp", dtype)
    return _in_double(dtype, np.exp, a)


def _log(dtype: str, a: np.ndarray) -> np.ndarray:
    _float_only("log", dtype)
    return _in_double(dtype, np.log, a)


def _sqrt(dtype: str, a: np.ndarray) -> np.ndarray:
    _float_only("sqrt", dtype)
    return _in_double(dtype, np.sqrt, a)


def rsqrt(dtype: str, a: np.ndarray, two_roundings: bool) -> np.ndarray:
    """1 / sqrt(a). `two_roundings`: as vsqrt then vdiv, each rounded (the
    NPU's trsqrt on a5, and on a2a3 with a tmp: TRsqrtHighPrecision in
    pto-isa include/pto/npu/a2a3/TUnaryOp.hpp, include/pto/npu/a5/TRsqrt.hpp);
    else rounded once from double, as the CPU simulator does (a2a3's vrsqrt
    without a tmp has no other model)."""
    _float_only("rsqrt", dtype)
    if not two_roundings:
        return _in_double(dtype, lambda x: 1.0 / np.sqrt(x), a)
    root = _sqrt(dtype, a)
    return divide(dtype, np.ones((), dtype=root.dtype), root)


def _rsqrt(dtype: str, a: np.ndarray) -> np.ndarray:
    return rsqrt(dtype, a, two_roundings=True)


def _recip(dtype: str, a: np.ndarray) -> np.ndarray:
    return divide(dtype, np.ones((), dtype=a.dtype), a)


def _neg(dtype: str, a: np.ndarray) -> np.ndarray:
    if a.dtype == np.bool_:  # i1: -x == x in one bit
        return a.copy()
    return _finish(dtype, np.negative(a))


def _abs(dtype: str, a: np.ndarray) -> np.ndarray:
    # src < 0 ? -src : src, so -0 and NaN keep their sign (pto-isa include/pto/cpu/TAbs.hpp)
    return _finish(dtype, np.where(a < 0, -a, a))


def _relu(dtype: str, a: np.ndarray) -> np.ndarray:
    # std::max(src, 0): -0 and NaN stay (pto-isa include/pto/cpu/ElementOp.h, OP_RELU)
    zero = np.zeros((), dtype=a.dtype)
    return _finish(dtype, np.where(a < zero, zero, a))


_UNARY = {
    "pto.texp": _exp,
    "pto.tlog": _log,
    "pto.tsqrt": _sqrt,
    "pto.trsqrt": _rsqrt,
    "pto.trecip": _recip,
    "pto.tneg": _neg,
    "pto.tabs": _abs,
    "pto.trelu": _relu,
}

BINARY = "binary"  # dst = f(a, b)
WITH_SCALAR = "with-scalar"  # dst = f(a, s)
UNARY = "unary"  # dst = f(a)
CONVERT = "convert"  # dst = a in another element type
MOVE = "move"  # dst = src, bit for bit

_KINDS = {
    **{name: BINARY for name in _BINARY},
    **{name: WITH_SCALAR for name in _WITH_SCALAR},
    **{name: UNARY for name in _UNARY},
    "pto.tcvt": CONVERT,
    "pto.tmov": MOVE,
}

ELEMENTWISE_OPS = frozenset(_KINDS)
"""The ops that map each element of their inputs to one of their output."""


def kind(op: str) -> str:
    """How an element-wise op computes (one of the kinds above)."""
    return _KINDS[op]


def binary(op: str, dtype: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`op` (a binary op's generic name) on a and b, in element type `dtype`."""
    return _BINARY[op](dtype, a, b)


def with_scalar(op: str, dtype: str, a: np.ndarray, scalar: int | float, reverse: bool = False) -> np.ndarray:
    """`op` on tile values `a` and a scalar operand (`reverse`: scalar op a)."""
    s = scalar_as(scalar, dtype)
    return _WITH_SCALAR[op](dtype, s, a) if reverse else _WITH_SCALAR[op](dtype, a, s)


def unary(op: str, dtype: str, a: np.ndarray) -> np.ndarray:
    return _UNARY[op](dtype, a)


_FLOAT_TO_INT = {"RINT": "rint", "CAST_RINT": "rint", "NONE": "rint", "ROUND": "round", "FLOOR": "floor", "CEIL": "ceil", "TRUNC": "trunc"}
_TO_FLOAT = {**_FLOAT_TO_INT, "ODD": "odd"}

DEFAULT_ROUND_MODE = "CAST_RINT"
"""tcvt's `rmode` when the op has none (ptoas's default)."""


def cvt(src: str, dst: str, a: np.ndarray, rmode: str = DEFAULT_ROUND_MODE) -> np.ndarray:
    """`a` (of element type `src`) converted to `dst`, rounding per `rmode`."""
    if is_float(src) and not is_float(dst):
        rounding = _FLOAT_TO_INT.get(rmode)
        if rounding is None:
            raise OpFault(f"round mode {rmode} from {src} to {dst} is not executed by pto-run yet")
        return convert(a, src, dst, rounding)
    if is_float(dst) and not _exact(src, dst):
        rounding = _TO_FLOAT.get(rmode)
        if rounding is None:
            raise OpFault(f"round mode {rmode} from {src} to {dst} is not executed by pto-run yet")
        return round_float(a, src, dst, rounding)
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
    """lhs @ rhs (+ acc) with the result in `out_dtype`, as pto-isa's CPU
    simulator computes it (include/pto/cpu/TMatmul.hpp, TMatmulNzZn): each
    output element a running sum over k from 0, in the accumulator's type,
    with a fused multiply-add per k in f32 (integers: wrapping); `acc` is
    added to that sum at the end, rounded once more."""
    if is_float(out_dtype):
        a = convert(lhs, in_dtype, "f32").astype(np.float64)
        b = convert(rhs, in_dtype, "f32").astype(np.float64)
        total = np.zeros((a.shape[0], b.shape[1]), dtype=np.float32)
        with np.errstate(all="ignore"):
            for k in range(a.shape[1]):
                # the product of two f32 values is exact in f64: one rounding, as fma
                total = (np.outer(a[:, k], b[k, :]) + total).astype(np.float32)
            if acc is not None:
                total = convert(acc, out_dtype, "f32") + total
        return convert(total, "f32", out_dtype)
    product = lhs.astype(np.int64) @ rhs.astype(np.int64)
    if acc is not None:
        product = product + acc.astype(np.int64)
    return convert(product, "i64", out_dtype)
