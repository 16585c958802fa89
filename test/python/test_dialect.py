"""The dialect's Python side: loading the IRDL file, the typed views of the
pto types (pto_dialect.dialect.types), the op table and the catalogue derived from
it (which must agree with the IRDL file), the target table and the
verifier's type rules."""

from __future__ import annotations

import itertools

import pytest
from conftest import pto_context
from mlir import ir

from pto_dialect.dialect import annotations, effects, irdl_gen, targets
from pto_dialect.dialect.effects import CATALOGUE, Pipe
from pto_dialect.dialect.load import IRDL_FILE, is_loaded, load_dialect
from pto_dialect.dialect.ops import OPS, op_def, ptoas_op_def
from pto_dialect.dialect.types import (
    DTYPE_BYTES,
    DYNAMIC,
    LOW_PRECISION,
    SPACES,
    MultiTileBufType,
    PtrType,
    TileBufType,
    ViewType,
    align_up,
    buffer_type,
    multi_tile_type,
    parse_ptoas_type,
    pto_type,
    tile_type,
)
from pto_dialect.dialect.verifier_rules import layout_problem, tile_type_problem


def _tile(text: str) -> TileBufType:
    view, _ = parse_ptoas_type(text)
    return view


# --- loading ---------------------------------------------------------------


def test_load_dialect_registers_every_op_of_the_table():
    context = ir.Context()  # a bare Context: loading the dialect is what is tested
    assert not is_loaded(context)
    load_dialect(context)
    assert is_loaded(context)
    for d in OPS:
        assert context.is_registered_operation(d.generic_name), d.name


def test_load_dialect_twice_is_harmless():
    context = ir.Context()  # a bare Context: loading the dialect is what is tested
    load_dialect(context)
    load_dialect(context)
    with context:
        load_dialect()  # the current Context
        tile = TileBufType("vec", 16, 16, "f32").generic()
        module = ir.Module.parse(f'%t = "pto.alloc_tile"() {{operandSegmentSizes = array<i32: 0, 0, 0>}} : () -> {tile}')
        assert module.operation.verify()


def test_irdl_file_is_shipped_inside_the_package():
    assert IRDL_FILE.name == "pto.irdl.mlir"
    assert IRDL_FILE.parent.name == "dialect" and IRDL_FILE.parent.parent.name == "pto_dialect"
    assert "irdl.dialect @pto" in IRDL_FILE.read_text()


def test_irdl_file_is_generated_from_the_tables():
    # `python -m pto_dialect.dialect.irdl_gen` writes it; a stale file fails here.
    assert IRDL_FILE.read_text() == irdl_gen.render(), "run: python -m pto_dialect.dialect.irdl_gen"


# --- typed views -------------------------------------------------------------


def test_tile_view_reads_every_space_and_dtype(context):
    for loc, dtype in itertools.product(SPACES, DTYPE_BYTES):
        view = TileBufType(loc, 4, 8, dtype)
        t = view.to_ir()
        assert tile_type(t) == view
        assert view.num_elements == 32
        assert view.nbytes == 32 * DTYPE_BYTES[dtype]
        assert buffer_type(t) == view
        assert multi_tile_type(t) is None


def test_every_field_survives_the_generic_spelling(context):
    view = TileBufType("acc", 32, 128, "f32", DYNAMIC, 64, "col_major", "row_major", 1024, 2, 1)
    t = view.to_ir()
    assert tile_type(t) == view
    assert ir.Type.parse(view.generic()) == t


def test_byte_sizes_follow_the_contract():
    assert TileBufType("vec", 16, 16, "f32").nbytes == 1024
    assert TileBufType("vec", 16, 16, "f16").nbytes == 512
    assert TileBufType("vec", 16, 16, "bf16").nbytes == 512
    assert TileBufType("vec", 3, 5, "i8").nbytes == 15
    assert TileBufType("vec", 3, 5, "ui16").nbytes == 30
    assert TileBufType("vec", 3, 5, "i32").nbytes == 60
    assert TileBufType("vec", 3, 5, "i64").nbytes == 120
    # row_plus_one: each row but the last padded by one element (ptoas's planner)
    assert TileBufType("vec", 16, 16, "f32", compact=2).nbytes == (15 * 17 + 16) * 4 == 1084
    assert TileBufType("vec", 16, 16, "f16", compact=2).nbytes == 542
    assert TileBufType("vec", 8, 16, "f32", blayout="col_major", compact=2).nbytes == (15 * 9 + 8) * 4
    assert TileBufType("vec", 16, 16, "f32", compact=2).dense_bytes == 1024
    assert TileBufType("vec", 16, 16, "f32", compact=1).nbytes == 1024  # only 2 pads


def test_valid_shape_defaults_to_the_shape():
    t = TileBufType("vec", 8, 16, "f32")
    assert t.valid == (8, 16) and t.dynamic_valid == (False, False)
    d = TileBufType("vec", 8, 16, "f32", DYNAMIC, 4)
    assert d.valid == (DYNAMIC, 4) and d.dynamic_valid == (True, False)


def test_multi_view_reads_slot_and_count(context):
    slot = TileBufType("mat", 16, 32, "f16")
    t = MultiTileBufType(slot, 4).to_ir()
    view = multi_tile_type(t)
    assert view == MultiTileBufType(slot, 4)
    assert view.loc == "mat"
    assert buffer_type(t) == view
    assert tile_type(t) is None


def test_views_of_other_types_are_none(context):
    for text in ("f32", "index", "memref<16x16xf32>", "tuple<i32>", "vector<4xf32>"):
        t = ir.Type.parse(text)
        assert buffer_type(t) is None
        assert tile_type(t) is None
        assert multi_tile_type(t) is None
        assert pto_type(t) is None


def test_pointer_and_view_types(context):
    ptr = PtrType("f16")
    assert ptr.ptoas() == "!pto.ptr<f16, gm>"
    assert ptr.ptoas(stripped=True) == "<f16, gm>"
    assert pto_type(ptr.to_ir()) == ptr
    assert PtrType("f32", "vec").ptoas() == "!pto.ptr<f32, ub>"  # ptoas prints hardware names
    view = ViewType("tensor_view", (DYNAMIC, 128), "bf16")
    assert view.ptoas() == "!pto.tensor_view<?x128xbf16>"
    assert pto_type(view.to_ir()) == view
    part = ViewType("partition_tensor_view", (1, 1, 16, 16), "f32")
    assert part.ptoas() == "!pto.partition_tensor_view<1x1x16x16xf32>"
    assert pto_type(part.to_ir()) == part


def test_views_work_in_any_context():
    view = TileBufType("left", 16, 16, "f16")
    for _ in range(2):
        context = pto_context()
        t = view.to_ir(context)
        assert t.context == context
        assert tile_type(t) == view


def test_stride_is_the_slot_dense_size_aligned_up():
    slot = TileBufType("acc", 10, 25, "f32")  # 1000 bytes
    multi = MultiTileBufType(slot, 3)
    assert multi.stride(512) == 1024
    assert multi.region_bytes(512) == 3072
    assert multi.stride(32) == 1024
    exact = MultiTileBufType(TileBufType("vec", 16, 16, "f32"), 2)
    assert exact.stride(32) == 1024
    assert exact.region_bytes(32) == 2048


def test_align_up():
    assert [align_up(v, 32) for v in (0, 1, 31, 32, 33, 64)] == [0, 32, 32, 32, 64, 64]
    assert align_up(1000, 512) == 1024


def test_types_module_needs_no_context_for_views():
    # Views are plain data: usable (hashable, comparable) without MLIR objects.
    a = TileBufType("vec", 16, 16, "f32")
    assert {a: 1}[TileBufType("vec", 16, 16, "f32")] == 1
    assert str(MultiTileBufType(a, 2)) == "!pto.multi_tile_buf<!pto.tile_buf<vec, 16x16xf32>, count=2>"
    assert annotations.MIN_SLOTS == 2 and annotations.MAX_SLOTS == 16


# --- the op table, the catalogue and the IRDL file agree -----------------------------------


def _irdl_ops() -> dict[str, dict[str, tuple[list[str], str]]]:
    """op name -> {"operands"/"results": (names, variadicities)} from the IRDL file."""
    ops = {}
    with ir.Context():  # the IRDL file read as IRDL (upstream's dialect), not loaded as pto
        module = ir.Module.parse(IRDL_FILE.read_text())
        (dialect,) = module.body.operations
        assert ir.StringAttr(dialect.attributes["sym_name"]).value == "pto"
        for op in dialect.regions[0].blocks[0].operations:
            if op.operation.name != "irdl.operation":
                continue
            name = "pto." + ir.StringAttr(op.attributes["sym_name"]).value
            entry = {"operands": ([], ""), "results": ([], "")}
            for inner in op.regions[0].blocks[0].operations:
                kind = inner.operation.name.removeprefix("irdl.")
                if kind in entry:
                    names = [ir.StringAttr(a).value for a in ir.ArrayAttr(inner.attributes["names"])]
                    entry[kind] = (names, str(inner.attributes["variadicity"]))
                    assert len(names) == len(inner.operands)
            ops[name] = entry
    return ops


IRDL_OPS = _irdl_ops()


def test_table_and_irdl_define_the_same_ops():
    assert {d.generic_name for d in OPS} == set(IRDL_OPS)


@pytest.mark.parametrize("d", OPS, ids=lambda d: d.name)
def test_table_operands_match_irdl(d):
    names, variadicity = IRDL_OPS[d.generic_name]["operands"]
    assert names == [irdl_gen._irdl_name(o.name) for o in d.operands]
    words = [w.strip() for w in variadicity.removeprefix("#irdl<variadicity_array[").removesuffix("]>").split(",") if w.strip()]
    assert words == [o.kind for o in d.operands]
    result_names, _ = IRDL_OPS[d.generic_name]["results"]
    assert result_names == [irdl_gen._irdl_name(r.name) for r in d.results]
    assert set(d.reads) <= {o.name for o in d.operands}
    assert set(d.writes) <= {o.name for o in d.operands}


def test_names_map_between_the_spellings():
    assert op_def("pto.tmatmul_acc") is ptoas_op_def("pto.tmatmul.acc")
    assert op_def("pto.fence_barrier_all").full_name == "pto.fence.barrier_all"
    assert op_def("pto.tmatmul.acc") is None  # the generic form has no dots


# docs/dialect.md, "Ops": reads, writes and pipe of the ops the contract names.
DOCUMENTED_TABLE = {
    "pto.tload": ({"src"}, {"dst"}, Pipe.MTE2),
    "pto.tstore": ({"src"}, {"dst"}, Pipe.MTE3),
    **{f"pto.{n}": ({"src0", "src1"}, {"dst"}, Pipe.V) for n in ("tadd", "tsub", "tmul", "tdiv", "tmax", "tmin")},
    **{f"pto.{n}": ({"src"}, {"dst"}, Pipe.V) for n in ("tadds", "tsubs", "tmuls", "tmaxs", "tmins", "texp", "tabs", "trelu", "tneg")},
    "pto.tcvt": ({"src"}, {"dst", "tmp"}, Pipe.V),
    "pto.trowsum": ({"src"}, {"dst", "tmp"}, Pipe.V),
    "pto.tmov": ({"src"}, {"dst"}, Pipe.MTE1),
    "pto.textract": ({"src"}, {"dst"}, Pipe.MTE1),
    "pto.tmatmul": ({"lhs", "rhs"}, {"dst"}, Pipe.M),
    "pto.tmatmul_acc": ({"acc_in", "lhs", "rhs"}, {"dst"}, Pipe.M),
    "pto.alloc_tile": (set(), set(), None),
    "pto.alloc_multi_tile": (set(), set(), None),
    "pto.multi_tile_get": (set(), set(), None),
}


@pytest.mark.parametrize("name", sorted(DOCUMENTED_TABLE))
def test_catalogue_follows_the_contract_table(name):
    reads, writes, pipe = DOCUMENTED_TABLE[name]
    spec = effects.spec(name)
    assert (set(spec.reads), set(spec.writes), spec.pipe) == (reads, writes, pipe)
    assert (name in effects.COMPUTE_OPS) == (pipe is not None)


def test_catalogue_has_the_semantic_tier_only():
    assert effects.spec("pto.tfoo") is None
    assert effects.spec("arith.addi") is None
    assert effects.spec("pto.tpush_to_aiv") is None
    assert "pto.tpush_to_aiv" in effects.SYNTAX_OPS


def test_operand_positions_follow_the_optional_operands(context):
    tile = TileBufType("vec", 16, 16, "f32").generic()
    text = f"""
    func.func @f(%a: {tile}, %t: {tile}, %d: {tile}) {{
      "pto.trowsum"(%a, %d) : ({tile}, {tile}) -> ()
      "pto.trowsum"(%a, %t, %d) : ({tile}, {tile}, {tile}) -> ()
      return
    }}"""
    module = ir.Module.parse(text)
    without, with_tmp = list(module.body.operations[0].regions[0].blocks[0].operations)[:2]
    spec = CATALOGUE["pto.trowsum"]
    assert spec.layout(without).reads == (0,) and spec.layout(without).writes == (1,)
    assert spec.layout(with_tmp).reads == (0,) and set(spec.layout(with_tmp).writes) == {1, 2}
    assert spec.layout(with_tmp).scratch == 1 and spec.layout(without).scratch is None
    assert spec.layout(without).index("tmp") is None


def test_partial_writes_do_not_cover():
    spec = CATALOGUE["pto.tsetval"]
    assert "dst" in spec.writes and spec.definition.write_region == "some"


# --- targets -------------------------------------------------------------------------


def test_target_table_follows_the_contract():
    expected = {
        # space: (a2a3 capacity, a5 capacity, alignment)
        "vec": (196608, 253952, 32),
        "mat": (524288, 524288, 32),
        "left": (65536, 65536, 512),
        "right": (65536, 65536, 512),
        "acc": (131072, 262144, 512),
        "bias": (65536, 65536, 32),
        "scaling": (196608, 253952, 32),
    }
    assert set(targets.ARCHS) == {"a2a3", "a5"}
    for space, (a2a3, a5, align) in expected.items():
        for arch, capacity in (("a2a3", a2a3), ("a5", a5)):
            spec = targets.space_spec(arch, space)
            assert (spec.capacity, spec.alignment) == (capacity, align), (arch, space)
    assert set(targets.TARGETS["a2a3"]) == set(SPACES)


def test_arch_from_module_attribute_or_option(context):
    plain = ir.Module.parse("")
    a5 = ir.Module.parse('module attributes {pto.target_arch = "a5"} {}')
    a3 = ir.Module.parse('module attributes {pto.target_arch = "A3"} {}')
    bad = ir.Module.parse('module attributes {pto.target_arch = "a9"} {}')
    not_string = ir.Module.parse("module attributes {pto.target_arch = 5 : i64} {}")
    assert annotations.module_arch(plain.operation) is None
    assert annotations.resolve_arch(plain.operation) == "a2a3"
    assert annotations.module_arch(a5.operation) == "a5"
    assert annotations.module_arch(a3.operation) == "a2a3"  # ptoas's names, any case
    assert annotations.resolve_arch(a5.operation, "a2") == "a2a3"  # the option wins
    for module in (bad, not_string):
        with pytest.raises(annotations.ArchError, match="must be one of 'a2a3', 'a5'"):
            annotations.module_arch(module.operation)
    with pytest.raises(annotations.ArchError, match="unknown arch 'a4'"):
        annotations.resolve_arch(plain.operation, "a4")


# --- the verifier's type and layout rules ----------------------------------------------------


@pytest.mark.parametrize(
    "view, problem",
    [
        (TileBufType("vec", 16, 16, "f32"), None),
        (TileBufType("vec", 1, 1, "i8"), None),
        (TileBufType("vec", 16, 16, "f32", DYNAMIC, DYNAMIC), None),
        (TileBufType("vec", 0, 16, "f32"), "tile_buf rows/cols must be positive"),
        (TileBufType("vec", 16, 16, "f32", 17, 16), "tile_buf valid_row (17) exceeds row (16)"),
        (TileBufType("vec", 16, 16, "f32", 16, 20), "tile_buf valid_col (20) exceeds col (16)"),
        (TileBufType("gm", 4, 4, "f32"), "unknown loc: gm"),
        (TileBufType("vec", 16, 16, "f32", fractal=16), "unsupported s_fractal_size: 16, must be one of {32, 512, 1024}"),
        (TileBufType("vec", 16, 16, "f32", pad=4), "unknown pad: 4"),
        (TileBufType("vec", 16, 16, "complex"), "unsupported tile_buf element type: complex"),
    ],
)
def test_tile_type_problem(view, problem):
    assert tile_type_problem(view) == problem


@pytest.mark.parametrize(
    "text, problem",
    [
        ("!pto.tile_buf<vec, 16x8xf32>", None),
        ("!pto.tile_buf<vec, 2x7xf32>", "expects result row-major none_box tile row byte size (cols * sizeof(dtype)) to be 32-byte aligned, but got 28 bytes"),
        (
            "!pto.tile_buf<vec, 7x2xf32, blayout=col_major>",
            "expects result col-major none_box tile column byte size (rows * sizeof(dtype)) to be 32-byte aligned, but got 28 bytes",
        ),
        ("!pto.tile_buf<vec, 1x16xi1>", "expects result element type to have a byte size"),
        # boxed layouts: whole boxes (vec, fractal 32 and one-row tiles are exempt from the row rule)
        ("!pto.tile_buf<mat, 16x16xf16, blayout=col_major, slayout=row_major>", None),
        ("!pto.tile_buf<mat, 8x16xf16, blayout=col_major, slayout=row_major>", "expects result boxed tile rows to be a multiple of innerRows (16), but got 8"),
        ("!pto.tile_buf<vec, 8x16xf16, slayout=row_major>", None),
        ("!pto.tile_buf<mat, 16x8xf16, slayout=row_major>", "expects result boxed tile cols to be a multiple of innerCols (16), but got 8"),
        ("!pto.tile_buf<acc, 32x128xf32, blayout=col_major, slayout=row_major, fractal=1024>", None),
    ],
)
def test_layout_problem(text, problem):
    assert layout_problem(_tile(text), "result") == problem


def test_low_precision_types_are_known():
    assert "!pto.hif8" in LOW_PRECISION and "f8E4M3FN" in LOW_PRECISION
    assert "f16" not in LOW_PRECISION
    assert _tile("!pto.tile_buf<vec, 16x32x!pto.hif8>").dtype == "!pto.hif8"


# --- the dialect reference follows the tables -------------------------------------------------


def test_docs_op_table_is_generated_from_the_op_table():
    from pto_dialect.tools import op_docs

    text = op_docs.DIALECT_MD.read_text()
    assert text == op_docs.updated(text), "docs/dialect.md is stale: python -m pto_dialect.tools.op_docs --write"
    for d in OPS:
        assert f"| `{d.full_name}` |" in text, d.full_name


def test_op_synopsis_reads_like_the_op():
    from pto_dialect.tools.op_docs import synopsis

    get = op_def("pto.multi_tile_get")
    assert synopsis(get, get.formats[0]) == "%result = pto.multi_tile_get %source[%slot] {attrs} : type(source) -> type(result)"
    add = op_def("pto.tadd")
    assert synopsis(add, add.formats[0]) == "pto.tadd ins(%src0, %src1 : type(src0), type(src1)) outs(%dst : type(dst)) {attrs}"
