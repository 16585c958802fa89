"""The Python API for embedding the pto passes in other MLIR toolchains."""

from __future__ import annotations

from mlir import ir
from mlir.passmanager import PassManager

from .dialect import load_dialect
from .pass_infra import PassContext
from .pipeline import build_pass_manager, resolve, schedule
from .report import PipelineReport
from .verifier import verify_module


def _context(use_ptoas_multi_buffer: bool | None, verify_each: bool) -> PassContext:
    return PassContext(
        use_ptoas_multi_buffer=use_ptoas_multi_buffer,
        use_ptoas_multi_buffer_source="the use_ptoas_multi_buffer keyword" if use_ptoas_multi_buffer is not None else "",
        verify_each=verify_each,
    )


def run_passes(
    module: ir.Module | ir.Operation,
    pipeline: str,
    *,
    use_ptoas_multi_buffer: bool | None = None,
    verify_each: bool = True,
) -> PipelineReport:
    """Run a pipeline (pto and upstream passes, MLIR textual syntax) on
    `module` and return the passes' decisions.

    Raises `pipeline.PipelineError` for a pipeline that does not parse and
    `ir.MLIRError` (with the diagnostics) when a pass fails, like
    `PassManager.run`. Remarks go to the Context's diagnostic handlers.
    """
    op = module.operation
    load_dialect(op.context)
    ctx = _context(use_ptoas_multi_buffer, verify_each)
    pm = build_pass_manager(pipeline, ctx, op.context)
    pm.run(op)
    return ctx.report


def add_passes(
    pm: PassManager,
    pipeline: str,
    *,
    use_ptoas_multi_buffer: bool | None = None,
    verify_each: bool = True,
) -> PipelineReport:
    """Append a pipeline to a caller's module-anchored `PassManager`.

    The returned report fills in when `pm` runs.
    """
    ctx = _context(use_ptoas_multi_buffer, verify_each)
    schedule(pm, resolve(pipeline), ctx)
    return ctx.report


def verify(module: ir.Module | ir.Operation, arch: str | None = None) -> bool:
    """Run the pto verifier; errors go to the Context's handlers."""
    return verify_module(module.operation, arch)
