"""The evaluator: executes `func.func`s of pto, func, scf and arith ops.

Each function is compiled once, on its first call (compiler.py), into Python
closures over a frame; what each op compiles to lives with its dialect
(`pto_ops`, `arith_ops`, `control_ops`), the memory model in memory.py.
Unknown ops are an error naming the op at its location, raised when the
function containing it is compiled; a pto op without semantics here (the
syntax tier, and ops not executed yet) is one when it is reached.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from dataclasses import dataclass, field

from mlir import ir

from ..dialect.annotations import ArchError, resolve_arch
from ..support.run_limits import DEFAULT_MAX_OPS
from . import control_ops, registry
from .compiler import Block, Compiler, Frame, Instr
from .errors import InterpreterError
from .memory import Memory, TileRef
from .trace import TraceEvent

MAX_CALL_DEPTH = 200

MAX_NESTING_DEPTH = 1000
"""Deepest op nesting executed: what the parser accepts (source_text.MAX_NESTING)."""
_FRAMES_PER_LEVEL = 4  # Python frames one nesting level costs (compiling: 3; running: 2)

SUPPORTED_OPS = frozenset(registry.compilers()) | control_ops.TERMINATORS
"""Every op name (generic) the interpreter executes: what the op modules
register (`@impl`) and the terminators their regions end with."""


@dataclass(frozen=True)
class ExecutionWarning:
    location: ir.Location
    message: str


@dataclass
class _Function:
    name: str
    location: ir.Location
    arg_slots: list[int]
    body: Block | None  # None for a declaration
    template: list = field(default_factory=list)


class Interpreter:
    """Executes functions of one module. Tile memory (and so every private
    buffer) lives as long as the interpreter: calling a function twice finds
    what the first call left, as on the device."""

    def __init__(
        self,
        module: ir.Operation,
        *,
        arch: str | None = None,
        trace: bool = False,
        max_ops: int = DEFAULT_MAX_OPS,
    ) -> None:
        try:
            self.arch = resolve_arch(module, arch)
        except ArchError as e:
            raise InterpreterError(module.location, str(e)) from None
        self.memory = Memory(self.arch)
        self.trace: list[TraceEvent] | None = [] if trace else None
        self.warnings: list[ExecutionWarning] = []
        self.ops_executed = 0
        self.max_ops = max_ops
        self._symbols = ir.SymbolTable(module)
        self.frames_needed = _FRAMES_PER_LEVEL * (_nesting_depth(module) + MAX_CALL_DEPTH) + 500
        self._compiled: dict[str, _Function] = {}
        self._warned: set[tuple[int, str]] = set()
        self._depth = 0
        self._next_key = 0

    # -- running ------------------------------------------------------------------

    def function(self, name: str) -> ir.Operation | None:
        """The `func.func` named `name` in the module, or None."""
        try:
            op = self._symbols[name].operation
        except KeyError:
            return None
        return op if op.name == "func.func" else None

    def call(self, name: str, args: list, location: ir.Location | None = None) -> list:
        fn = self._compiled.get(name)
        if fn is None:
            op = self.function(name)
            if op is None:
                raise InterpreterError(location, f"no function named @{name}")
            fn = self._compiled[name] = self._compile_function(name, op)
        if fn.body is None:
            raise InterpreterError(location or fn.location, f"function @{name} has no body to execute")
        if len(args) != len(fn.arg_slots):
            raise InterpreterError(location, f"@{name} takes {len(fn.arg_slots)} arguments, got {len(args)}")
        if self._depth >= MAX_CALL_DEPTH:
            raise InterpreterError(location, f"call depth exceeds {MAX_CALL_DEPTH} (unbounded recursion?)")
        frame = list(fn.template)
        for slot, value in zip(fn.arg_slots, args):
            frame[slot] = value
        self._depth += 1
        try:
            self.run_block(fn.body.code, frame, fn.location)
        finally:
            self._depth -= 1
        return [frame[s] for s in fn.body.yields]

    def run_block(self, code: list[Instr], frame: Frame, location: ir.Location) -> None:
        # +1: a loop whose body is empty still makes progress toward the limit
        self.ops_executed += len(code) + 1
        if self.ops_executed > self.max_ops:
            raise InterpreterError(
                location, f"execution stopped after {self.max_ops} ops (the limit; pto-run --max-ops raises it)"
            )
        for instr in code:
            instr(frame)

    # -- diagnostics ----------------------------------------------------------------

    def warn_unwritten(self, key: int, location: ir.Location, op: str, operand: str, ref: TileRef, count: int, nbytes: int) -> None:
        """Warn (once per op and operand) that `count` of the `nbytes` bytes
        an op reads of tile `ref` were never written."""
        if (key, operand) in self._warned:
            return
        self._warned.add((key, operand))
        self.warnings.append(
            ExecutionWarning(
                location,
                f"'{op}' reads {count} of the {nbytes} bytes of operand '{operand}' "
                f"({ref.describe()}) that were never written (they hold the poison pattern)",
            )
        )

    def warn_beyond_valid(self, key: int, location: ir.Location, op: str, operand: str, ref: TileRef, rows: int, cols: int) -> None:
        """Warn (once per op and operand) that an op reads elements of tile
        `ref` past its valid region (inside its shape: what the bytes hold)."""
        if (key, operand, "valid") in self._warned:
            return
        self._warned.add((key, operand, "valid"))
        vr, vc = ref.valid
        self.warnings.append(
            ExecutionWarning(
                location,
                f"'{op}' reads {rows}x{cols} elements of operand '{operand}', past its valid region {vr}x{vc}: "
                "the result there is whatever those bytes hold",
            )
        )

    # -- compiling ----------------------------------------------------------------

    def _compile_function(self, name: str, op: ir.Operation) -> _Function:
        region = op.regions[0]
        blocks = list(region.blocks)
        if not blocks:
            return _Function(name, op.location, [], None)
        compiler = Compiler(self, registry.compilers())
        arg_slots = [compiler.define(a) for a in blocks[0].arguments]
        if len(blocks) != 1:
            raise InterpreterError(op.location, f"@{name} has {len(blocks)} blocks; the interpreter runs structured control flow (scf) only")
        body = compiler.block(blocks[0], ("func.return",))
        return _Function(name, op.location, arg_slots, body, compiler.template)

    @contextmanager
    def deep_enough(self):
        """Raise Python's recursion limit, while the interpreter runs, to what
        the module's nesting needs: closures of nested ops call each other
        (frames only, no C stack on CPython 3.11 and newer)."""
        previous = sys.getrecursionlimit()
        sys.setrecursionlimit(max(previous, self.frames_needed))
        try:
            yield
        except RecursionError:
            raise InterpreterError(
                None, f"nesting or recursion too deep for the interpreter ({sys.getrecursionlimit()} Python frames)"
            ) from None
        finally:
            sys.setrecursionlimit(previous)

    def new_key(self) -> int:
        self._next_key += 1
        return self._next_key


def _nesting_depth(module: ir.Operation) -> int:
    """How deep ops nest in `module` (a walk in C++; depths by parent).
    Raises InterpreterError at an op deeper than MAX_NESTING_DEPTH."""
    depths: dict[ir.Operation, int] = {}
    deepest = 0

    def visit(op: ir.Operation) -> ir.WalkResult:
        nonlocal deepest
        parent = op.parent
        depth = depths.get(parent, 0) + 1 if parent is not None else 0
        if len(op.regions):
            depths[op] = depth
        if depth > deepest:
            deepest = depth
            if depth > MAX_NESTING_DEPTH:
                raise InterpreterError(
                    op.location, f"ops nested {depth} deep: the interpreter runs at most {MAX_NESTING_DEPTH} levels"
                )
        return ir.WalkResult.ADVANCE

    module.walk(visit, ir.WalkOrder.PRE_ORDER)
    return deepest
