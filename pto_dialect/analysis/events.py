"""The event ids ptoas's InsertSync gives a pipeline loop's synchronisation,
per pipe pair, and what it does when a pair runs out (docs/timing.md,
"Event ids"; `convert-to-ptoas-multi-buffer`'s `slots` option).

ptoas (PTOAS commit e32488c9) synchronises two pipes with `set_flag` /
`wait_flag` on an event id; each (src, dst) pipe pair has its own pool of
`kTotalEventIdNum` = 8 ids (7 for V->S and S->V, `reservedEventIdNum`), in
`include/PTO/Transforms/InsertSync/SyncEventIdAllocation.h` and
`lib/PTO/Transforms/InsertSync/SyncEventIdAllocation.cpp`. This module
follows those files and `lib/PTO/Transforms/InsertSync/InsertSyncAnalysis.cpp`:

- Which syncs there are (`InsertSeqSync`, `MemAnalyze`): for each op of
  the loop body (the "now" op, on pipe Q), the ops before it in the same
  iteration are scanned nearest first, then (the back edge) the ops of the
  previous iteration from the end of the body down to it. The first op on
  a pipe P != Q that conflicts with it (a local buffer one writes and the
  other reads or writes) gets a sync P -> Q, and P counts as synchronised
  for the rest of the scan (`alreadySync`), so farther ops on P get none.
- A back-edge sync whose conflicting buffers are all multi-tile regions of
  one slot count N, reached through one slot index, at least one of them
  in vec or mat (ptoas counts slots of those spaces only), takes N ids
  (`GetEventIdNum`, `InsertSyncOperation`: `set_flag_dyn` / `wait_flag_dyn`
  pick `ids[slot % N]`). Such a slot-keyed sync orders only one slot, so it
  does not mark P as synchronised (`isSlotKeyedSync`): every op on P that
  touches the region gets its own N ids. Any other sync takes one id.
- Lifetimes (`SetUseEventID`): a back-edge sync holds its ids for the whole
  loop (the function, until a pair is reallocated, then the loop); a
  forward sync from its set to its wait. Two syncs of one pair whose
  lifetimes overlap need different ids; an id never used is taken before
  one that is free again (`GetAvailableEventId`, strategy 1 before 2).
- When a sync finds fewer free ids than it wants, the pair is reallocated
  (`ReallocatedEventId`) and a multi-slot sync is reduced to one id
  (`SetEventId`: "reduce usage to 1"): its slots are no longer synchronised
  apart, so on that dependence iteration k + 1 waits for iteration k as
  with one slot. A sync that finds no id at all becomes a `PIPE_ALL`
  barrier (`ChangeNoEventIdSyncToPipeAll`).

Not followed: transitive elimination through syncs already placed
(`UpdateAlreadySync`, which can only remove one-id syncs), the pipe-V
barrier pruning, ops in nested regions (counted as if in the body), the
byte ranges of global memory (two views of one argument always conflict)
and block syncs. `test/python/test_events_ptoas.py`
compares the count with pto-test-opt's output.
It lives in `analysis/`, not beside the pipe model in `timing/`: slots=uniform
checks the budget too, and must not load the pipe model (numpy) to do so.

The count walks the loop body once (`loop_accesses`); a plan's scan for an
op visits only the ops on other pipes that touch its buffers and the places
syncs were put (a body of 3000 vector ops on one tile: 0.1 s), and no
schedule is run.
"""

from __future__ import annotations

import bisect
from collections.abc import Hashable
from dataclasses import dataclass, field

from mlir import ir

from ..dialect.effects import PIPES, VIEW_OPS
from ..dialect.types import multi_tile_type, tile_type
from .loop_body import LoopBody

EVENT_IDS = 8
"""ptoas's kTotalEventIdNum: event ids per (src, dst) pipe pair."""

RESERVED = {("V", "S"): 1, ("S", "V"): 1}
"""ptoas's reservedEventIdNum: ids of a pair InsertSync leaves to others."""


def budget(src: str, dst: str) -> int:
    """The ids InsertSync may give the syncs of pipe pair src -> dst."""
    return EVENT_IDS - RESERVED.get((src, dst), 0)


@dataclass(frozen=True)
class Access:
    """One op of the loop body with a pipe: the local buffers it reads and
    writes (each named by its root: an alloc's result or a block argument)."""

    pipe: str
    reads: frozenset
    writes: frozenset


@dataclass
class Sync:
    """One set/wait pair InsertSync would place."""

    src: str
    dst: str
    wanted: int  # ids it asks for (N for a slot-keyed back-edge sync)
    back_edge: bool
    begin: int  # lifetime, in body positions (set ... wait)
    end: int
    buffers: tuple  # the conflicting buffers
    wait_at: int  # body position of the op that waits
    granted: int = 0  # ids it gets within the budget (0: a PIPE_ALL barrier)

    @property
    def pair(self) -> str:
        return f"{self.src}->{self.dst}"


@dataclass
class EventPlan:
    """The syncs of one loop and the ids each gets."""

    syncs: list[Sync]
    needed: dict[str, int]  # pipe pair -> ids it would use without a limit
    budgets: dict[str, int]
    used: dict[str, int] = field(default_factory=dict)  # pipe pair -> ids it uses within its budget
    short_pairs: set[str] = field(default_factory=set)  # pairs where a sync gets fewer ids than it asks for

    @property
    def over(self) -> dict[str, int]:
        """Pairs where InsertSync runs out of ids (a sync gets fewer than it
        asks for), with the fewest ids each would need."""
        return {pair: self.needed[pair] for pair in sorted(self.short_pairs)}

    def short(self) -> list[Sync]:
        """The syncs that get fewer ids than they ask for."""
        return [s for s in self.syncs if s.granted < s.wanted]

    def buffers_over(self) -> set:
        """The multi-slot buffers with a slot-keyed sync on a pair over its budget."""
        over = self.over
        return {b for s in self.syncs if s.wanted > 1 and s.pair in over for b in s.buffers}

    def pairs_of(self, buffer) -> set[str]:
        """The pairs on which `buffer` has a slot-keyed sync."""
        return {s.pair for s in self.syncs if s.wanted > 1 and buffer in s.buffers}

    def describe_over(self, pairs: set[str] | None = None) -> str:
        """E.g. `V->MTE2 needs 9 of its 8` (of `pairs` only, when given)."""
        return ", ".join(
            f"{pair} needs {n} of its {self.budgets[pair]}" if n > self.budgets[pair] else f"{pair} runs out in the order InsertSync gives them"
            for pair, n in sorted(self.over.items())
            if pairs is None or pair in pairs
        )


def root(value: ir.Value) -> ir.Value:
    """The buffer a tile value names: through views to their source."""
    while not isinstance(value, ir.BlockArgument) and value.owner.name in VIEW_OPS:
        value = value.owner.operands[0]
    return value


_LOCAL, _VIEW, _INDEX, _OTHER = range(4)


class TypeKinds(dict):
    """What a buffer scan needs of a type (a local tile, a tensor view, an
    index, other), read once per type: reading it means printing it, and
    types are uniqued, so one scan of a module prints each type once. One
    holds the types of one Context; make one per run (a pass's run or a
    `loop_accesses` call). It also keeps the global buffer each view value
    was found to start from (`global_roots`): the tensor views of a
    kernel's thousands of loops are a few values made before them, which a
    run does not erase."""

    def __init__(self) -> None:
        super().__init__()
        self.global_roots: dict[ir.Value, GlobalBuffer] = {}

    def __missing__(self, ty: ir.Type) -> int:
        text = str(ty)
        if text.startswith(("!pto.tile_buf", "!pto.multi_tile_buf")):
            kind = _LOCAL
        elif text.startswith(("!pto.partition_tensor_view", "!pto.tensor_view")):
            kind = _VIEW
        elif text.startswith("index"):
            kind = _INDEX
        else:
            kind = _OTHER
        self[ty] = kind
        return kind


@dataclass(frozen=True)
class GlobalBuffer:
    """Global memory a transfer reads or writes, named by the value its views
    start from (a function argument, usually): two views of one argument
    conflict, as InsertSync assumes when it cannot tell their bytes apart."""

    value: ir.Value


def _global_root(value: ir.Value, kinds: TypeKinds) -> GlobalBuffer:
    roots = kinds.global_roots
    passed = []  # the values on the way, each starting from the root found
    found = roots.get(value)
    while found is None:
        passed.append(value)
        if isinstance(value, ir.BlockArgument):
            found = GlobalBuffer(value)
            break
        operands = value.owner.operands
        if not len(operands) or kinds[operands[0].type] == _INDEX:
            found = GlobalBuffer(value)
            break
        value = operands[0]
        found = roots.get(value)
    for v in passed:
        roots[v] = found
    return found


def _buffers(operands: tuple[ir.Value, ...], positions, kinds: TypeKinds) -> frozenset:
    found = set()
    count = len(operands)
    for k in positions:
        if k >= count:
            continue
        value = operands[k]
        kind = kinds[value.type]
        if kind == _LOCAL:
            found.add(root(value))
        elif kind == _VIEW:
            found.add(_global_root(value, kinds))
    return frozenset(found)


def loop_accesses(loop: ir.Operation, kinds: TypeKinds | None = None, body: LoopBody | None = None) -> list[Access]:
    """The ops of `loop`'s body (nested regions flattened, in program order)
    that run on a pipe, with the buffers each reads and writes: local tiles
    by their root, global memory by the value its views start from.
    `kinds` may carry the types a run has read already, `body` the body
    as the caller read it."""
    kinds = TypeKinds() if kinds is None else kinds
    body = LoopBody(loop) if body is None else body
    accesses: list[Access] = []
    for record in body.ops:
        spec = record.spec
        if spec is None or spec.pipe is None:
            continue
        layout = record.layout
        operands = record.operands
        accesses.append(Access(spec.pipe.value, _buffers(operands, layout.reads, kinds), _buffers(operands, layout.writes, kinds)))
    return accesses


def _conflicts(now: Access, front: Access) -> set:
    return (now.writes & (front.reads | front.writes)) | (now.reads & front.writes)


SLOT_SPACES = ("vec", "mat")
"""The spaces whose multi-tile regions InsertSync gives an id per slot
(`GetEventIdNum`: a dependence on acc, left or right slots takes one id)."""


def _space(buffer) -> str | None:
    if isinstance(buffer, GlobalBuffer):
        return "gm"
    view = multi_tile_type(buffer.type)
    if view is not None:
        return view.slot.loc
    view = tile_type(buffer.type)
    return view.loc if view is not None else None


def _slot_keyed(deps: set, slots: dict[Hashable, int], space_of) -> int:
    """The ids a back-edge sync over `deps` asks for: N when every buffer is
    an N-slot region (one slot index: the conversion gives each count its
    own) and one of them is in vec or mat; else 1 (a global buffer among
    them has no slot: `hasAmbiguousSlot`)."""
    counts = {slots.get(b, 1) for b in deps}
    if len(counts) != 1 or not any(space_of(b) in SLOT_SPACES for b in deps):
        return 1
    return counts.pop()


def surely_within_budget(accesses: list[Access], slots: dict[Hashable, int]) -> bool:
    """True when no pipe pair of `plan(accesses, slots)` can run out of ids,
    told without placing a sync: a bound on the ids each pair's syncs ask
    for in all is within the pair's budget. Then `plan(...).over` is empty:
    while the ids a pair's syncs ask for in all are within its pool, each
    sync finds as many never-used ids as it asks for (`_allocate`).

    The bound, per op on pipe Q and other pipe P with k ops on P touching
    one of its buffers (each counted once per shared buffer: at least as
    many as conflict): the scan within the iteration places at most one
    sync from P (it asks for 1 id and marks P synchronised); the scan over
    the back edge at most one per conflicting op on P, each asking for at
    most the largest slot count. False says only that the bound is over:
    `plan` tells."""
    most = max(max(slots.values(), default=1), 1)
    touching: dict = {}  # buffer -> {pipe: ops on that pipe touching it}
    for a in accesses:
        for b in a.reads | a.writes:
            on = touching.setdefault(b, {})
            on[a.pipe] = on.get(a.pipe, 0) + 1
    asked: dict[tuple[str, str], int] = {}
    for a in accesses:
        others: dict[str, int] = {}  # pipe -> k
        for b in a.reads | a.writes:
            for pipe, count in touching[b].items():
                if pipe != a.pipe:
                    others[pipe] = others.get(pipe, 0) + count
        for pipe, k in others.items():
            pair = (pipe, a.pipe)
            asked[pair] = asked.get(pair, 0) + 1 + k * most
    return all(ids <= budget(src, dst) for (src, dst), ids in asked.items())


def plan(accesses: list[Access], slots: dict[Hashable, int], space_of=_space) -> EventPlan:
    """The syncs InsertSync would place in a loop of these accesses, each
    buffer with its slot count in `slots` (absent: 1), and the ids each
    gets (module docstring). `space_of(buffer)` is a buffer's memory space
    (from its type; tests whose buffers are not values give their own).

    As InsertSync: first every op's syncs with the ops before it in the
    iteration (`DealWithCompoundSync`), then, once the whole body is seen,
    every op's syncs across the back edge (`DealWithLoopSync`). A scan
    visits only the ops on other pipes that touch one of the op's buffers
    and the places syncs were put (`_Scan`), so a long body of one pipe
    costs what a short one does."""
    n = len(accesses)
    touching: dict[tuple, list[int]] = {}  # (buffer, pipe) -> positions of the ops on that pipe touching it
    for k, a in enumerate(accesses):
        for b in a.reads | a.writes:
            touching.setdefault((b, a.pipe), []).append(k)
    scan = _Scan(accesses, slots, space_of, touching)
    for i in range(n):
        scan.run(i, 0, i - 1, False, set(), set())
    for i in range(n):
        synced: set[str] = set()
        finder = {id(s) for s in scan.waits_at.get(i, ())}
        scan.run(i, 0, i - 1, True, synced, finder)  # this iteration: what is synchronised already
        scan.run(i, i + 1, n - 1, True, synced, finder)  # the previous iteration, from its end
    syncs = sorted(scan.syncs, key=lambda s: s.wait_at)  # SetEventId's order: by the op that waits (stable: forward ones first)
    budgets: dict[str, int] = {}
    by_pair: dict[str, list[Sync]] = {}
    for s in syncs:
        by_pair.setdefault(s.pair, []).append(s)
        budgets[s.pair] = budget(s.src, s.dst)
    needed, used, short = {}, {}, set()
    for pair, group in by_pair.items():
        needed[pair] = _fewest_ids(group)
        used[pair] = _allocate(group, budgets[pair])
        if any(s.granted < s.wanted for s in group):
            short.add(pair)
    return EventPlan(syncs, needed, budgets, used, short)


class _Scan:
    """The scans of one plan: the syncs placed so far and where."""

    def __init__(self, accesses: list[Access], slots, space_of, touching: dict[tuple, list[int]]) -> None:
        self.accesses = accesses
        self.slots = slots
        self.space_of = space_of
        self.touching = touching
        self.syncs: list[Sync] = []
        self.sets_at: dict[int, list[Sync]] = {}
        self.waits_at: dict[int, list[Sync]] = {}
        self.marks: list[int] = []  # sorted: the positions with a set or a wait that takes part in elimination

    def _mark(self, position: int) -> None:
        k = bisect.bisect_left(self.marks, position)
        if k == len(self.marks) or self.marks[k] != position:
            self.marks.insert(k, position)

    def add(self, sync: Sync, set_at: int) -> None:
        self.syncs.append(sync)
        if sync.wanted == 1:  # a slot-keyed sync orders one slot: it takes part in no elimination
            self.sets_at.setdefault(set_at, []).append(sync)
            self.waits_at.setdefault(sync.wait_at, []).append(sync)
            self._mark(set_at)
            self._mark(sync.wait_at)

    def run(self, i: int, lo: int, hi: int, back_edge: bool, synced: set[str], finder: set[int]) -> None:
        """Scan positions hi down to lo for the op at i (InsertSeqSync)."""
        if lo > hi:
            return
        now = self.accesses[i]
        visit: set[int] = set()
        pipes: set[str] = set()
        for key, positions in self._lists(now):
            pipes.add(key)
            visit.update(positions[bisect.bisect_left(positions, lo) : bisect.bisect_right(positions, hi)])
        visit.update(self.marks[bisect.bisect_left(self.marks, lo) : bisect.bisect_right(self.marks, hi)])
        for j in sorted(visit, reverse=True):
            if pipes <= synced:
                return  # every pipe that could conflict is synchronised
            front = self.accesses[j]
            for s in self.sets_at.get(j, ()):  # UpdateAlreadySync(pipeAfter): a set whose wait this pipe has passed
                if id(s) in finder and (s.dst == now.pipe or s.dst in synced):
                    synced.add(s.src)
            if front.pipe != now.pipe and front.pipe not in synced:
                deps = _conflicts(now, front)
                if deps:
                    wanted = _slot_keyed(deps, self.slots, self.space_of) if back_edge else 1
                    if wanted <= 1:
                        synced.add(front.pipe)
                    begin, end = (-1, len(self.accesses)) if back_edge else (j, i)
                    self.add(Sync(front.pipe, now.pipe, wanted, back_edge, begin, end, tuple(deps), i), j)
            for s in self.waits_at.get(j, ()):  # UpdateAlreadySync(pipeBefore): a wait in this pipe's order
                if s.dst == now.pipe or s.dst in synced:
                    finder.add(id(s))

    def _lists(self, now: Access):
        """(pipe, positions) of the ops on other pipes touching `now`'s buffers."""
        for b in now.reads | now.writes:
            for pipe in _PIPES:
                if pipe != now.pipe:
                    positions = self.touching.get((b, pipe))
                    if positions:
                        yield pipe, positions


_PIPES = tuple(p.value for p in PIPES)


def _fewest_ids(group: list[Sync]) -> int:
    """The fewest ids the syncs of one pair need: every back-edge sync's for
    the whole loop, and as many more as forward syncs are live at once."""
    ends = sorted((s.begin, s.end) for s in group if not s.back_edge)
    live, most = [], 0
    for begin, end in ends:
        live = [e for e in live if e > begin]
        live.append(end)
        most = max(most, len(live))
    return sum(s.wanted for s in group if s.back_edge) + most


def _allocate(group: list[Sync], pool: int) -> int:
    """Give the syncs of one pair ids from a pool of `pool`, in the order of
    their waits, as SetEventId does after a reallocation (an id never used
    first; a multi-slot sync that finds too few gets one; one that finds
    none gets none); the number of ids used. The syncs come by their waits,
    so a forward sync overlaps an earlier one exactly when it begins before
    that one ends: an id needs only the end of its last lifetime."""
    last_end: list[int | None] = [None] * pool  # None: never used; a back-edge sync holds it for good
    forever = 1 << 62
    for s in group:
        free = [k for k in range(pool) if last_end[k] is None or (not s.back_edge and last_end[k] <= s.begin)]
        ordered = [k for k in free if last_end[k] is None] + [k for k in free if last_end[k] is not None]
        take = ordered[: s.wanted] if len(ordered) >= s.wanted else ordered[:1]
        for k in take:
            last_end[k] = forever if s.back_edge else s.end
        s.granted = len(take)
    return sum(1 for e in last_end if e is not None)


def region_slots(accesses: list[Access]) -> dict[ir.Value, int]:
    """The slot count of each multi-tile region the accesses name (a loop
    already in multi-buffer form)."""
    slots = {}
    for a in accesses:
        for b in a.reads | a.writes:
            view = None if isinstance(b, GlobalBuffer) else multi_tile_type(b.type)
            if view is not None:
                slots[b] = view.count
    return slots


def loop_plan(loop: ir.Operation) -> EventPlan:
    """The plan of a loop already in multi-buffer form (its regions' counts)."""
    accesses = loop_accesses(loop)
    return plan(accesses, region_slots(accesses))


def fallback_text(plan: EventPlan, name_of) -> str:
    """What InsertSync does with the syncs that get fewer ids than they ask
    for; `name_of(buffer)` names a buffer for the text."""
    parts = []
    for s in plan.short():
        names = ", ".join(sorted({name_of(b) for b in s.buffers}))
        if s.granted == 0:
            parts.append(f"the {s.pair} sync of {names} gets no id and becomes a PIPE_ALL barrier, which waits for every pipe")
        else:
            parts.append(f"the {s.pair} sync of {names} gets 1 id instead of {s.wanted}, so on that dependence its slots do not overlap (as with 1 slot)")
    return "; ".join(parts)


__all__ = [
    "EVENT_IDS",
    "RESERVED",
    "SLOT_SPACES",
    "Access",
    "EventPlan",
    "GlobalBuffer",
    "Sync",
    "TypeKinds",
    "budget",
    "fallback_text",
    "loop_accesses",
    "loop_plan",
    "plan",
    "region_slots",
    "root",
    "surely_within_budget",
]
