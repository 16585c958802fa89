"""ptoas's rules for pto.tfillpad, pto.tgetval and pto.tsetval
(verifier_rules.py), over the values they compare: every pad value of a
dst against every padValue attribute, every tile space a tgetval may read,
and the scalar types a tsetval may write. The messages, one case each, are
in test/Dialect/pto/invalid-fillpad-getval.pto."""

from __future__ import annotations

import itertools

import pytest
from conftest import parse_kernel

from pto_dialect.api import ParseError

PAD_VALUES = ("null", "zero", "max", "min")  # ptoas's PadValue: 0, 1, 2, 3


def _errors(text: str) -> list[str]:
    try:
        parse_kernel(text)
    except ParseError as e:
        return [d.message for d in e.diagnostics if d.severity == "error"]
    return []


@pytest.mark.parametrize(("pad", "attr"), list(itertools.product(range(1, 4), PAD_VALUES[1:])))
def test_a_mat_fillpad_pad_value_must_be_its_dst_pad(pad, attr):
    t = f"!pto.tile_buf<mat, 16x16xf16, blayout=col_major, slayout=row_major, pad={pad}>"
    text = f"""
func.func @f(%t: {t}) {{
  pto.tfillpad ins(%t : {t}) outs(%t : {t}) {{padValue = #pto.pad_value<{attr}>}}
  return
}}"""
    expected = [] if PAD_VALUES[pad] == attr else ["'pto.tfillpad' op expects padValue attribute to match dst tile pad configuration"]
    assert _errors(text) == expected


@pytest.mark.parametrize("pad", range(4))
def test_a_fillpad_dst_needs_a_pad_value(pad):
    text = f"""
func.func @f(%s: !pto.tile_buf<vec, 8x16xf32>, %d: !pto.tile_buf<vec, 8x32xf32, pad={pad}>) {{
  pto.tfillpad ins(%s : !pto.tile_buf<vec, 8x16xf32>) outs(%d : !pto.tile_buf<vec, 8x32xf32, pad={pad}>)
  return
}}"""
    assert _errors(text) == ([] if pad else ["expects dst PadVal != Null for tfillpad"])


@pytest.mark.parametrize(
    ("loc", "expected"),
    [
        ("vec", None),
        ("mat", "'pto.tgetval' op Ascend hardware does not support reading from Mat tile_buf to Scalar unit"),
        ("left", "'pto.tgetval' op expects src memory space to be vec"),
        ("right", "'pto.tgetval' op expects src memory space to be vec"),
        ("acc", "'pto.tgetval' op expects src memory space to be vec"),
    ],
)
def test_tgetval_reads_vec_tiles_only(loc, expected):
    tile = {
        "vec": "!pto.tile_buf<vec, 16x16xf16>",
        "mat": "!pto.tile_buf<mat, 16x16xf16, blayout=col_major, slayout=row_major>",
        "left": "!pto.tile_buf<left, 16x16xf16, slayout=row_major>",
        "right": "!pto.tile_buf<right, 16x16xf16, blayout=col_major, slayout=col_major>",
        "acc": "!pto.tile_buf<acc, 16x16xf16, blayout=col_major, slayout=row_major, fractal=1024>",
    }[loc]
    text = f"""
func.func @f(%t: {tile}, %i: index) -> f16 {{
  %v = pto.tgetval ins(%t, %i : {tile}, index) outs : f16
  return %v : f16
}}"""
    assert _errors(text) == ([expected] if expected else [])


@pytest.mark.parametrize(("dtype", "scalar"), [("f32", "f32"), ("i32", "i32"), ("f16", "f32"), ("i32", "f32"), ("bf16", "bf16")])
def test_tgetval_result_is_the_element_type(dtype, scalar):
    t = f"!pto.tile_buf<vec, 16x16x{dtype}>"
    text = f"""
func.func @f(%t: {t}, %i: index) -> {scalar} {{
  %v = pto.tgetval ins(%t, %i : {t}, index) outs : {scalar}
  return %v : {scalar}
}}"""
    expected = [] if dtype == scalar else ["'pto.tgetval' op expects dst type to match src element type"]
    assert _errors(text) == expected


@pytest.mark.parametrize("scalar", ["f32", "i32", "f16", "i8"])
def test_tsetval_checks_the_scalar_against_a_ranked_tensor_only(scalar):
    """ptoas's TSetValOp::verify checks a ShapedType dst; a tile_buf is not
    one there, so a tile_buf takes any scalar (PyPTO writes i32 into i32
    tiles, but ptoas does not insist)."""
    text = f"""
func.func @f(%t: !pto.tile_buf<vec, 16x16xf32>, %r: tensor<16x16xf32>, %i: index, %x: {scalar}) {{
  pto.tsetval ins(%i, %x : index, {scalar}) outs(%t : !pto.tile_buf<vec, 16x16xf32>)
  pto.tsetval ins(%i, %x : index, {scalar}) outs(%r : tensor<16x16xf32>)
  return
}}"""
    expected = [] if scalar == "f32" else ["'pto.tsetval' op expects val type to match dst element type"]
    assert _errors(text) == expected
