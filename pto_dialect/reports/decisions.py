"""Decisions the passes make, as data (docs/api.md, "Reports").

Every remark a pass prints has a record here too, so tools embedding the
passes can read why a loop was or was not converted, how many slots it got,
and where each buffer was placed, without parsing text.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class TileDecision:
    """One `pto.alloc_tile` of a pipeline loop body."""

    location: str
    space: str
    type: str
    converted: bool
    reason: str = ""
    slots: int = 0  # slots it got when converted (slots=model: its own count; 1 stays single)


@dataclass
class SlotTrade:
    """A slot `slots=model` took from a tile because its space was full."""

    location: str  # the tile's
    space: str
    slots_from: int
    slots_to: int
    bytes_freed: int
    cycles_before: float | None  # per iteration, modelled
    cycles_after: float | None


@dataclass
class EventIdTrade:
    """A slot `slots=model` took from a tile because ptoas's InsertSync would
    have run out of event ids (docs/timing.md, "Event ids")."""

    location: str  # the tile's
    slots_from: int
    slots_to: int
    over: str  # the pipe pairs over their budget before, e.g. "V->MTE2 needs 9 of its 8"
    cycles_before: float | None  # per iteration, modelled
    cycles_after: float | None


@dataclass
class SlotModelNumbers:
    """What `slots=model` timed for one loop (cycles per iteration, modelled
    by the static pipe schedule; None where it was not timed)."""

    timed: bool
    problem: str = ""  # why the loop could not be timed
    cycles_single: float | None = None  # every eligible tile single
    cycles_chosen: float | None = None  # the choice made
    cycles_uniform: float | None = None  # every eligible tile at `uniform_slots`
    uniform_slots: int = 0  # what slots=uniform would give (0: it would not convert)
    trades: list[SlotTrade] = field(default_factory=list)  # slots taken away for capacity, and what each cost
    event_trades: list[EventIdTrade] = field(default_factory=list)  # slots taken away for the event budget
    event_ids: dict[str, int] = field(default_factory=dict)  # pipe pair -> event ids the choice needs (ptoas has 8 a pair)
    schedules: int = 0  # choices timed


@dataclass
class LoopDecision:
    """What a pass did with one pipeline loop."""

    pass_name: str
    location: str
    requested_stages: int
    converted: bool
    slots: int = 0
    reasons: list[str] = field(default_factory=list)
    tiles: list[TileDecision] = field(default_factory=list)
    model: SlotModelNumbers | None = None  # slots=model only


@dataclass
class BufferPlacement:
    location: str
    space: str
    type: str
    addr: int
    size: int
    first: int  # program point where it becomes live
    last: int  # last program point where it is live
    fixed: bool = False  # user-given address
    first_at: str = ""  # location of the op at `first`
    last_at: str = ""  # location of the op at `last`
    whole_loops: list[str] = field(default_factory=list)  # loops it lives through entirely, and why
    tmp_for: str = ""  # the op (ptoas name) it is the tmp of, when pto-allocate-memory-addr added it for level3


@dataclass
class FunctionMemory:
    function: str
    arch: str
    peak: dict[str, int] = field(default_factory=dict)
    capacity: dict[str, int] = field(default_factory=dict)
    buffers: list[BufferPlacement] = field(default_factory=list)
    live_peak: dict[str, int] = field(default_factory=dict)  # most bytes live at once: a lower bound on `peak`
    sharing: dict[str, str] = field(default_factory=dict)
    """Per space, which buffers were let share bytes: "free" (only where the
    pipes already order them), "once", "any" (lifetimes alone) or "none"."""


@dataclass
class ReplanDecision:
    """What `replan=true` did with one alias class of addressed tiles
    (pto_dialect/analysis/replan.py): the tiles that are one buffer, named by the
    first of them."""

    location: str
    space: str
    tiles: int  # tiles in the class
    replanned: bool  # their addresses were dropped (else kept, for `reason`)
    reason: str = ""
    views: int = 0  # members that became a pto.treshape or pto.subview of the class's buffer


@dataclass
class SwitchDecision:
    """How `pto-pipeline` resolved use-ptoas-multi-buffer, and from where."""

    value: bool
    source: str


@dataclass
class PipelineReport:
    loops: list[LoopDecision] = field(default_factory=list)
    memory: list[FunctionMemory] = field(default_factory=list)
    switch: list[SwitchDecision] = field(default_factory=list)
    degraded: list[str] = field(default_factory=list)
    """Each slot the allocator took from a multi-tile buffer so that a space
    fits (`pto-allocate-memory-addr{degrade=true}`, which pto-pipeline runs)."""
    replan: list[ReplanDecision] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)

    def to_json(self, indent: int | None = 2) -> str:
        import json  # here: most runs never write a report

        return json.dumps(self.to_dict(), indent=indent)
