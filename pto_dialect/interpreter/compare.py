"""Comparing two executions bit for bit, and naming the first difference.

Elements are compared by their stored bits, so NaN equals the same NaN and
-0.0 differs from 0.0: a transformation must not change a single bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .execution import BufferResult, Execution


@dataclass(frozen=True)
class Mismatch:
    """The first difference between two executions."""

    buffer: str
    detail: str  # what differs, in words
    index: tuple[int, ...] | None = None
    differing: int = 0  # elements that differ
    total: int = 0

    def message(self) -> str:
        where = f" element [{', '.join(map(str, self.index))}]" if self.index is not None else ""
        count = f"; {self.differing} of {self.total} elements differ" if self.total else ""
        return f"{self.buffer}{where}: {self.detail}{count}"


def _bits(array: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(array)
    return a.view(np.dtype(f"u{a.dtype.itemsize}")) if a.dtype.itemsize in (1, 2, 4, 8) else a


def describe(b: BufferResult, index: tuple[int, ...]) -> str:
    """One element as a number, with its bits for float types."""
    value = b.values()[index]
    if b.dtype in ("f16", "bf16", "f32", "f64"):
        bits = int(_bits(b.array)[index])
        width = b.array.dtype.itemsize * 2
        return f"{str(value)} (0x{bits:0{width}x})"  # str: numpy's shortest repr for the type
    return str(int(value))


CHUNK = 1 << 20
"""Elements compared at once: a comparison costs a chunk's mask beside the
two buffers, not a mask of their size (docs/reliability.md, "Bounded
cost")."""


def compare_buffers(before: BufferResult, after: BufferResult) -> Mismatch | None:
    if (before.type, before.array.shape) != (after.type, after.array.shape):
        return Mismatch(before.name, f"type {before.type} before, {after.type} after")
    a, b = _bits(before.array).reshape(-1), _bits(after.array).reshape(-1)
    first, differing = None, 0
    for start in range(0, a.size, CHUNK):
        diff = a[start : start + CHUNK] != b[start : start + CHUNK]
        count = int(np.count_nonzero(diff))
        if count and first is None:
            first = start + int(np.argmax(diff))
        differing += count
    if first is None:
        return None
    index = tuple(int(i) for i in np.unravel_index(first, before.array.shape)) if before.array.ndim else ()
    return Mismatch(
        before.name,
        f"{describe(before, index)} before, {describe(after, index)} after",
        index,
        differing,
        int(a.size),
    )


def compare(before: Execution, after: Execution) -> Mismatch | None:
    """The first difference between the results of two runs, or None.

    Buffers are compared in argument order, then returned values.
    """
    after_buffers = {b.name: b for b in after.buffers}
    for b in before.buffers:
        other = after_buffers.get(b.name)
        if other is None:
            return Mismatch(b.name, "missing after the transformation")
        mismatch = compare_buffers(b, other)
        if mismatch:
            return mismatch
    extra = [b.name for b in after.buffers if b.name not in {x.name for x in before.buffers}]
    if extra:
        return Mismatch(extra[0], "only present after the transformation")
    if len(before.scalars) != len(after.scalars):
        return Mismatch("results", f"{len(before.scalars)} returned values before, {len(after.scalars)} after")
    for s, t in zip(before.scalars, after.scalars):
        if (s.type, repr(s.value)) != (t.type, repr(t.value)):
            return Mismatch(s.name, f"{s.type} {s.value} before, {t.type} {t.value} after")
    return None
