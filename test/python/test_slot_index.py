"""Property test of the slot index convert-to-ptoas-multi-buffer emits.

For random loops (constant or dynamic lb/ub/step, any N, with and without
normalize-loops; signed and `unsigned`, with an `index` or integer induction
variable, bounds near the type's limits and across its signed boundary) we
run the pass, then evaluate the emitted slot computation for every iteration
with a tiny evaluator of the arith ops involved (written here, independent of
the pass, in the width of each value) and check: every slot is in [0, N), and
any N consecutive iterations use N distinct slots. With normalization we also
check that the body still sees the original induction values lb + k * step.
"""

from __future__ import annotations

from conftest import parse_kernel
from hypothesis import given, settings
from hypothesis import strategies as st
from mlir import ir

import pto_dialect
from pto_dialect.dialect.types import multi_tile_type

TILE = "!pto.tile_buf<vec, 8x16xf32>"
PART = "!pto.partition_tensor_view<8x16xf32>"
WIDTHS = {"index": 64, "i64": 64, "i32": 32, "i16": 16, "i8": 8}


def signed(value: int, width: int) -> int:
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


def kernel(lb: int, ub: int, step: int, n: int, dynamic: bool, type_: str = "index", unsigned: bool = False) -> str:
    """A pipeline loop over the rows of a GM tensor: row iv is the block the
    iteration loads and stores (its partition_view's first offset, the
    induction variable cast to index as the loop reads it)."""
    width = WIDTHS[type_]
    if dynamic:
        header = f"func.func @k(%src: !pto.ptr<f32>, %lb: {type_}, %ub: {type_}, %step: {type_}) {{"
        consts = ""
    else:
        header = "func.func @k(%src: !pto.ptr<f32>) {"
        consts = "".join(f"  %{name} = arith.constant {signed(v, width)} : {type_}\n" for name, v in (("lb", lb), ("ub", ub), ("step", step)))
    row = "%i"
    cast = ""
    if type_ != "index":
        cast = f"    %row = arith.index_cast{'ui' if unsigned else ''} %i : {type_} to index\n"
        row = "%row"
    keyword = "unsigned " if unsigned else ""
    suffix = f" : {type_}" if type_ != "index" else ""
    return f"""{header}
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %rows = arith.constant 1024 : index
  %view = pto.make_tensor_view %src, shape = [%rows, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
{consts}  scf.for {keyword}%i = %lb to %ub step %step{suffix} {{
    %t = pto.alloc_tile : {TILE}
{cast}    %block = pto.partition_view %view, offsets = [{row}, %c0], sizes = [%c8, %c16] : !pto.tensor_view<?x?xf32> -> {PART}
    pto.tload ins(%block : {PART}) outs(%t : {TILE})
    pto.tstore ins(%t : {TILE}) outs(%block : {PART})
  }} {{pto.pipeline_stages = {n} : i64}}
  return
}}"""


def width_of(value: ir.Value) -> int:
    t = value.type
    return 64 if isinstance(t, ir.IndexType) else ir.IntegerType(t).width


_BINARY = {
    # (a, b, width) -> result, operands and result as unsigned bit patterns
    "arith.addi": lambda a, b, w: a + b,
    "arith.subi": lambda a, b, w: a - b,
    "arith.muli": lambda a, b, w: a * b,
    "arith.maxsi": lambda a, b, w: a if signed(a, w) >= signed(b, w) else b,
    "arith.maxui": lambda a, b, w: max(a, b),
    "arith.divui": lambda a, b, w: a // b,
    "arith.remui": lambda a, b, w: a % b,
    "arith.ceildivui": lambda a, b, w: -(-a // b),
}


def evaluate(value: ir.Value, env: dict) -> int:
    """Value of an integer computation (constants, args bound in `env`), as
    the unsigned bit pattern of its width."""
    w = width_of(value)
    mask = (1 << w) - 1
    if value in env:
        return env[value] & mask
    op = value.owner
    name = op.name
    if name == "arith.constant":
        return op.attributes["value"].value & mask
    if name in ("arith.index_cast", "arith.index_castui"):
        (source,) = op.operands
        x = evaluate(source, env)
        return (signed(x, width_of(source)) if name == "arith.index_cast" else x) & mask
    a, b = (evaluate(v, env) for v in op.operands)
    return _BINARY[name](a, b, w) & mask


def run(lb, ub, step, n, dynamic, normalize, type_="index", unsigned=False):
    width = WIDTHS[type_]
    module = parse_kernel(kernel(lb, ub, step, n, dynamic, type_, unsigned), quiet=True)  # remarks are not the point here
    with module.context:
        option = "true" if normalize else "false"
        pto_dialect.run_passes(module, f"convert-to-ptoas-multi-buffer{{normalize-loops={option}}}")
        func = module.body.operations[0]
        entry = func.regions[0].blocks[0]
        env = {}
        if dynamic:
            env = {entry.arguments[1]: lb, entry.arguments[2]: ub, entry.arguments[3]: step}
        loop = next(op for op in entry.operations if op.name == "scf.for")
        assert ("unsignedCmp" in loop.attributes) == unsigned, "the loop keeps its signedness"
        body = loop.regions[0].blocks[0]
        iv = body.arguments[0]
        assert str(iv.type) == type_, "the loop keeps its induction variable's type"
        get = next(op for op in body.operations if op.name == "pto.multi_tile_get")
        slot_value = get.operands[1]
        block = next(op for op in body.operations if op.name == "pto.partition_view")
        row_value = block.operands[1]  # offsets = [row, 0]
        assert multi_tile_type(get.operands[0].type).count == n
        read = (lambda x: x) if unsigned else (lambda x: signed(x, width))
        lo, hi, st_ = (read(evaluate(v, env)) for v in list(loop.operands)[:3])
        slot_op = slot_value.owner
        if slot_op.name == "arith.index_castui":
            slot_op = slot_op.operands[0].owner
        ptoas_form = slot_op.name == "arith.remui" and slot_op.operands[0] == iv
        slots, rows = [], []
        k = lo
        while k < hi:
            env[iv] = k
            slots.append(evaluate(slot_value, env))
            rows.append(evaluate(row_value, env))
            k += st_
        return slots, rows, (lo, st_), ptoas_form


def check(lb, ub, step, n, dynamic, normalize, type_="index", unsigned=False):
    width = WIDTHS[type_]
    read = (lambda x: x & ((1 << width) - 1)) if unsigned else (lambda x: signed(x, width))
    slots, rows, (new_lb, new_step), ptoas_form = run(lb, ub, step, n, dynamic, normalize, type_, unsigned)
    expected_rows = [v & ((1 << 64) - 1) for v in range(read(lb), read(ub), read(step))]
    assert rows == expected_rows, "the body must still see the original induction values"
    assert all(0 <= s < n for s in slots), slots
    for start in range(0, max(0, len(slots) - n + 1)):
        window = slots[start : start + n]
        assert len(set(window)) == n, f"iterations {start}..{start + n - 1} share a slot: {window}"
    canonical = not dynamic and read(step) == 1 and read(lb) >= 0
    # a signed loop narrower than 64 bits with dynamic bounds is not
    # normalized: it may run more times than a signed loop from 0 counts
    normalizable = unsigned or not dynamic or width == 64
    normalized = normalize and not canonical and normalizable
    if normalized:
        assert (new_lb, new_step) == (0, 1)
    # exactly `arith.remui %iv, %cN` whenever the loop is (or was made) canonical
    assert ptoas_form == (canonical or normalized)


@settings(max_examples=120, deadline=None)
@given(
    lb=st.integers(-20, 40),
    trips=st.integers(0, 40),
    step=st.integers(1, 9),
    n=st.integers(2, 16),
    dynamic=st.booleans(),
    normalize=st.booleans(),
)
def test_slots_rotate_through_all_n(lb, trips, step, n, dynamic, normalize):
    ub = lb + trips * step - (step - 1 if trips and step > 1 else 0)  # not always a multiple
    check(lb, ub, step, n, dynamic, normalize)


@st.composite
def integer_loops(draw):
    """Bounds in the type's own range, read as the loop compares them: near 0,
    just below the signed limit (so that a signed reading of an unsigned
    loop's bounds would see them negative, or ub below lb), near the top,
    and zero-trip loops whose bounds look like trips when read the other way."""
    type_ = draw(st.sampled_from(sorted(WIDTHS)))
    unsigned = draw(st.booleans())
    width = WIDTHS[type_]
    top = (1 << width) - 1 if unsigned else (1 << (width - 1)) - 1
    bottom = 0 if unsigned else -(1 << (width - 1))
    step = draw(st.integers(1, 9))
    trips = draw(st.integers(0, 24))
    span = trips * step
    start = draw(
        st.sampled_from(
            [
                bottom,
                0,
                3,
                (1 << (width - 1)) - span // 2 - 1 if unsigned else -span // 2,  # across the signed limit / across 0
                top - span,  # ends at the top of the type
            ]
        )
    )
    lb = min(max(start, bottom), top - span)
    ub = lb + span - draw(st.integers(0, step - 1 if trips else 0))
    if trips == 0 and draw(st.booleans()):
        lb, ub = (top, 1) if unsigned else (top, bottom)  # would be many trips read with the other sign
    return type_, unsigned, lb, ub, step


@settings(max_examples=200, deadline=None)
@given(loop=integer_loops(), n=st.integers(2, 16), dynamic=st.booleans(), normalize=st.booleans())
def test_slots_of_integer_and_unsigned_loops(loop, n, dynamic, normalize):
    type_, unsigned, lb, ub, step = loop
    check(lb, ub, step, n, dynamic, normalize, type_, unsigned)


def test_step_two_does_not_collapse_to_one_slot():
    # The reference implementation's bug: iv % 2 on a step-2 loop is always 0.
    slots, _, _, _ = run(0, 16, 2, 2, dynamic=False, normalize=False)
    assert slots == [0, 1] * 4


def test_an_i32_induction_variable_gets_its_slot_in_i32():
    # Issue 21: the count was an `index` constant, and `arith.remui` of an
    # i32 by an index was invalid IR, reported at the user's loop.
    module = parse_kernel(kernel(0, 8, 1, 2, False, "i32"))
    with module.context:
        pto_dialect.run_passes(module, "convert-to-ptoas-multi-buffer")
        text = pto_dialect.print_module(module)
    assert "= arith.remui %i, %c2_i32 : i32" in text
    assert "%i_slot = arith.index_castui" in text
