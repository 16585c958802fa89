"""We print what ptoas prints (issue 25, item 1; docs/tools.md, "Oracle tests").

For every valid ptoas input the project holds, our printing of it (the
round trip, `pto-opt FILE`) is byte for byte `pto-parse`'s printing of the
same input, SSA names aside (`oracles.canonical_names`). The inputs are
derived, not listed: every chunk of every `.pto` and `.mlir` file under
`examples/` and `test/` that expects no error (`printed.repository_kernels`)
and is in ptoas syntax; a chunk `pto-parse` refuses is no valid ptoas input
(skipped, with ptoas's error), one our reader refuses is a verifier
difference docs/dialect.md lists (test_oracle_ptoas.py checks those).

`KNOWN` lists what we print otherwise on purpose, each with its reason; its
entries are strict expected failures, so one that starts to match fails.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import pytest
from oracle_support import ROOT, require

from pto_dialect.testing import oracles, printed

pytestmark = pytest.mark.oracle


@dataclass(frozen=True)
class Known:
    """Inputs whose text matches `pattern`, which we print otherwise than
    ptoas, and why."""

    pattern: re.Pattern
    reason: str


KNOWN = (
    Known(
        re.compile(r"pto\.tcolsum ins\(%[\w.$-]+ : [^()]*\) outs\([^()]*\)\s*\{isBinary = true\}"),
        "ptoas's TColSumOp::print leaves `isBinary` out of a tcolsum without a tmp, though its parser reads it "
        "there and its passes act on it (pto-materialize-implicit-tmp gives a binary tcolsum its tmp): printing "
        "as ptoas prints would change what the module means, so we keep it",
    ),
)


def _inputs() -> list[printed.Kernel]:
    return [k for k in printed.repository_kernels(ROOT) if not printed.is_generic_form(k.text)]


INPUTS = _inputs()


def _param(kernel: printed.Kernel):
    known = next((k for k in KNOWN if k.pattern.search(kernel.text)), None)
    marks = [pytest.mark.xfail(strict=True, reason=known.reason)] if known else []
    return pytest.param(kernel, id=kernel.origin, marks=marks)


@lru_cache(maxsize=1)
def _theirs(tool_path: str) -> dict[str, oracles.Verdict]:
    tool = oracles.Tool("pto-parse", oracles.PTO_PARSE, tool_path)
    verdicts = oracles.parse_many(tool, [k.text for k in INPUTS], [k.allow_unregistered for k in INPUTS])
    return {k.origin: v for k, v in zip(INPUTS, verdicts)}


@lru_cache(maxsize=1)
def _ours() -> tuple[dict[str, str], frozenset[str]]:
    outputs, refused = printed.print_all(INPUTS, printed.PIPELINES[:1])
    return {o.kernel.origin: o.text for o in outputs}, frozenset(k.origin for k in refused)


@pytest.fixture(scope="module")
def theirs() -> dict[str, oracles.Verdict]:
    return _theirs(require(oracles.pto_parse()).path)


def _normal(text: str) -> str:
    return oracles.canonical_names(text).strip("\n") + "\n"


@pytest.mark.parametrize("kernel", [_param(k) for k in INPUTS])
def test_we_print_what_ptoas_prints(kernel, theirs):
    verdict = theirs[kernel.origin]
    if not verdict.accepted:
        pytest.skip(f"not a valid ptoas input: {verdict.first_error[:200]}")
    ours, refused = _ours()
    if kernel.origin in refused:
        pytest.skip("our reader refuses it: a verifier difference (docs/dialect.md)")
    want, got = _normal(verdict.printed), _normal(ours[kernel.origin])
    assert got == want, _first_difference(want, got)


def test_the_inputs_are_many(theirs):
    ours, refused = _ours()
    compared = [k for k in INPUTS if theirs[k.origin].accepted and k.origin not in refused]
    assert len(compared) > 150, len(compared)


def _first_difference(want: str, got: str) -> str:
    for n, (x, y) in enumerate(zip(want.splitlines(), got.splitlines()), 1):
        if x != y:
            return f"line {n}:\n  pto-parse: {x.strip()}\n  ours:      {y.strip()}"
    return "one printing is longer"
