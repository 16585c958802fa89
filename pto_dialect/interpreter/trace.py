"""The execution trace: per executed pto op, what it read and wrote.

Recorded only on request (it costs time and memory). It is what a pipe timing
model needs: each event names the op's pipe and the exact byte ranges it
touched in which buffer, in program order, so dependences (read-after-write,
write-after-read, write-after-write on overlapping bytes) can be derived.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass


@dataclass(frozen=True)
class Access:
    """Bytes of one buffer an op touched.

    `buffer` names the storage: a memory space (`"vec"`) for addressed tiles,
    a private buffer (`"vec#3"`) for an unaddressed alloc, or a global-memory
    argument (`"%A"`). An access is `rows` runs of bytes `[start, stop)`,
    each `pitch` bytes after the previous one (a dense tile is one run; a
    block of global memory or of a tile's valid region one run per row or
    column; `block_accesses` builds them). `slot` is the multi-buffer slot the
    tile came from, if any.
    """

    buffer: str
    start: int
    stop: int
    rows: int = 1
    pitch: int = 0
    slot: int | None = None

    @property
    def nbytes(self) -> int:
        return (self.stop - self.start) * self.rows

    def runs(self) -> list[tuple[int, int]]:
        return [(self.start + k * self.pitch, self.stop + k * self.pitch) for k in range(self.rows)]

    def overlaps(self, other: Access) -> bool:
        if self.buffer != other.buffer:
            return False
        lo = max(self.start, other.start)
        hi = min(self.stop + (self.rows - 1) * self.pitch, other.stop + (other.rows - 1) * other.pitch)
        if lo >= hi:  # the spans are disjoint
            return False
        if self.rows == 1 and other.rows == 1:
            return True
        return any(a0 < b1 and b0 < a1 for a0, a1 in self.runs() for b0, b1 in other.runs())


@dataclass(frozen=True)
class TraceEvent:
    """One executed pto op (allocation and slot selection are not events:
    they move no data)."""

    op: str
    pipe: str
    location: str  # file:line:col
    reads: tuple[Access, ...]
    writes: tuple[Access, ...]
    elements: int  # elements written
    macs: int = 0  # multiply-accumulates (matmul)


def block_accesses(
    buffer: str,
    offset: int,
    shape: tuple[int, ...],
    strides: tuple[int, ...],
    itemsize: int,
    slot: int | None = None,
) -> tuple[Access, ...]:
    """The accesses covering the elements of a strided block: `shape`
    elements along each dimension, `strides` bytes apart, the first at byte
    `offset` of `buffer`. Dimensions are ordered by stride and merged where
    they are contiguous, so a dense block is one run and a 2-D window one
    access of `rows` runs; a block that needs more than one level of pitch
    becomes one access per index of its outer dimensions."""
    if any(n == 0 for n in shape):
        return ()
    dims = sorted(((n, s) for n, s in zip(shape, strides) if n != 1 and s != 0), key=lambda d: -d[1])
    merged: list[tuple[int, int]] = []
    for n, s in reversed(dims):  # from the innermost (smallest stride) outwards
        if merged and s == merged[0][0] * merged[0][1]:
            merged[0] = (n * merged[0][0], merged[0][1])
        else:
            merged.insert(0, (n, s))
    if merged and merged[-1][1] == itemsize:
        width = merged[-1][0] * itemsize
        outer = merged[:-1]
    else:  # elements are not adjacent: each is a run of its own
        width = itemsize
        outer = merged
    if not outer:
        return (Access(buffer, offset, offset + width, slot=slot),)
    rows, pitch = outer[-1]
    rest = outer[:-1]
    out = []
    for index in itertools.product(*(range(n) for n, _ in rest)):
        start = offset + sum(i * s for i, (_, s) in zip(index, rest))
        out.append(Access(buffer, start, start + width, rows, pitch, slot))
    return tuple(out)
