#!/usr/bin/env python3
"""Differential testing at any scale: generate kernels from seeds, run each
before and after every pass pipeline, and report any kernel whose results
change (bit for bit).

    python scripts/differential.py --seed 0 --count 2000 --jobs 2
    python scripts/differential.py --seed 27 --count 1 --pipeline 'pto-pipeline{use-ptoas-multi-buffer=false}' --show
    python scripts/differential.py --count 500 --save-failures /tmp/failures
    python scripts/differential.py --seed 27 --count 1 --minimise /tmp/min
    python scripts/differential.py --addressed --count 500    # PyPTO-style addressed kernels under replan=true

Each failure names the seed, the pipeline and the first differing element,
and (with --save-failures) is written out as a .pto file with the pto-run
command that reproduces it; --minimise DIR also writes each failure shrunk
to the lines it needs (pto_dialect/testing/minimise.py) as DIR/seed-S.min.pto.
Exit code 1 when any kernel fails.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pto_dialect.testing.differential import PASS_PIPELINES, REPLAN_PIPELINES, check_kernel, unavailable_passes  # noqa: E402
from pto_dialect.testing.kernel_gen import addressed, generate  # noqa: E402


def kernel_of(seed: int, pypto_addressed: bool):
    """The kernel of `seed`, addressed as PyPTO hands kernels over when asked."""
    kernel = generate(seed)
    return addressed(kernel) if pypto_addressed else kernel


def check_seeds(seeds: list[int], pipelines: list[str], pypto_addressed: bool = False) -> list[dict]:
    out = []
    for seed in seeds:
        kernel = kernel_of(seed, pypto_addressed)
        start = time.perf_counter()
        if pypto_addressed:
            # A plan the allocator rejects when it reads it back is no input
            # for replan (every allocating pipeline fails on it as it is).
            again = check_kernel(kernel.text, kernel.function, kernel.values, ["pto-allocate-memory-addr"], name=f"seed {seed}")
            if again.reference_error is None and not again.outcomes[0].ok:
                out.append({"seed": seed, "skipped": again.outcomes[0].message})
                continue
        check = check_kernel(kernel.text, kernel.function, kernel.values, pipelines, name=f"seed {seed}")
        out.append(
            {
                "seed": seed,
                "seconds": time.perf_counter() - start,
                "ops": check.ops_executed,
                "reference_error": check.reference_error,
                "reference_warnings": check.reference_warnings,
                "outcomes": [(o.pipeline, o.status, o.message) for o in check.outcomes],
            }
        )
    return out


def reproduce_command(path: str, values: dict[str, int], pipeline: str) -> str:
    args = "".join(f" --arg {k}={v}" for k, v in values.items())
    return f"pto-run {path} --func kernel{args} --compare-pipeline '{pipeline}'"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    p.add_argument("--count", type=int, default=100, help="number of kernels (default 100)")
    p.add_argument("--pipeline", action="append", help="a pipeline to check (repeatable; default: every pass and the switch both ways)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--show", action="store_true", help="print the text of every failing kernel")
    p.add_argument("--save-failures", metavar="DIR", help="write every failing kernel to DIR/seed-S.pto")
    p.add_argument("--minimise", metavar="DIR", help="shrink every failing kernel and write it to DIR/seed-S.min.pto")
    p.add_argument(
        "--addressed", action="store_true", help="check the kernels with every tile at a PyPTO-style addr (default pipelines: replan=true)"
    )
    args = p.parse_args(argv)

    pipelines = []
    for pipeline in args.pipeline or (REPLAN_PIPELINES if args.addressed else PASS_PIPELINES):
        missing = unavailable_passes(pipeline)
        if missing:
            print(f"skipping '{pipeline}': pass '{missing[0]}' is not registered")
        else:
            pipelines.append(pipeline)
    if not pipelines:
        print("nothing to check")
        return 0

    seeds = list(range(args.seed, args.seed + args.count))
    start = time.perf_counter()
    if args.jobs > 1:
        chunks = [seeds[i :: args.jobs * 4] for i in range(args.jobs * 4)]
        with ProcessPoolExecutor(args.jobs) as pool:
            results = [r for part in pool.map(check_seeds, chunks, [pipelines] * len(chunks), [args.addressed] * len(chunks)) for r in part]
        results.sort(key=lambda r: r["seed"])
    else:
        results = check_seeds(seeds, pipelines, args.addressed)
    wall = time.perf_counter() - start

    tally: Counter = Counter()
    failures = 0
    skipped = [r for r in results if "skipped" in r]
    results = [r for r in results if "skipped" not in r]
    for r in results:
        seed = r["seed"]
        bad = []
        if r["reference_error"] or r["reference_warnings"]:
            bad.append(("<generator>", "invalid", r["reference_error"] or r["reference_warnings"][0]))
        for pipeline, status, message in r["outcomes"]:
            tally[(pipeline, status)] += 1
            if status != "same":
                bad.append((pipeline, status, message))
        if not bad:
            continue
        failures += 1
        kernel = kernel_of(seed, args.addressed)
        path = None
        if args.save_failures:
            os.makedirs(args.save_failures, exist_ok=True)
            path = os.path.join(args.save_failures, f"seed-{seed}.pto")
        for pipeline, status, message in bad:
            print(f"seed {seed}: {pipeline}: {status}: {message}")
            if pipeline != "<generator>":
                print(f"  reproduce: {reproduce_command(path or f'seed-{seed}.pto', kernel.values, pipeline)}")
        if path:
            header = "".join(f"// {reproduce_command(path, kernel.values, pl)}\n" for pl, _, _ in bad if pl != "<generator>")
            Path(path).write_text(header + kernel.text)
        if args.show:
            print(kernel.text)
        if args.minimise:
            pipeline = next((pl for pl, _, _ in bad if pl != "<generator>"), None)
            if pipeline is not None:
                from pto_dialect.testing.minimise import minimise

                small = minimise(kernel.text, kernel.function, kernel.values, pipeline)
                os.makedirs(args.minimise, exist_ok=True)
                out = os.path.join(args.minimise, f"seed-{seed}.min.pto")
                Path(out).write_text(f"// {reproduce_command(out, kernel.values, pipeline)}\n" + small)
                print(f"  minimised: {out} ({small.count(chr(10))} lines, from {kernel.text.count(chr(10))})")

    print()
    if skipped:
        seeds_text = ", ".join(str(r["seed"]) for r in skipped)
        print(f"{len(skipped)} addressed kernels skipped: pto-allocate-memory-addr rejects the plan it gave them (seeds {seeds_text})")
    for pipeline in pipelines:
        counts = {status: n for (pl, status), n in tally.items() if pl == pipeline}
        print(f"{pipeline}: " + ", ".join(f"{n} {status}" for status, n in sorted(counts.items())))
    per_kernel = sum(r["seconds"] for r in results) / max(len(results), 1)
    ops = sum(r["ops"] for r in results) / max(len(results), 1)
    print(
        f"{len(results)} kernels x {len(pipelines)} pipelines in {wall:.1f} s "
        f"({per_kernel * 1000:.0f} ms per kernel for {len(pipelines) + 1} runs, {ops:.0f} ops per run on average); "
        f"{failures} failing"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
