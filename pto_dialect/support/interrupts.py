"""What Ctrl-C (SIGINT), SIGTERM and SIGHUP do to a tool's process
(docs/tools.md, "Output and exit codes"). Imports nothing but `os` and
`_signal` (the C module under `signal`, which `signal` only wraps in enums
that take milliseconds to build): the tools call `install` first thing.

A tool ends as the signal's default action ends a process: at once,
whatever is running (Python starting, the MLIR library loading, C++ parsing,
a pass, printing), with no Python code involved. So nothing half-runs: no
KeyboardInterrupt is raised into a callback from C++ (which would leave the
pass manager's Context in its multi-threaded state, where the next change of
its configuration is an LLVM assertion), no teardown runs on a half-loaded
extension, no traceback is printed. Because the process dies of the signal
rather than exiting, its shell reports 128 + the signal (130 for Ctrl-C)
and a shell script's loop over files stops at the first Ctrl-C (bash goes on
with the loop when a child exits, even with 130: it takes that as the child
having handled the signal). LLVM tools do the same: their handler removes
the files registered for removal and raises the signal again
(llvm/llvm-project, llvm/lib/Support/Unix/Signals.inc).

What must not be left behind is a temporary file (an output being written
beside its target, `files.py`; a module printed through a directory,
`session.py`). Such code runs inside `held()`: there a signal is noted and
acted on when the block ends, after the temporary file is gone, or earlier
at `raise_if_pending()`, where a writer gives up before it replaces a file.

Outside a tool (`install` never called: the Python API, tests calling a
tool's `main`) nothing here changes a signal's handling.
"""

from __future__ import annotations

import _signal as signal
import os

SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
"""The signals a user or a job manager sends to stop a run."""

_installed = False
_depth = 0
_pending: list[int] = []


class Interrupted(BaseException):
    """A signal arrived inside `held()`: raised by `raise_if_pending` so the
    code in the block cleans up (a BaseException: `except Exception` does
    not stop it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def install() -> None:
    """Give the stopping signals their default action in this process, so
    that each ends it at once (see the module's doc). A signal the parent
    had ignored (`nohup`, a background job of a script) stays ignored.
    Python's own SIGINT handler raises KeyboardInterrupt at the next Python
    instruction, which may be inside a callback from C++, or not before a
    long C++ call returns: it is replaced."""
    global _installed
    for signum in SIGNALS:
        if signal.getsignal(signum) != signal.SIG_IGN:
            signal.signal(signum, signal.SIG_DFL)
    _installed = True


def _note(signum: int, _frame) -> None:
    if signum not in _pending:
        _pending.append(signum)


class held:
    """A block during which a stopping signal is noted rather than acted
    on; when the outermost such block ends the process dies of the first
    one noted. A no-op unless `install` was called (and in any thread but
    the main one, where Python cannot set handlers)."""

    def __enter__(self) -> held:
        global _depth
        self._active = _installed and _in_main_thread()
        if self._active:
            if _depth == 0:
                for signum in SIGNALS:
                    if signal.getsignal(signum) == signal.SIG_DFL:
                        signal.signal(signum, _note)
            _depth += 1
        return self

    def __exit__(self, *_exc) -> None:
        global _depth
        if not self._active:
            return
        _depth -= 1
        if _depth:
            return
        for signum in SIGNALS:
            if signal.getsignal(signum) == _note:
                signal.signal(signum, signal.SIG_DFL)
        if _pending:
            die(_pending[0])


def raise_if_pending() -> None:
    """Inside `held()`: raise Interrupted if a stopping signal arrived."""
    if _pending:
        raise Interrupted(_pending[0])


def die(signum: int) -> None:
    """End the process as `signum`'s default action does (after what the
    caller cleaned up). Never returns."""
    signal.signal(signum, signal.SIG_DFL)
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signum})
    except (AttributeError, OSError, ValueError):
        pass
    os.kill(os.getpid(), signum)
    os._exit(128 + signum)  # only if the signal did not end the process


def _in_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


class keyboard_interrupt_deferred:
    """For a call into C++ that calls back into Python (a pass manager
    running Python passes), in a process where Ctrl-C has Python's own
    handler (the Python API; not a tool, see `install`). That handler raises
    KeyboardInterrupt at the next Python instruction, which is then the
    first instruction of a callback from C++, before any `try` in it: the
    exception unwinds through the C++ pass manager and leaves its Context in
    the multi-threaded execution state, where the next change of the
    Context's configuration is an LLVM assertion (llvm/llvm-project,
    mlir/lib/IR/MLIRContext.cpp). Inside this block a Ctrl-C is only noted
    (`noted`; the callbacks stop their work when they see it) and
    KeyboardInterrupt is raised when the block ends, in place of whatever
    the interrupted call raised. Does nothing outside the main thread or
    when SIGINT has another handler."""

    def __init__(self) -> None:
        self.noted = False
        self._active = False

    def _note(self, _signum: int, _frame) -> None:
        self.noted = True

    def __enter__(self) -> keyboard_interrupt_deferred:
        self._active = signal.getsignal(signal.SIGINT) == signal.default_int_handler and _in_main_thread()
        if self._active:
            signal.signal(signal.SIGINT, self._note)
        return self

    def __exit__(self, *_exc) -> None:
        if self._active:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            self._active = False
        if self.noted:
            raise KeyboardInterrupt from None
