"""What the scf and func ops the interpreter runs compile to: structured
loops and branches run their region's closures; a call runs the callee
through the interpreter (compiled on its first call). And the pto ops with
a region (docs/dialect.md, "Ops with a region"): a section runs its body
once, where it stands, on pto-run's one core; a `pto.fusion_region` runs
its body and its results are what its `pto.yield` yields."""

from __future__ import annotations

from mlir import ir

from ..dialect.ops import IMPLICIT_TERMINATOR
from . import scalars
from .compiler import EMPTY_BLOCK, Block, Compiler, Frame, Instr, int_width
from .errors import InterpreterError
from .op_support import not_executed
from .registry import impl


@impl("scf.for")
def _compile_for(c: Compiler, op: ir.Operation) -> Instr:
    interp = c.interp
    operands = c.uses(op)
    lb, ub, step = operands[:3]
    inits = operands[3:]
    width = int_width(op, op.operands[0])
    unsigned_cmp = "unsignedCmp" in op.attributes
    blocks = list(op.regions[0].blocks)
    if len(blocks) != 1:
        raise InterpreterError(op.location, "scf.for must have a body of one block")
    args = list(blocks[0].arguments)
    iv = c.define(args[0])
    iter_slots = [c.define(a) for a in args[1:]]
    body = c.block(blocks[0], ("scf.yield",))
    results = [c.define(r) for r in op.results]
    if len(body.yields) != len(iter_slots) or len(inits) != len(iter_slots) or len(results) != len(iter_slots):
        raise InterpreterError(op.location, "scf.for iter_args, yields and results do not match")
    code, yields, location = body.code, body.yields, op.location
    run_code = interp.run_block
    top = (1 << width) if unsigned_cmp else (1 << (width - 1))

    def run(frame: Frame) -> None:
        # the bounds as the loop compares them: unsigned, or signed (an i1
        # true is -1 to a signed loop, though the frame holds it as 1)
        lo, hi, s = (scalars.unsigned(frame[v], width) for v in (lb, ub, step))
        if not unsigned_cmp:
            lo, hi, s = (x - (1 << width) if x >> (width - 1) else x for x in (lo, hi, s))
        if s <= 0:
            raise InterpreterError(location, f"scf.for step must be positive, got {s}")
        values = [frame[i] for i in inits]
        i = lo
        while i < hi:
            frame[iv] = scalars.wrap(i, width)
            for slot, v in zip(iter_slots, values):
                frame[slot] = v
            run_code(code, frame, location)
            values = [frame[y] for y in yields]
            i += s
            if i >= top:  # the induction variable would overflow: the loop ends
                break
        for slot, v in zip(results, values):
            frame[slot] = v

    return run


@impl("scf.if")
def _compile_if(c: Compiler, op: ir.Operation) -> Instr:
    interp = c.interp
    (cond,) = c.uses(op)
    then_block = c.region_block(op.regions[0], op)
    else_block = c.region_block(op.regions[1], op) if len(op.regions) > 1 else None
    results = [c.define(r) for r in op.results]
    then_block = then_block or EMPTY_BLOCK
    else_block = else_block or EMPTY_BLOCK
    for branch in (then_block, else_block):
        if results and len(branch.yields) != len(results):
            raise InterpreterError(op.location, "scf.if branches must yield one value per result")
    location = op.location
    run_code = interp.run_block

    def run(frame: Frame) -> None:
        branch = then_block if frame[cond] else else_block
        run_code(branch.code, frame, location)
        for slot, y in zip(results, branch.yields):
            frame[slot] = frame[y]

    return run


@impl("func.call")
def _compile_call(c: Compiler, op: ir.Operation) -> Instr:
    interp = c.interp
    callee = op.attributes["callee"].value
    args = c.uses(op)
    results = [c.define(r) for r in op.results]
    location = op.location

    def run(frame: Frame) -> None:
        values = interp.call(callee, [frame[a] for a in args], location)
        if len(values) != len(results):
            raise InterpreterError(location, f"@{callee} returned {len(values)} values, the call expects {len(results)}")
        for slot, v in zip(results, values):
            frame[slot] = v

    return run


def _pto_body(c: Compiler, op: ir.Operation, terminators: tuple[str, ...] = ()) -> Block:
    """The one block of a pto op's region, compiled: its ops in order, the
    implicit `gpu.yield` the reader ends it with dropped, then the last op
    taken as the terminator when it is one of `terminators`."""
    blocks = list(op.regions[0].blocks)
    if len(blocks) != 1:
        raise InterpreterError(op.location, f"'{op.name}' must have a body of one block")
    return c.block(blocks[0], terminators, implicit=IMPLICIT_TERMINATOR)


def _run_body(c: Compiler, op: ir.Operation, body: Block) -> Instr:
    run_code, code, location = c.interp.run_block, body.code, op.location

    def run(frame: Frame) -> None:
        run_code(code, frame, location)

    return run


@impl("pto.section_cube", "pto.section_vector")
def _compile_section(c: Compiler, op: ir.Operation) -> Instr:
    # ptoas compiles the body for one kind of core only (`#if defined(...)`
    # around it, on the cube or the vector core); pto-run's one core is both,
    # so it runs every section's body, once, where it stands
    return _run_body(c, op, _pto_body(c, op))


@impl("pto.section_simt")
def _compile_section_simt(c: Compiler, op: ir.Operation) -> Instr:
    # its body is the code of each SIMT thread of the launch: pto-run runs
    # one core's code in order, so it runs a launch of one thread only
    dims = [op.attributes[d].value for d in ("dimX", "dimY", "dimZ")]
    body = _pto_body(c, op)
    if dims != [1, 1, 1]:
        launch = ", ".join(map(str, dims))
        return not_executed(c, op, f"runs its body on each SIMT thread of <<<{launch}>>>: pto-run runs a launch of one thread (<<<1, 1, 1>>>) only")
    return _run_body(c, op, body)


@impl("pto.fusion_region")
def _compile_fusion_region(c: Compiler, op: ir.Operation) -> Instr:
    body = _pto_body(c, op, ("pto.yield",))
    results = [c.define(r) for r in op.results]
    if len(body.yields) != len(results):
        raise InterpreterError(op.location, "pto.fusion_region must yield one value per result")
    run_code, code, yields, location = c.interp.run_block, body.code, body.yields, op.location

    def run(frame: Frame) -> None:
        run_code(code, frame, location)
        for slot, y in zip(results, yields):
            frame[slot] = frame[y]

    return run


TERMINATORS = frozenset({"func.return", "scf.yield", "pto.yield", IMPLICIT_TERMINATOR})
"""Ops compiled as the end of their block (what they yield), not on their own."""
