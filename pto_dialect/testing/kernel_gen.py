"""A seeded generator of random, valid pipeline kernels (MLIR text).

Every kernel is a `func.func @kernel` with one loop marked
`pto.pipeline_stages = N` (N in 1..4; sometimes an inner or both loops are
marked), memref inputs and outputs sized so that every `tload`/`tstore` is
in bounds on every iteration, and tiles that are always written before they
are read (so the result is defined and a pass that changes it is wrong).

What varies, per kernel:
- loop bounds: lb, ub, step static constants or function `index` arguments
  (their values come with the kernel), trip counts 0..6, ub not a multiple
  of the step;
- how a block index is derived: the induction variable itself, the
  iteration number ((iv - lb) / step), or an `index` iter_arg counter;
- element types f32, f16, bf16, i32, i16, i8; tile shapes; arch a2/a3/a5;
- vector ops (binary, with a scalar, unary, tcvt, tmov through mat), each
  writing a fresh tile, in place, or over an existing tile;
- `scf.if` on the iteration parity writing a tile in both branches, and
  `scf.if` yielding one of two tiles;
- accumulators loop-carried through memory (a tile defined before the loop,
  or one allocated in the body and initialised under `scf.if iv == lb`), and
  through iter_args (one tile, or two swapped every iteration);
- an inner loop over column blocks, pipelined or not;
- matmul chains: tload to mat, tmov to left/right, tmatmul / tmatmul_acc
  into acc, stored from acc directly, through tmov to vec or through tcvt;
  one matmul per row block or accumulation over K blocks;
- tiles at user-given addresses.

`generate(seed)` is deterministic; `generate_from(rng)` takes any
`random.Random` (hypothesis' `st.randoms()` shrinks through it); `kernels()`
is the hypothesis strategy.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from ..targets import ARCHS

FUNCTION = "kernel"
VECTOR_DTYPES = [("f32", 6), ("f16", 2), ("bf16", 1), ("i32", 2), ("i16", 1), ("i8", 1)]
FLOAT_SCALARS = ["0.5", "1.5", "-0.75", "2.0", "0.25", "-1.0"]
INT_SCALARS = ["3", "-2", "7", "1", "-5"]
CVT_TARGETS = {
    "f32": ["f16", "bf16", "i32"],
    "f16": ["f32", "i16"],
    "bf16": ["f32"],
    "i32": ["f32", "i16"],
    "i16": ["i32", "f16"],
    "i8": ["i16", "i32"],
}
MATMUL_TYPES = [("f16", "f32", 4), ("bf16", "f32", 1), ("i8", "i32", 1), ("f32", "f32", 1)]
ADDR_ALIGN = {"vec": 32, "mat": 32, "left": 512, "right": 512, "acc": 512}


@dataclass
class GeneratedKernel:
    seed: int | None
    text: str
    values: dict[str, int]  # scalar arguments (loop bounds) by name, without '%'
    features: frozenset[str]
    function: str = FUNCTION


@dataclass
class Tile:
    name: str
    type: str  # alias, e.g. !vec_f32_16x16
    dtype: str
    loc: str


@dataclass
class _Memref:
    name: str
    dtype: str
    rows: int
    cols: int

    @property
    def type(self) -> str:
        return f"memref<{self.rows}x{self.cols}x{self.dtype}>"


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


class _Builder:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.aliases: dict[str, str] = {}
        self.consts: dict[tuple[str, str], str] = {}
        self.const_lines: list[str] = []
        self.memrefs: list[_Memref] = []
        self.scalar_args: list[str] = []
        self.values: dict[str, int] = {}
        self.lines: list[str] = []
        self.depth = 2
        self.counter = 0
        self.features: set[str] = set()
        self.addr_next: dict[str, int] = {}

    # -- names, types, constants --------------------------------------------------

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"%{prefix}{self.counter}"

    def emit(self, text: str) -> None:
        self.lines.append("  " * self.depth + text)

    def tile_type(self, loc: str, shape: tuple[int, int], dtype: str) -> str:
        text = f'!pto.tile_buf<"{loc}", array<i64: {shape[0]}, {shape[1]}>, {dtype}>'
        alias = self.aliases.get(text)
        if alias is None:
            alias = self.aliases[text] = f"!{loc}_{dtype}_{shape[0]}x{shape[1]}"
        return alias

    def const(self, value, type_: str = "index") -> str:
        key = (str(value), type_)
        name = self.consts.get(key)
        if name is None:
            text = str(value).replace("-", "m").replace(".", "p")
            name = f"%c{text}" if type_ == "index" else f"%c{text}_{type_}"
            self.consts[key] = name
            self.const_lines.append(f"    {name} = arith.constant {value} : {type_}")
        return name

    def memref(self, prefix: str, dtype: str, rows: int, cols: int) -> _Memref:
        m = _Memref(f"%{prefix}{len(self.memrefs)}", dtype, rows, cols)
        self.memrefs.append(m)
        return m

    def index_arg(self, name: str, value: int) -> str:
        self.scalar_args.append(name)
        self.values[name] = value
        return f"%{name}"

    # -- ops ---------------------------------------------------------------------------

    def alloc(self, loc: str, shape: tuple[int, int], dtype: str, addr: bool = False) -> Tile:
        t = self.tile_type(loc, shape, dtype)
        name = self.fresh("t")
        if addr:
            a = self.user_addr(loc, shape, dtype)
            self.emit(f'{name} = "pto.alloc_tile"({a}) : (i64) -> {t}')
            self.features.add("user_addr")
        else:
            self.emit(f'{name} = "pto.alloc_tile"() : () -> {t}')
        return Tile(name, t, dtype, loc)

    def user_addr(self, loc: str, shape: tuple[int, int], dtype: str) -> str:
        """A constant address past every earlier user-given one in `loc`
        (so user-placed buffers never overlap each other)."""
        size = shape[0] * shape[1] * {"i8": 1, "i16": 2, "f16": 2, "bf16": 2, "i32": 4, "f32": 4}[dtype]
        align = ADDR_ALIGN[loc]
        start = self.addr_next.get(loc, self.rng.choice([0, 1, 4]) * align * 16)
        self.addr_next[loc] = start + -(-size // align) * align + self.rng.choice([0, align])
        return self.const(start, "i64")

    def tload(self, src: _Memref, row: str, col: str, dst: Tile) -> None:
        self.emit(f'"pto.tload"({src.name}, {row}, {col}, {dst.name}) : ({src.type}, index, index, {dst.type}) -> ()')

    def tstore(self, src: Tile, dst: _Memref, row: str, col: str) -> None:
        self.emit(f'"pto.tstore"({src.name}, {dst.name}, {row}, {col}) : ({src.type}, {dst.type}, index, index) -> ()')

    def op(self, name: str, operands: list[Tile | tuple[str, str]]) -> None:
        names = ", ".join(o.name if isinstance(o, Tile) else o[0] for o in operands)
        types = ", ".join(o.type if isinstance(o, Tile) else o[1] for o in operands)
        self.emit(f'"pto.{name}"({names}) : ({types}) -> ()')

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
        loop.lb_ref = b.index_arg("lb", lb) if dynamic and rng.random() < 0.5 else b.const(lb)
        loop.ub_ref = b.index_arg("ub", ub) if dynamic else b.const(ub)
        loop.step_ref = b.index_arg("step", step) if dynamic and rng.random() < 0.4 else b.const(step)
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

    # -- kernel -----------------------------------------------------------------------------

    def kernel(self, seed: int | None) -> GeneratedKernel:
        rng, b = self.rng, self.b
        loop = self.plan_loop()
        self.loop = loop
        arch = rng.choice([None, None, *ARCHS])
        self.dtype = self.weighted(VECTOR_DTYPES)
        self.shape = (rng.choice([4, 8, 16]), rng.choice([8, 16, 32]))
        self.inner_blocks = rng.choice([1, 1, 2, 3])
        self.cols = self.shape[1] * max(self.inner_blocks, 2)
        self.rows = (loop.max_block + 1) * self.shape[0]
        self.inputs: dict[str, list[_Memref]] = {}

        fragments = ["vector"]
        if rng.random() < 0.3:
            fragments.append("vector")
        for extra, p in (("acc_memory", 0.3), ("acc_iter_args", 0.25), ("carried_in_body", 0.25), ("matmul_rows", 0.2), ("matmul_k", 0.2)):
            if rng.random() < p:
                fragments.append(extra)
        rng.shuffle(fragments)
        placement = self.weighted([("outer", 6), ("inner", 1), ("both", 1)])
        if self.inner_blocks == 1:
            placement = "outer"

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
        header = f"scf.for %iv = {loop.lb_ref} to {loop.ub_ref} step {loop.step_ref}"
        if iter_args:
            header = f"{results}:{len(iter_args)} = " + header
            header += " iter_args(" + ", ".join(f"{n} = {init}" for n, init, _ in iter_args) + ")"
            header += " -> (" + ", ".join(t for _, _, t in iter_args) + ")"
        b.open(header + " {")
        scope = _Scope(self.block_index(loop), b.const(0))
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
        # after the loop
        results_of = {n: f"{results}#{k}" for k, (n, _, _) in enumerate(iter_args)}
        for i, f in enumerate(fragments):
            if f"{f}{i}" in pre_state:
                self.post(f, pre_state[f"{f}{i}"], results_of)
        b.emit("return")
        return GeneratedKernel(seed, self.render(arch), dict(b.values), frozenset(b.features | set(fragments) | {f"placement_{placement}"}))

    def render(self, arch: str | None) -> str:
        b = self.b
        aliases = [f"{alias} = {text}" for text, alias in b.aliases.items()]
        params = [f"{m.name}: {m.type}" for m in b.memrefs] + [f"%{n}: index" for n in b.scalar_args]
        attrs = f" attributes {{pto.target_arch = \"{arch}\"}}" if arch else ""
        lines = aliases + [f"module{attrs} {{", f"  func.func @{FUNCTION}({', '.join(params)}) {{"]
        lines += b.const_lines + b.lines + ["  }", "}"]
        return "\n".join(lines) + "\n"

    def block_index(self, loop: _Loop) -> str:
        b = self.b
        if loop.index_mode == "iter_arg":
            return "%blk"
        if loop.index_mode == "iv":
            return "%iv"
        d = "%iv" if loop.lb == 0 and not loop.lb_ref.startswith("%lb") else b.arith("subi", "%iv", loop.lb_ref)
        return d if loop.step == 1 and not loop.step_ref.startswith("%step") else b.arith("divui", d, loop.step_ref)

    # -- memrefs --------------------------------------------------------------------------

    def input(self, dtype: str) -> _Memref:
        have = self.inputs.setdefault(dtype, [])
        if not have or (len(have) < 2 and self.rng.random() < 0.4):
            have.append(self.b.memref("in", dtype, self.rows, self.cols))
        return self.rng.choice(have)

    def output(self, dtype: str, rows: int | None = None, cols: int | None = None) -> _Memref:
        return self.b.memref("out", dtype, rows or self.rows, cols or self.cols)

    def row(self, scope: _Scope, height: int) -> str:
        return self.b.arith("muli", scope.block, self.b.const(height))

    # -- vector code ----------------------------------------------------------------------

    def load_outer_tile(self) -> Tile:
        b = self.b
        t = b.alloc("vec", self.shape, self.dtype, addr=self.rng.random() < 0.3)
        b.tload(self.input(self.dtype), b.const(0), b.const(0), t)
        b.features.add("outer_tile")
        return t

    def load(self, scope: _Scope, dtype: str) -> Tile:
        b = self.b
        t = b.alloc("vec", self.shape, dtype, addr=self.rng.random() < 0.05)
        row = self.row(scope, self.shape[0])
        b.tload(self.input(dtype), row, scope.col, t)
        scope.pool.append(t)
        return t

    def pick(self, scope: _Scope, dtype: str | None = None) -> Tile:
        candidates = [t for t in scope.pool if dtype is None or t.dtype == dtype]
        if not candidates:
            return self.load(scope, dtype or self.dtype)
        # favour recent tiles: chains of dependent ops
        return candidates[-1] if self.rng.random() < 0.5 else self.rng.choice(candidates)

    def destination(self, scope: _Scope, dtype: str, inputs: list[Tile]) -> tuple[Tile, bool]:
        """A tile to write: fresh, in place (an input), or an existing one.
        Returns it and whether it is new (to add to the pool after the op)."""
        r = self.rng.random()
        if r < 0.2 and inputs[0].dtype == dtype and inputs[0].loc == "vec":
            self.b.features.add("in_place")
            return inputs[0], False
        if r < 0.32:
            others = [t for t in scope.pool if t.dtype == dtype and t not in inputs and t.loc == "vec"]
            if others:
                target = self.rng.choice(others)
                self.b.features.add("overwrite_outer" if target is self.outer_tile else "overwrite")
                return target, False
        return self.b.alloc("vec", self.shape, dtype, addr=self.rng.random() < 0.05), True

    def scalar(self, dtype: str) -> tuple[str, str]:
        if dtype in ("f32", "f16", "bf16"):
            return self.b.const(self.rng.choice(FLOAT_SCALARS), dtype), dtype
        type_ = dtype if self.rng.random() < 0.8 else self.rng.choice(["index", "i64"])
        return self.b.const(self.rng.choice(INT_SCALARS), type_), type_

    def vector_op(self, scope: _Scope) -> Tile:
        rng, b = self.rng, self.b
        a = self.pick(scope)
        dtype = a.dtype
        kind = self.weighted([("binary", 5), ("scalar", 3), ("unary", 2), ("cvt", 2), ("mov", 1), ("if", 1), ("select", 1)])
        if kind == "binary":
            other = self.pick(scope, dtype) if rng.random() < 0.8 else self.load(scope, dtype)
            d, new = self.destination(scope, dtype, [a, other])
            b.op(rng.choice(["tadd", "tsub", "tmul", "tmax", "tmin"]), [a, other, d])
        elif kind == "scalar":
            d, new = self.destination(scope, dtype, [a])
            b.op(rng.choice(["tadds", "tmuls"]), [a, self.scalar(dtype), d])
        elif kind == "unary":
            names = ["texp", "tabs", "trelu"] if dtype in ("f32", "f16", "bf16") else ["tabs", "trelu"]
            d, new = self.destination(scope, dtype, [a])
            b.op(rng.choice(names), [a, d])
        elif kind == "cvt":
            target = rng.choice(CVT_TARGETS[dtype])
            d, new = b.alloc("vec", self.shape, target), True
            b.op("tcvt", [a, d])
            b.features.add("tcvt")
        elif kind == "mov":
            staged = b.alloc("mat", self.shape, dtype)
            b.op("tmov", [a, staged])
            d, new = b.alloc("vec", self.shape, dtype), True
            b.op("tmov", [staged, d])
            b.features.add("tmov_mat")
        elif kind == "if":
            d, new = self.destination(scope, dtype, [a])
            cond = self.parity(scope)
            other = self.pick(scope, dtype)
            b.open(f"scf.if {cond} {{")
            b.op(rng.choice(["tadd", "tmul", "tmax"]), [a, other, d])
            b.close("} else {")
            b.depth += 1
            b.op("tmuls", [a, self.scalar(dtype), d])
            b.close()
            b.features.add("if_writes")
        else:  # select one of two tiles with scf.if results
            other = self.pick(scope, dtype)
            cond = self.parity(scope)
            d = Tile(b.fresh("sel"), a.type, dtype, a.loc)
            b.open(f"{d.name} = scf.if {cond} -> ({a.type}) {{")
            b.emit(f"scf.yield {a.name} : {a.type}")
            b.close("} else {")
            b.depth += 1
            b.emit(f"scf.yield {other.name} : {other.type}")
            b.close()
            new = True
            b.features.add("if_yields_tile")
        if new:
            scope.pool.append(d)
        elif d in scope.pool:  # most recently written goes last
            scope.pool.remove(d)
            scope.pool.append(d)
        return d

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
            self.vector_op(scope)
        written = [t for t in scope.pool if t is not self.outer_tile]
        stored = {id(written[-1]): written[-1]} if written else {}
        if len(written) > 1 and self.rng.random() < 0.5:
            extra = self.rng.choice(written)
            stored[id(extra)] = extra
        for t in stored.values():
            if t.loc != "vec":
                continue
            out = self.output(t.dtype)
            self.b.tstore(t, out, self.row(scope, self.shape[0]), scope.col)

    # -- fragments ------------------------------------------------------------------------

    def pre(self, fragment: str, carried_inits: list) -> dict:
        """Code before the loop; returns what the body and post need."""
        b, rng = self.b, self.rng
        if fragment == "acc_memory":
            acc = b.alloc("vec", self.shape, self.dtype, addr=rng.random() < 0.3)
            b.tload(self.input(self.dtype), b.const(0), b.const(0), acc)
            return {"acc": acc}
        if fragment == "acc_iter_args":
            t0 = b.alloc("vec", self.shape, self.dtype)
            b.tload(self.input(self.dtype), b.const(0), b.const(0), t0)
            if rng.random() < 0.5:
                t1 = b.alloc("vec", self.shape, self.dtype)  # written before read in iteration 0
                p, q = b.fresh("ping"), b.fresh("pong")
                carried_inits += [(p, t0.name, t0.type), (q, t1.name, t1.type)]
                b.features.add("ping_pong")
                return {"ping": p, "pong": q, "type": t0.type}
            a = b.fresh("acc")
            carried_inits.append((a, t0.name, t0.type))
            return {"acc": a, "type": t0.type}
        if fragment == "matmul_rows":
            m, k, n = rng.choice([8, 16]), rng.choice([16, 32]), rng.choice([16, 32])
            in_t, out_t = self.weighted(MATMUL_TYPES)
            rows_a = (self.loop.max_block + 1) * m
            a_in = b.memref("in", in_t, rows_a, k)
            b_in = b.memref("in", in_t, k, n)
            bm = b.alloc("mat", (k, n), in_t)
            b.tload(b_in, b.const(0), b.const(0), bm)
            right = b.alloc("right", (k, n), in_t)
            b.op("tmov", [bm, right])
            return {"m": m, "k": k, "n": n, "in": in_t, "out": out_t, "a": a_in, "right": right, "rows": rows_a}
        if fragment == "matmul_k":
            m, k, n = rng.choice([8, 16]), rng.choice([16, 32]), rng.choice([16, 32])
            in_t, out_t = self.weighted(MATMUL_TYPES)
            blocks = self.loop.max_block + 1
            a_in = b.memref("in", in_t, m, blocks * k)
            b_in = b.memref("in", in_t, blocks * k, n)
            acc = b.alloc("acc", (m, n), out_t, addr=rng.random() < 0.2)
            init_in_loop = rng.random() < 0.4
            if not init_in_loop:
                left, right = self.matmul_operands(a_in, b_in, b.const(0), m, k, n, in_t)
                b.op("tmatmul", [left, right, acc])
            return {"m": m, "k": k, "n": n, "in": in_t, "out": out_t, "a": a_in, "b": b_in, "acc": acc, "init_in_loop": init_in_loop}
        raise AssertionError(fragment)

    def matmul_operands(self, a_in: _Memref, b_in: _Memref, kofs: str, m: int, k: int, n: int, in_t: str) -> tuple[Tile, Tile]:
        b = self.b
        am = b.alloc("mat", (m, k), in_t)
        b.tload(a_in, b.const(0), kofs, am)
        bm = b.alloc("mat", (k, n), in_t)
        b.tload(b_in, kofs, b.const(0), bm)
        left = b.alloc("left", (m, k), in_t)
        b.op("tmov", [am, left])
        right = b.alloc("right", (k, n), in_t)
        b.op("tmov", [bm, right])
        return left, right

    def body(self, fragment: str, scope: _Scope, placement: str, state: dict | None, yields: dict) -> None:
        b, rng = self.b, self.rng
        if fragment == "vector":
            if self.inner_blocks > 1 and (placement != "outer" or rng.random() < 0.4):
                self.inner_loop(scope, placement)
            else:
                self.vector_code(scope)
        elif fragment == "acc_memory":
            x = self.pick(scope, self.dtype)
            b.op(rng.choice(["tadd", "tmax", "tmin"]), [state["acc"], x, state["acc"]])
        elif fragment == "acc_iter_args":
            x = self.pick(scope, self.dtype)
            t = state["type"]
            if "acc" in state:
                acc = (state["acc"], t)
                b.op(rng.choice(["tadd", "tmax"]), [acc, x, acc])
                yields[state["acc"]] = state["acc"]
            else:
                ping, pong = (state["ping"], t), (state["pong"], t)
                b.op(rng.choice(["tadd", "tsub", "tmax"]), [ping, x, pong])
                yields[state["ping"]] = state["pong"]
                yields[state["pong"]] = state["ping"]
        elif fragment == "carried_in_body":
            c = b.alloc("vec", self.shape, self.dtype)
            first = b.fresh("first")
            lb = self.loop.lb_ref
            b.emit(f"{first} = arith.cmpi eq, %iv, {lb} : index")
            b.open(f"scf.if {first} {{")
            b.tload(self.input(self.dtype), b.const(0), b.const(0), c)
            b.close()
            x = self.pick(scope, self.dtype)
            b.op(rng.choice(["tadd", "tmax", "tmul"]), [c, x, c])
            b.tstore(c, self.output(self.dtype), self.row(scope, self.shape[0]), b.const(0))
        elif fragment == "matmul_rows":
            s = state
            row = self.row(scope, s["m"])
            am = b.alloc("mat", (s["m"], s["k"]), s["in"])
            b.tload(s["a"], row, b.const(0), am)
            left = b.alloc("left", (s["m"], s["k"]), s["in"])
            b.op("tmov", [am, left])
            acc = b.alloc("acc", (s["m"], s["n"]), s["out"])
            b.op("tmatmul", [left, s["right"], acc])
            self.store_acc(acc, s, row, s["rows"])
        elif fragment == "matmul_k":
            s = state
            kofs = self.row(scope, s["k"])
            left, right = self.matmul_operands(s["a"], s["b"], kofs, s["m"], s["k"], s["n"], s["in"])
            if s["init_in_loop"]:
                first = b.fresh("first")
                b.emit(f"{first} = arith.cmpi eq, %iv, {self.loop.lb_ref} : index")
                b.open(f"scf.if {first} {{")
                b.op("tmatmul", [left, right, s["acc"]])
                b.close("} else {")
                b.depth += 1
                b.op("tmatmul_acc", [left, right, s["acc"]])
                b.close()
            else:
                b.op("tmatmul_acc", [left, right, s["acc"]])

    def post(self, fragment: str, state: dict, results_of: dict[str, str]) -> None:
        b = self.b
        zero = b.const(0)
        if fragment == "acc_memory":
            b.tstore(state["acc"], self.output(self.dtype, self.shape[0], self.shape[1]), zero, zero)
        elif fragment == "acc_iter_args":
            name = state.get("acc") or state["ping"]
            tile = Tile(results_of[name], state["type"], self.dtype, "vec")
            b.tstore(tile, self.output(self.dtype, self.shape[0], self.shape[1]), zero, zero)
        elif fragment == "matmul_k":
            if state["init_in_loop"] and self.loop.trip == 0:
                return  # the accumulator was never written
            self.store_acc(state["acc"], state, zero, state["m"])

    def store_acc(self, acc: Tile, s: dict, row: str, rows: int) -> None:
        b = self.b
        how = self.rng.choice(["direct", "tmov", "tcvt"])
        shape = (s["m"], s["n"])
        if how == "direct":
            b.tstore(acc, b.memref("out", s["out"], rows, s["n"]), row, b.const(0))
        elif how == "tmov":
            v = b.alloc("vec", shape, s["out"])
            b.op("tmov", [acc, v])
            b.tstore(v, b.memref("out", s["out"], rows, s["n"]), row, b.const(0))
        else:
            target = "f16" if s["out"] == "f32" else "f32"
            v = b.alloc("vec", shape, target)
            b.op("tcvt", [acc, v])
            b.tstore(v, b.memref("out", target, rows, s["n"]), row, b.const(0))
        b.features.add(f"acc_store_{how}")

    def inner_loop(self, scope: _Scope, placement: str) -> None:
        b = self.b
        j = b.fresh("j")
        b.open(f"scf.for {j} = {b.const(0)} to {b.const(self.inner_blocks)} step {b.const(1)} {{")
        col = b.arith("muli", j, b.const(self.shape[1]))
        inner = _Scope(scope.block, col, [t for t in scope.pool if t is self.outer_tile])
        self.vector_code(inner)
        stages = self.rng.choice([2, 3]) if placement in ("inner", "both") else None
        b.close("}" + (f" {{pto.pipeline_stages = {stages} : i64}}" if stages else ""))
        b.features.add("nested_loop")


def generate_from(rng: random.Random, seed: int | None = None) -> GeneratedKernel:
    """A kernel drawn with `rng` (any random.Random, e.g. hypothesis')."""
    return _Generator(rng).kernel(seed)


def generate(seed: int) -> GeneratedKernel:
    """The kernel of `seed` (deterministic)."""
    return generate_from(random.Random(seed), seed)


def kernels():
    """A hypothesis strategy of generated kernels."""
    from hypothesis import strategies as st

    return st.randoms(use_true_random=False).map(generate_from)
