#!/usr/bin/env python3
"""The op differential at any scale: single-op cases run by pto-run's
interpreter and by pto-isa's CPU simulator (through ptoas's own pipeline to
C++), compared bit for bit (docs/semantics.md).

    python scripts/isa_differential.py                      # the CI batch
    python scripts/isa_differential.py --seed 3 --count 3000 --ops tcvt,tdiv
    python scripts/isa_differential.py --write docs/semantics.md

Needs PTO_PARSE, PTO_TEST_OPT and PTO_ISA_INCLUDE (docs/tools.md, "Oracle
tests"). Prints the table per op and every disagreement: a mismatch, a case
only one verifier accepts, one pto-isa does not compile but pto-run runs.
--write puts the table of the CI batch into the file, between its
`<!-- op differential -->` markers. Exit code 1 when anything disagrees.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pto_dialect.testing import isa_cases, isa_diff, oracles  # noqa: E402

MARKER = "<!-- op differential -->"


def disagreements(report: isa_diff.Report) -> list[str]:
    out = []
    for title, found in (
        ("pto-run and the simulator differ", report.mismatches),
        ("only our verifier accepts", report.only_ours),
        ("only ptoas's verifier accepts", report.only_ptoas),
        ("pto-isa does not compile it, pto-run runs it", report.isa_only_refuses),
    ):
        out += [f"{title}: pto.{case.op} on {case.arch}, {case.label}: {why}" for case, why in found]
    return out


def write_table(path: Path, table: str) -> None:
    text = path.read_text()
    before, _, rest = text.partition(MARKER)
    _, found, after = rest.partition(MARKER)
    if not found:
        raise SystemExit(f"{path} has no pair of {MARKER} markers")
    path.write_text(f"{before}{MARKER}\n{table}\n{MARKER}{after}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, help="generate cases from this seed instead of the CI batch")
    p.add_argument("--count", type=int, default=1000, help="cases to generate with --seed (default 1000)")
    p.add_argument("--ops", help="comma-separated ops to generate (default: every family)")
    p.add_argument("--variants", type=int, default=isa_cases.CI_VARIANTS, help="element sets per compiled function")
    p.add_argument("--write", type=Path, metavar="FILE", help="write the CI batch's table into FILE")
    args = p.parse_args(argv)
    if args.seed is None:
        cases = isa_cases.ci_batch()
    else:
        ops = args.ops.split(",") if args.ops else None
        cases = isa_cases.generate(args.seed, args.count, ops, args.variants)
    toolchain = oracles.pto_isa()
    for tool in (oracles.pto_parse(), oracles.pto_test_opt()):
        if tool.path is None:
            raise SystemExit(tool.missing)
    if toolchain.cxx is None:
        raise SystemExit(toolchain.missing)
    start = time.perf_counter()
    report = isa_diff.differential(cases, oracles.pto_parse(), oracles.pto_test_opt(), toolchain)
    table = report.table()
    print(table)
    strict = sum(report.strict.values())
    run = sum(report.run.values()) - strict
    print(f"\n{len(cases)} cases, {run} run, {sum(report.agreed.values())} agreed, {strict} refused by pto-run "
          f"(the target lacks them), {sum(report.both_refuse.values())} refused by both verifiers, "
          f"{sum(report.not_simulated.values())} not simulated, {len(report.isa_refuses)} not compiled by pto-isa "
          f"({time.perf_counter() - start:.0f} s)")
    found = disagreements(report)
    for line in found:
        print(line)
    if args.write:
        if args.seed is not None:
            raise SystemExit("--write writes the CI batch's table; leave out --seed")
        write_table(args.write, table)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
