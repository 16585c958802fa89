"""Embedded throughput (issue 26): a compiler that embeds our passes runs
many kernels through the Python API in one process. Its peer is what the
same toolchain pays for C++ `mlir-opt` once per kernel (a process that
parses and prints it: the least an external tool costs).

The corpus is PyPTO-style kernels (`kernel_gen.generate` seeds 0..N-1, as
PyPTO hands them over: `kernel_gen.addressed`), in ptoas syntax. Through
the API each kernel is parsed (ptoas's rules checked) and printed in
ptoas syntax, the peer's job (with `--job convert`, converted by
`convert-to-ptoas-multi-buffer` between the two), once with a
fresh Context per kernel and once with one Context reused for all; the two
must print the same text for every kernel (the guard: nothing of one
kernel reaches the next through a reused Context), or the script fails.

    python bench/tool/embedded.py [--kernels 629] [--runs 3]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

IRDL = ROOT / "pto_dialect" / "dialect" / "pto.irdl.mlir"
JOBS = {"roundtrip": None, "convert": "convert-to-ptoas-multi-buffer"}


def corpus(count: int) -> list[str]:
    from pto_dialect.testing.kernel_gen import addressed, generate

    return [addressed(generate(seed)).text for seed in range(count)]


def through_api(texts: list[str], reuse: bool, pipeline: str | None) -> tuple[float, list[str]]:
    """(seconds, printed texts) of the whole corpus through the API."""
    from mlir import ir

    import pto_dialect

    printed = []
    gc.collect()
    start = time.perf_counter()
    shared = ir.Context() if reuse else None
    for i, text in enumerate(texts):
        ctx = shared or ir.Context()
        with ctx:
            module = pto_dialect.parse(text, name=f"kernel{i}.pto")
            if pipeline:
                pto_dialect.run_passes(module, pipeline)
            printed.append(pto_dialect.print_module(module))
            del module
    return time.perf_counter() - start, printed


def through_mlir_opt(generic_files: list[Path], mlir_opt: str) -> float:
    """Seconds for one C++ `mlir-opt` process per kernel, parsing and printing it."""
    start = time.perf_counter()
    for path in generic_files:
        subprocess.run([mlir_opt, f"--irdl-file={IRDL}", str(path)], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def measure(count: int, runs: int, mlir_opt: str, job: str = "roundtrip") -> dict:
    import pto_dialect

    texts = corpus(count)
    with tempfile.TemporaryDirectory() as tmp:
        generic_files = []
        for i, text in enumerate(texts):
            path = Path(tmp) / f"k{i}.mlir"
            path.write_text(pto_dialect.to_generic(text))
            generic_files.append(path)
        fresh, reused, peer = [], [], []
        reference = None
        for _ in range(runs):  # round-robin: a slow spell hits all three alike
            seconds, out_fresh = through_api(texts, reuse=False, pipeline=JOBS[job])
            fresh.append(seconds)
            seconds, out_reused = through_api(texts, reuse=True, pipeline=JOBS[job])
            reused.append(seconds)
            if out_fresh != out_reused:
                bad = next(i for i, (a, b) in enumerate(zip(out_fresh, out_reused)) if a != b)
                sys.exit(f"kernel {bad}: a reused Context printed other text than a fresh one")
            if reference is None:
                reference = out_fresh
            assert out_fresh == reference, "a run printed other text than the first"
            peer.append(through_mlir_opt(generic_files, mlir_opt))
    rate = {name: count / statistics.median(times) for name, times in (("fresh", fresh), ("reused", reused), ("mlir-opt", peer))}
    return {
        "kernels": count,
        "job": job,
        "kernels_per_s": rate,
        "fresh_over_mlir_opt": rate["fresh"] / rate["mlir-opt"],
        "reused_over_mlir_opt": rate["reused"] / rate["mlir-opt"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kernels", type=int, default=629)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--job", choices=sorted(JOBS), default="roundtrip")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from run import cxx_mlir_opt

    result = measure(args.kernels, args.runs, cxx_mlir_opt(), args.job)
    r = result["kernels_per_s"]
    print(
        f"{args.kernels} kernels, {args.job}: API fresh Context {r['fresh']:.1f}/s, reused {r['reused']:.1f}/s, C++ mlir-opt per kernel {r['mlir-opt']:.1f}/s"
    )
    print(f"fresh / mlir-opt {result['fresh_over_mlir_opt']:.2f}x, reused / mlir-opt {result['reused_over_mlir_opt']:.2f}x")


if __name__ == "__main__":
    main()
