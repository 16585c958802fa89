"""Scalar semantics: the `arith` ops passes emit, on Python numbers.

An integer of width w (index: 64) is held as a Python int in its signed
form, [-2^(w-1), 2^(w-1)); an i1 as 0 or 1. Every result wraps to its width.
Floats are Python floats rounded to their type after every operation.
Division by zero and signed division overflow (MIN / -1), which arith leaves
undefined, are runtime errors.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from mlir import ir

from .elements import FLOAT_TYPES, round_to
from .errors import OpFault

INDEX_WIDTH = 64


def int_width(t: ir.Type) -> int | None:
    """Bit width of an integer or index type, else None."""
    if isinstance(t, ir.IndexType):
        return INDEX_WIDTH
    if isinstance(t, ir.IntegerType):
        return t.width
    return None


def float_name(t: ir.Type) -> str | None:
    name = str(t)
    return name if name in FLOAT_TYPES else None


def wrap(value: int, width: int) -> int:
    """`value` modulo 2^width, in the signed form (i1: 0 or 1)."""
    mask = (1 << width) - 1
    value &= mask
    if width > 1 and value >> (width - 1):
        value -= 1 << width
    return value


def unsigned(value: int, width: int) -> int:
    return value & ((1 << width) - 1)


def round_float(value: float, name: str) -> float:
    if name == "f64":
        return float(value)
    return float(round_to(name, np.array(value, dtype=np.float64)))


def _check_divisor(b: int) -> None:
    if b == 0:
        raise OpFault("division by zero")


def _check_signed_division(a: int, b: int, width: int) -> None:
    _check_divisor(b)
    if b == -1 and a == -(1 << (width - 1)) and width > 1:
        raise OpFault("signed division overflow (minimum value divided by -1)")


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _divsi(a, b, w):
    _check_signed_division(a, b, w)
    return _trunc_div(a, b)


def _remsi(a, b, w):
    _check_divisor(b)
    return a - b * _trunc_div(a, b)


def _floordivsi(a, b, w):
    _check_signed_division(a, b, w)
    return a // b


def _ceildivsi(a, b, w):
    _check_signed_division(a, b, w)
    return -((-a) // b)


def _divui(a, b, w):
    _check_divisor(unsigned(b, w))
    return unsigned(a, w) // unsigned(b, w)


def _remui(a, b, w):
    _check_divisor(unsigned(b, w))
    return unsigned(a, w) % unsigned(b, w)


def _ceildivui(a, b, w):
    ub = unsigned(b, w)
    _check_divisor(ub)
    return -(-unsigned(a, w) // ub)


def _shift_amount(b: int, w: int) -> int:
    amount = unsigned(b, w)
    if amount >= w:
        raise OpFault(f"shift amount {amount} is not less than the bit width {w}")
    return amount


INT_BINARY: dict[str, Callable[[int, int, int], int]] = {
    "arith.addi": lambda a, b, w: a + b,
    "arith.subi": lambda a, b, w: a - b,
    "arith.muli": lambda a, b, w: a * b,
    "arith.divsi": _divsi,
    "arith.divui": _divui,
    "arith.remsi": _remsi,
    "arith.remui": _remui,
    "arith.floordivsi": _floordivsi,
    "arith.ceildivsi": _ceildivsi,
    "arith.ceildivui": _ceildivui,
    "arith.minsi": lambda a, b, w: min(a, b),
    "arith.maxsi": lambda a, b, w: max(a, b),
    "arith.minui": lambda a, b, w: a if unsigned(a, w) <= unsigned(b, w) else b,
    "arith.maxui": lambda a, b, w: a if unsigned(a, w) >= unsigned(b, w) else b,
    "arith.andi": lambda a, b, w: unsigned(a, w) & unsigned(b, w),
    "arith.ori": lambda a, b, w: unsigned(a, w) | unsigned(b, w),
    "arith.xori": lambda a, b, w: unsigned(a, w) ^ unsigned(b, w),
    "arith.shli": lambda a, b, w: a << _shift_amount(b, w),
    "arith.shrsi": lambda a, b, w: a >> _shift_amount(b, w),
    "arith.shrui": lambda a, b, w: unsigned(a, w) >> _shift_amount(b, w),
}

FLOAT_BINARY: dict[str, Callable[[float, float], float]] = {
    "arith.addf": lambda a, b: a + b,
    "arith.subf": lambda a, b: a - b,
    "arith.mulf": lambda a, b: a * b,
    "arith.divf": lambda a, b: float(np.float64(a) / np.float64(b)),
    "arith.maximumf": lambda a, b: float(np.maximum(a, b)),
    "arith.minimumf": lambda a, b: float(np.minimum(a, b)),
}

# arith.cmpi predicates, by their integer attribute value
_CMPI = [
    lambda a, b, w: a == b,  # eq
    lambda a, b, w: a != b,  # ne
    lambda a, b, w: a < b,  # slt
    lambda a, b, w: a <= b,  # sle
    lambda a, b, w: a > b,  # sgt
    lambda a, b, w: a >= b,  # sge
    lambda a, b, w: unsigned(a, w) < unsigned(b, w),  # ult
    lambda a, b, w: unsigned(a, w) <= unsigned(b, w),  # ule
    lambda a, b, w: unsigned(a, w) > unsigned(b, w),  # ugt
    lambda a, b, w: unsigned(a, w) >= unsigned(b, w),  # uge
]


def cmpi(predicate: int) -> Callable[[int, int, int], bool]:
    if not 0 <= predicate < len(_CMPI):
        raise OpFault(f"unknown arith.cmpi predicate {predicate}")
    return _CMPI[predicate]


def cast_int(value: int, from_width: int, to_width: int, signed: bool) -> int:
    """index_cast / extsi / trunci (signed) and index_castui / extui
    (unsigned): extend or truncate `value` to `to_width`."""
    if to_width > from_width and not signed:
        value = unsigned(value, from_width)
    if from_width == 1 and signed and to_width > 1:
        value = -value  # i1 true sign-extends to all ones
    return wrap(value, to_width)


def float_to_int(value: float, width: int, signed: bool) -> int:
    """arith.fptosi / fptoui: truncate toward zero; out of range (undefined
    in arith) saturates, NaN gives 0, as tcvt does."""
    if value != value:
        return 0
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
    if value == float("inf"):
        return wrap(hi, width)
    if value == float("-inf"):
        return wrap(lo, width)
    return wrap(min(max(int(value), lo), hi), width)
