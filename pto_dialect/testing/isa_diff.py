"""The op differential: single-op cases run by pto-run's interpreter and by
pto-isa's CPU simulator (through ptoas's C++ for the op), compared bit for
bit (docs/semantics.md).

A `Case` is one function: its arguments are the op's tiles and scalars,
with every element of every tile given (inside and outside the valid
region), and its body is the op. Both sides start from the same elements;
what the op wrote is compared over each written tile's valid region (the
region the ISA defines). NaN compares equal to NaN whatever its payload
(the ISA does not define payloads; the simulator's are the host CPU's).

Before either side runs a case, both verifiers judge it: ours (parsing the
case) and ptoas's (`pto-parse`). A case only one of them accepts is a
verifier difference (reported, never run); a case both refuse is dropped.
"""

from __future__ import annotations

import struct
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np
from mlir import ir

from ..dialect.targets import ptoas_arch_name
from . import isa_sim, oracles
from .isa_choices import explain, simulator_gap

NOT_YET = "is not executed by pto-run yet"
"""How pto-run says it does not execute an op's variant (a gap, unlike its
refusals of what the target does not implement)."""

KERNEL_KIND = {"vector": "#pto.kernel_kind<vector>", "cube": "#pto.kernel_kind<cube>"}


@dataclass(frozen=True)
class TileArg:
    name: str  # "%dst", as the body names it
    type: str  # its ptoas spelling
    dtype: str
    shape: tuple[int, int]
    valid: tuple[int, int]
    data: np.ndarray  # every element, (rows, cols), storage dtype (logical positions)
    written: bool = False  # the op writes it: compared afterwards
    style: str = "mixed"  # how its elements are drawn (isa_cases.values; "indices:N" for gather indices)


@dataclass(frozen=True)
class ScalarArg:
    name: str
    type: str  # "f32", "i32", ...
    value: int | float


@dataclass
class Case:
    op: str  # "tadd"
    label: str  # what varies, for reports: "f32 16x16 valid 3x5 ..."
    arch: str  # "a2a3" | "a5"
    args: list
    body: str  # the op in ptoas syntax over the argument names
    kind: str = "vector"
    reference_body: str = ""  # what the simulator runs instead, where the NPU does the op as that (docs/semantics.md)

    def function(self, name: str, reference: bool = False) -> str:
        params = ", ".join(f"{a.name}: {a.type}" for a in self.args)
        body = self.reference_body if reference and self.reference_body else self.body
        return f"  func.func @{name}({params}) attributes {{pto.kernel_kind = {KERNEL_KIND[self.kind]}}} {{\n    {body}\n    return\n  }}\n"


def module_text(cases: list[Case], arch: str, names: list[str], reference: bool = False) -> str:
    body = "".join(c.function(n, reference) for c, n in zip(cases, names))
    # the name ptoas's driver gives the target (a3 for a2a3), so that both verifiers judge the same module
    return f'module attributes {{pto.target_arch = "{ptoas_arch_name(arch)}"}} {{\n{body}}}\n'


# -- verdicts -----------------------------------------------------------------------------------


def ours_accepts(cases: list[Case]) -> list[str | None]:
    """Our verifier on each case: None when it accepts, else the first
    error. Many cases are parsed as one module; a module that fails is
    split until each failing case is found."""
    from ..api import ParseError, parse

    def parses(batch: list[Case]) -> str | None:
        with ir.Context() as ctx:
            ctx.attach_diagnostic_handler(lambda _d: True)
            try:
                parse(module_text(batch, batch[0].arch, [f"c{k}" for k in range(len(batch))]), name=f"{batch[0].op} case")
            except ParseError as e:
                return str(e).split("\n")[0]
        return None

    def judge(batch: list[Case]) -> list[str | None]:
        error = parses(batch)
        if error is None:
            return [None] * len(batch)
        if len(batch) == 1:
            return [error]
        mid = len(batch) // 2
        return judge(batch[:mid]) + judge(batch[mid:])

    out: list[str | None] = [None] * len(cases)
    by_arch: dict[str, list[int]] = defaultdict(list)
    for k, case in enumerate(cases):
        by_arch[case.arch].append(k)
    for indices in by_arch.values():
        for start in range(0, len(indices), 64):
            part = indices[start : start + 64]
            for k, verdict in zip(part, judge([cases[k] for k in part])):
                out[k] = verdict
    return out


def ptoas_accepts(tool: oracles.Tool, cases: list[Case]) -> list[str | None]:
    verdicts = oracles.parse_many(tool, [module_text([c], c.arch, ["c"]) for c in cases])
    return [None if v.accepted else v.first_error for v in verdicts]


# -- the interpreter's side -----------------------------------------------------------------------


@dataclass
class Outcome:
    """What one side did with a case: each written tile's elements, or why
    it did not run it."""

    tiles: dict[str, np.ndarray] = field(default_factory=dict)
    refused: str = ""
    by_ptoas: bool = False  # refused by ptoas's pipeline (a verifier matter), not by pto-isa


def run_interpreter(cases: list[Case], arch: str) -> list[Outcome]:
    from ..api import parse
    from ..dialect.types import tile_type
    from ..interpreter import Interpreter, InterpreterError

    names = [f"c{k}" for k in range(len(cases))]
    outcomes = []
    with ir.Context() as ctx:
        ctx.attach_diagnostic_handler(lambda _d: True)
        module = parse(module_text(cases, arch, names), name="op differential")
        interp = Interpreter(module.operation, arch=arch)
        for k, (case, name) in enumerate(zip(cases, names)):
            func = interp.function(name)
            types = [a.type for a in func.regions[0].blocks[0].arguments]
            args, refs = [], {}
            for j, (arg, t) in enumerate(zip(case.args, types)):
                if isinstance(arg, TileArg):
                    ref = interp.memory.tile(("case", k, j), tile_type(t), None, arg.valid)
                    ref.store(arg.data)
                    args.append(ref)
                    refs[arg.name] = ref
                else:
                    args.append(arg.value)
            try:
                with np.errstate(all="ignore"), interp.deep_enough():
                    interp.call(name, args, func.location)
            except InterpreterError as e:
                outcomes.append(Outcome(refused=e.message))
                continue
            outcomes.append(Outcome({a.name: refs[a.name].elements().copy() for a in case.args if isinstance(a, TileArg) and a.written}))
    return outcomes


# -- the simulator's side -------------------------------------------------------------------------

_SCALAR_FORMATS = {"f16": "<e", "f32": "<f", "f64": "<d", "i8": "<b", "i16": "<h", "i32": "<i", "i64": "<q", "index": "<q"}


def encode_calls(cases: list[Case], functions: list[int]) -> list[bytes]:
    """Each case's call of the program's function `functions[k]`."""
    calls = []
    for k, case in zip(functions, cases):
        parts = [struct.pack("<I", k)]
        # first each argument's valid shape or value, then every tile's elements
        for arg in case.args:
            if isinstance(arg, TileArg):
                parts.append(struct.pack("<II", *arg.valid))
            else:
                parts.append(struct.pack(_SCALAR_FORMATS[arg.type], arg.value))
        for arg in case.args:
            if isinstance(arg, TileArg):
                parts.append(np.ascontiguousarray(arg.data).tobytes())
        calls.append(b"".join(parts))
    return calls


def run_calls(program, cases: list[Case], functions: list[int]) -> list[Outcome]:
    """Run cases on a program; when it fails, the halves on their own, down
    to the case that fails (the simulator crashing on it is its outcome)."""
    calls = encode_calls(cases, functions)

    def go(lo: int, hi: int) -> list[Outcome]:
        try:
            return decode(cases[lo:hi], isa_sim.run_program(program, b"".join(calls[lo:hi])))
        except isa_sim.SimError as e:
            if hi - lo == 1:
                return [Outcome(refused=f"the simulator fails on it: {str(e).splitlines()[0]}")]
            mid = (lo + hi) // 2
            return go(lo, mid) + go(mid, hi)

    return go(0, len(cases)) if cases else []


def decode(cases: list[Case], data: bytes) -> list[Outcome]:
    outcomes, at = [], 0
    for case in cases:
        tiles = {}
        for arg in case.args:
            if isinstance(arg, TileArg):
                n = arg.data.size * arg.data.itemsize
                array = np.frombuffer(data[at : at + n], dtype=arg.data.dtype).reshape(arg.shape)
                at += n
                if arg.written:
                    tiles[arg.name] = array
        outcomes.append(Outcome(tiles))
    if at != len(data):
        raise isa_sim.SimError(f"the simulator wrote {len(data)} bytes, {at} expected")
    return outcomes


def run_simulator(tool: oracles.Tool, toolchain: oracles.IsaToolchain, cases: list[Case], arch: str) -> list[Outcome]:
    """The simulator's outcome of each case. Cases whose function is the
    same text (the same op on the same tile types: the elements, runtime
    valid shapes and scalars are data) share one compiled function."""
    shared: dict[str, str] = {}  # function text -> its name
    name_of: list[str] = []
    for case in cases:
        text = case.function("@", reference=True)
        name = shared.setdefault(text, f"c{len(shared)}")
        name_of.append(name)
    modules = {name: module_text([cases[name_of.index(name)]], arch, [name], reference=True) for name in shared.values()}
    translation = isa_sim.translate(tool, modules, oracles.ptoas_arch(f'pto.target_arch = "{arch}"'))
    program, refused = isa_sim.build(toolchain, translation, arch)
    index = {name: k for k, name in enumerate(program.functions)}
    kept = [(c, index[n]) for c, n in zip(cases, name_of) if n in index]
    decoded = iter(run_calls(program, [c for c, _ in kept], [k for _, k in kept]))
    out = []
    for n in name_of:
        if n in translation.refused:
            out.append(Outcome(refused=f"ptoas's pipeline refuses it: {translation.refused[n]}", by_ptoas=True))
        elif n in refused:
            out.append(Outcome(refused=f"pto-isa does not compile it: {refused[n]}"))
        else:
            out.append(next(decoded))
    return out


# -- comparing ------------------------------------------------------------------------------------


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.dtype(f"u{a.itemsize}")) if a.dtype.kind != "b" else a.astype(np.uint8)


@dataclass(frozen=True)
class Difference:
    """One element where the two sides differ."""

    arg: TileArg
    row: int
    col: int
    ours: object
    theirs: object


def differences(case: Case, ours: Outcome, theirs: Outcome) -> list[Difference]:
    """Every element of a written tile's valid region that differs."""
    out = []
    for arg in case.args:
        if not isinstance(arg, TileArg) or not arg.written:
            continue
        vr, vc = arg.valid
        a, b = ours.tiles[arg.name][:vr, :vc], theirs.tiles[arg.name][:vr, :vc]
        same = _bits(a) == _bits(b)
        if arg.data.dtype.kind == "f":
            same |= np.isnan(a) & np.isnan(b)
        for r, c in np.argwhere(~same):
            out.append(Difference(arg, int(r), int(c), a[r, c], b[r, c]))
    return out


def describe(case: Case, d: Difference) -> str:
    return f"{d.arg.name}[{d.row}, {d.col}]: pto-run {d.ours!r}, pto-isa {d.theirs!r}{_inputs_at(case, d.row, d.col)}"


def _inputs_at(case: Case, r: int, c: int) -> str:
    values = []
    for arg in case.args:
        if isinstance(arg, TileArg) and not arg.written and r < arg.shape[0] and c < arg.shape[1]:
            values.append(f"{arg.name}={arg.data[r, c]!r}")
        elif isinstance(arg, ScalarArg):
            values.append(f"{arg.name}={arg.value!r}")
    return f" (inputs there: {', '.join(values)})" if values else ""


def first_mismatch(case: Case, ours: Outcome, theirs: Outcome) -> str:
    """ "" when the written tiles agree over their valid regions, else where
    and how they first differ."""
    if ours.refused:
        return f"pto-run refuses it: {ours.refused}"
    found = differences(case, ours, theirs)
    return describe(case, found[0]) if found else ""


@dataclass
class Report:
    """The differential's results, per op."""

    run: Counter = field(default_factory=Counter)
    agreed: Counter = field(default_factory=Counter)  # bit for bit, or differing only where a choice explains it
    explained: dict = field(default_factory=lambda: defaultdict(Counter))  # op -> choice -> cases
    mismatches: list[tuple[Case, str]] = field(default_factory=list)
    only_ours: list[tuple[Case, str]] = field(default_factory=list)  # ptoas refuses, we accept
    only_ptoas: list[tuple[Case, str]] = field(default_factory=list)  # we refuse, ptoas accepts
    both_refuse: Counter = field(default_factory=Counter)
    strict: Counter = field(default_factory=Counter)  # pto-run refuses what the target's NPU code does not implement
    not_simulated: Counter = field(default_factory=Counter)  # the NPU implements it, the simulator does not (isa_choices.SIMULATOR_GAPS)
    isa_refuses: list[tuple[Case, str]] = field(default_factory=list)  # pto-isa does not compile it, pto-run refuses it too
    isa_only_refuses: list[tuple[Case, str]] = field(default_factory=list)  # pto-isa does not compile it, pto-run runs it
    outcomes: list[str] = field(default_factory=list)  # per case given, in order: one of OUTCOMES

    def table(self) -> str:
        rows = ["| op | cases run | agreed | refused by pto-run (the target lacks it) | where the NPU code decides (cases) |", "|---|---:|---:|---:|---|"]
        for op in sorted(set(self.run) | set(self.strict)):
            choices = ", ".join(f"{name} ({n})" for name, n in sorted(self.explained.get(op, {}).items()))
            rows.append(f"| `pto.{op}` | {self.run[op] - self.strict[op]} | {self.agreed[op]} | {self.strict[op]} | {choices} |")
        return "\n".join(rows)


def _judged_once(judge, cases: list[Case]) -> list:
    """A verifier's verdict on each case, judging each text once (cases
    that differ only in their elements share it)."""
    unique: dict[tuple, int] = {}
    firsts: list[Case] = []
    for case in cases:
        key = (case.arch, case.function("c"))
        if key not in unique:
            unique[key] = len(firsts)
            firsts.append(case)
    verdicts = judge(firsts)
    return [verdicts[unique[(c.arch, c.function("c"))]] for c in cases]


OUTCOMES = ("agreed", "mismatch", "strict", "only ours", "only ptoas", "both refuse", "not simulated", "isa refuses", "isa only refuses")
"""What became of a case: run and agreed (bit for bit or as a choice
explains), run and differing, refused by pto-run as the target lacks it,
refused by one verifier, by both, not compiled by the simulator though the
NPU has it, not compiled by pto-isa and refused by pto-run, not compiled by
pto-isa but run by pto-run."""


def differential(cases: list[Case], tool_parse: oracles.Tool, tool_opt: oracles.Tool, toolchain: oracles.IsaToolchain) -> Report:
    report = Report(outcomes=[""] * len(cases))
    ours = _judged_once(ours_accepts, cases)
    theirs = _judged_once(lambda batch: ptoas_accepts(tool_parse, batch), cases)
    runnable: dict[str, list[int]] = defaultdict(list)
    for k, (case, o, t) in enumerate(zip(cases, ours, theirs)):
        if o is None and t is None:
            runnable[case.arch].append(k)
        elif o is None:
            report.only_ours.append((case, t))
            report.outcomes[k] = "only ours"
        elif t is None:
            report.only_ptoas.append((case, o))
            report.outcomes[k] = "only ptoas"
        else:
            report.both_refuse[case.op] += 1
            report.outcomes[k] = "both refuse"
    for arch, indices in runnable.items():
        batch = [cases[k] for k in indices]
        mine = run_interpreter(batch, arch)
        sim = run_simulator(tool_opt, toolchain, batch, arch)
        for k, case, a, b in zip(indices, batch, mine, sim):
            report.outcomes[k] = _judge(report, case, a, b)
    return report


def _judge(report: Report, case: Case, a: Outcome, b: Outcome) -> str:
    """Record one run case (pto-run's outcome a, the simulator's b) in the
    report; returns its outcome."""
    if b.by_ptoas:
        report.only_ours.append((case, b.refused))
        return "only ours"
    if b.refused and not a.refused and simulator_gap(case) is not None:
        report.not_simulated[case.op] += 1
        return "not simulated"
    if b.refused:
        # what pto-isa refuses, pto-run must refuse too
        if a.refused:
            report.isa_refuses.append((case, b.refused))
            return "isa refuses"
        report.isa_only_refuses.append((case, b.refused))
        return "isa only refuses"
    report.run[case.op] += 1
    if a.refused:
        if NOT_YET in a.refused:
            report.mismatches.append((case, f"pto-run refuses it: {a.refused}"))
            return "mismatch"
        report.strict[case.op] += 1  # a deliberate refusal, citing pto-isa (docs/semantics.md)
        return "strict"
    unexplained, choices = explain(case, differences(case, a, b))
    if unexplained:
        report.mismatches.append((case, describe(case, unexplained[0])))
        return "mismatch"
    report.agreed[case.op] += 1
    for choice in choices:
        report.explained[case.op][choice] += 1
    return "agreed"
