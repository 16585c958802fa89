"""The kernels in examples/ are what users copy and what docs/quality.md
measures: each must verify, convert to ptoas multi-buffering with the tiles
its comment says (the others stay single, for the reason given there),
allocate under both settings of `pto-pipeline`, execute with bit-identical
results after the passes, and compute what its comment says it computes.

A new example must be added to EXAMPLES (the first test fails otherwise).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from conftest import parse_kernel
from mlir import ir

import pto_dialect
from pto_dialect.dialect.allocs import has_addr
from pto_dialect.interpreter import compare, execute

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Example:
    function: str
    multi: int  # alloc_multi_tile after convert-to-ptoas-multi-buffer (default spaces vec,mat)
    single: int  # alloc_tile left after it


EXAMPLES = {
    "balanced.pto": Example("balanced", 4, 0),
    "copy_scale.pto": Example("copy_scale", 2, 0),
    "double_buffer_add.pto": Example("add", 3, 0),
    "exp_chain.pto": Example("exp_chain", 7, 0),
    # the L1 chunks; single: the accumulator and the peeled chunk's 6 tiles
    # (before the loop), the 4 L0 halves (space left/right, not in vec,mat)
    "matmul_kloop.pto": Example("matmul", 2, 11),
    "row_softmax.pto": Example("row_softmax", 7, 0),
    "silu.pto": Example("silu", 7, 0),
    # single: the weight row, loaded once before the loop
    "rmsnorm.pto": Example("rmsnorm", 9, 1),
    # single: m, l, O (loop-carried), the peeled block's 5 tiles, the result
    "online_softmax.pto": Example("online_softmax", 13, 9),
}
NAMES = sorted(EXAMPLES)


def test_every_example_is_registered():
    assert sorted(p.name for p in (ROOT / "examples").glob("*.pto")) == NAMES
    assert not list((ROOT / "examples").glob("*.mlir"))


def parsed(name: str) -> ir.Module:
    return parse_kernel((ROOT / "examples" / name).read_text(), name=f"examples/{name}")


def ops_named(module: ir.Module, op_name: str) -> list[ir.Operation]:
    found: list[ir.Operation] = []

    def visit(op):
        if op.name == op_name:
            found.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def counts(module: ir.Module) -> tuple[int, int]:
    return len(ops_named(module, "pto.alloc_multi_tile")), len(ops_named(module, "pto.alloc_tile"))


@pytest.mark.parametrize("name", NAMES)
def test_example_converts_with_the_tiles_its_comment_names(name):
    module = parsed(name)
    with module.context:
        assert counts(module)[0] == 0
        pto_dialect.run_passes(module, "convert-to-ptoas-multi-buffer")
        assert counts(module) == (EXAMPLES[name].multi, EXAMPLES[name].single)
        text = pto_dialect.print_module(module)
    assert "pto.pipeline_stages = 1" in text and "count=2>" in text


def test_the_matmul_l0_halves_convert_when_their_spaces_are_asked_for():
    module = parsed("matmul_kloop.pto")
    with module.context:
        pto_dialect.run_passes(module, "convert-to-ptoas-multi-buffer{spaces=vec,mat,left,right}")
        assert counts(module) == (6, 7)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("multi_buffer", [False, True])
def test_example_allocates(name, multi_buffer):
    module = parsed(name)
    with module.context:
        pto_dialect.run_passes(module, "pto-pipeline", use_ptoas_multi_buffer=multi_buffer)
        allocs = ops_named(module, "pto.alloc_tile") + ops_named(module, "pto.alloc_multi_tile")
        assert allocs and all(has_addr(op) for op in allocs)
        assert bool(ops_named(module, "pto.alloc_multi_tile")) == multi_buffer


def run(name: str, pipeline: str | None = None):
    text = (ROOT / "examples" / name).read_text()
    module = parsed(name)
    with module.context:
        if pipeline:
            pto_dialect.run_passes(module, pipeline)
        execution = execute(module.operation, EXAMPLES[name].function, source_text=text)
    assert not execution.warnings, execution.warnings[0].message
    return execution


@pytest.mark.parametrize("name", NAMES)
def test_example_computes_the_same_bits_after_the_passes(name):
    before = run(name)
    for pipeline in ("pto-pipeline{use-ptoas-multi-buffer=true}", "pto-pipeline{use-ptoas-multi-buffer=false}"):
        mismatch = compare(before, run(name, pipeline))
        assert mismatch is None, f"{pipeline}: {mismatch.message()}"


# --- what the kernels compute (float64 references on the seeded inputs) ---------------


def buffers(execution):
    return {b.name.lstrip("%"): b.values().astype(np.float64) for b in execution.buffers}


def test_row_softmax_is_a_row_softmax():
    b = buffers(run("row_softmax.pto"))
    x = b["src"].reshape(256, 64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(b["dst"].reshape(256, 64), e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_silu_is_x_times_sigmoid_in_bf16():
    b = buffers(run("silu.pto"))
    x = b["src"].reshape(256, 64)
    # bf16 keeps 8 significant bits: half an ulp is 2^-8 relative
    np.testing.assert_allclose(b["dst"].reshape(256, 64), x / (1 + np.exp(-x)), rtol=2**-8, atol=1e-6)


def test_rmsnorm_normalises_rows_and_scales_columns():
    b = buffers(run("rmsnorm.pto"))
    x, w = b["src"].reshape(256, 64), b["gamma"].reshape(1, 64)
    expected = x / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6) * w
    np.testing.assert_allclose(b["dst"].reshape(256, 64), expected, rtol=1e-5, atol=1e-6)


def test_online_softmax_equals_the_two_pass_softmax():
    b = buffers(run("online_softmax.pto"))
    s, v = b["scores"].reshape(16, 1024), b["values"].reshape(16, 1024)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    expected = (p * v).reshape(16, 16, 64).sum(axis=1)  # key block j is columns 64j..64j+63
    np.testing.assert_allclose(b["out"].reshape(16, 64), expected, rtol=1e-4, atol=1e-6)


def test_matmul_kloop_is_a_matmul():
    b = buffers(run("matmul_kloop.pto"))
    a, bb = b["A"].reshape(128, 1024), b["B"].reshape(1024, 128)
    # f16 inputs are exact in f32; the f32 sums differ from float64 by rounding only
    np.testing.assert_allclose(b["C"].reshape(128, 128), a @ bb, rtol=1e-4, atol=1e-3)
