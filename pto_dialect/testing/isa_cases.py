"""A seeded generator of single-op cases for the op differential
(testing/isa_diff.py; docs/semantics.md).

Every family draws what varies for its op: element types, tile shapes that
satisfy the layout rules, valid regions (the whole tile, a static smaller
one, or `?` given at run time), layouts, pad values, scratch `tmp`
operands, scalar operands, `tcvt`'s round and saturation modes. Elements
are drawn to reach the corners: for floats signed zeros, infinities, NaN,
subnormals, ties of every rounding (x.5), values beyond each integer type's
range; for integers the type's extremes. Both verifiers then judge each
case; generating some that ptoas or we refuse is intended (that is how the
differential finds a verifier difference).

`generate(seed, count)` is deterministic; `cases_for(op, rng)` draws one
case of an op.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from ..interpreter import conversions
from .isa_diff import Case, ScalarArg, TileArg

ARCHS = ("a2a3", "a5")
STORAGE = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "f16": np.float16, "f32": np.float32}
"""The element types both sides hold (bf16: the simulator's CPU build has
no bf16 arithmetic with this toolchain, its bfloat16_t is a placeholder)."""
SIZES = {k: np.dtype(v).itemsize for k, v in STORAGE.items()}
FLOATS = ("f16", "f32")
INTS = ("i8", "i16", "i32")
VECTOR_DTYPES = ("f32", "f16", "i32", "i16", "i8")

ROUND_MODES = (None, "NONE", "RINT", "ROUND", "FLOOR", "CEIL", "TRUNC", "ODD", "CAST_RINT")
"""tcvt's `rmode` (None: absent, ptoas's default)."""
SAT_MODES = (None, "ON", "OFF")
PAD_VALUES = {0: "null", 1: "zero", 2: "max", 3: "min"}


# -- element values ----------------------------------------------------------------------------


def _float_specials(dtype: str) -> list[float]:
    info = np.finfo(STORAGE[dtype])
    return [0.0, -0.0, np.inf, -np.inf, np.nan, float(info.max), -float(info.max), float(info.tiny) / 4, -float(info.tiny), 1.0, -1.0, 0.5, -0.5]


def _int_limits(dtype: str) -> list[int]:
    info = np.iinfo(STORAGE[dtype])
    return [int(info.min), int(info.max), 0, -1, 1, int(info.min) + 1]


def values(dtype: str, shape: tuple[int, int], rng: np.random.Generator, *, style: str = "mixed") -> np.ndarray:
    """Elements of `dtype` (storage dtype) for a tile.

    `style`: "mixed" (ordinary values with corners among them), "ties"
    (halves and values near every integer range's ends, for conversions),
    "positive" (> 0: divisors, logarithms), "nonzero", "small" (exact sums).
    """
    n = shape[0] * shape[1]
    storage = STORAGE[dtype]
    if dtype in FLOATS:
        base = rng.uniform(-8, 8, n)
        if style == "ties":
            base = np.concatenate([np.round(rng.uniform(-300, 300, n // 2)) + 0.5, rng.uniform(-70000, 70000, n - n // 2)])
            base *= rng.choice([1.0, 1.0, 1e3, 1e6, 1e10], n)
            rng.shuffle(base)
        elif style == "positive":
            base = np.abs(base) + 0.001
        elif style == "small":
            base = np.round(rng.uniform(-8, 8, n)) / 4
        specials = _float_specials(dtype)
        if style in ("mixed", "ties"):
            k = max(1, n // 6)
            base[rng.choice(n, k, replace=False)] = rng.choice(specials, k)
        elif style == "positive":
            base[rng.choice(n, max(1, n // 10), replace=False)] = rng.choice([np.inf, float(np.finfo(storage).tiny), 1.0], max(1, n // 10))
        with np.errstate(over="ignore"):
            out = base.astype(storage)
        if style == "nonzero":
            out[out == 0] = storage(1)
        return out.reshape(shape)
    info = np.iinfo(storage)
    if style == "small":
        out = rng.integers(-16, 17, n)
    elif style == "positive":
        out = rng.integers(1, min(int(info.max), 1000) + 1, n)
    else:
        wide = rng.integers(int(info.min), int(info.max) + 1, n, dtype=np.int64)
        small = rng.integers(-100, 101, n)
        out = np.where(rng.random(n) < 0.5, wide, small)
        k = max(1, n // 8)
        out[rng.choice(n, k, replace=False)] = rng.choice(_int_limits(dtype), k)
        if style == "nonzero":
            out[out == 0] = 1
    return np.clip(out, info.min, info.max).astype(storage).reshape(shape)


# -- tiles ---------------------------------------------------------------------------------------


def tile_text(loc: str, dtype: str, shape, valid: str | None, blayout: str = "row_major", slayout: str = "none_box", pad: int = 0, fractal: int = 512) -> str:
    """The compact ptoas spelling; `valid` "RxC", "?x?" or None (whole)."""
    parts = [loc, f"{shape[0]}x{shape[1]}x{dtype}"]
    if valid is not None:
        parts.append(f"valid={valid}")
    if blayout != "row_major":
        parts.append(f"blayout={blayout}")
    if slayout != "none_box":
        parts.append(f"slayout={slayout}")
    if fractal != 512:
        parts.append(f"fractal={fractal}")
    if pad:
        parts.append(f"pad={pad}")
    return f"!pto.tile_buf<{', '.join(parts)}>"


class Tiles:
    """Draws tile shapes and valid regions that hold together for an op.

    Shapes come from a small pool per element type, and a static valid
    region from one per shape: what changes the C++ a case compiles to is
    its types, so cases that share them share one compiled function (the
    elements, a `?` valid region's extent and the scalars are data)."""

    ROWS = (1, 3, 8, 16)
    BLOCKS = (1, 2, 4)  # 32-byte blocks per row (col_major: per column)

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def shape(self, dtype: str, blayout: str = "row_major") -> tuple[int, int]:
        unit = 32 // SIZES[dtype]  # elements of one 32-byte block
        if blayout == "col_major":
            return self.rng.choice(self.BLOCKS) * unit, self.rng.choice(self.ROWS)
        return self.rng.choice(self.ROWS), self.rng.choice(self.BLOCKS) * unit

    def valid(self, shape: tuple[int, int]) -> tuple[tuple[int, int], str | None]:
        """A valid region and how the type spells it."""
        roll = self.rng.random()
        if roll < 0.4:
            return shape, None
        if roll < 0.65:
            vr, vc = max(1, (shape[0] + 1) // 2), max(1, shape[1] - 3)
            return (vr, vc), f"{vr}x{vc}"
        return (self.rng.randint(1, shape[0]), self.rng.randint(1, shape[1])), "?x?"


def tile_arg(name: str, dtype: str, shape, valid, spelled, nprng, *, loc="vec", written=False, style="mixed", **layout) -> TileArg:
    text = tile_text(loc, dtype, shape, spelled, **layout)
    return TileArg(name, text, dtype, tuple(shape), tuple(valid), draw(dtype, shape, nprng, style), written, style)


def draw(dtype: str, shape, nprng, style: str) -> np.ndarray:
    if style.startswith("indices:"):
        return nprng.integers(0, int(style.split(":")[1]), shape).astype(STORAGE[dtype])
    return values(dtype, shape, nprng, style=style)


def resample(case: Case, nprng) -> Case:
    """The same case (the same op on the same types and valid regions)
    with new elements."""
    args = [replace(a, data=draw(a.dtype, a.shape, nprng, a.style)) if isinstance(a, TileArg) else a for a in case.args]
    return replace(case, args=args)


# -- families ------------------------------------------------------------------------------------

BINARY = ("tadd", "tsub", "tmul", "tdiv", "tmax", "tmin")
SCALAR = ("tadds", "tsubs", "tmuls", "tdivs", "tmaxs", "tmins")
UNARY = ("texp", "tlog", "tsqrt", "trsqrt", "trecip", "tneg", "tabs", "trelu")
_STYLE = {"tdiv": "nonzero", "tdivs": "nonzero", "tlog": "mixed", "trecip": "mixed", "trsqrt": "mixed"}


def _arch(rng: random.Random) -> str:
    return rng.choice(ARCHS)


def _elementwise_tiles(rng: random.Random, dtype: str):
    tiles = Tiles(rng)
    blayout = "col_major" if rng.random() < 0.15 else "row_major"
    shape = tiles.shape(dtype, blayout)
    valid, spelled = tiles.valid(shape)
    return shape, valid, spelled, blayout


def binary_case(op: str, rng: random.Random) -> Case:
    nprng = np.random.default_rng(rng.getrandbits(32))
    dtype = rng.choice(VECTOR_DTYPES)
    shape, valid, spelled, blayout = _elementwise_tiles(rng, dtype)
    in_place = rng.random() < 0.15
    a = tile_arg("%src0", dtype, shape, valid, spelled, nprng, blayout=blayout)
    b = tile_arg("%src1", dtype, shape, valid, spelled, nprng, blayout=blayout, style=_STYLE.get(op, "mixed") if dtype in INTS else "mixed")
    d = tile_arg("%dst", dtype, shape, valid, spelled, nprng, blayout=blayout, written=True)
    t = a.type
    if in_place:  # dst is src0
        a = replace(a, written=True)
        body = f"pto.{op} ins(%src0, %src1 : {t}, {t}) outs(%src0 : {t})"
        args = [a, b]
    else:
        body = f"pto.{op} ins(%src0, %src1 : {t}, {t}) outs(%dst : {t})"
        args = [a, b, d]
    return Case(op, f"{dtype} {shape[0]}x{shape[1]} valid {valid[0]}x{valid[1]} {blayout}{' in place' if in_place else ''}", _arch(rng), args, body)


def _scalar_value(dtype: str, rng: random.Random, op: str):
    if dtype in FLOATS:
        return rng.choice([0.5, -1.25, 3.0, 0.0, -0.0, 1e-3, 65504.0 if dtype == "f16" else 3.0e38, float("inf"), -7.75, 100.0])
    lo, hi = np.iinfo(STORAGE[dtype]).min, np.iinfo(STORAGE[dtype]).max
    pool = [3, -2, 7, 1, -5, int(lo), int(hi), 0, 100]
    if op == "tdivs":
        pool = [p for p in pool if p != 0]
    return rng.choice(pool)


def scalar_case(op: str, rng: random.Random) -> Case:
    nprng = np.random.default_rng(rng.getrandbits(32))
    dtype = rng.choice(VECTOR_DTYPES)
    shape, valid, spelled, blayout = _elementwise_tiles(rng, dtype)
    reverse = op == "tdivs" and rng.random() < 0.4
    src = tile_arg("%src", dtype, shape, valid, spelled, nprng, blayout=blayout, style="nonzero" if reverse and dtype in INTS else "mixed")
    dst = tile_arg("%dst", dtype, shape, valid, spelled, nprng, blayout=blayout, written=True)
    s = ScalarArg("%s", dtype, _scalar_value(dtype, rng, op))
    t = src.type
    operands = f"%s, %src : {dtype}, {t}" if reverse else f"%src, %s : {t}, {dtype}"
    body = f"pto.{op} ins({operands}) outs(%dst : {t})"
    label = f"{dtype} {shape[0]}x{shape[1]} valid {valid[0]}x{valid[1]} {blayout} scalar {s.value!r}{' scalar first' if reverse else ''}"
    return Case(op, label, _arch(rng), [src, s, dst], body)


def unary_case(op: str, rng: random.Random) -> Case:
    nprng = np.random.default_rng(rng.getrandbits(32))
    dtype = rng.choice(VECTOR_DTYPES if op in ("tneg", "tabs", "trelu") else FLOATS + ("i32",))
    shape, valid, spelled, blayout = _elementwise_tiles(rng, dtype)
    src = tile_arg("%src", dtype, shape, valid, spelled, nprng, blayout=blayout, style=_STYLE.get(op, "mixed"))
    dst = tile_arg("%dst", dtype, shape, valid, spelled, nprng, blayout=blayout, written=True)
    args = [src, dst]
    if op == "trsqrt" and rng.random() < 0.4:  # the scratch that selects a2a3's high-precision path
        tmp = tile_arg("%tmp", dtype, shape, shape, None, nprng)
        args.append(tmp)
        body = f"pto.{op} ins(%src, %tmp : {src.type}, {tmp.type}) outs(%dst : {dst.type})"
    else:
        body = f"pto.{op} ins(%src : {src.type}) outs(%dst : {dst.type})"
    label = f"{dtype} {shape[0]}x{shape[1]} valid {valid[0]}x{valid[1]} {blayout}{' with tmp' if len(args) == 3 else ''}"
    return Case(op, label, _arch(rng), args, body)


CVT_TYPES = ("f32", "f16", "i32", "i16", "i8", "i64")


def tcvt_case(rng: random.Random, src_dtype: str | None = None, dst_dtype: str | None = None, rmode=..., sat=..., arch: str | None = None) -> Case:
    nprng = np.random.default_rng(rng.getrandbits(32))
    s = src_dtype or rng.choice(CVT_TYPES)
    d = dst_dtype or rng.choice([t for t in CVT_TYPES if t != s] + ([s] if s in FLOATS else []))
    rmode = rng.choice(ROUND_MODES) if rmode is ... else rmode
    sat = rng.choice(SAT_MODES) if sat is ... else sat
    arch = arch or _arch(rng)
    tiles = Tiles(rng)
    # both tiles hold the same elements per row: rows a 32-byte multiple for the narrower type
    unit = 32 // min(SIZES[s], SIZES[d])
    rows = rng.choice(Tiles.ROWS)
    cols = unit * rng.choice(Tiles.BLOCKS)
    shape = (rows, cols)
    valid, spelled = tiles.valid(shape)
    if spelled == "?x?" and arch == "a2a3" and (s, d) in conversions.NONSAT_TORCH and sat != "ON":
        valid, spelled = shape, None  # ptoas materializes this tcvt's tmp for static shapes only
    src = tile_arg("%src", s, shape, valid, spelled, nprng, style="ties" if s in FLOATS else "mixed")
    dst = tile_arg("%dst", d, shape, valid, spelled, nprng, written=True)

    def text(satmode):
        attrs = []
        if rmode is not None:
            attrs.append(f"rmode = #pto<round_mode {rmode}>")
        if satmode is not None:
            attrs.append(f"satmode = #pto<saturation_mode {satmode}>")
        attr_text = f" {{{', '.join(attrs)}}}" if attrs else ""
        return f"pto.tcvt ins(%src{attr_text} : {src.type}) outs(%dst : {dst.type})"

    # the simulator honours satmode as written; the NPU as conversions.py
    # says (a2a3 saturates its other conversions, never into a float type)
    effective = conversions.effective_saturation(arch, s, d, sat or conversions.DEFAULT_SATURATION_MODE, False)
    reference = text("ON" if effective else "OFF")
    label = f"{s}->{d} rmode={rmode or '(default)'} sat={sat or '(default)'} {rows}x{cols} valid {valid[0]}x{valid[1]}"
    return Case("tcvt", label, arch, [src, dst], text(sat), reference_body=reference if reference != text(sat) else "")


def tcvt_modes() -> list[Case]:
    """Every conversion each target's TCVT implements with every round
    mode and saturation mode, once each, and each conversion it does not
    implement once (pto-run refuses those)."""
    rng = random.Random(27)
    cases = []
    for arch in ARCHS:
        for s in CVT_TYPES:
            for d in CVT_TYPES:
                if s == d and s not in FLOATS:
                    continue
                if not conversions.supported(arch, s, d):
                    cases.append(tcvt_case(rng, s, d, None, None, arch))
                    continue
                for rmode in ROUND_MODES:
                    for sat in SAT_MODES:
                        cases.append(tcvt_case(rng, s, d, rmode, sat, arch))
    return cases


# -- row and column ops -------------------------------------------------------------------------

REDUCTIONS = ("trowsum", "trowmax", "trowmin")
ROW_EXPAND = ("trowexpandadd", "trowexpandsub", "trowexpandmul", "trowexpanddiv")
COL_EXPAND = ("tcolexpandadd", "tcolexpandmul")
ROWCOL_DTYPES = ("f32", "f16", "i32", "i16")


def _column(
    name: str, dtype: str, rows: int, valid_rows: int, dynamic: bool, nprng, rng: random.Random, *, written=False, style="mixed", block=False
) -> TileArg:
    """A per-row operand of `valid_rows` valid rows (`dynamic`: spelled
    `?`): a col_major Rx1 column or a row_major tile with one valid column
    (a reduction's result), or (`block`: a row-expand's operand, the ISA's
    mode 2) with a 32-byte block per row."""
    unit = 32 // SIZES[dtype]
    vr = "?" if dynamic else str(valid_rows)
    if rng.random() < 0.5 and rows % unit == 0:
        spelled = None if vr == str(rows) else f"{vr}x{'?' if dynamic else 1}"
        return tile_arg(name, dtype, (rows, 1), (valid_rows, 1), spelled, nprng, blayout="col_major", written=written, style=style)
    cols = unit if block else 1
    spelled = None if (vr, cols) == (str(rows), unit) else f"{vr}x{'?' if dynamic else cols}"
    return tile_arg(name, dtype, (rows, unit), (valid_rows, cols), spelled, nprng, written=written, style=style)


def _rowcol_shape(rng: random.Random, dtype: str) -> tuple[tuple[int, int], tuple[int, int], str | None]:
    unit = 32 // SIZES[dtype]
    rows = rng.choice((unit, 2 * unit, 3, 1)) if rng.random() < 0.7 else rng.choice(Tiles.ROWS)
    shape = (rows, unit * rng.choice(Tiles.BLOCKS))
    valid, spelled = Tiles(rng).valid(shape)
    return shape, valid, spelled


def reduction_case(op: str, rng: random.Random) -> Case:
    nprng = np.random.default_rng(rng.getrandbits(32))
    dtype = rng.choice(ROWCOL_DTYPES)
    shape, valid, spelled = _rowcol_shape(rng, dtype)
    src = tile_arg("%src", dtype, shape, valid, spelled, nprng, style="small" if op == "trowsum" and rng.random() < 0.5 else "mixed")
    out_dtype = "f32" if op == "trowsum" and dtype == "f16" and rng.random() < 0.3 else dtype
    dst = _column("%dst", out_dtype, shape[0], valid[0], spelled == "?x?", nprng, rng, written=True)
    args = [src, dst]
    if rng.random() < 0.6 or spelled == "?x?":  # ptoas materializes an implicit tmp for static shapes only
        tmp = tile_arg("%tmp", dtype, shape, shape, None, nprng)
        args.insert(1, tmp)
        operands = f"%src, %tmp : {src.type}, {tmp.type}"
    else:
        operands = f"%src : {src.type}"
    body = f"pto.{op} ins({operands}) outs(%dst : {dst.type})"
    return Case(op, f"{dtype}->{out_dtype} {shape[0]}x{shape[1]} valid {valid[0]}x{valid[1]} dst {dst.type}", _arch(rng), args, body)


def colred_case(op: str, rng: random.Random) -> Case:
    nprng = np.random.default_rng(rng.getrandbits(32))
    dtype = rng.choice(ROWCOL_DTYPES)
    shape, valid, spelled = _rowcol_shape(rng, dtype)
    src = tile_arg("%src", dtype, shape, valid, spelled, nprng)
    dst = tile_arg("%dst", dtype, (1, shape[1]), (1, valid[1]), f"1x{valid[1]}" if valid[1] != shape[1] else None, nprng, written=True)
    args, attrs, operands = [src, dst], "", f"%src : {src.type}"
    if op == "tcolsum" and rng.random() < 0.5:
        tmp = tile_arg("%tmp", dtype, shape, shape, None, nprng)
        args.insert(1, tmp)
        binary = rng.random() < 0.6
        attrs = f" {{isBinary = {'true' if binary else 'false'}}}"
        operands = f"%src, %tmp{attrs} : {src.type}, {tmp.type}"
    body = f"pto.{op} ins({operands}) outs(%dst : {dst.type})"
    return Case(op, f"{dtype} {shape[0]}x{shape[1]} valid {valid[0]}x{valid[1]}{attrs}", _arch(rng), args, body)


def rowexpand_case(rng: random.Random) -> Case:
    nprng = np.random.default_rng(rng.getrandbits(32))
    dtype = rng.choice(ROWCOL_DTYPES)
    shape, valid, spelled = _rowcol_shape(rng, dtype)
    src = _column("%src", dtype, shape[0], valid[0], spelled == "?x?", nprng, rng)
    dst = tile_arg("%dst", dtype, shape, valid, spelled, nprng, written=True)
    return Case(
        "trowexpand",
        f"{dtype} {shape[0]}x{shape[1]} valid {valid[0]}x{valid[1]} from {src.type}",
        _arch(rng),
        [src, dst],
        f"pto.trowexpand ins(%src : {src.type}) outs(%dst : {dst.type})",
    )


def rowexpand_binary_case(op: str, rng: random.Random) -> Case:
    nprng = np.random.default_rng(rng.getrandbits(32))
    dtype = rng.choice(ROWCOL_DTYPES)
    shape, valid, spelled = _rowcol_shape(rng, dtype)
    row_first = rng.random() < 0.2
    divisor = "nonzero" if op == "trowexpanddiv" and dtype in INTS else "mixed"
    full = tile_arg("%full", dtype, shape, valid, spelled, nprng, style=divisor if row_first else "mixed")
    row = _column("%row", dtype, shape[0], valid[0], spelled == "?x?", nprng, rng, style="mixed" if row_first else divisor, block=True)
    dst = tile_arg("%dst", dtype, shape, valid, spelled, nprng, written=True)
    first, second = (row, full) if row_first else (full, row)
    args = [first, second, dst]
    operands, types = f"{first.name}, {second.name}", f"{first.type}, {second.type}"
    if rng.random() < 0.4:
        tmp = tile_arg("%tmp", dtype, shape, shape, None, nprng)
        args.insert(2, tmp)
        operands, types = operands + ", %tmp", types + f", {tmp.type}"
    body = f"pto.{op} ins({operands} : {types}) outs(%dst : {dst.type})"
    return Case(op, f"{dtype} {shape[0]}x{shape[1]} valid {valid[0]}x{valid[1]} per-row {row.type}{' first' if first is row else ''}", _arch(rng), args, body)


def colexpand_case(op: str, rng: random.Random) -> Case:
    nprng = np.random.default_rng(rng.getrandbits(32))
    dtype = rng.choice(ROWCOL_DTYPES)
    shape, valid, spelled = _rowcol_shape(rng, dtype)
    vspell = f"1x{valid[1]}" if valid[1] != shape[1] else None
    row = tile_arg("%row", dtype, (1, shape[1]), (1, valid[1]), vspell, nprng)
    dst = tile_arg("%dst", dtype, shape, valid, spelled, nprng, written=True)
    if op == "tcolexpand":
        return Case(
            op,
            f"{dtype} {shape[0]}x{shape[1]} valid {valid[0]}x{valid[1]}",
            _arch(rng),
            [row, dst],
            f"pto.tcolexpand ins(%row : {row.type}) outs(%dst : {dst.type})",
        )
    full = tile_arg("%full", dtype, shape, valid, spelled, nprng)
    body = f"pto.{op} ins(%full, %row : {full.type}, {row.type}) outs(%dst : {dst.type})"
    return Case(op, f"{dtype} {shape[0]}x{shape[1]} valid {valid[0]}x{valid[1]}", _arch(rng), [full, row, dst], body)


# -- data movement ------------------------------------------------------------------------------


def texpands_case(rng: random.Random) -> Case:
    nprng = np.random.default_rng(rng.getrandbits(32))
    dtype = rng.choice(VECTOR_DTYPES)
    shape, valid, spelled, blayout = _elementwise_tiles(rng, dtype)
    dst = tile_arg("%dst", dtype, shape, valid, spelled, nprng, blayout=blayout, written=True)
    s = ScalarArg("%s", dtype, _scalar_value(dtype, rng, "texpands"))
    return Case(
        "texpands",
        f"{dtype} {shape[0]}x{shape[1]} valid {valid[0]}x{valid[1]} {blayout} {s.value!r}",
        _arch(rng),
        [s, dst],
        f"pto.texpands ins(%s : {dtype}) outs(%dst : {dst.type})",
    )


def tfillpad_case(rng: random.Random) -> Case:
    nprng = np.random.default_rng(rng.getrandbits(32))
    dtype = rng.choice(VECTOR_DTYPES)
    tiles = Tiles(rng)
    shape = tiles.shape(dtype)
    valid, spelled = tiles.valid(shape)
    src = tile_arg("%src", dtype, shape, valid, spelled, nprng)
    pad = rng.choice([1, 2, 3])
    grow = rng.random() < 0.3
    dshape = (shape[0] * 2, shape[1]) if grow else shape
    dst = tile_arg("%dst", dtype, dshape, dshape, None, nprng, pad=pad, written=True)
    body = f"pto.tfillpad ins(%src : {src.type}) outs(%dst : {dst.type})"
    return Case("tfillpad", f"{dtype} {shape} valid {valid} into {dshape} pad={PAD_VALUES[pad]}", _arch(rng), [src, dst], body)


def tci_case(rng: random.Random) -> Case:
    nprng = np.random.default_rng(rng.getrandbits(32))
    dtype = rng.choice(("i32", "i16"))
    cols = (32 // SIZES[dtype]) * rng.choice(Tiles.BLOCKS)
    valid, spelled = Tiles(rng).valid((1, cols))
    dst = tile_arg("%dst", dtype, (1, cols), valid, spelled, nprng, written=True)
    s = ScalarArg("%s", dtype, rng.choice([0, 5, -3, 100, int(np.iinfo(STORAGE[dtype]).max) - 2]))
    descending = rng.random() < 0.5
    body = f"pto.tci ins(%s : {dtype}) outs(%dst : {dst.type}) {{descending = {'true' if descending else 'false'}}}"
    return Case("tci", f"{dtype} 1x{cols} valid {valid} start {s.value}{' descending' if descending else ''}", _arch(rng), [s, dst], body)


def tgather_case(rng: random.Random) -> Case:
    nprng = np.random.default_rng(rng.getrandbits(32))
    dtype = rng.choice(("f32", "f16", "i32", "i16"))
    unit = 32 // SIZES[dtype]
    rows = rng.choice((1, 2, 4, 8))
    cols = unit * rng.choice((1, 2))
    src = tile_arg("%src", dtype, (rows, cols), (rows, cols), None, nprng)
    if rng.random() < 0.5:
        pattern = rng.choice(["P0101", "P1010", "P0001", "P0010", "P0100", "P1000", "P1111"])
        keep = {"P0101": 2, "P1010": 2, "P1111": 1}.get(pattern, 4)
        dcols = unit * rng.choice((1, 2))
        src = tile_arg("%src", dtype, (rows, dcols * keep), (rows, dcols * keep), None, nprng)
        dst = tile_arg("%dst", dtype, (rows, dcols), (rows, dcols), None, nprng, written=True)
        body = f'pto.tgather ins(%src, {{maskPattern = #pto.mask_pattern<{pattern}>}} : {src.type}, "row") outs(%dst : {dst.type})'
        return Case("tgather", f"{dtype} {rows}x{dcols * keep} mask {pattern}", _arch(rng), [src, dst], body)
    idx_dtype = "i32"
    drows, dcols = rows, cols
    idx = tile_arg("%idx", idx_dtype, (drows, dcols), (drows, dcols), None, nprng, style=f"indices:{rows * cols}")
    dst = tile_arg("%dst", dtype, (drows, dcols), (drows, dcols), None, nprng, written=True)
    tmp = tile_arg("%tmp", idx_dtype, (drows, dcols), (drows, dcols), None, nprng)
    body = f"pto.tgather ins(%src, %idx, %tmp : {src.type}, {idx.type}, {tmp.type}) outs(%dst : {dst.type})"
    return Case("tgather", f"{dtype} {rows}x{cols} by index", _arch(rng), [src, idx, tmp, dst], body)


def ttrans_case(rng: random.Random) -> Case:
    nprng = np.random.default_rng(rng.getrandbits(32))
    dtype = rng.choice(("f32", "f16", "i32", "i16", "i8"))
    unit = 32 // SIZES[dtype]
    shape = (unit * rng.choice((1, 2)), unit * rng.choice((1, 2)))
    valid = shape if rng.random() < 0.6 else (rng.randint(1, shape[0]), rng.randint(1, shape[1]))
    spelled = None if valid == shape else "?x?"
    src = tile_arg("%src", dtype, shape, valid, spelled, nprng)
    dst = tile_arg("%dst", dtype, (shape[1], shape[0]), (valid[1], valid[0]), spelled, nprng, written=True)
    tmp = tile_arg("%tmp", dtype, shape, shape, None, nprng)
    body = f"pto.ttrans ins(%src, %tmp : {src.type}, {tmp.type}) outs(%dst : {dst.type})"
    return Case("ttrans", f"{dtype} {shape} valid {valid}", _arch(rng), [src, tmp, dst], body)


def tconcat_case(rng: random.Random) -> Case:
    nprng = np.random.default_rng(rng.getrandbits(32))
    dtype = rng.choice(("f32", "f16", "i32", "i16", "i8"))
    unit = 32 // SIZES[dtype]
    rows = rng.choice((1, 2, 4, 8))
    c0, c1 = unit * rng.choice((1, 2)), unit * rng.choice((1, 2))
    a = tile_arg("%src0", dtype, (rows, c0), (rows, c0), None, nprng)
    b = tile_arg("%src1", dtype, (rows, c1), (rows, c1), None, nprng)
    dst = tile_arg("%dst", dtype, (rows, c0 + c1), (rows, c0 + c1), None, nprng, written=True)
    body = f"pto.tconcat ins(%src0, %src1 : {a.type}, {b.type}) outs(%dst : {dst.type})"
    return Case("tconcat", f"{dtype} {rows}x{c0} + {rows}x{c1}", _arch(rng), [a, b, dst], body)


def textract_case(rng: random.Random) -> Case:
    nprng = np.random.default_rng(rng.getrandbits(32))
    dtype = rng.choice(("f32", "f16", "i8"))
    unit = 32 // SIZES[dtype]
    shape = (rng.choice((4, 8, 16)), unit * rng.choice((2, 4)))
    src = tile_arg("%src", dtype, shape, shape, None, nprng)
    dshape = (shape[0] // 2, shape[1] // 2)
    r0, c0 = rng.randint(0, shape[0] - dshape[0]), unit * rng.randint(0, (shape[1] - dshape[1]) // unit)
    dst = tile_arg("%dst", dtype, dshape, dshape, None, nprng, written=True)
    args = [src, ScalarArg("%r", "index", r0), ScalarArg("%c", "index", c0), dst]
    body = f"pto.textract ins(%src, %r, %c : {src.type}, index, index) outs(%dst : {dst.type})"
    return Case("textract", f"{dtype} {shape} window {dshape} at ({r0}, {c0})", _arch(rng), args, body)


def tmov_case(rng: random.Random) -> Case:
    nprng = np.random.default_rng(rng.getrandbits(32))
    dtype = rng.choice(VECTOR_DTYPES)
    tiles = Tiles(rng)
    shape = tiles.shape(dtype)
    valid, spelled = tiles.valid(shape)
    src = tile_arg("%src", dtype, shape, valid, spelled, nprng)
    dst = tile_arg("%dst", dtype, shape, valid, spelled, nprng, written=True)
    return Case("tmov", f"{dtype} {shape} valid {valid}", _arch(rng), [src, dst], f"pto.tmov ins(%src : {src.type}) outs(%dst : {dst.type})")


MATMUL_TYPES = (("f16", "f32"), ("f32", "f32"), ("i8", "i32"))


def matmul_case(op: str, rng: random.Random) -> Case:
    nprng = np.random.default_rng(rng.getrandbits(32))
    arch = _arch(rng)
    a_dtype, c_dtype = rng.choice(MATMUL_TYPES)
    m, k, n = 16 * rng.choice((1, 2)), (32 // SIZES[a_dtype]) * rng.choice((1, 2)), 16 * rng.choice((1, 2))
    left_layout = {"blayout": "col_major", "slayout": "row_major"} if arch == "a5" else {"slayout": "row_major"}
    style = "small" if rng.random() < 0.4 else "mixed"
    lhs = tile_arg("%lhs", a_dtype, (m, k), (m, k), None, nprng, loc="left", style=style, **left_layout)
    rhs = tile_arg("%rhs", a_dtype, (k, n), (k, n), None, nprng, loc="right", style=style, slayout="col_major")  # row_major blayout: a5's too
    acc_layout = {"blayout": "col_major", "slayout": "row_major", "fractal": 1024}
    dst = tile_arg("%dst", c_dtype, (m, n), (m, n), None, nprng, loc="acc", written=True, style=style, **acc_layout)
    if op == "tmatmul":
        body = f"pto.tmatmul ins(%lhs, %rhs : {lhs.type}, {rhs.type}) outs(%dst : {dst.type})"
        return Case(op, f"{a_dtype}->{c_dtype} {m}x{k}x{n}", arch, [lhs, rhs, dst], body, kind="cube")
    body = f"pto.tmatmul.acc ins(%dst, %lhs, %rhs : {dst.type}, {lhs.type}, {rhs.type}) outs(%dst : {dst.type})"
    return Case(op, f"{a_dtype}->{c_dtype} {m}x{k}x{n}", arch, [lhs, rhs, dst], body, kind="cube")


def tsetval_case(rng: random.Random) -> Case:
    nprng = np.random.default_rng(rng.getrandbits(32))
    dtype = rng.choice(VECTOR_DTYPES)
    shape = Tiles(rng).shape(dtype)
    dst = tile_arg("%dst", dtype, shape, shape, None, nprng, written=True)
    offset = rng.randrange(shape[0] * shape[1])
    args = [ScalarArg("%off", "index", offset), ScalarArg("%v", dtype, _scalar_value(dtype, rng, "tsetval")), dst]
    body = f"pto.tsetval ins(%off, %v : index, {dtype}) outs(%dst : {dst.type})"
    return Case("tsetval", f"{dtype} {shape} offset {offset}", _arch(rng), args, body)


FAMILIES: dict[str, Callable[[random.Random], Case]] = {
    **{op: (lambda rng, op=op: binary_case(op, rng)) for op in BINARY},
    **{op: (lambda rng, op=op: scalar_case(op, rng)) for op in SCALAR},
    **{op: (lambda rng, op=op: unary_case(op, rng)) for op in UNARY},
    "tcvt": lambda rng: tcvt_case(rng),
    **{op: (lambda rng, op=op: reduction_case(op, rng)) for op in REDUCTIONS},
    **{op: (lambda rng, op=op: colred_case(op, rng)) for op in ("tcolsum", "tcolmax")},
    "trowexpand": rowexpand_case,
    **{op: (lambda rng, op=op: rowexpand_binary_case(op, rng)) for op in ROW_EXPAND},
    **{op: (lambda rng, op=op: colexpand_case(op, rng)) for op in ("tcolexpand", *COL_EXPAND)},
    "texpands": texpands_case,
    "tfillpad": tfillpad_case,
    "tci": tci_case,
    "tgather": tgather_case,
    "ttrans": ttrans_case,
    "tconcat": tconcat_case,
    "textract": textract_case,
    "tmov": tmov_case,
    **{op: (lambda rng, op=op: matmul_case(op, rng)) for op in ("tmatmul", "tmatmul.acc")},
    "tsetval": tsetval_case,
}


def cases_for(op: str, rng: random.Random) -> Case:
    return FAMILIES[op](rng)


CI_SEED = 27
CI_CASES = 720
CI_VARIANTS = 3


def ci_batch() -> list[Case]:
    """The bounded batch the oracle tests run (docs/semantics.md's table is
    its report): CI_CASES cases over every family, CI_VARIANTS element sets
    per compiled function, then every tcvt mode of both targets."""
    return generate(CI_SEED, CI_CASES, variants=CI_VARIANTS) + tcvt_modes()


def generate(seed: int, count: int, ops=None, variants: int = 1) -> list[Case]:
    """`count` cases, every op in turn (`ops`: those only); `variants`
    consecutive cases share their types and differ in their elements (one
    compiled function runs them all: compiling is what a batch costs)."""
    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    ops = sorted(ops or FAMILIES)
    out: list[Case] = []
    k = 0
    while len(out) < count:
        case = cases_for(ops[k % len(ops)], rng)
        k += 1
        out.append(case)
        out.extend(resample(case, nprng) for _ in range(min(variants, count - len(out) + 1) - 1))
    return out[:count]
