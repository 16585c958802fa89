"""A resident runner for many tool runs (docs/tools.md, "The tool server").

    python -m pto_dialect.tools.server --socket PATH [--idle-exit SECONDS]

A test suite starts `pto-opt` and `pto-run` hundreds of times, and each
start pays for Python, `import mlir` (a 200 MB library) and our modules:
~0.2 s of a one-loop file's 0.22 s. The server pays that once: it imports
every module the tools can import, then, per request that `client.py`
sends over a Unix socket, forks, and the fork runs the tool as a fresh
process would. Each request is one fork of the pristine server, so nothing
one run does (a Context, a cache, a changed global) reaches the next.

What a plain process takes from its start, a request brings and the fork
takes on before the tool starts: the arguments (`sys.argv`, the tool's
name in argv[0]), the environment (`os.environ`, replaced whole), the
working directory, the standard streams (the client's own file
descriptors, passed over the socket), which stopping signals the client
ignores (`nohup` stays `nohup`), and the file-creation mask. The tool then
runs its own `console_main` (its `install()` gives the signals their
default action), and ends by `os._exit` as it does in a plain process.

Per request the server forks once, the tool; it sends the client the
tool's pid (the client forwards Ctrl-C, SIGTERM and SIGHUP to it) and,
when the tool ends (SIGCHLD wakes the server's loop), its wait status,
from which the client ends as `launch.py` ends a plain run (the same
code). A client that goes away (a test runner's timeout killing it) takes
its tool with it: the server watches each run's connection and kills the
tool when it closes.

The plain processes stay what a user gets; the server is for runners of
many short runs (our lit suite uses it when `PTO_TOOL_SERVER` names a live
socket: lit.cfg.py, test/test_lit.py).
"""

from __future__ import annotations

import argparse
import gc
import io
import os
import pkgutil
import select
import signal
import socket
import subprocess
import sys
import time

from .server_protocol import PASSED_SIGNALS, TOOLS, recv_message, send_message

# --- the server ------------------------------------------------------------------


def warm() -> None:
    """Import what any run of either tool can import, so that no run pays
    for an import and no import happens after a fork has moved to the
    client's working directory (where a stray file could shadow a module)."""
    import mlir.ir  # noqa: F401

    import pto_dialect
    import pto_dialect.passes

    for package in (pto_dialect, pto_dialect.passes):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.name.endswith(".__main__") or info.name == __name__:
                continue
            __import__(info.name)
    for name in ("mlir.dialects.arith", "mlir.dialects.scf", "mlir.dialects.func", "mlir.dialects.memref", "numpy"):
        try:
            __import__(name)
        except ImportError:
            pass


def serve(path: str, idle_exit: float | None = None) -> None:
    """Accept requests on the Unix socket `path` until SIGTERM or SIGINT,
    or until no request has come for `idle_exit` seconds."""
    warm()
    # The forks share the server's memory until they write to it; a
    # collection in a fork would write to the header of every object the
    # server made (copying each page they are on). Frozen, they are left alone.
    gc.collect()
    gc.freeze()
    if "" in sys.path:
        sys.path.remove("")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    listener.bind(path)
    listener.listen(64)
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
    signal.signal(signal.SIGINT, lambda *_: stopping.append(1))
    # A tool's end wakes the loop: SIGCHLD writes a byte to `wake`.
    wake, woken = os.pipe()
    os.set_blocking(wake, False)
    os.set_blocking(woken, False)
    signal.set_wakeup_fd(woken)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    runs: dict[int, socket.socket] = {}  # tool pid -> its client's connection
    watched: dict[socket.socket, int] = {}  # the connections of runs whose client is still there
    last = time.monotonic()
    try:
        while not stopping:
            try:
                ready, _, _ = select.select([listener, wake, *watched], [], [], 0.5)
            except InterruptedError:
                continue
            if wake in ready:
                try:
                    while os.read(wake, 512):
                        pass
                except BlockingIOError:
                    pass
            _reap(runs, watched, block=False)
            for conn in ready:
                if conn in watched and not _peek(conn):
                    # The client went away (killed by a runner's timeout): so does its run.
                    try:
                        os.kill(watched.pop(conn), signal.SIGKILL)
                    except ProcessLookupError:
                        pass
            if listener in ready:
                conn, _ = listener.accept()
                last = time.monotonic()
                _start(conn, listener, (wake, woken), runs, watched)
            elif idle_exit is not None and not runs and time.monotonic() - last > idle_exit:
                break
    finally:
        listener.close()
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        # The tools' CPU time counts in whoever waits for this process.
        _reap(runs, watched, block=True)


def _peek(conn: socket.socket) -> bytes:
    try:
        return conn.recv(1, socket.MSG_PEEK)
    except OSError:
        return b""


def _start(conn: socket.socket, listener: socket.socket, pipe: tuple[int, int], runs: dict, watched: dict) -> None:
    """Read a request and fork its tool; the tool's pid goes to the client."""
    try:
        conn.settimeout(10)  # a client sends its request at once
        request, fds = recv_message(conn, max_fds=3)
        conn.settimeout(None)
        if request.get("tool") not in TOOLS or len(fds) != 3:
            send_message(conn, {"error": f"bad request: {request.get('tool')!r} with {len(fds)} streams"})
            for fd in fds:
                os.close(fd)
            conn.close()
            return
    except (OSError, ValueError, EOFError, TypeError, ConnectionError):
        conn.close()
        return
    pid = os.fork()
    if pid == 0:
        try:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            for fd in (*pipe, listener.fileno(), conn.fileno(), *(c.fileno() for c in runs.values())):
                os.close(fd)
            _run_tool(request, fds)  # never returns
        finally:
            import traceback

            traceback.print_exc()
            os._exit(1)
    for fd in fds:
        os.close(fd)
    runs[pid] = conn
    watched[conn] = pid
    try:
        send_message(conn, {"pid": pid})
    except OSError:
        pass


def _reap(runs: dict, watched: dict, block: bool) -> None:
    """Send each ended tool's wait status to its client."""
    while runs:
        try:
            pid, status = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return
        except InterruptedError:
            continue
        if pid == 0:
            return
        conn = runs.pop(pid, None)
        if conn is None:
            continue
        watched.pop(conn, None)
        try:
            send_message(conn, {"status": status})
        except OSError:
            pass
        conn.close()


def _run_tool(request: dict, fds: list[int]) -> None:
    """In the tool's process: become the client's process, then run the tool."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    ignored = set(request.get("ignored_signals", ()))
    for name in PASSED_SIGNALS:
        if hasattr(signal, name):
            signum = getattr(signal, name)
            signal.signal(signum, signal.SIG_IGN if name in ignored else signal.SIG_DFL)
    if "umask" in request:
        os.umask(request["umask"])
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    sys.argv = list(request["argv"])
    _fresh_streams()
    _fresh_randomness()
    module = __import__(TOOLS[request["tool"]], fromlist=["console_main"])
    try:
        module.console_main()
        code = 0
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            code = e.code or 0
        else:
            print(e.code, file=sys.stderr)
            code = 1
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        pass
    os._exit(code)


def _fresh_streams() -> None:
    """sys.stdin/stdout/stderr as Python makes them at the start of a
    process on these descriptors: line-buffered on a terminal, the
    encoding PYTHONIOENCODING asks for, else the server's."""
    asked = os.environ.get("PYTHONIOENCODING", "")
    encoding, _, errors = asked.partition(":")
    for fd, name, default_errors in ((0, "stdin", "strict"), (1, "stdout", "strict"), (2, "stderr", "backslashreplace")):
        old = getattr(sys, name)
        stream = io.TextIOWrapper(
            open(fd, "rb" if fd == 0 else "wb", closefd=False),
            encoding=encoding or old.encoding,
            errors=errors or (old.errors if fd != 2 else default_errors),
            line_buffering=fd != 0 and os.isatty(fd),
            write_through=fd == 2,
        )
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def _fresh_randomness() -> None:
    """A fresh process seeds `random` (and numpy's global generator) from
    the system; a fork would repeat the server's sequence."""
    import random

    random.seed()
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed()


def spawn(path: str, idle_exit: float | None = None, timeout: float = 60.0, cwd: str | None = None) -> subprocess.Popen:
    """A server started in a process of its own, listening on `path` once
    this returns (a test runner's or a benchmark's; the caller terminates
    it). Raises RuntimeError when it does not come up within `timeout`."""
    command = [sys.executable, "-m", "pto_dialect.tools.server", "--socket", path]
    if idle_exit is not None:
        command += ["--idle-exit", str(idle_exit)]
    process = subprocess.Popen(command, cwd=cwd)
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            process.wait()
            raise RuntimeError(f"the tool server did not come up on {path}")
        time.sleep(0.02)
    return process


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pto-tool-server", description=__doc__.split("\n\n")[0])
    parser.add_argument("--socket", required=True, help="the Unix socket to listen on (replaced if it exists)")
    parser.add_argument("--idle-exit", type=float, default=None, metavar="SECONDS", help="exit after this long without a request")
    args = parser.parse_args(argv)
    serve(args.socket, args.idle_exit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
