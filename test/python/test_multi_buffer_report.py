"""The multi-buffer decisions as data (Python API) match the remarks."""

from __future__ import annotations

from conftest import parse_kernel, pto_context, record_diagnostics

import pto_dialect

KERNEL = """
!v = !pto.tile_buf<vec, 120x128xf32>
!s = !pto.tile_buf<vec, 16x16xf32>
!pv = !pto.partition_tensor_view<120x128xf32>
func.func @k(%src: !pv) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %t = pto.alloc_tile : !v
    %acc = pto.alloc_tile : !s
    pto.tload ins(%src : !pv) outs(%t : !v)
    pto.tadd ins(%acc, %acc : !s, !s) outs(%acc : !s)
    pto.tstore ins(%t : !v) outs(%src : !pv)
  } {pto.pipeline_stages = 4 : i64}
  scf.for %i = %c0 to %c4 step %c1 {
    %acc = pto.alloc_tile : !s
    pto.tadd ins(%acc, %acc : !s, !s) outs(%acc : !s)
  } {pto.pipeline_stages = 2 : i64}
  return
}
"""


def run(pipeline: str):
    ctx = pto_context()
    seen = record_diagnostics(ctx)
    module = parse_kernel(KERNEL, name="kernel.pto", context=ctx)
    with ctx:
        report = pto_dialect.run_passes(module, pipeline)
        text = pto_dialect.print_module(module)
    remarks = [(d.line, d.message) for d in seen if d.severity == "remark"]
    return report, remarks, text


def test_decisions_as_data():
    report, remarks, text = run("convert-to-ptoas-multi-buffer")
    first, second = report.loops
    assert (first.converted, first.requested_stages, first.slots) == (True, 4, 3)
    # 3 x 61440 beside the 1024-byte accumulator that stays single fit 196608; 4 do not
    assert "only 3 fit" in first.reasons[0] and "beside 1024 bytes of other buffers" in first.reasons[0]
    assert [(t.space, t.converted) for t in first.tiles] == [("vec", True), ("vec", False)]
    assert "loop-carried" in first.tiles[1].reason
    assert (second.converted, second.slots) == (False, 0)
    assert second.reasons == ["no tile in its body is eligible for multi-buffering"]
    assert first.location == "kernel.pto:9:3" and second.location == "kernel.pto:16:3"
    assert first.tiles[0].type == "!pto.tile_buf<vec, 120x128xf32>"  # as users write it
    assert "!pto.multi_tile_buf<!pto.tile_buf<vec, 120x128xf32>, count=3>" in text


def test_remarks_reach_the_callers_handler():
    _, remarks, _ = run("convert-to-ptoas-multi-buffer")
    messages = [m for _, m in remarks]
    assert any("only 3 fit" in m for m in messages)
    assert sum("loop-carried" in m for m in messages) == 2
    assert any(m.startswith("pipeline loop is not converted") for m in messages)
    assert {line for line, _ in remarks} == {9, 11, 16, 17}


def test_report_serialises():
    report, _, _ = run("convert-to-ptoas-multi-buffer{spaces=vec}")
    data = report.to_dict()
    assert data["loops"][0]["slots"] == 3
    assert '"converted": true' in report.to_json()
