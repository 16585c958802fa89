"""Bounded fuzzing of pto-opt and pto-run (pto_dialect.testing.fuzz): a few
hundred malformed and extreme inputs must each end with exit 0, or exit 1
and an `error:` line; no traceback, internal error, crash or hang.

Deeper runs: python scripts/fuzz.py --count 5000 --seed N
"""

from __future__ import annotations

import random
from pathlib import Path

from pto_dialect.testing import fuzz
from pto_dialect.testing.fuzz import FuzzInput

ROOT = Path(__file__).resolve().parents[2]
SEED = 20240611
COUNT = 300
TIMEOUT = 10.0


def bounded_inputs() -> list[FuzzInput]:
    return fuzz.make_inputs(random.Random(SEED), fuzz.seed_corpus(ROOT), COUNT)


def describe(inp: FuzzInput, r) -> str:
    return f"{r.status}: {inp.tool} {inp.name} {' '.join(inp.args)}\n{r.detail}"


def test_bounded_fuzz_in_process():
    inputs = bounded_inputs()
    assert len(inputs) >= COUNT
    results = fuzz.run_batch(inputs, TIMEOUT)
    findings = [describe(i, r) for i, r in zip(inputs, results) if not r.ok]
    assert not findings, f"{len(findings)} findings (reproduce: python scripts/fuzz.py --seed {SEED} --count {COUNT}):\n\n" + "\n\n".join(findings)
    # the inputs reach past the parser: some run passes and kernels to the end
    assert sum(r.exit_code == 0 for r in results) >= len(results) // 10


def test_a_sample_through_the_executables(tmp_path):
    inputs = bounded_inputs()
    rng = random.Random(SEED)
    sample = rng.sample([i for i in inputs if i.name.startswith(("huge", "deep", "random-bytes", "recursion", "empty"))], 4)
    sample += rng.sample([i for i in inputs if "(" in i.name], 4)
    findings = []
    for n, inp in enumerate(sample):
        r = fuzz.run_subprocess(inp, str(tmp_path / f"in{n}.mlir"), 60.0)
        if not r.ok:
            findings.append(describe(inp, r))
    assert not findings, "\n\n".join(findings)


# The oracle itself: it must see each kind of failure.


def test_the_oracle_flags_tracebacks_internal_errors_and_silent_failures():
    assert fuzz.judge(0, "")[0] == fuzz.OK
    assert fuzz.judge(1, "x.mlir:1:2: error: bad")[0] == fuzz.OK
    assert fuzz.judge(1, "Traceback (most recent call last):\n  File ...\nKeyError: 1")[0] == fuzz.TRACEBACK
    assert fuzz.judge(1, "pto-run: error: internal error: KeyError: 1")[0] == fuzz.INTERNAL
    assert fuzz.judge(2, "usage: ...")[0] == fuzz.BAD_EXIT
    assert fuzz.judge(1, "something went wrong")[0] == fuzz.NO_DIAGNOSTIC


def test_the_worker_reports_a_crash_and_carries_on(monkeypatch):
    # a tool "main" that kills its process: the batch must record a crash for
    # that input and still run the next one in a fresh worker
    crash = FuzzInput("crash", b"import os; os.abort()", "python-abort", [])
    fine = FuzzInput("fine", b"func.func @f() {\n  return\n}\n", "pto-opt", [])
    monkeypatch.setitem(fuzz.TOOLS, "python-abort", "tests_fuzz_abort_tool")
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parent / "fuzz_support"))
    results = fuzz.run_batch([crash, fine], 10.0)
    assert results[0].status == fuzz.CRASH
    assert results[1].status == fuzz.OK


def test_the_worker_reports_a_hang(monkeypatch):
    # a main() that ignores the worker's alarm: the parent must kill it
    hang = FuzzInput("hang", b"", "python-hang", [])
    fine = FuzzInput("fine", b"func.func @f() {\n  return\n}\n", "pto-run", [])
    monkeypatch.setitem(fuzz.TOOLS, "python-hang", "tests_fuzz_hang_tool")
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parent / "fuzz_support"))
    results = fuzz.run_batch([hang, fine], 0.5)
    assert results[0].status == fuzz.HANG
    assert results[1].status == fuzz.OK


# Regression tests for what fuzzing found in the passes (fixed): more than 16
# stages was an internal error; a huge stage count or nested pipeline loops
# replicated bodies without bound (a hang); allocation was quadratic in loop
# nesting depth (50 levels: 23 s).


def test_allocation_of_deeply_nested_loops_is_not_quadratic(tmp_path):
    # was ~20 s: the loop-carried analysis walked each loop's whole nested body
    inp = FuzzInput("deep-for-50", fuzz.deep_nesting(50, "for").encode(), "pto-opt", ["--pto-pipeline"])
    r = fuzz.run_subprocess(inp, str(tmp_path / "in.mlir"), 6.0)
    assert r.ok, r.detail

T = '!pto.tile_buf<"vec", array<i64: 4, 8>, f32>'


def loop_kernel(stages: int) -> bytes:
    return f"""
func.func @k(%A: memref<4x8xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {{
    %t = "pto.alloc_tile"() : () -> {T}
    "pto.tload"(%A, %c0, %c0, %t) : (memref<4x8xf32>, index, index, {T}) -> ()
  }} {{pto.pipeline_stages = {stages} : i64}}
  return
}}
""".encode()


def test_more_than_16_stages_is_not_an_internal_error(tmp_path):
    inp = FuzzInput("stages-17", loop_kernel(17), "pto-opt", ["--convert-to-ptoas-multi-buffer"])
    r = fuzz.run_subprocess(inp, str(tmp_path / "in.mlir"), 30.0)
    assert r.ok, r.detail


def test_a_huge_stage_count_does_not_hang_lowering(tmp_path):
    inp = FuzzInput("stages-2^31", loop_kernel(2**31 - 1), "pto-opt", ["--pto-lower-pipeline-loops"])
    r = fuzz.run_subprocess(inp, str(tmp_path / "in.mlir"), 60.0)
    assert r.ok, r.detail


def test_deeply_nested_pipeline_loops_do_not_blow_up_lowering(tmp_path):
    inp = FuzzInput("deep-for-60", fuzz.deep_nesting(60, "for").encode(), "pto-opt", ["--pto-lower-pipeline-loops"])
    r = fuzz.run_subprocess(inp, str(tmp_path / "in.mlir"), 60.0)
    assert r.ok, r.detail
