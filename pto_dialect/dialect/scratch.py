"""The scratch tiles ptoas requires at level3 (docs/dialect.md, "Scratch
tiles at level3"): per op instance, whether its `tmp` operand must be
present on the target, and the tile to give it when it is not.

The facts are the op table's (`OpDef.level3_tmp`, pto_dialect/dialect/ops.py); this
module evaluates their conditions (`LEVEL3_TMP_WHEN`) and tmp types
(`LEVEL3_TMP_TYPES`) on an op's operand types and attributes, as ptoas's
pto-materialize-implicit-tmp does (tonibohnlein/PTOAS
lib/PTO/Transforms/PTOMaterializeImplicitTmp.cpp), and rebuilds an op with
a new `tmp` operand. `pto-allocate-memory-addr` is its user.

Where ptoas itself could not build a tmp (a dynamic valid shape), the tile
is the one its verifier accepts when there is one (src's static shape as
the valid shape: it holds any valid region of src), else the decision says
why none can be given.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from mlir import ir

from .attributes import generic_value
from .effects import SEGMENTS_ATTR, Layout, OpSpec
from .ops import LEVEL3_TMP_TYPES, LEVEL3_TMP_WHEN, OPS, Level3Tmp, OpDef
from .types import DTYPE_BYTES, DYNAMIC, TileBufType, align_up, tile_type

TMP_SPACE = "vec"
_BLOCK = 32  # bytes: a vector block, the row alignment of a row_major none_box tile


@dataclass(frozen=True)
class TmpDecision:
    """What an op without a `tmp` needs on one arch: a tile to add
    (`tile`), none (`needed` False, `why` says why), or one that cannot be
    built (`tile` None, `why` says why)."""

    op: ir.Operation
    definition: OpDef
    fact: Level3Tmp
    arch: str
    needed: bool
    tile: TileBufType | None = None
    why: str = ""

    @property
    def op_name(self) -> str:
        return self.definition.full_name

    def rule_text(self) -> str:
        """Why ptoas requires the tmp, in words (for remarks and reports)."""
        when = LEVEL3_TMP_WHEN[self.fact.when]
        condition = "" if self.fact.when == "always" else f" {when}"
        return f"ptoas requires a tmp of '{self.op_name}'{condition} at level3 on {self.arch} ({LEVEL3_TMP_TYPES[self.fact.tmp]})"


@cache
def _specs() -> dict[str, OpSpec]:
    return {d.generic_name: OpSpec(d) for d in OPS if d.level3_tmp is not None}


def has_rule(op_name: str) -> bool:
    """Whether the op (by generic name) has a level3 tmp fact."""
    return op_name in _specs()


def decide(op: ir.Operation, arch: str) -> TmpDecision | None:
    """The decision for `op` on `arch`, or None when the op has no fact or
    already has a `tmp` (which is then the user's: left alone)."""
    spec = _specs().get(op.name)
    if spec is None:
        return None
    layout = spec.layout(op)
    if layout.scratch is not None:
        return None
    d = spec.definition
    fact = d.level3_tmp
    if not fact.required_on(arch):
        why = f"ptoas requires none on {arch} at level3" + (f": {fact.elsewhere}" if fact.elsewhere else "")
        return TmpDecision(op, d, fact, arch, False, why=why)
    operands = _Operands(op, layout)
    if not _CONDITIONS[fact.when](operands):
        return TmpDecision(op, d, fact, arch, False, why=f"ptoas requires one only {LEVEL3_TMP_WHEN[fact.when]}")
    tile, problem = _TYPES[fact.tmp](operands)
    return TmpDecision(op, d, fact, arch, True, tile, problem)


def tmp_to_add(op: ir.Operation, arch: str) -> TileBufType | None:
    """The tile pto-allocate-memory-addr will add as `op`'s tmp on `arch`,
    or None: what a pass that decides by bytes before it (the conversion's
    fit check) counts at `op`."""
    if not has_rule(op.name):
        return None
    decision = decide(op, arch)
    return decision.tile if decision is not None and decision.needed else None


class TmpFinder:
    """The ops under a root that `tmp_to_add` gives a tile, found by a walk
    in C++ that calls Python only for ops with a rule (built once, used for
    any number of roots)."""

    def __init__(self, arch: str) -> None:
        from mlir.rewrite import RewritePatternSet

        self.arch = arch
        found: list[tuple[ir.Operation, TileBufType]] = []

        # A closure over the list, not a bound method: the frozen pattern set
        # (C++) holds the callable, and a callable that held this finder
        # would make a cycle Python's collector cannot see through C++ (each
        # finder, and all it found, would leak).
        def visit(op, _rewriter) -> bool:
            tile = tmp_to_add(op.operation, arch)
            if tile is not None:
                found.append((op.operation, tile))
            return True  # "no match": the walk changes nothing

        patterns = RewritePatternSet()
        for name in _specs():
            patterns.add(name, visit)
        self._found = found
        self._patterns = patterns.freeze()

    def under(self, root: ir.Operation) -> list[tuple[ir.Operation, TileBufType]]:
        from mlir.rewrite import walk_and_apply_patterns

        self._found.clear()
        walk_and_apply_patterns(root, self._patterns)
        out = list(self._found)
        self._found.clear()  # the ops are the caller's now
        return out


def with_tmp(op: ir.Operation, tmp: ir.Value) -> ir.Operation:
    """`op` rebuilt with `tmp` as its `tmp` operand, at the same place,
    with every other operand and attribute (its `operandSegmentSizes` made
    to count the tmp); `op` is erased and its results' uses moved."""
    spec = _specs()[op.name]
    layout = spec.layout(op)
    start, _ = layout.groups["tmp"]
    operands = list(op.operands)
    operands.insert(start, tmp)
    attrs = op.attributes
    attributes = {attrs[i].name: attrs[i].attr for i in range(len(attrs)) if attrs[i].name != SEGMENTS_ATTR}
    if spec.definition.needs_segments:
        sizes = [1 if o.name == "tmp" else layout.groups[o.name][1] for o in spec.definition.operands]
        attributes[SEGMENTS_ATTR] = ir.DenseI32ArrayAttr.get(sizes)
    new = ir.Operation.create(
        op.name,
        results=[r.type for r in op.results],
        operands=operands,
        attributes=attributes,
        loc=op.location,
        ip=ir.InsertionPoint(op),
    )
    for old, replacement in zip(op.results, new.results):
        old.replace_all_uses_with(replacement)
    op.erase()
    return new


# -- reading an op's operands ----------------------------------------------------------------


class _Operands:
    """An op's operand types (as tile views) and attributes, by name."""

    def __init__(self, op: ir.Operation, layout: Layout) -> None:
        self.op = op
        self.layout = layout

    def value(self, name: str) -> ir.Value | None:
        i = self.layout.index(name)
        return None if i is None else self.op.operands[i]

    def tile(self, name: str) -> TileBufType | None:
        v = self.value(name)
        return None if v is None else tile_type(v.type)

    def tiles(self, name: str) -> list[TileBufType | None]:
        return [tile_type(self.op.operands[i].type) for i in self.layout.span(name)]

    def present(self, name: str) -> bool:
        return len(self.layout.span(name)) > 0

    def bool_attr(self, name: str) -> bool:
        attrs = self.op.attributes
        return name in attrs and isinstance(attrs[name], ir.BoolAttr) and ir.BoolAttr(attrs[name]).value

    def enum_attr(self, name: str) -> str | None:
        attrs = self.op.attributes
        if name not in attrs:
            return None
        parsed = generic_value(str(attrs[name]))
        return parsed[1] if parsed else None


def _int_width(dtype: str) -> int | None:
    """The width of an integer element type of any signedness (MLIR's
    `Type::isInteger(width)`, which ptoas's rules use), else None."""
    for prefix in ("si", "ui", "i"):
        if dtype.startswith(prefix) and dtype[len(prefix) :].isdigit():
            return int(dtype[len(prefix) :])
    return None


def _vec_tile(rows: int, cols: int, dtype: str, valid: tuple[int, int] | None = None) -> TileBufType:
    """A vec tile, row_major none_box, fractal 512: ptoas's makeVecTmpType."""
    vr, vc = valid if valid is not None else (rows, cols)
    return TileBufType(TMP_SPACE, rows, cols, dtype, vr, vc)


def _like(t: TileBufType) -> TileBufType:
    """A tmp of `t`'s shape, valid shape and element type (ptoas's
    makeSameShapeTmpType), its shape as the valid shape where that is
    dynamic (ptoas builds none then; its verifiers accept this one)."""
    vr, vc = t.valid
    if vr == DYNAMIC or vc == DYNAMIC:
        vr, vc = t.rows, t.cols
    return _vec_tile(t.rows, t.cols, t.dtype, (vr, vc))


def _missing(name: str) -> tuple[None, str]:
    return None, f"its '{name}' operand is not a tile"


# -- the conditions (LEVEL3_TMP_WHEN) ---------------------------------------------------------------


def _narrowing(o: _Operands) -> bool:
    """ptoas's tcvtNeedsTmp (without its a5 test: the fact's arches)."""
    if o.enum_attr("sat_mode") not in (None, "OFF"):
        return False
    src, dst = o.tile("src"), o.tile("dst")
    if src is None or dst is None:
        return False
    width = _int_width(dst.dtype)
    return (src.dtype == "f32" and width == 16) or (src.dtype == "f16" and width in (8, 16))


def _unaligned_width(o: _Operands) -> bool:
    """ptoas's replaceTSort32WithTmp: a dynamic or non-32-aligned valid width."""
    src = o.tile("src")
    return src is not None and (src.valid_col == DYNAMIC or src.valid_col % 32 != 0)


_FLOATS = frozenset(t for t in DTYPE_BYTES if t.startswith(("f", "bf")))
"""The element types of a tile that are MLIR FloatTypes (ptoas's own
low-precision types, `!pto.hif8` and the like, are not)."""

_CONDITIONS = {
    "always": lambda o: True,
    "binary": lambda o: o.bool_attr("isBinary"),
    "narrowing": _narrowing,
    "high-precision": lambda o: o.enum_attr("precisionType") == "high_precision",
    "index-form": lambda o: o.present("indices"),
    "unaligned-width": _unaligned_width,
    # TMrgSortOp::isFormat2WithoutTmp (include/PTO/IR/PTOOps.td)
    "float-dst": lambda o: o.tile("dst") is not None and o.tile("dst").dtype in _FLOATS,  # ptoas's isFloatingPointTile
    "merge-without-tmp": lambda o: not o.present("blockLen") and o.present("excuted") and 2 <= len(o.layout.span("srcs")) <= 4,
}


# -- the tmp types (LEVEL3_TMP_TYPES) -----------------------------------------------------------------


def _like_src(o: _Operands):
    src = o.tile("src")
    return (_like(src), "") if src is not None else _missing("src")


def _half_rows(o: _Operands):
    """ptoas's replaceTColSumWithTmp: ceil(R / 2) x C, R x C src's valid
    shape; the columns padded to whole 32-byte rows (what a row_major
    none_box tile must have; ptoas's own would fail its verifier there),
    the valid shape as ptoas's."""
    src = o.tile("src")
    if src is None:
        return _missing("src")
    vr, vc = src.valid
    if vr == DYNAMIC or vc == DYNAMIC:
        return None, (
            "src's valid shape is dynamic, and ptoas's verifier takes a tmp of a binary tcolsum only with a "
            "static one (TColSumOp::verify): give it a static valid shape or drop isBinary"
        )
    rows = max(1, -(-vr // 2))
    per_row = max(1, _BLOCK // src.element_bytes) if src.element_bytes else 1
    cols = align_up(max(vc, 1), per_row)
    return _vec_tile(rows, cols, src.dtype, (rows, max(vc, 1)) if cols != vc else None), ""


def _tci(o: _Operands):
    """ptoas's makeTCITmpType: 768 bytes for a 32-bit dst, 1792 for a 16-bit one, as f32."""
    dst = o.tile("dst")
    if dst is None:
        return _missing("dst")
    return _vec_tile(1, 448 if _int_width(dst.dtype) == 16 else 192, "f32"), ""


def _tcvt(o: _Operands):
    """ptoas's makeTCvtTmpType: the bytes its tail path needs, 1 x N of i8."""
    src, dst = o.tile("src"), o.tile("dst")
    if src is None or dst is None:
        return _missing("src" if src is None else "dst")
    rows, cols = dst.valid
    if rows == DYNAMIC or cols == DYNAMIC:
        return None, (
            "dst's valid shape is dynamic, and ptoas's verifier sizes the tmp of a narrowing tcvt from a static "
            "one (TCvtOp::verify: 'expects static src shape and dst valid_shape to verify tcvt tmp')"
        )
    needed = 0
    if rows > 0 and cols > 0 and src.dtype == "f32":
        head = 4 * 64 * min(cols // 64, 255)
        remainder = cols % 64
        tail = 0 if remainder == 0 else 32 * ((min(rows, 255) - 1) * (src.cols // 8) + -(-remainder // 8))
        needed = max(head, tail)
    elif cols > 0 and src.dtype == "f16":
        width = min(cols, 64)
        half_to_i16 = 32 * -(-width // 8)
        half_to_i8 = max(half_to_i16, 128 + 32 * -(-width // 16))
        needed = half_to_i8 if _int_width(dst.dtype) == 8 else half_to_i16
    size = max(_BLOCK, align_up(needed, _BLOCK))
    return _vec_tile(1, size, "i8"), ""


def _transpose(o: _Operands):
    """ptoas's TTransOp case: like src where the aligned path runs
    (ttransUsesTmp), else one 32-byte block."""
    src, dst = o.tile("src"), o.tile("dst")
    if src is None or dst is None:
        return _missing("src" if src is None else "dst")
    size = src.element_bytes
    if size not in (1, 2, 4):
        return None, f"its element type {src.dtype} is not 1, 2 or 4 bytes wide"
    row_stride = 32 if size == 1 else 16
    per_block = _BLOCK // size
    aligned = dst.cols % row_stride == 0 and src.cols % per_block == 0 and src.cols // per_block <= 255
    if aligned:
        return _like(src), ""
    return _vec_tile(1, per_block, src.dtype), ""


def _block(o: _Operands):
    dst = o.tile("dst")
    if dst is None:
        return _missing("dst")
    size = dst.element_bytes
    if not size or _BLOCK % size:
        return None, f"its element type {dst.dtype} has no 32-byte block"
    return _vec_tile(1, _BLOCK // size, dst.dtype), ""


def _like_indices(o: _Operands):
    indices = o.tile("indices")
    if indices is None:
        return _missing("indices")
    if DYNAMIC in indices.valid:
        return None, (
            "the indices' valid shape is dynamic, and ptoas's verifier wants the tmp's valid shape to be the "
            "indices' (TGatherOp::verify): give it a tmp with the indices' valid operands"
        )
    return _vec_tile(indices.rows, indices.cols, indices.dtype, indices.valid), ""


def _merge(o: _Operands):
    """ptoas's materializeTMrgSortTmp: 1 x max(sum of the sources' columns, dst's)."""
    srcs, dsts = o.tiles("srcs"), o.tiles("dsts")
    if not srcs or any(s is None for s in srcs):
        return _missing("srcs")
    cols = max(sum(s.cols for s in srcs), max((d.cols for d in dsts if d is not None), default=0))
    return _vec_tile(1, cols, srcs[0].dtype), ""


def _static_operand(o: _Operands, name: str) -> tuple[TileBufType | None, str]:
    """The tile of operand `name` that ptoas sizes a tmp from (makeSameShapeTmpType,
    makeTPReluTmpType, makeRowsTmpType), or None and why there is none: not
    a tile, or a dynamic shape or valid shape."""
    t = o.tile(name)
    if t is None:
        return _missing(name)
    if DYNAMIC in (t.rows, t.cols, *t.valid):
        return None, f"{name}'s valid shape is dynamic, and ptoas sizes this tmp from a static one: give the op a tmp"
    return t, ""


def _static_like(name: str, dtype: str | None = None):
    """ptoas's makeSameShapeTmpType of operand `name` (of `dtype`, when given):
    none when its shape or valid shape is dynamic."""

    def build(o: _Operands):
        t, why = _static_operand(o, name)
        return (None, why) if t is None else (_vec_tile(t.rows, t.cols, dtype or t.dtype, t.valid), "")

    return build


def _prelu(o: _Operands):
    """ptoas's makeTPReluTmpType: (R + 1) x max(32, ceil(ceil(C / 8) / 32) * 32) of i8, valid R x ceil(C / 8)."""
    dst, why = _static_operand(o, "dst")
    if dst is None:
        return None, why
    rows, cols = dst.valid
    valid_cols = -(-cols // 8)
    return _vec_tile(rows + 1, max(32, -(-valid_cols // 32) * 32), "i8", (rows, valid_cols)), ""


def _rows_of(name: str, rows: int):
    """ptoas's makeRowsTmpType: `rows` x the operand's columns, of its element type, valid `rows` x its valid columns."""

    def build(o: _Operands):
        t, why = _static_operand(o, name)
        return (None, why) if t is None else (_vec_tile(rows, t.cols, t.dtype, (rows, t.valid_col)), "")

    return build


_TYPES = {
    "like-src": _like_src,
    "half-rows": _half_rows,
    "tci": _tci,
    "tcvt": _tcvt,
    "transpose": _transpose,
    "block": _block,
    "like-indices": _like_indices,
    "merge": _merge,
    "prelu": _prelu,
    "two-dst-rows": _rows_of("dst", 2),
    "one-dst-row": _rows_of("dst", 1),
    "one-src-row": _rows_of("src", 1),
    "like-dst": _static_like("dst"),
    "like-src-f32": _static_like("src", "f32"),
    "select": lambda o: (_vec_tile(1, 16, "i32"), ""),  # ptoas's TSelOp case: makeVecTmpType({1, 16}, i32)
}

assert set(_CONDITIONS) == set(LEVEL3_TMP_WHEN) and set(_TYPES) == set(LEVEL3_TMP_TYPES), "scratch.py and ops.py disagree"
