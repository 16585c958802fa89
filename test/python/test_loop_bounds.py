"""Loops as MLIR defines them (docs/passes.md; pto_dialect/analysis/loop_index.py):
signed and `unsigned` scf.for, with an `index` or integer induction
variable, through every place that reads their bounds.

The reference is pto-run, which executes a loop as the scf.for documentation
says (iterations lb, lb + step, ... while iv < ub, compared with the loop's
signedness). For random loops whose bounds sit at the edges of their type
(across its signed limit, at its top, ub below lb, steps whose multiples do
not fit), each check runs a kernel before and after a pass and compares what
it stores and returns, bit for bit.
"""

from __future__ import annotations

from conftest import parse_kernel
from hypothesis import given, settings
from hypothesis import strategies as st
from mlir import ir

from pto_dialect.analysis.loop_index import LoopBounds, count_trips, iteration_values, read_int
from pto_dialect.testing.differential import SAME, check_kernel

WIDTHS = {"index": 64, "i64": 64, "i32": 32, "i16": 16, "i8": 8}
TILE = "!pto.tile_buf<vec, 8x16xi32>"
PART = "!pto.partition_tensor_view<8x16xi32>"
MAX_TRIPS = 40


def loop_kernel(type_: str, unsigned: bool, lb: int, ub: int, step: int, stages: int, dynamic: str = "") -> tuple[str, dict[str, int]]:
    """A pipeline loop whose every iteration loads a tile, stores it at a row
    that depends on the induction value (so the order and the values of the
    iterations show in memory) and folds the induction value into a hash it
    returns with the iteration count. `dynamic` names the bounds ("lb",
    "ub", "step") given as function arguments."""
    width = WIDTHS[type_]
    params, consts, values = [], [], {}
    for name, v in (("lb", lb), ("ub", ub), ("step", step)):
        v = read_int(v, width, False)
        if name in dynamic:
            params.append(f"%{name}: {type_}")
            values[name] = v
        else:
            consts.append(f"    %{name} = arith.constant {v} : {type_}")
    cast = "arith.index_castui" if unsigned else "arith.index_cast"
    iv_index = "%i" if type_ == "index" else "%ix"
    to_index = "" if type_ == "index" else f"      %ix = {cast} %i : {type_} to index\n"
    keyword = "unsigned " if unsigned else ""
    suffix = "" if type_ == "index" else f" : {type_}"
    text = f"""module {{
  func.func @k(%src: !pto.ptr<i32>, %dst: !pto.ptr<i32>{"".join(", " + p for p in params)}) -> (i64, i64) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %z = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %mul = arith.constant 1000003 : i64
    %sv = pto.make_tensor_view %src, shape = [%c32, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xi32>
    %dv = pto.make_tensor_view %dst, shape = [%c32, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xi32>
{chr(10).join(consts)}
    %n, %h = scf.for {keyword}%i = %lb to %ub step %step iter_args(%cn = %z, %ch = %one) -> (i64, i64){suffix} {{
{to_index}      %t = pto.alloc_tile : {TILE}
      %blk = arith.remui {iv_index}, %c4 : index
      %r = arith.muli %blk, %c8 : index
      %p = pto.partition_view %sv, offsets = [%r, %c0], sizes = [%c8, %c16] : !pto.tensor_view<?x?xi32> -> {PART}
      %q = pto.partition_view %dv, offsets = [%r, %c0], sizes = [%c8, %c16] : !pto.tensor_view<?x?xi32> -> {PART}
      pto.tload ins(%p : {PART}) outs(%t : {TILE})
      pto.tadds ins(%t, %cn : {TILE}, i64) outs(%t : {TILE})
      pto.tstore ins(%t : {TILE}) outs(%q : {PART})
      %iv64 = arith.index_cast {iv_index} : index to i64
      %hm = arith.muli %ch, %mul : i64
      %h2 = arith.addi %hm, %iv64 : i64
      %n2 = arith.addi %cn, %one : i64
      scf.yield %n2, %h2 : i64, i64
    }} {{pto.pipeline_stages = {stages} : i64}}
    return %n, %h : i64, i64
  }}
}}
"""
    return text, values


def signed_span(width: int) -> tuple[int, int]:
    return -(1 << (width - 1)), (1 << (width - 1)) - 1


@st.composite
def loops(draw):
    """(type, unsigned, lb, ub, step): bounds read as the loop compares them,
    at most MAX_TRIPS iterations, drawn where signedness and width matter."""
    type_ = draw(st.sampled_from(sorted(WIDTHS)))
    unsigned = draw(st.booleans())
    width = WIDTHS[type_]
    bottom, top = (0, (1 << width) - 1) if unsigned else signed_span(width)
    step = draw(
        st.sampled_from([1, 1, 2, 3, 5, top // 2, top // 3 + 1, top // 5 + 7])  # the large ones: N * step does not fit
    )
    step = max(1, min(step, top))
    trips = draw(st.integers(0, MAX_TRIPS))
    if step > 1:
        trips = min(trips, (top - bottom) // step)
    span = trips * step
    where = draw(st.sampled_from(["zero", "low", "signed_limit", "top", "bottom"]))
    start = {
        "zero": 0,
        "low": 3,
        "signed_limit": (1 << (width - 1)) - span // 2 if unsigned else -(span // 2),
        "top": top - span,
        "bottom": bottom,
    }[where]
    lb = min(max(start, bottom), top - span)
    ub = lb + span - (draw(st.integers(0, step - 1)) if trips else 0)
    if trips == 0 and draw(st.booleans()):
        # no iteration, but many if the bounds were read with the other sign
        lb, ub = (top, 1) if unsigned else (1, bottom)
    return type_, unsigned, lb, ub, step


def outcomes(type_, unsigned, lb, ub, step, stages, dynamic, pipelines):
    text, values = loop_kernel(type_, unsigned, lb, ub, step, stages, dynamic)
    check = check_kernel(text, "k", values, pipelines)
    assert check.reference_error is None, check.reference_error
    return text, check


@settings(max_examples=150, deadline=None)
@given(
    loop=loops(),
    stages=st.integers(2, 5),
    dynamic=st.sampled_from(["", "ub", "lb ub", "lb ub step", "step"]),
)
def test_replication_runs_every_iteration_once(loop, stages, dynamic):
    """pto-lower-pipeline-loops: the main loop and its remainder run exactly
    the iterations the loop ran, in order, whatever the type, signedness and
    bounds (issue 21: an unsigned loop with dynamic bounds had them clamped
    with maxsi, and iterations were dropped)."""
    text, check = outcomes(*loop, stages, dynamic, ["pto-lower-pipeline-loops", "pto-pipeline{use-ptoas-multi-buffer=false}"])
    for o in check.outcomes:
        assert o.status == SAME, f"{o.pipeline}: {o.message}\n{text}"


@settings(max_examples=120, deadline=None)
@given(
    loop=loops(),
    stages=st.integers(2, 4),
    dynamic=st.sampled_from(["", "ub", "lb ub", "lb ub step"]),
)
def test_conversion_and_normalization_keep_every_iteration(loop, stages, dynamic):
    """convert-to-ptoas-multi-buffer, with and without normalize-loops: the
    slot arithmetic is in the induction variable's type, and the normalized
    loop runs the same iterations."""
    pipelines = ["convert-to-ptoas-multi-buffer", "convert-to-ptoas-multi-buffer{normalize-loops=true}", "pto-pipeline{use-ptoas-multi-buffer=true}"]
    text, check = outcomes(*loop, stages, dynamic, pipelines)
    for o in check.outcomes:
        assert o.status == SAME, f"{o.pipeline}: {o.message}\n{text}"


@settings(max_examples=150, deadline=None)
@given(loop=loops())
def test_trip_count_is_what_the_loop_runs(loop):
    """LoopBounds.trip_count (what loop_carried trusts for a nested loop's
    writes, and replication for its remainder) is the number of iterations
    pto-run executes."""
    from pto_dialect.interpreter import execute

    type_, unsigned, lb, ub, step = loop
    text, _ = loop_kernel(type_, unsigned, lb, ub, step, 2)
    module = parse_kernel(text)
    with module.context:
        found = []
        module.operation.walk(lambda op: found.append(op) or ir.WalkResult.ADVANCE)
        bounds = LoopBounds.of(next(op for op in found if op.name == "scf.for"))
        ran = execute(module.operation, "k", source_text=text).scalars[0].value
    assert bounds.trip_count == ran
    assert bounds.trip_count == len(iteration_values(lb, ub, step, WIDTHS[type_], unsigned))


def test_trip_counts_read_the_bounds_as_the_loop_compares_them():
    # scf.for unsigned from -1 to 1: -1 is the type's largest value
    assert LoopBounds(*[None] * 3, 255, 1, 1, unsigned=True, width=8).trip_count == 0
    assert LoopBounds(*[None] * 3, -1, 1, 1, unsigned=False, width=8).trip_count == 2
    # from 1 to -1 unsigned: 254 iterations in i8; none signed
    assert LoopBounds(*[None] * 3, 1, 255, 1, unsigned=True, width=8).trip_count == 254
    assert LoopBounds(*[None] * 3, 1, -1, 1, unsigned=False, width=8).trip_count == 0
    # ub - lb beyond the signed range of the type
    assert LoopBounds(*[None] * 3, -128, 127, 100, unsigned=False, width=8).trip_count == 3
    # an unsigned loop's step is read unsigned: i8 -1 is 255
    assert LoopBounds(*[None] * 3, 0, 255, 255, unsigned=True, width=8).step_problem is None
    assert LoopBounds(*[None] * 3, 0, 10, 0, unsigned=True, width=8).step_problem is not None
    assert count_trips(5, 5, 1) == 0 and count_trips(0, 7, 3) == 3


def test_the_static_schedule_reads_loops_as_they_run():
    """slots=model's static pipe schedule (pto_dialect/timing/static_schedule.py):
    the pipeline loop's trip count and a nested loop's iterations read the
    bounds as the loops compare them (a nested `scf.for unsigned` from -1 to
    1 runs no texp; one from 120 to 130 in i8 runs 10)."""
    from pto_dialect.timing.static_schedule import loop_schedule

    def schedule(inner: str):
        text = f"""func.func @f(%src: !pto.ptr<f32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %lb = arith.constant -6 : i8
  %ub = arith.constant -2 : i8
  %s = arith.constant 1 : i8
  %m1 = arith.constant -1 : i32
  %p1 = arith.constant 1 : i32
  %lo = arith.constant 120 : i8
  %hi = arith.constant -126 : i8
  %v = pto.make_tensor_view %src, shape = [%c64, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
  scf.for unsigned %i = %lb to %ub step %s : i8 {{
    %t = pto.alloc_tile : !pto.tile_buf<vec, 16x64xf32>
    %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c16, %c64] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x64xf32>
    pto.tload ins(%p : !pto.partition_tensor_view<16x64xf32>) outs(%t : !pto.tile_buf<vec, 16x64xf32>)
    {inner} {{
      pto.texp ins(%t : !pto.tile_buf<vec, 16x64xf32>) outs(%t : !pto.tile_buf<vec, 16x64xf32>)
    }}
    pto.tstore ins(%t : !pto.tile_buf<vec, 16x64xf32>) outs(%p : !pto.partition_tensor_view<16x64xf32>)
  }} {{pto.pipeline_stages = 2 : i64}}
  return
}}"""
        module = parse_kernel(text)
        with module.context:
            found = []
            module.operation.walk(lambda op: found.append(op) or ir.WalkResult.ADVANCE, ir.WalkOrder.PRE_ORDER)
            return loop_schedule(next(op for op in found if op.name == "scf.for"), source_text=text)

    none = schedule("scf.for unsigned %j = %m1 to %p1 step %p1 : i32")
    assert none.trip_count == 4  # 250, 251, 252, 253
    assert none.per_pipe_ops["V"] == 0
    ten = schedule("scf.for unsigned %j = %lo to %hi step %s : i8")
    assert ten.per_pipe_ops["V"] == 10


def test_an_i1_loop_reads_true_with_its_signedness(context):
    """i1 `true` is 1 to an unsigned loop and -1 to a signed one (MLIR's
    cmpi slt on i1): `scf.for unsigned` from false to true by true runs once;
    a signed loop by true has step -1, which pto-run refuses and the passes
    decline (pto-run held i1 as 0 or 1 and ran the signed loop as unsigned)."""
    from pto_dialect.interpreter import InterpreterError, execute

    def kernel(keyword: str) -> str:
        return f"""func.func @f() -> i64 {{
  %f = arith.constant false
  %t = arith.constant true
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %n = scf.for {keyword}%i = %f to %t step %t iter_args(%c = %z) -> (i64) : i1 {{
    %d = arith.addi %c, %one : i64
    scf.yield %d : i64
  }} {{pto.pipeline_stages = 2 : i64}}
  return %n : i64
}}"""

    module = parse_kernel(kernel("unsigned "), context=context)
    found = []
    module.operation.walk(lambda op: found.append(op) or ir.WalkResult.ADVANCE)
    assert LoopBounds.of(next(op for op in found if op.name == "scf.for")).trip_count == 1
    assert execute(module.operation, "f").scalars[0].value == 1
    signed = parse_kernel(kernel(""), context=context)
    found = []
    signed.operation.walk(lambda op: found.append(op) or ir.WalkResult.ADVANCE)
    assert LoopBounds.of(next(op for op in found if op.name == "scf.for")).step_problem == "its step is -1; scf.for steps must be positive"
    try:
        execute(signed.operation, "f")
    except InterpreterError as e:
        assert "step must be positive, got -1" in e.message
    else:
        raise AssertionError("a signed i1 loop by true ran")
