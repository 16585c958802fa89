"""`pto-run --timeline OUT.trace.json`: the schedule as a Chrome trace that
Perfetto and chrome://tracing open, loaded back and checked against the
schedule the `.json` timeline of the same run lists."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pto_dialect.timing import PIPE_NAMES, TimelineError, TimelineRun, check_timeline_path, timeline_bytes
from pto_dialect.timing.timeline import chrome_trace, timeline_format
from pto_dialect.tools import pto_run

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MULTI_BUFFER = "pto-pipeline{use-ptoas-multi-buffer=true}"


def run_pto(tmp_path, kernel: Path, out: str, *extra: str) -> dict:
    path = tmp_path / out
    assert pto_run.main([str(kernel), *extra, "--timeline", str(path)]) == 0
    return json.loads(path.read_text())


def by_kind(trace: dict, ph: str, name: str | None = None) -> list[dict]:
    return [e for e in trace["traceEvents"] if e["ph"] == ph and (name is None or e["name"] == name)]


def check_trace_matches_schedule(trace: dict, schedule: dict) -> None:
    """Every op of every run of the `.json` timeline is one slice of the
    trace, in the run's process, on its pipe's named track, from start for
    end - start, with its location and slot; nothing else is a slice, and no
    two slices of one track overlap."""
    runs = schedule["runs"]
    processes = {e["pid"]: e["args"]["name"] for e in by_kind(trace, "M", "process_name")}
    assert processes == {pid: f"{r['label']}: @{r['function']}, {r['cycles']} cycles" for pid, r in enumerate(runs, 1)}
    used = [p for p in PIPE_NAMES if any(r["pipes"][p]["ops"] for r in runs)]
    slices = by_kind(trace, "X")
    assert len(slices) == sum(len(r["ops"]) for r in runs)
    for pid, run in enumerate(runs, 1):
        tracks = {e["tid"]: e["args"]["name"] for e in by_kind(trace, "M", "thread_name") if e["pid"] == pid}
        assert [tracks[t] for t in sorted(tracks)] == used  # one named track per pipe, in pipe order
        order = {e["tid"]: e["args"]["sort_index"] for e in by_kind(trace, "M", "thread_sort_index") if e["pid"] == pid}
        assert sorted(order, key=order.get) == sorted(tracks)
        mine = [e for e in slices if e["pid"] == pid]
        assert len(mine) == len(run["ops"])
        for e, op in zip(mine, run["ops"]):  # in program order
            assert (tracks[e["tid"]], e["cat"], e["name"]) == (op["pipe"], op["pipe"], op["op"])
            assert (e["ts"], e["dur"]) == (op["start"], op["end"] - op["start"])
            assert (e["args"]["location"], e["args"]["slot"]) == (op["location"], op["slot"])
        for tid in tracks:  # each pipe runs one op at a time
            spans = sorted((e["ts"], e["ts"] + e["dur"]) for e in mine if e["tid"] == tid)
            assert all(end <= next_start for (_, end), (next_start, _) in zip(spans, spans[1:]))
    other = trace["otherData"]
    assert other["time_unit"] == "1 us = 1 cycle"
    assert [(r["label"], r["cycles"], r["lower_bound"], r["bound_pipe"]) for r in other["runs"]] == [
        (r["label"], r["cycles"], r["lower_bound"], r["bound_pipe"]) for r in runs
    ]


@pytest.mark.parametrize("example", ["balanced.pto", "matmul_kloop.pto"])
def test_trace_of_one_run_has_every_op_as_a_slice_on_its_pipe(tmp_path, example):
    kernel = EXAMPLES / example
    trace = run_pto(tmp_path, kernel, "t.trace.json")
    schedule = run_pto(tmp_path, kernel, "t.json")
    assert "traceEvents" not in schedule  # .json stays the documented schedule format
    check_trace_matches_schedule(trace, schedule)
    (run,) = schedule["runs"]
    assert by_kind(trace, "M", "process_name")[0]["args"]["name"] == f"run: @{run['function']}, {run['cycles']} cycles"
    assert max(e["ts"] + e["dur"] for e in by_kind(trace, "X")) == run["cycles"]


def test_matmul_tracks_follow_the_pipe_order(tmp_path):
    trace = run_pto(tmp_path, EXAMPLES / "matmul_kloop.pto", "t.trace.json")
    tracks = {e["tid"]: e["args"]["name"] for e in by_kind(trace, "M", "thread_name")}
    assert tracks == {1: "MTE2", 2: "MTE1", 4: "M", 5: "MTE3"}  # no vector op: no V track
    assert {e["cat"] for e in by_kind(trace, "X")} == {"MTE2", "MTE1", "M", "MTE3"}


def test_compare_pipeline_puts_both_runs_in_one_trace(tmp_path):
    kernel = EXAMPLES / "balanced.pto"
    extra = ("--compare-pipeline", MULTI_BUFFER)
    trace = run_pto(tmp_path, kernel, "t.trace.json", *extra)
    schedule = run_pto(tmp_path, kernel, "t.json", *extra)
    check_trace_matches_schedule(trace, schedule)
    before, after = schedule["runs"]
    assert (before["label"], after["label"]) == ("before", f"after '{MULTI_BUFFER}'")
    assert after["cycles"] < before["cycles"]  # the overlap multi-buffering buys shows in the trace
    names = {e["pid"]: e["args"]["name"] for e in by_kind(trace, "M", "process_name")}
    assert names == {1: f"before: @balanced, {before['cycles']} cycles", 2: f"after '{MULTI_BUFFER}': @balanced, {after['cycles']} cycles"}
    order = {e["pid"]: e["args"]["sort_index"] for e in by_kind(trace, "M", "process_sort_index")}
    assert order == {1: 1, 2: 2}
    slots = {pid: {e["args"]["slot"] for e in by_kind(trace, "X") if e["pid"] == pid} for pid in (1, 2)}
    assert slots[1] == {None} and {0, 1} <= slots[2]


def test_slices_name_the_bytes_each_op_read_and_wrote(tmp_path):
    kernel = tmp_path / "k.pto"
    kernel.write_text(LOAD_SCALE_STORE)
    trace = run_pto(tmp_path, kernel, "t.trace.json", "--pass-pipeline", "pto-allocate-memory-addr")
    load, scale, store = [(e["name"], e["args"]["reads"], e["args"]["writes"]) for e in by_kind(trace, "X")]
    assert load == ("pto.tload", ["%A[0:1024]"], ["vec[0:1024]"])
    assert scale == ("pto.tmuls", ["vec[0:1024]"], ["vec[1024:2048]"])
    assert store == ("pto.tstore", ["vec[1024:2048]"], ["%B[0:1024]"])
    assert by_kind(trace, "X")[0]["args"]["location"] == f"{kernel}:15:3"


LOAD_SCALE_STORE = """!t = !pto.tile_buf<vec, 16x16xf32>
!tv = !pto.tensor_view<?x?xf32>
!pv = !pto.partition_tensor_view<16x16xf32>
func.func @k(%A: !pto.ptr<f32>, %B: !pto.ptr<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %s = arith.constant 2.0 : f32
  %a = pto.alloc_tile : !t
  %b = pto.alloc_tile : !t
  %av = pto.make_tensor_view %A, shape = [%c16, %c16], strides = [%c16, %c1] : !tv
  %bv = pto.make_tensor_view %B, shape = [%c16, %c16], strides = [%c16, %c1] : !tv
  %p = pto.partition_view %av, offsets = [%c0, %c0], sizes = [%c16, %c16] : !tv -> !pv
  %q = pto.partition_view %bv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !tv -> !pv
  pto.tload ins(%p : !pv) outs(%a : !t)
  pto.tmuls ins(%a, %s : !t, f32) outs(%b : !t)
  pto.tstore ins(%b : !t) outs(%q : !pv)
  return
}
"""


# --- choosing the format -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "path, fmt",
    [("out.trace.json", ".trace.json"), ("dir.d/OUT.Trace.JSON", ".trace.json"), ("out.json", ".json"), ("trace.json", ".json"), ("t.png", ".png")],
)
def test_the_name_chooses_the_format(path, fmt):
    assert timeline_format(path) == fmt
    check_timeline_path(path)


def test_an_unknown_suffix_names_the_trace_format_too():
    with pytest.raises(TimelineError) as e:
        check_timeline_path("out.txt")
    assert str(e.value) == (
        "--timeline: cannot write '.txt' files (use .json, .trace.json for Perfetto and chrome://tracing, or .png, .svg, .pdf with matplotlib)"
    )


def test_a_trace_without_the_events_has_no_byte_ranges():
    from pto_dialect.timing import PipeUsage, Schedule, ScheduledOp

    ops = [ScheduledOp("pto.tload", "MTE2", 0, 80, "k.pto:3:5", None), ScheduledOp("pto.tadd", "V", 80, 92, "k.pto:4:5", 1)]
    usage = {p: PipeUsage(p, 0, 0) for p in PIPE_NAMES} | {"MTE2": PipeUsage("MTE2", 1, 80), "V": PipeUsage("V", 1, 12)}
    s = Schedule("a2a3", ops, 92, usage)
    trace = json.loads(timeline_bytes("t.trace.json", [TimelineRun("run", "k", s)]))
    assert trace == chrome_trace([TimelineRun("run", "k", s)])
    assert [e["args"] for e in by_kind(trace, "X")] == [{"location": "k.pto:3:5", "slot": None}, {"location": "k.pto:4:5", "slot": 1}]
    assert [(e["tid"], e["ts"], e["dur"]) for e in by_kind(trace, "X")] == [(1, 0, 80), (3, 80, 12)]
