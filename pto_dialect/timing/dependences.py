"""Byte-range dependences between executed ops, for the timing model.

An op depends on every earlier op that touched an overlapping byte range of
the same buffer (memory space, private buffer or global-memory argument) where at
least one of the two wrote: read-after-write, write-after-read,
write-after-write. That is the ideal synchronisation ptoas aims to insert:
no false dependences, none missing.

Waiting for "every earlier op it depends on" only needs, per byte, two
times: when the last write of it ends (a read waits for that) and when the
last access of any kind ends (a write waits for that). The latest write
of a byte ends last among its writes, because each write waited for the one
before it. So each buffer keeps a piecewise-constant map from byte offset to
those two times, as sorted segment boundaries: a query or an update costs a
binary search plus the segments it covers, never a scan of earlier ops.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..interpreter.trace import Access, TraceEvent


class ByteTimes:
    """For one buffer: per byte, when its last write ends and when its last
    access ends. Segment k covers [starts[k], starts[k+1]) (the last one
    runs to infinity); every byte starts at time 0."""

    __slots__ = ("starts", "written", "touched")

    def __init__(self) -> None:
        self.starts = [0]
        self.written = [0]
        self.touched = [0]

    def _split(self, offset: int) -> int:
        """Make a segment start at `offset`; return its index."""
        k = bisect_right(self.starts, offset) - 1
        if self.starts[k] == offset:
            return k
        self.starts.insert(k + 1, offset)
        self.written.insert(k + 1, self.written[k])
        self.touched.insert(k + 1, self.touched[k])
        return k + 1

    def _max(self, times: list[int], lo: int, hi: int) -> int:
        starts = self.starts
        k = bisect_right(starts, lo) - 1
        last = len(starts)
        best = 0
        while k < last and starts[k] < hi:
            if times[k] > best:
                best = times[k]
            k += 1
        return best

    def last_write_end(self, lo: int, hi: int) -> int:
        """When the bytes [lo, hi) are last written: what a read waits for."""
        return self._max(self.written, lo, hi)

    def last_access_end(self, lo: int, hi: int) -> int:
        """When the bytes [lo, hi) are last read or written: what a write waits for."""
        return self._max(self.touched, lo, hi)

    def read(self, lo: int, hi: int, end: int) -> None:
        i, j = self._split(lo), self._split(hi)
        touched = self.touched
        for k in range(i, j):
            if touched[k] < end:
                touched[k] = end

    def write(self, lo: int, hi: int, end: int) -> None:
        # The write waited for every access of these bytes, so `end` is now
        # both times of the whole range: one segment.
        if lo >= hi:
            return
        i = self._split(lo)
        j = self._split(hi)
        self.starts[i:j] = [lo]
        self.written[i:j] = [end]
        self.touched[i:j] = [end]


def byte_runs(access: Access) -> list[tuple[int, int]]:
    """The [start, stop) runs of an access, adjacent rows merged (a block
    as wide as its matrix is one run)."""
    width = access.stop - access.start
    if access.rows == 1 or access.pitch == width:
        return [(access.start, access.start + width + (access.rows - 1) * access.pitch)]
    return access.runs()


class DependenceTracker:
    """Byte times of every buffer the trace touched so far."""

    def __init__(self) -> None:
        self.buffers: dict[str, ByteTimes] = {}

    def _times(self, buffer: str) -> ByteTimes:
        times = self.buffers.get(buffer)
        if times is None:
            times = self.buffers[buffer] = ByteTimes()
        return times

    def ranges(self, event: TraceEvent) -> tuple[list, list]:
        """The byte ranges `event` reads and writes, as (times, lo, hi) with
        the times of their buffer: what `ready` and `record` take."""
        reads = [(self._times(a.buffer), lo, hi) for a in event.reads for lo, hi in byte_runs(a)]
        writes = [(self._times(a.buffer), lo, hi) for a in event.writes for lo, hi in byte_runs(a)]
        return reads, writes

    @staticmethod
    def ready(reads: list, writes: list) -> int:
        """The earliest time an op with these ranges may start: when every
        earlier op it depends on has finished."""
        ready = 0
        for times, lo, hi in reads:
            t = times.last_write_end(lo, hi)
            if t > ready:
                ready = t
        for times, lo, hi in writes:
            t = times.last_access_end(lo, hi)
            if t > ready:
                ready = t
        return ready

    @staticmethod
    def record(reads: list, writes: list, end: int) -> None:
        """An op with these ranges runs until `end`: later ops that depend
        on it wait for that."""
        for times, lo, hi in reads:
            times.read(lo, hi, end)
        for times, lo, hi in writes:
            times.write(lo, hi, end)
