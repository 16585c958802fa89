"""Fuzzing `pto-opt` and `pto-run`: malformed and extreme inputs must end in
a diagnostic and exit code 0 or 1, never a traceback, a crash or a hang.

Inputs (`make_inputs`): the repository's .mlir files mutated (truncated,
lines deleted, duplicated or swapped, numbers replaced by extreme values,
types and SSA names swapped, bytes flipped, files spliced), random bytes,
and generated extremes (deep nesting, huge trip counts, slot counts, shapes
and memrefs, very long bodies).

Execution: inputs run in-process (calling the tools' `main`, with file
descriptors 1 and 2 captured so C++ output is seen too) inside a worker
subprocess, so a crash of the bindings kills only the worker: the parent
sees which input was running, records it and starts a new worker. A per-input
alarm and a parent-side timeout catch hangs. `run_subprocess` runs one input
through the installed executables, as a user would.

Verdicts: `ok` (exit 0, or exit 1 with an `error:` line), `traceback`,
`internal-error` (a tool caught an exception it did not expect: a bug
reported politely), `bad-exit` (any other exit code), `no-diagnostic`
(exit 1 with no `error:` line), `hang`, `crash` (the process died).
"""

from __future__ import annotations

import base64
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

OK = "ok"
TRACEBACK = "traceback"
INTERNAL = "internal-error"
BAD_EXIT = "bad-exit"
NO_DIAGNOSTIC = "no-diagnostic"
HANG = "hang"
CRASH = "crash"

DEFAULT_TIMEOUT = 20.0
RUN_LIMITS = ["--max-ops", "50000", "--max-arg-bytes", str(16 << 20)]
"""pto-run limits under fuzzing: enough for every real kernel, small enough
that a huge trip count or memref ends in an error within the time limit."""

EXTREME_NUMBERS = [
    "0", "-1", "1", "2", "17", "255", "256", "65536", "2147483647", "2147483648", "-2147483648",
    "4294967296", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "18446744073709551616", "99999999999999999999999", "1000000000", "196608", "196609", "1e309", "-0",
]  # fmt: skip
TYPE_SWAPS = [
    ("f32", "f16"), ("f16", "bf16"), ("f32", "i8"), ("i32", "f32"), ("index", "i64"), ("i64", "index"),
    ('"vec"', '"left"'), ('"mat"', '"acc"'), ('"left"', '"right"'), ('"acc"', '"bias"'), ("i64: ", "i32: "),
    ("memref<", "tensor<"), ("!pto.tile_buf", "!pto.multi_tile_buf"), ("pto.tload", "pto.tstore"),
    ("pto.tadd", "pto.tmatmul"), ("scf.for", "scf.if"), ("alloc_tile", "alloc_multi_tile"),
]  # fmt: skip
JUNK = ["{", "}", "(", ")", "<", ">", '"', "%", "@", "!", "#", ":", ",", "\x00", "\ufffd", "\\", "^bb0:", "// -----\n"]


@dataclass
class FuzzInput:
    name: str  # how it was made, e.g. "truncate(test/Foo.mlir)"
    data: bytes
    tool: str  # pto-opt | pto-run
    args: list[str] = field(default_factory=list)  # after the input path


@dataclass
class FuzzResult:
    name: str
    tool: str
    args: list[str]
    status: str
    exit_code: int | None
    seconds: float
    detail: str = ""  # the stderr lines that matter

    @property
    def ok(self) -> bool:
        return self.status == OK


# --- making inputs -------------------------------------------------------------------------


def seed_corpus(root: Path, generated: int = 20) -> list[tuple[str, str]]:
    """(name, text) of every .mlir file under test/ and examples/, and of
    `generated` kernels from kernel_gen (richer kernels reach deeper into
    the passes and the interpreter)."""
    from .kernel_gen import generate

    out = []
    for d in ("test", "examples"):
        for p in sorted((root / d).rglob("*.mlir")):
            out.append((p.relative_to(root).as_posix(), p.read_text(errors="replace")))
    out += [(f"kernel_gen seed {s}", generate(s).text) for s in range(1000, 1000 + generated)]
    return out


def _lines_mutation(rng: random.Random, text: str) -> tuple[str, str]:
    lines = text.split("\n")
    if len(lines) < 2:
        return "truncate", text[: rng.randrange(len(text) + 1)]
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    kind = rng.choice(["delete", "duplicate", "swap", "delete-block"])
    if kind == "delete":
        del lines[i]
    elif kind == "duplicate":
        lines.insert(j, lines[i])
    elif kind == "swap":
        lines[i], lines[j] = lines[j], lines[i]
    else:
        del lines[min(i, j) : max(i, j) + 1]
    return kind, "\n".join(lines)


def mutate(rng: random.Random, text: str, other: str) -> tuple[str, str]:
    """One random mutation of `text` (`other`: a second input for splicing)."""
    kind = rng.choice(["truncate", "lines", "number", "number", "type", "ssa", "bytes", "junk", "splice", "stages"])
    if kind == "truncate":
        return kind, text[: rng.randrange(len(text) + 1)]
    if kind == "lines":
        return _lines_mutation(rng, text)
    if kind == "number":
        numbers = list(re.finditer(r"(?<![\w%#!@.])-?\d+(\.\d+)?", text))
        if numbers:
            m = rng.choice(numbers)
            return kind, text[: m.start()] + rng.choice(EXTREME_NUMBERS) + text[m.end() :]
    if kind == "stages":
        return kind, re.sub(r"pto\.pipeline_stages = \d+", f"pto.pipeline_stages = {rng.choice(EXTREME_NUMBERS)}", text)
    if kind == "type":
        a, b = rng.choice(TYPE_SWAPS)
        if rng.random() < 0.5:
            a, b = b, a
        hits = [m.start() for m in re.finditer(re.escape(a), text)]
        if hits:
            at = rng.choice(hits)
            return kind, text[:at] + b + text[at + len(a) :]
    if kind == "ssa":
        names = sorted(set(re.findall(r"%[\w$.\-]+", text)))
        if len(names) >= 2:
            a, b = rng.sample(names, 2)
            hits = [m.start() for m in re.finditer(re.escape(a) + r"\b", text)]
            if hits:
                at = rng.choice(hits)
                return kind, text[:at] + b + text[at + len(a) :]
    if kind == "bytes" and text:
        data = bytearray(text.encode("utf-8", "replace"))
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return kind, data.decode("latin-1")
    if kind == "junk":
        at = rng.randrange(len(text) + 1)
        return kind, text[:at] + "".join(rng.choice(JUNK) for _ in range(rng.randint(1, 3))) + text[at:]
    if kind == "splice":
        return kind, text[: rng.randrange(len(text) + 1)] + other[rng.randrange(len(other) + 1) :]
    return "truncate", text[: rng.randrange(len(text) + 1)]


def deep_nesting(depth: int, kind: str) -> str:
    """A kernel whose tile op sits `depth` regions deep."""
    t = '!pto.tile_buf<"vec", array<i64: 4, 8>, f32>'
    head = [
        "func.func @deep(%A: memref<4x8xf32>, %c: i1) {",
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        "  %c2 = arith.constant 2 : index",
    ]
    opens, closes = [], []
    for d in range(depth):
        if kind == "for":
            attr = " {pto.pipeline_stages = 2 : i64}" if d % 2 == 0 else ""
            opens.append(f"scf.for %i{d} = %c0 to %c2 step %c1 {{")
            closes.append("}" + attr)
        else:
            opens.append("scf.if %c {")
            closes.append("}")
    body = [f'%t = "pto.alloc_tile"() : () -> {t}', f'"pto.tload"(%A, %c0, %c0, %t) : (memref<4x8xf32>, index, index, {t}) -> ()']
    return "\n".join(head + opens + body + closes[::-1] + ["  return", "}"]) + "\n"


def extremes() -> list[tuple[str, str, list[str]]]:
    """(name, text, pto-run arguments) of inputs with huge sizes and counts."""
    t = '!pto.tile_buf<"vec", array<i64: 4, 8>, f32>'

    def loop(ub, stages, body=""):
        return f"""
func.func @k(%A: memref<4x8xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ub = arith.constant {ub} : index
  scf.for %i = %c0 to %ub step %c1 {{
    %t = "pto.alloc_tile"() : () -> {t}
    "pto.tload"(%A, %c0, %c0, %t) : (memref<4x8xf32>, index, index, {t}) -> (){body}
  }} {{pto.pipeline_stages = {stages} : i64}}
  return
}}
"""
    out = [
        ("huge-trip-count", loop(10**15, 2), []),
        ("max-index-trip-count", loop(2**63 - 1, 2), []),
        ("huge-stages", loop(8, 2**40), []),
        ("stages-16", loop(64, 16), []),
        ("stages-17", loop(64, 17), []),
        ("huge-tile", 'func.func @k() {\n  %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 1000000000, 1000000000>, f32>\n  return\n}\n', []),
        ("huge-slots", f'func.func @k() {{\n  %t = "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<{t}, 1000000 : i64>\n  return\n}}\n', []),
        ("huge-memref", "func.func @k(%A: memref<100000000x100000000xf32>) {\n  return\n}\n", []),
        ("huge-dynamic-memref", "func.func @k(%A: memref<?x?xf32>) {\n  return\n}\n", ["--arg", "A=99999999999x99999999999"]),
        ("huge-addr", f'func.func @k() {{\n  %a = arith.constant 9223372036854775807 : i64\n  %t = "pto.alloc_tile"(%a) : (i64) -> {t}\n  return\n}}\n', []),
        ("negative-addr", f'func.func @k(%a: i64) {{\n  %t = "pto.alloc_tile"(%a) : (i64) -> {t}\n  return\n}}\n', ["--arg", "a=-64"]),
        ("huge-arg", "func.func @k(%n: index) {\n  return\n}\n", ["--arg", "n=" + "9" * 400]),
        ("long-body", loop(4, 2, "".join(f'\n    "pto.tadd"(%t, %t, %t) : ({t}, {t}, {t}) -> ()' for _ in range(3000))), []),
        ("many-functions", "".join(f"func.func @f{i}() {{\n  return\n}}\n" for i in range(2000)), []),
        ("recursion", "func.func @k() {\n  func.call @k() : () -> ()\n  return\n}\n", []),
        ("empty", "", []),
        ("only-comment", "// nothing here\n", []),
    ]
    for depth in (50, 300, 1000):
        out.append((f"deep-for-{depth}", deep_nesting(depth, "for"), ["--arg", "c=1"]))
        out.append((f"deep-if-{depth}", deep_nesting(depth, "if"), ["--arg", "c=1"]))
    return out


OPT_FLAGS = [
    [],
    ["--convert-to-ptoas-multi-buffer"],
    ["--pto-lower-pipeline-loops"],
    ["--pto-allocate-memory-addr"],
    ["--pto-pipeline", "--use-ptoas-multi-buffer"],
    ["--pass-pipeline=builtin.module(pto-pipeline{use-ptoas-multi-buffer=false},canonicalize)"],
    ["--split-input-file", "--verify-diagnostics"],
    ["--convert-to-ptoas-multi-buffer=normalize-loops=true spaces=vec,mat,left"],
]
RUN_PIPELINES = [
    "pto-pipeline{use-ptoas-multi-buffer=true}",
    "pto-pipeline{use-ptoas-multi-buffer=false}",
    "convert-to-ptoas-multi-buffer",
    "pto-allocate-memory-addr",
]


def _first_function(text: str) -> str:
    m = re.search(r"func\.func\s+(?:private\s+)?@([\w$.\-]+)", text)
    return m.group(1) if m else "kernel"


def run_args(rng: random.Random, text: str, extra: list[str] | None = None) -> list[str]:
    args = ["--func", _first_function(text), *RUN_LIMITS]
    for name in sorted(set(re.findall(r"%([\w$.\-]+)\s*:\s*(?:index|i\d+)\b", text)))[:4]:
        args += ["--arg", f"{name}={rng.choice([0, 1, 3, 8, -1])}"]
    if rng.random() < 0.5:
        args += ["--compare-pipeline", rng.choice(RUN_PIPELINES)]
    return args + (extra or [])


def make_inputs(rng: random.Random, corpus: list[tuple[str, str]], count: int) -> list[FuzzInput]:
    """At least `count` inputs: every extreme (for both tools) and some
    random bytes first, then mutants of the corpus."""
    inputs: list[FuzzInput] = []
    for name, text, extra in extremes():
        inputs.append(FuzzInput(name, text.encode(), "pto-run", run_args(rng, text, extra)))
        inputs.append(FuzzInput(name, text.encode(), "pto-opt", rng.choice(OPT_FLAGS)))
    for i in range(max(count // 20, 2)):
        data = bytes(rng.randrange(256) for _ in range(rng.randint(0, 400)))
        inputs.append(FuzzInput(f"random-bytes-{i}", data, rng.choice(["pto-opt", "pto-run"]), []))
    while len(inputs) < count:
        name, text = rng.choice(corpus)
        other = rng.choice(corpus)[1]
        steps = []
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            kind, text = mutate(rng, text, other)
            steps.append(kind)
        label = f"{'+'.join(steps)}({name})"
        data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
        if rng.random() < 0.5:
            inputs.append(FuzzInput(label, data, "pto-opt", rng.choice(OPT_FLAGS)))
        else:
            inputs.append(FuzzInput(label, data, "pto-run", run_args(rng, text)))
    return inputs


# --- judging ---------------------------------------------------------------------------------


def judge(exit_code: int | None, stderr: str) -> tuple[str, str]:
    """The verdict on one run, and the stderr lines that explain it."""
    lines = stderr.splitlines()
    if "Traceback (most recent call last)" in stderr:
        start = next(i for i, line in enumerate(lines) if line.startswith("Traceback"))
        return TRACEBACK, "\n".join(lines[start:][-12:])
    internal = [line for line in lines if "internal error" in line]
    if internal:
        return INTERNAL, internal[0]
    if exit_code not in (0, 1):
        return BAD_EXIT, f"exit code {exit_code}\n" + "\n".join(lines[-5:])
    if exit_code == 1 and not any("error:" in line for line in lines):
        return NO_DIAGNOSTIC, "\n".join(lines[-5:])
    return OK, ""


TOOLS = {
    "pto-opt": "pto_dialect.tools.pto_opt",
    "pto-run": "pto_dialect.tools.pto_run",
}


class _Alarm(BaseException):  # not Exception: the tools catch those
    pass


def run_in_process(inp: FuzzInput, path: str, timeout: float, module: str | None = None) -> FuzzResult:
    """Run one input by calling the tool's main() (from `module`, by default
    the tool's) here, capturing fds 1 and 2."""
    import importlib
    import signal

    main = importlib.import_module(module or TOOLS[inp.tool]).main
    with open(path, "wb") as f:
        f.write(inp.data)
    argv = [path, *inp.args]
    captured = tempfile.TemporaryFile()
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    os.dup2(captured.fileno(), 1)
    os.dup2(captured.fileno(), 2)

    def on_alarm(signum, frame):
        raise _Alarm()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    start = time.perf_counter()
    code: int | None
    try:
        code = main(argv)
    except _Alarm:
        code = None
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    except BaseException:  # an exception escaped main(): that is the finding
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])
    seconds = time.perf_counter() - start
    captured.seek(0)
    output = captured.read().decode("utf-8", "replace")
    captured.close()
    if code is None:
        return FuzzResult(inp.name, inp.tool, inp.args, HANG, None, seconds, f"no exit within {timeout} s")
    status, detail = judge(code, output)
    return FuzzResult(inp.name, inp.tool, inp.args, status, code, seconds, detail)


def run_subprocess(inp: FuzzInput, path: str, timeout: float, executable_dir: str | None = None) -> FuzzResult:
    """Run one input through the installed executable."""
    with open(path, "wb") as f:
        f.write(inp.data)
    exe = os.path.join(executable_dir or os.path.dirname(sys.executable), inp.tool)
    cmd = [exe] if os.path.exists(exe) else [sys.executable, "-m", TOOLS[inp.tool]]
    start = time.perf_counter()
    try:
        proc = subprocess.run([*cmd, path, *inp.args], capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return FuzzResult(inp.name, inp.tool, inp.args, HANG, None, time.perf_counter() - start, f"no exit within {timeout} s")
    seconds = time.perf_counter() - start
    code = proc.returncode
    stderr = proc.stderr.decode("utf-8", "replace")
    if code < 0:
        return FuzzResult(inp.name, inp.tool, inp.args, CRASH, code, seconds, f"killed by signal {-code}\n{stderr[-2000:]}")
    status, detail = judge(code, stderr)
    return FuzzResult(inp.name, inp.tool, inp.args, status, code, seconds, detail)


# --- the worker protocol ----------------------------------------------------------------------


def encode(inp: FuzzInput, index: int) -> str:
    return json.dumps(
        {"index": index, "name": inp.name, "tool": inp.tool, "module": TOOLS[inp.tool], "args": inp.args, "data": base64.b64encode(inp.data).decode()}
    )


def worker(timeout: float) -> int:
    """Read inputs as JSON lines on stdin; for each, announce it, run it
    in-process and write the result, one JSON line each, on the original
    stdout."""
    out = os.fdopen(os.dup(1), "w", buffering=1)
    path = tempfile.mktemp(suffix=".mlir", prefix="pto-fuzz-")
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            msg = json.loads(line)
            inp = FuzzInput(msg["name"], base64.b64decode(msg["data"]), msg["tool"], msg["args"])
            out.write(json.dumps({"start": msg["index"]}) + "\n")
            result = run_in_process(inp, path, timeout, msg["module"])
            out.write(json.dumps({"index": msg["index"], "result": asdict(result)}) + "\n")
    finally:
        if os.path.exists(path):
            os.remove(path)
    return 0


def run_batch(inputs: list[FuzzInput], timeout: float = DEFAULT_TIMEOUT, on_result=None) -> list[FuzzResult]:
    """Run inputs in-process in a worker subprocess; a worker that dies or
    stops answering is recorded as a crash or hang of the input it was
    running, and a new worker takes the rest."""
    results: dict[int, FuzzResult] = {}
    pending = list(range(len(inputs)))
    while pending:
        errors = tempfile.TemporaryFile()  # a file, not a pipe: a chatty crash cannot block the worker
        proc = subprocess.Popen(
            [sys.executable, "-X", "faulthandler", "-c", f"import sys; from pto_dialect.testing.fuzz import worker; sys.exit(worker({timeout!r}))"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
        )
        feed = "".join(encode(inputs[i], i) + "\n" for i in pending)
        writer = threading.Thread(target=_feed, args=(proc, feed), daemon=True)
        writer.start()
        current = None
        deadline = None
        for line in _lines_with_deadline(proc, lambda: deadline):  # noqa: B023 (read as the loop sets it)
            msg = json.loads(line)
            if "start" in msg:
                current = msg["start"]
                deadline = time.monotonic() + timeout * 1.5 + 1  # the worker's own alarm fires first
            else:
                r = FuzzResult(**msg["result"])
                results[msg["index"]] = r
                if on_result:
                    on_result(inputs[msg["index"]], r)
                current = None
                deadline = None
        code = proc.wait()
        if current is not None:
            inp = inputs[current]
            status = HANG if code == -9 else CRASH
            errors.seek(0)
            detail = errors.read().decode("utf-8", "replace")[-2000:]
            r = FuzzResult(inp.name, inp.tool, inp.args, status, code, 0.0, f"worker exit {code}\n{detail}")
            results[current] = r
            if on_result:
                on_result(inp, r)
        errors.close()
        pending = [i for i in pending if i not in results]
    return [results[i] for i in range(len(inputs))]


def _feed(proc, text: str) -> None:
    try:
        proc.stdin.write(text)
        proc.stdin.close()
    except (BrokenPipeError, OSError):  # the worker died; the parent restarts one
        pass


def _lines_with_deadline(proc, deadline):
    """Lines of proc.stdout (read unbuffered, so select() sees every byte);
    kills proc when the current input overruns its deadline."""
    import selectors

    fd = proc.stdout.fileno()
    sel = selectors.DefaultSelector()
    sel.register(fd, selectors.EVENT_READ)
    pending = b""
    while True:
        limit = deadline()
        wait = None if limit is None else max(0.0, limit - time.monotonic())
        if not sel.select(wait):
            proc.kill()
            return
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            if line.strip():
                yield line.decode()
