"""The op table's read and write regions (pto_dialect/analysis/regions.py) against what
pto-run really does, op by op.

The analyses trust three rules: an op writes at least its write rects
(`op_regions(...).writes`), at most its may-write rects (`may_write`), and
reads nothing outside its read rects (`op_regions(...).reads`). Each case
runs one op on tiles at fixed addresses whose sources hold written bytes
exactly in the op's read rects (the rest never written), then checks the
interpreter's written-bytes mask of the destination and that no read found a
never-written byte (pto-run warns at every such read).
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest
from conftest import parse_kernel
from mlir import ir

from pto_dialect.analysis.regions import ValidExtents, may_write, op_regions, plain_strides
from pto_dialect.dialect.effects import CATALOGUE
from pto_dialect.dialect.types import TileBufType, parse_ptoas_type
from pto_dialect.interpreter.errors import InterpreterError
from pto_dialect.interpreter.evaluator import Interpreter
from pto_dialect.interpreter.execution import find_function
from pto_dialect.interpreter.inputs import DEFAULT_MAX_ARG_BYTES, arguments, make_arguments, resolve_values

SCALARS = {"f32": "1.0", "f16": "1.0", "i32": "0", "i16": "0"}

# (name, op text with {a} {b} ... for operands, {A} {B} ... for their types; operand types in order; scalar types)
# Operands named a, b, c, d (d the destination), t a tmp; `s` a scalar argument.
V16 = "!pto.tile_buf<vec, 16x16xf32>"


def tile(shape: str, valid: str | None = None, dtype: str = "f32", loc: str = "vec", extra: str = "") -> str:
    v = f", valid={valid}" if valid else ""
    return f"!pto.tile_buf<{loc}, {shape}x{dtype}{v}{extra}>"


VALIDS_16 = (None, "8x16", "16x8", "4x8", "1x16")


def _cases():
    cases = []
    # element-wise: sources with valid regions smaller and larger than dst's
    for name in ("tadd", "tsub", "tmul", "tdiv", "tmax", "tmin"):
        for va, vd in (("8x16", None), (None, "8x16"), ("4x8", "16x8"), (None, None)):
            cases.append((name, "pto.{op} ins(%a, %b : {A}, {B}) outs(%d : {D})", {"a": tile("16x16", va), "b": tile("16x16"), "d": tile("16x16", vd)}))
    for name in ("tadds", "tmuls", "tmaxs", "tdivs"):
        for va, vd in (("8x16", None), (None, "4x8")):
            cases.append((name, "pto.{op} ins(%a, %s : {A}, f32) outs(%d : {D})", {"a": tile("16x16", va), "d": tile("16x16", vd)}))
    for name in ("texp", "tabs", "tneg", "trelu", "tsqrt", "trecip", "tlog", "trsqrt"):
        for va, vd in (("8x16", None), (None, "16x8")):
            cases.append((name, "pto.{op} ins(%a : {A}) outs(%d : {D})", {"a": tile("16x16", va), "d": tile("16x16", vd)}))
    for va, vd in (("8x16", None), (None, "4x16")):
        cases.append(
            ("tcvt", "pto.tcvt ins(%a {{rmode = #pto<round_mode CAST_RINT>}} : {A}) outs(%d : {D})", {"a": tile("16x16", va), "d": tile("16x16", vd, "f16")})
        )
        cases.append(("tmov", "pto.tmov ins(%a : {A}) outs(%d : {D})", {"a": tile("16x16", va), "d": tile("16x16", vd)}))
    # row / column
    for name in ("trowsum", "trowmax", "trowmin"):
        for va in (None, "8x16", "16x8"):
            rows = (va or "16x16").split("x")[0]
            cases.append((name, "pto.{op} ins(%a : {A}) outs(%d : {D})", {"a": tile("16x16", va), "d": tile("16x8", f"{rows}x1")}))
            cases.append((name, "pto.{op} ins(%a, %t : {A}, {T}) outs(%d : {D})", {"a": tile("16x16", va), "t": tile("16x16"), "d": tile("16x8", f"{rows}x1")}))
    for name in ("tcolsum", "tcolmax"):
        for va, vd in ((None, "1x16"), ("8x16", "4x16"), ("16x8", "16x8")):
            cases.append((name, "pto.{op} ins(%a : {A}) outs(%d : {D})", {"a": tile("16x16", va), "d": tile("16x16", vd)}))
    for vd in (None, "8x16", "16x8"):
        rows = (vd or "16x16").split("x")[0]
        cases.append(("trowexpand", "pto.trowexpand ins(%a : {A}) outs(%d : {D})", {"a": tile("16x8", f"{rows}x1"), "d": tile("16x16", vd)}))
        for name in ("trowexpandadd", "trowexpandsub", "trowexpandmul", "trowexpanddiv"):
            col = tile("16x1", f"{rows}x1", extra=", blayout=col_major")
            cases.append((name, "pto.{op} ins(%a, %b : {A}, {B}) outs(%d : {D})", {"a": tile("16x16", vd), "b": col, "d": tile("16x16", vd)}))
        cols = (vd or "16x16").split("x")[1]
        cases.append(("tcolexpand", "pto.tcolexpand ins(%a : {A}) outs(%d : {D})", {"a": tile("8x16", f"1x{cols}"), "d": tile("16x16", vd)}))
        for name in ("tcolexpandadd", "tcolexpandmul"):
            cases.append(
                (name, "pto.{op} ins(%a, %b : {A}, {B}) outs(%d : {D})", {"a": tile("16x16", vd), "b": tile("8x16", f"1x{cols}"), "d": tile("16x16", vd)})
            )
    # data movement
    for vd in (None, "8x16", "4x8"):
        cases.append(("texpands", "pto.texpands ins(%s : f32) outs(%d : {D})", {"d": tile("16x16", vd)}))
        cases.append(("texpands", "pto.texpands ins(%s : f32) outs(%d : {D})", {"d": tile("16x16", vd, loc="mat")}))
        cases.append(("tfillpad", "pto.tfillpad ins(%a : {A}) outs(%d : {D})", {"a": tile("16x16", "8x8"), "d": tile("16x16", vd, extra=", pad=1")}))
        cases.append(
            ("textract", "pto.textract ins(%a, %c2, %c0 : {A}, index, index) outs(%d : {D})", {"a": tile("16x16"), "d": tile("8x16", "4x8" if vd else None)})
        )
    cases.append(("tci", "pto.tci ins(%si : i32) outs(%d : {D})", {"d": tile("1x16", None, "i32")}))
    cases.append(("tci", "pto.tci ins(%si : i32) outs(%d : {D})", {"d": tile("1x16", "1x8", "i32")}))
    for va in (None, "8x8"):
        vr, vc = (va or "16x8").split("x")
        cases.append(("ttrans", "pto.ttrans ins(%a : {A}) outs(%d : {D})", {"a": tile("16x8", va), "d": tile("8x16", f"{vc}x{vr}")}))
    for vd in (None, "16x8"):
        cases.append(
            ("tconcat", "pto.tconcat ins(%a, %b : {A}, {B}) outs(%d : {D})", {"a": tile("16x8", "16x4"), "b": tile("16x8", "16x4"), "d": tile("16x16", vd)})
        )
    cases.append(("tconcat", "pto.tconcat ins(%a, %b : {A}, {B}) outs(%d : {D})", {"a": tile("16x8"), "b": tile("16x8"), "d": tile("16x16")}))
    cases.append(
        (
            "tgather",
            "pto.tgather ins(%a, %b, %t : {A}, {B}, {T}) outs(%d : {D})",
            {"a": tile("16x16", "8x16"), "b": tile("8x16", None, "i32"), "t": tile("8x16", None, "i32"), "d": tile("8x16")},
        )
    )
    for axis in (', "row"', ', "col"'):  # ptoas: the mask form names its axis
        cases.append(
            (
                "tgather",
                "pto.tgather ins(%a, {{maskPattern = #pto.mask_pattern<P0101>}} : {A}" + axis + ") outs(%d : {D})",
                {"a": tile("16x16"), "d": tile("16x16", "8x16" if axis else None)},
            )
        )
    cases.append(("tsetval", "pto.tsetval ins(%c2, %s : index, f32) outs(%d : {D})", {"d": tile("16x16")}))
    cases.append(("tgetval", "%x = pto.tgetval ins(%a, %c2 : {A}, index) outs : f32", {"a": tile("16x16", "8x16")}))
    # cube
    for vl, vr in ((None, None), ("8x16", None), ("16x8", "8x16")):
        ops = {
            "a": tile("16x16", vl, "f16", "left"),
            "b": tile("16x16", vr, "f16", "right"),
            "d": tile("16x16", None, "f32", "acc"),
        }
        cases.append(("tmatmul", "pto.tmatmul ins(%a, %b : {A}, {B}) outs(%d : {D})", ops))
        cases.append(("tmatmul.acc", "pto.tmatmul.acc ins(%c, %a, %b : {C}, {A}, {B}) outs(%d : {D})", {**ops, "c": tile("16x16", None, "f32", "acc")}))
    return cases


CASES = _cases()

# Where each operand lives: apart, so that only the op's own accesses meet.
_ADDRESS = {"a": 0, "b": 8192, "c": 16384, "t": 24576, "d": 32768}


def _tile_type(text: str) -> TileBufType:
    return parse_ptoas_type(text)[0]


_STATIC_VALID = re.compile(r"valid=(\d+)x(\d+)")


def _dynamic(text: str) -> tuple[str, tuple[int, int] | None]:
    """The type with its valid shape spelled `?x?` (the alloc gives it as
    constants), and that shape. ptoas's verifier asks the element-wise ops
    for equal static valid shapes; a dynamic one (known to the analyses as
    the alloc's constants) is how a kernel gives them unequal ones."""
    m = _STATIC_VALID.search(text)
    if m is None:
        return text, None
    return text[: m.start()] + "valid=?x?" + text[m.end() :], (int(m.group(1)), int(m.group(2)))


def _kernel(name: str, op_text: str, types: dict[str, str], fills: list[str]) -> str:
    dynamic = {k: _dynamic(v) for k, v in types.items()}
    fields = {k.upper(): v for k, (v, _) in dynamic.items()}
    body = op_text.format(op=name, **fields)
    allocs = []
    for k, (v, valid) in dynamic.items():
        if valid is None:
            allocs.append(f"%{k} = pto.alloc_tile addr = %addr_{k} : {v}")
        else:
            allocs.append(f"%vr_{k} = arith.constant {valid[0]} : index")
            allocs.append(f"%vc_{k} = arith.constant {valid[1]} : index")
            allocs.append(f"%{k} = pto.alloc_tile addr = %addr_{k} valid_row = %vr_{k} valid_col = %vc_{k} : {v}")
    addrs = [f"%addr_{k} = arith.constant {_ADDRESS[k]} : i64" for k in types]
    lines = [
        "func.func @k(%g16: !pto.ptr<f16>, %g32: !pto.ptr<f32>, %s: f32, %si: i32) {",
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        "  %c2 = arith.constant 2 : index",
        "  %c16 = arith.constant 16 : index",
        "  %v16 = pto.make_tensor_view %g16, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xf16>",
        "  %v32 = pto.make_tensor_view %g32, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xf32>",
        *(f"  {a}" for a in addrs),
        *(f"  {line}" for line in fills),
        *(f"  {a}" for a in allocs),
        f"  {body}",
        "  return",
        "}",
    ]
    return "\n".join(lines)


def _fill(name: str, ty: TileBufType, rows: int, cols: int, n: int, addr: str | None = None) -> list[str]:
    """Lines that write elements [0, rows) x [0, cols) of the tile at operand
    `name`'s address (or at `addr`, an i64 value) through an alias of that
    valid shape, and nothing else."""
    if rows <= 0 or cols <= 0:
        return []
    addr = addr or f"%addr_{name}"
    alias = ty.with_valid(rows, cols)
    if ty.loc == "acc":  # only a matmul writes acc (ptoas loads and moves into it nothing): rows x 16 times 16 x cols
        left = TileBufType("left", ty.rows, 16, "f16", rows, 16)
        right = TileBufType("right", 16, ty.cols, "f16", 16, cols)
        return [
            f"%fla{n} = arith.constant {32768 + 4096 * n} : i64",
            *_fill("", left, rows, 16, 100 + n, f"%fla{n}"),
            f"%fra{n} = arith.constant {32768 + 4096 * n} : i64",
            *_fill("", right, 16, cols, 200 + n, f"%fra{n}"),
            f"%fl{n} = pto.alloc_tile addr = %fla{n} : {left.ptoas()}",
            f"%fr{n} = pto.alloc_tile addr = %fra{n} : {right.ptoas()}",
            f"%f{n} = pto.alloc_tile addr = {addr} : {alias.ptoas()}",
            f"pto.tmatmul ins(%fl{n}, %fr{n} : {left.ptoas()}, {right.ptoas()}) outs(%f{n} : {alias.ptoas()})",
        ]
    if ty.loc in ("left", "right"):  # no vector fill there: load a mat tile and move it
        mat = TileBufType("mat", ty.rows, ty.cols, ty.dtype, rows, cols)
        return [
            f"%fa{n} = arith.constant {40960 + 8192 * (n % 8)} : i64",
            f"%fm{n} = pto.alloc_tile addr = %fa{n} : {mat.ptoas()}",
            *_load(f"%fm{n}", mat, rows, cols, n),
            f"%f{n} = pto.alloc_tile addr = {addr} : {alias.ptoas()}",
            f"pto.tmov ins(%fm{n} : {mat.ptoas()}) outs(%f{n} : {alias.ptoas()})",
        ]
    if ty.loc == "vec" and ty.dtype in SCALARS and ty.blayout == "row_major":  # ptoas: texpands fills row-major vec tiles on a2a3
        scalar = f"%fs{n}"
        return [
            f"{scalar} = arith.constant {SCALARS[ty.dtype]} : {ty.dtype}",
            f"%f{n} = pto.alloc_tile addr = {addr} : {alias.ptoas()}",
            f"pto.texpands ins({scalar} : {ty.dtype}) outs(%f{n} : {alias.ptoas()})",
        ]
    return [f"%f{n} = pto.alloc_tile addr = {addr} : {alias.ptoas()}", *_load(f"%f{n}", alias, rows, cols, n)]


def _load(value: str, ty: TileBufType, rows: int, cols: int, n: int) -> list[str]:
    view = "%v16" if ty.dtype == "f16" else "%v32"
    part = f"!pto.partition_tensor_view<{rows}x{cols}x{ty.dtype}>"
    return [
        f"%r{n} = arith.constant {rows} : index",
        f"%k{n} = arith.constant {cols} : index",
        f"%p{n} = pto.partition_view {view}, offsets = [%c0, %c0], sizes = [%r{n}, %k{n}] : !pto.tensor_view<16x16x{ty.dtype}> -> {part}",
        f"pto.tload ins(%p{n} : {part}) outs({value} : {ty.ptoas()})",
    ]


def _the_op(module: ir.Module) -> ir.Operation:
    func = next(iter(module.body.operations))
    ops = list(func.regions[0].blocks[0].operations)
    return ops[-2].operation


def _bytes(ty: TileBufType, base: int, rows, cols) -> np.ndarray:
    """A mask over the space of the bytes of elements [0, rows) x [0, cols)."""
    rs, cs = plain_strides(ty)
    mask = np.zeros(base + ty.nbytes, dtype=bool)
    for r in range(min(rows, ty.rows)):
        for c in range(min(cols, ty.cols)):
            at = base + r * rs + c * cs
            mask[at : at + ty.element_bytes] = True
    return mask


def _run(text: str, arch: str):
    module = parse_kernel(text)
    with module.context:
        func = find_function(module.operation, "k")
        interp = Interpreter(module.operation, arch=arch)
        args = arguments(func, text)
        runtime_args, _ = make_arguments(args, resolve_values(args, {"s": 1.0, "si": 3}), 0, interp.memory, DEFAULT_MAX_ARG_BYTES)
        with np.errstate(all="ignore"), interp.deep_enough():
            interp.call("k", runtime_args, func.location)
        return interp


def check(name: str, op_text: str, types: dict[str, str], arch: str) -> str:
    """Run one case; returns "ran" or why it was not run (a combination the
    op or the verifier refuses)."""
    parsed = {k: _tile_type(v) for k, v in types.items()}
    bare = _kernel(name, op_text, types, [])
    try:
        module = parse_kernel(bare)
        with module.context:
            op = _the_op(module)
            extents = ValidExtents()
            regions = op_regions(op, extents)
            may = may_write(op, extents)
            position = {i: k for i, k in enumerate(_operand_names(op_text, op))}
            reads = [(position[i], r, c) for i, r, c in regions.reads]
            writes = [(position[i], r, c) for i, r, c in regions.writes]
            mays = [(position[i], r, c) for i, r, c in may]
    except Exception as e:  # the verifier refuses the combination
        return f"refused: {e}"
    fills = []
    for n, (k, r, c) in enumerate(reads):
        fills += _fill(k, parsed[k], r, c, n)
    text = _kernel(name, op_text, types, fills)
    try:
        interp = _run(text, arch)
    except InterpreterError as e:
        return f"refused at run time: {e}"
    unwritten = [w.message for w in interp.warnings if "never written" in w.message]
    assert not unwritten, f"{name} ({arch}) read outside its read rects {reads}: {unwritten}\n{text}"
    if "d" in parsed:
        d = parsed["d"]
        space = interp.memory.spaces.get(d.loc)
        written = space.written[: _ADDRESS["d"] + d.nbytes] if space is not None else np.zeros(_ADDRESS["d"] + d.nbytes, bool)
        written = written.copy()
        written[: _ADDRESS["d"]] = False
        claimed = np.zeros_like(written)
        for k, r, c in writes:
            if k == "d":
                claimed |= _bytes(d, _ADDRESS["d"], r, c)[: len(written)]
        assert not (claimed & ~written).any(), f"{name} ({arch}) claims to write {writes} but leaves bytes unwritten\n{text}"
        bound = np.zeros_like(written)
        for k, r, c in mays:
            if k == "d":
                bound |= _bytes(d, _ADDRESS["d"], r, c)[: len(written)]
        assert not (written & ~bound).any(), f"{name} ({arch}) writes outside its may-write rects {mays}\n{text}"
    return "ran"


def _operand_names(op_text: str, op: ir.Operation) -> list[str]:
    """The test's operand names (a, b, c, d, t, s...) in the op's operand order."""
    names = []
    inside = op_text.split("ins(", 1)[1]
    ins = inside.split(":", 1)[0]
    outs = op_text.split("outs(", 1)[1].split(":", 1)[0] if "outs(" in op_text else ""
    for part in (ins + "," + outs).split(","):
        part = part.strip()
        if part.startswith("%"):
            names.append(part[1:].split(" ")[0].split("{")[0])
    # the generic operand order differs from the text for some ops (tmp before dst, textract's indices)
    spec = CATALOGUE[op.name]
    layout = spec.layout(op)
    by_group = {}
    text_groups = {"src": "a", "src0": "a", "src1": "b", "lhs": "a", "rhs": "b", "acc_in": "c", "indices": "b", "tmp": "t", "dst": "d"}
    for group, (start, length) in layout.groups.items():
        for i in range(start, start + length):
            by_group[i] = text_groups.get(group, group)
    return [by_group[i] for i in range(len(op.operands))]


@pytest.mark.parametrize("arch", ["a2a3", "a5"])
def test_every_op_writes_its_write_rects_and_reads_within_its_read_rects(arch):
    ran = Counter()
    refused = {}
    for name, op_text, types in CASES:
        outcome = check(name, op_text, types, arch)
        if outcome == "ran":
            ran[name] += 1
        else:
            refused.setdefault(name, outcome)
    executed = {n for n in (d.removeprefix("pto.").replace("_", ".") for d in CATALOGUE) if n in {c[0] for c in CASES}}
    missing = sorted(n for n in executed if not ran[n])
    assert not missing, f"no case of {missing} ran: {[refused.get(n) for n in missing]}"
    assert sum(ran.values()) >= 100
