"""Loading the pto dialect (defined in `pto.irdl.mlir`) into a Context."""

from __future__ import annotations

from pathlib import Path

from mlir import ir
from mlir.dialects import irdl

IRDL_FILE = Path(__file__).with_name("pto.irdl.mlir")
"""The dialect definition; also what C++ tools pass to `--irdl-file`."""

_PROBE_OP = "pto.alloc_tile"


def is_loaded(context: ir.Context | None = None) -> bool:
    context = context or ir.Context.current
    return context.is_registered_operation(_PROBE_OP)


def load_dialect(context: ir.Context | None = None) -> None:
    """Register the pto dialect in `context` (default: the current one).

    Idempotent: loading IRDL twice into one Context is unsafe upstream, so we
    only load when the dialect is not registered yet.
    """
    context = context or ir.Context.current
    if is_loaded(context):
        return
    definition = ir.Module.parse(IRDL_FILE.read_text(), context)
    irdl.load_dialects(definition)
    # The loaded dialect was built from these ops; keep them alive as long as
    # the Context, whatever upstream does with them.
    context._pto_irdl_definition = definition
