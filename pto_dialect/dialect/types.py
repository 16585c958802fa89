"""The pto types: one typed view per type, each with its two spellings
(docs/dialect.md, "Types").

- the ptoas spelling users read and write (`!pto.tile_buf<vec, 16x16xf16>`,
  the verbose `!pto.tile_buf<loc=vec, dtype=f16, rows=16, ...>`), parsed
  with ptoas's own rules and messages and printed as ptoas's printer prints
  it (compact, defaults omitted);
- the generic spelling of the IRDL file (`!pto.tile_buf<"vec", array<i64:
  16, 16>, f16, ...>`), which is what MLIR parses and prints; every field is
  a parameter, so nothing is lost between the two.

IRDL types are dynamic: the bindings expose them as plain `ir.Type` with no
parameter accessors, so views are read from their printed (generic) text,
cached per Context by the type's hash.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache

from mlir import ir

from ..support.brackets import balanced_end, split_top
from ..support.source_text import integer_literal

DYNAMIC = -1
"""A valid-shape or view dimension that is `?`."""

LOCS = ("vec", "mat", "left", "right", "acc", "bias", "scaling")
SPACES = LOCS
"""The memory spaces a tile can live in (docs/dialect.md, "Memory spaces")."""
BLAYOUTS = ("row_major", "col_major")
SLAYOUTS = ("none_box", "row_major", "col_major")
FRACTALS = (32, 512, 1024)
PADS = (0, 1, 2, 3)
COMPACTS = (0, 1, 2)
ROW_PLUS_ONE = 2
"""The compact mode whose rows (or columns) are padded by one element."""

# Element types a tile, pointer or view may hold, by their MLIR spelling, and
# their storage size in bytes (i1 has no byte size: ptoas refuses tiles of it).
_INTEGERS = {f"{sign}{width}": width // 8 for width in (8, 16, 32, 64) for sign in ("i", "si", "ui")}
DTYPE_BYTES: dict[str, int] = {
    "i1": 0,
    **_INTEGERS,
    "f16": 2,
    "bf16": 2,
    "f32": 4,
    "f64": 8,
    **{t: 1 for t in ("f8E4M3FN", "f8E4M3", "f8E4M3FNUZ", "f8E4M3B11FNUZ", "f8E5M2", "f8E5M2FNUZ")},
    **{f"!pto.{t}": 1 for t in ("hif8", "f8E8M0", "f4E1M2x2", "f4E2M1x2")},
    "!pto.hif8x2": 2,
    "!pto.bf16x2": 4,
}

LOW_PRECISION = frozenset(t for t in DTYPE_BYTES if t.startswith(("f8", "!pto.")))
"""ptoas's low-precision element types: kept and printed; multi-tile slots
and most compute ops refuse them."""
LOW_PRECISION_TYPE = "low_precision"
"""The generic type of the pto element types."""
PTO_ELEMENT_TYPES = tuple(t.removeprefix("!pto.") for t in DTYPE_BYTES if t.startswith("!pto."))
"""The parameterless pto element types (`!pto.hif8`, ...)."""

# !pto.ptr spaces: what ptoas reads (hardware names too) -> the space, and
# what its printer writes for each space.
PTR_SPACE_NAMES = {
    "gm": "gm",
    "mat": "mat", "l1": "mat",
    "left": "left", "l0a": "left",
    "right": "right", "l0b": "right",
    "acc": "acc", "l0c": "acc",
    "vec": "vec", "ub": "vec",
    "bias": "bias", "bt": "bias",
    "scaling": "scaling", "fb": "scaling",
}  # fmt: skip
PTR_SPACES = ("gm", *LOCS)
PTR_PRINTED = {"gm": "gm", "mat": "l1", "left": "l0a", "right": "l0b", "acc": "l0c", "vec": "ub", "bias": "bt", "scaling": "fb"}


def generic_dtype(dtype: str) -> str:
    """An element type's generic spelling (`!pto.hif8` is `!pto.low_precision<"hif8">`)."""
    return f'!pto.low_precision<"{dtype[5:]}">' if dtype.startswith("!pto.") else dtype


def ptoas_dtype(dtype: str) -> str:
    """An element type's ptoas spelling, from either spelling."""
    m = _GENERIC_LOW_PRECISION.fullmatch(dtype)
    return f"!pto.{m.group(1)}" if m else dtype


def align_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


def dim_text(d: int) -> str:
    """A dimension as ptoas spells it: its size, or `?`."""
    return "?" if d == DYNAMIC else str(d)


def _dims(dims) -> str:
    return ", ".join(str(d) for d in dims)


class TypeSyntaxError(ValueError):
    """Type text that does not parse or breaks a type rule; `offset` is
    where in the text, as ptoas's parser reports it."""

    def __init__(self, message: str, offset: int = 0) -> None:
        super().__init__(message)
        self.offset = offset


# --- the views -------------------------------------------------------------------


class _TypeView:
    """What every view of a pto type has: its ptoas spelling (also its
    `str`), its generic spelling, and the `ir.Type` that one parses to."""

    def ptoas(self) -> str:
        raise NotImplementedError

    def generic(self) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.ptoas()

    def to_ir(self, context: ir.Context | None = None) -> ir.Type:
        return ir.Type.parse(self.generic(), context)


@dataclass(frozen=True)
class TileBufType(_TypeView):
    """`!pto.tile_buf`: an R x C tile of DTYPE in space LOC, with its valid
    shape (DYNAMIC for `?`) and layout configuration."""

    loc: str
    rows: int
    cols: int
    dtype: str
    valid_row: int = -2  # -2: the shape (filled in __post_init__)
    valid_col: int = -2
    blayout: str = "row_major"
    slayout: str = "none_box"
    fractal: int = 512
    pad: int = 0
    compact: int = 0

    def __post_init__(self) -> None:
        if self.valid_row == -2:
            object.__setattr__(self, "valid_row", self.rows)
        if self.valid_col == -2:
            object.__setattr__(self, "valid_col", self.cols)

    @property
    def shape(self) -> tuple[int, int]:
        return (self.rows, self.cols)

    @property
    def valid(self) -> tuple[int, int]:
        return (self.valid_row, self.valid_col)

    @property
    def dynamic_valid(self) -> tuple[bool, bool]:
        """Which of valid_row, valid_col are `?` (and so need an operand)."""
        return (self.valid_row == DYNAMIC, self.valid_col == DYNAMIC)

    @cached_property
    def element_bytes(self) -> int:
        return DTYPE_BYTES.get(self.dtype, 0)

    @cached_property
    def num_elements(self) -> int:
        return self.rows * self.cols

    @cached_property
    def dense_bytes(self) -> int:
        """rows * cols * sizeof(dtype): what a multi-tile slot's stride counts."""
        return self.num_elements * self.element_bytes

    @cached_property
    def nbytes(self) -> int:
        """The bytes the tile spans: dense, except row_plus_one, whose rows
        (columns, col-major) are one element longer (ptoas's planner)."""
        if self.compact != ROW_PLUS_ONE:
            return self.dense_bytes
        major, minor = (self.rows, self.cols) if self.blayout == "row_major" else (self.cols, self.rows)
        if major == 0 or minor == 0:
            return 0
        return ((major - 1) * (minor + 1) + minor) * self.element_bytes

    def with_valid(self, valid_row: int, valid_col: int) -> TileBufType:
        return replace(self, valid_row=valid_row, valid_col=valid_col)

    def ptoas(self) -> str:
        """What ptoas's printer writes: `LOC, RxCxDTYPE` and each field that
        is not its default, in a fixed order."""
        out = [f"!pto.tile_buf<{self.loc}, {self.rows}x{self.cols}x{self.dtype}"]
        if (self.valid_row, self.valid_col) != (self.rows, self.cols):
            out.append(f", valid={dim_text(self.valid_row)}x{dim_text(self.valid_col)}")
        if self.blayout != "row_major":
            out.append(f", blayout={self.blayout}")
        if self.slayout != "none_box":
            out.append(f", slayout={self.slayout}")
        if self.fractal != 512:
            out.append(f", fractal={self.fractal}")
        if self.pad:
            out.append(f", pad={self.pad}")
        if self.compact:
            out.append(f", compact={self.compact}")
        out.append(">")
        return "".join(out)

    def generic(self) -> str:
        return (
            f'!pto.tile_buf<"{self.loc}", array<i64: {self.rows}, {self.cols}>, {generic_dtype(self.dtype)}, '
            f'array<i64: {self.valid_row}, {self.valid_col}>, "{self.blayout}", "{self.slayout}", '
            f"{self.fractal}, {self.pad}, {self.compact}>"
        )



@dataclass(frozen=True)
class MultiTileBufType(_TypeView):
    """`!pto.multi_tile_buf`: N buffers ("slots") of the slot type."""

    slot: TileBufType
    count: int

    @property
    def loc(self) -> str:
        return self.slot.loc

    def stride(self, alignment: int) -> int:
        """Bytes from one slot's base to the next: the slot's dense bytes
        aligned up (as ptoas strides the slots of a level3 base address)."""
        return align_up(self.slot.dense_bytes, alignment)

    def region_bytes(self, alignment: int) -> int:
        return self.count * self.stride(alignment)

    def ptoas(self) -> str:
        return f"!pto.multi_tile_buf<{self.slot.ptoas()}, count={self.count}>"

    def generic(self) -> str:
        return f"!pto.multi_tile_buf<{self.slot.generic()}, {self.count} : i64>"



@dataclass(frozen=True)
class PtrType(_TypeView):
    """`!pto.ptr<DTYPE, SPACE>`: a pointer into a memory space (GM by default)."""

    dtype: str
    space: str = "gm"

    def ptoas(self, stripped: bool = False) -> str:
        body = f"<{self.dtype}, {PTR_PRINTED[self.space]}>"
        return body if stripped else "!pto.ptr" + body

    def generic(self) -> str:
        return f'!pto.ptr<{generic_dtype(self.dtype)}, "{self.space}">'



@dataclass(frozen=True)
class ViewType(_TypeView):
    """`!pto.tensor_view<...>` (a strided view of GM) or
    `!pto.partition_tensor_view<...>` (a block of one), by `kind`; dims are
    DYNAMIC for `?`."""

    kind: str  # "tensor_view" | "partition_tensor_view"
    shape: tuple[int, ...]
    dtype: str

    @property
    def rank(self) -> int:
        return len(self.shape)

    def ptoas(self) -> str:
        return f"!pto.{self.kind}<{''.join(dim_text(d) + 'x' for d in self.shape)}{self.dtype}>"

    def generic(self) -> str:
        return f"!pto.{self.kind}<array<i64{': ' + _dims(self.shape) if self.shape else ''}>, {generic_dtype(self.dtype)}>"



@dataclass(frozen=True)
class LocalArrayType(_TypeView):
    """`!pto.local_array<D0x...xDTYPE>`: a small scalar array (syntax tier)."""

    shape: tuple[int, ...]
    dtype: str

    def ptoas(self) -> str:
        return f"!pto.local_array<{''.join(f'{d}x' for d in self.shape)}{self.dtype}>"

    def generic(self) -> str:
        return f"!pto.local_array<array<i64: {_dims(self.shape)}>, {generic_dtype(self.dtype)}>"



_STRUCT_SCALARS = frozenset(f"{s}i{w}" for s in ("", "s", "u") for w in (8, 16, 32, 64)) | {"f16", "bf16", "f32", "f64"}
"""The scalar types a `!pto.struct` field may have (PTOAS lib/PTO/IR/PTO.cpp, isStructScalar)."""


@dataclass(frozen=True)
class StructType(_TypeView):
    """`!pto.struct<T0, T1, ...>`: a stack-local aggregate of scalar fields
    (syntax tier; PTOAS include/PTO/IR/PTOTypeDefs.td, StructType); a field
    is one of `_STRUCT_SCALARS` or a nested struct. Generic spelling:
    `!pto.struct<[T0, T1, ...]>` (an IRDL type's parameters are attributes:
    here an array of types)."""

    fields: tuple  # each a scalar type's name or a StructType

    def ptoas(self) -> str:
        return "!pto.struct<" + ", ".join(f.ptoas() if isinstance(f, StructType) else f for f in self.fields) + ">"

    def generic(self) -> str:
        return "!pto.struct<[" + ", ".join(f.generic() if isinstance(f, StructType) else f for f in self.fields) + "]>"


@dataclass(frozen=True)
class ElementType(_TypeView):
    """A pto low-precision element type (`!pto.hif8`, `!pto.f8E8M0`, ...).
    Its generic spelling is `!pto.low_precision<"hif8">`: IRDL type names
    must be lower case."""

    name: str

    def ptoas(self) -> str:
        return f"!pto.{self.name}"

    def generic(self) -> str:
        return f'!pto.low_precision<"{self.name}">'


@dataclass(frozen=True)
class HandleType(_TypeView):
    """A pto type without parameters (syntax tier): `!pto.pipe`,
    `!pto.async_session`, `!pto.async_event`, `!pto.prefetch_async_context`
    (PTOAS include/PTO/IR/PTOTypeDefs.td). Spelled the same in both forms but for
    `!pto.pipe`, generic `!pto.pipe_handle`: IRDL's types and attributes share
    one namespace, and `pipe` is the attribute `#pto.pipe<...>`."""

    name: str

    def ptoas(self) -> str:
        return f"!pto.{self.name}"

    def generic(self) -> str:
        return f"!pto.{HANDLE_GENERIC_NAMES[self.name]}"


@dataclass(frozen=True)
class EventIdArrayType(_TypeView):
    """`!pto.eventid_array<N>`: N event ids (syntax tier; PTOAS
    include/PTO/IR/PTOTypeDefs.td, EventIdArrayType). Its generic spelling
    carries N as an integer attribute, `!pto.eventid_array<N : i64>`."""

    size: int

    def ptoas(self) -> str:
        return f"!pto.eventid_array<{self.size}>"

    def generic(self) -> str:
        return f"!pto.eventid_array<{self.size} : i64>"


HANDLE_TYPES = ("pipe", "async_session", "async_event", "prefetch_async_context")
HANDLE_GENERIC_NAMES = {name: "pipe_handle" if name == "pipe" else name for name in HANDLE_TYPES}

PtoType = TileBufType | MultiTileBufType | PtrType | ViewType | LocalArrayType | ElementType | HandleType | EventIdArrayType | StructType


# --- the ptoas spelling ------------------------------------------------------------

_TOKEN = re.compile(
    r"\s*(?:"
    r"(?P<dims>(?:(?:\d+|\?)x)+)"  # 16x16x (then the element type)
    r"|(?P<type>!pto\.\w+(?:<)?|[a-zA-Z_][\w$.]*)"
    r"|(?P<int>-?\d+)"
    r'|(?P<string>"[^"]*")'
    r"|(?P<punct>[=,<>?])"
    r")"
)


_DIMS = re.compile(r"(?:(?:\d+|\?)[ \t]*x[ \t]*)+")


class _Reader:
    """Tokens of a type's body, with positions for ptoas-style errors."""

    def __init__(self, text: str, pos: int) -> None:
        self.text = text
        self.pos = pos
        self.aliases: dict = {}

    def error(self, message: str, at: int | None = None) -> TypeSyntaxError:
        return TypeSyntaxError(message, self.pos if at is None else at)

    def skip(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t\n\r":
            self.pos += 1

    def peek(self) -> str:
        self.skip()
        return self.text[self.pos : self.pos + 1]

    def expect(self, char: str) -> None:
        if self.peek() != char:
            raise self.error(f"expected '{char}'")
        self.pos += 1

    def optional(self, char: str) -> bool:
        if self.peek() == char:
            self.pos += 1
            return True
        return False

    def word(self, what: str = "keyword") -> str:
        self.skip()
        m = re.compile(r'[a-zA-Z_][\w$.]*|"[^"]*"').match(self.text, self.pos)
        if m is None:
            raise self.error(f"expected {what}")
        self.pos = m.end()
        return m.group(0).strip('"')

    def keyword(self, expected: str) -> None:
        at = self.pos
        if self.word() != expected:
            self.pos = at
            self.skip()
            raise self.error(f"expected '{expected}'")

    def integer(self, what: str = "integer value") -> int:
        self.skip()
        m = re.compile(r"-?\d+").match(self.text, self.pos)
        if m is None:
            raise self.error(f"expected {what}")
        value = integer_literal(m.group(0))
        if not -(1 << 63) <= value < 1 << 63:
            raise self.error("integer value too large")
        self.pos = m.end()
        return value

    def dim_or_dynamic(self, what: str) -> int:
        if self.optional("?"):
            return DYNAMIC
        return self.integer(what)

    def dims(self, allow_dynamic: bool) -> list[int]:
        """`16x16x` (the trailing x included) as ints."""
        self.skip()
        m = _DIMS.match(self.text, self.pos)  # (spaces around an `x`, as MLIR's lexer allows: `8 x 128 x f32`)
        if m is None:
            return []
        parts = [p.strip() for p in m.group(0).rstrip()[:-1].split("x")]
        if not allow_dynamic and "?" in parts:
            raise self.error("expected static shape")
        at = self.pos
        dims = []
        for p in parts:
            if p != "?" and integer_literal(p) >= 1 << 63:
                raise self.error("invalid dimension", at)  # MLIR's message for a dimension past int64
            dims.append(DYNAMIC if p == "?" else integer_literal(p))
            at += len(p) + 1
        self.pos = m.end()
        return dims

    def element_type(self) -> str:
        """An element type: a builtin scalar type or a pto element type."""
        self.skip()
        m = re.compile(r"!pto\.\w+|[a-zA-Z_]\w*").match(self.text, self.pos)
        if m is None:
            raise self.error("expected element type")
        self.pos = m.end()
        return m.group(0)

    def dim_pair(self) -> tuple[int, int]:
        """`RxC` of a valid shape: integers or `?`, exactly two."""
        self.skip()
        m = re.compile(r"(?:\d+|\?)(?:x(?:\d+|\?))*").match(self.text, self.pos)
        if m is None:
            raise self.error("expected dimension list")
        parts = m.group(0).split("x")
        if len(parts) != 2:
            raise self.error("tile_buf valid must have exactly two dims")
        self.pos = m.end()
        return tuple(DYNAMIC if p == "?" else integer_literal(p) for p in parts)  # type: ignore[return-value]


def _check_uint(value: int, key: str, reader: _Reader) -> int:
    if value < 0 or value >= 1 << 32:
        raise reader.error(f"{key} must be a non-negative 32-bit integer")
    return value


def tile_problem(t: TileBufType) -> str | None:
    """What ptoas's `buildTileBufType` says is wrong with `t` (its checks,
    in its order, with its messages), or None. The ptoas reader checks
    every type it reads with this; the verifier checks generic spellings."""
    if t.rows <= 0 or t.cols <= 0:
        return "tile_buf rows/cols must be positive"
    if t.valid_row > t.rows:
        return f"tile_buf valid_row ({t.valid_row}) exceeds row ({t.rows})"
    if t.valid_col > t.cols:
        return f"tile_buf valid_col ({t.valid_col}) exceeds col ({t.cols})"
    if t.valid_row < DYNAMIC or t.valid_col < DYNAMIC:
        return "v_row must be '?', -1, or a non-negative integer" if t.valid_row < DYNAMIC else "v_col must be '?', -1, or a non-negative integer"
    if t.loc not in LOCS:
        return f"unknown loc: {t.loc}"
    if t.blayout not in BLAYOUTS:
        return f"unknown blayout: {t.blayout}"
    if t.slayout not in SLAYOUTS:
        return f"unknown slayout: {t.slayout}"
    if t.pad not in PADS:
        return f"unknown pad: {t.pad}"
    if t.compact not in COMPACTS:
        return f"unknown compact: {t.compact}"
    if t.fractal not in FRACTALS:
        return f"unsupported s_fractal_size: {t.fractal}, must be one of {{32, 512, 1024}}"
    if t.dtype not in DTYPE_BYTES:
        return f"unsupported tile_buf element type: {t.dtype}"
    return None


def _build_tile(fields: dict, at: int) -> TileBufType:
    """ptoas's `buildTileBufType`: the type, once `tile_problem` finds nothing."""
    rows, cols = fields["rows"], fields["cols"]
    vrow, vcol = fields.get("v_row", rows), fields.get("v_col", cols)
    tile = TileBufType(
        fields["loc"],
        rows,
        cols,
        fields["dtype"],
        DYNAMIC if vrow < 0 else vrow,
        DYNAMIC if vcol < 0 else vcol,
        fields.get("blayout", "row_major"),
        fields.get("slayout", "none_box"),
        fields.get("fractal", 512),
        fields.get("pad", 0),
        fields.get("compact", 0),
    )
    problem = tile_problem(tile)
    if problem is not None:
        raise TypeSyntaxError(problem, at)
    return tile


_COMPACT_KEYS = ("valid", "blayout", "slayout", "fractal", "pad", "compact")


def _tile_body(r: _Reader, start: int, allow_count: bool = False) -> tuple[TileBufType, int | None]:
    """The body of a tile (after `<`), in either form, up to (not
    including) its `>`; with `allow_count`, a trailing `count=N` (the compact
    multi-tile form). Returns the tile and the count, if any."""
    r.skip()
    first_at = r.pos
    first = r.word("memory space")
    if first == "loc":  # the verbose form: every key, in this order
        fields: dict = {}
        r.expect("=")
        fields["loc"] = r.word("memory space")
        for key in ("dtype", "rows", "cols", "v_row", "v_col", "blayout", "slayout", "fractal", "pad"):
            r.expect(",")
            r.keyword(key)
            r.expect("=")
            if key == "dtype":
                fields[key] = r.element_type()
            elif key in ("v_row", "v_col"):
                at = r.pos
                value = r.dim_or_dynamic("integer value")
                if value < -1:
                    raise r.error(f"{key} must be '?', -1, or a non-negative integer", at)
                fields[key] = value
            elif key in ("blayout", "slayout"):
                fields[key] = r.word()
            else:
                value = r.integer()
                fields[key] = _check_uint(value, key, r) if key == "pad" else value
        if r.peek() == ",":
            at = r.pos
            r.pos += 1
            r.skip()
            if r.text.startswith("compact", r.pos):
                r.keyword("compact")
                r.expect("=")
                fields["compact"] = _check_uint(r.integer(), "compact", r)
            else:
                r.pos = at
        return _build_tile(fields, start), None
    # the compact form: LOC, RxCxDTYPE, then keys in any order, each once
    fields = {"loc": first}
    r.expect(",")
    at = r.pos
    dims = r.dims(allow_dynamic=False)
    if len(dims) != 2:
        raise r.error("tile_buf compact syntax expects exactly two shape dims", at)
    fields["rows"], fields["cols"] = dims
    fields["dtype"] = r.element_type()
    seen: set[str] = set()
    count = None
    while r.optional(","):
        key_at = r.pos
        key = r.word("keyword")
        if allow_count and key == "count":
            r.expect("=")
            count = r.integer()
            break  # ptoas returns at `count`: it must be the last entry
        if key not in _COMPACT_KEYS:
            raise r.error(f"unknown key in tile_buf compact syntax: {key}", key_at)
        if key in seen:
            raise r.error(f"duplicate {key} in tile_buf compact syntax", key_at)
        seen.add(key)
        r.expect("=")
        if key == "valid":
            fields["v_row"], fields["v_col"] = r.dim_pair()
        elif key in ("blayout", "slayout"):
            fields[key] = r.word()
        else:
            fields[key] = _check_uint(r.integer(), key, r)
    del first_at
    return _build_tile(fields, start), count


def parse_ptoas_type(text: str, pos: int = 0, aliases: dict | None = None) -> tuple[PtoType, int]:
    """The pto type spelled in ptoas syntax at `pos` of `text` (starting with
    `!pto.`), and where it ends; `aliases` holds the views of the type
    aliases defined so far (a multi-tile slot may be one). Raises
    TypeSyntaxError."""
    m = re.compile(r"!pto\.(\w+)").match(text, pos)
    if m is None:
        raise TypeSyntaxError("expected a pto type", pos)
    name = m.group(1)
    r = _Reader(text, m.end())
    r.aliases = aliases or {}
    if name in PTO_ELEMENT_TYPES and r.peek() != "<":
        return ElementType(name), m.end()
    if name in HANDLE_TYPES and r.peek() != "<":
        return HandleType(name), m.end()
    if name not in _PARSERS:
        raise TypeSyntaxError(f"unknown pto type '!pto.{name}'", pos)
    r.expect("<")
    view = _PARSERS[name](r, pos)
    r.expect(">")
    return view, r.pos


def _parse_tile(r: _Reader, start: int) -> TileBufType:
    tile, _ = _tile_body(r, start)
    return tile


_ALIAS_NAME = re.compile(r"![\w$.\-]+")


def _nested_type(r: _Reader):
    """The type at `r.pos` (a `!`) inside another type's parameters: a pto
    type in either spelling, or an alias defined before."""
    at = r.pos
    if r.text.startswith("!pto.", at):
        generic_end = _generic_end(r.text, at)
        generic = parse_generic_type(r.text[at:generic_end]) if generic_end > 0 else None
        if generic is not None:
            r.pos = generic_end
            return generic
        view, r.pos = parse_ptoas_type(r.text, at, r.aliases)
        return view
    m = _ALIAS_NAME.match(r.text, at)
    view = r.aliases.get(m.group(0)) if m else None
    if view is None:
        raise TypeSyntaxError(f"undefined symbol alias id '{m.group(0)[1:] if m else ''}'", at)
    r.pos = m.end()
    return view


def _parse_multi(r: _Reader, start: int) -> MultiTileBufType:
    r.skip()
    if r.text.startswith("!", r.pos):
        at = r.pos
        slot = _nested_type(r)
        if not isinstance(slot, TileBufType):
            raise TypeSyntaxError("multi_tile_buf slot type must be `!pto.tile_buf<...>`", at)
        r.expect(",")
        if r.peek().isdigit() or r.peek() == "-":  # the generic count, `N : i64`, around a ptoas slot
            count = r.integer()
            if r.optional(":"):
                r.keyword("i64")
        else:
            r.keyword("count")
            r.expect("=")
            count = r.integer()
    else:
        slot, count = _tile_body(r, start, allow_count=True)
        if count is None:
            raise r.error("expected 'count'")
    if count < 2:
        raise TypeSyntaxError(f"multi_tile_buf count must be >= 2 (got {count})", start)
    if count > 16:
        raise TypeSyntaxError(f"multi_tile_buf count must be <= 16 (got {count})", start)
    return MultiTileBufType(slot, count)


def _parse_ptr(r: _Reader, start: int) -> PtrType:
    dtype = r.element_type()
    space = "gm"
    if r.optional(","):
        at = r.pos
        word = r.word("address space")
        if word not in PTR_SPACE_NAMES:
            raise r.error("!pto.ptr address space must be one of `gm|ub|mat|l1|left|l0a|right|l0b|acc|l0c|vec|bias|bt|scaling|fb`", at)
        space = PTR_SPACE_NAMES[word]
    return PtrType(dtype, space)


def _view_parser(kind: str):
    def parse(r: _Reader, start: int) -> ViewType:
        shape = tuple(r.dims(allow_dynamic=True))
        return ViewType(kind, shape, r.element_type())

    return parse


def _parse_local_array(r: _Reader, start: int) -> LocalArrayType:
    shape = tuple(r.dims(allow_dynamic=False))
    if not shape:
        raise TypeSyntaxError("'!pto.local_array' requires at least one dimension", start)
    for i, d in enumerate(shape):
        if d <= 0:
            raise TypeSyntaxError(f"'!pto.local_array' dimension {i} must be a positive static size, got {d}", start)
    return LocalArrayType(shape, r.element_type())


def _parse_eventid_array(r: _Reader, start: int) -> EventIdArrayType:
    r.skip()
    m = re.compile(r"\d+").match(r.text, r.pos)
    if m is None:
        raise TypeSyntaxError("'!pto.eventid_array' expects a size", start)
    r.pos = m.end()
    return EventIdArrayType(int(m.group()))


def _parse_struct(r: _Reader, start: int) -> StructType:
    """ptoas's StructType::parse: `<` types `>`, then its verify's rules."""
    fields: list = []
    if r.peek() == ">":
        raise TypeSyntaxError("'!pto.struct' requires at least one field", start + len("!pto."))
    while True:
        r.skip()
        field = _nested_type(r) if r.text.startswith("!", r.pos) else r.element_type()
        if not (isinstance(field, StructType) or field in _STRUCT_SCALARS):
            text = field.ptoas() if isinstance(field, _TypeView) else field
            raise TypeSyntaxError(
                f"'!pto.struct' field {len(fields)} type '{text}' is not scalar-storable; only i8/i16/i32/i64 (signed, "
                "unsigned or signless), f16/bf16/f32/f64, or a nested !pto.struct are allowed (!pto.local_array cannot be "
                "a field because emitc.member cannot yield an array lvalue; tile_buf / tensor_view belong to the vec/cube world)",
                start + len("!pto."),  # ptoas's type parser's name location
            )
        fields.append(field)
        if not r.optional(","):
            return StructType(tuple(fields))


_PARSERS = {
    "eventid_array": _parse_eventid_array,
    "tile_buf": _parse_tile,
    "multi_tile_buf": _parse_multi,
    "ptr": _parse_ptr,
    "tensor_view": _view_parser("tensor_view"),
    "partition_tensor_view": _view_parser("partition_tensor_view"),
    "local_array": _parse_local_array,
    "struct": _parse_struct,
}
PTOAS_TYPE_NAMES = frozenset(_PARSERS) | frozenset(PTO_ELEMENT_TYPES) | frozenset(HANDLE_TYPES)


def _generic_end(text: str, pos: int) -> int:
    """The end of the bracketed type at `pos` (for a generic-spelling test)."""
    lt = text.find("<", pos)
    return balanced_end(text, lt) if lt >= 0 else -1


def parse_stripped_ptr(text: str, pos: int = 0) -> tuple[PtrType, int]:
    """A pointer type written without `!pto.ptr` (`<f32, gm>`), as ptoas
    prints it in some ops."""
    r = _Reader(text, pos)
    r.expect("<")
    view = _parse_ptr(r, pos)
    r.expect(">")
    return view, r.pos


# --- the generic spelling (what MLIR prints) ----------------------------------------

_ARRAY = r"array<i64(?::\s*([-\d,\s]*))?>"
_GENERIC_TILE = re.compile(
    r'!pto\.tile_buf<"(\w+)",\s*' + _ARRAY + r',\s*(\S+?),\s*' + _ARRAY
    + r',\s*"(\w+)",\s*"(\w+)",\s*(-?\d+)(?: : i64)?,\s*(-?\d+)(?: : i64)?,\s*(-?\d+)(?: : i64)?>'
)  # fmt: skip
_GENERIC_PTR = re.compile(r'!pto\.ptr<(\S+?),\s*"(\w+)">')
_GENERIC_VIEW = re.compile(r"!pto\.(tensor_view|partition_tensor_view)<" + _ARRAY + r",\s*(\S+?)>")
_GENERIC_LOCAL = re.compile(r"!pto\.local_array<" + _ARRAY + r",\s*(\S+?)>")
_GENERIC_LOW_PRECISION = re.compile(r'!pto\.low_precision<"(\w+)">')
_GENERIC_MULTI_COUNT = re.compile(r",\s*(-?\d+)(?: : i64)?>$")


class _NotGeneric(ValueError):
    """A text that looked like a generic pto type but is not one."""


def _ints(text: str | None) -> tuple[int, ...]:
    try:
        return tuple(integer_literal(d.strip()) for d in text.split(",")) if text and text.strip() else ()
    except ValueError:
        raise _NotGeneric(text) from None


@lru_cache(maxsize=8192)
def parse_generic_type(text: str) -> PtoType | None:
    """The view of a pto type in its generic spelling, or None."""
    try:
        return _parse_generic_type(text)
    except _NotGeneric:
        return None


def _parse_generic_type(text: str) -> PtoType | None:
    if text.startswith("!pto.tile_buf<"):
        m = _GENERIC_TILE.fullmatch(text)
        if m is None:
            return None
        loc, shape, dtype, valid, blayout, slayout, fractal, pad, compact = m.groups()
        (rows, cols), (vrow, vcol) = _ints(shape) or (0, 0), _ints(valid) or (0, 0)
        fractal, pad, compact = map(integer_literal, (fractal, pad, compact))
        return TileBufType(loc, rows, cols, ptoas_dtype(dtype), vrow, vcol, blayout, slayout, fractal, pad, compact)
    if text.startswith("!pto.multi_tile_buf<"):
        m = _GENERIC_MULTI_COUNT.search(text)
        if m is None:
            return None
        slot = parse_generic_type(text[len("!pto.multi_tile_buf<") : m.start()])
        return MultiTileBufType(slot, int(m.group(1))) if isinstance(slot, TileBufType) else None
    if text.startswith("!pto.ptr<"):
        m = _GENERIC_PTR.fullmatch(text)
        return PtrType(ptoas_dtype(m.group(1)), m.group(2)) if m else None
    if text.startswith(("!pto.tensor_view<", "!pto.partition_tensor_view<")):
        m = _GENERIC_VIEW.fullmatch(text)
        return ViewType(m.group(1), _ints(m.group(2)), ptoas_dtype(m.group(3))) if m else None
    if text.startswith("!pto.local_array<"):
        m = _GENERIC_LOCAL.fullmatch(text)
        return LocalArrayType(_ints(m.group(1)), ptoas_dtype(m.group(2))) if m else None
    if text.startswith("!pto.struct<[") and text.endswith("]>"):
        fields = []
        for part in split_top(text[len("!pto.struct<[") : -2], ","):
            part = part.strip()
            field = parse_generic_type(part) if part.startswith("!pto.") else part
            if not (isinstance(field, StructType) or field in _STRUCT_SCALARS):
                return None
            fields.append(field)
        return StructType(tuple(fields)) if fields else None
    handle = next((name for name, generic in HANDLE_GENERIC_NAMES.items() if text == "!pto." + generic), None)
    if handle is not None:
        return HandleType(handle)
    m = re.fullmatch(r"!pto\.eventid_array<(\d+) : i64>", text)
    if m:
        return EventIdArrayType(int(m.group(1)))
    m = _GENERIC_LOW_PRECISION.fullmatch(text)
    return ElementType(m.group(1)) if m and m.group(1) in PTO_ELEMENT_TYPES else None


# --- views of ir.Types --------------------------------------------------------------

# Printing a type costs ~17 us through the bindings, a dict lookup ~1 us, and
# passes ask about the same few types thousands of times. Types are uniqued
# per Context and live as long as it, so each Context gets its own cache,
# keyed by the type's hash (of its storage address): a key or value holding
# the `ir.Type` itself would hold the Context too and keep it alive for ever.
_VIEWS: weakref.WeakKeyDictionary[ir.Context, dict[int, PtoType | None]] = weakref.WeakKeyDictionary()

# The Context asked about last (by a weak reference) and its cache: a run
# asks about one Context, and checking it is cheaper than the lookup.
_last: tuple[weakref.ref, dict[int, PtoType | None]] | None = None


def pto_type(t: ir.Type) -> PtoType | None:
    """The typed view of any pto type, or None for another type."""
    global _last
    context = t.context
    if _last is not None and _last[0]() is context:
        views = _last[1]
    else:
        views = _VIEWS.get(context)
        if views is None:
            views = _VIEWS[context] = {}
        _last = (weakref.ref(context), views)
    key = hash(t)
    try:
        return views[key]
    except KeyError:
        pass
    text = str(t)
    view = parse_generic_type(text) if text.startswith("!pto.") else None
    views[key] = view
    return view


def buffer_type(t: ir.Type) -> TileBufType | MultiTileBufType | None:
    """The view of a tile or multi-tile buffer type, or None."""
    view = pto_type(t)
    return view if isinstance(view, (TileBufType, MultiTileBufType)) else None


def tile_type(t: ir.Type) -> TileBufType | None:
    """The tile_buf view of `t`, or None when `t` is not a `!pto.tile_buf`."""
    view = pto_type(t)
    return view if isinstance(view, TileBufType) else None


def multi_tile_type(t: ir.Type) -> MultiTileBufType | None:
    """The multi_tile_buf view of `t`, or None when it is not one."""
    view = pto_type(t)
    return view if isinstance(view, MultiTileBufType) else None


@dataclass
class TypeBuilder:
    """The `ir.Type`s of views, each parsed once: for one pass run, which
    builds the same few types for thousands of ops (it lives as long as the
    run, so the Context it holds is freed with it)."""

    context: ir.Context | None = None
    _built: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.context = self.context or ir.Context.current

    def get(self, view: PtoType) -> ir.Type:
        t = self._built.get(view)
        if t is None:
            t = self._built[view] = ir.Type.parse(view.generic(), self.context)
        return t
