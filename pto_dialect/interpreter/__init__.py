"""A reference interpreter for the pto dialect (docs/tools.md, `pto-run`), on numpy.

    from pto_dialect.interpreter import execute, compare
    run = execute(module.operation, "kernel", seed=0, values={"n": 8}, source_text=text)

Modules, one concept each: `elements` (element types as numpy dtypes, bf16,
conversions), `scalars` (arith semantics), `tile_ops` (what element-wise
and matmul ops compute), `pto_ops` (allocation, views, loads, stores and
the element-wise ops on tiles), `rowcol_ops` (row and column reductions and
broadcasts), `movement_ops` (textract, scalar access, fills, gather,
transpose, concat), `arith_ops` and `control_ops`, `memory` (global memory and its views, tile spaces, private
buffers, valid shapes, storage order, poison), `trace` (the execution
trace), `evaluator` (compiling and running functions), `inputs`
(naming and filling arguments), `execution` (one run and its results),
`digest` and `compare` (summarising and comparing results).
"""

from .compare import Mismatch, compare
from .digest import format_digest
from .errors import InterpreterError
from .evaluator import DEFAULT_MAX_OPS, SUPPORTED_OPS, ExecutionWarning, Interpreter
from .execution import BufferResult, Execution, ScalarResult, execute
from .inputs import DEFAULT_MAX_ARG_BYTES
from .trace import Access, TraceEvent

__all__ = [
    "Access",
    "BufferResult",
    "DEFAULT_MAX_ARG_BYTES",
    "DEFAULT_MAX_OPS",
    "Execution",
    "ExecutionWarning",
    "Interpreter",
    "InterpreterError",
    "Mismatch",
    "SUPPORTED_OPS",
    "ScalarResult",
    "TraceEvent",
    "compare",
    "execute",
    "format_digest",
]
