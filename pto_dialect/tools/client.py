"""The tool server's client (docs/tools.md, "The tool server"; server.py).

    python -S -E .../pto_dialect/tools/client.py SOCKET pto-opt [ARG]...

Runs `pto-opt` or `pto-run` with these arguments as if it were the tool:
it sends the server its arguments, environment, working directory, its
standard streams' file descriptors, the stopping signals it ignores and
its file-creation mask; it passes Ctrl-C, SIGTERM and SIGHUP on to the
tool's process; and it ends as the tool ended (launch.py's `end_as`: the
exit code, or one line and death by the same signal).

It starts in ~15 ms against ~200 ms for the tool: it is run without `site`
(`-S`) and imports only C modules of the standard library (`_socket`,
`marshal`; server_protocol.py) and launch.py (which imports nothing heavy). When no server answers on SOCKET,
it runs the plain tool instead (the same arguments, the same result).
"""

from __future__ import annotations

import os
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main() -> None:
    if len(sys.argv) < 3:
        sys.stderr.write("usage: client.py SOCKET TOOL [ARG]...\n")
        os._exit(2)
    path, tool, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    sys.path.insert(0, _ROOT)
    import _signal
    import _socket

    from pto_dialect.tools.launch import end_as
    from pto_dialect.tools.server_protocol import PASSED_SIGNALS, recv_message, send_message

    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        conn.connect(path)
    except OSError:
        _run_plain(tool, args)
    names = [name for name in PASSED_SIGNALS if hasattr(_signal, name)]
    ignored = [name for name in names if _signal.getsignal(getattr(_signal, name)) == _signal.SIG_IGN]
    umask = os.umask(0)
    os.umask(umask)
    request = {
        "tool": tool,
        "argv": [_tool_path(tool), *args],
        "env": dict(os.environ),
        "cwd": os.getcwd(),
        "ignored_signals": ignored,
        "umask": umask,
    }
    send_message(conn, request, fds=[0, 1, 2])
    reply, _ = recv_message(conn)
    if "error" in reply:
        sys.stderr.write(f"{tool}: error: the tool server refused the run: {reply['error']}\n")
        os._exit(1)
    pid = reply["pid"]

    def forward(signum, _frame) -> None:
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass

    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        signum = getattr(_signal, name, None)
        if signum is not None and name not in ignored:
            _signal.signal(signum, forward)
    while True:
        try:
            reply, _ = recv_message(conn)
            break
        except InterruptedError:
            continue
        except ConnectionError:
            sys.stderr.write(f"{tool}: error: the tool server went away during the run\n")
            os._exit(1)
    end_as(tool, reply["status"])


def _tool_path(tool: str) -> str:
    """argv[0] as the plain tool would have it: the console script beside
    this Python, else the bare name."""
    candidate = os.path.join(os.path.dirname(sys.executable), tool)
    return candidate if os.path.exists(candidate) else tool


def _run_plain(tool: str, args: list[str]) -> None:
    path = _tool_path(tool)
    if os.path.exists(path):
        os.execv(path, [path, *args])
    from pto_dialect.tools.server_protocol import TOOLS

    module = TOOLS.get(tool, tool)
    os.execv(sys.executable, [sys.executable, "-m", module, *args])


if __name__ == "__main__":
    main()
