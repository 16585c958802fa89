"""Benchmark inputs: K pipeline loops in the pto dialect, and the same kind of
job for the C++ peer (`mlir-opt --affine-pipeline-data-transfer`): K affine
loops, each with a DMA into a local buffer, a compute and a store.

    python bench/tool/generate.py pto 4000 > k4000.pto
    python bench/tool/generate.py affine 4000 > affine4000.mlir
    python bench/tool/generate.py slots 11 16 > slots.pto   # 11 pairs of tiles, 16 stages
"""

from __future__ import annotations

import sys

TILE = "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=64, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>"
PART = "!pto.partition_tensor_view<16x64xf32>"
VIEW = "!pto.tensor_view<?x?xf32>"


def pto_kernel(loops: int) -> str:
    """K pipeline loops in ptoas syntax, in the shape PyPTO writes kernels:
    two tiles per loop (verbose types, dynamic valid shapes), a load from a
    partition of a tensor view, a compute and a store."""
    out = [
        f"!t = {TILE}",
        "func.func @kernel(%src: !pto.ptr<f32>, %dst: !pto.ptr<f32>) attributes {pto.kernel_kind = #pto.kernel_kind<vector>} {",
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        "  %c16 = arith.constant 16 : index",
        "  %c64 = arith.constant 64 : index",
        "  %c256 = arith.constant 256 : index",
        f"  %sv = pto.make_tensor_view %src, shape = [%c256, %c64], strides = [%c64, %c1] {{layout = #pto.layout<nd>}} : {VIEW}",
        f"  %dv = pto.make_tensor_view %dst, shape = [%c256, %c64], strides = [%c64, %c1] {{layout = #pto.layout<nd>}} : {VIEW}",
    ]
    for i in range(loops):
        out += [
            f"  scf.for %i{i} = %c0 to %c16 step %c1 {{",
            f"    %a{i} = pto.alloc_tile valid_row = %c16 valid_col = %c64 : !t",
            f"    %b{i} = pto.alloc_tile valid_row = %c16 valid_col = %c64 : !t",
            f"    %r{i} = arith.muli %i{i}, %c16 : index",
            f"    %p{i} = pto.partition_view %sv, offsets = [%r{i}, %c0], sizes = [%c16, %c64] : {VIEW} -> {PART}",
            f"    pto.tload ins(%p{i} : {PART}) outs(%a{i} : !t)",
            f"    pto.texp ins(%a{i} : !t) outs(%b{i} : !t)",
            f"    %q{i} = pto.partition_view %dv, offsets = [%r{i}, %c0], sizes = [%c16, %c64] : {VIEW} -> {PART}",
            f"    pto.tstore ins(%b{i} : !t) outs(%q{i} : {PART})",
            "  } {pto.pipeline_stages = 2 : i64}",
        ]
    out += ["  return", "}"]
    return "\n".join(out) + "\n"


def slots_kernel(pairs: int, stages: int, trips: int = 64) -> str:
    """One pipeline loop of `2 * pairs` tiles asking for `stages` stages,
    for `slots=model`: per pair a 16x64 f32 tile loaded from its own rows
    (MTE2), exponentiated into a second one (V) that is stored (MTE3). At 11
    pairs, 22 tiles, the vec space holds 2 slots of each; every stage past
    2 is slots the model must take away again (docs/reliability.md)."""
    tv, pv, t = VIEW.replace("?x?", "?x64"), PART, "!pto.tile_buf<vec, 16x64xf32>"
    out = [
        "func.func @slots(%src: !pto.ptr<f32>, %dst: !pto.ptr<f32>) {",
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        "  %c16 = arith.constant 16 : index",
        "  %c64 = arith.constant 64 : index",
        f"  %trips = arith.constant {trips} : index",
        f"  %pair_rows = arith.constant {16 * pairs} : index",
        f"  %rows = arith.constant {16 * pairs * trips} : index",
        f"  %sv = pto.make_tensor_view %src, shape = [%rows, %c64], strides = [%c64, %c1] {{layout = #pto.layout<nd>}} : {tv}",
        f"  %dv = pto.make_tensor_view %dst, shape = [%rows, %c64], strides = [%c64, %c1] {{layout = #pto.layout<nd>}} : {tv}",
        "  scf.for %i = %c0 to %trips step %c1 {",
        "    %base = arith.muli %i, %pair_rows : index",
    ]
    for j in range(pairs):
        out += [
            f"    %o{j} = arith.constant {16 * j} : index",
            f"    %r{j} = arith.addi %base, %o{j} : index",
            f"    %p{j} = pto.partition_view %sv, offsets = [%r{j}, %c0], sizes = [%c16, %c64] : {tv} -> {pv}",
            f"    %q{j} = pto.partition_view %dv, offsets = [%r{j}, %c0], sizes = [%c16, %c64] : {tv} -> {pv}",
            f"    %a{j} = pto.alloc_tile : {t}",
            f"    %b{j} = pto.alloc_tile : {t}",
            f"    pto.tload ins(%p{j} : {pv}) outs(%a{j} : {t})",
            f"    pto.texp ins(%a{j} : {t}) outs(%b{j} : {t})",
            f"    pto.tstore ins(%b{j} : {t}) outs(%q{j} : {pv})",
        ]
    out += [f"  }} {{pto.pipeline_stages = {stages} : i64}}", "  return", "}"]
    return "\n".join(out) + "\n"


def affine_kernel(loops: int) -> str:
    """K affine loops doing what the pto loops do, in the form
    --affine-pipeline-data-transfer double-buffers: the DMA'd buffer and its
    tag are allocated outside the loop and waited on inside it."""
    out = [
        "func.func @kernel(%src: memref<256x64xf32>, %dst: memref<256x64xf32>) {",
        "  %c1024 = arith.constant 1024 : index",
    ]
    for i in range(loops):
        out += [
            f"  %buf{i} = memref.alloc() : memref<16x64xf32, 1>",
            f"  %tag{i} = memref.alloc() : memref<1xi32>",
            f"  affine.for %i{i} = 0 to 16 {{",
            f"    affine.dma_start %src[%i{i} * 16, 0], %buf{i}[0, 0], %tag{i}[0], %c1024 : memref<256x64xf32>, memref<16x64xf32, 1>, memref<1xi32>",
            f"    affine.dma_wait %tag{i}[0], %c1024 : memref<1xi32>",
            f"    %v{i} = affine.load %buf{i}[0, 0] : memref<16x64xf32, 1>",
            f"    %e{i} = math.exp %v{i} : f32",
            f"    affine.store %e{i}, %dst[%i{i} * 16, 0] : memref<256x64xf32>",
            "  }",
            f"  memref.dealloc %tag{i} : memref<1xi32>",
            f"  memref.dealloc %buf{i} : memref<16x64xf32, 1>",
        ]
    out += ["  return", "}"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    kind, count = sys.argv[1], int(sys.argv[2])
    if kind == "slots":
        sys.stdout.write(slots_kernel(count, int(sys.argv[3]) if len(sys.argv) > 3 else 2))
    else:
        sys.stdout.write({"pto": pto_kernel, "affine": affine_kernel}[kind](count))
