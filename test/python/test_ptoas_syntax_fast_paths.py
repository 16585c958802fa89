"""The line-shape fast paths of ptoas_syntax: the map back to the source
(built only when asked) and ops whose shape could be another op's."""

import pathlib

import pytest

from pto_dialect.syntax.ptoas import _properties_as_attributes, _Reader, to_generic
from pto_dialect.testing.kernel_gen import addressed, generate

KERNEL = """func.func @k(%v: !pto.tensor_view<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %q = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c8, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<8x8xf32>
  %r = pto.partition_view %v, offsets = [%c8, %c0], sizes = [%c8, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<8x8xf32>
  return
}
"""


def test_map_points_into_ssa_names_of_template_lines():
    translation = to_generic(KERNEL)
    assert not translation.problems
    generic_lines = translation.text.split("\n")
    source_lines = KERNEL.split("\n")
    for index in (3, 4):  # the two partition_view lines, both from one template
        col = generic_lines[index].index("%c8") + 3  # (1-based) the `8` of the first `%c8` of the generic op
        line, src_col = translation.original(index + 1, col)
        assert line == index + 1
        assert source_lines[index][src_col - 1 :].startswith("8")  # the same name in the source


def test_percent_that_starts_no_name_is_a_diagnostic_not_another_ops_template():
    # `[%, %c0]` has the shape of `[%a, %c0]` (one name more): it must not be filled from that template
    text = KERNEL.replace("offsets = [%c8, %c0]", "offsets = [%, %c0]")
    translation = to_generic(text)
    assert translation.problems
    problem = translation.problems[0]
    assert text[problem.offset - 1 : problem.offset + 1] == "[%"


# The line loop (`_Reader.run_by_lines`) plans each line shape by running the
# general scan (`_Reader.run`) on it: the two must give one translation.

_ROOT = pathlib.Path(__file__).resolve().parents[2]


def _same_translation(text: str) -> None:
    whole, by_lines = _Reader(text).run(), _Reader(text).run_by_lines()
    assert by_lines.text == whole.text
    assert [(p.offset, p.message) for p in by_lines.problems] == [(p.offset, p.message) for p in whole.problems]
    for offset in range(0, len(whole.text), 7):
        assert by_lines.original_offset(offset) == whole.original_offset(offset), offset


@pytest.mark.parametrize("path", sorted(p.relative_to(_ROOT).as_posix() for d in ("examples", "test") for p in (_ROOT / d).rglob("*.pto")))
def test_the_line_loop_translates_as_the_general_scan(path):
    text = (_ROOT / path).read_text()
    if "<{" in text and '"pto.' in text:
        text = _properties_as_attributes(text)
    _same_translation(text)


def test_the_line_loop_translates_generated_kernels_as_the_general_scan():
    for seed in range(40):
        kernel = generate(seed)
        _same_translation(kernel.text)
        _same_translation(addressed(kernel).text)


def test_a_function_s_constants_are_its_own_when_its_first_line_holds_pto_text():
    # `{pto.entry}` on the `func.func` line: the line loop once copied it without
    # starting the function's constants anew, and inferred 8x8 from @a's `%c8`
    text = """!v = !pto.tensor_view<?x?xf32>
func.func @a(%v: !v) {
  %c8 = arith.constant 8 : index
  return
}
func.func @b(%v: !v, %n: index) attributes {pto.entry} {
  %c0 = arith.constant 0 : index
  %c8 = arith.addi %n, %n : index
  %q = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c8, %c8] : !v
  return
}
"""
    translation = to_generic(text)
    assert not translation.problems
    assert "-> !pto.partition_tensor_view<array<i64: -1, -1>, f32>" in translation.text.split("\n")[8]
    _same_translation(text)


def test_an_op_goes_on_over_lines_the_line_loop_does_not_know_as_continuations():
    # ptoas's own samples put `ins(` on a line of its own (PTOAS test/lit/pto/treshape_*.pto)
    text = """func.func @k(%a: !pto.tile_buf<vec, 16x16xf32>, %b: !pto.tile_buf<vec, 16x16xf32>) {
  pto.tmov
    ins(%a : !pto.tile_buf<vec, 16x16xf32>)
    outs(%b : !pto.tile_buf<vec, 16x16xf32>)
  return
}
"""
    translation = to_generic(text)
    assert not translation.problems
    assert '"pto.tmov"(%a, %b)' in translation.text.split("\n")[1]
    assert translation.text.count("\n") == text.count("\n")  # (lines kept: positions stay the user's)
    _same_translation(text)
