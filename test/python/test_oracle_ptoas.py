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
from dataclasses import dataclass

import pytest
from conftest import parse_kernel, pto_context
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


def _ptoas_texts(kernels: list[printed.Kernel], outputs: list[printed.Printed]) -> dict[str, str]:
    """Each kernel's text for ptoas: its own, or, for a text in our generic
    form (which ptoas does not read), our round trip of it."""
    trips = {o.kernel.origin: o.text for o in outputs if o.pipeline.name == "roundtrip"}
    return {k.origin: trips.get(k.origin, k.text) if printed.is_generic_form(k.text) else k.text for k in kernels}


def _input_verdicts(tool: oracles.Tool, kernels: list[printed.Kernel], outputs: list[printed.Printed]) -> dict[str, oracles.Verdict]:
    """ptoas's verdict on each kernel (`_ptoas_texts`)."""
    texts = _ptoas_texts(kernels, outputs)
    verdicts = oracles.parse_many(tool, [texts[k.origin] for k in kernels], [k.allow_unregistered for k in kernels])
    return {k.origin: v for k, v in zip(kernels, verdicts)}


def test_ptoas_reads_everything_we_print(pto_parse):
    kernels, outputs, _ = _all()
    inputs = _input_verdicts(pto_parse, kernels, outputs)
    verdicts = oracles.parse_many(pto_parse, [o.text for o in outputs], _flags(outputs))
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


def _flags(outputs: list[printed.Printed]) -> list[bool]:
    return [o.kernel.allow_unregistered for o in outputs]


def _message(error: str) -> str:
    return error.split(": error: ", 1)[-1]


@dataclass(frozen=True)
class KnownFailure:
    """An allocated output ptoas's level3 pipeline refuses, though ptoas
    compiles the input, for a reason that is ptoas's: which outputs, the
    error ptoas gives, why."""

    origin: re.Pattern  # matched against "ORIGIN (PIPELINE)"
    error: re.Pattern
    reason: str


LEVEL3_KNOWN = (
    KnownFailure(
        re.compile(r"^test/Transforms/AllocateMemoryAddr/level3-tmp-decisions\.pto:59 "),
        re.compile(r"requires explicit tmp"),
        "no tmp can be given: a binary tcolsum and a narrowing tcvt on tiles of dynamic valid shape, whose tmp "
        "ptoas's verifier sizes from a static one (TColSumOp::verify, TCvtOp::verify); the allocator warns that "
        "ptoas --pto-level=level3 rejects these ops (the test checks the warning)",
    ),
    KnownFailure(
        re.compile(r"^test/Transforms/LowerPipelineLoops/nested\.pto:1 \(switch-on\)"),
        re.compile(r"operand #0 does not dominate this use"),
        "ptoas bug: its InsertSync, on one multi-tile whose slots two sibling inner loops rotate, leaves a "
        "use of a slot index before its definition (the same output passes the pipeline with sync=none)",
    ),
    KnownFailure(
        re.compile(r"^test/Transforms/AllocateMemoryAddr/conservative\.pto:88 "),
        re.compile(r"requires 'addr' operand when --pto-level=level3"),
        "not a kernel: a tile in an unregistered test op outside any function, which our allocator leaves "
        "unaddressed with a warning (passes/allocate_memory_addr.py: it places the buffers of each function)",
    ),
)


def _known(where: str, error: str) -> KnownFailure | None:
    return next((k for k in LEVEL3_KNOWN if k.origin.search(where) and k.error.search(error)), None)


@dataclass
class Level3:
    """ptoas's level3 pipeline on every allocated output."""

    checked: int
    failures: list[str]
    issue_22: list[str]
    known: dict  # KnownFailure -> the outputs it explains
    input_refused: list[str]  # ptoas does not compile the input either, for the same reason


@pytest.fixture(scope="module")
def level3(pto_test_opt, pto_parse) -> Level3:
    kernels, outputs, _ = _all()
    inputs = _input_verdicts(pto_parse, kernels, outputs)
    allocated = [o for o in outputs if o.pipeline.allocates and inputs[o.kernel.origin].accepted]
    by_arch = defaultdict(list)
    for out in allocated:
        by_arch[oracles.ptoas_arch(out.text)].append(out)
    refused = []
    for arch, outs in by_arch.items():
        for out, verdict in zip(outs, oracles.level3_many(pto_test_opt, [o.text for o in outs], arch, _flags(outs))):
            if not verdict.accepted:
                refused.append((out, verdict.first_error))
    result = Level3(len(allocated), [], [], defaultdict(list), [])
    # what ptoas makes of the input itself, planning its memory (level2): the
    # same refusal there is the input's, not our output's
    texts = _ptoas_texts(kernels, outputs)
    wanted = sorted({out.kernel.origin for out, error in refused if not ISSUE_22.search(error)})
    flagged = {k.origin: k.allow_unregistered for k in kernels}
    own = {o: _own_refusal(pto_test_opt, texts[o], flagged[o]) for o in wanted}
    for out, error in refused:
        where = f"{out.kernel.origin} ({out.pipeline.name})"
        if (k := _known(where, error)) is not None:
            result.known[k].append(where)
        elif ISSUE_22.search(error):
            result.issue_22.append(where)
        elif not own[out.kernel.origin].accepted and _message(own[out.kernel.origin].first_error) == _message(error):
            result.input_refused.append(where)
        elif (k := _known(where, error)) is not None:
            result.known[k].append(where)
        else:
            result.failures.append(f"{where}: {error}")
    return result


def _own_refusal(tool: oracles.Tool, text: str, unregistered: bool) -> oracles.Verdict:
    """What ptoas makes of an input: its level2 pipeline (its own memory
    planning); for an input that gives some addresses itself (which level2
    refuses), its section normalization alone."""
    arch = oracles.ptoas_arch(text)
    verdict = oracles.level2_many(tool, [text], arch, [unregistered])[0]
    if not verdict.accepted and "unexpected 'addr' operand" in verdict.first_error:
        verdict = oracles.sections_many(tool, [text], arch, [unregistered])[0]
    return verdict


def test_ptoas_level3_pipeline_accepts_every_allocated_output(level3):
    assert level3.checked > 300
    assert not level3.failures, "ptoas's level3 pipeline refuses what we allocate:\n" + "\n".join(level3.failures)
    # each known failure still happens (else its entry is stale), and they stay few
    assert set(level3.known) == set(LEVEL3_KNOWN), [k.reason for k in LEVEL3_KNOWN if k not in level3.known]
    assert len(level3.input_refused) < level3.checked // 20  # inputs ptoas refuses itself (its own planning)
    assert sum(map(len, level3.known.values())) < level3.checked // 40


def test_ptoas_level3_needs_no_tmp_operands_we_leave_out(level3):
    # pto-allocate-memory-addr adds the tmps ptoas asks for at level3 (issue 22)
    assert not level3.issue_22, f"{len(level3.issue_22)} of {level3.checked} outputs: " + ", ".join(level3.issue_22)


def test_ptoas_prints_our_round_trip_as_it_prints_the_input(pto_parse):
    kernels, outputs, _ = _all()
    inputs = _input_verdicts(pto_parse, kernels, outputs)
    trips = [
        o for o in outputs if o.pipeline.name == "roundtrip" and inputs[o.kernel.origin].accepted and not printed.is_generic_form(o.kernel.text)
    ]
    verdicts = oracles.parse_many(pto_parse, [o.text for o in trips], _flags(trips))
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
    from pto_dialect.api import ParseError

    try:
        parse_kernel(kernel.text, name=kernel.origin, context=pto_context(kernel.allow_unregistered, quiet=True))
    except ParseError:
        return False
    return True


def test_verifiers_agree_or_the_difference_is_documented(pto_parse):
    chunks = printed.repository_kernels(ROOT, with_expected_errors=True)
    chunks = [c for c in chunks if not printed.is_generic_form(c.text)]
    verdicts = oracles.parse_many(pto_parse, [c.text for c in chunks], [c.allow_unregistered for c in chunks])
    theirs = {c.origin: v for c, v in zip(chunks, verdicts)}
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


AGREEMENT_SEEDS = range(300)
"""kernel_gen seeds whose kernels both verifiers must accept (only parsed:
cheap; their pass outputs are checked for GENERATED_SEEDS only)."""


def test_ptoas_accepts_every_kernel_kernel_gen_writes(pto_parse):
    kernels = printed.generated_kernels(AGREEMENT_SEEDS)
    ours = [k for k in kernels if _our_verdict(k)]
    assert len(ours) == len(kernels), "our verifier refuses generated kernels: " + ", ".join(k.origin for k in kernels if k not in ours)
    # a kernel in our generic form (which ptoas does not read) is judged by its round trip
    outputs, _ = printed.print_all([k for k in kernels if printed.is_generic_form(k.text)], printed.PIPELINES[:1])
    texts = _ptoas_texts(kernels, outputs)
    verdicts = oracles.parse_many(pto_parse, [texts[k.origin] for k in kernels])
    refused, unsigned = [], 0
    for k, v in zip(kernels, verdicts):
        if v.accepted:
            continue
        # `scf.for unsigned` is newer than ptoas's LLVM 19 (docs/dialect.md's
        # table): kernel_gen writes it for our loop analyses, and ptoas
        # refuses it at the keyword and nowhere else
        m = re.match(r"(\d+):(\d+): error: expected SSA operand", v.first_error)
        if m and texts[k.origin].splitlines()[int(m.group(1)) - 1][int(m.group(2)) - 1 :].lstrip().startswith("unsigned"):
            unsigned += 1
            continue
        refused.append(f"{k.origin}: {v.first_error}")
    assert not refused, "ptoas refuses what kernel_gen writes:\n" + "\n".join(refused)
    assert unsigned < len(kernels) // 2, unsigned
