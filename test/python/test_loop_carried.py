"""Unit tests of pto_dialect.loop_carried: iteration-local vs loop-carried."""

from __future__ import annotations

from mlir import ir

from pto_dialect.dialect import load_dialect
from pto_dialect.loop_carried import loop_carried_buffers
from pto_dialect.loop_index import static_trip_count

V = '!pto.tile_buf<"vec", array<i64: 16, 16>, f32>'
LOAD = '"pto.tload"(%src, %c0, %c0, %{t}) : (memref<64x64xf32>, index, index, !v) -> ()'
STORE = '"pto.tstore"(%{t}, %src, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()'


def carried(body: str, args: str = "") -> dict[str, str]:
    """Tags of the loop's allocs that are loop-carried, with the reason."""
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    load_dialect(ctx)
    with ctx, ir.Location.unknown():
        module = ir.Module.parse(
            f"""!v = {V}
func.func @f(%src: memref<64x64xf32>, %n: index{args}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {{
{body}
  }}
  return
}}"""
        )
        ops = []
        module.body.operations[0].operation.walk(lambda o: ops.append(o) or ir.WalkResult.ADVANCE, ir.WalkOrder.PRE_ORDER)
        loop = next(o for o in ops if o.name == "scf.for")
        allocs = {ir.StringAttr(o.attributes["tag"]).value: o.results[0] for o in ops if "tag" in o.attributes}
        by_value = {v: k for k, v in allocs.items()}
        return {by_value[v]: c.reason for v, c in loop_carried_buffers(loop, list(allocs.values())).items()}


def alloc(t: str) -> str:
    return f'%{t} = "pto.alloc_tile"() {{tag = "{t}"}} : () -> !v'


def test_written_before_read_is_iteration_local():
    assert carried("\n".join([alloc("t"), LOAD.format(t="t"), STORE.format(t="t")])) == {}


def test_read_before_write_is_carried():
    body = "\n".join([alloc("acc"), alloc("x"), LOAD.format(t="x"), '"pto.tadd"(%acc, %x, %acc) : (!v, !v, !v) -> ()'])
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
