"""Unit tests of pto_dialect.analysis.buffers: op access and buffer aliasing."""

from __future__ import annotations

from conftest import parse_kernel
from mlir import ir

from pto_dialect.analysis.buffers import defining_alloc, escape_reason, forward_aliases, is_buffer, op_access, op_display_name

V = "!pto.tile_buf<vec, 16x16xf32>"
PV = "!pto.partition_tensor_view<16x16xf32>"


def parse(body: str, args: str = ""):
    """The function around `body` (ptoas syntax), parsed by MLIR's own parser
    from the generic form, so that unregistered test ops may appear."""
    if True:
        module = parse_kernel(
            (
                f"""!v = {V}
!pv = {PV}
func.func @f(%src: !pv{args}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
{body}
  return
}}"""
            ),
            allow_unregistered=True,
        )
    values = {}
    for op in _walk(module.body.operations[0].operation):
        if "tag" in op.attributes:
            values[ir.StringAttr(op.attributes["tag"]).value] = op
    return module, values


def _walk(op):
    out = []
    op.walk(lambda o: out.append(o) or ir.WalkResult.ADVANCE)
    return out


def test_op_access_reads_writes_and_views():
    module, ops = parse(
        """
  %a = pto.alloc_tile {tag = "a"} : !v
  %b = pto.alloc_tile : !v
  pto.tadd ins(%a, %b : !v, !v) outs(%a : !v) {tag = "add"}
  pto.tload ins(%src : !pv) outs(%b : !v) {tag = "load"}
  "test.use"(%a) {tag = "unknown"} : (!v) -> ()"""
    )
    a = ops["a"].results[0]
    add = op_access(ops["add"])
    assert add.reads == (ops["add"].operands[0], ops["add"].operands[1]) and add.writes == (a,)
    load = op_access(ops["load"])
    # tload reads its partition view (global memory, not a buffer) and writes the tile
    assert [is_buffer(v) for v in load.reads] == [False]
    assert len(load.writes) == 1 and is_buffer(load.writes[0])
    assert op_access(ops["a"]).reads == op_access(ops["a"]).writes == ()
    assert op_access(ops["unknown"]).escapes == (a,)
    assert escape_reason(a) == "it is used by 'test.use', which the pass does not know"
    assert defining_alloc(a) is not None and defining_alloc(a).name == "pto.alloc_tile"


def test_forward_aliases_through_for_iter_args_and_if_results():
    module, ops = parse(
        """
  %init = pto.alloc_tile {tag = "init"} : !v
  %res = scf.for %i = %c0 to %c4 step %c1 iter_args(%cur = %init) -> (!v) {
    %next = pto.alloc_tile {tag = "next"} : !v
    scf.yield %next : !v
  } {tag = "loop"}
  %other = pto.alloc_tile {tag = "other"} : !v
  %r = scf.if %cond -> (!v) {
    scf.yield %res : !v
  } else {
    scf.yield %other : !v
  } {tag = "if"}""",
        args=", %cond: i1",
    )
    init, nxt, other = (ops[k].results[0] for k in ("init", "next", "other"))
    loop, if_op = ops["loop"], ops["if"]
    iter_arg = loop.regions[0].blocks[0].arguments[1]
    # forward: where each value flows, not back from a join to its other sources
    assert forward_aliases(init) == {init, iter_arg, loop.results[0], if_op.results[0]}
    assert forward_aliases(nxt) == {nxt, iter_arg, loop.results[0], if_op.results[0]}
    assert forward_aliases(other) == {other, if_op.results[0]}
    assert forward_aliases(if_op.results[0]) == {if_op.results[0]}
    assert escape_reason(nxt) == "it is yielded by scf.yield"
    assert escape_reason(init) == "it is passed to a nested loop's iter_args"


def test_forward_aliases_of_an_unaliased_buffer_is_itself():
    module, ops = parse('  %a = pto.alloc_tile {tag = "a"} : !v')
    a = ops["a"].results[0]
    assert forward_aliases(a) == {a}
    assert escape_reason(a) is None


def test_a_view_that_escapes_names_the_view_and_the_use():
    module, ops = parse(
        """
  %t = pto.alloc_tile {tag = "t"} : !v
  %u = pto.alloc_tile {tag = "u"} : !v
  %top = pto.subview %t[%c0, %c0] sizes [8, 16] : !v -> !pto.tile_buf<vec, 8x16xf32>
  %flat = pto.treshape %u : !v -> !pto.tile_buf<vec, 8x32xf32>
  %again = pto.subview %flat[%c0, %c0] sizes [8, 16] : !pto.tile_buf<vec, 8x32xf32> -> !pto.tile_buf<vec, 8x16xf32>
  pto.tprint ins(%top : !pto.tile_buf<vec, 8x16xf32>)
  "test.use"(%again) : (!pto.tile_buf<vec, 8x16xf32>) -> ()"""
    )
    t, u = (ops[k].results[0] for k in ("t", "u"))
    # the view op that escapes is named, and the use, by the name users write
    assert escape_reason(t) == "a view of it (subview) escapes: it is used by 'pto.tprint', which the pass does not know"
    assert escape_reason(u) == "a view of it (subview) escapes: it is used by 'test.use', which the pass does not know"


def test_ops_are_named_as_users_write_them():
    assert op_display_name("pto.tmatmul_acc") == "pto.tmatmul.acc"
    assert op_display_name("pto.fence_barrier_all") == "pto.fence.barrier_all"
    assert op_display_name("pto.tadd") == "pto.tadd"
    assert op_display_name("test.use") == "test.use"
