"""The inputs of an executed function: its arguments, named as written in
the source, filled from a seed or given by the user.

Global-memory arguments become numpy arrays filled from the seed (one
generator per argument position, so the same seed gives the same inputs
before and after a pass): a memref, or a `!pto.tensor_view` /
`!pto.partition_tensor_view` argument, holds its shape's elements (dynamic
dimensions given by the user); a `!pto.ptr` argument is a 1-D buffer that
grows as far as its tensor views reach, filled block by block from the
seed so that an element's value depends only on its position, not on when
the buffer grew. Integer, index and float arguments take user values. A
tile or multi-tile argument (a kernel called with tiles its caller owns)
becomes a private buffer filled from the seed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from mlir import ir

from ..dialect.types import DYNAMIC, PtrType, ViewType, multi_tile_type, pto_type, tile_type
from ..support.diagnostics import location_position
from ..support.run_limits import DEFAULT_MAX_ARG_BYTES
from ..support.value_names import name_of
from .elements import STORAGE_DTYPES, f32_to_bf16_bits, is_float, round_to, to_storage
from .errors import InterpreterError, OpFault
from .memory import GlobalBuffer, Memory, ViewRef, row_major_strides
from .scalars import float_name, int_width, wrap

Value = int | float | tuple | np.ndarray  # a scalar argument's value, a GM argument's shape, or its elements


FILL_BLOCK = 4096
"""Elements of a pointer argument's buffer filled by one generator."""

_ARG_DECL = re.compile(r"(%[\w$.\-]+)\s*:")

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
    """The function's arguments with the names and positions the source
    gives them (the name kept at parsing, support/value_names.py, else the
    one on the source line, else `%argN`).

    The parser records each argument's line and column in the text it
    parsed, which is the source translated to the generic form: lines are
    the source's, columns are not (types get longer). So the k-th argument
    on a line is the k-th `%name:` on that line of the source (on the
    function's own line, after its `@name(`); its location is put there.
    """
    block = func.regions[0].blocks[0]
    lines = source_text.split("\n") if source_text is not None else []
    _, func_line, func_col = location_position(func.location)
    positions = [location_position(arg.location) for arg in block.arguments]
    out = []
    for i, arg in enumerate(block.arguments):
        location = arg.location
        kept = name_of(location)
        name = f"%{kept}" if kept is not None else f"%arg{i}"
        file, line, col = positions[i]
        if 0 < line <= len(lines):
            k = sum(1 for _, other_line, other_col in positions if other_line == line and other_col < col)
            text = lines[line - 1]
            start = 0
            if line == func_line:
                paren = text.find("(", max(func_col - 1, 0))
                start = paren + 1 if paren >= 0 else 0
            found = list(_ARG_DECL.finditer(text, start))
            if k < len(found):
                if kept is None:
                    name = found[k].group(1)
                if file is not None and found[k].start() + 1 != col:
                    location = ir.Location.file(file, line, found[k].start() + 1, context=arg.location.context)
        out.append(Argument(i, name, arg.type, location))
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


FILL_CHUNK = 1 << 18
"""Elements drawn at once by `fill`: the generator draws in float64 or
int64, two to eight times an element's storage, so a large argument is
drawn a chunk at a time into its storage (the same values: a generator's
draws do not depend on how they are split)."""


def fill(dtype: str, shape: tuple[int, ...], rng: np.random.Generator, out: np.ndarray | None = None) -> np.ndarray:
    """Seeded elements of `dtype` (storage dtype: bf16 as bit patterns),
    drawn into `out` (flat, of the storage dtype) when given. Memory: the
    result and one chunk of draws (docs/reliability.md, "Bounded cost")."""
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    flat = np.empty(count, dtype=STORAGE_DTYPES[dtype]) if out is None else out
    for start in range(0, count, FILL_CHUNK):
        size = min(FILL_CHUNK, count - start)
        if is_float(dtype):
            values = rng.uniform(*FLOAT_RANGE, size=size)
            flat[start : start + size] = f32_to_bf16_bits(values.astype(np.float32)) if dtype == "bf16" else round_to(dtype, values)
        else:
            flat[start : start + size] = rng.integers(*INT_RANGES[dtype], size=size)
    return flat.reshape(shape) if out is None else flat


def _rng(seed: int, *index: int) -> np.random.Generator:
    return np.random.default_rng([seed & ((1 << 64) - 1), *index])


class ArgumentBudget:
    """What is left of the bytes global-memory arguments may take."""

    def __init__(self, nbytes: int) -> None:
        self.left = nbytes

    def take(self, nbytes: int) -> bool:
        self.left -= nbytes
        return self.left >= 0


def gm_kind(t: ir.Type) -> str | None:
    """The kind of a global-memory argument type ("memref", "ptr",
    "tensor_view" or "partition_tensor_view"), else None."""
    if isinstance(t, ir.MemRefType):
        return "memref"
    view = pto_type(t)
    if isinstance(view, PtrType):
        return "ptr"
    if isinstance(view, ViewType):
        return view.kind
    return None


def _shape_of(arg: Argument, static: tuple[int, ...], dynamic: set[int], what: str, given: tuple[int, ...] | None) -> tuple[int, ...]:
    """The shape of a shaped GM argument: its type's, with the dynamic
    dimensions (positions `dynamic`) the user gave."""
    if given is not None:
        fits = len(given) == len(static) and all(i in dynamic or d == g for i, (d, g) in enumerate(zip(static, given)))
        if not fits or any(g < 0 for g in given):
            raise InterpreterError(arg.location, f"shape {'x'.join(map(str, given))} given for {arg.name} does not fit its type {what}")
        return given
    if dynamic:
        example = "x".join("N" if i in dynamic else str(d) for i, d in enumerate(static))
        raise InterpreterError(
            arg.location, f"argument {arg.name} of type {what} has a dynamic shape: give one with --arg {arg.name[1:]}={example}"
        )
    return static


def _charge(arg: Argument, what: str, nbytes: int, budget: ArgumentBudget) -> None:
    if not budget.take(nbytes):
        raise InterpreterError(
            arg.location,
            f"argument {arg.name} of type {what} needs {nbytes} bytes, beyond the limit on argument memory "
            f"(pto-run --max-arg-bytes raises it)",
        )


def _shaped_type(arg: Argument) -> tuple[str, str | None, tuple[int, ...], set[int]]:
    """A memref, tensor view or partition argument's type: its spelling,
    element type (None when pto-run has no storage for it), static shape and
    which dims are dynamic."""
    t = arg.type
    if isinstance(t, ir.MemRefType):
        static = tuple(t.shape)
        return str(t), element_name(t.element_type), static, {i for i, d in enumerate(static) if ir.ShapedType.is_dynamic_size(d)}
    view = pto_type(t)
    dtype = view.dtype if view.dtype in STORAGE_DTYPES else None
    return view.ptoas(), dtype, view.shape, {i for i, d in enumerate(view.shape) if d == DYNAMIC}


def _shaped(arg: Argument, seed: int, budget: ArgumentBudget, given: tuple[int, ...] | None) -> GlobalBuffer:
    """A memref, tensor view or partition argument: its elements, row-major."""
    what, dtype, static, dynamic = _shaped_type(arg)
    if dtype is None:
        raise InterpreterError(arg.location, f"argument {arg.name} of type {what}: its element type is not supported by pto-run")
    shape = _shape_of(arg, static, dynamic, what, given)
    nbytes = STORAGE_DTYPES[dtype].itemsize
    for d in shape:
        nbytes *= d
    _charge(arg, what, nbytes, budget)
    return GlobalBuffer(arg.name, what, dtype, fill(dtype, shape, _rng(seed, arg.index)).reshape(-1), shape)  # (a view: no copy)


def _from_array(arg: Argument, data: np.ndarray, budget: ArgumentBudget) -> GlobalBuffer:
    """A global-memory argument holding the elements the user gave
    (`--arg NAME=@FILE.npy`): converted to the element type only where
    every value survives (integers in range, floats rounded as the type
    rounds them); a pointer is as long as the array, a tensor view or memref
    has its shape (its static dims must agree)."""
    if gm_kind(arg.type) == "ptr":
        ptr = pto_type(arg.type)
        what, dtype, static = ptr.ptoas(), ptr.dtype, None
    else:
        what, dtype, shape, dynamic = _shaped_type(arg)
        static = tuple(None if i in dynamic else d for i, d in enumerate(shape))
    if dtype not in STORAGE_DTYPES:
        raise InterpreterError(arg.location, f"argument {arg.name} of type {what}: its element type is not supported by pto-run")
    if static is not None and (data.ndim != len(static) or any(s is not None and s != d for s, d in zip(static, data.shape))):
        raise InterpreterError(arg.location, f"argument {arg.name} of type {what}: the array given has shape {'x'.join(map(str, data.shape))}")
    if data.dtype.kind not in "biuf":
        raise InterpreterError(arg.location, f"argument {arg.name}: the array given holds {data.dtype}, not numbers")
    if is_float(dtype):
        stored = to_storage(dtype, round_to(dtype, data.astype(np.float64)))
    else:
        if data.dtype.kind == "f" and not np.array_equal(data, np.round(data)):
            raise InterpreterError(arg.location, f"argument {arg.name} of type {what}: the array given holds fractions")
        stored = data.astype(STORAGE_DTYPES[dtype])
        if not np.array_equal(stored.astype(np.float64), data.astype(np.float64)):
            raise InterpreterError(arg.location, f"argument {arg.name} of type {what}: the array given holds values {dtype} cannot hold")
    _charge(arg, what, stored.nbytes, budget)
    flat = np.ascontiguousarray(stored).reshape(-1)
    shape = None if static is None else tuple(data.shape)

    def grow(flat: np.ndarray, elements: int) -> np.ndarray:
        raise OpFault(f"a tensor view reaches {elements} elements of {arg.name}, beyond the {flat.size} the array given holds")

    return GlobalBuffer(arg.name, what, dtype, flat, shape, grow=grow if static is None else None)


def _pointer(arg: Argument, seed: int, budget: ArgumentBudget) -> GlobalBuffer:
    """A `!pto.ptr` argument: empty until a tensor view reaches into it."""
    ptr = pto_type(arg.type)
    what = ptr.ptoas()
    if ptr.space != "gm":
        raise InterpreterError(arg.location, f"argument {arg.name} of type {what}: pto-run provides pointers to global memory only")
    dtype = ptr.dtype
    if dtype not in STORAGE_DTYPES:
        raise InterpreterError(arg.location, f"argument {arg.name} of type {what}: its element type is not supported by pto-run")
    storage = STORAGE_DTYPES[dtype]

    def grow(flat: np.ndarray, elements: int) -> np.ndarray:
        if not budget.take((elements - flat.size) * storage.itemsize):
            raise OpFault(
                f"a tensor view reaches {elements} elements of {arg.name} ({elements * storage.itemsize} bytes), "
                f"beyond the limit on argument memory (pto-run --max-arg-bytes raises it)"
            )
        # The buffer as far as `elements`, made once: the old elements and
        # the new blocks go straight into it (no list of blocks joined, no
        # second array); a block the old end cuts is drawn whole.
        grown = np.empty(elements, dtype=storage)
        grown[: flat.size] = flat
        first, last = flat.size // FILL_BLOCK, (elements - 1) // FILL_BLOCK
        block = np.empty(FILL_BLOCK, dtype=storage)
        for k in range(first, last + 1):
            start, end = max(k * FILL_BLOCK, flat.size), min((k + 1) * FILL_BLOCK, elements)
            if start == k * FILL_BLOCK and end == start + FILL_BLOCK:
                fill(dtype, (FILL_BLOCK,), _rng(seed, arg.index, k), out=grown[start:end])
            else:
                fill(dtype, (FILL_BLOCK,), _rng(seed, arg.index, k), out=block)
                grown[start:end] = block[start - k * FILL_BLOCK : end - k * FILL_BLOCK]
        return grown

    return GlobalBuffer(arg.name, what, dtype, np.empty(0, dtype=storage), grow=grow)


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
    """Runtime values for `args` and the global-memory buffers among them.

    `given` maps argument names (`%n`, see `resolve_values`) to the values
    of scalar arguments and the shapes of dynamically shaped GM arguments.
    """
    missing = [a for a in args if _is_scalar(a) and given.get(a.name) is None]
    if len(missing) > 1:  # all of them at once, at the first
        names = ", ".join(f"{a.name} ({a.type})" for a in missing)
        flags = " ".join(f"--arg {a.name[1:]}=VALUE" for a in missing)
        raise InterpreterError(missing[0].location, f"no values for the {len(missing)} arguments {names} (pass {flags})")
    budget = ArgumentBudget(max_arg_bytes)
    values: list = []
    buffers: list[GlobalBuffer] = []
    for arg in args:
        t = arg.type
        kind = gm_kind(t)
        data = given.get(arg.name)
        if kind is not None and isinstance(data, np.ndarray):
            buf = _from_array(arg, data, budget)
            buffers.append(buf)
            values.append(buf if kind in ("ptr", "memref") else ViewRef(buf, 0, buf.shape, row_major_strides(buf.shape), kind))
        elif kind == "ptr":
            buf = _pointer(arg, seed, budget)
            buffers.append(buf)
            values.append(buf)
        elif kind is not None:
            shape = given.get(arg.name)
            buf = _shaped(arg, seed, budget, shape if isinstance(shape, tuple) else None)
            buffers.append(buf)
            values.append(buf if kind == "memref" else ViewRef(buf, 0, buf.shape, row_major_strides(buf.shape), kind))
        elif int_width(t) is not None or float_name(t) is not None:
            values.append(_scalar(arg, given))
        elif tile_type(t) is not None or multi_tile_type(t) is not None:
            try:
                values.append(_buffer_argument(arg, memory, seed))
            except OpFault as e:  # an element type pto-run has no storage for
                raise InterpreterError(arg.location, f"argument {arg.name}: {e}") from None
        else:
            view = pto_type(t)
            raise InterpreterError(arg.location, f"argument {arg.name} has type {view or t}, which pto-run cannot provide")
    return values, buffers


def _is_scalar(arg: Argument) -> bool:
    return int_width(arg.type) is not None or float_name(arg.type) is not None


def _is_shaped(arg: Argument) -> bool:
    return gm_kind(arg.type) not in (None, "ptr")


def _buffer_argument(arg: Argument, memory: Memory, seed: int):
    """A tile or multi-tile argument: a private buffer filled from the seed."""
    t = arg.type
    if tile_type(t) is not None:
        ref = memory.tile(("argument", arg.index), tile_type(t), None)
        ref.store(fill(ref.layout.dtype, ref.layout.shape, _rng(seed, arg.index)))
        return ref
    mb = memory.multi_tile(("argument", arg.index), multi_tile_type(t), None)
    rng = _rng(seed, arg.index)
    for k in range(mb.count):
        slot = mb.slot(k)
        slot.store(fill(slot.layout.dtype, slot.layout.shape, rng))
    return mb


def resolve_values(args: list[Argument], given: dict[str, Value]) -> dict[str, Value]:
    """User values keyed by what the user wrote (`n`, `%n`, `arg2`) ->
    keyed by argument name. Numbers go to scalar arguments, shapes (tuples;
    a single number for a rank-1 one) to memref and tensor view arguments."""
    out: dict[str, Value] = {}
    for key, value in given.items():
        arg = lookup(args, key)
        shaped = arg is not None and _is_shaped(arg)
        if shaped and isinstance(value, int) and not isinstance(value, bool):
            value = (value,)
        if isinstance(value, np.ndarray):
            if arg is None or not (shaped or gm_kind(arg.type) == "ptr"):
                absent = "" if arg else "; the function has no argument of that name"
                raise InterpreterError(None, f"--arg {key}: an array is for a pointer, tensor view or memref argument{absent}")
            out[arg.name] = value
            continue
        if isinstance(value, tuple) and not shaped:
            raise InterpreterError(
                None,
                f"--arg {key}: a shape is for a memref or tensor view argument"
                + ("" if arg else "; the function has no argument of that name"),
            )
        if not isinstance(value, tuple) and not (arg is not None and _is_scalar(arg)):
            scalar_names = [a.name[1:] for a in args if _is_scalar(a)]
            raise InterpreterError(
                None,
                f"--arg {key}: the function has no integer, index or float argument of that name"
                + (f" (it has: {', '.join(scalar_names)})" if scalar_names else " (it has none)"),
            )
        out[arg.name] = value
    return out
