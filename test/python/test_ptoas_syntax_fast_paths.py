"""The line-shape fast paths of ptoas_syntax: the map back to the source
(built only when asked) and ops whose shape could be another op's."""

from pto_dialect.syntax.ptoas import to_generic

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
