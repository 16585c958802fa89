"""The timing model on real kernels: interpreter traces of loops before and
after the passes, with exact cycle counts worked out by hand, and the slot
bug the model must expose."""

from __future__ import annotations

import json

import pytest
from conftest import parse_kernel
from timing_support import a2a3_duration

from pto_dialect.driver.pass_pipeline import PipelineRun, build_pass_manager
from pto_dialect.interpreter import execute
from pto_dialect.timing import CostTable, PipeCost, TimelineRun, cost_table, schedule, timeline_data, write_timeline

T = "!pto.tile_buf<vec, 16x16xf32>"  # 1024 bytes
TV = "!pto.tensor_view<?x?xf32>"
PV = "!pto.partition_tensor_view<16x16xf32>"

# A load costs L = 36 + 1024/16 = 100 cycles, a vector op C = 28 + 1024/32 = 60.
LOAD_BOUND = CostTable(
    "test",
    {
        "MTE2": PipeCost(fixed=36, rate=16),
        "MTE1": PipeCost(fixed=0, rate=1),
        "V": PipeCost(fixed=28, rate=32),
        "M": PipeCost(fixed=0, rate=1),
        "MTE3": PipeCost(fixed=0, rate=1),
    },
)
# The other way round: L = 60, C = 100.
COMPUTE_BOUND = CostTable(
    "test",
    {
        "MTE2": PipeCost(fixed=28, rate=32),
        "MTE1": PipeCost(fixed=0, rate=1),
        "V": PipeCost(fixed=36, rate=16),
        "M": PipeCost(fixed=0, rate=1),
        "MTE3": PipeCost(fixed=0, rate=1),
    },
)


def loop_kernel(lb: int = 0, ub: int = 4, step: int = 1, stages: int = 2) -> str:
    """Per iteration: load a 16x16 tile into %a (MTE2), scale it into %b (V)."""
    return f"""
func.func @k(%A: !pto.ptr<f32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %lb = arith.constant {lb} : index
  %ub = arith.constant {ub} : index
  %step = arith.constant {step} : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %s = arith.constant 2.0 : f32
  %av = pto.make_tensor_view %A, shape = [%c128, %c16], strides = [%c16, %c1] : {TV}
  scf.for %i = %lb to %ub step %step {{
    %a = pto.alloc_tile : {T}
    %b = pto.alloc_tile : {T}
    %row = arith.muli %i, %c16 : index
    %p = pto.partition_view %av, offsets = [%row, %c0], sizes = [%c16, %c16] : {TV} -> {PV}
    pto.tload ins(%p : {PV}) outs(%a : {T})
    pto.tmuls ins(%a, %s : {T}, f32) outs(%b : {T})
  }} {{pto.pipeline_stages = {stages} : i64}}
  return
}}
"""



def timed(text: str, pipeline: str | None = None, costs: CostTable | None = None, func: str = "k"):
    """The schedule of @func after `pipeline`."""
    module = parse_kernel(text, quiet=True)  # the passes' remarks
    with module.context:
        if pipeline:
            build_pass_manager(pipeline, PipelineRun(), module.context).run(module.operation)
        run = execute(module.operation, func, source_text=text, trace=True)
    return schedule(run.trace, costs or cost_table(run.arch))


# --- the 4-iteration load/compute loop --------------------------------------------------------


@pytest.mark.parametrize("allocate", ["", ",pto-allocate-memory-addr"])
def test_four_iterations_load_bound_one_slot_runs_serially(allocate):
    # One buffer %a: the load of iteration i+1 overwrites what the scale of
    # iteration i reads (WAR), so nothing overlaps: 4 * (100 + 60).
    s = timed(loop_kernel(stages=1), "pto-lower-pipeline-loops" + allocate, LOAD_BOUND)
    assert s.cycles == 640
    assert [(o.pipe, o.start, o.end) for o in s.ops[:4]] == [("MTE2", 0, 100), ("V", 100, 160), ("MTE2", 160, 260), ("V", 260, 320)]


@pytest.mark.parametrize("allocate", ["", ",pto-allocate-memory-addr"])
def test_four_iterations_load_bound_two_slots_overlap(allocate):
    # Two slots: loads run back to back (load i+2 waits for scale i, which
    # ended long before); the last scale follows the last load: 4 * 100 + 60.
    s = timed(loop_kernel(), "convert-to-ptoas-multi-buffer" + allocate, LOAD_BOUND)
    assert s.cycles == 460
    assert [o.start for o in s.ops if o.pipe == "MTE2"] == [0, 100, 200, 300]
    assert [o.slot for o in s.ops if o.pipe == "MTE2"] == [0, 1, 0, 1]
    assert (s.bound, s.bound_pipe) == (400, "MTE2")


def test_four_iterations_compute_bound_one_and_two_slots():
    assert timed(loop_kernel(stages=1), None, COMPUTE_BOUND).cycles == 4 * (60 + 100)
    s = timed(loop_kernel(), "convert-to-ptoas-multi-buffer", COMPUTE_BOUND)
    # the first load, then the scales back to back: 60 + 4 * 100
    assert s.cycles == 460
    assert [o.start for o in s.ops if o.pipe == "V"] == [60, 160, 260, 360]


def test_replication_overlaps_like_two_slots():
    s = timed(loop_kernel(), "pto-lower-pipeline-loops,pto-allocate-memory-addr", LOAD_BOUND)
    assert s.cycles == 460


def test_default_table_on_the_four_iteration_loop():
    # a3: a 16x16 f32 load (265 + 1024/128 = 273) and its scale, in turn; two slots overlap them
    load, scale = a2a3_duration("pto.tload", 16, 16, src="gm"), a2a3_duration("pto.tmuls", 16, 16)
    assert load == 273
    assert timed(loop_kernel(stages=1)).cycles == 4 * (load + scale)
    assert timed(loop_kernel(), "convert-to-ptoas-multi-buffer").cycles == 4 * load + scale


# --- the slot bug the model must expose ------------------------------------------------------

MB = f"!pto.multi_tile_buf<{T}, count=2>"
RAW_IV_MOD_2 = f"""
func.func @k(%A: !pto.ptr<f32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %s = arith.constant 2.0 : f32
  %av = pto.make_tensor_view %A, shape = [%c128, %c16], strides = [%c16, %c1] : {TV}
  %mb = pto.alloc_multi_tile : {MB}
  %b = pto.alloc_tile : {T}
  scf.for %i = %c0 to %c8 step %c2 {{
    // hand-written multi-buffering with the step ignored: %i is 0, 2, 4, 6,
    // so %i mod 2 is always slot 0
    %slot = arith.remui %i, %c2 : index
    %a = pto.multi_tile_get %mb[%slot] : {MB} -> {T}
    %row = arith.muli %i, %c16 : index
    %p = pto.partition_view %av, offsets = [%row, %c0], sizes = [%c16, %c16] : {TV} -> {PV}
    pto.tload ins(%p : {PV}) outs(%a : {T})
    pto.tmuls ins(%a, %s : {T}, f32) outs(%b : {T})
  }} {{pto.pipeline_stages = 1 : i64}}
  return
}}
"""


def test_raw_iv_mod_2_in_a_step_2_loop_shows_no_overlap():
    s = timed(RAW_IV_MOD_2, "pto-allocate-memory-addr", LOAD_BOUND)
    assert [o.slot for o in s.ops if o.pipe == "MTE2"] == [0, 0, 0, 0]
    assert s.cycles == 640  # as if there were one buffer


def test_the_converted_step_2_loop_rotates_slots_and_overlaps():
    # convert-to-ptoas-multi-buffer gives the slot ((i - 0) / 2) mod 2.
    s = timed(loop_kernel(ub=8, step=2), "convert-to-ptoas-multi-buffer,pto-allocate-memory-addr", LOAD_BOUND)
    assert [o.slot for o in s.ops if o.pipe == "MTE2"] == [0, 1, 0, 1]
    assert s.cycles == 460
    assert timed(loop_kernel(ub=8, step=2, stages=1), "pto-allocate-memory-addr", LOAD_BOUND).cycles == 640


# --- address sharing is a dependence -------------------------------------------------------


def test_tiles_at_overlapping_addresses_depend_on_each_other():
    # Two tiles given the same address by hand: the second load must wait
    # for the scale that reads the first (WAR through the shared bytes).
    text = f"""
func.func @k(%A: !pto.tensor_view<32x16xf32>) {{
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %addr = arith.constant 0 : i64
  %far = arith.constant 8192 : i64
  %s = arith.constant 2.0 : f32
  %p = pto.partition_view %A, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<32x16xf32> -> {PV}
  %q = pto.partition_view %A, offsets = [%c16, %c0], sizes = [%c16, %c16] : !pto.tensor_view<32x16xf32> -> {PV}
  %a = pto.alloc_tile addr = %addr : {T}
  %b = pto.alloc_tile addr = %far : {T}
  %c = pto.alloc_tile addr = %addr : {T}
  pto.tload ins(%p : {PV}) outs(%a : {T})
  pto.tmuls ins(%a, %s : {T}, f32) outs(%b : {T})
  pto.tload ins(%q : {PV}) outs(%c : {T})
  return
}}
"""
    assert [o.start for o in timed(text, None, LOAD_BOUND).ops] == [0, 100, 160]
    separate = text.replace("%c = pto.alloc_tile addr = %addr", "%c = pto.alloc_tile addr = %far2").replace(
        "%s = arith", "%far2 = arith.constant 16384 : i64\n  %s = arith"
    )
    assert [o.start for o in timed(separate, None, LOAD_BOUND).ops] == [0, 100, 100]


# --- timelines --------------------------------------------------------------------------------


def test_timeline_json_lists_every_op_with_its_schedule(tmp_path):
    s = timed(loop_kernel(), "convert-to-ptoas-multi-buffer", LOAD_BOUND)
    path = tmp_path / "t.json"
    write_timeline(str(path), [TimelineRun("run", "k", s)])
    data = json.loads(path.read_text())
    assert data == timeline_data([TimelineRun("run", "k", s)])
    (run,) = data["runs"]
    assert (run["cycles"], run["lower_bound"], run["bound_pipe"]) == (460, 400, "MTE2")
    assert run["pipes"]["MTE2"] == {"ops": 4, "busy": 400, "utilisation": 400 / 460}
    assert run["ops"][0] == {"pipe": "MTE2", "start": 0, "end": 100, "op": "pto.tload", "location": "-:17:5", "slot": 0}
    assert [o["op"] for o in run["ops"]] == ["pto.tload", "pto.tmuls"] * 4


def test_timeline_png_is_drawn(tmp_path):
    pytest.importorskip("matplotlib")
    before = timed(loop_kernel(stages=1), None, LOAD_BOUND)
    after = timed(loop_kernel(), "convert-to-ptoas-multi-buffer", LOAD_BOUND)
    path = tmp_path / "t.png"
    write_timeline(str(path), [TimelineRun("before", "k", before), TimelineRun("after", "k", after)])
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 5000  # not an empty canvas


# --- pto-run --timeline without matplotlib -------------------------------------------------


def test_timeline_png_without_matplotlib_is_a_clear_error_before_running(monkeypatch, tmp_path, capsys):
    import importlib.util

    from pto_dialect.tools import pto_run

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real_find_spec(name, *a))
    kernel = tmp_path / "k.pto"
    kernel.write_text(loop_kernel())
    assert pto_run.main([str(kernel), "--timeline", str(tmp_path / "t.png")]) == 1
    out, err = capsys.readouterr()
    assert err == f"pto-run: error: --timeline {tmp_path / 't.png'} needs matplotlib: pip install 'pto-dialect[plot]' (or write a .json timeline)\n"
    assert out == ""  # nothing ran
    # a JSON timeline needs no matplotlib
    assert pto_run.main([str(kernel), "--timeline", str(tmp_path / "t.json")]) == 0
    assert json.loads((tmp_path / "t.json").read_text())["runs"][0]["ops"][0]["location"] == f"{kernel}:17:5"
