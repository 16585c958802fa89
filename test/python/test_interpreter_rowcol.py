"""Row and column ops in the interpreter (pto_dialect.interpreter.rowcol_ops):
reductions, broadcasts and broadcast arithmetic, their valid regions, the
summation orders, the scratch `tmp` and the trace."""

from __future__ import annotations

import numpy as np
import pytest
from interpreter_support import on_a5, run, run_error, verify_error

R, C = 16, 32
T = f"!pto.tile_buf<vec, {R}x{C}x{{dt}}>"
COL = f"!pto.tile_buf<vec, {R}x1x{{dt}}, blayout=col_major>"  # a row vector: one value per row
ROW = f"!pto.tile_buf<vec, 1x{C}x{{dt}}>"  # a column vector: one value per column


def values(execution, name: str) -> np.ndarray:
    return next(b for b in execution.buffers if b.name == name).values()


def kernel(body: str, dt: str = "f32", out: str = "!t", extra_args: str = "", types: str = "") -> str:
    """%x (R x C, loaded from %X) and a tmp %tmp; `body` computes %o (type
    `out`), stored to %O."""
    t = T.format(dt=dt)
    return f"""
!t = {t}
!col = {COL.format(dt=dt)}
!row = {ROW.format(dt=dt)}
{types}
func.func @k(%X: !pto.partition_tensor_view<{R}x{C}x{dt}>, %O: !pto.partition_tensor_view<{{o_shape}}x{dt}>{extra_args}) {{
  %x = pto.alloc_tile : !t
  %tmp = pto.alloc_tile : !t
  %o = pto.alloc_tile : {out}
  pto.tload ins(%X : !pto.partition_tensor_view<{R}x{C}x{dt}>) outs(%x : !t)
{body}
  pto.tstore ins(%o : {out}) outs(%O : !pto.partition_tensor_view<{{o_shape}}x{dt}>)
  return
}}
"""


def reduce_kernel(op: str, dt: str = "f32", tmp: bool = True) -> str:
    ins = "%x, %tmp : !t, !t" if tmp else "%x : !t"
    return kernel(f"  pto.{op} ins({ins}) outs(%o : !col)", dt, out="!col").replace("{o_shape}", f"{R}x1")


# --- row reductions -----------------------------------------------------------------------------


def test_trowsum_adds_each_row_left_to_right_in_f32():
    r = run(reduce_kernel("trowsum"))
    x = values(r, "%X")
    sequential = np.add.accumulate(x, axis=1)[:, -1:]
    assert np.array_equal(values(r, "%O"), sequential)
    assert not np.array_equal(sequential, np.sum(x.astype(np.float64), axis=1, keepdims=True).astype(np.float32))


def test_trowsum_of_f16_accumulates_in_f32_and_rounds_once():
    r = run(reduce_kernel("trowsum", "f16"))
    x = values(r, "%X")
    once = np.add.accumulate(x.astype(np.float32), axis=1)[:, -1:].astype(np.float16)
    stepwise = np.add.accumulate(x, axis=1, dtype=np.float16)[:, -1:]
    assert np.array_equal(values(r, "%O"), once)
    assert not np.array_equal(once, stepwise)  # f16 accumulation would differ


@pytest.mark.parametrize("op, reference", [("trowmax", np.max), ("trowmin", np.min)])
@pytest.mark.parametrize("dt", ["f32", "i16"])
def test_trowmax_and_trowmin(op, reference, dt):
    r = run(reduce_kernel(op, dt, tmp=False))
    assert np.array_equal(values(r, "%O"), reference(values(r, "%X"), axis=1, keepdims=True))


def test_trowsum_of_integers_wraps():
    r = run(reduce_kernel("trowsum", "i16"))
    x = values(r, "%X").astype(np.int64)
    exact = x.sum(axis=1, keepdims=True)
    assert (np.abs(exact) > 32767).any()
    assert np.array_equal(values(r, "%O"), exact.astype(np.int16))


def test_a_row_reduction_reads_src_valid_region_and_may_write_a_row_major_dst_with_one_valid_column():
    # src valid 16x20 (of 16x32); dst a row_major 16x8 tile with valid=16x1
    body = """  %c16 = arith.constant 16 : index
  %c20 = arith.constant 20 : index
  %y = pto.alloc_tile valid_row = %c16 valid_col = %c20 : !pto.tile_buf<vec, 16x32xf32, valid=?x?>
  pto.tmov ins(%x : !t) outs(%tmp : !t)
  pto.trowsum ins(%y, %tmp : !pto.tile_buf<vec, 16x32xf32, valid=?x?>, !t) outs(%o : !pto.tile_buf<vec, 16x8xf32, valid=16x1>)"""
    text = kernel(body, out="!pto.tile_buf<vec, 16x8xf32, valid=16x1>").replace("{o_shape}", "16x1")
    # %y aliases nothing: give it the input through an addressed alloc instead
    text = text.replace("  %x = pto.alloc_tile : !t\n", "  %a0 = arith.constant 0 : i64\n  %x = pto.alloc_tile addr = %a0 : !t\n")
    text = text.replace("valid_row = %c16 valid_col = %c20", "addr = %a0 valid_row = %c16 valid_col = %c20")
    r = run(text)
    x = values(r, "%X")
    assert np.array_equal(values(r, "%O"), np.add.accumulate(x[:, :20], axis=1)[:, -1:])


def test_row_reductions_of_the_wrong_shape_or_type_are_refused_before_they_run():
    # ptoas's verifier's words (TRowSumOp::verify and the like), at the op
    text = reduce_kernel("trowsum").replace("!col = !pto.tile_buf<vec, 16x1xf32, blayout=col_major>", "!col = !pto.tile_buf<vec, 16x8xf32, valid=16x2>")
    text = text.replace("16x1xf32>", "16x2xf32>")
    assert verify_error(text) == "<string>:11:3: error: 'pto.trowsum' op expects dst valid_shape[1] to be 1"
    text = reduce_kernel("trowmax").replace("blayout=col_major>", "valid=8x1, blayout=col_major>")
    text = text.replace("<16x1xf32>", "<8x1xf32>")
    assert verify_error(text).endswith("error: 'pto.trowmax' op expects src and dst to have the same valid_shape[0]")
    text = reduce_kernel("trowmin").replace("!col = !pto.tile_buf<vec, 16x1xf32,", "!col = !pto.tile_buf<vec, 16x1xf16,")
    text = text.replace("16x1xf32>", "16x1xf16>")
    assert verify_error(text).endswith("error: 'pto.trowmin' op expects src and dst to have the same element type")


def test_tmp_is_clobbered_on_a2a3_and_kept_on_a5():
    # tmp holds a copy of x before the reduction; storing it afterwards
    # reads the poison on a2a3 (a warning), the copy on a5
    body = """  pto.tmov ins(%x : !t) outs(%tmp : !t)
  %s = pto.alloc_tile : !col
  pto.trowsum ins(%x, %tmp : !t, !t) outs(%s : !col)
  pto.tmov ins(%tmp : !t) outs(%o : !t)"""
    text = kernel(body).replace("{o_shape}", f"{R}x{C}")
    a2 = run(text)
    assert np.isnan(values(a2, "%O")).all()
    assert len(a2.warnings) == 1 and "'pto.tmov' reads 2048 of the 2048 bytes of operand 'src'" in a2.warnings[0].message
    a5 = run(text, arch="a5")
    assert np.array_equal(values(a5, "%O"), values(a5, "%X")) and not a5.warnings


# --- column reductions --------------------------------------------------------------------------

# Five rows [2048, 1, 1, 1, 1] of f16 (2049 is not an f16: the spacing there
# is 2): each summation order gives another column sum.
ORDERS = """
!t = !pto.tile_buf<vec, 5x16xf16>
!r = !pto.tile_buf<vec, 1x16xf16>
!pv = !pto.partition_tensor_view<5x16xf16>
func.func @k(%X: !pv, %O: !pto.partition_tensor_view<1x16xf16>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f16
  %big = arith.constant 2047.0 : f16
  %x = pto.alloc_tile : !t
  %tmp = pto.alloc_tile : !t
  %o = pto.alloc_tile : !r
  pto.tload ins(%X : !pv) outs(%x : !t)
  pto.tsub ins(%x, %x : !t, !t) outs(%x : !t)
  pto.tadds ins(%x, %one : !t, f16) outs(%x : !t)
  %row0 = pto.subview %x[%c0, %c0] sizes [1, 16] : !t -> !r
  pto.tadds ins(%row0, %big : !r, f16) outs(%row0 : !r)
  OP
  pto.tstore ins(%o : !r) outs(%O : !pto.partition_tensor_view<1x16xf16>)
  return
}
"""


@pytest.mark.parametrize(
    "op, arch, total",
    [
        ("pto.tcolsum ins(%x : !t) outs(%o : !r)", "a2a3", 2048),  # ((2048 + 1) + 1) + ...: each + 1 rounds away
        ("pto.tcolsum ins(%x : !t) outs(%o : !r)", "a5", 2052),  # 2048 + (1 + 1) + (1 + 1)
        ("pto.tcolsum ins(%x, %tmp {isBinary = false} : !t, !t) outs(%o : !r)", "a2a3", 2048),
        ("pto.tcolsum ins(%x, %tmp {isBinary = true} : !t, !t) outs(%o : !r)", "a2a3", 2050),  # (2048 + 1 + 1) + (1 + 1)
        ("pto.tcolsum ins(%x, %tmp {isBinary = true} : !t, !t) outs(%o : !r)", "a5", 2052),  # (2048 + 1) + (1 + 1 + 1): 2051, a tie, to even
    ],
)
def test_tcolsum_follows_the_hardware_order_of_each_arch(op, arch, total):
    r = run(ORDERS.replace("OP", op), arch=arch)
    assert (values(r, "%O") == total).all()


def test_tcolsum_binary_tree_needs_tmp_rows_for_half_the_rows():
    text = ORDERS.replace("OP", "pto.tcolsum ins(%x, %s {isBinary = true} : !t, !pto.tile_buf<vec, 2x16xf16>) outs(%o : !r)")
    text = text.replace("  %o = pto.alloc_tile : !r\n", "  %o = pto.alloc_tile : !r\n  %s = pto.alloc_tile : !pto.tile_buf<vec, 2x16xf16>\n")
    err = run_error(text)
    assert err.message == "'pto.tcolsum': operand 'tmp' has the valid region 2x16; the binary tree over 5x16 needs at least 3x16"


@pytest.mark.parametrize("dt", ["f32", "i32"])
def test_tcolsum_and_tcolmax_reduce_each_column(dt):
    body = "  pto.tcolsum ins(%x : !t) outs(%o : !row)"
    r = run(kernel(body, dt, out="!row").replace("{o_shape}", f"1x{C}"))
    x = values(r, "%X")
    expected = np.add.accumulate(x, axis=0)[-1:] if dt == "f32" else x.astype(np.int64).sum(axis=0, keepdims=True).astype(np.int32)
    assert np.array_equal(values(r, "%O"), expected)
    r = run(kernel("  pto.tcolmax ins(%x : !t) outs(%o : !row)", dt, out="!row").replace("{o_shape}", f"1x{C}"))
    assert np.array_equal(values(r, "%O"), values(r, "%X").max(axis=0, keepdims=True))


def test_tcolmax_keeps_the_first_element_unless_a_later_one_is_larger():
    # as pto-isa's simulator loops (include/pto/cpu/TColMax.hpp): a NaN wins
    # only as a column's first element. log(x + 1.75) is NaN where x < -1.75
    # (x is in [-2, 2)): in some rows
    body = """  %s = arith.constant 1.75 : f32
  pto.tadds ins(%x, %s : !t, f32) outs(%tmp : !t)
  pto.tlog ins(%tmp : !t) outs(%tmp : !t)
  pto.tcolmax ins(%tmp : !t) outs(%o : !row)"""
    r = run(kernel(body, out="!row").replace("{o_shape}", f"1x{C}"))
    x = values(r, "%X")
    with np.errstate(all="ignore"):
        logs = np.log((x + np.float32(1.75)).astype(np.float64)).astype(np.float32)
        best = logs[0].copy()
        for row in logs[1:]:
            best = np.where(row > best, row, best)
    assert np.isnan(logs[1:]).any()  # NaNs after the first row, which lose
    assert np.array_equal(values(r, "%O"), best[None, :], equal_nan=True)


def test_tcolsum_needs_dst_valid_columns_equal_to_src():
    body = "  pto.tcolsum ins(%x : !t) outs(%o : !pto.tile_buf<vec, 1x32xf32, valid=1x16>)"
    text = kernel(body, out="!pto.tile_buf<vec, 1x32xf32, valid=1x16>").replace("{o_shape}", "1x16")
    assert run_error(text).message == "'pto.tcolsum': operand 'dst' has 16 valid columns, 'src' 32 (16x32): a column reduction needs them equal"


# --- row broadcasts -------------------------------------------------------------------------------


def test_trowexpand_broadcasts_column_zero():
    body = """  %m = pto.alloc_tile : !col
  pto.trowmax ins(%x, %tmp : !t, !t) outs(%m : !col)
  pto.trowexpand ins(%m : !col) outs(%o : !t)"""
    r = run(kernel(body).replace("{o_shape}", f"{R}x{C}"))
    x = values(r, "%X")
    assert np.array_equal(values(r, "%O"), np.broadcast_to(x.max(axis=1, keepdims=True), (R, C)))


@pytest.mark.parametrize(
    "op, f",
    [("trowexpandadd", np.add), ("trowexpandsub", np.subtract), ("trowexpandmul", np.multiply), ("trowexpanddiv", np.divide)],
)
def test_row_expand_arithmetic_with_a_column_of_row_scalars(op, f):
    body = f"""  %m = pto.alloc_tile : !col
  pto.trowsum ins(%x, %tmp : !t, !t) outs(%m : !col)
  pto.{op} ins(%x, %m, %tmp : !t, !col, !t) outs(%o : !t)"""
    r = run(kernel(body).replace("{o_shape}", f"{R}x{C}"))
    x = values(r, "%X")
    s = np.add.accumulate(x, axis=1)[:, -1:]
    assert np.array_equal(values(r, "%O"), f(x, s))


def test_row_expand_keeps_the_operand_order_when_src0_is_the_row_vector():
    body = """  %m = pto.alloc_tile : !col
  pto.trowmax ins(%x, %tmp : !t, !t) outs(%m : !col)
  pto.trowexpandsub ins(%m, %x : !col, !t) outs(%o : !t)"""
    r = run(kernel(body).replace("{o_shape}", f"{R}x{C}"))
    x = values(r, "%X")
    assert np.array_equal(values(r, "%O"), x.max(axis=1, keepdims=True) - x)
    assert (values(r, "%O") >= 0).all()


def test_row_expand_mode_2_repeats_a_32_byte_block_along_each_row():
    # src1: a row_major 16x8 f32 tile, a 32-byte block per row: dst[r, c] = x[r, c] * b[r, c mod 8]
    body = """  %b = pto.alloc_tile : !pto.tile_buf<vec, 16x8xf32>
  %b16 = pto.subview %x[%c0, %c0] sizes [16, 8] : !t -> !pto.tile_buf<vec, 16x8xf32>
  pto.tmov ins(%b16 : !pto.tile_buf<vec, 16x8xf32>) outs(%b : !pto.tile_buf<vec, 16x8xf32>)
  pto.trowexpandmul ins(%x, %b : !t, !pto.tile_buf<vec, 16x8xf32>) outs(%o : !t)"""
    text = kernel(body).replace("{o_shape}", f"{R}x{C}")
    text = text.replace("  %x = pto.alloc_tile : !t\n", "  %c0 = arith.constant 0 : index\n  %x = pto.alloc_tile : !t\n")
    r = run(text)
    x = values(r, "%X")
    assert np.array_equal(values(r, "%O"), x * x[:, np.arange(C) % 8])


def test_row_expand_operands_of_the_wrong_shape_are_refused_before_they_run():
    # ptoas's verifier's words (TRowExpandAddOp::verify), at the op
    # a col_major per-row operand must have one valid column
    body = """  %m = pto.alloc_tile : !pto.tile_buf<vec, 16x2xf32, blayout=col_major>
  pto.trowexpandadd ins(%x, %m : !t, !pto.tile_buf<vec, 16x2xf32, blayout=col_major>) outs(%o : !t)"""
    message = verify_error(kernel(body).replace("{o_shape}", f"{R}x{C}"))
    assert message == "<string>:12:3: error: 'pto.trowexpandadd' op expects non-row-major src1 valid_shape[1] to be 1"
    # a row_major one must hold a 32-byte block per row (8 f32)
    body = """  %m = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32, valid=16x1>
  pto.trowexpandadd ins(%x, %m : !t, !pto.tile_buf<vec, 16x16xf32, valid=16x1>) outs(%o : !t)"""
    message = verify_error(kernel(body).replace("{o_shape}", f"{R}x{C}"))
    assert message.endswith("error: 'pto.trowexpandadd' op expects row-major src1 valid_shape[1] to be 32/sizeof(dtype)")
    # neither operand has dst's valid region
    body = """  %m = pto.alloc_tile : !col
  pto.trowexpandadd ins(%m, %m : !col, !col) outs(%o : !t)"""
    message = verify_error(kernel(body).replace("{o_shape}", f"{R}x{C}"))
    assert message.endswith("error: 'pto.trowexpandadd' op expects src0 and dst to have the same valid_shape")


def test_trowexpanddiv_of_integers_by_zero_is_an_error():
    body = """  %m = pto.alloc_tile : !col
  pto.tsub ins(%x, %x : !t, !t) outs(%tmp : !t)
  pto.trowmax ins(%tmp : !t) outs(%m : !col)
  pto.trowexpanddiv ins(%x, %m : !t, !col) outs(%o : !t)"""
    err = run_error(on_a5(kernel(body, "i32").replace("{o_shape}", f"{R}x{C}")))  # integer trowexpanddiv: a5 only
    assert err.message == "'pto.trowexpanddiv': integer division by zero (the divisor of element (0, 0) is 0)"


# --- column broadcasts -----------------------------------------------------------------------------


def test_tcolexpand_and_column_arithmetic():
    body = """  %m = pto.alloc_tile : !row
  pto.tcolmax ins(%x : !t) outs(%m : !row)
  pto.tcolexpand ins(%m : !row) outs(%o : !t)
  pto.tcolexpandmul ins(%o, %m : !t, !row) outs(%o : !t)
  pto.tcolexpandadd ins(%o, %m : !t, !row) outs(%o : !t)"""
    r = run(kernel(body).replace("{o_shape}", f"{R}x{C}"))
    m = values(r, "%X").max(axis=0, keepdims=True)
    assert np.array_equal(values(r, "%O"), np.broadcast_to(m * m + m, (R, C)))


def test_tcolexpandadd_needs_src1_to_cover_dst_columns():
    # a static valid shape like this is the verifier's error (ptoas's rule:
    # test/Dialect/pto/invalid-target-rules.pto); a dynamic one is known when it runs
    body = """  %r1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %m = pto.alloc_tile valid_row = %r1 valid_col = %c16 : !pto.tile_buf<vec, 1x32xf32, valid=?x?>
  pto.tcolexpandadd ins(%x, %m : !t, !pto.tile_buf<vec, 1x32xf32, valid=?x?>) outs(%o : !t)"""
    err = run_error(kernel(body).replace("{o_shape}", f"{R}x{C}"))
    assert err.message == (
        "'pto.tcolexpandadd': the per-column operand 'src1' has the valid region 1x16; dst's 16x32 needs 32 valid columns "
        "and at least one valid row (its row 0 is used)"
    )


# --- the trace ----------------------------------------------------------------------------------------


def test_trace_counts_the_elements_written():
    body = """  %m = pto.alloc_tile : !col
  %c = pto.alloc_tile : !row
  pto.trowmax ins(%x, %tmp : !t, !t) outs(%m : !col)
  pto.tcolsum ins(%x : !t) outs(%c : !row)
  pto.trowexpandsub ins(%x, %m : !t, !col) outs(%o : !t)"""
    r = run(kernel(body).replace("{o_shape}", f"{R}x{C}"), trace=True)
    events = {e.op: e for e in r.trace}
    assert events["pto.trowmax"].elements == R and events["pto.trowmax"].pipe == "V"
    assert events["pto.tcolsum"].elements == C
    assert events["pto.trowexpandsub"].elements == R * C
    assert len(events["pto.trowmax"].writes) == 2  # dst and the scratch tmp
