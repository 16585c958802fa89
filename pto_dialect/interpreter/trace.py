"""The execution trace: per executed pto op, what it read and wrote.

Recorded only on request (it costs time and memory). It is what a pipe timing
model needs: each event names the op's pipe and the exact byte ranges it
touched in which buffer, in program order, so dependences (read-after-write,
write-after-read, write-after-write on overlapping bytes) can be derived.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Access:
    """Bytes of one buffer an op touched.

    `buffer` names the storage: a memory space (`"vec"`) for addressed tiles,
    a private buffer (`"vec#3"`) for an unaddressed alloc, or a memref
    argument (`"%A"`). A tile is one run of bytes `[start, stop)`; a block of
    a memref is `rows` runs, each `pitch` bytes after the previous one.
    `slot` is the multi-buffer slot the tile came from, if any.
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
