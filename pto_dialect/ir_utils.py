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


class ConstantInts:
    """`constant_int` memoised by value, for one pass over IR whose constants
    it does not change: loop bounds are a handful of values shared by
    thousands of loops."""

    def __init__(self) -> None:
        self._known: dict[ir.Value, int | None] = {}

    def __call__(self, value: ir.Value) -> int | None:
        try:
            return self._known[value]
        except KeyError:
            result = self._known[value] = constant_int(value)
            return result


def nested_in(op: ir.Operation | None, ancestor: ir.Operation) -> bool:
    """Whether `op` lies in one of `ancestor`'s regions (at any depth);
    `op` may be None, for nothing."""
    while op is not None:
        if op == ancestor:
            return True
        op = op.parent
    return False


def defined_inside(value: ir.Value, op: ir.Operation) -> bool:
    """Whether `value` is defined in one of `op`'s regions (at any depth)."""
    if isinstance(value, ir.BlockArgument):
        return nested_in(value.owner.owner, op)
    return nested_in(value.owner.operation.parent, op)
