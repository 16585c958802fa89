"""The examples in the passes' docstrings (docs/passes.md is generated from
them) are true: each "Before" block parses, and the pass makes of it what
the "After" block shows. A line `...` in an After block stands for any
lines; every other line must be the pass's output line, in order (blanks
at the ends aside). An "Example" block of pto-verify is refused with the
error the text after it quotes."""

from __future__ import annotations

import re
import textwrap

import pytest
from conftest import parse_kernel
from pto_dialect.passes import all_pass_classes

import pto_dialect
from pto_dialect.api import ParseError


def _blocks(doc: str) -> list[tuple[str, str]]:
    """(the paragraph's first line, the indented block after it) for each
    block of the docstring."""
    lines = textwrap.dedent("\n".join(doc.splitlines()[1:])).splitlines()
    out, i = [], 0
    while i < len(lines):
        if lines[i].startswith("    ") and i > 0 and not lines[i - 1].strip():
            start = i
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                i += 1
            j = start - 2
            while j > 0 and lines[j - 1].strip():
                j -= 1
            intro = " ".join(line.strip() for line in lines[j : start - 1])
            out.append((intro, textwrap.dedent("\n".join(lines[start:i])).strip("\n")))
        else:
            i += 1
    return out


def _examples():
    cases = []
    for cls in all_pass_classes():
        blocks = _blocks(cls.__doc__)
        for k, (intro, block) in enumerate(blocks):
            if intro.startswith("Before") and k + 1 < len(blocks) and blocks[k + 1][0].startswith("After"):
                cases.append(pytest.param(cls, block, blocks[k + 1][1], id=f"{cls.name}-{k}"))
    return cases


def _matches(want: list[str], got: list[str]) -> bool:
    """`want` (with `...` for any lines) against `got`, line by line."""
    if not want:
        return not got
    if want[0] == "...":
        return any(_matches(want[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and got[0] == want[0] and _matches(want[1:], got[1:])


EXAMPLES = _examples()


def test_every_pass_with_a_rewrite_shows_one():
    shown = {p.values[0].name for p in EXAMPLES}
    assert {"convert-to-ptoas-multi-buffer", "pto-lower-pipeline-loops", "pto-allocate-memory-addr", "pto-replan"} <= shown, shown


@pytest.mark.parametrize("cls,before,after", EXAMPLES)
def test_the_pass_makes_of_before_what_after_shows(cls, before, after):
    module = parse_kernel(before, quiet=True)
    with module.context:
        pto_dialect.run_passes(module, cls.name)
        got = [line.strip() for line in pto_dialect.print_module(module).strip().splitlines()]
    want = [line.strip() for line in after.splitlines() if line.strip()]
    assert _matches(want, [g for g in got if g]), "\n".join(got)


def test_the_verify_example_is_refused_as_the_text_says():
    from pto_dialect.passes.verify import PtoVerify

    blocks = _blocks(PtoVerify.__doc__)
    (example,) = [b for intro, b in blocks if intro.startswith("Example")]
    quoted = re.search(r"gives `error: ([^`]*)`", PtoVerify.__doc__.replace("\n    ", " ")).group(1)
    with pytest.raises(ParseError) as info:
        parse_kernel(example, quiet=True)
    assert f"error: {quoted}" in str(info.value)
