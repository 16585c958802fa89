"""Which buffers may share bytes without costing cycles: the pipe-aware
reuse of `pto-allocate-memory-addr` (docs/passes.md).

When buffer B takes bytes buffer A held before, B's first write must wait
until A's last access has ended: sharing adds that dependence. It costs
nothing when the pipes already order the two, since each pipe runs its ops
in order (the timing model's rule, and the device's):

- B's first access writes it, on some pipe P (later accesses of B wait
  for that write: a read after it through the bytes it wrote, a write
  after it on the same bytes);
- every access of A is ordered before A's last access on P: it is on P,
  or it is a write that a later access of A on P waits for, or a read that
  a later write of A on P waits for. Then P reaches B's first write only
  after all of A. That P is A's *release pipe* (None when there is none).

So A may give its bytes to B for free when A's release pipe is B's first
pipe. Inside a loop that holds both, the sharing repeats: next iteration,
A's first write waits for B, so the rule must hold both ways. Between
buffers with no loop around both, the dependence happens once.

`Tier` orders what the allocator allows, cheapest first: FREE (only
sharings the pipes already order), ONCE (also those that make an op wait
once, never in every iteration of a loop), and ANY (lifetimes alone, the
plain reuse). The allocator takes the first tier whose placement fits.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple

from ..dialect.effects import CATALOGUE
from .liveness import FunctionLiveness, LiveRange

# Ops whose buffer operands only name it (views, the aliasing region ops):
# they touch no bytes, so they neither order nor block sharing.
_NAMING_OPS = frozenset({"scf.for", "scf.if", "scf.yield"})

# The pipe each catalogue op runs on, by name (None: it moves no tile bytes).
_PIPE_NAMES = {name: spec.pipe.value if spec.pipe is not None else None for name, spec in CATALOGUE.items()}


class Tier(enum.Enum):
    FREE = "free"  # the pipes already order every shared byte
    ONCE = "once"  # also sharings that delay an op once, outside repetition
    ANY = "any"  # lifetimes alone

    def describe(self) -> str:
        return {
            Tier.FREE: "only where the pipes already order them",
            Tier.ONCE: "also across pipes where that makes an op wait once, never in every iteration of a loop",
            Tier.ANY: "wherever their lifetimes allow, in loops too, where an op then waits in every iteration",
        }[self]


class ShareFacts(NamedTuple):
    """What the sharing rule needs of one buffer (a tuple: one per buffer,
    and read for every pool the placement searches)."""

    first_pipe: str | None  # the pipe of its first access, when that access writes it
    release_pipe: str | None  # see the module docstring
    top_loop: int  # the outermost loop holding its whole live range, -1 none


def _accesses(live: LiveRange, writes_at: dict[int, tuple[int, ...]]) -> list[tuple[int, str, bool]] | None:
    """(point, pipe, whether it writes) per op touching the buffer, in
    program order; None when an op touches it whose pipe the catalogue does
    not name (a call, an unknown op). `writes_at` caches, per point, the
    operands its op writes (an op with several buffer operands is asked once)."""
    per_op: dict[int, tuple[str, bool]] = {}
    for point, owner, name, operand in live.uses:
        if name not in _PIPE_NAMES:
            if name in _NAMING_OPS or name == "func.return":
                continue
            return None
        pipe = _PIPE_NAMES[name]
        if pipe is None:  # a view, or scalar access: no pipe moves tile bytes
            continue
        written = writes_at.get(point)
        if written is None:
            written = writes_at[point] = CATALOGUE[name].layout(owner).writes
        writes = operand in written
        seen = per_op.get(point)
        per_op[point] = (pipe, writes or (seen is not None and seen[1]))
    return [(point, pipe, writes) for point, (pipe, writes) in sorted(per_op.items())]


def share_facts(liveness: FunctionLiveness) -> list[ShareFacts]:
    """ShareFacts per buffer of `liveness` (computed with keep_uses=True)."""
    facts = []
    loops, loop_of = liveness.loops, liveness.loop_of
    writes_at: dict[int, tuple[int, ...]] = {}
    for live in liveness.buffers:
        loop = loop_of[live.start] if live.start < len(loop_of) else -1
        while loop != -1 and not loops[loop].contains(live.end):
            loop = loops[loop].parent
        top = loop
        while top != -1 and loops[top].parent != -1:
            top = loops[top].parent
        accesses = _accesses(live, writes_at)
        if not accesses:
            facts.append(ShareFacts(None, None, top))
            continue
        first_pipe = accesses[0][1] if accesses[0][2] else None
        facts.append(ShareFacts(first_pipe, _release_pipe(accesses), top))
    return facts


def _release_pipe(accesses: list[tuple[int, str, bool]]) -> str | None:
    pipe = accesses[-1][1]
    later_on_pipe = later_write_on_pipe = False
    for _, on, writes in reversed(accesses):
        if on == pipe:
            later_on_pipe = True
            later_write_on_pipe = later_write_on_pipe or writes
        elif not (later_on_pipe if writes else later_write_on_pipe):
            return None
    return pipe


@dataclass(frozen=True)
class PipeAwareSharing:
    """The `placement.Sharing` policy of a tier over one space's requests
    (keys index `facts`)."""

    facts: list[ShareFacts]
    tier: Tier

    def tag(self, key: int) -> tuple:
        f = self.facts[key]
        return (f.release_pipe, f.first_pipe, f.top_loop)

    def compatible(self, tag: tuple, key: int) -> bool:
        release, first, top = tag
        b = self.facts[key]
        repeats = top != -1 and top == b.top_loop
        if self.tier is Tier.ONCE and not repeats:
            return True
        if release is None or release != b.first_pipe:
            return False
        return not repeats or (b.release_pipe is not None and b.release_pipe == first)


__all__ = ["PipeAwareSharing", "ShareFacts", "Tier", "share_facts"]
