"""The pto ops: one declarative entry per op, from which the IRDL file
(`python -m pto_dialect.dialect.irdl_gen`), the ptoas-syntax reader and writer, the
op catalogue and the op list of docs/dialect.md all follow. Adding an op is
adding an entry here.

An entry gives the op's operand groups in ODS order (what the generic form
lists), each with its constraint; its results and attributes; its format(s)
in ODS's notation, as ptoas's ODS (or custom parser) has them; and, for an
op of the semantic tier, which operands it reads and writes and the pipe
that runs it. Ops of the syntax tier (`tier="syntax"`) are read, verified
as far as their entry says, and printed back; the analyses treat them as
unknown.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from functools import cached_property

from .formats import AttrKind, Format, Groups


class Pipe(str, Enum):
    MTE2 = "MTE2"  # global memory -> tile (tload)
    MTE1 = "MTE1"  # tile -> tile across spaces (tmov, textract)
    V = "V"  # vector unit
    M = "M"  # cube (matmul) unit
    MTE3 = "MTE3"  # tile -> global memory (tstore)


PIPES = tuple(Pipe)

WRITE_REGIONS = {
    "valid": "dst's valid region",
    "matmul": "lhs's valid rows x rhs's valid columns",
    "row0": "row 0 of dst's valid columns",
    "concat": "dst's valid rows x the sources' valid columns added",
    "gather": "dst's valid region (by index); some elements (by mask)",
    "some": "some elements only",
}
"""What an op writes of a tile it writes (pto-run's implementation of each op
writes at least this; `test_op_regions.py` checks it op by op)."""

READ_DOMAINS = {
    "dst": "its valid region and dst's valid region (element-wise ops read their sources over dst's domain)",
    "own": "its valid region",
    "matmul": "its valid region and the part of lhs's and rhs's valid shapes the product reads",
    "whole": "anywhere in its shape: a raw offset",
}
"""What an op reads of a tile it reads (pto-run reads at most this)."""

LEVEL3_TMP_WHEN = {
    "always": "always",
    "binary": "with `isBinary = true`",
    "narrowing": "without saturation (`satmode` OFF, the default) from f32 to a 16-bit integer or from f16 to a 16- or 8-bit integer",
    "high-precision": "with `precisionType = high_precision`",
    "index-form": "in its index form (with `indices`)",
    "unaligned-width": "when src's valid width is dynamic or not a multiple of 32",
    "merge-without-tmp": "in its multi-source form without a tmp (`no_tmp`)",
}
"""When ptoas requires an op's `tmp` operand at level3 (the condition of a
`Level3Tmp`; `pto_dialect/dialect/scratch.py` decides each per op instance)."""

LEVEL3_TMP_TYPES = {
    "like-src": "src's shape and valid shape and element type (src's shape as the valid shape when that is dynamic)",
    "half-rows": "ceil(R / 2) x C of src's element type, R x C src's valid shape (columns padded to 32 bytes)",
    "tci": "1x192xf32 (768 bytes) for a 32-bit dst, 1x448xf32 (1792 bytes) for a 16-bit one",
    "tcvt": "1xNxi8: N the bytes of ptoas's formula over dst's valid shape and src's columns, rounded up to 32",
    "transpose": "like src where the aligned path runs (dst's columns a multiple of 16, of 32 for 1-byte elements; "
    "src's columns whole 32-byte blocks, at most 255), else one 32-byte block of src's element type",
    "block": "one 32-byte block (1 x 32/size) of dst's element type",
    "like-indices": "the indices' shape, valid shape and element type",
    "merge": "1 x max(sum of the sources' columns, dst's columns) of the sources' element type",
}
"""The tmp tile ptoas asks for (the type of a `Level3Tmp`). Every tmp is a
`vec` tile, row_major, none_box, fractal 512, as ptoas builds its own
(makeRowMajorNoneBoxConfig in PTOMaterializeImplicitTmp.cpp)."""

PTOAS_IMPLICIT_TMP = "tonibohnlein/PTOAS lib/PTO/Transforms/PTOMaterializeImplicitTmp.cpp"


@dataclass(frozen=True)
class Level3Tmp:
    """What current ptoas asks of an op's `tmp` operand at level3 (docs/dialect.md,
    "Scratch tiles at level3"). At level1/2 ptoas's pto-materialize-implicit-tmp
    gives an op without one the tmp its target implementation needs, and its
    planner an address; at level3 addresses are the user's, so on the arches in
    `arches` ptoas rejects the op without a tmp ("requires explicit tmp when
    PlanMemory is skipped") and pto-allocate-memory-addr adds one of type `tmp`.
    `arches` empty: ptoas requires none at level3; `elsewhere` says what it does
    there and on the other arches."""

    arches: tuple[str, ...]
    when: str = "always"  # a key of LEVEL3_TMP_WHEN
    tmp: str = ""  # a key of LEVEL3_TMP_TYPES (when `arches` is not empty)
    elsewhere: str = ""
    source: str = PTOAS_IMPLICIT_TMP

    def __post_init__(self) -> None:
        if self.when not in LEVEL3_TMP_WHEN or (self.arches and self.tmp not in LEVEL3_TMP_TYPES):
            raise ValueError(f"unknown level3 tmp rule {self.when!r} / {self.tmp!r}")

    def required_on(self, arch: str) -> bool:
        return arch in self.arches



# Constraints an operand or result may have; the IRDL generator and the
# reader know each (a fixed builtin type is written as itself: `index`).
TILE, MULTI, PTR, TENSOR_VIEW, PARTITION, LOCAL_ARRAY = "tile", "multi", "ptr", "tensor_view", "partition", "local_array"
DPS = "dps"  # a tile or a (partition) tensor view: ptoas's PTODpsType
ENTRY = "entry"  # a tile or a tensor view: what cross-core pipes carry
SCALAR = "scalar"  # an integer, index or float
INT = "int"  # any integer
ANY = "any"


@dataclass(frozen=True)
class Operand:
    name: str
    constraint: str
    kind: str = "single"  # "single" | "optional" | "variadic"


@dataclass(frozen=True)
class Attribute:
    name: str
    kind: AttrKind
    default: str | None = None  # the ptoas text of a default that printing elides from the attr-dict
    spelled: str = ""  # the keyword the text uses, when it is not the name
    always: str | None = None  # printed with this value when absent (ptoas's custom printers)


@dataclass(frozen=True)
class OpDef:
    name: str  # without "pto."
    operands: tuple[Operand, ...]
    results: tuple[Operand, ...] = ()
    attributes: tuple[Attribute, ...] = ()
    formats: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    write_region: str = "valid"
    """Which elements of each written tile the op writes, in that tile's own
    coordinates (docs/dialect.md, "What an op reads and writes"; one of
    `WRITE_REGIONS`): the analyses count a write as covering exactly these,
    so a rule may say less than the op writes, never more."""
    read_domain: str = "dst"
    """Which elements of each read tile the op reads besides its own valid
    region (one of `READ_DOMAINS`): a rule may say more than the op reads,
    never less."""
    pipe: Pipe | None = None
    tier: str = "semantic"  # "semantic" | "syntax"
    summary: str = ""
    derived_types: tuple[tuple[str, str], ...] = ()
    """(operand, rule) for operand types the format does not write:
    `ptr-of-result` (make_tensor_view's pointer)."""
    infer_result: str = ""
    """How the reader infers the result type when the text omits it:
    `partition-from-sizes`, `subview`."""
    elide_result_when_inferred: bool = False
    level3_tmp: Level3Tmp | None = None
    """What ptoas requires of the op's `tmp` operand at level3 (None: the op
    has none, or ptoas's pass does not list it)."""

    def __post_init__(self) -> None:
        if self.write_region not in WRITE_REGIONS or self.read_domain not in READ_DOMAINS:
            raise ValueError(f"pto.{self.name}: unknown write_region {self.write_region!r} or read_domain {self.read_domain!r}")
        if self.level3_tmp is not None and not any(o.name == "tmp" for o in self.operands):
            raise ValueError(f"pto.{self.name}: a level3 tmp rule, but no `tmp` operand")

    @property
    def full_name(self) -> str:
        """The ptoas name (`pto.tmatmul.acc`)."""
        return "pto." + self.name

    @property
    def generic_name(self) -> str:
        """The name in the generic form and the IRDL file, where op names
        have no dots (`pto.tmatmul_acc`): what MLIR, the passes and the
        interpreter see."""
        return "pto." + self.name.replace(".", "_")

    @cached_property
    def groups(self) -> Groups:
        return Groups(
            {o.name: o.kind for o in self.operands},
            {r.name: r.kind for r in self.results},
            {a.name: a.kind for a in self.attributes},
        )

    @cached_property
    def parsed_formats(self) -> tuple[Format, ...]:
        return tuple(Format(f, self.groups) for f in self.formats)

    @cached_property
    def needs_segments(self) -> bool:
        """Whether the generic form needs `operandSegmentSizes`: IRDL asks
        for it when more than one operand group is optional or variadic."""
        return sum(o.kind != "single" for o in self.operands) > 1

    def operand(self, name: str) -> Operand:
        return next(o for o in self.operands if o.name == name)

    def attribute(self, name: str) -> Attribute | None:
        return next((a for a in self.attributes if a.name == name), None)


# --- attribute kinds ------------------------------------------------------------------


def _int(width: int) -> AttrKind:
    return AttrKind("int", width)


BOOL = AttrKind("bool")
STRING = AttrKind("string")
SYMBOL = AttrKind("symbol")
ARRAY = AttrKind("array")
ANY_ATTR = AttrKind("any")


def _enum(name: str) -> AttrKind:
    return AttrKind("enum", enum=name)


# --- the formats ptoas's ops share ----------------------------------------------------------


def _ins_outs(ins: list[str], outs: list[str] = ("dst",), tail: str = "attr-dict") -> str:
    """`ins(%a, %b : TA, TB) outs(%d : TD) attr-dict`, with `s` operands
    (scalars) typed unqualified."""
    names = " `,` ".join(f"${n}" for n in ins)
    types = " `,` ".join(f"qualified(type(${n}))" for n in ins)
    out_names = " `,` ".join(f"${n}" for n in outs)
    out_types = " `,` ".join(f"qualified(type(${n}))" for n in outs)
    return f"`ins` `(` {names} `:` {types} `)` `outs` `(` {out_names} `:` {out_types} `)` {tail}"


def _ins_opt_tmp(ins: list[str], outs=("dst",), attrs_inside: bool = False) -> str:
    """`ins(%a[, %tmp] : TA[, TT]) outs(%d : TD)`: an optional `tmp` operand
    after the inputs (ptoas's custom parsers of reductions and friends);
    `attrs_inside` puts the attribute dictionary before the colon (tcvt)."""
    names = " `,` ".join(f"${n}" for n in ins)
    types = " `,` ".join(f"qualified(type(${n}))" for n in ins)
    out_names = " `,` ".join(f"${n}" for n in outs)
    out_types = " `,` ".join(f"qualified(type(${n}))" for n in outs)
    inner_dict = " attr-dict" if attrs_inside else ""
    outer_dict = "" if attrs_inside else " attr-dict"
    return (
        f"`ins` `(` {names} (`,` $tmp^)?{inner_dict} `:` {types} (`,` qualified(type($tmp))^)? `)` "
        f"`outs` `(` {out_names} `:` {out_types} `)`{outer_dict}"
    )


_TILE_IN = Operand("src", DPS)
_DST = Operand("dst", DPS)
_TMP = Operand("tmp", DPS, "optional")

# What ptoas requires of each op's `tmp` at level3 (Level3Tmp), from its
# pto-materialize-implicit-tmp pass, its verifiers and its implicit_tmp lit
# tests (tonibohnlein/PTOAS at e32488c9).
_A5_PLACEHOLDER = (
    "on a5 ptoas adds a 32-byte placeholder itself, without an address, at level3 too "
    "(the a5 implementation ignores tmp: makeA5PlaceholderTmpType)"
)
_ROW_REDUCTION_TMP = Level3Tmp(
    ("a2a3",),
    "always",
    "like-src",
    elsewhere=_A5_PLACEHOLDER,
    source=f"{PTOAS_IMPLICIT_TMP} (replaceRowReductionWithTmp); test/lit/pto/implicit_tmp_row_reductions.pto",
)
_ROW_EXPAND_TMP = Level3Tmp(
    (),
    elsewhere=(
        "without one, pto-isa's a2a3 mode 1 (a col_major per-row scalar) uses its internal 8 KiB TMP_UB_OFFSET "
        "scratch and mode 2 needs none, so ptoas keeps the no-tmp form at level3 (at level2 it gives mode 1 on "
        "a2a3 a 1 x 8192/size tmp)"
    ),
    source=f"{PTOAS_IMPLICIT_TMP} (materializeTRowExpandTmp); test/lit/pto/trowexpand_implicit_tmp_materialization.pto",
)


def _binary(name: str, summary: str) -> OpDef:
    return OpDef(
        name,
        (Operand("src0", DPS), Operand("src1", DPS), _DST),
        formats=(_ins_outs(["src0", "src1"]),),
        reads=("src0", "src1"),
        writes=("dst",),
        pipe=Pipe.V,
        summary=summary,
    )


def _with_scalar(name: str, summary: str, custom: bool = False) -> OpDef:
    scalar = "$scalar `:` qualified(type($src)) `,` type($scalar)"
    return OpDef(
        name,
        (Operand("src", DPS if not custom else ANY), Operand("scalar", SCALAR if not custom else ANY), _DST),
        attributes=(Attribute("precisionType", _enum("div_precision")),) if custom else (),
        formats=(f"`ins` `(` $src `,` {scalar} `)` `outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict",),
        reads=("src", "scalar") if custom else ("src",),
        writes=("dst",),
        pipe=Pipe.V,
        summary=summary,
    )


def _unary(name: str, summary: str) -> OpDef:
    return OpDef(name, (_TILE_IN, _DST), formats=(_ins_outs(["src"]),), reads=("src",), writes=("dst",), pipe=Pipe.V, summary=summary)


def _reduction(name: str, summary: str) -> OpDef:
    return OpDef(
        name,
        (_TILE_IN, _TMP, _DST),
        formats=(_ins_opt_tmp(["src"]),),
        reads=("src",),
        writes=("dst",),
        read_domain="own",
        pipe=Pipe.V,
        summary=summary,
        level3_tmp=_ROW_REDUCTION_TMP,
    )


def _row_expand_binary(name: str, summary: str) -> OpDef:
    return OpDef(
        name,
        (Operand("src0", DPS), Operand("src1", DPS), _TMP, _DST),
        formats=(_ins_opt_tmp(["src0", "src1"]),),
        reads=("src0", "src1"),
        writes=("dst",),
        pipe=Pipe.V,
        summary=summary,
        level3_tmp=_ROW_EXPAND_TMP,
    )


def _cross_core_push(name: str) -> OpDef:
    return OpDef(
        name,
        (Operand("tile", ENTRY), Operand("aiv_subblockid", "i64", "optional")),
        attributes=(Attribute("id", _int(32), "0"), Attribute("split", _int(8))),
        formats=(
            "`(` $tile `:` qualified(type($tile)) `)` `{` (`id` `=` $id^ `,`)? `split` `=` $split `}` "
            "(`aiv_subblockid` `(` $aiv_subblockid^ `)`)? attr-dict",
        ),
        tier="syntax",
        summary="push a tile into a cross-core pipe",
    )


def _cross_core_pop(name: str, subblock: bool) -> OpDef:
    operands = [Operand("valid_row", "index", "optional"), Operand("valid_col", "index", "optional")]
    tail = ""
    if subblock:
        operands.append(Operand("aiv_subblockid", "i64", "optional"))
        tail = " (`aiv_subblockid` `(` $aiv_subblockid^ `)`)?"
    return OpDef(
        name,
        tuple(operands),
        results=(Operand("tile", ENTRY),),
        attributes=(Attribute("id", _int(32), "0"), Attribute("split", _int(8))),
        formats=(
            "(`(` $valid_row^ `,` $valid_col `)`)? `{` (`id` `=` $id^ `,`)? `split` `=` $split `}`"
            + tail
            + " attr-dict `->` qualified(type($tile))",
        ),
        tier="syntax",
        summary="pop a tile from a cross-core pipe",
    )


def _cross_core_free(name: str) -> OpDef:
    return OpDef(
        name,
        (Operand("entry", ENTRY, "optional"),),
        attributes=(Attribute("id", _int(32), "0"), Attribute("split", _int(8))),
        formats=("(`(` $entry^ `:` qualified(type($entry)) `)`)? `{` (`id` `=` $id^ `,`)? `split` `=` $split `}` attr-dict",),
        tier="syntax",
        summary="free a cross-core pipe entry",
    )


def _initialize_pipe(name: str) -> OpDef:
    return OpDef(
        name,
        (
            Operand("gm_slot_buffer", PTR, "optional"),
            Operand("gm_slot_tensor", TENSOR_VIEW, "optional"),
            Operand("c2v_consumer_buf", "i32", "optional"),
            Operand("v2c_consumer_buf", "i32", "optional"),
        ),
        attributes=(
            Attribute("id", _int(32), always="0"),
            Attribute("dir_mask", _int(8)),
            Attribute("slot_size", _int(32)),
            Attribute("slot_num", _int(32)),
            Attribute("local_slot_num", _int(32)),
            Attribute("nosplit", BOOL),
            Attribute("acc_push_epilogue", ANY_ATTR),
        ),
        formats=(
            "` ` `{` clauses(id, dir_mask, slot_size, slot_num, local_slot_num, nosplit, acc_push_epilogue) `}` ``"
            "`(` operand-clauses(gm_slot_buffer, gm_slot_tensor, c2v_consumer_buf, v2c_consumer_buf) `)` attr-dict",
        ),
        tier="syntax",
        summary="set up a cross-core pipe",
    )


_ALLOC_FORMAT = (
    "(`addr` `=` $addr^)? (`valid_row` `=` $valid_row^)? (`valid_col` `=` $valid_col^)? attr-dict `:` qualified(type($result))"
)

OPS: tuple[OpDef, ...] = (
    # -- allocation and views ----------------------------------------------------------------
    OpDef(
        "alloc_tile",
        (Operand("addr", "i64", "optional"), Operand("valid_row", "index", "optional"), Operand("valid_col", "index", "optional")),
        results=(Operand("result", TILE),),
        formats=(_ALLOC_FORMAT,),
        summary="a tile buffer (at `addr`, when given); `valid_row`/`valid_col` give the valid shape's `?` dimensions",
    ),
    OpDef(
        "alloc_multi_tile",
        (Operand("addr", "i64", "optional"), Operand("valid_row", "index", "optional"), Operand("valid_col", "index", "optional")),
        results=(Operand("result", MULTI),),
        formats=(_ALLOC_FORMAT,),
        summary="N slot buffers of one tile type; slot k at `addr + k * stride`",
    ),
    OpDef(
        "multi_tile_get",
        (Operand("source", MULTI), Operand("slot", "index")),
        results=(Operand("result", TILE),),
        formats=("$source `[` $slot `]` attr-dict `:` qualified(type($source)) `->` qualified(type($result))",),
        summary="slot `%slot` of a multi-tile buffer (a view)",
    ),
    OpDef(
        "subview",
        (
            Operand("source", TILE),
            Operand("offsets", "index", "variadic"),
            Operand("valid_row", "index", "optional"),
            Operand("valid_col", "index", "optional"),
        ),
        results=(Operand("result", TILE),),
        attributes=(Attribute("sizes", ARRAY),),
        formats=(
            "$source `[` $offsets `]` `sizes` $sizes (`valid` ` ` `[` $valid_row^ `,` $valid_col `]`)? attr-dict "
            "`:` qualified(type($source)) (`->` qualified(type($result))^)?",
        ),
        infer_result="subview",
        summary="a window of a tile at `offsets` of `sizes` (a view)",
    ),
    OpDef(
        "treshape",
        (Operand("src", DPS),),
        results=(Operand("result", DPS),),
        formats=("$src attr-dict `:` qualified(type($src)) `->` qualified(type($result))",),
        summary="the same bytes as another tile type (a view)",
    ),
    OpDef(
        "set_validshape",
        (Operand("source", TILE), Operand("valid_row", "index"), Operand("valid_col", "index")),
        formats=("$source `,` $valid_row `,` $valid_col attr-dict `:` qualified(type($source))",),
        summary="set a tile's dynamic valid shape",
    ),
    OpDef(
        "make_tensor_view",
        (Operand("ptr", PTR), Operand("shape", "index", "variadic"), Operand("strides", "index", "variadic")),
        results=(Operand("result", TENSOR_VIEW),),
        formats=("$ptr `,` `shape` `=` `[` $shape `]` `,` `strides` `=` `[` $strides `]` attr-dict `:` qualified(type($result))",),
        derived_types=(("ptr", "ptr-of-result"),),
        summary="a strided view of global memory at a pointer",
    ),
    OpDef(
        "partition_view",
        (Operand("source", TENSOR_VIEW), Operand("offsets", "index", "variadic"), Operand("sizes", "index", "variadic")),
        results=(Operand("result", PARTITION),),
        formats=(
            "$source `,` `offsets` `=` `[` $offsets `]` `,` `sizes` `=` `[` $sizes `]` attr-dict "
            "`:` qualified(type($source)) (`->` qualified(type($result))^)?",
        ),
        infer_result="partition-from-sizes",
        elide_result_when_inferred=True,
        summary="a block of a tensor view at `offsets` of `sizes`",
    ),
    # -- data movement ----------------------------------------------------------------------------
    OpDef(
        "tload",
        (
            Operand("src", DPS),
            Operand("dst", DPS),
            Operand("pad_value", ANY, "optional"),
            Operand("left_padding_num", "index", "optional"),
            Operand("right_padding_num", ANY, "optional"),
            Operand("init_condition", ANY, "optional"),
        ),
        results=(Operand("result", ANY, "optional"),),
        attributes=(Attribute("pad_mode", _enum("padmode")), Attribute("init_out_buffer", BOOL, "false")),
        formats=(
            "`ins` `(` $src `:` qualified(type($src)) `)` `outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict "
            "(`pad_mode` `=` $pad_mode^)? (`pad_value` `=` $pad_value^ `:` type($pad_value))? "
            "(`left_padding_num` `=` $left_padding_num^ `:` type($left_padding_num))? (`init_out_buffer` `=` $init_out_buffer^)? "
            "(`right_padding_num` `=` $right_padding_num^ `:` type($right_padding_num))? "
            "(`init_condition` `=` $init_condition^ `:` type($init_condition))? (`->` qualified(type($result))^)?",
        ),
        reads=("src",),
        writes=("dst",),
        pipe=Pipe.MTE2,
        summary="load a partition of global memory into a tile",
    ),
    OpDef(
        "tstore",
        (Operand("src", DPS), Operand("dst", DPS), Operand("fp", DPS, "optional"), Operand("preQuantScalar", "i64", "optional")),
        results=(Operand("result", ANY, "optional"),),
        attributes=(
            Attribute("stPhase", _enum("st_phase"), "#pto<st_phase unspecified>"),
            Attribute("atomicType", _enum("atomic_type"), "#pto<atomic_type atomic_none>"),
            Attribute("reluPreMode", _enum("relu_pre_mode"), "#pto<relu_pre_mode no_relu>"),
        ),
        formats=(
            "`ins` `(` $src `:` qualified(type($src)) (`fp` $fp^ `:` qualified(type($fp)))? (`,` $preQuantScalar^ `:` type($preQuantScalar))? `)` "
            "`outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict (`->` qualified(type($result))^)?",
        ),
        reads=("src",),
        writes=("dst",),
        read_domain="own",
        pipe=Pipe.MTE3,
        summary="store a tile into a partition of global memory",
    ),
    OpDef(
        "tmov",
        (Operand("src", DPS), Operand("dst", DPS), Operand("fp", DPS, "optional"), Operand("preQuantScalar", "i64", "optional")),
        results=(Operand("result", ANY, "optional"),),
        attributes=(
            Attribute("accToVecMode", _enum("acc_to_vec_mode")),
            Attribute("reluPreMode", _enum("relu_pre_mode"), "#pto<relu_pre_mode no_relu>"),
            Attribute("grpAxis", _enum("mx_group_axis")),
        ),
        formats=(
            "`ins` `(` $src `:` qualified(type($src)) (`,` $fp^ `:` qualified(type($fp)))? (`,` $preQuantScalar^ `:` type($preQuantScalar))? `)` "
            "`outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict (`->` qualified(type($result))^)?",
        ),
        reads=("src",),
        writes=("dst",),
        pipe=Pipe.MTE1,
        summary="copy a tile into another (across spaces)",
    ),
    OpDef(
        "textract",
        (
            Operand("src", DPS),
            Operand("indexRow", "index"),
            Operand("indexCol", "index"),
            Operand("dst", DPS),
            Operand("fp", DPS, "optional"),
            Operand("preQuantScalar", "i64", "optional"),
        ),
        attributes=(
            Attribute("accToVecMode", _enum("acc_to_vec_mode")),
            Attribute("reluPreMode", _enum("relu_pre_mode"), "#pto<relu_pre_mode no_relu>"),
        ),
        formats=(
            "`ins` `(` $src `,` $indexRow `,` $indexCol (`,` $preQuantScalar^)? `:` qualified(type($src)) `,` type($indexRow) `,` "
            "type($indexCol) (`,` type($preQuantScalar)^)? (`fp` $fp^ `:` qualified(type($fp)))? `)` "
            "`outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict",
        ),
        reads=("src",),
        writes=("dst",),
        read_domain="own",
        pipe=Pipe.MTE1,
        summary="copy the block of a tile at (`indexRow`, `indexCol`) into a smaller tile",
    ),
    OpDef(
        "load_scalar",
        (Operand("ptr", PTR), Operand("offset", "index")),
        results=(Operand("value", ANY),),
        formats=("$ptr `[` $offset `]` attr-dict `:` type($ptr) `->` type($value)",),
        summary="read one element of global memory",
    ),
    OpDef(
        "store_scalar",
        (Operand("ptr", PTR), Operand("offset", "index"), Operand("value", ANY)),
        formats=("$value `,` $ptr `[` $offset `]` attr-dict `:` type($ptr) `,` type($value)",),
        summary="write one element of global memory",
    ),
    OpDef(
        "tsetval",
        (Operand("dst", DPS), Operand("offset", "index"), Operand("val", SCALAR)),
        formats=("`ins` `(` $offset `,` $val `:` type($offset) `,` type($val) `)` `outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict",),
        writes=("dst",),
        write_region="some",
        summary="write one element of a tile",
    ),
    OpDef(
        "tgetval",
        (Operand("src", DPS), Operand("offset", "index")),
        results=(Operand("dst", SCALAR),),
        formats=("`ins` `(` $src `,` $offset `:` qualified(type($src)) `,` type($offset) `)` `outs` `:` qualified(type($dst)) attr-dict",),
        reads=("src",),
        read_domain="whole",
        summary="read one element of a tile",
    ),
    OpDef(
        "texpands",
        (Operand("scalar", SCALAR), _DST),
        formats=("`ins` `(` $scalar `:` type($scalar) `)` `outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict",),
        writes=("dst",),
        pipe=Pipe.V,
        summary="fill a tile with a scalar",
    ),
    OpDef(
        "tfillpad",
        (_TILE_IN, _DST),
        attributes=(Attribute("padValue", _enum("pad_value")),),
        formats=(_ins_outs(["src"]),),
        reads=("src",),
        writes=("dst",),
        read_domain="own",
        pipe=Pipe.V,
        summary="copy a tile and fill what lies outside its valid shape with its pad value",
    ),
    OpDef(
        "tci",
        (Operand("S", INT), Operand("tmp", DPS, "optional"), _DST),
        attributes=(Attribute("descending", BOOL),),
        formats=(_ins_opt_tmp(["S"]).replace("qualified(type($S))", "type($S)"),),
        writes=("dst",),
        pipe=Pipe.V,
        summary="fill a tile with an arithmetic sequence from `S`",
        level3_tmp=Level3Tmp(
            ("a2a3",),
            "always",
            "tci",
            elsewhere="on a5 ptoas keeps the no-tmp form (a vci instruction)",
            source=f"{PTOAS_IMPLICIT_TMP} (makeTCITmpType); lib/PTO/IR/PTO.cpp TCIOp::verify; test/lit/pto/tci_implicit_tmp_level3_invalid.pto",
        ),
    ),
    OpDef(
        "tgather",
        (
            _TILE_IN,
            _DST,
            Operand("cdst", DPS, "optional"),
            Operand("indices", DPS, "optional"),
            Operand("tmp", DPS, "optional"),
            Operand("kValue", SCALAR, "optional"),
        ),
        attributes=(
            Attribute("maskPattern", _enum("mask_pattern")),
            Attribute("axis", STRING),
            Attribute("cmpMode", _enum("cmp")),
            Attribute("offset", _int(32)),
        ),
        formats=(
            # ptoas's custom parser and printer (TGatherOp::parse/print): the
            # compare form (two outputs), the index form, the mask form (the
            # pattern inside `ins`, the axis string after the source type)
            "`ins` `(` $src `,` $kValue (`,` $tmp^)? `:` qualified(type($src)) `,` type($kValue) (`,` qualified(type($tmp))^)? `)` "
            "`outs` `(` $dst `,` $cdst `:` qualified(type($dst)) `,` qualified(type($cdst)) `)` attr-dict",
            "`ins` `(` $src `,` $indices (`,` $tmp^)? `:` qualified(type($src)) `,` qualified(type($indices)) (`,` qualified(type($tmp))^)? `)` "
            "`outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict",
            "`ins` `(` $src `,` `{` `maskPattern` `=` qualified($maskPattern) `}` `:` qualified(type($src)) (`,` $axis^)? `)` "
            "`outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict",
        ),
        reads=("src", "indices"),
        writes=("dst",),
        write_region="gather",
        pipe=Pipe.V,
        summary="gather elements of a tile by an index tile (or compare against a scalar)",
        # no level3 fact: ptoas's verifier asks for the index form's tmp at
        # every level ('index-form tgather expects both indices and tmp',
        # TGatherOp::verify), so an input without it is refused when read
    ),
    OpDef(
        "ttrans",
        (_TILE_IN, _TMP, _DST),
        formats=(_ins_opt_tmp(["src"]),),
        reads=("src",),
        writes=("dst",),
        read_domain="own",
        pipe=Pipe.V,
        summary="transpose a tile",
        level3_tmp=Level3Tmp(
            ("a2a3",),
            "always",
            "transpose",
            elsewhere=_A5_PLACEHOLDER + "; test/lit/pto/ttrans_implicit_tmp_a5_level3.pto",
            source=f"{PTOAS_IMPLICIT_TMP} (materializeFixedMandatoryTmp, TTransOp); lib/PTO/IR/PTO.cpp ttransUsesTmp",
        ),
    ),
    OpDef(
        "tconcat",
        (Operand("src0", DPS), Operand("src1", DPS), _DST),
        formats=(_ins_outs(["src0", "src1"]),),
        reads=("src0", "src1"),
        writes=("dst",),
        write_region="concat",
        read_domain="own",
        pipe=Pipe.V,
        summary="concatenate two tiles along their columns",
    ),
    # -- element-wise ---------------------------------------------------------------------------
    _binary("tadd", "dst = src0 + src1"),
    _binary("tsub", "dst = src0 - src1"),
    _binary("tmul", "dst = src0 * src1"),
    _binary("tdiv", "dst = src0 / src1"),
    _binary("tmax", "dst = max(src0, src1)"),
    _binary("tmin", "dst = min(src0, src1)"),
    _with_scalar("tadds", "dst = src + scalar"),
    _with_scalar("tsubs", "dst = src - scalar"),
    _with_scalar("tmuls", "dst = src * scalar"),
    _with_scalar("tdivs", "dst = src / scalar or scalar / src (by the operand order)", custom=True),
    _with_scalar("tmaxs", "dst = max(src, scalar)"),
    _with_scalar("tmins", "dst = min(src, scalar)"),
    _unary("texp", "dst = exp(src)"),
    _unary("tlog", "dst = log(src)"),
    _unary("tsqrt", "dst = sqrt(src)"),
    OpDef(
        "trsqrt",
        (_TILE_IN, _DST, _TMP),
        attributes=(Attribute("precisionType", _enum("rsqrt_precision")),),
        formats=(_ins_opt_tmp(["src"]),),
        reads=("src",),
        writes=("dst",),
        pipe=Pipe.V,
        summary="dst = 1 / sqrt(src)",
        # no level3 fact: ptoas's verifier asks for the high-precision form's
        # tmp at every level ('expects tmp when precisionType is
        # high_precision', TRsqrtOp::verify), so an input without it is
        # refused when read
    ),
    _unary("trecip", "dst = 1 / src"),
    _unary("tneg", "dst = -src"),
    _unary("tabs", "dst = |src|"),
    _unary("trelu", "dst = max(src, 0)"),
    OpDef(
        "tcvt",
        (_TILE_IN, _TMP, _DST),
        attributes=(
            Attribute("rmode", _enum("round_mode")),
            Attribute("sat_mode", _enum("saturation_mode"), spelled="satmode"),
        ),
        formats=(_ins_opt_tmp(["src"], attrs_inside=True),),
        reads=("src",),
        writes=("dst",),
        pipe=Pipe.V,
        summary="dst = src converted to dst's element type (`rmode` rounds)",
        level3_tmp=Level3Tmp(
            ("a2a3",),
            "narrowing",
            "tcvt",
            elsewhere="on a5, and for every other conversion, ptoas keeps the no-tmp form",
            source=f"{PTOAS_IMPLICIT_TMP} (tcvtNeedsTmp, makeTCvtTmpType); lib/PTO/IR/PTO.cpp TCvtOp::verify; "
            "test/lit/pto/implicit_tmp_remaining_level3_invalid.pto",
        ),
    ),
    # -- row / column -----------------------------------------------------------------------
    _reduction("trowsum", "dst[r] = sum of row r"),
    _reduction("trowmax", "dst[r] = max of row r"),
    _reduction("trowmin", "dst[r] = min of row r"),
    OpDef(
        "tcolsum",
        (_TILE_IN, _TMP, _DST),
        attributes=(Attribute("isBinary", BOOL, "false"),),
        formats=(
            # ptoas's custom parser and printer (TColSumOp::parse/print): with
            # a tmp the attributes go inside `ins`, without one after `outs`;
            # the third (attributes inside, no tmp) is only read, as older
            # pto-opt printed it
            "`ins` `(` $src `,` $tmp attr-dict `:` qualified(type($src)) `,` qualified(type($tmp)) `)` "
            "`outs` `(` $dst `:` qualified(type($dst)) `)`",
            _ins_outs(["src"]),
            _ins_opt_tmp(["src"], attrs_inside=True),
        ),
        reads=("src",),
        writes=("dst",),
        write_region="row0",
        read_domain="own",
        pipe=Pipe.V,
        summary="dst[c] = sum of column c",
        level3_tmp=Level3Tmp(
            ("a2a3", "a5"),
            "binary",
            "half-rows",
            elsewhere="without isBinary none (ptoas's verifier then refuses one: 'tmp operand requires isBinary attribute')",
            source=f"{PTOAS_IMPLICIT_TMP} (replaceTColSumWithTmp); lib/PTO/IR/PTO.cpp TColSumOp::verify; "
            "test/lit/pto/implicit_tmp_optional_ops_materialization.pto",
        ),
    ),
    replace(_unary("tcolmax", "dst[c] = max of column c"), write_region="row0", read_domain="own"),
    _unary("trowexpand", "dst[r, c] = src[r]"),
    _row_expand_binary("trowexpandadd", "dst[r, c] = src0[r, c] + src1[r]"),
    _row_expand_binary("trowexpandsub", "dst[r, c] = src0[r, c] - src1[r]"),
    _row_expand_binary("trowexpandmul", "dst[r, c] = src0[r, c] * src1[r]"),
    OpDef(
        "trowexpanddiv",
        (Operand("src0", DPS), Operand("src1", DPS), _TMP, _DST),
        attributes=(Attribute("precisionType", _enum("div_precision")),),
        formats=(_ins_opt_tmp(["src0", "src1"]),),
        reads=("src0", "src1"),
        writes=("dst",),
        pipe=Pipe.V,
        summary="dst[r, c] = src0[r, c] / src1[r]",
        level3_tmp=_ROW_EXPAND_TMP,
    ),
    _unary("tcolexpand", "dst[r, c] = src[c]"),
    _binary("tcolexpandadd", "dst[r, c] = src0[r, c] + src1[c]"),
    _binary("tcolexpandmul", "dst[r, c] = src0[r, c] * src1[c]"),
    # -- cube -------------------------------------------------------------------------------
    OpDef(
        "tmatmul",
        (Operand("lhs", DPS), Operand("rhs", DPS), _DST),
        results=(Operand("result", ANY, "optional"),),
        attributes=(Attribute("accPhase", _enum("acc_phase"), "#pto<acc_phase unspecified>"),),
        formats=(
            "`ins` `(` $lhs `,` $rhs `:` qualified(type($lhs)) `,` qualified(type($rhs)) `)` `outs` `(` $dst `:` qualified(type($dst)) `)` "
            "attr-dict (`->` qualified(type($result))^)?",
        ),
        reads=("lhs", "rhs"),
        writes=("dst",),
        write_region="matmul",
        read_domain="matmul",
        pipe=Pipe.M,
        summary="dst = lhs @ rhs",
    ),
    OpDef(
        "tmatmul.acc",
        (Operand("acc_in", DPS), Operand("lhs", DPS), Operand("rhs", DPS), _DST),
        results=(Operand("result", ANY, "optional"),),
        attributes=(Attribute("accPhase", _enum("acc_phase"), "#pto<acc_phase unspecified>"),),
        formats=(
            "`ins` `(` $acc_in `,` $lhs `,` $rhs `:` qualified(type($acc_in)) `,` qualified(type($lhs)) `,` qualified(type($rhs)) `)` "
            "`outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict (`->` qualified(type($result))^)?",
        ),
        reads=("acc_in", "lhs", "rhs"),
        writes=("dst",),
        write_region="matmul",
        read_domain="matmul",
        pipe=Pipe.M,
        summary="dst = acc_in + lhs @ rhs",
    ),
    # -- syntax tier -------------------------------------------------------------------------------
    _cross_core_push("tpush_to_aiv"),
    _cross_core_push("tpush_to_aic"),
    _cross_core_pop("tpop_from_aic", subblock=True),
    _cross_core_pop("tpop_from_aiv", subblock=False),
    _cross_core_free("tfree_from_aic"),
    _cross_core_free("tfree_from_aiv"),
    _initialize_pipe("aic_initialize_pipe"),
    _initialize_pipe("aiv_initialize_pipe"),
    OpDef(
        "cmo.cacheinvalid",
        (Operand("addr", ANY, "optional"),),
        attributes=(Attribute("space", _enum("address_space")),),
        formats=("`all` qualified($space) attr-dict", "$addr `single_cache_line` `:` type($addr) attr-dict"),
        tier="syntax",
        summary="invalidate cache lines of global memory",
    ),
    OpDef(
        "barrier",
        (),
        attributes=(Attribute("pipe", _enum("pipe")),),
        formats=("$pipe attr-dict",),
        tier="syntax",
        summary="wait for a pipe to drain",
    ),
    OpDef(
        "fence.barrier_all",
        (),
        attributes=(Attribute("scope", _enum("fence_scope")),),
        formats=("$scope attr-dict",),
        tier="syntax",
        summary="a memory fence",
    ),
    OpDef(
        "reserve_buffer",
        (),
        results=(Operand("addr", "i32"),),
        attributes=(
            Attribute("name", STRING),
            Attribute("size", _int(32)),
            Attribute("location", _enum("address_space")),
            Attribute("autoAlloc", BOOL, spelled="auto"),
            Attribute("base", _int(32)),
        ),
        formats=(
            "`{` `name` `=` $name `,` `size` `=` $size `,` `location` `=` $location `,` `auto` `=` $autoAlloc "
            "(`,` `base` `=` $base^)? `}` attr-dict `->` type($addr)",
        ),
        tier="syntax",
        summary="reserve a named buffer for cross-core pipes",
    ),
    OpDef(
        "import_reserved_buffer",
        (),
        results=(Operand("addr", "i32"),),
        attributes=(Attribute("name", STRING), Attribute("peer_func", SYMBOL)),
        formats=("`{` `name` `=` $name `,` `peer_func` `=` $peer_func `}` attr-dict `->` type($addr)",),
        tier="syntax",
        summary="the address of a buffer another function reserved",
    ),
    OpDef(
        "addptr",
        (Operand("ptr", PTR), Operand("offset", "index")),
        results=(Operand("result", PTR),),
        formats=("$ptr `,` $offset attr-dict `:` type($ptr) `->` type($result)",),
        tier="syntax",
        summary="a pointer `offset` elements further",
    ),
    OpDef(
        "comm.twait",
        (Operand("signal", ANY), Operand("cmpValue", INT)),
        attributes=(Attribute("cmp", _enum("wait_cmp")),),
        formats=("`(` $signal `,` $cmpValue `:` type($signal) `,` type($cmpValue) `)` attr-dict",),
        tier="syntax",
        summary="wait until a signal compares true",
    ),
    OpDef(
        "comm.tnotify",
        (Operand("signal", ANY), Operand("value", INT)),
        attributes=(Attribute("notifyOp", _enum("notify_op")),),
        formats=("`(` $signal `,` $value `:` type($signal) `,` type($value) `)` attr-dict",),
        tier="syntax",
        summary="update a signal",
    ),
    OpDef(
        "comm.tput",
        (Operand("dst", ANY), Operand("src", ANY), Operand("ping", ANY), Operand("pong", ANY, "optional")),
        attributes=(Attribute("atomicType", _enum("atomic_type"), "#pto<atomic_type atomic_none>"),),
        formats=(
            "`(` $dst `,` $src `,` `buf` `(` $ping (`,` $pong^)? `)` `:` type($dst) `,` type($src) `,` type($ping) "
            "(`,` type($pong)^)? `)` attr-dict",
        ),
        tier="syntax",
        summary="copy to a peer's memory",
    ),
    OpDef(
        "declare_local_array",
        (),
        results=(Operand("array", LOCAL_ARRAY),),
        formats=("attr-dict `->` qualified(type($array))",),
        tier="syntax",
        summary="a small scalar array",
    ),
    OpDef(
        "local_array_get",
        (Operand("array", LOCAL_ARRAY), Operand("indices", "index", "variadic")),
        results=(Operand("result", SCALAR),),
        formats=("$array `[` $indices `]` attr-dict `:` qualified(type($array)) `->` type($result)",),
        tier="syntax",
        summary="read an element of a local array",
    ),
    OpDef(
        "local_array_set",
        (Operand("array", LOCAL_ARRAY), Operand("indices", "index", "variadic"), Operand("value", SCALAR)),
        formats=("$array `[` $indices `]` `,` $value attr-dict `:` qualified(type($array)) `,` type($value)",),
        tier="syntax",
        summary="write an element of a local array",
    ),
    OpDef(
        "tmrgsort",
        (
            Operand("srcs", DPS, "variadic"),
            Operand("blockLen", INT, "optional"),
            Operand("dsts", DPS, "variadic"),
            Operand("tmp", DPS, "optional"),
            Operand("excuted", ANY, "optional"),
        ),
        attributes=(Attribute("exhausted", BOOL, "false"),),
        formats=(
            # ptoas's custom parser and printer (TMrgSortOp::parse/print):
            # format2 (2 to 4 sources, then `tmp` or `no_tmp`, the result
            # and `executed`; the printer always writes `{exhausted = ...}`,
            # the parser does without), then format1 (one source and a block
            # length). Format2 goes first: format1's variadic sources would
            # take format2's text too.
            *(
                f"`ins` `(` $srcs {tmp} {exhausted}`:` qualified(type($srcs)) {tmp_type}`)` "
                "`outs` `(` $dsts `,` $excuted `:` qualified(type($dsts)) `,` qualified(type($excuted)) `)` attr-dict"
                for exhausted in ("` ` `{` `exhausted` `=` $exhausted `}` ", "")
                for tmp, tmp_type in (("`,` $tmp", "`,` qualified(type($tmp)) "), ("`no_tmp`", ""))
            ),
            "`ins` `(` $srcs `,` $blockLen `:` qualified(type($srcs)) `,` type($blockLen) `)` `outs` `(` $dsts `:` qualified(type($dsts)) `)` attr-dict",
        ),
        tier="syntax",
        summary="merge-sort blocks of a tile",
        level3_tmp=Level3Tmp(
            ("a2a3", "a5"),
            "merge-without-tmp",
            "merge",
            elsewhere="the one-source form (with a block length) takes none",
            source=f"{PTOAS_IMPLICIT_TMP} (materializeTMrgSortTmp); test/lit/pto/tmrgsort_dst_wider_implicit_tmp.pto",
        ),
    ),
    OpDef(
        "syncall",
        (Operand("gm_workspace", ANY, "optional"), Operand("used_cores", "i32", "optional")),
        attributes=(Attribute("mode", _enum("sync_all_mode")), Attribute("core_type", _enum("sync_core_type"))),
        formats=(
            "`(` ($gm_workspace^ (`,` $used_cores^)? `:` type($gm_workspace) (`,` type($used_cores)^)?)? `)` "
            "`mode` `=` qualified($mode) `,` `core_type` `=` qualified($core_type) attr-dict",
        ),
        tier="syntax",
        summary="synchronise all cores",
    ),
    OpDef(
        "tprint",
        (_TILE_IN, _TMP),
        formats=("`ins` `(` $src (`,` $tmp^)? `:` qualified(type($src)) (`,` qualified(type($tmp))^)? `)` attr-dict",),
        tier="syntax",
        summary="print a tile (debugging)",
        level3_tmp=Level3Tmp((), elsewhere="ptoas's pass does not list it"),
    ),
    OpDef(
        "ptrtoint",
        (Operand("ptr", PTR),),
        results=(Operand("result", "i64"),),
        formats=("$ptr attr-dict `:` type($ptr) `->` type($result)",),
        tier="syntax",
        summary="a pointer's address as an integer",
    ),
    OpDef(
        "inttoptr",
        (Operand("addr", INT),),
        results=(Operand("result", PTR),),
        formats=("$addr attr-dict `:` type($addr) `->` type($result)",),
        tier="syntax",
        summary="the pointer at an integer address",
    ),
    OpDef(
        "tcolexpandexpdif",
        (Operand("src0", DPS), Operand("src1", DPS), _DST),
        formats=(_ins_outs(["src0", "src1"]),),
        tier="syntax",
        summary="dst = exp(src0 - src1 expanded along columns)",
    ),
    OpDef(
        "tsort32",
        (_TILE_IN, Operand("idx", DPS), _TMP, _DST),
        formats=(_ins_opt_tmp(["src", "idx"]),),
        tier="syntax",
        summary="sort blocks of 32 elements, with their indices",
        level3_tmp=Level3Tmp(
            ("a2a3", "a5"),
            "unaligned-width",
            "like-src",
            elsewhere="a static valid width that is a multiple of 32 takes none",
            source=f"{PTOAS_IMPLICIT_TMP} (replaceTSort32WithTmp); test/lit/pto/tsort32_dynamic_width_implicit_tmp.pto",
        ),
    ),
)

BY_PTOAS_NAME: dict[str, OpDef] = {op.full_name: op for op in OPS}
BY_GENERIC_NAME: dict[str, OpDef] = {op.generic_name: op for op in OPS}


def op_def(name: str) -> OpDef | None:
    """The entry of an op by its generic name (`pto.tmatmul_acc`), or None."""
    return BY_GENERIC_NAME.get(name)


def ptoas_op_def(name: str) -> OpDef | None:
    """The entry of an op by its ptoas name (`pto.tmatmul.acc`), or None."""
    return BY_PTOAS_NAME.get(name)
