"""Program points and loops of `liveness.function_liveness` on functions
mixing every kind of region: multi-block regions (a function body with a
`cf.br`, an `scf.execute_region`), an op with two regions (`scf.while`),
`scf.if` with and without an else, loop-carried iter_args, a multi-tile
region. The numbering walks the ops with MLIR's walk and finds where each
block ends from its op count; these are the points and loops it must give
(those of a plain recursive pre-order walk over blocks).
"""

from __future__ import annotations

from conftest import parse_kernel
from mlir import ir

from pto_dialect.analysis.liveness import function_liveness

# Both functions start with the same mix of regions (one alloc each in an
# scf.if, an scf.execute_region of two blocks, an scf.while, and an scf.for
# with iter_args over a multi-tile region); @f then branches to a second
# block, @g ends in an scf.for nested in an scf.if.
_REGIONS = """  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %a = pto.alloc_tile : !v
  pto.tload ins(%src : !pto.partition_tensor_view<16x16xf32>) outs(%a : !v)
  scf.if %b {
    %x = pto.alloc_tile : !v
    pto.tload ins(%src : !pto.partition_tensor_view<16x16xf32>) outs(%x : !v)
    pto.tstore ins(%x : !v) outs(%dst : !pto.partition_tensor_view<16x16xf32>)
  } else {
    scf.execute_region {
      %y = pto.alloc_tile : !v
      cf.br ^bb1
    ^bb1:
      pto.tload ins(%src : !pto.partition_tensor_view<16x16xf32>) outs(%y : !v)
      pto.tstore ins(%a : !v) outs(%dst : !pto.partition_tensor_view<16x16xf32>)
      scf.yield
    }
  }
  %w = scf.while (%i = %c0) : (index) -> index {
    %t = pto.alloc_tile : !v
    pto.tload ins(%src : !pto.partition_tensor_view<16x16xf32>) outs(%t : !v)
    %cond = arith.cmpi slt, %i, %c4 : index
    scf.condition(%cond) %i : index
  } do {
  ^bb0(%i2: index):
    pto.tstore ins(%a : !v) outs(%dst : !pto.partition_tensor_view<16x16xf32>)
    %n = arith.addi %i2, %c1 : index
    scf.yield %n : index
  }
  %mb = pto.alloc_multi_tile : !mb
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %a) -> (!v) {
    %s = arith.remui %i, %c2 : index
    %g = pto.multi_tile_get %mb[%s] : !mb -> !v
    pto.tload ins(%src : !pto.partition_tensor_view<16x16xf32>) outs(%g : !v)
    pto.tadd ins(%acc, %g : !v, !v) outs(%acc : !v)
    scf.yield %acc : !v
  }
  pto.tstore ins(%r : !v) outs(%dst : !pto.partition_tensor_view<16x16xf32>)"""
_SIGNATURE = "(%src: !pto.partition_tensor_view<16x16xf32>, %dst: !pto.partition_tensor_view<16x16xf32>, %b: i1)"
_TAIL_ALLOC = """  %z = pto.alloc_tile : !v
  pto.tload ins(%src : !pto.partition_tensor_view<16x16xf32>) outs(%z : !v)"""

KERNELS = f"""!v = !pto.tile_buf<vec, 16x16xf32>
!mb = !pto.multi_tile_buf<!pto.tile_buf<vec, 16x16xf32>, count=2>
func.func @f{_SIGNATURE} {{
{_REGIONS}
  cf.br ^end
^end:
{_TAIL_ALLOC}
  return
}}
func.func @g{_SIGNATURE} {{
{_REGIONS}
{_TAIL_ALLOC}
  scf.if %b {{
    scf.for %k = %c0 to %c4 step %c1 {{
      %q = pto.alloc_tile : !v
      pto.tload ins(%src : !pto.partition_tensor_view<16x16xf32>) outs(%q : !v)
      pto.tstore ins(%q : !v) outs(%dst : !pto.partition_tensor_view<16x16xf32>)
    }}
  }}
  return
}}
"""

MULTI = "used in a multi-block region of 'func.func' (its branches may repeat code)"
OUTSIDE = "written before the loop and used in it"


def analyse():
    module = parse_kernel(KERNELS, name="k.pto")
    with module.context:
        out = {}
        for view in module.body.operations:
            func = view.operation
            out[ir.StringAttr(func.attributes["sym_name"]).value] = function_liveness(func, keep_uses=True)
        return module, out


def loops(live):
    return [(loop.op.name, loop.start, loop.end, loop.parent, loop.first, loop.unstructured) for loop in live.loops]


def test_points_and_loops_of_a_multi_block_function():
    _module, lives = analyse()
    live = lives["f"]
    assert len(live.ops) == 38
    assert [live.point_of(op) for op in live.ops] == list(range(38))
    assert loops(live) == [
        ("func.func", 0, 37, -1, 0, True),
        ("scf.execute_region", 12, 16, 0, 12, True),
        ("scf.while", 18, 25, 0, -1, False),
        ("scf.for", 27, 32, 0, -1, False),
    ]
    allocs = [live.point_of(r.alloc) for r in live.buffers]
    assert allocs == [4, 7, 12, 19, 26, 35]
    assert [live.loop_of[p] for p in allocs] == [0, 0, 1, 2, 0, 0]
    assert all((r.start, r.end, r.first_use) == (0, 37, 0) for r in live.buffers)
    assert live.buffers[0].whole_loops == {0: MULTI, 1: OUTSIDE, 2: OUTSIDE, 3: OUTSIDE}
    # the region is first written in the scf.for (by the tload into its slot): it is the loop's region
    region = "a multi-tile region used in the loop (its slots rotate across iterations)"
    assert live.buffers[4].whole_loops == {0: region, 3: region}


def test_points_and_loops_of_nested_regions():
    _module, lives = analyse()
    live = lives["g"]
    assert len(live.ops) == 44
    assert loops(live) == [
        ("scf.execute_region", 12, 16, -1, 12, True),
        ("scf.while", 18, 25, -1, -1, False),
        ("scf.for", 27, 32, -1, -1, False),
        ("scf.for", 37, 41, -1, -1, False),
    ]
    allocs = [live.point_of(r.alloc) for r in live.buffers]
    assert allocs == [4, 7, 12, 19, 26, 34, 38]
    assert [live.loop_of[p] for p in allocs] == [-1, -1, 0, 1, -1, -1, 3]
    ranges = [(r.start, r.end, r.first_use) for r in live.buffers]
    # each from its first touch (the allocs hold no data): e.g. %x at 8, not at its alloc at 7
    assert ranges == [(5, 33, 5), (8, 9, 8), (12, 16, 12), (18, 25, 18), (27, 32, 27), (35, 35, 35), (39, 40, 39)]
    assert live.buffers[0].whole_loops == {0: OUTSIDE, 1: OUTSIDE, 2: OUTSIDE}
    assert live.buffers[3].whole_loops == {1: "used in 'scf.while', whose region may run repeatedly"}
    assert all(not r.whole_function for r in live.buffers)
    # every use is kept, with its owner's point and name
    for r in live.buffers:
        for point, owner, name, _operand in r.uses:
            assert live.ops[point] == owner and owner.name == name
