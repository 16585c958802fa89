"""The static pipe schedule of a loop body (pto_dialect.timing.static_schedule)
against `pto-run --cycles`: the schedule of the interpreter's trace.

Two comparisons: (1) the events the static model builds from the IR are the
trace's events of the loop (same ops, pipes, durations and byte ranges up to
the naming of buffers), so scheduling them gives the very same starts and
ends; (2) its steady-state cycles per iteration match the per-iteration
cycles of the run's schedule (after the first half of the iterations, the
transient) within 5%, on examples/*.pto before and after the passes and on
handwritten kernels.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import parse_kernel
from mlir import ir
from timing_support import a2a3_duration

from pto_dialect.driver.pass_pipeline import PipelineRun, build_pass_manager
from pto_dialect.interpreter import execute
from pto_dialect.timing import cost_table, schedule
from pto_dialect.timing.static_schedule import (
    GM_BIAS,
    StaticScheduleError,
    loop_schedule,
    measured_cycles_per_iteration,
    measured_iteration_ends,
    scf_loops,
    trace_iterations,
)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.pto"))
MB = "convert-to-ptoas-multi-buffer"
PIPELINES = [None, MB, f"{MB},pto-allocate-memory-addr", "pto-allocate-memory-addr"]

T = "!pto.tile_buf<vec, 16x64xf32>"  # 4096 bytes
TV = "!pto.tensor_view<?x?xf32>"
PV = "!pto.partition_tensor_view<16x64xf32>"


def _top_loop(module) -> ir.Operation:
    for loop in scf_loops(module.operation):
        if loop.parent.operation.name == "func.func":
            return loop
    raise AssertionError("no top-level scf.for")


def _function(module) -> str:
    funcs = [f for f in module.body.operations if f.operation.name == "func.func"]
    return funcs[0].attributes["sym_name"].value



def compare(text: str, pipeline: str | None = None, values=None, static_values=None):
    """(static schedule of the top-level loop, the run's schedule, its
    trace, the loop's trace events) for `text` after `pipeline`."""
    module = parse_kernel(text, quiet=True)  # the passes' remarks
    with module.context:
        if pipeline:
            build_pass_manager(pipeline, PipelineRun(), module.context).run(module.operation)
        run = execute(module.operation, _function(module), source_text=text, values=values, trace=True)
        run_schedule = schedule(run.trace, cost_table(run.arch))
        loop = _top_loop(module)
        static = loop_schedule(loop, values=static_values, source_text=text)
        ends = measured_iteration_ends(run_schedule, loop)
        tags = trace_iterations(run.trace, loop)
        loop_events = [e for e, k in zip(run.trace, tags) if k is not None]
        exact = loop_schedule(loop, iterations=static.trip_count, values=static_values, source_text=text) if static.trip_count else None
    return static, exact, run_schedule, ends, loop_events


def _relative_error(static, ends) -> float:
    measured = measured_cycles_per_iteration(ends)
    return abs(static.cycles_per_iteration - measured) / measured


# --- (1) the same events as the interpreter's trace ------------------------------------------


def _same_events(static_events, trace_events) -> None:
    """Equal up to the names of buffers (a bijection) and the bias of
    global-memory offsets."""
    table = cost_table("a2a3")
    assert len(static_events) == len(trace_events)
    names: dict[str, str] = {}
    for s, d in zip(static_events, trace_events):
        assert (s.op, s.pipe, s.location, s.macs) == (d.op, d.pipe, d.location, d.macs)
        assert table.duration(s) == table.duration(d), s.op
        for mine, theirs in ((s.reads, d.reads), (s.writes, d.writes)):
            assert len(mine) == len(theirs), s.op
            for a, b in zip(mine, theirs):
                assert names.setdefault(a.buffer, b.buffer) == b.buffer, f"{s.op} at {s.location}: {a.buffer} is not {b.buffer}"
                shift = GM_BIAS if a.start >= GM_BIAS // 2 else 0
                assert (a.start - shift, a.stop - shift, a.rows, a.pitch, a.slot) == (b.start, b.stop, b.rows, b.pitch, b.slot)
    assert len(set(names.values())) == len(names), "two static buffers are one buffer of the run"


@pytest.mark.parametrize("pipeline", PIPELINES, ids=lambda p: p or "as-written")
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_the_events_of_every_example_loop_are_the_traces(path, pipeline):
    static, exact, _, _, loop_events = compare(path.read_text(), pipeline)
    assert exact is not None and exact.iterations == static.trip_count
    _same_events([e.event for e in exact.events], loop_events)
    # and so the same schedule as the loop's events alone
    table = cost_table("a2a3")
    assert [(o.start, o.end) for o in exact.schedule.ops] == [(o.start, o.end) for o in schedule(loop_events, table).ops]


# --- (2) cycles per iteration against --cycles ------------------------------------------------


@pytest.mark.parametrize("pipeline", [*PIPELINES, f"{MB}{{spaces=vec,mat,left,right}},pto-allocate-memory-addr"], ids=lambda p: p or "as-written")
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_cycles_per_iteration_match_the_run_within_5_percent(path, pipeline):
    static, _, _, ends, _ = compare(path.read_text(), pipeline)
    assert static.converged
    assert len(ends) >= 15
    assert _relative_error(static, ends) <= 0.05, (static.cycles_per_iteration, measured_cycles_per_iteration(ends))


def test_double_buffering_is_seen_without_running():
    """copy_scale: one buffer runs load, scale, store in turn; two slots
    let the loads run back to back (MTE2 is the bound)."""
    text = (ROOT / "examples" / "copy_scale.pto").read_text()
    single = compare(text)[0]
    double = compare(text, f"{MB},pto-allocate-memory-addr")[0]
    load, scale, store = a2a3_duration("pto.tload", src="gm"), a2a3_duration("pto.tmuls"), a2a3_duration("pto.tstore", dst="gm")
    assert store < load  # the store path is faster (arch_config's UB_TO_GM): MTE2 stays the bound
    assert single.per_pipe_busy["MTE2"] == load and single.per_pipe_busy["V"] == scale and single.per_pipe_busy["MTE3"] == store
    assert single.per_pipe_ops["MTE2"] == 1
    # one buffer: the next load waits for the scale (WAR on %in), the next scale for the store (WAR on %out)
    assert single.cycles_per_iteration == load + scale
    assert double.cycles_per_iteration == load == double.bound
    assert double.bound_pipe == "MTE2" and double.efficiency == 1.0


# --- handwritten kernels -----------------------------------------------------------------------


def _kernel(body: str, args: str = "", lb: str = "%c0", ub: str = "%c16", step: str = "%c1", stages: int = 2) -> str:
    return f"""
func.func @k(%A: !pto.ptr<f32>, %B: !pto.ptr<f32>{args}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %s = arith.constant 2.0 : f32
  %av = pto.make_tensor_view %A, shape = [%c1024, %c64], strides = [%c64, %c1] : {TV}
  %bv = pto.make_tensor_view %B, shape = [%c1024, %c64], strides = [%c64, %c1] : {TV}
  scf.for %i = {lb} to {ub} step {step} {{
{body}
  }} {{pto.pipeline_stages = {stages} : i64}}
  return
}}
"""


COPY_SCALE = f"""
    %a = pto.alloc_tile : {T}
    %b = pto.alloc_tile : {T}
    %row = arith.muli %i, %c16 : index
    %p = pto.partition_view %av, offsets = [%row, %c0], sizes = [%c16, %c64] : {TV} -> {PV}
    pto.tload ins(%p : {PV}) outs(%a : {T})
    pto.texp ins(%a : {T}) outs(%b : {T})
    %q = pto.partition_view %bv, offsets = [%row, %c0], sizes = [%c16, %c64] : {TV} -> {PV}
    pto.tstore ins(%b : {T}) outs(%q : {PV})
"""


def test_unknown_lower_bound_and_step_two_still_give_exact_slots():
    """lb is an argument: the slot `((iv - lb) / 2) mod 2` is known anyway
    (iv - lb = 2k), so no slot is guessed and the events are the run's."""
    text = _kernel(COPY_SCALE, args=", %lb: index", lb="%lb", ub="%c32", step="%c2")
    static, _, _, ends, _ = compare(text, f"{MB},pto-allocate-memory-addr", values={"lb": 4})
    assert not any("slot" in n for n in static.notes)
    assert static.trip_count is None  # ub - lb is not known
    assert _relative_error(static, ends) <= 0.05
    with_lb = compare(text, f"{MB},pto-allocate-memory-addr", values={"lb": 4}, static_values={"lb": 4})
    _same_events([e.event for e in with_lb[1].events], with_lb[4])


def test_unknown_gm_base_in_place_update():
    """The block is A[base + 16 i]: unknown base, but load and store of one
    iteration touch the same bytes and iterations distinct ones."""
    body = f"""
    %a = pto.alloc_tile : {T}
    %b = pto.alloc_tile : {T}
    %r = arith.muli %i, %c16 : index
    %row = arith.addi %base, %r : index
    %p = pto.partition_view %av, offsets = [%row, %c0], sizes = [%c16, %c64] : {TV} -> {PV}
    pto.tload ins(%p : {PV}) outs(%a : {T})
    pto.tmuls ins(%a, %s : {T}, f32) outs(%b : {T})
    %q = pto.partition_view %av, offsets = [%row, %c0], sizes = [%c16, %c64] : {TV} -> {PV}
    pto.tstore ins(%b : {T}) outs(%q : {PV})
"""
    text = _kernel(body, args=", %base: index")
    for pipeline in (None, f"{MB},pto-allocate-memory-addr"):
        static, _, _, ends, _ = compare(text, pipeline, values={"base": 48})
        assert _relative_error(static, ends) <= 0.05
        first = static.body(0)
        load, store = first[0], first[2]
        assert load.event.reads[0].buffer == store.event.writes[0].buffer  # one range: base + 16 i
        assert load.event.reads[0].start == store.event.writes[0].start


def test_a_loop_invariant_gm_block_carries_a_dependence_across_iterations():
    """Every iteration adds into the same GM block (at an unknown, loop-
    invariant row): the next load waits for the last store, also with two
    slots — the same expression is the same bytes."""
    body = f"""
    %a = pto.alloc_tile : {T}
    %b = pto.alloc_tile : {T}
    %p = pto.partition_view %av, offsets = [%base, %c0], sizes = [%c16, %c64] : {TV} -> {PV}
    pto.tload ins(%p : {PV}) outs(%a : {T})
    pto.tadds ins(%a, %s : {T}, f32) outs(%b : {T})
    pto.tstore ins(%b : {T}) outs(%p : {PV})
"""
    text = _kernel(body, args=", %base: index")
    load, add, store = a2a3_duration("pto.tload", src="gm"), a2a3_duration("pto.tadds"), a2a3_duration("pto.tstore", dst="gm")
    for pipeline in (None, f"{MB},pto-allocate-memory-addr"):
        static, _, _, ends, _ = compare(text, pipeline, values={"base": 16})
        assert static.cycles_per_iteration == load + add + store
        assert _relative_error(static, ends) <= 0.05


def test_offsets_with_different_unknown_parts_are_assumed_disjoint():
    """Load A[x], store A[y] with x, y unknown: no dependence is assumed
    (no false dependences); with both given equal, the true one is seen."""
    body = f"""
    %a = pto.alloc_tile : {T}
    %b = pto.alloc_tile : {T}
    %p = pto.partition_view %av, offsets = [%x, %c0], sizes = [%c16, %c64] : {TV} -> {PV}
    pto.tload ins(%p : {PV}) outs(%a : {T})
    pto.tadds ins(%a, %s : {T}, f32) outs(%b : {T})
    %q = pto.partition_view %av, offsets = [%y, %c0], sizes = [%c16, %c64] : {TV} -> {PV}
    pto.tstore ins(%b : {T}) outs(%q : {PV})
"""
    text = _kernel(body, args=", %x: index, %y: index")
    pipeline = f"{MB},pto-allocate-memory-addr"
    unknown = compare(text, pipeline, values={"x": 0, "y": 32})[0]
    aliased, _, _, ends, _ = compare(text, pipeline, values={"x": 16, "y": 16}, static_values={"x": 16, "y": 16})
    assert unknown.cycles_per_iteration == a2a3_duration("pto.tload", src="gm")  # MTE2-bound, as the run with x != y
    assert aliased.cycles_per_iteration > unknown.cycles_per_iteration
    assert _relative_error(aliased, ends) <= 0.05


def test_an_iteration_dependent_branch_is_resolved_and_gives_a_period():
    """Even iterations do two more exps: the steady state repeats every two
    iterations."""
    body = f"""
    %a = pto.alloc_tile : {T}
    %b = pto.alloc_tile : {T}
    %row = arith.muli %i, %c16 : index
    %p = pto.partition_view %av, offsets = [%row, %c0], sizes = [%c16, %c64] : {TV} -> {PV}
    pto.tload ins(%p : {PV}) outs(%a : {T})
    pto.texp ins(%a : {T}) outs(%b : {T})
    %parity = arith.remui %i, %c2 : index
    %even = arith.cmpi eq, %parity, %c0 : index
    scf.if %even {{
      pto.texp ins(%b : {T}) outs(%b : {T})
      pto.texp ins(%b : {T}) outs(%b : {T})
    }}
    %q = pto.partition_view %bv, offsets = [%row, %c0], sizes = [%c16, %c64] : {TV} -> {PV}
    pto.tstore ins(%b : {T}) outs(%q : {PV})
"""
    for pipeline in (None, f"{MB},pto-allocate-memory-addr"):
        static, exact, _, ends, loop_events = compare(_kernel(body), pipeline)
        assert static.converged and static.period == 2
        assert static.per_pipe_ops["V"] == 2  # (1 + 3) / 2
        assert _relative_error(static, ends) <= 0.05
        _same_events([e.event for e in exact.events], loop_events)


def test_a_nested_loop_with_known_bounds_is_unrolled():
    body = f"""
    %a = pto.alloc_tile : {T}
    %row = arith.muli %i, %c16 : index
    %p = pto.partition_view %av, offsets = [%row, %c0], sizes = [%c16, %c64] : {TV} -> {PV}
    pto.tload ins(%p : {PV}) outs(%a : {T})
    scf.for %j = %c0 to %c3 step %c1 {{
      pto.texp ins(%a : {T}) outs(%a : {T})
    }}
    %q = pto.partition_view %bv, offsets = [%row, %c0], sizes = [%c16, %c64] : {TV} -> {PV}
    pto.tstore ins(%a : {T}) outs(%q : {PV})
"""
    for pipeline in (None, f"{MB},pto-allocate-memory-addr"):
        static, exact, _, ends, loop_events = compare(_kernel(body), pipeline)
        assert static.per_pipe_ops["V"] == 3
        assert static.per_pipe_busy["V"] == 3 * a2a3_duration("pto.texp")
        assert _relative_error(static, ends) <= 0.05
        _same_events([e.event for e in exact.events], loop_events)


ACC = "!pto.tile_buf<acc, 32x64xf32, valid=?x64>"
LEFT = "!pto.tile_buf<left, 32x64xf16, valid=?x64>"
RIGHT = "!pto.tile_buf<right, 64x64xf16>"
MAT_A = "!pto.tile_buf<mat, 32x64xf16, valid=?x64>"
MAT_B = "!pto.tile_buf<mat, 64x64xf16>"
# (the cube's tiles are loaded into mat and moved: ptoas's tload fills vec and mat only)
MATMUL = f"""
func.func @mm(%A: !pto.ptr<f16>, %B: !pto.ptr<f16>, %C: !pto.ptr<f32>, %m: index) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c512 = arith.constant 512 : index
  %av = pto.make_tensor_view %A, shape = [%c64, %c512], strides = [%c512, %c1] : !pto.tensor_view<?x?xf16>
  %bv = pto.make_tensor_view %B, shape = [%c512, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf16>
  %acc = pto.alloc_tile valid_row = %m : {ACC}
  scf.for %k = %c0 to %c8 step %c1 {{
    %kk = arith.muli %k, %c64 : index
    %am = pto.alloc_tile valid_row = %m : {MAT_A}
    %bm = pto.alloc_tile : {MAT_B}
    %pa = pto.partition_view %av, offsets = [%c0, %kk], sizes = [%m, %c64] : !pto.tensor_view<?x?xf16> -> !pto.partition_tensor_view<?x64xf16>
    pto.tload ins(%pa : !pto.partition_tensor_view<?x64xf16>) outs(%am : {MAT_A})
    %pb = pto.partition_view %bv, offsets = [%kk, %c0], sizes = [%c64, %c64] : !pto.tensor_view<?x?xf16> -> !pto.partition_tensor_view<64x64xf16>
    pto.tload ins(%pb : !pto.partition_tensor_view<64x64xf16>) outs(%bm : {MAT_B})
    %l = pto.alloc_tile valid_row = %m : {LEFT}
    %r = pto.alloc_tile : {RIGHT}
    pto.tmov ins(%am : {MAT_A}) outs(%l : {LEFT})
    pto.tmov ins(%bm : {MAT_B}) outs(%r : {RIGHT})
    pto.tmatmul.acc ins(%acc, %l, %r : {ACC}, {LEFT}, {RIGHT}) outs(%acc : {ACC})
  }}
  return
}}
"""


def test_matmul_macs_follow_the_valid_shape_and_an_unknown_one_is_the_shape():
    # m unknown: the full 32 rows are assumed, and said so
    guessed = compare(MATMUL, values={"m": 32})[0]
    assert any("valid rows" in n for n in guessed.notes)
    assert [e.event.macs for e in guessed.body(0) if e.pipe == "M"] == [32 * 64 * 64]
    # m given: 8 rows, the run's events exactly
    static, exact, _, ends, loop_events = compare(MATMUL, values={"m": 8}, static_values={"m": 8})
    assert [e.event.macs for e in static.body(0) if e.pipe == "M"] == [8 * 64 * 64]
    assert not static.notes
    _same_events([e.event for e in exact.events], loop_events)
    assert _relative_error(static, ends) <= 0.05


def test_generated_kernels_give_the_runs_events_and_schedule():
    """Random kernels (kernel_gen: nested loops, branches on the iteration,
    subviews, reshapes, dynamic valid shapes, runtime bounds), with their
    scalar arguments given: the static events of every top-level loop are
    the trace's, and so is their schedule."""
    from pto_dialect.testing.kernel_gen import generate

    checked = 0
    for seed in range(40):
        kernel = generate(seed)
        module = parse_kernel(kernel.text, quiet=True)
        with module.context:
            run = execute(module.operation, kernel.function, source_text=kernel.text, values=kernel.values, trace=True)
            for loop in scf_loops(module.operation):
                if loop.parent.operation.name != "func.func":
                    continue
                try:
                    trips = loop_schedule(loop, iterations=1, values=kernel.values, source_text=kernel.text).trip_count
                except StaticScheduleError as e:
                    assert "calls are not modelled statically" in str(e), e  # the generator's helper functions
                    continue
                if not trips:
                    continue
                static = loop_schedule(loop, iterations=trips, values=kernel.values, source_text=kernel.text)
                loop_events = [e for e, k in zip(run.trace, trace_iterations(run.trace, loop)) if k is not None]
                _same_events([e.event for e in static.events], loop_events)
                table = cost_table(run.arch)
                assert static.schedule.cycles == schedule(loop_events, table).cycles, f"seed {seed}"
                checked += 1
    assert checked >= 25


# --- what it refuses, and what it says ----------------------------------------------------------


def test_a_branch_on_data_is_refused():
    body = f"""
    %a = pto.alloc_tile : {T}
    %row = arith.muli %i, %c16 : index
    %p = pto.partition_view %av, offsets = [%row, %c0], sizes = [%c16, %c64] : {TV} -> {PV}
    pto.tload ins(%p : {PV}) outs(%a : {T})
    %v = pto.tgetval ins(%a, %c0 : {T}, index) outs : f32
    %zero = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %v, %zero : f32
    scf.if %pos {{
      pto.texp ins(%a : {T}) outs(%a : {T})
    }}
"""
    module = parse_kernel(_kernel(body))
    with module.context:
        with pytest.raises(StaticScheduleError, match="condition of this scf.if is not known statically"):
            loop_schedule(_top_loop(module))
        op = next(o for o in module.body.operations[0].regions[0].blocks[0].operations if o.operation.name == "arith.constant")
        with pytest.raises(StaticScheduleError, match="is not an scf.for"):
            loop_schedule(op)


def test_format_and_explain():
    text = (ROOT / "examples" / "copy_scale.pto").read_text()
    static = compare(text, f"{MB},pto-allocate-memory-addr")[0]
    summary = static.format()
    load = a2a3_duration("pto.tload", src="gm")
    assert f"cycles per iteration: {load}" in summary
    assert f"lower bound: {load} (MTE2, the busiest pipe)" in summary
    assert "32 iterations" in summary
    listing = static.explain()
    lines = listing.splitlines()
    assert [line.split()[2] for line in lines[1:] if line[:4].strip().isdigit()] == ["pto.tload", "pto.tmuls", "pto.tstore"]
    assert "writes vec [" in listing and "slot" in listing
    # cycles(T) from idle: the schedule's when unrolled, the steady state beyond
    assert static.cycles(1) == static.iteration_ends[0]
    assert static.cycles(static.iterations + 10) == max(static.iteration_ends) + 10 * static.cycles_per_iteration
