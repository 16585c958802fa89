"""One reading of a loop body: every op in it, nested ones included, in
program order, with the facts the conversion's analyses ask of each op (its
name, where it is, its catalogue entry, its operands and their layout),
each read from the bindings at most once.

A binding call costs 0.3-5 us (an operand ~1.5 us, a layout read from
`operandSegmentSizes` several), and the tiles and their verdicts, the
event-id accesses and the fit check each read the same facts of the same
ops again (docs/performance.md, "Issue 26"): they share one `LoopBody`.
Valid while the body is not changed.
"""

from __future__ import annotations

from mlir import ir

from ..dialect.effects import CATALOGUE, Layout, OpSpec


class BodyOp:
    """One op of a loop body; `operands` and `layout` are read at the
    first question."""

    __slots__ = ("op", "name", "spec", "top", "order", "nested", "_operands", "_layout")

    def __init__(self, op: ir.Operation, name: str, top: int, order: int, nested: bool) -> None:
        self.op = op
        self.name = name
        self.spec: OpSpec | None = CATALOGUE.get(name)
        self.top = top  # index of the body's own op that holds it (itself, when not nested)
        self.order = order  # its index in program order (`LoopBody.ops`)
        self.nested = nested  # inside a region of a body op, not in the body's block
        self._operands: tuple[ir.Value, ...] | None = None
        self._layout: Layout | None = None

    @property
    def operands(self) -> tuple[ir.Value, ...]:
        if self._operands is None:
            operands = self.op.operands
            # By index: iterating a bindings sequence costs more than reading a few items.
            self._operands = tuple([operands[i] for i in range(len(operands))])
        return self._operands

    @property
    def layout(self) -> Layout:
        """Its operand layout (an op of the catalogue only)."""
        if self._layout is None:
            self._layout = self.spec.layout(self.op, len(self.operands))
        return self._layout


class LoopBody:
    """The ops of `loop`'s body (its first region's block), read once."""

    def __init__(self, loop: ir.Operation) -> None:
        self.loop = loop
        self.block = loop.regions[0].blocks[0]
        self.ops: list[BodyOp] = []  # program order: an op before the ops in its regions
        self.direct: list[BodyOp] = []  # the block's own ops
        ops, direct = self.ops, self.direct
        for top, view in enumerate(self.block.operations):
            op = view.operation
            record = BodyOp(op, op.name, top, len(ops), False)
            ops.append(record)
            direct.append(record)
            if len(op.regions):
                self._nested(op, top)
        self.of: dict[ir.Operation, BodyOp] = {record.op: record for record in ops}

    def _nested(self, op: ir.Operation, top: int) -> None:
        """The ops inside `op`'s regions, each before the ops in its own
        regions; the walk keeps its own stack (nesting depth is the user's)."""
        ops = self.ops
        stack = [_inner_ops(op)]
        while stack:
            inner = next(stack[-1], None)
            if inner is None:
                stack.pop()
                continue
            ops.append(BodyOp(inner, inner.name, top, len(ops), True))
            if len(inner.regions):
                stack.append(_inner_ops(inner))


def _inner_ops(op: ir.Operation):
    for region in op.regions:
        for block in region.blocks:
            for view in block.operations:
                yield view.operation
