"""The op catalogue (docs/dialect.md, "Ops"): for every pto op, its operands by name,
which of them it reads and writes, and the pipe that executes it.

This is the one place the passes, the verifier and the interpreter ask what an
op does to its buffers. The IRDL file defines the same ops; a unit test checks
that the two agree on names and operand lists.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import cached_property


class Pipe(str, Enum):
    MTE2 = "MTE2"  # global memory -> tile (tload)
    MTE1 = "MTE1"  # tile -> tile across spaces (tmov)
    V = "V"  # vector unit
    M = "M"  # cube (matmul) unit
    MTE3 = "MTE3"  # tile -> global memory (tstore)


PIPES = tuple(Pipe)


@dataclass(frozen=True)
class OpSpec:
    name: str
    operands: tuple[str, ...]
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    pipe: Pipe | None = None

    def index(self, operand: str) -> int:
        return self.operands.index(operand)

    @cached_property
    def read_indices(self) -> tuple[int, ...]:
        return tuple(self.operands.index(o) for o in self.reads)

    @cached_property
    def write_indices(self) -> tuple[int, ...]:
        return tuple(self.operands.index(o) for o in self.writes)


def _spec(name, operands, reads=(), writes=(), pipe=None) -> OpSpec:
    return OpSpec("pto." + name, tuple(operands), tuple(reads), tuple(writes), pipe)


_SPECS = [
    _spec("alloc_tile", ["addr"]),
    _spec("alloc_multi_tile", ["addr"]),
    _spec("multi_tile_get", ["mb", "slot"]),
    _spec("tload", ["src", "row", "col", "dst"], ["src"], ["dst"], Pipe.MTE2),
    _spec("tstore", ["src", "dst", "row", "col"], ["src"], ["dst"], Pipe.MTE3),
    *(_spec(n, ["a", "b", "dst"], ["a", "b"], ["dst"], Pipe.V) for n in ("tadd", "tsub", "tmul", "tmax", "tmin")),
    *(_spec(n, ["a", "s", "dst"], ["a"], ["dst"], Pipe.V) for n in ("tadds", "tmuls")),
    *(_spec(n, ["a", "dst"], ["a"], ["dst"], Pipe.V) for n in ("texp", "tabs", "trelu", "tcvt")),
    _spec("tmov", ["src", "dst"], ["src"], ["dst"], Pipe.MTE1),
    _spec("tmatmul", ["lhs", "rhs", "dst"], ["lhs", "rhs"], ["dst"], Pipe.M),
    _spec("tmatmul_acc", ["lhs", "rhs", "acc"], ["lhs", "rhs", "acc"], ["acc"], Pipe.M),
]

CATALOGUE: dict[str, OpSpec] = {s.name: s for s in _SPECS}

ALLOC_OPS = frozenset({"pto.alloc_tile", "pto.alloc_multi_tile"})
"""Ops that define a buffer (optionally at a fixed `addr`)."""

VIEW_OPS = frozenset({"pto.multi_tile_get"})
"""Ops whose result aliases (one slot of) an operand buffer."""

COMPUTE_OPS = frozenset(n for n, s in CATALOGUE.items() if s.pipe is not None)
"""Ops that read and write buffers on a pipe."""


def spec(op_name: str) -> OpSpec | None:
    return CATALOGUE.get(op_name)
