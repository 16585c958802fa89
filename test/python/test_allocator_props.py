"""Property test of pto-allocate-memory-addr against a brute-force checker.

Hypothesis builds random kernels (straight-line code, scf.for loops with
and without iter_args, scf.if with and without results, multi-tile regions
read through multi_tile_get, a few tiles at user-given addresses) as a small
tree written here, prints them as pto IR, and runs the pass. The checker
never looks at the pass's liveness. It *executes* the tree: every
combination of branch conditions (some alternate between iterations),
every loop iteration, recording for each
tile op which buffers (a tile, or one slot of a region) it reads and writes,
in order. A value written at time w and read at time r must survive
(w, r): no buffer whose address range overlaps it may be written in
between. That is what "two buffers live at the same time never overlap"
means at run time, and it holds for loop-carried tiles, values crossing
iterations, branches and iter_args alike. The checker also checks, with its
own copy of the target table: every base aligned, every buffer inside its
space, `pto.memory_usage` equal to the end of the highest buffer per space,
user addresses kept, and a second run changing nothing.
"""

from __future__ import annotations

import itertools
from bisect import bisect_right
from dataclasses import dataclass, field

from conftest import parse_kernel
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mlir import ir

import pto_dialect
from pto_dialect.dialect.types import buffer_type

# The a2a3 capacities and alignments (docs/dialect.md, "Memory spaces"), written out here so the checker does not share code with the pass.
ALIGN = {"vec": 32, "mat": 32, "acc": 512}
CAPACITY = {"vec": 196608, "mat": 524288, "acc": 131072}

# type key -> (IR type, space, bytes, GM partition it loads from and stores to)
TYPES = {
    "v32": ("!pto.tile_buf<vec, 16x16xf32>", "vec", 1024, "!pto.partition_tensor_view<16x16xf32>"),
    "v16": ("!pto.tile_buf<vec, 3x16xf16>", "vec", 96, "!pto.partition_tensor_view<3x16xf16>"),
    # dynamic valid shape: its allocs carry valid_row/valid_col operands, kept next to the addr
    "vd": ("!pto.tile_buf<vec, 16x16xf32, valid=?x?>", "vec", 1024, "!pto.partition_tensor_view<16x16xf32>"),
    # row_plus_one: (15 * 17 + 16) * 4 bytes, not a multiple of the alignment (never a slot)
    "vp": ("!pto.tile_buf<vec, 16x16xf32, compact=2>", "vec", 1084, "!pto.partition_tensor_view<16x16xf32>"),
    "m16": ("!pto.tile_buf<mat, 16x16xf16>", "mat", 512, "!pto.partition_tensor_view<16x16xf16>"),
    # 640 bytes: its slots stride 1024 in acc
    "a32": ("!pto.tile_buf<acc, 10x16xf32>", "acc", 640, "!pto.partition_tensor_view<10x16xf32>"),
}
SLOT_TYPES = ["v32", "v16", "vd", "a32"]
CUBE_SOURCES = {"a32": ("!pto.tile_buf<left, 10x16xf16>", "!pto.tile_buf<right, 16x16xf16>")}
"""The matmul operands (function arguments) that "load" an acc tile."""
OPS_BY_SPACE = {"vec": ["load", "store", "add", "exp"], "acc": ["load", "store", "exp"], "mat": ["load", "store"]}
"""What the generator does to a tile of each space: what ptoas's verifier
allows there (element-wise ops on vec tiles only)."""


def tkey_of(stmt) -> str:
    return stmt[-1]
VALID = " valid_row = %vr valid_col = %vc"


def valid_operands(tkey: str) -> str:
    return VALID if "valid=?x?" in TYPES[tkey][0] else ""
FIXED_SPACING = 2048  # user-given vec addresses: j * 2048, never colliding with each other
MAX_CONDS = 3


def align_up(n: int, a: int) -> int:
    return (n + a - 1) // a * a


# --- the program tree ------------------------------------------------------------


@dataclass
class Gen:
    """Generation state: fresh names, what is visible, what was made."""

    data: object
    counter: int = 0
    allocs: dict[str, tuple[str, int | None]] = field(default_factory=dict)  # tag -> (type key, fixed addr)
    regions: dict[str, tuple[str, int]] = field(default_factory=dict)  # tag -> (slot type key, N)
    fixed_count: int = 0
    conds: int = 0

    def draw(self, strategy):
        return self.data.draw(strategy)

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"


def pick(g: Gen, options: list):
    """One of `options`, mostly one of the last few: values are mostly used
    soon after they are made, so older ones die and their memory is reused."""
    k = g.draw(st.one_of(st.integers(0, 2), st.integers(0, len(options) - 1)))
    return options[-1 - min(k, len(options) - 1)]


def gen_cond(g: Gen, iv: str | None) -> tuple[int, str | None, str]:
    """A branch condition: function argument %condK, inside a loop possibly
    xor-ed with `iv is even`, so branches can alternate between iterations."""
    k = g.draw(st.integers(0, MAX_CONDS - 1))
    g.conds = max(g.conds, k + 1)
    varies = iv if iv is not None and g.draw(st.booleans()) else None
    return (k, varies, g.fresh("c"))


def cond_value(cond, conds: tuple, ivs: dict) -> bool:
    k, iv, _ = cond
    return conds[k] ^ (iv is not None and ivs[iv] % 2 == 0)


def print_cond(cond, out: list[str], indent: str) -> str:
    k, iv, name = cond
    if iv is None:
        return f"%cond{k}"
    out.append(f"{indent}%{name}_two = arith.constant 2 : index")
    out.append(f"{indent}%{name}_par = arith.remui %{iv}, %{name}_two : index")
    out.append(f"{indent}%{name}_even = arith.cmpi eq, %{name}_par, %c0 : index")
    out.append(f"{indent}%{name} = arith.xori %cond{k}, %{name}_even : i1")
    return f"%{name}"


def gen_block(g: Gen, scope: list[tuple[str, str]], depth: int, iv: str | None, regions_here: list) -> list:
    """A list of statements; `scope` holds (ssa name, type key) visible here
    (a copy: names made here do not leak out)."""
    scope = list(scope)
    stmts = []
    kinds = ["alloc"] * 3 + ["op"] * 4
    if depth < 2:
        kinds += ["for", "for", "if", "ifsel"]
    if regions_here:
        kinds += ["get", "get"]
    for _ in range(g.draw(st.integers(1, 8))):
        kind = g.draw(st.sampled_from(kinds))
        if kind == "alloc" or (kind in ("op", "ifsel") and not scope):
            tkey = g.draw(st.sampled_from(sorted(TYPES)))
            name = g.fresh("t")
            fixed = None
            if tkey == "v32" and g.draw(st.integers(0, 7)) == 0:
                fixed = FIXED_SPACING * g.fixed_count
                g.fixed_count += 1
            g.allocs[name] = (tkey, fixed)
            stmts.append(("alloc", name, tkey, fixed))
            scope.append((name, tkey))
            # a fresh tile is usually written first
            if g.draw(st.booleans()):
                stmts.append(("load", name, tkey, iv))
        elif kind == "op":
            name, tkey = pick(g, scope)
            same = [n for n, t in scope if t == tkey]
            op = g.draw(st.sampled_from(OPS_BY_SPACE[TYPES[tkey][1]]))
            if op in ("load", "store"):
                stmts.append((op, name, tkey, iv))
            elif op == "add":
                stmts.append(("add", pick(g, same), pick(g, same), name, tkey))
            else:
                stmts.append(("exp", pick(g, same), name, tkey))
        elif kind == "get":
            region, tkey, n = g.draw(st.sampled_from(regions_here))
            name = g.fresh("s")
            stmts.append(("get", name, region, tkey, n, iv))
            scope.append((name, tkey))
            if g.draw(st.integers(0, 3)):  # else the slot may be read before written
                stmts.append(("load", name, tkey, iv))
        elif kind == "for":
            trip = g.draw(st.sampled_from([0, 1, 2, 3, 3]))  # mostly loops that repeat
            loop_iv = g.fresh("i")
            new_regions = []
            for _ in range(g.draw(st.integers(0, 2))):
                tkey = g.draw(st.sampled_from(SLOT_TYPES))
                n = g.draw(st.integers(2, 4))
                tag = g.fresh("mb")
                g.regions[tag] = (tkey, n)
                stmts.append(("region", tag, tkey, n))
                new_regions.append((tag, tkey, n))
            carry = None
            body_scope = scope
            if scope and g.draw(st.booleans()):
                init, tkey = pick(g, scope)
                carry = (init, g.fresh("cur"), g.fresh("res"), tkey)
                body_scope = scope + [(carry[1], tkey)]
            body = gen_block(g, body_scope, depth + 1, loop_iv, [(t, k, n) for t, k, n in new_regions])
            yielded = None
            if carry:
                # yield the iter_arg itself, or a tile of its type the body made
                made = [s[1] for s in body if s[0] == "alloc" and s[2] == carry[3]]
                yielded = g.draw(st.sampled_from([carry[1], *made]))
            stmts.append(("for", trip, loop_iv, body, carry, yielded))
            if carry:
                scope.append((carry[2], carry[3]))
        elif kind == "if":
            cond = gen_cond(g, iv)
            then = gen_block(g, scope, depth + 1, iv, regions_here)
            other = gen_block(g, scope, depth + 1, iv, regions_here) if g.draw(st.booleans()) else []
            stmts.append(("if", cond, then, other))
        else:  # ifsel: %r = scf.if %c -> (!t) { yield %a } else { yield %b }
            a, tkey = pick(g, scope)
            b = pick(g, [n for n, t in scope if t == tkey])
            cond = gen_cond(g, iv)
            name = g.fresh("r")
            stmts.append(("ifsel", cond, a, b, name, tkey))
            scope.append((name, tkey))
    return stmts


# --- printing ------------------------------------------------------------------------


def print_block(stmts, out: list[str], indent: str) -> None:
    for s in stmts:
        kind = s[0]
        if kind == "alloc":
            _, name, tkey, fixed = s
            ty = TYPES[tkey][0]
            valid = valid_operands(tkey)
            if fixed is None:
                out.append(f'{indent}%{name} = pto.alloc_tile{valid} {{tag = "{name}"}} : {ty}')
            else:
                out.append(f"{indent}%{name}_addr = arith.constant {fixed} : i64")
                out.append(f'{indent}%{name} = pto.alloc_tile addr = %{name}_addr{valid} {{tag = "{name}"}} : {ty}')
        elif kind == "region":
            _, tag, tkey, n = s
            valid = valid_operands(tkey)
            out.append(f'{indent}%{tag} = pto.alloc_multi_tile{valid} {{tag = "{tag}"}} : !pto.multi_tile_buf<{TYPES[tkey][0]}, count={n}>')
        elif kind == "get":
            _, name, region, tkey, n, iv = s
            ty = TYPES[tkey][0]
            out.append(f"{indent}%{name}_n = arith.constant {n} : index")
            out.append(f"{indent}%{name}_slot = arith.remui %{iv}, %{name}_n : index")
            out.append(f"{indent}%{name} = pto.multi_tile_get %{region}[%{name}_slot] : !pto.multi_tile_buf<{ty}, count={n}> -> {ty}")
        elif kind in ("load", "store"):
            _, name, tkey, iv = s
            ty, _, _, part = TYPES[tkey]
            if kind == "load" and tkey in CUBE_SOURCES:
                # an acc tile is written by the cube (ptoas's tload fills vec and mat only)
                lhs, rhs = CUBE_SOURCES[tkey]
                out.append(f"{indent}pto.tmatmul ins(%lhs_{tkey}, %rhs_{tkey} : {lhs}, {rhs}) outs(%{name} : {ty})")
            elif kind == "load":
                out.append(f"{indent}pto.tload ins(%src_{tkey} : {part}) outs(%{name} : {ty})")
            else:
                out.append(f"{indent}pto.tstore ins(%{name} : {ty}) outs(%dst_{tkey} : {part})")
        elif kind == "add":
            _, a, b, dst, tkey = s
            ty = TYPES[tkey][0]
            out.append(f"{indent}pto.tadd ins(%{a}, %{b} : {ty}, {ty}) outs(%{dst} : {ty})")
        elif kind == "exp" and tkey_of(s) in CUBE_SOURCES:
            # one read and one write on the cube: the accumulating matmul
            _, a, dst, tkey = s
            ty = TYPES[tkey][0]
            lhs, rhs = CUBE_SOURCES[tkey]
            out.append(f"{indent}pto.tmatmul.acc ins(%{a}, %lhs_{tkey}, %rhs_{tkey} : {ty}, {lhs}, {rhs}) outs(%{dst} : {ty})")
        elif kind == "exp":
            _, a, dst, tkey = s
            ty = TYPES[tkey][0]
            out.append(f"{indent}pto.texp ins(%{a} : {ty}) outs(%{dst} : {ty})")
        elif kind == "for":
            _, trip, iv, body, carry, yielded = s
            out.append(f"{indent}%{iv}_ub = arith.constant {trip} : index")
            if carry:
                init, cur, res, tkey = carry
                ty = TYPES[tkey][0]
                out.append(f"{indent}%{res} = scf.for %{iv} = %c0 to %{iv}_ub step %c1 iter_args(%{cur} = %{init}) -> ({ty}) {{")
                print_block(body, out, indent + "  ")
                out.append(f"{indent}  scf.yield %{yielded} : {ty}")
            else:
                out.append(f"{indent}scf.for %{iv} = %c0 to %{iv}_ub step %c1 {{")
                print_block(body, out, indent + "  ")
            out.append(f"{indent}}}")
        elif kind == "if":
            _, cond, then, other = s
            out.append(f"{indent}scf.if {print_cond(cond, out, indent)} {{")
            print_block(then, out, indent + "  ")
            if other:
                out.append(f"{indent}}} else {{")
                print_block(other, out, indent + "  ")
            out.append(f"{indent}}}")
        elif kind == "ifsel":
            _, cond, a, b, name, tkey = s
            ty = TYPES[tkey][0]
            c = print_cond(cond, out, indent)
            out.append(f"{indent}%{name} = scf.if {c} -> ({ty}) {{")
            out.append(f"{indent}  scf.yield %{a} : {ty}")
            out.append(f"{indent}}} else {{")
            out.append(f"{indent}  scf.yield %{b} : {ty}")
            out.append(f"{indent}}}")


def print_kernel(stmts) -> str:
    conds = "".join(f", %cond{i}: i1" for i in range(MAX_CONDS))
    gm = "".join(f"%src_{k}: {part}, %dst_{k}: {part}, " for k, (_, _, _, part) in TYPES.items())
    gm += "".join(f"%lhs_{k}: {lhs}, %rhs_{k}: {rhs}, " for k, (lhs, rhs) in CUBE_SOURCES.items())
    out = [
        f"func.func @kernel({gm}%vr: index, %vc: index{conds}) {{",
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
    ]
    print_block(stmts, out, "  ")
    out += ["  return", "}"]
    return "\n".join(out)


# --- the checker: execute the tree -----------------------------------------------------------------


class Trace:
    """Per buffer key ((tag, slot)), the times it is read and written."""

    def __init__(self) -> None:
        self.clock = 0
        self.reads: dict[tuple, list[int]] = {}
        self.writes: dict[tuple, list[int]] = {}

    def op(self, reads, writes) -> None:
        self.clock += 1  # an op reads its inputs, then writes its output, at one time
        for k in reads:
            self.reads.setdefault(k, []).append(self.clock)
        for k in writes:
            self.writes.setdefault(k, []).append(self.clock)


def run(stmts, env: dict, conds: tuple, trace: Trace, ivs: dict) -> None:
    for s in stmts:
        kind = s[0]
        if kind == "alloc":
            env[s[1]] = (s[1], None)
        elif kind == "region":
            env[s[1]] = (s[1], "region")
        elif kind == "get":
            _, name, region, _, n, iv = s
            env[name] = (region, ivs[iv] % n)
        elif kind == "load":
            trace.op([], [env[s[1]]])
        elif kind == "store":
            trace.op([env[s[1]]], [])
        elif kind == "add":
            trace.op([env[s[1]], env[s[2]]], [env[s[3]]])
        elif kind == "exp":
            trace.op([env[s[1]]], [env[s[2]]])
        elif kind == "for":
            _, trip, iv, body, carry, yielded = s
            if carry:
                env[carry[1]] = env[carry[0]]
            for k in range(trip):
                inner = dict(env)
                run(body, inner, conds, trace, {**ivs, iv: k})
                if carry:
                    env[carry[1]] = inner[yielded]
            if carry:
                env[carry[2]] = env[carry[1]]
        elif kind == "if":
            _, cond, then, other = s
            run(then if cond_value(cond, conds, ivs) else other, dict(env), conds, trace, ivs)
        elif kind == "ifsel":
            _, cond, a, b, name, _ = s
            env[name] = env[a] if cond_value(cond, conds, ivs) else env[b]


def placed_ranges(gen: Gen, addrs: dict[str, int]) -> dict[tuple, tuple[str, int, int]]:
    """Buffer key -> (space, start, end) from the pass's addresses."""
    out = {}
    for tag, (tkey, _) in gen.allocs.items():
        _, space, size, _ = TYPES[tkey]
        out[(tag, None)] = (space, addrs[tag], addrs[tag] + size)
    for tag, (tkey, n) in gen.regions.items():
        _, space, size, _ = TYPES[tkey]
        stride = align_up(size, ALIGN[space])
        for k in range(n):
            base = addrs[tag] + k * stride
            out[(tag, k)] = (space, base, base + size)
    return out


def clobbers(trace: Trace, ranges: dict) -> list[str]:
    """Every write into a value that is read later, by a buffer overlapping it."""
    problems = []
    writes = {k: sorted(v) for k, v in trace.writes.items()}
    keys = list(ranges)
    for k in keys:
        space, lo, hi = ranges[k]
        others = [
            o for o in keys if o != k and ranges[o][0] == space and ranges[o][1] < hi and lo < ranges[o][2]
        ]
        own = writes.get(k, [])
        for r in trace.reads.get(k, []):
            i = bisect_right(own, r - 1)  # the last write strictly before the read
            if i == 0:
                continue  # reads undefined contents: nothing to preserve
            w = own[i - 1]
            for o in others:
                ow = writes.get(o, [])
                j = bisect_right(ow, w)
                if j < len(ow) and ow[j] < r:
                    problems.append(f"{o} written at {ow[j]} over {k} (written {w}, read {r})")
    return problems


# --- the property ------------------------------------------------------------------------------------


def allocate(text: str) -> tuple[str, dict[str, int], dict[str, int]]:
    """Run the pass; (output text, tag -> addr, pto.memory_usage)."""
    module = parse_kernel(text)
    with module.context:
        pto_dialect.run_passes(module, "pto-allocate-memory-addr")
        addrs = {}
        usage = {}

        def visit(op):
            if op.name in ("pto.alloc_tile", "pto.alloc_multi_tile"):
                const = op.operands[0].owner  # addr comes first (ODS order), before valid_row/valid_col
                view = buffer_type(op.results[0].type)
                tile = getattr(view, "slot", view)
                # a `?` valid dimension keeps its operand, after the addr
                assert len(op.operands) == 1 + sum(d < 0 for d in tile.valid), op
                assert const.name == "arith.constant"
                addrs[ir.StringAttr(op.attributes["tag"]).value] = ir.IntegerAttr(const.attributes["value"]).value
            if op.name == "func.func":
                attr = ir.DictAttr(op.attributes["pto.memory_usage"])
                for i in range(len(attr)):
                    named = attr[i]
                    usage[named.name] = ir.IntegerAttr(named.attr).value
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit)
        return pto_dialect.print_module(module), addrs, usage


def again(text: str) -> str:
    module = parse_kernel(text)
    with module.context:
        pto_dialect.run_passes(module, "pto-allocate-memory-addr")
        return pto_dialect.print_module(module)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_allocation_never_clobbers_a_live_value(data):
    gen = Gen(data)
    stmts = gen_block(gen, [], 0, None, [])
    text = print_kernel(stmts)
    out, addrs, usage = allocate(text)

    ranges = placed_ranges(gen, addrs)
    for key, (space, lo, hi) in ranges.items():
        assert lo % ALIGN[space] == 0, f"{key} at {lo} is not aligned for {space}\n{text}"
        assert hi <= CAPACITY[space], f"{key} ends at {hi}, beyond {space}\n{text}"
    for tag, (_, fixed) in gen.allocs.items():
        if fixed is not None:
            assert addrs[tag] == fixed
    # the usage counts a region as the N * stride bytes it takes (docs/passes.md)
    ends: dict[str, int] = {}
    for (tag, slot), (space, _lo, hi) in ranges.items():
        if slot is not None:
            tkey, n = gen.regions[tag]
            hi = addrs[tag] + n * align_up(TYPES[tkey][2], ALIGN[space])
        ends[space] = max(ends.get(space, 0), hi)
    assert usage == ends, f"pto.memory_usage {usage} but buffers end at {ends}\n{text}"

    for conds in itertools.product([False, True], repeat=gen.conds):
        trace = Trace()
        run(stmts, {}, conds, trace, {})
        problems = clobbers(trace, ranges)
        assert not problems, f"conditions {conds}: {problems[:3]}\n{text}\n{out}"

    assert again(out) == out, "a second run changed the output"


def test_the_checker_catches_a_clobber():
    """The checker itself: two tiles forced to one address while both hold
    live values must be reported."""
    stmts = [
        ("alloc", "a", "v32", None),
        ("load", "a", "v32", None),
        ("alloc", "b", "v32", None),
        ("load", "b", "v32", None),
        ("store", "a", "v32", None),
    ]
    gen = Gen(None, allocs={"a": ("v32", None), "b": ("v32", None)})
    trace = Trace()
    run(stmts, {}, (), trace, {})
    assert clobbers(trace, placed_ranges(gen, {"a": 0, "b": 0}))
    assert not clobbers(trace, placed_ranges(gen, {"a": 0, "b": 1024}))
    # and a loop-carried value across iterations
    body = [("load", "x", "v32", "i"), ("add", "acc", "x", "acc", "v32"), ("alloc", "y", "v32", None), ("load", "y", "v32", "i"), ("store", "y", "v32", "i")]
    loop = [("alloc", "acc", "v32", None), ("alloc", "x", "v32", None), ("for", 2, "i", body, None, None)]
    gen = Gen(None, allocs={"acc": ("v32", None), "x": ("v32", None), "y": ("v32", None)})
    trace = Trace()
    run(loop, {}, (), trace, {})
    assert clobbers(trace, placed_ranges(gen, {"acc": 0, "x": 1024, "y": 0}))
    assert not clobbers(trace, placed_ranges(gen, {"acc": 0, "x": 1024, "y": 1024}))


def check_tree(stmts, gen: Gen) -> list[str]:
    """Allocate the kernel of `stmts` and run the checker: the problems."""
    text = print_kernel(stmts)
    _, addrs, _ = allocate(text)
    ranges = placed_ranges(gen, addrs)
    problems = []
    for conds in itertools.product([False, True], repeat=MAX_CONDS):
        trace = Trace()
        run(stmts, {}, conds, trace, {})
        problems += clobbers(trace, ranges)
    return problems


def test_a_write_through_a_join_in_a_loop_does_not_hide_a_carried_tile():
    """In each iteration %r is %a or %b, alternating: loading into %r leaves
    %a untouched every other iteration, so the store of %a reads what an
    earlier iteration left there. %late, defined after that store, must not
    take %a's address."""
    cond = (0, "i", "alt")
    body = [
        ("alloc", "a", "v32", None),
        ("alloc", "b", "v32", None),
        ("ifsel", cond, "a", "b", "r", "v32"),
        ("load", "r", "v32", "i"),
        ("store", "a", "v32", "i"),
        ("store", "b", "v32", "i"),
        ("alloc", "late", "v32", None),
        ("load", "late", "v32", "i"),
        ("store", "late", "v32", "i"),
    ]
    stmts = [("for", 3, "i", body, None, None)]
    gen = Gen(None, allocs={t: ("v32", None) for t in ("a", "b", "late")})
    assert check_tree(stmts, gen) == []
