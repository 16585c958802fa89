"""The random kernel generator (pto_dialect.testing.kernel_gen): valid,
deterministic, defined kernels that cover what the passes must handle."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

from hypothesis import HealthCheck, given, settings
from mlir import ir

from pto_dialect.dialect import load_dialect
from pto_dialect.interpreter import execute
from pto_dialect.testing.kernel_gen import generate, kernels
from pto_dialect.verifier import verify_module

SEEDS = range(300)


def run_generated(kernel):
    """Parse, verify and execute; return the execution (errors raise)."""
    with ir.Context() as ctx:
        load_dialect(ctx)
        errors = []
        ctx.attach_diagnostic_handler(lambda d: errors.append(str(d)) or True)
        module = ir.Module.parse(kernel.text)
        assert verify_module(module.operation), errors
        return execute(module.operation, kernel.function, values=kernel.values, source_text=kernel.text)


def test_generation_is_deterministic():
    assert generate(12).text == generate(12).text
    assert generate(12).text != generate(13).text


def test_kernels_verify_run_in_bounds_and_read_only_written_memory():
    # seeds past the CI ones (test_differential checks those the same way)
    for seed in range(300, 400):
        kernel = generate(seed)
        run = run_generated(kernel)  # an out-of-bounds tload/tstore would raise
        assert not run.warnings, f"seed {seed}: {run.warnings[0].message}\n{kernel.text}"
        assert any(b.written for b in run.buffers) or "zero_trip" in kernel.features, f"seed {seed} writes nothing"


def test_kernels_pass_pto_opt(tmp_path):
    paths = []
    for seed in range(0, 300, 75):
        path = tmp_path / f"k{seed}.mlir"
        path.write_text(generate(seed).text)
        paths.append(path)
    for path in paths:
        result = subprocess.run([sys.executable, "-m", "pto_dialect.tools.pto_opt", str(path)], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        assert "pto.pipeline_stages" in result.stdout


REQUIRED_FEATURES = {
    # bounds
    "dynamic_bounds", "step_gt_1", "lb_gt_0", "zero_trip", "partial_step",
    "stages_1", "stages_2", "stages_3", "stages_4",
    "index_iv", "index_iteration", "index_iter_arg",
    # tiles and ops
    "in_place", "overwrite", "overwrite_outer", "outer_tile", "tcvt", "tmov_mat", "user_addr",
    "if_writes", "if_yields_tile",
    # loop-carried data
    "acc_memory", "acc_iter_args", "ping_pong", "carried_in_body",
    # loops and matmul chains
    "nested_loop", "placement_inner", "placement_both",
    "matmul_rows", "matmul_k", "acc_store_direct", "acc_store_tmov", "acc_store_tcvt",
}  # fmt: skip


def test_the_ci_seeds_cover_every_feature():
    seen = Counter(f for seed in SEEDS for f in generate(seed).features)
    assert REQUIRED_FEATURES <= set(seen), sorted(REQUIRED_FEATURES - set(seen))
    # and not just once: each shows up in at least 1% of the CI kernels
    rare = {f: seen[f] for f in REQUIRED_FEATURES if seen[f] < 3}
    assert not rare, rare


def test_kernels_use_every_space_and_element_type():
    text = "".join(generate(seed).text for seed in SEEDS)
    for space in ("vec", "mat", "left", "right", "acc"):
        assert f'"{space}"' in text
    for dtype in ("f32", "f16", "bf16", "i32", "i16", "i8"):
        assert f", {dtype}>" in text
    for op in ("tadd", "tsub", "tmul", "tmax", "tmin", "tadds", "tmuls", "texp", "tabs", "trelu", "tcvt", "tmov", "tmatmul", "tmatmul_acc"):
        assert f'"pto.{op}"' in text, op


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kernels())
def test_hypothesis_kernels_are_valid_and_defined(kernel):
    run = run_generated(kernel)
    assert not run.warnings, run.warnings[0].message
