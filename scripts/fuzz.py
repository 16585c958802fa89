#!/usr/bin/env python3
"""Fuzz pto-opt, pto-run, the round trip and the API for as long as you like.

    python scripts/fuzz.py --count 5000 --seed 1
    python scripts/fuzz.py --count 300 --subprocess           # through the installed executables
    python scripts/fuzz.py --count 2000 --save-findings /tmp/findings
    python scripts/fuzz.py --count 3000 --kinds long-int,op-eq,loc,wrap  # only these mutants

Inputs are mutants of the repository's .pto and .mlir files and of
generated kernels (ptoas syntax, the generic form and both mixed), random
bytes and generated extremes (pto_dialect/testing/fuzz.py), run through
pto-opt, pto-run, the reader/writer round trip and the Python API. Each must
end with exit 0, or exit 1 and an `error:` line, every diagnostic at a line
and column of the input: no traceback, no internal error, no round-trip
failure, no unlocated diagnostic, no crash, no hang. Findings are printed (and
with --save-findings written as files with the command that reproduces
them). Exit code 1 on any finding.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pto_dialect.testing import fuzz  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--count", type=int, default=500)
    p.add_argument("--timeout", type=float, default=fuzz.DEFAULT_TIMEOUT, help="seconds per input")
    p.add_argument("--subprocess", action="store_true", help="run every input through the executables (slower, like a user)")
    p.add_argument("--save-findings", metavar="DIR")
    p.add_argument("--verbose", action="store_true", help="print every result")
    p.add_argument("--kinds", metavar="K1,K2", help=f"only mutants of these kinds (e.g. {','.join(fuzz.NEW_KINDS)})")
    args = p.parse_args(argv)

    kinds = tuple(args.kinds.split(",")) if args.kinds else None
    inputs = fuzz.make_inputs(random.Random(args.seed), fuzz.seed_corpus(ROOT), args.count, kinds)

    def show(inp, r):
        if args.verbose or not r.ok:
            print(f"{r.status:15} {r.seconds:6.2f}s {inp.tool} {inp.name} {' '.join(inp.args)}", flush=True)

    start = time.perf_counter()
    if args.subprocess:
        results = []
        with tempfile.TemporaryDirectory() as tmp:
            for i, inp in enumerate(inputs):
                r = fuzz.run_subprocess(inp, os.path.join(tmp, f"input{i}.pto"), args.timeout)
                show(inp, r)
                results.append(r)
    else:
        results = fuzz.run_batch(inputs, args.timeout, on_result=show)
    wall = time.perf_counter() - start

    findings = [(inp, r) for inp, r in zip(inputs, results) if not r.ok]
    for n, (inp, r) in enumerate(findings):
        print(f"\n== finding {n}: {r.status}: {inp.tool} on {inp.name}\n{r.detail}")
        if args.save_findings:
            os.makedirs(args.save_findings, exist_ok=True)
            path = Path(args.save_findings) / f"finding-{n}.pto"
            path.write_bytes(inp.data)
            (Path(args.save_findings) / f"finding-{n}.cmd").write_text(f"{fuzz.command_line(inp, str(path))}\n# {r.status}\n{r.detail}\n")

    statuses = Counter(r.status for r in results)
    print(
        f"\n{len(results)} inputs in {wall:.1f} s ({len(results) / max(wall, 1e-9):.1f} inputs/s, "
        f"{'subprocess' if args.subprocess else 'in-process'}): " + ", ".join(f"{n} {s}" for s, n in statuses.most_common())
    )
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
