"""The random kernel generator (pto_dialect.testing.kernel_gen): valid,
deterministic, defined kernels in ptoas syntax that cover what the passes
must handle, and that read back and print as they were (the round-trip
property of docs/dialect.md, "Two spellings")."""

from __future__ import annotations

import functools
import re
import subprocess
import sys
from collections import Counter

from conftest import parse_kernel
from hypothesis import HealthCheck, given, settings

import pto_dialect
from pto_dialect.dialect.types import parse_ptoas_type
from pto_dialect.interpreter import execute
from pto_dialect.testing.kernel_gen import DTYPE_BYTES, FLOAT_ONLY, LAYOUT_ALIGN, MORE_KINDS, OP_FAMILIES, _executed_ops, generate, kernels

SEEDS = range(300)


def run_generated(kernel):
    """Parse, verify and execute; return the execution (errors raise)."""
    module = parse_kernel(kernel.text, name=f"seed-{kernel.seed}.pto")
    with module.context:
        return execute(module.operation, kernel.function, values=kernel.values, source_text=kernel.text)


def print_back(text: str, name: str = "k.pto") -> tuple[str, str]:
    """(ptoas text, generic text) of `text` read by pto-opt's reader."""
    module = parse_kernel(text, name=name)
    return pto_dialect.print_module(module), pto_dialect.print_module(module, generic=True)


@functools.cache
def printed(seed: int) -> tuple[str, str]:
    return print_back(generate(seed).text, f"seed-{seed}.pto")


def assert_round_trips(text: str, label: str) -> None:
    """print(parse(text)) is a fixpoint after one round, and the generic
    form reads back to the same ptoas text."""
    first, generic = print_back(text, label)
    again, _ = print_back(first, f"{label} printed")
    assert again == first, f"{label}: printing the printed text changes it\n{first}"
    from_generic, _ = print_back(generic, f"{label} generic")
    assert from_generic == first, f"{label}: the generic form reads back differently\n{generic}"


def test_generation_is_deterministic():
    assert generate(12).text == generate(12).text
    assert generate(12).text != generate(13).text


def test_kernels_verify_and_print_back_unchanged():
    # pto_dialect.parse raises on any parse or verifier error
    for seed in SEEDS:
        first, generic = printed(seed)
        again, _ = print_back(first, f"seed {seed} printed")
        assert again == first, f"seed {seed}: the printed text prints differently\n{first}"
        from_generic, _ = print_back(generic, f"seed {seed} generic")
        assert from_generic == first, f"seed {seed}: the generic form reads back differently\n{generic}"


def test_the_printed_kernels_are_ptoas_syntax():
    for seed in range(0, 300, 7):
        first, generic = printed(seed)
        assert "!pto.ptr<" in first and ", gm>" in first, seed  # pointers print their space
        assert "pto.make_tensor_view %" in first and "pto.partition_view %" in first
        assert '"pto.' not in first, f"seed {seed}: a pto op left in generic form\n{first}"
        assert "array<i64" not in first, f"seed {seed}: a generic type left in the output\n{first}"
        assert '"pto.tload"' in generic and "pto.tload ins(" not in generic


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kernels())
def test_hypothesis_kernels_round_trip(kernel):
    assert_round_trips(kernel.text, "kernel")


def test_kernels_pass_pto_opt(tmp_path):
    for seed in range(0, 300, 60):
        path = tmp_path / f"k{seed}.pto"
        path.write_text(generate(seed).text)
        result = subprocess.run([sys.executable, "-m", "pto_dialect.tools.pto_opt", str(path)], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        assert "pto.pipeline_stages" in result.stdout
        assert result.stdout == printed(seed)[0]


TILE_TYPE = re.compile(r"!pto\.tile_buf<[^>]*>")


def test_tile_shapes_satisfy_the_layout_rule():
    # ptoas's rule (the verifier checks it too, but the generator must not
    # depend on one that forgets): row-major none_box rows are whole 32-byte units
    seen = set()
    for seed in SEEDS:
        for spelling in set(TILE_TYPE.findall(printed(seed)[0])):
            t, _ = parse_ptoas_type(spelling)
            seen.add((t.blayout, t.slayout))
            if t.slayout == "none_box" and t.blayout == "row_major":
                assert t.cols * DTYPE_BYTES[t.dtype] % LAYOUT_ALIGN == 0, (seed, spelling)
    assert ("row_major", "none_box") in seen and ("col_major", "row_major") in seen  # boxed cube tiles too


def test_partition_offsets_follow_the_induction_variable():
    for seed in SEEDS:
        kernel = generate(seed)
        body = kernel.text[re.search(r"scf\.for (unsigned )?%iv", kernel.text).start() :]
        # every row offset in the loop comes from the block index (iv, the iteration or a counter)
        assert re.search(r"pto\.partition_view %\w+, offsets = \[%i\d+", body) or '"pto.partition_view"(%' in body, seed


def test_kernels_run_in_bounds_and_read_only_written_memory():
    # seeds past the CI ones (test_differential checks those the same way)
    for seed in range(300, 400):
        kernel = generate(seed)
        run = run_generated(kernel)  # an out-of-bounds tload/tstore would raise
        assert not run.warnings, f"seed {seed}: {run.warnings[0].message}\n{kernel.text}"
        assert any(b.written for b in run.buffers) or "zero_trip" in kernel.features, f"seed {seed} writes nothing"


REQUIRED_FEATURES = {
    # bounds
    "dynamic_bounds", "step_gt_1", "lb_gt_0", "zero_trip", "partial_step",
    "stages_1", "stages_2", "stages_3", "stages_4",
    "index_iv", "index_iteration", "index_iter_arg",
    # spelling and target
    "style_pypto", "style_compact", "style_mixed", "style_generic", "generic_op", "generic_type", "type_aliases",
    "arch_absent", "arch_a2a3", "arch_a5", "kernel_kind", "boxed_layout",
    # valid shapes: whole, static smaller, PyPTO's partial last block (computed in the loop)
    "dynamic_valid", "valid_const", "valid_arg", "valid_computed", "valid_in_loop",
    "valid_smaller", "valid_static_region", "valid_tail",
    # views of tiles
    "subview_read", "subview_store", "subview_write", "treshape", "treshape_write", "set_validshape",
    "late_view", "carried_partial_if_reload", "carried_partial_setval", "carried_partial_subview_load",
    "carried_partial_subview_op", "carried_partial_treshape_op", "matmul_tail", "two_loops", "reads_earlier_output",
    # partial writers and calls (issue 21)
    "partial_writer_treshape_view", "partial_writer_subview_view", "partial_writer_refill", "partial_writer_colsum_row0",
    "partial_writer_concat_narrow", "call",
    # tiles and ops
    "in_place", "overwrite", "overwrite_outer", "outer_tile", "tcvt", "tcvt_rmode", "tmov_vec", "user_addr", "user_multi_tile",
    "if_writes", "if_yields_tile",
    # loop-carried data
    "acc_memory", "acc_iter_args", "ping_pong", "carried_in_body",
    # loops and matmul chains
    "nested_loop", "placement_inner", "placement_both",
    "matmul_rows", "matmul_k", "acc_store_direct", "acc_store_tmov", "acc_store_tcvt",
    # loops as MLIR defines them: unsigned, integer induction variables, bounds at the edges of the type
    "unsigned_loop", "iv_i32", "iv_i64", "iv_i16", "iv_i8", "bounds_top", "bounds_bottom", "bounds_signed_limit",
    "zero_trip_wrapping", "nested_unsigned", "nested_edge_bounds", "carried_nested", "carried_nested_unsigned_none",
    "carried_nested_signed_none", "carried_nested_unsigned_across", "carried_nested_signed_across",
}  # fmt: skip


def test_the_ci_seeds_cover_every_feature():
    seen = Counter(f for seed in SEEDS for f in generate(seed).features)
    assert REQUIRED_FEATURES <= set(seen), sorted(REQUIRED_FEATURES - set(seen))
    # and not just once: each shows up in at least 1% of the CI kernels
    rare = {f: seen[f] for f in REQUIRED_FEATURES if seen[f] < 3}
    assert not rare, rare


def test_kernels_use_every_space_element_type_and_op():
    text = "".join(printed(seed)[0] for seed in SEEDS)
    for space in ("vec", "mat", "left", "right", "acc"):
        assert f"!pto.tile_buf<{space}, " in text, space
    for dtype in ("f32", "f16", "bf16", "i32", "i16", "i8"):
        assert f"x{dtype}>" in text and f"!pto.ptr<{dtype}, gm>" in text, dtype
    for op in ("tadd", "tsub", "tmul", "tmax", "tmin", "tadds", "tmuls", "texp", "tabs", "trelu", "tcvt", "tmov", "tmatmul", "tmatmul.acc"):
        assert f"pto.{op} ins(" in text, op
    assert "pto.tmatmul.acc ins(%" in text and "valid=?x?" in text and "valid=?x" in text
    assert "pto.alloc_multi_tile : !pto.multi_tile_buf<!pto.tile_buf<" in text
    # the source spellings: PyPTO's verbose types and tiles at an address
    source = "".join(generate(seed).text for seed in SEEDS)
    assert "v_row=?, v_col=?" in source and "pto.alloc_tile addr = %c" in source and "valid_row = %" in source


def test_the_ci_seeds_use_every_op_pto_run_executes():
    # the generator draws its ops from what the interpreter executes now
    executed = {name.removeprefix("pto.") for name in _executed_ops()}
    drawn = {n for family in (*OP_FAMILIES.values(), *FLOAT_ONLY.values()) for n in family}
    drawn |= {n for _, _, needs in MORE_KINDS for n in needs} | {"trowexpand", "tcolexpand"}
    seen = Counter(f for seed in SEEDS for f in generate(seed).features)
    missing = sorted(n for n in drawn & executed if seen[f"op_{n}"] == 0)
    assert not missing, missing
    assert seen["op_tadd"] >= 10


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kernels())
def test_hypothesis_kernels_are_valid_and_defined(kernel):
    run = run_generated(kernel)
    assert not run.warnings, run.warnings[0].message
