"""Property test of the slot index convert-to-ptoas-multi-buffer emits.

For random loops (constant or dynamic lb/ub/step, any N, with and without
normalize-loops) we run the pass, then evaluate the emitted slot computation
for every iteration with a tiny evaluator of the arith ops involved (written
here, independent of the pass) and check: every slot is in [0, N), and any N
consecutive iterations use N distinct slots. With normalization we also check
that the body still sees the original induction values lb + k * step.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from mlir import ir

import pto_dialect
from pto_dialect.types import multi_tile_type

TILE = "!pto.tile_buf<vec, 8x16xf32>"
PART = "!pto.partition_tensor_view<8x16xf32>"


def kernel(lb: int, ub: int, step: int, n: int, dynamic: bool) -> str:
    """A pipeline loop over the rows of a GM tensor: row iv is the block the
    iteration loads and stores (its partition_view's first offset)."""
    if dynamic:
        header = "func.func @k(%src: !pto.ptr<f32>, %lb: index, %ub: index, %step: index) {"
        consts = ""
    else:
        header = "func.func @k(%src: !pto.ptr<f32>) {"
        consts = (
            f"  %lb = arith.constant {lb} : index\n"
            f"  %ub = arith.constant {ub} : index\n"
            f"  %step = arith.constant {step} : index\n"
        )
    return f"""{header}
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %rows = arith.constant 1024 : index
  %view = pto.make_tensor_view %src, shape = [%rows, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
{consts}  scf.for %i = %lb to %ub step %step {{
    %t = pto.alloc_tile : {TILE}
    %block = pto.partition_view %view, offsets = [%i, %c0], sizes = [%c8, %c16] : !pto.tensor_view<?x?xf32> -> {PART}
    pto.tload ins(%block : {PART}) outs(%t : {TILE})
    pto.tstore ins(%t : {TILE}) outs(%block : {PART})
  }} {{pto.pipeline_stages = {n} : i64}}
  return
}}"""


_BINARY = {
    "arith.addi": lambda a, b: a + b,
    "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b,
    "arith.maxsi": max,
    "arith.ceildivsi": lambda a, b: -(-a // b),
}
_UNSIGNED = {
    "arith.divui": lambda a, b: a // b,
    "arith.remui": lambda a, b: a % b,
}
MASK = (1 << 64) - 1


def evaluate(value: ir.Value, env: dict) -> int:
    """Value of an index computation (constants, args bound in `env`)."""
    if value in env:
        return env[value]
    op = value.owner
    name = op.name
    if name == "arith.constant":
        return op.attributes["value"].value
    a, b = (evaluate(v, env) for v in op.operands)
    if name in _UNSIGNED:
        # index is 64-bit: unsigned ops see two's complement bit patterns
        return _UNSIGNED[name](a & MASK, b & MASK)
    return _BINARY[name](a, b)


def run(lb: int, ub: int, step: int, n: int, dynamic: bool, normalize: bool):
    with ir.Context() as ctx:
        pto_dialect.load_dialect(ctx)
        ctx.attach_diagnostic_handler(lambda d: True)  # remarks are not the point here
        module = pto_dialect.parse(kernel(lb, ub, step, n, dynamic))
        option = "true" if normalize else "false"
        pto_dialect.run_passes(module, f"convert-to-ptoas-multi-buffer{{normalize-loops={option}}}")
        func = module.body.operations[0]
        entry = func.regions[0].blocks[0]
        env = {}
        if dynamic:
            env = {entry.arguments[1]: lb, entry.arguments[2]: ub, entry.arguments[3]: step}
        loop = next(op for op in entry.operations if op.name == "scf.for")
        body = loop.regions[0].blocks[0]
        iv = body.arguments[0]
        get = next(op for op in body.operations if op.name == "pto.multi_tile_get")
        slot_value = get.operands[1]
        block = next(op for op in body.operations if op.name == "pto.partition_view")
        row_value = block.operands[1]  # offsets = [row, 0]
        assert multi_tile_type(get.operands[0].type).count == n
        lo, hi, st_ = (evaluate(v, env) for v in list(loop.operands)[:3])
        remui = slot_value.owner
        ptoas_form = remui.name == "arith.remui" and remui.operands[0] == iv
        slots, rows = [], []
        k = lo
        while k < hi:
            env[iv] = k
            slots.append(evaluate(slot_value, env))
            rows.append(evaluate(row_value, env))
            k += st_
        return slots, rows, (lo, st_), ptoas_form


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
    slots, rows, (new_lb, new_step), ptoas_form = run(lb, ub, step, n, dynamic, normalize)
    expected_rows = list(range(lb, ub, step))
    assert rows == expected_rows, "the body must still see the original induction values"
    assert all(0 <= s < n for s in slots), slots
    for start in range(0, max(0, len(slots) - n + 1)):
        window = slots[start : start + n]
        assert len(set(window)) == n, f"iterations {start}..{start + n - 1} share a slot: {window}"
    canonical = not dynamic and step == 1 and lb >= 0
    if normalize and not canonical:
        assert (new_lb, new_step) == (0, 1)
    # exactly `arith.remui %iv, %cN` whenever the loop is (or was made) canonical
    assert ptoas_form == (canonical or normalize)


def test_step_two_does_not_collapse_to_one_slot():
    # The reference implementation's bug: iv % 2 on a step-2 loop is always 0.
    slots, _, _, _ = run(0, 16, 2, 2, dynamic=False, normalize=False)
    assert slots == [0, 1] * 4
