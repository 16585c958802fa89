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
    return TileArg(name, tile_text(loc, dtype, shape, spelled, **layout), dtype, tuple(shape), tuple(valid), values(dtype, shape, nprng, style=style), written)


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
        a = TileArg(a.name, a.type, a.dtype, a.shape, a.valid, a.data, True)
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
    tiles = Tiles(rng)
    # both tiles hold the same elements per row: rows a 32-byte multiple for the narrower type
    unit = 32 // min(SIZES[s], SIZES[d])
    rows = rng.choice(Tiles.ROWS)
    cols = unit * rng.choice(Tiles.BLOCKS)
    shape = (rows, cols)
    valid, spelled = tiles.valid(shape)
    src = tile_arg("%src", s, shape, valid, spelled, nprng, style="ties" if s in FLOATS else "mixed")
    dst = tile_arg("%dst", d, shape, valid, spelled, nprng, written=True)
    arch = arch or _arch(rng)

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
    """Every tcvt conversion, round mode and saturation mode on both
    arches, once each (the cases `generate` adds to a random batch)."""
    rng = random.Random(27)
    cases = []
    for arch in ARCHS:
        for s in CVT_TYPES:
            for d in CVT_TYPES:
                if s == d and s not in FLOATS:
                    continue
                for rmode in ROUND_MODES:
                    for sat in SAT_MODES:
                        cases.append(tcvt_case(rng, s, d, rmode, sat, arch))
    return cases


FAMILIES: dict[str, Callable[[random.Random], Case]] = {
    **{op: (lambda rng, op=op: binary_case(op, rng)) for op in BINARY},
    **{op: (lambda rng, op=op: scalar_case(op, rng)) for op in SCALAR},
    **{op: (lambda rng, op=op: unary_case(op, rng)) for op in UNARY},
    "tcvt": lambda rng: tcvt_case(rng),
}


def cases_for(op: str, rng: random.Random) -> Case:
    return FAMILIES[op](rng)


def generate(seed: int, count: int, ops=None) -> list[Case]:
    """`count` cases, every op in turn (`ops`: those only)."""
    rng = random.Random(seed)
    ops = sorted(ops or FAMILIES)
    return [cases_for(ops[k % len(ops)], rng) for k in range(count)]
