"""The tool server's messages (server.py, client.py): each is a 4-byte
length and that many bytes of `marshal` data (a dict of strings, numbers
and lists: the client and the server are the same Python); the request
carries the client's three standard streams as file descriptors
(SCM_RIGHTS) with its first bytes. The socket lies in a directory only
its user can enter.

Built on the C modules alone (`_socket`, `marshal`, `_struct`): the client
imports this, and `socket` with its `selectors`, `enum` and `collections`
took most of the client's start."""

from __future__ import annotations

import _socket
import _struct
import marshal

TOOLS = {
    "pto-opt": "pto_dialect.tools.pto_opt",
    "pto-run": "pto_dialect.tools.pto_run",
}
"""The tools a request may name, by the module whose `console_main` runs it."""

PASSED_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP", "SIGPIPE")
"""The signals whose being ignored by the client the tool's process takes on
(`nohup` stays `nohup`); the others get their default action."""

_HEADER = _struct.Struct("!I")
_FD = _struct.Struct("i")
MAX_MESSAGE = 64 << 20


def send_message(conn, payload: dict, fds: list[int] | None = None) -> None:
    data = marshal.dumps(payload)
    blob = _HEADER.pack(len(data)) + data
    if fds:
        ancillary = [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, b"".join(_FD.pack(fd) for fd in fds))]
        sent = conn.sendmsg([blob], ancillary)
        blob = blob[sent:]
    if blob:
        conn.sendall(blob)


def _recv_exact(conn, size: int, first: bytes = b"") -> bytes:
    data = bytearray(first)
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise ConnectionError("the connection closed mid-message")
        data += chunk
    return bytes(data)


def recv_message(conn, max_fds: int = 0) -> tuple[dict, list[int]]:
    """One message, and the file descriptors that came with its first bytes."""
    fds: list[int] = []
    if max_fds:
        head, ancillary, _flags, _addr = conn.recvmsg(_HEADER.size, _socket.CMSG_SPACE(max_fds * _FD.size))
        for level, kind, data in ancillary:
            if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
                whole = len(data) - len(data) % _FD.size
                fds.extend(_FD.unpack_from(data, i)[0] for i in range(0, whole, _FD.size))
    else:
        head = conn.recv(_HEADER.size)
    if not head:
        raise ConnectionError("the connection closed")
    (size,) = _HEADER.unpack(_recv_exact(conn, _HEADER.size, head))
    if size > MAX_MESSAGE:
        raise ValueError(f"a message of {size} bytes")
    return marshal.loads(_recv_exact(conn, size)), fds
