"""A short, stable summary of an execution's results: per buffer its name,
type, a hash of its bytes and a few statistics; per returned scalar its
value. Two runs have equal digests exactly when their bytes are equal (up to
hash collisions)."""

from __future__ import annotations

import hashlib

import numpy as np

from .execution import BufferResult, Execution

HASH_CHARS = 16


def content_hash(array: np.ndarray) -> str:
    """The first HASH_CHARS hex digits of the SHA-256 of the bytes."""
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()[:HASH_CHARS]


def _number(x: float) -> str:
    return f"{x:.6g}"


def buffer_line(b: BufferResult) -> str:
    role = "out" if b.written else "in"
    parts = [b.name, b.type, role, f"hash={content_hash(b.array)}"]
    values = b.values()
    if values.size:
        wide = values.astype(np.float64)
        finite = wide[np.isfinite(wide)]
        nan = int(np.count_nonzero(np.isnan(wide)))
        if finite.size:
            parts += [f"min={_number(finite.min())}", f"max={_number(finite.max())}", f"mean={_number(finite.mean())}"]
        if nan:
            parts.append(f"nan={nan}")
        inf = int(wide.size - finite.size - nan)
        if inf:
            parts.append(f"inf={inf}")
    return "  ".join(parts)


def format_digest(execution: Execution) -> str:
    lines = [f"@{execution.function}: {execution.ops_executed} ops executed (arch {execution.arch}, seed {execution.seed})"]
    lines += [buffer_line(b) for b in execution.buffers]
    for s in execution.scalars:
        lines.append(f"{s.name}: {s.type} = {s.value}")
    return "\n".join(lines)
