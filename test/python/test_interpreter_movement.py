"""The data-movement ops pto-run executes (interpreter/movement_ops.py):
textract, load_scalar, store_scalar, tsetval, tgetval, texpands, tfillpad,
tci, tgather, ttrans and tconcat, element for element and dtype-exact, on
kernels in ptoas syntax."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import parse_kernel
from interpreter_support import buffer, run, run_error

from pto_dialect.api import ParseError
from pto_dialect.interpreter.elements import bf16_bits_to_f32, f32_to_bf16_bits


def line_of(text: str, needle: str) -> int:
    """The 1-based line of the (only) line of `text` containing `needle`."""
    (line,) = [i + 1 for i, s in enumerate(text.split("\n")) if needle in s]
    return line


# --- textract -----------------------------------------------------------------------------

MAT = "!pto.tile_buf<mat, 32x32xf16, blayout=col_major, slayout=row_major>"
LEFT = "!pto.tile_buf<left, 16x16xf16, blayout=row_major, slayout=row_major>"


def textract_kernel(row: int, col: int, left: str = LEFT) -> str:
    return f"""
func.func @k(%m: {MAT}) -> ({MAT}, {left}) {{
  %r = arith.constant {row} : index
  %c = arith.constant {col} : index
  %l = pto.alloc_tile : {left}
  pto.textract ins(%m, %r, %c : {MAT}, index, index) outs(%l : {left})
  return %m, %l : {MAT}, {left}
}}
"""


def test_textract_copies_the_block_at_the_index_from_an_nz_mat_tile_into_a_left_tile():
    r = run(textract_kernel(16, 8))
    src, dst = buffer(r, "return #0").array, buffer(r, "return #1").array
    assert dst.dtype == np.float16
    # logical elements, whatever the two layouts store them as
    assert np.array_equal(dst.view(np.uint16), src[16:32, 8:24].view(np.uint16))


def test_textract_writes_only_the_destinations_valid_region():
    left = "!pto.tile_buf<left, 16x16xf16, valid=8x4, blayout=row_major, slayout=row_major>"
    r = run(textract_kernel(0, 16, left))
    src, dst = buffer(r, "return #0").array, buffer(r, "return #1").array
    assert np.array_equal(dst[:8, :4].view(np.uint16), src[:8, 16:20].view(np.uint16))
    assert (dst.view(np.uint16)[8:, :] == 0xFFFF).all()  # still poison


def test_textract_of_a_block_beyond_the_source_is_an_error_at_the_op():
    text = textract_kernel(17, 0)
    err = run_error(text)
    assert "'pto.textract': the 16x16 block at (17, 0) is out of bounds of the source tile (32x32)" in str(err)
    assert err.position[1] == line_of(text, "pto.textract")


def test_textract_variants_not_executed_name_themselves():
    # relu is an acc-source option (ptoas's TExtractOp::verify): acc to mat, converting f32 to f16
    acc = "!pto.tile_buf<acc, 16x16xf32, blayout=col_major, slayout=row_major, fractal=1024>"
    mat = "!pto.tile_buf<mat, 16x16xf16, blayout=col_major, slayout=row_major>"
    text = f"""
func.func @k(%a: {acc}, %m: {mat}) {{
  %c0 = arith.constant 0 : index
  pto.textract ins(%a, %c0, %c0 : {acc}, index, index) outs(%m : {mat}) {{reluPreMode = #pto<relu_pre_mode normal_relu>}}
  return
}}
"""
    assert "'pto.textract' with reluPreMode normal_relu is not executed by pto-run yet" in str(run_error(text))


# --- scalars in global memory ----------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16", "i8", "i32", "i64"])
def test_load_scalar_and_store_scalar_move_one_element_bit_for_bit(dtype):
    text = f"""
func.func @k(%A: !pto.ptr<{dtype}>, %B: !pto.ptr<{dtype}>) -> {dtype} {{
  %c5 = arith.constant 5 : index
  %c2 = arith.constant 2 : index
  %v = pto.load_scalar %A[%c5] : !pto.ptr<{dtype}> -> {dtype}
  pto.store_scalar %v, %B[%c2] : !pto.ptr<{dtype}>, {dtype}
  return %v : {dtype}
}}
"""
    r = run(text)
    a, b = buffer(r, "%A"), buffer(r, "%B")
    assert a.array.size == 6 and b.array.size == 3  # each pointer as long as reached
    assert b.written and not a.written
    assert b.array[2].tobytes() == a.array[5].tobytes()
    assert r.scalars[0].value == a.values()[5]


def test_a_negative_scalar_offset_is_an_error_at_the_op():
    text = """
func.func @k(%A: !pto.ptr<f32>, %n: index) {
  %v = pto.load_scalar %A[%n] : !pto.ptr<f32> -> f32
  return
}
"""
    err = run_error(text, values={"n": -1})
    assert "'pto.load_scalar': offset -1 is negative" in str(err)
    assert err.position[1] == 3


# --- scalars in tiles ---------------------------------------------------------------------


def setval_kernel(tile: str, dtype: str, offset: int) -> str:
    return f"""
func.func @k(%x: {dtype}) -> ({tile}, {dtype}) {{
  %o = arith.constant {offset} : index
  %t = pto.alloc_tile : {tile}
  pto.tsetval ins(%o, %x : index, {dtype}) outs(%t : {tile})
  %g = pto.tgetval ins(%t, %o : {tile}, index) outs : {dtype}
  return %t, %g : {tile}, {dtype}
}}
"""


@pytest.mark.parametrize(
    "blayout, offset, element",
    [("row_major", 11, (1, 3)), ("col_major", 11, (3, 1))],  # 8 columns / 8 rows
)
def test_tsetval_writes_the_element_at_the_storage_offset_and_tgetval_reads_it(blayout, offset, element):
    tile = f"!pto.tile_buf<vec, 8x8xf32, blayout={blayout}>"
    r = run(setval_kernel(tile, "f32", offset), values={"x": 1.5})
    t = buffer(r, "return #0").array
    assert t[element] == np.float32(1.5)
    assert np.isnan(np.delete(t.reshape(-1), element[0] * 8 + element[1])).all()  # the rest: poison
    assert r.scalars[0].value == 1.5
    assert r.trace is None and r.warnings == []


def test_tsetval_rounds_nothing_a_bf16_value_is_stored_as_is():
    tile = "!pto.tile_buf<vec, 1x16xbf16>"
    value = float(bf16_bits_to_f32(np.array([0x3F81], dtype=np.uint16))[0])  # 1.0078125, exact in bf16
    r = run(setval_kernel(tile, "bf16", 15), values={"x": value})
    assert buffer(r, "return #0").array[0, 15] == 0x3F81
    assert r.scalars[0].value == value


def test_tgetval_of_an_element_never_written_warns_and_an_offset_beyond_the_tile_is_an_error():
    text = """
func.func @k(%o: index) -> i32 {
  %t = pto.alloc_tile : !pto.tile_buf<vec, 2x8xi32>
  %g = pto.tgetval ins(%t, %o : !pto.tile_buf<vec, 2x8xi32>, index) outs : i32
  return %g : i32
}
"""
    r = run(text, values={"o": 15})
    assert r.scalars[0].value == -1  # the poison pattern
    assert [w.message for w in r.warnings] == [
        "'pto.tgetval' reads 4 of the 4 bytes of operand 'src' (vec#1 [0, 64)) that were never written (they hold the poison pattern)"
    ]
    err = run_error(text, values={"o": 16})
    assert "'pto.tgetval': offset 16 is outside the tile (16 elements from its element (0, 0))" in str(err)


def test_scalar_ops_record_no_trace_event():
    text = """
func.func @k(%A: !pto.ptr<f32>, %X: !pto.partition_tensor_view<1x8xf32>) {
  %c0 = arith.constant 0 : index
  %t = pto.alloc_tile : !pto.tile_buf<vec, 1x8xf32>
  pto.tload ins(%X : !pto.partition_tensor_view<1x8xf32>) outs(%t : !pto.tile_buf<vec, 1x8xf32>)
  %v = pto.load_scalar %A[%c0] : !pto.ptr<f32> -> f32
  pto.tsetval ins(%c0, %v : index, f32) outs(%t : !pto.tile_buf<vec, 1x8xf32>)
  %g = pto.tgetval ins(%t, %c0 : !pto.tile_buf<vec, 1x8xf32>, index) outs : f32
  pto.store_scalar %g, %A[%c0] : !pto.ptr<f32>, f32
  pto.tstore ins(%t : !pto.tile_buf<vec, 1x8xf32>) outs(%X : !pto.partition_tensor_view<1x8xf32>)
  return
}
"""
    r = run(text, trace=True)
    assert [e.op for e in r.trace] == ["pto.tload", "pto.tstore"]
    assert buffer(r, "%X").array[0, 0] == buffer(r, "%A").array[0]


# --- fills ------------------------------------------------------------------------------------


def test_texpands_fills_the_valid_region_with_the_scalar_in_the_element_type():
    tile = "!pto.tile_buf<vec, 4x16xbf16, valid=?x?>"
    text = f"""
func.func @k(%x: f32) -> {tile} {{
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %s = arith.truncf %x : f32 to bf16
  %t = pto.alloc_tile valid_row = %c2 valid_col = %c5 : {tile}
  pto.texpands ins(%s : bf16) outs(%t : {tile})
  return %t : {tile}
}}
"""
    r = run(text, values={"x": 1.00390625})  # 1 + 2^-8: a tie, rounds to even (1.0) in bf16
    t = buffer(r, "return #0").array
    assert (t[:2, :5] == f32_to_bf16_bits(np.float32(1.0))).all()
    assert (t[2:, :] == 0xFFFF).all() and (t[:, 5:] == 0xFFFF).all()


def test_texpands_fills_a_whole_mat_tile():
    tile = "!pto.tile_buf<mat, 16x16xf16, valid=?x?, blayout=col_major, slayout=row_major>"
    text = f"""
func.func @k(%x: f16) -> {tile} {{
  %c1 = arith.constant 1 : index
  %t = pto.alloc_tile valid_row = %c1 valid_col = %c1 : {tile}
  pto.texpands ins(%x : f16) outs(%t : {tile})
  return %t : {tile}
}}
"""
    r = run(text, values={"x": -2.5})
    assert (buffer(r, "return #0").array == np.float16(-2.5)).all()


@pytest.mark.parametrize(
    "dtype, pad, expected",
    [
        ("f32", 1, 0.0),
        ("f16", 2, np.inf),
        ("f32", 3, -np.inf),
        ("i8", 2, 127),
        ("i16", 3, -32768),
        ("i32", 2, 2**31 - 1),
    ],
)
def test_tfillpad_copies_the_valid_region_and_fills_the_rest_of_dst_with_its_pad(dtype, pad, expected):
    cols = 32 // {"f32": 4, "f16": 2, "i8": 1, "i16": 2, "i32": 4}[dtype]
    src = f"!pto.tile_buf<vec, 8x{cols}x{dtype}, valid=?x?>"
    dst = f"!pto.tile_buf<vec, 8x{cols}x{dtype}, pad={pad}>"
    view = f"!pto.partition_tensor_view<3x5x{dtype}>"
    text = f"""
func.func @k(%X: {view}) -> {dst} {{
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %s = pto.alloc_tile valid_row = %c3 valid_col = %c5 : {src}
  pto.tload ins(%X : {view}) outs(%s : {src})
  %d = pto.alloc_tile : {dst}
  pto.tfillpad ins(%s : {src}) outs(%d : {dst})
  return %d : {dst}
}}
"""
    r = run(text, trace=True)
    x, d = buffer(r, "%X").array, buffer(r, "return #0").array
    assert np.array_equal(d[:3, :5], x)
    pad_region = np.ones(d.shape, dtype=bool)
    pad_region[:3, :5] = False
    assert (d[pad_region] == np.array(expected, dtype=d.dtype)).all()
    (event,) = [e for e in r.trace if e.op == "pto.tfillpad"]
    assert event.elements == d.size and sum(a.nbytes for a in event.writes) == d.nbytes  # the whole tile


def test_tfillpad_expands_into_a_larger_destination_and_refuses_a_null_pad():
    src = "!pto.tile_buf<vec, 2x16xbf16>"
    dst = "!pto.tile_buf<vec, 4x32xbf16, pad=3>"
    text = f"""
func.func @k(%X: !pto.partition_tensor_view<2x16xbf16>) -> {dst} {{
  %s = pto.alloc_tile : {src}
  pto.tload ins(%X : !pto.partition_tensor_view<2x16xbf16>) outs(%s : {src})
  %d = pto.alloc_tile : {dst}
  pto.tfillpad ins(%s : {src}) outs(%d : {dst})
  return %d : {dst}
}}
"""
    r = run(text)
    x, d = buffer(r, "%X").array, buffer(r, "return #0").array
    assert np.array_equal(d[:2, :16], x)
    assert (d[2:, :] == 0xFF80).all() and (d[:, 16:] == 0xFF80).all()  # -inf in bf16
    # a null pad is ptoas's verifier error, so the kernel never reaches pto-run
    with pytest.raises(ParseError, match="expects dst PadVal != Null for tfillpad"):
        parse_kernel(text.replace("pad=3", "pad=0").replace(", pad=0", ""))


def test_tfillpad_of_a_mat_tile_fills_zero_in_place_and_refuses_max():
    tile = "!pto.tile_buf<mat, 16x16xf16, valid=?x?, blayout=col_major, slayout=row_major, pad=1>"
    text = f"""
func.func @k(%x: f16) -> {tile} {{
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %t = pto.alloc_tile valid_row = %c16 valid_col = %c16 : {tile}
  pto.texpands ins(%x : f16) outs(%t : {tile})
  pto.set_validshape %t, %c3, %c3 : {tile}
  pto.tfillpad ins(%t : {tile}) outs(%t : {tile})
  return %t : {tile}
}}
"""
    t = buffer(run(text, values={"x": 1.0}), "return #0").array
    assert (t[:3, :3] == 1.0).all()
    t[:3, :3] = 0
    assert (t == 0).all()
    err = run_error(text.replace("pad=1>", "pad=2>"), values={"x": 1.0})
    assert "'pto.tfillpad': a mat tile is filled with zero only (pto-isa's TFILLPAD for mat tiles), not with max" in str(err)


@pytest.mark.parametrize(
    "dtype, start, descending, expected",
    [
        ("i32", 5, False, list(range(5, 21))),
        ("i32", 100, True, list(range(100, 84, -1))),
        ("i16", 32760, False, [32760 + j - (65536 if 32760 + j > 32767 else 0) for j in range(16)]),  # wraps
    ],
)
def test_tci_fills_the_valid_columns_with_an_arithmetic_sequence(dtype, start, descending, expected):
    tile = f"!pto.tile_buf<vec, 1x16x{dtype}, valid=1x?>"
    text = f"""
func.func @k(%n: index) -> {tile} {{
  %s = arith.constant {start} : {dtype}
  %t = pto.alloc_tile valid_col = %n : {tile}
  pto.tci ins(%s : {dtype}) outs(%t : {tile}) {{descending = {str(descending).lower()}}}
  return %t : {tile}
}}
"""
    t = buffer(run(text, values={"n": 16}), "return #0").array
    assert t.reshape(-1).tolist() == expected
    t = buffer(run(text, values={"n": 3}), "return #0").array
    assert t.reshape(-1)[:3].tolist() == expected[:3] and (t.reshape(-1)[3:] == -1).all()


def test_tci_needs_a_one_row_destination():
    tile = "!pto.tile_buf<vec, 2x8xi32>"
    text = f"""
func.func @k() {{
  %s = arith.constant 0 : i32
  %t = pto.alloc_tile : {tile}
  pto.tci ins(%s : i32) outs(%t : {tile})
  return
}}
"""
    assert "'pto.tci': the destination has 2 rows; tci fills a 1-row tile" in str(run_error(text))


# --- tgather ------------------------------------------------------------------------------------

SRC = "!pto.tile_buf<vec, 8x16xf32>"
IDX = "!pto.tile_buf<vec, 8x16xi32>"
SEQ = "!pto.tile_buf<vec, 1x128xi32>"


def gather_kernel(make_indices: str) -> str:
    return f"""
func.func @k(%X: !pto.partition_tensor_view<8x16xf32>) -> ({SRC}, {IDX}, {SRC}) {{
  %s = pto.alloc_tile : {SRC}
  pto.tload ins(%X : !pto.partition_tensor_view<8x16xf32>) outs(%s : {SRC})
  %ix = pto.alloc_tile : {IDX}
{make_indices}
  %tmp = pto.alloc_tile : {IDX}
  %d = pto.alloc_tile : {SRC}
  pto.tgather ins(%s, %ix, %tmp : {SRC}, {IDX}, {IDX}) outs(%d : {SRC})
  return %s, %ix, %d : {SRC}, {IDX}, {SRC}
}}
"""


PERMUTATION = """
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c37 = arith.constant 37 : index
  %c128 = arith.constant 128 : index
  scf.for %i = %c0 to %c128 step %c1 {
    %p = arith.muli %i, %c37 : index
    %k = arith.remui %p, %c128 : index
    %v = arith.index_cast %k : index to i32
    pto.tsetval ins(%i, %v : index, i32) outs(%ix : {IDX})
  }
""".replace("{IDX}", IDX)


def test_tgather_reads_src_at_each_row_major_index():
    r = run(gather_kernel(PERMUTATION))
    src, ix, dst = (buffer(r, f"return #{k}").array for k in range(3))
    assert sorted(ix.reshape(-1).tolist()) == list(range(128))
    assert np.array_equal(dst, src.reshape(-1)[ix])


def reversed_indices(shift: int) -> str:
    return f"""
  %start = arith.constant {127 + shift} : i32
  %seq = pto.alloc_tile : {SEQ}
  pto.tci ins(%start : i32) outs(%seq : {SEQ}) {{descending = true}}
  %ix = pto.treshape %seq : {SEQ} -> {IDX}"""


def test_tgather_by_reversed_indices_made_with_tci():
    text = gather_kernel(reversed_indices(0)).replace(f"  %ix = pto.alloc_tile : {IDX}\n", "")
    r = run(text)
    src, dst = buffer(r, "return #0").array, buffer(r, "return #2").array
    assert np.array_equal(dst.reshape(-1), src.reshape(-1)[::-1])


def test_tgather_index_out_of_range_is_an_error_naming_it():
    text = gather_kernel(reversed_indices(1)).replace(f"  %ix = pto.alloc_tile : {IDX}\n", "")
    err = run_error(text)
    assert "'pto.tgather': index 128 at (0, 0) is out of range [0, 128) for the source (8x16)" in str(err)
    assert err.position[1] == line_of(text, "pto.tgather")


SEGMENTS = "operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>"  # src and dst only


def mask_gather_kernel(pattern: str, axis: str, dst: str, cols: int = 16) -> str:
    # generic form: pto-opt does not read ptoas's `ins(%src, {maskPattern = ...} : T, "row")` yet
    src, view = f"!pto.tile_buf<vec, 4x{cols}xf32>", f"!pto.partition_tensor_view<4x{cols}xf32>"
    return f"""
func.func @k(%X: {view}) -> ({src}, {dst}) {{
  %s = pto.alloc_tile : {src}
  pto.tload ins(%X : {view}) outs(%s : {src})
  %d = pto.alloc_tile : {dst}
  "pto.tgather"(%s, %d) {{maskPattern = #pto.mask_pattern<{pattern}>, axis = "{axis}", {SEGMENTS}}} : ({src}, {dst}) -> ()
  return %s, %d : {src}, {dst}
}}
"""


@pytest.mark.parametrize(
    "pattern, keep",
    [("P0101", lambda i: i % 2 == 0), ("P1010", lambda i: i % 2 == 1), ("P0100", lambda i: i % 4 == 2), ("P1111", lambda i: True)],
)
def test_tgather_by_mask_packs_the_kept_columns_of_every_row(pattern, keep):
    # by row, dst holds src's rows, its columns the kept ones (ptoas's TGatherOp::verify)
    cols = [j for j in range(32) if keep(j)]
    dst = f"!pto.tile_buf<vec, 4x{len(cols)}xf32>"
    r = run(mask_gather_kernel(pattern, "row", dst, cols=32), trace=True)
    src, d = buffer(r, "return #0").array, buffer(r, "return #1").array
    assert np.array_equal(d, src[:, cols])


def test_tgather_by_mask_gathers_the_valid_rows_and_traces_the_bytes_written():
    # 3 valid rows x 8 kept columns = 24 elements; dst's fourth row is not written
    src = "!pto.tile_buf<vec, 4x32xf32, valid=3x32>"
    dst = "!pto.tile_buf<vec, 4x8xf32, valid=3x8>"
    text = f"""
func.func @k(%X: !pto.partition_tensor_view<3x32xf32>) -> ({src}, {dst}) {{
  %s = pto.alloc_tile : {src}
  pto.tload ins(%X : !pto.partition_tensor_view<3x32xf32>) outs(%s : {src})
  %d = pto.alloc_tile : {dst}
  "pto.tgather"(%s, %d) {{maskPattern = #pto.mask_pattern<P0001>, axis = "row", {SEGMENTS}}} : ({src}, {dst}) -> ()
  return %s, %d : {src}, {dst}
}}
"""
    r = run(text, trace=True)
    s, d = buffer(r, "return #0").array, buffer(r, "return #1").array
    assert np.array_equal(d[:3], s[:3, ::4])
    assert np.isnan(d[3]).all()
    (event,) = [e for e in r.trace if e.op == "pto.tgather"]
    assert event.elements == 24 and sum(a.nbytes for a in event.writes) == 24 * 4


def test_tgather_by_mask_along_col_keeps_rows():
    r = run(mask_gather_kernel("P1010", "col", "!pto.tile_buf<vec, 2x16xf32>"))
    src, d = buffer(r, "return #0").array, buffer(r, "return #1").array
    assert np.array_equal(d, src[[1, 3]])


def test_tgather_compare_form_is_not_executed_yet():
    text = f"""
func.func @k(%x: f32) {{
  %s = pto.alloc_tile : {SRC}
  %d = pto.alloc_tile : {IDX}
  %c = pto.alloc_tile : {IDX}
  %t = pto.alloc_tile : {IDX}
  pto.tgather ins(%s, %x, %t : {SRC}, f32, {IDX}) outs(%d, %c : {IDX}, {IDX}) {{cmpMode = #pto<cmp gt>, offset = 0 : i32}}
  return
}}
"""
    assert "'pto.tgather' in its compare form (cdst, kValue) is not executed by pto-run yet" in str(run_error(text, values={"x": 0.5}))


# --- ttrans, tconcat ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["f32", "bf16", "i8"])
def test_ttrans_transposes_the_valid_region(dtype):
    size = {"f32": 4, "bf16": 2, "i8": 1}[dtype]
    n = 32 // size  # one 32-byte row
    src = f"!pto.tile_buf<vec, {n}x{n}x{dtype}, valid=?x?>"
    dst = f"!pto.tile_buf<vec, {n}x{n}x{dtype}, valid=?x?>"
    tmp = f"!pto.tile_buf<vec, {n}x{n}x{dtype}>"
    view = f"!pto.partition_tensor_view<3x5x{dtype}>"
    text = f"""
func.func @k(%X: {view}) -> {dst} {{
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %s = pto.alloc_tile valid_row = %c3 valid_col = %c5 : {src}
  pto.tload ins(%X : {view}) outs(%s : {src})
  %tmp = pto.alloc_tile : {tmp}
  %d = pto.alloc_tile valid_row = %c5 valid_col = %c3 : {dst}
  pto.ttrans ins(%s, %tmp : {src}, {tmp}) outs(%d : {dst})
  return %d : {dst}
}}
"""
    r = run(text)
    x, d = buffer(r, "%X").array, buffer(r, "return #0").array
    assert np.array_equal(d[:5, :3], x.T)
    err = run_error(text.replace("valid_row = %c5 valid_col = %c3", "valid_row = %c3 valid_col = %c5"))
    assert "'pto.ttrans': the destination's valid region 3x5 is not 5x3, the transposed source's (3x5)" in str(err)


@pytest.mark.parametrize("arch, clobbered", [("a2a3", True), ("a5", False)])
def test_a_tmp_the_target_uses_is_left_poisoned(arch, clobbered):
    tmp = "!pto.tile_buf<vec, 1x64xf32>"
    row = "!pto.tile_buf<vec, 1x16xi32>"
    text = f"""
func.func @k() -> {tmp} {{
  %one = arith.constant 1.0 : f32
  %s = arith.constant 0 : i32
  %tmp = pto.alloc_tile : {tmp}
  pto.texpands ins(%one : f32) outs(%tmp : {tmp})
  %r = pto.alloc_tile : {row}
  pto.tci ins(%s, %tmp : i32, {tmp}) outs(%r : {row})
  return %tmp : {tmp}
}}
"""
    t = buffer(run(text, arch=arch), "return #0").array
    assert np.isnan(t).all() if clobbered else (t == 1.0).all()


def concat_kernel(dst_cols: str) -> str:
    a = "!pto.tile_buf<vec, 4x8xf32, valid=4x5>"
    b = "!pto.tile_buf<vec, 4x8xf32, valid=4x3>"
    d = f"!pto.tile_buf<vec, 4x16xf32, valid=4x{dst_cols}>"
    return f"""
func.func @k(%X: !pto.partition_tensor_view<4x5xf32>, %Y: !pto.partition_tensor_view<4x3xf32>) -> {d} {{
  %a = pto.alloc_tile : {a}
  %b = pto.alloc_tile : {b}
  pto.tload ins(%X : !pto.partition_tensor_view<4x5xf32>) outs(%a : {a})
  pto.tload ins(%Y : !pto.partition_tensor_view<4x3xf32>) outs(%b : {b})
  %d = pto.alloc_tile : {d}
  pto.tconcat ins(%a, %b : {a}, {b}) outs(%d : {d})
  return %d : {d}
}}
"""


@pytest.mark.parametrize("arch", ["a2a3", "a5"])
def test_tconcat_joins_the_valid_columns(arch):
    r = run(concat_kernel("8"), arch=arch)
    x, y, d = buffer(r, "%X").array, buffer(r, "%Y").array, buffer(r, "return #0").array
    assert np.array_equal(d[:, :8], np.concatenate([x, y], axis=1))
    assert np.isnan(d[:, 8:]).all()


def test_tconcat_columns_rule_depends_on_the_arch():
    r = run(concat_kernel("16"), arch="a2a3", trace=True)  # A2A3: vc0 + vc1 must fit dst's columns
    (event,) = [e for e in r.trace if e.op == "pto.tconcat"]
    assert sum(a.nbytes for a in event.writes) == 4 * 8 * 4  # the 8 columns written, not dst's 16 valid ones
    err = run_error(concat_kernel("16"), arch="a5")  # A5: dst's valid columns must be vc0 + vc1
    assert "'pto.tconcat': the destination's valid columns (16) are not 5 + 3 (on a5)" in str(err)
