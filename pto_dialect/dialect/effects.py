"""The op catalogue (docs/dialect.md, "Ops"): for every op of the semantic
tier, which operands it reads and writes and the pipe that runs it, derived
from the op table (ops.py) and resolved per op instance.

This is the one place the passes, the verifier and the interpreter ask what
an op does to its buffers. An op of the syntax tier is not in the catalogue:
the analyses treat it as unknown (a buffer it touches escapes).

Operand positions depend on which optional operands an op has, so they are
resolved per instance (`OpSpec.layout(op)`): from `operandSegmentSizes`
when the op has it, else from the operand count (at most one group is then
optional or variadic).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from mlir import ir

from ..support.ir_utils import dense_i32
from .ops import OPS, OpDef, Pipe

PIPES = tuple(Pipe)

SEGMENTS_ATTR = "operandSegmentSizes"

# A `tmp` operand is scratch space the op overwrites (ptoas's reductions,
# transposes and conversions): it counts as written, never as read.
_SCRATCH = "tmp"


@dataclass(frozen=True)
class Layout:
    """Where each operand group of one op instance starts and how long it is."""

    groups: dict[str, tuple[int, int]]
    reads: tuple[int, ...]
    writes: tuple[int, ...]  # the scratch `tmp` included
    scratch: int | None = None  # the position of a present `tmp` operand

    def index(self, name: str) -> int | None:
        """The position of a single (or present optional) operand, or None."""
        start, length = self.groups.get(name, (0, 0))
        return start if length else None

    def span(self, name: str) -> range:
        start, length = self.groups.get(name, (0, 0))
        return range(start, start + length)


@dataclass(frozen=True)
class OpSpec:
    definition: OpDef

    @property
    def name(self) -> str:
        """The generic name (what MLIR and the passes see)."""
        return self.definition.generic_name

    @property
    def pipe(self) -> Pipe | None:
        return self.definition.pipe

    @property
    def operands(self) -> tuple[str, ...]:
        return tuple(o.name for o in self.definition.operands)

    @cached_property
    def reads(self) -> tuple[str, ...]:
        return self.definition.reads

    @cached_property
    def writes(self) -> tuple[str, ...]:
        scratch = (_SCRATCH,) if _SCRATCH in self.operands and _SCRATCH not in self.definition.writes else ()
        return self.definition.writes + scratch

    @cached_property
    def _kinds(self) -> tuple[str, ...]:
        return tuple(o.kind for o in self.definition.operands)

    @cached_property
    def _layouts(self) -> dict:
        return {}

    def layout(self, op: ir.Operation, count: int | None = None) -> Layout:
        """The operand layout of `op` (an instance of this op); `count`, its
        number of operands, when the caller has read it."""
        if count is None:
            count = len(op.operands)
        sizes = None
        if self.definition.needs_segments:
            try:
                sizes = dense_i32(op.attributes[SEGMENTS_ATTR])
            except KeyError:  # built without segments: by the operand count
                pass
        key = sizes if sizes is not None else count
        layout = self._layouts.get(key)
        if layout is None:
            layout = self._layouts[key] = self._layout_for(sizes, count)
        return layout

    def _layout_for(self, sizes, count: int) -> Layout:
        kinds = self._kinds
        if sizes is None or len(sizes) != len(kinds):
            singles = sum(k == "single" for k in kinds)
            rest = max(count - singles, 0)
            sizes = []
            for k in kinds:
                if k == "single":
                    sizes.append(1)
                else:
                    take = min(rest, 1) if k == "optional" else rest
                    sizes.append(take)
                    rest -= take
        groups, start = {}, 0
        for name, size in zip(self.operands, sizes):
            groups[name] = (start, size)
            start += size

        def positions(names) -> tuple[int, ...]:
            return tuple(i for n in names for i in range(groups[n][0], groups[n][0] + groups[n][1]))

        tmp = groups.get(_SCRATCH)
        return Layout(groups, positions(self.reads), positions(self.writes), tmp[0] if tmp and tmp[1] else None)

    def index(self, operand: str) -> int:
        """The position of `operand` when every operand before it is single."""
        return self.operands.index(operand)


CATALOGUE: dict[str, OpSpec] = {d.generic_name: OpSpec(d) for d in OPS if d.tier == "semantic"}
"""The ops with semantics, by generic name."""

SYNTAX_OPS = frozenset(d.generic_name for d in OPS if d.tier == "syntax")
"""The pto ops that are read and printed but have no semantics here."""

ALLOC_OPS = frozenset({"pto.alloc_tile", "pto.alloc_multi_tile"})
"""Ops that define a buffer (optionally at a fixed `addr`)."""

VIEW_OPS = frozenset({"pto.multi_tile_get", "pto.subview", "pto.treshape"})
"""Ops whose result aliases (part of) their first operand's buffer."""

NO_DATA_OPS = ALLOC_OPS | VIEW_OPS | {"pto.set_validshape", "pto.make_tensor_view", "pto.partition_view"}
"""Ops of the catalogue that move no data."""

COMPUTE_OPS = frozenset(n for n, s in CATALOGUE.items() if s.pipe is not None)
"""Ops that read and write buffers on a pipe."""


def spec(op_name: str) -> OpSpec | None:
    return CATALOGUE.get(op_name)
