"""Bounded fuzzing of pto-opt, pto-run, the reader/writer round trip and the
Python API (pto_dialect.testing.fuzz): a few hundred malformed and extreme
inputs, in ptoas syntax, the generic form and mixed, must each end with exit
0, or exit 1 and an `error:` line, every diagnostic at a line and column of
the input; no traceback, internal error, round-trip failure, unlocated
diagnostic, crash or hang.

Deeper runs: python scripts/fuzz.py --count 5000 --seed N
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

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


def test_bounded_fuzz_of_the_mutants_that_must_be_located():
    """Integers of any length anywhere, a pto op's name followed by `=`,
    locations written after ops, ops wrapped in other ops' regions: each
    ends in exit 0, or exit 1 with every diagnostic at a line and column of
    the input (issue 21, item 6). Deeper: python scripts/fuzz.py --kinds
    long-int,op-eq,loc,wrap --count 3000."""
    inputs = fuzz.make_inputs(random.Random(SEED), fuzz.seed_corpus(ROOT), 200, fuzz.NEW_KINDS)
    assert {kind for i in inputs for kind in fuzz.NEW_KINDS if kind in i.name} == set(fuzz.NEW_KINDS)
    results = fuzz.run_batch(inputs, TIMEOUT)
    findings = [describe(i, r) for i, r in zip(inputs, results) if not r.ok]
    reproduce = f"python scripts/fuzz.py --seed {SEED} --count 200 --kinds {','.join(fuzz.NEW_KINDS)}"
    assert not findings, f"{len(findings)} findings (reproduce: {reproduce}):\n\n" + "\n\n".join(findings)
    assert sum(r.exit_code == 0 for r in results) >= len(results) // 20  # some still parse and run


def test_a_sample_through_the_executables(tmp_path):
    inputs = bounded_inputs()
    rng = random.Random(SEED)
    sample = rng.sample([i for i in inputs if i.name.startswith(("huge", "deep", "random-bytes", "recursion", "empty"))], 4)
    sample += rng.sample([i for i in inputs if "(" in i.name and i.tool in ("pto-opt", "pto-run")], 3)
    sample += [next(i for i in inputs if "(" in i.name and i.tool == tool) for tool in ("pto-roundtrip", "pto-api")]
    findings = []
    for n, inp in enumerate(sample):
        r = fuzz.run_subprocess(inp, str(tmp_path / f"in{n}.pto"), 60.0)
        if not r.ok:
            findings.append(describe(inp, r))
    assert not findings, "\n\n".join(findings)


# The oracle itself: it must see each kind of failure.


def test_the_oracle_flags_tracebacks_internal_errors_and_silent_failures():
    assert fuzz.judge(0, "")[0] == fuzz.OK
    assert fuzz.judge(1, "x.mlir:1:2: error: bad")[0] == fuzz.OK
    assert fuzz.judge(1, "Traceback (most recent call last):\n  File ...\nKeyError: 1")[0] == fuzz.TRACEBACK
    assert fuzz.judge(1, "partial outputTraceback (most recent call last):\n  File ...\nKeyError: 1")[0] == fuzz.TRACEBACK  # (was: the judge's StopIteration)
    assert fuzz.judge(1, "pto-run: error: internal error: KeyError: 1")[0] == fuzz.INTERNAL
    assert fuzz.judge(2, "usage: ...")[0] == fuzz.BAD_EXIT
    assert fuzz.judge(1, "something went wrong")[0] == fuzz.NO_DIAGNOSTIC
    assert fuzz.judge(1, "x.pto:1:2: error: bad\nround-trip failure: it changed")[0] == fuzz.ROUNDTRIP


def test_the_oracle_flags_diagnostics_not_at_a_position_of_the_input():
    assert fuzz.judge(1, "x.pto:1:2: error: bad\nx.pto:3:1: remark: why", "x.pto")[0] == fuzz.OK
    assert fuzz.judge(1, "<unknown>: error: bad", "x.pto") == (fuzz.UNLOCATED, "<unknown>: error: bad")
    assert fuzz.judge(0, "-:3:4: remark: converted", "x.pto")[0] == fuzz.UNLOCATED
    assert fuzz.judge(1, '"name": error: bad', "x.pto")[0] == fuzz.UNLOCATED
    assert fuzz.judge(1, "pto-opt: error: unknown command line argument '-x'", "x.pto")[0] == fuzz.OK
    # a position the input wrote itself (PyPTO's locations in its Python source) is where MLIR reports the op
    assert fuzz.judge(1, "kernel.py:12:5: error: bad", "x.pto", b'pto.tadd ins() loc("kernel.py":12:5)')[0] == fuzz.OK
    assert fuzz.judge(1, "kernel.py:12:5: error: bad", "x.pto", b"")[0] == fuzz.UNLOCATED
    # the round trip reads back files it printed: positions in them are positions
    assert fuzz.judge(0, "/tmp/pto-roundtrip-x4/first.pto:4:10: warning: w", "x.pto")[0] == fuzz.OK
    # the source line a diagnostic shows is not one
    assert fuzz.judge(1, "x.pto:2:3: error: bad\n  // y.pto:1:1: error: z\n  ^", "x.pto")[0] == fuzz.OK


def test_the_corpus_has_every_spelling():
    corpus = fuzz.seed_corpus(ROOT)
    names = [name for name, _ in corpus]
    assert any(n.endswith(".pto") for n in names) and any(n.startswith("examples/") for n in names)
    generic = [text for name, text in corpus if name.endswith(" generic")]
    mixed = [text for name, text in corpus if name.endswith(("generic, ptoas types", "printed, generic types"))]
    assert generic and mixed
    assert all('"pto.tload"' in text and "pto.tload ins(" not in text for text in generic)
    # mixed: ptoas types inside generic ops, generic types inside ptoas-syntax ops
    assert any('"pto.tload"(' in t and "!pto.tile_buf<vec, " in t for t in mixed)
    assert any("pto.tload ins(" in t and '!pto.tile_buf<"vec"' in t for t in mixed)


def test_every_spelling_of_the_corpus_round_trips():
    # the unmutated generic and mixed texts are valid: they read back (exit 0)
    # and print back the same, through pto-opt and through the API
    corpus = [(name, text) for name, text in fuzz.seed_corpus(ROOT, generated=6, printed=6) if "kernel_gen" in name]
    inputs = [FuzzInput(name, text.encode(), tool, []) for name, text in corpus for tool in ("pto-roundtrip", "pto-api")]
    results = fuzz.run_batch(inputs, TIMEOUT)
    assert [(i.name, i.tool, r.exit_code) for i, r in zip(inputs, results) if r.exit_code != 0] == []


def test_the_round_trip_tools_catch_a_writer_that_loses_text(tmp_path, monkeypatch, capsys):
    # a writer that prints one type wrongly: pto-opt still exits 0, the round
    # trip must not
    from pto_dialect.driver import session
    from pto_dialect.testing import roundtrip

    kernel = tmp_path / "k.pto"
    kernel.write_text((ROOT / "examples" / "double_buffer_add.pto").read_text())
    assert roundtrip.main([str(kernel)]) == 0
    assert roundtrip.api_main([str(kernel)]) == 0
    real = session.to_ptoas
    monkeypatch.setattr(session, "to_ptoas", lambda text, *names: real(text, *names).replace("16x64xf32, valid=?x?", "16x64xf32, valid=?x?, pad=1", 1))
    assert roundtrip.main([str(kernel)]) == 1
    assert roundtrip.api_main([str(kernel)]) == 1
    err = capsys.readouterr().err
    assert err.count(fuzz.ROUNDTRIP_MARK) == 2, err
    assert fuzz.judge(1, err)[0] == fuzz.ROUNDTRIP


def test_the_worker_reports_a_crash_and_carries_on(monkeypatch):
    # a tool "main" that kills its process: the batch must record a crash for
    # that input and still run the next one in a fresh worker
    crash = FuzzInput("crash", b"import os; os.abort()", "python-abort", [])
    fine = FuzzInput("fine", b"func.func @f() {\n  return\n}\n", "pto-roundtrip", [])
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
    # (the timeout is each input's, the fine one's too: its fresh worker's first
    # pto-run imports the tool, which took over 0.5 s on a loaded machine)
    results = fuzz.run_batch([hang, fine], 3.0)
    assert results[0].status == fuzz.HANG
    assert results[1].status == fuzz.OK


# Regression tests for what fuzzing found in the passes (fixed): more than 16
# stages was an internal error; a huge stage count or nested pipeline loops
# replicated bodies without bound (a hang); allocation was quadratic in loop
# nesting depth (50 levels: 23 s).


def test_allocation_of_deeply_nested_loops_is_not_quadratic(tmp_path):
    # was ~20 s: the loop-carried analysis walked each loop's whole nested body
    inp = FuzzInput("deep-for-50", fuzz.deep_nesting(50, "for").encode(), "pto-opt", ["--pto-pipeline"])
    r = fuzz.run_subprocess(inp, str(tmp_path / "in.pto"), 6.0)
    assert r.ok, r.detail


def loop_kernel(stages: int) -> bytes:
    """A pipeline loop loading one tile, marked with `stages`."""
    return fuzz.pipeline_loop(8, stages).encode()


def test_more_than_16_stages_is_not_an_internal_error(tmp_path):
    inp = FuzzInput("stages-17", loop_kernel(17), "pto-opt", ["--convert-to-ptoas-multi-buffer"])
    r = fuzz.run_subprocess(inp, str(tmp_path / "in.pto"), 30.0)
    assert r.ok, r.detail


def test_a_huge_stage_count_does_not_hang_lowering(tmp_path):
    inp = FuzzInput("stages-2^31", loop_kernel(2**31 - 1), "pto-opt", ["--pto-lower-pipeline-loops"])
    r = fuzz.run_subprocess(inp, str(tmp_path / "in.pto"), 60.0)
    assert r.ok, r.detail


def test_deeply_nested_pipeline_loops_do_not_blow_up_lowering(tmp_path):
    inp = FuzzInput("deep-for-60", fuzz.deep_nesting(60, "for").encode(), "pto-opt", ["--pto-lower-pipeline-loops"])
    r = fuzz.run_subprocess(inp, str(tmp_path / "in.pto"), 60.0)
    assert r.ok, r.detail


# Fuzz findings, open (reported to the lead; the files are not this suite's):
# each input must end in a located error or read back as printed, and does
# not. Strict xfails: when fixed they pass, and the entry must go.
FIXED_FINDINGS = {
    # ptoas_syntax._type_end: `!pto.` followed by no word (a type alias, or the file's end)
    "a pto type alias cut short": ("pto-opt", "!t = !pto.#ile_buf<vec, 8x16xf32>\n"),
    "a pto type cut short at the end of the file": ("pto-opt", "!v = !pto."),
    # types._ints: an empty element in a generic shape array
    "an empty element in a generic shape array": ("pto-opt", "func.func @f(%a: !pto.tensor_view<array<i64: ,16>, f32>) { return }\n"),
    # a view dimension in [2^63, 2^64) once wrapped and printed as a negative one that did not read back
    "a view dimension of 2^63": ("pto-roundtrip", "func.func @f(%a: !pto.partition_tensor_view<9223372036854775808x16xf32>) {\n  return\n}\n"),
    # pto-run: a tile argument of an element type it does not run was an internal error
    "a ui64 tile argument": ("pto-run", "func.func @f(%t: !pto.tile_buf<vec, 4x8xui64>) {\n  return\n}\n"),
}


@pytest.mark.parametrize("name", sorted(FIXED_FINDINGS))
def test_fixed_fuzz_findings(tmp_path, name):
    # Each once ended in a traceback; now each is a located error (or reads back).
    tool, text = FIXED_FINDINGS[name]
    inp = FuzzInput(name, text.encode(), tool, ["--func", "f"] if tool == "pto-run" else [])
    r = fuzz.run_subprocess(inp, str(tmp_path / "in.pto"), 60.0)
    assert r.ok, (r.status, r.detail)
