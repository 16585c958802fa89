"""The check after parsing remembers what it learns per type, attribute and
operand layout, knows a module's constants before any op asks, and finds
the pto types a text spells with one regex scan (verifier.py,
verifier_rules.py; docs/performance.md). None of that may change a
diagnostic: a second op with the same problem gets its own error, ops of
one name with different layouts are each checked by their own, and the
scan finds what `source_text.spelled_pto_types` finds."""

from __future__ import annotations

import pytest
from conftest import parse_kernel

from pto_dialect.api import ParseError
from pto_dialect.dialect import verifier
from pto_dialect.support.source_text import spelled_pto_types

TILE = "!pto.tile_buf<vec, 16x64xf32, valid=?x?>"
VIEW = "!pto.tensor_view<64x64xf32>"


def _diagnostics(text: str) -> list[tuple[int, str, str]]:
    """(line, severity, message) of every error and warning parsing `text` gives."""
    try:
        parse_kernel(text)
    except ParseError as e:
        return [(d.line, d.severity, d.message) for d in e.diagnostics if d.severity in ("error", "warning")]
    return []


def _function(*body: str, args: str = "") -> str:
    return "\n".join([f"func.func @f({args}) {{", *(f"  {line}" for line in body), "  return", "}"]) + "\n"


def test_each_op_with_a_problem_already_seen_gets_its_own_error():
    text = _function(
        "%c0 = arith.constant 0 : index",
        "%c16 = arith.constant 16 : index",
        "%c64 = arith.constant 64 : index",
        f"%p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c16, %c16] : {VIEW} -> !pto.partition_tensor_view<16x8xf32>",
        f"%q = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c16, %c16] : {VIEW} -> !pto.partition_tensor_view<16x8xf32>",
        f"%r = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c16, %c64] : {VIEW} -> !pto.partition_tensor_view<16x64xf32>",
        f"%a = pto.alloc_tile : {TILE}",
        f"%b = pto.alloc_tile : {TILE}",
        f"%d = pto.alloc_tile valid_row = %c16 valid_col = %c64 : {TILE}",
        args=f"%v: {VIEW}",
    )
    mismatch = "'pto.partition_view' op size/result mismatch at dim 1: size operand=16 result type dim=8"
    required = "'pto.alloc_tile' op valid_row operand is required because result type v_row is ?"
    required_col = "'pto.alloc_tile' op valid_col operand is required because result type v_col is ?"
    assert _diagnostics(text) == [
        (5, "error", mismatch),
        (6, "error", mismatch),
        (8, "error", required),
        (8, "error", required_col),
        (9, "error", required),
        (9, "error", required_col),
    ]


def test_ops_of_one_name_with_different_operand_layouts_are_each_checked_by_theirs():
    text = _function(
        "%c0 = arith.constant 0 : index",
        "%c16 = arith.constant 16 : index",
        f"%p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c16, %c16] : {VIEW} -> !pto.partition_tensor_view<16x16xf32>",
        f"%q = pto.partition_view %v, offsets = [%c0], sizes = [%c16, %c16] : {VIEW} -> !pto.partition_tensor_view<?x?xf32>",
        f"%r = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c16] : {VIEW} -> !pto.partition_tensor_view<?x?xf32>",
        f"%s = pto.partition_view %v, offsets = [%c0], sizes = [%c16, %c16] : {VIEW} -> !pto.partition_tensor_view<?x?xf32>",
        args=f"%v: {VIEW}",
    )
    assert _diagnostics(text) == [
        (5, "error", "'pto.partition_view' op offset count (1) must match source rank (2)"),
        (6, "error", "'pto.partition_view' op size count (1) must match source rank (2)"),
        (7, "error", "'pto.partition_view' op offset count (1) must match source rank (2)"),
    ]


def test_constants_from_outside_a_loop_and_inside_it_are_known():
    text = _function(
        "%c0 = arith.constant 0 : index",
        "%c1 = arith.constant 1 : index",
        "%c4 = arith.constant 4 : index",
        "%c16 = arith.constant 16 : index",
        "scf.for %i = %c0 to %c4 step %c1 {",
        "  %m = arith.constant -8 : index",
        f"  %p = pto.partition_view %v, offsets = [%i, %m], sizes = [%c16, %c16] : {VIEW} -> !pto.partition_tensor_view<16x16xf32>",
        "  %c60 = arith.constant 60 : index",
        f"  %q = pto.partition_view %v, offsets = [%i, %c60], sizes = [%c16, %c16] : {VIEW} -> !pto.partition_tensor_view<16x16xf32>",
        f"  %r = pto.partition_view %v, offsets = [%i, %c0], sizes = [%c16, %i] : {VIEW} -> !pto.partition_tensor_view<16x16xf32>",
        "}",
        args=f"%v: {VIEW}",
    )
    assert _diagnostics(text) == [
        (8, "error", "'pto.partition_view' op offset at dim 1 must be non-negative, got -8"),
        (10, "error", "'pto.partition_view' op offset+size at dim 1 (76) exceeds static source dim (64)"),
    ]


def test_each_loop_with_a_bad_stage_count_gets_its_own_error():
    loop = ["scf.for %i = %c0 to %c4 step %c1 {", "}"]
    text = _function(
        "%c0 = arith.constant 0 : index",
        "%c1 = arith.constant 1 : index",
        "%c4 = arith.constant 4 : index",
        *loop[:1],
        "} {pto.pipeline_stages = 0 : i64}",
        *loop[:1],
        "} {pto.pipeline_stages = 2 : i64}",
        *loop[:1],
        "} {pto.pipeline_stages = 0 : i64}",
    )
    message = "'pto.pipeline_stages' must be an i64 integer >= 1, got 0 : i64"
    assert _diagnostics(text) == [(5, "error", message), (9, "error", message)]


def test_operand_kinds_are_checked_at_every_op():
    text = _function(
        "%a = pto.alloc_tile : !pto.tile_buf<vec, 16x64xf32>",
        "pto.texp ins(%a : !pto.tile_buf<vec, 16x64xf32>) outs(%a : !pto.tile_buf<vec, 16x64xf32>)",
        "pto.texp ins(%n : index) outs(%a : !pto.tile_buf<vec, 16x64xf32>)",
        "pto.texp ins(%n : index) outs(%a : !pto.tile_buf<vec, 16x64xf32>)",
        args="%n: index",
    )
    message = "'pto.texp' op operand #0 ('src') must be a !pto.tile_buf, !pto.partition_tensor_view or ranked tensor, but got 'index'"
    assert _diagnostics(text) == [(4, "error", message), (5, "error", message)]


@pytest.mark.parametrize(
    "code",
    [
        "",
        "no types at all",
        '%x = "pto.op"() : () -> !pto.tile_buf<"vec", array<i64: 16, 64>, f32, array<i64: -1, -1>, "row_major", "none_box", 512, 0, 0>',
        '!pto.ptr<f32, "g<m">  !pto.ptr<f32, "gm">',  # brackets inside a string do not count
        "!pto.a<b<c<d<e>>>> and !pto.x<y>",  # four levels: the regex takes it
        "!pto.a<b<c<d<e<f>>>>> and !pto.x<y>",  # five: the long way
        "!pto.a<b, !pto.inner<c>> !pto.b<d>",  # a pto type inside one
        "!t = !pto.tile_buf<vec, 16x16xf32>\n%m : !pto.multi_tile_buf<!t, 2>",  # an alias used inside
        "!pto.open<never closed",
        '!pto.q<"unterminated',
        "!pto.q<a> !pto.w<> !pto.e<<>>",
    ],
)
def test_the_spelled_types_scan_finds_what_spelled_pto_types_finds(code):
    assert verifier._spelled_pto_types(code) == spelled_pto_types(code)


def test_a_type_spelled_only_in_a_comment_does_not_count_but_a_string_keeps_its_slashes():
    # The tile in the comment is too big for vec: only the comment spells
    # it, so it is not checked; the string holding `//` is not a comment.
    text = _function(
        "// %x = pto.alloc_tile : !pto.tile_buf<vec, 4096x4096xf32>",
        '%a = pto.alloc_tile {note = "http://example"} : !pto.tile_buf<vec, 16x64xf32>',
    )
    assert _diagnostics(text) == []
