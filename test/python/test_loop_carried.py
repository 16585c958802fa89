"""Unit tests of pto_dialect.loop_carried: iteration-local vs loop-carried."""

from __future__ import annotations

from mlir import ir

import pto_dialect
from pto_dialect.dialect import load_dialect
from pto_dialect.loop_carried import loop_carried_buffers
from pto_dialect.loop_index import static_trip_count

V = "!pto.tile_buf<vec, 16x16xf32>"
D = "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>"
PV = "!pto.partition_tensor_view<16x16xf32>"
LOAD = "pto.tload ins(%src : !pv) outs(%{t} : !v)"
STORE = "pto.tstore ins(%{t} : !v) outs(%src : !pv)"


def carried(body: str, args: str = "") -> dict[str, str]:
    """Tags of the loop's allocs that are loop-carried, with the reason."""
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    load_dialect(ctx)
    with ctx, ir.Location.unknown():
        module = ir.Module.parse(
            pto_dialect.to_generic(
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
}}"""
            )
        )
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


def test_static_trip_count():
    ctx = ir.Context()
    with ctx, ir.Location.unknown():
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


def test_reads_through_a_view_count_and_writes_through_one_do_not():
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
    # a view may cover part of its source: writing it is no definite write
    written_through_view = f"""{alloc("t")}
    %flat = pto.treshape %t : !v -> !pto.tile_buf<vec, 8x32xf32>
    pto.texpands ins(%one : f32) outs(%flat : !pto.tile_buf<vec, 8x32xf32>)
    {STORE.format(t="t")}"""
    assert set(carried(written_through_view)) == {"t"}


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
            '%l = pto.alloc_tile : !pto.tile_buf<left, 16x16xf16>',
            '%r = pto.alloc_tile : !pto.tile_buf<right, 16x16xf16>',
            f"pto.tmatmul.acc ins(%c, %l, %r : {acc}, !pto.tile_buf<left, 16x16xf16>, !pto.tile_buf<right, 16x16xf16>) outs(%c : {acc})",
        ]
    )
    assert carried(body) == {"c": "it is read by 'pto.tmatmul.acc' before it is written in the iteration"}
