"""Unit tests of pto_dialect.analysis.loop_carried: iteration-local vs loop-carried."""

from __future__ import annotations

from conftest import parse_kernel
from mlir import ir

from pto_dialect.analysis.loop_carried import loop_carried_buffers
from pto_dialect.analysis.loop_index import static_trip_count

V = "!pto.tile_buf<vec, 16x16xf32>"
D = "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>"
PV = "!pto.partition_tensor_view<16x16xf32>"
LOAD = "pto.tload ins(%src : !pv) outs(%{t} : !v)"
STORE = "pto.tstore ins(%{t} : !v) outs(%src : !pv)"
FILL = "pto.texpands ins(%one : f32) outs(%{t} : !v)"


def carried(body: str, args: str = "") -> dict[str, str]:
    """Tags of the loop's allocs that are loop-carried, with the reason."""
    module = parse_kernel(
        f"""!v = {V}
!d = {D}
!pv = {PV}
func.func @f(%src: !pv, %n: index{args}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {{
{body}
  }}
  return
}}""",
        allow_unregistered=True,
    )
    with module.context, ir.Location.unknown():
        ops = []
        module.body.operations[0].operation.walk(lambda o: ops.append(o) or ir.WalkResult.ADVANCE, ir.WalkOrder.PRE_ORDER)
        loop = next(o for o in ops if o.name == "scf.for")
        allocs = {ir.StringAttr(o.attributes["tag"]).value: o.results[0] for o in ops if "tag" in o.attributes}
        by_value = {v: k for k, v in allocs.items()}
        return {by_value[v]: c.reason for v, c in loop_carried_buffers(loop, list(allocs.values())).items()}


def alloc(t: str, ty: str = "!v", valid: str = "") -> str:
    return f'%{t} = pto.alloc_tile {valid}{{tag = "{t}"}} : {ty}'


def test_written_before_read_is_iteration_local():
    assert carried("\n".join([alloc("t"), LOAD.format(t="t"), STORE.format(t="t")])) == {}


def test_read_before_write_is_carried():
    body = "\n".join([alloc("acc"), alloc("x"), LOAD.format(t="x"), "pto.tadd ins(%acc, %x : !v, !v) outs(%acc : !v)"])
    result = carried(body)
    assert set(result) == {"acc"}
    assert result["acc"] == "it is read by 'pto.tadd' before it is written in the iteration"


def test_a_write_in_one_branch_only_does_not_count():
    body = f"""{alloc("t")}
    scf.if %cond {{
      {LOAD.format(t="t")}
    }}
    {STORE.format(t="t")}"""
    assert set(carried(body, ", %cond: i1")) == {"t"}
    both = f"""{alloc("t")}
    scf.if %cond {{
      {LOAD.format(t="t")}
    }} else {{
      {LOAD.format(t="t")}
    }}
    {STORE.format(t="t")}"""
    assert carried(both, ", %cond: i1") == {}


def test_a_write_in_a_nested_loop_counts_only_when_it_surely_runs():
    runs = f"""{alloc("t")}
    scf.for %j = %c0 to %c4 step %c1 {{
      {LOAD.format(t="t")}
    }}
    {STORE.format(t="t")}"""
    assert carried(runs) == {}
    maybe = runs.replace("%c0 to %c4", "%c0 to %n")
    assert set(carried(maybe)) == {"t"}


def test_an_unknown_use_counts_as_a_read():
    body = "\n".join([alloc("t"), '"test.peek"(%t) : (!v) -> ()', LOAD.format(t="t")])
    assert "used by 'test.peek'" in carried(body)["t"]


def test_static_trip_count(context):
    module = ir.Module.parse(
        """func.func @f(%n: index) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c10 = arith.constant 10 : index
  scf.for %i = %c0 to %c10 step %c3 { }
  scf.for %i = %c10 to %c0 step %c3 { }
  scf.for %i = %c0 to %n step %c3 { }
  return
}"""
    )
    loops = [op for op in module.body.operations[0].regions[0].blocks[0].operations if op.name == "scf.for"]
    assert [static_trip_count(loop.operation) for loop in loops] == [4, 0, None]


def test_a_write_through_a_join_is_not_a_definite_write():
    # %r is %a or %b: loading into %r may leave %a untouched, so the store
    # of %a may read what the previous iteration left: %a is loop-carried.
    body = f"""{alloc("a")}
    {alloc("b")}
    %r = scf.if %cond -> (!v) {{
      scf.yield %a : !v
    }} else {{
      scf.yield %b : !v
    }}
    {LOAD.format(t="r")}
    {STORE.format(t="a")}"""
    assert set(carried(body, ", %cond: i1")) == {"a"}


def test_a_read_through_a_join_reads_every_buffer_it_may_name():
    body = f"""{alloc("a")}
    {alloc("b")}
    %r = scf.if %cond -> (!v) {{
      scf.yield %a : !v
    }} else {{
      scf.yield %b : !v
    }}
    {STORE.format(t="r")}"""
    assert set(carried(body, ", %cond: i1")) == {"a", "b"}


def test_a_write_through_an_alias_of_one_buffer_is_definite():
    body = f"""{alloc("a")}
    %r = scf.if %cond -> (!v) {{
      scf.yield %a : !v
    }} else {{
      scf.yield %a : !v
    }}
    {LOAD.format(t="r")}
    {STORE.format(t="a")}"""
    assert carried(body, ", %cond: i1") == {}


def test_reads_and_writes_through_views_count_for_the_elements_they_touch():
    half = "!pto.tile_buf<vec, 8x16xf32>"
    read_first = f"""{alloc("t")}
    %top = pto.subview %t[%c0, %c0] sizes [8, 16] : !v -> {half}
    pto.tstore ins(%top : {half}) outs(%src : !pv)
    {LOAD.format(t="t")}"""
    assert carried(read_first) == {"t": "it is read by 'pto.tstore' before it is written in the iteration"}
    written_whole = f"""{alloc("t")}
    {LOAD.format(t="t")}
    %top = pto.subview %t[%c0, %c0] sizes [8, 16] : !v -> {half}
    pto.tstore ins(%top : {half}) outs(%src : !pv)"""
    assert carried(written_whole) == {}
    # a treshape to the same bytes, written whole, writes every element of its source
    written_through_view = f"""{alloc("t")}
    %flat = pto.treshape %t : !v -> !pto.tile_buf<vec, 8x32xf32>
    pto.texpands ins(%one : f32) outs(%flat : !pto.tile_buf<vec, 8x32xf32>)
    {STORE.format(t="t")}"""
    assert carried(written_through_view) == {}
    # two subview halves write the whole tile; one half leaves rows 8-15 to the last iteration
    bottom = f"%bot = pto.subview %t[%c8, %c0] sizes [8, 16] : !v -> {half}"
    fill = "pto.texpands ins(%one : f32) outs(%{v} : " + half + ")"
    halves = "\n".join(
        [alloc("t"), f"%top = pto.subview %t[%c0, %c0] sizes [8, 16] : !v -> {half}", bottom, fill.format(v="top"), fill.format(v="bot"), STORE.format(t="t")]
    )
    assert carried(halves) == {}
    one_half = [alloc("t"), f"%top = pto.subview %t[%c0, %c0] sizes [8, 16] : !v -> {half}", bottom, fill.format(v="top"), STORE.format(t="t")]
    # rows 8-15 no iteration writes: the same undefined bytes in every iteration, nothing carried
    assert carried("\n".join(one_half)) == {}
    # written after the read, they are what the last iteration left
    assert carried("\n".join([*one_half, fill.format(v="bot")])) == {
        "t": "'pto.tstore' reads 16x16 elements of it, more than the iteration writes of it before (8x16): the rest is what an earlier iteration left"
    }


def test_a_write_covers_only_the_valid_region_it_writes():
    """A tload into a tile with valid=8x16 writes 8 rows; a view whose valid
    region is larger reads all 16 (issue 21: multi-buffering it, replicating
    it or sharing its bytes changed the kernel's results)."""
    part = "!pto.tile_buf<vec, 16x16xf32, valid=8x16>"
    pv8 = "!pto.partition_tensor_view<8x16xf32>"
    load = f"pto.tload ins(%p8 : {pv8}) outs(%t : {part})"
    p8 = f"%p8 = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c8, %c16] : !pto.tensor_view<16x16xf32> -> {pv8}"
    tv = "%tv = pto.make_tensor_view %ptr, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xf32>"
    args = ", %ptr: !pto.ptr<f32>"
    # after the store, the iteration fills the whole tile through the view: rows 8-15 are carried
    refill = "pto.texpands ins(%one : f32) outs(%w : !v)"
    for view in (f"%w = pto.treshape %t : {part} -> !v", f"%w = pto.subview %t[%c0, %c0] sizes [16, 16] : {part} -> !v"):
        body = "\n".join([tv, p8, alloc("t", part), load, view, "pto.tstore ins(%w : !v) outs(%src : !pv)", refill])
        assert "more than the iteration writes of it before (8x16)" in carried(body, args)["t"], view
    # the same with a dynamic valid shape: rows %n of 16 written, 16 read
    body = "\n".join(
        [
            alloc("t", "!d", "valid_row = %n valid_col = %c16 "),
            "pto.tload ins(%src : !pv) outs(%t : !d)",
            "%w = pto.treshape %t : !d -> !v",
            STORE.format(t="w"),
            refill,
        ]
    )
    assert "more than the iteration writes of it before (?x16)" in carried(body)["t"]
    # or a valid shape computed in the loop: an earlier iteration may have written more rows
    body = "\n".join(
        [
            "%m = arith.subi %n, %i : index",
            alloc("t", "!d", "valid_row = %m valid_col = %c16 "),
            "pto.tload ins(%src : !pv) outs(%t : !d)",
            "%w = pto.treshape %t : !d -> !v",
            STORE.format(t="w"),
        ]
    )
    assert "more than the iteration writes of it before (?x16)" in carried(body)["t"]
    # reading the tile itself reads its valid region: iteration-local
    body = "\n".join([tv, p8, alloc("t", part), load, f"pto.tstore ins(%t : {part}) outs(%p8 : {pv8})"])
    assert carried(body, args) == {}


def test_element_wise_ops_read_their_sources_over_dst_s_domain():
    # %a has 8 valid rows written; tadd into a 16x16 dst reads all 16 rows of %a
    part = "!pto.tile_buf<vec, 16x16xf32, valid=8x16>"
    pv8 = "!pto.partition_tensor_view<8x16xf32>"
    body = "\n".join(
        [
            "%tv = pto.make_tensor_view %ptr, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xf32>",
            f"%p8 = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c8, %c16] : !pto.tensor_view<16x16xf32> -> {pv8}",
            alloc("a", part),
            alloc("o"),
            f"pto.tload ins(%p8 : {pv8}) outs(%a : {part})",
            f"pto.tadd ins(%a, %a : {part}, {part}) outs(%o : !v)",
            STORE.format(t="o"),
            f"%w = pto.treshape %a : {part} -> !v",
            "pto.texpands ins(%one : f32) outs(%w : !v)",
        ]
    )
    assert set(carried(body, ", %ptr: !pto.ptr<f32>")) == {"a"}
    # without the last write rows 8-15 of %a are never written: nothing to carry
    assert carried("\n".join(body.splitlines()[:-2]), ", %ptr: !pto.ptr<f32>") == {}


def test_partial_writers_do_not_cover_what_they_leave():
    """Each partial writer leaves part of its dst to what the last iteration
    wrote there (each body fills the dst whole after reading it)."""
    # a column reduction writes row 0 of its dst only
    body = "\n".join([alloc("s"), alloc("d"), LOAD.format(t="s"), "pto.tcolsum ins(%s : !v) outs(%d : !v)", STORE.format(t="d"), FILL.format(t="d")])
    assert set(carried(body)) == {"d"}
    row = "!pto.tile_buf<vec, 1x16xf32>"
    body = "\n".join(
        [alloc("s"), alloc("d", row), LOAD.format(t="s"), f"pto.tcolsum ins(%s : !v) outs(%d : {row})", f"pto.tstore ins(%d : {row}) outs(%src : !pv)"]
    )
    assert carried(body) == {}
    # tconcat writes its sources' columns: two 16x8 into a 16x32 leaves 16 columns
    narrow, wide = "!pto.tile_buf<vec, 16x8xf32>", "!pto.tile_buf<vec, 16x32xf32>"
    fill = "pto.texpands ins(%one : f32) outs(%{v} : " + narrow + ")"
    concat = f"pto.tconcat ins(%a, %b : {narrow}, {narrow}) outs(%d : {wide})"
    body = "\n".join(
        [
            alloc("a", narrow),
            alloc("b", narrow),
            alloc("d", wide),
            fill.format(v="a"),
            fill.format(v="b"),
            concat,
            f"pto.tstore ins(%d : {wide}) outs(%src : !pv)",
            f"pto.texpands ins(%one : f32) outs(%d : {wide})",
        ]
    )
    assert set(carried(body)) == {"d"}
    # a matmul writes lhs's valid rows x rhs's valid columns
    acc, left, right = "!pto.tile_buf<acc, 16x16xf32>", "!pto.tile_buf<left, 16x16xf16, valid=8x16>", "!pto.tile_buf<right, 16x16xf16>"
    left2 = "!pto.tile_buf<left, 16x16xf16>"
    body = "\n".join(
        [
            alloc("c", acc),
            alloc("l", left),
            alloc("r", right),
            alloc("r2", left2),
            f"pto.texpands ins(%h : f16) outs(%r2 : {left2})",
            f"pto.texpands ins(%one : f32) outs(%l : {left})".replace("%one : f32", "%h : f16"),
            f"pto.texpands ins(%h : f16) outs(%r : {right})",
            f"pto.tmatmul ins(%l, %r : {left}, {right}) outs(%c : {acc})",
            f"pto.tmov ins(%c : {acc}) outs(%o : !v)",
            alloc("o"),
            f"pto.tmatmul ins(%r2, %r : {left2}, {right}) outs(%c : {acc})",
        ]
    )
    body = body.replace(f"pto.tmov ins(%c : {acc}) outs(%o : !v)\n{alloc('o')}", f"{alloc('o')}\npto.tmov ins(%c : {acc}) outs(%o : !v)")
    assert set(carried(body, ", %h: f16")) == {"c"}


def test_a_partial_write_first_is_no_definite_write():
    # tsetval writes one element: the rest is what the previous iteration left
    body = "\n".join([alloc("t"), "pto.tsetval ins(%i, %one : index, f32) outs(%t : !v)", STORE.format(t="t")])
    assert carried(body) == {"t": "it is read by 'pto.tstore' before it is written in the iteration"}
    # after a covering write, a partial one changes nothing
    body = "\n".join([alloc("t"), LOAD.format(t="t"), "pto.tsetval ins(%i, %one : index, f32) outs(%t : !v)", STORE.format(t="t")])
    assert carried(body) == {}


def test_set_validshape_forgets_what_was_written():
    load = "pto.tload ins(%src : !pv) outs(%t : !d)"
    store = "pto.tstore ins(%t : !d) outs(%src : !pv)"
    valid = "valid_row = %c8 valid_col = %c16 "
    resized = "\n".join([alloc("t", "!d", valid), load, "pto.set_validshape %t, %c16, %c16 : !d", store])
    assert set(carried(resized)) == {"t"}
    assert carried("\n".join([alloc("t", "!d", valid), "pto.set_validshape %t, %c16, %c16 : !d", load, store])) == {}


def test_reasons_name_ops_as_users_write_them():
    acc = "!pto.tile_buf<acc, 16x16xf32>"
    body = "\n".join(
        [
            alloc("c", acc),
            "%l = pto.alloc_tile : !pto.tile_buf<left, 16x16xf16>",
            "%r = pto.alloc_tile : !pto.tile_buf<right, 16x16xf16>",
            f"pto.tmatmul.acc ins(%c, %l, %r : {acc}, !pto.tile_buf<left, 16x16xf16>, !pto.tile_buf<right, 16x16xf16>) outs(%c : {acc})",
        ]
    )
    assert carried(body) == {"c": "it is read by 'pto.tmatmul.acc' before it is written in the iteration"}


def test_a_tile_the_loop_only_reads_is_said_to_be_never_written():
    never = "it is never written in the loop: 'pto.tstore' reads what it holds from before the loop"
    assert carried("\n".join([alloc("t"), STORE.format(t="t")])) == {"t": never}
    # through a view too (the full walk)
    body = "\n".join([alloc("t"), "%w = pto.treshape %t : !v -> !v", STORE.format(t="w")])
    assert carried(body) == {"t": never}


def _slot_views(module) -> list:
    """(loop, region) of every multi_tile_get directly in an scf.for body."""
    found = []

    def visit(op):
        if op.name == "pto.multi_tile_get" and op.parent.name == "scf.for" and not isinstance(op.operands[0], ir.BlockArgument):
            found.append((op.parent, op.operands[0]))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def test_a_slot_found_local_in_a_straight_line_is_what_the_walk_finds(monkeypatch):
    """A multi-tile region used through one multi_tile_get in the loop body
    (what the conversion makes) gets its verdict from the straight-line
    check when that says iteration-local (the allocator asks this of every
    converted loop); the walk must agree on every such region of converted
    generated kernels, carried ones included."""
    import random

    import pto_dialect
    from pto_dialect.analysis import loop_carried
    from pto_dialect.testing.kernel_gen import addressed, generate

    regions = shortcut = 0
    for seed in range(60):
        kernel = generate(seed)
        for text in (kernel.text, addressed(kernel, random.Random(seed)).text):
            module = parse_kernel(text, quiet=True)
            with module.context, ir.Location.unknown():
                pto_dialect.run_passes(module, "convert-to-ptoas-multi-buffer{spaces=vec,mat,left,right,acc}")
                for loop, region in _slot_views(module):
                    regions += 1
                    fast = loop_carried_buffers(loop, [region])
                    with monkeypatch.context() as m:
                        m.setattr(loop_carried, "_local_through_its_slot", lambda *_: loop_carried.UNDECIDED)
                        walked = loop_carried_buffers(loop, [region])
                    assert {v: c.reason for v, c in fast.items()} == {v: c.reason for v, c in walked.items()}
                    shortcut += loop_carried._local_through_its_slot(region, loop.regions[0].blocks[0], None) is None
    assert regions > 50 and shortcut > 20, (regions, shortcut)
