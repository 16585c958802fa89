"""pto-pipeline's switch through the Python API: keyword, environment, option."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import parse_kernel
from mlir.passmanager import PassManager

import pto_dialect

KERNEL = (Path(__file__).resolve().parent.parent / "Pipeline" / "Inputs" / "kernel.pto").read_text()


def run(pipeline: str, **kwargs):
    module = parse_kernel(KERNEL, quiet=True)
    with module.context:
        report = pto_dialect.run_passes(module, pipeline, **kwargs)
        return report, pto_dialect.print_module(module)


@pytest.mark.parametrize(
    "env, keyword, option, expected, source",
    [
        (None, None, None, False, "the default (off)"),
        ("1", None, None, True, "the environment (PTO_PTOAS_MULTI_BUFFER=1)"),
        ("on", False, None, False, "the use_ptoas_multi_buffer keyword"),
        ("0", True, None, True, "the use_ptoas_multi_buffer keyword"),
        (None, True, False, False, "the pto-pipeline option use-ptoas-multi-buffer"),
        ("1", False, True, True, "the pto-pipeline option use-ptoas-multi-buffer"),
    ],
)
def test_precedence(monkeypatch, env, keyword, option, expected, source):
    if env is None:
        monkeypatch.delenv("PTO_PTOAS_MULTI_BUFFER", raising=False)
    else:
        monkeypatch.setenv("PTO_PTOAS_MULTI_BUFFER", env)
    pipeline = "pto-pipeline" if option is None else f"pto-pipeline{{use-ptoas-multi-buffer={str(option).lower()}}}"
    report, text = run(pipeline, use_ptoas_multi_buffer=keyword)
    assert [(s.value, s.source) for s in report.switch] == [(expected, source)]
    assert ("pto.alloc_multi_tile" in text) == expected
    # replication happened exactly when the switch is off
    assert ("step %c2" in text) == (not expected)


def test_add_passes_to_a_callers_pass_manager(monkeypatch):
    monkeypatch.delenv("PTO_PTOAS_MULTI_BUFFER", raising=False)
    module = parse_kernel(KERNEL, quiet=True)
    with module.context:
        pm = PassManager("builtin.module")
        pm.add("canonicalize")
        report = pto_dialect.add_passes(pm, "pto-pipeline{allocate=false},cse", use_ptoas_multi_buffer=True)
        assert report.loops == []  # nothing ran yet
        pm.run(module.operation)
        text = pto_dialect.print_module(module)
    assert report.switch[0].value is True
    assert report.loops[0].converted and report.loops[0].slots == 2
    assert "pto.alloc_multi_tile : !pto.multi_tile_buf<!pto.tile_buf<vec, 16x64xf32>, count=2>" in text
    assert "addr =" not in text  # allocate=false
