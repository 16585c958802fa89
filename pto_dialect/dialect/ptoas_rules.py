"""ptoas's verifier rules for the ops of the semantic tier, by target
(docs/dialect.md, "Verification"): element types per arch, layouts and
valid shapes, each with ptoas's message. They are ports of the verifiers in
PTOAS lib/PTO/IR/PTO.cpp (the `<Op>::verify` of each op and the helpers it
calls, named beside each rule here), checked against ptoas itself by the
oracle tests (test/python/test_oracle_ptoas.py, test_oracle_isa.py).

Like ptoas, the arch comes from the module's `pto.target_arch` (a5, else
a2a3; `a3` names a2a3; the one rule that tells a3 from a2, trecip in place,
takes the name ptoas's driver gives: a3 unless the module says a2), and a rule only judges what its types say
statically: a `?` dimension never fails a comparison. Operands that are not
`!pto.tile_buf` (the ranked tensors and partition views the op table also
admits) are left to the kind checks.
"""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir

from .types import DTYPE_BYTES, DYNAMIC, LOW_PRECISION, TileBufType, ViewType, pto_type, tile_type

Check = Callable[["RuleContext", ir.Operation], None]


class RuleContext:
    """What a rule sees: the arch, the op's operands by name, and how to
    report (the verifier's `Rules`)."""

    def __init__(self, rules, arch: str) -> None:
        self.rules = rules
        self.arch = arch
        self.ptoas_arch = rules.ptoas_arch  # a2, a3 or a5 (targets.ptoas_arch_name)

    def fail(self, op: ir.Operation, message: str) -> None:
        self.rules.op_error(op, message)

    def operands(self, op: ir.Operation) -> dict[str, TileBufType | ir.Type]:
        """Operand name -> its tile type (or its type when not a tile)."""
        layout = self.rules.layout(op)
        out = {}
        for name in layout.groups:
            index = layout.index(name)
            if index is not None:
                t = op.operands[index].type
                out[name] = tile_type(t) or t
        return out


def _same_valid(a: TileBufType, b: TileBufType, axis: int | None = None) -> bool:
    axes = (0, 1) if axis is None else (axis,)
    return all(a.valid[i] == DYNAMIC or b.valid[i] == DYNAMIC or a.valid[i] == b.valid[i] for i in axes)


def _tiles(ops: dict, *names: str) -> list[TileBufType] | None:
    tiles = [ops.get(n) for n in names]
    return tiles if all(isinstance(t, TileBufType) for t in tiles) else None


_ARITH = ("i32", "i16", "f16", "f32")


def _arith_types(arch: str, int8_on_a5: bool, bf16_on_a5: bool) -> tuple[str, ...]:
    """verifyArithmeticElemTypeForArch."""
    types = _ARITH
    if arch == "a5":
        types += ("i8",) * int8_on_a5 + ("bf16",) * bf16_on_a5
    return types


def binary_arith(name: str, int8_on_a5: bool, bf16_on_a5: bool, a2a3_types=None, a5_types=None, a2a3_message=None, a5_message=None) -> Check:
    """verifyArithmeticBinaryTileOpWithArchDispatch (tadd, tsub, tmul, tmax,
    tmin) and TDivOp::verify: verifyMatchingRowMajorBinaryTileOpCommon, then
    the element types of the arch."""

    def check(cx: RuleContext, op: ir.Operation) -> None:
        tiles = _tiles(cx.operands(op), "src0", "src1", "dst")
        if tiles is None:
            return
        src0, src1, dst = tiles
        if src0.dtype != src1.dtype:
            return cx.fail(op, "expects src0 and src1 to have the same element type")
        if src0.dtype != dst.dtype:
            return cx.fail(op, "expects src0 and dst to have the same element type")
        if not _same_valid(src0, src1):
            return cx.fail(op, "expects src0 and src1 to have the same valid_shape")
        if not _same_valid(src0, dst):
            return cx.fail(op, "expects src0 and dst to have the same valid_shape")
        if any(t.blayout != "row_major" for t in tiles):
            return cx.fail(op, "expects src0, src1, and dst to use row-major layout")
        if cx.arch == "a5":
            allowed = a5_types or _arith_types("a5", int8_on_a5, bf16_on_a5)
            message = a5_message or f"expects A5 {name} element type to be {_type_list(allowed)}"
        else:
            allowed = a2a3_types or _ARITH
            message = a2a3_message or f"expects A2/A3 {name} element type to be {_type_list(allowed)}"
        if src0.dtype not in allowed:
            cx.fail(op, message)

    return check


def _type_list(types) -> str:
    order = ("i8", "i16", "i32", "f16", "bf16", "f32")
    ints = [t for t in ("i32", "i16", "i8") if t in types]
    floats = [t for t in ("f16", "bf16", "f32") if t in types]
    return "/".join(ints + floats) if set(types) <= set(order) else "/".join(types)


def scalar_arith(name: str) -> Check:
    """verifyArithmeticScalarTileOpWithArchDispatch (tadds, tsubs, tmuls,
    tmaxs, tmins; the valid rows and columns must match on both arches)."""

    def check(cx: RuleContext, op: ir.Operation) -> None:
        ops = cx.operands(op)
        src_name = next((n for n in ("src", "src0") if n in ops), None)
        tiles = _tiles(ops, src_name, "dst") if src_name else None
        if tiles is None:
            return
        src, dst = tiles
        if src.loc != "vec":
            return cx.fail(op, "expects src to be in the vec address space")
        if dst.loc != "vec":
            return cx.fail(op, "expects dst to be in the vec address space")
        if src.dtype != dst.dtype:
            return cx.fail(op, "expects src and dst to have the same element type")
        if not _same_valid(src, dst, 0):
            return cx.fail(op, "expects src and dst to have the same valid_shape[0]")
        if not _same_valid(src, dst, 1):
            return cx.fail(op, "expects src and dst to have the same valid_shape[1]")
        allowed = _arith_types(cx.arch, True, True)
        if src.dtype not in allowed:
            arch = "A5" if cx.arch == "a5" else "A2/A3"
            cx.fail(op, f"expects {arch} {name} element type to be {_type_list(allowed)}")

    return check


def tdivs(cx: RuleContext, op: ir.Operation) -> None:
    """TDivSOp::verify: the tile operand (first or second) and dst, vec
    tiles of one element type and valid shape (verifyScalarTileOp), of
    i32/i16/f16/f32 (a5 also i8; no bf16 on either)."""
    ops = cx.operands(op)
    src = next((ops[n] for n in ("src", "scalar") if isinstance(ops.get(n), TileBufType)), None)
    dst = ops.get("dst")
    if not isinstance(src, TileBufType) or not isinstance(dst, TileBufType):
        return
    if src.loc != "vec":
        return cx.fail(op, "expects src to be in the vec address space")
    if dst.loc != "vec":
        return cx.fail(op, "expects dst to be in the vec address space")
    if src.dtype != dst.dtype:
        return cx.fail(op, "expects src and dst to have the same element type")
    for axis in (0, 1):
        if not _same_valid(src, dst, axis):
            return cx.fail(op, f"expects src and dst to have the same valid_shape[{axis}]")
    allowed = _arith_types(cx.arch, True, False)
    if src.dtype not in allowed:
        arch = "A5" if cx.arch == "a5" else "A2/A3"
        cx.fail(op, f"expects {arch} tdivs element type to be {_type_list(allowed)}")


def _vec_common(cx: RuleContext, op: ir.Operation, t: TileBufType, name: str) -> bool:
    """verifyVecTileCommonA2A3 (the same on a5): vec, row_major blayout."""
    if t.loc != "vec":
        cx.fail(op, f"expects {name} to be in the vec address space")
        return False
    if t.blayout != "row_major":
        cx.fail(op, f"expects {name} to use the row_major blayout")
        return False
    return True


def _high_precision(op: ir.Operation) -> bool:
    """Whether the op's `precisionType` is high_precision (trsqrt's
    RsqrtPrecision, trowexpanddiv's DivPrecision)."""
    return "precisionType" in op.attributes and "high_precision" in str(op.attributes["precisionType"])


def float_unary(element_message: str = "expects element type to be f16 or f32", tmp_bytes: int = 0, distinct_on_a3: bool = False) -> Check:
    """TExpOp, TLogOp, TSqrtOp, TRsqrtOp, TRecipOp::verify:
    verifyVecTileUnaryOp, the same valid shape, f16/f32 only (a trsqrt tmp
    of at least 32 bytes, required when precisionType is high_precision;
    trecip on a3 not in place)."""

    def check(cx: RuleContext, op: ir.Operation) -> None:
        ops = cx.operands(op)
        tiles = _tiles(ops, "src", "dst")
        if tiles is None:
            return
        src, dst = tiles
        if not (_vec_common(cx, op, src, "src") and _vec_common(cx, op, dst, "dst")):
            return
        if src.dtype != dst.dtype:
            return cx.fail(op, "expects src and dst to have the same element type")
        if src.dtype not in ("f16", "f32", "i16", "i32"):
            return cx.fail(op, "expects vec tile element types to be supported")
        if not _same_valid(src, dst):
            return cx.fail(op, "expects src and dst to have the same valid_shape")
        if src.dtype not in ("f16", "f32"):
            return cx.fail(op, element_message)
        tmp = ops.get("tmp")
        if tmp_bytes and tmp is None and _high_precision(op):
            return cx.fail(op, "expects tmp when precisionType is high_precision")
        if tmp_bytes and isinstance(tmp, TileBufType):
            if not _vec_common(cx, op, tmp, "tmp"):
                return
            if tmp.element_bytes * tmp.num_elements < tmp_bytes:
                return cx.fail(op, f"expects tmp to be at least {tmp_bytes} bytes when provided")
        if distinct_on_a3 and cx.ptoas_arch == "a3":
            layout = cx.rules.layout(op)
            if op.operands[layout.index("src")] == op.operands[layout.index("dst")]:
                cx.fail(op, f"expects A3 {op.name.removeprefix('pto.')} src and dst to use different storage")

    return check


def tneg(cx: RuleContext, op: ir.Operation) -> None:
    """TNegOp::verify: vec storage, the same element type; a2a3 the same
    valid shape and i16/i32/f16/f32, a5 the same valid columns and
    i8/i16/i32/f16/f32/bf16."""
    tiles = _tiles(cx.operands(op), "src", "dst")
    if tiles is None:
        return
    src, dst = tiles
    for t, name in ((src, "src"), (dst, "dst")):
        if t.loc != "vec":
            return cx.fail(op, f"expects {name} to be in the vec address space")
    if src.dtype != dst.dtype:
        return cx.fail(op, "expects src and dst to have the same element type")
    if cx.arch == "a5":
        if not _same_valid(src, dst, 1):
            return cx.fail(op, "expects src and dst to have the same valid_shape[1]")
        if src.dtype not in ("i8", "i16", "i32", "f16", "f32", "bf16"):
            cx.fail(op, "expects A5 tneg element type to be i8/i16/i32/f16/f32/bf16")
        return
    if not _same_valid(src, dst):
        return cx.fail(op, "expects src and dst to have the same valid_shape")
    if src.dtype not in ("i16", "i32", "f16", "f32"):
        cx.fail(op, "expects A2/A3 tneg element type to be i16/i32/f16/f32")


def vec_unary(allowed: tuple[str, ...], message: Callable[[str], str]) -> Check:
    """TAbsOp::verify (f16/f32) and TReluOp::verify (i32/f16/f32):
    verifyVecTileCommon, the same element type and valid shape."""

    def check(cx: RuleContext, op: ir.Operation) -> None:
        tiles = _tiles(cx.operands(op), "src", "dst")
        if tiles is None:
            return
        src, dst = tiles
        if not (_vec_common(cx, op, src, "src") and _vec_common(cx, op, dst, "dst")):
            return
        if src.dtype != dst.dtype:
            return cx.fail(op, "expects src and dst to have the same element type")
        if not _same_valid(src, dst):
            return cx.fail(op, "expects src and dst to have the same valid_shape")
        if src.dtype not in allowed:
            cx.fail(op, message(cx.arch))

    return check


def texpands(cx: RuleContext, op: ir.Operation) -> None:
    """TExpandsOp::verify: a vec or mat dst; a2a3 vec dsts row-major and
    i16/i32/f16/bf16/f32, a5 also i8."""
    ops = cx.operands(op)
    dst = ops.get("dst")
    if not isinstance(dst, TileBufType):
        return
    if dst.loc not in ("vec", "mat"):
        return cx.fail(op, "expects dst to be in the vec or mat address space")
    if cx.arch != "a5" and dst.loc == "vec" and dst.blayout != "row_major":
        return cx.fail(op, "expects vec dst to use row-major layout on A2/A3")
    if cx.arch == "a5":
        if dst.dtype not in ("i8", "i16", "i32", "f16", "bf16", "f32"):
            cx.fail(op, "expects A5 texpands dst element type to be i8/i16/i32/f16/bf16/f32")
    elif dst.dtype not in ("i16", "i32", "f16", "bf16", "f32"):
        cx.fail(op, "expects A2/A3 texpands dst element type to be i16/i32/f16/bf16/f32")


def row_reduction(cx: RuleContext, op: ir.Operation) -> None:
    """TRowSumOp/TRowMaxOp/TRowMinOp::verify: verifyTRowReduction{NoTmp,
    WithTmp}Common: src vec, row_major and none_box; dst vec and none_box,
    a col_major dst a column (shape[1] == 1); the same element type (a2a3:
    tmp's too); the valid regions (verifyRowReductionValidRegion, a 0x0 dst
    being PyPTO's no-op marker); i16/i32/f16/f32; an a2a3 tmp of 32 bytes."""
    ops = cx.operands(op)
    tiles = _tiles(ops, "src", "dst")
    if tiles is None:
        return
    src, dst = tiles
    if src.loc != "vec":
        return cx.fail(op, "expects src to be in the vec address space")
    if src.blayout != "row_major":
        return cx.fail(op, "expects src to use the row_major blayout")
    if src.slayout != "none_box":
        return cx.fail(op, "expects src to use the none_box slayout")
    if dst.loc != "vec":
        return cx.fail(op, "expects dst to be in the vec address space")
    if dst.slayout != "none_box":
        return cx.fail(op, "expects dst to use the none_box slayout")
    if dst.blayout == "col_major" and dst.cols != 1:
        return cx.fail(op, "expects DN-style dst to have shape[1] == 1")
    if src.dtype != dst.dtype:
        return cx.fail(op, "expects src and dst to have the same element type")
    tmp = ops.get("tmp")
    if isinstance(tmp, TileBufType):
        if tmp.loc != "vec":
            return cx.fail(op, "expects tmp to be in the vec address space")
        if cx.arch != "a5" and tmp.dtype != src.dtype:
            return cx.fail(op, "expects A2/A3 tmp to have the same element type as src and dst")
    if dst.valid != (0, 0):  # 0x0: PyPTO's no-op marker
        if src.valid_row == 0:
            return cx.fail(op, "expects src valid_shape[0] to be non-zero")
        if src.valid_col == 0:
            return cx.fail(op, "expects src valid_shape[1] to be non-zero")
        if not _same_valid(src, dst, 0):
            return cx.fail(op, "expects src and dst to have the same valid_shape[0]")
        if dst.valid_col not in (DYNAMIC, 1):
            return cx.fail(op, "expects dst valid_shape[1] to be 1")
    if src.dtype not in ("i16", "i32", "f16", "f32"):
        return cx.fail(op, "expects element type to be i16/i32/f16/f32")
    if isinstance(tmp, TileBufType) and cx.arch != "a5" and tmp.element_bytes * tmp.num_elements < 32:
        cx.fail(op, f"expects tmp capacity to be at least 32 bytes, but got {tmp.element_bytes * tmp.num_elements} bytes")


def trowexpand(cx: RuleContext, op: ir.Operation) -> None:
    """TRowExpandOp::verify: src vec and none_box, dst an ND vec tile, the
    same element type, the same valid rows, non-empty regions (a 0x0 dst is
    the no-op marker)."""
    tiles = _tiles(cx.operands(op), "src", "dst")
    if tiles is None:
        return
    src, dst = tiles
    if dst.loc != "vec":
        return cx.fail(op, "expects dst to be in the vec address space")
    if dst.blayout != "row_major":
        return cx.fail(op, "expects dst to use the row_major blayout")
    if dst.slayout != "none_box":
        return cx.fail(op, "expects dst to use the none_box slayout")
    if src.loc != "vec":
        return cx.fail(op, "expects src to be in the vec address space")
    if src.slayout != "none_box":
        return cx.fail(op, "expects src to use the none_box slayout")
    if src.dtype != dst.dtype:
        return cx.fail(op, "expects src and dst to have the same element type")
    if dst.valid == (0, 0):
        return
    if not _same_valid(src, dst, 0):
        return cx.fail(op, "expects src and dst to have the same valid_shape[0]")
    for t, name in ((src, "src"), (dst, "dst")):
        for axis in (0, 1):
            if t.valid[axis] == 0:
                return cx.fail(op, f"expects {name} valid_shape[{axis}] to be non-zero")


def _compatible(full: TileBufType, dst: TileBufType) -> bool:
    return _same_valid(full, dst)


def row_expand_binary(name: str, div: bool = False, shapes: bool = False) -> Check:
    """TRowExpand{Add,Sub,Mul,Div}Op::verify: verifyTRowExpandBinaryCore,
    the element types of the arch, and on a2a3 a tmp only in mode 1 and of
    the size verifyTRowExpandImplicitTmpContract asks; `shapes` (trowexpandadd
    only): src0 is the full operand, row-major and of dst's valid shape, and
    the per-row src1 has dst's valid rows and one column (mode 1, col_major)
    or a 32-byte block (mode 2, row_major)."""

    def check(cx: RuleContext, op: ir.Operation) -> None:
        ops = cx.operands(op)
        tiles = _tiles(ops, "src0", "src1", "dst")
        if tiles is None:
            return
        src0, src1, dst = tiles
        tmp = ops.get("tmp")
        if src0.dtype != dst.dtype:
            return cx.fail(op, "expects src0 and dst to have the same element type")
        if src0.dtype != src1.dtype:
            return cx.fail(op, "expects src0 and src1 to have the same element type")
        if dst.blayout != "row_major":
            return cx.fail(op, "expects dst to use row-major layout")
        elem = src0.dtype
        if div:
            ok = elem in ("f16", "f32") or (cx.arch == "a5" and elem in ("i8", "i16", "i32"))
            if not ok:
                return cx.fail(
                    op, "expects A5 trowexpanddiv element type to be i8/i16/i32/f16/f32" if cx.arch == "a5" else "expects element type to be f16 or f32"
                )
            if tmp is None and _high_precision(op):
                return cx.fail(op, "expects tmp when precisionType is high_precision")
        else:
            if shapes and not _same_valid(src0, dst):
                return cx.fail(op, "expects src0 and dst to have the same valid_shape")
            if shapes and src0.blayout != "row_major":
                return cx.fail(op, "expects src0 to use row-major layout")
            ok = elem in ("f16", "f32", "i16", "i32") or (cx.arch == "a5" and elem == "i8")
            if not ok:
                arch, types = ("A5", "i8/i16/i32/f16/f32") if cx.arch == "a5" else ("A2/A3", "i16/i32/f16/f32")
                return cx.fail(op, f"expects {arch} {name} element type to be {types}")
        if shapes:
            if not _same_valid(src1, dst, 0):
                return cx.fail(op, "expects src1 valid_shape[0] to equal dst valid_shape[0]")
            block = 32 // src0.element_bytes if src0.element_bytes else 0
            if src1.blayout == "row_major":
                if src1.valid_col not in (DYNAMIC, block):
                    return cx.fail(op, "expects row-major src1 valid_shape[1] to be 32/sizeof(dtype)")
            elif src1.valid_col not in (DYNAMIC, 1):
                return cx.fail(op, "expects non-row-major src1 valid_shape[1] to be 1")
        if isinstance(tmp, TileBufType) and cx.arch != "a5":
            per_row = src1 if _compatible(src0, dst) else src0 if _compatible(src1, dst) else None
            if per_row is None or per_row.blayout != "col_major" or per_row.valid_col not in (DYNAMIC, 1):
                return cx.fail(op, "expects A2/A3 tmp-form trowexpand to use mode 1 (ColMajor per-row scalar expanded operand)")
            if tmp.loc != "vec":
                return cx.fail(op, "expects tmp to be in the vec address space")
            if tmp.dtype != dst.dtype:
                return cx.fail(op, "expects tmp and dst to have the same element type")
            rows = dst.valid_row
            need = 8192 if rows == DYNAMIC or rows < 0 else (-(-rows // 8) * 256 if rows < 256 else 30 * 256)
            have = tmp.element_bytes * tmp.num_elements
            if have < need:
                cx.fail(op, f"expects A2/A3 trowexpand tmp capacity to be at least {need} bytes, but got {have} bytes")

    return check


def col_expand_binary(name: str, integers: bool | str = True) -> Check:
    """verifyTColExpandBinaryLikeOp (tcolexpand{add,sub,mul,max,min,div,
    expdif}): f16 and f32, with `integers` also i16 and i32 (and i8 on a5;
    `integers="a5"`: integers on a5 only, as TColExpandDivOp::verify asks);
    src0 of dst's shape and valid shape; all row-major; src1's valid columns
    dst's."""

    def check(cx: RuleContext, op: ir.Operation) -> None:
        tiles = _tiles(cx.operands(op), "src0", "src1", "dst")
        if tiles is None:
            return
        src0, src1, dst = tiles
        with_integers = integers is True or (integers == "a5" and cx.arch == "a5")
        supported = ("f16", "f32") + (("i16", "i32") + ("i8",) * (cx.arch == "a5") if with_integers else ())
        if any(t.dtype not in supported for t in tiles):
            if not with_integers:
                return cx.fail(op, f"expects {name} element type to be f16 or f32")
            if cx.arch == "a5":
                return cx.fail(op, f"expects A5 {name} element type to be i8/i16/i32/f16/f32")
            return cx.fail(op, f"expects A2/A3 {name} element type to be i16/i32/f16/f32")
        if src0.shape != dst.shape:
            return cx.fail(op, "expects src0/dst to have same shape")
        if not _same_valid(src0, dst):
            return cx.fail(op, "expects src0 and dst to have the same valid_shape")
        for t, role in ((src0, "src0"), (src1, "src1"), (dst, "dst")):
            if t.blayout != "row_major":
                return cx.fail(op, f"expects {role} to use row-major layout")
        if not _same_valid(src1, dst, 1):
            cx.fail(op, "expects src1 valid_shape[1] to equal dst valid_shape[1]")

    return check


def tcolsum(cx: RuleContext, op: ir.Operation) -> None:
    """TColSumOp::verify: with a tmp and isBinary, a static src valid shape;
    the element types of the arch."""
    ops = cx.operands(op)
    tiles = _tiles(ops, "src", "dst")
    if tiles is None:
        return
    src, dst = tiles
    # (ptoas also refuses a tmp without isBinary, but isBinary = false, its
    # default, reads the same as no isBinary here: not checked)
    has_tmp = isinstance(ops.get("tmp"), TileBufType)
    binary = "isBinary" in op.attributes and ir.BoolAttr(op.attributes["isBinary"]).value
    if has_tmp and binary and DYNAMIC in src.valid:
        return cx.fail(op, "expects static src valid_shape and element size to verify tcolsum tmp")
    if src.dtype != dst.dtype:
        return cx.fail(op, "expects src/dst element types to match")
    if cx.arch != "a5" and src.dtype not in ("f16", "f32", "i16", "i32"):
        cx.fail(op, "expects A2/A3 tcolsum element type to be f16/f32/i16/i32")


_MASK_TIMES = {"P1111": 1, "P0101": 2, "P1010": 2}  # others: 4


def tgather(cx: RuleContext, op: ir.Operation) -> None:
    """TGatherOp::verify: which operands each form takes; the mask form's
    row-major vec tiles of one element size, dst's valid columns all its
    columns, an axis, and valid regions in the pattern's ratio (one kept
    element in 1, 2 or 4) along it."""
    ops = cx.operands(op)
    has = {name for name in ("cdst", "indices", "tmp", "kValue") if name in ops}
    if "maskPattern" not in op.attributes:
        if "axis" in op.attributes:
            return cx.fail(op, "axis attribute must not be provided without maskPattern")
        if has & {"cdst", "kValue"}:
            if not {"cdst", "kValue", "tmp"} <= has:
                return cx.fail(op, "compare-form tgather expects dst, cdst, kValue, and tmp")
            if "indices" in has:
                cx.fail(op, "compare-form tgather does not take indices")
            return
        if not {"indices", "tmp"} <= has:
            cx.fail(op, "index-form tgather expects both indices and tmp")
        return
    if has:
        return cx.fail(op, "mask-pattern tgather only allows src and dst operands")
    tiles = _tiles(ops, "src", "dst")
    if tiles is None:
        return
    src, dst = tiles
    if src.blayout != "row_major" or dst.blayout != "row_major":
        return cx.fail(op, "expects src and dst to use row-major layout")
    if src.loc != "vec" or dst.loc != "vec":
        return cx.fail(op, "expects src and dst to be in the vec address space")
    if src.element_bytes != dst.element_bytes:
        return cx.fail(op, "expects src and dst element sizes to match")
    if dst.valid_col not in (DYNAMIC, dst.cols):
        return cx.fail(op, "expects dst valid_shape[1] to equal dst cols")
    if "axis" not in op.attributes:
        return cx.fail(op, "expects mask-pattern tgather to provide axis attribute")
    axis = ir.StringAttr(op.attributes["axis"]).value
    pattern = str(op.attributes["maskPattern"])
    times = next((t for p, t in _MASK_TIMES.items() if p in pattern), 4)
    along, across = (1, 0) if axis == "row" else (0, 1)
    if axis not in ("row", "col"):
        return cx.fail(op, 'Invalid axis value, expected "row" or "col"')
    s_across, d_across, s_along, d_along = src.valid[across], dst.valid[across], src.valid[along], dst.valid[along]
    if DYNAMIC not in (s_across, d_across) and s_across != d_across:
        what = "rows" if axis == "row" else "cols"
        return cx.fail(op, f"expects dst valid {what} to equal src valid {what} for {axis} direction")
    if DYNAMIC not in (s_along, d_along) and s_along != d_along * times:
        what = "cols" if axis == "row" else "rows"
        cx.fail(op, f"expects src valid {what} to equal dst valid {what} times the mask expansion factor for {axis} direction")


def matmul_a5_layouts(cx: RuleContext, op: ir.Operation) -> None:
    """verifyMatTileOperandsA5: a5's cube tiles are lhs col_major/row_major,
    rhs row_major/col_major, dst col_major/row_major (blayout/slayout)."""
    if cx.arch != "a5":
        return
    tiles = _tiles(cx.operands(op), "lhs", "rhs", "dst")
    if tiles is None:
        return
    lhs, rhs, dst = tiles
    for t, name, blayout, slayout in (
        (lhs, "lhs", "col_major", None),
        (rhs, "rhs", "row_major", None),
        (dst, "dst", "col_major", None),
        (lhs, "lhs", None, "row_major"),
        (rhs, "rhs", None, "col_major"),
        (dst, "dst", None, "row_major"),
    ):
        if blayout and t.blayout != blayout:
            return cx.fail(op, f"expects {name} to use the {blayout} blayout on A5")
        if slayout and t.slayout != slayout:
            return cx.fail(op, f"expects {name} to use the {slayout} slayout on A5")


def treshape(cx: RuleContext, op: ir.Operation) -> None:
    """TReshapeOp::verify: the same loc, the same total bytes, both boxed or
    neither."""
    src, result = tile_type(op.operands[0].type), tile_type(op.results[0].type)
    if src is None or result is None:
        return
    if src.loc != result.loc:
        return cx.fail(op, "expects src and dst to use the same loc")
    if src.element_bytes * src.num_elements != result.element_bytes * result.num_elements:
        return cx.fail(op, "expects src and dst to have the same total byte size")
    if (src.slayout != "none_box") != (result.slayout != "none_box"):
        cx.fail(op, "cannot reshape between boxed and non-boxed tile layouts")


def _integer_bits(dtype: str) -> int:
    """The width of an integer element type of any signedness (i8, si8,
    ui8: ptoas's isInteger(8)), else 0."""
    digits = dtype.lstrip("isu")
    return int(digits) if dtype[:1] in "isu" and digits.isdigit() and dtype != digits else 0


def _storage_bytes(dtype: str) -> int:
    return DTYPE_BYTES.get(dtype, 0)


_TRANSFER_TYPES = ("f16", "bf16", "f32")


def _plain_transfer_type(dtype: str) -> bool:
    """i8/i16/i32/i64 (any signedness), f16, bf16, f32."""
    return _integer_bits(dtype) in (8, 16, 32, 64) or dtype in _TRANSFER_TYPES


def tload(cx: RuleContext, op: ir.Operation) -> None:
    """TLoadOp::verify: a partition view into a tile; on a2a3 into vec or
    mat only, of i8..i64/f16/bf16/f32 (no low-precision type); on a5 of the
    transfer types (low precision too), an i64 tile padded with null or
    zero only, a vec tile ND, DN or NZ; the same element size on both."""
    ops = cx.operands(op)
    dst = ops.get("dst")
    src = pto_type(op.operands[cx.rules.layout(op).index("src")].type)
    if not isinstance(dst, TileBufType) or not isinstance(src, ViewType):
        return
    if cx.arch != "a5":
        if dst.dtype in LOW_PRECISION:
            return cx.fail(op, f"dst: dtype '{dst.dtype}' is not supported by this op yet")
        if src.dtype in LOW_PRECISION:
            return cx.fail(op, "expects A2/A3 tload low-precision element types to be unsupported")
        if not _plain_transfer_type(dst.dtype):
            return cx.fail(op, "expects A2/A3 tload dst element type to be i8/i16/i32/i64/u64/f16/bf16/f32")
        if dst.loc not in ("vec", "mat"):
            return cx.fail(op, "expects A2/A3 tload dst to use loc=vec or loc=mat")
        if _storage_bytes(src.dtype) != _storage_bytes(dst.dtype):
            cx.fail(op, "expects src and dst element types to have the same bitwidth")
        return
    if _storage_bytes(src.dtype) != _storage_bytes(dst.dtype):
        return cx.fail(op, "expects src and dst element types to have the same element size")
    if _storage_bytes(dst.dtype) not in (1, 2, 4, 8):
        return cx.fail(op, "expects A5 tload dst element size to be 1, 2, 4, or 8 bytes")
    for name, dtype in (("src", src.dtype), ("dst", dst.dtype)):
        if not (_plain_transfer_type(dtype) or dtype in LOW_PRECISION):
            return cx.fail(op, f"expects A5 tload {name} element type to be i8/i16/i32/i64/f16/bf16/f32/f8/hif8/fp4")
    if _integer_bits(dst.dtype) == 64 and dst.pad not in (0, 1):
        return cx.fail(op, "expects A5 i64/u64 tload dst pad to be null or zero")
    if dst.loc == "vec" and (dst.blayout, dst.slayout) not in (("row_major", "none_box"), ("col_major", "none_box"), ("col_major", "row_major")):
        cx.fail(op, "expects A5 tload vec dst layout to be ND, DN, or NZ")


_NO_RELU = "#pto<relu_pre_mode no_relu>"


def tmov(cx: RuleContext, op: ir.Operation) -> None:
    """TMovOp::verify for its forms without a third tile or with an fp
    (scaling) one: matching shapes (a mat source always, on a2a3 any), the
    pairs of spaces the target moves between (mat to left, right, bias or
    scaling; vec to vec; acc to mat or vec; on a5 also vec to mat), the
    options only acc sources take, and on a2a3 an acc-to-mat destination
    fractal of 512. (The a5 X-to-ZZ form, with a non-scaling third tile, is
    not checked here.)"""
    ops = cx.operands(op)
    tiles = _tiles(ops, "src", "dst")
    if tiles is None:
        return
    src, dst = tiles
    fp = ops.get("fp")
    if isinstance(fp, TileBufType) and fp.loc != "scaling":
        if cx.arch != "a5":
            cx.fail(op, "X-to-ZZ tmov is only supported on A5")
        return
    if "grpAxis" in op.attributes:
        return cx.fail(op, "expects grpAxis only on the X-to-ZZ form with a non-scaling third tile")
    if cx.arch != "a5":
        for name, t in (("src", src), ("dst", dst), ("fp", fp)):
            if isinstance(t, TileBufType) and t.dtype in LOW_PRECISION:
                return cx.fail(op, f"{name}: dtype '{t.dtype}' is not supported by this op yet")
    has_fp, has_quant = isinstance(fp, TileBufType), "preQuantScalar" in ops
    if has_fp and has_quant:
        return cx.fail(op, "expects fp and preQuantScalar forms to be mutually exclusive")
    if src.loc == "mat" and src.shape != dst.shape:
        return cx.fail(op, "expects mat-source tmov to use matching src/dst shapes")
    if cx.arch != "a5" and src.loc != "mat" and src.shape != dst.shape:
        return cx.fail(op, "expects A2/A3 non-mat tmov to use matching src/dst shapes")
    pair = (src.loc, dst.loc)
    acc_to_mat, acc_to_vec = pair == ("acc", "mat"), pair == ("acc", "vec")
    ok = (src.loc == "mat" and dst.loc in ("left", "right", "bias", "scaling")) or pair == ("vec", "vec") or acc_to_mat or acc_to_vec
    if not ok and not (cx.arch == "a5" and pair == ("vec", "mat")):
        return cx.fail(op, "expects a supported tmov address-space pair for this target")
    if "accToVecMode" in op.attributes and not acc_to_vec:
        return cx.fail(op, "expects accToVecMode to be used only for acc-to-vec tmov")
    relu = "reluPreMode" in op.attributes and str(op.attributes["reluPreMode"]) != _NO_RELU
    if relu and not (acc_to_mat or acc_to_vec):
        return cx.fail(op, "expects reluPreMode form to use loc=acc src")
    if has_quant and not (acc_to_mat or acc_to_vec):
        return cx.fail(op, "expects preQuantScalar form to use loc=acc src")
    if has_fp:
        if not (src.dtype == "f32" or _integer_bits(src.dtype) == 32):
            return cx.fail(op, "expects fp form src to have element type f32, i32")
        if not (acc_to_mat or acc_to_vec):
            return cx.fail(op, "expects fp form to use loc=acc src")
    if (has_fp or has_quant) and "accToVecMode" in op.attributes and "dual" in str(op.attributes["accToVecMode"]).lower():
        return cx.fail(op, "expects fp/preQuantScalar acc-to-vec forms to use single-mode accToVecMode")
    if src.loc == "acc" and (has_fp or relu) and (src.blayout, src.slayout) != ("col_major", "row_major"):
        return cx.fail(op, "expects acc-source fp/relu tmov src to use blayout=col_major and slayout=row_major")
    if has_fp and cx.arch != "a5" and acc_to_mat and (dst.blayout, dst.slayout) != ("col_major", "row_major"):
        return cx.fail(op, "expects fp tmov dst to use blayout=col_major and slayout=row_major")
    if acc_to_mat and cx.arch != "a5" and dst.fractal != 512:
        cx.fail(op, "expects A2/A3 acc-to-mat tmov destination fractal to be 512")


def tconcat(cx: RuleContext, op: ir.Operation) -> None:
    """TConcatOp::verify: one element type, dst's valid rows those of both
    sources, both sources' valid columns within dst's columns, vec tiles
    (row-major on a5) of i8/i16/i32/f16/f32/bf16."""
    tiles = _tiles(cx.operands(op), "src0", "src1", "dst")
    if tiles is None:
        return
    src0, src1, dst = tiles
    for name, t in zip(("src0", "src1", "dst"), tiles):
        if t.dtype in LOW_PRECISION:
            return cx.fail(op, f"{name}: dtype '{t.dtype}' is not supported by this op yet")
    if not src0.dtype == src1.dtype == dst.dtype:
        return cx.fail(op, "expects src0, src1, and dst to have the same element type")
    for name, t in (("src0", src0), ("src1", src1)):
        if not _same_valid(t, dst, 0):
            return cx.fail(op, f"expects {name} valid row to match dst valid row")
    if DYNAMIC not in (src0.valid_col, src1.valid_col) and src0.valid_col + src1.valid_col > dst.cols:
        return cx.fail(op, "expects src0.valid_col + src1.valid_col <= dst.cols")
    for name, t in zip(("src0", "src1", "dst"), tiles):
        if t.loc != "vec":
            return cx.fail(op, f"expects {name} to use loc=vec")
    if cx.arch == "a5" and any(t.blayout != "row_major" for t in tiles):
        return cx.fail(op, "expects src0, src1, and dst to use row-major layout")
    if not (dst.dtype in ("f16", "f32", "bf16") or _integer_bits(dst.dtype) in (8, 16, 32)):
        cx.fail(op, "expects element type to be i8, i16, i32, f16, f32, or bf16")


_FP4_PACKED = ("!pto.f4E1M2x2", "!pto.f4E2M1x2")


def _logical_extent(t: TileBufType, valid: bool) -> tuple[int, int]:
    """getLogicalTileExtentVec: the shape (or valid shape), with the packed
    dimension of a two-per-byte fp4 type counted in elements."""
    dims = list(t.valid if valid else t.shape)
    if t.dtype in _FP4_PACKED:
        packed = 0 if t.blayout == "col_major" else 1
        if dims[packed] != DYNAMIC:
            dims[packed] *= 2
    return (dims[0], dims[1])


def _tcvt_tmp_bytes(src: TileBufType, dst: TileBufType) -> int:
    """The scratch a2a3's non-saturating f32->i16, f16->i16 or f16->i8 TCVT
    needs (TCvtOp::verify, after pto-isa's npu/a2a3/TCvt.hpp)."""
    rows, cols = dst.valid
    if src.dtype == "f32" and rows > 0 and cols > 0:
        head = 4 * 64 * min(cols // 64, 255)
        remainder = cols % 64
        tail = 0 if remainder == 0 else 32 * ((min(rows, 255) - 1) * (src.cols // 8) + -(-remainder // 8))
        return max(head, tail)
    if src.dtype == "f16" and cols > 0:
        width = min(cols, 64)
        to_i16 = 32 * -(-width // 8)
        return max(to_i16, 128 + 32 * -(-width // 16)) if _integer_bits(dst.dtype) == 8 else to_i16
    return 0


def tcvt(cx: RuleContext, op: ir.Operation) -> None:
    """TCvtOp::verify: src and dst of the same shape and valid shape; a tmp
    a vec tile; on a2a3 no low-precision type, and a tmp large enough for
    the conversions that use it; on a5 the low-precision pairs its TCVT has."""
    ops = cx.operands(op)
    tiles = _tiles(ops, "src", "dst")
    if tiles is None:
        return
    src, dst = tiles
    for valid, message in ((False, "compatible shapes"), (True, "the same valid_shape")):
        a, b = _logical_extent(src, valid), _logical_extent(dst, valid)
        if any(x != DYNAMIC and y != DYNAMIC and x != y for x, y in zip(a, b)):
            return cx.fail(op, f"expects src and dst to have {message}")
    tmp = ops.get("tmp")
    if cx.arch == "a5":
        if (src.dtype in LOW_PRECISION or dst.dtype in LOW_PRECISION) and not _a5_low_precision_pair(src.dtype, dst.dtype):
            return cx.fail(op, "expects A5 tcvt low-precision type pairs to match PTO-ISA support")
        if isinstance(tmp, TileBufType):
            _vec_common(cx, op, tmp, "tmp")
        return
    if src.dtype in LOW_PRECISION or dst.dtype in LOW_PRECISION:
        return cx.fail(op, "expects A2/A3 tcvt low-precision element types to be unsupported")
    if not isinstance(tmp, TileBufType) or not _vec_common(cx, op, tmp, "tmp"):
        return
    saturating = "sat_mode" in op.attributes and "OFF" not in str(op.attributes["sat_mode"])
    needs_tmp = not saturating and (
        (src.dtype == "f32" and _integer_bits(dst.dtype) == 16) or (src.dtype == "f16" and _integer_bits(dst.dtype) in (8, 16))
    )
    if not needs_tmp:
        return
    if DYNAMIC in dst.valid:
        return cx.fail(op, "expects static src shape and dst valid_shape to verify tcvt tmp")
    required = _tcvt_tmp_bytes(src, dst)
    if tmp.element_bytes * tmp.num_elements < required:
        cx.fail(op, f"expects tcvt tmp capacity to be at least {required} bytes")


def _a5_low_precision_pair(s: str, d: str) -> bool:
    """isA5LowPrecisionTCvtPair: f32 to f8/hif8, f16 to hif8, bf16 to fp4
    and back, f8/hif8 to f32."""
    f8 = {t for t in LOW_PRECISION if t.startswith("f8")}
    if s == "f32":
        return d in f8 or d == "!pto.hif8"
    if s == "f16":
        return d == "!pto.hif8"
    if s == "bf16":
        return d in _FP4_PACKED
    if s in _FP4_PACKED:
        return d == "bf16"
    if s in f8 or s == "!pto.hif8":
        return d == "f32"
    return False


def subview(cx: RuleContext, op: ir.Operation) -> None:
    """SubViewOp::verify: a result of the sizes, element type, space and
    layout of the source; valid operands both or neither, constants within
    the sizes; the result's valid shape the constant valid operand (at most
    the size), `?` for one that is not constant, any static value within
    the sizes without one."""
    src, result = tile_type(op.operands[0].type), tile_type(op.results[0].type)
    if src is None or result is None or "sizes" not in op.attributes:
        return
    sizes = [ir.IntegerAttr(a).value for a in ir.ArrayAttr(op.attributes["sizes"])]
    if len(sizes) != 2:
        return
    if result.shape != tuple(sizes):
        return cx.fail(op, "expects result shape to match subview sizes")
    if result.dtype != src.dtype:
        return cx.fail(op, "expects result element type to match source")
    if result.loc != src.loc:
        return cx.fail(op, "expects result address space to match source")
    if (result.blayout, result.slayout, result.fractal, result.pad, result.compact) != (src.blayout, src.slayout, src.fractal, src.pad, src.compact):
        return cx.fail(op, "expects result tile config to match source")
    layout = cx.rules.layout(op)
    valid = [layout.index(n) for n in ("valid_row", "valid_col")]
    if (valid[0] is None) != (valid[1] is None):
        return cx.fail(op, "subview expects valid_row and valid_col to be both present or both absent")
    for axis, (index, size) in enumerate(zip(valid, sizes)):
        name = ("valid_row", "valid_col")[axis]
        have = result.valid[axis]
        if index is None:
            if have == DYNAMIC or not 0 <= have <= size:
                return cx.fail(op, f"expects result valid_shape[{axis}] to match inferred/explicit {name}")
            continue
        value = cx.rules.constants(op.operands[index])
        if value is not None and value < 0:
            return cx.fail(op, f"{name} must be non-negative when constant")
        if value is not None and value > size:
            return cx.fail(op, f"{name} must be <= subview {('row', 'col')[axis]} size")
        if have != (DYNAMIC if value is None else min(value, size)):
            return cx.fail(op, f"expects result valid_shape[{axis}] to match inferred/explicit {name}")


def _a5_extract_type(dtype: str) -> bool:
    return dtype in ("f16", "bf16", "f32") or _integer_bits(dtype) == 8 or dtype.startswith("f8") or dtype in ("!pto.hif8", *_FP4_PACKED)


_ACC_CAST = {"a2a3": {"f32": ("f16", "bf16")}, "a5": {"f32": ("f16", "bf16", "f32"), "i32": ("i32",)}}
_ACC_QUANT = {"a2a3": {"f32": ("i8",), "i32": ("i8", "f16", "i16")}, "a5": {"f32": ("i8", "f16", "bf16", "f32", "f8"), "i32": ("i8", "f16", "bf16")}}


def _acc_pair(table: dict, src: str, dst: str) -> bool:
    """Whether acc's `src` elements convert to `dst` ones by `table`
    (integers of any signedness, any f8 type)."""

    def matches(t: str) -> bool:
        if t in ("i8", "i16", "i32"):
            return _integer_bits(dst) == int(t[1:])
        return dst.startswith("f8") if t == "f8" else dst == t

    return any(matches(t) for t in table.get("i32" if _integer_bits(src) == 32 else src, ()))


def textract(cx: RuleContext, op: ir.Operation) -> None:
    """TExtractOp::verify, but for its static bounds: the element types of
    the arch (the same on both sides unless from acc), the options only acc
    sources take, the pairs of spaces and their layouts, acc's conversions."""
    ops = cx.operands(op)
    tiles = _tiles(ops, "src", "dst")
    if tiles is None:
        return
    src, dst = tiles
    fp = ops.get("fp")
    has_fp, has_quant = isinstance(fp, TileBufType), "preQuantScalar" in ops
    relu = "reluPreMode" in op.attributes and str(op.attributes["reluPreMode"]) != _NO_RELU
    acc_to_vec_mode = "accToVecMode" in op.attributes
    a5 = cx.arch == "a5"
    if not a5:
        for name, t in (("src", src), ("dst", dst), ("fp", fp)):
            if isinstance(t, TileBufType) and t.dtype in LOW_PRECISION:
                return cx.fail(op, f"{name}: dtype '{t.dtype}' is not supported by this op yet")
    if has_fp and fp.loc != "scaling":
        return cx.fail(op, "expects fp to use loc=scaling")
    if src.loc != "acc" and src.dtype != dst.dtype:
        return cx.fail(op, "expects src and dst to have the same element type")
    if a5 and not _a5_extract_type(dst.dtype):
        return cx.fail(op, "expects A5 textract element type to be an fp8/f16/bf16/f32 or int8 family type")
    if not a5 and not (dst.dtype in ("f16", "bf16", "f32") or _integer_bits(dst.dtype) == 8 or (has_fp and _integer_bits(dst.dtype) == 16)):
        return cx.fail(op, "expects A2/A3 textract element type to be i8/f16/bf16/f32")
    if has_fp and has_quant:
        return cx.fail(op, "expects fp and preQuantScalar to be mutually exclusive")
    for present, form in ((has_fp, "fp"), (has_quant, "preQuantScalar"), (relu, "reluPreMode")):
        if present and src.loc != "acc":
            return cx.fail(op, f"expects {form} form to use loc=acc src")
    pair = (src.loc, dst.loc)
    if acc_to_vec_mode and (not a5 or pair != ("acc", "vec")):
        return cx.fail(op, "expects accToVecMode only on A5 acc->vec textract forms")
    nd = lambda t: (t.blayout, t.slayout) == ("row_major", "none_box")  # noqa: E731
    nz = lambda t: (t.blayout, t.slayout) == ("col_major", "row_major")  # noqa: E731
    if not a5:
        if pair == ("vec", "vec"):
            if has_quant or relu:
                cx.fail(op, "expects vec->vec textract to use the base form without preQuantScalar or reluPreMode")
            return
        if src.loc == "acc":
            if dst.loc != "mat":
                return cx.fail(op, "expects A2/A3 acc-source textract dst to use loc=mat")
            if not nz(src):
                return cx.fail(op, "expects A2/A3 acc-source textract src to use blayout=col_major and slayout=row_major")
            if not nz(dst):
                return cx.fail(op, "expects A2/A3 acc-source textract dst to use blayout=col_major and slayout=row_major")
            if dst.fractal != 512:
                return cx.fail(op, "expects A2/A3 acc-source textract dst fractal size to be 512")
            if (has_fp or has_quant) and not _acc_pair(_ACC_QUANT["a2a3"], src.dtype, dst.dtype):
                return cx.fail(op, "expects A2/A3 acc preQuantScalar textract element types to be (src=f32,dst=i8) or (src=i32,dst=i8/f16/i16)")
            if not (has_fp or has_quant) and not _acc_pair(_ACC_CAST["a2a3"], src.dtype, dst.dtype):
                return cx.fail(op, "expects A2/A3 acc textract element types to be src=f32, dst=f16/bf16")
            return
        if src.loc != "mat":
            return cx.fail(op, "expects A2/A3 textract src to use loc=mat, loc=acc, or loc=vec")
        if dst.loc not in ("left", "right"):
            return cx.fail(op, "expects A2/A3 textract dst to use loc=left, loc=right, loc=mat, or loc=vec")
        if not (src.blayout == "row_major" or src.slayout == "row_major"):
            return cx.fail(op, "expects A2/A3 textract src to use a supported mat blayout/slayout combination")
        if dst.loc == "left" and (dst.blayout, dst.slayout) != ("row_major", "row_major"):
            return cx.fail(op, "expects A2/A3 left dst to use row_major blayout and row_major slayout")
        if dst.loc == "right" and (dst.blayout, dst.slayout) != ("row_major", "col_major"):
            cx.fail(op, "expects A2/A3 right dst to use row_major blayout and col_major slayout")
        return
    ok = (src.loc == "mat" and dst.loc in ("left", "right", "scaling")) or (src.loc in ("vec", "acc") and dst.loc in ("mat", "vec"))
    if not ok:
        return cx.fail(op, "expects A5 textract to use a supported src/dst loc pair")
    if src.loc == "mat":
        if has_quant or relu:
            return cx.fail(op, "expects mat-source textract to use the base form without preQuantScalar or reluPreMode")
        zn = (src.blayout, src.slayout) == ("row_major", "col_major")
        if not (zn or (src.blayout != "row_major" and src.slayout == "row_major") or (dst.loc == "left" and src.blayout == "row_major")):
            return cx.fail(op, "expects A5 textract src to use a supported mat blayout/slayout combination")
        if dst.loc == "left" and not nz(dst):
            return cx.fail(op, "expects A5 left dst to use col_major blayout and row_major slayout")
        if dst.loc == "right" and (dst.blayout, dst.slayout) != ("row_major", "col_major"):
            cx.fail(op, "expects A5 right dst to use row_major blayout and col_major slayout")
        return
    if pair == ("vec", "vec"):
        if has_quant or relu:
            return cx.fail(op, "expects vec-source textract to use the base form without preQuantScalar or reluPreMode")
        if not (nd(src) and nd(dst)):
            cx.fail(op, "expects A5 vec->vec textract src/dst to use ND layout (blayout=row_major, slayout=none_box)")
        return
    if src.loc == "acc":
        if not nz(src):
            return cx.fail(op, "expects A5 acc-source textract src to use blayout=col_major and slayout=row_major")
        if dst.loc == "mat" and not nz(dst):
            return cx.fail(op, "expects A5 acc-source textract dst to use blayout=col_major and slayout=row_major")
        if dst.loc == "vec" and not nd(dst):
            return cx.fail(op, "expects A5 acc->vec textract dst to use ND layout (blayout=row_major, slayout=none_box)")
        if (has_fp or has_quant) and not _acc_pair(_ACC_QUANT["a5"], src.dtype, dst.dtype):
            return cx.fail(
                op, "expects A5 acc preQuantScalar textract element types to be (src=f32,dst=i8/fp8/f16/bf16/f32) or (src=i32,dst=i8/f16/bf16)"
            )
        if not (has_fp or has_quant) and not _acc_pair(_ACC_CAST["a5"], src.dtype, dst.dtype):
            cx.fail(op, "expects A5 acc textract element types to be (src=f32,dst=f16/bf16/f32) or (src=i32,dst=i32)")


def _arch_message(a2a3: str, a5: str) -> Callable[[str], str]:
    return lambda arch: a5 if arch == "a5" else a2a3


_ROWCOL = ("i16", "i32", "f16", "f32")
ELEMENT_TYPES: dict[str, dict[str, tuple[str, ...]]] = {
    "tadd": {"a2a3": _ARITH, "a5": (*_ARITH, "i8", "bf16")},
    "tsub": {"a2a3": _ARITH, "a5": (*_ARITH, "i8")},
    "tmul": {"a2a3": _ARITH, "a5": _ARITH},
    "tmax": {"a2a3": _ARITH, "a5": (*_ARITH, "i8")},
    "tmin": {"a2a3": _ARITH, "a5": (*_ARITH, "i8", "bf16")},
    "tdiv": {"a2a3": ("f16", "f32"), "a5": _ARITH},
    **{op: {"a2a3": _ARITH, "a5": (*_ARITH, "i8", "bf16")} for op in ("tadds", "tsubs", "tmuls", "tmaxs", "tmins")},
    "tdivs": {"a2a3": _ARITH, "a5": (*_ARITH, "i8")},
    **{op: {"a2a3": ("f16", "f32"), "a5": ("f16", "f32")} for op in ("texp", "tlog", "tsqrt", "trsqrt", "trecip", "tabs")},
    "tneg": {"a2a3": ("i16", "i32", "f16", "f32"), "a5": ("i8", "i16", "i32", "f16", "f32", "bf16")},
    "trelu": {"a2a3": ("i32", "f16", "f32"), "a5": ("i32", "f16", "f32")},
    "texpands": {"a2a3": ("i16", "i32", "f16", "bf16", "f32"), "a5": ("i8", "i16", "i32", "f16", "bf16", "f32")},
    **{op: {"a2a3": _ROWCOL, "a5": _ROWCOL} for op in ("trowsum", "trowmax", "trowmin")},
    **{op: {"a2a3": _ROWCOL, "a5": (*_ROWCOL, "i8")} for op in ("trowexpandadd", "trowexpandsub", "trowexpandmul")},
    "trowexpanddiv": {"a2a3": ("f16", "f32"), "a5": ("i8", "i16", "i32", "f16", "f32")},
    "tcolsum": {"a2a3": _ROWCOL},
    **{op: {"a2a3": _ROWCOL, "a5": (*_ROWCOL, "i8")} for op in ("tcolexpandadd", "tcolexpandsub", "tcolexpandmul", "tcolexpandmax", "tcolexpandmin")},
    "tcolexpanddiv": {"a2a3": ("f16", "f32"), "a5": ("i8", "i16", "i32", "f16", "f32")},
    "tcolexpandexpdif": {"a2a3": ("f16", "f32"), "a5": ("f16", "f32")},
    "textract": {"a2a3": ("i8", "f16", "bf16", "f32"), "a5": ("i8", "f16", "bf16", "f32")},
}
"""The element types each op takes per arch, as the rules above check them
(an op or arch not listed: no rule here)."""


def allows(op: str, arch: str, dtype: str) -> bool:
    """Whether op (ptoas name without `pto.`) takes element type `dtype`
    on `arch` (a2a3 or a5)."""
    types = ELEMENT_TYPES.get(op, {}).get(arch)
    return types is None or dtype in types


RULES: dict[str, Check] = {
    "pto.tadd": binary_arith("tadd", int8_on_a5=True, bf16_on_a5=True),
    "pto.tsub": binary_arith("tsub", int8_on_a5=True, bf16_on_a5=False),
    "pto.tmul": binary_arith("tmul", int8_on_a5=False, bf16_on_a5=False),
    "pto.tmax": binary_arith("tmax", int8_on_a5=True, bf16_on_a5=False),
    "pto.tmin": binary_arith("tmin", int8_on_a5=True, bf16_on_a5=True),
    "pto.tdiv": binary_arith(
        "tdiv",
        int8_on_a5=False,
        bf16_on_a5=False,
        a2a3_types=("f16", "f32"),
        a2a3_message="expects A2/A3 tdiv element type to be f16 or f32",
        a5_message="expects A5 tdiv element type to be i32/i16/f16/f32",
    ),
    "pto.tadds": scalar_arith("tadds"),
    "pto.tsubs": scalar_arith("tsubs"),
    "pto.tmuls": scalar_arith("tmuls"),
    "pto.tmaxs": scalar_arith("tmaxs"),
    "pto.tmins": scalar_arith("tmins"),
    "pto.tdivs": tdivs,
    "pto.texp": float_unary(),
    "pto.tlog": float_unary(),
    "pto.tsqrt": float_unary("expects src and dst element type to be float or half"),
    "pto.trsqrt": float_unary(tmp_bytes=32),
    "pto.trecip": float_unary(distinct_on_a3=True),
    "pto.tneg": tneg,
    "pto.tabs": vec_unary(("f16", "f32"), lambda arch: "expects element type to be f16 or f32"),
    "pto.trelu": vec_unary(
        ("i32", "f16", "f32"), _arch_message("expects A2/A3 trelu element type to be i32/f16/f32", "expects A5 trelu element type to be i32/f16/f32")
    ),
    "pto.texpands": texpands,
    "pto.trowsum": row_reduction,
    "pto.trowmax": row_reduction,
    "pto.trowmin": row_reduction,
    "pto.trowexpand": trowexpand,
    "pto.trowexpandadd": row_expand_binary("trowexpandadd", shapes=True),
    "pto.trowexpandsub": row_expand_binary("trowexpandsub"),
    "pto.trowexpandmul": row_expand_binary("trowexpandmul"),
    "pto.trowexpanddiv": row_expand_binary("trowexpanddiv", div=True),
    "pto.tcolsum": tcolsum,
    **{f"pto.{op}": col_expand_binary(op) for op in ("tcolexpandadd", "tcolexpandsub", "tcolexpandmul", "tcolexpandmax", "tcolexpandmin")},
    "pto.tcolexpanddiv": col_expand_binary("tcolexpanddiv", integers="a5"),
    "pto.tcolexpandexpdif": col_expand_binary("tcolexpandexpdif", integers=False),
    "pto.tgather": tgather,
    "pto.tmatmul": matmul_a5_layouts,
    "pto.tmatmul_acc": matmul_a5_layouts,
    "pto.treshape": treshape,
    "pto.tload": tload,
    "pto.tmov": tmov,
    "pto.tconcat": tconcat,
    "pto.tcvt": tcvt,
    "pto.subview": subview,
    "pto.textract": textract,
}
"""ptoas's rules per op (generic op names)."""
