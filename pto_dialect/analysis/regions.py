"""What an op reads and writes of a tile, as regions (docs/dialect.md, "What an
op reads and writes").

An op does not read or write a whole tile: an element-wise op writes dst's
valid region and reads its sources over that domain, a `tload` into a tile
with `valid=8x64` writes 8 rows of its 16, a column reduction writes row 0, a
matmul writes the left operand's valid rows by the right one's valid columns.
The op table says which (`OpDef.write_region`, `OpDef.read_domain`); this
module turns those rules into *rects*: elements [0, rows) x [0, cols) of a
tile value, whose extents are integers, SSA values (a `valid_row` operand:
one number per execution) or unknown.

The analyses ask one question of them: is every element an op reads among the
elements written before? So the rules err one way each. A read rect may be
larger than what the op reads (unknown extents read the whole shape), a write
rect smaller than what it writes (a write with an unknown extent covers
nothing), and `covered` answers yes only when it can show it:

- the same view geometry (the same bytes for every element, `Geometry.key`)
  and extents no larger (equal SSA values, integers, or a written extent
  that is the whole dimension); or
- byte by byte, when the geometries are plain row- or column-major strides
  at known offsets and the extents integers (a `treshape` to another shape,
  two `subview` halves).

A `subview`, `treshape` or `multi_tile_get` result is a view: its rects map
into its root buffer's bytes through its `Geometry`. Boxed layouts (`slayout`
row_major/col_major, the fractal formats) place elements in boxes, so their
rects compare only within one geometry (or as the whole tile).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from mlir import ir

from ..dialect.allocs import AllocOperands, alloc_operands
from ..dialect.effects import CATALOGUE
from ..dialect.types import DYNAMIC, ROW_PLUS_ONE, MultiTileBufType, TileBufType, buffer_type, tile_type
from ..support.ir_utils import ConstantInts
from .buffers import forward_aliases

Extent = int | ir.Value | None
"""A number of rows or columns: known, one SSA value's number, or unknown."""

Extents = tuple[Extent, Extent]


@dataclass(frozen=True)
class Geometry:
    """Where a tile value's elements lie in its root buffer's bytes.

    Two values of equal `key` place every element at the same bytes. With
    `strides`, element (r, c) is at byte `offset + r * rs + c * cs` of the
    root (plain layouts at a known offset); without, the mapping is only
    known as a whole (`offset == 0` and the root's own shape: every byte)."""

    key: tuple
    shape: tuple[int, int]
    esize: int
    offset: int | None = None
    strides: tuple[int, int] | None = None
    whole_root: bool = False  # the root's own elements (its whole shape is every byte)

    def bytes_of(self, rows: Extent, cols: Extent) -> list[tuple[int, int]] | None:
        """The byte intervals of elements [0, rows) x [0, cols), merged and
        sorted, or None when they are not known."""
        if not isinstance(rows, int) or not isinstance(cols, int):
            return None
        if rows <= 0 or cols <= 0:
            return []
        if self.strides is None or self.offset is None:
            return None
        rs, cs = self.strides
        size = self.esize
        if cs == size:  # each row contiguous
            return _merge([(self.offset + r * rs, self.offset + r * rs + cols * size) for r in range(rows)])
        if rs == size:  # each column contiguous
            return _merge([(self.offset + c * cs, self.offset + c * cs + rows * size) for c in range(cols)])
        if rows * cols > _MAX_ELEMENT_INTERVALS:
            return None
        return _merge([(self.offset + r * rs + c * cs, self.offset + r * rs + c * cs + size) for r in range(rows) for c in range(cols)])


_MAX_ELEMENT_INTERVALS = 1 << 16


def _merge(intervals: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for lo, hi in sorted(intervals):
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return [(lo, hi) for lo, hi in out]


def _contains(outer: list[tuple[int, int]], inner: list[tuple[int, int]]) -> bool:
    """Whether the merged intervals `outer` hold every byte of `inner`."""
    i = 0
    for lo, hi in inner:
        while i < len(outer) and outer[i][1] <= lo:
            i += 1
        if i == len(outer) or outer[i][0] > lo or outer[i][1] < hi:
            return False
    return True


def plain_strides(tile: TileBufType) -> tuple[int, int] | None:
    """The byte strides of a tile's rows and columns when its elements are
    laid out plainly (row- or column-major, `none_box`), else None (boxed)."""
    if tile.slayout != "none_box":
        return None
    size = tile.element_bytes
    pad = 1 if tile.compact == ROW_PLUS_ONE else 0
    if tile.blayout == "col_major":
        return (size, (tile.rows + pad) * size)
    return ((tile.cols + pad) * size, size)


def layout_key(tile: TileBufType) -> tuple:
    """What decides where a tile type puts each element (not its valid shape
    or space)."""
    return (tile.rows, tile.cols, tile.element_bytes, tile.blayout, tile.slayout, tile.fractal, tile.compact)


@lru_cache(maxsize=1024)
def root_geometry(tile: TileBufType) -> Geometry:
    """A tile's own geometry; made once per tile type (the analyses ask it
    of every buffer, and a kernel has a few tile types)."""
    return Geometry(("root",), tile.shape, tile.element_bytes, 0, plain_strides(tile), whole_root=True)


@dataclass(frozen=True)
class Rect:
    """Elements [0, rows) x [0, cols) of a value seen through `geometry`."""

    geometry: Geometry
    rows: Extent
    cols: Extent


def _at_most(a: Extent, b: Extent, dim: int) -> bool:
    """Whether extent a <= extent b for sure, both of a dimension of size `dim`
    (every extent is within [0, dim]: pto-run and the hardware check it)."""
    if isinstance(b, int) and b >= dim:
        return True
    if isinstance(a, int):
        return a <= 0 or (isinstance(b, int) and a <= b)
    return a is not None and b is not None and a == b


def covered(read: Rect, written: tuple[Rect, ...], root_bytes: int) -> bool:
    """Whether every element `read` names lies in the union of `written`
    (rects of the same root buffer, `root_bytes` large)."""
    g = read.geometry
    rows, cols = read.rows, read.cols
    if (isinstance(rows, int) and rows <= 0) or (isinstance(cols, int) and cols <= 0):
        return True
    for w in written:
        if w.geometry.key == g.key and _at_most(rows, w.rows, g.shape[0]) and _at_most(cols, w.cols, g.shape[1]):
            return True
    wanted = g.bytes_of(rows, cols)
    if wanted is None:
        wanted = [(0, root_bytes)]  # unknown: as if it read every byte
    have: list[tuple[int, int]] = []
    for w in written:
        wg = w.geometry
        got = wg.bytes_of(w.rows, w.cols)
        if got is None and wg.whole_root and _at_most(wg.shape[0], w.rows, wg.shape[0]) and _at_most(wg.shape[1], w.cols, wg.shape[1]):
            got = [(0, root_bytes)]
        if got:
            have.extend(got)
    return bool(have) and _contains(_merge(have), wanted)


def clamp(extents: Extents, shape: tuple[int, int]) -> Extents:
    """Extents of another tile applied to one of `shape`: integers are cut to
    it (an op reads within a tile's shape; pto-run checks that)."""
    return tuple(min(e, d) if isinstance(e, int) else e for e, d in zip(extents, shape))


def fill_unknown(extents: Extents, shape: tuple[int, int]) -> Extents:
    """Unknown extents of a read as the whole dimension (a read may be larger)."""
    return tuple(d if e is None else e for e, d in zip(extents, shape))


@dataclass(frozen=True)
class OpRegions:
    """What one op reads and writes of its tile operands, each
    (operand position, rows, cols) in that operand's own coordinates."""

    reads: tuple[tuple[int, Extent, Extent], ...]
    writes: tuple[tuple[int, Extent, Extent], ...]


_NO_REGIONS = OpRegions((), ())


class ValidExtents:
    """The valid extents of tile values, from their definitions (one per
    run: it memoises per value, for IR whose valid shapes it does not change).

    A value `pto.set_validshape` resizes (through any alias) has no extents
    here: its valid shape depends on the program point (the loop-carried walk
    follows those itself)."""

    def __init__(self, constants: ConstantInts | None = None) -> None:
        self.constants = constants or ConstantInts()
        self._known: dict[ir.Value, Extents | None] = {}
        self._allocs: dict[ir.Operation, AllocOperands] = {}

    def alloc_operands(self, alloc: ir.Operation, operands: tuple[ir.Value, ...] | None = None) -> AllocOperands:
        """`alloc_operands(alloc, operands)`, read once per alloc (its
        valid-shape operands size its extents; the conversion reads them
        first)."""
        known = self._allocs.get(alloc)
        if known is None:
            known = self._allocs[alloc] = alloc_operands(alloc, operands)
        return known

    def operand(self, value: ir.Value | None) -> Extent:
        if value is None:
            return None
        known = self.constants(value)
        return value if known is None else known

    def forget(self, alloc: ir.Operation, value: ir.Value) -> None:
        """Drop what is known of `alloc` and its result `value`: the caller
        is about to erase it (a new op or value may come to the same
        address, which the memos would take for it)."""
        self._allocs.pop(alloc, None)
        self._known.pop(value, None)

    def __call__(self, value: ir.Value) -> Extents | None:
        try:
            return self._known[value]
        except KeyError:
            pass
        result = self._known[value] = self._extents(value)
        return result

    def not_resized(self, value: ir.Value, tile: TileBufType) -> None:
        """Note that no set_validshape reaches `value` (its caller has seen
        every use): its extents are its definition's."""
        if value not in self._known:
            self._known[value] = self.defined(value, tile, self)

    def _extents(self, value: ir.Value) -> Extents | None:
        tile = tile_type(value.type)
        if tile is None:
            return None
        if resized(value):
            return (None, None)
        return self.defined(value, tile, self)

    def defined(self, value: ir.Value, tile: TileBufType, source_extents) -> Extents:
        """The extents `value`'s definition gives it, its source's (a view's)
        taken from `source_extents`."""
        rows, cols = tile.valid
        static = (None if rows == DYNAMIC else rows, None if cols == DYNAMIC else cols)
        if static[0] is not None and static[1] is not None:
            return static
        if isinstance(value, ir.BlockArgument):
            return static
        owner = value.owner
        name = owner.name
        if name in ("pto.alloc_tile", "pto.multi_tile_get"):
            alloc = owner if name == "pto.alloc_tile" else _defining(owner.operands[0], "pto.alloc_multi_tile")
            if alloc is None:
                return static
            ops = self.alloc_operands(alloc)
            return (
                static[0] if static[0] is not None else self.operand(ops.valid_row),
                static[1] if static[1] is not None else self.operand(ops.valid_col),
            )
        if name == "pto.subview":
            layout = CATALOGUE[name].layout(owner)
            given = (layout.index("valid_row"), layout.index("valid_col"))
            out = list(static)
            source = owner.operands[layout.index("source")]
            offsets = [self.constants(owner.operands[i]) for i in layout.span("offsets")]
            src = source_extents(source) if any(out[i] is None and given[i] is None for i in range(2)) else None
            for i in range(2):
                if out[i] is not None:
                    continue
                if given[i] is not None:
                    out[i] = self.operand(owner.operands[given[i]])
                elif src is not None and isinstance(src[i], int) and len(offsets) == 2 and offsets[i] is not None:
                    out[i] = max(0, min(tile.shape[i], src[i] - offsets[i]))  # pto-run's rule (interpreter/pto_ops.py)
            return tuple(out)
        if name == "pto.treshape":
            source = owner.operands[0]
            src_tile = tile_type(source.type)
            if src_tile is not None and src_tile.shape == tile.shape:
                src = source_extents(source)
                return tuple(s if s is not None else e for s, e in zip(static, src or (None, None)))
            return tuple(s if s is not None else d for s, d in zip(static, tile.shape))
        return static


def _defining(value: ir.Value, name: str) -> ir.Operation | None:
    if isinstance(value, ir.BlockArgument):
        return None
    return value.owner if value.owner.name == name else None


_FLOW_USERS = frozenset({"scf.yield", "scf.for"})


def resized(value: ir.Value) -> bool:
    """Whether a `pto.set_validshape` may change the valid shape `value` has
    (it changes a tile object in place: the value, or any value it flows to
    through loops and branches, that names the same object)."""
    flows = False
    for use in value.uses:
        name = use.owner.name
        if name == "pto.set_validshape" and use.operand_number == 0:
            return True
        flows = flows or name in _FLOW_USERS
    if not flows and (isinstance(value, ir.BlockArgument) or value.owner.name not in ("scf.for", "scf.if")):
        return False
    for alias in forward_aliases(value):
        for use in alias.uses:
            if use.owner.name == "pto.set_validshape" and use.operand_number == 0:
                return True
    return False


def op_regions(op: ir.Operation, extents, only: frozenset[int] | None = None, layout=None, operands=None) -> OpRegions:
    """What `op` (of the catalogue) reads and writes of its tile operands,
    with `extents(value)` giving a tile value's valid extents (None for a
    value that is not a tile); `only`: of these operand positions alone.
    Reads are over-approximated, writes under-approximated (module
    docstring). `layout` and `operands` may give op's, read before."""
    spec = CATALOGUE.get(op.name)
    if spec is None:
        return _NO_REGIONS
    if layout is None:
        layout = spec.layout(op)
    if not layout.reads and not layout.writes:
        return _NO_REGIONS
    definition = spec.definition
    if operands is None:
        operands = op.operands
    index = layout.index

    def ext(name: str) -> Extents | None:
        i = index(name)
        return None if i is None else extents(operands[i])

    reads = []
    domain_rule = definition.read_domain
    dst = ext("dst") if domain_rule == "dst" and (only is None or any(i in only for i in layout.reads)) else None
    for i in layout.reads:
        if only is not None and i not in only:
            continue
        value = operands[i]
        tile = tile_type(value.type)
        if tile is None:
            continue
        shape = tile.shape
        if domain_rule == "whole":
            reads.append((i, shape[0], shape[1]))
            continue
        own = fill_unknown(extents(value), shape)
        reads.append((i, *own))
        extra = None
        if domain_rule == "dst" and dst is not None:
            extra = dst
        elif domain_rule == "matmul":
            lhs, rhs = ext("lhs"), ext("rhs")
            if lhs is not None and rhs is not None:
                if i == index("rhs"):
                    extra = (lhs[1], rhs[1])
                elif i == index("acc_in"):
                    extra = (lhs[0], rhs[1])
        if extra is not None:
            extra = fill_unknown(clamp(extra, shape), shape)
            if extra != own:
                reads.append((i, *extra))

    writes = []
    rule = definition.write_region
    for i in layout.writes:
        if i == layout.scratch or (only is not None and i not in only):
            continue  # scratch: left as never written (pto-run poisons it)
        value = operands[i]
        if tile_type(value.type) is None:
            continue
        rect = _written(rule, i, layout, operands, extents, ext)
        if rect is not None and rect[0] is not None and rect[1] is not None:
            writes.append((i, *rect))
    return OpRegions(tuple(reads), tuple(writes))


def _written(rule: str, i: int, layout, operands, extents, ext) -> Extents | None:
    own = extents(operands[i])
    if rule == "valid":
        return own
    if rule == "gather":
        return own if layout.index("indices") is not None else None
    if rule == "matmul":
        lhs, rhs = ext("lhs"), ext("rhs")
        return None if lhs is None or rhs is None else (lhs[0], rhs[1])
    if rule == "row0":
        return None if own is None else (1, own[1])
    if rule == "concat":
        a, b = ext("src0"), ext("src1")
        if own is None or a is None or b is None or not isinstance(a[1], int) or not isinstance(b[1], int):
            return None
        return (own[0], a[1] + b[1])
    return None  # "some"


# Ops whose writes reach past the region their rule names: texpands fills a
# mat tile whole, tfillpad its whole shape, tci row 0 whatever its valid rows
# (interpreter/movement_ops.py).
_WRITE_PAST_RULE = frozenset({"pto.texpands", "pto.tfillpad", "pto.tci"})


def may_write(op: ir.Operation, extents) -> tuple[tuple[int, Extent, Extent], ...]:
    """What `op` may write of each tile operand, (position, rows, cols), as
    much as or more than it writes: its rule's region where that is exact,
    else the operand's whole shape (scratch `tmp` operands included)."""
    spec = CATALOGUE.get(op.name)
    if spec is None:
        return ()
    layout = spec.layout(op)
    operands = op.operands
    exact = dict(((i, (r, c)) for i, r, c in op_regions(op, extents).writes)) if op.name not in _WRITE_PAST_RULE else {}
    rule = spec.definition.write_region
    out = []
    for i in layout.writes:
        tile = tile_type(operands[i].type)
        if tile is None:
            continue
        rect = exact.get(i) if i != layout.scratch and rule in ("valid", "matmul", "row0", "concat") else None
        out.append((i, *(rect if rect is not None else tile.shape)))
    return tuple(out)


def invariant_in(key, loop: ir.Operation) -> bool:
    """Whether every SSA value in `key` (an extent, or a geometry key: nested
    tuples) is defined outside `loop`: the same number in every iteration."""
    from ..support.ir_utils import defined_inside

    work = [key]
    while work:
        item = work.pop()
        if isinstance(item, tuple):
            work.extend(item)
        elif isinstance(item, ir.Value) and defined_inside(item, loop):
            return False
    return True


def view_geometry(view_op: ir.Operation, source: Geometry, constants: ConstantInts) -> Geometry | None:
    """The geometry of a view op's result, from its source's (None: not a
    tile view)."""
    result = view_op.results[0]
    tile = tile_type(result.type)
    if tile is None:
        return None
    name = view_op.name
    size = tile.element_bytes
    if name == "pto.subview":
        layout = CATALOGUE[name].layout(view_op)
        offsets = tuple(_key_of(view_op.operands[i], constants) for i in layout.span("offsets"))
        key = (source.key, "subview", offsets, tile.shape)
        offset = None
        if source.strides is not None and source.offset is not None and all(isinstance(o, int) for o in offsets) and len(offsets) == 2:
            offset = source.offset + offsets[0] * source.strides[0] + offsets[1] * source.strides[1]
        return Geometry(key, tile.shape, size, offset, source.strides if offset is not None else None)
    if name == "pto.treshape":
        strides = plain_strides(tile)
        same = source.strides is not None and strides == source.strides and tile.shape == source.shape and size == source.esize
        if same:  # the same elements at the same bytes
            return Geometry(source.key, tile.shape, size, source.offset, strides, source.whole_root)
        key = (source.key, "treshape", layout_key(tile))
        return Geometry(key, tile.shape, size, source.offset, strides if source.offset is not None else None)
    if name == "pto.multi_tile_get":
        slot = _key_of(view_op.operands[1], constants)
        return Geometry((source.key, "slot", slot), tile.shape, size)
    return None


def _key_of(value: ir.Value, constants: ConstantInts):
    known = constants(value)
    return value if known is None else known


def buffer_root_geometry(value: ir.Value) -> Geometry | None:
    """The geometry of a buffer's own value: a tile's root geometry; a
    multi-tile region's (its slots are views)."""
    view = buffer_type(value.type)
    if isinstance(view, TileBufType):
        return root_geometry(view)
    if isinstance(view, MultiTileBufType):
        return Geometry(("region",), view.slot.shape, view.slot.element_bytes)
    return None


def root_bytes(value: ir.Value) -> int:
    view = buffer_type(value.type)
    if isinstance(view, TileBufType):
        return view.nbytes
    if isinstance(view, MultiTileBufType):
        return view.count * view.slot.dense_bytes
    return 0


__all__ = [
    "Extent",
    "Extents",
    "Geometry",
    "OpRegions",
    "Rect",
    "ValidExtents",
    "buffer_root_geometry",
    "clamp",
    "covered",
    "invariant_in",
    "may_write",
    "op_regions",
    "plain_strides",
    "resized",
    "root_bytes",
    "root_geometry",
    "view_geometry",
]
