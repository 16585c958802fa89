"""Every text the project prints, for ptoas to read (docs/tools.md, "Oracle
tests").

The inputs are the repository's kernels: every chunk (between `// -----`
lines) of every `.pto` and `.mlir` file under `examples/` and `test/` that
our reader accepts and that expects no error, and seeded kernels of
`kernel_gen`. Each is printed as it reads back (the round trip) and after
each pass pipeline users run (`PIPELINES`); a pipeline that refuses a kernel
(a capacity error a test expects, say) prints nothing for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from mlir import ir

SPLIT_MARKER = "// -----"


@dataclass(frozen=True)
class Pipeline:
    name: str
    passes: str  # "" for the round trip
    use_ptoas_multi_buffer: bool | None = None
    allocates: bool = False  # its output has every address (ptoas level3 reads it)


PIPELINES = (
    Pipeline("roundtrip", ""),
    Pipeline("convert", "convert-to-ptoas-multi-buffer"),
    Pipeline("convert-model", "convert-to-ptoas-multi-buffer{slots=model}"),
    Pipeline("lower", "pto-lower-pipeline-loops"),
    Pipeline("allocate", "pto-allocate-memory-addr", allocates=True),
    Pipeline("convert-model-allocate", "convert-to-ptoas-multi-buffer{slots=model},pto-allocate-memory-addr", allocates=True),
    Pipeline("switch-on", "pto-pipeline", True, allocates=True),
    Pipeline("switch-off", "pto-pipeline", False, allocates=True),
)


@dataclass(frozen=True)
class Kernel:
    """An input: where it comes from (`path:line`) and its text (padded so
    its lines are the file's)."""

    origin: str
    text: str
    allow_unregistered: bool = False  # its file's RUN lines read it with --allow-unregistered-dialect


@dataclass(frozen=True)
class Printed:
    kernel: Kernel
    pipeline: Pipeline
    text: str  # what we printed


def repository_kernels(root: Path, directories=("examples", "test"), with_expected_errors: bool = False) -> list[Kernel]:
    """Every chunk of the repository's kernel files that expects no error
    (`with_expected_errors`: every chunk)."""
    from ..driver.session import Source

    kernels = []
    files = sorted(p for d in directories for suffix in ("*.pto", "*.mlir") for p in (root / d).rglob(suffix))
    for path in files:
        text = path.read_text(errors="replace")
        source = Source(path.relative_to(root).as_posix(), text)
        marker = SPLIT_MARKER if re.search(r"^\s*" + re.escape(SPLIT_MARKER), text, re.M) else None
        unregistered = "--allow-unregistered-dialect" in text
        for chunk in source.chunks(marker):
            if (not with_expected_errors and "expected-error" in chunk.text) or not chunk.text.strip():
                continue
            kernels.append(Kernel(f"{source.name}:{chunk.first_line}", chunk.padded(), unregistered))
    return kernels


_GENERIC = re.compile(r'!pto\.\w+<"|"pto\.\w+"\s*\(')


def is_generic_form(text: str) -> bool:
    """Whether a text spells pto types or ops in our generic form (the IRDL
    dialect's), which only our reader and `mlir-opt --irdl-file` read."""
    return _GENERIC.search(text) is not None


def generated_kernels(seeds) -> list[Kernel]:
    from .kernel_gen import generate

    return [Kernel(f"kernel_gen seed {seed}", generate(seed).text) for seed in seeds]


def print_all(kernels: list[Kernel], pipelines=PIPELINES) -> tuple[list[Printed], list[Kernel]]:
    """What the project prints for each kernel under each pipeline, and the
    kernels our reader refused (no output: the oracle tests check that
    ptoas refuses them too, or the difference is listed)."""
    from ..api import ParseError, parse, print_module, run_passes

    printed: list[Printed] = []
    refused: list[Kernel] = []
    for kernel in kernels:
        with ir.Context() as ctx:
            ctx.allow_unregistered_dialects = kernel.allow_unregistered
            ctx.attach_diagnostic_handler(lambda _d: True)  # remarks and expected errors are not news here
            try:
                module = parse(kernel.text, name=kernel.origin)
            except ParseError:
                refused.append(kernel)
                continue
            for pipeline in pipelines:
                # each pipeline on its own copy: parsing once is most of the time
                copy = module.operation.clone()
                if pipeline.passes:
                    try:
                        run_passes(copy, pipeline.passes, use_ptoas_multi_buffer=pipeline.use_ptoas_multi_buffer, source_name=kernel.origin)
                    except ir.MLIRError:
                        copy.erase()
                        continue
                printed.append(Printed(kernel, pipeline, print_module(copy)))
                copy.erase()
    return printed, refused
