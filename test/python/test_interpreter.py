"""The reference interpreter: op semantics, global memory through views, the
memory model (valid shapes, storage order, aliasing), control flow, errors
and the trace (pto_dialect.interpreter), on kernels in ptoas syntax."""

from __future__ import annotations

import numpy as np
import pytest
from interpreter_support import buffer, on_a5, run, run_error, verify_error

from pto_dialect.interpreter import compare
from pto_dialect.interpreter.elements import bf16_bits_to_f32, convert, f32_to_bf16_bits
from pto_dialect.interpreter.inputs import FILL_BLOCK, fill
from pto_dialect.support.diagnostics import location_position


def tile(dtype: str, shape: str = "4x32", extra: str = "") -> str:
    return f"!pto.tile_buf<vec, {shape}x{dtype}{extra}>"


def view(dtype: str, shape: str = "4x32") -> str:
    return f"!pto.partition_tensor_view<{shape}x{dtype}>"


def elementwise_kernel(op: str, dtype: str) -> str:
    """dst = op(A, B) on 4x32 tiles loaded from and stored to partition arguments."""
    t, v = tile(dtype), view(dtype)
    return f"""
func.func @k(%A: {v}, %B: {v}, %O: {v}) {{
  %a = pto.alloc_tile : {t}
  %b = pto.alloc_tile : {t}
  %d = pto.alloc_tile : {t}
  pto.tload ins(%A : {v}) outs(%a : {t})
  pto.tload ins(%B : {v}) outs(%b : {t})
  pto.{op} ins(%a, %b : {t}, {t}) outs(%d : {t})
  pto.tstore ins(%d : {t}) outs(%O : {v})
  return
}}
"""


# --- element types -------------------------------------------------------------------


def test_bf16_rounds_to_nearest_even_and_keeps_nan_and_overflows_to_inf():
    one = 1.0
    ulp = 2.0**-7  # bf16 has 7 explicit mantissa bits
    values = np.array([one + ulp / 2, one + 3 * ulp / 2, one + ulp / 2 + 2**-20, np.nan, 3.4e38, -0.0], dtype=np.float32)
    back = bf16_bits_to_f32(f32_to_bf16_bits(values))
    assert back[0] == one  # tie -> even (1.0)
    assert back[1] == one + 2 * ulp  # tie -> even (1 + 2 ulp)
    assert back[2] == one + ulp  # above the tie -> up
    assert np.isnan(back[3])
    assert np.isinf(back[4])
    assert np.signbit(back[5])


def test_float_to_int_conversion_rounds_as_asked_saturates_and_maps_nan_to_zero():
    x = np.array([2.7, -2.7, 2.5, -2.5, 1e10, -1e10, np.nan], dtype=np.float32)
    assert convert(x, "f32", "i32").tolist() == [2, -2, 2, -2, 2**31 - 1, -(2**31), 0]
    assert convert(x, "f32", "i8").tolist() == [2, -2, 2, -2, 127, -128, 0]
    assert convert(x, "f32", "i32", "rint").tolist()[:4] == [3, -3, 2, -2]
    assert convert(x, "f32", "i32", "round").tolist()[:4] == [3, -3, 3, -3]
    assert convert(x, "f32", "i32", "floor").tolist()[:4] == [2, -3, 2, -3]


@pytest.mark.parametrize(
    "op, dtype, reference",
    [
        ("tadd", "f32", lambda a, b: (a + b).astype(np.float32)),
        ("tsub", "f16", lambda a, b: (a - b).astype(np.float16)),
        ("tmul", "f16", lambda a, b: (a * b).astype(np.float16)),
        ("tmax", "i32", np.maximum),
        ("tmin", "i8", np.minimum),  # i8: a5 only (as bf16 below)
        ("tadd", "i8", lambda a, b: (a.astype(np.int8) + b.astype(np.int8)).astype(np.int8)),
        ("tmul", "i16", lambda a, b: (a.astype(np.int16) * b.astype(np.int16)).astype(np.int16)),
    ],
)
def test_binary_ops_compute_in_the_element_type(op, dtype, reference):
    text = elementwise_kernel(op, dtype)
    r = run(on_a5(text) if dtype == "i8" else text)
    a, b = buffer(r, "%A").values(), buffer(r, "%B").values()
    out = buffer(r, "%O")
    assert out.array.dtype == a.dtype
    assert np.array_equal(out.values(), reference(a, b))


def test_f16_stays_f16():
    # 2048 + 1 is not representable in f16: the sum rounds back to 2048
    t, v = tile("f16", "1x16"), view("f16", "1x16")
    text = f"""
func.func @k(%O: {v}) {{
  %big = arith.constant 2048.0 : f16
  %one = arith.constant 1.0 : f16
  %t = pto.alloc_tile : {t}
  pto.tload ins(%O : {v}) outs(%t : {t})
  pto.tmuls ins(%t, %one : {t}, f16) outs(%t : {t})
  pto.tsub ins(%t, %t : {t}, {t}) outs(%t : {t})
  pto.tadds ins(%t, %big : {t}, f16) outs(%t : {t})
  pto.tadds ins(%t, %one : {t}, f16) outs(%t : {t})
  pto.tstore ins(%t : {t}) outs(%O : {v})
  return
}}
"""
    out = buffer(run(text), "%O")
    assert out.array.dtype == np.float16
    assert (out.values() == 2048).all()


def test_bf16_results_have_bf16_precision():
    r = run(on_a5(elementwise_kernel("tadd", "bf16")))
    a = bf16_bits_to_f32(buffer(r, "%A").array)
    b = bf16_bits_to_f32(buffer(r, "%B").array)
    out = buffer(r, "%O")
    assert out.array.dtype == np.uint16  # stored as bit patterns
    assert np.array_equal(out.array, f32_to_bf16_bits(a + b))


def test_integer_ops_wrap():
    t, v = tile("i8", "1x32"), view("i8", "1x32")
    text = f"""
func.func @k(%I: {v}, %O: {v}) {{
  %s = arith.constant 100 : i8
  %t = pto.alloc_tile : {t}
  pto.tload ins(%I : {v}) outs(%t : {t})
  pto.tadds ins(%t, %s : {t}, i8) outs(%t : {t})
  pto.tneg ins(%t : {t}) outs(%t : {t})
  pto.tstore ins(%t : {t}) outs(%O : {v})
  return
}}
"""
    r = run(on_a5(text))  # i8 arithmetic is a5's
    src = buffer(r, "%I").values().astype(np.int64)
    wrapped = src + 100 - 256 * (src + 100 > 127)
    expected = np.where(wrapped == -128, -128, -wrapped)  # -(-128) wraps to -128
    assert (src + 100 > 127).any()  # the seed exercises the wrap
    assert np.array_equal(buffer(r, "%O").values(), expected)


def test_unary_ops_and_scalar_ops():
    t, v = tile("f32"), view("f32")
    text = f"""
func.func @k(%A: {v}, %E: {v}, %R: {v}, %S: {v}) {{
  %half = arith.constant 0.5 : f32
  %a = pto.alloc_tile : {t}
  %e = pto.alloc_tile : {t}
  pto.tload ins(%A : {v}) outs(%a : {t})
  pto.texp ins(%a : {t}) outs(%e : {t})
  pto.tstore ins(%e : {t}) outs(%E : {v})
  pto.trelu ins(%a : {t}) outs(%e : {t})
  pto.tstore ins(%e : {t}) outs(%R : {v})
  pto.tmuls ins(%a, %half : {t}, f32) outs(%e : {t})
  pto.tstore ins(%e : {t}) outs(%S : {v})
  return
}}
"""
    r = run(text)
    a = buffer(r, "%A").values()
    # exp in double rounded once to f32, as pto-isa's CPU simulator computes it
    assert np.array_equal(buffer(r, "%E").values(), np.exp(a.astype(np.float64)).astype(np.float32))
    assert np.array_equal(buffer(r, "%R").values(), np.maximum(a, 0))
    assert np.array_equal(buffer(r, "%S").values(), a * np.float32(0.5))


def test_tcvt_rounds_ties_by_its_rmode():
    # 2.5 and -2.5 everywhere: CAST_RINT (ptoas's default) gives 2 and -2,
    # ROUND 3 and -3, CEIL 3 and -2
    f, i, vf, vi = tile("f32", "1x8"), tile("i32", "1x8"), view("f32", "1x8"), view("i32", "1x8")
    for rmode, pos, neg in [("", 2, -2), ("ROUND", 3, -3), ("CEIL", 3, -2)]:
        attr = f" {{rmode = #pto<round_mode {rmode}>}}" if rmode else ""
        text = f"""
func.func @k(%A: {vf}, %P: {vi}, %N: {vi}) {{
  %c = arith.constant 2.5 : f32
  %m = arith.constant -2.5 : f32
  %t = pto.alloc_tile : {f}
  %u = pto.alloc_tile : {i}
  pto.tload ins(%A : {vf}) outs(%t : {f})
  pto.tsub ins(%t, %t : {f}, {f}) outs(%t : {f})
  pto.tadds ins(%t, %c : {f}, f32) outs(%t : {f})
  pto.tcvt ins(%t{attr} : {f}) outs(%u : {i})
  pto.tstore ins(%u : {i}) outs(%P : {vi})
  pto.tsub ins(%t, %t : {f}, {f}) outs(%t : {f})
  pto.tadds ins(%t, %m : {f}, f32) outs(%t : {f})
  pto.tcvt ins(%t{attr} : {f}) outs(%u : {i})
  pto.tstore ins(%u : {i}) outs(%N : {vi})
  return
}}
"""
        r = run(text)
        assert (buffer(r, "%P").values() == pos).all(), rmode
        assert (buffer(r, "%N").values() == neg).all(), rmode


def test_texp_on_integers_is_an_error():
    t, v = tile("i32"), view("i32")
    text = f"""
func.func @k(%A: {v}) {{
  %a = pto.alloc_tile : {t}
  pto.tload ins(%A : {v}) outs(%a : {t})
  pto.texp ins(%a : {t}) outs(%a : {t})
  return
}}
"""
    # ptoas's verifier refuses it, and so does ours, before anything runs
    assert verify_error(text) == "<string>:5:3: error: 'pto.texp' op expects element type to be f16 or f32"


MATMUL = """
!m = !pto.tile_buf<mat, 8x32x{it}>
!mb = !pto.tile_buf<mat, 32x32x{it}>
!l = !pto.tile_buf<left, 8x32x{it}>
!r = !pto.tile_buf<right, 32x32x{it}>
!acc = !pto.tile_buf<acc, 8x32x{ot}>
func.func @k(%A: !pto.partition_tensor_view<8x32x{it}>, %B: !pto.partition_tensor_view<32x32x{it}>, %O: !pto.partition_tensor_view<8x32x{ot}>) {{
  %am = pto.alloc_tile : !m
  %bm = pto.alloc_tile : !mb
  pto.tload ins(%A : !pto.partition_tensor_view<8x32x{it}>) outs(%am : !m)
  pto.tload ins(%B : !pto.partition_tensor_view<32x32x{it}>) outs(%bm : !mb)
  %l = pto.alloc_tile : !l
  %r = pto.alloc_tile : !r
  pto.tmov ins(%am : !m) outs(%l : !l)
  pto.tmov ins(%bm : !mb) outs(%r : !r)
  %acc = pto.alloc_tile : !acc
  pto.tmatmul ins(%l, %r : !l, !r) outs(%acc : !acc)
  pto.tmatmul.acc ins(%acc, %l, %r : !acc, !l, !r) outs(%acc : !acc)
  pto.tstore ins(%acc : !acc) outs(%O : !pto.partition_tensor_view<8x32x{ot}>)
  return
}}
"""


def simulated_matmul(a: np.ndarray, b: np.ndarray, acc: np.ndarray | None = None) -> np.ndarray:
    """What pto-isa's CPU simulator computes (include/pto/cpu/TMatmul.hpp):
    per element a running f32 sum over k of fused multiply-adds (the f64
    sum of an exact product and an f32 rounds once), then + acc in f32."""
    a, b = a.astype(np.float32).astype(np.float64), b.astype(np.float32).astype(np.float64)
    total = np.zeros((a.shape[0], b.shape[1]), dtype=np.float32)
    for k in range(a.shape[1]):
        total = (np.outer(a[:, k], b[k, :]) + total).astype(np.float32)
    return total if acc is None else acc.astype(np.float32) + total


def test_matmul_f16_into_f32_accumulates_in_place():
    r = run(MATMUL.format(it="f16", ot="f32"))
    a, b = buffer(r, "%A").values(), buffer(r, "%B").values()
    assert np.array_equal(buffer(r, "%O").values(), simulated_matmul(a, b, simulated_matmul(a, b)))


def test_matmul_i8_into_i32_wraps_like_int32():
    r = run(MATMUL.format(it="i8", ot="i32"))
    a, b = buffer(r, "%A").values().astype(np.int64), buffer(r, "%B").values().astype(np.int64)
    assert np.array_equal(buffer(r, "%O").values(), ((a @ b) * 2).astype(np.int32))


def test_matmul_acc_reads_acc_in_from_another_tile_at_the_same_address():
    # PyPTO's form: acc_in and dst are two allocs at one address; the
    # accumulator is read before the result overwrites it.
    text = MATMUL.format(it="f16", ot="f32").replace(
        "  %acc = pto.alloc_tile : !acc\n",
        "  %a0 = arith.constant 0 : i64\n  %acc = pto.alloc_tile addr = %a0 : !acc\n  %acc2 = pto.alloc_tile addr = %a0 : !acc\n",
    ).replace("pto.tmatmul.acc ins(%acc, %l, %r : !acc, !l, !r) outs(%acc : !acc)", "pto.tmatmul.acc ins(%acc, %l, %r : !acc, !l, !r) outs(%acc2 : !acc)")
    r = run(text)
    a, b = buffer(r, "%A").values(), buffer(r, "%B").values()
    assert np.array_equal(buffer(r, "%O").values(), simulated_matmul(a, b, simulated_matmul(a, b)))


def test_matmul_computes_on_the_valid_regions():
    # M x K = 4 x 16 of the left tile, N = 8 of the right tile's columns:
    # dst[:4, :8] = A[:4, :16] @ B[:16, :8]; the rest of dst keeps its bytes.
    text = MATMUL.format(it="f32", ot="f32")
    text = text.replace("!l = !pto.tile_buf<left, 8x32xf32>", "!l = !pto.tile_buf<left, 8x32xf32, valid=?x?>").replace(
        "!r = !pto.tile_buf<right, 32x32xf32>", "!r = !pto.tile_buf<right, 32x32xf32, valid=?x?>"
    )
    text = text.replace(
        "  %l = pto.alloc_tile : !l\n  %r = pto.alloc_tile : !r\n",
        "  %c4 = arith.constant 4 : index\n  %c8 = arith.constant 8 : index\n  %c16 = arith.constant 16 : index\n"
        "  %c32 = arith.constant 32 : index\n"
        "  %l = pto.alloc_tile valid_row = %c8 valid_col = %c32 : !l\n  %r = pto.alloc_tile valid_row = %c32 valid_col = %c32 : !r\n",
    )
    text = text.replace(
        "  pto.tmatmul ins(%l, %r : !l, !r) outs(%acc : !acc)\n",
        "  pto.tmatmul ins(%l, %r : !l, !r) outs(%acc : !acc)\n"
        "  pto.set_validshape %l, %c4, %c16 : !l\n  pto.set_validshape %r, %c32, %c8 : !r\n",
    )
    r = run(text)
    a, b = buffer(r, "%A").values(), buffer(r, "%B").values()
    full = simulated_matmul(a, b)
    out = buffer(r, "%O").values()
    corner = simulated_matmul(a[:4, :16], b[:16, :8], full[:4, :8])
    assert np.array_equal(out[:4, :8], corner)
    assert np.array_equal(out[4:], full[4:]) and np.array_equal(out[:, 8:], full[:, 8:])


# --- global memory through views ----------------------------------------------------------


def test_a_pointer_buffer_is_as_long_as_its_views_reach_and_its_fill_does_not_depend_on_when_it_grew():
    # %a reaches 3 * 16 + 31 + 1 = 80 elements, %b 8000: the buffer grows at
    # the second view, across fill blocks.
    small_first = """
func.func @k(%P: !pto.ptr<f32>, %Q: !pto.ptr<f32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c250 = arith.constant 250 : index
  %a = pto.make_tensor_view %P, shape = [%c4, %c32], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %b = pto.make_tensor_view %P, shape = [%c250, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf32>
  %q = pto.make_tensor_view %Q, shape = [%c4, %c32], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  return
}
"""
    r = run(small_first)
    assert FILL_BLOCK < 8000
    assert buffer(r, "%P").array.shape == (8000,)
    assert buffer(r, "%Q").array.shape == (80,)
    large_only = small_first.replace("  %a = pto.make_tensor_view %P, shape = [%c4, %c32], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>\n", "")
    assert np.array_equal(run(large_only).buffers[0].array, buffer(r, "%P").array)
    # another argument position (or another seed) is other data
    assert not np.array_equal(buffer(r, "%P").array[:80], buffer(r, "%Q").array)
    assert not np.array_equal(run(small_first, seed=1).buffers[0].array, buffer(r, "%P").array)


def test_partition_views_are_strided_blocks_with_loop_dependent_offsets():
    # Column block j of a 16x64 matrix (stride 64) into tile j, then stored
    # transposed by rows into a second pointer.
    t, pv = tile("f32", "16x16"), view("f32", "16x16")
    text = f"""
func.func @k(%A: !pto.ptr<f32>, %B: !pto.ptr<f32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %a = pto.make_tensor_view %A, shape = [%c16, %c64], strides = [%c64, %c1] {{layout = #pto.layout<nd>}} : !pto.tensor_view<?x?xf32>
  %b = pto.make_tensor_view %B, shape = [%c64, %c16], strides = [%c16, %c1] {{layout = #pto.layout<nd>}} : !pto.tensor_view<?x?xf32>
  scf.for %j = %c0 to %c4 step %c1 {{
    %col = arith.muli %j, %c16 : index
    %p = pto.partition_view %a, offsets = [%c0, %col], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32> -> {pv}
    %q = pto.partition_view %b, offsets = [%col, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32> -> {pv}
    %t = pto.alloc_tile : {t}
    pto.tload ins(%p : {pv}) outs(%t : {t})
    pto.tstore ins(%t : {t}) outs(%q : {pv})
  }} {{pto.pipeline_stages = 2 : i64}}
  return
}}
"""
    r = run(text, trace=True)
    a = buffer(r, "%A").values().reshape(16, 64)
    b = buffer(r, "%B").values().reshape(64, 16)
    assert np.array_equal(b, np.concatenate([a[:, 16 * j : 16 * j + 16] for j in range(4)]))
    load = [e for e in r.trace if e.op == "pto.tload"][1]  # column block 1: 16 rows of 64 bytes, 256 apart
    (gm,) = load.reads
    assert (gm.buffer, gm.start, gm.stop, gm.rows, gm.pitch) == ("%A", 64, 128, 16, 256)
    store = [e for e in r.trace if e.op == "pto.tstore"][1]  # rows 16..31 of %B: one run
    assert [(a.start, a.stop, a.rows) for a in store.writes] == [(1024, 2048, 1)]


def test_a_partition_out_of_bounds_is_an_error_naming_the_buffer():
    text = """
func.func @k(%A: !pto.ptr<f32>, %r: index, %c: index) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %a = pto.make_tensor_view %A, shape = [%c4, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
  %p = pto.partition_view %a, offsets = [%r, %c], sizes = [%c4, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<4x8xf32>
  return
}
"""
    err = run_error(text, values={"r": 1, "c": 0})
    assert err.message == "'pto.partition_view': partition [1:5, 0:8] is out of bounds of %A's tensor_view (4x8)"
    assert err.position[1:] == (7, 8)
    assert "partition [0:4, -1:7]" in run_error(text, values={"r": 0, "c": -1}).message
    run(text, values={"r": 0, "c": 0})


def test_a_partition_whose_shape_is_not_the_tiles_valid_region_is_an_error():
    t = tile("f32", "8x32", ", valid=?x32")
    text = f"""
func.func @k(%A: !pto.partition_tensor_view<4x32xf32>, %rows: index) {{
  %t = pto.alloc_tile valid_row = %rows : {t}
  pto.tload ins(%A : !pto.partition_tensor_view<4x32xf32>) outs(%t : {t})
  pto.tstore ins(%t : {t}) outs(%A : !pto.partition_tensor_view<4x32xf32>)
  return
}}
"""
    err = run_error(text, values={"rows": 8})
    assert "does not match the valid region 8x32" in err.message and err.position[1] == 4
    r = run(text, values={"rows": 4})
    assert not r.warnings


def test_a_rank_1_partition_is_one_row_and_a_rank_3_one_is_rows_of_its_last_dimension():
    text = """
func.func @k(%A: !pto.partition_tensor_view<8xf32>, %B: !pto.partition_tensor_view<2x2x8xf32>, %O: !pto.partition_tensor_view<2x2x8xf32>) {
  %r = pto.alloc_tile : !pto.tile_buf<vec, 1x8xf32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 4x8xf32>
  pto.tload ins(%A : !pto.partition_tensor_view<8xf32>) outs(%r : !pto.tile_buf<vec, 1x8xf32>)
  pto.tload ins(%B : !pto.partition_tensor_view<2x2x8xf32>) outs(%t : !pto.tile_buf<vec, 4x8xf32>)
  pto.tstore ins(%t : !pto.tile_buf<vec, 4x8xf32>) outs(%O : !pto.partition_tensor_view<2x2x8xf32>)
  return
}
"""
    r = run(text)
    assert np.array_equal(buffer(r, "%O").values(), buffer(r, "%B").values())


def test_tstore_atomic_add_adds_to_global_memory():
    t, v = tile("f32"), view("f32")
    text = f"""
func.func @k(%A: {v}, %O: {v}) {{
  %t = pto.alloc_tile : {t}
  pto.tload ins(%A : {v}) outs(%t : {t})
  pto.tstore ins(%t : {t}) outs(%O : {v}) {{atomicType = #pto<atomic_type atomic_add>}}
  return
}}
"""
    r = run(text)
    inputs = run(text.replace(" {atomicType = #pto<atomic_type atomic_add>}", "").replace("outs(%O", "outs(%A"))
    assert np.array_equal(buffer(r, "%O").values(), buffer(inputs, "%A").values() + buffer(inputs, "%O").values())


# --- valid shapes, storage order, views ------------------------------------------------------


def test_element_wise_ops_write_only_the_destinations_valid_region():
    # %d (valid 2x16 of 4x32) aliases %full at the same address: tadd writes
    # rows 0..1, columns 0..15; every other byte keeps the load of %B.
    full, part, v = tile("f32"), tile("f32", "4x32", ", valid=?x?"), view("f32")
    text = f"""
func.func @k(%A: {v}, %B: {v}, %O: {v}) {{
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %at = arith.constant 4096 : i64
  %a = pto.alloc_tile valid_row = %c4 valid_col = %c32 : {part}
  pto.tload ins(%A : {v}) outs(%a : {part})
  %full = pto.alloc_tile addr = %at : {full}
  pto.tload ins(%B : {v}) outs(%full : {full})
  %d = pto.alloc_tile addr = %at valid_row = %c2 valid_col = %c16 : {part}
  pto.tadd ins(%a, %a : {part}, {part}) outs(%d : {part})
  pto.tstore ins(%full : {full}) outs(%O : {v})
  return
}}
"""
    r = run(text)
    a, b, o = (buffer(r, n).values() for n in ("%A", "%B", "%O"))
    expected = b.copy()
    expected[:2, :16] = a[:2, :16] * 2
    assert np.array_equal(o, expected)
    assert not r.warnings


def test_a_source_whose_valid_region_does_not_cover_the_destinations_is_read_with_a_warning():
    # dst's valid region is the domain: rows of %a beyond its own valid
    # region are read as stored (as the vector unit does, and PyPTO kernels
    # rely on), with a warning at the op; past the tile's shape is an error.
    t, v = tile("f32", "4x32", ", valid=?x?"), view("f32")
    text = f"""
func.func @k(%A: {v}, %r: index) {{
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %a = pto.alloc_tile valid_row = %c4 valid_col = %c32 : {t}
  pto.tload ins(%A : {v}) outs(%a : {t})
  pto.set_validshape %a, %r, %c32 : {t}
  %d = pto.alloc_tile valid_row = %c4 valid_col = %c32 : {t}
  pto.texp ins(%a : {t}) outs(%d : {t})
  return
}}
"""
    short = run(text, values={"r": 2})
    (warning,) = short.warnings
    assert warning.message == (
        "'pto.texp' reads 4x32 elements of operand 'src', past its valid region 2x32: the result there is whatever those bytes hold"
    )
    assert location_position(warning.location)[1] == 9
    assert not run(text, values={"r": 4}).warnings


def test_set_validshape_changes_the_region_ops_act_on():
    t, v = tile("f32", "4x32", ", valid=?x?"), view("f32")
    text = f"""
func.func @k(%A: {v}, %O: {v}, %r: index, %c: index) {{
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %s = arith.constant 3.0 : f32
  %t = pto.alloc_tile valid_row = %c4 valid_col = %c32 : {t}
  pto.tload ins(%A : {v}) outs(%t : {t})
  pto.set_validshape %t, %r, %c : {t}
  pto.tmuls ins(%t, %s : {t}, f32) outs(%t : {t})
  pto.set_validshape %t, %c4, %c32 : {t}
  pto.tstore ins(%t : {t}) outs(%O : {v})
  return
}}
"""
    r = run(text, values={"r": 3, "c": 8})
    a, o = buffer(r, "%A").values(), buffer(r, "%O").values()
    expected = a.copy()
    expected[:3, :8] *= np.float32(3)
    assert np.array_equal(o, expected)
    err = run_error(text, values={"r": 5, "c": 8})
    assert "valid_row 5 is outside [0, 4]" in err.message and err.position[1] == 8


def test_col_major_storage_aliased_through_treshape_is_the_transpose():
    # Row-major 8x32: element (r, c) at r * 32 + c. The same bytes as a
    # col-major 32x8 tile: element (r, c) at c * 32 + r, i.e. (c, r) of the first.
    row, col = tile("f32", "8x32"), tile("f32", "32x8", ", blayout=col_major")
    text = f"""
func.func @k(%A: {view("f32", "8x32")}, %T: {view("f32", "32x8")}) {{
  %t = pto.alloc_tile : {row}
  pto.tload ins(%A : {view("f32", "8x32")}) outs(%t : {row})
  %u = pto.treshape %t : {row} -> {col}
  pto.tstore ins(%u : {col}) outs(%T : {view("f32", "32x8")})
  return
}}
"""
    r = run(text)
    assert np.array_equal(buffer(r, "%T").values(), buffer(r, "%A").values().T)


def test_col_major_tiles_at_one_address_alias_byte_exactly():
    # A tile loaded as col-major 32x8 and read back as row-major 8x32 at the same address.
    row, col = tile("f32", "8x32"), tile("f32", "32x8", ", blayout=col_major")
    text = f"""
func.func @k(%A: {view("f32", "32x8")}, %T: {view("f32", "8x32")}) {{
  %at = arith.constant 1024 : i64
  %u = pto.alloc_tile addr = %at : {col}
  pto.tload ins(%A : {view("f32", "32x8")}) outs(%u : {col})
  %t = pto.alloc_tile addr = %at : {row}
  pto.tstore ins(%t : {row}) outs(%T : {view("f32", "8x32")})
  return
}}
"""
    r = run(text)
    assert np.array_equal(buffer(r, "%T").values(), buffer(r, "%A").values().T)


def test_a_subview_is_a_window_of_its_sources_bytes():
    t, w, v = tile("f32", "8x32"), tile("f32", "4x8"), view("f32", "8x32")
    text = f"""
func.func @k(%A: {v}, %O: {v}, %i: index, %j: index) {{
  %s = arith.constant 10.0 : f32
  %t = pto.alloc_tile : {t}
  pto.tload ins(%A : {v}) outs(%t : {t})
  %w = pto.subview %t[%i, %j] sizes [4, 8] : {t} -> {w}
  pto.tadds ins(%w, %s : {w}, f32) outs(%w : {w})
  pto.tstore ins(%t : {t}) outs(%O : {v})
  return
}}
"""
    r = run(text, values={"i": 2, "j": 16}, trace=True)
    a, o = buffer(r, "%A").values(), buffer(r, "%O").values()
    expected = a.copy()
    expected[2:6, 16:24] += np.float32(10)
    assert np.array_equal(o, expected)
    (add,) = [e for e in r.trace if e.op == "pto.tadds"]
    (window,) = add.writes  # 4 rows of 32 bytes, 128 apart, from byte (2 * 32 + 16) * 4
    assert (window.start, window.stop, window.rows, window.pitch) == (320, 352, 4, 128)
    assert "out of bounds of the source tile (8x32)" in run_error(text, values={"i": 5, "j": 0}).message


def test_multi_tile_slots_take_the_regions_valid_shape():
    t, v = tile("f32", "4x32", ", valid=?x?"), view("f32")
    mb = f"!pto.multi_tile_buf<{t}, count=2>"
    text = f"""
func.func @k(%A: {v}, %O: {v}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c2 = arith.constant 2 : index
  %full = pto.alloc_tile valid_row = %c4 valid_col = %c32 : {t}
  pto.tload ins(%A : {v}) outs(%full : {t})
  %mb = pto.alloc_multi_tile valid_row = %c2 valid_col = %c32 : {mb}
  %s1 = pto.multi_tile_get %mb[%c1] : {mb} -> {t}
  pto.tmov ins(%full : {t}) outs(%s1 : {t})
  pto.tadd ins(%s1, %s1 : {t}, {t}) outs(%s1 : {t})
  pto.set_validshape %full, %c2, %c32 : {t}
  pto.tmov ins(%s1 : {t}) outs(%full : {t})
  pto.set_validshape %full, %c4, %c32 : {t}
  pto.tstore ins(%full : {t}) outs(%O : {v})
  return
}}
"""
    r = run(text)
    a, o = buffer(r, "%A").values(), buffer(r, "%O").values()
    assert np.array_equal(o[:2], a[:2] * 2) and np.array_equal(o[2:], a[2:])


# --- memory model -----------------------------------------------------------------------


def test_overlapping_addressed_tiles_clobber_each_other():
    # %y starts 256 bytes (2 rows of 32 f32) into %x: writing %y changes rows 2..3 of %x
    t, v = tile("f32"), view("f32")
    text = f"""
func.func @k(%A: {v}, %B: {v}, %O: {v}) {{
  %a0 = arith.constant 0 : i64
  %a256 = arith.constant 256 : i64
  %x = pto.alloc_tile addr = %a0 : {t}
  %y = pto.alloc_tile addr = %a256 : {t}
  pto.tload ins(%A : {v}) outs(%x : {t})
  pto.tload ins(%B : {v}) outs(%y : {t})
  pto.tstore ins(%x : {t}) outs(%O : {v})
  return
}}
"""
    r = run(text)
    a, b, o = (buffer(r, n).values() for n in ("%A", "%B", "%O"))
    assert np.array_equal(o[:2], a[:2])
    assert np.array_equal(o[2:], b[:2])


def test_an_unaddressed_tile_is_one_buffer_across_iterations():
    # the tile is loaded only in the first iteration; later ones find it
    t, v = tile("f32"), view("f32")
    text = f"""
func.func @k(%A: {v}, %O: {v}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c3 step %c1 {{
    %t = pto.alloc_tile : {t}
    %first = arith.cmpi eq, %i, %c0 : index
    scf.if %first {{
      pto.tload ins(%A : {v}) outs(%t : {t})
    }}
    pto.tadd ins(%t, %t : {t}, {t}) outs(%t : {t})
    pto.tstore ins(%t : {t}) outs(%O : {v})
  }}
  return
}}
"""
    r = run(text)
    assert not r.warnings
    assert np.array_equal(buffer(r, "%O").values(), buffer(r, "%A").values() * 8)


def test_reading_never_written_tile_memory_warns_at_the_op():
    t, v = tile("f32"), view("f32")
    text = f"""
func.func @k(%O: {v}) {{
  %t = pto.alloc_tile : {t}
  pto.tstore ins(%t : {t}) outs(%O : {v})
  pto.tstore ins(%t : {t}) outs(%O : {v})
  return
}}
"""
    r = run(text)
    assert len(r.warnings) == 2  # once per op, not once per execution
    assert [location_position(w.location)[1] for w in r.warnings] == [4, 5]
    assert "reads 512 of the 512 bytes of operand 'src'" in r.warnings[0].message
    assert np.isnan(buffer(r, "%O").values()).all()  # the poison pattern is NaN for floats


def test_multi_tile_slots_are_distinct_and_at_addr_plus_k_stride():
    # 4x32xf16 = 256 bytes -> stride 256 in vec (align 32); slot 1 at 512 + 256
    t, v = tile("f16"), view("f16")
    mb = f"!pto.multi_tile_buf<{t}, count=2>"
    text = f"""
func.func @k(%A: !pto.tensor_view<8x32xf16>, %O: !pto.tensor_view<8x32xf16>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %base = arith.constant 512 : i64
  %at = arith.constant 768 : i64
  %lo = pto.partition_view %A, offsets = [%c0, %c0], sizes = [%c4, %c32] : !pto.tensor_view<8x32xf16> -> {v}
  %hi = pto.partition_view %A, offsets = [%c4, %c0], sizes = [%c4, %c32] : !pto.tensor_view<8x32xf16> -> {v}
  %olo = pto.partition_view %O, offsets = [%c0, %c0], sizes = [%c4, %c32] : !pto.tensor_view<8x32xf16> -> {v}
  %ohi = pto.partition_view %O, offsets = [%c4, %c0], sizes = [%c4, %c32] : !pto.tensor_view<8x32xf16> -> {v}
  %mb = pto.alloc_multi_tile addr = %base : {mb}
  %s0 = pto.multi_tile_get %mb[%c0] : {mb} -> {t}
  %s1 = pto.multi_tile_get %mb[%c1] : {mb} -> {t}
  %alias = pto.alloc_tile addr = %at : {t}
  pto.tload ins(%lo : {v}) outs(%s0 : {t})
  pto.tload ins(%hi : {v}) outs(%s1 : {t})
  pto.tstore ins(%alias : {t}) outs(%olo : {v})
  pto.tstore ins(%s0 : {t}) outs(%ohi : {v})
  return
}}
"""
    r = run(text, trace=True)
    a, o = buffer(r, "%A").values(), buffer(r, "%O").values()
    assert np.array_equal(o[:4], a[4:])  # the tile at 768 is slot 1
    assert np.array_equal(o[4:], a[:4])  # slot 0 kept its own data
    loads = [e for e in r.trace if e.op == "pto.tload"]
    assert [e.writes[0].slot for e in loads] == [0, 1]
    assert [e.writes[0].start for e in loads] == [512, 768]


def test_slot_out_of_range_and_tile_beyond_space_are_errors():
    t = tile("f32")
    mb = f"!pto.multi_tile_buf<{t}, count=3>"
    text = f"""
func.func @k(%k: index, %a: i64) {{
  %mb = pto.alloc_multi_tile : {mb}
  %s = pto.multi_tile_get %mb[%k] : {mb} -> {t}
  %x = pto.alloc_tile addr = %a : {t}
  return
}}
"""
    assert "slot 3 is out of range [0, 3)" in run_error(text, values={"k": 3, "a": 0}).message
    assert "slot -1" in run_error(text, values={"k": -1, "a": 0}).message
    err = run_error(text, values={"k": 0, "a": 196608 - 256})
    assert 'beyond space "vec" (196608 bytes on a2a3)' in err.message and err.position[1] == 5
    # a5 has a larger vec space: the same address fits
    a5 = 'module attributes {pto.target_arch = "a5"} {' + text + "}"
    run(a5, values={"k": 0, "a": 196608 - 256})


# --- ops without semantics ---------------------------------------------------------------------


def test_an_op_without_semantics_stops_the_run_where_it_is_reached():
    t, v = tile("f32"), view("f32")
    text = f"""
func.func @k(%A: {v}, %go: i1) {{
  %t = pto.alloc_tile : {t}
  pto.tload ins(%A : {v}) outs(%t : {t})
  scf.if %go {{
    pto.tpush_to_aiv(%t : {t}) {{split = 0}}
  }}
  return
}}
"""
    run(text, values={"go": 0})  # never reached: the run completes
    err = run_error(text, values={"go": 1})
    assert err.message == "'pto.tpush_to_aiv' has no semantics in pto-run (the dialect reads, verifies and prints it only)"
    assert err.position[1:] == (6, 5)


# --- control flow and scalars --------------------------------------------------------------


def test_scf_for_iter_args_if_and_call():
    text = """
func.func @sum(%lb: index, %ub: index, %step: index) -> index {
  %c0 = arith.constant 0 : index
  %r = scf.for %i = %lb to %ub step %step iter_args(%acc = %c0) -> (index) {
    %c2 = arith.constant 2 : index
    %odd = arith.remsi %i, %c2 : index
    %z = arith.cmpi eq, %odd, %c0 : index
    %v = scf.if %z -> (index) {
      scf.yield %i : index
    } else {
      %n = arith.subi %c0, %i : index
      scf.yield %n : index
    }
    %next = arith.addi %acc, %v : index
    scf.yield %next : index
  }
  return %r : index
}
func.func @k(%lb: index, %ub: index, %step: index) -> index {
  %r = func.call @sum(%lb, %ub, %step) : (index, index, index) -> index
  return %r : index
}
"""
    for lb, ub, step in [(0, 10, 1), (-3, 7, 2), (5, 5, 1), (9, 2, 3), (1, 20, 7)]:
        expected = sum(i if i % 2 == 0 else -i for i in range(lb, ub, step))
        r = run(text, values={"lb": lb, "ub": ub, "step": step})
        assert r.scalars[0].value == expected


@pytest.mark.parametrize(
    "op, a, b, expected",
    [
        ("divsi", -7, 2, -3),
        ("remsi", -7, 2, -1),
        ("floordivsi", -7, 2, -4),
        ("ceildivsi", -7, 2, -3),
        ("ceildivsi", 7, 2, 4),
        ("divui", -1, 2, 2**63 - 1),
        ("remui", -1, 10, (2**64 - 1) % 10),
        ("ceildivui", 7, 2, 4),
        ("minui", -1, 3, 3),
        ("maxui", -1, 3, -1),
        ("minsi", -1, 3, -1),
        ("muli", 2**62, 4, 0),
        ("addi", 2**63 - 1, 1, -(2**63)),
        ("andi", -1, 12, 12),
        ("xori", 5, 3, 6),
    ],
)
def test_arith_integer_semantics(op, a, b, expected):
    text = f"""
func.func @k(%a: index, %b: index) -> index {{
  %r = arith.{op} %a, %b : index
  return %r : index
}}
"""
    assert run(text, values={"a": a, "b": b}).scalars[0].value == expected


def test_arith_casts_and_compares():
    text = """
func.func @k(%a: i32) -> (index, index, i8, i1, i1) {
  %x = arith.index_cast %a : i32 to index
  %y = arith.index_castui %a : i32 to index
  %t = arith.trunci %a : i32 to i8
  %z = arith.constant 0 : i32
  %lt = arith.cmpi slt, %a, %z : i32
  %ult = arith.cmpi ult, %a, %z : i32
  return %x, %y, %t, %lt, %ult : index, index, i8, i1, i1
}
"""
    values = [s.value for s in run(text, values={"a": -1}).scalars]
    assert values == [-1, 2**32 - 1, -1, 1, 0]


def test_division_by_zero_is_an_error_at_the_op():
    text = """
func.func @k(%a: index) -> index {
  %z = arith.constant 0 : index
  %r = arith.remui %a, %z : index
  return %r : index
}
"""
    err = run_error(text, values={"a": 3})
    assert "division by zero" in err.message and err.position[1] == 4


def test_non_positive_step_and_runaway_loops_are_errors():
    text = """
func.func @k(%n: index, %s: index) {
  %c0 = arith.constant 0 : index
  scf.for %i = %c0 to %n step %s {
  }
  return
}
"""
    assert "step must be positive" in run_error(text, values={"n": 4, "s": 0}).message
    err = run_error(text, values={"n": 10**12, "s": 1}, max_ops=10_000)
    assert "execution stopped after 10000 ops" in err.message


def test_unbounded_recursion_is_an_error():
    text = """
func.func @k(%n: index) -> index {
  %r = func.call @k(%n) : (index) -> index
  return %r : index
}
"""
    assert "call depth" in run_error(text, values={"n": 1}).message


def test_unknown_op_is_an_error_naming_it():
    text = """
func.func @k(%a: index) -> index {
  %r = index.add %a, %a
  return %r : index
}
"""
    err = run_error(text, values={"a": 1})
    assert "'index.add'" in err.message and err.position[1:] == (3, 8)


# --- inputs --------------------------------------------------------------------------------


def test_inputs_are_seeded_per_argument_and_named_from_the_source():
    text = """
func.func @k(%x: !pto.tensor_view<4x8xf32>, %y: !pto.tensor_view<4x8xf32>, %n: index) {
  return
}
"""
    a = run(text, values={"n": 1}, seed=5)
    b = run(text, values={"arg2": 1}, seed=5)
    c = run(text, values={"%n": 1}, seed=6)
    assert [x.name for x in a.buffers] == ["%x", "%y"]
    assert compare(a, b) is None
    assert compare(a, c) is not None
    assert not np.array_equal(a.buffers[0].array, a.buffers[1].array)


def test_arguments_are_named_and_located_as_written_across_lines():
    # ptoas-syntax types are longer in the generic form the parser reads:
    # names and columns still come from the user's text.
    text = """
func.func @k(%in: !pto.ptr<f32>, %count: index,
             %out: !pto.tensor_view<?x8xf32>, %scale: f32) {
  return
}
"""
    r = run(text, values={"count": 1, "scale": 2.0, "out": (4, 8)})
    assert [b.name for b in r.buffers] == ["%in", "%out"]
    err = run_error(text, values={"count": 1, "out": (4, 8)})
    assert "no value for argument %scale" in err.message and err.position[1:] == (3, 47)
    err = run_error(text, values={"count": 1, "scale": 2.0})
    assert "give one with --arg out=Nx8" in err.message and err.position[1:] == (3, 14)


def test_fill_covers_every_element_type():
    rng = np.random.default_rng(0)
    for dtype in ("i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"):
        values = fill(dtype, (3, 5), rng)
        assert values.shape == (3, 5)


def test_missing_and_unknown_scalar_arguments_are_errors():
    text = """
func.func @k(%n: index) {
  return
}
"""
    assert "no value for argument %n" in run_error(text).message
    assert "--arg m" in run_error(text, values={"n": 1, "m": 2}).message


def test_pointer_buffers_count_against_the_argument_memory_limit():
    text = """
func.func @k(%P: !pto.ptr<f32>, %n: index) {
  %c1 = arith.constant 1 : index
  %a = pto.make_tensor_view %P, shape = [%n], strides = [%c1] : !pto.tensor_view<?xf32>
  return
}
"""
    run(text, values={"n": 1000}, max_arg_bytes=4000)
    err = run_error(text, values={"n": 1001}, max_arg_bytes=4000)
    assert "beyond the limit on argument memory" in err.message and err.position[1] == 4


# --- trace and comparison --------------------------------------------------------------------


def test_trace_records_pipes_and_byte_ranges():
    r = run(MATMUL.format(it="f16", ot="f32"), trace=True)
    assert [(e.op, e.pipe) for e in r.trace] == [
        ("pto.tload", "MTE2"),
        ("pto.tload", "MTE2"),
        ("pto.tmov", "MTE1"),
        ("pto.tmov", "MTE1"),
        ("pto.tmatmul", "M"),
        ("pto.tmatmul.acc", "M"),
        ("pto.tstore", "MTE3"),
    ]
    load_a = r.trace[0]
    assert load_a.reads == (load_a.reads[0],) and load_a.reads[0].buffer == "%A" and load_a.reads[0].nbytes == 8 * 32 * 2
    mm_acc = r.trace[5]
    assert mm_acc.macs == 8 * 32 * 32
    assert mm_acc.writes[0] == mm_acc.reads[0]  # acc_in and dst: the same bytes
    assert r.trace[4].writes[0].overlaps(mm_acc.reads[0])
    assert not r.trace[0].writes[0].overlaps(r.trace[1].writes[0])
    assert run(MATMUL.format(it="f16", ot="f32")).trace is None


def test_compare_names_the_first_differing_element():
    text = elementwise_kernel("tadd", "f32")
    a = run(text, seed=1)
    b = run(text, seed=1)
    assert compare(a, b) is None
    b.buffers[2].array[2, 3] += 1
    b.buffers[2].array[3, 0] += 1
    mismatch = compare(a, b)
    assert mismatch.buffer == "%O" and mismatch.index == (2, 3) and mismatch.differing == 2
    assert "%O element [2, 3]" in mismatch.message()


# --- the registry of compile functions -------------------------------------------------------


def test_ops_are_registered_where_they_are_implemented():
    from pto_dialect.dialect.ops import op_def
    from pto_dialect.interpreter import SUPPORTED_OPS, registry

    compilers = registry.compilers()
    # every pto op pto-run executes is an op of the table, implemented in an op module
    for name, fn in compilers.items():
        if name.startswith("pto."):
            assert op_def(name) is not None, name
        assert fn.__module__.startswith("pto_dialect.interpreter.") and fn.__module__.endswith("_ops"), (name, fn.__module__)
    assert SUPPORTED_OPS == frozenset(compilers) | {"func.return", "scf.yield", "pto.yield", "gpu.yield"}
    assert "pto.tload" in SUPPORTED_OPS and "pto.tpush_to_aiv" not in SUPPORTED_OPS
    # the ops with a region run their body (docs/dialect.md, "Ops with a region")
    assert {"pto.section_cube", "pto.section_vector", "pto.section_simt", "pto.fusion_region"} <= SUPPORTED_OPS


def test_an_op_implemented_twice_is_refused():
    from pto_dialect.interpreter.registry import impl

    with pytest.raises(ValueError, match="'pto.tload' is implemented twice"):

        @impl("pto.tload")
        def _another_tload(c, op):
            return None


# --- what the ops that move no data denote (one rule, two evaluators) --------------------------


def test_the_interpreter_and_the_static_schedule_share_each_rule_of_meaning():
    import inspect

    from pto_dialect.interpreter import denotations, memory, pto_ops
    from pto_dialect.timing import static_schedule

    # each rule is called, not restated, by both evaluators
    for rule in ("alloc_valid", "subview_valid", "window_offset", "partition_offset"):
        assert rule in inspect.getsource(pto_ops), rule
        assert rule in inspect.getsource(static_schedule), rule
    assert "slot_offset" in inspect.getsource(memory) and "slot_offset" in inspect.getsource(static_schedule)
    # the rules themselves
    D = denotations.DYNAMIC
    assert denotations.subview_valid((8, 16), (D, D), (None, None), (5, 16), (2, 0)) == (3, 16)  # what the window covers
    assert denotations.subview_valid((8, 16), (D, 4), (6, None), (5, 16), (2, 0)) == (6, 4)  # operands, then the type
    assert denotations.alloc_valid((D, 16), (3, None)) == (3, 16)
    assert denotations.alloc_valid((D, D), (None, 2), unknown=(8, 16)) == (8, 2)
    assert denotations.window_offset(64, (128, 4), (2, 3)) == 64 + 256 + 12
    assert denotations.slot_offset(1024, 4096, 2) == 9216
    assert denotations.partition_offset(0, (2, 5), (64, 1)) == 133
    # symbolically, through the evaluator's arithmetic
    sym = denotations.Arith(add=lambda a, b: f"({a}+{b})", mul=lambda a, b: f"{a}*{b}")
    assert denotations.partition_offset("o", ("i", 5), ("s", 1), sym) == "((o+i*s)+5*1)"


def test_every_missing_scalar_argument_is_named_at_once():
    text = """
func.func @k(%n: index, %x: f32, %p: !pto.ptr<f32>, %m: i32) {
  return
}
"""
    err = run_error(text)
    assert err.message == "no values for the 3 arguments %n (index), %x (f32), %m (i32) (pass --arg n=VALUE --arg x=VALUE --arg m=VALUE)"
    assert err.position[1:] == (2, 14)  # the first of them
    assert run_error(text, values={"n": 1, "x": 2.0}).message.startswith("no value for argument %m")
