"""The memory model (docs/dialect.md, "Buffer semantics" and "Memory spaces").

- Global memory: each memref argument is one numpy array (`GlobalBuffer`).
- Tile memory: each memory space of the target is a byte array of its
  capacity. A tile with an `addr` is a view of its space at that address, so
  two buffers whose byte ranges overlap really do clobber each other.
- A `pto.alloc_tile` without `addr` is its op's one private buffer (as if the
  memory planner had given the op one address): created on the op's first
  execution, the same buffer on every later one, so what an iteration leaves
  in it is what the next finds. A `pto.alloc_multi_tile` without `addr` is
  N such buffers, slot k at `k * stride` of one private region.

Every byte array starts filled with a poison pattern and carries a mask of
the bytes ever written, so a read of data never written is detected (the
evaluator reports it as a warning at the reading op).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..targets import space_spec
from ..types import MultiTileBufType, TileBufType
from .elements import STORAGE_DTYPES
from .errors import OpFault
from .trace import Access

POISON_BYTE = 0xFF
"""Fill of never-written tile memory: NaN in every float type, -1 in ints."""


@dataclass(frozen=True)
class TileLayout:
    """A tile type decoded once: what reading its bytes needs."""

    tile: TileBufType
    shape: tuple[int, int]
    dtype: str
    storage_dtype: np.dtype
    nbytes: int

    @property
    def elements(self) -> int:
        return self.shape[0] * self.shape[1]


@lru_cache(maxsize=1024)
def tile_layout(tile: TileBufType) -> TileLayout:
    return TileLayout(tile, (tile.shape[0], tile.shape[1]), tile.dtype, STORAGE_DTYPES[tile.dtype], tile.nbytes)


class Storage:
    """A byte array with its written-bytes mask: a whole memory space or one
    private buffer. `label` names it in traces and messages."""

    __slots__ = ("label", "space", "data", "written")

    def __init__(self, label: str, space: str, nbytes: int) -> None:
        self.label = label
        self.space = space
        self.data = np.full(nbytes, POISON_BYTE, dtype=np.uint8)
        self.written = np.zeros(nbytes, dtype=np.bool_)


class TileRef:
    """The runtime value of a tile: `layout.nbytes` bytes of a storage at
    `offset`. `slot` is set when it came from `pto.multi_tile_get`."""

    __slots__ = ("storage", "offset", "layout", "slot")

    def __init__(self, storage: Storage, offset: int, layout: TileLayout, slot: int | None = None) -> None:
        self.storage = storage
        self.offset = offset
        self.layout = layout
        self.slot = slot

    def stored(self) -> np.ndarray:
        """The tile's elements as stored: a view, not a copy."""
        layout = self.layout
        raw = self.storage.data[self.offset : self.offset + layout.nbytes]
        return raw.view(layout.storage_dtype).reshape(layout.shape)

    def unwritten_bytes(self) -> int:
        written = self.storage.written[self.offset : self.offset + self.layout.nbytes]
        return 0 if written.all() else int(written.size - np.count_nonzero(written))

    def store(self, elements: np.ndarray) -> None:
        """Write elements (of the storage dtype, the tile's shape)."""
        n = self.layout.nbytes
        flat = np.ascontiguousarray(elements, dtype=self.layout.storage_dtype).reshape(-1)
        self.storage.data[self.offset : self.offset + n] = flat.view(np.uint8)
        self.storage.written[self.offset : self.offset + n] = True

    def access(self) -> Access:
        return Access(self.storage.label, self.offset, self.offset + self.layout.nbytes, slot=self.slot)

    def __repr__(self) -> str:
        slot = f" slot {self.slot}" if self.slot is not None else ""
        return f"<tile {self.layout.tile} at {self.storage.label}+{self.offset}{slot}>"


class MultiTileRef:
    """The runtime value of a multi_tile_buf: `count` slots of
    `slot_layout`, slot k at `base + k * stride` of a storage."""

    __slots__ = ("storage", "base", "stride", "count", "slot_layout")

    def __init__(self, storage: Storage, base: int, stride: int, count: int, slot_layout: TileLayout) -> None:
        self.storage = storage
        self.base = base
        self.stride = stride
        self.count = count
        self.slot_layout = slot_layout

    def slot(self, k: int) -> TileRef:
        if not 0 <= k < self.count:
            raise OpFault(f"slot {k} is out of range [0, {self.count})")
        return TileRef(self.storage, self.base + k * self.stride, self.slot_layout, k)

    def __repr__(self) -> str:
        return f"<multi_tile {self.count} x {self.slot_layout.tile} at {self.storage.label}+{self.base}>"


class GlobalBuffer:
    """A memref argument: a numpy array of the element type's storage dtype
    (bf16 as uint16 bit patterns). `written` records whether any op wrote
    it (tools call such buffers outputs)."""

    __slots__ = ("name", "dtype", "array", "written", "row_pitch")

    def __init__(self, name: str, dtype: str, array: np.ndarray) -> None:
        self.name = name
        self.dtype = dtype
        self.array = array
        self.written = False
        self.row_pitch = array.strides[0] if array.ndim else 0

    def block(self, row: int, col: int, rows: int, cols: int) -> np.ndarray:
        """The view `array[row:row+rows, col:col+cols]`, bounds-checked."""
        a = self.array
        if a.ndim != 2:
            raise OpFault(f"memref {self.name} has rank {a.ndim}; tiles move to and from rank-2 memrefs")
        if row < 0 or col < 0 or row + rows > a.shape[0] or col + cols > a.shape[1]:
            raise OpFault(
                f"block [{row}:{row + rows}, {col}:{col + cols}] is out of bounds of "
                f"{self.name} ({a.shape[0]}x{a.shape[1]})"
            )
        return a[row : row + rows, col : col + cols]

    def access(self, row: int, col: int, rows: int, cols: int) -> Access:
        size = self.array.itemsize
        start = row * self.row_pitch + col * size
        return Access(self.name, start, start + cols * size, rows, self.row_pitch)


class Memory:
    """All tile memory of one execution: the spaces of `arch` (created when
    first used) and the private buffers of unaddressed allocations."""

    def __init__(self, arch: str) -> None:
        self.arch = arch
        self.spaces: dict[str, Storage] = {}
        self.private: dict[object, TileRef | MultiTileRef] = {}
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

    def _new_private(self, space: str, nbytes: int) -> Storage:
        self._private_count += 1
        return Storage(f"{space}#{self._private_count}", space, nbytes)

    def tile(self, key: object, tile: TileBufType, addr: int | None) -> TileRef:
        """The buffer of a `pto.alloc_tile` (identified by `key`)."""
        layout = tile_layout(tile)
        if addr is not None:
            self._check_placement(tile.loc, addr, layout.nbytes)
            return TileRef(self.space(tile.loc), addr, layout)
        ref = self.private.get(key)
        if ref is None:
            ref = self.private[key] = TileRef(self._new_private(tile.loc, layout.nbytes), 0, layout)
        return ref

    def multi_tile(self, key: object, mb: MultiTileBufType, addr: int | None) -> MultiTileRef:
        """The region of a `pto.alloc_multi_tile` (identified by `key`)."""
        layout = tile_layout(mb.slot)
        stride = mb.stride(space_spec(self.arch, mb.loc).alignment)
        if addr is not None:
            self._check_placement(mb.loc, addr, stride * mb.count)
            return MultiTileRef(self.space(mb.loc), addr, stride, mb.count, layout)
        ref = self.private.get(key)
        if ref is None:
            storage = self._new_private(mb.loc, stride * mb.count)
            ref = self.private[key] = MultiTileRef(storage, 0, stride, mb.count, layout)
        return ref
