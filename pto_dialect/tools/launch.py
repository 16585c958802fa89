"""The `pto-opt` and `pto-run` commands (pyproject.toml, [project.scripts]).

Each gives the stopping signals their default action (pto_dialect/support/interrupts.py)
before it imports its tool, so that a Ctrl-C during start-up (argparse, the
MLIR library loading) ends the process like one at any later moment. This
module imports nothing else (interrupts.py imports only `os` and `_signal`).

The tool runs in a child process of the command, which only waits for it
(docs/tools.md, "Output and exit codes"): a stopping signal sent to the
command is passed on to the tool, and when the tool dies of one, the command
says so in one line on standard error and dies of the same signal itself,
so its shell reports 128 + the signal (130 for Ctrl-C) and a script's loop
stops. Nothing of the tool's runs in the waiting process, which keeps no
more than the interpreter: fork costs a fraction of a millisecond here.
"""

from __future__ import annotations

import _signal
import os
import sys

from ..support.interrupts import SIGNALS

_SAID = {"SIGINT": "interrupted", "SIGTERM": "terminated", "SIGHUP": "hung up"}



def _watched(tool: str, run) -> None:
    """Run `run` (the tool) in a child; wait; end as it ended."""
    from ..support.interrupts import install

    if not hasattr(os, "fork"):
        install()
        run()
        return
    child = os.fork()
    if child == 0:
        install()
        run()  # exits
        os._exit(0)

    def forward(signum, _frame) -> None:
        try:
            os.kill(child, signum)
        except ProcessLookupError:
            pass

    for signum in SIGNALS:
        if _signal.getsignal(signum) != _signal.SIG_IGN:  # nohup: stays ignored, as in the tool
            _signal.signal(signum, forward)
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except InterruptedError:
            continue
    end_as(tool, status)


def end_as(tool: str, status: int) -> None:
    """End this process as the tool's process ended (`status` from
    `os.waitpid`): with its exit code, or, when it died of a signal, with
    one line saying so and death by the same signal. The tool server's
    client (client.py) ends its runs here too."""
    if os.WIFEXITED(status):
        os._exit(os.WEXITSTATUS(status))
    signum = os.WTERMSIG(status)
    names = {getattr(_signal, n): n for n in _SAID if hasattr(_signal, n)}
    try:
        if signum in names:
            sys.stderr.write(f"{tool}: {_SAID[names[signum]]}\n")
        else:
            sys.stderr.write(f"{tool}: error: the process died of signal {signum} (an internal error: please report it)\n")
        sys.stderr.flush()
    except OSError:  # the terminal is gone (SIGHUP)
        pass
    if signum in SIGNALS:
        _signal.signal(signum, _signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    os._exit(128 + signum)


def pto_opt() -> None:
    def run() -> None:
        from .pto_opt import console_main

        console_main()

    _watched("pto-opt", run)


def pto_run() -> None:
    def run() -> None:
        from .pto_run import console_main

        console_main()

    _watched("pto-run", run)
