"""The pipe schedule of an execution trace (docs/tools.md, `pto-run --cycles`).

Each executed pto op runs on its pipe (MTE2, MTE1, V, M, MTE3; the
catalogue says which). A pipe runs its ops one at a time in program order.
An op starts when its pipe is free and every earlier op it depends on
(byte-range RAW/WAR/WAW, see `dependences`) has finished; it then takes
the duration the cost table gives it. Scalar and control ops take no time.

This is a model: it assumes ideal synchronisation (an op waits for exactly
the ops it depends on) and fixed op durations (see `costs`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..dialect.effects import PIPES
from .costs import CostTable
from .dependences import DependenceTracker

if TYPE_CHECKING:
    from ..interpreter.trace import TraceEvent

PIPE_NAMES = tuple(p.value for p in PIPES)


@dataclass(slots=True)
class ScheduledOp:
    op: str  # "pto.tload"
    pipe: str
    start: int  # cycle
    end: int
    location: str  # file:line:col
    slot: int | None  # the multi-buffer slot of the tile it writes (else reads), if any


@dataclass(frozen=True)
class PipeUsage:
    pipe: str
    ops: int
    busy: int  # cycles the pipe runs an op


@dataclass
class Schedule:
    arch: str
    ops: list[ScheduledOp]
    cycles: int  # when the last op ends
    pipes: dict[str, PipeUsage]  # every pipe, in PIPE_NAMES order

    @property
    def bound_pipe(self) -> str:
        """The busiest pipe (the first of them on a tie)."""
        return max(self.pipes.values(), key=lambda u: u.busy).pipe

    @property
    def bound(self) -> int:
        """A lower bound of `cycles`: no schedule ends before its busiest
        pipe has run all its ops."""
        return self.pipes[self.bound_pipe].busy

    @property
    def efficiency(self) -> float | None:
        """bound / cycles: 1.0 when the busiest pipe never idles. None when
        nothing ran."""
        return self.bound / self.cycles if self.cycles else None

    def utilisation(self, pipe: str) -> float | None:
        return self.pipes[pipe].busy / self.cycles if self.cycles else None


def _slot(event: TraceEvent) -> int | None:
    for access in (*event.writes, *event.reads):
        if access.slot is not None:
            return access.slot
    return None


def schedule(trace: Iterable[TraceEvent], costs: CostTable) -> Schedule:
    """Place every op of `trace` (program order) on its pipe."""
    tracker = DependenceTracker()
    pipe_free = dict.fromkeys(PIPE_NAMES, 0)
    busy = dict.fromkeys(PIPE_NAMES, 0)
    counts = dict.fromkeys(PIPE_NAMES, 0)
    ops: list[ScheduledOp] = []
    cycles = 0
    for event in trace:
        pipe = event.pipe
        duration = costs.duration(event)
        reads, writes = tracker.ranges(event)
        start = max(pipe_free[pipe], tracker.ready(reads, writes))
        end = start + duration
        tracker.record(reads, writes, end)
        pipe_free[pipe] = end
        busy[pipe] += duration
        counts[pipe] += 1
        cycles = max(cycles, end)
        ops.append(ScheduledOp(event.op, pipe, start, end, event.location, _slot(event)))
    usage = {p: PipeUsage(p, counts[p], busy[p]) for p in PIPE_NAMES}
    return Schedule(costs.arch, ops, cycles, usage)
