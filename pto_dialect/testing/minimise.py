"""Shrinking a kernel that a pipeline changes to a small one that still shows it.

`minimise(text, function, values, pipeline)` deletes lines of the kernel
(single ops, and whole `scf.for` / `scf.if` regions with their closing
lines) for as long as what is left still parses, runs without reading
never-written memory, and still gives the same verdict under `pipeline`
(a mismatch stays a mismatch, a pass error the same first line of error).
Chunks of lines go first, then single lines, until no deletion keeps the
verdict (a local minimum: every remaining line is needed). Constants and
arguments nobody uses any more are dropped by the same deletions.

    python scripts/differential.py --seed 27 --count 1 --minimise /tmp/min
"""

from __future__ import annotations

from collections.abc import Callable

from .differential import SAME, check_kernel


def _verdict(text: str, function: str, values: dict, pipeline: str) -> tuple[str, str] | None:
    """(status, first line of the message) of `text` under `pipeline`, or
    None when the kernel itself is no longer a valid, defined one."""
    check = check_kernel(text, function, values, [pipeline])
    if check.reference_error or check.reference_warnings or not check.outcomes:
        return None
    outcome = check.outcomes[0]
    key = outcome.message.splitlines()[0] if outcome.message else ""
    if outcome.status == "mismatch":
        key = ""  # which element differs first may move as lines go
    return outcome.status, key.split(": ", 1)[-1]


def _units(lines: list[str]) -> list[tuple[int, int]]:
    """Deletable [start, end) line ranges: a line that is one op, or a
    region-opening line through its closing brace (an `} else {` goes with
    its `scf.if`)."""
    units = []
    stack: list[int] = []
    for i, line in enumerate(lines):
        s = line.strip()
        if not s or s.startswith(("module", "func.func", "//", "!")) or s in ("}",) and not stack:
            continue
        if s.endswith("{") and not s.startswith("}"):
            stack.append(i)
        elif s.startswith("}") and not s.endswith("{"):
            if stack:
                units.append((stack.pop(), i + 1))
        elif not s.startswith("}") and s != "return":
            units.append((i, i + 1))
    return units


def minimise(
    text: str,
    function: str,
    values: dict[str, int] | None,
    pipeline: str,
    *,
    progress: Callable[[str], None] | None = None,
) -> str:
    """The smallest kernel (by lines) reached from `text` that keeps its
    verdict under `pipeline`; `text` itself when it does not fail."""
    values = dict(values or {})
    target = _verdict(text, function, values, pipeline)
    if target is None or target[0] == SAME:
        return text
    lines = text.splitlines()
    chunk = max(len(lines) // 4, 1)
    while True:
        changed = False
        units = _units(lines)
        i = len(units) - 1
        while i >= 0:  # from the end: later lines use earlier ones
            group = units[max(i - chunk + 1, 0) : i + 1]
            drop = set()
            for start, end in group:
                drop.update(range(start, end))
            candidate = [line for k, line in enumerate(lines) if k not in drop]
            if _verdict("\n".join(candidate) + "\n", function, values, pipeline) == target:
                lines = candidate
                changed = True
                if progress:
                    progress(f"{len(lines)} lines")
                units = _units(lines)
                i = min(i, len(units)) - 1
                continue
            i -= len(group)
        if chunk == 1 and not changed:
            return "\n".join(lines) + "\n"
        chunk = max(chunk // 2, 1)
