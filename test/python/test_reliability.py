"""Reliability under load and faults, as a long-running embedder and a
hostile user would try it: Contexts are freed, memory stays flat over many
chunks, any nesting the parser accepts works, output files are replaced
atomically and never over an input, and closed or full standard streams end
a run with one message. (The timed rows, linear time and remarks, are in
scripts/reliability.py, which CI runs bounded.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from tool_support import BIN, tool_environment

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "double_buffer_add.pto"
INVALID = ROOT / "test" / "Tools" / "pto-opt" / "Inputs" / "invalid.pto"


def python(code: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def tool(name: str, *args: str, **kwargs) -> subprocess.CompletedProcess:
    kwargs.setdefault("capture_output", True)
    kwargs.setdefault("timeout", 600)
    return subprocess.run([str(BIN / name), *args], env=tool_environment(), **kwargs)


def peak_rss_mb(*args: str) -> int:
    """Peak resident memory of one tool run, in MB."""
    code = (
        "import resource, subprocess, sys\n"
        f"subprocess.run({[str(BIN / args[0]), *args[1:]]!r}, capture_output=True)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)\n"
    )
    return int(python(code).stdout.strip())


# --- memory -----------------------------------------------------------------------


def test_every_context_a_session_makes_is_freed():
    # Was: every Context the dialect was loaded into stayed alive (~2.3 MB).
    run = python(
        f"""
        import gc
        from mlir import ir
        import pto_dialect
        from pto_dialect.driver.session import Session, Source

        text = open({str(EXAMPLE)!r}).read()
        def rss():
            return int(open("/proc/self/statm").read().split()[1]) * 4096 >> 20

        def one():
            with Session(Source("k.pto", text)) as session:
                assert session.parse() is not None
            with ir.Context() as ctx:   # the Python API's way in
                pto_dialect.run_passes(pto_dialect.parse(text, name="k.pto"), "pto-pipeline")

        for _ in range(20):
            one()
        gc.collect()
        start, start_rss = ir.Context._get_live_count(), rss()
        for _ in range(400):
            one()
        gc.collect()
        print(start, ir.Context._get_live_count(), rss() - start_rss)
        """
    )
    assert run.returncode == 0, run.stderr
    before, after, growth = map(int, run.stdout.split())
    assert after == before
    assert growth < 25, f"RSS grew {growth} MB over 800 Contexts"


CHUNK = """\
func.func @f{n}(%src: !pto.ptr<f32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %v = pto.make_tensor_view %src, shape = [%c64, %c16], strides = [%c16, %c1] {{layout = #pto.layout<nd>}} : !pto.tensor_view<64x16xf32>
  scf.for %i = %c0 to %c4 step %c1 {{
    %t = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
    %r = arith.muli %i, %c16 : index
    %p = pto.partition_view %v, offsets = [%r, %c0], sizes = [%c16, %c16] : !pto.tensor_view<64x16xf32> -> !pto.partition_tensor_view<16x16xf32>
    pto.tload ins(%p : !pto.partition_tensor_view<16x16xf32>) outs(%t : !pto.tile_buf<vec, 16x16xf32>)
  }} {{pto.pipeline_stages = 2 : i64}}
  return
}}
"""


def split_file(tmp_path: Path, chunks: int) -> Path:
    path = tmp_path / f"split{chunks}.pto"
    path.write_text("// -----\n".join(CHUNK.format(n=i) for i in range(chunks)))
    return path


def test_split_input_file_memory_is_flat(tmp_path):
    # Was: +2.3 MB per chunk (5000 chunks reached 9.1 GB).
    few = peak_rss_mb("pto-opt", str(split_file(tmp_path, 50)), "--split-input-file", "--pto-pipeline", "-o", "/dev/null")
    many = peak_rss_mb("pto-opt", str(split_file(tmp_path, 600)), "--split-input-file", "--pto-pipeline", "-o", "/dev/null")
    assert many - few < 40, f"50 chunks: {few} MB, 600 chunks: {many} MB"


# --- depth ------------------------------------------------------------------------


def deep_loops(depth: int) -> str:
    """`depth` nested pipeline loops of one trip (what the parser's bracket
    limit allows), a tile loaded at the bottom."""
    from pto_dialect.testing.fuzz import deep_nesting

    return deep_nesting(depth, "for").replace("to %c2 step", "to %c1 step")


@pytest.fixture(scope="module")
def deepest(tmp_path_factory) -> Path:
    from pto_dialect.support.source_text import MAX_NESTING

    path = tmp_path_factory.mktemp("deep") / "deep.pto"
    depth = MAX_NESTING - 10  # the brackets of the func, the op and its types
    path.write_text(deep_loops(depth))
    run = tool("pto-opt", str(path), "-o", "/dev/null")
    assert run.returncode == 0, run.stderr[-2000:]
    return path


@pytest.mark.parametrize(
    "flags",
    [
        ["--convert-to-ptoas-multi-buffer"],
        ["--pto-allocate-memory-addr"],
        ["--pto-lower-pipeline-loops"],
        ["--pto-pipeline", "--use-ptoas-multi-buffer"],
    ],
)
def test_every_pass_works_at_the_parsers_nesting_limit(deepest, flags):
    # Was: 500 nested loops made pto-allocate-memory-addr fail with an internal RecursionError.
    run = tool("pto-opt", str(deepest), *flags, "-o", "/dev/null")
    assert run.returncode == 0, run.stderr[-2000:]
    assert b"internal error" not in run.stderr


def test_pto_run_works_at_the_parsers_nesting_limit(deepest):
    run = tool("pto-run", str(deepest), "--func", "deep", "--arg", "c=1", "--compare-pipeline", "pto-pipeline{use-ptoas-multi-buffer=true}")
    assert run.returncode == 0, run.stderr[-2000:]
    assert b"compare: identical" in run.stdout


def test_a_pipeline_nested_past_the_limit_is_a_located_error():
    # Was: an internal RecursionError at 3000 levels.
    text = "builtin.module(" + "func.func(" * 3000 + "cse" + ")" * 3001
    run = tool("pto-opt", str(EXAMPLE), f"--pass-pipeline={text}", text=True)
    assert run.returncode == 1
    assert "pipeline nested deeper than 1000 levels is not supported" in run.stderr
    assert run.stderr.startswith("MLIR Textual PassPipeline Parser:1:")
    assert "internal error" not in run.stderr


# --- output files -------------------------------------------------------------------


def test_a_write_that_fails_halfway_leaves_the_old_file(tmp_path, monkeypatch, capsys):
    # Was: a full disk left 4096 bytes of partial output where the input had been.
    from pto_dialect.support import files
    from pto_dialect.tools import pto_opt, pto_run

    kernel = tmp_path / "k.pto"
    kernel.write_text(EXAMPLE.read_text())
    report = tmp_path / "report.json"
    report.write_text("old report\n")
    saved = tmp_path / "out.npz"
    saved.write_bytes(b"old results")

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", disk_full)
    assert pto_opt.main([str(kernel), "--pto-pipeline", "-o", str(kernel)]) == 1
    assert pto_opt.main([str(kernel), "--pto-pipeline", f"--pto-report={report}", "-o", "/dev/null"]) == 1
    assert pto_run.main([str(kernel), "--func", "add", "--save", str(saved)]) == 1
    err = capsys.readouterr().err
    assert f"pto-opt: error: could not write output file '{kernel}': No space left on device" in err
    assert f"pto-opt: error: could not write report file '{report}': No space left on device" in err
    assert f"pto-run: error: could not write '{saved}': No space left on device" in err
    assert kernel.read_text() == EXAMPLE.read_text()
    assert report.read_text() == "old report\n"
    assert saved.read_bytes() == b"old results"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.pto", "out.npz", "report.json"]  # no temporary left


def test_an_output_that_is_an_input_is_refused(tmp_path):
    kernel = tmp_path / "k.pto"
    kernel.write_text(EXAMPLE.read_text())
    link = tmp_path / "link.pto"
    link.symlink_to(kernel)
    for name, args, what in [
        ("pto-opt", [str(kernel), f"--pto-report={link}"], "report file"),
        ("pto-run", [str(kernel), "--func", "add", "--save", str(kernel)], "saved results"),
    ]:
        run = tool(name, *args, text=True)
        assert run.returncode == 1
        assert f"{name}: error: refusing to write the {what} to " in run.stderr
        assert "it is the input file" in run.stderr
        assert run.stdout == ""
    assert kernel.read_text() == EXAMPLE.read_text()


def test_o_may_name_the_input_and_replaces_it_only_on_success(tmp_path):
    kernel = tmp_path / "k.pto"
    kernel.write_text(EXAMPLE.read_text())
    expected = tool("pto-opt", str(EXAMPLE), "--convert-to-ptoas-multi-buffer", text=True).stdout
    run = tool("pto-opt", str(kernel), "--convert-to-ptoas-multi-buffer", "-o", str(kernel), text=True)
    assert run.returncode == 0, run.stderr
    assert kernel.read_text() == expected
    bad = tmp_path / "bad.pto"
    bad.write_text(INVALID.read_text())
    run = tool("pto-opt", str(bad), "-o", str(bad), text=True)
    assert run.returncode == 1
    assert bad.read_text() == INVALID.read_text()


def test_a_new_output_file_gets_the_usual_permissions(tmp_path):
    out = tmp_path / "new.pto"
    umask = os.umask(0o022)
    try:
        assert tool("pto-opt", str(EXAMPLE), "-o", str(out)).returncode == 0
    finally:
        os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o644


# --- standard streams ---------------------------------------------------------------


def closing(fd: int):
    return lambda: os.close(fd)


@pytest.mark.parametrize(
    "name, args, stream, message",
    [
        ("pto-opt", [], 0, "pto-opt: error: could not read standard input: it is closed"),
        ("pto-opt", [str(EXAMPLE)], 1, "pto-opt: error: could not write to standard output: standard output is closed"),
        ("pto-run", [str(EXAMPLE), "--func", "add"], 1, "pto-run: error: could not write to standard output: standard output is closed"),
        ("pto-opt", ["--list-passes"], 1, "pto-opt: error: could not write to standard output: standard output is closed"),
    ],
)
def test_a_closed_standard_stream_is_one_error(name, args, stream, message):
    # Was: AttributeError as "internal error" (stdin, stdout), or exit 0 with the digest lost (pto-run).
    run = tool(name, *args, preexec_fn=closing(stream), text=True)
    assert run.returncode == 1
    assert run.stderr.strip() == message


@pytest.mark.parametrize("name, args", [("pto-opt", [str(EXAMPLE)]), ("pto-run", [str(EXAMPLE), "--func", "add"])])
def test_a_full_standard_output_is_one_error(name, args):
    # Was: OSError ENOSPC as "internal error".
    with open("/dev/full", "w") as full:
        run = tool(name, *args, stdout=full, stderr=subprocess.PIPE, capture_output=False, text=True)
    assert run.returncode == 1
    assert run.stderr.strip() == f"{name}: error: could not write to standard output: No space left on device"


def test_a_broken_pipe_ends_quietly_with_exit_1(tmp_path):
    # Was: exit 0 with the output cut short (a short write was taken for a whole one).
    from pto_dialect.testing.kernel_gen import generate  # noqa: F401  (any big kernel will do)

    big = tmp_path / "big.pto"
    sys.path.insert(0, str(ROOT / "bench" / "tool"))
    from generate import pto_kernel

    big.write_text(pto_kernel(3000))
    proc = subprocess.Popen([str(BIN / "pto-opt"), str(big)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline() == b"module {\n"
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=300) == 1
    assert err == b""


def test_errors_never_go_into_the_output_when_stderr_is_closed():
    # Was: with fd 2 closed, errors were printed on stdout, into the output stream.
    run = tool("pto-opt", str(INVALID), preexec_fn=closing(2), stderr=None, stdout=subprocess.PIPE, capture_output=False)
    assert run.returncode == 1
    assert run.stdout == b""


def test_the_report_locations_name_the_file_of_the_python_api():
    # Was: "-:18:5" whatever the caller's file was called. A module the API
    # did not parse (ir.Module.parse of the generic form) gets the name given.
    run = python(
        f"""
        import json
        from mlir import ir
        import pto_dialect

        text = open({str(EXAMPLE)!r}).read()
        with ir.Context() as ctx:
            module = pto_dialect.parse(text, name="kernel.pto")
            generic = pto_dialect.print_module(module, generic=True)
            report = pto_dialect.run_passes(module, "convert-to-ptoas-multi-buffer")
            pto_dialect.load_dialect(ctx)
            other = pto_dialect.run_passes(ir.Module.parse(generic), "convert-to-ptoas-multi-buffer", source_name="other.pto")
        loop = next(n for n, line in enumerate(generic.split("\\n"), 1) if '"scf.for"' in line)
        print(json.dumps([report.loops[0].location, report.loops[0].tiles[0].location, other.loops[0].location, loop]))
        """
    )
    assert run.returncode == 0, run.stderr
    kernel_loop, kernel_tile, other_loop, generic_line = json.loads(run.stdout)
    assert [kernel_loop, kernel_tile] == ["kernel.pto:27:5", "kernel.pto:28:12"]  # the example's own lines
    assert other_loop == f"other.pto:{generic_line}:5"


def test_remarks_and_every_report_position_name_the_file_never_the_parsers_buffer(tmp_path):
    """(issue 21, item 7) Remarks of the pto passes reached an API caller's
    handler at "-:line:col" whatever `parse` or `source_name` named the
    file, so did the report's `first_at`/`last_at` of each placed buffer
    (also in `pto-opt --pto-report` and `--pto-memory-report=json`), and the
    positions inside messages ("lives through the scf.for at -:47:3")."""
    escapes = ROOT / "test" / "Conversion" / "ConvertToPtoasMultiBuffer" / "escapes.pto"
    memory = ROOT / "test" / "Transforms" / "AllocateMemoryAddr" / "memory-report.pto"
    run = python(
        f"""
        import json
        from mlir import ir
        from mlir.passmanager import PassManager
        import pto_dialect

        chunk = open({str(escapes)!r}).read().split("// -----")[1]
        seen = []
        with ir.Context() as ctx:
            ctx.attach_diagnostic_handler(lambda d: seen.append(str(d.location)) or True)
            pto_dialect.run_passes(pto_dialect.parse(chunk, name="parsed.pto"), "convert-to-ptoas-multi-buffer")
            pto_dialect.load_dialect(ctx)
            generic = pto_dialect.to_generic(chunk)
            pto_dialect.run_passes(ir.Module.parse(generic), "convert-to-ptoas-multi-buffer", source_name="named.pto")
            pm = PassManager("builtin.module")
            added = pto_dialect.add_passes(pm, "convert-to-ptoas-multi-buffer", source_name="added.pto")
            pm.run(ir.Module.parse(generic).operation)
            report = pto_dialect.run_passes(pto_dialect.parse(open({str(memory)!r}).read(), name="memory.pto"), "pto-allocate-memory-addr")
        print(json.dumps([seen, added.to_json(), report.to_json()]))
        """
    )
    assert run.returncode == 0, run.stderr
    seen, added, report = json.loads(run.stdout)
    assert {location.split(":")[0] for location in seen} == {'loc("parsed.pto"', 'loc("named.pto"', 'loc("added.pto"'}, seen
    assert '"-:' not in added and "added.pto:" in added
    assert '"-:' not in report and " at -:" not in report
    assert '"first_at": "memory.pto:' in report and "the scf.for at memory.pto:47:3" in report

    out = tmp_path / "report.json"
    done = tool("pto-opt", str(memory), "--pto-allocate-memory-addr", f"--pto-report={out}", "--pto-memory-report=json", "-o", "/dev/null")
    assert done.returncode == 0, done.stderr
    for text in (out.read_text(), done.stderr.decode()):
        assert '"-:' not in text and " at -:" not in text, text[:2000]
        assert f'"first_at": "{memory}:' in text
