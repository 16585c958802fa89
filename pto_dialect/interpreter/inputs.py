"""The inputs of an executed function: its arguments, named as written in
the source, filled from a seed or given by the user.

Memref arguments become numpy arrays filled from the seed (one generator per
argument position, so the same seed gives the same inputs before and after a
pass). Integer, index and float arguments take user values. A tile or
multi-tile argument (a kernel called with tiles its caller owns) becomes a
private buffer filled from the seed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from mlir import ir

from ..diagnostics import location_position
from ..types import multi_tile_type, tile_type
from .elements import STORAGE_DTYPES, f32_to_bf16_bits, is_float, round_to
from .errors import InterpreterError
from .memory import GlobalBuffer, Memory
from .scalars import float_name, int_width, wrap

Value = int | float | tuple  # a scalar argument's value, or a memref argument's shape

DEFAULT_MAX_ARG_BYTES = 256 << 20
"""Largest total size of memref arguments a run allocates."""

_SSA_NAME = re.compile(r"%[\w$.\-]+")

# Values memref arguments are filled with: floats uniform in [-2, 2), rounded
# to the type; integers uniform over a range the type holds.
FLOAT_RANGE = (-2.0, 2.0)
INT_RANGES = {"i1": (0, 2), "i8": (-128, 128), "i16": (-32768, 32768), "i32": (-(1 << 16), 1 << 16), "i64": (-(1 << 16), 1 << 16)}


@dataclass(frozen=True)
class Argument:
    index: int
    name: str  # as written in the source ("%A"), else "%argN"
    type: ir.Type
    location: ir.Location


def arguments(func: ir.Operation, source_text: str | None) -> list[Argument]:
    """The function's arguments with the names the source gives them (the
    parser records each argument's position; its name is the SSA id there)."""
    block = func.regions[0].blocks[0]
    lines = source_text.split("\n") if source_text is not None else []
    out = []
    for i, arg in enumerate(block.arguments):
        name = f"%arg{i}"
        _, line, col = location_position(arg.location)
        if 0 < line <= len(lines):
            m = _SSA_NAME.match(lines[line - 1], max(col - 1, 0))
            if m:
                name = m.group(0)
        out.append(Argument(i, name, arg.type, arg.location))
    return out


def lookup(args: list[Argument], key: str) -> Argument | None:
    """The argument `key` names: its source name (with or without `%`),
    else `argN` for position N."""
    wanted = key if key.startswith("%") else "%" + key
    for a in args:
        if a.name == wanted:
            return a
    m = re.fullmatch(r"%?arg(\d+)", key)
    if m and int(m.group(1)) < len(args):
        return args[int(m.group(1))]
    return None


def element_name(t: ir.Type) -> str | None:
    name = str(t)
    return name if name in STORAGE_DTYPES else None


def fill(dtype: str, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Seeded elements of `dtype` (storage dtype: bf16 as bit patterns)."""
    if is_float(dtype):
        values = rng.uniform(*FLOAT_RANGE, size=shape)
        if dtype == "bf16":
            return f32_to_bf16_bits(values.astype(np.float32))
        return round_to(dtype, values)
    lo, hi = INT_RANGES[dtype]
    return rng.integers(lo, hi, size=shape).astype(STORAGE_DTYPES[dtype])


def _rng(seed: int, index: int) -> np.random.Generator:
    return np.random.default_rng([seed & ((1 << 64) - 1), index])


def _memref(arg: Argument, seed: int, budget: list[int], shape_given: tuple[int, ...] | None) -> GlobalBuffer:
    t = ir.MemRefType(arg.type)
    dtype = element_name(t.element_type)
    if dtype is None:
        raise InterpreterError(arg.location, f"memref argument {arg.name}: element type {t.element_type} is not supported")
    shape = tuple(t.shape)
    if shape_given is not None:
        fits = len(shape_given) == len(shape) and all(
            ir.ShapedType.is_dynamic_size(d) or d == g for d, g in zip(shape, shape_given)
        )
        if not fits or any(g < 0 for g in shape_given):
            raise InterpreterError(
                arg.location, f"shape {'x'.join(map(str, shape_given))} given for {arg.name} does not fit its type {t}"
            )
        shape = shape_given
    elif not t.has_static_shape:
        raise InterpreterError(
            arg.location,
            f"memref argument {arg.name} of type {t} has a dynamic shape: give one with --arg {arg.name[1:]}=RxC",
        )
    nbytes = STORAGE_DTYPES[dtype].itemsize
    for d in shape:
        nbytes *= d
    budget[0] -= nbytes
    if budget[0] < 0:
        raise InterpreterError(
            arg.location,
            f"memref argument {arg.name} of type {t} needs {nbytes} bytes, beyond the limit on argument memory "
            f"(pto-run --max-arg-bytes raises it)",
        )
    return GlobalBuffer(arg.name, dtype, fill(dtype, shape, _rng(seed, arg.index)))


def _scalar(arg: Argument, given: dict[str, Value]) -> int | float:
    raw = given.get(arg.name)
    if raw is None:
        raise InterpreterError(arg.location, f"no value for argument {arg.name} of type {arg.type} (pass --arg {arg.name[1:]}=VALUE)")
    w = int_width(arg.type)
    if w is not None:
        if not isinstance(raw, int):
            raise InterpreterError(arg.location, f"argument {arg.name} of type {arg.type} needs an integer, got {raw}")
        return wrap(raw, w)
    return float(round_to(float_name(arg.type), np.array(float(raw))))


def make_arguments(
    args: list[Argument],
    given: dict[str, Value],
    seed: int,
    memory: Memory,
    max_arg_bytes: int = DEFAULT_MAX_ARG_BYTES,
) -> tuple[list, list[GlobalBuffer]]:
    """Runtime values for `args` and the memref buffers among them.

    `given` maps argument names (`%n`, see `resolve_values`) to the values
    of scalar arguments and the shapes of dynamically shaped memrefs.
    """
    budget = [max_arg_bytes]
    values: list = []
    buffers: list[GlobalBuffer] = []
    for arg in args:
        t = arg.type
        if isinstance(t, ir.MemRefType):
            shape = given.get(arg.name)
            buf = _memref(arg, seed, budget, shape if isinstance(shape, tuple) else None)
            buffers.append(buf)
            values.append(buf)
        elif int_width(t) is not None or float_name(t) is not None:
            values.append(_scalar(arg, given))
        elif tile_type(t) is not None:
            ref = memory.tile(("argument", arg.index), tile_type(t), None)
            ref.store(fill(ref.layout.dtype, ref.layout.shape, _rng(seed, arg.index)))
            values.append(ref)
        elif multi_tile_type(t) is not None:
            mb = memory.multi_tile(("argument", arg.index), multi_tile_type(t), None)
            rng = _rng(seed, arg.index)
            for k in range(mb.count):
                slot = mb.slot(k)
                slot.store(fill(slot.layout.dtype, slot.layout.shape, rng))
            values.append(mb)
        else:
            raise InterpreterError(arg.location, f"argument {arg.name} has type {t}, which pto-run cannot provide")
    return values, buffers


def resolve_values(args: list[Argument], given: dict[str, Value]) -> dict[str, Value]:
    """User values keyed by what the user wrote (`n`, `%n`, `arg2`) ->
    keyed by argument name. Numbers go to scalar arguments, shapes (tuples)
    to memref arguments."""
    out: dict[str, Value] = {}
    for key, value in given.items():
        arg = lookup(args, key)
        scalar = arg is not None and (int_width(arg.type) is not None or float_name(arg.type) is not None)
        memref = arg is not None and isinstance(arg.type, ir.MemRefType)
        if isinstance(value, tuple) and not memref:
            raise InterpreterError(None, f"--arg {key}: a shape is for a memref argument" + ("" if arg else "; the function has no argument of that name"))
        if not isinstance(value, tuple) and not scalar:
            scalar_names = [a.name[1:] for a in args if int_width(a.type) is not None or float_name(a.type) is not None]
            raise InterpreterError(
                None,
                f"--arg {key}: the function has no integer, index or float argument of that name"
                + (f" (it has: {', '.join(scalar_names)})" if scalar_names else " (it has none)"),
            )
        out[arg.name] = value
    return out
