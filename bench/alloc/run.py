"""Benchmark of pto-allocate-memory-addr: time against the number of buffers.

    python bench/alloc/run.py [--sizes 1000,5000,20000] [--repeat 3]

For each size n it builds one function with n buffers (loops with
iteration-local and loop-carried tiles, multi-tile regions, straight-line
chains, a few long-lived tiles) and times, best of --repeat runs:

- liveness: `liveness.function_liveness` on the function;
- placement: `placement.place` for every space, on those live ranges;
- pass: the whole `pto-allocate-memory-addr` through `run_passes` without
  the verifier (liveness, placement, rewriting every alloc, the report);
- pass+verify: the same with the pto verifier that runs after every pass;
- random: `placement.place` alone on n requests with random lifetimes
  (lengths from 2 to 2000 points) and sizes (32 bytes to 8 KiB), which
  leaves many holes of many sizes: the free list's worst case here.

With --no-gc, Python's cyclic garbage collector is off while timing: its
full collections scan every live object, so on a shared, loaded machine they
add a cost that grows with the heap (the IR of 20k buffers is large) rather
than with the pass's work.

It prints the times, the growth exponent k of time ~ n^k (least-squares fit
of log time against log n; 1 is linear, O(n log n) shows as a little above
1), and the placement quality: the bytes the placement needs against the
most bytes live at once (a lower bound; 1.00 is optimal).

Not a test: nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import gc
import math
import random
import sys
import time

from mlir import ir

import pto_dialect
from pto_dialect.analysis.liveness import function_liveness
from pto_dialect.analysis.placement import Request, live_peak, place
from pto_dialect.dialect.targets import space_spec
from pto_dialect.dialect.types import MultiTileBufType, align_up, buffer_type

SMALL = "!pto.tile_buf<vec, 8x16xf16>"  # 256 bytes
MID = "!pto.tile_buf<vec, 12x16xf16>"  # 384 bytes
ACC = "!pto.tile_buf<acc, 4x8xf32>"  # 128 bytes, 512-aligned
REGION = f"!pto.multi_tile_buf<{SMALL}, count=2>"
PARTS = {SMALL: "!pto.partition_tensor_view<8x16xf16>", MID: "!pto.partition_tensor_view<12x16xf16>", ACC: "!pto.partition_tensor_view<4x8xf32>"}
GM = {SMALL: "%gs", MID: "%gm", ACC: "%ga"}


def kernel(n: int, seed: int = 0) -> str:
    """A function with about n buffers, in groups of 10 (ptoas syntax)."""
    rng = random.Random(seed)
    lines = [
        f"func.func @bench(%gs: {PARTS[SMALL]}, %gm: {PARTS[MID]}, %ga: {PARTS[ACC]}) {{",
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        "  %c2 = arith.constant 2 : index",
        "  %c4 = arith.constant 4 : index",
    ]
    count = 0
    long_lived: list[str] = []

    def load(t: str, ty: str) -> str:
        return f"pto.tload ins({GM[ty]} : {PARTS[ty]}) outs(%{t} : {ty})"

    def store(t: str, ty: str) -> str:
        return f"pto.tstore ins(%{t} : {ty}) outs({GM[ty]} : {PARTS[ty]})"

    g = 0
    while count < n:
        g += 1
        # a loop: a region, an accumulator (loop-carried), iteration-local tiles
        lines.append(f"  %mb{g} = pto.alloc_multi_tile : {REGION}")
        lines.append(f"  scf.for %i{g} = %c0 to %c4 step %c1 {{")
        lines.append(f"    %acc{g} = pto.alloc_tile : {ACC}")
        lines.append(f"    %s{g} = arith.remui %i{g}, %c2 : index")
        lines.append(f"    %x{g} = pto.multi_tile_get %mb{g}[%s{g}] : {REGION} -> {SMALL}")
        lines.append("    " + load(f"x{g}", SMALL))
        lines.append(f"    pto.tadd ins(%acc{g}, %acc{g} : {ACC}, {ACC}) outs(%acc{g} : {ACC})")
        prev = f"x{g}"
        for k in range(3):
            t = f"l{g}_{k}"
            lines.append(f"    %{t} = pto.alloc_tile : {SMALL}")
            lines.append(f"    pto.texp ins(%{prev} : {SMALL}) outs(%{t} : {SMALL})")
            prev = t
        lines.append("    " + store(prev, SMALL))
        lines.append("  }")
        count += 5
        # a straight-line chain of mixed sizes
        prev, prev_ty = None, None
        for k in range(4):
            ty = rng.choice([SMALL, MID])
            t = f"c{g}_{k}"
            lines.append(f"  %{t} = pto.alloc_tile : {ty}")
            lines.append("  " + load(t, ty))
            if prev is not None:
                lines.append("  " + store(prev, prev_ty))
            prev, prev_ty = t, ty
        lines.append("  " + store(prev, prev_ty))
        count += 4
        # now and then a tile that stays live for a while
        t = f"keep{g}"
        lines.append(f"  %{t} = pto.alloc_tile : {MID}")
        lines.append("  " + load(t, MID))
        long_lived.append(t)
        count += 1
        if len(long_lived) > 8 or rng.random() < 0.2:
            lines.append("  " + store(long_lived.pop(rng.randrange(len(long_lived))), MID))
    for t in long_lived:
        lines.append("  " + store(t, MID))
    lines += ["  return", "}"]
    return "\n".join(lines)


def random_requests(n: int, seed: int = 1) -> list[Request]:
    rng = random.Random(seed)
    out = []
    for key in range(n):
        start = rng.randrange(3 * n)
        length = int(math.exp(rng.uniform(math.log(2), math.log(2000))))
        out.append(Request(key, 32 * rng.randrange(1, 257), start, start + length))
    return out


def best_of(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def exponent(ns: list[int], ts: list[float]) -> float:
    xs = [math.log(n) for n in ns]
    ys = [math.log(max(t, 1e-9)) for t in ts]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def measure(n: int, repeat: int) -> dict:
    text = kernel(n)
    with ir.Context() as ctx, ir.Location.unknown():
        pto_dialect.load_dialect(ctx)
        module = ir.Module.parse(pto_dialect.to_generic(text))
        func = module.body.operations[0].operation
        live = function_liveness(func)
        buffers = len(live.buffers)
        t_live = best_of(repeat, lambda: function_liveness(func))

        per_space: dict[str, list[Request]] = {}
        for i, r in enumerate(live.buffers):
            view = buffer_type(r.alloc.results[0].type)
            align = space_spec("a2a3", view.loc).alignment
            size = view.region_bytes(align) if isinstance(view, MultiTileBufType) else view.nbytes
            per_space.setdefault(view.loc, []).append(Request(i, size, r.start, r.end))
        align = {s: space_spec("a2a3", s).alignment for s in per_space}
        t_place = best_of(repeat, lambda: [place(reqs, align[s]) for s, reqs in per_space.items()])
        quality = {}
        for s, reqs in per_space.items():
            # both in aligned bytes, so that they compare
            quality[s] = (align_up(place(reqs, align[s]).footprint, align[s]), live_peak(reqs, align[s]).bytes)

    def whole_pass(verify: bool) -> float:
        with ir.Context() as ctx, ir.Location.unknown():
            pto_dialect.load_dialect(ctx)
            m = ir.Module.parse(pto_dialect.to_generic(text))
            start = time.perf_counter()
            pto_dialect.run_passes(m, "pto-allocate-memory-addr", verify_each=verify)
            return time.perf_counter() - start

    rand = random_requests(n)
    t_random = best_of(repeat, lambda: place(rand, 32))
    quality["random"] = (align_up(place(rand, 32).footprint, 32), live_peak(rand, 32).bytes)

    t_pass = min(whole_pass(False) for _ in range(repeat))
    t_verify = min(whole_pass(True) for _ in range(repeat))
    return {
        "n": buffers,
        "liveness": t_live,
        "placement": t_place,
        "pass": t_pass,
        "pass+verify": t_verify,
        "random": t_random,
        "quality": quality,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,5000,20000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-gc", action="store_true", help="disable Python's cyclic GC while measuring")
    args = ap.parse_args(argv)
    if args.no_gc:
        gc.disable()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = [measure(n, args.repeat) for n in sizes]
    keys = ("liveness", "placement", "pass", "pass+verify", "random")
    print(f"{'buffers':>8} " + " ".join(f"{k + ' s':>13}" for k in keys) + "  placed bytes / live lower bound")
    for r in rows:
        q = ", ".join(f"{s} {fp}/{lb} = {fp / lb:.2f}" for s, (fp, lb) in sorted(r["quality"].items()))
        print(f"{r['n']:>8} " + " ".join(f"{r[k]:>13.3f}" for k in keys) + f"  {q}")
    if len(rows) >= 2:
        ns = [r["n"] for r in rows]
        print("growth exponent (time ~ n^k): " + ", ".join(f"{key} k = {exponent(ns, [r[key] for r in rows]):.2f}" for key in keys))
        for key in keys:
            per = [r[key] / r["n"] * 1e6 for r in rows]
            print(f"{key:>12}: " + ", ".join(f"{p:.1f} us/buffer at n={n}" for p, n in zip(per, ns)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
