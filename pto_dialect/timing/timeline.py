"""Writing schedules out (`pto-run --timeline OUT`), in the format the name
of OUT ends with:

- `.json`: our schedule for tools (per run its totals, per op pipe, start,
  end, op, location, slot);
- `.trace.json`: the Chrome trace event format, which Perfetto
  (ui.perfetto.dev) and chrome://tracing open: a process per run, a track
  per pipe, a slice per op (1 cycle = 1 us);
- `.png`, `.svg`, `.pdf`: a per-pipe Gantt chart. matplotlib is an optional
  dependency (the `plot` extra), imported only when a chart is drawn.
"""

from __future__ import annotations

import importlib.util
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..support.files import write_atomically
from .schedule import PIPE_NAMES, Schedule

if TYPE_CHECKING:
    from ..interpreter.trace import Access, TraceEvent

IMAGE_SUFFIXES = (".png", ".svg", ".pdf")
CHROME_SUFFIX = ".trace.json"  # before .json: the longer name wins
FORMATS = (CHROME_SUFFIX, ".json", *IMAGE_SUFFIXES)
MODEL_NOTE = "pipe timing model: per-op costs fitted to pto-isa's profiled cycles (docs/timing.md), an estimate of the whole kernel"


class TimelineError(Exception):
    pass


@dataclass
class TimelineRun:
    label: str  # "before", "after 'P2'"
    function: str
    schedule: Schedule
    trace: Sequence[TraceEvent] | None = None  # the events `schedule` placed, one per op: names the buffers in a Chrome trace


def timeline_format(path: str) -> str:
    """The format `path` names: its suffix (`.trace.json` for the Chrome
    trace format), lower case; "" or another suffix when it names none of
    FORMATS."""
    name = Path(path).name.lower()
    if name.endswith(CHROME_SUFFIX):
        return CHROME_SUFFIX
    return Path(path).suffix.lower()


def check_timeline_path(path: str) -> None:
    """Fail before any work when `path` names a format that cannot be written."""
    suffix = timeline_format(path)
    if suffix not in FORMATS:
        raise TimelineError(
            f"--timeline: cannot write '{suffix or path}' files "
            f"(use .json, .trace.json for Perfetto and chrome://tracing, or {', '.join(IMAGE_SUFFIXES)} with matplotlib)"
        )
    if suffix in IMAGE_SUFFIXES and importlib.util.find_spec("matplotlib") is None:
        raise TimelineError(
            f"--timeline {path} needs matplotlib: pip install 'pto-dialect[plot]' (or write a .json timeline)"
        )


def _run_totals(run: TimelineRun) -> dict:
    """What both timeline formats say of a run as a whole."""
    return {
        "label": run.label,
        "function": run.function,
        "arch": run.schedule.arch,
        "cycles": run.schedule.cycles,
        "lower_bound": run.schedule.bound,
        "bound_pipe": run.schedule.bound_pipe,
        "efficiency": run.schedule.efficiency,
    }


def timeline_data(runs: list[TimelineRun]) -> dict:
    """The schedules as plain data: per run the totals and every op."""
    return {
        "model": MODEL_NOTE,
        "runs": [
            {
                **_run_totals(run),
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


TIME_UNIT = "1 us = 1 cycle"  # Chrome traces count microseconds: one per cycle keeps every timestamp an exact integer


def _access(a: Access) -> str:
    """`vec[1024:2048]`: the bytes of one buffer an op touched; a strided
    block adds its run count and pitch."""
    text = f"{a.buffer}[{a.start}:{a.stop}]"
    return text if a.rows == 1 else f"{text} x{a.rows} pitch {a.pitch}"


def chrome_trace(runs: list[TimelineRun]) -> dict:
    """The schedules in the Chrome trace event format (the JSON object
    form): process `k + 1` is run k, named `label: @function, N cycles`; thread `i + 1`
    of each is pipe PIPE_NAMES[i] (named, in that order, for the pipes any
    run uses); each op a complete ("X") event on its pipe's thread from
    `ts` = start for `dur` = end - start, in microseconds that are cycles,
    with its location, slot and (when the run has its trace) the byte ranges
    it read and wrote as args. No displayTimeUnit: viewers have disagreed on
    whether it also scales `ts` (Perfetto issue 274)."""
    used = [p for p in PIPE_NAMES if any(r.schedule.pipes[p].ops for r in runs)] or list(PIPE_NAMES)
    tid = {p: k + 1 for k, p in enumerate(PIPE_NAMES)}
    events: list[dict] = []
    for pid, run in enumerate(runs, 1):
        s = run.schedule
        events.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": f"{run.label}: @{run.function}, {s.cycles} cycles"}})
        events.append({"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0, "args": {"sort_index": pid}})
        for pipe in used:
            events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid[pipe], "args": {"name": pipe}})
            events.append({"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": tid[pipe], "args": {"sort_index": tid[pipe]}})
        trace = run.trace
        if trace is not None and len(trace) != len(s.ops):
            raise ValueError(f"run '{run.label}': {len(trace)} trace events for {len(s.ops)} scheduled ops")
        for k, o in enumerate(s.ops):
            args: dict = {"location": o.location, "slot": o.slot}
            if trace is not None:
                args["reads"] = [_access(a) for a in trace[k].reads]
                args["writes"] = [_access(a) for a in trace[k].writes]
            events.append(
                {"ph": "X", "name": o.op, "cat": o.pipe, "pid": pid, "tid": tid[o.pipe], "ts": o.start, "dur": o.end - o.start, "args": args}
            )
    return {
        "traceEvents": events,
        "otherData": {
            "model": MODEL_NOTE,
            "time_unit": TIME_UNIT,
            "runs": [
                {"pid": pid, **_run_totals(run)}
                for pid, run in enumerate(runs, 1)
            ],
        },
    }


def chrome_trace_text(trace: dict) -> str:
    """The trace as JSON with one event a line (a trace is mostly events:
    this keeps a large one small and each event greppable)."""
    events = ",\n".join(json.dumps(e) for e in trace["traceEvents"])
    rest = "".join(f',\n"{key}": {json.dumps(value, indent=1)}' for key, value in trace.items() if key != "traceEvents")
    return f'{{"traceEvents": [\n{events}\n]{rest}\n}}\n'


def timeline_bytes(path: str, runs: list[TimelineRun]) -> bytes:
    """`runs` in the format the name of `path` ends with (JSON, a Chrome
    trace, or a chart). Raises TimelineError."""
    check_timeline_path(path)
    suffix = timeline_format(path)
    if suffix == ".json":
        return (json.dumps(timeline_data(runs), indent=1) + "\n").encode()
    if suffix == CHROME_SUFFIX:
        return chrome_trace_text(chrome_trace(runs)).encode()
    out = io.BytesIO()
    draw_timeline(out, runs, suffix[1:])
    return out.getvalue()


def write_timeline(path: str, runs: list[TimelineRun]) -> None:
    """Write `runs` to `path`, in the format its name ends with (through a
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
