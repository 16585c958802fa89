"""What a pipeline loop holds besides its own tiles (docs/passes.md: the
conversion's and the lowering's fit checks): per memory space, the bytes of
the buffers defined before the loop that it uses, live throughout it, and of
the buffers live across it that it does not use (written before it, used
after it, by the allocator's lifetimes: pto_dialect/analysis/liveness.py).

One `LoopMemory` serves one pass run. The first question about a loop of a
function answers it for every pipeline loop of that function at once, on
the IR as it is then, with one reading of the function's lifetimes, and
only when some loop has buffers allocated around it that it does not use.

After a rewrite, the caller says what it changed. The conversion's rewrite
(`forget_reads`) changes its loop's body and puts buffers just before the
loop that live only until its end: it changes neither which buffers
another loop uses from outside nor which are live across it, so the
answers stay (asking again after each rewrite made the conversion
quadratic: K = 400 loops took 35 s, bench/tool). The lowering's
replication (`forget`) puts its copies' buffers where an enclosing loop
uses them from outside: every answer is read again.
"""

from __future__ import annotations

from mlir import ir

from ..dialect.effects import ALLOC_OPS, VIEW_OPS
from ..dialect.targets import space_spec
from ..dialect.types import MultiTileBufType, align_up, buffer_type
from ..support.ir_utils import nested_in
from .buffers import is_buffer


def _loops(func: ir.Operation) -> list[ir.Operation]:
    """The scf.for ops in `func`, found by a walk in C++ that calls Python
    only for them (a function of K loops has some ten times as many ops)."""
    from mlir.rewrite import RewritePatternSet, walk_and_apply_patterns

    found: list[ir.Operation] = []

    def visit(op, _rewriter) -> bool:
        found.append(op.operation)
        return True  # "no match": the walk changes nothing

    patterns = RewritePatternSet()
    patterns.add("scf.for", visit)
    walk_and_apply_patterns(func, patterns.freeze())
    return found


class LoopMemory:
    def __init__(self, arch: str) -> None:
        self.arch = arch
        self.block_buffers: dict[ir.Block, list[ir.Value]] = {}  # buffers_defined_in, per block
        self.spans: dict[ir.Operation, tuple] = {}  # per function: its buffers' live ranges and its loops' points
        self.answers: dict[ir.Operation, dict[str, int]] = {}  # `around`, per pipeline loop of the functions answered
        self.answered: set[ir.Operation] = set()  # those functions

    def forget(self) -> None:
        """Drop everything read: the caller is about to change the IR (values
        read may be erased; reading them again would touch freed memory)."""
        self.forget_reads()
        self.answers.clear()  # (`answered` stays: from now on each loop is read as the IR then is)

    def forget_reads(self) -> None:
        """Drop the IR read, keep the answers: the caller is about to rewrite
        a loop as the conversion does (the module's docstring says why the
        other loops' answers stay right)."""
        self.block_buffers.clear()
        self.spans.clear()

    def around(self, loop: ir.Operation) -> dict[str, int]:
        """Per space, the bytes `loop` holds besides what it allocates: the
        buffers from before it that it uses and those live across it."""
        answer = self.answers.get(loop)
        if answer is not None:
            return answer
        func = loop
        while func is not None and func.name != "func.func":
            owner = func.block.owner
            func = owner.operation if owner is not None else None
        if func is not None and func not in self.answered:
            self.answered.add(func)
            for other in _loops(func):
                if "pto.pipeline_stages" in other.attributes:
                    self.answers[other] = self.read_around(other)
            answer = self.answers.get(loop)
            if answer is not None:
                return answer
        # Asked after `forget`, or not a pipeline loop of its function when
        # the function was first asked about: read the IR as it is now.
        self.forget_reads()
        return self.read_around(loop)

    def read_around(self, loop: ir.Operation) -> dict[str, int]:
        """`around`, read from the IR as it is."""
        held: dict[str, int] = {}
        used = self.used_from_outside(loop)
        for value in used:
            space = buffer_type(value.type).loc
            held[space] = held.get(space, 0) + self.buffer_bytes(value.type)
        for space, size in self.held_across(loop, used).items():
            held[space] = held.get(space, 0) + size
        return held

    def held_across(self, loop: ir.Operation, used: list[ir.Value]) -> dict[str, int]:
        """Per space, the bytes of the buffers allocated outside `loop` that
        are live across it without being used in it. Most loops have none
        around them (every tile in a loop body): then no liveness is read."""
        others = []
        op = loop
        while op is not None and op.name != "func.func":
            block = op.block
            others.extend(v for v in self.buffers_defined_in(block) if not isinstance(v, ir.BlockArgument) and v.owner.name in ALLOC_OPS and v not in used)
            owner = block.owner
            op = owner.operation if owner is not None else None
        if not others or op is None:
            return {}
        spans = self.spans.get(op)
        if spans is None:
            from .liveness import function_liveness  # only for loops with buffers around them

            live = function_liveness(op, carried=False)
            by_alloc = {r.alloc: r for r in live.buffers}
            loops = {info.op: (info.start, info.end) for info in live.loops}
            spans = self.spans[op] = (by_alloc, loops)
        by_alloc, loops = spans
        where = loops.get(loop)
        if where is None:  # a loop made after the liveness was read: not one of the user's
            return {}
        start, end = where
        held: dict[str, int] = {}
        for value in others:
            r = by_alloc.get(value.owner.operation)
            if r is not None and r.start < start and r.end > end:
                space = buffer_type(value.type).loc
                held[space] = held.get(space, 0) + self.buffer_bytes(value.type)
        return held

    def used_from_outside(self, loop: ir.Operation) -> list[ir.Value]:
        """The buffer values defined before `loop` (in the blocks around it)
        that ops inside it use."""
        used = []
        op = loop
        while op is not None and op.name != "func.func":
            block = op.block
            for value in self.buffers_defined_in(block):
                if any(nested_in(use.owner.operation, loop) for use in value.uses):  # the loop op itself too (an iter_args init)
                    used.append(value)
            owner = block.owner
            op = owner.operation if owner is not None else None
        return used

    def buffers_defined_in(self, block: ir.Block) -> list[ir.Value]:
        """The buffer values a block defines: its arguments, and the results
        of its allocs, views and region ops (an scf.for or scf.if yielding
        a tile), once per block and run."""
        found = self.block_buffers.get(block)
        if found is None:
            found = [a for a in block.arguments if is_buffer(a)]
            for view in block.operations:
                op = view.operation
                if op.name in ALLOC_OPS or op.name in VIEW_OPS or (len(op.regions) and len(op.results)):
                    found.extend(r for r in op.results if is_buffer(r))
            self.block_buffers[block] = found
        return found

    def buffer_bytes(self, t: ir.Type) -> int:
        view = buffer_type(t)
        alignment = space_spec(self.arch, view.loc).alignment
        if isinstance(view, MultiTileBufType):
            return view.region_bytes(alignment)
        return align_up(view.nbytes, alignment)

