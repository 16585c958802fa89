"""Running one function of a module on seeded inputs, and what comes out.

`execute` is the entry point tools and tests use: it names the arguments,
fills them, runs the evaluator and collects the results as plain data
(numpy arrays, detached from MLIR).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from mlir import ir

from ..dialect.types import pto_type
from .elements import bf16_bits_to_f32
from .errors import InterpreterError
from .evaluator import DEFAULT_MAX_OPS, ExecutionWarning, Interpreter
from .inputs import DEFAULT_MAX_ARG_BYTES, arguments, make_arguments, resolve_values
from .memory import GlobalBuffer, MultiTileRef, TileRef, ViewRef
from .scalars import float_name, int_width
from .trace import TraceEvent


@dataclass
class BufferResult:
    """A buffer after the run: a global-memory argument (pointer, tensor
    view, partition or memref) or a returned tile. `type` is its type's
    ptoas spelling; `array` holds the stored elements (bf16 as uint16 bit
    patterns; a pointer's buffer as far as its tensor views reached)."""

    name: str
    type: str
    dtype: str
    array: np.ndarray
    written: bool

    def values(self) -> np.ndarray:
        """The elements as numbers (bf16 decoded to float32)."""
        return bf16_bits_to_f32(self.array) if self.dtype == "bf16" else self.array


@dataclass
class ScalarResult:
    name: str  # "return #k"
    type: str
    value: int | float | str  # str: the name of a returned global-memory argument


@dataclass
class Execution:
    function: str
    arch: str
    seed: int
    buffers: list[BufferResult]
    scalars: list[ScalarResult]
    warnings: list[ExecutionWarning] = field(default_factory=list)
    trace: list[TraceEvent] | None = None
    ops_executed: int = 0


def find_function(module: ir.Operation, name: str) -> ir.Operation:
    """The `func.func` named `name` in `module`, or an InterpreterError
    listing the functions it has."""
    try:
        op = ir.SymbolTable(module)[name].operation
    except KeyError:
        op = None
    if op is not None and op.name == "func.func":
        return op
    names = [op.attributes["sym_name"].value for op in module.regions[0].blocks[0].operations if op.operation.name == "func.func"]
    raise InterpreterError(
        None, f"no function named @{name}" + (f" (the module has: {', '.join('@' + n for n in names)})" if names else " (the module has no func.func)")
    )


def execute(
    module: ir.Operation,
    function: str,
    *,
    seed: int = 0,
    values: dict[str, int | float | tuple[int, ...]] | None = None,
    source_text: str | None = None,
    arch: str | None = None,
    trace: bool = False,
    max_ops: int = DEFAULT_MAX_OPS,
    max_arg_bytes: int = DEFAULT_MAX_ARG_BYTES,
) -> Execution:
    """Run `@function` of `module` on inputs filled from `seed`.

    `values` gives the scalar arguments by name (`n`, `%n` or `argK`), and
    the shapes (tuples) of memref and tensor view arguments with dynamic
    dimensions;
    `source_text` is the text the module was parsed from, which names the
    arguments (else they are `%arg0`, ...). Raises InterpreterError.
    """
    func = find_function(module, function)
    if not len(func.regions[0].blocks):
        raise InterpreterError(func.location, f"@{function} is a declaration; it has no body to execute")
    args = arguments(func, source_text)
    interp = Interpreter(module, arch=arch, trace=trace, max_ops=max_ops)
    given = resolve_values(args, values or {})
    runtime_args, globals_ = make_arguments(args, given, seed, interp.memory, max_arg_bytes)
    # overflow to inf, NaN from poison and the like are the semantics, not news
    with np.errstate(all="ignore"), interp.deep_enough():
        returned = interp.call(function, runtime_args, func.location)
    buffers = [BufferResult(g.name, g.type, g.dtype, g.array, g.written) for g in globals_]
    scalars: list[ScalarResult] = []
    result_types = list(ir.FunctionType(func.attributes["function_type"].value).results)
    for k, (value, t) in enumerate(zip(returned, result_types)):
        label = f"return #{k}"
        spelled = str(pto_type(t) or t)
        if isinstance(value, TileRef):
            buffers.append(BufferResult(label, spelled, value.layout.dtype, value.elements().copy(), True))
        elif isinstance(value, MultiTileRef):
            slots = np.stack([value.slot(i).elements() for i in range(value.count)])
            buffers.append(BufferResult(label, spelled, value.slot_layout.dtype, slots, True))
        elif isinstance(value, (GlobalBuffer, ViewRef)):
            scalars.append(ScalarResult(label, spelled, value.name if isinstance(value, GlobalBuffer) else value.buffer.name))
        elif int_width(t) is not None or float_name(t) is not None:
            scalars.append(ScalarResult(label, spelled, value))
    return Execution(function, interp.arch, seed, buffers, scalars, interp.warnings, interp.trace, interp.ops_executed)


