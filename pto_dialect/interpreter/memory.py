"""The memory model (docs/dialect.md, "Buffer semantics" and "Memory spaces").

- Global memory: each GM argument is one flat numpy array (`GlobalBuffer`):
  a memref or a statically shaped tensor view or partition argument holds
  its elements row-major; a `!pto.ptr<T>` argument is a 1-D buffer of T as
  long as its tensor views reach (it grows when `pto.make_tensor_view`
  reaches further). Tensor views and partitions are runtime values
  (`ViewRef`): an element offset and element strides into one buffer.
- Tile memory: each memory space of the target is a byte array of its
  capacity. A tile with an `addr` is a view of its space at that address, so
  two buffers whose byte ranges overlap really do clobber each other.
- A `pto.alloc_tile` without `addr` is its op's one private buffer (as if the
  memory planner had given the op one address): created on the op's first
  execution, the same bytes on every later one, so what an iteration leaves
  in it is what the next finds. A `pto.alloc_multi_tile` without `addr` is
  N such buffers, slot k at `k * stride` of one private region.

A tile's runtime value (`TileRef`) is where its element (0, 0) is, the byte
strides between rows and columns, and its valid region (rows x cols, set
when it is allocated and by `pto.set_validshape`). Storage order follows
the type's `blayout`: row_major puts element (r, c) at r * cols + c,
col_major at c * rows + r (row_plus_one pads each row, resp. column, by
one element), so tiles of different types aliasing the same bytes (an
addressed alloc, `pto.treshape`) see each other's elements exactly as the
hardware would. Simplification: a boxed layout (`slayout` row_major or
col_major, the fractal "NZ"/"ZN" formats) is stored like its `blayout`,
without the fractal boxes; only aliasing between a boxed and another tile
type at the same bytes can tell the difference.

Every byte array starts filled with a poison pattern and carries a mask of
the bytes ever written, so a read of data never written is detected (the
evaluator reports it as a warning at the reading op).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..dialect.targets import space_spec
from ..dialect.types import ROW_PLUS_ONE, MultiTileBufType, TileBufType
from .denotations import slot_offset
from .elements import STORAGE_DTYPES
from .errors import OpFault
from .trace import Access, block_accesses

POISON_BYTE = 0xFF
"""Fill of never-written tile memory: NaN in every float type, -1 in ints."""


@dataclass(frozen=True)
class TileLayout:
    """A tile type decoded once: what reading its bytes needs."""

    tile: TileBufType
    shape: tuple[int, int]
    dtype: str
    storage_dtype: np.dtype
    itemsize: int
    strides: tuple[int, int]  # bytes from element (r, c) to (r + 1, c) and to (r, c + 1)
    nbytes: int  # the bytes the tile spans

    @property
    def elements(self) -> int:
        return self.shape[0] * self.shape[1]


@lru_cache(maxsize=1024)
def tile_layout(tile: TileBufType) -> TileLayout:
    """The layout of a tile type; an OpFault for an element type the
    interpreter does not compute with."""
    storage = STORAGE_DTYPES.get(tile.dtype)
    if storage is None:
        raise OpFault(f"tiles of {tile.dtype} are not supported by pto-run (element types: {', '.join(STORAGE_DTYPES)})")
    rows, cols = tile.shape
    size = storage.itemsize
    pad = 1 if tile.compact == ROW_PLUS_ONE else 0
    # Boxed layouts are stored like their blayout (see the module docstring).
    strides = ((cols + pad) * size, size) if tile.blayout != "col_major" else (size, (rows + pad) * size)
    nbytes = (rows - 1) * strides[0] + (cols - 1) * strides[1] + size
    return TileLayout(tile, (rows, cols), tile.dtype, storage, size, strides, nbytes)


def row_major_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The element strides of a dense row-major array of `shape`."""
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= d
    return tuple(reversed(strides))


def reshaped_valid(result: TileBufType, layout: TileLayout, src_layout: TileLayout, src_valid: tuple[int, int]) -> tuple[int, int]:
    """The valid shape of a `treshape` to `result` (laid out as `layout`)
    of a tile laid out as `src_layout` with valid shape `src_valid`: the
    result type's static one; else, in the source's shape, the source's;
    else the whole new shape. pto-run and the static schedule share it."""
    if result.dynamic_valid == (False, False):
        return result.valid
    if layout.shape == src_layout.shape:
        return src_valid
    return layout.shape


def check_valid(tile: TileBufType, rows: int, cols: int) -> tuple[int, int]:
    """A runtime valid shape of `tile`, or an OpFault when it does not fit."""
    if not 0 <= rows <= tile.rows:
        raise OpFault(f"valid_row {rows} is outside [0, {tile.rows}] (the tile has {tile.rows} rows)")
    if not 0 <= cols <= tile.cols:
        raise OpFault(f"valid_col {cols} is outside [0, {tile.cols}] (the tile has {tile.cols} columns)")
    return rows, cols


VIEW_CACHE_LIMIT = 4096
"""Typed views a storage keeps for reuse before it forgets them all."""


class Storage:
    """A byte array with its written-bytes mask: a whole memory space or one
    private buffer. `label` names it in traces and messages. The typed
    views of its bytes that tiles ask for are made once and kept (the
    arrays never move), since making one costs more than the op using it."""

    __slots__ = ("label", "space", "data", "written", "_views")

    def __init__(self, label: str, space: str, nbytes: int) -> None:
        self.label = label
        self.space = space
        self.data = np.full(nbytes, POISON_BYTE, dtype=np.uint8)
        self.written = np.zeros(nbytes, dtype=np.bool_)
        self._views: dict = {}

    def view(self, offset: int, shape: tuple[int, int], strides: tuple[int, int], dtype: np.dtype) -> np.ndarray:
        """The elements `shape` of `dtype` at `offset`, `strides` bytes apart."""
        key = (offset, shape, strides, dtype)
        array = self._views.get(key)
        if array is None:
            if len(self._views) >= VIEW_CACHE_LIMIT:
                self._views.clear()
            array = self._views[key] = np.ndarray(shape, dtype=dtype, buffer=self.data, offset=offset, strides=strides)
        return array

    def mask(self, offset: int, shape: tuple[int, int], strides: tuple[int, int], itemsize: int) -> np.ndarray:
        """The written flags of the bytes of those elements, (rows, cols, itemsize)."""
        key = (offset, shape, strides, itemsize)
        array = self._views.get(key)
        if array is None:
            if len(self._views) >= VIEW_CACHE_LIMIT:
                self._views.clear()
            array = self._views[key] = np.ndarray(
                (*shape, itemsize), dtype=np.bool_, buffer=self.written, offset=offset, strides=(*strides, 1)
            )
        return array


class TileRef:
    """The runtime value of a tile: its element (0, 0) at byte `offset` of a
    storage, rows and columns `strides` bytes apart (the layout's, or its
    source's for a subview), and its valid region `valid` (rows, cols).
    `slot` is set when it came from `pto.multi_tile_get`."""

    __slots__ = ("storage", "offset", "layout", "strides", "valid", "slot")

    def __init__(
        self,
        storage: Storage,
        offset: int,
        layout: TileLayout,
        valid: tuple[int, int] | None = None,
        slot: int | None = None,
        strides: tuple[int, int] | None = None,
    ) -> None:
        self.storage = storage
        self.offset = offset
        self.layout = layout
        self.strides = strides or layout.strides
        self.valid = valid if valid is not None else layout.shape
        self.slot = slot

    @property
    def span(self) -> tuple[int, int]:
        """The byte range [lo, hi) of the storage the tile spans."""
        (rows, cols), (rs, cs) = self.layout.shape, self.strides
        return self.offset, self.offset + (rows - 1) * rs + (cols - 1) * cs + self.layout.itemsize

    def region(self, rows: int | None = None, cols: int | None = None) -> np.ndarray:
        """Elements [0, rows) x [0, cols) as stored (default: the valid
        region): a view into the storage, not a copy."""
        vr, vc = self.valid
        rows = vr if rows is None else rows
        cols = vc if cols is None else cols
        if rows == 0 or cols == 0:
            return np.empty((rows, cols), dtype=self.layout.storage_dtype)
        return self.storage.view(self.offset, (rows, cols), self.strides, self.layout.storage_dtype)

    def elements(self) -> np.ndarray:
        """Every element of the tile (its whole shape), as stored: a view."""
        return self.region(*self.layout.shape)

    def _mask(self, rows: int, cols: int) -> np.ndarray:
        return self.storage.mask(self.offset, (rows, cols), self.strides, self.layout.itemsize)

    def poison(self) -> None:
        """Leave the valid region as if never written: the poison pattern,
        and unwritten in the mask (what an op leaves in scratch it used)."""
        rows, cols = self.valid
        if rows == 0 or cols == 0:
            return
        size = self.layout.itemsize
        data = np.ndarray((rows, cols, size), dtype=np.uint8, buffer=self.storage.data, offset=self.offset, strides=(*self.strides, 1))
        data[...] = POISON_BYTE
        self.storage.mask(self.offset, (rows, cols), self.strides, size)[...] = False

    def unwritten_bytes(self, rows: int | None = None, cols: int | None = None) -> int:
        """How many bytes of elements [0, rows) x [0, cols) (default: the
        valid region) were never written."""
        vr, vc = self.valid
        rows = vr if rows is None else rows
        cols = vc if cols is None else cols
        if rows == 0 or cols == 0:
            return 0
        written = self._mask(rows, cols)
        return 0 if written.all() else int(written.size - np.count_nonzero(written))

    def store(self, elements: np.ndarray) -> None:
        """Write elements (of the storage dtype) into the top-left
        elements.shape of the tile; the bytes elsewhere keep what they hold."""
        rows, cols = elements.shape
        if rows == 0 or cols == 0:
            return
        self.region(rows, cols)[...] = elements
        self._mask(rows, cols)[...] = True

    def accesses(self, rows: int | None = None, cols: int | None = None) -> tuple[Access, ...]:
        """The bytes of elements [0, rows) x [0, cols) (default: the valid
        region), for the trace."""
        vr, vc = self.valid
        rows = vr if rows is None else rows
        cols = vc if cols is None else cols
        return block_accesses(self.storage.label, self.offset, (rows, cols), self.strides, self.layout.itemsize, self.slot)

    def describe(self) -> str:
        """How messages name the tile's bytes: `vec#3 [0, 512)`."""
        lo, hi = self.span
        return f"{self.storage.label} [{lo}, {hi})"

    def __repr__(self) -> str:
        slot = f" slot {self.slot}" if self.slot is not None else ""
        return f"<tile {self.layout.tile} valid {self.valid[0]}x{self.valid[1]} at {self.storage.label}+{self.offset}{slot}>"


class MultiTileRef:
    """The runtime value of a multi_tile_buf: `count` slots of
    `slot_layout`, slot k at `base + k * stride` of a storage, each with the
    region's valid shape."""

    __slots__ = ("storage", "base", "stride", "count", "slot_layout", "valid")

    def __init__(
        self, storage: Storage, base: int, stride: int, count: int, slot_layout: TileLayout, valid: tuple[int, int] | None = None
    ) -> None:
        self.storage = storage
        self.base = base
        self.stride = stride
        self.count = count
        self.slot_layout = slot_layout
        self.valid = valid if valid is not None else slot_layout.shape

    def slot(self, k: int) -> TileRef:
        if not 0 <= k < self.count:
            raise OpFault(f"slot {k} is out of range [0, {self.count})")
        return TileRef(self.storage, slot_offset(self.base, self.stride, k), self.slot_layout, self.valid, k)

    def __repr__(self) -> str:
        return f"<multi_tile {self.count} x {self.slot_layout.tile} at {self.storage.label}+{self.base}>"


class GlobalBuffer:
    """A global-memory argument: its elements as one flat numpy array of
    the element type's storage dtype (bf16 as uint16 bit patterns), viewed
    as `shape`. `written` records whether any op wrote it (tools call such
    buffers outputs). A buffer with a `grow` function (a `!pto.ptr`
    argument) is as long as what reached it; `reach` extends it."""

    __slots__ = ("name", "type", "dtype", "flat", "shape", "written", "_grow", "_views")

    def __init__(self, name: str, type_text: str, dtype: str, flat: np.ndarray, shape: tuple[int, ...] | None = None, grow=None) -> None:
        self.name = name
        self.type = type_text
        self.dtype = dtype
        self.flat = flat
        self.shape = shape if shape is not None else (flat.size,)
        self.written = False
        self._grow = grow
        self._views: dict = {}

    def view(self, offset: int, shape: tuple[int, ...], strides: tuple[int, ...]) -> np.ndarray:
        """Elements `shape` from element `offset`, `strides` elements apart:
        a view (kept for reuse until the buffer grows)."""
        key = (offset, shape, strides)
        array = self._views.get(key)
        if array is None:
            if len(self._views) >= VIEW_CACHE_LIMIT:
                self._views.clear()
            size = self.flat.itemsize
            array = self._views[key] = np.ndarray(
                shape, dtype=self.flat.dtype, buffer=self.flat, offset=offset * size, strides=tuple(s * size for s in strides)
            )
        return array

    @property
    def array(self) -> np.ndarray:
        return self.flat.reshape(self.shape)

    @property
    def itemsize(self) -> int:
        return self.flat.itemsize

    def reach(self, elements: int) -> None:
        """Make the buffer at least `elements` long (a pointer's buffer
        grows; any other must already be that long)."""
        if elements <= self.flat.size:
            return
        if self._grow is None:
            raise OpFault(f"a view reaches {elements} elements of {self.name}, which has {self.flat.size}")
        self.flat = self._grow(self.flat, elements)
        self.shape = (self.flat.size,)
        self._views.clear()  # views of the old array


class ViewRef:
    """The runtime value of a `!pto.tensor_view` or `!pto.partition_tensor_view`:
    elements `shape` of `buffer`, the first at element `offset`, `strides`
    elements apart along each dimension (all non-negative)."""

    __slots__ = ("buffer", "offset", "shape", "strides", "kind")

    def __init__(self, buffer: GlobalBuffer, offset: int, shape: tuple[int, ...], strides: tuple[int, ...], kind: str) -> None:
        self.buffer = buffer
        self.offset = offset
        self.shape = shape
        self.strides = strides
        self.kind = kind

    @property
    def matrix_shape(self) -> tuple[int, int]:
        """The elements as a 2-D matrix, as tload and tstore move them: rows
        = the product of all dimensions but the last, cols = the last."""
        rows = 1
        for d in self.shape[:-1]:
            rows *= d
        return rows, (self.shape[-1] if self.shape else 1)

    def elements(self) -> np.ndarray:
        """The view's elements (its shape): a view of the buffer, not a copy."""
        if 0 in self.shape:
            return np.empty(self.shape, dtype=self.buffer.flat.dtype)
        return self.buffer.view(self.offset, self.shape, self.strides)

    def accesses(self) -> tuple[Access, ...]:
        b = self.buffer
        size = b.itemsize
        return block_accesses(b.name, self.offset * size, self.shape, tuple(s * size for s in self.strides), size)

    def __repr__(self) -> str:
        return f"<{self.kind} {'x'.join(map(str, self.shape))} of {self.buffer.name}+{self.offset} strides {self.strides}>"


def view_reach(offset: int, shape: tuple[int, ...], strides: tuple[int, ...]) -> int:
    """One past the last element a view reaches (its offset when empty)."""
    if any(d == 0 for d in shape):
        return offset
    return offset + sum((d - 1) * s for d, s in zip(shape, strides)) + 1


class Memory:
    """All tile memory of one execution: the spaces of `arch` (created when
    first used) and the private buffers of unaddressed allocations."""

    def __init__(self, arch: str) -> None:
        self.arch = arch
        self.spaces: dict[str, Storage] = {}
        self.private: dict[object, Storage] = {}
        self._private_count = 0

    def space(self, name: str) -> Storage:
        storage = self.spaces.get(name)
        if storage is None:
            storage = self.spaces[name] = Storage(name, name, space_spec(self.arch, name).capacity)
        return storage

    def _check_placement(self, space: str, addr: int, nbytes: int) -> None:
        spec = space_spec(self.arch, space)
        if addr < 0:
            raise OpFault(f"addr {addr} is negative")
        if addr % spec.alignment:
            raise OpFault(f"addr {addr} is not aligned to {spec.alignment} bytes (space \"{space}\")")
        if addr + nbytes > spec.capacity:
            raise OpFault(
                f"buffer at addr {addr} of {nbytes} bytes ends at {addr + nbytes}, beyond space "
                f"\"{space}\" ({spec.capacity} bytes on {self.arch})"
            )

    def _private(self, key: object, space: str, nbytes: int) -> Storage:
        storage = self.private.get(key)
        if storage is None:
            self._private_count += 1
            storage = self.private[key] = Storage(f"{space}#{self._private_count}", space, nbytes)
        return storage

    def tile(self, key: object, tile: TileBufType, addr: int | None, valid: tuple[int, int] | None = None) -> TileRef:
        """The buffer of a `pto.alloc_tile` (identified by `key`), with its
        valid shape (default: the type's)."""
        layout = tile_layout(tile)
        if addr is not None:
            self._check_placement(tile.loc, addr, layout.nbytes)
            return TileRef(self.space(tile.loc), addr, layout, valid)
        return TileRef(self._private(key, tile.loc, layout.nbytes), 0, layout, valid)

    def multi_tile(self, key: object, mb: MultiTileBufType, addr: int | None, valid: tuple[int, int] | None = None) -> MultiTileRef:
        """The region of a `pto.alloc_multi_tile` (identified by `key`)."""
        layout = tile_layout(mb.slot)
        stride = mb.stride(space_spec(self.arch, mb.loc).alignment)
        if addr is not None:
            self._check_placement(mb.loc, addr, stride * mb.count)
            return MultiTileRef(self.space(mb.loc), addr, stride, mb.count, layout, valid)
        return MultiTileRef(self._private(key, mb.loc, stride * mb.count), 0, stride, mb.count, layout, valid)
