"""pto-run computes what pto-isa computes (docs/semantics.md).

The op differential's CI batch (isa_cases.ci_batch: generated single-op
cases of every family and every tcvt mode of both targets) through both
verifiers, pto-run's interpreter and pto-isa's CPU simulator (PTO_PARSE,
PTO_TEST_OPT, PTO_ISA_INCLUDE; skipped when one is not set).
"""

from __future__ import annotations

import re

import pytest
from oracle_support import ROOT, require

from pto_dialect.interpreter import conversions
from pto_dialect.testing import isa_cases, isa_diff, oracles

pytestmark = pytest.mark.oracle


@pytest.fixture(scope="module")
def batch() -> list[isa_diff.Case]:
    return isa_cases.ci_batch()


@pytest.fixture(scope="module")
def report(batch) -> isa_diff.Report:
    parse, opt = require(oracles.pto_parse()), require(oracles.pto_test_opt())
    toolchain = oracles.pto_isa()
    if toolchain.include is None or toolchain.cxx is None:
        pytest.skip(toolchain.missing)
    return isa_diff.differential(batch, parse, opt, toolchain)


def _listed(found: list, limit: int = 12) -> str:
    return "\n".join(f"pto.{case.op} on {case.arch}, {case.label}: {why}" for case, why in found[:limit])


def test_the_batch_runs_every_op_on_both_targets(report, batch):
    executed = sum(report.run.values()) - sum(report.strict.values())
    assert executed >= 500
    assert set(report.run) == set(isa_cases.FAMILIES)
    assert {c.arch for c, outcome in zip(batch, report.outcomes) if outcome == "agreed"} == set(isa_cases.ARCHS)


def test_pto_run_gives_the_simulators_bits_or_the_npus(report):
    assert not report.mismatches, "pto-run and pto-isa's simulator differ:\n" + _listed(report.mismatches)


def test_both_verifiers_judge_every_case_alike(report):
    assert not report.only_ours, "ptoas refuses, our verifier accepts:\n" + _listed(report.only_ours)
    assert not report.only_ptoas, "our verifier refuses, ptoas accepts:\n" + _listed(report.only_ptoas)


def test_what_pto_isa_does_not_compile_pto_run_refuses(report):
    assert not report.isa_only_refuses, "pto-isa does not compile it, pto-run runs it:\n" + _listed(report.isa_only_refuses)


def test_every_tcvt_mode_of_both_targets_agrees_and_the_rest_is_refused(report, batch):
    modes = isa_cases.tcvt_modes()
    outcomes = report.outcomes[len(batch) - len(modes) :]
    seen = set()
    for case, outcome in zip(modes, outcomes):
        src, dst = (a.dtype for a in case.args)
        supported = conversions.supported(case.arch, src, dst)
        assert outcome == ("agreed" if supported else "strict"), f"{case.arch} {case.label}: {outcome}"
        seen.add((case.arch, src, dst, case.label.split()[1], case.label.split()[2]))
    modes_per_pair = len(isa_cases.ROUND_MODES) * len(isa_cases.SAT_MODES)
    assert sum(outcome == "agreed" for outcome in outcomes) == (18 + 20) * modes_per_pair
    assert len(seen) == len(modes)


def test_pto_run_refuses_what_the_target_lacks_citing_pto_isa(report, batch):
    # the strict cases' refusals name pto-isa's file that lacks the conversion
    strict = [c for c, outcome in zip(batch, report.outcomes) if outcome == "strict"]
    assert strict and all(c.op == "tcvt" for c in strict)
    messages = {m for _, m in _refusals(strict)}
    assert all(re.search(r"has no conversion from \w+ to \w+ on (a2a3|a5) \(include/pto/npu/(a2a3|a5)/TCvt\.hpp\)", m) for m in messages), messages


def _refusals(cases: list[isa_diff.Case]) -> list[tuple[isa_diff.Case, str]]:
    out = []
    for arch in isa_cases.ARCHS:
        mine = [c for c in cases if c.arch == arch]
        out += [(c, o.refused) for c, o in zip(mine, isa_diff.run_interpreter(mine, arch))]
    return out


def test_docs_semantics_md_shows_this_batchs_table(report):
    text = (ROOT / "docs" / "semantics.md").read_text()
    marker = "<!-- op differential -->"
    written = text.split(marker)[1].strip()
    assert written == report.table(), "docs/semantics.md's table is stale: run scripts/isa_differential.py --write docs/semantics.md"
