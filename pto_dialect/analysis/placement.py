"""Addresses for the buffers of one memory space, from their live ranges.

The input is one `Request` per buffer: its size in bytes, its live range (a
closed interval of program points) and, for a buffer the user placed, its
fixed address. Buffers whose ranges overlap must get disjoint address ranges;
buffers whose ranges are disjoint may share (unless `reuse=False`).

The method is a sweep over program points with a best-fit free list: at each
point the buffers whose range ended are freed (merging adjacent holes), user
placements that start there are reserved, then the buffers that start there
are placed, largest first, each in the smallest hole that holds it, or at the
top of the used space when none does. Sizes are rounded up to the alignment
and every fixed address is aligned, so every hole starts aligned and every
base the sweep hands out is aligned.

A user placement that starts later than a buffer being placed, but while
that buffer is still live, must not be under it: such future reservations
are avoided explicitly (they are few; the cost is per reservation overlapping
the buffer's range). User placements may overlap each other (deliberate
aliasing, as PyPTO's planner writes it, or a mistake `fixed_collisions`
reports): overlapping ones are reserved over the lifetime of the whole
group (`alias_groups`), and while any of them is live, the union of their
ranges stays reserved.

Cost: sorting the 2n events, then a binary search per event in the free
list, whose sorted lists take O(holes) memmoves to update (cheap next to
the rest for any hole count a space of kilobytes leaves), plus the future
reservations each buffer has to avoid.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from ..dialect.types import align_up


class Request(NamedTuple):
    """One buffer to place. `key` is the caller's name for it. (A tuple:
    there is one per buffer, and a frozen dataclass costs several times as
    much to build.)"""

    key: int
    size: int  # bytes the buffer occupies (a region: N * stride)
    start: int  # first program point it is live at
    end: int  # last program point it is live at (inclusive)
    fixed: int | None = None  # user-given base address
    first_use: int | None = None  # first point that touches its bytes (None: start)

    @property
    def data_start(self) -> int:
        return self.start if self.first_use is None else self.first_use


@dataclass
class Placement:
    addrs: dict[int, int] = field(default_factory=dict)  # key -> base address
    footprint: int = 0  # max(addr + size): the bytes of the space in use
    collisions: list[tuple[int, int]] = field(default_factory=list)
    """Pairs (earlier, later) of fixed requests that overlap while both live."""


@dataclass
class LivePeak:
    """The program point where the most bytes are live at once."""

    bytes: int = 0  # aligned sizes of the buffers live there
    point: int = -1
    keys: list[int] = field(default_factory=list)  # those buffers, by request order


class _FreeSpace:
    """Free address ranges: finite holes (by address and by size) and the
    unbounded range [top, inf) above everything in use.

    Plain sorted lists with `bisect`: a space holds few holes (a pool is
    one per sharing tag, and most hold a handful), where inserting into a
    list costs a memmove and sortedcontainers' own bookkeeping (and its
    construction, once per pool) costs more than the search it saves."""

    def __init__(self) -> None:
        self.starts: list[int] = []  # hole starts, ascending
        self.ends: dict[int, int] = {}  # hole start -> hole end
        self.by_size: list[tuple[int, int]] = []  # (hole size, hole start), ascending
        self.top = 0

    def has_holes(self) -> bool:
        return bool(self.starts)

    def _add(self, start: int, end: int) -> None:
        if end > start:
            insort(self.starts, start)
            self.ends[start] = end
            insort(self.by_size, (end - start, start))

    def _remove(self, start: int) -> int:
        end = self.ends.pop(start)
        del self.starts[bisect_left(self.starts, start)]
        del self.by_size[bisect_left(self.by_size, (end - start, start))]
        return end

    def take(self, start: int, end: int) -> bool:
        """Mark [start, end) used; False (and no change) when not all free."""
        if start >= self.top:
            self._add(self.top, start)
            self.top = end
            return True
        i = bisect_right(self.starts, start) - 1
        if i < 0:
            return False
        hole_start = self.starts[i]
        hole_end = self.ends[hole_start]
        if end > hole_end:
            return False
        self._remove(hole_start)
        self._add(hole_start, start)
        self._add(end, hole_end)
        return True

    def take_free_parts(self, start: int, end: int) -> list[tuple[int, int]]:
        """Mark the free parts of [start, end) used and return them (the rest
        is already used)."""
        parts = []
        starts = self.starts
        i = max(bisect_right(starts, start) - 1, 0)
        while i < len(starts) and starts[i] < end:
            lo, hi = max(starts[i], start), min(self.ends[starts[i]], end)
            if lo < hi:
                parts.append((lo, hi))
            i += 1
        if self.top < end:
            parts.append((max(self.top, start), end))
        for lo, hi in parts:
            taken = self.take(lo, hi)
            assert taken, "a free part was not free"
        return parts

    def free(self, start: int, end: int) -> None:
        i = bisect_left(self.starts, start)
        if i > 0:
            prev_start = self.starts[i - 1]
            if self.ends[prev_start] == start:
                self._remove(prev_start)
                start = prev_start
        if end in self.ends:
            end = self._remove(end)
        if end == self.top:
            self.top = start
        else:
            self._add(start, end)

    def best_hole(self, size: int, blocked: list[tuple[int, int]]) -> tuple[int, int] | None:
        """(hole size, base) of the smallest hole with room for `size` bytes
        clear of `blocked`, or None (the top is not a hole)."""
        by_size = self.by_size
        i = bisect_left(by_size, (size, -1))
        if not blocked:
            return by_size[i] if i < len(by_size) else None
        for n in range(i, len(by_size)):
            hole_size, hole_start = by_size[n]
            base = _fit_avoiding(hole_start, hole_start + hole_size, size, blocked)
            if base is not None:
                return hole_size, base
        return None

    def top_fit(self, size: int, blocked: list[tuple[int, int]]) -> int:
        """The lowest base for `size` bytes at or above the top, clear of `blocked`."""
        return _fit_avoiding(self.top, None, size, blocked) if blocked else self.top

    def best_fit(self, size: int, blocked: list[tuple[int, int]]) -> int:
        """The base for `size` bytes: the lowest fitting place in the
        smallest hole that has one, else at the top; never inside `blocked`."""
        found = self.best_hole(size, blocked)
        return found[1] if found is not None else self.top_fit(size, blocked)


_NO_TOP = 1 << 62  # a pool of freed bytes never grows: its top is out of reach


class Sharing(Protocol):
    """Which freed bytes a buffer may take (`place(..., sharing=)`): bytes
    carry the tag of the buffer that last held them."""

    def tag(self, key: int) -> Hashable:
        """The tag the bytes of request `key` get when it ends."""

    def compatible(self, tag: Hashable, key: int) -> bool:
        """Whether request `key` may take bytes last held by a buffer tagged `tag`."""


class _Pools:
    """Free space for `place` with a sharing policy: never-used bytes
    (holes below the top, and the top) are open to every buffer; freed
    bytes go to the pool of their last holder's tag, open to the buffers
    the policy lets reuse them. An empty pool is dropped, so the pools
    searched are those holding bytes."""

    def __init__(self, sharing: Sharing) -> None:
        self.sharing = sharing
        self.fresh = _FreeSpace()
        self.pools: dict[Hashable, _FreeSpace] = {}

    def best_fit(self, key: int, size: int, blocked: list[tuple[int, int]]) -> tuple[_FreeSpace, int]:
        """The space and base for request `key`: the smallest fitting hole
        among the fresh holes and the pools it may use, else the top."""
        best = None
        for tag, pool in self.pools.items():
            if self.sharing.compatible(tag, key):
                found = pool.best_hole(size, blocked)
                if found is not None and (best is None or found[0] < best[0]):
                    best = (found[0], pool, found[1])
        found = self.fresh.best_hole(size, blocked)
        if found is not None and (best is None or found[0] < best[0]):
            best = (found[0], self.fresh, found[1])
        if best is None:  # no hole fits, fresh ones included: the top
            return self.fresh, self.fresh.top_fit(size, blocked)
        return best[1], best[2]

    def take(self, space: _FreeSpace, start: int, end: int) -> bool:
        taken = space.take(start, end)
        if space is not self.fresh and not space.has_holes():
            self.pools = {tag: pool for tag, pool in self.pools.items() if pool is not space}
        return taken

    def take_free_parts(self, start: int, end: int) -> list[tuple[int, int]]:
        """A user placement takes what is free in its range, whoever held it."""
        parts = []
        for tag, pool in list(self.pools.items()):
            parts.extend(pool.take_free_parts(start, end))
            if not pool.has_holes():
                del self.pools[tag]
        parts.extend(self.fresh.take_free_parts(start, end))  # pooled bytes are used as far as fresh is concerned
        return parts

    def free(self, key: int, start: int, end: int) -> None:
        tag = self.sharing.tag(key)
        pool = self.pools.get(tag)
        if pool is None:
            pool = self.pools[tag] = _FreeSpace()
            pool.top = _NO_TOP
        pool.free(start, end)


def _fit_avoiding(lo: int, hi: int | None, size: int, blocked: list[tuple[int, int]]) -> int | None:
    """The lowest base >= lo with [base, base + size) inside [lo, hi) and
    clear of every range in `blocked` (sorted by start)."""
    base = lo
    for b_start, b_end in blocked:
        if b_end <= base:
            continue
        if b_start >= base + size:
            break
        base = b_end
    return base if hi is None or base + size <= hi else None


def alias_groups(requests: list[Request], alignment: int) -> list[list[Request]]:
    """The fixed requests in groups whose address ranges overlap (linked
    through overlapping neighbours), in address order.

    Tiles at overlapping user addresses are views of the same bytes, which
    is how PyPTO's planner writes an op's result in place over a dying
    input, reinterprets a tile in another shape or layout (an `8x1`
    col-major row statistic read back as a `1x8` row-major tile), or takes a
    prefix of a larger tile: data written through one is read through
    another, so the bytes are in use from the first use of any of them to
    the last use of any of them, whatever each one's own range says."""
    fixed = sorted((r for r in requests if r.fixed is not None), key=lambda r: (r.fixed, r.key))
    groups: list[list[Request]] = []
    reach = -1
    for r in fixed:
        hi = r.fixed + align_up(max(r.size, 1), alignment)
        if groups and r.fixed < reach:
            groups[-1].append(r)
            reach = max(reach, hi)
        else:
            groups.append([r])
            reach = hi
    return groups


def with_alias_lifetimes(requests: list[Request], alignment: int) -> list[Request]:
    """`requests` with every fixed request live over the whole lifetime of
    its alias group (`alias_groups`), so that nothing placed lands on bytes
    that one alias writes and another reads later."""
    hull: dict[int, tuple[int, int]] = {}
    for group in alias_groups(requests, alignment):
        if len(group) > 1:
            span = (min(r.start for r in group), max(r.end for r in group))
            for r in group:
                hull[r.key] = span
    return [r._replace(start=hull[r.key][0], end=hull[r.key][1]) if r.key in hull else r for r in requests]


def fixed_collisions(requests: list[Request], alignment: int) -> list[tuple[int, int]]:
    """Pairs (earlier, later) of fixed requests whose address ranges
    straddle each other (they overlap, and neither holds the other) while
    both hold data: from the first point that touches a buffer
    (`data_start`; its allocation op touches nothing) to its last use.

    A tile whose range lies within another's is a view of those bytes by
    design (see `alias_groups`: PyPTO writes in place at one base, and
    takes row i of a tile at base + i * row bytes) and never collides. A
    straddling pair is a mistake that clobbers data (ptoas does not
    check it: it only orders the ops that touch shared bytes), which the
    allocator reports as an error. Ranges that meet at one op overlap: that op writes
    the later tile over bytes of the earlier one it may not have read yet."""
    fixed = sorted((r for r in requests if r.fixed is not None), key=lambda r: (r.data_start, r.key))
    live: list[tuple[int, int, int, int]] = []  # (end point, lo, hi, key), the fixed requests live now
    collisions: list[tuple[int, int]] = []
    for r in fixed:
        start = r.data_start
        live = [item for item in live if item[0] >= start]  # ended before this point: cannot clash
        lo, hi = r.fixed, r.fixed + align_up(max(r.size, 1), alignment)
        for _, other_lo, other_hi, key in live:
            straddle = other_lo < hi and lo < other_hi and not (other_lo <= lo and hi <= other_hi) and not (lo <= other_lo and other_hi <= hi)
            if straddle:
                collisions.append((key, r.key))
        live.append((r.end, lo, hi, r.key))
    return collisions


def place(requests: list[Request], alignment: int, reuse: bool = True, sharing: Sharing | None = None) -> Placement:
    """Addresses for every request of one space (fixed ones keep theirs).

    With `reuse=False` no two buffers share an address range, whatever their
    lifetimes (fixed requests that the user made overlap stay as given).
    With a `sharing` policy, a buffer takes bytes another one held before
    only when the policy lets it (`Sharing`); bytes never used are open to all."""
    for r in requests:
        if r.fixed is not None and (r.fixed < 0 or r.fixed % alignment):
            raise ValueError(f"fixed address {r.fixed} is not a non-negative multiple of {alignment}")
    collisions = fixed_collisions(requests, alignment)
    requests = with_alias_lifetimes(_effective(requests, reuse), alignment)

    need = {r.key: align_up(max(r.size, 1), alignment) for r in requests}
    fixed = sorted((r for r in requests if r.fixed is not None), key=lambda r: r.start)
    fixed_starts = [r.start for r in fixed]

    # (point, phase, order, key): frees first, then fixed reservations, then
    # the buffers that start there, largest first. Keys are unique, so the
    # tuples never compare further.
    by_key = {r.key: r for r in requests}
    events = []
    for r in requests:
        events.append((r.end + 1, 0, 0, r.key))
        events.append((r.start, 1 if r.fixed is not None else 2, -need[r.key], r.key))
    events.sort()

    placement = Placement(collisions=collisions)
    pools = _Pools(sharing) if sharing is not None else None
    space = pools.fresh if pools is not None else _FreeSpace()
    take_free_parts = pools.take_free_parts if pools is not None else space.take_free_parts
    held: dict[int, list[tuple[int, int]]] = {}  # key -> the address ranges it holds now
    live_fixed: dict[int, tuple[int, int]] = {}  # fixed keys live now -> their range
    for _, phase, _, key in events:
        size = need[key]
        r = by_key[key]
        if phase == 0:
            for lo, hi in held.pop(key, ()):
                if pools is not None:
                    pools.free(key, lo, hi)
                else:
                    space.free(lo, hi)
            gone = live_fixed.pop(key, None)
            if gone is not None:
                # overlapping fixed buffers still live take back what was shared
                for other, (lo, hi) in live_fixed.items():
                    if lo < gone[1] and gone[0] < hi:
                        held[other].extend(take_free_parts(lo, hi))
            continue
        if phase == 1:
            placement.addrs[key] = r.fixed
            live_fixed[key] = (r.fixed, r.fixed + size)
            held[key] = take_free_parts(r.fixed, r.fixed + size)
            continue
        blocked = []
        if fixed:
            blocked = sorted(
                (f.fixed, f.fixed + need[f.key])
                for f in fixed[bisect_right(fixed_starts, r.start) : bisect_right(fixed_starts, r.end)]
            )
        if pools is not None:
            source, base = pools.best_fit(key, size, blocked)
            taken = pools.take(source, base, base + size)
        else:
            base = space.best_fit(size, blocked)
            taken = space.take(base, base + size)
        assert taken, "best_fit returned a range that is not free"
        placement.addrs[key] = base
        held[key] = [(base, base + size)]

    placement.footprint = max((placement.addrs[r.key] + r.size for r in requests), default=0)
    return placement


def _effective(requests: list[Request], reuse: bool) -> list[Request]:
    """Without reuse, every buffer the pass places is live throughout (so
    it shares memory with nothing); fixed ones keep their ranges."""
    if reuse or not requests:
        return requests
    first = min(r.start for r in requests)
    last = max(r.end for r in requests)
    return [r if r.fixed is not None else Request(r.key, r.size, first, last) for r in requests]


def live_peak(requests: list[Request], alignment: int) -> LivePeak:
    """Where the sum of the (aligned) sizes of the live buffers is largest:
    a lower bound on the bytes any placement with reuse needs."""
    deltas = []
    for r in requests:
        size = align_up(max(r.size, 1), alignment)
        deltas.append((r.start, size))
        deltas.append((r.end + 1, -size))
    deltas.sort()
    peak = LivePeak()
    live = 0
    for i, (point, delta) in enumerate(deltas):
        live += delta
        last_at_point = i + 1 == len(deltas) or deltas[i + 1][0] != point
        if last_at_point and live > peak.bytes:
            peak.bytes, peak.point = live, point
    peak.keys = [r.key for r in requests if r.start <= peak.point <= r.end]
    return peak


__all__ = ["LivePeak", "Placement", "Request", "Sharing", "alias_groups", "fixed_collisions", "live_peak", "place", "with_alias_lifetimes"]
