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
    "float-dst": "when dst holds floating-point elements",
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
    "prelu": "(R + 1) x max(32, C8 rounded up to 32) of i8, valid R x C8: R x C dst's valid shape, C8 = ceil(C / 8)",
    "two-dst-rows": "2 x dst's columns of dst's element type, valid 2 x dst's valid columns",
    "one-dst-row": "1 x dst's columns of dst's element type, valid 1 x dst's valid columns",
    "one-src-row": "1 x src's columns of src's element type, valid 1 x src's valid columns",
    "select": "1x16xi32",
    "like-dst": "dst's shape, valid shape and element type",
    "like-src-f32": "src's shape and valid shape, of f32",
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
EVENTID_ARRAY = "eventid_array"
PIPE_HANDLE, ASYNC_SESSION, ASYNC_EVENT, PREFETCH_CONTEXT = "pipe", "async_session", "async_event", "prefetch_async_context"
SCALAR = "scalar"  # an integer, index or float
BUILDABLE = ("index", "i64", "i32", "i8", "i1", "f32")  # fixed builtin types: ODS's buildable types
INT = "int"  # any integer
ANY = "any"


@dataclass(frozen=True)
class Operand:
    name: str
    constraint: str
    kind: str = "single"  # "single" | "optional" | "variadic"


@dataclass(frozen=True)
class Region:
    """One region of an op, as ptoas's ODS declares it (`let regions`, and
    the op's traits): `blocks` is SizedRegion<N>'s N (None: AnyRegion);
    `terminator` names the op (of this table, without "pto.") that must end
    its block, or is "" for ptoas's NoTerminator, whose body simply ends
    (docs/dialect.md, "Ops with a region"). `block_arguments`: whether its
    block may have arguments (ptoas's verifier refuses them where False).
    `once`: the op runs its region at most once, where it stands (a
    section on the core it names, a fusion region in place), so the
    analyses read its body in program order."""

    name: str
    blocks: int | None = 1
    terminator: str = ""
    block_arguments: bool = True
    once: bool = True


IMPLICIT_TERMINATOR = "gpu.yield"
"""What ends the block of a pto op's region in the generic form: an IRDL op
(LLVM 22) can be neither a terminator nor NoTerminator, and MLIR's verifier
wants every block of a registered op to end in a terminator, so the block
ends in this upstream terminator without operands (it has no parent rule,
is Pure and ReturnLike). The reader adds it where ptoas's text has none,
the writer leaves it out: ptoas's text never has it (docs/dialect.md,
"Ops with a region")."""


@dataclass(frozen=True)
class Attribute:
    """One attribute of an op. `default` and `held` are ptoas's ODS
    (`scripts/ptoas_ods.py --defaults`; test_ptoas_ops.py checks every one
    against test/python/data/ptoas_defaults.txt): an attribute with a
    default is the same op whether the text spells the default or leaves it
    out (the reader drops it); ODS's printers leave it out, ptoas's
    hand-written printers may not (`OpDef.printer`, `printed_default`)."""

    name: str
    kind: AttrKind
    default: str | None = None
    """ODS's default (`DefaultValuedAttr`, `DefaultValuedOptionalAttr`), as
    ptoas prints it in a format (an integer without its type)."""
    spelled: str = ""  # the keyword the text uses, when it is not the name
    held: bool = False
    """A `DefaultValuedAttr`: every op ptoas builds holds it, set to the
    default when the text has none (ODS's populateDefaultAttrs), so a
    printer that prints the op's attribute dictionary prints it. A
    `DefaultValuedOptionalAttr` is not held (only its getter answers the
    default)."""
    always: bool = False
    """ptoas's hand-written printer spells it even when the op lacks it,
    from its getter (the default): `id = 0` of the pipe set-up ops."""
    required: bool = False
    """ODS declares it neither optional nor with a default (an `I8Attr`, a
    `PTO_PipeAttr`, ...): ptoas refuses an op without it ("requires
    attribute"); the IRDL file lists it, so MLIR's verifier does too
    (test_ptoas_ops.py checks every one against
    test/python/data/ptoas_required.txt)."""

    def dict_text(self, value: str) -> str:
        """`value` (format text) as an attr-dict entry's value: an integer
        with its type (`0 : i32`)."""
        if self.kind.kind == "int" and ":" not in value:
            return f"{value} : i{self.kind.width}"
        return value

    def is_default(self, text: str | None) -> bool:
        """Whether `text` (ptoas text, in a format or an attr-dict) is the default."""
        if self.default is None or text is None:
            return False
        text = text.strip()
        if self.kind.kind == "int":
            text = text.split(":")[0].strip()
        return text == self.default


PRINTERS = {
    "ods": "ODS's generated printer: an attribute at its default is left out (of the attr-dict and of optional groups)",
    "dict": "a hand-written printer that prints the op's attribute dictionary (printOptionalAttrDict(getAttrs())): "
    "a held default is printed, also when the text left it out",
}
"""What ptoas's printer of an op does with default-valued attributes
(`OpDef.printer`)."""


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
    printer: str = "ods"
    """ptoas's printer of the op, as far as defaults go (a key of `PRINTERS`;
    "dict" only for an op with `hasCustomAssemblyFormat`, whose print()
    in lib/PTO/IR/PTO.cpp prints `(*this)->getAttrs()`)."""
    regions: tuple[Region, ...] = ()
    """ODS's `let regions`: each region's name (its `$name` in the formats)
    and what ptoas says of its blocks."""
    terminates: tuple[str, ...] = ()
    """For a terminator op (ODS's Terminator with ParentOneOf): the ops (of
    this table, without "pto.") whose region it ends."""

    def __post_init__(self) -> None:
        if self.write_region not in WRITE_REGIONS or self.read_domain not in READ_DOMAINS:
            raise ValueError(f"pto.{self.name}: unknown write_region {self.write_region!r} or read_domain {self.read_domain!r}")
        if self.printer not in PRINTERS:
            raise ValueError(f"pto.{self.name}: unknown printer {self.printer!r}")
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
            {o.name: o.constraint for o in (*self.operands, *self.results) if o.constraint in BUILDABLE},
            frozenset(r.name for r in self.regions),
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

    def printed_default(self, attribute: Attribute) -> str | None:
        """What ptoas prints for `attribute` when the op lacks it (its
        default), or None when it prints nothing: a held default under a
        printer that prints the attribute dictionary, or one its printer
        always spells."""
        if attribute.default is None:
            return None
        if attribute.always or (attribute.held and self.printer == "dict"):
            return attribute.default
        return None

    @cached_property
    def printed_defaults(self) -> tuple[Attribute, ...]:
        """The attributes ptoas prints at their default when the op lacks them."""
        return tuple(a for a in self.attributes if self.printed_default(a) is not None)


# --- attribute kinds ------------------------------------------------------------------


def _int(width: int) -> AttrKind:
    return AttrKind("int", width)


BOOL = AttrKind("bool")
STRING = AttrKind("string")
SYMBOL = AttrKind("symbol")
ARRAY = AttrKind("array")
DENSE_I64 = AttrKind("dense_i64")  # a DenseI64ArrayAttr: `array<i64: 0, 2>`
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
    return f"`ins` `(` {names} (`,` $tmp^)?{inner_dict} `:` {types} (`,` qualified(type($tmp))^)? `)` `outs` `(` {out_names} `:` {out_types} `)`{outer_dict}"


_TILE_IN = Operand("src", DPS)
_DST = Operand("dst", DPS)
_TMP = Operand("tmp", DPS, "optional")

# What ptoas requires of each op's `tmp` at level3 (Level3Tmp), from its
# pto-materialize-implicit-tmp pass, its verifiers and its implicit_tmp lit
# tests (tonibohnlein/PTOAS at e32488c9).
_A5_PLACEHOLDER = (
    "on a5 ptoas adds a 32-byte placeholder itself, without an address, at level3 too (the a5 implementation ignores tmp: makeA5PlaceholderTmpType)"
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


def _comm_collective(fixed: list[str], ping: str, pong: str) -> tuple[str, str]:
    """`(%a[, %b], recv(%ping[, %pong]), group(%g, ...) : TA[, TB], TPING[, TPONG], TG, ...)
    attr-dict`, ptoas's collectives (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp,
    parseCommRecvClause, parseCommCollectiveTail): with the pong, and
    without, since without it the first group type follows ping's."""
    names = " `,` ".join(f"${n}" for n in fixed)
    types = " `,` ".join(f"qualified(type(${n}))" for n in fixed)

    def form(recv: list[str]) -> str:
        recv_names = " `,` ".join(f"${n}" for n in recv)
        recv_types = " `,` ".join(f"qualified(type(${n}))" for n in recv)
        return (
            f"`(` {names} `,` `recv` `(` {recv_names} `)` `,` `group` `(` $group `)` "
            f"`:` {types} `,` {recv_types} `,` qualified(type($group)) `)` attr-dict"
        )

    return (form([ping, pong]), form([ping]))


_BUF_SYNC_FORMATS = (
    "custom<PipeToken>($op_type) `,` $buf_id (`,` $mode^)? attr-dict",
    "`[` $op_type `,` $buf_id (`,` $mode^)? `]` attr-dict",
)
"""get_buf's and rls_buf's forms (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp,
parseBufSyncOp, parseBufDynSyncOp; `buf_id` a static integer or a dynamic
index): the op type a string (`"PIPE_MTE2", 3, 0`), or any attribute in
brackets (`[#pto.pipe_event_type<TLOAD>, 3, 0]`)."""

_SYNC_EVENT_FORMATS = ("$pipe `,` $event_id_dyn attr-dict", "$pipe `,` $event_id attr-dict")
"""`<PIPE_X>, %e` or `<PIPE_X>, 3` (the pipe stripped, or in full): the
event-id forms of ptoas's parseSyncEventOpCommon (tonibohnlein/PTOAS
lib/PTO/IR/PTO.cpp), which sync.set, sync.wait and the cross- and
intra-block flag ops share."""


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
        attributes=(Attribute("precisionType", _enum("div_precision"), "#pto<div_precision default>", held=True),) if custom else (),
        formats=(f"`ins` `(` $src `,` {scalar} `)` `outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict",),
        printer="dict" if custom else "ods",  # TDivSOp::print
        reads=("src", "scalar") if custom else ("src",),
        writes=("dst",),
        pipe=Pipe.V,
        summary=summary,
    )


def _precision(what: str) -> Attribute:
    """`precisionType`, the default-valued choice of ptoas's division-like ops (`#pto<div_precision default>`)."""
    return Attribute("precisionType", _enum(f"{what}_precision"), f"#pto<{what}_precision default>", held=True)


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


def _sync_flag(name: str, summary: str) -> OpDef:
    # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, SetFlagOp::parse and
    # WaitFlagOp::parse, printLegacySyncTriplet): `[<PIPE_X>, <PIPE_Y>, <EVENT_IDn>]`, each also in full
    # (`#pto.pipe<PIPE_X>`); its legacy strings (`"PIPE_X"`) are not read
    return OpDef(
        name,
        (),
        attributes=(
            Attribute("src_pipe", _enum("pipe"), required=True),
            Attribute("dst_pipe", _enum("pipe"), required=True),
            Attribute("event_id", _enum("event"), required=True),
        ),
        formats=("`[` $src_pipe `,` $dst_pipe `,` $event_id `]` attr-dict",),
        printer="dict",  # printOptionalAttrDict(getAttrs(), {src_pipe, dst_pipe, event_id})
        tier="syntax",
        summary=summary,
    )


def _buf_sync(name: str, *, dynamic: bool, summary: str) -> OpDef:
    # ptoas's custom parsers and printers (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, GetBufOp::parse,
    # GetBufDynOp, RlsBufOp, RlsBufDynOp; parseBufSyncOp / printBufSyncOp, parseBufDynSyncOp /
    # printBufDynSyncOp): `"PIPE_X", id, mode` or `[#pto.pipe_event_type<T>, id, mode]`, the id an
    # index operand in the dynamic ops, mode always printed (0 when the text has none)
    buf_id = () if dynamic else (Attribute("buf_id", _int(32), required=True),)
    return OpDef(
        name,
        (Operand("buf_id", "index"),) if dynamic else (),
        attributes=(
            Attribute("op_type", ANY_ATTR, required=True),
            *buf_id,
            Attribute("mode", _int(32), "0", held=True, always=True),
        ),
        formats=_BUF_SYNC_FORMATS,
        printer="dict",  # printOptionalAttrDict(getAttrs(), {op_type, buf_id, mode})
        tier="syntax",
        summary=summary,
    )


def _cross_core_push(name: str) -> OpDef:
    return OpDef(
        name,
        (Operand("tile", ENTRY), Operand("aiv_subblockid", "i64", "optional")),
        attributes=(Attribute("id", _int(32), "0"), Attribute("split", _int(8), required=True)),
        formats=(
            "`(` $tile `:` qualified(type($tile)) `)` `{` (`id` `=` $id^ `,`)? `split` `=` $split `}` (`aiv_subblockid` `(` $aiv_subblockid^ `)`)? attr-dict",
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
        attributes=(Attribute("id", _int(32), "0"), Attribute("split", _int(8), required=True)),
        formats=("(`(` $valid_row^ `,` $valid_col `)`)? `{` (`id` `=` $id^ `,`)? `split` `=` $split `}`" + tail + " attr-dict `->` qualified(type($tile))",),
        tier="syntax",
        summary="pop a tile from a cross-core pipe",
    )


def _cross_core_free(name: str) -> OpDef:
    return OpDef(
        name,
        (Operand("entry", ENTRY, "optional"),),
        attributes=(Attribute("id", _int(32), "0"), Attribute("split", _int(8), required=True)),
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
            Attribute("id", _int(32), "0", always=True),
            Attribute("dir_mask", _int(8), required=True),
            Attribute("slot_size", _int(32), required=True),
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


_ALLOC_FORMAT = "(`addr` `=` $addr^)? (`valid_row` `=` $valid_row^)? (`valid_col` `=` $valid_col^)? attr-dict `:` qualified(type($result))"

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
        attributes=(Attribute("sizes", ARRAY, required=True),),
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
            Attribute("stPhase", _enum("st_phase"), "#pto<st_phase unspecified>", held=True),
            Attribute("atomicType", _enum("atomic_type"), "#pto<atomic_type atomic_none>", held=True),
            Attribute("reluPreMode", _enum("relu_pre_mode"), "#pto<relu_pre_mode no_relu>", held=True),
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
            Attribute("reluPreMode", _enum("relu_pre_mode"), "#pto<relu_pre_mode no_relu>", held=True),
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
            Attribute("reluPreMode", _enum("relu_pre_mode"), "#pto<relu_pre_mode no_relu>", held=True),
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
        attributes=(Attribute("descending", BOOL, "false", held=True),),
        formats=(_ins_opt_tmp(["S"]).replace("qualified(type($S))", "type($S)"),),
        printer="dict",  # TCIOp::print (printTCILikeOp)
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
    replace(_binary("tdiv", "dst = src0 / src1"), attributes=(_precision("div"),)),
    _binary("tmax", "dst = max(src0, src1)"),
    _binary("tmin", "dst = min(src0, src1)"),
    _with_scalar("tadds", "dst = src + scalar"),
    _with_scalar("tsubs", "dst = src - scalar"),
    _with_scalar("tmuls", "dst = src * scalar"),
    _with_scalar("tdivs", "dst = src / scalar or scalar / src (by the operand order)", custom=True),
    _with_scalar("tmaxs", "dst = max(src, scalar)"),
    _with_scalar("tmins", "dst = min(src, scalar)"),
    replace(_unary("texp", "dst = exp(src)"), attributes=(_precision("exp"),)),
    replace(_unary("tlog", "dst = log(src)"), attributes=(_precision("log"),)),
    replace(_unary("tsqrt", "dst = sqrt(src)"), attributes=(_precision("sqrt"),)),
    OpDef(
        "trsqrt",
        (_TILE_IN, _DST, _TMP),
        attributes=(Attribute("precisionType", _enum("rsqrt_precision"), "#pto<rsqrt_precision default>", held=True),),
        formats=(_ins_opt_tmp(["src"]),),
        printer="dict",  # TRsqrtOp::print
        reads=("src",),
        writes=("dst",),
        pipe=Pipe.V,
        summary="dst = 1 / sqrt(src)",
        # no level3 fact: ptoas's verifier asks for the high-precision form's
        # tmp at every level ('expects tmp when precisionType is
        # high_precision', TRsqrtOp::verify), so an input without it is
        # refused when read
    ),
    replace(_unary("trecip", "dst = 1 / src"), attributes=(_precision("recip"),)),
    _unary("tneg", "dst = -src"),
    _unary("tabs", "dst = |src|"),
    _unary("trelu", "dst = max(src, 0)"),
    OpDef(
        "tcvt",
        (_TILE_IN, _TMP, _DST),
        attributes=(
            Attribute("rmode", _enum("round_mode"), "#pto<round_mode CAST_RINT>", held=True),
            Attribute("sat_mode", _enum("saturation_mode"), "#pto<saturation_mode OFF>", spelled="satmode", held=True),
        ),
        formats=(_ins_opt_tmp(["src"], attrs_inside=True),),
        printer="dict",  # TCvtOp::print
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
            "`ins` `(` $src `,` $tmp attr-dict `:` qualified(type($src)) `,` qualified(type($tmp)) `)` `outs` `(` $dst `:` qualified(type($dst)) `)`",
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
        attributes=(Attribute("precisionType", _enum("div_precision"), "#pto<div_precision default>", held=True),),
        formats=(_ins_opt_tmp(["src0", "src1"]),),
        printer="dict",  # TRowExpandDivOp::print (printTRowExpandBinaryLikeOp)
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
        attributes=(Attribute("accPhase", _enum("acc_phase"), "#pto<acc_phase unspecified>", held=True),),
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
        attributes=(Attribute("accPhase", _enum("acc_phase"), "#pto<acc_phase unspecified>", held=True),),
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
        # ODS requires `space`, but the custom parser gives the single_cache_line
        # form GM when the text has none (CmoCacheInvalidOp::parse, lib/PTO/IR/PTO.cpp):
        # so not required here, where that form reads without it
        attributes=(Attribute("space", _enum("address_space")),),
        formats=("`all` qualified($space) attr-dict", "$addr `single_cache_line` `:` type($addr) attr-dict"),
        tier="syntax",
        summary="invalidate cache lines of global memory",
    ),
    OpDef(
        "barrier",
        (),
        attributes=(Attribute("pipe", _enum("pipe"), required=True),),
        formats=("$pipe attr-dict",),
        tier="syntax",
        summary="wait for a pipe to drain",
    ),
    OpDef(
        "fence.barrier_all",
        (),
        attributes=(Attribute("scope", _enum("fence_scope"), required=True),),
        formats=("$scope attr-dict",),
        tier="syntax",
        summary="a memory fence",
    ),
    OpDef(
        "reserve_buffer",
        (),
        results=(Operand("addr", "i32"),),
        attributes=(
            Attribute("name", STRING, required=True),
            Attribute("size", _int(32), required=True),
            Attribute("location", _enum("address_space"), required=True),
            Attribute("autoAlloc", BOOL, spelled="auto", required=True),
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
        attributes=(Attribute("name", STRING, required=True), Attribute("peer_func", SYMBOL, required=True)),
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
        attributes=(Attribute("cmp", _enum("wait_cmp"), required=True),),
        formats=("`(` $signal `,` $cmpValue `:` type($signal) `,` type($cmpValue) `)` attr-dict",),
        tier="syntax",
        summary="wait until a signal compares true",
    ),
    OpDef(
        "comm.tnotify",
        (Operand("signal", ANY), Operand("value", INT)),
        attributes=(Attribute("notifyOp", _enum("notify_op"), required=True),),
        formats=("`(` $signal `,` $value `:` type($signal) `,` type($value) `)` attr-dict",),
        tier="syntax",
        summary="update a signal",
    ),
    OpDef(
        "comm.tput",
        (Operand("dst", ANY), Operand("src", ANY), Operand("ping", ANY), Operand("pong", ANY, "optional")),
        attributes=(Attribute("atomicType", _enum("atomic_type"), "#pto<atomic_type atomic_none>", held=True),),
        formats=("`(` $dst `,` $src `,` `buf` `(` $ping (`,` $pong^)? `)` `:` type($dst) `,` type($src) `,` type($ping) (`,` type($pong)^)? `)` attr-dict",),
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
        attributes=(Attribute("exhausted", BOOL, "false", held=True),),
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
        attributes=(Attribute("mode", _enum("sync_all_mode"), required=True), Attribute("core_type", _enum("sync_core_type"), required=True)),
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
    # -- the rest of ptoas's ops, at the syntax tier ----------------------------------------
    # Each as tonibohnlein/PTOAS include/PTO/IR/PTOOps.td (at e32488c9) declares
    # it: operands, results and attributes in ODS order, the ODS
    # assemblyFormat as it is written there. An op with a custom parser and
    # printer, or a format directive formats.py does not read is
    # read and printed in the generic form (`"pto.op"(...) : (...) -> ...`),
    # which ptoas reads too. Drafted by scripts/ptoas_ods.py --json.
    OpDef(
        "castptr",
        (Operand("input", ANY),),
        results=(Operand("result", ANY),),
        formats=("$input attr-dict `:` type($input) `->` type($result)",),
        tier="syntax",
        summary="Cast between integer and !pto.ptr, or between !pto.ptr types",
    ),
    OpDef(
        "get_tensor_view_dim",
        (Operand("tensor_view", ANY), Operand("dim_index", "index")),
        results=(Operand("result", "index"),),
        formats=("$tensor_view `,` $dim_index `:` qualified(type($tensor_view)) `->` qualified(type($result)) attr-dict",),
        tier="syntax",
        summary="Get the size of a dimension of a tensor_view",
    ),
    OpDef(
        "get_tensor_view_stride",
        (Operand("tensor_view", ANY), Operand("dim_index", "index")),
        results=(Operand("result", "index"),),
        formats=("$tensor_view `,` $dim_index `:` qualified(type($tensor_view)) `->` qualified(type($result)) attr-dict",),
        tier="syntax",
        summary="Get the stride of a dimension of a tensor_view",
    ),
    OpDef(
        "get_validshape",
        (Operand("source", TILE),),
        results=(Operand("valid_row", "index"), Operand("valid_col", "index")),
        formats=("$source attr-dict `:` qualified(type($source))",),
        tier="syntax",
        summary="Read runtime valid row/col metadata from a tile",
    ),
    OpDef(
        "bitcast",
        (Operand("src", TILE),),
        results=(Operand("result", TILE),),
        formats=("$src attr-dict `:` qualified(type($src)) `->` qualified(type($result))",),
        tier="syntax",
        summary="SSA dtype reinterpretation of a tile buffer view (aliases src storage)",
    ),
    OpDef(
        "tprefetch",
        (Operand("src", DPS), Operand("dst", DPS)),
        formats=("`ins` `(` $src `:` qualified(type($src)) `)` `outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict",),
        tier="syntax",
        summary="Prefetch global data into a local tile buffer",
    ),
    OpDef(
        "make_prefetch_async_context",
        (Operand("workspace", PTR),),
        results=(Operand("ctx", PREFETCH_CONTEXT),),
        formats=("`(` $workspace `:` qualified(type($workspace)) `)` attr-dict `->` qualified(type($ctx))",),
        tier="syntax",
        summary="Build a PrefetchAsyncContext from GM workspace",
    ),
    OpDef(
        "get_prefetch_async_session",
        (Operand("ctx", PREFETCH_CONTEXT),),
        results=(Operand("session", ASYNC_SESSION),),
        formats=("$ctx attr-dict `:` qualified(type($ctx)) `->` qualified(type($session))",),
        tier="syntax",
        summary="Project session from a PrefetchAsyncContext",
    ),
    OpDef(
        "tprefetch_async",
        (Operand("src", DPS), Operand("ctx", PREFETCH_CONTEXT)),
        results=(Operand("event", ASYNC_EVENT),),
        formats=("`(` $src `,` $ctx `:` qualified(type($src)) `,` qualified(type($ctx)) `)` attr-dict `->` qualified(type($event))",),
        tier="syntax",
        summary="Asynchronously prefetch global data into L2 cache via SDMA CMO",
    ),
    OpDef(
        "tmatmul.bias",
        (Operand("a", DPS), Operand("b", DPS), Operand("bias", DPS), Operand("dst", DPS)),
        results=(Operand("result", ANY, "optional"),),
        attributes=(Attribute("accPhase", _enum("acc_phase"), "#pto<acc_phase unspecified>", held=True),),
        formats=(
            "`ins` `(` $a `,` $b `,` $bias `:` qualified(type($a)) `,` qualified(type($b)) `,` qualified(type($bias)) `)` "
            "`outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict ( `->` qualified(type($result))^ )?",
        ),
        tier="syntax",
        summary="Matmul with bias add (tile world, ins/outs)",
    ),
    OpDef(
        "tmatmul.mx",
        (Operand("a", DPS), Operand("a_scale", DPS), Operand("b", DPS), Operand("b_scale", DPS), Operand("dst", DPS)),
        results=(Operand("result", ANY, "optional"),),
        attributes=(Attribute("accPhase", _enum("acc_phase"), "#pto<acc_phase unspecified>", held=True),),
        formats=(
            "`ins` `(` $a `,` $a_scale `,` $b `,` $b_scale `:` type($a) `,` type($a_scale) `,` type($b) `,` type($b_scale) "
            "`)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict (`->` qualified(type($result))^)?",
        ),
        tier="syntax",
        summary="Matmul mx (tile world, ins/outs)",
    ),
    OpDef(
        "tmatmul.mx.acc",
        (Operand("c_in", DPS), Operand("a", DPS), Operand("a_scale", DPS), Operand("b", DPS), Operand("b_scale", DPS), Operand("dst", DPS)),
        results=(Operand("result", ANY, "optional"),),
        attributes=(Attribute("accPhase", _enum("acc_phase"), "#pto<acc_phase unspecified>", held=True),),
        formats=(
            "`ins` `(` $c_in `,` $a `,` $a_scale `,` $b `,` $b_scale `:` type($c_in) `,` type($a) `,` type($a_scale) `,` "
            "type($b) `,` type($b_scale) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict (`->` "
            "qualified(type($result))^)?",
        ),
        tier="syntax",
        summary="Matmul mx accumulate (tile world, ins/outs)",
    ),
    OpDef(
        "tmatmul.mx.bias",
        (Operand("a", DPS), Operand("a_scale", DPS), Operand("b", DPS), Operand("b_scale", DPS), Operand("bias", DPS), Operand("dst", DPS)),
        results=(Operand("result", ANY, "optional"),),
        formats=(
            "`ins` `(` $a `,` $a_scale `,` $b `,` $b_scale `,` $bias `:` type($a) `,` type($a_scale) `,` type($b) `,` "
            "type($b_scale) `,` qualified(type($bias)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict (`->` "
            "qualified(type($result))^)?",
        ),
        tier="syntax",
        summary="Matmul mx with bias (tile world, ins/outs)",
    ),
    OpDef(
        "tgemv",
        (Operand("lhs", DPS), Operand("rhs", DPS), Operand("dst", DPS)),
        results=(Operand("result", ANY, "optional"),),
        attributes=(Attribute("accPhase", _enum("acc_phase"), "#pto<acc_phase unspecified>", held=True),),
        formats=(
            "`ins` `(` $lhs `,` $rhs `:` qualified(type($lhs)) `,` qualified(type($rhs)) `)` `outs` `(` $dst `:` "
            "qualified(type($dst) ) `)` attr-dict ( `->` qualified(type($result))^ )?",
        ),
        tier="syntax",
        summary="PTO matrix-vector multiplication operation (optional bias), destination-style (DPS) in tile world",
    ),
    OpDef(
        "tgemv.acc",
        (Operand("acc_in", DPS), Operand("lhs", DPS), Operand("rhs", DPS), Operand("dst", DPS)),
        results=(Operand("result", ANY, "optional"),),
        attributes=(Attribute("accPhase", _enum("acc_phase"), "#pto<acc_phase unspecified>", held=True),),
        formats=(
            "`ins` `(` $acc_in `,` $lhs `,` $rhs `:` qualified(type($acc_in) ) `,` qualified(type($lhs)) `,` "
            "qualified(type($rhs)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict ( `->` "
            "qualified(type($result))^ )?",
        ),
        tier="syntax",
        summary="PTO matrix-vector multiplication accumulate operation, destination-style (DPS, no bias)",
    ),
    OpDef(
        "tgemv.bias",
        (Operand("a", DPS), Operand("b", DPS), Operand("bias", DPS), Operand("dst", DPS)),
        results=(Operand("result", ANY, "optional"),),
        attributes=(Attribute("accPhase", _enum("acc_phase"), "#pto<acc_phase unspecified>", held=True),),
        formats=(
            "`ins` `(` $a `,` $b `,` $bias `:` qualified(type($a)) `,` qualified(type($b)) `,` qualified(type($bias)) `)` "
            "`outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict ( `->` qualified(type($result))^ )?",
        ),
        tier="syntax",
        summary="GEMV with bias add (tile world, ins/outs)",
    ),
    OpDef(
        "tgemv.mx",
        (Operand("a", DPS), Operand("a_scale", DPS), Operand("b", DPS), Operand("b_scale", DPS), Operand("dst", DPS)),
        results=(Operand("result", ANY, "optional"),),
        attributes=(Attribute("accPhase", _enum("acc_phase"), "#pto<acc_phase unspecified>", held=True),),
        formats=(
            "`ins` `(` $a `,` $a_scale `,` $b `,` $b_scale `:` type($a) `,` type($a_scale) `,` type($b) `,` type($b_scale) "
            "`)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict (`->` qualified(type($result))^)?",
        ),
        tier="syntax",
        summary="Mixed-precision GEMV with scale tiles (tile world, ins/outs)",
    ),
    OpDef(
        "tgemv.mx.acc",
        (Operand("c_in", DPS), Operand("a", DPS), Operand("a_scale", DPS), Operand("b", DPS), Operand("b_scale", DPS), Operand("dst", DPS)),
        results=(Operand("result", ANY, "optional"),),
        attributes=(Attribute("accPhase", _enum("acc_phase"), "#pto<acc_phase unspecified>", held=True),),
        formats=(
            "`ins` `(` $c_in `,` $a `,` $a_scale `,` $b `,` $b_scale `:` type($c_in) `,` type($a) `,` type($a_scale) `,` "
            "type($b) `,` type($b_scale) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict (`->` "
            "qualified(type($result))^)?",
        ),
        tier="syntax",
        summary="Mixed-precision GEMV accumulate with scale tiles (tile world, ins/outs)",
    ),
    OpDef(
        "tgemv.mx.bias",
        (Operand("a", DPS), Operand("a_scale", DPS), Operand("b", DPS), Operand("b_scale", DPS), Operand("bias", DPS), Operand("dst", DPS)),
        results=(Operand("result", ANY, "optional"),),
        formats=(
            "`ins` `(` $a `,` $a_scale `,` $b `,` $b_scale `,` $bias `:` type($a) `,` type($a_scale) `,` type($b) `,` "
            "type($b_scale) `,` qualified(type($bias)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict (`->` "
            "qualified(type($result))^)?",
        ),
        tier="syntax",
        summary="Mixed-precision GEMV with bias and scale tiles (tile world, ins/outs)",
    ),
    OpDef(
        "get_block_idx",
        (),
        results=(Operand("result", "i64"),),
        formats=("attr-dict",),
        tier="syntax",
        summary="Get the current block index (core ID)",
    ),
    OpDef(
        "get_subblock_idx",
        (),
        results=(Operand("result", "i64"),),
        formats=("attr-dict",),
        tier="syntax",
        summary="Get the current vector core ID",
    ),
    OpDef(
        "get_block_num",
        (),
        results=(Operand("result", "i64"),),
        formats=("attr-dict",),
        tier="syntax",
        summary="Get the total number of blocks (cores)",
    ),
    OpDef(
        "get_subblock_num",
        (),
        results=(Operand("result", "i64"),),
        formats=("attr-dict",),
        tier="syntax",
        summary="Get the number of vector cores",
    ),
    OpDef(
        "record_event",
        (),
        attributes=(
            Attribute("src_op", ANY_ATTR, required=True),
            Attribute("dst_op", ANY_ATTR, required=True),
            Attribute("event_id", _enum("event"), required=True),
        ),
        formats=("`[` $src_op `,` $dst_op `,` $event_id `]` attr-dict",),
        tier="syntax",
        summary="Record an event for synchronization (High Level)",
    ),
    OpDef(
        "wait_event",
        (),
        attributes=(
            Attribute("src_op", ANY_ATTR, required=True),
            Attribute("dst_op", ANY_ATTR, required=True),
            Attribute("event_id", _enum("event"), required=True),
        ),
        formats=("`[` $src_op `,` $dst_op `,` $event_id `]` attr-dict",),
        tier="syntax",
        summary="Wait for an event (High Level)",
    ),
    OpDef(
        "barrier_sync",
        (),
        attributes=(Attribute("op_type", ANY_ATTR, required=True),),
        formats=("`[` $op_type `]` attr-dict",),
        tier="syntax",
        summary="High-level barrier mapped from SyncOpType to PIPE",
    ),
    # The ops with a region (tonibohnlein/PTOAS include/PTO/IR/PTOOps.td,
    # "Section Ops", "Tile Fusion Region Ops"): each region's ODS facts, its
    # format with `$body` where the region stands (formats.py reads and writes
    # what is around it; the translation layer the body: docs/dialect.md, "Ops
    # with a region"); ptoas's verifiers (lib/PTO/IR/PTO.cpp) are rules of
    # verifier_rules.py.
    OpDef(
        "section.cube",
        (),
        regions=(Region("body"),),  # SizedRegion<1>; [SingleBlock, NoTerminator]
        formats=("$body attr-dict",),
        tier="syntax",
        summary="Container for core-specific code guarded by macros",
    ),
    OpDef(
        "section.vector",
        (),
        regions=(Region("body"),),  # SizedRegion<1>; [SingleBlock, NoTerminator]
        formats=("$body attr-dict",),
        tier="syntax",
        summary="Container for core-specific code guarded by macros",
    ),
    OpDef(
        "section.simt",
        (),
        attributes=(Attribute("dimX", _int(32), required=True), Attribute("dimY", _int(32), required=True), Attribute("dimZ", _int(32), required=True)),
        regions=(Region("body"),),  # SizedRegion<1>; [SingleBlock, NoTerminator]
        formats=("`<` `<` `<` $dimX `,` $dimY `,` $dimZ `>` `>` `>` $body attr-dict",),
        tier="syntax",
        summary="Container for inline SIMT code",
    ),
    OpDef(
        "fusion_region",
        (),
        results=(Operand("outputs", ANY, "variadic"),),
        # SizedRegion<1>; [SingleBlock], ended by pto.yield; FusionRegionOp::verify refuses block arguments
        regions=(Region("body", terminator="yield", block_arguments=False),),
        formats=("$body attr-dict `:` type(results)",),
        tier="syntax",
        summary="Structured region container for one scheduled tile fusion group",
    ),
    OpDef(
        "yield",
        (Operand("values", ANY, "variadic"),),
        terminates=("fusion_region",),  # [Terminator, ParentOneOf<["FusionRegionOp"]>]
        # ODS: `(` $values `)` attr-dict `:` functional-type($values, results); for an op
        # without results functional-type prints `(` the types `)` `->` `(` `)`
        formats=("`(` $values `)` attr-dict `:` `(` qualified(type($values)) `)` `->` `(` `)`",),
        tier="syntax",
        summary="Terminate a pto.fusion_region and return its visible outputs",
    ),
    OpDef(
        "talloc_to_aiv",
        (),
        results=(Operand("entry", TENSOR_VIEW),),
        attributes=(Attribute("id", _int(32), "0"), Attribute("split", _int(8), required=True)),
        formats=("`{` (`id` `=` $id^ `,`)? `split` `=` $split `}` attr-dict `->` qualified(type($entry))",),
        tier="syntax",
        summary="Frontend C2V producer alloc of a GlobalTensor FIFO entry",
    ),
    OpDef(
        "talloc_to_aic",
        (),
        results=(Operand("entry", TENSOR_VIEW),),
        attributes=(Attribute("id", _int(32), "0"), Attribute("split", _int(8), required=True)),
        formats=("`{` (`id` `=` $id^ `,`)? `split` `=` $split `}` attr-dict `->` qualified(type($entry))",),
        tier="syntax",
        summary="Frontend V2C producer alloc of a GlobalTensor FIFO entry",
    ),
    OpDef(
        "set_quant_scalar",
        (Operand("scale", "f32"),),
        attributes=(Attribute("id", _int(32), "0"),),
        formats=("`(` $scale `:` type($scale) `)` `{` `id` `=` $id `}` attr-dict",),
        tier="syntax",
        summary="Set scalar quantization parameters for fixpipe producer",
    ),
    OpDef(
        "set_quant_vector",
        (Operand("scaling_tile", ENTRY),),
        attributes=(Attribute("id", _int(32), "0"),),
        formats=("`(` $scaling_tile `:` qualified(type($scaling_tile)) `)` `{` `id` `=` $id `}` attr-dict",),
        tier="syntax",
        summary="Set vector quantization parameters for fixpipe producer",
    ),
    OpDef(
        "comm.build_async_session",
        (Operand("scratch", TILE), Operand("workspace", PTR)),
        results=(Operand("session", ASYNC_SESSION),),
        attributes=(
            Attribute("sync_id", _int(32)),
            Attribute("block_bytes", _int(64)),
            Attribute("comm_block_offset", _int(64)),
            Attribute("queue_num", _int(32)),
            Attribute("channel_group_idx", _int(64)),
        ),
        formats=("`(` $scratch `,` $workspace `:` qualified(type($scratch)) `,` qualified(type($workspace)) `)` attr-dict `->` qualified(type($session))",),
        tier="syntax",
        summary="Build an async DMA session handle for TPUT_ASYNC/TGET_ASYNC",
    ),
    OpDef(
        "comm.tput_async",
        (Operand("dst", ANY), Operand("src", ANY), Operand("session", ASYNC_SESSION)),
        results=(Operand("event", ASYNC_EVENT),),
        formats=("`(` $dst `,` $src `,` $session `:` type($dst) `,` type($src) `,` qualified(type($session)) `)` attr-dict `->` qualified(type($event))",),
        tier="syntax",
        summary="Asynchronous remote write from local GM to remote GM",
    ),
    OpDef(
        "comm.tget_async",
        (Operand("dst", ANY), Operand("src", ANY), Operand("session", ASYNC_SESSION)),
        results=(Operand("event", ASYNC_EVENT),),
        formats=("`(` $dst `,` $src `,` $session `:` type($dst) `,` type($src) `,` qualified(type($session)) `)` attr-dict `->` qualified(type($event))",),
        tier="syntax",
        summary="Asynchronous remote read from remote GM to local GM",
    ),
    OpDef(
        "comm.wait_async_event",
        (Operand("event", ASYNC_EVENT), Operand("session", ASYNC_SESSION)),
        results=(Operand("completed", "i1"),),
        formats=("`(` $event `,` $session `:` qualified(type($event)) `,` qualified(type($session)) `)` attr-dict `->` type($completed)",),
        tier="syntax",
        summary="Block until an async DMA event completes",
    ),
    OpDef(
        "comm.test_async_event",
        (Operand("event", ASYNC_EVENT), Operand("session", ASYNC_SESSION)),
        results=(Operand("completed", "i1"),),
        formats=("`(` $event `,` $session `:` qualified(type($event)) `,` qualified(type($session)) `)` attr-dict `->` type($completed)",),
        tier="syntax",
        summary="Non-blocking completion test for an async DMA event",
    ),
    OpDef(
        "comm.tget",
        (Operand("dst", ANY), Operand("src", ANY), Operand("ping", ANY), Operand("pong", ANY, "optional")),
        formats=("`(` $dst `,` $src `,` `buf` `(` $ping (`,` $pong^)? `)` `:` type($dst) `,` type($src) `,` type($ping) (`,` type($pong)^)? `)` attr-dict",),
        tier="syntax",
        summary="Synchronous remote read from remote GM to local GM",
    ),
    OpDef(
        "comm.ttest",
        (Operand("signal", ANY), Operand("cmpValue", INT)),
        results=(Operand("result", "i1"),),
        attributes=(Attribute("cmp", _enum("wait_cmp"), required=True),),
        formats=("`(` $signal `,` $cmpValue `:` type($signal) `,` type($cmpValue) `)` attr-dict `->` type($result)",),
        tier="syntax",
        summary="Non-blocking signal comparison test",
    ),
    OpDef(
        "comm.tbroadcast",
        (Operand("src", ANY), Operand("ping", ANY), Operand("pong", ANY, "optional"), Operand("group", ANY, "variadic")),
        attributes=(Attribute("root", _int(32), required=True),),
        formats=_comm_collective(["src"], "ping", "pong"),
        printer="dict",  # printOptionalAttrDict(getAttrs())
        tier="syntax",
        summary="Broadcast local GM data to all group members",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, TBroadcastOp::parse /
        # parseCommCollectiveTail): `(%x, recv(%ping[, %pong]), group(%g...) : types) {root = N : i32}`
    ),
    OpDef(
        "comm.tgather",
        (Operand("dst", ANY), Operand("ping", ANY), Operand("pong", ANY, "optional"), Operand("group", ANY, "variadic")),
        attributes=(Attribute("root", _int(32), required=True),),
        formats=_comm_collective(["dst"], "ping", "pong"),
        printer="dict",  # printOptionalAttrDict(getAttrs())
        tier="syntax",
        summary="Gather remote GM data from a communication group",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, CommTGatherOp::parse /
        # parseCommCollectiveTail): `(%x, recv(%ping[, %pong]), group(%g...) : types) {root = N : i32}`
    ),
    OpDef(
        "comm.tscatter",
        (Operand("src", ANY), Operand("ping", ANY), Operand("pong", ANY, "optional"), Operand("group", ANY, "variadic")),
        attributes=(Attribute("root", _int(32), required=True),),
        formats=_comm_collective(["src"], "ping", "pong"),
        printer="dict",  # printOptionalAttrDict(getAttrs())
        tier="syntax",
        summary="Scatter local GM data to a communication group",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, CommTScatterOp::parse /
        # parseCommCollectiveTail): `(%x, recv(%ping[, %pong]), group(%g...) : types) {root = N : i32}`
    ),
    OpDef(
        "comm.treduce",
        (Operand("dst", ANY), Operand("acc", ANY), Operand("recvPing", ANY), Operand("recvPong", ANY, "optional"), Operand("group", ANY, "variadic")),
        attributes=(Attribute("reduceOp", ANY_ATTR, required=True), Attribute("root", _int(32), required=True)),
        formats=_comm_collective(["dst", "acc"], "recvPing", "recvPong"),
        printer="dict",  # printOptionalAttrDict(getAttrs())
        tier="syntax",
        summary="Reduce remote GM data from a communication group",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, TReduceOp::parse /
        # parseCommCollectiveTail): `(%x, recv(%ping[, %pong]), group(%g...) : types) {root = N : i32}`
    ),
    OpDef(
        "initialize_l2g2l_pipe",
        (Operand("gm_addr", ANY), Operand("local_addr", ANY, "optional"), Operand("peer_local_addr", ANY, "optional")),
        results=(Operand("pipe", PIPE_HANDLE),),
        attributes=(
            Attribute("dir_mask", _int(8), required=True),
            Attribute("slot_size", _int(32), required=True),
            Attribute("slot_num", _int(32), required=True),
            Attribute("local_slot_num", _int(32)),
            Attribute("flag_base", _int(32)),
            Attribute("nosplit", BOOL),
            Attribute("acc_push_epilogue", ANY_ATTR),
        ),
        formats=(
            "`{` `dir_mask` `=` $dir_mask `,` `slot_size` `=` $slot_size `,` `slot_num` `=` $slot_num (`,` `local_slot_num` "
            "`=` $local_slot_num^)? (`,` `flag_base` `=` $flag_base^)? (`,` `nosplit` `=` $nosplit^)? `}` `(` $gm_addr `:` "
            "type($gm_addr) (`,` $local_addr^ `:` type($local_addr))? (`,` $peer_local_addr^ `:` type($peer_local_addr))? "
            "`)` attr-dict `->` qualified(type($pipe))",
        ),
        tier="syntax",
        summary="Initialize a local-to-global-to-local pipe handle",
    ),
    OpDef(
        "initialize_l2l_pipe",
        (Operand("local_addr", ANY), Operand("peer_local_addr", ANY, "optional")),
        results=(Operand("pipe", PIPE_HANDLE),),
        attributes=(
            Attribute("dir_mask", _int(8), required=True),
            Attribute("slot_size", _int(32), required=True),
            Attribute("slot_num", _int(32), required=True),
            Attribute("flag_base", _int(32)),
            Attribute("nosplit", BOOL),
            Attribute("acc_push_epilogue", ANY_ATTR),
        ),
        formats=(
            "`{` `dir_mask` `=` $dir_mask `,` `slot_size` `=` $slot_size `,` `slot_num` `=` $slot_num (`,` `flag_base` `=` "
            "$flag_base^)? (`,` `nosplit` `=` $nosplit^)? `}` `(` $local_addr `:` type($local_addr) (`,` $peer_local_addr^ "
            "`:` type($peer_local_addr))? `)` attr-dict `->` qualified(type($pipe))",
        ),
        tier="syntax",
        summary="Initialize a local-to-local pipe handle",
    ),
    OpDef(
        "tpush",
        (Operand("tile", ENTRY), Operand("pipe_handle", PIPE_HANDLE), Operand("aiv_subblockid", "i64", "optional")),
        attributes=(Attribute("split", _int(8), required=True),),
        formats=(
            "`(` $tile `,` $pipe_handle `:` qualified(type($tile)) `,` qualified(type($pipe_handle)) `)` `{` `split` `=` "
            "$split `}` (`aiv_subblockid` `(` $aiv_subblockid^ `)`)? attr-dict",
        ),
        tier="syntax",
        summary="Push tile data through a unified pipe handle",
    ),
    OpDef(
        "declare_tile",
        (),
        results=(Operand("tile", DPS),),
        formats=("attr-dict `->` qualified(type($tile))",),
        tier="syntax",
        summary="Declare a tile value whose address will be assigned later",
    ),
    OpDef(
        "declare_global",
        (),
        results=(Operand("entry", TENSOR_VIEW),),
        formats=("attr-dict `->` qualified(type($entry))",),
        tier="syntax",
        summary="Declare a GlobalTensor descriptor whose address is assigned later",
    ),
    OpDef(
        "talloc",
        (Operand("entry", TENSOR_VIEW), Operand("pipe_handle", PIPE_HANDLE)),
        attributes=(Attribute("split", _int(8), required=True),),
        formats=("`(` $entry `,` $pipe_handle `:` qualified(type($entry)) `,` qualified(type($pipe_handle)) `)` `{` `split` `=` $split `}` attr-dict",),
        tier="syntax",
        summary="Bind a declared GlobalTensor descriptor to the next producer FIFO slot",
    ),
    OpDef(
        "tassign",
        (Operand("tile", DPS), Operand("addr", "i64")),
        results=(Operand("result", DPS),),
        formats=("$tile `,` $addr attr-dict `:` qualified(type($tile)) `->` qualified(type($result))",),
        tier="syntax",
        summary="Rebind a declared tile handle to a runtime address",
    ),
    OpDef(
        "declare_eventid_array",
        (),
        results=(Operand("array", EVENTID_ARRAY),),
        formats=("attr-dict `->` qualified(type($array))",),
        tier="syntax",
        summary="Declare a manual-only local event-id array",
    ),
    OpDef(
        "eventid_array_get",
        (Operand("array", EVENTID_ARRAY), Operand("index", "index")),
        results=(Operand("result", "index"),),
        formats=("$array `[` $index `]` attr-dict `:` qualified(type($array))",),
        tier="syntax",
        summary="Read one element from a manual event-id array",
    ),
    OpDef(
        "eventid_array_set",
        (Operand("array", EVENTID_ARRAY), Operand("index", "index"), Operand("value", "index")),
        formats=("$array `[` $index `]` `,` $value attr-dict `:` qualified(type($array))",),
        tier="syntax",
        summary="Write one element into a manual event-id array",
    ),
    OpDef(
        "declare_struct",
        (),
        results=(Operand("s", ANY),),
        formats=("attr-dict `->` qualified(type($s))",),
        tier="syntax",
        summary="Declare a stack-local heterogeneous aggregate",
    ),
    OpDef(
        "struct_get",
        (Operand("s", ANY),),
        results=(Operand("value", ANY),),
        attributes=(Attribute("path", DENSE_I64, required=True),),
        formats=("$s custom<StructPath>($path) attr-dict `:` qualified(type($s)) `->` type($value)",),
        tier="syntax",
        summary="Read a field from a stack-local struct by constant path",
        # ptoas's ODS format (tonibohnlein/PTOAS include/PTO/IR/PTOOps.td, StructGetOp; the
        # path is parseStructPath / printStructPath in lib/PTO/IR/PTO.cpp)
    ),
    OpDef(
        "struct_set",
        (Operand("s", ANY), Operand("value", ANY)),
        attributes=(Attribute("path", DENSE_I64, required=True),),
        formats=("$s custom<StructPath>($path) `,` $value attr-dict `:` qualified(type($s)) `,` type($value)",),
        tier="syntax",
        summary="Write a field into a stack-local struct by constant path",
        # ptoas's ODS format (tonibohnlein/PTOAS include/PTO/IR/PTOOps.td, StructSetOp; the
        # path is parseStructPath / printStructPath in lib/PTO/IR/PTO.cpp)
    ),
    OpDef(
        "tpop",
        (Operand("tile", ENTRY), Operand("pipe_handle", PIPE_HANDLE), Operand("aiv_subblockid", "i64", "optional")),
        attributes=(Attribute("split", _int(8), required=True),),
        formats=(
            "`(` $tile `,` $pipe_handle `:` qualified(type($tile)) `,` qualified(type($pipe_handle)) `)` `{` `split` `=` "
            "$split `}` (`aiv_subblockid` `(` $aiv_subblockid^ `)`)? attr-dict",
        ),
        tier="syntax",
        summary="Bind a declared consumer tile to the next FIFO slot",
    ),
    OpDef(
        "tfree",
        (Operand("entry", ENTRY, "optional"), Operand("pipe_handle", PIPE_HANDLE)),
        attributes=(Attribute("split", _int(8), required=True),),
        formats=(
            "`(` $entry `,` $pipe_handle `:` qualified(type($entry)) `,` qualified(type($pipe_handle)) `)` `{` `split` `=` $split `}` attr-dict",
            "`(` $pipe_handle `:` qualified(type($pipe_handle)) `)` `{` `split` `=` $split `}` attr-dict",
        ),
        printer="dict",  # printOptionalAttrDict(getAttrs(), {split})
        tier="syntax",
        summary="Release the current consumer slot for a pipe",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, TFreeOp::parse):
        # `(%entry, %pipe : T, !pto.pipe) {split = N}` or `(%pipe : !pto.pipe) {split = N}`
    ),
    _sync_flag("set_flag", "Set synchronization flag between pipes"),
    _sync_flag("wait_flag", "Wait for synchronization flag"),
    OpDef(
        "set_flag_dyn",
        (Operand("event_id", "index"),),
        attributes=(Attribute("src_pipe", _enum("pipe"), required=True), Attribute("dst_pipe", _enum("pipe"), required=True)),
        formats=("`[` $src_pipe `,` $dst_pipe `,` $event_id `]` attr-dict",),
        tier="syntax",
        summary="Set synchronization flag between pipes (dynamic event id)",
    ),
    OpDef(
        "wait_flag_dyn",
        (Operand("event_id", "index"),),
        attributes=(Attribute("src_pipe", _enum("pipe"), required=True), Attribute("dst_pipe", _enum("pipe"), required=True)),
        formats=("`[` $src_pipe `,` $dst_pipe `,` $event_id `]` attr-dict",),
        tier="syntax",
        summary="Wait for synchronization flag (dynamic event id)",
    ),
    _buf_sync("get_buf", dynamic=False, summary="Acquire a buffer-id token for a sync op type (A5)"),
    _buf_sync("get_buf_dyn", dynamic=True, summary="Acquire a buffer-id token (dynamic buf-id)"),
    _buf_sync("rls_buf", dynamic=False, summary="Release a buffer-id token for a sync op type (A5)"),
    _buf_sync("rls_buf_dyn", dynamic=True, summary="Release a buffer-id token (dynamic buf-id)"),
    OpDef(
        "sync.set",
        (Operand("event_id_dyn", "index", "optional"),),
        attributes=(Attribute("pipe", _enum("pipe"), required=True), Attribute("event_id", _int(32)), Attribute("ffts_mode", _int(32))),
        formats=_SYNC_EVENT_FORMATS,
        printer="dict",  # printOptionalAttrDict(getAttrs(), {pipe, event_id})
        tier="syntax",
        summary="Set a synchronization signal (trigger) between cube and vector",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, SyncSetOp::parse,
        # parseSyncEventOpCommon / printSyncEventOpCommon)
    ),
    OpDef(
        "sync.wait",
        (Operand("event_id_dyn", "index", "optional"),),
        attributes=(Attribute("pipe", _enum("pipe"), required=True), Attribute("event_id", _int(32)), Attribute("ffts_mode", _int(32))),
        formats=_SYNC_EVENT_FORMATS,
        printer="dict",  # printOptionalAttrDict(getAttrs(), {pipe, event_id})
        tier="syntax",
        summary="Wait for a synchronization signal (barrier) between cube and vector",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, SyncWaitOp::parse,
        # parseSyncEventOpCommon / printSyncEventOpCommon)
    ),
    OpDef(
        "set_cross_block",
        (Operand("event_id_dyn", "index", "optional"),),
        attributes=(Attribute("pipe", _enum("pipe"), required=True), Attribute("event_id", _int(32)), Attribute("ffts_mode", _int(32), "0", held=True)),
        formats=_SYNC_EVENT_FORMATS,
        printer="dict",  # printOptionalAttrDict(getAttrs(), {pipe, event_id})
        tier="syntax",
        summary="Signal a cross-block synchronization flag",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, SetCrossBlockOp::parse,
        # parseSyncEventOpCommon / printSyncEventOpCommon)
    ),
    OpDef(
        "wait_cross_block",
        (Operand("event_id_dyn", "index", "optional"),),
        attributes=(Attribute("pipe", _enum("pipe"), required=True), Attribute("event_id", _int(32))),
        formats=_SYNC_EVENT_FORMATS,
        printer="dict",  # printOptionalAttrDict(getAttrs(), {pipe, event_id})
        tier="syntax",
        summary="Wait for a cross-block synchronization flag",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, WaitCrossBlockOp::parse,
        # parseSyncEventOpCommon / printSyncEventOpCommon)
    ),
    OpDef(
        "set_intra_block",
        (Operand("event_id_dyn", "index", "optional"),),
        attributes=(Attribute("pipe", _enum("pipe"), required=True), Attribute("event_id", _int(32))),
        formats=_SYNC_EVENT_FORMATS,
        printer="dict",  # printOptionalAttrDict(getAttrs(), {pipe, event_id})
        tier="syntax",
        summary="Signal an intra-block synchronization flag",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, SetIntraBlockOp::parse,
        # parseSyncEventOpCommon / printSyncEventOpCommon)
    ),
    OpDef(
        "wait_intra_block",
        (Operand("event_id_dyn", "index", "optional"),),
        attributes=(Attribute("pipe", _enum("pipe"), required=True), Attribute("event_id", _int(32))),
        formats=_SYNC_EVENT_FORMATS,
        printer="dict",  # printOptionalAttrDict(getAttrs(), {pipe, event_id})
        tier="syntax",
        summary="Wait for an intra-block synchronization flag",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, WaitIntraBlockOp::parse,
        # parseSyncEventOpCommon / printSyncEventOpCommon)
    ),
    OpDef(
        "tsync",
        (Operand("events", DPS, "variadic"),),
        formats=("`ins` `(` $events `:` type($events) `)` attr-dict",),
        tier="syntax",
        summary="Direct TSYNC mapping (variadic operands)",
    ),
    OpDef(
        "tile_valid_rows",
        (Operand("src", TILE),),
        results=(Operand("result", "index"),),
        formats=("$src attr-dict `:` qualified(type($src)) `->` type($result)",),
        tier="syntax",
        summary="Extract valid row count from a tile_buf",
    ),
    OpDef(
        "tile_valid_cols",
        (Operand("src", TILE),),
        results=(Operand("result", "index"),),
        formats=("$src attr-dict `:` qualified(type($src)) `->` type($result)",),
        tier="syntax",
        summary="Extract valid column count from a tile_buf",
    ),
    OpDef(
        "set_ffts",
        (Operand("ffts", PTR),),
        formats=("$ffts attr-dict `:` type($ffts)",),
        tier="syntax",
        summary="Set FFTS/flags pointer for runtime (side-effecting)",
    ),
    OpDef(
        "print",
        (Operand("scalar", SCALAR),),
        attributes=(Attribute("format", STRING, required=True),),
        formats=("`ins` `(` $format `,` $scalar `:` type($scalar) `)` attr-dict",),
        tier="syntax",
        summary="Print debug: format string (attribute) and scalar value",
    ),
    OpDef(
        "trap",
        (),
        formats=("attr-dict",),
        tier="syntax",
        summary="Trap: abort execution (no operands)",
    ),
    OpDef(
        "mgather",
        (Operand("mem", DPS), Operand("idx", DPS), Operand("dst", DPS), Operand("scratch", DPS, "optional")),
        attributes=(Attribute("coalesce", ANY_ATTR, required=True), Attribute("gatherOob", ANY_ATTR, "#pto<gather_oob undefined>", held=True)),
        formats=(
            "`ins` `(` $mem `,` $idx (`,` $scratch^)? `:` qualified(type($mem)) `,` qualified(type($idx)) (`,` qualified(type($scratch))^)? `)` "
            "`outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict",
        ),
        tier="syntax",
        summary="Gather-load elements from memory into a tile using per-element indices (tile world, ins/outs)",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, MGatherOp::parse):
        # `ins(%mem, %idx[, %scratch] : ...) outs(%dst : ...)` (printStrippedAttrOrType of an
        # mlir::Type prints it in full); the attributes in the attr-dict, gatherOob left out at its default
    ),
    OpDef(
        "thistogram",
        (Operand("src", DPS), Operand("idx", DPS), Operand("dst", DPS)),
        attributes=(Attribute("byte", _int(32), "1"),),
        formats=("`ins` `(` $src `,` $idx `:` qualified(type($src)) `,` qualified(type($idx)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",),
        tier="syntax",
        summary="THISTOGRAM: accumulate per-row 256-bin histograms",
    ),
    OpDef(
        "tget_scale_addr",
        (Operand("src", DPS), Operand("dst", DPS)),
        formats=("`ins` `(` $src `:` qualified(type($src)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",),
        tier="syntax",
        summary="Bind a scaling tile to the scaled address of a source tile",
    ),
    OpDef(
        "mscatter",
        (Operand("src", DPS), Operand("idx", DPS), Operand("mem", DPS)),
        attributes=(
            Attribute("coalesce", ANY_ATTR),
            Attribute("scatterAtomicOp", ANY_ATTR, "#pto<scatter_atomic_op none>", held=True),
            Attribute("scatterOob", ANY_ATTR, "#pto<scatter_oob undefined>", held=True),
            Attribute("scatterConflict", ANY_ATTR),
        ),
        formats=("`ins` `(` $src `,` $idx `:` qualified(type($src)) `,` qualified(type($idx)) `)` `outs` `(` $mem `:` qualified(type($mem)) `)` attr-dict",),
        tier="syntax",
        summary="Scatter-store elements from a tile into memory using per-element indices (tile world, ins/outs)",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, MScatterOp::parse):
        # `ins(%src, %idx : ...) outs(%mem : ...)` (printStrippedAttrOrType of an mlir::Type prints
        # it in full); the attributes in the attr-dict, the defaults left out (ptoas prints
        # scatterConflict after scatterOob, we in the dictionary's order)
    ),
    OpDef(
        "taddrelu",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("dst", DPS)),
        formats=(
            "`ins` `(` $src0 `,` $src1 `:` qualified(type($src0)) `,` qualified(type($src1)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",
        ),
        tier="syntax",
        summary="Fused elementwise add + ReLU of two tiles",
    ),
    OpDef(
        "taddc",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("src2", DPS), Operand("dst", DPS)),
        formats=(
            "`ins` `(` $src0 `,` $src1 `,` $src2 `:` qualified(type($src0)) `,` qualified(type($src1)) `,` "
            "qualified(type($src2)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",
        ),
        tier="syntax",
        summary="Elementwise ternary add of tiles",
    ),
    OpDef(
        "taxpy",
        (Operand("src", DPS), Operand("scalar", SCALAR), Operand("dst", DPS)),
        formats=("`ins` `(` $src `,` $scalar `:` qualified(type($src)) `,` type($scalar) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",),
        tier="syntax",
        summary="TAXPY: dst += src * scalar",
    ),
    OpDef(
        "taddsc",
        (Operand("src0", DPS), Operand("scalar", SCALAR), Operand("src1", DPS), Operand("dst", DPS)),
        formats=(
            "`ins` `(` $src0 `,` $scalar `,` $src1 `:` qualified(type($src0)) `,` type($scalar) `,` qualified(type($src1)) "
            "`)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",
        ),
        tier="syntax",
        summary="dst = src0 + scalar + src1",
    ),
    OpDef(
        "tand",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("dst", DPS)),
        formats=(
            "`ins` `(` $src0 `,` $src1 `:` qualified(type($src0)) `,` qualified(type($src1)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",
        ),
        tier="syntax",
        summary="TAND(dst, src0, src1) bitwise-and on tiles",
    ),
    OpDef(
        "tconcatidx",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("src0Idx", DPS), Operand("src1Idx", DPS), Operand("dst", DPS)),
        formats=(
            "`ins` `(` $src0 `,` $src1 `,` $src0Idx `,` $src1Idx `:` qualified(type($src0)) `,` qualified(type($src1)) `,` "
            "qualified(type($src0Idx)) `,` qualified(type($src1Idx)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` "
            "attr-dict",
        ),
        tier="syntax",
        summary="TCONCAT (indexed): Concatenate two tiles along the column dimension with per-row index control",
    ),
    OpDef(
        "tands",
        (Operand("src", DPS), Operand("scalar", INT), Operand("dst", DPS)),
        formats=("`ins` `(` $src `,` $scalar `:` qualified(type($src)) `,` type($scalar) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",),
        tier="syntax",
        summary="TANDS(dst, src, scalar) bitwise-and tile with scalar",
    ),
    OpDef(
        "ttri",
        (Operand("diagonal", INT), Operand("dst", DPS)),
        attributes=(Attribute("upperOrLower", _int(32), "0", held=True),),
        formats=("`ins` `(` $diagonal attr-dict `:` type($diagonal) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)`",),
        tier="syntax",
        summary="Generate a lower/upper triangular mask tile",
    ),
    OpDef(
        "tcmp",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("dst", DPS)),
        attributes=(Attribute("cmpMode", _enum("cmp")),),
        formats=(
            "`ins` `(` $src0 `,` $src1 attr-dict `:` qualified(type($src0)) `,` qualified(type($src1)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)`",
        ),
        tier="syntax",
        summary="Compare two tiles and write a packed predicate mask",
    ),
    OpDef(
        "tcmps",
        (Operand("src", DPS), Operand("scalar", SCALAR), Operand("dst", DPS)),
        attributes=(Attribute("cmpMode", _enum("cmp"), "#pto<cmp eq>", held=True),),
        formats=("`ins` `(` $src `,` $scalar attr-dict `:` qualified(type($src)) `,` type($scalar) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)`",),
        tier="syntax",
        summary="Compare scalar value against a tile and write a packed predicate mask",
    ),
    OpDef(
        "tcolexpanddiv",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("dst", DPS)),
        attributes=(Attribute("precisionType", _enum("div_precision"), "#pto<div_precision default>", held=True),),
        formats=(
            "`ins` `(` $src0 `,` $src1 `:` qualified(type($src0)) `,` qualified(type($src1)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",
        ),
        tier="syntax",
        summary="Column-wise broadcast divide: divide each element of src0 by a per-column scalar vector src1",
    ),
    OpDef(
        "tcolexpandsub",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("dst", DPS)),
        formats=(
            "`ins` `(` $src0 `,` $src1 `:` qualified(type($src0)) `,` qualified(type($src1)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",
        ),
        tier="syntax",
        summary="Column-wise broadcast subtract: subtract a per-column scalar vector src1 from src0",
    ),
    OpDef(
        "tcolexpandmax",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("dst", DPS)),
        formats=(
            "`ins` `(` $src0 `,` $src1 `:` qualified(type($src0)) `,` qualified(type($src1)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",
        ),
        tier="syntax",
        summary="Column-wise broadcast max: take max(src0, src1) using a per-column scalar vector src1",
    ),
    OpDef(
        "tcolexpandmin",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("dst", DPS)),
        formats=(
            "`ins` `(` $src0 `,` $src1 `:` qualified(type($src0)) `,` qualified(type($src1)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",
        ),
        tier="syntax",
        summary="Column-wise broadcast min: take min(src0, src1) using a per-column scalar vector src1",
    ),
    OpDef(
        "tcolargmax",
        (Operand("src", DPS), Operand("tmp", DPS, "optional"), Operand("dst", DPS)),
        formats=(_ins_opt_tmp(["src"]),),
        printer="dict",  # printOptionalAttrDict(getAttrs())
        tier="syntax",
        summary="Reduce each column to the row index of the maximum element",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, parseOptionalTmpRowReductionOp): `ins(...[, %tmp] : ...) outs(%dst : ...)`
        level3_tmp=_ROW_REDUCTION_TMP,
    ),
    OpDef(
        "tcolmin",
        (Operand("src", DPS), Operand("dst", DPS)),
        formats=("`ins` `(` $src `:` qualified(type($src)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",),
        tier="syntax",
        summary="Reduce each column by taking the minimum across rows",
    ),
    OpDef(
        "tcolargmin",
        (Operand("src", DPS), Operand("tmp", DPS, "optional"), Operand("dst", DPS)),
        formats=(_ins_opt_tmp(["src"]),),
        printer="dict",  # printOptionalAttrDict(getAttrs())
        tier="syntax",
        summary="Reduce each column to the row index of the minimum element",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, parseOptionalTmpRowReductionOp): `ins(...[, %tmp] : ...) outs(%dst : ...)`
        level3_tmp=_ROW_REDUCTION_TMP,
    ),
    OpDef(
        "tcolprod",
        (Operand("src", DPS), Operand("dst", DPS)),
        formats=("`ins` `(` $src `:` qualified(type($src)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",),
        tier="syntax",
        summary="Reduce each column by multiplying across rows",
    ),
    OpDef(
        "trandom",
        (
            Operand("key0", INT),
            Operand("key1", INT),
            Operand("counter0", INT),
            Operand("counter1", INT),
            Operand("counter2", INT),
            Operand("counter3", INT),
            Operand("dst", DPS),
        ),
        attributes=(Attribute("rounds", _int(32), "10", held=True),),
        formats=(
            "`ins` `(` $key0 `,` $key1 `,` $counter0 `,` $counter1 `,` $counter2 `,` $counter3 attr-dict `:` type($key0) "
            "`,` type($key1) `,` type($counter0) `,` type($counter1) `,` type($counter2) `,` type($counter3) `)` `outs` `(` "
            "$dst `:` qualified(type($dst) ) `)`",
        ),
        tier="syntax",
        summary="Generate random values into dst tile using key/counter words",
    ),
    OpDef(
        "tfmod",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("dst", DPS)),
        attributes=(Attribute("precisionType", _enum("fmod_precision"), "#pto<fmod_precision default>", held=True),),
        formats=(
            "`ins` `(` $src0 `,` $src1 `:` qualified(type($src0)) `,` qualified(type($src1)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",
        ),
        tier="syntax",
        summary="Elementwise fmod/remainder of two tiles (tilebuf, DPS)",
    ),
    OpDef(
        "tfmods",
        (Operand("src", DPS), Operand("scalar", SCALAR), Operand("dst", DPS)),
        formats=("`ins` `(` $src `,` $scalar `:` qualified(type($src)) `,` type($scalar) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",),
        tier="syntax",
        summary="Elementwise fmod/remainder with a scalar (tilebuf, DPS)",
    ),
    OpDef(
        "tpow",
        (Operand("base", DPS), Operand("exp", DPS), Operand("dst", DPS), Operand("tmp", DPS, "optional")),
        attributes=(Attribute("precisionType", _enum("pow_precision"), "#pto<pow_precision default>", held=True),),
        formats=(_ins_opt_tmp(["base", "exp"]),),
        printer="dict",  # ptoas's print() prints (*this)->getAttrs()
        tier="syntax",
        summary="TPOW: Elementwise power with both base and exponent as tiles",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, TPowOp::parse): `ins(...[, %tmp] : ...) outs(%dst : ...)`
        level3_tmp=Level3Tmp(
            ("a2a3", "a5"),
            "float-dst",
            "like-dst",
            elsewhere="an integer dst takes none",
            source=f"{PTOAS_IMPLICIT_TMP} (replaceTPowWithTmp)",
        ),
    ),
    OpDef(
        "tpows",
        (Operand("src", DPS), Operand("scalar", SCALAR), Operand("dst", DPS), Operand("tmp", DPS, "optional")),
        attributes=(Attribute("precisionType", _enum("pow_precision"), "#pto<pow_precision default>", held=True),),
        formats=(_ins_opt_tmp(["src", "scalar"]),),
        printer="dict",  # ptoas's print() prints (*this)->getAttrs()
        tier="syntax",
        summary="TPOWS: Elementwise power with a scalar exponent",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, TPowSOp::parse): `ins(...[, %tmp] : ...) outs(%dst : ...)`
        level3_tmp=Level3Tmp(
            ("a2a3", "a5"),
            "float-dst",
            "like-dst",
            elsewhere="an integer dst takes none",
            source=f"{PTOAS_IMPLICIT_TMP} (replaceTPowSWithTmp)",
        ),
    ),
    OpDef(
        "tinsert",
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
            Attribute("reluPreMode", _enum("relu_pre_mode"), "#pto<relu_pre_mode no_relu>", held=True),
            Attribute("tinsertMode", ANY_ATTR),
        ),
        formats=(
            "`ins` `(` $src `,` $indexRow `,` $indexCol `:` qualified(type($src)) `,` type($indexRow) `,` type($indexCol) "
            "(`fp` $fp^ `:` qualified(type($fp)))? (`pre_quant` $preQuantScalar^ `:` type($preQuantScalar))? `)` `outs` `(` "
            "$dst `:` qualified(type($dst) ) `)` attr-dict",
        ),
        tier="syntax",
        summary="Insert src sub-tile into dst at (indexRow, indexCol) (tilebuf, DPS)",
    ),
    OpDef(
        "tgatherb",
        (Operand("src", DPS), Operand("offsets", DPS), Operand("dst", DPS)),
        formats=("`ins` `(` $src `,` $offsets `:` qualified(type($src)) `,` type($offsets) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",),
        tier="syntax",
        summary="Gather elements using byte offsets (tilebuf, DPS)",
    ),
    OpDef(
        "tlrelu",
        (Operand("src", DPS), Operand("slope", "f32"), Operand("dst", DPS)),
        formats=("`ins` `(` $src `,` $slope `:` qualified(type($src)) `,` type($slope) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",),
        tier="syntax",
        summary="Leaky ReLU with a scalar slope (tilebuf, DPS)",
    ),
    OpDef(
        "tnot",
        (Operand("src", DPS), Operand("dst", DPS)),
        formats=("`ins` `(` $src `:` qualified(type($src)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",),
        tier="syntax",
        summary="TNOT: Elementwise bitwise NOT of a tile",
    ),
    OpDef(
        "tor",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("dst", DPS)),
        formats=(
            "`ins` `(` $src0 `,` $src1 `:` qualified(type($src0)) `,` qualified(type($src1)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",
        ),
        tier="syntax",
        summary="TOR: Elementwise bitwise OR of two tiles",
    ),
    OpDef(
        "tors",
        (Operand("src", DPS), Operand("scalar", INT), Operand("dst", DPS)),
        formats=("`ins` `(` $src `,` $scalar `:` qualified(type($src)) `,` type($scalar) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",),
        tier="syntax",
        summary="TORS: Elementwise bitwise OR of a tile and a scalar",
    ),
    OpDef(
        "tpartadd",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("dst", DPS)),
        formats=(
            "`ins` `(` $src0 `,` $src1 `:` qualified(type($src0)) `,` qualified(type($src1)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",
        ),
        tier="syntax",
        summary="TPARTADD: Partial elementwise add with implementation-defined handling of mismatched valid regions",
    ),
    OpDef(
        "tpartmax",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("dst", DPS)),
        formats=(
            "`ins` `(` $src0 `,` $src1 `:` qualified(type($src0)) `,` qualified(type($src1)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",
        ),
        tier="syntax",
        summary="Partial elementwise max with implementation-defined handling of mismatched valid regions",
    ),
    OpDef(
        "tpartmin",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("dst", DPS)),
        formats=(
            "`ins` `(` $src0 `,` $src1 `:` qualified(type($src0)) `,` qualified(type($src1)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",
        ),
        tier="syntax",
        summary="Partial elementwise min with implementation-defined handling of mismatched valid regions",
    ),
    OpDef(
        "tpartargmax",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("src0Idx", DPS), Operand("src1Idx", DPS), Operand("dst", DPS), Operand("dstIdx", DPS)),
        formats=(
            "`ins` `(` $src0 `,` $src1 `,` $src0Idx `,` $src1Idx `:` qualified(type($src0)) `,` qualified(type($src1)) `,` "
            "qualified(type($src0Idx)) `,` qualified(type($src1Idx)) `)` `outs` `(` $dst `,` $dstIdx `:` "
            "qualified(type($dst)) `,` qualified(type($dstIdx)) `)` attr-dict",
        ),
        tier="syntax",
        summary="Partial elementwise max with value and index tiles",
    ),
    OpDef(
        "tpartargmin",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("src0Idx", DPS), Operand("src1Idx", DPS), Operand("dst", DPS), Operand("dstIdx", DPS)),
        formats=(
            "`ins` `(` $src0 `,` $src1 `,` $src0Idx `,` $src1Idx `:` qualified(type($src0)) `,` qualified(type($src1)) `,` "
            "qualified(type($src0Idx)) `,` qualified(type($src1Idx)) `)` `outs` `(` $dst `,` $dstIdx `:` "
            "qualified(type($dst)) `,` qualified(type($dstIdx)) `)` attr-dict",
        ),
        tier="syntax",
        summary="Partial elementwise min with value and index tiles",
    ),
    OpDef(
        "tpartmul",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("dst", DPS)),
        formats=(
            "`ins` `(` $src0 `,` $src1 `:` qualified(type($src0)) `,` qualified(type($src1)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",
        ),
        tier="syntax",
        summary="Partial elementwise mul with implementation-defined handling of mismatched valid regions",
    ),
    OpDef(
        "tprelu",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("tmp", DPS, "optional"), Operand("dst", DPS)),
        formats=(_ins_opt_tmp(["src0", "src1"]),),
        tier="syntax",
        summary="TPRELU: Elementwise PReLU (parametric ReLU) with a per-element slope tile",
        # ptoas's custom parser and printer (PTO.cpp): `ins(...[, %tmp] : ...) outs(%dst : ...)`, as pto-parse prints it
        level3_tmp=Level3Tmp(
            ("a2a3",),
            "always",
            "prelu",
            elsewhere=_A5_PLACEHOLDER,
            source=f"{PTOAS_IMPLICIT_TMP} (materializeFixedMandatoryTmp, TPReluOp); test/lit/pto/implicit_tmp_remaining_ops_materialization.pto",
        ),
    ),
    OpDef(
        "tquant",
        (Operand("src", DPS), Operand("fp", DPS), Operand("offset", DPS, "optional"), Operand("tmp", DPS, "optional"), Operand("dst", DPS)),
        attributes=(Attribute("quant_type", ANY_ATTR, required=True),),
        formats=(
            "`ins` `(` $src `,` $fp (`,` $offset^)? `:` qualified(type($src)) `,` qualified(type($fp)) (`,` qualified(type($offset))^)? `)` "
            "`outs` `(` $dst (`,` $tmp^)? `:` qualified(type($dst)) (`,` qualified(type($tmp))^)? `)` attr-dict",
        ),
        tier="syntax",
        summary="TQUANT: Quantize a tile using a scaling (fp) tile",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, TQuantOp::parse):
        # `ins(%src, %fp[, %offset] : ...) outs(%dst[, %tmp] : ...) {quant_type = ...}`
        level3_tmp=Level3Tmp(
            ("a2a3",),
            "always",
            "like-src-f32",
            elsewhere="on a5 ptoas asks for none (replaceTQuantWithTmp leaves an a5 tquant alone)",
            source=f"{PTOAS_IMPLICIT_TMP} (replaceTQuantWithTmp)",
        ),
    ),
    OpDef(
        "tquant.mx",
        (Operand("src", DPS), Operand("dst", DPS), Operand("exp", DPS), Operand("max", DPS), Operand("scaling", DPS), Operand("exp_zz", DPS, "optional")),
        attributes=(
            Attribute("quant_type", ANY_ATTR, required=True),
            Attribute("quantScaleAlg", ANY_ATTR, "#pto<quant_scale_alg ocp>", held=True),
            Attribute("storeMode", ANY_ATTR),
            Attribute("grpAxis", _enum("mx_group_axis"), "#pto<mx_group_axis axis1>", held=True),
            Attribute("interleave", BOOL, "false", held=True),
        ),
        printer="dict",  # TQuantMxOp::print
        formats=(
            "`ins` `(` $src `:` qualified(type($src)) `)` `outs` `(` $dst `,` $exp `,` $max `,` $scaling (`,` $exp_zz^)? `:` "
            "qualified(type($dst)) `,` qualified(type($exp)) `,` qualified(type($max)) `,` qualified(type($scaling)) "
            "(`,` qualified(type($exp_zz))^)? `)` attr-dict",
        ),
        tier="syntax",
        summary="TQUANT MX: Quantize a vec tile into MXFP8/MXFP4 and materialize exp/max/scaling tiles",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, TQuantMxOp::parse):
        # `ins(%src : T) outs(%dst, %exp, %max, %scaling[, %exp_zz] : ...) {quant_type = ..., ...}`
    ),
    OpDef(
        "tdequant",
        (Operand("src", DPS), Operand("scale", DPS), Operand("offset", DPS), Operand("dst", DPS)),
        formats=(
            "`ins` `(` $src `,` $scale `,` $offset `:` qualified(type($src)) `,` qualified(type($scale)) `,` "
            "qualified(type($offset)) `)` `outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict",
        ),
        tier="syntax",
        summary="TDEQUANT: Dequantize an integer tile using per-row scale and offset tiles",
    ),
    OpDef(
        "trem",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("tmp", DPS, "optional"), Operand("dst", DPS)),
        attributes=(Attribute("precisionType", _enum("rem_precision"), "#pto<rem_precision default>", held=True),),
        printer="dict",  # ptoas's print() prints (*this)->getAttrs()
        formats=(_ins_opt_tmp(["src0", "src1"]),),
        tier="syntax",
        summary="TREM: Elementwise remainder of two tiles",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, parseOptionalTmpFixedDpsOp): `ins(...[, %tmp] : ...) outs(%dst : ...)`
        level3_tmp=Level3Tmp(
            ("a2a3",),
            "always",
            "two-dst-rows",
            elsewhere=_A5_PLACEHOLDER,
            source=f"{PTOAS_IMPLICIT_TMP} (materializeFixedMandatoryTmp, TRemOp); test/lit/pto/implicit_tmp_remaining_ops_materialization.pto",
        ),
    ),
    OpDef(
        "trems",
        (Operand("src", DPS), Operand("scalar", SCALAR), Operand("tmp", DPS, "optional"), Operand("dst", DPS)),
        formats=(_ins_opt_tmp(["src", "scalar"]),),
        tier="syntax",
        summary="TREMS: Elementwise remainder with a scalar",
        # ptoas's custom parser and printer (PTO.cpp): `ins(...[, %tmp] : ...) outs(%dst : ...)`, as pto-parse prints it
        level3_tmp=Level3Tmp(
            ("a2a3",),
            "always",
            "one-dst-row",
            elsewhere=_A5_PLACEHOLDER,
            source=f"{PTOAS_IMPLICIT_TMP} (materializeFixedMandatoryTmp, TRemSOp); test/lit/pto/implicit_tmp_remaining_ops_materialization.pto",
        ),
    ),
    OpDef(
        "trowexpandexpdif",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("tmp", DPS, "optional"), Operand("dst", DPS)),
        formats=(_ins_opt_tmp(["src0", "src1"]),),
        printer="dict",  # printOptionalAttrDict(getAttrs())
        tier="syntax",
        summary="TROWEXPANDEXPDIF: Row-wise broadcast expdif with per-row scalar vector",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, parseTRowExpandBinaryLikeOp): `ins(...[, %tmp] : ...) outs(%dst : ...)`
    ),
    OpDef(
        "trowexpandmax",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("tmp", DPS, "optional"), Operand("dst", DPS)),
        formats=(_ins_opt_tmp(["src0", "src1"]),),
        printer="dict",  # printOptionalAttrDict(getAttrs())
        tier="syntax",
        summary="TROWEXPANDMAX: Row-wise broadcast max with per-row scalar vector",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, parseTRowExpandBinaryLikeOp): `ins(...[, %tmp] : ...) outs(%dst : ...)`
    ),
    OpDef(
        "trowexpandmin",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("tmp", DPS, "optional"), Operand("dst", DPS)),
        formats=(_ins_opt_tmp(["src0", "src1"]),),
        printer="dict",  # printOptionalAttrDict(getAttrs())
        tier="syntax",
        summary="TROWEXPANDMIN: Row-wise broadcast min with per-row scalar vector",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, parseTRowExpandBinaryLikeOp): `ins(...[, %tmp] : ...) outs(%dst : ...)`
    ),
    OpDef(
        "trowargmax",
        (Operand("src", DPS), Operand("tmp", DPS, "optional"), Operand("dst", DPS)),
        formats=(_ins_opt_tmp(["src"]),),
        printer="dict",  # printOptionalAttrDict(getAttrs())
        tier="syntax",
        summary="TROWARGMAX: Reduce each row to the column index of the maximum element",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, parseOptionalTmpRowReductionOp): `ins(...[, %tmp] : ...) outs(%dst : ...)`
        level3_tmp=_ROW_REDUCTION_TMP,
    ),
    OpDef(
        "trowargmin",
        (Operand("src", DPS), Operand("tmp", DPS, "optional"), Operand("dst", DPS)),
        formats=(_ins_opt_tmp(["src"]),),
        printer="dict",  # printOptionalAttrDict(getAttrs())
        tier="syntax",
        summary="TROWARGMIN: Reduce each row to the column index of the minimum element",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, parseOptionalTmpRowReductionOp): `ins(...[, %tmp] : ...) outs(%dst : ...)`
        level3_tmp=_ROW_REDUCTION_TMP,
    ),
    OpDef(
        "trowprod",
        (Operand("src", DPS), Operand("tmp", DPS, "optional"), Operand("dst", DPS)),
        formats=(_ins_opt_tmp(["src"]),),
        printer="dict",  # printOptionalAttrDict(getAttrs())
        tier="syntax",
        summary="TROWPROD: Reduce each row by multiplying across columns",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, parseOptionalTmpRowReductionOp): `ins(...[, %tmp] : ...) outs(%dst : ...)`
        level3_tmp=_ROW_REDUCTION_TMP,
    ),
    OpDef(
        "tscatter",
        (Operand("src", DPS), Operand("dst", DPS), Operand("indexes", DPS, "optional")),
        attributes=(Attribute("axis", STRING), Attribute("maskPattern", _enum("mask_pattern"))),
        formats=(
            _ins_outs(["src", "indexes"]),
            "`ins` `(` $src `,` `{` `maskPattern` `=` qualified($maskPattern) `}` `:` qualified(type($src)) (`,` $axis^)? `)` "
            "`outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict",
        ),
        printer="dict",  # printOptionalAttrDict(getAttrs(), {maskPattern, axis})
        tier="syntax",
        summary="TSCATTER: Scatter elements of a source tile into a destination tile using indices or a mask pattern",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, TScatterOp::parse):
        # `ins(%src, %indexes : ...) outs(%dst : ...)`, or the mask form
        # `ins(%src, {maskPattern = #pto.mask_pattern<P0101>} : T[, "row"]) outs(%dst : ...)`
    ),
    OpDef(
        "tsel",
        (Operand("mask", DPS), Operand("src0", DPS), Operand("src1", DPS), Operand("tmp", DPS, "optional"), Operand("dst", DPS)),
        formats=(_ins_opt_tmp(["mask", "src0", "src1"]),),
        tier="syntax",
        summary="TSEL: Select between two tiles using a mask tile (per-element selection)",
        # ptoas's custom parser and printer (PTO.cpp): `ins(...[, %tmp] : ...) outs(%dst : ...)`, as pto-parse prints it
        level3_tmp=Level3Tmp(
            ("a2a3",),
            "always",
            "select",
            elsewhere=_A5_PLACEHOLDER,
            source=f"{PTOAS_IMPLICIT_TMP} (materializeFixedMandatoryTmp, TSelOp); test/lit/pto/implicit_tmp_remaining_ops_materialization.pto",
        ),
    ),
    OpDef(
        "tsels",
        (Operand("mask", DPS), Operand("src", DPS), Operand("tmp", DPS, "optional"), Operand("scalar", SCALAR), Operand("dst", DPS)),
        formats=(
            "`ins` `(` $mask `,` $src `,` $tmp `,` $scalar `:` qualified(type($mask)) `,` qualified(type($src)) `,` "
            "qualified(type($tmp)) `,` type($scalar) `)` "
            "`outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict",
            "`ins` `(` $mask `,` $src `,` $scalar `:` qualified(type($mask)) `,` qualified(type($src)) `,` type($scalar) `)` "
            "`outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict",
        ),
        printer="dict",  # printOptionalAttrDict(getAttrs())
        tier="syntax",
        summary="TSELS: Select one of two source tiles using a scalar selectMode (global select)",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp,
        # parseOptionalTmpFixedDpsOp): `ins(%mask, %src[, %tmp], %scalar : ...) outs(%dst : ...)`,
        # the tmp before the scalar; two forms, since without a tmp the third input is the scalar
        level3_tmp=Level3Tmp(
            ("a2a3",),
            "always",
            "one-src-row",
            elsewhere=_A5_PLACEHOLDER,
            source=f"{PTOAS_IMPLICIT_TMP} (materializeFixedMandatoryTmp, TSelSOp); test/lit/pto/implicit_tmp_remaining_ops_materialization.pto",
        ),
    ),
    OpDef(
        "tshl",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("dst", DPS)),
        formats=(
            "`ins` `(` $src0 `,` $src1 `:` qualified(type($src0)) `,` qualified(type($src1)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",
        ),
        tier="syntax",
        summary="TSHL: Elementwise shift-left of two tiles",
    ),
    OpDef(
        "tshr",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("dst", DPS)),
        formats=(
            "`ins` `(` $src0 `,` $src1 `:` qualified(type($src0)) `,` qualified(type($src1)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",
        ),
        tier="syntax",
        summary="TSHR: Elementwise shift-right of two tiles",
    ),
    OpDef(
        "tshls",
        (Operand("src", DPS), Operand("scalar", INT), Operand("dst", DPS)),
        formats=("`ins` `(` $src `,` $scalar `:` qualified(type($src)) `,` type($scalar) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",),
        tier="syntax",
        summary="TSHLS: Elementwise shift-left of a tile by a scalar (shift count)",
    ),
    OpDef(
        "tshrs",
        (Operand("src", DPS), Operand("scalar", INT), Operand("dst", DPS)),
        formats=("`ins` `(` $src `,` $scalar `:` qualified(type($src)) `,` type($scalar) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",),
        tier="syntax",
        summary="TSHRS: Elementwise shift-right of a tile by a scalar (shift count)",
    ),
    OpDef(
        "tsubc",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("src2", DPS), Operand("dst", DPS)),
        formats=(
            "`ins` `(` $src0 `,` $src1 `,` $src2 `:` qualified(type($src0)) `,` qualified(type($src1)) `,` "
            "qualified(type($src2)) `)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",
        ),
        tier="syntax",
        summary="TSUBC: Elementwise ternary op: src0 - src1 + src2",
    ),
    OpDef(
        "tsubsc",
        (Operand("src0", DPS), Operand("scalar", SCALAR), Operand("src1", DPS), Operand("dst", DPS)),
        formats=(
            "`ins` `(` $src0 `,` $scalar `,` $src1 `:` qualified(type($src0)) `,` type($scalar) `,` qualified(type($src1)) "
            "`)` `outs` `(` $dst `:` qualified(type($dst) ) `)` attr-dict",
        ),
        tier="syntax",
        summary="TSUBSC: Elementwise fused op: src0 - scalar + src1",
    ),
    OpDef(
        "txors",
        (Operand("src", DPS), Operand("scalar", INT), Operand("tmp", DPS, "optional"), Operand("dst", DPS)),
        formats=(_ins_opt_tmp(["src", "scalar"]),),
        printer="dict",  # printOptionalAttrDict(getAttrs())
        tier="syntax",
        summary="TXORS: Elementwise bitwise XOR of a tile and a scalar",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, TXorSOp::parse): `ins(...[, %tmp] : ...) outs(%dst : ...)`
        level3_tmp=Level3Tmp(
            ("a2a3",),
            "always",
            "like-dst",
            elsewhere=_A5_PLACEHOLDER,
            source=f"{PTOAS_IMPLICIT_TMP} (replaceTXorSWithTmp)",
        ),
    ),
    OpDef(
        "txor",
        (Operand("src0", DPS), Operand("src1", DPS), Operand("tmp", DPS, "optional"), Operand("dst", DPS)),
        formats=(_ins_opt_tmp(["src0", "src1"]),),
        printer="dict",  # printOptionalAttrDict(getAttrs())
        tier="syntax",
        summary="TXOR: Elementwise bitwise XOR of two tiles",
        # ptoas's custom parser and printer (tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, TXorOp::parse): `ins(...[, %tmp] : ...) outs(%dst : ...)`
        level3_tmp=Level3Tmp(
            ("a2a3",),
            "always",
            "like-dst",
            elsewhere=_A5_PLACEHOLDER,
            source=f"{PTOAS_IMPLICIT_TMP} (replaceTXorWithTmp)",
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
