"""Row and column ops: reductions (`trowsum trowmax trowmin tcolsum
tcolmax`) and broadcasts (`trowexpand`, `trowexpandadd/sub/mul/div`,
`tcolexpand`, `tcolexpandadd/mul`), per the PTO ISA (pto-isa's
docs/isa/<OP>.md; where a doc is silent, its implementations under
include/pto/{cpu,npu/a2a3,npu/a5}).

Shapes and valid regions (R x C is the iteration domain; every check is a
runtime error at the op, naming the operands):
- Row reductions: R x C is src's valid region (both non-zero); dst is a
  column: its valid region must be R x 1 (ptoas: "expects dst valid_shape[1]
  to be 1"; a col_major Rx1 tile or a row_major tile with valid=Rx1), and
  dst[r, 0] = reduce(src[r, 0:C]).
- Column reductions: R x C is src's valid region; dst's valid columns must
  be C and it must have a valid row; dst[0, c] = reduce(src[0:R, c]) (only
  row 0 is written). An empty src writes nothing (the ISA returns early).
- `trowexpand`: dst[r, c] = src[r, 0] on dst's valid region R x C; src's
  valid rows must be R.
- `trowexpand<op>` (src0, src1, tmp?, dst): on dst's valid region R x C.
  The operand whose valid region is R x C (and row_major) is the full one
  (src0 when both are), the other the per-row one, which must have R valid
  rows and be either a col_major column with 1 valid column (ISA mode 1:
  one scalar per row) or row_major with 32 bytes of valid columns (mode 2:
  a 32-byte block per row, repeating along the row). dst[r, c] =
  src0[r, c mod K0] op src1[r, c mod K1] (K = that operand's valid columns,
  the ISA's CPU simulator's formula), so the operand order is kept when the
  per-row operand is src0 (e.g. s_r - src1[r, c]).
- `tcolexpand`: dst[r, c] = src[0, c] on dst's valid region; src's valid
  columns must be C. `tcolexpand<op>`: dst[r, c] = src0[r, c] op src1[0, c];
  src0's valid region must be R x C, src1's valid columns C.
- A dst valid region of 0x0 (PyPTO's no-op marker, which ptoas accepts for
  these ops) writes nothing; so does any empty broadcast domain.
- Element types: src, src0, src1 and dst must all have one element type
  (the ISA), and so must `tmp` where the target uses it (below).
- Layouts are not checked beyond what decides the semantics (the blayout of
  a row-expand's per-row operand): the memory model reads any layout right,
  and pto-opt's verifier is where ptoas's layout rules live.

Arithmetic, in the element type like the element-wise ops (tile_ops.py;
integers wrap, bf16 results round to bf16, division as `tdiv`):
- `trowsum` adds each row left to right, in float32 for f16/bf16 (the
  element type otherwise) and rounds once to the element type: the order and
  accumulator of the ISA's CPU simulator (include/pto/cpu/TRowSum.hpp). The
  hardware reduces in a tree (vcadd/vcgadd), which can differ in the last
  bits.
- `tcolsum` follows the hardware's order, each step rounded to the element
  type (vadd), per arch: without `isBinary` (or false), a2a3 adds rows top
  to bottom ((s0 + s1) + s2) + ...; a5 adds row pairs to row 0:
  s0 + (s1 + s2) + (s3 + s4) + ... [+ s(R-1)]. With `isBinary = true` (and a
  `tmp`, which it then needs), the binary tree of each arch: adjacent rows
  are summed pairwise, level by level; an odd row out is added to the first
  pair sum (a2a3) or the last (a5).
- max/min reductions keep the first element and replace it by each later
  one that is larger (smaller), as pto-isa's CPU simulator does
  (include/pto/cpu/TRowMax.hpp, TColMax.hpp): a NaN wins only as the
  first element, and of -0 and 0 the first one stays.
- `tmp` operands are never read. Where the ISA says the target uses `tmp`
  as scratch (row reductions and the row-expand ops on a2a3; `tcolsum` with
  isBinary = true on both), its valid region is left holding the poison
  pattern, as never written: what it held before the op is gone on the
  device, and a later read of it warns. Elsewhere (a5's row ops) it keeps
  its bytes.

The trace counts the dst elements written (`elements`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from mlir import ir

from . import tile_ops
from .compiler import Compiler, Frame, Instr
from .elements import COMPUTE_DTYPES, convert, is_float, round_to, to_compute, to_storage
from .errors import InterpreterError, OpFault
from .memory import TileRef
from .op_support import TileOp, same_dtype_fault, tile_operand
from .registry import impl

# --- what the reductions compute --------------------------------------------------------


def _finish(dtype: str, values: np.ndarray) -> np.ndarray:
    if dtype == "bf16":
        return round_to("bf16", values)
    return np.asarray(values).astype(COMPUTE_DTYPES[dtype], copy=False)


def row_sum(dtype: str, values: np.ndarray) -> np.ndarray:
    """Each row of `values` (R x C, compute dtype) summed, as R x 1."""
    if is_float(dtype):
        wide = np.float32 if dtype in ("f16", "bf16") else values.dtype
        sums = np.add.accumulate(values.astype(wide), axis=1)[:, -1:]  # left to right
        return _finish(dtype, sums)
    # integers wrap: the sum in int64, wrapped, is the wrapped running sum
    return convert(values.astype(np.int64).sum(axis=1, keepdims=True), "i64", dtype)


def _add(dtype: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    return lambda x, y: tile_ops.binary("pto.tadd", dtype, x, y)


def col_sum(dtype: str, values: np.ndarray, arch: str, binary_tree: bool) -> np.ndarray:
    """Each column of `values` (R x C, R >= 1) summed in the hardware's
    order on `arch` (see the module docstring), as 1 x C."""
    add = _add(dtype)
    rows = [values[i : i + 1] for i in range(values.shape[0])]
    if binary_tree:
        total = _tree_a5(rows, add) if arch == "a5" else _tree_a2a3(rows, add)
    elif arch == "a5":
        total = rows[0]
        for i in range(1, len(rows) - 1, 2):
            total = add(total, add(rows[i], rows[i + 1]))
        if (len(rows) - 1) % 2:
            total = add(total, rows[-1])
    else:
        total = rows[0]
        for row in rows[1:]:
            total = add(total, row)
    return total


def _tree_a2a3(rows: list, add) -> np.ndarray:
    """TCOLSUM's binary path on a2a3 (npu/a2a3/TColSum.hpp, BinarySum):
    t[i] = s[2i] + s[2i+1]; an odd last row is added to t[0]; the same on t
    until one row is left."""
    n = len(rows)
    if n == 1:
        return rows[0]
    level = [add(rows[2 * i], rows[2 * i + 1]) for i in range(n // 2)]
    if n % 2:
        level[0] = add(level[0], rows[n - 1])
    while len(level) > 1:
        count = len(level)
        nxt = [add(level[2 * i], level[2 * i + 1]) for i in range(count // 2)]
        if count % 2:
            nxt[0] = add(nxt[0], level[count - 1])
        level = nxt
    return level[0]


def _tree_a5(rows: list, add) -> np.ndarray:
    """TCOLSUM's binary path on a5 (npu/a5/TColSum.hpp): pairs as on a2a3,
    but an odd row out is added to the last pair sum of its level (and a
    single row is added to zero)."""
    n = len(rows)
    if n == 1:
        return add(rows[0], np.zeros_like(rows[0]))
    level = [add(rows[2 * j], rows[2 * j + 1]) for j in range(n // 2)]
    if n % 2:
        level[-1] = add(rows[n - 1], level[-1])
    while len(level) > 1:
        count = len(level)
        nxt = [add(level[2 * j], level[2 * j + 1]) for j in range(count // 2)]
        if count % 2:
            nxt[-1] = add(level[count - 1], nxt[-1])
        level = nxt
    return level[0]


def _scan(values: np.ndarray, axis: int, better) -> np.ndarray:
    """The first element along `axis`, replaced by each later one that is
    `better`: the simulator's loop (include/pto/cpu/TRowMax.hpp and the
    like), so a NaN counts only as the first element and of equal values
    (-0 and 0) the first stays."""
    lanes = np.moveaxis(values, axis, 0)
    best = lanes[0].copy()
    for later in lanes[1:]:
        best = np.where(better(later, best), later, best)
    return np.expand_dims(best, axis)


def _reduce_max(dtype: str, values: np.ndarray, axis: int) -> np.ndarray:
    return _finish(dtype, _scan(values, axis, np.greater))


def _reduce_min(dtype: str, values: np.ndarray, axis: int) -> np.ndarray:
    return _finish(dtype, _scan(values, axis, np.less))


# --- shared checks and tmp ----------------------------------------------------------------


def _same_dtypes(t: TileOp, dtype: str, refs: list[TileRef]) -> None:
    for ref in refs:
        if ref.layout.dtype != dtype:
            raise same_dtype_fault(t.name, ref.layout.dtype, dtype)


def _dims(valid: tuple[int, int]) -> str:
    return f"{valid[0]}x{valid[1]}"


class _Tmp:
    """An op's optional `tmp` operand, and whether this op on this arch
    uses it as scratch (then its element type must be the op's, and its
    valid region is clobbered)."""

    def __init__(self, t: TileOp, used: bool) -> None:
        self.slot = t.slot("tmp")
        self.used = used and self.slot is not None

    def checked(self, frame: Frame) -> list[TileRef]:
        """The tmp tile to check the element type of (none when unused)."""
        return [tile_operand(frame[self.slot], "tmp")] if self.used else []


def _fault_at(t: TileOp, message: str) -> Instr:
    location, text = t.location, f"'{t.name}' {message}"

    def run(frame: Frame) -> None:
        raise InterpreterError(location, text)

    return run


# --- reductions -----------------------------------------------------------------------------------

_ROW_REDUCE = {
    "pto.trowsum": row_sum,
    "pto.trowmax": lambda dtype, v: _reduce_max(dtype, v, 1),
    "pto.trowmin": lambda dtype, v: _reduce_min(dtype, v, 1),
}


@impl(*_ROW_REDUCE)
def _compile_row_reduction(c: Compiler, op: ir.Operation) -> Instr:
    t = TileOp(c, op)
    reduce = _ROW_REDUCE[op.name]
    src, dst = t.slot("src"), t.slot("dst")
    tmp = _Tmp(t, used=c.interp.arch != "a5")

    def body(frame: Frame) -> tuple[int]:
        s, d = tile_operand(frame[src], "src"), tile_operand(frame[dst], "dst")
        scratch = tmp.checked(frame)
        dtype = d.layout.dtype
        _same_dtypes(t, dtype, [s, *scratch])
        if d.valid == (0, 0):
            return (0,)
        rows, cols = s.valid
        if rows == 0 or cols == 0:
            raise OpFault(f"operand 'src' has the empty valid region {_dims(s.valid)}: a row reduction needs at least one element per row")
        if d.valid != (rows, 1):
            raise OpFault(
                f"operand 'dst' has the valid region {_dims(d.valid)}; the reduction of the {rows} rows of 'src' "
                f"({_dims(s.valid)}) needs {rows}x1 (one column: a col_major {rows}x1 tile or valid={rows}x1)"
            )
        values = to_compute(dtype, t.read(s, "src", rows, cols))
        result = to_storage(dtype, reduce(dtype, values))
        for ref in scratch:
            ref.poison()
        d.store(result)
        return (rows,)

    return t.compile(body)


@impl("pto.tcolsum", "pto.tcolmax")
def _compile_col_reduction(c: Compiler, op: ir.Operation) -> Instr:
    t = TileOp(c, op)
    src, dst = t.slot("src"), t.slot("dst")
    arch = c.interp.arch
    summing = op.name == "pto.tcolsum"
    binary_tree = summing and "isBinary" in op.attributes and ir.BoolAttr(op.attributes["isBinary"]).value
    tmp = _Tmp(t, used=binary_tree)
    if binary_tree and tmp.slot is None:
        return _fault_at(t, "with isBinary = true needs a tmp operand (the binary tree accumulates in it)")

    def body(frame: Frame) -> tuple[int]:
        s, d = tile_operand(frame[src], "src"), tile_operand(frame[dst], "dst")
        scratch = tmp.checked(frame)
        dtype = d.layout.dtype
        _same_dtypes(t, dtype, [s, *scratch])
        if d.valid == (0, 0):
            return (0,)
        rows, cols = s.valid
        if d.valid[1] != cols:
            raise OpFault(f"operand 'dst' has {d.valid[1]} valid columns, 'src' {cols} ({_dims(s.valid)}): a column reduction needs them equal")
        if rows == 0 or cols == 0:
            return (0,)  # the ISA returns early
        if d.valid[0] == 0:
            raise OpFault(f"operand 'dst' has the valid region {_dims(d.valid)}: the column reduction writes its row 0")
        if binary_tree:
            half = (rows + 1) // 2
            if scratch[0].valid[0] < half or scratch[0].valid[1] < cols:
                raise OpFault(
                    f"operand 'tmp' has the valid region {_dims(scratch[0].valid)}; the binary tree over {_dims(s.valid)} "
                    f"needs at least {half}x{cols}"
                )
        values = to_compute(dtype, t.read(s, "src", rows, cols))
        if summing:
            result = col_sum(dtype, values, arch, binary_tree)
        else:
            result = _reduce_max(dtype, values, 0)
        for ref in scratch:
            ref.poison()
        d.store(to_storage(dtype, result))
        return (cols,)

    return t.compile(body)


# --- broadcasts ---------------------------------------------------------------------------------------


@impl("pto.trowexpand", "pto.tcolexpand")
def _compile_expand(c: Compiler, op: ir.Operation) -> Instr:
    """`trowexpand` (dst[r, c] = src[r, 0]) and `tcolexpand` (dst[r, c] =
    src[0, c]) on dst's valid region: src's column 0 or row 0 broadcast."""
    t = TileOp(c, op)
    src, dst = t.slot("src"), t.slot("dst")
    along_rows = op.name == "pto.trowexpand"

    def body(frame: Frame) -> tuple[int]:
        s, d = tile_operand(frame[src], "src"), tile_operand(frame[dst], "dst")
        dtype = d.layout.dtype
        _same_dtypes(t, dtype, [s])
        rows, cols = d.valid
        if rows == 0 or cols == 0:
            return (0,)
        # a src whose valid region falls short is read as stored (t.read warns)
        line = t.read(s, "src", rows, 1) if along_rows else t.read(s, "src", 1, cols)
        d.store(np.broadcast_to(line, (rows, cols)))
        return (rows * cols,)

    return t.compile(body)


_ROW_EXPAND_BINARY = {
    "pto.trowexpandadd": "pto.tadd",
    "pto.trowexpandsub": "pto.tsub",
    "pto.trowexpandmul": "pto.tmul",
    "pto.trowexpanddiv": "pto.tdiv",
}


def _per_row_columns(ref: TileRef, operand: str, rows: int) -> int:
    """The valid columns of a row-expand's per-row operand (1 in mode 1, a
    32-byte block in mode 2), checked. Its valid rows may exceed dst's
    (PyPTO broadcasts the first 2 of 8 row statistics that way)."""
    vr, vc = ref.valid
    col_major = ref.layout.tile.blayout == "col_major"
    block = 32 // ref.layout.itemsize
    expected = 1 if col_major else block
    if vc != expected:  # the columns decide the mode; rows past or short of dst's are read as stored
        form = "col_major: one scalar per row, the ISA's mode 1" if col_major else "row_major: a 32-byte block per row, the ISA's mode 2"
        raise OpFault(f"the per-row operand '{operand}' ({form}) has the valid region {vr}x{vc}; it needs {rows}x{expected}")
    return vc


@impl(*_ROW_EXPAND_BINARY)
def _compile_row_expand_binary(c: Compiler, op: ir.Operation) -> Instr:
    t = TileOp(c, op)
    elementwise = _ROW_EXPAND_BINARY[op.name]
    src0, src1, dst = t.slot("src0"), t.slot("src1"), t.slot("dst")
    tmp = _Tmp(t, used=c.interp.arch != "a5")

    def body(frame: Frame) -> tuple[int]:
        a, b, d = tile_operand(frame[src0], "src0"), tile_operand(frame[src1], "src1"), tile_operand(frame[dst], "dst")
        scratch = tmp.checked(frame)
        dtype = d.layout.dtype
        _same_dtypes(t, dtype, [a, b, *scratch])
        rows, cols = d.valid
        if rows == 0 or cols == 0:
            return (0,)

        def full(ref: TileRef) -> bool:
            return ref.valid == (rows, cols) and ref.layout.tile.blayout != "col_major"

        if full(a):
            widths = (cols, _per_row_columns(b, "src1", rows))
        elif full(b):
            widths = (_per_row_columns(a, "src0", rows), cols)
        else:
            raise OpFault(
                f"neither 'src0' ({_dims(a.valid)}) nor 'src1' ({_dims(b.valid)}) is a row_major operand with dst's "
                f"valid region {_dims(d.valid)}: one must be, the other the per-row operand"
            )
        values = []
        for ref, operand, width in ((a, "src0", widths[0]), (b, "src1", widths[1])):
            v = to_compute(dtype, t.read(ref, operand, rows, width))
            if width != cols:  # repeat along the row: element c is v[:, c mod width]
                v = v[:, np.arange(cols) % width]
            values.append(v)
        result = to_storage(dtype, tile_ops.binary(elementwise, dtype, *values))
        for ref in scratch:
            ref.poison()
        d.store(result)
        return (rows * cols,)

    return t.compile(body)


_COL_EXPAND_BINARY = {"pto.tcolexpandadd": "pto.tadd", "pto.tcolexpandmul": "pto.tmul"}


@impl(*_COL_EXPAND_BINARY)
def _compile_col_expand_binary(c: Compiler, op: ir.Operation) -> Instr:
    t = TileOp(c, op)
    elementwise = _COL_EXPAND_BINARY[op.name]
    src0, src1, dst = t.slot("src0"), t.slot("src1"), t.slot("dst")

    def body(frame: Frame) -> tuple[int]:
        a, b, d = tile_operand(frame[src0], "src0"), tile_operand(frame[src1], "src1"), tile_operand(frame[dst], "dst")
        dtype = d.layout.dtype
        _same_dtypes(t, dtype, [a, b])
        rows, cols = d.valid
        if rows == 0 or cols == 0:
            return (0,)
        if a.valid != (rows, cols):
            raise OpFault(f"operand 'src0' has the valid region {_dims(a.valid)}; dst's is {_dims(d.valid)}: they must be equal")
        if b.valid[1] != cols or b.valid[0] == 0:
            raise OpFault(
                f"the per-column operand 'src1' has the valid region {_dims(b.valid)}; dst's {_dims(d.valid)} "
                f"needs {cols} valid columns and at least one valid row (its row 0 is used)"
            )
        va = to_compute(dtype, t.read(a, "src0", rows, cols))
        vb = to_compute(dtype, t.read(b, "src1", 1, cols))
        d.store(to_storage(dtype, tile_ops.binary(elementwise, dtype, va, vb)))
        return (rows * cols,)

    return t.compile(body)


