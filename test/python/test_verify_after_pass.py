"""The pto verifier runs after every pass: on everything (op rules) after a
pass that does not say what it changed, on the changed ops after one that
does (`records_changes`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pytest
from conftest import parse_kernel
from mlir import ir
from mlir.passmanager import PassManager

import pto_dialect
from pto_dialect.driver.pass_pipeline import PipelineRun
from pto_dialect.pass_infra import ModulePass, PassRun

KERNEL = """
!t = !pto.tile_buf<vec, 16x16xf32>
!mb = !pto.multi_tile_buf<!t, count=2>
func.func @k(%mb: !mb) {
  %c1 = arith.constant 1 : index
  %t = pto.multi_tile_get %mb[%c1] : !mb -> !t
  return
}
"""


def break_slot(module: ir.Operation, run: PassRun) -> None:
    """Make the constant slot 1 of a 2-slot buffer a 7: out of range."""
    func = module.regions[0].blocks[0].operations[0]
    body = func.regions[0].blocks[0]
    get = body.operations[1]
    with ir.InsertionPoint(get), get.location:
        seven = ir.Operation.create(
            "arith.constant", results=[ir.IndexType.get()], attributes={"value": ir.IntegerAttr.get(ir.IndexType.get(), 7)}
        )
    get.operands[1] = seven.result
    run.changed(get)


@dataclass(frozen=True)
class SaysWhatItChanged(ModulePass):
    name: ClassVar[str] = "test-says-what-it-changed"
    records_changes: ClassVar[bool] = True

    def apply(self, run, module):
        break_slot(module, run)


@dataclass(frozen=True)
class SaysNothing(ModulePass):
    name: ClassVar[str] = "test-says-nothing"

    def apply(self, run, module):
        break_slot(module, run)


@pytest.mark.parametrize("pass_class", [SaysWhatItChanged, SaysNothing])
def test_an_invalid_op_made_by_a_pass_fails_the_pass(pass_class):
    errors = []
    module = parse_kernel(KERNEL)
    with module.context:
        pm = PassManager("builtin.module")
        PipelineRun().schedule(pm, [pass_class()])
        with pytest.raises(ir.MLIRError) as failure:
            pm.run(module.operation)
        errors = [d.message for d in failure.value.error_diagnostics]
    assert errors == ["'pto.multi_tile_get' op constant slot 7 is out of range for multi_tile_buf count=2"]


def test_a_pass_that_changed_nothing_is_not_checked_again(monkeypatch):
    # pto-lower-pipeline-loops on a module without pipeline loops (what
    # convert-to-ptoas-multi-buffer leaves) says so; re-checking every op
    # of a large module after it cost as much as the pass before it.
    import pto_dialect.driver.pass_pipeline as pipeline

    calls = []
    monkeypatch.setattr(pipeline, "verify_module", lambda *a, **k: calls.append(a) or True)
    module = parse_kernel(KERNEL)
    with module.context:
        report = pto_dialect.run_passes(module, "pto-lower-pipeline-loops")
    assert calls == [] and report.loops == []
