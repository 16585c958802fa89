"""What the pto ops compile to: allocation, views (of tiles and of global
memory), tile loads and stores, and the compute ops, all reading and
writing the memory model (memory.py) and computing with tile_ops.py.

Which operand is where (optional operands move the others), which an op
reads and writes and its pipe all come from the op catalogue, per op
instance (`CATALOGUE[name].layout(op)`), so the trace a timing model reads
and the passes agree on what every op touches. Every data-moving op is one
`TileOp` skeleton: read its inputs (warning once per op and operand about
bytes never written), check their element types and shapes, compute, store
the result, and record a trace event when the run keeps a trace (decided
once, at compile time).

Valid shapes (docs/dialect.md, "Buffer semantics"): a tile's runtime value
carries its valid region. Element-wise ops compute on the destination's
valid region (the PTO ISA's iteration domain), reading the same elements of
their sources, which must lie in the sources' valid regions (else a runtime
error: the result would depend on bytes outside them); `tload`/`tstore`
move a partition whose elements (as a matrix: rows = all dimensions but the
last, cols = the last) are exactly the tile's valid region; a matmul
computes M x N (M, K = the left tile's valid region, N = the right tile's
valid columns; the right tile's valid rows and `acc_in`'s valid region must
cover K x N and M x N). Bytes outside the region written keep what they
held.

A pto op with no semantics here (the syntax tier, and the semantic-tier ops
not executed yet) compiles to a runtime error at the op naming it: the run
stops when it reaches one.
"""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir

from ..dialect.allocs import alloc_operands
from ..dialect.effects import CATALOGUE
from ..dialect.types import DYNAMIC, ViewType, multi_tile_type, pto_type, tile_type
from . import conversions, tile_ops
from .compiler import Compiler, Frame, Instr, guard_at
from .denotations import alloc_valid, partition_offset, subview_valid, window_offset
from .elements import to_compute, to_storage
from .errors import InterpreterError, OpFault
from .memory import GlobalBuffer, MultiTileRef, TileRef, ViewRef, check_valid, reshaped_valid, tile_layout, view_reach
from .op_support import (
    TileOp,
    enum_value,
    not_executed,
    operand_slots,
    ptoas_name,
    same_dtype_fault,
    shape_text,
    tile_operand,
    unexecuted_move_variants,
    view_operand,
)
from .registry import impl

# --- allocation and tile views ---------------------------------------------------------


def _valid_source(c: Compiler, op: ir.Operation, tile, row: ir.Value | None, col: ir.Value | None) -> Callable[[Frame], tuple[int, int]]:
    """How an alloc finds its valid shape: its valid_row/valid_col operands
    for the type's `?` dimensions, the type for the others."""
    dyn_row, dyn_col = tile.dynamic_valid
    if (dyn_row and row is None) or (dyn_col and col is None):
        raise InterpreterError(op.location, f"'{ptoas_name(op.name)}' of {tile.ptoas()} has no valid_row/valid_col operands for its '?' valid shape")
    r_slot = c.use(row, op) if dyn_row else None
    c_slot = c.use(col, op) if dyn_col else None

    def valid(frame: Frame) -> tuple[int, int]:
        given = (frame[r_slot] if r_slot is not None else None, frame[c_slot] if c_slot is not None else None)
        return check_valid(tile, *alloc_valid(tile.valid, given))

    return valid


def _compile_alloc(c: Compiler, op: ir.Operation, view, make) -> Instr:
    """An alloc: `make(key, view, addr, valid)` builds its buffer (addr
    None: the op's private buffer)."""
    key = c.interp.new_key()
    operands = alloc_operands(op)
    slot_type = view if tile_type(op.results[0].type) is not None else view.slot
    valid = _valid_source(c, op, slot_type, operands.valid_row, operands.valid_col)
    addr = c.use(operands.addr, op) if operands.addr is not None else None
    result = c.define(op.results[0])
    if addr is not None:

        def run(frame: Frame) -> None:
            frame[result] = make(key, view, frame[addr], valid(frame))

    else:

        def run(frame: Frame) -> None:
            frame[result] = make(key, view, None, valid(frame))

    return guard_at(op.location, ptoas_name(op.name), run)


@impl("pto.alloc_tile")
def _compile_alloc_tile(c: Compiler, op: ir.Operation) -> Instr:
    return _compile_alloc(c, op, tile_type(op.results[0].type), c.interp.memory.tile)


@impl("pto.alloc_multi_tile")
def _compile_alloc_multi_tile(c: Compiler, op: ir.Operation) -> Instr:
    return _compile_alloc(c, op, multi_tile_type(op.results[0].type), c.interp.memory.multi_tile)


@impl("pto.multi_tile_get")
def _compile_multi_tile_get(c: Compiler, op: ir.Operation) -> Instr:
    mb, slot = operand_slots(c, op, "source", "slot")
    result = c.define(op.results[0])

    def run(frame: Frame) -> None:
        source = frame[mb]
        if not isinstance(source, MultiTileRef):
            raise OpFault("operand 'source' is not a multi-tile buffer")
        frame[result] = source.slot(frame[slot])

    return guard_at(op.location, ptoas_name(op.name), run)


@impl("pto.subview")
def _compile_subview(c: Compiler, op: ir.Operation) -> Instr:
    """A window of the source tile at `offsets`, `sizes` elements large:
    the same bytes, with the source's strides; its valid shape as
    denotations.subview_valid says."""
    layout = CATALOGUE[op.name].layout(op)
    slots = c.uses(op)
    source = slots[layout.index("source")]
    offsets = [slots[i] for i in layout.span("offsets")]
    valid_slots = [slots[i] if i is not None else None for i in (layout.index("valid_row"), layout.index("valid_col"))]
    result_type = tile_type(op.results[0].type)
    source_type = tile_type(op.operands[layout.index("source")].type)
    sizes = tuple(ir.IntegerAttr(a).value for a in ir.ArrayAttr(op.attributes["sizes"]))
    name = ptoas_name(op.name)
    if len(offsets) != 2 or len(sizes) != 2:
        raise InterpreterError(op.location, f"'{name}' needs two offsets and two sizes, got {len(offsets)} and {len(sizes)}")
    if sizes != result_type.shape:
        raise InterpreterError(op.location, f"'{name}': sizes [{sizes[0]}, {sizes[1]}] differ from the result type {result_type.ptoas()}")
    if source_type is not None and source_type.dtype != result_type.dtype:
        raise InterpreterError(op.location, f"'{name}': the result's element type {result_type.dtype} differs from the source's {source_type.dtype}")
    result = c.define(op.results[0])

    def run(frame: Frame) -> None:
        src = tile_operand(frame[source], "source")
        origin = (frame[offsets[0]], frame[offsets[1]])
        rows, cols = src.layout.shape
        r0, c0 = origin
        if r0 < 0 or c0 < 0 or r0 + sizes[0] > rows or c0 + sizes[1] > cols:
            raise OpFault(f"window [{r0}:{r0 + sizes[0]}, {c0}:{c0 + sizes[1]}] is out of bounds of the source tile ({rows}x{cols})")
        given = [frame[v] if v is not None else None for v in valid_slots]
        valid = check_valid(result_type, *subview_valid(sizes, result_type.valid, given, src.valid, origin))
        offset = window_offset(src.offset, src.strides, origin)
        frame[result] = TileRef(src.storage, offset, tile_layout(result_type), valid, src.slot, src.strides)

    return guard_at(op.location, name, run)


@impl("pto.treshape")
def _compile_treshape(c: Compiler, op: ir.Operation) -> Instr:
    """The source's bytes as another tile type (its own storage order)."""
    (source,) = operand_slots(c, op, "src")
    result_type = tile_type(op.results[0].type)
    name = ptoas_name(op.name)
    if result_type is None:
        return not_executed(c, op, "of a tensor view is not executed by pto-run yet")
    result = c.define(op.results[0])

    def run(frame: Frame) -> None:
        src = tile_operand(frame[source], "src")
        layout = tile_layout(result_type)
        lo, hi = src.span
        if layout.nbytes > hi - lo:
            raise OpFault(f"the result type {result_type.ptoas()} spans {layout.nbytes} bytes, more than its source's {hi - lo}")
        valid = reshaped_valid(result_type, layout, src.layout, src.valid)
        frame[result] = TileRef(src.storage, src.offset, layout, valid, src.slot)

    return guard_at(op.location, name, run)


@impl("pto.set_validshape")
def _compile_set_validshape(c: Compiler, op: ir.Operation) -> Instr:
    source, rows, cols = operand_slots(c, op, "source", "valid_row", "valid_col")

    def run(frame: Frame) -> None:
        ref = tile_operand(frame[source], "source")
        ref.valid = check_valid(ref.layout.tile, frame[rows], frame[cols])

    return guard_at(op.location, ptoas_name(op.name), run)


# --- global-memory views -------------------------------------------------------------------


def _static_check(what: str, view: ViewType):
    """A check that a runtime shape fits the view type's static dimensions
    (None when every dimension is dynamic but the rank)."""
    static = [(i, d) for i, d in enumerate(view.shape) if d != DYNAMIC]
    rank = view.rank

    def check(shape: tuple[int, ...]) -> None:
        if len(shape) != rank or any(shape[i] != d for i, d in static):
            raise OpFault(f"{what} [{', '.join(map(str, shape))}] do not match the result type {view.ptoas()}")

    return check


@impl("pto.make_tensor_view")
def _compile_make_tensor_view(c: Compiler, op: ir.Operation) -> Instr:
    layout = CATALOGUE[op.name].layout(op)
    slots = c.uses(op)
    ptr = slots[layout.index("ptr")]
    shape_slots = [slots[i] for i in layout.span("shape")]
    stride_slots = [slots[i] for i in layout.span("strides")]
    check = _static_check("shape", pto_type(op.results[0].type))
    result = c.define(op.results[0])

    def run(frame: Frame) -> None:
        buf = frame[ptr]
        if not isinstance(buf, GlobalBuffer):
            raise OpFault("operand 'ptr' is not a pointer argument of the executed function")
        shape = tuple(frame[s] for s in shape_slots)
        strides = tuple(frame[s] for s in stride_slots)
        if any(d < 0 for d in shape) or any(s < 0 for s in strides):
            raise OpFault(f"shape [{', '.join(map(str, shape))}] and strides [{', '.join(map(str, strides))}] must not be negative")
        check(shape)
        buf.reach(view_reach(0, shape, strides))
        frame[result] = ViewRef(buf, 0, shape, strides, "tensor_view")

    return guard_at(op.location, ptoas_name(op.name), run)


@impl("pto.partition_view")
def _compile_partition_view(c: Compiler, op: ir.Operation) -> Instr:
    layout = CATALOGUE[op.name].layout(op)
    slots = c.uses(op)
    source = slots[layout.index("source")]
    offset_slots = [slots[i] for i in layout.span("offsets")]
    size_slots = [slots[i] for i in layout.span("sizes")]
    check = _static_check("sizes", pto_type(op.results[0].type))
    result = c.define(op.results[0])

    def run(frame: Frame) -> None:
        src = view_operand(frame[source], "source")
        offsets = tuple(frame[s] for s in offset_slots)
        sizes = tuple(frame[s] for s in size_slots)
        if len(offsets) != len(src.shape) or len(sizes) != len(src.shape):
            raise OpFault(f"{len(offsets)} offsets and {len(sizes)} sizes for a view of rank {len(src.shape)}")
        if any(o < 0 or n < 0 or o + n > d for o, n, d in zip(offsets, sizes, src.shape)):
            block = ", ".join(f"{o}:{o + n}" for o, n in zip(offsets, sizes))
            raise OpFault(f"partition [{block}] is out of bounds of {src.buffer.name}'s {src.kind} ({shape_text(src.shape)})")
        check(sizes)
        offset = partition_offset(src.offset, offsets, src.strides)
        frame[result] = ViewRef(src.buffer, offset, sizes, src.strides, "partition_tensor_view")

    return guard_at(op.location, ptoas_name(op.name), run)


# --- the skeleton of data-moving ops ---------------------------------------------------


# --- loads and stores -----------------------------------------------------------------


def _check_block(v: ViewRef, t: TileRef, direction: str) -> tuple[int, int]:
    rows, cols = v.matrix_shape
    if (rows, cols) != t.valid:
        raise OpFault(
            f"the partition ({shape_text(v.shape)}, {rows}x{cols} elements) does not match the valid region "
            f"{t.valid[0]}x{t.valid[1]} of the tile it {direction}"
        )
    return rows, cols


@impl("pto.tload")
def _compile_tload(c: Compiler, op: ir.Operation) -> Instr:
    t = TileOp(c, op)
    extras = t.present("pad_value", "left_padding_num", "right_padding_num", "init_condition")
    if extras or "pad_mode" in op.attributes:
        return t.refuse("with padding (" + ", ".join(extras or ["pad_mode"]) + ")")
    src, dst = t.slot("src"), t.slot("dst")

    def body(frame: Frame) -> tuple[int]:
        v = view_operand(frame[src], "src")
        d = tile_operand(frame[dst], "dst")
        if v.buffer.dtype != d.layout.dtype:
            raise same_dtype_fault(t.name, v.buffer.dtype, d.layout.dtype)
        rows, cols = _check_block(v, d, "is loaded into")
        d.store(v.elements().reshape(rows, cols))
        return (rows * cols,)

    return t.compile(body)


@impl("pto.tstore")
def _compile_tstore(c: Compiler, op: ir.Operation) -> Instr:
    t = TileOp(c, op)
    extras = t.present("fp", "preQuantScalar")
    if extras:
        return t.refuse("with " + ", ".join(extras))
    relu = enum_value(op, "reluPreMode")
    if relu not in (None, "no_relu"):
        return t.refuse(f"with reluPreMode {relu}")
    atomic = enum_value(op, "atomicType") == "atomic_add"
    src, dst = t.slot("src"), t.slot("dst")

    def body(frame: Frame) -> tuple[int]:
        s = tile_operand(frame[src], "src")
        v = view_operand(frame[dst], "dst")
        dtype = s.layout.dtype
        if v.buffer.dtype != dtype:
            raise same_dtype_fault(t.name, dtype, v.buffer.dtype)
        rows, cols = _check_block(v, s, "is stored from")
        values = t.read(s, "src", rows, cols).reshape(v.shape)
        target = v.elements()
        if atomic:  # global memory += the tile, in the element type
            values = to_storage(dtype, tile_ops.binary("pto.tadd", dtype, to_compute(dtype, target), to_compute(dtype, values)))
        target[...] = values
        v.buffer.written = True
        return (rows * cols,)

    return t.compile(body)


# --- element-wise ops ------------------------------------------------------------------


@impl(*tile_ops.ELEMENTWISE_OPS)
def _compile_elementwise(c: Compiler, op: ir.Operation) -> Instr:
    """Every element-wise op, by the kind tile_ops gives it: the inputs are
    the source tiles (a `scalar` operand is a value, not a tile), the output
    `dst`, the domain dst's valid region. `same` ops need one element type
    throughout (`tcvt` converts, `tmov` copies bit for bit). A reversible
    scalar op (`tdivs`) written scalar first has its tile in the `scalar`
    slot and computes scalar op tile; `trsqrt`'s optional `tmp` is unused."""
    t = TileOp(c, op)
    name = t.name
    kind = tile_ops.kind(op.name)
    if kind == tile_ops.MOVE:
        extras = unexecuted_move_variants(t, op)
        if extras:
            return t.refuse("with " + ", ".join(extras))
    if op.name in tile_ops.ROW_MAJOR_ONLY:
        for operand in ("src", "scalar", "dst"):
            tile = tile_type(op.operands[t.layout.index(operand)].type)
            if tile is not None and tile.blayout != "row_major":
                return t.reject(f"needs row-major tiles, but {operand} is {tile.blayout} (pto-isa include/pto/cpu/TBinSOps.hpp: CONSTRAINT_VEC_ROWMAJOR)")
    rmode = enum_value(op, "rmode") or tile_ops.DEFAULT_ROUND_MODE
    satmode = enum_value(op, "sat_mode") or conversions.DEFAULT_SATURATION_MODE
    has_tmp = bool(t.present("tmp")) if op.name in ("pto.tcvt", "pto.trsqrt") else False
    arch = c.interp.arch
    inputs = ("src0", "src1") if kind == tile_ops.BINARY else ("src",)
    in_slots = [t.slot(o) for o in inputs]
    out = t.slot("dst")
    scalar = t.slot("scalar") if kind == tile_ops.WITH_SCALAR else None
    reverse = False
    if op.name in tile_ops.REVERSIBLE:
        first, second = (op.operands[t.layout.index(o)].type for o in ("src", "scalar"))
        if tile_type(first) is None and tile_type(second) is not None:  # ins(%s, %t : T, tile)
            reverse = True
            in_slots, scalar = [scalar], in_slots[0]
    generic = op.name

    def body(frame: Frame) -> tuple[int]:
        d = tile_operand(frame[out], "dst")
        refs = [tile_operand(frame[s], o) for s, o in zip(in_slots, inputs)]
        rows, cols = d.valid
        dtype = d.layout.dtype
        if kind == tile_ops.MOVE:
            (src,) = refs
            if src.layout.dtype != dtype:
                raise same_dtype_fault(name, src.layout.dtype, dtype)
            d.store(t.read(src, "src", rows, cols))  # bit for bit: no conversion
            return (rows * cols,)
        if kind == tile_ops.CONVERT:
            (src,) = refs
            values = to_compute(src.layout.dtype, t.read(src, "src", rows, cols))
            d.store(to_storage(dtype, conversions.tcvt(arch, src.layout.dtype, dtype, values, rmode, satmode, has_tmp)))
            return (rows * cols,)
        for ref in refs:
            if ref.layout.dtype != dtype:
                raise same_dtype_fault(name, ref.layout.dtype, dtype)
        values = [to_compute(dtype, t.read(ref, o, rows, cols)) for ref, o in zip(refs, inputs)]
        if kind == tile_ops.WITH_SCALAR:
            result = tile_ops.with_scalar(generic, dtype, values[0], frame[scalar], reverse)
        elif kind == tile_ops.BINARY:
            result = tile_ops.binary(generic, dtype, *values)
        elif generic == "pto.trsqrt":
            result = tile_ops.rsqrt(dtype, *values, two_roundings=arch == "a5" or has_tmp)
        else:
            result = tile_ops.unary(generic, dtype, *values)
        d.store(to_storage(dtype, result))
        return (rows * cols,)

    return t.compile(body)


# --- matmul ----------------------------------------------------------------------------


@impl("pto.tmatmul", "pto.tmatmul_acc")
def _compile_matmul(c: Compiler, op: ir.Operation) -> Instr:
    """dst = lhs @ rhs (`tmatmul.acc`: acc_in + lhs @ rhs) on M x K @ K x N:
    M, K the left tile's valid region, N the right tile's valid columns.
    `acc_in` is read before `dst` is written, so it may be `dst` itself."""
    t = TileOp(c, op)
    accumulate = op.name == "pto.tmatmul_acc"
    lhs, rhs, dst = t.slot("lhs"), t.slot("rhs"), t.slot("dst")
    acc_in = t.slot("acc_in") if accumulate else None

    def body(frame: Frame) -> tuple[int, int]:
        rl, rr, rd = tile_operand(frame[lhs], "lhs"), tile_operand(frame[rhs], "rhs"), tile_operand(frame[dst], "dst")
        # M, K, N from the valid shapes, as pto-isa's TMATMUL_IMPL reads them
        # (a tile may be larger than its valid part); reads past a source's
        # shape fault in `read`, a product past dst's shape here
        rows, inner = rl.valid
        cols = rr.valid[1]
        dst_rows, dst_cols = rd.layout.shape
        if rows > dst_rows or cols > dst_cols:
            raise OpFault(f"shapes do not agree: {rows}x{inner} @ {rr.valid[0]}x{cols} into a {dst_rows}x{dst_cols} tile")
        in_dtype, out_dtype = rl.layout.dtype, rd.layout.dtype
        if rr.layout.dtype != in_dtype:
            raise same_dtype_fault(t.name, in_dtype, rr.layout.dtype)
        vl = to_compute(in_dtype, t.read(rl, "lhs", rows, inner))
        vr = to_compute(in_dtype, t.read(rr, "rhs", inner, cols))
        acc = None
        if accumulate:
            ra = tile_operand(frame[acc_in], "acc_in")
            if ra.layout.dtype != out_dtype:
                raise same_dtype_fault(t.name, ra.layout.dtype, out_dtype)
            acc = to_compute(out_dtype, t.read(ra, "acc_in", rows, cols))
        rd.store(to_storage(out_dtype, tile_ops.matmul(in_dtype, out_dtype, vl, vr, acc)))
        return (rows * cols, rows * cols * inner)

    return t.compile(body)




