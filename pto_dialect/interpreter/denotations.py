"""What the ops that move no data denote, each rule written once
(docs/dialect.md, "Buffer semantics"): an alloc's valid shape, a
multi-tile slot's bytes, a subview's window and valid shape, a partition's
offset into global memory.

Two evaluators call these: the interpreter (interpreter/pto_ops.py) with
the numbers of a run, and the static schedule (timing/static_schedule.py)
with numbers where the IR fixes them and its symbolic integers where it
does not. Arithmetic on offsets goes through an `Arith`, so the static
schedule passes its own addition and multiplication of symbols; the rules
that compare (a window's valid shape) are given numbers by both (the static
schedule takes a tile whose valid shape it does not know as its full
shape)."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..dialect.types import DYNAMIC


@dataclass(frozen=True)
class Arith:
    """How an evaluator adds and multiplies the integers of offsets."""

    add: Callable = operator.add
    mul: Callable = operator.mul


NUMBERS = Arith()
"""Plain integers (the interpreter)."""


def alloc_valid(type_valid: Sequence[int], given: Sequence[int | None], unknown: Sequence[int] | None = None) -> tuple[int, int]:
    """An alloc's valid shape: the type's static dims, its valid_row /
    valid_col operands (`given`, None where absent or not known) for the
    type's `?` dims, and `unknown` for a `?` dim no known operand gives
    (the static schedule: the tile's full shape)."""
    out = []
    for i in range(2):
        if type_valid[i] != DYNAMIC:
            out.append(type_valid[i])
        elif given[i] is not None:
            out.append(given[i])
        elif unknown is not None:
            out.append(unknown[i])
        else:
            raise ValueError(f"valid dim {i} is '?' and no operand gives it")
    return out[0], out[1]


def slot_offset(base, stride: int, k: int, arith: Arith = NUMBERS):
    """The byte offset of slot `k` of a multi-tile buffer at `base`."""
    return arith.add(base, arith.mul(k, stride))


def window_offset(offset, strides: Sequence[int], origin: Sequence[int], arith: Arith = NUMBERS):
    """The byte offset of element `origin` (row, col) of a tile whose
    element (0, 0) is at `offset`: where a subview's window starts (it keeps
    its source's strides)."""
    (rs, cs), (r0, c0) = strides, origin
    return arith.add(offset, arith.add(arith.mul(r0, rs), arith.mul(c0, cs)))


def subview_valid(
    sizes: Sequence[int], type_valid: Sequence[int], given: Sequence[int | None], source_valid: Sequence[int], origin: Sequence[int]
) -> tuple[int, int]:
    """A subview's valid shape: its `valid` operands (`given`, None where
    absent or not known), else the result type's static dims, else (a `?`
    type without operands) the part of the source's valid region the window
    covers."""
    out = []
    for i in range(2):
        if given[i] is not None:
            out.append(given[i])
        elif type_valid[i] != DYNAMIC:
            out.append(type_valid[i])
        else:
            out.append(max(0, min(sizes[i], source_valid[i] - origin[i])))
    return out[0], out[1]


def partition_offset(offset, offsets: Sequence, strides: Sequence, arith: Arith = NUMBERS):
    """The element offset of a partition of a view whose element 0 is at
    `offset`: the view's strides times the partition's offsets."""
    for o, s in zip(offsets, strides):
        offset = arith.add(offset, arith.mul(o, s))
    return offset
