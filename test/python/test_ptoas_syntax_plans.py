"""The reader's and writer's plans are shared by every run in a process
(syntax/ptoas.py, `_PlanScope`): nothing of one run may reach another. A
kernel translated after another with the same line shapes but other type
aliases and other constants must come out as it does in a fresh process."""

from __future__ import annotations

import json
import subprocess
import sys

from pto_dialect.syntax import ptoas
from pto_dialect.syntax.ptoas import to_generic, to_ptoas

# One line shape, whose translation depends on the alias `!v` (the element
# type of the inferred partition), the alias `!m` (the multi-tile's slot
# type) and the constant `%c8` (the inferred partition's sizes).
FIRST = """!v = !pto.tensor_view<?x?xf32>
!m = !pto.tile_buf<vec, 16x16xf32>
func.func @k(%t: !v) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %q = pto.partition_view %t, offsets = [%c0, %c0], sizes = [%c8, %c8] : !v
  %b = pto.alloc_multi_tile : !pto.multi_tile_buf<!m, count=2>
  return
}
"""
SECOND = FIRST.replace("f32>\n!m", "f16>\n!m").replace("constant 8 :", "constant 16 :").replace("16x16xf32", "32x16xf16")
# The same shapes again, without aliases: the plans of an alias scope must not serve it.
THIRD = SECOND.replace("!v = !pto.tensor_view<?x?xf16>\n", "").replace("!v", "!pto.tensor_view<?x?xf16>")
# The first's aliases, another constant: the plans of one scope must not keep a run's constants.
FOURTH = FIRST.replace("constant 8 :", "constant 4 :")


def _outcome(text: str) -> dict:
    translation = to_generic(text)
    lines = translation.text.split("\n")
    return {
        "text": translation.text,
        "problems": [[p.offset, p.message] for p in translation.problems],
        "map": [translation.original(i + 1, c + 1) for i, line in enumerate(lines) for c in range(len(line) + 1)],
        "written": to_ptoas(translation.text),
    }


def _fresh(text: str) -> dict:
    code = "import json, sys; from test_ptoas_syntax_plans import _outcome; print(json.dumps(_outcome(sys.stdin.read())))"
    done = subprocess.run([sys.executable, "-c", code], input=text, capture_output=True, text=True, check=True, cwd=__file__.rsplit("/", 1)[0])
    return json.loads(done.stdout)


def test_a_kernel_after_another_of_the_same_shapes_comes_out_as_in_a_fresh_process():
    _outcome(FIRST)
    for text in (SECOND, THIRD, FOURTH):
        assert json.loads(json.dumps(_outcome(text))) == _fresh(text)
    assert "f16" in _outcome(SECOND)["text"].split("\n")[5]  # (the test means something: the alias decides the line)


def test_a_mistake_in_one_run_is_not_kept_for_the_next():
    broken = FIRST.replace("!m = !pto.tile_buf<vec, 16x16xf32>\n", "")  # `!m` used, never defined
    assert to_generic(broken).problems
    assert not to_generic(FIRST).problems


def test_plans_are_bounded():
    plans = ptoas._BoundedPlans(3)
    for k in range(5):
        plans[k] = k
    assert list(plans) == [2, 3, 4]


def _written_fresh(text: str) -> str:
    code = "import sys; from pto_dialect.syntax.ptoas import to_ptoas; sys.stdout.write(to_ptoas(sys.stdin.read()))"
    return subprocess.run([sys.executable, "-c", code], input=text, capture_output=True, text=True, check=True).stdout


def test_the_writer_keeps_no_run_s_constants():
    # one printed line, whose result ptoas infers from `%c8` in the first text and not in the second
    plain = FIRST.replace("!v = !pto.tensor_view<?x?xf32>\n", "").replace("!v", "!pto.tensor_view<?x?xf32>")
    first = to_generic(plain).text
    second = first.replace("constant 8 :", "constant 4 :")

    def partition_line(text: str) -> str:
        return next(line for line in text.split("\n") if "partition_view" in line)

    assert "->" not in partition_line(to_ptoas(first))
    assert to_ptoas(second) == _written_fresh(second)
    assert "->" in partition_line(to_ptoas(second))
