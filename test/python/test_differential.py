"""Differential tests: every pass must leave what a kernel computes unchanged,
bit for bit (pto_dialect.testing.differential).

Inputs: 300 generated kernels (kernel_gen, seeds 0..299) and every kernel in
the repository's examples/ and test/ .mlir files that has a pipeline loop and
memref arguments. Each runs before and after each pipeline of
PASS_PIPELINES. A pass that is not registered yet is skipped with its name.

The "proof it can fail" tests feed the same comparison deliberately wrong
transformations and check that the difference is reported.

Reproduce a failure: python scripts/differential.py --seed S --count 1 --pipeline P --show
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest
from mlir import ir

from pto_dialect.testing import differential
from pto_dialect.testing.corpus import choose_values, find_kernels
from pto_dialect.testing.differential import MISMATCH, NEW_WARNING, PASS_ERROR, PASS_PIPELINES, SAME, check_kernel, check_transformation, unavailable_passes
from pto_dialect.testing.kernel_gen import generate

ROOT = Path(__file__).resolve().parents[2]
GENERATED = 300
BATCH = 30

KNOWN_FAILURES: dict[str, dict[int, str]] = {}
"""pipeline -> {seed: reason} of generated kernels that fail because of a
known, unfixed bug: left out of the batch tests, each checked by a strict
xfail below (so a fix is noticed). Empty now; seeds 27 and 178 used to fail
under pto-pipeline{use-ptoas-multi-buffer=false} (see SHARED_YIELD_REPRO)."""


@functools.cache
def missing(pipeline: str) -> tuple[str, ...]:
    return tuple(unavailable_passes(pipeline))


def available_pipelines() -> list[str]:
    return [p for p in PASS_PIPELINES if not missing(p)]


def require(pipeline: str) -> None:
    names = missing(pipeline)
    if names:
        pytest.skip(f"pass '{names[0]}' is not registered yet (not in pto_dialect.passes.get_all_passes())")


def reproduce(seed: int, pipeline: str) -> str:
    return f"python scripts/differential.py --seed {seed} --count 1 --pipeline '{pipeline}' --show"


# --- generated kernels ---------------------------------------------------------------------


@functools.cache
def batch_checks(batch: int):
    pipelines = available_pipelines()
    out = []
    for seed in range(batch * BATCH, min((batch + 1) * BATCH, GENERATED)):
        kernel = generate(seed)
        out.append((kernel, check_kernel(kernel.text, kernel.function, kernel.values, pipelines, name=f"seed {seed}")))
    return out


@pytest.mark.parametrize("batch", range(-(-GENERATED // BATCH)))
@pytest.mark.parametrize("pipeline", PASS_PIPELINES)
def test_generated_kernels_compute_the_same_bits(pipeline, batch):
    require(pipeline)
    known = KNOWN_FAILURES.get(pipeline, {})
    problems = []
    for kernel, check in batch_checks(batch):
        # the generator promises runnable kernels that never read undefined memory
        assert check.reference_error is None, f"seed {kernel.seed}: {check.reference_error}\n{kernel.text}"
        assert not check.reference_warnings, f"seed {kernel.seed}: {check.reference_warnings[0]}\n{kernel.text}"
        outcome = next(o for o in check.outcomes if o.pipeline == pipeline)
        if kernel.seed in known:
            continue
        if not outcome.ok:
            problems.append(f"seed {kernel.seed}: {outcome.status}: {outcome.message}\n  reproduce: {reproduce(kernel.seed, pipeline)}")
    assert not problems, f"{len(problems)} kernels changed under '{pipeline}':\n" + "\n".join(problems)


@pytest.mark.parametrize(
    "pipeline, seed, reason",
    [pytest.param(p, s, r, marks=pytest.mark.xfail(strict=True, reason=r)) for p, seeds in KNOWN_FAILURES.items() for s, r in seeds.items()],
)
def test_known_failures_still_fail(pipeline, seed, reason):
    """Strict xfail: when the bug is fixed this passes, fails the suite, and
    the entry must leave KNOWN_FAILURES."""
    require(pipeline)
    kernel = generate(seed)
    outcome = check_kernel(kernel.text, kernel.function, kernel.values, [pipeline]).outcomes[0]
    assert outcome.ok, outcome.message


SHARED_YIELD_REPRO = """
!t = !pto.tile_buf<vec, 4x16xf32>
!tv = !pto.tensor_view<64x16xf32>
!pv = !pto.partition_tensor_view<4x16xf32>
func.func @k(%A: !pto.ptr<f32>, %B: !pto.ptr<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %a = arith.constant 2048 : i64
  %av = pto.make_tensor_view %A, shape = [%c64, %c16], strides = [%c16, %c1] {layout = #pto.layout<nd>} : !tv
  %bv = pto.make_tensor_view %B, shape = [%c64, %c16], strides = [%c16, %c1] {layout = #pto.layout<nd>} : !tv
  scf.for %i = %c0 to %c8 step %c1 {
    %t = pto.alloc_tile addr = %a : !t
    %r = arith.muli %i, %c4 : index
    %p = pto.partition_view %av, offsets = [%r, %c0], sizes = [%c4, %c16] : !tv -> !pv
    pto.tload ins(%p : !pv) outs(%t : !t)
    %u = pto.alloc_tile : !t
    pto.tload ins(%p : !pv) outs(%u : !t)
    %q = arith.remui %i, %c2 : index
    %odd = arith.cmpi ne, %q, %c0 : index
    %s = scf.if %odd -> (!t) {
      scf.yield %u : !t
    } else {
      scf.yield %t : !t
    }
    %v = pto.alloc_tile : !t
    pto.tadd ins(%s, %s : !t, !t) outs(%v : !t)
    %o = pto.partition_view %bv, offsets = [%r, %c0], sizes = [%c4, %c16] : !tv -> !pv
    pto.tstore ins(%v : !t) outs(%o : !pv)
  } {pto.pipeline_stages = 2 : i64}
  return
}
"""


def test_addressed_tile_with_shared_yield_survives_lowering_and_allocation():
    """Found by the generated kernels (seeds 27, 178): after lowering, the
    allocator reported the body copies of a tile at a user-given addr as
    overlapping 'while both are live' once a shared (yielded) tile joined
    their alias sets."""
    pipeline = "pto-lower-pipeline-loops,pto-allocate-memory-addr"
    for name in ("pto-lower-pipeline-loops", "pto-allocate-memory-addr"):
        require(name)
    outcome = check_kernel(SHARED_YIELD_REPRO, "k", {}, [pipeline]).outcomes[0]
    assert outcome.ok, outcome.message


# --- kernels of the repository ----------------------------------------------------------------

CORPUS = find_kernels(ROOT)


@functools.cache
def corpus_check(index: int):
    kernel = CORPUS[index]
    values, why = choose_values(kernel)
    if values is None:
        return None, why
    return check_kernel(kernel.text, kernel.function, values, available_pipelines(), name=kernel.id), ""


# Repository kernels that a pipeline must reject, with the error it must give:
# a deliberate test of something else that is not a valid program for that
# pipeline. Keyed by kernel id (file:line@function): the pipelines, the error.
EXPECTED_REJECTIONS: dict[str, tuple[frozenset[str], str]] = {
    # None: a kernel whose unpipelined form allocates never fails pipelined
    # (CONTRACT 2.4). slots-model.pto's capacity kernel overflowed once it was
    # replicated, until buffers lived from their first write.
}


def expected_rejection(kernel, pipeline: str) -> str | None:
    """The error `pipeline` must give on `kernel`, or None."""
    rule = EXPECTED_REJECTIONS.get(kernel.id)
    if rule is None:
        return None
    return rule[1] if pipeline in rule[0] else None


def test_the_corpus_is_found():
    assert any(k.path.startswith("examples/") for k in CORPUS)
    assert sum(k.path.startswith("test/") for k in CORPUS) >= 10


@pytest.mark.parametrize("index", range(len(CORPUS)), ids=[k.id for k in CORPUS])
@pytest.mark.parametrize("pipeline", PASS_PIPELINES)
def test_repository_kernels_compute_the_same_bits(pipeline, index):
    require(pipeline)
    kernel = CORPUS[index]
    check, why = corpus_check(index)
    if check is None:
        pytest.skip(f"{kernel.id}: {why}")
    if check.reference_error:
        pytest.skip(f"{kernel.id} does not run: {check.reference_error}")
    outcome = next(o for o in check.outcomes if o.pipeline == pipeline)
    rejection = expected_rejection(kernel, pipeline)
    if rejection is not None:
        assert outcome.status == PASS_ERROR and rejection in outcome.message, (
            f"{kernel.id} under '{pipeline}' must be rejected with '{rejection}', got {outcome.status}: {outcome.message}"
        )
        return
    if outcome.status == PASS_ERROR and kernel.expects_errors:
        pytest.skip(f"{kernel.id} is a negative test: the pass is expected to fail on it")
    if outcome.status == MISMATCH and check.reference_warnings:
        pytest.skip(f"{kernel.id} reads never-written memory, so its result is undefined: {check.reference_warnings[0]}")
    assert outcome.ok, f"{kernel.id} under '{pipeline}': {outcome.status}: {outcome.message}"


# --- proof that the comparison can fail ---------------------------------------------------------

# The first differing element the comparison names: %O is a pointer, whose
# buffer is the 16x16 elements its view reaches, flat (row r starts at 16 r).
FIRST_DIFFERENCE = {"row 4": "%O element [64]:", "row 2": "%O element [32]:"}

CARRIED = """
!t = !pto.tile_buf<vec, 4x16xf32>
!m = !pto.multi_tile_buf<vec, 4x16xf32, count=2>
!tv = !pto.tensor_view<16x16xf32>
!pv = !pto.partition_tensor_view<4x16xf32>
func.func @k(%A: !pto.ptr<f32>, %O: !pto.ptr<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %av = pto.make_tensor_view %A, shape = [%c16, %c16], strides = [%c16, %c1] {layout = #pto.layout<nd>} : !tv
  %ov = pto.make_tensor_view %O, shape = [%c16, %c16], strides = [%c16, %c1] {layout = #pto.layout<nd>} : !tv
  MULTI
  scf.for %i = %c0 to %c4 step %c1 {
    ACC
    %first = arith.cmpi eq, %i, %c0 : index
    scf.if %first {
      %p0 = pto.partition_view %av, offsets = [%c0, %c0], sizes = [%c4, %c16] : !tv -> !pv
      pto.tload ins(%p0 : !pv) outs(%acc : !t)
    }
    %x = pto.alloc_tile : !t
    %r = arith.muli %i, %c4 : index
    %p = pto.partition_view %av, offsets = [%r, %c0], sizes = [%c4, %c16] : !tv -> !pv
    pto.tload ins(%p : !pv) outs(%x : !t)
    pto.tadd ins(%acc, %x : !t, !t) outs(%acc : !t)
    %o = pto.partition_view %ov, offsets = [%r, %c0], sizes = [%c4, %c16] : !tv -> !pv
    pto.tstore ins(%acc : !t) outs(%o : !pv)
  } {pto.pipeline_stages = 2 : i64}
  return
}
"""
ONE_BUFFER = CARRIED.replace("MULTI", "").replace("ACC", "%acc = pto.alloc_tile : !t")
TWO_SLOTS = CARRIED.replace("MULTI", "%mb = pto.alloc_multi_tile : !m").replace(
    "ACC", "%slot = arith.remui %i, %c2 : index\n    %acc = pto.multi_tile_get %mb[%slot] : !m -> !t"
)


def test_a_loop_carried_tile_given_two_slots_is_caught():
    outcome = check_transformation(ONE_BUFFER, TWO_SLOTS, "k")
    assert outcome.status == MISMATCH
    # iteration 0 is right; iteration 1 reads the other (never-written) slot:
    # %O's row 4 (element 64 of the pointer's buffer) is the first to differ
    assert outcome.message.startswith(FIRST_DIFFERENCE["row 4"]), outcome.message


def test_an_iteration_local_tile_given_two_slots_is_fine():
    local = ONE_BUFFER.replace("%x = pto.alloc_tile : !t", "%x = pto.multi_tile_get %mb[%slot] : !m -> !t")
    local = local.replace("scf.for %i", "%mb = pto.alloc_multi_tile : !m\n  scf.for %i").replace(
        "%acc = pto.alloc_tile : !t", "%acc = pto.alloc_tile : !t\n    %slot = arith.remui %i, %c2 : index"
    )
    assert "multi_tile_get" in local
    assert check_transformation(ONE_BUFFER, local, "k").status == SAME


COLIVE = """
!t = !pto.tile_buf<vec, 4x16xf32>
!tv = !pto.tensor_view<16x16xf32>
!pv = !pto.partition_tensor_view<4x16xf32>
func.func @k(%A: !pto.ptr<f32>, %B: !pto.ptr<f32>, %O: !pto.ptr<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %addr_a = arith.constant ADDR_A : i64
  %addr_b = arith.constant ADDR_B : i64
  %av = pto.make_tensor_view %A, shape = [%c16, %c16], strides = [%c16, %c1] {layout = #pto.layout<nd>} : !tv
  %bv = pto.make_tensor_view %B, shape = [%c16, %c16], strides = [%c16, %c1] {layout = #pto.layout<nd>} : !tv
  %ov = pto.make_tensor_view %O, shape = [%c16, %c16], strides = [%c16, %c1] {layout = #pto.layout<nd>} : !tv
  scf.for %i = %c0 to %c4 step %c1 {
    %a = ALLOC_A
    %b = ALLOC_B
    %r = arith.muli %i, %c4 : index
    %pa = pto.partition_view %av, offsets = [%r, %c0], sizes = [%c4, %c16] : !tv -> !pv
    %pb = pto.partition_view %bv, offsets = [%r, %c0], sizes = [%c4, %c16] : !tv -> !pv
    pto.tload ins(%pa : !pv) outs(%a : !t)
    pto.tload ins(%pb : !pv) outs(%b : !t)
    pto.tsub ins(%a, %b : !t, !t) outs(%a : !t)
    %po = pto.partition_view %ov, offsets = [%r, %c0], sizes = [%c4, %c16] : !tv -> !pv
    pto.tstore ins(%a : !t) outs(%po : !pv)
  } {pto.pipeline_stages = 2 : i64}
  return
}
"""


def colive(addr_a: int | None, addr_b: int | None) -> str:
    text = COLIVE.replace("ADDR_A", str(addr_a or 0)).replace("ADDR_B", str(addr_b or 0))
    for name, addr in (("A", addr_a), ("B", addr_b)):
        alloc = f"pto.alloc_tile addr = %addr_{name.lower()} : !t" if addr is not None else "pto.alloc_tile : !t"
        text = text.replace(f"ALLOC_{name}", alloc)
    return text


def test_co_live_buffers_at_overlapping_addresses_are_caught():
    outcome = check_transformation(colive(None, None), colive(0, 128), "k")
    # %b (4x16xf32 = 256 bytes at 128) overwrites the second half of %a
    assert outcome.status == MISMATCH
    assert outcome.message.startswith(FIRST_DIFFERENCE["row 2"]), outcome.message
    assert check_transformation(colive(None, None), colive(0, 256), "k").status == SAME


# Deliberately wrong passes, registered for one test: the harness must report them.


def _wrong_passes():
    from pto_dialect.dialect.allocs import alloc_attributes, alloc_operands, create_alloc
    from pto_dialect.dialect.types import MultiTileBufType, tile_type
    from pto_dialect.pass_infra import ModulePass
    from pto_dialect.support.ir_utils import defined_inside, walk_ops

    @dataclass(frozen=True)
    class EverythingAtZero(ModulePass):
        """Give every unaddressed tile address 0 (co-live buffers overlap)."""

        name: ClassVar[str] = "test-everything-at-zero"

        def apply(self, run, module):
            i64 = ir.IntegerType.get_signless(64)
            allocs = [op for op in walk_ops(module) if op.name == "pto.alloc_tile" and alloc_operands(op).addr is None]
            for op in allocs:
                with ir.InsertionPoint(op), op.location:
                    zero = ir.Operation.create("arith.constant", results=[i64], attributes={"value": ir.IntegerAttr.get(i64, 0)})
                    operands = alloc_operands(op).with_addr(zero.results[0])
                    new = create_alloc("pto.alloc_tile", op.results[0].type, operands, loc=op.location, attributes=alloc_attributes(op))
                op.results[0].replace_all_uses_with(new.results[0])
                op.erase()

    @dataclass(frozen=True)
    class SlotEveryTile(ModulePass):
        """Multi-buffer every unaddressed tile of a pipeline loop body, loop-carried ones too."""

        name: ClassVar[str] = "test-slot-every-tile"

        def apply(self, run, module):
            index = ir.IndexType.get()
            # pick the loops before rewriting: the walk list holds the allocs we erase
            loops = [op for op in walk_ops(module) if op.name == "scf.for" and "pto.pipeline_stages" in op.attributes]
            for loop in loops:
                body = loop.regions[0].blocks[0]
                iv = body.arguments[0]
                for view in list(body.operations):
                    op = view.operation
                    operands = alloc_operands(op) if op.name == "pto.alloc_tile" else None
                    if operands is None or operands.addr is not None:
                        continue
                    if any(defined_inside(v, loop) for v in operands.valid):
                        continue  # valid sizes computed in the body cannot size a buffer made before it
                    if any(use.owner.name == "pto.set_validshape" for use in op.results[0].uses):
                        continue  # ptoas resizes only a tile an alloc_tile defines
                    multi = MultiTileBufType(tile_type(op.results[0].type), 2).to_ir()
                    with ir.InsertionPoint(loop), op.location:
                        mb = create_alloc("pto.alloc_multi_tile", multi, operands, loc=op.location)
                    with ir.InsertionPoint(op), op.location:
                        # in the induction variable's type (kernels have i32, ... and unsigned loops)
                        two = ir.Operation.create("arith.constant", results=[iv.type], attributes={"value": ir.IntegerAttr.get(iv.type, 2)})
                        slot = ir.Operation.create("arith.remui", results=[iv.type], operands=[iv, two.results[0]])
                        if iv.type != index:
                            slot = ir.Operation.create("arith.index_castui", results=[index], operands=[slot.results[0]])
                        get = ir.Operation.create("pto.multi_tile_get", results=[op.results[0].type], operands=[mb.results[0], slot.results[0]])
                    op.results[0].replace_all_uses_with(get.results[0])
                    op.erase()

    return {p.name: p for p in (EverythingAtZero, SlotEveryTile)}


@pytest.fixture
def wrong_passes(monkeypatch):
    from pto_dialect import passes

    extra = _wrong_passes()
    registered = passes.get_all_passes

    def with_wrong():
        return {**registered(), **{name: (lambda cls=cls: cls) for name, cls in extra.items()}}

    monkeypatch.setattr(passes, "get_all_passes", with_wrong)
    return list(extra)


def test_the_harness_reports_an_allocator_that_overlaps_co_live_buffers(wrong_passes):
    outcomes = [check_kernel(k.text, k.function, k.values, ["test-everything-at-zero"]).outcomes[0] for k in map(generate, range(20))]
    caught = [o for o in outcomes if o.status in (MISMATCH, NEW_WARNING)]
    assert len(caught) >= 10, [o.status for o in outcomes]


def test_the_harness_reports_a_conversion_that_slots_loop_carried_tiles(wrong_passes):
    # (with a step of 1: `iv mod 2` then alternates between the slots; a
    # tile whose valid rows the body computes is one the pass cannot slot)
    skip = {"zero_trip", "step_gt_1", "valid_tail"}
    kernels = [k for k in map(generate, range(300)) if "carried_in_body" in k.features and not k.features & skip][:10]
    assert len(kernels) >= 5
    outcomes = [check_kernel(k.text, k.function, k.values, ["test-slot-every-tile"]).outcomes[0] for k in kernels]
    assert all(o.status != PASS_ERROR for o in outcomes), [o.message for o in outcomes]
    caught = [o for o in outcomes if o.status in (MISMATCH, NEW_WARNING)]
    assert len(caught) >= len(kernels) // 2, [(o.status, o.message) for o in outcomes]


def test_a_failing_kernel_is_shrunk_to_what_shows_the_failure(wrong_passes):
    from pto_dialect.testing.minimise import _units, _verdict, minimise

    pipeline = "test-everything-at-zero"
    # the five smallest kernels the wrong pass breaks (how far one shrinks
    # depends on how many of its ops the failure needs): each shrinks and
    # still fails the same way, and one to less than two thirds
    failing = []
    for kernel in sorted(map(generate, range(40)), key=lambda k: k.text.count("\n")):
        before = check_kernel(kernel.text, kernel.function, kernel.values, [pipeline]).outcomes[0]
        if before.status in (MISMATCH, NEW_WARNING):
            failing.append((kernel, before))
        if len(failing) == 5:
            break
    assert len(failing) == 5
    ratios = []
    for kernel, before in failing:
        small = minimise(kernel.text, kernel.function, kernel.values, pipeline)
        assert small.count("\n") < kernel.text.count("\n"), small
        after = check_kernel(small, kernel.function, kernel.values, [pipeline]).outcomes[0]
        assert after.status == before.status, after
        ratios.append(small.count("\n") / kernel.text.count("\n"))
    assert min(ratios) < 2 / 3, ratios
    # a local minimum: without any one of its ops (or regions) the failure is gone
    kernel, before = failing[0]
    small = minimise(kernel.text, kernel.function, kernel.values, pipeline)
    lines = small.split("\n")
    verdict = _verdict(small, kernel.function, kernel.values, pipeline)
    for start, end in _units(lines):
        rest = "\n".join(lines[:start] + lines[end:])
        assert _verdict(rest, kernel.function, kernel.values, pipeline) != verdict, lines[start:end]
    # a kernel no pass changes is left as it is
    assert minimise(kernel.text, kernel.function, kernel.values, "canonicalize") == kernel.text


def test_unregistered_passes_are_named():
    assert unavailable_passes("canonicalize,pto-no-such-pass{x=1}") == ["pto-no-such-pass"]
    assert differential.unavailable_passes("builtin.module(cse)") == []
