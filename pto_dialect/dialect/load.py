"""Loading the pto dialect (defined in `pto.irdl.mlir`) into a Context."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from mlir import ir
from mlir.dialects import irdl

IRDL_FILE = Path(__file__).with_name("pto.irdl.mlir")
"""The dialect definition; also what C++ tools pass to `--irdl-file`."""

_PROBE_OP = "pto.alloc_tile"


def new_context() -> ir.Context:
    """A Context for one run of a tool. `ir.Context()` loads every upstream
    dialect the bindings register, ~10 ms of every process; this one, like
    mlir-opt's, loads a dialect when the parser meets it, and the pipeline
    loads those its passes build ops of (`ModulePass.dependent_dialects`)
    before they run."""
    return ir.Context(load_on_create_dialects=[])


def is_loaded(context: ir.Context | None = None) -> bool:
    context = context or ir.Context.current
    return context.is_registered_operation(_PROBE_OP)


def load_dialect(context: ir.Context | None = None) -> None:
    """Register the pto dialect in `context` (default: the current one).

    Idempotent: loading IRDL twice into one Context is unsafe upstream, so we
    only load when the dialect is not registered yet.
    """
    context = context or ir.Context.current
    register_python_module()
    if is_loaded(context):
        return
    definition = ir.Module.parse(_definition_text(), context)
    irdl.load_dialects(definition)
    # The definition module goes when this returns. What IRDL registered
    # does not refer to it: each op's and type's verifier holds constraint
    # objects built from the definition's attributes and type definitions,
    # which the Context owns. Keeping the module on the Context instead made
    # a reference cycle through the bindings' objects that the garbage
    # collector cannot break, and every Context leaked (~2.3 MB each).


@lru_cache(maxsize=1)
def _definition_text() -> str:
    return IRDL_FILE.read_text()


_PYTHON_MODULE_PREFIX = "pto_dialect.dialect.bindings"


def register_python_module() -> None:
    """Let the bindings find `pto_dialect.dialect.bindings.pto` as the pto dialect's
    Python module (once per process), so wrapping a pto op does not search
    the file system for one."""
    from mlir._mlir_libs import _mlir

    globals_ = getattr(_mlir, "globals", None)
    if globals_ is None or not hasattr(globals_, "append_dialect_search_prefix"):
        return
    if _PYTHON_MODULE_PREFIX not in globals_.dialect_search_modules:
        globals_.append_dialect_search_prefix(_PYTHON_MODULE_PREFIX)
