"""The memory report: where `pto-allocate-memory-addr` put every buffer.

Rendered from the `FunctionMemory` records of a `PipelineReport` (the data
is the source of truth; these are two views of it): readable text for
people, JSON for tools. `pto-opt --pto-memory-report[=json]` and the pass
option `report=text|json` print it.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict

from .decisions import BufferPlacement, FunctionMemory

FORMATS = ("text", "json")


_LOCATION = re.compile(r"\S+:(\d+):(\d+)")


def _short(text: str) -> str:
    """`file:line:col` -> `line:col`, also inside a sentence (the text report
    is about one input, whose name the tool printing it knows)."""
    return _LOCATION.sub(r"\1:\2", text)


def _buffer_line(b: BufferPlacement, width: int) -> list[str]:
    end = b.addr + b.size
    addr_range = f"[{b.addr:>{width}}, {end:>{width}})"
    lifetime = f"points {b.first}-{b.last}"
    if b.first_at and b.last_at:
        lifetime += f" ({_short(b.first_at)} to {_short(b.last_at)})"
    fixed = "  fixed by the input" if b.fixed else ""
    tmp = f"  tmp of {b.tmp_for}, added for level3" if b.tmp_for else ""
    lines = [f"    {addr_range} {b.size:>{width}} B  {lifetime}  {b.type} at {_short(b.location)}{fixed}{tmp}"]
    lines.extend(f"        lives through {_short(why)}" for why in b.whole_loops)
    return lines


def render_text(memories: list[FunctionMemory]) -> str:
    """Per function and space: the peak against the capacity, then each
    buffer's address range, size and lifetime, by address."""
    out: list[str] = []
    for fm in memories:
        out.append(f"memory of @{fm.function} (arch {fm.arch}):")
        spaces = list(dict.fromkeys([*fm.peak, *(b.space for b in fm.buffers)]))
        if not spaces:
            out.append("  no buffers")
        for space in spaces:
            buffers = sorted((b for b in fm.buffers if b.space == space), key=lambda b: (b.addr, b.first))
            peak, capacity = fm.peak.get(space, 0), fm.capacity.get(space, 0)
            share = f" ({100.0 * peak / capacity:.1f}%)" if capacity else ""
            status = "  OVERFLOW" if capacity and peak > capacity else ""
            out.append(
                f"  {space}: peak {peak} of {capacity} bytes{share}, at most {fm.live_peak.get(space, 0)} "
                f"bytes live at once, {len(buffers)} buffer{'s' if len(buffers) != 1 else ''}{status}"
            )
            width = len(str(max([capacity, peak, *(b.addr + b.size for b in buffers)])))
            for b in buffers:
                out.extend(_buffer_line(b, width))
    return "\n".join(out) + "\n"


def render_json(memories: list[FunctionMemory]) -> str:
    return json.dumps({"memory": [asdict(fm) for fm in memories]}, indent=2) + "\n"


def render(memories: list[FunctionMemory], fmt: str) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"unknown memory report format '{fmt}' (expected {' or '.join(FORMATS)})")
    return render_json(memories) if fmt == "json" else render_text(memories)
