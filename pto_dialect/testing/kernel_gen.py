"""A seeded generator of random, valid pipeline kernels in ptoas syntax.

Every kernel is a `func.func @kernel` in PyPTO's shape: global memory comes
in as `!pto.ptr<DTYPE>` arguments, each gets a `pto.make_tensor_view` (shape,
strides, `{layout = #pto.layout<nd>}`) at the top of the function, and every
`pto.tload`/`pto.tstore` moves a `pto.partition_view` of it whose offsets
depend on the induction variable, sized so that every access is in bounds on
every iteration. One loop is marked `pto.pipeline_stages = N` (N in 1..4;
sometimes an inner or both loops are marked). Tiles are always written before
they are read (so the result is defined and a pass that changes it is wrong).

What varies, per kernel:
- loop bounds: lb, ub, step static constants or function `index` arguments
  (their values come with the kernel), trip counts 0..6, ub not a multiple
  of the step;
- how a block index is derived: the induction variable itself, the
  iteration number ((iv - lb) / step), or an `index` iter_arg counter;
- loops as MLIR defines them (`loop_type`): the pipeline loop's induction
  variable `index`, i64, i32, i16 or i8, signed or `scf.for unsigned`, its
  bounds small, at the top of the type, from its bottom (signed), across
  its signed limit (unsigned: ub read signed is below lb), or a zero-trip
  unsigned loop from the type's largest value (two trips read signed);
  moved bounds take the iteration number, computed in the induction
  variable's type, as the block index; nested loops over column blocks
  sometimes typed, unsigned and at the edges of their type likewise
  (`open_nested_loop`);
- element types f32, f16, bf16, i32, i16, i8; tile shapes that satisfy
  ptoas's layout rule (a row-major none_box tile has `cols * sizeof(dtype)`
  a multiple of 32 bytes; boxed cube tiles whole boxes); `pto.target_arch`
  absent, "a2a3" or "a5";
- how tile types are spelled: PyPTO's verbose form, ptoas's compact form
  (sometimes with default keys written out, in any order), both mixed, or
  with some ops and types in the generic form; sometimes through aliases;
- valid shapes: static, or `v_row=?`/`v_col=?` with `valid_row`/`valid_col`
  operands that are constants, function arguments or values computed before
  the loop (so the conversion can hoist them), and now and then computed in
  the loop body (which keeps the tile out of conversion). The valid region
  (`Region`) is the whole tile, a static smaller one (`valid=RxC` or `?`
  with operands of that size), or PyPTO's partial last block: rows
  `min(total - row, rows)` computed at the top of the loop body from a
  constant or argument `%m`, over tensors whose rows end in that block;
  partitions are always the size of the tile's valid region (dynamic where
  it is), and every op reads its sources only inside their valid regions;
  `pto.set_validshape` resizes a `?x?` tile;
- ops drawn from what pto-run executes (`_executed_ops()`, read when the
  kernel is made, so ops join as the interpreter learns them): element-wise
  binary, with a scalar, unary (`OP_FAMILIES`; division and transcendental
  ones on float tiles only), tcvt with and without a rounding mode, tmov
  vec to vec; row and column reductions into a column (col_major Rx1 or
  row_major with valid Rx1) or a 1xC row, with scratch `tmp`, broadcast
  back (`trowexpand`, `trowexpand<op>` with a column or a 32-byte block per
  row, `tcolexpand`, `tcolexpand<op>`) or stored; texpands, tsetval,
  tgetval (its scalar feeding an op), textract, ttrans, tci, tfillpad
  (`MORE_KINDS`); each op writing a fresh tile, in place, or over an
  existing tile its sources cover;
- views of tiles: `pto.subview` windows (static or `valid [..]`) read,
  stored directly, or written in place (a partial update later reads see),
  and `pto.treshape` to the same bytes in another shape, read or updated in
  place;
- a body tile written whole only in the first iteration and then only in
  part (tsetval, a tload or op into a subview, an op on a treshape) before
  it is read whole: loop-carried through memory;
- partial writers (issue 21): a body tile written whole in the first
  iteration, then by an op writing less than what is read of it next: a
  `tload` into a tile whose valid region (static or `?`) is smaller than
  the `treshape` or `subview` that reads it whole (sometimes refilled whole
  after the read), a column reduction (row 0 only), a `tconcat` of narrower
  sources into a wider dst (a2a3);
- a `func.call` of a helper function with a tile of its own, passed a tile
  of the loop while another is live across the call;
- a body tile written whole in the first iteration, then by a tload in a
  nested loop of no trip or one or two whose bounds a reading with the
  other sign sees otherwise (`carried_nested`): loop-carried exactly when
  the nested loop runs none;
- a tile so big, written before the pipeline loop and stored after it,
  that the kernel fits its vec space unpipelined but not with the loop's
  stages of its tiles (`tight_space`: the passes must lower the depth);
- views made early and read after later ops (their buffers must stay
  live); a second pipeline loop after the first, over the same blocks,
  sometimes reading what the first stored; matmul over M rows ending in a
  partial block (left/mat/acc tiles with `?` valid rows);
- the vec bytes a kernel needs, counting the copies pipelining makes, stay
  within `VEC_BUDGET`;
- `scf.if` on the iteration parity writing a tile in both branches, and
  `scf.if` yielding one of two tiles;
- accumulators loop-carried through memory (a tile defined before the loop,
  or one allocated in the body and initialised under `scf.if iv == lb`), and
  through iter_args (one tile, or two swapped every iteration);
- an inner loop over column blocks, pipelined or not;
- matmul chains: tload to mat, tmov to left/right, `pto.tmatmul` /
  `pto.tmatmul.acc ins(%acc, %l, %r ...) outs(%acc ...)` into acc, stored
  from acc directly, through tmov to vec or through tcvt; one matmul per row
  block or accumulation over K blocks; cube tiles none_box or in ptoas's
  boxed layouts;
- tiles at user-given addresses, and user-written multi-tile buffers
  (`pto.alloc_multi_tile` + `pto.multi_tile_get` at `iv mod N`).

`generate(seed)` is deterministic; `generate_from(rng)` takes any
`random.Random` (hypothesis' `st.randoms()` shrinks through it); `kernels()`
is the hypothesis strategy.
"""

from __future__ import annotations

import dataclasses
import random
import re
from dataclasses import dataclass, field

from ..dialect import ptoas_rules

FUNCTION = "kernel"
ARCHS = (None, None, "a2a3", "a5")  # absent (the default, a2a3), or named
VECTOR_DTYPES = [("f32", 6), ("f16", 2), ("bf16", 1), ("i32", 2), ("i16", 1), ("i8", 1)]
FLOAT_DTYPES = ("f32", "f16", "bf16")
DTYPE_BYTES = {"i8": 1, "i16": 2, "f16": 2, "bf16": 2, "i32": 4, "f32": 4}
FLOAT_SCALARS = ["0.5", "1.5", "-0.75", "2.0", "0.25", "-1.0"]
INT_SCALARS = ["3", "-2", "7", "1", "-5"]
CVT_TARGETS = {
    "f32": ["f16", "bf16", "i32"],
    "f16": ["f32", "i16"],
    "bf16": ["f32"],
    "i32": ["f32", "i16"],
    "i16": ["f32", "f16"],
    "i8": ["f16"],
}
"""What tcvt converts each element type to: conversions both targets'
TCVT implements (interpreter/conversions.py, PAIRS)."""
ROUND_MODES = ["CAST_RINT", "RINT", "ROUND", "FLOOR", "CEIL", "TRUNC", "NONE"]
"""The rounding modes tcvt is given."""
MATMUL_TYPES = [("f16", "f32", 4), ("bf16", "f32", 1), ("i8", "i32", 1), ("f32", "f32", 1)]
OP_FAMILIES = {
    "binary": ["tadd", "tsub", "tmul", "tmax", "tmin"],
    "scalar": ["tadds", "tmuls", "tsubs", "tdivs", "tmaxs", "tmins"],
    "unary": ["tabs", "trelu", "tneg"],
    "rowred": ["trowsum", "trowmax", "trowmin"],
    "colred": ["tcolsum", "tcolmax", "tcolmin"],
    "rowexpand": ["trowexpandadd", "trowexpandsub", "trowexpandmul"],
    "colexpand": ["tcolexpandadd", "tcolexpandsub", "tcolexpandmul"],
}
FLOAT_ONLY = {
    "binary": ["tdiv"],
    "unary": ["texp", "tlog", "tsqrt", "trsqrt", "trecip"],
    "rowexpand": ["trowexpanddiv"],
    "colexpand": ["tcolexpanddiv"],
}
"""The element-wise ops a kernel draws from: only those pto-run executes
(`_executed_ops`, read when a kernel is generated, so new interpreter ops
join as they land); integer tiles get no division by a tile (it may be 0)
and no transcendental ops."""
MORE_KINDS = [
    # (kind, weight, the ops it needs)
    ("rowred", 3, ["trowsum"]),
    ("colred", 2, ["tcolsum"]),
    ("fill", 1, ["texpands"]),
    ("setval", 1, ["tsetval"]),
    ("getval", 1, ["tgetval"]),
    ("extract", 1, ["textract"]),
    ("trans", 1, ["ttrans"]),
    ("tci", 1, ["tci"]),
    ("fillpad", 1, ["tfillpad"]),
    ("resize", 1, ["set_validshape"]),
]
"""Op kinds past the element-wise ones, drawn when pto-run executes them."""
ADDR_ALIGN = {"vec": 32, "mat": 32, "left": 512, "right": 512, "acc": 512}
STYLES = [("pypto", 3), ("compact", 3), ("mixed", 2), ("generic", 1)]
"""How a kernel spells its tile types: PyPTO's verbose form, ptoas's compact
form, either at each occurrence, or also the generic form (and some ops in
generic form)."""
LAYOUT_ALIGN = 32
"""ptoas: a row-major none_box tile's rows are a multiple of 32 bytes."""
MAX_TILE_BYTES = 2048
VEC_BUDGET = 160 * 1024
"""The vec bytes a kernel's tiles may take, with the copies pipelining
makes of each loop body (a2a3's vec space holds 192 KiB)."""
VEC_OP_BYTES = 4 * MAX_TILE_BYTES
"""The most vec bytes one drawn op allocates (a row reduction's column,
scratch, per-row block and result)."""


@dataclass
class GeneratedKernel:
    seed: int | None
    text: str
    values: dict[str, int]  # scalar arguments (loop bounds, valid sizes) by name, without '%'
    features: frozenset[str]
    function: str = FUNCTION


@dataclass(frozen=True)
class TileT:
    """A tile type as the generator plans it (spelled at each occurrence by
    `_Builder.ty`)."""

    loc: str
    rows: int
    cols: int
    dtype: str
    dyn_row: bool = False  # v_row = ?
    dyn_col: bool = False
    blayout: str = "row_major"
    slayout: str = "none_box"
    fractal: int = 512
    valid: tuple[int, int] | None = None  # a static valid shape smaller than the tile (dims not `?`)
    pad: int = 0  # 0 null, 1 zero, 2 max, 3 min (what tfillpad fills with)

    @property
    def dynamic(self) -> bool:
        return self.dyn_row or self.dyn_col

    @property
    def static_valid(self) -> tuple[int, int]:
        """The valid shape the type spells for its static dims."""
        return self.valid or (self.rows, self.cols)

    @property
    def shape(self) -> tuple[int, int]:
        return (self.rows, self.cols)

    @property
    def nbytes(self) -> int:
        return self.rows * self.cols * DTYPE_BYTES[self.dtype]


@dataclass(frozen=True)
class Region:
    """A tile's valid region at run time: `rows` x `cols`, or, with `ref`,
    `ref` x `cols` where `ref` is an index value computed in the loop body
    (PyPTO's `min(rest, rows)` for the last, partial block) of at most
    `rows`."""

    rows: int
    cols: int
    ref: str | None = None


def covers(src: Region, dst: Region) -> bool:
    """Whether a source of region `src` may be read over the domain `dst`
    (an op reads its sources over its destination's valid region)."""
    if src.ref is not None:
        return src == dst
    return src.rows >= dst.rows and src.cols >= dst.cols


def _static_valid_fits(t: TileT, region: Region) -> bool:
    """Whether the type's static valid dims are the region's: ptoas's
    element-wise ops ask equal valid shapes of all operands wherever their
    types spell both (`verifyTileBufSameValidShape`)."""
    rows, cols = t.static_valid
    return (t.dyn_row or rows == region.rows) and (t.dyn_col or cols == region.cols)


def _valid_agree(a: TileT, b: TileT) -> bool:
    """Whether two types' valid shapes are equal wherever both spell a
    static dim (ptoas's `verifyTileBufSameValidShape`, which the element-wise
    ops ask of their sources and destination)."""
    (ar, ac), (br, bc) = a.static_valid, b.static_valid
    return (a.dyn_row or b.dyn_row or ar == br) and (a.dyn_col or b.dyn_col or ac == bc)


@dataclass
class Tile:
    name: str
    t: TileT
    region: Region | None = None  # None: what the type spells (a static valid shape)

    def __post_init__(self) -> None:
        if self.region is None:
            assert not self.t.dynamic, f"{self.name}: a `?` valid shape needs its region"
            self.region = Region(*self.t.static_valid)

    @property
    def dtype(self) -> str:
        return self.t.dtype

    @property
    def loc(self) -> str:
        return self.t.loc


@dataclass
class _Global:
    """A global-memory tensor: a `!pto.ptr` argument and its tensor view."""

    arg: str  # %in0
    view: str  # %in0_view
    dtype: str
    rows: int
    cols: int
    static: bool  # the view type has static dims
    tail: bool = False  # rows end in a partial block (PyPTO's `min(rest, rows)` tiles)

    @property
    def view_type(self) -> str:
        dims = f"{self.rows}x{self.cols}" if self.static else "?x?"
        return f"!pto.tensor_view<{dims}x{self.dtype}>"


@dataclass
class _Loop:
    """The pipeline loop as planned: bounds (values and how they are given)."""

    lb: int
    step: int
    trip: int
    ub: int
    lb_ref: str = ""
    ub_ref: str = ""
    step_ref: str = ""
    stages: int = 2
    index_mode: str = "iv"  # iv | iteration | iter_arg
    iv_type: str = "index"  # or an integer type (loop_type)
    unsigned: bool = False  # scf.for unsigned
    shift: int = 0  # added to lb and ub as written (bounds at the edges of the type: loop_type)

    @property
    def max_block(self) -> int:
        """Largest block index any iteration uses."""
        if self.trip == 0:
            return 0
        return self.lb + (self.trip - 1) * self.step if self.index_mode == "iv" else self.trip - 1


@dataclass
class _Scope:
    """Where body code goes: the current block index and column offset, and
    the tiles available (initialised) here."""

    block: str  # index value: the block number of this iteration
    col: str  # index value: the column offset
    pool: list[Tile] = field(default_factory=list)
    cond: str | None = None  # cached parity condition
    in_loop: bool = True
    inner: bool = False  # in the inner loop over column blocks
    deferred: list = field(default_factory=list)  # reads of views made earlier, done at the end of the code


def _helper(name: str, tile_text: str, t: TileT, out: _Global, op: str, value: str) -> list[str]:
    """A function the kernel calls: `%t` (a tile of the caller) times a
    scalar into a tile of its own, stored at row `%row` of `out`."""
    scalar = f"{value} : {t.dtype}" if "." in value or t.dtype not in FLOAT_DTYPES else f"{value}.0 : {t.dtype}"
    view = f"!pto.tensor_view<{out.rows}x{out.cols}x{t.dtype}>"
    part = f"!pto.partition_tensor_view<{t.rows}x{t.cols}x{t.dtype}>"
    return [
        f"  func.func @{name}(%t: {tile_text}, %out: !pto.ptr<{t.dtype}>, %row: index) {{",
        "    %c0 = arith.constant 0 : index",
        "    %c1 = arith.constant 1 : index",
        f"    %rows = arith.constant {out.rows} : index",
        f"    %cols = arith.constant {out.cols} : index",
        f"    %h = arith.constant {t.rows} : index",
        f"    %w = arith.constant {t.cols} : index",
        f"    %s = arith.constant {scalar}",
        f"    %ov = pto.make_tensor_view %out, shape = [%rows, %cols], strides = [%cols, %c1] : {view}",
        f"    %u = pto.alloc_tile : {tile_text}",
        f"    pto.{op} ins(%t, %s : {tile_text}, {t.dtype}) outs(%u : {tile_text})",
        f"    %pv = pto.partition_view %ov, offsets = [%row, %c0], sizes = [%h, %w] : {view} -> {part}",
        f"    pto.tstore ins(%u : {tile_text}) outs(%pv : {part})",
        "    return",
        "  }",
    ]


def _executed_ops() -> frozenset[str]:
    """The op names (generic) pto-run executes now."""
    from ..interpreter import SUPPORTED_OPS

    return SUPPORTED_OPS


def _dim(dynamic: bool, size: int) -> str:
    return "?" if dynamic else str(size)


def verbose_type(t: TileT, compact_key: bool = False) -> str:
    """PyPTO's spelling: every field, in ptoas's fixed order."""
    text = (
        f"!pto.tile_buf<loc={t.loc}, dtype={t.dtype}, rows={t.rows}, cols={t.cols}, "
        f"v_row={_dim(t.dyn_row, t.static_valid[0])}, v_col={_dim(t.dyn_col, t.static_valid[1])}, "
        f"blayout={t.blayout}, slayout={t.slayout}, fractal={t.fractal}, pad={t.pad}"
    )
    return text + (", compact=0>" if compact_key else ">")


def compact_fields(t: TileT, rng: random.Random | None = None) -> str:
    """`LOC, RxCxDTYPE` and the keys: as ptoas prints them (rng None), or
    with some defaults written out and the keys in any order."""
    keys = []
    if t.dynamic or t.valid or (rng and rng.random() < 0.2):
        keys.append(f"valid={_dim(t.dyn_row, t.static_valid[0])}x{_dim(t.dyn_col, t.static_valid[1])}")
    for key, value, default in (("blayout", t.blayout, "row_major"), ("slayout", t.slayout, "none_box"), ("fractal", t.fractal, 512)):
        if value != default or (rng and rng.random() < 0.15):
            keys.append(f"{key}={value}")
    if t.pad:
        keys.append(f"pad={t.pad}")
    if rng:
        for key in ("pad=0", "compact=0") if not t.pad else ("compact=0",):
            if rng.random() < 0.1:
                keys.append(key)
        rng.shuffle(keys)
    return ", ".join([f"{t.loc}, {t.rows}x{t.cols}x{t.dtype}", *keys])


def compact_type(t: TileT, rng: random.Random | None = None) -> str:
    return f"!pto.tile_buf<{compact_fields(t, rng)}>"


def generic_type(t: TileT) -> str:
    """The generic spelling (the IRDL type's parameters)."""
    from ..dialect.types import DYNAMIC, TileBufType

    view = TileBufType(
        t.loc,
        t.rows,
        t.cols,
        t.dtype,
        DYNAMIC if t.dyn_row else t.static_valid[0],
        DYNAMIC if t.dyn_col else t.static_valid[1],
        t.blayout,
        t.slayout,
        t.fractal,
        t.pad,
    )
    return view.generic()


def printed_type(t: TileT) -> str:
    """What ptoas's printer (and pto-opt) writes for `t`."""
    return compact_type(t)


class _Builder:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.style = "compact"
        self.aliases: dict[str, str] = {}  # type text -> alias name
        self.use_aliases = False
        self.consts: dict[tuple[str, str], str] = {}
        self.const_lines: list[str] = []
        self.view_lines: list[str] = []  # tensor views and values computed before everything
        self.globals: list[_Global] = []
        self.scalar_args: list[str] = []
        self.scalar_types: dict[str, str] = {}  # argument name -> its type
        self.values: dict[str, int] = {}
        self.lines: list[str] = []
        self.depth = 2
        self.counter = 0
        self.features: set[str] = set()
        self.addr_next: dict[str, int] = {}
        self.factor = 1  # copies of the current body the pipeline will make (product of enclosing stages)
        self.vec_bytes = 0  # vec bytes the kernel needs at most, counting those copies

    # -- names, types, constants --------------------------------------------------

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"%{prefix}{self.counter}"

    def emit(self, text: str) -> None:
        self.lines.append("  " * self.depth + text)

    def ty(self, t: TileT) -> str:
        """One occurrence of tile type `t`, spelled in the kernel's style."""
        rng = self.rng
        style = self.style
        if style == "mixed":
            style = rng.choice(["pypto", "compact", "compact_any"])
        elif style == "generic":
            style = rng.choice(["pypto", "compact", "generic"])
        if style == "pypto":
            text = verbose_type(t, compact_key=rng.random() < 0.05)
        elif style == "compact_any":
            text = compact_type(t, rng)
        elif style == "generic":
            self.features.add("generic_type")
            return generic_type(t)
        else:
            text = compact_type(t)
        if self.use_aliases:
            alias = self.aliases.get(text)
            if alias is None:
                alias = self.aliases[text] = f"!{t.loc}_{t.dtype}_{t.rows}x{t.cols}_{len(self.aliases)}"
            return alias
        return text

    def multi_ty(self, t: TileT, count: int) -> str:
        if self.rng.random() < 0.5:
            return f"!pto.multi_tile_buf<{compact_fields(t)}, count={count}>"
        slot = verbose_type(t) if self.style == "pypto" or self.rng.random() < 0.3 else compact_type(t)
        return f"!pto.multi_tile_buf<{slot}, count={count}>"

    def const(self, value, type_: str = "index") -> str:
        key = (str(value), type_)
        name = self.consts.get(key)
        if name is None:
            text = str(value).replace("-", "m").replace(".", "p")
            name = f"%c{text}" if type_ == "index" else f"%c{text}_{type_}"
            self.consts[key] = name
            self.const_lines.append(f"    {name} = arith.constant {value} : {type_}")
        return name

    def index_arg(self, name: str, value: int) -> str:
        return self.typed_arg(name, value, "index")

    def typed_arg(self, name: str, value: int, type_: str) -> str:
        """A scalar function argument of `type_` (index or an integer type)
        whose value comes with the kernel."""
        if name not in self.values:
            self.scalar_args.append(name)
            self.values[name] = value
            self.scalar_types[name] = type_
        return f"%{name}"

    def tensor(self, prefix: str, dtype: str, rows: int, cols: int, rows_ref: str | None = None) -> _Global:
        """A global tensor: its pointer argument and its view (emitted at the
        top of the function); `rows_ref` an index value of `rows` to give the
        view's shape with (then its type has `?` dims)."""
        arg = f"%{prefix}{len(self.globals)}"
        g = _Global(arg, f"{arg}_view", dtype, rows, cols, rows_ref is None and self.rng.random() < 0.4)
        self.globals.append(g)
        shape = f"[{rows_ref or self.const(rows)}, {self.const(cols)}]"
        strides = f"[{self.const(cols)}, {self.const(1)}]"
        attrs = " {layout = #pto.layout<nd>}" if self.rng.random() < 0.85 else ""
        if self.generic_op():
            # the attribute in either spelling inside a generic op
            layout = self.rng.choice(['#pto.layout<"nd">', "#pto.layout<nd>"])
            attrs = f" {{layout = {layout}, " if attrs else " {"
            operands = ", ".join([arg, rows_ref or self.const(rows), self.const(cols), self.const(cols), self.const(1)])
            self.view_lines.append(
                f'    {g.view} = "pto.make_tensor_view"({operands}){attrs}operandSegmentSizes = array<i32: 1, 2, 2>}} : '
                f"({self.ptr_type(dtype)}, index, index, index, index) -> {g.view_type}"
            )
        else:
            self.view_lines.append(f"    {g.view} = pto.make_tensor_view {arg}, shape = {shape}, strides = {strides}{attrs} : {g.view_type}")
        return g

    def ptr_type(self, dtype: str) -> str:
        return f"!pto.ptr<{dtype}>"

    def generic_op(self) -> bool:
        """Whether to write the next op in generic form."""
        if self.style == "generic" and self.rng.random() < 0.3:
            self.features.add("generic_op")
            return True
        return False

    # -- ops ---------------------------------------------------------------------------

    def valid_operand(self, size: int, in_loop: bool) -> str:
        """An index value equal to `size` for a valid_row/valid_col operand:
        a constant, a function argument, or computed before the loop
        (`arith.minui`), or, rarely and only in a loop body, computed there."""
        rng, r = self.rng, self.rng.random()
        if in_loop and r < 0.06:
            v = self.fresh("vin")
            self.emit(f"{v} = arith.minui {self.const(size)}, {self.const(size * 2)} : index")
            self.features.add("valid_in_loop")
            return v
        if r < 0.55:
            self.features.add("valid_const")
            return self.const(size)
        if r < 0.8:
            self.features.add("valid_arg")
            return self.index_arg(f"valid{size}", size)
        v = self.fresh("v")
        bound = self.const(size + rng.choice([0, 8, 64]))
        self.view_lines.append(f"    {v} = arith.minui {bound}, {self.const(size)} : index")
        self.features.add("valid_computed")
        return v

    def alloc(self, t: TileT, addr: bool = False, in_loop: bool = True, region: Region | None = None) -> Tile:
        """`pto.alloc_tile` of `t` whose valid region is `region` (default:
        the whole tile, or the type's static valid shape): a `?` dimension
        gets an operand of the region's size (the region's `ref` for rows)."""
        name = self.fresh("t")
        region = region or Region(*t.static_valid)
        parts = {}
        if addr:
            parts["addr"] = (self.user_addr(t), "i64")
            self.features.add("user_addr")
        if t.dyn_row:
            parts["valid_row"] = (region.ref or self.valid_operand(region.rows, in_loop), "index")
        if t.dyn_col:
            parts["valid_col"] = (self.valid_operand(region.cols, in_loop), "index")
        if t.dynamic:
            self.features.add("dynamic_valid")
        if (region.rows, region.cols) != t.shape:
            self.features.add("valid_smaller")
        if t.loc == "vec":
            self.vec_bytes += t.nbytes * self.factor
        if self.generic_op():
            names = ", ".join(v for v, _ in parts.values())
            types = ", ".join(ty for _, ty in parts.values())
            seg = ", ".join("1" if k in parts else "0" for k in ("addr", "valid_row", "valid_col"))
            self.emit(f'{name} = "pto.alloc_tile"({names}) {{operandSegmentSizes = array<i32: {seg}>}} : ({types}) -> {self.ty(t)}')
        else:
            clauses = "".join(f" {k} = {v}" for k, (v, _) in parts.items())
            self.emit(f"{name} = pto.alloc_tile{clauses} : {self.ty(t)}")
        return Tile(name, t, region)

    def user_addr(self, t: TileT) -> str:
        """A constant address past every earlier user-given one in the tile's
        space (so user-placed buffers never overlap each other)."""
        align = ADDR_ALIGN[t.loc]
        start = self.addr_next.get(t.loc, self.rng.choice([0, 1, 4]) * align * 16)
        self.addr_next[t.loc] = start + -(-t.nbytes // align) * align + self.rng.choice([0, align])
        return self.const(start, "i64")

    def partition(self, g: _Global, row: str, col: str, region: Region) -> tuple[str, str]:
        """A partition view of `g` at (row, col), of the region's size (what a
        tile of that valid region moves): its name and type."""
        pv = self.fresh("pv")
        rows = "?" if region.ref else region.rows
        ptype = f"!pto.partition_tensor_view<{rows}x{region.cols}x{g.dtype}>"
        sizes = f"{region.ref or self.const(region.rows)}, {self.const(region.cols)}"
        if self.generic_op():
            self.emit(
                f'{pv} = "pto.partition_view"({g.view}, {row}, {col}, {sizes}) {{operandSegmentSizes = array<i32: 1, 2, 2>}} : '
                f"({g.view_type}, index, index, index, index) -> {ptype}"
            )
        else:
            arrow = f" -> {ptype}" if self.rng.random() < 0.7 else ""
            self.emit(f"{pv} = pto.partition_view {g.view}, offsets = [{row}, {col}], sizes = [{sizes}] : {g.view_type}{arrow}")
        return pv, ptype

    def tload(self, src: _Global, row: str, col: str, dst: Tile) -> None:
        pv, ptype = self.partition(src, row, col, dst.region)
        if self.generic_op():
            self.emit(f'"pto.tload"({pv}, {dst.name}) {{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>}} : ({ptype}, {self.ty(dst.t)}) -> ()')
        else:
            self.emit(f"pto.tload ins({pv} : {ptype}) outs({dst.name} : {self.ty(dst.t)})")

    def tstore(self, src: Tile, dst: _Global, row: str, col: str) -> None:
        pv, ptype = self.partition(dst, row, col, src.region)
        if self.generic_op():
            self.emit(f'"pto.tstore"({src.name}, {pv}) {{operandSegmentSizes = array<i32: 1, 1, 0, 0>}} : ({self.ty(src.t)}, {ptype}) -> ()')
        else:
            self.emit(f"pto.tstore ins({src.name} : {self.ty(src.t)}) outs({pv} : {ptype})")

    def _operand(self, o: Tile | tuple[str, str]) -> tuple[str, str]:
        return (o.name, self.ty(o.t)) if isinstance(o, Tile) else o

    def op(self, name: str, ins: list[Tile | tuple[str, str]], out: Tile, attrs: str = "") -> None:
        """`pto.NAME ins(...) outs(%out ...)` (or its generic form: the
        inputs then the output, which is ODS order for the ops used here)."""
        inputs = [self._operand(o) for o in ins]
        dst = self._operand(out)
        if self.generic_op():
            if self.rng.random() < 0.5:  # the attribute's generic spelling
                attrs = re.sub(r"#pto<round_mode (\w+)>", r'#pto.round_mode<"\1">', attrs)
            entries = [attrs] if attrs else []
            if name == "tmov":  # src, dst, fp?, preQuantScalar?
                entries.append("operandSegmentSizes = array<i32: 1, 1, 0, 0>")
            dictionary = " {" + ", ".join(entries) + "}" if entries else ""
            names = ", ".join(n for n, _ in [*inputs, dst])
            types = ", ".join(t for _, t in [*inputs, dst])
            self.emit(f'"pto.{name.replace(".", "_")}"({names}){dictionary} : ({types}) -> ()')
            return
        names = ", ".join(n for n, _ in inputs)
        types = ", ".join(t for _, t in inputs)
        inside = f" {{{attrs}}}" if attrs else ""
        self.emit(f"pto.{name} ins({names}{inside} : {types}) outs({dst[0]} : {dst[1]})")

    def arith(self, op: str, a: str, b: str, type_: str = "index") -> str:
        r = self.fresh("i")
        self.emit(f"{r} = arith.{op} {a}, {b} : {type_}")
        return r

    def open(self, header: str) -> None:
        self.emit(header)
        self.depth += 1

    def close(self, footer: str = "}") -> None:
        self.depth -= 1
        self.emit(footer)


class _Generator:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.b = _Builder(rng)
        self.multi_tiles: list[str] = []  # lines that go right before the pipeline loop
        self.helpers: list[list[str]] = []  # the lines of functions the kernel calls
        self.special = {
            "rowred": self.row_reduce_op,
            "colred": self.col_reduce_op,
            "fill": self.fill_op,
            "setval": self.setval_op,
            "getval": self.getval_op,
            "extract": self.extract_op,
            "trans": self.trans_op,
            "tci": self.tci_op,
            "fillpad": self.fillpad_op,
            "resize": self.resize_op,
        }

    def weighted(self, choices):
        items, weights = zip(*[(c[:-1] if len(c) > 2 else c[0], c[-1]) for c in choices])
        return self.rng.choices(items, weights)[0]

    # -- plan -----------------------------------------------------------------------------

    def plan_loop(self) -> _Loop:
        rng, b = self.rng, self.b
        lb = rng.choice([0, 0, 0, 1, 2, 3])
        step = rng.choice([1, 1, 1, 2, 3])
        trip = rng.choice([0, 1, 2, 3, 3, 4, 4, 5, 6])
        if trip == 0:
            ub = lb - rng.choice([0, 1])
        else:
            ub = lb + trip * step - rng.randrange(step)
        loop = _Loop(lb, step, trip, ub, stages=rng.choice([1, 2, 2, 2, 3, 4]))
        loop.index_mode = self.weighted([("iv", 5), ("iteration", 3), ("iter_arg", 2)])
        dynamic = rng.random() < 0.35
        written = self.loop_type(loop)
        lb_w, ub_w = written
        t = loop.iv_type
        loop.lb_ref = b.typed_arg("lb", lb_w, t) if dynamic and rng.random() < 0.5 else b.const(lb_w, t)
        loop.ub_ref = b.typed_arg("ub", ub_w, t) if dynamic else b.const(ub_w, t)
        loop.step_ref = b.typed_arg("step", step, t) if dynamic and rng.random() < 0.4 else b.const(step, t)
        if dynamic:
            b.features.add("dynamic_bounds")
        b.features.add(f"stages_{loop.stages}")
        b.features.add(f"index_{loop.index_mode}")
        if step > 1:
            b.features.add("step_gt_1")
        if lb > 0:
            b.features.add("lb_gt_0")
        if trip == 0:
            b.features.add("zero_trip")
        elif (ub - lb) % step:
            b.features.add("partial_step")
        return loop

    def loop_type(self, loop: _Loop) -> tuple[int, int]:
        """The pipeline loop's induction variable type and signedness (as
        MLIR defines loops: `index` or an integer, `scf.for unsigned`), and
        its lb and ub as written, as signed constants of that type: the
        planned small bounds, or those moved to the edges of the type (an
        unsigned loop across the signed limit, whose ub read signed is below
        its lb; a loop ending at the type's top; a signed one from its
        bottom), or a zero-trip unsigned loop from the largest value to 1
        (two trips read signed). Moved bounds need the iteration number as
        the block index (the induction values are not blocks)."""
        rng, b = self.rng, self.b
        loop.iv_type = self.weighted([("index", 12), ("i32", 4), ("i64", 2), ("i16", 1), ("i8", 1)])
        loop.unsigned = rng.random() < 0.3
        width = 64 if loop.iv_type == "index" else int(loop.iv_type[1:])
        signed_max = (1 << (width - 1)) - 1
        top = (1 << width) - 1 if loop.unsigned else signed_max
        span_end = max(loop.ub, loop.lb)
        lb, ub = loop.lb, loop.ub
        if loop.trip == 0 and loop.unsigned and rng.random() < 0.5:
            lb, ub = top, rng.choice([0, 1, 2])
            b.features.add("zero_trip_wrapping")
        else:
            shapes = [("small", 5), ("top", 2)] + ([("signed_limit", 3)] if loop.unsigned else [("bottom", 2)])
            where = self.weighted(shapes)
            if where == "signed_limit":
                loop.shift = signed_max - span_end // 2
            elif where == "top":
                loop.shift = top - span_end
            elif where == "bottom":
                loop.shift = -(1 << (width - 1)) - min(loop.lb, loop.ub)
            lb, ub = lb + loop.shift, ub + loop.shift
            if loop.unsigned and ub < 0:  # a zero-trip plan from 0 to -1: -1 is the largest unsigned value
                ub = 0
            if loop.shift:
                b.features.add(f"bounds_{where}")
        if loop.shift or lb != loop.lb:
            if loop.index_mode == "iv":
                loop.index_mode = rng.choice(["iteration", "iter_arg"])
        if loop.iv_type != "index":
            b.features.add(f"iv_{loop.iv_type}")
        if loop.unsigned:
            b.features.add("unsigned_loop")

        def written(v: int) -> int:  # the signed constant of the type with v's bits
            v &= (1 << width) - 1
            return v - (1 << width) if v >> (width - 1) else v

        read = (lambda v: v & ((1 << width) - 1)) if loop.unsigned else written
        lo, hi = read(lb), read(ub)
        runs = -(-(hi - lo) // loop.step) if hi > lo else 0
        assert runs == loop.trip, f"the loop as written runs {runs} times, not the {loop.trip} planned"
        return written(lb), written(ub)

    def first_iteration(self) -> str:
        """An i1 that is true in the pipeline loop's first iteration."""
        b = self.b
        first = b.fresh("first")
        b.emit(f"{first} = arith.cmpi eq, %iv, {self.loop.lb_ref} : {self.loop.iv_type}")
        return first

    def iv_index(self, iv: str, type_: str, unsigned: bool) -> str:
        """An induction value as an index (cast from an integer type)."""
        if type_ == "index":
            return iv
        x = self.b.fresh("ix")
        self.b.emit(f"{x} = arith.index_cast{'ui' if unsigned else ''} {iv} : {type_} to index")
        return x

    def vec_type(
        self, dtype: str, shape: tuple[int, int] | None = None, region: Region | None = None, loc: str = "vec", blayout: str = "row_major", pad: int = 0
    ) -> TileT:
        """A vector tile type of the kernel's shape whose valid region will be
        `region` (default the whole tile): each valid dimension static or `?`
        (more often `?` in PyPTO's style); a region computed in the loop
        (`ref`) has `?` rows."""
        rows, cols = shape or self.shape
        region = region or Region(rows, cols)
        p = 0.5 if self.b.style == "pypto" else 0.2
        dyn_row = region.ref is not None or self.rng.random() < p
        dyn_col = self.rng.random() < (p if dyn_row else p / 3)
        valid = (region.rows, region.cols)
        return TileT(loc, rows, cols, dtype, dyn_row, dyn_col, blayout=blayout, valid=None if valid == (rows, cols) else valid, pad=pad)

    def plan_region(self) -> None:
        """The valid region of the vector tiles: the whole tile, a static
        smaller one, or PyPTO's partial last block (`min(rest, rows)` rows,
        computed in the loop body: the tiles stay single, CONTRACT 2.1 rule 5)."""
        rows, cols = self.shape
        mode = self.weighted([("full", 5), ("static", 3), ("tail", 2)])
        self.tail_total: int | None = None
        if mode == "full":
            self.region = self.outer_region = Region(rows, cols)
            return
        vc = cols if self.rng.random() < 0.4 else self.rng.randint(1, cols)
        if mode == "static":
            vr = self.rng.randint(1, rows)
            if (vr, vc) == (rows, cols):
                vr = max(1, rows - self.rng.randint(1, 3))
                vr = vr if vr < rows else rows  # a 1-row tile stays whole
            self.region = self.outer_region = Region(vr, vc)
            self.b.features.add("valid_static_region")
            return
        # the partial last block: the loop region is set once its row count is computed
        self.tail_total = self.loop.max_block * rows + self.rng.randint(1, rows)
        self.region = self.outer_region = Region(rows, vc)
        self.b.features.add("valid_tail")

    def tail_rows(self, scope: _Scope) -> None:
        """At the top of the loop body: `rest = total - row; vr = min(rest, rows)`."""
        b = self.b
        rows = self.shape[0]
        total = self.tail_total_ref
        row = b.arith("muli", scope.block, b.const(rows))
        rest = b.arith("subi", total, row)
        vr = b.fresh("vr")
        b.emit(f"{vr} = arith.{self.rng.choice(['minui', 'minsi'])} {rest}, {b.const(rows)} : index")
        self.region = Region(rows, self.outer_region.cols, vr)

    def cube_type(self, loc: str, shape: tuple[int, int], dtype: str) -> TileT:
        """A cube tile type: none_box row-major, or ptoas's boxed layout of
        the space (the shapes are whole boxes)."""
        if not self.boxed:
            return TileT(loc, *shape, dtype)
        self.b.features.add("boxed_layout")
        if loc == "mat":
            return TileT(loc, *shape, dtype, blayout="col_major", slayout="row_major")
        if loc == "left":
            return TileT(loc, *shape, dtype, blayout="col_major" if self.arch == "a5" else "row_major", slayout="row_major")
        if loc == "right":
            return TileT(loc, *shape, dtype, blayout="row_major", slayout="col_major")
        if loc == "acc":
            return TileT(loc, *shape, dtype, blayout="col_major", slayout="row_major", fractal=1024)
        return TileT(loc, *shape, dtype)

    # -- kernel -----------------------------------------------------------------------------

    def kernel(self, seed: int | None) -> GeneratedKernel:
        rng, b = self.rng, self.b
        b.style = self.weighted(STYLES)
        b.use_aliases = b.style in ("compact", "pypto") and rng.random() < 0.2
        b.features.add(f"style_{b.style}")
        if b.use_aliases:
            b.features.add("type_aliases")
        loop = self.plan_loop()
        self.loop = loop
        self.arch = rng.choice(ARCHS)
        b.features.add(f"arch_{self.arch or 'absent'}")
        self.boxed = rng.random() < 0.4 or self.arch == "a5"  # a5's matmul takes boxed cube tiles only
        self.ops = _executed_ops()
        self.dtype = self.weighted([(d, w) for d, w in VECTOR_DTYPES if self.vector_dtype_ok(d)])
        # every vector tile has this shape: its rows must be whole 32-byte
        # units for the narrowest element type the kernel may convert to
        # and no tile of it more than MAX_TILE_BYTES (lowering replicates
        # bodies up to 4 times: the kernel must still fit the vec space)
        sizes = [DTYPE_BYTES[d] for d in [self.dtype, *CVT_TARGETS[self.dtype]]]
        cols = rng.choice([c for c in (8, 16, 32, 64) if c * min(sizes) % LAYOUT_ALIGN == 0][:3])
        self.shape = (rng.choice([r for r in (4, 8, 16) if r * cols * max(sizes) <= MAX_TILE_BYTES] or [4]), cols)
        self.inner_blocks = rng.choice([1, 1, 2, 3])
        self.cols = self.shape[1] * max(self.inner_blocks, 2)
        self.rows = (loop.max_block + 1) * self.shape[0]
        self.inputs: dict[tuple[str, bool], list[_Global]] = {}
        self.outputs: list[_Global] = []
        self.reuse_outputs = False  # inputs may be outputs stored before (a later loop's)
        self.plan_region()
        if self.tail_total is not None:
            if rng.random() < 0.5:
                self.tail_total_ref = b.index_arg("m", self.tail_total)
            else:
                self.tail_total_ref = b.const(self.tail_total)

        fragments = ["vector"]
        if rng.random() < 0.3:
            fragments.append("vector")
        extras = [
            ("acc_memory", 0.3),
            ("acc_iter_args", 0.25),
            ("carried_in_body", 0.25),
            ("carried_partial", 0.25),
            ("partial_writer", 0.25),
            ("call", 0.15),
            ("carried_nested", 0.2),
            ("matmul_rows", 0.2),
            ("matmul_k", 0.2),
        ]
        for extra, p in extras:
            if rng.random() < p:
                fragments.append(extra)
        rng.shuffle(fragments)
        placement = self.weighted([("outer", 6), ("inner", 1), ("both", 1)])
        if self.inner_blocks == 1:
            placement = "outer"
        self.user_multi = placement == "outer" and rng.random() < 0.15

        # before the loop
        carried_inits: list[tuple[str, str, str]] = []  # (iter_arg name, init, type)
        before_loop = [f for f in fragments if f in ("acc_memory", "acc_iter_args", "matmul_rows", "matmul_k")]
        pre_state = {f"{f}{i}": self.pre(f, carried_inits) for i, f in enumerate(fragments) if f in before_loop}
        if self.rng.random() < 0.3:
            self.outer_tile = self.load_outer_tile()
        else:
            self.outer_tile = None

        # the loop
        iter_args = list(carried_inits)
        counter = None
        if loop.index_mode == "iter_arg":
            counter = ("%blk", b.const(0), "index")
            iter_args.insert(0, counter)
        results = b.fresh("res")
        header = f"scf.for {'unsigned ' if loop.unsigned else ''}%iv = {loop.lb_ref} to {loop.ub_ref} step {loop.step_ref}"
        if iter_args:
            header = f"{results}:{len(iter_args)} = " + header
            header += " iter_args(" + ", ".join(f"{n} = {init}" for n, init, _ in iter_args) + ")"
            header += " -> (" + ", ".join(t for _, _, t in iter_args) + ")"
        if loop.iv_type != "index":
            header += f" : {loop.iv_type}"
        loop_at = len(b.lines)
        bytes_before = b.vec_bytes
        b.open(header + " {")
        b.factor = loop.stages if placement != "inner" else 1
        scope = _Scope(self.block_index(loop), b.const(0))
        if self.tail_total is not None:
            self.tail_rows(scope)
        if self.outer_tile is not None:
            scope.pool.append(self.outer_tile)
        yields: dict[str, str] = {}
        if counter is not None:
            yields["%blk"] = b.arith("addi", "%blk", b.const(1))
        for i, f in enumerate(fragments):
            self.body(f, scope, placement, pre_state.get(f"{f}{i}"), yields)
        if iter_args:
            b.emit("scf.yield " + ", ".join(yields[n] for n, _, _ in iter_args) + " : " + ", ".join(t for _, _, t in iter_args))
        stages = f" {{pto.pipeline_stages = {loop.stages} : i64}}" if placement != "inner" else ""
        b.close("}" + stages)
        per_copy = (b.vec_bytes - bytes_before) // max(b.factor, 1)
        b.factor = 1
        b.lines[loop_at:loop_at] = self.multi_tiles
        if rng.random() < 0.12:
            self.tight_space(loop_at, bytes_before, per_copy)
        if rng.random() < 0.3:
            self.second_loop()
        # after the loop
        results_of = {n: f"{results}#{k}" for k, (n, _, _) in enumerate(iter_args)}
        for i, f in enumerate(fragments):
            if f"{f}{i}" in pre_state:
                self.post(f, pre_state[f"{f}{i}"], results_of)
        b.emit("return")
        kind = "cube" if any(f.startswith("matmul") for f in fragments) else "vector"
        return GeneratedKernel(seed, self.render(self.arch, kind), dict(b.values), frozenset(b.features | set(fragments) | {f"placement_{placement}"}))

    def render(self, arch: str | None, kind: str) -> str:
        b = self.b
        aliases = [f"{alias} = {text}" for text, alias in b.aliases.items()]
        params = [f"{g.arg}: {b.ptr_type(g.dtype)}" for g in b.globals] + [f"%{n}: {b.scalar_types.get(n, 'index')}" for n in b.scalar_args]
        attrs = f' attributes {{pto.target_arch = "{arch}"}}' if arch else ""
        func_attrs = ""
        if self.rng.random() < 0.2:
            func_attrs = f" attributes {{pto.kernel_kind = #pto.kernel_kind<{kind}>}}"
            b.features.add("kernel_kind")
        lines = aliases + [f"module{attrs} {{", f"  func.func @{FUNCTION}({', '.join(params)}){func_attrs} {{"]
        lines += b.const_lines + b.view_lines + b.lines + ["  }"]
        for helper in self.helpers:
            lines += helper
        lines.append("}")
        return "\n".join(lines) + "\n"

    def tight_space(self, loop_at: int, before: int, per_copy: int) -> None:
        """A tile written before the pipeline loop and stored after it, so
        big that the kernel fits its vec space unpipelined but not with the
        loop's stages of its tiles (issue 22: the passes must lower the depth
        instead of overflowing). `before` is the vec bytes of the tiles from
        before the loop, `per_copy` those one iteration allocates (an upper
        bound: with no two sharing bytes)."""
        b = self.b
        if self.loop.stages < 2 or per_copy < 4096 or "user_addr" in b.features or self.user_multi:
            return
        capacity = 253952 if self.arch == "a5" else 196608  # CONTRACT 1.3
        cols = 64
        rows = (capacity - before - per_copy - 2048) // (cols * 4)
        if rows < 8:
            return
        t = TileT("vec", rows, cols, "f32")
        start = len(b.lines)
        big = b.alloc(t, in_loop=False)
        g = b.tensor("big", "f32", rows, cols)
        b.tload(g, b.const(0), b.const(0), big)
        lines = b.lines[start:]
        del b.lines[start:]
        b.lines[loop_at:loop_at] = lines
        b.tstore(big, g, b.const(0), b.const(0))
        b.features.add("tight_space")

    def second_loop(self) -> None:
        """A second pipeline loop after the first (PyPTO kernels have several):
        over every block again, its inputs sometimes what the first loop
        stored, its tiles competing for the addresses the first loop's used."""
        b, rng = self.b, self.rng
        self.user_multi = False
        self.reuse_outputs = True
        stages = rng.choice([1, 2, 2, 3])
        b.open(f"scf.for %iv2 = {b.const(0)} to {b.const(self.loop.max_block + 1)} step {b.const(1)} {{")
        b.factor = stages
        scope = _Scope("%iv2", b.const(0), [self.outer_tile] if self.outer_tile is not None else [])
        if self.tail_total is not None:
            self.tail_rows(scope)
        self.vector_code(scope)
        b.close(f"}} {{pto.pipeline_stages = {stages} : i64}}")
        b.factor = 1
        b.features.add("two_loops")

    def block_index(self, loop: _Loop) -> str:
        b = self.b
        if loop.index_mode == "iter_arg":
            return "%blk"
        t = loop.iv_type
        if loop.index_mode == "iv":
            return self.iv_index("%iv", t, loop.unsigned)
        lb_zero = loop.lb == 0 and not loop.shift and not loop.lb_ref.startswith("%lb")
        d = "%iv" if lb_zero else b.arith("subi", "%iv", loop.lb_ref, t)
        k = d if loop.step == 1 and not loop.step_ref.startswith("%step") else b.arith("divui", d, loop.step_ref, t)
        return self.iv_index(k, t, True)  # in [0, trips): unsigned

    # -- global tensors ---------------------------------------------------------------------

    def input(self, dtype: str, tail: bool = False) -> _Global:
        """A global input of the kernel's size (`tail`: its rows end in the
        partial block the loop's `min(rest, rows)` tiles read)."""
        have = self.inputs.setdefault((dtype, tail), [])
        if self.reuse_outputs and self.rng.random() < 0.4:
            size = (self.tail_total if tail else self.rows, self.cols)
            written = [g for g in self.outputs if g.dtype == dtype and g.tail == tail and (g.rows, g.cols) == size]
            if written:
                self.b.features.add("reads_earlier_output")
                return self.rng.choice(written)
        if not have or (len(have) < 2 and self.rng.random() < 0.4):
            have.append(self.tensor("in", dtype, tail))
        return self.rng.choice(have)

    def output(self, dtype: str, rows: int | None = None, cols: int | None = None, tail: bool = False) -> _Global:
        g = self.tensor("out", dtype, True) if tail else self.b.tensor("out", dtype, rows or self.rows, cols or self.cols)
        self.outputs.append(g)
        return g

    def tensor(self, prefix: str, dtype: str, tail: bool) -> _Global:
        if not tail:
            return self.b.tensor(prefix, dtype, self.rows, self.cols)
        ref = self.tail_total_ref if self.tail_total_ref.startswith("%m") else None
        g = self.b.tensor(prefix, dtype, self.tail_total, self.cols, rows_ref=ref)
        g.tail = True
        return g

    def row(self, scope: _Scope, height: int) -> str:
        return self.b.arith("muli", scope.block, self.b.const(height))

    # -- vector code ----------------------------------------------------------------------

    def load_outer_tile(self) -> Tile:
        b = self.b
        region = self.outer_region
        t = b.alloc(self.vec_type(self.dtype, region=region), addr=self.rng.random() < 0.3, in_loop=False, region=region)
        b.tload(self.input(self.dtype), b.const(0), b.const(0), t)
        b.features.add("outer_tile")
        return t

    def fresh_vec(self, scope: _Scope, t: TileT, region: Region | None = None, addr_p: float = 0.05) -> Tile:
        """A tile of type `t` (valid region `region`) to write: allocated
        here, or a slot of a user-written multi-tile buffer (top level of the
        pipeline loop)."""
        if self.user_multi and scope.in_loop and self.b.depth == 3 and not t.dynamic and self.rng.random() < 0.4:
            return self.multi_slot(t)
        return self.b.alloc(t, addr=self.rng.random() < addr_p, in_loop=scope.in_loop, region=region)

    def new_vec(self, scope: _Scope, dtype: str, region: Region) -> Tile:
        return self.fresh_vec(scope, self.vec_type(dtype, region=region), region)

    def multi_slot(self, t: TileT) -> Tile:
        """`pto.multi_tile_get %mb[iv mod N]` of a buffer allocated before the loop."""
        b = self.b
        count = self.rng.choice([2, 2, 3, 4])
        mb = b.fresh("mb")
        mtype = b.multi_ty(t, count)
        self.multi_tiles.append("  " * 2 + f"{mb} = pto.alloc_multi_tile : {mtype}")
        b.vec_bytes += count * t.nbytes
        iv_t = self.loop.iv_type
        slot = self.iv_index(b.arith("remui", "%iv", b.const(count, iv_t), iv_t), iv_t, True)
        name = b.fresh("t")
        b.emit(f"{name} = pto.multi_tile_get {mb}[{slot}] : {mtype} -> {b.ty(t)}")
        b.features.add("user_multi_tile")
        return Tile(name, t)

    def load(self, scope: _Scope, dtype: str, t: TileT | None = None, region: Region | None = None) -> Tile:
        """A tile loaded from the row block of this iteration (its valid
        region `region`, default the loop's)."""
        b = self.b
        if region is None:
            region = Region(*t.static_valid) if t is not None and not t.dynamic else self.region
        tile = self.fresh_vec(scope, t or self.vec_type(dtype, region=region), region)
        row = self.row(scope, self.shape[0])
        b.tload(self.input(dtype, tail=region.ref is not None), row, scope.col, tile)
        scope.pool.append(tile)
        return tile

    def pick(self, scope: _Scope, dtype: str | None = None, region: Region | None = None) -> Tile:
        """A tile of the pool (of `dtype`, readable over `region`), or a new load."""
        def fits(t: Tile) -> bool:
            return region is None or (covers(t.region, region) and _static_valid_fits(t.t, region))

        candidates = [t for t in scope.pool if (dtype is None or t.dtype == dtype) and t.t.shape == self.shape and fits(t)]
        if not candidates:
            return self.load(scope, dtype or self.dtype, region=region)
        # favour recent tiles: chains of dependent ops
        return candidates[-1] if self.rng.random() < 0.5 else self.rng.choice(candidates)

    def pick_same(self, scope: _Scope, like: Tile) -> Tile:
        """A tile of exactly `like`'s type and region (for scf.if results)."""
        candidates = [t for t in scope.pool if t.t == like.t and t.region == like.region and t is not like]
        if candidates and self.rng.random() < 0.8:
            return self.rng.choice(candidates)
        return self.load(scope, like.dtype, like.t, like.region)

    def destination(self, scope: _Scope, dtype: str, inputs: list[Tile]) -> tuple[Tile, bool]:
        """A tile to write over (at most) the first input's valid region:
        fresh, in place (an input), or an existing one that every input
        covers. Returns it and whether it is new (to add to the pool after
        the op)."""
        r = self.rng.random()
        if r < 0.2 and inputs[0].dtype == dtype and inputs[0].loc == "vec":
            self.b.features.add("in_place")
            return inputs[0], False
        if r < 0.32:
            others = [
                t
                for t in scope.pool
                if t.dtype == dtype
                and t not in inputs
                and t.loc == "vec"
                and t.t.shape == self.shape
                and all(covers(i.region, t.region) and _valid_agree(i.t, t.t) for i in inputs)
            ]
            if others:
                target = self.rng.choice(others)
                if self.outer_tile in others and self.rng.random() < 0.3:
                    target = self.outer_tile
                self.b.features.add("overwrite_outer" if target is self.outer_tile else "overwrite")
                return target, False
        return self.new_vec(scope, dtype, inputs[0].region), True

    def scalar(self, dtype: str) -> tuple[str, str]:
        if dtype in FLOAT_DTYPES:
            return self.b.const(self.rng.choice(FLOAT_SCALARS), dtype), dtype
        return self.b.const(self.rng.choice(INT_SCALARS), dtype), dtype

    def op_names(self, family: str, dtype: str) -> list[str]:
        """The ops of a family that pto-run executes and that take `dtype`
        on the kernel's target (ptoas's rules, ptoas_rules.ELEMENT_TYPES)."""
        names = list(OP_FAMILIES[family])
        if dtype in FLOAT_DTYPES:
            names += FLOAT_ONLY.get(family, [])
        arch = self.arch or "a2a3"
        return [n for n in names if f"pto.{n}" in self.ops and ptoas_rules.allows(n, arch, dtype)]

    def vector_dtype_ok(self, dtype: str) -> bool:
        """Whether every element-wise family has an op for `dtype` on the
        kernel's target (a2a3 has none for i8 and bf16)."""
        return all(self.op_names(family, dtype) for family in ("binary", "scalar", "unary"))

    def one_of(self, names: list[str], dtype: str) -> str:
        """One of these binary ops that takes `dtype` on the kernel's target
        (tadd takes every type a binary op does)."""
        arch = self.arch or "a2a3"
        return self.rng.choice([n for n in names if ptoas_rules.allows(n, arch, dtype)] or ["tadd"])

    def choose_op(self, family: str, dtype: str, in_place: bool = False) -> str:
        names = self.op_names(family, dtype)
        if in_place and self.arch != "a5":
            # ptoas refuses trecip in place on a3, what it names a module without a target
            # (ptoas_rules.float_unary); a2 and a5 allow it
            names = [n for n in names if n != "trecip"] or names
        name = self.rng.choice(names)
        self.b.features.add(f"op_{name}")
        return name

    def vector_op(self, scope: _Scope) -> Tile:
        rng, b = self.rng, self.b
        a = self.pick(scope)
        dtype = a.dtype
        kinds = [("binary", 5), ("scalar", 3), ("unary", 2), ("cvt", 2), ("mov", 1), ("if", 1), ("select", 1)]
        if "pto.subview" in self.ops:
            kinds += [("subview_read", 1), ("subview_write", 1)]
        if "pto.treshape" in self.ops and not scope.inner:
            kinds.append(("treshape", 1))
        for kind, weight, ops in MORE_KINDS:
            if all(f"pto.{o}" in self.ops for o in ops) and (kind != "trans" or not scope.inner):
                kinds.append((kind, weight))
        kind = self.weighted(kinds)
        if kind.startswith("subview") and self.subview_op(scope, a, kind):
            return a
        if kind == "treshape" and self.treshape_op(scope, a):
            return a
        if kind in self.special and self.special[kind](scope, a):
            return a
        if kind not in ("binary", "scalar", "unary", "cvt", "mov", "if", "select"):
            kind = "unary"
        if kind == "binary":
            other = self.pick(scope, dtype, a.region) if rng.random() < 0.8 else self.load(scope, dtype, region=a.region)
            d, new = self.destination(scope, dtype, [a, other])
            b.op(self.choose_op("binary", dtype), [a, other], d)
        elif kind == "scalar":
            d, new = self.destination(scope, dtype, [a])
            b.op(self.choose_op("scalar", dtype), [a, self.scalar(dtype)], d)
        elif kind == "unary":
            d, new = self.destination(scope, dtype, [a])
            b.op(self.choose_op("unary", dtype, in_place=d is a), [a], d)
        elif kind == "cvt":
            target = rng.choice([t for t in CVT_TARGETS[dtype] if self.vector_dtype_ok(t)] or CVT_TARGETS[dtype])
            d, new = self.new_vec(scope, target, a.region), True
            attrs = ""
            if rng.random() < 0.4:
                attrs = f"rmode = #pto<round_mode {rng.choice(ROUND_MODES)}>"
                b.features.add("tcvt_rmode")
            b.op("tcvt", [a], d, attrs)
            b.features.add("tcvt")
        elif kind == "mov":
            # vec to vec: ptoas moves vec tiles into mat on a5 only, and mat tiles
            # only into the cube's spaces (TMovOp::verify)
            d, new = self.new_vec(scope, dtype, a.region), True
            b.op("tmov", [a], d)
            b.features.add("tmov_vec")
        elif kind == "if":
            d, new = self.destination(scope, dtype, [a])
            cond = self.parity(scope)
            other = self.pick(scope, dtype, d.region)
            b.open(f"scf.if {cond} {{")
            b.op(self.one_of(["tadd", "tmul", "tmax"], dtype), [a, other], d)
            b.close("} else {")
            b.depth += 1
            b.op("tmuls", [a, self.scalar(dtype)], d)
            b.close()
            b.features.add("if_writes")
        else:  # select one of two tiles with scf.if results
            other = self.pick_same(scope, a)
            cond = self.parity(scope)
            d = Tile(b.fresh("sel"), a.t, a.region)
            b.open(f"{d.name} = scf.if {cond} -> ({b.ty(a.t)}) {{")
            b.emit(f"scf.yield {a.name} : {b.ty(a.t)}")
            b.close("} else {")
            b.depth += 1
            b.emit(f"scf.yield {other.name} : {b.ty(other.t)}")
            b.close()
            new = True
            b.features.add("if_yields_tile")
        if new:
            scope.pool.append(d)
        else:
            self.touched(scope, d)
        return d

    def touched(self, scope: _Scope, t: Tile) -> None:
        """`t` was just written: the most recently written goes last."""
        if t in scope.pool:
            scope.pool.remove(t)
            scope.pool.append(t)

    # -- views of tiles ----------------------------------------------------------------------

    def window(self, region: Region, dtype: str) -> tuple[int, int, int, int] | None:
        """(row, col, rows, cols) of a window inside `region` whose rows are
        whole 32-byte units (the layout rule), at a 32-byte column offset."""
        unit = LAYOUT_ALIGN // DTYPE_BYTES[dtype]
        if region.ref is not None or region.cols < unit:
            return None
        w = self.rng.randrange(unit, region.cols + 1, unit)
        h = self.rng.randint(1, region.rows)
        if (h, w) == self.shape:
            h = max(1, h // 2)
            if (h, w) == self.shape:
                return None
        c0 = self.rng.randrange(0, region.cols - w + 1, unit)
        r0 = self.rng.randint(0, region.rows - h)
        return r0, c0, h, w

    def subview(self, src: Tile, r0: int, c0: int, h: int, w: int) -> Tile:
        """`pto.subview %src[r0, c0] sizes [h, w]`, sometimes with `valid
        [...]` operands of the window's size (constants, so the result's
        valid shape says them: ptoas's SubViewOp::verify)."""
        b, rng = self.b, self.rng
        dyn = rng.random() < (0.5 if b.style == "pypto" else 0.25)
        # the source's layout and pad (ptoas: "expects result tile config to match source")
        t = TileT("vec", h, w, src.dtype, blayout=src.t.blayout, slayout=src.t.slayout, fractal=src.t.fractal, pad=src.t.pad)
        name = b.fresh("sv")
        offsets = f"{b.const(r0)}, {b.const(c0)}"
        valid = f" valid [{b.const(h)}, {b.const(w)}]" if dyn else ""
        if b.generic_op():
            seg = "1, 2, 1, 1" if dyn else "1, 2, 0, 0"
            operands = f"{src.name}, {offsets}" + (f", {b.const(h)}, {b.const(w)}" if dyn else "")
            types = "index, index" + (", index, index" if dyn else "")
            b.emit(
                f'{name} = "pto.subview"({operands}) {{operandSegmentSizes = array<i32: {seg}>, sizes = [{h}, {w}]}} : ({b.ty(src.t)}, {types}) -> {b.ty(t)}'
            )
        else:
            b.emit(f"{name} = pto.subview {src.name}[{offsets}] sizes [{h}, {w}]{valid} : {b.ty(src.t)} -> {b.ty(t)}")
        return Tile(name, t, Region(h, w))

    def subview_op(self, scope: _Scope, a: Tile, kind: str) -> bool:
        """Read a window of `a` (compute on it, store the result or the window
        itself), or write a window of `a` in place (a partial update its
        later readers and stores see). False when no window fits."""
        b, rng = self.b, self.rng
        win = self.window(a.region, a.dtype)
        if win is None:
            return False
        r0, c0, h, w = win
        sv = self.subview(a, *win)
        if kind == "subview_write":
            source = sv
            if rng.random() < 0.4:  # the same window of another tile
                source = self.subview(self.pick(scope, a.dtype, a.region), *win)
            if rng.random() < 0.5:
                b.op(self.choose_op("scalar", a.dtype), [source, self.scalar(a.dtype)], sv)
            else:
                b.op(self.choose_op("unary", a.dtype, in_place=source is sv), [source], sv)
            self.touched(scope, a)
            b.features.add("subview_write")
            return True
        row = b.arith("addi", self.row(scope, self.shape[0]), b.const(r0))
        col = b.arith("addi", scope.col, b.const(c0))
        out = self.output(a.dtype)
        if rng.random() < 0.3:
            if rng.random() < 0.5:  # later: the view outlives other ops (and their allocations)
                scope.deferred.append(lambda: b.tstore(sv, out, row, col))
                b.features.add("late_view")
            else:
                b.tstore(sv, out, row, col)
            b.features.add("subview_store")
            return True

        def read() -> None:
            d = self.fresh_vec(scope, TileT("vec", h, w, a.dtype))
            if rng.random() < 0.5:
                b.op(self.choose_op("scalar", a.dtype), [sv, self.scalar(a.dtype)], d)
            else:
                b.op(self.choose_op("unary", a.dtype), [sv], d)
            b.tstore(d, out, row, col)

        if rng.random() < 0.4:  # later: the view outlives other ops (and their allocations)
            scope.deferred.append(read)
            b.features.add("late_view")
        else:
            read()
        b.features.add("subview_read")
        return True

    def treshape_op(self, scope: _Scope, a: Tile) -> bool:
        """`pto.treshape` of a whole tile to the same bytes in another shape:
        compute on the reshaped tile and store it, or update the reshaped
        view in place (the source sees it)."""
        b, rng = self.b, self.rng
        rows, cols = self.shape
        if a.region != Region(rows, cols):
            return False
        unit = LAYOUT_ALIGN // DTYPE_BYTES[a.dtype]
        shapes = [(rows * 2, cols // 2)] if cols % 2 == 0 and (cols // 2) % unit == 0 else []
        if rows % 2 == 0:
            shapes.append((rows // 2, cols * 2))
        if not shapes:
            return False
        shape = rng.choice(shapes)
        t = TileT("vec", *shape, a.dtype)
        r = Tile(b.fresh("rs"), t)
        if b.generic_op():
            b.emit(f'{r.name} = "pto.treshape"({a.name}) : ({b.ty(a.t)}) -> {b.ty(t)}')
        else:
            b.emit(f"{r.name} = pto.treshape {a.name} : {b.ty(a.t)} -> {b.ty(t)}")
        b.features.add("treshape")
        if rng.random() < 0.4:
            b.op(self.choose_op("scalar", a.dtype), [r, self.scalar(a.dtype)], r)
            self.touched(scope, a)
            b.features.add("treshape_write")
            return True

        def read() -> None:
            d = self.fresh_vec(scope, self.vec_type(a.dtype, shape))
            b.op(self.choose_op("unary", a.dtype), [r], d)
            out = b.tensor("out", a.dtype, (self.loop.max_block + 1) * shape[0], shape[1])
            b.tstore(d, out, self.row(scope, shape[0]), b.const(0))

        if rng.random() < 0.5:  # later: the view outlives other ops (and their allocations)
            scope.deferred.append(read)
            b.features.add("late_view")
        else:
            read()
        return True

    # -- rows, columns, elements and copies ------------------------------------------------

    def unit(self, dtype: str) -> int:
        """Elements in 32 bytes: the narrowest row-major tile row."""
        return LAYOUT_ALIGN // DTYPE_BYTES[dtype]

    def column_tile(self, scope: _Scope, dtype: str, region: Region, want_col_major: bool) -> Tile:
        """A tile for one value per row of `region` (valid rows x 1): a
        col_major R x 1 column, or a row_major R x 32-byte tile with valid Rx1."""
        rows = self.shape[0]
        col = Region(region.rows, 1, region.ref)
        if want_col_major and rows * DTYPE_BYTES[dtype] % LAYOUT_ALIGN == 0:
            self.b.features.add("col_major_column")
            return self.fresh_vec(scope, self.vec_type(dtype, (rows, 1), col, blayout="col_major"), col)
        return self.fresh_vec(scope, self.vec_type(dtype, (rows, self.unit(dtype)), col), col)

    def row_reduce_op(self, scope: _Scope, a: Tile) -> bool:
        """PyPTO's softmax pattern: a row reduction into a column, then the
        column broadcast back (`trowexpand<op>` with the tile, or
        `trowexpand` into a tile), or stored."""
        b, rng = self.b, self.rng
        dtype, region = a.dtype, a.region
        if not self.op_names("rowred", dtype):
            return False
        column = self.column_tile(scope, dtype, region, rng.random() < 0.5)
        ins = [a]
        if rng.random() < 0.3:  # scratch: written, never read
            ins.append(self.new_vec(scope, dtype, region))
            b.features.add("reduce_tmp")
        b.op(self.choose_op("rowred", dtype), ins, column)
        how = rng.choice(["expand_op", "expand_op", "expand", "store"])
        if how == "expand" and "pto.trowexpand" in self.ops:
            d = self.new_vec(scope, dtype, region)
            b.op("trowexpand", [column], d)
            b.features.add("op_trowexpand")
            scope.pool.append(d)
            return True
        if how == "store" or not self.op_names("rowexpand", dtype):
            out = b.tensor("out", dtype, self.tail_total if region.ref else self.rows, 1)
            b.tstore(column, out, self.row(scope, self.shape[0]), b.const(0))
            b.features.add("column_store")
            return True
        per_row = column
        if column.t.blayout != "col_major":
            # a row-major per-row operand has 32 bytes a row: broadcast the column into them first
            if "pto.trowexpand" not in self.ops:
                return True
            block = Region(region.rows, self.unit(dtype), region.ref)
            per_row = self.fresh_vec(scope, self.vec_type(dtype, (self.shape[0], self.unit(dtype)), block), block)
            b.op("trowexpand", [column], per_row)
            b.features.add("op_trowexpand")
            b.features.add("row_block_operand")
        d = a if self.rng.random() < 0.3 else self.new_vec(scope, dtype, region)
        b.op(self.choose_op("rowexpand", dtype), [a, per_row], d)
        if d is a:
            self.touched(scope, a)
        else:
            scope.pool.append(d)
        return True

    def carried_partial(self, scope: _Scope) -> None:
        """A body tile written whole only in the first iteration, then only
        in part (`tsetval`, a `tload` or an op into a `subview` window, an
        in-place op on a `treshape` of it) before it is read whole: it is
        loop-carried through memory (what the other bytes hold comes from
        earlier iterations), so it must keep one buffer."""
        b, rng = self.b, self.rng
        dtype, region = self.dtype, self.outer_region
        c = b.alloc(self.vec_type(dtype, region=region), region=region)
        first = self.first_iteration()
        b.open(f"scf.if {first} {{")
        b.tload(self.input(dtype), b.const(0), b.const(0), c)
        b.close()
        hows = ["if_reload"] + (["setval"] if "pto.tsetval" in self.ops else [])
        win = self.window(region, dtype) if "pto.subview" in self.ops else None
        if win is not None:
            hows += ["subview_load", "subview_op"]
        if "pto.treshape" in self.ops and region == Region(*self.shape) and self.shape[0] % 2 == 0:
            hows.append("treshape_op")
        how = rng.choice(hows or ["none"])
        if how == "if_reload":  # rewritten whole, but only on odd blocks
            b.open(f"scf.if {self.parity(scope)} {{")
            b.tload(self.input(dtype), self.row(scope, self.shape[0]), b.const(0), c)
            b.close()
        elif how == "setval":
            value, ty = self.scalar(dtype)
            b.emit(f"pto.tsetval ins({self.element(c)}, {value} : index, {ty}) outs({c.name} : {b.ty(c.t)})")
        elif how == "subview_load":
            sv = self.subview(c, *win)
            b.tload(self.input(dtype), b.arith("addi", self.row(scope, self.shape[0]), b.const(win[0])), b.const(win[1]), sv)
        elif how == "subview_op":
            sv = self.subview(c, *win)
            b.op(self.choose_op("scalar", dtype), [sv, self.scalar(dtype)], sv)
        elif how == "treshape_op":
            t = TileT("vec", self.shape[0] // 2, self.shape[1] * 2, dtype)
            r = Tile(b.fresh("rs"), t)
            b.emit(f"{r.name} = pto.treshape {c.name} : {b.ty(c.t)} -> {b.ty(t)}")
            b.op(self.choose_op("scalar", dtype), [r, self.scalar(dtype)], r)
        b.features.add(f"carried_partial_{how}")
        x = self.pick(scope, dtype, region)
        d = self.new_vec(scope, dtype, region)
        b.op(self.one_of(["tadd", "tsub", "tmax"], dtype), [c, x], d)
        b.tstore(d, self.output(dtype), self.row(scope, self.shape[0]), b.const(0))

    def partial_writer(self, scope: _Scope) -> None:
        """A body tile written whole in the first iteration, then by an op
        that writes less than the tile's valid region holds (or than a view
        of it reads) before it is read whole (issue 21): a `tload` into a
        tile whose valid region is smaller than the `treshape` or `subview`
        that reads it (static, or a `?` with an operand), a column reduction
        (row 0), a `tconcat` of narrower sources (a2a3). What the rest holds
        comes from earlier iterations: loop-carried, one buffer."""
        b, rng = self.b, self.rng
        dtype = self.dtype
        rows, cols = self.shape
        full = Region(rows, cols)
        unit = LAYOUT_ALIGN // DTYPE_BYTES[dtype]
        hows = []
        if rows > 1:
            hows += ["treshape_view", "subview_view"]
        if "pto.tcolsum" in self.ops and rows > 1:
            hows.append("colsum_row0")
        if "pto.tconcat" in self.ops and self.arch in (None, "a2a3") and cols >= 4 * unit:
            hows.append("concat_narrow")
        if not hows:
            return
        how = rng.choice(hows)
        b.features.add(f"partial_writer_{how}")
        first = self.first_iteration()
        whole = TileT("vec", rows, cols, dtype)
        if how in ("treshape_view", "subview_view"):
            h = rng.randint(1, rows - 1)
            dyn = rng.random() < 0.4
            t = TileT("vec", rows, cols, dtype, dyn_row=dyn, valid=(h, cols))
            c = b.alloc(t, region=Region(h, cols))
            view = b.fresh("wv")
            if how == "treshape_view":
                b.emit(f"{view} = pto.treshape {c.name} : {b.ty(t)} -> {b.ty(whole)}")
            else:
                b.emit(f"{view} = pto.subview {c.name}[{b.const(0)}, {b.const(0)}] sizes [{rows}, {cols}] : {b.ty(t)} -> {b.ty(whole)}")
            w = Tile(view, whole, full)
            b.open(f"scf.if {first} {{")
            b.tload(self.input(dtype), b.const(0), b.const(0), w)
            b.close()
            b.tload(self.input(dtype), self.row(scope, rows), b.const(0), c)  # rows [0, h) of this block
            read = w
            refill = w if rng.random() < 0.5 else None
        else:
            d = b.alloc(whole, region=full)
            b.open(f"scf.if {first} {{")
            b.tload(self.input(dtype), b.const(0), b.const(0), d)
            b.close()
            if how == "colsum_row0":
                x = self.pick(scope, dtype, full)
                b.op("tcolsum", [x], d)
            else:
                half = Region(rows, unit)
                a = self.load(scope, dtype, self.vec_type(dtype, region=half), half)
                e = self.load(scope, dtype, self.vec_type(dtype, region=half), half)
                b.op("tconcat", [a, e], d)
            read, refill = d, None
        out = self.new_vec(scope, dtype, full)
        b.op(self.choose_op("scalar", dtype), [read, self.scalar(dtype)], out)
        b.tstore(out, self.output(dtype), self.row(scope, rows), b.const(0))
        if refill is not None:  # the rest written after the read: what the next iteration reads
            b.tload(self.input(dtype), self.row(scope, rows), b.const(0), refill)
            b.features.add("partial_writer_refill")

    def call(self, scope: _Scope) -> None:
        """A `func.call` of a helper function with tiles of its own, passed a
        tile of the loop, while another tile of the loop is live across the
        call (issue 21: the callee's tiles must not land on it)."""
        b, rng = self.b, self.rng
        dtype = self.dtype
        region = Region(*self.shape)
        arg = self.load(scope, dtype, TileT("vec", *self.shape, dtype), region)
        kept = self.load(scope, dtype, TileT("vec", *self.shape, dtype), region)
        out = self.output(dtype)
        name = f"helper{len(self.helpers)}"
        row = self.row(scope, self.shape[0])
        op = self.choose_op("scalar", dtype)
        value = rng.choice(FLOAT_SCALARS if dtype in FLOAT_DTYPES else INT_SCALARS)
        self.helpers.append(_helper(name, b.ty(arg.t), arg.t, out, op, value))
        b.emit(f"func.call @{name}({arg.name}, {out.arg}, {row}) : ({b.ty(arg.t)}, {b.ptr_type(dtype)}, index) -> ()")
        d = self.new_vec(scope, dtype, region)
        b.op(self.choose_op("unary", dtype), [kept], d)
        b.tstore(d, self.output(dtype), row, b.const(0))
        b.features.add("call")
    def open_nested_loop(self, j: str, trips: int) -> str:
        """Open a loop nested in the pipeline loop that runs `trips` times
        and return its iteration number as an index: mostly
        `scf.for %j = 0 to trips step 1`, sometimes over an integer type,
        unsigned, with bounds across the signed limit or at the top of the
        type (which a reading with the other sign sees as no trip), the
        number then `j - lo` cast at the top of the body."""
        rng, b = self.rng, self.b
        if rng.random() < 0.7:
            b.open(f"scf.for {j} = {b.const(0)} to {b.const(trips)} step {b.const(1)} {{")
            return j
        t = self.weighted([("i32", 3), ("index", 2), ("i16", 1), ("i8", 1)])
        width = 64 if t == "index" else int(t[1:])
        unsigned = rng.random() < 0.6
        top = (1 << width) - 1 if unsigned else (1 << (width - 1)) - 1
        where = rng.choice(["signed_limit", "top"] if unsigned else ["top", "bottom"])
        lo = {"signed_limit": (1 << (width - 1)) - 1, "top": top - trips, "bottom": -(1 << (width - 1))}[where]
        b.features.add("nested_unsigned" if unsigned else "nested_edge_bounds")

        def written(v: int) -> int:  # the signed constant of the type with v's bits
            v &= (1 << width) - 1
            return v - (1 << width) if v >> (width - 1) else v

        start = b.const(written(lo), t)
        suffix = "" if t == "index" else f" : {t}"
        b.open(f"scf.for {'unsigned ' if unsigned else ''}{j} = {start} to {b.const(written(lo + trips), t)} step {b.const(1, t)}{suffix} {{")
        return self.iv_index(b.arith("subi", j, start, t), t, True)

    def carried_nested(self, scope: _Scope) -> None:
        """A body tile written whole in the first iteration, then by a tload
        in a nested loop that may run no iteration, before it is read whole:
        `scf.for unsigned` from the type's largest value to 1 (no trip; read
        signed, two), a signed loop from the type's top to its bottom (no
        trip; read unsigned, one), or loops of one or two trips whose
        bounds a reading with the other sign sees otherwise. With no trip
        the tile is loop-carried through memory (issue 21: a write in such
        a loop was taken as certain, and the tile got N buffers)."""
        b, rng = self.b, self.rng
        dtype, region = self.dtype, self.outer_region
        c = b.alloc(self.vec_type(dtype, region=region), region=region)
        first = self.first_iteration()
        b.open(f"scf.if {first} {{")
        b.tload(self.input(dtype), b.const(0), b.const(0), c)
        b.close()
        t = self.weighted([("i32", 3), ("index", 2), ("i64", 1), ("i16", 1), ("i8", 1)])
        width = 64 if t == "index" else int(t[1:])
        smin, smax = -(1 << (width - 1)), (1 << (width - 1)) - 1
        shape = rng.choice(["unsigned_none", "signed_none", "unsigned_across", "signed_across"])
        lo, hi = {
            "unsigned_none": (-1, 1),  # 2^w - 1 to 1: none (signed: -1 to 1, two)
            "signed_none": (smax, smin),  # none (unsigned: 2^(w-1) - 1 to 2^(w-1), one)
            "unsigned_across": (smax, smin + 1),  # two (signed: none)
            "signed_across": (-1, 1),  # two (unsigned: none)
        }[shape]
        unsigned = shape.startswith("unsigned")
        suffix = "" if t == "index" else f" : {t}"
        j = b.fresh("j")
        b.open(f"scf.for {'unsigned ' if unsigned else ''}{j} = {b.const(lo, t)} to {b.const(hi, t)} step {b.const(1, t)}{suffix} {{")
        b.tload(self.input(dtype), self.row(scope, self.shape[0]), b.const(0), c)
        b.close()
        b.features.add(f"carried_nested_{shape}")
        x = self.pick(scope, dtype, region)
        d = self.new_vec(scope, dtype, region)
        b.op(self.one_of(["tadd", "tsub", "tmax"], dtype), [c, x], d)
        b.tstore(d, self.output(dtype), self.row(scope, self.shape[0]), b.const(0))

    def resize_op(self, scope: _Scope, a: Tile) -> bool:
        """A `?x?` tile allocated whole, then `pto.set_validshape` to `a`'s
        region (PyPTO's resize), written from `a`."""
        b = self.b
        rows, cols = self.shape
        t = TileT("vec", rows, cols, a.dtype, True, True)
        d = b.alloc(t, in_loop=scope.in_loop, region=Region(rows, cols))
        region = a.region
        b.emit(f"pto.set_validshape {d.name}, {region.ref or b.const(region.rows)}, {b.const(region.cols)} : {b.ty(t)}")
        d.region = region
        b.features.add("set_validshape")
        b.features.add("op_set_validshape")
        b.op(self.choose_op("unary", a.dtype), [a], d)
        scope.pool.append(d)
        return True

    def row_tile(self, scope: _Scope, dtype: str, region: Region) -> Tile:
        """A 1 x C tile for one value per column of `region`."""
        row = Region(1, region.cols)
        return self.fresh_vec(scope, self.vec_type(dtype, (1, self.shape[1]), row), row)

    def store_row(self, scope: _Scope, t: Tile) -> None:
        b = self.b
        out = b.tensor("out", t.dtype, self.loop.max_block + 1, self.cols)
        b.tstore(t, out, scope.block, scope.col)
        b.features.add("row_store")

    def col_reduce_op(self, scope: _Scope, a: Tile) -> bool:
        """A column reduction into a 1 x C tile, then broadcast down
        (`tcolexpand`, `tcolexpand<op>`) or stored."""
        b, rng = self.b, self.rng
        dtype, region = a.dtype, a.region
        if not self.op_names("colred", dtype):
            return False
        row = self.row_tile(scope, dtype, region)
        b.op(self.choose_op("colred", dtype), [a], row)
        how = rng.choice(["expand_op", "expand", "store"])
        if how == "expand" and "pto.tcolexpand" in self.ops:
            d = self.new_vec(scope, dtype, region)
            b.op("tcolexpand", [row], d)
            b.features.add("op_tcolexpand")
            scope.pool.append(d)
        elif how == "expand_op" and self.op_names("colexpand", dtype):
            d = a if rng.random() < 0.3 else self.new_vec(scope, dtype, region)
            b.op(self.choose_op("colexpand", dtype), [a, row], d)
            if d is a:
                self.touched(scope, a)
            else:
                scope.pool.append(d)
        else:
            self.store_row(scope, row)
        return True

    def fill_op(self, scope: _Scope, a: Tile) -> bool:
        """`texpands`: a fresh tile filled with a scalar, or an existing one
        (the outer tile too: re-initialised every iteration) refilled."""
        b = self.b
        if self.rng.random() < 0.4:
            target, new = a, False
        else:
            target, new = self.new_vec(scope, a.dtype, self.region), True
        b.op("texpands", [self.scalar(a.dtype)], target)
        b.features.add("op_texpands")
        if new:
            scope.pool.append(target)
        else:
            self.touched(scope, target)
        return True

    def element(self, t: Tile) -> str:
        """The offset (in elements, row-major storage) of an element inside `t`'s valid region."""
        rows = 1 if t.region.ref else t.region.rows
        r, c = self.rng.randrange(rows), self.rng.randrange(t.region.cols)
        return self.b.const(r * t.t.cols + c)

    def setval_op(self, scope: _Scope, a: Tile) -> bool:
        b = self.b
        value, dtype = self.scalar(a.dtype)
        b.emit(f"pto.tsetval ins({self.element(a)}, {value} : index, {dtype}) outs({a.name} : {b.ty(a.t)})")
        b.features.add("op_tsetval")
        self.touched(scope, a)
        return True

    def getval_op(self, scope: _Scope, a: Tile) -> bool:
        """A scalar read from a tile (`tgetval`) used as the scalar of an op."""
        b = self.b
        v = b.fresh("val")
        b.emit(f"{v} = pto.tgetval ins({a.name}, {self.element(a)} : {b.ty(a.t)}, index) outs : {a.dtype}")
        b.features.add("op_tgetval")
        names = [n for n in self.op_names("scalar", a.dtype) if a.dtype in FLOAT_DTYPES or n != "tdivs"]
        x = self.pick(scope, a.dtype)
        d, new = self.destination(scope, a.dtype, [x])
        name = self.rng.choice(names)
        b.features.add(f"op_{name}")
        b.op(name, [x, (v, a.dtype)], d)
        if new:
            scope.pool.append(d)
        else:
            self.touched(scope, d)
        return True

    def extract_op(self, scope: _Scope, a: Tile) -> bool:
        """`textract` of a block of `a` into a smaller tile, stored."""
        b = self.b
        win = self.window(a.region, a.dtype)
        if win is None or not ptoas_rules.allows("textract", self.arch or "a2a3", a.dtype):
            return False
        r0, c0, h, w = win
        d = self.fresh_vec(scope, self.vec_type(a.dtype, (h, w)), Region(h, w))
        b.emit(f"pto.textract ins({a.name}, {b.const(r0)}, {b.const(c0)} : {b.ty(a.t)}, index, index) outs({d.name} : {b.ty(d.t)})")
        b.features.add("op_textract")
        row = b.arith("addi", self.row(scope, self.shape[0]), b.const(r0))
        col = b.arith("addi", scope.col, b.const(c0))
        b.tstore(d, self.output(a.dtype), row, col)
        return True

    def trans_op(self, scope: _Scope, a: Tile) -> bool:
        """`ttrans` into a C x R tile (valid region transposed), stored."""
        b = self.b
        rows, cols = self.shape
        if a.region.ref or rows % self.unit(a.dtype):
            return False
        region = Region(a.region.cols, a.region.rows)
        d = self.fresh_vec(scope, self.vec_type(a.dtype, (cols, rows), region), region)
        ins = [a]
        if self.rng.random() < 0.3:
            ins.append(self.new_vec(scope, a.dtype, a.region))
        b.op("ttrans", ins, d)
        b.features.add("op_ttrans")
        out = b.tensor("out", a.dtype, (self.loop.max_block + 1) * cols, rows)
        b.tstore(d, out, self.row(scope, cols), b.const(0))
        return True

    def tci_op(self, scope: _Scope, a: Tile) -> bool:
        """`tci`: a 1 x C index sequence (integer tiles), stored or broadcast."""
        b = self.b
        if a.dtype not in ("i32", "i16"):
            return False
        row = self.row_tile(scope, a.dtype, self.region)
        start = b.const(self.rng.choice(INT_SCALARS), a.dtype)
        attrs = " {descending = true}" if self.rng.random() < 0.3 else ""
        b.emit(f"pto.tci ins({start} : {a.dtype}) outs({row.name} : {b.ty(row.t)}){attrs}")
        b.features.add("op_tci")
        if "pto.tcolexpand" in self.ops and self.rng.random() < 0.5:
            d = self.new_vec(scope, a.dtype, self.region)
            b.op("tcolexpand", [row], d)
            scope.pool.append(d)
        else:
            self.store_row(scope, row)
        return True

    def fillpad_op(self, scope: _Scope, a: Tile) -> bool:
        """`tfillpad`: `a` copied into a whole tile whose bytes past `a`'s
        valid region get the pad value (a type with pad = zero, max or min)."""
        b = self.b
        if a.region.ref is None and (a.region.rows, a.region.cols) == self.shape and self.rng.random() < 0.7:
            return False  # nothing to pad: mostly something else
        d = self.fresh_vec(scope, self.vec_type(a.dtype, pad=self.rng.choice([1, 2, 3])), Region(*self.shape))
        b.op("tfillpad", [a], d)
        b.features.add("op_tfillpad")
        scope.pool.append(d)
        return True

    def parity(self, scope: _Scope) -> str:
        if scope.cond is None:
            b = self.b
            p = b.arith("remui", scope.block, b.const(2))
            scope.cond = b.fresh("odd")
            b.emit(f"{scope.cond} = arith.cmpi ne, {p}, {b.const(0)} : index")
        return scope.cond

    def vector_code(self, scope: _Scope) -> None:
        for _ in range(self.rng.randint(1, 2)):
            self.load(scope, self.dtype)
        for _ in range(self.rng.randint(1, 5)):
            if self.b.vec_bytes + VEC_OP_BYTES * self.b.factor > VEC_BUDGET:
                self.b.features.add("vec_budget_reached")
                break
            self.vector_op(scope)
        for read in scope.deferred:
            read()
        scope.deferred.clear()
        written = [t for t in scope.pool if t is not self.outer_tile]
        stored = {id(written[-1]): written[-1]} if written else {}
        if len(written) > 1 and self.rng.random() < 0.5:
            extra = self.rng.choice(written)
            stored[id(extra)] = extra
        for t in stored.values():
            if t.loc != "vec":
                continue
            out = self.output(t.dtype, tail=t.region.ref is not None)
            self.b.tstore(t, out, self.row(scope, self.shape[0]), scope.col)

    # -- fragments ------------------------------------------------------------------------

    def matmul_shape(self) -> tuple[int, int, int, str, str]:
        rng = self.rng
        in_t, out_t = self.weighted(MATMUL_TYPES)
        m = 16 if self.boxed else rng.choice([8, 16])
        wide = [32] if in_t == "i8" else [16, 32]  # whole 32-byte rows (and boxes) of i8
        return m, rng.choice(wide), rng.choice(wide), in_t, out_t

    def pre(self, fragment: str, carried_inits: list) -> dict:
        """Code before the loop; returns what the body and post need."""
        b, rng = self.b, self.rng
        region = self.outer_region
        if fragment == "acc_memory":
            acc = b.alloc(self.vec_type(self.dtype, region=region), addr=rng.random() < 0.3, in_loop=False, region=region)
            b.tload(self.input(self.dtype), b.const(0), b.const(0), acc)
            return {"acc": acc}
        if fragment == "acc_iter_args":
            t = self.vec_type(self.dtype, region=region)
            t0 = b.alloc(t, in_loop=False, region=region)
            b.tload(self.input(self.dtype), b.const(0), b.const(0), t0)
            if rng.random() < 0.5:
                t1 = b.alloc(t, in_loop=False, region=region)  # written before read in iteration 0
                p, q = b.fresh("ping"), b.fresh("pong")
                carried_inits += [(p, t0.name, b.ty(t)), (q, t1.name, b.ty(t))]
                b.features.add("ping_pong")
                return {"ping": p, "pong": q, "t": t, "region": region}
            a = b.fresh("acc")
            carried_inits.append((a, t0.name, b.ty(t)))
            return {"acc": a, "t": t, "region": region}
        if fragment == "matmul_rows":
            m, k, n, in_t, out_t = self.matmul_shape()
            rows_a = (self.loop.max_block + 1) * m
            tail_m = rng.random() < 0.4  # PyPTO's partial last block of M rows
            if tail_m:
                rows_a = self.loop.max_block * m + rng.randint(1, m)
                b.features.add("matmul_tail")
            a_in = b.tensor("in", in_t, rows_a, k)
            b_in = b.tensor("in", in_t, k, n)
            bm = b.alloc(self.cube_type("mat", (k, n), in_t), in_loop=False)
            b.tload(b_in, b.const(0), b.const(0), bm)
            right = b.alloc(self.cube_type("right", (k, n), in_t), in_loop=False)
            b.op("tmov", [bm], right)
            return {"m": m, "k": k, "n": n, "in": in_t, "out": out_t, "a": a_in, "right": right, "rows": rows_a, "tail": tail_m}
        if fragment == "matmul_k":
            m, k, n, in_t, out_t = self.matmul_shape()
            blocks = self.loop.max_block + 1
            a_in = b.tensor("in", in_t, m, blocks * k)
            b_in = b.tensor("in", in_t, blocks * k, n)
            acc = b.alloc(self.cube_type("acc", (m, n), out_t), addr=rng.random() < 0.2, in_loop=False)
            init_in_loop = rng.random() < 0.4
            if not init_in_loop:
                left, right = self.matmul_operands(a_in, b_in, b.const(0), m, k, n, in_t, in_loop=False)
                b.op("tmatmul", [left, right], acc)
            return {"m": m, "k": k, "n": n, "in": in_t, "out": out_t, "a": a_in, "b": b_in, "acc": acc, "init_in_loop": init_in_loop}
        raise AssertionError(fragment)

    def matmul_operands(self, a_in: _Global, b_in: _Global, kofs: str, m: int, k: int, n: int, in_t: str, in_loop: bool = True) -> tuple[Tile, Tile]:
        b = self.b
        am = b.alloc(self.cube_type("mat", (m, k), in_t), in_loop=in_loop)
        b.tload(a_in, b.const(0), kofs, am)
        bm = b.alloc(self.cube_type("mat", (k, n), in_t), in_loop=in_loop)
        b.tload(b_in, kofs, b.const(0), bm)
        left = b.alloc(self.cube_type("left", (m, k), in_t), in_loop=in_loop)
        b.op("tmov", [am], left)
        right = b.alloc(self.cube_type("right", (k, n), in_t), in_loop=in_loop)
        b.op("tmov", [bm], right)
        return left, right

    def matmul_acc(self, left: Tile, right: Tile, acc: Tile) -> None:
        """`pto.tmatmul.acc ins(%acc, %l, %r ...) outs(%acc ...)`: in place."""
        self.b.op("tmatmul.acc", [acc, left, right], acc)

    def body(self, fragment: str, scope: _Scope, placement: str, state: dict | None, yields: dict) -> None:
        b, rng = self.b, self.rng
        if fragment == "vector":
            if self.inner_blocks > 1 and (placement != "outer" or rng.random() < 0.4):
                self.inner_loop(scope, placement)
            else:
                self.vector_code(scope)
        elif fragment == "acc_memory":
            x = self.pick(scope, self.dtype, state["acc"].region)
            b.op(self.one_of(["tadd", "tmax", "tmin"], self.dtype), [state["acc"], x], state["acc"])
        elif fragment == "acc_iter_args":
            x = self.pick(scope, self.dtype, state["region"])
            t = state["t"]
            if "acc" in state:
                acc = Tile(state["acc"], t, state["region"])
                b.op(self.one_of(["tadd", "tmax"], self.dtype), [acc, x], acc)
                yields[state["acc"]] = state["acc"]
            else:
                ping, pong = Tile(state["ping"], t, state["region"]), Tile(state["pong"], t, state["region"])
                b.op(self.one_of(["tadd", "tsub", "tmax"], self.dtype), [ping, x], pong)
                yields[state["ping"]] = state["pong"]
                yields[state["pong"]] = state["ping"]
        elif fragment == "carried_partial":
            self.carried_partial(scope)
        elif fragment == "partial_writer":
            self.partial_writer(scope)
        elif fragment == "call":
            self.call(scope)
        elif fragment == "carried_nested":
            self.carried_nested(scope)
        elif fragment == "carried_in_body":
            region = self.region
            c = b.alloc(self.vec_type(self.dtype, region=region), region=region)
            tail = region.ref is not None
            first = self.first_iteration()
            b.open(f"scf.if {first} {{")
            b.tload(self.input(self.dtype, tail), b.const(0), b.const(0), c)
            b.close()
            x = self.pick(scope, self.dtype, region)
            b.op(self.one_of(["tadd", "tmax", "tmul"], self.dtype), [c, x], c)
            b.tstore(c, self.output(self.dtype, tail=tail), self.row(scope, self.shape[0]), b.const(0))
        elif fragment == "matmul_rows":
            s = state
            m, k, n = s["m"], s["k"], s["n"]
            row = self.row(scope, m)
            vm = None
            if s["tail"]:
                vm = b.fresh("vm")
                rest = b.arith("subi", b.const(s["rows"]), row)
                b.emit(f"{vm} = arith.minui {rest}, {b.const(m)} : index")

            def cube(loc: str, shape: tuple[int, int], dtype: str) -> Tile:
                t = self.cube_type(loc, shape, dtype)
                if vm is None:
                    return b.alloc(t)
                return b.alloc(dataclasses.replace(t, dyn_row=True), region=Region(shape[0], shape[1], vm))

            am = cube("mat", (m, k), s["in"])
            b.tload(s["a"], row, b.const(0), am)
            left = cube("left", (m, k), s["in"])
            b.op("tmov", [am], left)
            acc = cube("acc", (m, n), s["out"])
            b.op("tmatmul", [left, s["right"]], acc)
            self.store_acc(acc, s, row, s["rows"])
        elif fragment == "matmul_k":
            s = state
            kofs = self.row(scope, s["k"])
            left, right = self.matmul_operands(s["a"], s["b"], kofs, s["m"], s["k"], s["n"], s["in"])
            if s["init_in_loop"]:
                first = self.first_iteration()
                b.open(f"scf.if {first} {{")
                b.op("tmatmul", [left, right], s["acc"])
                b.close("} else {")
                b.depth += 1
                self.matmul_acc(left, right, s["acc"])
                b.close()
            else:
                self.matmul_acc(left, right, s["acc"])

    def post(self, fragment: str, state: dict, results_of: dict[str, str]) -> None:
        b = self.b
        zero = b.const(0)
        if fragment == "acc_memory":
            b.tstore(state["acc"], self.output(self.dtype, self.shape[0], self.shape[1]), zero, zero)
        elif fragment == "acc_iter_args":
            name = state.get("acc") or state["ping"]
            tile = Tile(results_of[name], state["t"], state["region"])
            b.tstore(tile, self.output(self.dtype, self.shape[0], self.shape[1]), zero, zero)
        elif fragment == "matmul_k":
            if state["init_in_loop"] and self.loop.trip == 0:
                return  # the accumulator was never written
            self.store_acc(state["acc"], state, zero, state["m"])

    def store_acc(self, acc: Tile, s: dict, row: str, rows: int) -> None:
        b = self.b
        how = self.rng.choice(["direct", "tmov", "tcvt"])
        shape = (s["m"], s["n"])
        in_loop = b.depth > 2
        region = acc.region
        if how == "direct":
            b.tstore(acc, b.tensor("out", s["out"], rows, s["n"]), row, b.const(0))
        elif how == "tmov":
            v = b.alloc(self.vec_type(s["out"], shape, region), in_loop=in_loop, region=region)
            b.op("tmov", [acc], v)
            b.tstore(v, b.tensor("out", s["out"], rows, s["n"]), row, b.const(0))
        else:
            target = "f16" if s["out"] == "f32" else "f32"
            v = b.alloc(self.vec_type(target, shape, region), in_loop=in_loop, region=region)
            b.op("tcvt", [acc], v)
            b.tstore(v, b.tensor("out", target, rows, s["n"]), row, b.const(0))
        b.features.add(f"acc_store_{how}")

    def inner_loop(self, scope: _Scope, placement: str) -> None:
        b = self.b
        j = b.fresh("j")
        block = self.open_nested_loop(j, self.inner_blocks)
        col = b.arith("muli", block, b.const(self.shape[1]))
        inner = _Scope(scope.block, col, [t for t in scope.pool if t is self.outer_tile], inner=True)
        stages = self.rng.choice([2, 3]) if placement in ("inner", "both") else None
        outer_factor = b.factor
        b.factor *= stages or 1
        self.vector_code(inner)
        b.factor = outer_factor
        b.close("}" + (f" {{pto.pipeline_stages = {stages} : i64}}" if stages else ""))
        b.features.add("nested_loop")


def generate_from(rng: random.Random, seed: int | None = None) -> GeneratedKernel:
    """A kernel drawn with `rng` (any random.Random, e.g. hypothesis')."""
    return _Generator(rng).kernel(seed)


def generate(seed: int) -> GeneratedKernel:
    """The kernel of `seed` (deterministic)."""
    return generate_from(random.Random(seed), seed)


def addressed(kernel: GeneratedKernel, rng: random.Random | None = None) -> GeneratedKernel:
    """`kernel` as PyPTO hands kernels over: every tile at a constant
    `addr`, its bytes reused across lifetimes (the allocator with
    `pipe-aware=false`, which shares the most), and buffers renamed as
    PyPTO's SSA form renames them: before some ops a tile is read or
    written through a new `pto.alloc_tile` at the same address and type,
    which names the same bytes (docs/dialect.md, "Buffer semantics"). Its
    pipeline loops keep `pto.pipeline_stages`, so `replan=true` has loops to
    convert. `rng` draws which uses are renamed (default: from the seed)."""
    from mlir import ir

    from ..api import parse, print_module, run_passes
    from ..dialect.allocs import alloc_operands

    rng = rng or random.Random(kernel.seed)
    with ir.Context():
        module = parse(kernel.text, name="addressed")
        run_passes(module, "pto-allocate-memory-addr{pipe-aware=false}")
        allocs = []
        module.operation.walk(lambda op: (allocs.append(op) if op.name == "pto.alloc_tile" else None, ir.WalkResult.ADVANCE)[1])
        renamed = 0
        for alloc in allocs:
            value = alloc.results[0]
            users = [use.owner for use in value.uses if use.owner.name != "pto.alloc_tile"]
            block = alloc.operation.block
            later = [u for u in users if u.operation.block == block and u.operation.name.startswith("pto.t")]
            if len(later) < 2 or alloc_operands(alloc).valid or rng.random() < 0.4:
                continue
            later.sort(key=lambda u: _block_position(block, u.operation))
            at = later[rng.randrange(1, len(later))].operation
            copy = alloc.operation.clone(ir.InsertionPoint(at))
            position = _block_position(block, at)
            for use in list(value.uses):
                owner = use.owner.operation
                if owner.block == block and _block_position(block, owner) >= position:
                    owner.operands[use.operand_number] = copy.results[0]
            renamed += 1
        text = print_module(module)
    # The scalar values by argument position (`argN`, which pto-run takes whatever the printer names them).
    start = kernel.text.index(f"func.func @{kernel.function}(")
    signature = kernel.text[start : kernel.text.index(")", start)]
    names = re.findall(r"%([\w$.-]+)\s*:", signature)
    values = {f"arg{names.index(name)}": v for name, v in kernel.values.items()}
    features = kernel.features | {"addressed"} | ({"renamed_buffer"} if renamed else frozenset())
    return GeneratedKernel(kernel.seed, text, values, features, kernel.function)


def _block_position(block, op) -> int:
    for i, other in enumerate(block.operations):
        if other.operation == op:
            return i
    return -1


def kernels():
    """A hypothesis strategy of generated kernels."""
    from hypothesis import strategies as st

    return st.randoms(use_true_random=False).map(generate_from)


__all__ = ["GeneratedKernel", "addressed", "TileT", "compact_type", "generate", "generate_from", "kernels", "printed_type", "verbose_type"]
