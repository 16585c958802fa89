"""Ctrl-C at any moment (docs/tools.md, "Output and exit codes";
pto_dialect/support/interrupts.py): the tools die of the signal, as its default
action ends a process (a shell reports 130 and a script's loop stops), with
no traceback, LLVM assertion or crash on the way, and leave every output
file as it was and no temporary file behind. The Python API raises
KeyboardInterrupt to its caller and leaves the Context usable.

Before: a Ctrl-C while the bindings loaded was a segfault or a traceback,
one during a pass an LLVM assertion (`allowUnregisteredDialects` in a
multi-threaded context), and the exit code 130 made a shell loop go on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from tool_support import tool_command, tool_environment

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "tool"))
from generate import pto_kernel  # noqa: E402

BAD_OUTPUT = ("Traceback", "Assertion", "Segmentation", "Fatal Python error", "Aborted", "core dumped")

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/PID/status")


def catches_sigint(pid: int) -> bool | None:
    """Whether the process has a handler for SIGINT (None once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (signal.SIGINT - 1) & 1)
    except OSError:
        return None
    return None


def wait_until_started(process: subprocess.Popen) -> None:
    """Until the tool's own code runs: Python's start-up (site, .pth files)
    installs Python's SIGINT handler, and the tool's first act takes it away
    again (interrupts.install). What Python does with a Ctrl-C before that is
    Python's (docs/tools.md). A tool that keeps Python's handler (as they
    all did before) is taken to be started 0.3 s after Python installed it."""
    handler_since = None
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        state = catches_sigint(process.pid)
        if state is None:
            return
        if state and handler_since is None:
            handler_since = time.monotonic()
        elif handler_since is not None and (not state or time.monotonic() - handler_since > 0.3):
            return
        time.sleep(0.0005)
    raise AssertionError("the tool never got past Python's start-up")


def interrupted_run(args: list[str], delay: float, env: dict[str, str]) -> tuple[int, str, float]:
    """(exit code, standard error, seconds from start-up to the end)."""
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    wait_until_started(process)
    start = time.monotonic()
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    return process.returncode, err.decode("utf-8", "replace"), time.monotonic() - start


def sweep(tmp_path: Path, args: list[str], outputs: dict[Path, bytes], moments: int) -> list[float]:
    """Run `args` once through to time it and learn its outputs, then
    `moments` times with a Ctrl-C at evenly spread moments of that time.
    Each interrupted run must die of SIGINT quietly and leave each of
    `outputs` (the files and what they held before) as it was or as a full
    run writes it, never anything between, or, interrupted too late, have
    finished. Returns the moments (seconds after start-up) at which a
    run was interrupted."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = tool_environment(TMPDIR=str(scratch))
    totals = []
    for _ in range(2):  # the shorter of two: the machine may be busy
        finished = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        wait_until_started(finished)
        start = time.monotonic()
        _, err = finished.communicate(timeout=120)
        totals.append(time.monotonic() - start)  # from the tool's first act to its end
        assert finished.returncode == 0, err.decode()
    total = min(totals)
    new = {path: path.read_bytes() for path in outputs}
    interrupted = []
    for i in range(moments):
        for path, old in outputs.items():
            path.write_bytes(old)
        delay = 0.9 * total * i / moments
        code, err, seconds = interrupted_run(args, delay, env)
        assert not any(bad in err for bad in BAD_OUTPUT), f"at {delay:.2f} s: {err}"
        # the one line the command says, and nothing else
        assert code == 0 or (len(err.splitlines()) == 1 and err.endswith(": interrupted\n")), f"at {delay:.2f} s: {err}"
        leftovers = [p.name for p in tmp_path.rglob("*") if p.is_file() and (p.name.endswith(".tmp") or p.parent != tmp_path)]
        assert not leftovers, f"at {delay:.2f} s: temporary files left: {leftovers}"
        if code == 0:  # finished before the signal came: later moments come earlier
            total = min(total, seconds)
            for path in outputs:
                assert path.read_bytes() == new[path], f"at {delay:.2f} s: {path.name} differs from a full run's"
            continue
        assert code == -signal.SIGINT, f"at {delay:.2f} s: exit code {code}, stderr: {err}"
        for path, old in outputs.items():  # (pto-opt writes its report, then its output)
            assert path.read_bytes() in (old, new[path]), f"at {delay:.2f} s: {path.name} is neither the old file nor the new one"
        interrupted.append(delay)
    return interrupted


def test_ctrl_c_at_any_moment_of_pto_opt(tmp_path):
    kernel = tmp_path / "k.pto"
    kernel.write_text(pto_kernel(700))  # start-up, reading, parsing, the pass, printing (through a file), writing
    out, report = tmp_path / "out.pto", tmp_path / "report.json"
    out.write_bytes(b"the old output\n")
    report.write_bytes(b"the old report\n")
    args = [*tool_command("pto-opt"), str(kernel), "--convert-to-ptoas-multi-buffer", "-o", str(out), f"--pto-report={report}"]
    interrupted = sweep(tmp_path, args, {out: out.read_bytes(), report: report.read_bytes()}, moments=10)
    assert len(interrupted) >= 5, interrupted


def test_ctrl_c_at_any_moment_of_pto_run(tmp_path):
    kernel = tmp_path / "k.pto"
    kernel.write_text(pto_kernel(60))
    saved = tmp_path / "results.npz"
    saved.write_bytes(b"the old results\n")
    args = [*tool_command("pto-run"), str(kernel), "--func", "kernel", "--compare-pipeline", "convert-to-ptoas-multi-buffer", f"--save={saved}"]
    interrupted = sweep(tmp_path, args, {saved: saved.read_bytes()}, moments=8)
    assert len(interrupted) >= 4, interrupted


def test_a_shell_reports_130_and_its_loop_stops(tmp_path):
    """As with any tool that dies of SIGINT: `$?` is 130, and a Ctrl-C at
    the terminal (to the whole process group) ends a script's loop. bash
    takes a child that exits, even with code 130, as having handled the
    Ctrl-C, and goes on with the loop."""
    kernel = tmp_path / "k.pto"
    kernel.write_text(pto_kernel(4000))  # runs for seconds: still running when the Ctrl-C comes
    tool = " ".join(f"'{a}'" for a in [*tool_command("pto-opt"), str(kernel), "--convert-to-ptoas-multi-buffer", "-o", "/dev/null"])

    shell = subprocess.Popen(["bash", "-c", f"{tool}; echo status=$?"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    child = wait_for_child(shell.pid)
    wait_until_started(child_process(child))
    os.kill(child, signal.SIGINT)
    out, err = shell.communicate(timeout=60)
    assert out.decode().strip() == "status=130", (out, err)

    loop = subprocess.Popen(
        ["bash", "-c", f"for i in 1 2 3; do {tool}; echo status=$?; done; echo finished"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    wait_until_started(child_process(wait_for_child(loop.pid)))
    time.sleep(0.2)
    os.killpg(loop.pid, signal.SIGINT)
    try:
        out, err = loop.communicate(timeout=60)
    finally:
        if loop.poll() is None:
            os.killpg(loop.pid, signal.SIGKILL)
    assert out.decode() == "", (out, err)
    assert loop.returncode == -signal.SIGINT


def wait_for_child(pid: int) -> int:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except OSError:
            children = []
        if children:
            return int(children[0])
        time.sleep(0.001)
    raise AssertionError("the shell started no tool")


class child_process:
    """Enough of a Popen for wait_until_started: a pid."""

    def __init__(self, pid: int) -> None:
        self.pid = pid


def run_python(code: str, env: dict[str, str] | None = None, **kwargs) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env, **kwargs
    )


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_ctrl_c_while_the_output_is_written_leaves_the_old_file(tmp_path, signum):
    """The output's temporary file exists (a slow disk): the Ctrl-C (or a
    job manager's SIGTERM, a closed terminal's SIGHUP) waits until the file
    is written, which is then removed rather than renamed over the old one,
    and the tool dies of it."""
    example = ROOT / "examples" / "double_buffer_add.pto"
    out = tmp_path / "out.pto"
    out.write_bytes(b"the old output\n")
    process = run_python(
        f"""
        import os, sys, time
        from pto_dialect.support.interrupts import install
        install()
        fsync = os.fsync
        def slow_fsync(fd):
            sys.stderr.write("writing\\n"); sys.stderr.flush()
            time.sleep(2)
            fsync(fd)
        os.fsync = slow_fsync
        from pto_dialect.tools.pto_opt import main
        main([{str(example)!r}, "--convert-to-ptoas-multi-buffer", "-o", {str(out)!r}])
        """
    )
    assert process.stderr.readline() == b"writing\n"
    process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    assert process.returncode == -signum, err
    assert err == b""
    assert out.read_bytes() == b"the old output\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.pto"]


def test_ctrl_c_while_a_module_is_printed_through_a_file_leaves_no_directory(tmp_path):
    """Large modules are printed by C++ into a temporary directory
    (session._print_to_file): a Ctrl-C then waits for it to be removed."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    kernel = tmp_path / "k.pto"
    kernel.write_text(pto_kernel(200))
    process = run_python(
        f"""
        import sys, time
        from pto_dialect.support.interrupts import install
        install()
        from pto_dialect.driver import session
        def slow_print(_op, _pass):
            sys.stderr.write("printing\\n"); sys.stderr.flush()
            time.sleep(2)
        session._print_noop = slow_print
        from pto_dialect.tools.pto_opt import main
        main([{str(kernel)!r}, "-o", "/dev/null"])
        """,
        env={**os.environ, "TMPDIR": str(scratch)},
    )
    assert process.stderr.readline() == b"printing\n"
    assert len(list(scratch.iterdir())) == 1  # the directory it prints into
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == -signal.SIGINT, err
    assert list(scratch.iterdir()) == []


@pytest.mark.parametrize("how", ["signal during a pass", "a pass raises KeyboardInterrupt", "signal during printing"])
def test_the_api_raises_keyboard_interrupt_and_the_context_stays_usable(how):
    """In a Python process (Python's SIGINT handler), a Ctrl-C during
    `run_passes` or `print_module` arrives as KeyboardInterrupt, after the
    pass manager has returned: raised inside a callback from C++ it used to
    leave the Context in its multi-threaded state, and the next change of
    its configuration was an LLVM assertion."""
    example = ROOT / "examples" / "double_buffer_add.pto"
    process = run_python(
        f"""
        import signal
        from mlir import ir
        import pto_dialect
        from pto_dialect.driver import session
        from pto_dialect.passes import get_pass_class
        import sys
        sys.path.insert(0, {str(ROOT / "bench" / "tool")!r})
        from generate import pto_kernel

        how = {how!r}
        cls = get_pass_class("convert-to-ptoas-multi-buffer")
        apply = cls.apply
        def interrupted_apply(self, run, op):
            if how == "a pass raises KeyboardInterrupt":
                raise KeyboardInterrupt
            signal.raise_signal(signal.SIGINT)  # as if Ctrl-C came now
            apply(self, run, op)
        cls.apply = interrupted_apply
        def interrupted_print(_op, _pass):
            signal.raise_signal(signal.SIGINT)
        session._print_noop = interrupted_print

        with ir.Context() as ctx:
            text = pto_kernel(200) if how == "signal during printing" else open({str(example)!r}).read()
            module = pto_dialect.parse(text, name="k.pto")
            try:
                if how == "signal during printing":
                    session.print_module(module, "k.pto", through_file=True)  # as pto-opt prints a large module
                else:
                    pto_dialect.run_passes(module, "canonicalize,convert-to-ptoas-multi-buffer,cse")
                print("no interrupt")
            except KeyboardInterrupt:
                print("KeyboardInterrupt")
            ctx.allow_unregistered_dialects = True
            ctx.enable_multithreading(False)
            cls.apply = apply
            report = pto_dialect.run_passes(pto_dialect.parse(open({str(example)!r}).read()), "convert-to-ptoas-multi-buffer")
            print("then", report.loops[0].converted)
        """
    )
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err.decode()
    assert out.decode().split("\n")[:2] == ["KeyboardInterrupt", "then True"], (out, err)


def test_a_pass_interrupted_under_a_callers_pass_manager_fails_it_with_an_error():
    """`add_passes`: the caller runs the pass manager, so the interrupt is
    the pass's failure, with the error `interrupted`."""
    example = ROOT / "examples" / "double_buffer_add.pto"
    process = run_python(
        f"""
        from mlir import ir
        from mlir.passmanager import PassManager
        import pto_dialect
        from pto_dialect.passes import get_pass_class

        cls = get_pass_class("convert-to-ptoas-multi-buffer")
        def interrupted_apply(self, run, op):
            raise KeyboardInterrupt
        cls.apply = interrupted_apply
        with ir.Context() as ctx:
            module = pto_dialect.parse(open({str(example)!r}).read())
            pm = PassManager("builtin.module")
            pto_dialect.add_passes(pm, "convert-to-ptoas-multi-buffer")
            try:
                pm.run(module.operation)
            except ir.MLIRError as e:
                print("failed:", e.error_diagnostics[0].message)
            ctx.allow_unregistered_dialects = True
            print("usable")
        """
    )
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err.decode()
    assert out.decode().splitlines() == ["failed: interrupted", "usable"], (out, err)
