"""Fuzzing `pto-opt`, `pto-run`, the reader/writer round trip and the Python
API: malformed and extreme inputs must end in a diagnostic and exit code 0
or 1, never a traceback, a crash or a hang.

Inputs (`make_inputs`): the repository's .pto and .mlir files, generated
kernels in ptoas syntax, their generic form (`--mlir-print-op-generic`) and
mixed text (ptoas-syntax types in generic ops, generic types in ptoas-syntax
ops), mutated (truncated, lines deleted, duplicated or swapped, numbers
replaced by extreme values, types, keywords, tile-type fields and SSA names
swapped, types respelled, bytes flipped, files spliced; integers of any
length anywhere, a pto op's name followed by `=`, locations written after
ops, ops wrapped in other ops' regions), random bytes, and
generated extremes (deep nesting, huge trip counts, slot counts, shapes,
views, addresses and valid sizes, very long bodies).

Tools: `pto-opt` and `pto-run` as users run them; `pto-roundtrip` (reads
an input with pto-opt, then reads back what it printed, in ptoas syntax and
in the generic form: the printed text must read back and print the same);
`pto-api` (`pto_dialect.parse` and `print_module`: a module or a
`ParseError` with located diagnostics).

Execution: inputs run in-process (calling the tools' `main`, with file
descriptors 1 and 2 captured so C++ output is seen too) inside a worker
subprocess, so a crash of the bindings kills only the worker: the parent
sees which input was running, records it and starts a new worker. A per-input
alarm and a parent-side timeout catch hangs. `run_subprocess` runs one input
through the installed executables, as a user would.

Verdicts: `ok` (exit 0, or exit 1 with an `error:` line), `traceback`,
`internal-error` (a tool caught an exception it did not expect: a bug
reported politely), `round-trip` (printed text that does not read back, or
reads back to other text), `bad-exit` (any other exit code),
`no-diagnostic` (exit 1 with no `error:` line), `unlocated` (a
diagnostic not at a line and column of the input: `<unknown>: error:`,
`-:3:4: remark:`), `hang`, `crash` (the process died).
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

from .roundtrip import ROUNDTRIP_MARK  # how the round-trip tools say their property failed

OK = "ok"
TRACEBACK = "traceback"
INTERNAL = "internal-error"
ROUNDTRIP = "round-trip"
BAD_EXIT = "bad-exit"
NO_DIAGNOSTIC = "no-diagnostic"
UNLOCATED = "unlocated"
HANG = "hang"
CRASH = "crash"


DEFAULT_TIMEOUT = 20.0
RUN_LIMITS = ["--max-ops", "50000", "--max-arg-bytes", str(16 << 20)]
"""pto-run limits under fuzzing: enough for every real kernel, small enough
that a huge trip count or tensor ends in an error within the time limit."""

EXTREME_NUMBERS = [
    "0", "-1", "1", "2", "17", "255", "256", "65536", "2147483647", "2147483648", "-2147483648",
    "4294967296", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "18446744073709551616", "99999999999999999999999", "1000000000", "196608", "196609", "1e309", "-0",
]  # fmt: skip
TYPE_SWAPS = [
    ("f32", "f16"), ("f16", "bf16"), ("f32", "i8"), ("i32", "f32"), ("index", "i64"), ("i64", "index"),
    ("f32", "f8E4M3FN"), ("f16", "!pto.hif8"), ("f32", "i1"), ("xf32", "xindex"),
    ("vec,", "left,"), ("mat,", "acc,"), ("left,", "right,"), ("acc,", "bias,"), ("vec,", "gm,"),
    ("loc=vec", "loc=acc"), ("loc=mat", "loc=zero"), ('"vec"', '"left"'), ("i64: ", "i32: "),
    ("!pto.tile_buf", "!pto.multi_tile_buf"), ("!pto.partition_tensor_view", "!pto.tensor_view"),
    ("!pto.tensor_view", "!pto.partition_tensor_view"), ("!pto.ptr<", "!pto.tensor_view<"), ("!pto.ptr<f32>", "!pto.ptr<f32, vec>"),
    ("memref<", "tensor<"), ("pto.tload", "pto.tstore"), ("pto.tadd", "pto.tmatmul"), ("pto.tmatmul.acc", "pto.tmatmul"),
    ("pto.tmatmul ", "pto.tmatmul.acc "), ("pto.tadds", "pto.tadd"), ("pto.texp", "pto.tcvt"), ("pto.tcvt", "pto.tmov"),
    ("scf.for", "scf.if"), ("alloc_tile", "alloc_multi_tile"), ("make_tensor_view", "partition_view"),
]  # fmt: skip
KEYWORD_SWAPS = [
    ("ins(", "outs("), ("outs(", "ins("), ("ins(", "("), ("shape = [", "strides = ["), ("offsets = [", "sizes = ["),
    ("sizes = [", "offsets = ["), ("valid_row = ", "valid_col = "), ("valid_col = ", "addr = "), ("addr = ", "valid_row = "),
    (" : !pto", " !pto"), ("] : ", "] -> "), (" -> !pto.partition", " : !pto.partition"), ("{layout = #pto.layout<nd>}", ""),
    ("#pto.layout<nd>", "#pto.layout<zz>"), ("#pto.layout<nd>", '#pto.layout<"nd">'), ("#pto.layout<nd>", "#pto.opaque<nd>"),
    ("round_mode CAST_RINT", "round_mode CAST"), ("kernel_kind<vector>", "kernel_kind<scalar>"), ("count=", "count ="),
    ("count=", "valid="), ("pto.target_arch", "pto.target"), ('"a5"', '"a9"'), ('"a2a3"', '"A3"'),
]  # fmt: skip
FIELD_VALUES = {
    "loc": ["vec", "mat", "left", "right", "acc", "bias", "scaling", "gm", "zero", '"vec"', "", "loc"],
    "dtype": ["f32", "f16", "bf16", "i8", "i1", "index", "f64", "ui8", "f8E5M2", "!pto.hif8", "!pto.f4E2M1x2", "none", "vector<4xf32>"],
    "rows": ["16", "1", "0", "-1", "17", "1000000", "9223372036854775807", "99999999999999999999", "?", "x"],
    "cols": ["16", "8", "7", "0", "-16", "4096", "9223372036854775807", "?", ""],
    "v_row": ["?", "-1", "-2", "0", "16", "17", "1000", "x", ""],
    "v_col": ["?", "-1", "0", "16", "65", "?x?"],
    "blayout": ["row_major", "col_major", "none_box", "zz", ""],
    "slayout": ["none_box", "row_major", "col_major", "box", "1"],
    "fractal": ["512", "32", "1024", "16", "0", "-512", "4294967808"],
    "pad": ["0", "3", "4", "-1", "4294967296"],
    "compact": ["0", "1", "2", "3", "-1"],
    "count": ["2", "16", "1", "17", "0", "-2", "4294967298", "?"],
    "valid": ["?x?", "16x16", "0x0", "17x1", "?", "8x8x8", "-1x-1", "x"],
}
LOCATIONS = [
    "loc(unknown)", 'loc("name")', 'loc("name"(unknown))', 'loc(fused["a", "b"])', 'loc(fused<"meta">[unknown])',
    'loc(callsite("callee" at "caller"))', 'loc(callsite(unknown at unknown))', 'loc("kernel.py":12:5)', "loc(#loc99)",
    "loc(", "loc()", 'loc("unterminated)', "loc(unknown) loc(unknown)",
]  # fmt: skip
"""Locations written after an op: ones with no file position (MLIR reports
such an op's errors at `<unknown>` or a bare name), one in the kernel's
Python source (kept, as MLIR reports it), and malformed ones."""
OP_TRAILERS = [" =", " = ", "=", " = 1", " = ins(", " ==", " :", " = %x", " {", " <", " ="]
"""What follows a pto op's name in the `op-eq` mutants (`pto.tadd = ins(...)`)."""
WRAPPERS = [
    ("scf.execute_region {", "  scf.yield", "}"),
    ('"test.wrap"() ({', "", "}) : () -> ()"),
    ("builtin.module {", "", "}"),
    ("scf.execute_region {", "  scf.yield", "} loc(unknown)"),
    ("func.func @wrapped() {", "  return", "}"),
    ("{", "", "}"),
]
"""(before, last line inside, after) put around a line of a kernel."""
JUNK = [
    "{", "}", "(", ")", "<", ">", "[", "]", '"', "%", "@", "!", "#", ":", ",", "=", "?", "x", "\x00", "\ufffd", "\\", "^bb0:",
    "// -----\n", "ins(", "outs(", "!pto.tile_buf<", "loc=",
]  # fmt: skip


@dataclass
class FuzzInput:
    name: str  # how it was made, e.g. "truncate(test/Foo.pto)"
    data: bytes
    tool: str  # pto-opt | pto-run | pto-roundtrip | pto-api
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

SOURCE_SUFFIXES = ("*.pto", "*.mlir")


def seed_corpus(root: Path, generated: int = 20, printed: int = 8) -> list[tuple[str, str]]:
    """(name, text) of every .pto and .mlir file under test/ and examples/,
    of `generated` kernels from kernel_gen (richer kernels reach deeper into
    the passes and the interpreter), and of the first `printed` of them as
    pto-opt prints them, in the generic form and mixed (some of the generic
    form's types in ptoas spelling, some of the kernel's in generic)."""
    from .kernel_gen import generate

    out = []
    for d in ("test", "examples"):
        paths = sorted(p for suffix in SOURCE_SUFFIXES for p in (root / d).rglob(suffix))
        for p in paths:
            out.append((p.relative_to(root).as_posix(), p.read_text(errors="replace")))
    kernels = [(s, generate(s).text) for s in covering_seeds(generated)]
    out += [(f"kernel_gen seed {s}", text) for s, text in kernels]
    rng = random.Random(0)
    for s, text in kernels[:printed]:
        spellings = _spellings(text)
        if spellings is None:
            continue
        ptoas, generic = spellings
        out.append((f"kernel_gen seed {s} generic", generic))
        out.append((f"kernel_gen seed {s} generic, ptoas types", respell_types(rng, generic, "ptoas")))
        out.append((f"kernel_gen seed {s} printed, generic types", respell_types(rng, ptoas, "generic")))
    return out


def covering_seeds(count: int, start: int = 1000, pool: int = 200) -> list[int]:
    """`count` kernel_gen seeds from [start, start + pool) chosen greedily
    to cover the most generator features (valid shapes, views, op kinds,
    loops): the mutants then start from every kind of kernel the
    generator makes, not from whichever the first seeds happen to be."""
    from .kernel_gen import generate

    features = {s: generate(s).features for s in range(start, start + pool)}
    chosen: list[int] = []
    seen: set[str] = set()
    while len(chosen) < min(count, pool):
        best = max((s for s in features if s not in chosen), key=lambda s: (len(features[s] - seen), -s))
        chosen.append(best)
        seen |= features[best]
    return chosen


def _spellings(text: str) -> tuple[str, str] | None:
    """(ptoas, generic) text of a kernel as pto-opt prints it, or None."""
    from mlir import ir

    from ..api import ParseError, parse, print_module

    try:
        with ir.Context():
            module = parse(text)
            return print_module(module), print_module(module, generic=True)
    except ParseError:
        return None


_PTO_TYPE = re.compile(r"!pto\.(tile_buf|multi_tile_buf|ptr|tensor_view|partition_tensor_view)<")


def respell_types(rng: random.Random, text: str, to: str, p: float = 0.5) -> str:
    """`text` with about a fraction `p` of its pto types in the other
    spelling: `to="ptoas"` rewrites generic types, `to="generic"` ptoas ones
    (types the project's own parsers do not take are left as they are)."""
    from ..dialect.types import TypeSyntaxError, parse_generic_type, parse_ptoas_type
    from ..support.brackets import balanced_end

    out, pos, inside = [], 0, 0
    for m in _PTO_TYPE.finditer(text):
        if m.start() < inside:
            continue  # a slot inside a multi-tile type: types are respelled whole
        end = balanced_end(text, m.end() - 1)
        if end < 0:
            continue
        inside = end
        if rng.random() >= p:
            continue
        original = text[m.start() : end]
        view = None
        if to == "ptoas":
            view = parse_generic_type(original)
            replacement = view.ptoas() if view is not None else None
        else:
            try:
                view, stop = parse_ptoas_type(text, m.start())
            except TypeSyntaxError:
                view = None
            replacement = view.generic() if view is not None and stop == end else None
        if replacement is None:
            continue
        out.append(text[pos : m.start()])
        out.append(replacement)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def respell_tile(rng: random.Random, text: str) -> str | None:
    """One tile type of `text` in another valid spelling (verbose, compact,
    compact with its keys shuffled, generic), or None."""
    from ..dialect.types import TileBufType, TypeSyntaxError, parse_ptoas_type
    from .kernel_gen import TileT, compact_type, generic_type, verbose_type

    hits = [m.start() for m in re.finditer(r"!pto\.tile_buf<", text)]
    rng.shuffle(hits)
    for at in hits[:4]:
        try:
            view, end = parse_ptoas_type(text, at)
        except TypeSyntaxError:
            continue
        if not isinstance(view, TileBufType) or view.pad or view.compact:
            continue
        t = TileT(view.loc, view.rows, view.cols, view.dtype, view.valid_row < 0, view.valid_col < 0, view.blayout, view.slayout, view.fractal)
        if (not t.dyn_row and view.valid_row != view.rows) or (not t.dyn_col and view.valid_col != view.cols):
            continue  # a partial static valid shape: TileT has no spelling for it
        spelling = rng.choice([verbose_type(t), compact_type(t), compact_type(t, rng), generic_type(t)])
        return text[:at] + spelling + text[end:]
    return None


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


def _swap(rng: random.Random, text: str, table) -> str | None:
    a, b = rng.choice(table)
    if rng.random() < 0.5:
        a, b = b, a
    hits = [m.start() for m in re.finditer(re.escape(a), text)]
    if not hits:
        return None
    at = rng.choice(hits)
    return text[:at] + b + text[at + len(a) :]


_FIELD = re.compile(r"\b(loc|dtype|rows|cols|v_row|v_col|blayout|slayout|fractal|pad|compact|count|valid)\s*=\s*([^,>\s]*)")
_COMPACT_HEAD = re.compile(r"!pto\.(?:multi_)?tile_buf<(\w+), (\d+)x(\d+)x(\w+)")


def _field_mutation(rng: random.Random, text: str) -> str | None:
    """A field of a tile type set to another (valid or invalid) value, or a
    field repeated, dropped or added."""
    fields = list(_FIELD.finditer(text))
    heads = list(_COMPACT_HEAD.finditer(text))
    if not fields and not heads:
        return None
    if heads and (not fields or rng.random() < 0.3):
        m = rng.choice(heads)
        group = rng.randrange(1, 5)
        value = rng.choice(FIELD_VALUES[("loc", "rows", "cols", "dtype")[group - 1]])
        return text[: m.start(group)] + value + text[m.end(group) :]
    m = rng.choice(fields)
    key = m.group(1)
    how = rng.random()
    if how < 0.7:
        return text[: m.start(2)] + rng.choice(FIELD_VALUES[key]) + text[m.end(2) :]
    if how < 0.8:  # repeated
        return text[: m.end()] + ", " + m.group(0) + text[m.end() :]
    if how < 0.9:  # dropped (with its comma)
        start = text.rfind(",", 0, m.start())
        return text[: start if start >= 0 else m.start()] + text[m.end() :]
    other = rng.choice(list(FIELD_VALUES))  # another key added
    return text[: m.end()] + f", {other}={rng.choice(FIELD_VALUES[other])}" + text[m.end() :]


BIG_IN_RANGE = ["4294967296", "1099511627776", "4611686018427387904", "9223372036854775807", "9223372036854775808", "18446744073709551615"]
"""Integers that still parse (as an i64 or a dimension) and overflow what
is computed from them: sizes, byte counts, addresses, trip counts."""


def long_integer(rng: random.Random) -> str:
    """An integer literal of up to 64 bits that overflows what is computed
    from it (`BIG_IN_RANGE`), or one longer than any integer type holds: 20
    to 5000 digits, decimal or hexadecimal, maybe negative."""
    if rng.random() < 0.4:
        return rng.choice(BIG_IN_RANGE)
    digits = rng.choice([20, 21, 39, 40, 100, 400, 5000])
    if rng.random() < 0.2:
        return "0x" + "".join(rng.choice("0123456789abcdefABCDEF") for _ in range(digits))
    number = str(rng.randint(1, 9)) + "".join(rng.choice("0123456789") for _ in range(digits - 1))
    return ("-" if rng.random() < 0.3 else "") + number


_DIGITS = re.compile(r"\d+")
_PTO_OP_NAME = re.compile(r"(?<![\w%#!@.$])pto\.[a-z_][\w.]*(?=[ \t(<{\[]|$)", re.MULTILINE)


def _long_integer_mutation(rng: random.Random, text: str) -> str | None:
    """A run of digits anywhere (a constant, a dim of a type, an attribute
    value, a type's width, an address) replaced by a very long integer."""
    runs = list(_DIGITS.finditer(text))
    if not runs:
        return None
    m = rng.choice(runs)
    value = long_integer(rng)
    if text[m.start() - 1 : m.start()] in ("x", "<", "i", "f", "%") or text[m.end() : m.end() + 1] == "x":
        value = value.lstrip("-")  # in a shape or a name the sign would only end the token
    return text[: m.start()] + value + text[m.end() :]


def _op_eq_mutation(rng: random.Random, text: str) -> str | None:
    """A pto op's name followed by `=` (or another stray token)."""
    names = [m for m in _PTO_OP_NAME.finditer(text) if _op_start(text, m.start())]
    if not names:
        return None
    m = rng.choice(names)
    return text[: m.end()] + rng.choice(OP_TRAILERS) + text[m.end() :]


def _op_start(text: str, pos: int) -> bool:
    i = pos - 1
    while i >= 0 and text[i] in " \t":
        i -= 1
    return i < 0 or text[i] in "\n=" or text[i] == "{"


def _location_mutation(rng: random.Random, text: str) -> str | None:
    """A location written after an op (or a region's end, or a function)."""
    lines = text.split("\n")
    candidates = [
        i for i, line in enumerate(lines) if line.strip() and not line.rstrip().endswith(("{", ",", "(")) and not line.lstrip().startswith(("//", "#", "!"))
    ]
    if not candidates:
        return None
    i = rng.choice(candidates)
    lines[i] = lines[i].rstrip() + " " + rng.choice(LOCATIONS)
    return "\n".join(lines)


def _wrap_mutation(rng: random.Random, text: str) -> str | None:
    """An op line put inside another op's region (and so maybe out of reach
    of the values it uses, or where no op of its kind may be)."""
    lines = text.split("\n")
    candidates = [i for i, line in enumerate(lines) if _PTO_OP_NAME.search(line) and not line.rstrip().endswith(("{", ",", "("))]
    if not candidates:
        return None
    i = rng.choice(candidates)
    before, last, after = rng.choice(WRAPPERS)
    indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
    wrapped = [indent + before, "  " + lines[i], *([indent + last] if last else []), indent + after]
    return "\n".join(lines[:i] + wrapped + lines[i + 1 :])


NEW_KINDS = ("long-int", "op-eq", "loc", "wrap")
"""The mutant kinds of issue 21's item 6: each must end in a located error
(or parse and run); `located` in the verdicts checks that."""


def mutate(rng: random.Random, text: str, other: str) -> tuple[str, str]:
    """One random mutation of `text` (`other`: a second input for splicing)."""
    kind = rng.choice(
        ["truncate", "lines", "number", "number", "type", "keyword", "field", "field", "respell", "ssa", "bytes", "junk", "splice", "stages", *NEW_KINDS]
    )
    return mutate_kind(rng, kind, text, other)


def mutate_kind(rng: random.Random, kind: str, text: str, other: str) -> tuple[str, str]:
    """A mutation of the given kind, or a truncation where it does not apply."""
    if kind == "long-int":
        mutated = _long_integer_mutation(rng, text)
        if mutated is not None:
            return kind, mutated
    if kind == "op-eq":
        mutated = _op_eq_mutation(rng, text)
        if mutated is not None:
            return kind, mutated
    if kind == "loc":
        mutated = _location_mutation(rng, text)
        if mutated is not None:
            return kind, mutated
    if kind == "wrap":
        mutated = _wrap_mutation(rng, text)
        if mutated is not None:
            return kind, mutated
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
    if kind in ("type", "keyword"):
        mutated = _swap(rng, text, TYPE_SWAPS if kind == "type" else KEYWORD_SWAPS)
        if mutated is not None:
            return kind, mutated
    if kind == "field":
        mutated = _field_mutation(rng, text)
        if mutated is not None:
            return kind, mutated
    if kind == "respell":
        mutated = respell_tile(rng, text)
        if mutated is not None:
            return kind, mutated
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


# The kernels below are ptoas syntax: a pointer argument, its tensor view and
# a partition of it loaded into a tile.
T = "!pto.tile_buf<vec, 4x8xf32>"
VIEW = "!pto.tensor_view<4x8xf32>"
PART = "!pto.partition_tensor_view<4x8xf32>"
_PROLOGUE = [
    "  %c0 = arith.constant 0 : index",
    "  %c1 = arith.constant 1 : index",
    "  %c2 = arith.constant 2 : index",
    "  %c4 = arith.constant 4 : index",
    "  %c8 = arith.constant 8 : index",
    f"  %tv = pto.make_tensor_view %A, shape = [%c4, %c8], strides = [%c8, %c1] {{layout = #pto.layout<nd>}} : {VIEW}",
]
_LOAD = [
    f"%pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c4, %c8] : {VIEW} -> {PART}",
    f"%t = pto.alloc_tile : {T}",
    f"pto.tload ins(%pv : {PART}) outs(%t : {T})",
]


def deep_nesting(depth: int, kind: str) -> str:
    """A kernel whose tile ops sit `depth` regions deep."""
    head = ["func.func @deep(%A: !pto.ptr<f32>, %c: i1) {", *_PROLOGUE]
    opens, closes = [], []
    for d in range(depth):
        if kind == "for":
            attr = " {pto.pipeline_stages = 2 : i64}" if d % 2 == 0 else ""
            opens.append(f"scf.for %i{d} = %c0 to %c2 step %c1 {{")
            closes.append("}" + attr)
        else:
            opens.append("scf.if %c {")
            closes.append("}")
    return "\n".join(head + opens + _LOAD + closes[::-1] + ["  return", "}"]) + "\n"


def pipeline_loop(ub, stages, body: str = "") -> str:
    """A pipeline loop of `ub` trips marked with `stages`, loading one tile (then `body`)."""
    return "\n".join(
        [
            "func.func @k(%A: !pto.ptr<f32>) {",
            *_PROLOGUE,
            f"  %ub = arith.constant {ub} : index",
            "  scf.for %i = %c0 to %ub step %c1 {",
            *("    " + line for line in _LOAD),
            *([body] if body else []),
            f"  }} {{pto.pipeline_stages = {stages} : i64}}",
            "  return",
            "}",
            "",
        ]
    )


def extremes() -> list[tuple[str, str, list[str]]]:
    """(name, text, pto-run arguments) of inputs with huge sizes and counts."""

    def view_kernel(shape: str, sizes: str, offsets: str, extra_args: str = "", tile: str = T, part: str = PART) -> str:
        return "\n".join(
            [
                f"func.func @k(%A: !pto.ptr<f32>{extra_args}) {{",
                *_PROLOGUE[:5],
                f"  %tv = pto.make_tensor_view %A, shape = [{shape}], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>",
                f"  %pv = pto.partition_view %tv, offsets = [{offsets}], sizes = [{sizes}] : !pto.tensor_view<?x?xf32> -> {part}",
                f"  %t = pto.alloc_tile : {tile}",
                f"  pto.tload ins(%pv : {part}) outs(%t : {tile})",
                "  return",
                "}",
                "",
            ]
        )

    many_adds = "\n".join(f"    pto.tadd ins(%t, %t : {T}, {T}) outs(%t : {T})" for _ in range(3000))
    dyn = "!pto.tile_buf<vec, 4x8xf32, valid=?x8>"
    huge_valid = (
        f"func.func @k(%n: index) {{\n  %t = pto.alloc_tile valid_row = %n : {dyn}\n  pto.tadd ins(%t, %t : {dyn}, {dyn}) outs(%t : {dyn})\n  return\n}}\n"
    )
    negative_addr = f"func.func @k(%a: i64) {{\n  %t = pto.alloc_tile addr = %a : {T}\n  pto.tadd ins(%t, %t : {T}, {T}) outs(%t : {T})\n  return\n}}\n"
    many_types = ", ".join(f"%a{i}: !pto.tile_buf<vec, {i + 1}x32xi8, valid=?x{i % 32}>" for i in range(1500))
    far = view_kernel("%big, %c8", "%c4, %c8", "%big1, %c0", ", %big: index, %big1: index")
    out = [
        ("huge-trip-count", pipeline_loop(10**15, 2), []),
        ("max-index-trip-count", pipeline_loop(2**63 - 1, 2), []),
        ("huge-stages", pipeline_loop(8, 2**40), []),
        ("stages-16", pipeline_loop(64, 16), []),
        ("stages-17", pipeline_loop(64, 17), []),
        ("huge-tile", "func.func @k() {\n  %t = pto.alloc_tile : !pto.tile_buf<vec, 1000000000x1000000000xf32>\n  return\n}\n", []),
        (
            "huge-verbose-tile",
            "func.func @k() {\n  %t = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f32, rows=9223372036854775807, cols=9223372036854775807, "
            "v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>\n  return\n}\n",
            [],
        ),
        ("huge-slots", "func.func @k() {\n  %t = pto.alloc_multi_tile : !pto.multi_tile_buf<vec, 4x8xf32, count=1000000>\n  return\n}\n", []),
        ("huge-memref", "func.func @k(%A: memref<100000000x100000000xf32>) {\n  return\n}\n", []),
        ("huge-view-arg", "func.func @k(%A: !pto.tensor_view<100000000x100000000xf32>) {\n  return\n}\n", []),
        ("huge-dynamic-view-arg", "func.func @k(%A: !pto.tensor_view<?x?xf32>) {\n  return\n}\n", ["--arg", "A=99999999999x99999999999"]),
        ("huge-view-extent", far, ["--arg", "big=99999999999", "--arg", "big1=99999999990"]),
        ("huge-partition-offset", view_kernel("%c4, %c8", "%c4, %c8", "%off, %c0", ", %off: index"), ["--arg", "off=9223372036854775807"]),
        ("negative-partition-offset", view_kernel("%c4, %c8", "%c4, %c8", "%off, %c0", ", %off: index"), ["--arg", "off=-4"]),
        ("huge-valid", huge_valid, ["--arg", "n=9223372036854775807"]),
        ("negative-valid", huge_valid, ["--arg", "n=-3"]),
        ("huge-addr", f"func.func @k() {{\n  %a = arith.constant 9223372036854775807 : i64\n  %t = pto.alloc_tile addr = %a : {T}\n  return\n}}\n", []),
        ("negative-addr", negative_addr, ["--arg", "a=-64"]),
        ("huge-arg", "func.func @k(%n: index) {\n  return\n}\n", ["--arg", "n=" + "9" * 400]),
        ("long-body", pipeline_loop(4, 2, many_adds), []),
        ("many-functions", "".join(f"func.func @f{i}() {{\n  return\n}}\n" for i in range(2000)), []),
        ("many-types", f"func.func @k({many_types}) {{\n  return\n}}\n", []),
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
    ["--convert-to-ptoas-multi-buffer=slots=model"],
    ["--pto-pipeline=use-ptoas-multi-buffer=true slots=model"],
    ["--mlir-print-op-generic"],
    ["--pto-pipeline", "--mlir-print-op-generic"],
]
ROUNDTRIP_FLAGS = [
    [],
    [],
    ["--mlir-print-op-generic"],
    ["--convert-to-ptoas-multi-buffer"],
    ["--pto-pipeline", "--use-ptoas-multi-buffer"],
    ["--pto-pipeline"],
]
"""What the round-trip tool runs first (the printed text of any run must read back)."""
RUN_PIPELINES = [
    "pto-pipeline{use-ptoas-multi-buffer=true}",
    "pto-pipeline{use-ptoas-multi-buffer=false}",
    "convert-to-ptoas-multi-buffer",
    "pto-allocate-memory-addr",
    "pto-pipeline{use-ptoas-multi-buffer=true slots=model}",
]
TOOL_WEIGHTS = [("pto-opt", 4), ("pto-run", 3), ("pto-roundtrip", 2), ("pto-api", 1)]


def _first_function(text: str) -> str:
    m = re.search(r"func\.func\s+(?:private\s+)?@([\w$.\-]+)", text)
    return m.group(1) if m else "kernel"


def run_args(rng: random.Random, text: str, extra: list[str] | None = None) -> list[str]:
    args = ["--func", _first_function(text), *RUN_LIMITS]
    for name in sorted(set(re.findall(r"%([\w$.\-]+)\s*:\s*(?:index|i\d+)\b", text)))[:4]:
        args += ["--arg", f"{name}={rng.choice([0, 1, 3, 8, 16, -1])}"]
    if rng.random() < 0.5:
        args += ["--compare-pipeline", rng.choice(RUN_PIPELINES)]
    return args + (extra or [])


def tool_args(rng: random.Random, tool: str, text: str) -> list[str]:
    if tool == "pto-run":
        return run_args(rng, text)
    if tool == "pto-roundtrip":
        return list(rng.choice(ROUNDTRIP_FLAGS))
    if tool == "pto-api":
        return []
    return list(rng.choice(OPT_FLAGS))


def make_inputs(rng: random.Random, corpus: list[tuple[str, str]], count: int, kinds: tuple[str, ...] | None = None) -> list[FuzzInput]:
    """At least `count` inputs: every extreme (for pto-run, pto-opt and the
    round trip), some random bytes and each corpus text unmutated through
    the round trip, then mutants of the corpus; with `kinds`, only mutants,
    of those kinds (`mutate_kind`)."""
    if kinds is not None:
        return _mutants(rng, corpus, count, kinds, [])
    inputs: list[FuzzInput] = []
    for name, text, extra in extremes():
        inputs.append(FuzzInput(name, text.encode(), "pto-run", run_args(rng, text, extra)))
        inputs.append(FuzzInput(name, text.encode(), "pto-opt", rng.choice(OPT_FLAGS)))
        if not name.startswith("deep-") or name.endswith(("-50", "-300")):
            inputs.append(FuzzInput(name, text.encode(), "pto-roundtrip", []))
    for i in range(max(count // 20, 2)):
        data = bytes(rng.randrange(256) for _ in range(rng.randint(0, 400)))
        inputs.append(FuzzInput(f"random-bytes-{i}", data, rng.choice(["pto-opt", "pto-run", "pto-api"]), []))
    for name, text in corpus:
        if "kernel_gen" in name:
            inputs.append(FuzzInput(name, text.encode("utf-8", "surrogateescape"), "pto-roundtrip", tool_args(rng, "pto-roundtrip", text)))
    return _mutants(rng, corpus, count, None, inputs)


def _mutants(rng: random.Random, corpus: list[tuple[str, str]], count: int, kinds: tuple[str, ...] | None, inputs: list[FuzzInput]) -> list[FuzzInput]:
    """`inputs` and mutants of the corpus after them, `count` in all."""
    tools, weights = zip(*TOOL_WEIGHTS)
    while len(inputs) < count:
        name, text = rng.choice(corpus)
        other = rng.choice(corpus)[1]
        steps = []
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            kind, text = mutate(rng, text, other) if kinds is None else mutate_kind(rng, rng.choice(kinds), text, other)
            steps.append(kind)
        label = f"{'+'.join(steps)}({name})"
        data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
        tool = rng.choices(tools, weights)[0]
        inputs.append(FuzzInput(label, data, tool, tool_args(rng, tool, text)))
    return inputs


# --- judging ---------------------------------------------------------------------------------


_DIAGNOSTIC_LINE = re.compile(r"(.*?): (error|warning|remark): ")
_CARET = re.compile(r"[ \t]*\^[ \t~]*")
_POSITION = re.compile(r"(.+):(\d+):(\d+)")
TOOL_NAMES = ("pto-opt", "pto-run", "pto-roundtrip", "pto-api")
ROUNDTRIP_DIR = "/pto-roundtrip-"
"""Where the round-trip tool writes what it reads back (roundtrip.py): a
diagnostic there is at a line and column of a file the run made."""


def unlocated(stderr: str, path: str, data: bytes = b"") -> str | None:
    """The first diagnostic line of a run on the input at `path` that is
    not at a line and column of that file (`<unknown>: error: ...`,
    `-:3:4: remark: ...`, `"name": error: ...`), or None. A tool's own
    messages (`pto-opt: error: ...`, about its command line) are not about
    a position, a file position the input itself wrote
    (`loc("kernel.py":12:5)`) is where MLIR reports the op, and the round
    trip's own files are read back by it."""
    lines = stderr.split("\n")
    for i, line in enumerate(lines):
        m = _DIAGNOSTIC_LINE.match(line)
        if m is None or (i + 1 < len(lines) and _CARET.fullmatch(lines[i + 1])):
            continue  # not a diagnostic, or the source line a diagnostic shows (a caret under it)
        where = m.group(1)
        if where in TOOL_NAMES:
            continue
        position = _POSITION.fullmatch(where)
        if position is not None:
            file = position.group(1)
            if file.startswith(path) or f'"{file}":'.encode("utf-8", "surrogateescape") in data or ROUNDTRIP_DIR in file:
                continue
        return line
    return None


def judge(exit_code: int | None, stderr: str, path: str | None = None, data: bytes = b"") -> tuple[str, str]:
    """The verdict on one run (of the input `data` saved at `path`, when
    given: then every diagnostic must be at a position in it), and the
    stderr lines that explain it."""
    lines = stderr.splitlines()
    if "Traceback (most recent call last)" in stderr:
        start = next(i for i, line in enumerate(lines) if "Traceback (most recent call last)" in line)  # (maybe after output with no newline)
        return TRACEBACK, "\n".join(lines[start:][-12:])
    roundtrip = [i for i, line in enumerate(lines) if line.startswith(ROUNDTRIP_MARK)]
    if roundtrip:  # the mark, and the errors of the run that broke it (before it)
        at = roundtrip[0]
        return ROUNDTRIP, "\n".join(lines[at : at + 8] + lines[max(0, at - 6) : at])
    internal = [line for line in lines if "internal error" in line]
    if internal:
        return INTERNAL, internal[0]
    if exit_code not in (0, 1):
        return BAD_EXIT, f"exit code {exit_code}\n" + "\n".join(lines[-5:])
    if exit_code == 1 and not any("error:" in line for line in lines):
        return NO_DIAGNOSTIC, "\n".join(lines[-5:])
    if path is not None:
        line = unlocated(stderr, path, data)
        if line is not None:
            return UNLOCATED, line
    return OK, ""


TOOLS = {
    "pto-opt": "pto_dialect.tools.pto_opt",
    "pto-run": "pto_dialect.tools.pto_run",
    "pto-roundtrip": "pto_dialect.testing.roundtrip",
    "pto-api": "pto_dialect.testing.roundtrip:api_main",
}
"""Tool name -> `module` (its `main`) or `module:function`, called with argv."""


def tool_entry(spec: str):
    import importlib

    module, _, function = spec.partition(":")
    return getattr(importlib.import_module(module), function or "main")


class _Alarm(BaseException):  # not Exception: the tools catch those
    pass


def run_in_process(inp: FuzzInput, path: str, timeout: float, module: str | None = None) -> FuzzResult:
    """Run one input by calling the tool's main() (from `module`, by default
    the tool's) here, capturing fds 1 and 2."""
    import signal

    main = tool_entry(module or TOOLS[inp.tool])
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
    status, detail = judge(code, output, path, inp.data)
    return FuzzResult(inp.name, inp.tool, inp.args, status, code, seconds, detail)


def command_line(inp: FuzzInput, path: str) -> str:
    """A shell command that runs `inp` (saved at `path`) as the fuzzer did."""
    import shlex

    module, _, function = TOOLS[inp.tool].partition(":")
    if inp.tool in ("pto-opt", "pto-run"):
        head = inp.tool
    elif function:
        head = f"python -c 'import sys; from {module} import {function}; sys.exit({function}(sys.argv[1:]))'"
    else:
        head = f"python -m {module}"
    return " ".join([head, shlex.quote(path), *map(shlex.quote, inp.args)])


def run_subprocess(inp: FuzzInput, path: str, timeout: float, executable_dir: str | None = None) -> FuzzResult:
    """Run one input through the installed executable."""
    with open(path, "wb") as f:
        f.write(inp.data)
    exe = os.path.join(executable_dir or os.path.dirname(sys.executable), inp.tool)
    module, _, function = TOOLS[inp.tool].partition(":")
    if os.path.exists(exe):
        cmd = [exe]
    elif function:
        cmd = [sys.executable, "-c", f"import sys; from {module} import {function}; sys.exit({function}(sys.argv[1:]))"]
    else:
        cmd = [sys.executable, "-m", module]
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
    status, detail = judge(code, stderr, path, inp.data)
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
    path = tempfile.mktemp(suffix=".pto", prefix="pto-fuzz-")
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
