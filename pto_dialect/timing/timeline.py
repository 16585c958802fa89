"""Writing schedules out: JSON for tools, a per-pipe Gantt chart for people
(`pto-run --timeline OUT.json|OUT.png`).

matplotlib is an optional dependency (the `plot` extra), imported only when
a chart is drawn.
"""

from __future__ import annotations

import importlib.util
import io
import json
from dataclasses import dataclass
from pathlib import Path

from ..files import write_atomically
from .schedule import PIPE_NAMES, Schedule

IMAGE_SUFFIXES = (".png", ".svg", ".pdf")
FORMATS = (".json", *IMAGE_SUFFIXES)
MODEL_NOTE = "pipe timing model: an estimate from a parameter table, not measured hardware"


class TimelineError(Exception):
    pass


@dataclass
class TimelineRun:
    label: str  # "before", "after 'P2'"
    function: str
    schedule: Schedule


def check_timeline_path(path: str) -> None:
    """Fail before any work when `path` names a format that cannot be written."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise TimelineError(f"--timeline: cannot write '{suffix or path}' files (use .json, or {', '.join(IMAGE_SUFFIXES)} with matplotlib)")
    if suffix in IMAGE_SUFFIXES and importlib.util.find_spec("matplotlib") is None:
        raise TimelineError(
            f"--timeline {path} needs matplotlib: pip install 'pto-dialect[plot]' (or write a .json timeline)"
        )


def timeline_data(runs: list[TimelineRun]) -> dict:
    """The schedules as plain data: per run the totals and every op."""
    return {
        "model": MODEL_NOTE,
        "runs": [
            {
                "label": run.label,
                "function": run.function,
                "arch": run.schedule.arch,
                "cycles": run.schedule.cycles,
                "lower_bound": run.schedule.bound,
                "bound_pipe": run.schedule.bound_pipe,
                "efficiency": run.schedule.efficiency,
                "pipes": {
                    u.pipe: {"ops": u.ops, "busy": u.busy, "utilisation": run.schedule.utilisation(u.pipe)}
                    for u in run.schedule.pipes.values()
                },
                "ops": [
                    {"pipe": o.pipe, "start": o.start, "end": o.end, "op": o.op, "location": o.location, "slot": o.slot}
                    for o in run.schedule.ops
                ],
            }
            for run in runs
        ],
    }


def timeline_bytes(path: str, runs: list[TimelineRun]) -> bytes:
    """`runs` in the format the suffix of `path` names (JSON, or a chart).
    Raises TimelineError."""
    check_timeline_path(path)
    suffix = Path(path).suffix.lower()
    if suffix == ".json":
        return (json.dumps(timeline_data(runs), indent=1) + "\n").encode()
    out = io.BytesIO()
    draw_timeline(out, runs, suffix[1:])
    return out.getvalue()


def write_timeline(path: str, runs: list[TimelineRun]) -> None:
    """Write `runs` to `path`, in the format its suffix names (through a
    temporary file, files.py). Raises TimelineError, OSError."""
    write_atomically(path, timeline_bytes(path, runs))


NO_SLOT_COLOUR = "#9e9e9e"


def slot_colour(slot: int | None) -> str:
    if slot is None:
        return NO_SLOT_COLOUR
    palette = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf")
    return palette[slot % len(palette)]


def draw_timeline(out, runs: list[TimelineRun], fmt: str | None = None) -> None:
    """One Gantt chart per run, stacked on a shared cycle axis: a row per
    pipe, each op a bar coloured by the buffer slot it works on, so ops of
    different slots side by side on different pipes are the overlap that
    multi-buffering buys."""
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    used = [p for p in PIPE_NAMES if any(r.schedule.pipes[p].ops for r in runs)] or list(PIPE_NAMES)
    rows = {p: k for k, p in enumerate(reversed(used))}  # MTE2 on top
    fig, axes = plt.subplots(len(runs), 1, sharex=True, squeeze=False, figsize=(10, 0.45 * len(used) * len(runs) + 1.3 * len(runs) + 0.4))
    slots: set[int | None] = set()
    for ax, run in zip(axes[:, 0], runs):
        s = run.schedule
        bars: dict[tuple[str, int | None], list[tuple[int, int]]] = {}
        for o in s.ops:
            bars.setdefault((o.pipe, o.slot), []).append((o.start, o.end - o.start))
        edge = "white" if len(s.ops) <= 400 else "none"
        for (pipe, slot), spans in bars.items():
            slots.add(slot)
            ax.broken_barh(spans, (rows[pipe] - 0.4, 0.8), facecolors=slot_colour(slot), edgecolor=edge, linewidth=0.4)
        ax.set_yticks(range(len(used)), list(reversed(used)))
        ax.set_ylim(-0.6, len(used) - 0.4)
        efficiency = "-" if s.efficiency is None else f"{100 * s.efficiency:.0f}%"
        ax.set_title(
            f"{run.label}: @{run.function}, {s.cycles} cycles, lower bound {s.bound} ({s.bound_pipe}), efficiency {efficiency}",
            fontsize=9,
            loc="left",
        )
        ax.grid(axis="x", alpha=0.3)
    axes[-1, 0].set_xlabel(f"cycles ({runs[0].schedule.arch} {MODEL_NOTE})", fontsize=8)
    handles = [Patch(color=slot_colour(k), label=f"slot {k}") for k in sorted(k for k in slots if k is not None)]
    if None in slots:
        handles.append(Patch(color=NO_SLOT_COLOUR, label="single buffer"))
    fig.legend(handles=handles, loc="upper right", fontsize=8, ncol=len(handles))
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    try:
        fig.savefig(out, dpi=100, format=fmt)
    finally:
        plt.close(fig)
