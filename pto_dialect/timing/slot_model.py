"""Slot counts chosen by the pipe model: `convert-to-ptoas-multi-buffer{slots=model}`
(docs/passes.md, `convert-to-ptoas-multi-buffer`).

Every eligible tile of a pipeline loop asking for N stages gets its own
slot count in [1, N] (1: it stays a single `pto.alloc_tile`). The choice is
timed with the static pipe schedule (`timing.static_schedule`, the same
costs and dependence rules as `pto-run --cycles`), which can time a choice
before it is made (`SlotTimer`: the loop's IR is walked once, and each
choice only moves the tiles' bytes in the events):

1. A tile whose readers and writers all run on one pipe gains nothing from
   a second slot: the pipe runs in order, so iteration k+1's first access
   starts after iteration k's last one anyway. It gets 1 slot, untimed.
2. The others start at N slots.
3. While a space cannot hold the choice (beside what else the loop holds
   there), one slot is taken from the tile that loses the fewest modelled
   cycles per iteration per byte it frees (ties: the larger tile first),
   and the trade is recorded.
4. While ptoas's InsertSync would need more event ids on a pipe pair than
   it has (8 a pair, `analysis.events`: each back-edge sync of an N-slot
   region takes N), one slot is taken from the tile on that pair that
   loses the fewest cycles per byte, as in step 3, and the trade is
   recorded. A pair over its budget whatever the slots (one-id syncs of
   single tiles) is left as it is and its fallback (a sync with one id for
   all slots, or a PIPE_ALL barrier) said in the loop's remark.
5. What remains is the best choice that fits; then, largest tiles first,
   each tile gets the fewest slots at which the loop's cycles per
   iteration stay within `TOLERANCE` of that best.

Timing every choice would be N^T schedules for T tiles; the greedy above
times at most 3 + T * (N - 1), plus per slot taken away the options up to
the first that loses nothing (`_cheapest`), and a tile whose slots cost
nothing gives them up in one run (`_free_run`): a space full of slots that
buy nothing costs a schedule per tile, not per slot. The event budget
(step 4) costs no schedule of its own beyond `_cheapest`'s: its count
walks the body once and each check visits per op only the ops that can
conflict with it (`analysis.events.plan`). Each schedule unrolls
8 times the largest slot count (`SlotTimer.schedule`), so the model's time
grows about linearly with the stage count (docs/reliability.md, "Bounded
cost"). More slots put a tile's iterations further apart in memory and so
take dependences away (in the pipe model always: with 3 slots iteration k
meets k - 3, with 2 it meets k - 2, whose accesses each in-order pipe
places after k - 3's), so the choice that keeps every slot that fits is
taken as the best one.

A loop the static schedule cannot time (data-dependent control flow, an op
without semantics: `StaticScheduleError`; or any failure of the model, named
in the remark, since every slot count is correct and the model only advises)
keeps rule 1, and its other tiles get N slots, reduced together as
`slots=uniform` would when they do not fit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from mlir import ir

from ..analysis import events
from ..analysis.liveness import buffer_values
from ..dialect.effects import CATALOGUE
from .static_schedule import SlotTimer, StaticScheduleError

TOLERANCE = 0.01
"""How much slower than the best choice (as a fraction) a smaller one may be."""


@dataclass(frozen=True)
class Candidate:
    """An eligible tile of the loop, as the model sees it."""

    alloc: ir.Operation
    space: str
    stride: int  # bytes one slot takes (its dense bytes, aligned)
    pipes: tuple[str, ...]  # the pipes of the ops that read or write it
    location: str


def _timed(before: float | None, after: float | None) -> str:
    """A trade's modelled cycles, for its remark ("" when it was not timed)."""
    if before is None or after is None:
        return ""
    return f", {format_cycles(before)} -> {format_cycles(after)} cycles per iteration"


@dataclass
class CapacityTrade:
    """One slot taken from a tile because its space was full."""

    alloc: ir.Operation = field(repr=False, compare=False)
    tile: str  # the tile's location
    space: str
    slots_from: int
    slots_to: int
    bytes_freed: int
    cycles_before: float | None  # per iteration, modelled (None: not timed)
    cycles_after: float | None

    def describe(self) -> str:
        """The trade, for a remark at the tile."""
        timed = _timed(self.cycles_before, self.cycles_after)
        return f"{self.slots_from} -> {self.slots_to} slots: not every slot fits \"{self.space}\"; this frees {self.bytes_freed} bytes{timed}"


@dataclass
class EventTrade:
    """One slot taken from a tile because ptoas would run out of event ids."""

    alloc: ir.Operation = field(repr=False, compare=False)
    tile: str  # the tile's location
    slots_from: int
    slots_to: int
    over: str  # the pairs over their budget before that the tile syncs on, e.g. "V->MTE2 needs 9 of its 8"
    pairs: tuple[str, ...]  # those pairs
    cycles_before: float | None
    cycles_after: float | None

    def describe(self) -> str:
        """The trade, for a remark at the tile."""
        timed = _timed(self.cycles_before, self.cycles_after)
        return (
            f"{self.slots_from} -> {self.slots_to} slots: ptoas's InsertSync has {events.EVENT_IDS} event ids per pipe pair "
            f"and each slot of a multi-buffer region takes its own; with {self.slots_from} slots {self.over}{timed}"
        )


@dataclass
class SlotChoice:
    """The model's answer for one loop."""

    slots: dict[ir.Operation, int]  # eligible alloc -> its slot count (1: stays single)
    why: dict[ir.Operation, str]  # eligible alloc -> the numbers behind its count
    fits: bool = True  # False: even one slot each overflows a space
    full_space: str = ""  # that space, when not `fits`
    timed: bool = True  # False: the loop could not be timed (`problem` says why)
    problem: str = ""
    cycles_single: float | None = None  # every eligible tile single
    cycles_chosen: float | None = None
    cycles_uniform: float | None = None  # every eligible tile at `uniform_slots`
    uniform_slots: int = 0
    trades: list[CapacityTrade] = field(default_factory=list)
    event_trades: list[EventTrade] = field(default_factory=list)
    events: events.EventPlan | None = None  # the choice's syncs and event ids
    uniform_events: events.EventPlan | None = None  # those of `uniform_slots` for every tile
    schedules: int = 0  # how many choices were timed


def format_cycles(x: float) -> str:
    """Modelled cycles as remarks print them: whole when whole."""
    return f"{x:.0f}" if abs(x - round(x)) < 0.05 else f"{x:.1f}"


def tile_pipes(alloc: ir.Operation) -> tuple[str, ...]:
    """The pipes of the ops that read or write the buffer `alloc` defines
    (through its views), in a fixed order. Ops without a pipe (views,
    scalar access) move no tile data on a pipe and are not counted."""
    pipes: set[str] = set()
    for value in buffer_values(alloc):
        for use in value.uses:
            spec = CATALOGUE.get(use.owner.operation.name)
            if spec is not None and spec.pipe is not None:
                pipes.add(spec.pipe.value)
    return tuple(sorted(pipes))


def _room_left(candidates: list[Candidate], choice: dict[ir.Operation, int], room: dict[str, int]) -> dict[str, int]:
    left = dict(room)
    for c in candidates:
        left[c.space] = left.get(c.space, 0) - choice[c.alloc] * c.stride
    return left


def choose_slots(
    loop: ir.Operation,
    candidates: list[Candidate],
    requested: int,
    room: dict[str, int],
    uniform_slots: int,
    arch: str,
) -> SlotChoice:
    """Each candidate's slot count in [1, requested] (module docstring).
    `room` is, per space, the bytes the candidates may take in all (the
    capacity less what else the loop holds there); a tile left at 1 slot
    still takes its one stride. `uniform_slots` is what `slots=uniform`
    gives every tile (0: it would not convert the loop), timed for the
    comparison in the remarks."""
    single = {c.alloc for c in candidates if len(c.pipes) <= 1}
    choice = {c.alloc: 1 if c.alloc in single else requested for c in candidates}
    why: dict[ir.Operation, str] = {}
    for c in candidates:
        if c.alloc in single:
            touched = f"only touched by {c.pipes[0]}" if c.pipes else "touched by no pipe"
            why[c.alloc] = f"it is {touched}, so a second slot would overlap nothing"
    result = SlotChoice(choice, why, uniform_slots=uniform_slots)
    accesses = events.loop_accesses(loop)
    if uniform_slots:
        result.uniform_events = events.plan(accesses, {c.alloc.results[0]: uniform_slots for c in candidates})
    cache: dict[tuple[int, ...], float] = {}
    timer: SlotTimer | None = None

    def timed(trial: dict[ir.Operation, int]) -> float:
        nonlocal timer
        key = tuple(trial[c.alloc] for c in candidates)
        found = cache.get(key)
        if found is None:
            timer = timer or SlotTimer(loop, arch)
            found = cache[key] = timer.cycles(trial)
            result.schedules += 1
        return found

    try:
        result.cycles_single = timed(dict.fromkeys(choice, 1))
        _fit(candidates, choice, room, result, timed)
        if not result.fits:
            return result
        _fit_events(candidates, choice, accesses, result, timed)
        best = timed(choice)
        if uniform_slots == requested and not result.trades:
            # The same as the start but for the single-pipe tiles, whose slots change nothing (rule 1).
            result.cycles_uniform = best
        elif uniform_slots:
            result.cycles_uniform = timed(dict.fromkeys(choice, uniform_slots))
        for c in sorted(candidates, key=lambda c: (-c.stride, c.location)):
            have = choice[c.alloc]
            if have <= 1:  # capacity or the event budget took its slots (a single-pipe tile has its reason already)
                if any(t.alloc == c.alloc for t in result.event_trades):
                    why.setdefault(c.alloc, f"a second one would need event ids ptoas does not have ({events.EVENT_IDS} per pipe pair)")
                why.setdefault(c.alloc, f"a second one does not fit \"{c.space}\" beside the other tiles' slots")
                continue
            with_have = timed(choice)
            kept, rejected = have, None  # the count it keeps; the cycles one slot fewer gives
            for fewer in range(1, have):
                cycles = timed({**choice, c.alloc: fewer})
                if cycles <= best * (1 + TOLERANCE) + 1e-9:
                    kept = fewer
                    break
                rejected = cycles
            choice[c.alloc] = kept
            why[c.alloc] = _why_timed(have, with_have, kept, timed(choice), rejected)
        result.cycles_chosen = timed(choice)
        result.events = events.plan(accesses, _by_buffer(candidates, choice))
    except Exception as e:  # noqa: BLE001 - the model only advises: any count is correct, so a loop it cannot time keeps the slots that fit
        result.timed = False
        result.problem = e.message if isinstance(e, StaticScheduleError) else f"the pipe model failed on it: {type(e).__name__}: {e}"
        result.trades.clear()
        result.event_trades.clear()
        for c in candidates:
            choice[c.alloc] = 1 if c.alloc in single else requested
        _fit(candidates, choice, room, result, None)
        if result.fits:
            try:
                _fit_events(candidates, choice, accesses, result, None)
            except Exception as err:  # noqa: BLE001 - as above: the slots that fit are correct, only the budget is unchecked
                result.events = None
                result.problem += f"; the event-id count failed on it: {type(err).__name__}: {err}"
        for c in candidates:
            if c.alloc not in why:
                why[c.alloc] = "the loop cannot be timed statically, so it keeps the slots that fit"
    return result


def _why_timed(have: int, with_have: float, kept: int, with_kept: float, one_fewer: float | None) -> str:
    """The numbers a timed tile's count was decided by (the other tiles as
    they were then): what the slots it gave up would have gained, and
    what one slot fewer would cost."""
    parts = []
    if kept < have:
        parts.append(
            f"with {have} the loop would take {format_cycles(with_have)} cycles per iteration, with {kept} "
            f"{format_cycles(with_kept)}: less than {TOLERANCE:.0%} apart"
        )
    if one_fewer is not None:
        parts.append(f"with {kept - 1} the loop would take {format_cycles(one_fewer)} cycles per iteration instead of {format_cycles(with_kept)}")
    return "; ".join(parts)


def _cheapest(options: list[Candidate], choice: dict[ir.Operation, int], timed: Callable | None, now: float | None) -> Candidate:
    """The option whose one slot fewer loses the fewest modelled cycles per
    iteration per byte it frees (ties: the larger tile, then the first
    location): the minimum of (loss / stride, -stride, location), a loss
    below zero counting as none.

    The options are timed in tie order, (-stride, location), and the first
    that loses nothing is the answer without timing the rest: none after it
    can have a smaller key, and every one before it lost cycles. When a
    space is full of slots that buy nothing (a loop bound by one pipe, more
    stages than its tiles use), each slot taken costs one or two schedules
    instead of one per tile, which made slots=model grow with the square
    of the stage count and worse (docs/reliability.md, "Bounded cost")."""
    ordered = sorted(options, key=lambda c: (-c.stride, c.location))
    if timed is None or now is None:
        return ordered[0]
    best, best_key = None, None
    for c in ordered:
        lost = max(timed({**choice, c.alloc: choice[c.alloc] - 1}) - now, 0.0)
        if lost == 0.0:
            return c
        key = (lost / c.stride, -c.stride, c.location)
        if best_key is None or key < best_key:
            best, best_key = c, key
    return best


def _fit(
    candidates: list[Candidate],
    choice: dict[ir.Operation, int],
    room: dict[str, int],
    result: SlotChoice,
    timed: Callable | None,
) -> None:
    """Take slots away until every space holds the choice (step 3 of the
    module docstring); untimed, from the largest tile first."""
    while True:
        left = _room_left(candidates, choice, room)
        over = {space for space, bytes_left in left.items() if bytes_left < 0}
        if not over:
            return
        options = [c for c in candidates if c.space in over and choice[c.alloc] > 1]
        if not options:
            result.fits = False
            result.full_space = min(over)
            return
        now = timed(choice) if timed is not None else None
        pick = _cheapest(options, choice, timed, now)
        have = choice[pick.alloc]
        run = _free_run(pick, have, -left[pick.space], choice, timed, now)
        for k in range(run - 1):  # (cycles: as at both ends of the run)
            result.trades.append(CapacityTrade(pick.alloc, pick.location, pick.space, have - k, have - k - 1, pick.stride, now, now))
        choice[pick.alloc] = have - run
        after = timed(choice) if timed is not None else None
        result.trades.append(CapacityTrade(pick.alloc, pick.location, pick.space, have - run + 1, have - run, pick.stride, now, after))


def _by_buffer(candidates: list[Candidate], choice: dict[ir.Operation, int]) -> dict[ir.Value, int]:
    return {c.alloc.results[0]: choice[c.alloc] for c in candidates}


def _fit_events(
    candidates: list[Candidate],
    choice: dict[ir.Operation, int],
    accesses: list[events.Access],
    result: SlotChoice,
    timed: Callable | None,
) -> None:
    """Take slots away until no pipe pair needs more event ids than ptoas
    has (step 4 of the module docstring), each from the tile with a
    slot-keyed sync on a pair over its budget that loses the fewest cycles
    per byte (`_cheapest`); slots that cost nothing go in one run, as many
    as the pair needs (`_free_run`'s reasoning). Each step takes at least
    one slot and so at least one id: at most as many steps as slots. Sets
    `result.events` to what is left."""
    while True:
        current = events.plan(accesses, _by_buffer(candidates, choice))
        result.events = current
        if not current.over:
            return
        involved = current.buffers_over()
        options = [c for c in candidates if choice[c.alloc] > 1 and c.alloc.results[0] in involved]
        if not options:
            return  # over whatever the slots: the loop's remark gives the fallback
        now = timed(choice) if timed is not None else None
        pick = _cheapest(options, choice, timed, now)
        have = choice[pick.alloc]
        buffer = pick.alloc.results[0]
        pairs = current.pairs_of(buffer) & set(current.over)
        # As `_free_run`: slots that cost nothing go in one run, as many as the
        # pair most over needs (each slot fewer frees one id per sync of the tile there).
        syncs = {pair: sum(1 for s in current.syncs if s.pair == pair and s.wanted > 1 and buffer in s.buffers) for pair in pairs}
        need = max(-(-(current.needed[pair] - current.budgets[pair]) // max(n, 1)) for pair, n in syncs.items()) if syncs else 1
        run = min(have - 1, max(need, 1))
        if run > 1 and (timed is None or timed({**choice, pick.alloc: have - 1}) > now or timed({**choice, pick.alloc: have - run}) > now):
            run = 1
        choice[pick.alloc] = have - run
        after = timed(choice) if timed is not None else None
        result.event_trades.append(EventTrade(pick.alloc, pick.location, have, have - run, current.describe_over(pairs), tuple(sorted(pairs)), now, after))


def _free_run(pick: Candidate, have: int, bytes_over: int, choice: dict[ir.Operation, int], timed: Callable | None, now: float | None) -> int:
    """How many slots in a row the greedy takes from `pick`, the cheapest
    option: the trades one at a time would each time every option again,
    and a space full of slots that buy nothing (more stages than the
    loop's tiles use) takes as many trades as slots, each a schedule as
    long as the stage count: the square of the stage count in all.

    When its first slot costs nothing, the tile keeps being the cheapest
    option for as long as its slots cost nothing: fewer slots never make
    the loop faster in the pipe model (a tile's slot is reused by an
    iteration nearer to the one before, whose accesses each pipe orders
    after the older ones'), so the options timed before it still lose
    cycles, and if the run's last count costs nothing each count between
    costs nothing. So: as many slots as the space still needs (or all but
    one) when the schedule with that many fewer is as fast; else one."""
    if timed is None or now is None or have <= 2:
        return 1
    run = min(have - 1, -(-bytes_over // pick.stride))
    if run <= 1 or timed({**choice, pick.alloc: have - 1}) > now:
        return 1
    return run if timed({**choice, pick.alloc: have - run}) <= now else 1


__all__ = ["TOLERANCE", "Candidate", "CapacityTrade", "EventTrade", "SlotChoice", "choose_slots", "format_cycles", "tile_pipes"]
