"""ptoas reads what we write (docs/tools.md, "Oracle tests").

Against ptoas's own dialect (`pto-parse`, from PTO_PARSE) and passes
(`pto-test-opt`, from PTO_TEST_OPT):
- every text the project prints (round trips and pass outputs of the
  repository's kernels and of kernel_gen's) parses and verifies;
- every output with addresses passes ptoas's level3 pipeline with InsertSync
  (LEVEL3_KNOWN lists what does not yet, each with its reason);
- for every input ptoas accepts, ptoas prints our round trip of it as it
  prints the input, SSA names aside;
- an input our verifier rejects is rejected by ptoas and the other way
  round, or the difference is a row of the table in docs/dialect.md
  ("Where ptoas's verifier and ours differ").
"""

from __future__ import annotations

import re
from collections import defaultdict

import pytest
from mlir import ir
from oracle_support import ROOT, generated, repository, require

from pto_dialect.testing import oracles, printed

pytestmark = pytest.mark.oracle

ISSUE_22 = re.compile(r"requires explicit tmp( for [^']*)? when PlanMemory is skipped")
"""ptoas's level3 asks for the scratch `tmp` operands its planner would
otherwise make (trowsum, trowmax, tci, narrowing tcvt, ...): issue 22 adds
them; until then these outputs are expected to fail."""


@pytest.fixture(scope="module")
def pto_parse() -> oracles.Tool:
    return require(oracles.pto_parse())


@pytest.fixture(scope="module")
def pto_test_opt() -> oracles.Tool:
    return require(oracles.pto_test_opt())


def _all():
    kernels, outputs, refused = repository()
    gen_kernels, gen_outputs, gen_refused = generated()
    return kernels + gen_kernels, outputs + gen_outputs, refused + gen_refused


def _input_verdicts(tool: oracles.Tool, kernels: list[printed.Kernel], outputs: list[printed.Printed]) -> dict[str, oracles.Verdict]:
    """ptoas's verdict on each kernel: on its text, or, for a text in our
    generic form (which ptoas does not read), on our round trip of it."""
    trips = {o.kernel.origin: o.text for o in outputs if o.pipeline.name == "roundtrip"}
    texts = [trips.get(k.origin, k.text) if printed.is_generic_form(k.text) else k.text for k in kernels]
    return {k.origin: v for k, v in zip(kernels, oracles.parse_many(tool, texts))}


def test_ptoas_reads_everything_we_print(pto_parse):
    kernels, outputs, _ = _all()
    inputs = _input_verdicts(pto_parse, kernels, outputs)
    verdicts = oracles.parse_many(pto_parse, [o.text for o in outputs])
    failures = []
    for out, verdict in zip(outputs, verdicts):
        if verdict.accepted:
            continue
        given = inputs[out.kernel.origin]
        # a kernel ptoas itself refuses is refused after our passes for the
        # same reason (that we accept it is a verifier difference, below)
        if not given.accepted and _message(given.first_error) == _message(verdict.first_error):
            continue
        failures.append(f"{out.kernel.origin} ({out.pipeline.name}): {verdict.first_error}")
    assert len(outputs) > 1000
    assert not failures, "ptoas refuses what we print:\n" + "\n".join(failures)


def _message(error: str) -> str:
    return error.split(": error: ", 1)[-1]


def test_ptoas_level3_pipeline_accepts_every_allocated_output(pto_test_opt, pto_parse):
    kernels, outputs, _ = _all()
    inputs = _input_verdicts(pto_parse, kernels, outputs)
    allocated = [o for o in outputs if o.pipeline.allocates and inputs[o.kernel.origin].accepted]
    by_arch = defaultdict(list)
    for out in allocated:
        by_arch[oracles.ptoas_arch(out.text)].append(out)
    failures, issue_22 = [], []
    for arch, outs in by_arch.items():
        for out, verdict in zip(outs, oracles.level3_many(pto_test_opt, [o.text for o in outs], arch)):
            if verdict.accepted:
                continue
            where = f"{out.kernel.origin} ({out.pipeline.name}, {arch}): {verdict.first_error}"
            (issue_22 if ISSUE_22.search(verdict.first_error) else failures).append(where)
    assert len(allocated) > 300
    assert not failures, "ptoas's level3 pipeline refuses what we allocate:\n" + "\n".join(failures)


def test_ptoas_prints_our_round_trip_as_it_prints_the_input(pto_parse):
    kernels, outputs, _ = _all()
    inputs = _input_verdicts(pto_parse, kernels, outputs)
    trips = [
        o for o in outputs if o.pipeline.name == "roundtrip" and inputs[o.kernel.origin].accepted and not printed.is_generic_form(o.kernel.text)
    ]
    verdicts = oracles.parse_many(pto_parse, [o.text for o in trips])
    differ = []
    for out, verdict in zip(trips, verdicts):
        want = oracles.canonical_names(inputs[out.kernel.origin].printed)
        got = oracles.canonical_names(verdict.printed)
        if want != got:
            differ.append(f"{out.kernel.origin}: {_first_difference(want, got)}")
    assert len(trips) > 120
    assert not differ, "ptoas reads our round trip as another module:\n" + "\n".join(differ)


def _first_difference(a: str, b: str) -> str:
    for n, (x, y) in enumerate(zip(a.splitlines(), b.splitlines()), 1):
        if x != y:
            return f"line {n}:\n  ptoas's print of the input:  {x.strip()}\n  ptoas's print of our output: {y.strip()}"
    return "one printing is longer"


# -- verifier agreement ---------------------------------------------------------------------------

DIFFERENCES_HEADING = "### Where ptoas's verifier and ours differ"


def documented_differences() -> dict[str, str]:
    """The table in docs/dialect.md: input -> which side accepts it."""
    text = (ROOT / "docs" / "dialect.md").read_text()
    start = text.index(DIFFERENCES_HEADING)
    rows = {}
    for line in text[start:].splitlines()[1:]:
        if line.startswith("#"):
            break
        m = re.match(r"\|\s*`([^`]+)`\s*\|\s*(ptoas|ours)\s*\|", line)
        if m:
            rows[m.group(1)] = m.group(2)
    return rows


def _our_verdict(kernel: printed.Kernel) -> bool:
    from pto_dialect.api import ParseError, parse

    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = "allow-unregistered-dialect" in kernel.text
        ctx.attach_diagnostic_handler(lambda _d: True)
        try:
            parse(kernel.text, name=kernel.origin)
        except ParseError:
            return False
    return True


def test_verifiers_agree_or_the_difference_is_documented(pto_parse):
    chunks = printed.repository_kernels(ROOT, with_expected_errors=True)
    chunks = [c for c in chunks if not printed.is_generic_form(c.text)]
    flagged = [c for c in chunks if "allow-unregistered-dialect" in c.text]
    plain = [c for c in chunks if c not in flagged]
    theirs = dict(zip((c.origin for c in plain), oracles.parse_many(pto_parse, [c.text for c in plain])))
    theirs.update(zip((c.origin for c in flagged), oracles._many(pto_parse.require(), ["--allow-unregistered-dialect"], [c.text for c in flagged])))
    found = {}
    for chunk in chunks:
        ours, ptoas = _our_verdict(chunk), theirs[chunk.origin].accepted
        if ours != ptoas:
            found[chunk.origin] = "ours" if ours else "ptoas"
    documented = documented_differences()
    assert len(chunks) > 200
    undocumented = {k: v for k, v in found.items() if documented.get(k) != v}
    stale = {k: v for k, v in documented.items() if found.get(k) != v}
    assert not undocumented, "inputs only one verifier accepts, not in docs/dialect.md:\n" + "\n".join(
        f"{k}: accepted by {v}; ptoas says: {theirs[k].first_error}" for k, v in sorted(undocumented.items())
    )
    assert not stale, "rows of docs/dialect.md's table that are no longer true:\n" + "\n".join(sorted(stale))
