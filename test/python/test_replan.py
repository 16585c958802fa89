"""replan=true (docs/passes.md): a kernel PyPTO addressed, re-planned, computes
the same bits as the addressed kernel; its aliases are kept and its scratch
reuse is not."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
from conftest import parse_kernel

import pto_dialect
from pto_dialect.testing.differential import MISMATCH, REPLAN_PIPELINES, check_kernel, check_transformation
from pto_dialect.testing.kernel_gen import addressed, generate

ROOT = Path(__file__).resolve().parents[2]
LIT = ROOT / "test" / "Conversion" / "ConvertToPtoasMultiBuffer" / "replan.pto"
SEEDS = range(40)


@functools.cache
def addressed_kernels():
    """The generated kernels of SEEDS, addressed PyPTO-style, with whether
    pto-allocate-memory-addr accepts their addresses again."""
    out = []
    for seed in SEEDS:
        kernel = addressed(generate(seed))
        again = check_kernel(kernel.text, kernel.function, kernel.values, ["pto-allocate-memory-addr"], name=f"seed {seed}")
        out.append((kernel, again.outcomes[0].ok if not again.reference_error else False))
    return out


def test_addressed_kernels_are_pypto_style():
    kernels = [k for k, _ in addressed_kernels()]
    for k in kernels:
        assert "pto.alloc_tile :" not in k.text, f"seed {k.seed}: a tile without addr"
    renamed = [k for k in kernels if "renamed_buffer" in k.features]
    assert len(renamed) >= len(kernels) // 4, "too few kernels with a renamed buffer"


@pytest.mark.parametrize("pipeline", REPLAN_PIPELINES)
def test_replanned_addressed_kernels_compute_the_same_bits(pipeline):
    problems = []
    checked = 0
    for kernel, reallocates in addressed_kernels():
        if not reallocates:
            # The allocator rejects the fixed addresses it gave (a kernel with
            # calls, or fixed buffers whose lifetimes it then sees overlap):
            # not a replan question, and every pipeline that allocates fails.
            continue
        check = check_kernel(kernel.text, kernel.function, kernel.values, [pipeline], name=f"seed {kernel.seed}")
        assert check.reference_error is None, f"seed {kernel.seed}: {check.reference_error}"
        outcome = check.outcomes[0]
        checked += 1
        if not outcome.ok:
            problems.append(f"seed {kernel.seed}: {outcome.status}: {outcome.message}")
    assert checked >= len(SEEDS) * 3 // 4
    assert not problems, "\n".join(problems)


def _without_addresses(text: str) -> str:
    """Every `addr = %x` dropped, as a naive re-plan would."""
    return re.sub(r"addr = %\w+ ", "", text)


@pytest.mark.parametrize("function", ["renamed", "carried", "row_offset"])
def test_dropping_addresses_naively_changes_results(function):
    """The lit kernels' aliases matter: without them as views the results
    differ, so the bit-for-bit checks of replan=true can fail."""
    text = LIT.read_text()
    outcome = check_transformation(text, _without_addresses(text), function)
    assert outcome.status in (MISMATCH, "new-warning"), outcome


def test_decisions_are_in_the_report():
    text = (ROOT / "test" / "Conversion" / "ConvertToPtoasMultiBuffer" / "replan-fallback.pto").read_text()
    module = parse_kernel(text, name="fallback.pto")
    with module.context:
        report = pto_dialect.run_passes(module, "pto-replan")
    kept = [d for d in report.replan if not d.replanned]
    assert {d.tiles for d in kept} == {1, 2}
    assert any("overlap without one holding" in d.reason for d in kept)
    assert any(d.replanned for d in report.replan)
    assert all(d.location.startswith("fallback.pto:") for d in report.replan)
