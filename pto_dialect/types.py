"""Typed views of the two pto types (docs/dialect.md, "Types").

IRDL types are dynamic: the Python bindings expose them as plain `ir.Type`
with no parameter accessors, so we read them from their printed form and build
them by parsing. Both directions are cached by the printed text, which is what
uniquely identifies a type inside every Context.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass
from functools import cached_property, lru_cache

from mlir import ir

SPACES = ("vec", "mat", "left", "right", "acc", "bias")
DTYPE_BYTES = {"i8": 1, "i16": 2, "i32": 4, "f16": 2, "bf16": 2, "f32": 4}


@dataclass(frozen=True)
class TileBufType:
    """`!pto.tile_buf<LOC, array<i64: R, C>, DTYPE>`.

    `shape_element` is the element type of the shape array as written (`i64`
    in valid IR); `shape` may have any rank here: the verifier rejects what is
    not rank 2 and positive.
    """

    loc: str
    shape: tuple[int, ...]
    dtype: str
    shape_element: str = "i64"

    # Views are shared per type (see buffer_type) and asked for their sizes
    # again and again: computed once.
    @cached_property
    def num_elements(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @cached_property
    def nbytes(self) -> int:
        return self.num_elements * DTYPE_BYTES.get(self.dtype, 0)

    def __str__(self) -> str:
        dims = ", ".join(str(d) for d in self.shape)
        shape = f"array<{self.shape_element}: {dims}>" if dims else f"array<{self.shape_element}>"
        return f'!pto.tile_buf<"{self.loc}", {shape}, {self.dtype}>'

    def to_ir(self, context: ir.Context | None = None) -> ir.Type:
        return ir.Type.parse(str(self), context)


@dataclass(frozen=True)
class MultiTileBufType:
    """`!pto.multi_tile_buf<SLOT, N : i64>`: N buffers of the slot type."""

    slot: TileBufType
    count: int

    @property
    def loc(self) -> str:
        return self.slot.loc

    def stride(self, alignment: int) -> int:
        """Bytes from one slot's base to the next: slot bytes aligned up."""
        return align_up(self.slot.nbytes, alignment)

    def region_bytes(self, alignment: int) -> int:
        return self.count * self.stride(alignment)

    def __str__(self) -> str:
        return f"!pto.multi_tile_buf<{self.slot}, {self.count} : i64>"

    def to_ir(self, context: ir.Context | None = None) -> ir.Type:
        return ir.Type.parse(str(self), context)


def align_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


_TILE_RE = re.compile(r'!pto\.tile_buf<"([^"]*)", array<(\w+)(?::\s*([-\d,\s]*))?>, (\w+)>')
_MULTI_RE = re.compile(r"!pto\.multi_tile_buf<(.*), (-?\d+) : i64>")


@lru_cache(maxsize=4096)
def _parse_tile(text: str) -> TileBufType | None:
    m = _TILE_RE.fullmatch(text)
    if not m:
        return None
    loc, element, dims, dtype = m.groups()
    shape = tuple(int(d) for d in dims.split(",")) if dims and dims.strip() else ()
    return TileBufType(loc, shape, dtype, element)


@lru_cache(maxsize=4096)
def _parse_multi(text: str) -> MultiTileBufType | None:
    m = _MULTI_RE.fullmatch(text)
    if not m:
        return None
    slot = _parse_tile(m.group(1))
    return MultiTileBufType(slot, int(m.group(2))) if slot else None


# Printing a type costs ~17 us through the bindings, a dict lookup ~1 us, and
# passes ask about the same few types thousands of times. Types are uniqued
# per Context and live as long as it, so each Context gets its own cache,
# keyed by the type's hash (its storage address, unique in its Context): a
# key or value holding the `ir.Type` itself would hold the Context too and
# keep it alive for ever.
_VIEWS: weakref.WeakKeyDictionary[ir.Context, dict[int, TileBufType | MultiTileBufType | None]] = weakref.WeakKeyDictionary()


def buffer_type(t: ir.Type) -> TileBufType | MultiTileBufType | None:
    """The typed view of a pto buffer type, or None for any other type."""
    context = t.context
    views = _VIEWS.get(context)
    if views is None:
        views = _VIEWS[context] = {}
    key = hash(t)
    try:
        return views[key]
    except KeyError:
        pass
    text = str(t)
    if text.startswith("!pto.tile_buf<"):
        view = _parse_tile(text)
    elif text.startswith("!pto.multi_tile_buf<"):
        view = _parse_multi(text)
    else:
        view = None
    views[key] = view
    return view


def tile_type(t: ir.Type) -> TileBufType | None:
    """The tile_buf view of `t`, or None when `t` is not a `!pto.tile_buf`."""
    view = buffer_type(t)
    return view if isinstance(view, TileBufType) else None


def multi_tile_type(t: ir.Type) -> MultiTileBufType | None:
    """The multi_tile_buf view of `t`, or None when it is not one."""
    view = buffer_type(t)
    return view if isinstance(view, MultiTileBufType) else None


class TypeBuilder:
    """The `ir.Type`s of views, each parsed once: for one pass run, which
    builds the same few types for thousands of ops (it lives as long as the
    run, so the Context it holds is freed with it)."""

    def __init__(self, context: ir.Context | None = None) -> None:
        self.context = context or ir.Context.current
        self._built: dict[TileBufType | MultiTileBufType, ir.Type] = {}

    def get(self, view: TileBufType | MultiTileBufType) -> ir.Type:
        t = self._built.get(view)
        if t is None:
            t = self._built[view] = view.to_ir(self.context)
        return t
