"""What a pipeline loop holds besides its own tiles (pto_dialect/analysis/loop_memory.py),
asked of many loops: the conversion reads a function's lifetimes once, not
once per loop (it did per loop: K = 400 loops took 35 s, K = 4000 hours),
and what it decides is what it decided when it read them per loop."""

from __future__ import annotations

import sys
from pathlib import Path

from conftest import parse_kernel

import pto_dialect
from pto_dialect.analysis import liveness

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "tool"))
from generate import pto_kernel  # noqa: E402


def kernel_with_a_buffer_across(loops: int, stages: int = 4) -> str:
    """bench/tool's kernel of `loops` pipeline loops (two 4 KiB vec tiles
    each), with a 64x256 f32 tile (64 KiB) written before the first loop
    and stored after the last: live across every loop, used by none."""
    text = pto_kernel(loops).replace("pto.pipeline_stages = 2", f"pto.pipeline_stages = {stages}")
    big = "!big = !pto.tile_buf<loc=vec, dtype=f32, rows=64, cols=256, v_row=64, v_col=256, blayout=row_major, slayout=none_box, fractal=512, pad=0>\n"
    view_type = "!pto.partition_tensor_view<64x256xf32>"
    head, body = text.split("scf.for", 1)
    head = head.replace("%c256 = arith.constant 256 : index\n", "%c256 = arith.constant 256 : index\n  %c1024 = arith.constant 1024 : index\n")
    head = head.replace("shape = [%c256, %c64], strides = [%c64, %c1]", "shape = [%c256, %c1024], strides = [%c1024, %c1]", 1)
    before = (
        f"  %keep_in = pto.partition_view %sv, offsets = [%c0, %c0], sizes = [%c64, %c256] : !pto.tensor_view<?x?xf32> -> {view_type}\n"
        "  %keep = pto.alloc_tile : !big\n"
        f"  pto.tload ins(%keep_in : {view_type}) outs(%keep : !big)\n"
    )
    tail_at = body.rindex("  return")
    after = f"  pto.tstore ins(%keep : !big) outs(%keep_in : {view_type})\n"
    return big + head + before + "  scf.for" + body[:tail_at] + after + body[tail_at:]


def test_the_conversion_reads_a_functions_lifetimes_once(context, monkeypatch):
    calls = []
    real = liveness.function_liveness

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(liveness, "function_liveness", counted)
    module = parse_kernel(kernel_with_a_buffer_across(30), name="k.pto", context=context)
    with context:
        report = pto_dialect.run_passes(module, "convert-to-ptoas-multi-buffer")
    assert len(report.loops) == 30 and all(loop.converted for loop in report.loops)
    assert len(calls) == 1


def test_every_loop_sees_the_buffer_live_across_it(context):
    """The 64 KiB tile live across all loops is counted beside each loop's
    tiles, the last loop's as the first's: a2a3's vec holds 192 KiB, 16
    slots of a loop's two 4 KiB tiles take 128 KiB, and beside the 64 KiB
    they just fit; with 16 KiB more each loop gets 14."""
    for extra_kib, slots in ((0, 16), (16, 14)):
        text = kernel_with_a_buffer_across(6, stages=16)
        if extra_kib:  # a wider live tile
            text = text.replace("cols=256, v_row=64, v_col=256", "cols=320, v_row=64, v_col=320").replace("64x256xf32", "64x320xf32")
            text = text.replace("[%c64, %c256]", "[%c64, %c320]")
            text = text.replace("%c1024 = arith.constant 1024 : index\n", "%c1024 = arith.constant 1024 : index\n  %c320 = arith.constant 320 : index\n")
        module = parse_kernel(text, name="k.pto", context=context)
        with context:
            report = pto_dialect.run_passes(module, "convert-to-ptoas-multi-buffer")
        assert [loop.slots for loop in report.loops] == [slots] * 6
