"""What the scf and func ops the interpreter runs compile to: structured
loops and branches run their region's closures; a call runs the callee
through the interpreter (compiled on its first call)."""

from __future__ import annotations

from mlir import ir

from . import scalars
from .compiler import EMPTY_BLOCK, Compiler, Frame, Instr, int_width
from .errors import InterpreterError
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



TERMINATORS = frozenset({"func.return", "scf.yield"})
"""Ops compiled as the end of their block (what they yield), not on their own."""
