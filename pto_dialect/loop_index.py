"""Arithmetic on `scf.for` iteration indices: the slot index of a pipeline
loop, and loop normalization.

The slot of iteration k (k = 0, 1, ...) of `for %iv = lb to ub step s` is
`k mod N` with `k = (iv - lb) / s`. Two shortcuts keep the IR small and in
the form ptoas recognises:

- `step = 1` and a constant `lb >= 0`: `arith.remui %iv, %cN`. This is
  `(k + lb) mod N`, a rotation of `k mod N`: any N consecutive iterations still
  use N distinct slots, and it is the only form ptoas derives per-slot events
  from.
- otherwise `((iv - lb) / s) mod N` with the subtraction dropped for `lb = 0`
  and the division for `s = 1`. `iv - lb >= 0` and `s > 0` in every iteration,
  so unsigned division and remainder are exact. (`iv % N` alone, what the
  reference implementation emitted, is wrong for any step that shares a
  factor with N: with step 2 and N = 2 every iteration gets slot 0.)
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from .ir_utils import constant_int


@dataclass(frozen=True)
class LoopBounds:
    lower: ir.Value
    upper: ir.Value
    step: ir.Value
    lower_const: int | None
    upper_const: int | None
    step_const: int | None

    @classmethod
    def of(cls, loop: ir.Operation, constants=constant_int) -> LoopBounds:
        """`constants` maps a value to its constant integer or None (pass an
        `ir_utils.ConstantInts` to share the work across loops)."""
        operands = loop.operands
        lb, ub, step = operands[0], operands[1], operands[2]
        return cls(lb, ub, step, constants(lb), constants(ub), constants(step))

    @property
    def trip_count(self) -> int | None:
        """The number of iterations when all bounds are constants (and the
        step positive), else None."""
        if None in (self.lower_const, self.upper_const, self.step_const) or self.step_const <= 0:
            return None
        return max(0, -(-(self.upper_const - self.lower_const) // self.step_const))

    @property
    def step_problem(self) -> str | None:
        """Why the loop cannot be rewritten for its step (a constant step
        that is not positive: the loop never ends, or its semantics are
        undefined), or None."""
        if self.step_const is not None and self.step_const <= 0:
            return f"its step is {self.step_const}; scf.for steps must be positive"
        return None

    @property
    def is_ptoas_canonical(self) -> bool:
        """True when the slot can be exactly `arith.remui %iv, %cN`."""
        return self.step_const == 1 and self.lower_const is not None and self.lower_const >= 0


def static_trip_count(loop: ir.Operation) -> int | None:
    """The trip count of an `scf.for` with constant bounds, else None."""
    return LoopBounds.of(loop).trip_count


def induction_var(loop: ir.Operation) -> ir.Value:
    return loop.regions[0].blocks[0].arguments[0]


def _constant(value: int, type_: ir.Type) -> ir.Value:
    return ir.Operation.create("arith.constant", results=[type_], attributes={"value": ir.IntegerAttr.get(type_, value)}).result


def _binary(name: str, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
    # Operation.create is ~3x cheaper than the generated op builders, and the
    # pass emits these once per loop.
    return ir.Operation.create(name, results=[lhs.type], operands=[lhs, rhs]).result


def build_slot_index(loop: ir.Operation, count_value: ir.Value, bounds: LoopBounds) -> ir.Value:
    """Emit the slot index of the current iteration at the current insertion
    point (inside the loop body, before any use) and return it."""
    iv = induction_var(loop)
    if bounds.is_ptoas_canonical:
        return _binary("arith.remui", iv, count_value)
    k = iv
    if bounds.lower_const != 0:
        k = _binary("arith.subi", k, bounds.lower)
    if bounds.step_const != 1:
        k = _binary("arith.divui", k, bounds.step)
    return _binary("arith.remui", k, count_value)


def normalize_loop(loop: ir.Operation) -> None:
    """Rewrite `for %iv = lb to ub step s` in place to
    `for %k = 0 to max(ceildiv(ub - lb, s), 0) step 1`, with `lb + k * s` in
    the body where %iv was used."""
    bounds = LoopBounds.of(loop)
    iv = induction_var(loop)
    iv_type = iv.type
    with ir.InsertionPoint(loop), loop.location:
        zero = _constant(0, iv_type)
        one = _constant(1, iv_type)
        if bounds.trip_count is not None:
            trip_count = _constant(bounds.trip_count, iv_type)
        else:
            span = _binary("arith.subi", bounds.upper, bounds.lower)
            trips = _binary("arith.ceildivsi", span, bounds.step)
            trip_count = _binary("arith.maxsi", trips, zero)
    body = loop.regions[0].blocks[0]
    with ir.InsertionPoint.at_block_begin(body), loop.location:
        users: list[ir.Operation] = []
        value = iv
        if bounds.step_const != 1:
            scaled = _binary("arith.muli", iv, bounds.step)
            users.append(scaled.owner.operation)
            value = scaled
        if bounds.lower_const != 0:
            shifted = _binary("arith.addi", bounds.lower, value)
            if value is iv:
                users.append(shifted.owner.operation)
            value = shifted
    if value is not iv:
        iv.replace_all_uses_except(value, users)
    loop.operands[0] = zero
    loop.operands[1] = trip_count
    loop.operands[2] = one
