"""The real tools, found from the environment, for tests to compare against
(docs/tools.md, "Oracle tests").

The project's contract names two judges: ptoas's own PTO dialect decides
what is valid ptoas syntax and what a text means, pto-isa decides what an op
computes. Both are programs this project does not ship; a user or CI points
at them with environment variables:

| variable | what | how it is run |
|---|---|---|
| `PTO_PARSE` | ptoas's dialect behind an `mlir-opt` driver (`pto-parse`) | `pto-parse FILE [--split-input-file]` |
| `PTO_TEST_OPT` | ptoas's passes (`pto-test-opt`) | `--pass-pipeline=LEVEL3_PIPELINE` |
| `PTO_ISA_INCLUDE` | pto-isa's `include/` directory (CPU simulator) | `CXX -std=c++20 -D__CPU_SIM -I DIR` |
| `PTO_ISA_CXX` | the C++ compiler for it (default: `clang++-19`, else `clang++`, on PATH) | |
| `PTO_ISA_CACHE` | where compiled simulator programs are kept (isa_sim.cache_dir) | |

A variable that is not set makes the tests that need its tool skip, saying
which variable to set; a variable that names something unusable is an error
(a misconfigured run must not pass by skipping).

Many texts go to one tool run (`parse_many`, `level3_many`): the tools are
`mlir-opt` drivers, so chunks joined with `// -----` and
`--split-input-file` are checked one by one, and each verdict comes back to
its chunk by the line the driver names ("within split at FILE:N").
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ..dialect.targets import ptoas_arch_name

PTO_PARSE = "PTO_PARSE"
PTO_TEST_OPT = "PTO_TEST_OPT"
PTO_ISA_INCLUDE = "PTO_ISA_INCLUDE"
PTO_ISA_CXX = "PTO_ISA_CXX"
DEFAULT_CXX = ("clang++-19", "clang++")
"""What compiles pto-isa's CPU simulator when PTO_ISA_CXX is not set: it
needs clang (GCC 12 rejects a `static_assert(false)` in a template)."""

SPLIT_MARKER = "// -----"
LEVEL3_PIPELINE = "builtin.module(pto-ptoas-pipeline{{arch={arch} level=level3 sync=insert-sync emitc=false}})"
"""ptoas's own pass order for a kernel with addresses (level3): multi-tile
slots resolved, the level3 address checks, implicit tmps, InsertSync."""
LEVEL2_PIPELINE = "builtin.module(pto-ptoas-pipeline{{arch={arch} level=level2 sync=insert-sync emitc=false}})"
"""The same for a kernel without addresses: ptoas plans its memory itself
(what ptoas makes of one of our inputs)."""

TOOL_TIMEOUT = 300  # seconds for one run of a tool over many chunks


class OracleError(RuntimeError):
    """A tool that a variable names but that cannot be used."""


@dataclass(frozen=True)
class Tool:
    """One oracle program: where it is, or why the tests that need it skip."""

    name: str
    variable: str
    path: str | None
    missing: str = ""  # the skip reason when path is None

    def require(self) -> str:
        if self.path is None:
            raise OracleError(self.missing)
        return self.path


def _program(name: str, variable: str) -> Tool:
    value = os.environ.get(variable, "").strip()
    if not value:
        return Tool(name, variable, None, f"{name} is not configured: set {variable} to its path to run the oracle tests")
    path = shutil.which(value) or (value if os.path.isfile(value) else None)
    if path is None or not os.access(path, os.X_OK):
        raise OracleError(f"{variable}={value} does not name an executable {name}")
    return Tool(name, variable, os.path.abspath(path))


def pto_parse() -> Tool:
    return _program("pto-parse", PTO_PARSE)


def pto_test_opt() -> Tool:
    return _program("pto-test-opt", PTO_TEST_OPT)


@dataclass(frozen=True)
class IsaToolchain:
    """pto-isa's headers and the compiler for its CPU simulator."""

    include: str | None
    cxx: str | None
    missing: str = ""


def pto_isa() -> IsaToolchain:
    include = os.environ.get(PTO_ISA_INCLUDE, "").strip()
    if not include:
        return IsaToolchain(None, None, f"pto-isa is not configured: set {PTO_ISA_INCLUDE} to its include/ directory to run the op differential")
    if not (Path(include) / "pto" / "pto-inst.hpp").is_file():
        raise OracleError(f"{PTO_ISA_INCLUDE}={include} has no pto/pto-inst.hpp")
    wanted = os.environ.get(PTO_ISA_CXX, "").strip()
    if wanted:
        cxx = shutil.which(wanted)
        if cxx is None:
            raise OracleError(f"{PTO_ISA_CXX}={wanted} does not name a compiler on PATH")
    else:
        cxx = next((found for name in DEFAULT_CXX if (found := shutil.which(name))), None)
        if cxx is None:
            return IsaToolchain(os.path.abspath(include), None, f"no C++ compiler for pto-isa: install clang-19 or set {PTO_ISA_CXX} (pto-isa needs clang)")
    return IsaToolchain(os.path.abspath(include), cxx)


@dataclass(frozen=True)
class ToolRun:
    code: int
    out: str
    err: str


def run(path: str, args: list[str], stdin: str) -> ToolRun:
    try:
        done = subprocess.run([path, *args], input=stdin, capture_output=True, text=True, timeout=TOOL_TIMEOUT)
    except subprocess.TimeoutExpired as e:
        raise OracleError(f"{os.path.basename(path)} did not finish in {TOOL_TIMEOUT} s") from e
    if done.returncode < 0:
        raise OracleError(f"{os.path.basename(path)} died with signal {-done.returncode}:\n{done.stderr[-2000:]}")
    return ToolRun(done.returncode, done.stdout, done.stderr)


# -- many chunks in one run -------------------------------------------------------------------


@dataclass
class Verdict:
    """What a tool said of one chunk: accepted (with its printing) or the
    errors, each `LINE:COL: error: MESSAGE` at the chunk's own lines."""

    accepted: bool
    printed: str = ""
    errors: list[str] = field(default_factory=list)

    @property
    def first_error(self) -> str:
        return self.errors[0] if self.errors else ""


_SPLIT_DIAG = re.compile(r"^within split at [^\n]*?:(\d+) offset :(\d+):(\d+): (error|warning|note|remark): (.*)$")


def join_chunks(texts: list[str]) -> tuple[str, list[int]]:
    """The texts as one `--split-input-file` input, and each one's first
    line in it (what the driver's "within split at FILE:N" names)."""
    parts: list[str] = []
    starts: list[int] = []
    line = 1  # the line the next part starts on
    for k, text in enumerate(texts):
        # the driver splits at the marker anywhere on a line (in comments
        # too); within a chunk it can only be in a comment or a string
        body = text.replace(SPLIT_MARKER, "// ----")
        body = body if body.endswith("\n") else body + "\n"
        if k:
            # the driver counts a chunk from its marker's line
            parts.append(SPLIT_MARKER + "\n")
            starts.append(line)
            line += 1
        else:
            starts.append(1)
        parts.append(body)
        line += body.count("\n")
    return "".join(parts), starts


def _verdicts(result: ToolRun, starts: list[int], offset_lines: list[int]) -> list[Verdict]:
    errors: dict[int, list[str]] = {}
    for raw in result.err.splitlines():
        m = _SPLIT_DIAG.match(raw)
        if m is None or m.group(4) != "error":
            continue
        first, line, col = int(m.group(1)), int(m.group(2)), int(m.group(3))
        try:
            k = starts.index(first)
        except ValueError:
            continue
        errors.setdefault(k, []).append(f"{line - offset_lines[k]}:{col}: error: {m.group(5)}")
    pieces = re.split(r"^// -----$\n?", result.out, flags=re.M)
    verdicts = []
    for k in range(len(starts)):
        printed = pieces[k].strip("\n") + "\n" if k < len(pieces) and pieces[k].strip() else ""
        if k in errors or not printed:
            verdicts.append(Verdict(False, "", errors.get(k) or [f"{result.err.strip()[:2000] or 'no output'}"]))
        else:
            verdicts.append(Verdict(True, printed))
    return verdicts


def _many(path: str, args: list[str], texts: list[str]) -> list[Verdict]:
    if not texts:
        return []
    joined, starts = join_chunks(texts)
    # a chunk after a marker has the marker's line as its line 1
    offset_lines = [0] + [1] * (len(texts) - 1)
    return _verdicts(run(path, [*args, "--split-input-file", "-"], joined), starts, offset_lines)


def _many_flagged(path: str, args: list[str], texts: list[str], unregistered: list[bool] | None) -> list[Verdict]:
    """`_many`, with `--allow-unregistered-dialect` for the texts
    `unregistered` marks (as their files' RUN lines ask)."""
    if not unregistered or not any(unregistered):
        return _many(path, args, texts)
    out: list[Verdict | None] = [None] * len(texts)
    for flag in (False, True):
        chosen = [k for k, u in enumerate(unregistered) if u == flag]
        extra = ["--allow-unregistered-dialect"] if flag else []
        for k, verdict in zip(chosen, _many(path, [*args, *extra], [texts[k] for k in chosen])):
            out[k] = verdict
    return out


def parse_many(tool: Tool, texts: list[str], unregistered: list[bool] | None = None) -> list[Verdict]:
    """ptoas's parser, verifiers and printer on each text."""
    return _many_flagged(tool.require(), [], texts, unregistered)


def level3_many(tool: Tool, texts: list[str], arch: str, unregistered: list[bool] | None = None) -> list[Verdict]:
    """ptoas's level3 pipeline with InsertSync on each text, for `arch`
    as pto-test-opt names it (`a3` or `a5`; also the parser's target, as
    the ptoas driver sets it: it decides a left tile's blayout)."""
    return _many_flagged(tool.require(), [f"--pto-arch={arch}", f"--pass-pipeline={LEVEL3_PIPELINE.format(arch=arch)}"], texts, unregistered)


def level2_many(tool: Tool, texts: list[str], arch: str, unregistered: list[bool] | None = None) -> list[Verdict]:
    """ptoas's level2 pipeline (its own memory planning) on each text."""
    return _many_flagged(tool.require(), [f"--pto-arch={arch}", f"--pass-pipeline={LEVEL2_PIPELINE.format(arch=arch)}"], texts, unregistered)


SECTIONS_PASS = "--pto-normalize-uncovered-tile-sections"
"""The pass of ptoas's pipelines that splits a function's top-level ops into
cube and vector sections (an op holding both kinds is an error)."""


def sections_many(tool: Tool, texts: list[str], arch: str, unregistered: list[bool] | None = None) -> list[Verdict]:
    """ptoas's section normalization alone on each text: what it makes of a
    kernel's cube and vector parts, whatever its addresses."""
    return _many_flagged(tool.require(), [f"--pto-arch={arch}", SECTIONS_PASS], texts, unregistered)


_TARGET_ARCH = re.compile(r'pto\.target_arch\s*=\s*"([^"]*)"')


def ptoas_arch(text: str) -> str:
    """The `arch=` pto-test-opt takes for a module: what ptoas's driver
    names its target (a2, a3 or a5; targets.ptoas_arch_name)."""
    m = _TARGET_ARCH.search(text)
    return ptoas_arch_name(m.group(1) if m else None)


_SSA_NAME = re.compile(r"%[\w$.\-]+|\^[\w$.\-]+")
_DEFINED_HERE = re.compile(r"\s*=(?!=)|:\d|:\s")
"""What follows a value's name where it is defined: `%x = `, `%i = %c0 to`,
`iter_args(%acc = %init)`, a result group `%r:2`, an argument `%a: index`
(MLIR prints no space before an argument's colon, and one before the type
colon of a use, `ins(%t : ...)`)."""
_RESULT_LIST = re.compile(r"^\s*(%[\w$.\-]+\s*,\s*)+%[\w$.\-]+\s*=(?!=)")


def canonical_names(text: str) -> str:
    """The text with every SSA value and block name replaced by its order
    of appearance (`%v0`, `%v1`, ...; `^b0`, ...): two printings that
    differ only in names become equal. Each definition of a value is a new
    name, so that a name used again in another scope (the user's `%i` in
    both regions of an `scf.while`, where ptoas prints `%arg3` and `%arg4`)
    counts as the two values it is."""
    names: dict[str, str] = {}
    count = 0

    def fresh(name: str) -> str:
        nonlocal count
        names[name] = new = f"{name[0]}{'v' if name[0] == '%' else 'b'}{count}"
        count += 1
        return new

    out = []
    for line in text.splitlines(keepends=True):
        listed = _RESULT_LIST.match(line)
        listed_end = listed.end() if listed else -1
        pieces = []
        pos = 0
        for m in _SSA_NAME.finditer(line):
            name = m.group(0)
            defined = name[0] == "%" and (m.start() < listed_end or _DEFINED_HERE.match(line, m.end()) is not None)
            pieces.append(line[pos : m.start()])
            pieces.append(fresh(name) if defined or name not in names else names[name])
            pos = m.end()
        pieces.append(line[pos:])
        out.append("".join(pieces))
    return "".join(out)
