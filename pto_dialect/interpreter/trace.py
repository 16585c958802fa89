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
class OpShape:
    """What an op's duration depends on besides its bytes (timing/costs.py):
    the element type and valid shape of its main tile (the largest valid
    region among its tile operands; the lhs of a matmul), how many elements
    a storage row of that tile holds (`row_elems`; equal to `cols` when its
    rows are contiguous), and the spaces it moves between. `k` is a
    matmul's inner dimension (rows x cols are then M x N); `blocks` the 2-D
    transfers a tload or tstore takes (the product of its partition's outer
    dimensions)."""

    dtype: str
    itemsize: int
    rows: int
    cols: int
    row_elems: int
    src: str = ""  # space of the first tile read ("vec", "mat", ...), "gm" for a view
    dst: str = ""  # space of the first tile written
    k: int = 0
    blocks: int = 1
    src_dtype: str = ""  # element type of the first tile read (tcvt's source)


def op_shape(name: str, reads: list, writes: list, lhs=None, rhs=None) -> OpShape | None:
    """The OpShape of one execution of `name`. `reads` and `writes` are its
    operands in catalogue order: tiles (anything with `.layout` (a
    TileLayout) and `.valid`), views (anything with a `.shape` tuple and no
    layout), or None (a scalar). `lhs` and `rhs` are a matmul's operands.
    Shared by the interpreter's trace and the static schedule, so both
    price an op alike."""
    tiles = [t for t in (*writes, *reads) if t is not None and hasattr(t, "layout")]
    views = [v for v in (*reads, *writes) if v is not None and not hasattr(v, "layout") and hasattr(v, "shape")]

    def space(ts: list) -> str:
        for t in ts:
            if t is None:
                continue
            if hasattr(t, "layout"):
                return t.layout.tile.loc
            if hasattr(t, "shape"):
                return "gm"
        return ""

    src, dst = space(list(reads)), space(list(writes))
    first_read = next((t for t in reads if t is not None and hasattr(t, "layout")), None)
    src_dtype = first_read.layout.dtype if first_read is not None else ""
    if lhs is not None and rhs is not None:
        m, k = lhs.valid
        n = rhs.valid[1]
        return OpShape(lhs.layout.dtype, lhs.layout.itemsize, m, n, rhs.layout.shape[1], src, dst, k=k)
    if not tiles:
        return None
    main = max(tiles, key=lambda t: t.valid[0] * t.valid[1] * t.layout.itemsize)
    blocks = 1
    for v in views:
        outer = 1
        for d in v.shape[:-2]:
            outer *= d if isinstance(d, int) else 1
        blocks = max(blocks, outer)
    rows, cols = main.valid
    dst_tile = next((t for t in writes if t is not None and hasattr(t, "layout")), main)
    dtype = dst_tile.layout.dtype  # the result's element type (a tcvt's target)
    return OpShape(dtype, main.layout.itemsize, rows, cols, main.layout.shape[1], src, dst, blocks=blocks, src_dtype=src_dtype)


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
    shape: OpShape | None = None  # what the cost formulas read (None: priced on bytes alone)


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
