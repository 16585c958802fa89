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


def dense_i32(attr: ir.Attribute) -> tuple[int, ...]:
    """The integers of a `DenseI32ArrayAttr` (like `operandSegmentSizes`).
    Indexed one by one: `tuple(attr)` goes through the bindings' generic
    iteration, about 15 times slower for the three or four sizes we read."""
    array = ir.DenseI32ArrayAttr(attr)
    return tuple([array[i] for i in range(len(array))])


def constant_int(value: ir.Value) -> int | None:
    """The integer a value holds when it is an `arith.constant`, else None."""
    owner = value.owner
    if not isinstance(owner, (ir.Operation, ir.OpView)) or owner.name != "arith.constant":
        return None
    attr = owner.attributes["value"]
    if isinstance(attr, ir.BoolAttr):  # an i1 constant: its bit
        return int(attr.value)
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


class Enclosing:
    """`defined_inside` memoised by value, for one pass over IR whose values
    it does not move: each value's enclosing ops are found once (an alloc's
    valid-shape constants are shared by every loop of a function)."""

    def __init__(self) -> None:
        self._around: dict[ir.Value, frozenset[ir.Operation]] = {}

    def defined_inside(self, value: ir.Value, op: ir.Operation) -> bool:
        around = self._around.get(value)
        if around is None:
            parent = _innermost_around(value)
            ops = []
            while parent is not None:
                ops.append(parent)
                parent = parent.parent
            around = self._around[value] = frozenset(ops)
        return op in around


def nested_in(op: ir.Operation | None, ancestor: ir.Operation) -> bool:
    """Whether `op` lies in one of `ancestor`'s regions (at any depth);
    `op` may be None, for nothing."""
    while op is not None:
        if op == ancestor:
            return True
        op = op.parent
    return False


def _innermost_around(value: ir.Value) -> ir.Operation | None:
    """The innermost op whose region defines `value`: a block argument's
    block's owner, a result's op's parent."""
    if isinstance(value, ir.BlockArgument):
        return value.owner.owner
    return value.owner.operation.parent


def defined_inside(value: ir.Value, op: ir.Operation) -> bool:
    """Whether `value` is defined in one of `op`'s regions (at any depth)."""
    return nested_in(_innermost_around(value), op)
