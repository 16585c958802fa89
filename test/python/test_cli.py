"""pto-opt as a process: exact exit codes, no tracebacks, start-up without
MLIR for --version/--help, the installed script, and docs/passes.md kept in
step with the pass classes. (The flag-by-flag behaviour is in the lit tests
under test/Tools/pto-opt/.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tool_support import tool_environment

ROOT = Path(__file__).resolve().parents[2]
TILE = ROOT / "test" / "Tools" / "pto-opt" / "Inputs" / "tile.pto"
INVALID = ROOT / "test" / "Tools" / "pto-opt" / "Inputs" / "invalid.pto"
PTO_OPT = [sys.executable, "-m", "pto_dialect.tools.pto_opt"]


def pto_opt(*args: str, stdin: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    environ = tool_environment(**(env or {}))
    run = subprocess.run(
        [*PTO_OPT, *args], input=stdin, capture_output=True, text=True, env=environ, timeout=120
    )
    assert "Traceback" not in run.stdout + run.stderr, run.stderr
    return run


def test_installed_script_next_to_python():
    script = Path(sys.executable).with_name("pto-opt")
    assert script.exists(), "pip install -e . installs the pto-opt console script"
    run = subprocess.run([str(script), str(TILE)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "pto.tadd ins(" in run.stdout


def test_success_is_exit_0_with_output_on_stdout_only():
    run = pto_opt(str(TILE))
    assert run.returncode == 0
    assert run.stderr == ""
    assert run.stdout.startswith("module {\n")


@pytest.mark.parametrize(
    "args, message",
    [
        ([str(INVALID)], "error: 'pto.alloc_tile' op addr must be aligned to 32 bytes for local tile memory space, got 16"),
        (["/nonexistent/input.mlir"], "pto-opt: error: could not open input file '/nonexistent/input.mlir'"),
        ([str(TILE), "--no-such-flag"], "pto-opt: error: unknown command line argument '--no-such-flag'"),
        ([str(TILE), "--pass-pipeline=builtin.module(nope)"], "error: 'nope' does not refer to a registered pass"),
        ([str(TILE), "--pto-verify{arch=a7}"], "option 'arch': 'a7' is not one of a2a3, a5, a2, a3"),
        ([str(TILE), "--pto-verify{foo=1}"], "pass 'pto-verify' has no option 'foo'"),
        ([str(TILE), "--pass-pipeline=builtin.module(cse"], "unbalanced parentheses"),
        ([str(TILE), "--pass-pipeline=builtin.module(func.func(pto-verify))"], "cannot be nested in 'func.func(...)'"),
        ([str(TILE), "--canonicalize{max-iterations=x}"], "failed to add `canonicalize`"),
        ([str(TILE), "-o", "/nonexistent/dir/out.mlir"], "could not open output file"),
    ],
)
def test_every_failure_is_exit_1_with_one_message(args, message):
    run = pto_opt(*args)
    assert run.returncode == 1
    assert message in run.stderr
    assert run.stdout == ""


def test_failure_under_verify_diagnostics_is_exit_1():
    run = pto_opt(str(INVALID), "--verify-diagnostics")
    assert run.returncode == 1
    assert "unexpected error: 'pto.alloc_tile' op addr must be aligned" in run.stderr


def test_stdin_dash_and_no_file_are_the_same():
    text = TILE.read_text()
    a = pto_opt(stdin=text)
    b = pto_opt("-", stdin=text)
    assert a.returncode == b.returncode == 0
    assert a.stdout == b.stdout == pto_opt(str(TILE)).stdout


def test_output_file(tmp_path):
    out = tmp_path / "out.pto"
    run = pto_opt(str(TILE), "-o", str(out))
    assert run.returncode == 0 and run.stdout == ""
    assert out.read_text() == pto_opt(str(TILE)).stdout


def test_split_input_file_reports_lines_of_the_whole_file(tmp_path):
    chunk = (
        'func.func @f{n}() {{\n  %a = arith.constant {addr} : i64\n'
        "  %t = pto.alloc_tile addr = %a : !pto.tile_buf<vec, 16x16xf32>\n  return\n}}\n"
    )
    text = "// -----\n".join(chunk.format(n=n, addr=addr) for n, addr in enumerate([0, 8, 64, 100]))
    path = tmp_path / "chunks.pto"
    path.write_text(text)
    run = pto_opt(str(path), "--split-input-file")
    assert run.returncode == 1
    errors = [line for line in run.stderr.splitlines() if ": error: " in line]
    # Chunks are 6 lines apart (5 lines and a marker); the alloc is line 3 of each.
    assert errors == [
        f"{path}:9:8: error: 'pto.alloc_tile' op addr must be aligned to 32 bytes for local tile memory space, got 8",
        f"{path}:21:8: error: 'pto.alloc_tile' op addr must be aligned to 32 bytes for local tile memory space, got 100",
    ]
    outputs = run.stdout.split("// -----\n")
    assert [bool(o.strip()) for o in outputs] == [True, False, True, False]


def _imported_modules(*args: str) -> list[str]:
    code = (
        "import sys\n"
        "from pto_dialect.tools.pto_opt import main\n"
        f"rc = main({list(args)!r})\n"
        "print('MODULES', sorted(m for m in sys.modules if m == 'mlir' or m.startswith('mlir.')))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    line = next(line for line in run.stdout.splitlines() if line.startswith("MODULES"))
    return eval(line.split(" ", 1)[1])


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_do_not_import_mlir(flag):
    assert _imported_modules(flag) == []


def test_version_text():
    from pto_dialect import LLVM_VERSION, __version__

    run = pto_opt("--version")
    assert run.returncode == 0
    assert run.stdout.strip() == f"pto-opt {__version__} (pto dialect; MLIR Python bindings, LLVM {LLVM_VERSION})"


def test_list_passes_names_every_registered_pass():
    from pto_dialect import passes

    run = pto_opt("--list-passes")
    assert run.returncode == 0
    listed = [line.split()[0] for line in run.stdout.splitlines() if line.startswith("  --")]
    assert listed == sorted(f"--{name}" for name in passes.get_all_passes())


def test_docs_passes_md_is_generated_from_the_passes():
    generated = subprocess.run(
        [sys.executable, "-m", "pto_dialect.tools.pass_docs"], capture_output=True, text=True, check=True
    ).stdout
    docs = (ROOT / "docs" / "passes.md").read_text()
    assert docs == generated, "docs/passes.md is stale: python -m pto_dialect.tools.pass_docs > docs/passes.md"
    from pto_dialect import passes

    for name in passes.get_all_passes():
        assert f"## `{name}`" in docs


def test_report_locations_name_the_input_file():
    # Passes record where a decision was made as "-:line:col" (Module.parse
    # names every input "-"); the driver puts the input's name there.
    from pto_dialect.driver.session import name_locations
    from pto_dialect.reports.decisions import BufferPlacement, FunctionMemory, LoopDecision, PipelineReport, TileDecision

    report = PipelineReport(
        loops=[LoopDecision("p", "-:18:5", 2, True, tiles=[TileDecision("-:19:12", "vec", "t", True)])],
        memory=[FunctionMemory("add", "a3", buffers=[BufferPlacement("-:20:3", "vec", "t", 0, 64, 1, 2)])],
    )
    name_locations(report, "kernel.mlir")
    assert report.loops[0].location == "kernel.mlir:18:5"
    assert report.loops[0].tiles[0].location == "kernel.mlir:19:12"
    assert report.memory[0].buffers[0].location == "kernel.mlir:20:3"
    name_locations(report, "other.mlir")  # already named: left alone
    assert report.loops[0].location == "kernel.mlir:18:5"


@pytest.mark.parametrize("error", [ValueError("boom"), RuntimeError("boom"), KeyError("boom")])
def test_a_bug_is_an_internal_error_not_a_traceback(monkeypatch, capsys, error):
    from pto_dialect.tools import pto_opt as tool

    def fail(self):
        raise error

    monkeypatch.delenv("PTO_DEBUG", raising=False)
    monkeypatch.setattr(tool.Driver, "run", fail)
    assert tool.main([str(TILE)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"pto-opt: error: internal error: {type(error).__name__}: ")
    assert "Traceback" not in err


def test_pto_run_integer_arguments_of_any_length(tmp_path):
    """(issue 21, item 6) Python's int() refuses a literal of more than 4300
    digits: that was an internal error; a huge dimension was one too."""
    kernel = tmp_path / "k.pto"
    kernel.write_text("func.func @k(%n: index, %v: !pto.tensor_view<?x8xf32>) {\n  return\n}\n")
    long = "9" * 5000
    run = subprocess.run(
        [sys.executable, "-m", "pto_dialect.tools.pto_run", str(kernel), "--arg", f"n={long}", "--arg", "v=4x8"], capture_output=True, text=True, timeout=120
    )
    assert (run.returncode, run.stderr) == (1, "pto-run: error: --arg n: '99999999999999999999...' has more digits than any integer type holds\n")
    run = subprocess.run(
        [sys.executable, "-m", "pto_dialect.tools.pto_run", str(kernel), "--arg", "n=1", "--arg", f"v={long}x8"], capture_output=True, text=True, timeout=120
    )
    assert (run.returncode, run.stderr) == (1, "pto-run: error: --arg v: '99999999999999999999...' has more digits than any integer type holds\n")


def test_integer_literals_of_any_length():
    from pto_dialect.support.source_text import integer_literal

    assert integer_literal("-0042") == -42
    assert integer_literal("9" * 40) == int("9" * 40)
    assert integer_literal("9" * 5000) == 10**40  # out of every range, like the literal
    assert integer_literal("-" + "9" * 5000) == -(10**40)
    assert integer_literal("0" * 5000 + "7") == 7
