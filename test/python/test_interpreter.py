"""The reference interpreter: op semantics, the memory model, control flow,
errors and the trace (pto_dialect.interpreter)."""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir

from pto_dialect.dialect import load_dialect
from pto_dialect.interpreter import InterpreterError, compare, execute
from pto_dialect.interpreter.elements import bf16_bits_to_f32, convert, f32_to_bf16_bits
from pto_dialect.interpreter.inputs import fill

T = '!pto.tile_buf<"vec", array<i64: 4, 8>, {}>'


def run(text: str, func: str = "k", **kw):
    with ir.Context() as ctx:
        load_dialect(ctx)
        module = ir.Module.parse(text)
        return execute(module.operation, func, source_text=text, **kw)


def run_error(text: str, func: str = "k", **kw) -> InterpreterError:
    with ir.Context() as ctx:
        load_dialect(ctx)
        module = ir.Module.parse(text)
        with pytest.raises(InterpreterError) as info:
            execute(module.operation, func, source_text=text, **kw)
        err = info.value
        from pto_dialect.diagnostics import location_position

        err.position = location_position(err.location) if err.location is not None else None
        return err


def buffer(execution, name: str):
    return next(b for b in execution.buffers if b.name == name)


def elementwise_kernel(op: str, dtype: str, operands: str = "%a, %b, %d", extra_types: str = "") -> str:
    t = T.format(dtype)
    types = ", ".join([t] * operands.count("%")) if not extra_types else extra_types
    return f"""
func.func @k(%A: memref<4x8x{dtype}>, %B: memref<4x8x{dtype}>, %O: memref<4x8x{dtype}>) {{
  %c0 = arith.constant 0 : index
  %a = "pto.alloc_tile"() : () -> {t}
  %b = "pto.alloc_tile"() : () -> {t}
  %d = "pto.alloc_tile"() : () -> {t}
  "pto.tload"(%A, %c0, %c0, %a) : (memref<4x8x{dtype}>, index, index, {t}) -> ()
  "pto.tload"(%B, %c0, %c0, %b) : (memref<4x8x{dtype}>, index, index, {t}) -> ()
  "pto.{op}"({operands}) : ({types}) -> ()
  "pto.tstore"(%d, %O, %c0, %c0) : ({t}, memref<4x8x{dtype}>, index, index) -> ()
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


def test_float_to_int_conversion_truncates_saturates_and_maps_nan_to_zero():
    x = np.array([2.7, -2.7, 1e10, -1e10, np.nan], dtype=np.float32)
    assert convert(x, "f32", "i32").tolist() == [2, -2, 2**31 - 1, -(2**31), 0]
    assert convert(x, "f32", "i8").tolist() == [2, -2, 127, -128, 0]


@pytest.mark.parametrize(
    "op, dtype, reference",
    [
        ("tadd", "f32", lambda a, b: (a + b).astype(np.float32)),
        ("tsub", "f16", lambda a, b: (a - b).astype(np.float16)),
        ("tmul", "f16", lambda a, b: (a * b).astype(np.float16)),
        ("tmax", "i32", np.maximum),
        ("tmin", "i8", np.minimum),
        ("tadd", "i8", lambda a, b: (a.astype(np.int8) + b.astype(np.int8)).astype(np.int8)),
        ("tmul", "i16", lambda a, b: (a.astype(np.int16) * b.astype(np.int16)).astype(np.int16)),
    ],
)
def test_binary_ops_compute_in_the_element_type(op, dtype, reference):
    text = elementwise_kernel(op, dtype)
    r = run(text)
    a, b = buffer(r, "%A").values(), buffer(r, "%B").values()
    out = buffer(r, "%O")
    assert out.array.dtype == a.dtype
    expected = reference(a, b)
    assert np.array_equal(out.values(), expected)


def test_f16_stays_f16():
    # 2048 + 1 is not representable in f16: the sum rounds back to 2048
    text = """
!t = !pto.tile_buf<"vec", array<i64: 1, 16>, f16>
func.func @k(%O: memref<1x16xf16>) {
  %c0 = arith.constant 0 : index
  %big = arith.constant 2048.0 : f16
  %one = arith.constant 1.0 : f16
  %t = "pto.alloc_tile"() : () -> !t
  "pto.tload"(%O, %c0, %c0, %t) : (memref<1x16xf16>, index, index, !t) -> ()
  "pto.tmuls"(%t, %one, %t) : (!t, f16, !t) -> ()
  "pto.tsub"(%t, %t, %t) : (!t, !t, !t) -> ()
  "pto.tadds"(%t, %big, %t) : (!t, f16, !t) -> ()
  "pto.tadds"(%t, %one, %t) : (!t, f16, !t) -> ()
  "pto.tstore"(%t, %O, %c0, %c0) : (!t, memref<1x16xf16>, index, index) -> ()
  return
}
"""
    out = buffer(run(text), "%O")
    assert out.array.dtype == np.float16
    assert (out.values() == 2048).all()


def test_bf16_results_have_bf16_precision():
    text = elementwise_kernel("tmul", "bf16")
    r = run(text)
    a = bf16_bits_to_f32(buffer(r, "%A").array)
    b = bf16_bits_to_f32(buffer(r, "%B").array)
    out = buffer(r, "%O")
    assert out.array.dtype == np.uint16  # stored as bit patterns
    assert np.array_equal(out.array, f32_to_bf16_bits(a * b))


def test_integer_ops_wrap():
    text = """
!t = !pto.tile_buf<"vec", array<i64: 1, 32>, i8>
func.func @k(%I: memref<1x32xi8>, %O: memref<1x32xi8>) {
  %c0 = arith.constant 0 : index
  %s = arith.constant 100 : i8
  %t = "pto.alloc_tile"() : () -> !t
  "pto.tload"(%I, %c0, %c0, %t) : (memref<1x32xi8>, index, index, !t) -> ()
  "pto.tadds"(%t, %s, %t) : (!t, i8, !t) -> ()
  "pto.tabs"(%t, %t) : (!t, !t) -> ()
  "pto.tstore"(%t, %O, %c0, %c0) : (!t, memref<1x32xi8>, index, index) -> ()
  return
}
"""
    r = run(text)
    src = buffer(r, "%I").values().astype(np.int64)
    wrapped = src + 100 - 256 * (src + 100 > 127)
    expected = np.where(wrapped == -128, -128, np.abs(wrapped))  # |-128| wraps to -128
    assert (src + 100 > 127).any()  # the seed exercises the wrap
    assert np.array_equal(buffer(r, "%O").values(), expected)


def test_unary_ops_and_scalar_ops():
    t = T.format("f32")
    text = f"""
func.func @k(%A: memref<4x8xf32>, %E: memref<4x8xf32>, %R: memref<4x8xf32>, %S: memref<4x8xf32>) {{
  %c0 = arith.constant 0 : index
  %half = arith.constant 0.5 : f32
  %a = "pto.alloc_tile"() : () -> {t}
  %e = "pto.alloc_tile"() : () -> {t}
  "pto.tload"(%A, %c0, %c0, %a) : (memref<4x8xf32>, index, index, {t}) -> ()
  "pto.texp"(%a, %e) : ({t}, {t}) -> ()
  "pto.tstore"(%e, %E, %c0, %c0) : ({t}, memref<4x8xf32>, index, index) -> ()
  "pto.trelu"(%a, %e) : ({t}, {t}) -> ()
  "pto.tstore"(%e, %R, %c0, %c0) : ({t}, memref<4x8xf32>, index, index) -> ()
  "pto.tmuls"(%a, %half, %e) : ({t}, f32, {t}) -> ()
  "pto.tstore"(%e, %S, %c0, %c0) : ({t}, memref<4x8xf32>, index, index) -> ()
  return
}}
"""
    r = run(text)
    a = buffer(r, "%A").values()
    assert np.array_equal(buffer(r, "%E").values(), np.exp(a))
    assert np.array_equal(buffer(r, "%R").values(), np.maximum(a, 0))
    assert np.array_equal(buffer(r, "%S").values(), a * np.float32(0.5))


def test_texp_on_integers_is_an_error():
    t = T.format("i32")
    text = f"""
func.func @k(%A: memref<4x8xi32>) {{
  %c0 = arith.constant 0 : index
  %a = "pto.alloc_tile"() : () -> {t}
  "pto.tload"(%A, %c0, %c0, %a) : (memref<4x8xi32>, index, index, {t}) -> ()
  "pto.texp"(%a, %a) : ({t}, {t}) -> ()
  return
}}
"""
    err = run_error(text)
    assert "'pto.texp'" in err.message and "i32" in err.message
    assert err.position[1] == 6


MATMUL = """
!m = !pto.tile_buf<"mat", array<i64: 8, 16>, {it}>
!mb = !pto.tile_buf<"mat", array<i64: 16, 4>, {it}>
!l = !pto.tile_buf<"left", array<i64: 8, 16>, {it}>
!r = !pto.tile_buf<"right", array<i64: 16, 4>, {it}>
!acc = !pto.tile_buf<"acc", array<i64: 8, 4>, {ot}>
func.func @k(%A: memref<8x16x{it}>, %B: memref<16x4x{it}>, %O: memref<8x4x{ot}>) {{
  %c0 = arith.constant 0 : index
  %am = "pto.alloc_tile"() : () -> !m
  %bm = "pto.alloc_tile"() : () -> !mb
  "pto.tload"(%A, %c0, %c0, %am) : (memref<8x16x{it}>, index, index, !m) -> ()
  "pto.tload"(%B, %c0, %c0, %bm) : (memref<16x4x{it}>, index, index, !mb) -> ()
  %l = "pto.alloc_tile"() : () -> !l
  %r = "pto.alloc_tile"() : () -> !r
  "pto.tmov"(%am, %l) : (!m, !l) -> ()
  "pto.tmov"(%bm, %r) : (!mb, !r) -> ()
  %acc = "pto.alloc_tile"() : () -> !acc
  "pto.tmatmul"(%l, %r, %acc) : (!l, !r, !acc) -> ()
  "pto.tmatmul_acc"(%l, %r, %acc) : (!l, !r, !acc) -> ()
  "pto.tstore"(%acc, %O, %c0, %c0) : (!acc, memref<8x4x{ot}>, index, index) -> ()
  return
}}
"""


def test_matmul_f16_into_f32_accumulates():
    r = run(MATMUL.format(it="f16", ot="f32"))
    a, b = buffer(r, "%A").values().astype(np.float64), buffer(r, "%B").values().astype(np.float64)
    product = a @ b
    expected = (product.astype(np.float32).astype(np.float64) + product).astype(np.float32)
    assert np.array_equal(buffer(r, "%O").values(), expected)


def test_matmul_i8_into_i32_wraps_like_int32():
    r = run(MATMUL.format(it="i8", ot="i32"))
    a, b = buffer(r, "%A").values().astype(np.int64), buffer(r, "%B").values().astype(np.int64)
    expected = ((a @ b) * 2).astype(np.int32)
    assert np.array_equal(buffer(r, "%O").values(), expected)


# --- memory model -----------------------------------------------------------------------


def test_overlapping_addressed_tiles_clobber_each_other():
    # %y starts 64 bytes (2 rows of 8 f32) into %x: writing %y changes rows 2..3 of %x
    t = T.format("f32")
    text = f"""
func.func @k(%A: memref<4x8xf32>, %B: memref<4x8xf32>, %O: memref<4x8xf32>) {{
  %c0 = arith.constant 0 : index
  %a0 = arith.constant 0 : i64
  %a64 = arith.constant 64 : i64
  %x = "pto.alloc_tile"(%a0) : (i64) -> {t}
  %y = "pto.alloc_tile"(%a64) : (i64) -> {t}
  "pto.tload"(%A, %c0, %c0, %x) : (memref<4x8xf32>, index, index, {t}) -> ()
  "pto.tload"(%B, %c0, %c0, %y) : (memref<4x8xf32>, index, index, {t}) -> ()
  "pto.tstore"(%x, %O, %c0, %c0) : ({t}, memref<4x8xf32>, index, index) -> ()
  return
}}
"""
    r = run(text)
    a, b, o = (buffer(r, n).values() for n in ("%A", "%B", "%O"))
    assert np.array_equal(o[:2], a[:2])
    assert np.array_equal(o[2:], b[:2])


def test_an_unaddressed_tile_is_one_buffer_across_iterations():
    # the tile is loaded only in the first iteration; later ones find it
    t = T.format("f32")
    text = f"""
func.func @k(%A: memref<4x8xf32>, %O: memref<4x8xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c3 step %c1 {{
    %t = "pto.alloc_tile"() : () -> {t}
    %first = arith.cmpi eq, %i, %c0 : index
    scf.if %first {{
      "pto.tload"(%A, %c0, %c0, %t) : (memref<4x8xf32>, index, index, {t}) -> ()
    }}
    "pto.tadd"(%t, %t, %t) : ({t}, {t}, {t}) -> ()
    "pto.tstore"(%t, %O, %c0, %c0) : ({t}, memref<4x8xf32>, index, index) -> ()
  }}
  return
}}
"""
    r = run(text)
    assert not r.warnings
    assert np.array_equal(buffer(r, "%O").values(), buffer(r, "%A").values() * 8)


def test_reading_never_written_tile_memory_warns_at_the_op():
    t = T.format("f32")
    text = f"""
func.func @k(%O: memref<4x8xf32>) {{
  %c0 = arith.constant 0 : index
  %t = "pto.alloc_tile"() : () -> {t}
  "pto.tstore"(%t, %O, %c0, %c0) : ({t}, memref<4x8xf32>, index, index) -> ()
  "pto.tstore"(%t, %O, %c0, %c0) : ({t}, memref<4x8xf32>, index, index) -> ()
  return
}}
"""
    r = run(text)
    assert len(r.warnings) == 2  # once per op, not once per execution
    from pto_dialect.diagnostics import location_position

    assert [location_position(w.location)[1] for w in r.warnings] == [5, 6]
    assert "never written" in r.warnings[0].message
    assert np.isnan(buffer(r, "%O").values()).all()  # the poison pattern is NaN for floats


def test_multi_tile_slots_are_distinct_and_at_addr_plus_k_stride():
    # 4x8xf16 = 64 bytes -> stride 64 in vec (align 32); slot 1 at 128 + 64
    t = T.format("f16")
    text = f"""
func.func @k(%A: memref<8x8xf16>, %O: memref<8x8xf16>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %base = arith.constant 128 : i64
  %at = arith.constant 192 : i64
  %mb = "pto.alloc_multi_tile"(%base) : (i64) -> !pto.multi_tile_buf<{t}, 2 : i64>
  %s0 = "pto.multi_tile_get"(%mb, %c0) : (!pto.multi_tile_buf<{t}, 2 : i64>, index) -> {t}
  %s1 = "pto.multi_tile_get"(%mb, %c1) : (!pto.multi_tile_buf<{t}, 2 : i64>, index) -> {t}
  %alias = "pto.alloc_tile"(%at) : (i64) -> {t}
  "pto.tload"(%A, %c0, %c0, %s0) : (memref<8x8xf16>, index, index, {t}) -> ()
  "pto.tload"(%A, %c4, %c0, %s1) : (memref<8x8xf16>, index, index, {t}) -> ()
  "pto.tstore"(%alias, %O, %c0, %c0) : ({t}, memref<8x8xf16>, index, index) -> ()
  "pto.tstore"(%s0, %O, %c4, %c0) : ({t}, memref<8x8xf16>, index, index) -> ()
  return
}}
"""
    r = run(text, trace=True)
    a, o = buffer(r, "%A").values(), buffer(r, "%O").values()
    assert np.array_equal(o[:4], a[4:])  # the tile at 192 is slot 1
    assert np.array_equal(o[4:], a[:4])  # slot 0 kept its own data
    slots = [e.writes[0].slot for e in r.trace if e.op == "pto.tload"]
    assert slots == [0, 1]
    assert [e.writes[0].start for e in r.trace if e.op == "pto.tload"] == [128, 192]


def test_unaddressed_multi_tile_has_n_private_slots():
    t = T.format("f32")
    text = f"""
func.func @k(%A: memref<8x8xf32>, %O: memref<8x8xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %mb = "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<{t}, 2 : i64>
  scf.for %i = %c0 to %c2 step %c1 {{
    %s = "pto.multi_tile_get"(%mb, %i) : (!pto.multi_tile_buf<{t}, 2 : i64>, index) -> {t}
    %r = arith.muli %i, %c4 : index
    "pto.tload"(%A, %r, %c0, %s) : (memref<8x8xf32>, index, index, {t}) -> ()
  }}
  %s0 = "pto.multi_tile_get"(%mb, %c0) : (!pto.multi_tile_buf<{t}, 2 : i64>, index) -> {t}
  %s1 = "pto.multi_tile_get"(%mb, %c1) : (!pto.multi_tile_buf<{t}, 2 : i64>, index) -> {t}
  "pto.tstore"(%s1, %O, %c0, %c0) : ({t}, memref<8x8xf32>, index, index) -> ()
  "pto.tstore"(%s0, %O, %c4, %c0) : ({t}, memref<8x8xf32>, index, index) -> ()
  return
}}
"""
    r = run(text)
    a, o = buffer(r, "%A").values(), buffer(r, "%O").values()
    assert np.array_equal(o[:4], a[4:]) and np.array_equal(o[4:], a[:4])


@pytest.mark.parametrize(
    "row, col, message",
    [(1, 0, "block [1:5, 0:8] is out of bounds of %A (4x8)"), (0, -1, "block [0:4, -1:7]")],
)
def test_out_of_bounds_tload_is_an_error_at_the_op(row, col, message):
    t = T.format("f32")
    text = f"""
func.func @k(%A: memref<4x8xf32>, %r: index, %c: index) {{
  %t = "pto.alloc_tile"() : () -> {t}
  "pto.tload"(%A, %r, %c, %t) : (memref<4x8xf32>, index, index, {t}) -> ()
  return
}}
"""
    err = run_error(text, values={"r": row, "c": col})
    assert message in err.message
    assert err.position[1:] == (4, 3)


def test_out_of_bounds_tstore_is_an_error():
    t = T.format("f32")
    text = f"""
func.func @k(%A: memref<4x8xf32>, %r: index) {{
  %c0 = arith.constant 0 : index
  %t = "pto.alloc_tile"() : () -> {t}
  "pto.tload"(%A, %c0, %c0, %t) : (memref<4x8xf32>, index, index, {t}) -> ()
  "pto.tstore"(%t, %A, %r, %c0) : ({t}, memref<4x8xf32>, index, index) -> ()
  return
}}
"""
    assert "'pto.tstore'" in run_error(text, values={"r": 2}).message


def test_slot_out_of_range_and_tile_beyond_space_are_errors():
    t = T.format("f32")
    text = f"""
func.func @k(%k: index, %a: i64) {{
  %mb = "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<{t}, 3 : i64>
  %s = "pto.multi_tile_get"(%mb, %k) : (!pto.multi_tile_buf<{t}, 3 : i64>, index) -> {t}
  %x = "pto.alloc_tile"(%a) : (i64) -> {t}
  return
}}
"""
    assert "slot 3 is out of range [0, 3)" in run_error(text, values={"k": 3, "a": 0}).message
    assert "slot -1" in run_error(text, values={"k": -1, "a": 0}).message
    err = run_error(text, values={"k": 0, "a": 196608 - 96})
    assert "beyond space \"vec\" (196608 bytes on a3)" in err.message and err.position[1] == 5
    # a5 has a larger vec space: the same address fits
    a5 = 'module attributes {pto.target_arch = "a5"} {' + text + "}"
    run(a5, values={"k": 0, "a": 196608 - 96})


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
func.func @k(%x: memref<4x8xf32>, %y: memref<4x8xf32>, %n: index) {
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


# --- trace and comparison --------------------------------------------------------------------


def test_trace_records_pipes_and_byte_ranges():
    r = run(MATMUL.format(it="f16", ot="f32"), trace=True)
    assert [(e.op, e.pipe) for e in r.trace] == [
        ("pto.tload", "MTE2"),
        ("pto.tload", "MTE2"),
        ("pto.tmov", "MTE1"),
        ("pto.tmov", "MTE1"),
        ("pto.tmatmul", "M"),
        ("pto.tmatmul_acc", "M"),
        ("pto.tstore", "MTE3"),
    ]
    load_a = r.trace[0]
    assert load_a.reads[0].buffer == "%A" and load_a.reads[0].rows == 8 and load_a.reads[0].pitch == 32
    mm_acc = r.trace[5]
    assert mm_acc.macs == 8 * 4 * 16
    assert mm_acc.writes[0] in mm_acc.reads  # the accumulator is read and written
    assert r.trace[4].writes[0].overlaps(mm_acc.reads[2])
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
