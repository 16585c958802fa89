"""What the data-movement ops of the semantic tier compile to: textract,
load_scalar, store_scalar, tsetval, tgetval, texpands, tfillpad, tci,
tgather, ttrans and tconcat, per the PTO ISA (pto-isa, docs/isa/<OP>.md;
where a page leaves a point open, its CPU simulator, include/pto/cpu/).

Values are logical: a tile's element (r, c) is wherever its type's storage
order puts it (memory.py), and these ops copy elements by their logical
position, so a tile's layout (row/col major, the NZ boxes of a mat tile)
never changes a value moved; only the raw offsets of tsetval/tgetval see
the storage order. Element types are kept bit for bit (a copy never
converts); a scalar operand becomes the element type as `tadds`'s does
(elements.scalar_as). Sources are read inside their valid regions only
(else a runtime error), and a never-written byte read is warned about, as
for every op (`TileOp.read`). A `tmp` operand is scratch, never read:
where the ISA says the target uses it (tci on A2A3; ttrans on both, its
aligned path; tgather by index on A2A3 for 2-byte sources) its valid region
is left holding the poison pattern, as never written (TileRef.poison);
elsewhere it keeps its bytes.

Per op, what the ISA says and what was chosen where it is open:

- `textract`: dst[i, j] = src[indexRow + i, indexCol + j] over dst's valid
  region. Both ISA checks are made: the dst-sized block at (indexRow,
  indexCol) lies in src's shape, and the elements read lie in src's valid
  region (the CPU simulator's check). The mat -> left/right layouts (NZ
  source, the destination's fractal) are the verifier's business, not the
  values'. Equal element types; the variants with `fp`, `preQuantScalar`,
  `accToVecMode` or a `reluPreMode` other than no_relu are not executed yet.
- `load_scalar` / `store_scalar`: value = ptr[offset] / ptr[offset] =
  value, offset in elements, on a `!pto.ptr` argument's buffer (it grows as
  a tensor view's reach does, memory.py); a negative offset is an error;
  value and result types must be the pointer's element type (the ISA).
- `tsetval` / `tgetval` (no ISA page; pto-isa's Tile::SetValue/GetValue,
  which ptoas lowers them to): the element `offset` elements after the
  tile's element (0, 0) in storage, i.e. (offset / cols, offset % cols) of
  a row-major tile, (offset % rows, offset / rows) of a col-major one. The
  offset must lie in the bytes the tile spans; the valid region is not
  consulted (raw addressing, as on the device). The scalar's type must be
  the element type.
- `texpands`: every element of dst's valid region is the scalar; a mat
  tile is filled over its whole shape (the ISA's mat rule).
- `tfillpad`: dst[i, j] = src[i, j] inside src's valid region, else the pad
  value, for every element of dst's shape (the ISA's formula and the CPU
  simulator; A2A3's vector code pads rows only up to dst's valid rows).
  The pad value is the dst type's `pad`: zero 0, max +inf (integers: the
  largest value), min -inf (integers: the smallest); null is an error. A
  mat dst fills zero (pto-isa's mat TFILLPAD takes Zero only), and a
  `padValue` attribute must equal dst's pad (ptoas's rule). src's valid
  region must fit dst's shape (the expand form: dst may be larger); equal
  element types (the ISA asks equal sizes: no conversion is chosen). As in
  pto-isa, nothing is written when dst's valid region is empty.
- `tci`: dst[0, j] = S + j (`descending`: S - j) for j < dst's valid
  columns, wrapping in the element type; dst must have one row (the ISA's
  Rows == 1) and the element type S's; its valid rows are not consulted.
- `tgather`, index form: dst[i, j] = src[k / C, k % C] with k =
  indices[i, j] (C = src's columns: the CPU simulator's row-major
  linearization, the device's offset from the tile's base for the
  row-major tiles it requires), over dst's valid region, whose columns must
  be all of dst's (the ISA: contiguous dst). Out-of-range indices are
  "target-defined": here an error, as is an index of an element outside
  src's valid region. Mask form (`maskPattern`, `axis` "row" default or
  "col"): P0101 keeps indices 0, 2, ... (index % 2 == 0), P1010 the odd
  ones, P0001/P0010/P0100/P1000 index % 4 == 0/1/2/3, P1111 all; "row"
  keeps those columns of each of src's valid rows and packs them, row after
  row, into dst (whose valid columns must be all its columns); "col" keeps
  those rows (dst's valid rows must be their count). A same-size element
  type is a bit copy. The compare form (kValue, cdst, cmpMode) is not
  executed yet: ptoas takes a scalar kValue where the ISA compares each row
  with its own threshold, and leaves what dst holds past each row's count
  open.
- `ttrans`: dst[j, i] = src[i, j] over src's valid region (the ISA: the
  transpose size is src's valid shape); dst's valid region must be the
  transposed one (the ISA's static check); equal element types.
- `tconcat`: dst[i, j] = src0[i, j] for j < vc0, src1[i, j - vc0] for
  vc0 <= j < vc0 + vc1 (vc = the sources' valid columns), for i < dst's
  valid rows, which all three must share. On A5 dst's valid columns must
  be vc0 + vc1; on A2A3 vc0 + vc1 must fit dst's columns (the ISA's two
  rules), the columns written being vc0 + vc1 either way.

Trace: the ops on a pipe record their events as `TileOp` does, with the
bytes of dst they really write when those are not its valid region
(tfillpad, a mat texpands, tci, the mask gather, tconcat on A2A3).
load_scalar, store_scalar, tsetval and tgetval have no pipe in the
catalogue (the scalar unit) and record no event.
"""

from __future__ import annotations

import numpy as np
from mlir import ir

from ..dialect.effects import CATALOGUE
from ..dialect.types import pto_type, tile_type
from .compiler import Compiler, Frame, Instr, guard_at
from .elements import INT_WIDTHS, STORAGE_DTYPES, is_float, scalar_as, to_compute, to_storage
from .errors import InterpreterError, OpFault
from .memory import GlobalBuffer, TileRef
from .op_support import TileOp, buffer_accesses, enum_value, ptoas_name, same_dtype_fault, tile_operand, unexecuted_move_variants
from .registry import impl
from .scalars import float_name
from .trace import TraceEvent


class _MoveOp(TileOp):
    """A `TileOp` whose body may return, after its counts, the accesses
    of the bytes of `dst` it wrote (when they are not dst's valid region)."""

    def __init__(self, c: Compiler, op: ir.Operation) -> None:
        super().__init__(c, op)
        dst = self.layout.index("dst")
        self.other_writes = tuple(self.slots[i] for i in self.layout.writes if i != dst)

    def scratch(self, frame: Frame) -> None:
        """Clobber the `tmp` operand, if the op has one: the target used it."""
        slot = self.slot("tmp")
        if slot is not None:
            tile_operand(frame[slot], "tmp").poison()

    def record(self, frame: Frame, elements: int, macs: int = 0, written: tuple | None = None) -> None:
        if written is None:
            super().record(frame, elements, macs)
            return
        writes = tuple(written) + buffer_accesses(frame, self.other_writes)
        self.interp.trace.append(TraceEvent(self.name, self.pipe, self.where, buffer_accesses(frame, self.reads), writes, elements, macs, self.shape(frame)))


def _at(ref: TileRef, r0: int, c0: int) -> TileRef:
    """The tile seen from its element (r0, c0): the same bytes and strides,
    the valid region what is left of ref's."""
    rs, cs = ref.strides
    valid = (max(0, ref.valid[0] - r0), max(0, ref.valid[1] - c0))
    return TileRef(ref.storage, ref.offset + r0 * rs + c0 * cs, ref.layout, valid, ref.slot, ref.strides)


def _check_inside(ref: TileRef, operand: str, r0: int, c0: int, rows: int, cols: int) -> None:
    vr, vc = ref.valid
    if rows and cols and (r0 + rows > vr or c0 + cols > vc):
        raise OpFault(f"elements [{r0}:{r0 + rows}, {c0}:{c0 + cols}] of operand '{operand}' lie outside its valid region {vr}x{vc}")


def _warn_unwritten_at(t: TileOp, ref: TileRef, operand: str, rows: np.ndarray, cols: np.ndarray) -> None:
    """Warn (as `TileOp.read` does) when elements (rows[k], cols[k]) of a
    tile, all in its valid region, hold bytes never written."""
    if rows.size == 0:
        return
    written = ref._mask(*ref.valid)[rows, cols]
    if not written.all():
        missing = int(written.size - np.count_nonzero(written))
        t.interp.warn_unwritten(t.key, t.location, t.name, operand, ref, missing, written.size)


# --- textract ----------------------------------------------------------------------------


@impl("pto.textract")
def _compile_textract(c: Compiler, op: ir.Operation) -> Instr:
    t = _MoveOp(c, op)
    extras = unexecuted_move_variants(t, op)
    if extras:
        return t.refuse("with " + ", ".join(extras))
    src, row, col, dst = t.slot("src"), t.slot("indexRow"), t.slot("indexCol"), t.slot("dst")

    def body(frame: Frame) -> tuple[int]:
        s, d = tile_operand(frame[src], "src"), tile_operand(frame[dst], "dst")
        if s.layout.dtype != d.layout.dtype:
            raise same_dtype_fault(t.name, s.layout.dtype, d.layout.dtype)
        r0, c0 = frame[row], frame[col]
        (sr, sc), (dr, dc) = s.layout.shape, d.layout.shape
        if r0 < 0 or c0 < 0 or r0 + dr > sr or c0 + dc > sc:
            raise OpFault(f"the {dr}x{dc} block at ({r0}, {c0}) is out of bounds of the source tile ({sr}x{sc})")
        rows, cols = d.valid
        _check_inside(s, "src", r0, c0, rows, cols)
        d.store(t.read(_at(s, r0, c0), "src", rows, cols))
        return (rows * cols,)

    return t.compile(body)


# --- scalars in global memory and in tiles ---------------------------------------------------


def _scalar_kind(op: ir.Operation, t: ir.Type, what: str) -> str:
    """The element type name of a scalar type (i32, f16, ...), or an error."""
    name = float_name(t)
    if name is None and isinstance(t, ir.IntegerType) and f"i{t.width}" in INT_WIDTHS:
        name = f"i{t.width}"
    if name is None or name not in STORAGE_DTYPES:
        raise InterpreterError(op.location, f"'{ptoas_name(op.name)}': {what} of type {t} is not supported by pto-run")
    return name


def _to_scalar(dtype: str, stored: np.ndarray) -> int | float:
    """One stored element as the Python number the frame holds."""
    if is_float(dtype):
        return float(to_compute(dtype, stored.reshape(1))[0])
    return int(stored.reshape(1)[0])


def _from_scalar(dtype: str, value: int | float) -> np.ndarray:
    """A frame's scalar as one stored element (a 1-element array)."""
    return to_storage(dtype, scalar_as(value, dtype).reshape(1))


def _check_type(op: ir.Operation, scalar: str, element: str, what: str) -> None:
    if scalar != element:
        raise InterpreterError(op.location, f"'{ptoas_name(op.name)}': {what} has type {scalar}, not the element type {element}")


def _static_element_type(op: ir.Operation, value: ir.Value) -> str | None:
    view = tile_type(value.type)
    if view is not None:
        return view.dtype
    return getattr(pto_type(value.type), "dtype", None)


def _scalar_type(op: ir.Operation, container: str, scalar: str | None) -> str:
    """The element type of the scalar an op moves in or out of operand
    `container` (a tile or pointer): operand `scalar`'s type, or the
    result's when `scalar` is None; it must be the container's element
    type where that is static."""
    layout = CATALOGUE[op.name].layout(op)
    what = "the result" if scalar is None else "the value"
    ty = op.results[0].type if scalar is None else op.operands[layout.index(scalar)].type
    dtype = _scalar_kind(op, ty, what)
    element = _static_element_type(op, op.operands[layout.index(container)])
    if element is not None:
        _check_type(op, dtype, element, what)
    return dtype


def _pointer(value, operand: str) -> GlobalBuffer:
    if not isinstance(value, GlobalBuffer):
        raise OpFault(f"operand '{operand}' is not a pointer argument of the executed function")
    return value


def _reach(buf: GlobalBuffer, offset: int) -> None:
    if offset < 0:
        raise OpFault(f"offset {offset} is negative")
    try:
        buf.reach(offset + 1)
    except OpFault:
        raise OpFault(f"offset {offset} is outside {buf.name} ({buf.flat.size} elements)") from None


def _operands(op: ir.Operation, c: Compiler, *names: str) -> list[int]:
    layout = CATALOGUE[op.name].layout(op)
    slots = c.uses(op)
    return [slots[layout.index(n)] for n in names]


@impl("pto.load_scalar")
def _compile_load_scalar(c: Compiler, op: ir.Operation) -> Instr:
    ptr, offset = _operands(op, c, "ptr", "offset")
    dtype = _scalar_type(op, "ptr", None)
    result = c.define(op.results[0])

    def run(frame: Frame) -> None:
        buf = _pointer(frame[ptr], "ptr")
        if buf.dtype != dtype:
            raise same_dtype_fault("pto.load_scalar", buf.dtype, dtype)
        k = frame[offset]
        _reach(buf, k)
        frame[result] = _to_scalar(dtype, buf.flat[k : k + 1])

    return guard_at(op.location, ptoas_name(op.name), run)


@impl("pto.store_scalar")
def _compile_store_scalar(c: Compiler, op: ir.Operation) -> Instr:
    ptr, offset, value = _operands(op, c, "ptr", "offset", "value")
    dtype = _scalar_type(op, "ptr", "value")

    def run(frame: Frame) -> None:
        buf = _pointer(frame[ptr], "ptr")
        if buf.dtype != dtype:
            raise same_dtype_fault("pto.store_scalar", dtype, buf.dtype)
        k = frame[offset]
        _reach(buf, k)
        buf.flat[k : k + 1] = _from_scalar(dtype, frame[value])
        buf.written = True

    return guard_at(op.location, ptoas_name(op.name), run)


def _element_byte(ref: TileRef, k: int) -> int:
    """The storage byte of the element `k` elements after the tile's
    element (0, 0), which must lie in the bytes the tile spans."""
    lo, hi = ref.span
    size = ref.layout.itemsize
    count = (hi - lo) // size
    if not 0 <= k < count:
        raise OpFault(f"offset {k} is outside the tile ({count} elements from its element (0, 0))")
    return lo + k * size


@impl("pto.tsetval")
def _compile_tsetval(c: Compiler, op: ir.Operation) -> Instr:
    dst, offset, val = _operands(op, c, "dst", "offset", "val")
    dtype = _scalar_type(op, "dst", "val")

    def run(frame: Frame) -> None:
        d = tile_operand(frame[dst], "dst")
        if d.layout.dtype != dtype:
            raise same_dtype_fault("pto.tsetval", dtype, d.layout.dtype)
        byte = _element_byte(d, frame[offset])
        size = d.layout.itemsize
        d.storage.data[byte : byte + size] = _from_scalar(dtype, frame[val]).view(np.uint8)
        d.storage.written[byte : byte + size] = True

    return guard_at(op.location, ptoas_name(op.name), run)


@impl("pto.tgetval")
def _compile_tgetval(c: Compiler, op: ir.Operation) -> Instr:
    src, offset = _operands(op, c, "src", "offset")
    dtype = _scalar_type(op, "src", None)
    result = c.define(op.results[0])
    interp, key, location, name = c.interp, c.interp.new_key(), op.location, ptoas_name(op.name)

    def run(frame: Frame) -> None:
        s = tile_operand(frame[src], "src")
        if s.layout.dtype != dtype:
            raise same_dtype_fault("pto.tgetval", s.layout.dtype, dtype)
        byte = _element_byte(s, frame[offset])
        size = s.layout.itemsize
        written = s.storage.written[byte : byte + size]
        if not written.all():
            interp.warn_unwritten(key, location, name, "src", s, int(size - np.count_nonzero(written)), size)
        stored = s.storage.data[byte : byte + size].view(s.layout.storage_dtype)
        frame[result] = _to_scalar(dtype, stored)

    return guard_at(location, name, run)


# --- fills -----------------------------------------------------------------------------------


@impl("pto.texpands")
def _compile_texpands(c: Compiler, op: ir.Operation) -> Instr:
    t = _MoveOp(c, op)
    scalar, dst = t.slot("scalar"), t.slot("dst")

    def body(frame: Frame) -> tuple:
        d = tile_operand(frame[dst], "dst")
        dtype = d.layout.dtype
        value = _from_scalar(dtype, frame[scalar])
        whole = d.layout.tile.loc == "mat"
        rows, cols = d.layout.shape if whole else d.valid
        d.store(np.full((rows, cols), value[0], dtype=d.layout.storage_dtype))
        if whole:
            return (rows * cols, 0, d.accesses(rows, cols))
        return (rows * cols,)

    return t.compile(body)


PAD_NAMES = {0: "null", 1: "zero", 2: "max", 3: "min"}
"""A tile type's `pad` field: the pad value it names."""


def pad_value(dtype: str, pad: int) -> np.ndarray:
    """The stored element tfillpad fills with (a 1-element array)."""
    storage = STORAGE_DTYPES[dtype]
    if pad == 1:
        value = 0
    elif is_float(dtype):
        value = np.inf if pad == 2 else -np.inf
    elif dtype == "i1":
        value = pad == 2
    else:
        info = np.iinfo(storage)
        value = info.max if pad == 2 else info.min
    return _from_scalar(dtype, value)


@impl("pto.tfillpad")
def _compile_tfillpad(c: Compiler, op: ir.Operation) -> Instr:
    t = _MoveOp(c, op)
    src, dst = t.slot("src"), t.slot("dst")
    attribute = enum_value(op, "padValue")

    def body(frame: Frame) -> tuple:
        s, d = tile_operand(frame[src], "src"), tile_operand(frame[dst], "dst")
        dtype = d.layout.dtype
        if s.layout.dtype != dtype:
            raise same_dtype_fault(t.name, s.layout.dtype, dtype)
        tile = d.layout.tile
        pad = PAD_NAMES.get(tile.pad, str(tile.pad))
        if attribute is not None and attribute != pad:
            raise OpFault(f"the padValue attribute ({attribute}) differs from the destination's pad ({pad})")
        if pad == "null":
            raise OpFault(f"the destination {tile.ptoas()} has no pad value (pad=0, null): tfillpad fills with it")
        if tile.loc == "mat" and pad != "zero":
            raise OpFault(f"a mat tile is filled with zero only (pto-isa's TFILLPAD for mat tiles), not with {pad}")
        rows, cols = d.layout.shape
        vr, vc = s.valid
        if vr > rows or vc > cols:
            raise OpFault(f"the source's valid region {vr}x{vc} does not fit the destination ({rows}x{cols})")
        if 0 in d.valid:  # as pto-isa: an empty destination is left alone
            return (0, 0, ())
        values = np.full((rows, cols), pad_value(dtype, tile.pad)[0], dtype=d.layout.storage_dtype)
        values[:vr, :vc] = t.read(s, "src", vr, vc)
        d.store(values)
        return (rows * cols, 0, d.accesses(rows, cols))

    return t.compile(body)


@impl("pto.tci")
def _compile_tci(c: Compiler, op: ir.Operation) -> Instr:
    t = _MoveOp(c, op)
    start, dst = t.slot("S"), t.slot("dst")
    s_type = str(op.operands[t.layout.index("S")].type)
    attr = op.attributes["descending"] if "descending" in op.attributes else None
    descending = bool(ir.BoolAttr(attr).value) if attr is not None else False
    step = -1 if descending else 1
    uses_tmp = c.interp.arch != "a5"  # A5 ignores tmp

    def body(frame: Frame) -> tuple:
        d = tile_operand(frame[dst], "dst")
        dtype = d.layout.dtype
        if dtype != s_type:
            raise same_dtype_fault(t.name, s_type, dtype)
        rows = d.layout.shape[0]
        if rows != 1:
            raise OpFault(f"the destination has {rows} rows; tci fills a 1-row tile")
        n = d.valid[1]
        sequence = frame[start] + step * np.arange(n, dtype=np.int64)
        if uses_tmp:
            t.scratch(frame)
        d.store(sequence.astype(d.layout.storage_dtype).reshape(1, n))  # wraps in the element type
        return (n, 0, d.accesses(1, n))

    return t.compile(body)


# --- gather, transpose, concatenate ------------------------------------------------------------

MASK_PATTERNS = {
    "P0101": (2, 0),
    "P1010": (2, 1),
    "P0001": (4, 0),
    "P0010": (4, 1),
    "P0100": (4, 2),
    "P1000": (4, 3),
    "P1111": (1, 0),
}
"""Mask pattern -> (period, index kept): index i is kept when i % period == kept."""


@impl("pto.tgather")
def _compile_tgather(c: Compiler, op: ir.Operation) -> Instr:
    t = _MoveOp(c, op)
    compare = t.present("cdst", "kValue")
    if compare or "cmpMode" in op.attributes:
        return t.refuse("in its compare form (" + ", ".join(compare or ["cmpMode"]) + ")")
    if t.present("indices"):
        return _gather_by_index(t)
    pattern = enum_value(op, "maskPattern")
    if pattern is None:
        return t.refuse("without indices or maskPattern")
    if pattern not in MASK_PATTERNS:
        return t.refuse(f"with maskPattern {pattern}")
    axis = ir.StringAttr(op.attributes["axis"]).value if "axis" in op.attributes else "row"
    if axis not in ("row", "col"):
        return t.refuse(f'along axis "{axis}"')
    return _gather_by_mask(t, MASK_PATTERNS[pattern], axis)


def _gather_by_index(t: _MoveOp) -> Instr:
    src, indices, dst = t.slot("src"), t.slot("indices"), t.slot("dst")
    uses_tmp = t.interp.arch != "a5"  # A2A3: the scaled indices of 2-byte sources

    def body(frame: Frame) -> tuple[int]:
        s, ix, d = tile_operand(frame[src], "src"), tile_operand(frame[indices], "indices"), tile_operand(frame[dst], "dst")
        if s.layout.dtype != d.layout.dtype:
            raise same_dtype_fault(t.name, s.layout.dtype, d.layout.dtype)
        if ix.layout.dtype not in ("i16", "i32"):
            raise OpFault(f"the indices are {ix.layout.dtype}; tgather takes i16 or i32 indices")
        rows, cols = d.valid
        if cols != d.layout.shape[1]:
            raise OpFault(f"the destination's valid columns ({cols}) are not all its {d.layout.shape[1]} columns (tgather writes it contiguously)")
        if rows == 0 or cols == 0:
            return (0,)
        k = t.read(ix, "indices", rows, cols).astype(np.int64)
        sr, sc = s.layout.shape
        bad = (k < 0) | (k >= sr * sc)
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise OpFault(f"index {k[i, j]} at ({i}, {j}) is out of range [0, {sr * sc}) for the source ({sr}x{sc})")
        r, cc = k // sc, k % sc
        vr, vc = s.valid
        outside = (r >= vr) | (cc >= vc)
        if outside.any():
            i, j = np.argwhere(outside)[0]
            raise OpFault(f"index {k[i, j]} at ({i}, {j}) reads element ({r[i, j]}, {cc[i, j]}) of operand 'src', outside its valid region {vr}x{vc}")
        _warn_unwritten_at(t, s, "src", r, cc)
        values = np.array(s.region())[r, cc]
        if uses_tmp and s.layout.itemsize == 2:
            t.scratch(frame)
        d.store(values)
        return (rows * cols,)

    return t.compile(body)


def _gather_by_mask(t: _MoveOp, pattern: tuple[int, int], axis: str) -> Instr:
    src, dst = t.slot("src"), t.slot("dst")
    period, kept = pattern

    def body(frame: Frame) -> tuple:
        s, d = tile_operand(frame[src], "src"), tile_operand(frame[dst], "dst")
        if s.layout.itemsize != d.layout.itemsize:
            raise OpFault(f"element types {s.layout.dtype} and {d.layout.dtype} differ in size; the mask form of tgather copies bits")
        vr, vc = s.valid
        values = t.read(s, "src", vr, vc)
        rows, cols = d.layout.shape
        if axis == "col":
            chosen = values[np.arange(vr) % period == kept]
            n = chosen.shape[0]
            if d.valid[0] != n:
                raise OpFault(f"the destination's valid rows ({d.valid[0]}) are not the {n} rows the mask keeps")
            if vc > cols:
                raise OpFault(f"the source's {vc} valid columns do not fit the destination's {cols}")
            d.store(np.ascontiguousarray(chosen).view(d.layout.storage_dtype))
            return (n * vc, 0, d.accesses(n, vc))
        if d.valid[1] != cols:
            raise OpFault(f"the destination's valid columns ({d.valid[1]}) are not all its {cols} columns (tgather writes it contiguously)")
        flat = np.ascontiguousarray(values[:, np.arange(vc) % period == kept]).reshape(-1).view(d.layout.storage_dtype)
        n = flat.size
        if n > rows * cols:
            raise OpFault(f"the {n} elements the mask keeps do not fit the destination ({rows}x{cols})")
        full, rest = divmod(n, cols)
        d.store(flat[: full * cols].reshape(full, cols))
        written = d.accesses(full, cols)
        if rest:
            tail = _at(d, full, 0)
            tail.store(flat[full * cols :].reshape(1, rest))
            written += tail.accesses(1, rest)
        return (n, 0, written)

    return t.compile(body)


@impl("pto.ttrans")
def _compile_ttrans(c: Compiler, op: ir.Operation) -> Instr:
    t = _MoveOp(c, op)
    src, dst = t.slot("src"), t.slot("dst")

    def body(frame: Frame) -> tuple[int]:
        s, d = tile_operand(frame[src], "src"), tile_operand(frame[dst], "dst")
        if s.layout.dtype != d.layout.dtype:
            raise same_dtype_fault(t.name, s.layout.dtype, d.layout.dtype)
        vr, vc = s.valid
        if d.valid != (vc, vr):
            raise OpFault(f"the destination's valid region {d.valid[0]}x{d.valid[1]} is not {vc}x{vr}, the transposed source's ({vr}x{vc})")
        values = t.read(s, "src", vr, vc)
        t.scratch(frame)  # after the reads, before the write: dst keeps the result
        d.store(values.T)
        return (vr * vc,)

    return t.compile(body)


@impl("pto.tconcat")
def _compile_tconcat(c: Compiler, op: ir.Operation) -> Instr:
    t = _MoveOp(c, op)
    src0, src1, dst = t.slot("src0"), t.slot("src1"), t.slot("dst")
    exact = c.interp.arch == "a5"

    def body(frame: Frame) -> tuple:
        a, b, d = tile_operand(frame[src0], "src0"), tile_operand(frame[src1], "src1"), tile_operand(frame[dst], "dst")
        dtype = d.layout.dtype
        for ref in (a, b):
            if ref.layout.dtype != dtype:
                raise same_dtype_fault(t.name, ref.layout.dtype, dtype)
        rows = d.valid[0]
        if a.valid[0] != rows or b.valid[0] != rows:
            raise OpFault(f"the valid rows of src0 ({a.valid[0]}), src1 ({b.valid[0]}) and dst ({rows}) differ")
        c0, c1 = a.valid[1], b.valid[1]
        if exact and d.valid[1] != c0 + c1:
            raise OpFault(f"the destination's valid columns ({d.valid[1]}) are not {c0} + {c1} (on {c.interp.arch})")
        if c0 + c1 > d.layout.shape[1]:
            raise OpFault(f"{c0} + {c1} columns do not fit the destination's {d.layout.shape[1]}")
        d.store(np.concatenate([t.read(a, "src0", rows, c0), t.read(b, "src1", rows, c1)], axis=1))
        if d.valid[1] == c0 + c1:
            return (rows * (c0 + c1),)
        return (rows * (c0 + c1), 0, d.accesses(rows, c0 + c1))

    return t.compile(body)


