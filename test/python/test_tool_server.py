"""The tool server (pto_dialect/tools/server.py, client.py; docs/tools.md,
"The tool server"): a run through it is the plain run. The lit suite runs
its tools through it (test/test_lit.py), so what it must keep is what the
suite checks: standard output, standard error, exit code, files written
relative to the working directory, the environment, standard input, and
the ends by signal; and nothing of one run may reach the next."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pto_dialect.tools.server import spawn

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "pto_dialect" / "tools" / "client.py"
BIN = Path(sys.executable).parent
EXAMPLES = ROOT / "examples"
PTO_RUN_KERNEL = ROOT / "test" / "Tools" / "pto-run" / "args-and-seed.pto"

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or not hasattr(os, "pidfd_open"), reason="the server forks (Linux)")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("server") / "socket")
    process = spawn(path, idle_exit=300, cwd=str(ROOT))
    yield path, process
    process.terminate()
    assert process.wait(timeout=60) == 0


def plain(tool: str, args: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / tool), *args], capture_output=True, **kwargs)


def served(socket_path: str, tool: str, args: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-S", "-E", str(CLIENT), socket_path, tool, *args], capture_output=True, **kwargs)


def same(a: subprocess.CompletedProcess, b: subprocess.CompletedProcess) -> None:
    assert (a.returncode, a.stdout.decode(), a.stderr.decode()) == (b.returncode, b.stdout.decode(), b.stderr.decode())


RUNS = [
    ("pto-opt", [str(EXAMPLES / "double_buffer_add.pto"), "--pto-pipeline", "--use-ptoas-multi-buffer"]),
    ("pto-opt", [str(EXAMPLES / "online_softmax.pto"), "--convert-to-ptoas-multi-buffer", "--mlir-print-op-generic"]),
    ("pto-opt", [str(ROOT / "test" / "Dialect" / "pto" / "co-live-slots.pto")]),  # a warning on stderr, exit 0
    ("pto-opt", [str(EXAMPLES / "matmul_kloop.pto"), "--no-such-pass"]),  # exit 1, did-you-mean
    ("pto-opt", ["does-not-exist.pto"]),
    ("pto-opt", ["--help"]),
    ("pto-opt", ["--version"]),
    ("pto-run", [str(PTO_RUN_KERNEL), "--func", "rows", "--arg", "n=2", "--arg", "src=32x8", "--seed", "3"]),
    ("pto-run", [str(PTO_RUN_KERNEL), "--func", "rows", "--arg", "src=32x8"]),  # missing scalar: exit 1
]


@pytest.mark.parametrize(("tool", "args"), RUNS, ids=[f"{t} {' '.join(Path(a).name for a in args)}" for t, args in RUNS])
def test_a_served_run_is_the_plain_run(server, tool, args):
    same(served(server[0], tool, args), plain(tool, args))


def test_standard_input_working_directory_and_relative_output(server, tmp_path):
    text = (EXAMPLES / "silu.pto").read_bytes()
    for where, run in (("plain", plain), ("served", lambda *a, **k: served(server[0], *a, **k))):
        cwd = tmp_path / where
        cwd.mkdir()
        result = run("pto-opt", ["-", "-o", "out.pto", "--convert-to-ptoas-multi-buffer"], input=text, cwd=cwd)
        assert result.returncode == 0, result.stderr.decode()
    assert (tmp_path / "served" / "out.pto").read_bytes() == (tmp_path / "plain" / "out.pto").read_bytes()


def test_environment_is_the_requests_and_does_not_stay(server):
    # The switch of `--pto-pipeline` (passes/pto_pipeline.py) is read from the environment of each run.
    args = [str(EXAMPLES / "double_buffer_add.pto"), "--pto-pipeline"]
    on = {**os.environ, "PTO_PTOAS_MULTI_BUFFER": "1"}
    off = {k: v for k, v in os.environ.items() if k != "PTO_PTOAS_MULTI_BUFFER"}
    with_switch = served(server[0], "pto-opt", args, env=on)
    same(with_switch, plain("pto-opt", args, env=on))
    without = served(server[0], "pto-opt", args, env=off)
    same(without, plain("pto-opt", args, env=off))
    assert with_switch.stdout != without.stdout, "the switch should change the output"


def test_no_server_means_the_plain_tool(tmp_path):
    args = [str(EXAMPLES / "silu.pto")]
    same(served(str(tmp_path / "no-socket"), "pto-opt", args), plain("pto-opt", args))


def _tools_of(server_pid: int) -> list[int]:
    """The server's children: the tools' processes."""
    children = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == server_pid:
                children.append(int(entry))
    return children


def _wait_for(predicate, timeout=30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def test_ctrl_c_ends_the_run_as_it_ends_a_plain_one(server):
    """The client passes SIGINT on; the tool dies of it; the client says so
    in one line and dies of SIGINT too (the shell sees 130)."""
    socket_path, process = server
    client = subprocess.Popen(
        [sys.executable, "-S", "-E", str(CLIENT), socket_path, "pto-opt", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert _wait_for(lambda: _tools_of(process.pid)), "the tool did not start"  # it waits for its standard input
    client.send_signal(signal.SIGINT)
    _, err = client.communicate(timeout=60)
    assert client.returncode == -signal.SIGINT
    assert err.decode() == "pto-opt: interrupted\n"
    assert _wait_for(lambda: not _tools_of(process.pid))


def test_a_killed_client_takes_its_tool_with_it(server):
    socket_path, process = server
    client = subprocess.Popen([sys.executable, "-S", "-E", str(CLIENT), socket_path, "pto-opt", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert _wait_for(lambda: _tools_of(process.pid))
    client.kill()
    client.wait(timeout=60)
    assert _wait_for(lambda: not _tools_of(process.pid)), "the tool outlived its client"
