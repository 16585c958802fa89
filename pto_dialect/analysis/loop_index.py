"""Arithmetic on `scf.for` iteration indices: trip counts, the slot index of a
pipeline loop, loop normalization, and the bounds replication computes.

Loops are as MLIR defines them (llvm/llvm-project,
mlir/include/mlir/Dialect/SCF/IR/SCFOps.td, `scf.for`): the induction
variable is `index` or a signless integer, and the bounds and the step have
its type; `scf.for unsigned` (the `unsignedCmp` attribute) compares the
induction variable with the bounds unsigned, a plain `scf.for` signed. An
unsigned loop's constants are read unsigned: `scf.for unsigned %i = %c-1 to
%c1` runs no iteration, because -1 is the type's largest value. Iteration k
runs with `iv = lb + k * step` while `iv < ub` in that comparison, so a loop
runs `ceil((ub - lb) / step)` times when ub > lb and never otherwise (the
count of MLIR's `constantTripCount`, mlir/lib/Dialect/Utils/StaticValueUtils.cpp).
A signed loop's step must be positive; an unsigned loop's step is read
unsigned, and only 0 is invalid. `index` is 64 bits wide here, as in MLIR's
constant folding and in pto-run.

MLIR leaves one case open: an `iv + step` past the type's range. Its
documentation runs an iteration only while lb <= iv < ub, its lowering to
`cf` (`convert-scf-to-cf`) wraps the sum; pto-run ends the loop there, as
the documentation says. Nothing built here introduces such an overflow into
a loop that had none.

The IR built here works in the induction variable's type and never compares
or divides with the wrong sign: the span `max(ub, lb) - lb` (`arith.maxsi`
for a signed loop, `arith.maxui` for an unsigned one) is exact read
unsigned, since it lies in [0, 2^w), and so is the trip count
`arith.ceildivui(span, step)`.

The slot of iteration k (k = 0, 1, ...) of a pipeline loop is `k mod N` with
`k = (iv - lb) / step`. Two shortcuts keep the IR small and in the form
ptoas recognises:

- `step = 1` and a constant `lb >= 0` (every constant of an unsigned loop):
  `arith.remui %iv, %cN`. This is `(k + lb) mod N`, a rotation of `k mod N`:
  any N consecutive iterations still use N distinct slots, and it is the
  only form ptoas derives per-slot events from.
- otherwise `((iv - lb) / s) mod N` with the subtraction dropped for `lb = 0`
  and the division for `s = 1`. `iv - lb` is in [0, ub - lb) read unsigned
  and `s > 0`, so unsigned division and remainder are exact. (`iv % N` alone,
  what the reference implementation emitted, is wrong for any step that
  shares a factor with N: with step 2 and N = 2 every iteration gets slot 0.)

The slot is computed in the induction variable's type and, when that is not
`index`, cast to `index` with `arith.index_castui` for `pto.multi_tile_get`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mlir import ir

from ..support.ir_utils import constant_int
from ..support.value_names import derived, unnamed

INDEX_BITS = 64
"""The width `index` is read with (MLIR's constant folding; pto-run)."""

UNSIGNED = "unsignedCmp"
"""The unit attribute of `scf.for unsigned`."""


def type_width(t: ir.Type) -> int:
    """Bits of an `index` or integer type."""
    if isinstance(t, ir.IndexType):
        return INDEX_BITS
    return ir.IntegerType(t).width


def read_int(value: int, width: int, unsigned: bool) -> int:
    """`value` (any integer with those low bits) as a loop of that
    signedness compares it: in [0, 2^w) unsigned, [-2^(w-1), 2^(w-1)) signed."""
    value &= (1 << width) - 1
    if not unsigned and value >> (width - 1):
        value -= 1 << width
    return value


def count_trips(lower: int, upper: int, step: int) -> int:
    """Iterations of `for iv = lower to upper step step`, the bounds read as
    the loop compares them and `step > 0`."""
    return -(-(upper - lower) // step) if upper > lower else 0


def iteration_values(lower: int, upper: int, step: int, width: int, unsigned: bool) -> range | None:
    """The induction values of a loop with these bounds (integers in any
    form, read as the loop compares them), in that reading; None when the
    step is not valid (zero, or not positive in a signed loop)."""
    lo, hi, s = (read_int(x, width, unsigned) for x in (lower, upper, step))
    if s <= 0:
        return None
    return range(lo, hi, s)


@dataclass(frozen=True)
class LoopBounds:
    """An `scf.for`'s bounds and step, with their constants read as the loop
    compares them (unsigned for `scf.for unsigned`)."""

    lower: ir.Value
    upper: ir.Value
    step: ir.Value
    lower_const: int | None
    upper_const: int | None
    step_const: int | None
    unsigned: bool = False
    width: int = INDEX_BITS

    @classmethod
    def of(cls, loop: ir.Operation, constants=constant_int) -> LoopBounds:
        """`constants` maps a value to its constant integer or None (pass an
        `ir_utils.ConstantInts` to share the work across loops)."""
        operands = loop.operands
        lb, ub, step = operands[0], operands[1], operands[2]
        unsigned = UNSIGNED in loop.attributes
        width = type_width(lb.type)

        def read(value: ir.Value) -> int | None:
            c = constants(value)
            return None if c is None else read_int(c, width, unsigned)

        return cls(lb, ub, step, read(lb), read(ub), read(step), unsigned, width)

    @property
    def type_min(self) -> int:
        return 0 if self.unsigned else -(1 << (self.width - 1))

    @property
    def type_max(self) -> int:
        return (1 << self.width) - 1 if self.unsigned else (1 << (self.width - 1)) - 1

    @property
    def described(self) -> str:
        """'a signed i8 loop', 'an unsigned index loop'."""
        kind = "an unsigned" if self.unsigned else "a signed"
        return f"{kind} {self.lower.type} loop"

    @property
    def trip_count(self) -> int | None:
        """The number of iterations when the bounds and step are constants
        (and the step valid), else None."""
        if None in (self.lower_const, self.upper_const, self.step_const) or self.step_problem is not None:
            return None
        return count_trips(self.lower_const, self.upper_const, self.step_const)

    @property
    def max_trip_count(self) -> int:
        """The most iterations the loop can run, whatever values its dynamic
        bounds and step hold (a dynamic step is at least 1)."""
        lower = self.lower_const if self.lower_const is not None else self.type_min
        upper = self.upper_const if self.upper_const is not None else self.type_max
        step = self.step_const if self.step_const is not None and self.step_problem is None else 1
        return count_trips(lower, upper, step)

    @property
    def step_problem(self) -> str | None:
        """Why the loop cannot be rewritten for its step (a constant step
        that is zero, or not positive in a signed loop: the loop never ends,
        or its semantics are undefined), or None."""
        s = self.step_const
        if s is not None and s <= 0:
            return f"its step is {s}; scf.for steps must be positive"
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


def constant(value: int, type_: ir.Type) -> ir.Value:
    """An `arith.constant` of `value` (wrapped to the type's width) at the
    current insertion point."""
    width = type_width(type_)
    attr = ir.IntegerAttr.get(type_, read_int(value, width, False))
    return ir.Operation.create("arith.constant", results=[type_], attributes={"value": attr}).result


def binary(name: str, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
    # Operation.create is ~3x cheaper than the generated op builders, and the
    # passes emit these once per loop.
    return ir.Operation.create(name, results=[lhs.type], operands=[lhs, rhs]).result


def emit_span_and_trips(bounds: LoopBounds) -> tuple[ir.Value, ir.Value]:
    """At the current insertion point: the loop's upper bound raised to at
    least its lower bound (which changes no iteration) and its trip count,
    both in the induction variable's type. The trip count is exact read
    unsigned: a constant when the bounds are, else
    `arith.ceildivui(max(ub, lb) - lb, step)`."""
    t = bounds.lower.type
    trips = bounds.trip_count
    if trips is not None:
        return bounds.upper, constant(trips, t)
    upper = bounds.upper
    if not (bounds.lower_const is not None and bounds.lower_const == bounds.type_min):
        upper = binary("arith.maxui" if bounds.unsigned else "arith.maxsi", bounds.upper, bounds.lower)
    span = binary("arith.subi", upper, bounds.lower)
    if bounds.step_const == 1:
        return upper, span
    return upper, binary("arith.ceildivui", span, bounds.step)


def rebase_induction_var(loop: ir.Operation, lower: ir.Value, step: ir.Value, lower_zero: bool, step_one: bool) -> ir.Value:
    """Make the body of `loop` see `lower + iv * step` where it used its
    induction variable `iv` (the multiply dropped when `step_one`, the add
    when `lower_zero`), computed at the top of the body; returns that value.
    Wrapping arithmetic is exact: every value the body sees is an induction
    value of the loop before, which its type holds."""
    iv = induction_var(loop)
    body = loop.regions[0].blocks[0]
    users: list[ir.Operation] = []
    value = iv
    with ir.InsertionPoint.at_block_begin(body), unnamed(loop.location):
        if not step_one:
            value = binary("arith.muli", iv, step)
            users.append(value.owner.operation)
        if not lower_zero:
            shifted = binary("arith.addi", lower, value)
            if value is iv:
                users.append(shifted.owner.operation)
            value = shifted
    if value is not iv:
        iv.replace_all_uses_except(value, users)
    return value


def normalization_problem(bounds: LoopBounds) -> str | None:
    """Why `normalize_loop` would not be exact for this loop, or None.

    The normalized loop keeps the loop's signedness (ptoas, on LLVM 19, has
    no `scf.for unsigned`; an unsigned loop stays unsigned), so a signed
    loop must not run more iterations than a signed loop from 0 counts:
    2^(w-1) - 1. A 64-bit loop with dynamic bounds is taken as within that:
    more iterations than 2^63 - 1 could never all run."""
    if bounds.unsigned:
        return None
    limit = (1 << (bounds.width - 1)) - 1
    trips = bounds.trip_count
    if trips is not None:
        if trips <= limit:
            return None
        return f"it runs {_times(trips)}, more than {bounds.described} from 0 counts ({limit})"
    if bounds.width >= INDEX_BITS or bounds.max_trip_count <= limit:
        return None
    most = bounds.max_trip_count
    return f"with its dynamic bounds it may run up to {_times(most)}, more than {bounds.described} from 0 counts ({limit})"


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


def normalize_loop(loop: ir.Operation) -> None:
    """Rewrite `for %iv = lb to ub step s` in place to
    `for %k = 0 to trips step 1` (in the induction variable's type, with the
    loop's signedness), with `lb + k * s` in the body where %iv was used.
    The caller checks `normalization_problem` first."""
    bounds = LoopBounds.of(loop)
    iv_type = induction_var(loop).type
    with ir.InsertionPoint(loop), unnamed(loop.location):
        zero = constant(0, iv_type)
        one = constant(1, iv_type)
        _, trips = emit_span_and_trips(bounds)
    rebase_induction_var(loop, bounds.lower, bounds.step, bounds.lower_const == 0, bounds.step_const == 1)
    loop.operands[0] = zero
    loop.operands[1] = trips
    loop.operands[2] = one


def _count_attr(type_: ir.Type, slots: int) -> ir.Attribute:
    return ir.IntegerAttr.get(type_, slots)


def build_slot_index(
    loop: ir.Operation,
    slots: int,
    bounds: LoopBounds,
    count_attr: Callable[[ir.Type, int], ir.Attribute] = _count_attr,
) -> ir.Value:
    """Emit the `index` slot of the current iteration at the current
    insertion point (inside the loop body, before any use) and return it.
    The arithmetic is in the induction variable's type; `count_attr(type, N)`
    gives the attribute of the constant N (a caller may cache them). A type
    too narrow to hold N has fewer than N iterations: k is then its own slot."""
    iv = induction_var(loop)
    t = iv.type
    count = None
    if slots <= (1 << bounds.width) - 1:
        count = ir.Operation.create("arith.constant", results=[t], attributes={"value": count_attr(t, slots)}).result
    k = iv
    if not bounds.is_ptoas_canonical:
        if bounds.lower_const != 0:
            k = binary("arith.subi", k, bounds.lower)
        if bounds.step_const != 1:
            k = binary("arith.divui", k, bounds.step)
    slot = binary("arith.remui", k, count) if count is not None else k
    if not isinstance(t, ir.IndexType):
        slot = ir.Operation.create("arith.index_castui", results=[ir.IndexType.get()], operands=[slot]).result
    if isinstance(slot, ir.OpResult):  # named after the induction variable: `%i_slot`
        slot.owner.location = derived(iv.location, "_slot", at=slot.owner.location)
    return slot
