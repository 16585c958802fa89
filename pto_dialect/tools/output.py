"""Where the tools' output goes, and what happens when it cannot go there
(docs/tools.md, "Output and exit codes").

- Files (`-o`, `--pto-report`, `pto-run --save`, `--timeline`) are written to
  a temporary file beside the target and renamed over it: a run that fails
  halfway (a full disk) leaves the old file as it was. A target that is one
  of the run's input files is refused, except `-o` naming pto-opt's input,
  which is replaced only once the run has succeeded (as mlir-opt allows).
- Standard streams that are closed or full give a one-line error and exit
  code 1; a closed pipe (`pto-opt big.pto | head`) ends the run quietly with
  exit code 1. Errors go to standard error only: when it is closed they are
  dropped, never written into the output stream.
"""

from __future__ import annotations

import errno
import os
import sys

from ..support.files import Content, CreateError, write_atomically
from .common import ToolError

_closed_at_start: set[int] = set()


class _ClosedStream:
    """Stands for a standard stream that was closed when the tool started."""

    def __init__(self, name: str) -> None:
        self.name = name

    def write(self, *args, **kwargs):
        raise OSError(errno.EBADF, f"standard {self.name} is closed")

    def flush(self) -> None:
        pass  # nothing was written: nothing to flush (and the exit's flush is quiet)

    @property
    def buffer(self) -> _ClosedStream:
        return self


def guard_standard_streams() -> None:
    """Put /dev/null on file descriptors 0-2 that are closed, so that no file
    the tool opens later takes their number (and C++ code writing to its
    standard error cannot write into it), and remember which were closed."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            _closed_at_start.add(fd)
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    if 1 in _closed_at_start:
        sys.stdout = _ClosedStream("output")
    if 2 in _closed_at_start:
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (lives as long as the process)


def _stream_error(what: str, e: OSError) -> ToolError:
    return ToolError(f"could not write to {what}: {e.strerror or e}")


def stdout_bytes(data: bytes) -> None:
    """Write `data` to standard output, or raise ToolError (BrokenPipeError
    for a closed pipe, which the tools end quietly)."""
    try:
        sys.stdout.flush()
        buffer = sys.stdout.buffer
        view = memoryview(data)
        while view:
            # A write into a pipe the reader closed can return a short count
            # (the SIGPIPE interrupts it) instead of failing: write the rest,
            # which then fails with EPIPE.
            view = view[buffer.write(view) :]
        buffer.flush()
    except BrokenPipeError:
        raise
    except OSError as e:
        raise _stream_error("standard output", e) from None


def stdout_text(text: str) -> None:
    stdout_bytes(text.encode("utf-8", "surrogateescape"))


def flush_standard_streams() -> None:
    """Flush Python's buffers before C++ code writes to the same streams."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError:
            pass


def error_line(text: str) -> None:
    """A diagnostic or error message on standard error (dropped when it is
    closed or broken: nowhere else is right for it)."""
    try:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def stderr(text: str) -> None:
    """A report on standard error (`--pto-memory-report`)."""
    error_line(text.removesuffix("\n"))


def silence_stdout() -> None:
    """After a broken pipe: point standard output at /dev/null so that the
    interpreter's last flush at exit finds nothing to complain about."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


class Writer:
    """The files one tool run writes, checked against its inputs first."""

    def __init__(self, tool: str, inputs: list[str]) -> None:
        self.tool = tool
        self.inputs = [i for i in inputs if i and i != "-"]

    def check_target(self, path: str | None, what: str, *, may_be_input: bool = False) -> None:
        """Refuse, before any work, to write `what` over an input file."""
        if not path or path == "-" or may_be_input:
            return
        for source in self.inputs:
            if _same_file(path, source):
                raise ToolError(f"refusing to write the {what} to '{path}': it is the input file {source}")

    def write(self, path: str | None, data: bytes, what: str) -> None:
        """Write `data` (`what`: "output file") to `path`, standard output
        when None or `-`."""
        if path is None or path == "-":
            stdout_bytes(data)
            return
        write_file_atomically(path, data, what, create_failure=f"could not open {what}")


def write_file_atomically(path: str, data: Content, what: str, *, create_failure: str | None = None) -> None:
    """Write `data` (bytes, or a function writing into the open file) to
    `path` through a temporary file (files.py); a failure
    is a ToolError `could not write <what> '<path>': <reason>`, or
    `<create_failure> '<path>': ...` when the file could not be created."""
    try:
        write_atomically(path, data)
    except CreateError as e:
        raise ToolError(f"{create_failure or f'could not write {what}'.rstrip()} '{path}': {e.strerror or e}") from None
    except OSError as e:
        raise ToolError(f"{f'could not write {what}'.rstrip()} '{path}': {e.strerror or e}") from None
