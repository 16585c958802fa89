"""A short, stable summary of an execution's results: per buffer its name,
type, a hash of its bytes and a few statistics; per returned scalar its
value. Two runs have equal digests exactly when their bytes are equal (up to
hash collisions)."""

from __future__ import annotations

import hashlib

import numpy as np

from .execution import BufferResult, Execution

HASH_CHARS = 16


CHUNK = 1 << 18
"""Elements looked at at once: the statistics go through a buffer in
chunks, each widened to float64 (eight bytes an element), so that a digest
costs a chunk's memory beside the buffer, not several copies of it
(docs/reliability.md, "Bounded cost"). A buffer of one chunk or less is
summed as one array, as it always was."""


def content_hash(array: np.ndarray) -> str:
    """The first HASH_CHARS hex digits of the SHA-256 of the bytes (read in
    place: no copy of a contiguous array)."""
    return hashlib.sha256(memoryview(np.ascontiguousarray(array)).cast("B")).hexdigest()[:HASH_CHARS]


def _number(x: float) -> str:
    return f"{x:.6g}"


def buffer_line(b: BufferResult) -> str:
    role = "out" if b.written else "in"
    parts = [b.name, b.type, role, f"hash={content_hash(b.array)}"]
    flat = b.array.reshape(-1)
    if flat.size:
        lo, hi, total, finite, nan = np.inf, -np.inf, 0.0, 0, 0
        for start in range(0, flat.size, CHUNK):
            chunk = flat[start : start + CHUNK]
            wide = _values(b, chunk).astype(np.float64)
            kept = wide[np.isfinite(wide)]
            nan += int(np.count_nonzero(np.isnan(wide)))
            if kept.size:
                lo, hi, total, finite = min(lo, kept.min()), max(hi, kept.max()), total + kept.sum(), finite + kept.size
        if finite:
            parts += [f"min={_number(lo)}", f"max={_number(hi)}", f"mean={_number(total / finite)}"]
        if nan:
            parts.append(f"nan={nan}")
        inf = int(flat.size - finite - nan)
        if inf:
            parts.append(f"inf={inf}")
    return "  ".join(parts)


def _values(b: BufferResult, stored: np.ndarray) -> np.ndarray:
    """A chunk of `b`'s stored elements as numbers (`BufferResult.values`)."""
    return BufferResult(b.name, b.type, b.dtype, stored, b.written).values()


def format_digest(execution: Execution) -> str:
    lines = [f"@{execution.function}: {execution.ops_executed} ops executed (arch {execution.arch}, seed {execution.seed})"]
    lines += [buffer_line(b) for b in execution.buffers]
    for s in execution.scalars:
        lines.append(f"{s.name}: {s.type} = {s.value}")
    return "\n".join(lines)
