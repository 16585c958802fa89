"""The element-wise ops beyond add/sub/mul/max/min (pto_dialect.interpreter,
tile_ops.py): division (tdiv, tdivs in both operand orders, trecip), the
scalar ops tsubs/tmaxs/tmins, and tlog/tsqrt/trsqrt/tneg, each in the
element type, with their domain and division-by-zero choices."""

from __future__ import annotations

import numpy as np
import pytest
from interpreter_support import buffer, on_a5, run, run_error, verify_error


def kernel(dtype: str, body: str, outputs: int = 1, shape: str = "4x32") -> str:
    """A kernel on %a, %b (loaded from %A, %B), storing %d to %O (and %e to %P).
    `body` uses !t (the tile type) and `{dtype}` scalars."""
    t, v = f"!pto.tile_buf<vec, {shape}x{dtype}>", f"!pto.partition_tensor_view<{shape}x{dtype}>"
    outs = ", %O: !pv" + (", %P: !pv" if outputs > 1 else "")
    store = "  pto.tstore ins(%d : !t) outs(%O : !pv)\n" + ("  pto.tstore ins(%e : !t) outs(%P : !pv)\n" if outputs > 1 else "")
    return f"""
!t = {t}
!pv = {v}
func.func @k(%A: !pv, %B: !pv{outs}) {{
  %a = pto.alloc_tile : !t
  %b = pto.alloc_tile : !t
  %d = pto.alloc_tile : !t
  %e = pto.alloc_tile : !t
  pto.tload ins(%A : !pv) outs(%a : !t)
  pto.tload ins(%B : !pv) outs(%b : !t)
{body}
{store}  return
}}
"""


def inputs(r):
    return buffer(r, "%A").values(), buffer(r, "%B").values()


# --- division ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype, np_type", [("f32", np.float32), ("f16", np.float16)])
def test_tdiv_on_floats_is_the_correctly_rounded_quotient(dtype, np_type):
    r = run(kernel(dtype, "  pto.tdiv ins(%a, %b : !t, !t) outs(%d : !t)"))
    a, b = inputs(r)
    out = buffer(r, "%O").values()
    assert out.dtype == np_type
    assert np.array_equal(out, (a.astype(np.float64) / b.astype(np.float64)).astype(np_type))


def test_no_target_divides_bf16_tiles():
    # ptoas's verifier (TDivOp::verify) refuses bf16 on both targets, and so do we
    text = kernel("bf16", "  pto.tdiv ins(%a, %b : !t, !t) outs(%d : !t)")
    assert verify_error(text).endswith("error: 'pto.tdiv' op expects A2/A3 tdiv element type to be f16 or f32")
    assert verify_error(on_a5(text)).endswith("error: 'pto.tdiv' op expects A5 tdiv element type to be i32/i16/f16/f32")


def test_float_division_by_zero_is_ieee():
    # a - a is +0 everywhere: a / 0 is +-inf by a's sign, 0 / 0 is NaN
    body = """  pto.tsub ins(%a, %a : !t, !t) outs(%e : !t)
  pto.tdiv ins(%a, %e : !t, !t) outs(%d : !t)
  pto.tdiv ins(%e, %e : !t, !t) outs(%e : !t)"""
    r = run(kernel("f32", body, outputs=2))
    a, _ = inputs(r)
    assert np.array_equal(buffer(r, "%O").values(), np.where(a > 0, np.inf, -np.inf).astype(np.float32))
    assert np.isnan(buffer(r, "%P").values()).all()


def test_integer_tdiv_truncates_toward_zero():
    # integer tdiv is a5's (a2a3 divides f16 and f32 tiles only)
    r = run(on_a5(kernel("i32", "  pto.tdiv ins(%a, %b : !t, !t) outs(%d : !t)")))
    a, b = (x.astype(np.int64) for x in inputs(r))
    expected = np.trunc(a / b).astype(np.int32)  # exact: |a| < 2**17
    assert ((a < 0) != (b < 0)).any() and (a % b != 0).any()  # negative inexact quotients occur
    assert np.array_equal(buffer(r, "%O").values(), expected)
    assert not np.array_equal(expected, (a // b).astype(np.int32))  # floor would differ


def test_integer_division_by_zero_is_an_error_naming_the_element():
    body = """  pto.tsub ins(%b, %b : !t, !t) outs(%e : !t)
  pto.tdiv ins(%a, %e : !t, !t) outs(%d : !t)"""
    text = on_a5(kernel("i16", body))
    err = run_error(text)
    assert err.message == "'pto.tdiv': integer division by zero (the divisor of element (0, 0) is 0)"
    assert err.line == text.split("\n").index("  pto.tdiv ins(%a, %e : !t, !t) outs(%d : !t)") + 1


def test_integer_division_of_the_minimum_by_minus_one_wraps():
    # i8 inputs cover [-128, 128): -128 / -1 = 128 wraps to -128
    body = """  %m = arith.constant -1 : i8
  pto.tdivs ins(%a, %m : !t, i8) outs(%d : !t)"""
    r = run(on_a5(kernel("i8", body)))  # i8 tdivs: a5 only
    a, _ = inputs(r)
    assert (a == -128).any()
    assert np.array_equal(buffer(r, "%O").values(), np.where(a == -128, -128, -a.astype(np.int16)).astype(np.int8))


@pytest.mark.parametrize("dtype", ["f32", "i32"])
def test_tdivs_divides_in_the_order_written(dtype):
    # ins(%a, %s : tile, T) is a / s; ins(%s, %a : T, tile) is s / a
    literal = "3.0" if dtype == "f32" else "3"
    body = f"""  %s = arith.constant {literal} : {dtype}
  pto.tdivs ins(%a, %s : !t, {dtype}) outs(%d : !t)
  pto.tdivs ins(%s, %a : {dtype}, !t) outs(%e : !t)"""
    r = run(kernel(dtype, body, outputs=2))
    a, _ = inputs(r)
    if dtype == "f32":
        assert np.array_equal(buffer(r, "%O").values(), a / np.float32(3))
        assert np.array_equal(buffer(r, "%P").values(), np.float32(3) / a)
    else:
        wide = a.astype(np.int64)
        assert np.array_equal(buffer(r, "%O").values(), np.trunc(wide / 3).astype(np.int32))
        assert np.array_equal(buffer(r, "%P").values(), np.trunc(3 / wide).astype(np.int32))


def test_tdivs_by_an_integer_zero_scalar_is_an_error():
    body = """  %z = arith.constant 0 : i32
  pto.tdivs ins(%a, %z : !t, i32) outs(%d : !t)"""
    err = run_error(kernel("i32", body))
    assert err.message == "'pto.tdivs': integer division by zero (the scalar divisor is 0)"


def test_trecip_is_one_over_x_on_floats_only():
    r = run(kernel("f16", "  pto.trecip ins(%a : !t) outs(%d : !t)"))
    a, _ = inputs(r)
    assert np.array_equal(buffer(r, "%O").values(), (np.float16(1) / a).astype(np.float16))
    # ptoas's verifier refuses integer tiles (TRecipOp::verify), and so do we
    text = kernel("i16", "  pto.trecip ins(%a : !t) outs(%d : !t)")
    assert verify_error(text).endswith("error: 'pto.trecip' op expects element type to be f16 or f32")


# --- scalar ops -------------------------------------------------------------------------------


def test_tsubs_tmaxs_tmins_with_a_scalar_of_the_element_type():
    body = """  %s = arith.constant 0.25 : f16
  pto.tsubs ins(%a, %s : !t, f16) outs(%d : !t)
  pto.tmaxs ins(%a, %s : !t, f16) outs(%e : !t)
  pto.tmins ins(%e, %s : !t, f16) outs(%e : !t)"""
    r = run(kernel("f16", body, outputs=2))
    a, _ = inputs(r)
    s = np.float16(0.25)
    assert np.array_equal(buffer(r, "%O").values(), (a - s).astype(np.float16))
    assert (buffer(r, "%P").values() == s).all()  # min(max(a, s), s) = s


def test_tmaxs_and_tmins_on_integers():
    body = """  %s = arith.constant 44 : i8
  pto.tmaxs ins(%a, %s : !t, i8) outs(%d : !t)
  pto.tmins ins(%a, %s : !t, i8) outs(%e : !t)"""
    r = run(on_a5(kernel("i8", body, outputs=2)))  # i8 scalar ops: a5 only
    a, _ = inputs(r)
    assert np.array_equal(buffer(r, "%O").values(), np.maximum(a, np.int8(44)))
    assert np.array_equal(buffer(r, "%P").values(), np.minimum(a, np.int8(44)))


# --- unary ops ----------------------------------------------------------------------------------


def test_tlog_and_tsqrt_give_ieee_results_outside_their_domain():
    body = """  pto.tlog ins(%a : !t) outs(%d : !t)
  pto.tsqrt ins(%a : !t) outs(%e : !t)"""
    r = run(kernel("f32", body, outputs=2))
    a, _ = inputs(r)
    with np.errstate(all="ignore"):  # each rounded once from the exact value, as pto-isa's simulator does
        log, root = np.log(a.astype(np.float64)).astype(np.float32), np.sqrt(a)
    assert (a < 0).any()
    assert np.array_equal(buffer(r, "%O").values(), log, equal_nan=True)
    assert np.array_equal(buffer(r, "%P").values(), root, equal_nan=True)
    assert np.isnan(buffer(r, "%O").values()[a < 0]).all()


def test_tlog_of_zero_is_minus_infinity():
    body = """  pto.tsub ins(%a, %a : !t, !t) outs(%e : !t)
  pto.tlog ins(%e : !t) outs(%d : !t)"""
    r = run(kernel("f32", body))
    assert (buffer(r, "%O").values() == -np.inf).all()


@pytest.mark.parametrize(
    "op, message",
    [
        ("tlog", "expects element type to be f16 or f32"),
        ("tsqrt", "expects src and dst element type to be float or half"),
        ("trsqrt", "expects element type to be f16 or f32"),
    ],
)
def test_float_only_ops_on_integers_are_refused_before_they_run(op, message):
    # ptoas's verifier's words, at the op
    text = kernel("i32", f"  pto.{op} ins(%a : !t) outs(%d : !t)")
    line = text.split("\n").index(f"  pto.{op} ins(%a : !t) outs(%d : !t)") + 1
    assert verify_error(text) == f"<string>:{line}:3: error: 'pto.{op}' op {message}"


def test_trsqrt_rounds_after_the_sqrt_and_after_the_division_and_leaves_tmp_alone():
    # on f16, 1 / sqrt(x) rounded once and rounded twice differ somewhere
    body = """  pto.tmul ins(%a, %a : !t, !t) outs(%e : !t)
  pto.tadd ins(%e, %b : !t, !t) outs(%e : !t)
  pto.tmov ins(%b : !t) outs(%d : !t)
  pto.trsqrt ins(%e, %d : !t, !t) outs(%e : !t)"""
    r = run(kernel("f16", body, outputs=2))
    a, b = inputs(r)
    x = (a * a).astype(np.float16)
    x = (x + b).astype(np.float16)
    with np.errstate(all="ignore"):
        twice = (np.float16(1) / np.sqrt(x)).astype(np.float16)
        once = (1 / np.sqrt(x.astype(np.float64))).astype(np.float16)
    assert np.array_equal(buffer(r, "%P").values(), twice, equal_nan=True)
    assert not np.array_equal(twice, once, equal_nan=True)
    assert np.array_equal(buffer(r, "%O").values(), b)  # the tmp operand: untouched


def test_tneg_wraps_integers_and_flips_the_sign_of_floats():
    # (i8 and bf16 tneg are a5's)
    r = run(on_a5(kernel("i8", "  pto.tneg ins(%a : !t) outs(%d : !t)")))
    a, _ = inputs(r)
    assert (a == -128).any()
    assert np.array_equal(buffer(r, "%O").values(), (-a.astype(np.int16)).astype(np.int8))
    body = """  %zero = arith.constant 0.0 : bf16
  pto.texpands ins(%zero : bf16) outs(%e : !t)
  pto.tneg ins(%e : !t) outs(%e : !t)
  pto.tneg ins(%a : !t) outs(%d : !t)"""
    r = run(on_a5(kernel("bf16", body, outputs=2)))
    assert np.array_equal(buffer(r, "%O").array, buffer(r, "%A").array ^ np.uint16(0x8000))
    assert (buffer(r, "%P").array == 0x8000).all()  # -(+0) = -0


# --- tcvt round modes into float types (PyPTO converts f32 -> bf16 with ROUND) ---


def test_tcvt_round_modes_into_bf16_pick_the_right_neighbour():
    from pto_dialect.interpreter.tile_ops import cvt

    # bf16 has 8 significand bits: 1 + 2**-8 is a tie between 1 and 1 + 2**-7
    tie, above_half, negative_tie = 1 + 2**-8, 1 + 3 * 2**-9, -(1 + 2**-8)
    x = np.array([tie, above_half, negative_tie, 1 + 2**-7], dtype=np.float32)
    up = 1 + 2**-7
    expected = {
        "RINT": [1.0, up, -1.0, up],  # ties to even
        "ROUND": [up, up, -up, up],  # ties away from zero
        "FLOOR": [1.0, 1.0, -up, up],
        "CEIL": [up, up, -1.0, up],
        "TRUNC": [1.0, 1.0, -1.0, up],
        "ODD": [up, up, -up, up],  # 1 + 2**-7 has the odd last bit
    }
    for mode, values in expected.items():
        assert cvt("f32", "bf16", x, mode).tolist() == values, mode


def test_tcvt_directed_modes_saturate_where_nearest_overflows():
    from pto_dialect.interpreter.tile_ops import cvt

    x = np.array([70000.0, -70000.0], dtype=np.float32)  # beyond f16's 65504
    assert cvt("f32", "f16", x, "ROUND").tolist() == [np.inf, -np.inf]
    assert cvt("f32", "f16", x, "TRUNC").tolist() == [65504.0, -65504.0]
    assert cvt("i32", "bf16", np.array([257, -259], dtype=np.int32), "TRUNC").tolist() == [256.0, -258.0]
