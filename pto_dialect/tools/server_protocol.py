"""The tool server's messages (server.py, client.py): each is a 4-byte
length and that many bytes of JSON; the request carries the client's three
standard streams as file descriptors (SCM_RIGHTS) with its first bytes.
Imports only what the client must: it starts in milliseconds."""

from __future__ import annotations

import json
import socket
import struct

HEADER = struct.Struct("!I")
"""Each message is a 4-byte length and that many bytes of JSON."""

MAX_REQUEST = 64 << 20


def send_message(conn: socket.socket, payload: dict, fds: list[int] | None = None) -> None:
    data = json.dumps(payload).encode()
    blob = HEADER.pack(len(data)) + data
    if fds:
        socket.send_fds(conn, [blob], fds)
    else:
        conn.sendall(blob)


def _recv_exact(conn: socket.socket, size: int, first: bytes = b"") -> bytes:
    data = bytearray(first)
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise ConnectionError("the connection closed mid-message")
        data += chunk
    return bytes(data)


def recv_message(conn: socket.socket, max_fds: int = 0) -> tuple[dict, list[int]]:
    """One message, and the file descriptors that came with its first bytes."""
    if max_fds:
        head, fds, _flags, _addr = socket.recv_fds(conn, HEADER.size, max_fds)
    else:
        head, fds = conn.recv(HEADER.size), []
    if not head:
        raise ConnectionError("the connection closed")
    head = _recv_exact(conn, HEADER.size, head)
    (size,) = HEADER.unpack(head)
    if size > MAX_REQUEST:
        raise ValueError(f"a message of {size} bytes")
    return json.loads(_recv_exact(conn, size)), list(fds)
