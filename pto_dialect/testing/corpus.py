"""Kernels from the repository's `.pto` and `.mlir` files, for differential
testing.

Every chunk (between `// -----` lines) of every file that contains a
`pto.pipeline_stages` loop is parsed and verified (either spelling); each
function in it with a body and at least one global-memory argument (a
`!pto.ptr`, a `!pto.tensor_view` or `!pto.partition_tensor_view`, or a
memref) is a kernel. Values for its scalar (integer/index) arguments come
from a `pto-run ... --arg` line in the file when there is one, else from a
few guesses (bounds-like names get small values, steps 1 or 2, trip counts
up to 8, preferably not a multiple of N): the first set under which the
function runs without an error is used, preferring one that reads no
never-written memory. A dynamic dimension of a shaped argument (memref or
view) becomes DYNAMIC_SIZE; a pointer's extent is what its views reach.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path

from mlir import ir

SPLIT_MARKER = "// -----"
SUFFIXES = ("*.pto", "*.mlir")
GM_TYPE_MARKERS = ("memref<", "!pto.ptr<", "!pto.tensor_view<", "!pto.partition_tensor_view<")
"""Text that a chunk with a global-memory argument contains (a cheap filter before parsing)."""
DYNAMIC_SIZE = 256
"""What a dynamic dimension of a shaped argument becomes (enough rows for the guessed trip counts)."""
_RUN_ARG = re.compile(r"--arg[= ]%?([\w$.\-]+)=(-?\d+)")


@dataclass
class CorpusKernel:
    path: str  # relative to the repository root
    first_line: int  # the chunk's first line in the file
    text: str  # the chunk, padded with blank lines so locations match the file
    function: str
    scalar_args: list[str] = field(default_factory=list)  # names without '%'
    expects_errors: bool = False  # the chunk carries expected-error lines
    run_values: dict[str, int] = field(default_factory=dict)  # from RUN lines
    shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)  # for dynamically shaped memrefs

    @property
    def id(self) -> str:
        return f"{self.path}:{self.first_line}@{self.function}"


def _chunks(source):
    marker = SPLIT_MARKER if re.search(r"^\s*" + re.escape(SPLIT_MARKER), source.text, re.M) else None
    return source.chunks(marker)


def find_kernels(root: Path, directories=("examples", "test")) -> list[CorpusKernel]:
    from ..driver.session import Session, Source
    from ..interpreter.inputs import arguments, gm_kind
    from ..interpreter.scalars import int_width

    kernels: list[CorpusKernel] = []
    files = sorted(p for d in directories for suffix in SUFFIXES for p in (root / d).rglob(suffix))
    for path in files:
        text = path.read_text(errors="replace")
        if "pto.pipeline_stages" not in text:
            continue
        run_values = {m.group(1): int(m.group(2)) for m in _RUN_ARG.finditer(text)}
        source = Source(path.relative_to(root).as_posix(), text)
        for chunk in _chunks(source):
            if "pto.pipeline_stages" not in chunk.text or not any(m in chunk.text for m in GM_TYPE_MARKERS):
                continue
            padded = chunk.padded()
            # negative tests are expected to fail here: their diagnostics are not news
            with Session(source) as session:
                module = session.parse(chunk)
                if module is None:
                    continue
                for op in module.body.operations:
                    if op.operation.name != "func.func" or not len(op.regions[0].blocks):
                        continue
                    args = arguments(op.operation, padded)
                    if not any(gm_kind(a.type) for a in args):
                        continue
                    kernels.append(
                        CorpusKernel(
                            source.name,
                            chunk.first_line,
                            padded,
                            op.attributes["sym_name"].value,
                            [a.name[1:] for a in args if int_width(a.type) is not None],
                            "expected-error" in chunk.text,
                            run_values,
                            {a.name[1:]: shape for a in args if (shape := dynamic_shape(a.type)) is not None},
                        )
                    )
    return kernels


def dynamic_shape(t: ir.Type) -> tuple[int, ...] | None:
    """The shape a shaped global-memory argument with dynamic dimensions is
    run with (each dynamic dimension DYNAMIC_SIZE), else None."""
    from ..dialect.types import DYNAMIC, ViewType, pto_type

    if isinstance(t, ir.MemRefType):
        shape = tuple(ir.MemRefType(t).shape)
        dynamic = [ir.ShapedType.is_dynamic_size(d) for d in shape]
    else:
        view = pto_type(t)
        if not isinstance(view, ViewType):
            return None
        shape = tuple(view.shape)
        dynamic = [d == DYNAMIC for d in shape]
    if not any(dynamic):
        return None
    return tuple(DYNAMIC_SIZE if dyn else d for d, dyn in zip(shape, dynamic))


TILE_SIZES = (16, 8, 32, 4, 64)
"""Values tried for every scalar argument at once when the guesses fail (valid sizes)."""


def _guesses(name: str) -> list[int]:
    lowered = name.lower()
    if "step" in lowered:
        return [1, 2]
    if lowered in ("lb", "lo", "low", "start", "begin", "first", "off", "offset") or lowered.startswith(("lb", "lo")):
        return [0, 1]
    return [7, 5, 8, 3, 1, 0]  # 7 and 5 leave remainders for every N in 2..4


def candidate_values(kernel: CorpusKernel, limit: int = 12) -> list[dict]:
    names = kernel.scalar_args
    if not names:
        return [dict(kernel.shapes)]
    out: list[dict] = []
    if all(n in kernel.run_values for n in names):
        out.append({**kernel.shapes, **{n: kernel.run_values[n] for n in names}})
    for combo in itertools.product(*(_guesses(n) for n in names)):
        out.append({**kernel.shapes, **dict(zip(names, combo))})
        if len(out) >= limit:
            break
    # valid-shape operands: a tile's valid region must match what it is
    # loaded from, so try tile-sized values for every argument at once
    for size in TILE_SIZES:
        values = {**kernel.shapes, **{n: size for n in names}}
        if values not in out:
            out.append(values)
    return out


def choose_values(kernel: CorpusKernel) -> tuple[dict | None, str]:
    """Scalar values the kernel runs under, and why not when None."""
    from ..driver.session import Session, Source
    from ..interpreter import InterpreterError, execute

    fallback = None
    last_error = "no candidate values"
    with Session(Source(kernel.path, kernel.text)) as session:
        module = session.parse()
        if module is None:
            return None, session.errors_text()
        for values in candidate_values(kernel):
            try:
                run = execute(module.operation, kernel.function, values=values, source_text=kernel.text, max_ops=200_000)
            except InterpreterError as e:
                last_error = e.message
                continue
            if not run.warnings:
                return values, ""
            fallback = fallback or values
    if fallback is not None:
        return fallback, ""
    return None, f"no argument values it runs under (last: {last_error})"
