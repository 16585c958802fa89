"""Small helpers over the MLIR Python bindings shared by passes and tools."""

from __future__ import annotations

from mlir import ir


def walk_ops(root: ir.Operation, order: ir.WalkOrder = ir.WalkOrder.PRE_ORDER) -> list[ir.Operation]:
    """Every op nested in `root` (root included), in walk order."""
    ops: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        ops.append(op)
        return ir.WalkResult.ADVANCE

    root.walk(visit, order)
    return ops


def constant_int(value: ir.Value) -> int | None:
    """The integer a value holds when it is an `arith.constant`, else None."""
    owner = value.owner
    if not isinstance(owner, (ir.Operation, ir.OpView)) or owner.name != "arith.constant":
        return None
    attr = owner.attributes["value"]
    return attr.value if isinstance(attr, ir.IntegerAttr) else None
