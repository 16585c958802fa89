"""The dialect's Python side: loading the IRDL file, the typed views of the
two types (pto_dialect.types), the op catalogue (which must agree with the
IRDL file), the target table and the verifier's type rules."""

from __future__ import annotations

import itertools

import pytest
from mlir import ir

from pto_dialect import catalogue, targets, vocabulary
from pto_dialect.catalogue import CATALOGUE, Pipe
from pto_dialect.dialect import IRDL_FILE, is_loaded, load_dialect
from pto_dialect.types import (
    DTYPE_BYTES,
    SPACES,
    MultiTileBufType,
    TileBufType,
    align_up,
    buffer_type,
    multi_tile_type,
    tile_type,
)
from pto_dialect.verifier_rules import tile_type_problem


@pytest.fixture
def ctx():
    context = ir.Context()
    load_dialect(context)
    with context, ir.Location.unknown():
        yield context


# --- loading ---------------------------------------------------------------


def test_load_dialect_registers_every_catalogue_op():
    context = ir.Context()
    assert not is_loaded(context)
    load_dialect(context)
    assert is_loaded(context)
    for name in CATALOGUE:
        assert context.is_registered_operation(name), name


def test_load_dialect_twice_is_harmless():
    context = ir.Context()
    load_dialect(context)
    load_dialect(context)
    with context:
        load_dialect()  # the current Context
        module = ir.Module.parse('%t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>')
        assert module.operation.verify()


def test_irdl_file_is_shipped_inside_the_package():
    assert IRDL_FILE.name == "pto.irdl.mlir"
    assert IRDL_FILE.parent.name == "pto_dialect"
    assert "irdl.dialect @pto" in IRDL_FILE.read_text()


# --- typed views -------------------------------------------------------------


def test_tile_view_reads_every_space_and_dtype(ctx):
    for loc, dtype in itertools.product(SPACES, DTYPE_BYTES):
        t = ir.Type.parse(f'!pto.tile_buf<"{loc}", array<i64: 4, 8>, {dtype}>')
        view = tile_type(t)
        assert view == TileBufType(loc, (4, 8), dtype)
        assert view.num_elements == 32
        assert view.nbytes == 32 * DTYPE_BYTES[dtype]
        assert buffer_type(t) == view
        assert multi_tile_type(t) is None


def test_byte_sizes_follow_the_contract():
    assert TileBufType("vec", (16, 16), "f32").nbytes == 1024
    assert TileBufType("vec", (16, 16), "f16").nbytes == 512
    assert TileBufType("vec", (16, 16), "bf16").nbytes == 512
    assert TileBufType("vec", (3, 5), "i8").nbytes == 15
    assert TileBufType("vec", (3, 5), "i16").nbytes == 30
    assert TileBufType("vec", (3, 5), "i32").nbytes == 60


def test_multi_view_reads_slot_and_count(ctx):
    t = ir.Type.parse('!pto.multi_tile_buf<!pto.tile_buf<"mat", array<i64: 16, 32>, f16>, 4 : i64>')
    view = multi_tile_type(t)
    assert view == MultiTileBufType(TileBufType("mat", (16, 32), "f16"), 4)
    assert view.loc == "mat"
    assert buffer_type(t) == view
    assert tile_type(t) is None


def test_views_of_other_types_are_none(ctx):
    for text in ("f32", "index", "memref<16x16xf32>", "tuple<i32>", "vector<4xf32>"):
        t = ir.Type.parse(text)
        assert buffer_type(t) is None
        assert tile_type(t) is None
        assert multi_tile_type(t) is None


def test_views_print_and_build_the_same_type(ctx):
    tile = TileBufType("acc", (16, 8), "f32")
    multi = MultiTileBufType(TileBufType("vec", (1, 64), "bf16"), 16)
    for view in (tile, multi):
        built = view.to_ir()
        assert built == ir.Type.parse(str(view))
        assert str(built) == str(view)
        assert buffer_type(built) == view


def test_views_work_in_any_context():
    view = TileBufType("left", (16, 16), "f16")
    for _ in range(2):
        context = ir.Context()
        load_dialect(context)
        t = view.to_ir(context)
        assert t.context == context
        assert tile_type(t) == view


def test_view_of_a_shape_the_verifier_rejects(ctx):
    # The views read any rank; rank and sign are the verifier's business.
    t = ir.Type.parse('!pto.tile_buf<"vec", array<i64: 2, 3, 4>, f32>')
    assert tile_type(t).shape == (2, 3, 4)
    t = ir.Type.parse('!pto.tile_buf<"vec", array<i64: 0, -4>, f32>')
    assert tile_type(t).shape == (0, -4)


def test_stride_is_the_slot_size_aligned_up():
    slot = TileBufType("acc", (10, 25), "f32")  # 1000 bytes
    multi = MultiTileBufType(slot, 3)
    assert multi.stride(512) == 1024
    assert multi.region_bytes(512) == 3072
    assert multi.stride(32) == 1024
    exact = MultiTileBufType(TileBufType("vec", (16, 16), "f32"), 2)
    assert exact.stride(32) == 1024
    assert exact.region_bytes(32) == 2048


def test_align_up():
    assert [align_up(v, 32) for v in (0, 1, 31, 32, 33, 64)] == [0, 32, 32, 32, 64, 64]
    assert align_up(1000, 512) == 1024


# --- the catalogue agrees with the IRDL file -------------------------------------


def _irdl_ops() -> dict[str, dict[str, tuple[list[str], list[str]]]]:
    """op name -> {"operands"/"results": (names, variadicities)} from the IRDL file."""
    ops = {}
    with ir.Context():
        module = ir.Module.parse(IRDL_FILE.read_text())
        (dialect,) = module.body.operations
        assert ir.StringAttr(dialect.attributes["sym_name"]).value == "pto"
        for op in dialect.regions[0].blocks[0].operations:
            if op.operation.name != "irdl.operation":
                continue
            name = "pto." + ir.StringAttr(op.attributes["sym_name"]).value
            entry = {"operands": ([], []), "results": ([], [])}
            for inner in op.regions[0].blocks[0].operations:
                kind = inner.operation.name.removeprefix("irdl.")
                if kind in entry:
                    names = [ir.StringAttr(a).value for a in ir.ArrayAttr(inner.attributes["names"])]
                    variadicity = str(inner.attributes["variadicity"])
                    entry[kind] = (names, variadicity)
                    assert len(names) == len(inner.operands)
            ops[name] = entry
    return ops


IRDL_OPS = _irdl_ops()


def test_catalogue_and_irdl_define_the_same_ops():
    assert set(CATALOGUE) == set(IRDL_OPS)


@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_catalogue_operands_match_irdl(name):
    spec = CATALOGUE[name]
    irdl_operands, _ = IRDL_OPS[name]["operands"]
    assert list(spec.operands) == irdl_operands
    assert set(spec.reads) <= set(spec.operands)
    assert set(spec.writes) <= set(spec.operands)


def test_only_allocs_have_an_optional_operand_and_a_result():
    for name, entry in IRDL_OPS.items():
        names, variadicity = entry["operands"]
        result_names, _ = entry["results"]
        optional = "optional" in variadicity
        assert optional == (name in catalogue.ALLOC_OPS), name
        assert bool(result_names) == (name in catalogue.ALLOC_OPS | catalogue.VIEW_OPS), name


# docs/dialect.md, "Ops": reads, writes and pipe of every op.
DOCUMENTED_TABLE = {
    "pto.tload": ({"src"}, {"dst"}, Pipe.MTE2),
    "pto.tstore": ({"src"}, {"dst"}, Pipe.MTE3),
    **{f"pto.{n}": ({"a", "b"}, {"dst"}, Pipe.V) for n in ("tadd", "tsub", "tmul", "tmax", "tmin")},
    **{f"pto.{n}": ({"a"}, {"dst"}, Pipe.V) for n in ("tadds", "tmuls", "texp", "tabs", "trelu", "tcvt")},
    "pto.tmov": ({"src"}, {"dst"}, Pipe.MTE1),
    "pto.tmatmul": ({"lhs", "rhs"}, {"dst"}, Pipe.M),
    "pto.tmatmul_acc": ({"lhs", "rhs", "acc"}, {"acc"}, Pipe.M),
    "pto.alloc_tile": (set(), set(), None),
    "pto.alloc_multi_tile": (set(), set(), None),
    "pto.multi_tile_get": (set(), set(), None),
}


@pytest.mark.parametrize("name", sorted(DOCUMENTED_TABLE))
def test_catalogue_follows_the_contract_table(name):
    reads, writes, pipe = DOCUMENTED_TABLE[name]
    spec = catalogue.spec(name)
    assert (set(spec.reads), set(spec.writes), spec.pipe) == (reads, writes, pipe)
    assert [spec.operands[i] for i in spec.read_indices] == list(spec.reads)
    assert [spec.operands[i] for i in spec.write_indices] == list(spec.writes)
    assert (name in catalogue.COMPUTE_OPS) == (pipe is not None)


def test_catalogue_knows_no_other_op():
    assert catalogue.spec("pto.tfoo") is None
    assert catalogue.spec("arith.addi") is None


# --- targets -------------------------------------------------------------------------


def test_target_table_follows_the_contract():
    expected = {
        # space: (a2/a3 capacity, a5 capacity, alignment)
        "vec": (196608, 253952, 32),
        "mat": (524288, 524288, 32),
        "left": (65536, 65536, 512),
        "right": (65536, 65536, 512),
        "acc": (131072, 262144, 512),
        "bias": (65536, 65536, 32),
    }
    assert set(targets.ARCHS) == {"a2", "a3", "a5"}
    for space, (a3, a5, align) in expected.items():
        for arch, capacity in (("a2", a3), ("a3", a3), ("a5", a5)):
            spec = targets.space_spec(arch, space)
            assert (spec.capacity, spec.alignment) == (capacity, align), (arch, space)
    assert set(targets.TARGETS["a3"]) == set(SPACES)


def test_arch_from_module_attribute_or_option(ctx):
    plain = ir.Module.parse("")
    a5 = ir.Module.parse('module attributes {pto.target_arch = "a5"} {}')
    bad = ir.Module.parse('module attributes {pto.target_arch = "a9"} {}')
    not_string = ir.Module.parse("module attributes {pto.target_arch = 5 : i64} {}")
    assert vocabulary.module_arch(plain.operation) is None
    assert vocabulary.resolve_arch(plain.operation) == "a3"
    assert vocabulary.module_arch(a5.operation) == "a5"
    assert vocabulary.resolve_arch(a5.operation) == "a5"
    assert vocabulary.resolve_arch(a5.operation, "a2") == "a2"  # the option wins
    for module in (bad, not_string):
        with pytest.raises(vocabulary.ArchError, match="must be one of 'a2', 'a3', 'a5'"):
            vocabulary.module_arch(module.operation)
    with pytest.raises(vocabulary.ArchError, match="unknown arch 'a4'"):
        vocabulary.resolve_arch(plain.operation, "a4")


# --- the verifier's type rules ----------------------------------------------------------


@pytest.mark.parametrize(
    "view, problem",
    [
        (TileBufType("vec", (16, 16), "f32"), None),
        (TileBufType("vec", (1, 1), "i8"), None),
        (TileBufType("vec", (16,), "f32"), "shape must have rank 2, got rank 1"),
        (TileBufType("vec", (), "f32"), "shape must have rank 2, got rank 0"),
        (TileBufType("vec", (0, 16), "f32"), "shape dimensions must be positive, got 0x16"),
        (TileBufType("vec", (4, -1), "f32"), "shape dimensions must be positive, got 4x-1"),
        (TileBufType("vec", (4, 4), "f32", "i32"), "shape must be an array<i64: R, C>, got array<i32: ...>"),
        (TileBufType("gm", (4, 4), "f32"), 'memory space "gm" is not one of vec, mat, left, right, acc, bias'),
        (TileBufType("vec", (4, 4), "f64"), "element type f64 is not one of i8, i16, i32, f16, bf16, f32"),
    ],
)
def test_tile_type_problem(view, problem):
    assert tile_type_problem(view) == problem


def test_types_module_needs_no_context_for_views():
    # Views are plain data: usable (hashable, comparable) without MLIR objects.
    a = TileBufType("vec", (16, 16), "f32")
    assert {a: 1}[TileBufType("vec", (16, 16), "f32")] == 1
    assert str(MultiTileBufType(a, 2)) == '!pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>'
    assert vocabulary.MIN_SLOTS == 2 and vocabulary.MAX_SLOTS == 16
