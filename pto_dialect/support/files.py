"""Writing a file so that a failure halfway leaves the old one intact
(docs/tools.md, "Output and exit codes")."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from typing import BinaryIO

from . import interrupts

Content = bytes | Callable[[BinaryIO], None]
"""What a file gets: its bytes, or a function that writes them into the
open file (a large result written as it is made, not held as bytes too)."""


class CreateError(OSError):
    """The file could not be created at all (a missing directory, no
    permission), as opposed to failing while it was written."""


def write_atomically(path: str, data: Content) -> None:
    """Write `data` (bytes, or a function writing into the file) to a temporary file beside `path`, then rename it over
    `path` (keeping the old file's permissions; a new file gets the
    umask's). Devices and pipes (`/dev/null`, a fifo) are written directly:
    there is nothing to rename over them. Raises OSError (CreateError when
    nothing could be created).

    In a tool, a Ctrl-C while the temporary file exists is held
    (interrupts.py): the file is removed, `path` is left as it was, and then
    the process ends."""
    target = os.path.realpath(path)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        with open(target, "wb") as f:
            _put(f, data)
        return
    with interrupts.held():
        _write_through_temporary(target, data, mode)


def _put(f: BinaryIO, data: Content) -> None:
    if isinstance(data, bytes | bytearray | memoryview):
        f.write(data)
    else:
        data(f)


def _write_through_temporary(target: str, data: Content, mode: int | None) -> None:
    import tempfile  # here: writing to a device or a pipe never needs it

    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=os.path.dirname(target) or ".")
    except OSError as e:
        raise CreateError(e.errno, e.strerror) from None
    try:
        with os.fdopen(fd, "wb") as f:
            _put(f, data)
            f.flush()
            os.fsync(f.fileno())
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(temporary, stat.S_IMODE(mode))
        interrupts.raise_if_pending()  # an interrupted run does not replace the file
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
