"""Unit tests of pto_dialect.analysis.liveness: program points and live ranges.

Allocs carry a `tag` attribute so a test can name them; the ops the test
cares about carry `at` attributes to look up their program points.
"""

from __future__ import annotations

from conftest import parse_kernel
from mlir import ir

from pto_dialect.analysis.liveness import DEFINED_OUTSIDE, MULTI_TILE_REGION, USED_AFTER, function_liveness

V = "!pto.tile_buf<vec, 16x16xf32>"
MB = f"!pto.multi_tile_buf<{V}, count=2>"
M = "!pto.partition_tensor_view<16x16xf32>"


def analyse(body: str, args: str = "", allow_unregistered: bool = False):
    text = f"""
!v = {V}
!mb = {MB}
func.func @f(%src: {M}, %dst: {M}{args}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
{body}
  return
}}"""
    module = parse_kernel(text, allow_unregistered=True) if allow_unregistered else parse_kernel(text)
    with module.context, ir.Location.unknown():
        func = module.body.operations[0].operation
        live = function_liveness(func)
        ranges = {}
        for r in live.buffers:
            ranges[ir.StringAttr(r.alloc.attributes["tag"]).value] = r
        points = {}
        for p, op in enumerate(live.ops):
            if "at" in op.attributes:
                points[ir.StringAttr(op.attributes["at"]).value] = p
        loops = [(loop.start, loop.end) for loop in live.loops]
        # keep the module alive with the results
        return module, live, ranges, points, loops


def alloc(tag: str, ty: str = "!v") -> str:
    return f'%{tag} = pto.alloc_tile {{tag = "{tag}"}} : {ty}'


def load(t: str, at: str = "") -> str:
    attr = f' {{at = "{at}"}}' if at else ""
    return f"pto.tload ins(%src : {M}) outs(%{t} : !v){attr}"


def store(t: str, at: str = "") -> str:
    attr = f' {{at = "{at}"}}' if at else ""
    return f"pto.tstore ins(%{t} : !v) outs(%dst : {M}){attr}"


def test_program_points_are_preorder_and_ranges_run_from_first_touch_to_last_use():
    # _module keeps the ops behind `live` alive while the test looks at them
    _module, live, r, p, _ = analyse("\n".join([alloc("a"), load("a", "l"), store("a", "s"), alloc("b"), store("b", "t")]))
    assert [op.name for op in live.ops[:4]] == ["arith.constant"] * 4
    assert live.point_of(r["a"].alloc) == 4
    assert (r["a"].start, r["a"].end) == (p["l"], p["s"])  # the alloc holds no data: from the tload
    assert (r["b"].start, r["b"].end) == (p["t"], p["t"])


def test_a_tile_allocated_up_front_lives_from_its_first_write():
    """PyPTO allocates every tile at the top of the function: a tile written
    late is not live before (as ptoas's planner has it, PTOAS
    test/lit/pto/plan_memory_modern_first_writer_reuse.pto), so two tiles
    used one after the other share bytes, and a tile first written in a
    loop body is the body's (iteration-local there) unless a use leaves
    the loop."""
    body = f"""
  {alloc("a")}
  {alloc("b")}
  {alloc("c")}
  {alloc("d")}
  {load("a", "la")}
  {store("a", "sa")}
  {load("b", "lb")}
  {store("b", "sb")}
  scf.for %i = %c0 to %c4 step %c1 {{
    {load("c", "lc")}
    {store("c", "sc")}
    {load("d", "ld")}
  }}
  {store("d", "after")}"""
    _, _, r, p, loops = analyse(body)
    (start, end), = loops
    assert (r["a"].start, r["a"].end) == (p["la"], p["sa"])
    assert (r["b"].start, r["b"].end) == (p["lb"], p["sb"])
    assert (r["c"].start, r["c"].end) == (p["lc"], p["sc"]) and r["c"].whole_loops == {}
    assert r["d"].whole_loops == {0: USED_AFTER} and (r["d"].start, r["d"].end) == (start, p["after"])
    assert r["a"].whole_loops == {} and r["b"].whole_loops == {}


def test_unused_buffer_lives_at_its_definition_only():
    _, _, r, _, _ = analyse(alloc("a"))
    assert r["a"].start == r["a"].end == 4


def test_defined_outside_and_used_inside_covers_the_loop():
    body = f"""
  {alloc("b")}
  {load("b")}
  scf.for %i = %c0 to %c4 step %c1 {{
    {store("b", "use")}
    {alloc("x")}
    {load("x")}
  }}
  {alloc("after")}"""
    _, live, r, p, loops = analyse(body)
    (start, end), = loops
    assert r["b"].end == end and r["b"].start < start
    assert r["b"].whole_loops == {0: DEFINED_OUTSIDE}
    # x is iteration-local: its own def to its own last use
    assert start < r["x"].start and r["x"].end < end and r["x"].whole_loops == {}
    assert r["after"].start > end


def test_loop_carried_buffer_covers_the_loop_from_its_start():
    body = f"""
  scf.for %i = %c0 to %c4 step %c1 {{
    {alloc("acc")}
    {alloc("x")}
    {load("x")}
    pto.tadd ins(%acc, %x : !v, !v) outs(%acc : !v)
  }}"""
    _, _, r, _, loops = analyse(body)
    (start, end), = loops
    assert (r["acc"].start, r["acc"].end) == (start, end)
    assert "loop-carried through memory" in r["acc"].whole_loops[0]
    assert "'pto.tadd'" in r["acc"].whole_loops[0]
    assert r["x"].start > start


def test_multi_tile_region_covers_every_loop_it_is_used_in():
    body = f"""
  %mb = pto.alloc_multi_tile {{tag = "mb"}} : !mb
  scf.for %j = %c0 to %c4 step %c1 {{
    scf.for %i = %c0 to %c4 step %c1 {{
      %s = arith.remui %i, %c2 : index
      %x = pto.multi_tile_get %mb[%s] : !mb -> !v
      {load("x", "get_use")}
    }}
    {alloc("t")}
    {load("t")}
  }}"""
    _, _, r, p, loops = analyse(body)
    outer, inner = loops
    assert r["mb"].end == outer[1]
    assert set(r["mb"].whole_loops) == {0, 1}
    # uses of the multi_tile_get result count as uses of the region
    assert r["mb"].end >= p["get_use"]


def test_region_defined_inside_its_loop_covers_the_loop():
    body = f"""
  scf.for %i = %c0 to %c4 step %c1 {{
    %mb = pto.alloc_multi_tile {{tag = "mb"}} : !mb
    %s = arith.remui %i, %c2 : index
    %x = pto.multi_tile_get %mb[%s] : !mb -> !v
    {load("x")}
  }}"""
    _, _, r, _, loops = analyse(body)
    assert (r["mb"].start, r["mb"].end) == loops[0]
    assert r["mb"].whole_loops == {0: MULTI_TILE_REGION}


def test_branches_of_an_if_are_disjoint():
    body = f"""
  scf.if %cond {{
    {alloc("a")}
    {load("a")}
  }} else {{
    {alloc("b")}
    {load("b")}
  }}"""
    _, _, r, _, loops = analyse(body, args=", %cond: i1")
    assert loops == []  # scf.if does not repeat
    assert r["a"].end < r["b"].start


def test_uses_through_if_results_and_iter_args_count_for_every_buffer_they_may_name():
    body = f"""
  {alloc("a")}
  {alloc("b")}
  %r = scf.if %cond -> (!v) {{
    scf.yield %a : !v
  }} else {{
    scf.yield %b : !v
  }}
  {alloc("init")}
  %res = scf.for %i = %c0 to %c4 step %c1 iter_args(%cur = %init) -> (!v) {{
    {alloc("next")}
    pto.texp ins(%cur : !v) outs(%next : !v)
    scf.yield %next : !v
  }}
  pto.tadd ins(%r, %res : !v, !v) outs(%res : !v) {{at = "last"}}"""
    _module, _, r, p, loops = analyse(body, args=", %cond: i1")
    (start, end), = loops
    for tag in ("a", "b", "init", "next"):
        assert r[tag].end == p["last"], tag
    # the join does not make %a and %b one buffer: each starts at its own first touch (its yield)
    assert r["a"].start < r["b"].start
    # %init is what the first iteration's %cur reads; %next is what later
    # iterations read through %cur before writing %next: loop-carried
    assert r["init"].start <= start  # its first touch: the loop op passing it in
    assert r["next"].start == start
    assert "loop-carried" in r["next"].whole_loops[0]


def test_a_join_does_not_merge_the_lifetimes_of_its_sources():
    """Two tiles yielded into one scf.if result later in the code than the
    first tile's own uses: the first tile's range stops at its own uses and
    the result's, not at the second tile's."""
    body = f"""
  {alloc("x")}
  {load("x")}
  {store("x", "x_last")}
  {alloc("a")}
  {load("a")}
  %r = scf.if %cond -> (!v) {{
    scf.yield %a : !v
  }} else {{
    scf.yield %x : !v
  }}
  {store("a", "a_last")}
  {alloc("late")}
  {store("late", "late_use")}"""
    _module, _, r, p, _ = analyse(body, args=", %cond: i1")
    # %x flows into %r (unused): its last use is the yield, before %a's last use
    assert r["x"].end < p["a_last"]
    assert r["a"].end == p["a_last"]
    assert r["late"].start > r["a"].end


def test_unanalysed_loops_and_unknown_aliases_are_conservative():
    body = f"""
  %w = scf.while (%i = %c0) : (index) -> index {{
    %more = arith.cmpi slt, %i, %c4 : index
    scf.condition(%more) %i : index
  }} do {{
  ^bb0(%i: index):
    {alloc("t")}
    {load("t")}
    scf.yield %i : index
  }}
  {alloc("u")}
  %view = "test.view"(%u) : (!v) -> !v
  {alloc("late")}"""
    _, live, r, _, loops = analyse(body, allow_unregistered=True)
    (start, end), = loops
    assert (r["t"].start, r["t"].end) == (start, end)
    assert "'scf.while'" in r["t"].whole_loops[0]
    assert (r["u"].start, r["u"].end) == (0, len(live.ops) - 1)
    assert "'test.view'" in r["u"].whole_function


def test_multi_block_region_is_treated_as_a_loop():
    text_body = f"""
  cf.br ^body
^body:
  {alloc("t")}
  {load("t")}
  cf.cond_br %again, ^body, ^exit
^exit:"""
    _, live, r, _, loops = analyse(text_body, args=", %again: i1")
    assert len(loops) == 1 and live.loops[0].unstructured
    assert (r["t"].start, r["t"].end) == loops[0]


def test_a_tile_carried_in_an_inner_loop_lives_through_the_enclosing_loops():
    # %acc is read before written in every iteration of the inner loop, so
    # the first inner iteration of each outer iteration reads what the
    # previous outer iteration left: it is carried in both loops.
    body = f"""
  scf.for %j = %c0 to %c4 step %c1 {{
    {alloc("before")}
    {load("before")}
    {store("before")}
    scf.for %i = %c0 to %c4 step %c1 {{
      {alloc("acc")}
      pto.tadd ins(%acc, %acc : !v, !v) outs(%acc : !v)
      {alloc("local")}
      {load("local")}
    }}
  }}"""
    _module, _, r, _, loops = analyse(body)
    outer, inner = loops
    assert (r["acc"].start, r["acc"].end) == outer
    assert set(r["acc"].whole_loops) == {0, 1}
    assert all("loop-carried" in why for why in r["acc"].whole_loops.values())
    # iteration-local tiles stay short, at either level
    assert r["local"].whole_loops == {} and r["local"].start > inner[0]
    assert r["before"].whole_loops == {} and r["before"].end < inner[0]


def test_uses_through_views_count_for_their_tile():
    half = "!pto.tile_buf<vec, 8x16xf32>"
    body = f"""
  {alloc("t")}
  {load("t", "t_load")}
  %top = pto.subview %t[%c0, %c0] sizes [8, 16] : !v -> {half}
  %flat = pto.treshape %top : {half} -> !pto.tile_buf<vec, 4x32xf32>
  {alloc("mid")}
  {load("mid")}
  {store("mid", "mid_last")}
  pto.tprint ins(%flat : !pto.tile_buf<vec, 4x32xf32>) {{at = "view_use"}}"""
    _module, _, r, p, _ = analyse(body)
    # the tile lives until the last use of a view of a view of it
    assert r["t"].end == p["view_use"] > p["mid_last"]
    assert r["t"].whole_loops == {} and not r["t"].whole_function
    assert r["mid"].start > r["t"].start and r["mid"].end < r["t"].end
