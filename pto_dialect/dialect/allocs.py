"""The alloc ops' operands, read and built (docs/dialect.md, "Ops").

`pto.alloc_tile` and `pto.alloc_multi_tile` have three optional operands,
`addr` (i64), `valid_row` and `valid_col` (index): in the generic form an
`operandSegmentSizes` attribute says which are present. Passes read and
rebuild allocs only through here, so that no operand is dropped.
"""

from __future__ import annotations

from typing import NamedTuple

from mlir import ir

from ..support.ir_utils import dense_i32
from .effects import ALLOC_OPS, SEGMENTS_ATTR

__all__ = ["ALLOC_OPS", "AllocOperands", "alloc_attributes", "alloc_operands", "create_alloc", "has_addr"]


class AllocOperands(NamedTuple):
    """An alloc's operands by name (a tuple: passes read one per alloc, and a
    frozen dataclass costs ten times as much to build)."""

    addr: ir.Value | None = None
    valid_row: ir.Value | None = None
    valid_col: ir.Value | None = None

    @property
    def valid(self) -> tuple[ir.Value, ...]:
        """The valid-shape operands present, in order."""
        return tuple(v for v in (self.valid_row, self.valid_col) if v is not None)

    def with_addr(self, addr: ir.Value | None) -> AllocOperands:
        return AllocOperands(addr, self.valid_row, self.valid_col)


_NONE = AllocOperands()


def alloc_operands(alloc: ir.Operation, operands: tuple[ir.Value, ...] | None = None) -> AllocOperands:
    """The operands of an alloc op, by name; `operands`, its operands, when
    the caller has read them."""
    if operands is None:
        operands = alloc.operands
    n = len(operands)
    if n == 0:
        return _NONE
    try:
        sizes = dense_i32(alloc.attributes[SEGMENTS_ATTR])
    except KeyError:  # built without segments: only an addr can be meant
        sizes = (1, 0, 0) if n == 1 else (n >= 1, n >= 2, n >= 3)
    # The operands present, in order, read by index (a bindings iterator
    # costs more than the two or three items).
    present = []
    k = 0
    for size in sizes[:3]:
        if size:
            present.append(operands[k])
            k += 1
        else:
            present.append(None)
    return AllocOperands(*present)


def has_addr(alloc: ir.Operation) -> bool:
    return alloc_operands(alloc).addr is not None


def create_alloc(
    name: str,
    result_type: ir.Type,
    operands: AllocOperands,
    *,
    loc: ir.Location,
    ip: ir.InsertionPoint | None = None,
    attributes: dict | None = None,
) -> ir.Operation:
    """A new alloc op with these operands (and their segment sizes)."""
    present = (operands.addr, operands.valid_row, operands.valid_col)
    attrs = dict(attributes or {})
    attrs[SEGMENTS_ATTR] = ir.DenseI32ArrayAttr.get([int(v is not None) for v in present])
    return ir.Operation.create(
        name,
        results=[result_type],
        operands=[v for v in present if v is not None],
        attributes=attrs,
        loc=loc,
        ip=ip,
    )


def alloc_attributes(alloc: ir.Operation) -> dict:
    """An alloc's attributes other than its segment sizes (to carry over)."""
    attrs = alloc.attributes
    return {attrs[i].name: attrs[i].attr for i in range(len(attrs)) if attrs[i].name != SEGMENTS_ATTR}
