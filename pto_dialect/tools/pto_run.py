"""pto-run: execute a function of a pto kernel with numpy (docs/tools.md).

    pto-run FILE --func NAME [--arg NAME=INT]... [--seed S]
            [--pass-pipeline P] [--compare-pipeline P2] [--save OUT.npz]
            [--cycles] [--timeline OUT.png|OUT.json|OUT.trace.json]

Parses and verifies FILE (ptoas syntax or the generic form), runs pipeline
P on it (if given), executes @NAME on global-memory arguments (pointers,
tensor views, partitions) filled from the seed and prints a digest of the
results.
With --compare-pipeline it also runs P2 on a copy, executes that on the same
inputs and exits 1 at the first bit that differs. Every problem (parse
error, pass failure, runtime error) is a `file:line:col: error:` diagnostic
and exit code 1, never a traceback. --cycles and --timeline schedule the
executed ops with the pipe timing model (`pto_dialect.timing`: an estimate,
not measured hardware).

The run is organised as stages (parse, passes, execute, then reports over
the execution) so reports that need the execution trace (a timing model)
only have to ask for it and add themselves to `reports`.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field

from .. import LLVM_VERSION, __version__
from . import output
from .common import ToolError

DESCRIPTION = "Execute a function of a pto kernel with the numpy reference interpreter and print a digest of its results."


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # exit code 1 and our format, not argparse's 2
        raise ToolError(message)


def _arg_value(text: str) -> tuple[str, object]:
    name, eq, raw = text.partition("=")
    if not eq or not name:
        raise ToolError(f"--arg expects NAME=VALUE, got '{text}'")
    if raw.startswith("@"):  # the elements of a global-memory argument, from a .npy file
        import numpy as np

        try:
            array = np.load(raw[1:], allow_pickle=False)
        except (OSError, ValueError) as e:
            raise ToolError(f"--arg {name}: cannot read '{raw[1:]}' as a .npy array: {e}") from None
        return name, array
    hexadecimal = raw.lower().lstrip("+-").startswith("0x")
    shape = not hexadecimal and "x" in raw and all(part.isdigit() for part in raw.split("x"))
    digits = raw.lstrip("+-")
    # (Python's int() refuses more than 4300 digits, and is slow long before)
    if any(len(part.lstrip("0")) > 40 for part in (raw.split("x") if shape else [digits.removeprefix("0x").removeprefix("0X")])):
        raise ToolError(f"--arg {name}: '{raw[:20]}...' has more digits than any integer type holds")
    if shape:
        return name, tuple(int(part) for part in raw.split("x"))  # the shape of a dynamically shaped view
    if digits.isdigit() or (hexadecimal and len(digits) > 2):
        return name, int(raw, 16 if hexadecimal else 10)  # (decimal: `007` too)
    try:
        return name, int(raw, 0)
    except ValueError:
        pass
    try:
        return name, float(raw)
    except ValueError:
        raise ToolError(f"--arg {name}: '{raw}' is not a number") from None


def _nonnegative(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"'{text}' is negative")
    return value


def _int(text: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None


def build_parser() -> argparse.ArgumentParser:
    from ..support.run_limits import DEFAULT_MAX_ARG_BYTES, DEFAULT_MAX_OPS

    p = _Parser(prog="pto-run", description=DESCRIPTION, allow_abbrev=False, add_help=False)
    p.add_argument("-h", "--help", action="store_true", help="show this help message and exit")
    p.add_argument("input", metavar="FILE", nargs="?", help="the kernel (MLIR text), or - for stdin")
    p.add_argument("--func", metavar="NAME", help="the function to execute (default: the only one with a body)")
    p.add_argument(
        "--arg",
        metavar="NAME=INT",
        action="append",
        default=[],
        help="value of an integer/index (or float) argument, RxC: the shape of a dynamically shaped tensor view (or memref) "
        "argument, or @FILE.npy: the elements of a pointer, tensor view or memref argument (index tensors, real data); "
        "NAME as written (n or %%n) or argK",
    )
    p.add_argument("--seed", type=_int, default=0, help="seed of the global-memory argument contents (default 0)")
    p.add_argument("--pass-pipeline", metavar="P", help="run this pipeline before executing")
    p.add_argument("--compare-pipeline", metavar="P2", help="also run P2 and execute again on the same inputs; exit 1 on any difference")
    p.add_argument("--save", metavar="OUT.npz", help="save the result buffers (with --compare-pipeline: before/NAME and after/NAME)")
    p.add_argument(
        "--cycles",
        action="store_true",
        help="estimate cycles with the pipe timing model (a model, not measured hardware): per pipe busy cycles and utilisation, "
        "the lower bound and the efficiency; with --compare-pipeline for both runs",
    )
    p.add_argument(
        "--timeline",
        metavar="OUT.png|OUT.json|OUT.trace.json",
        help="write the pipe schedule: a Gantt chart per run (.png/.svg/.pdf, needs matplotlib), the ops as JSON (.json), "
        "or a Chrome trace for Perfetto and chrome://tracing (.trace.json: a process per run, a track per pipe, 1 us = 1 cycle)",
    )
    p.add_argument(
        "--max-ops", type=_nonnegative, default=DEFAULT_MAX_OPS, help=f"stop with an error after this many executed ops (default {DEFAULT_MAX_OPS})"
    )
    p.add_argument(
        "--max-arg-bytes",
        type=_nonnegative,
        default=DEFAULT_MAX_ARG_BYTES,
        help=f"largest total size of global-memory arguments (default {DEFAULT_MAX_ARG_BYTES})",
    )
    p.add_argument("--version", action="store_true", help="print the version and exit")
    return p


@dataclass
class Options:
    input: str
    func: str | None = None
    values: dict[str, int | float | tuple[int, ...]] = field(default_factory=dict)
    seed: int = 0
    pass_pipeline: str | None = None
    compare_pipeline: str | None = None
    save: str | None = None
    max_ops: int = 0
    max_arg_bytes: int = 0
    cycles: bool = False
    timeline: str | None = None

    @property
    def needs_trace(self) -> bool:
        """Whether a requested report needs the execution trace."""
        return self.cycles or self.timeline is not None


VERSION = f"pto-run {__version__} (pto dialect; MLIR Python bindings, LLVM {LLVM_VERSION})"


def parse_args(argv: list[str]) -> Options | str:
    """The options, or the text to print for --help or --version."""
    parser = build_parser()
    ns = parser.parse_args(argv)
    if ns.help:
        return parser.format_help()
    if ns.version:
        return VERSION + "\n"
    if ns.input is None:
        raise ToolError("the following arguments are required: FILE")
    values: dict[str, int | float | tuple[int, ...]] = {}
    for text in ns.arg:
        name, value = _arg_value(text)
        values[name] = value
    return Options(
        input=ns.input,
        func=ns.func,
        values=values,
        seed=ns.seed,
        pass_pipeline=ns.pass_pipeline,
        compare_pipeline=ns.compare_pipeline,
        save=ns.save,
        max_ops=ns.max_ops,
        max_arg_bytes=ns.max_arg_bytes,
        cycles=ns.cycles,
        timeline=ns.timeline,
    )


class Runner:
    """One pto-run invocation: parse, transform, execute, report."""

    def __init__(self, opts: Options) -> None:
        self.opts = opts
        self.session = None
        self.schedules: list = []  # timing.TimelineRun per execution, when timing was asked for

    # -- diagnostics ----------------------------------------------------------------

    def print_diag(self, d) -> None:
        output.error_line(self.session.format(d))

    def error(self, location, message: str) -> None:
        from ..support import diagnostics

        if location is None:
            output.error_line(f"pto-run: error: {message}")
        else:
            diagnostics.emit_error(location, message)

    # -- stages -----------------------------------------------------------------------

    def run(self) -> int:
        from ..driver.session import Session, read_source

        opts = self.opts
        if opts.timeline is not None:
            from ..timing import TimelineError, check_timeline_path

            try:  # before any work: a missing matplotlib should not cost a run
                check_timeline_path(opts.timeline)
            except TimelineError as e:
                raise ToolError(str(e)) from None
        self.writer = output.Writer("pto-run", inputs=[opts.input])
        self.writer.check_target(opts.save, "saved results")
        self.writer.check_target(opts.timeline, "timeline")
        source = read_source(opts.input)
        with Session(source, on_diagnostic=self.print_diag) as session:
            self.session = session
            module = session.parse()
            if module is None:
                return 1
            if opts.pass_pipeline and not self.apply(module, opts.pass_pipeline):
                return 1
            function = self.choose_function(module)
            if function is None:
                return 1
            before = self.execute(module, function, "")
            if before is None:
                return 1
            self.report(before, "", function)
            after = None
            if opts.compare_pipeline is not None:
                transformed = module.operation.clone()
                if not self.apply(transformed, opts.compare_pipeline):
                    return 1
                after = self.execute(transformed, function, f"after '{opts.compare_pipeline}': ")
                if after is None:
                    return 1
                self.report(after, f"after '{opts.compare_pipeline}': ", function)
            if opts.save and not self.save(before, after):
                return 1
            if opts.cycles and after is not None:
                from ..timing import format_gain

                self.print(format_gain(self.schedules[0].schedule, self.schedules[1].schedule, opts.compare_pipeline))
            if opts.timeline and not self.write_timeline():
                return 1
            if after is not None:
                return self.check_same(module, function, before, after)
        return 0

    def print(self, text: str) -> None:
        output.stdout_text(text + "\n")

    def apply(self, module, pipeline: str) -> bool:
        """Run `pipeline` on `module` (an ir.Module or a module op)."""
        from mlir import ir

        from ..driver.pass_pipeline import PipelineRun, PipelineSettings, build_pass_manager, run_pass_manager

        run = PipelineRun(PipelineSettings(source_name=self.session.source.name))
        pm = build_pass_manager(pipeline, run, self.session.context)
        try:
            run_pass_manager(pm, getattr(module, "operation", module), run)
        except ir.MLIRError as e:
            self.session.add_error(e)
            return False
        return True

    def choose_function(self, module) -> str | None:
        if self.opts.func:
            return self.opts.func
        op = getattr(module, "operation", module)
        names = [
            f.attributes["sym_name"].value
            for f in op.regions[0].blocks[0].operations
            if f.operation.name == "func.func" and len(f.regions[0].blocks)
        ]
        if len(names) == 1:
            return names[0]
        listing = f" (functions: {', '.join('@' + n for n in names)})" if names else " (the module has no function with a body)"
        self.error(None, "--func NAME is required" + listing)
        return None

    def execute(self, module, function: str, prefix: str):
        from ..interpreter import InterpreterError, execute
        from ..support import diagnostics

        opts = self.opts
        try:
            result = execute(
                getattr(module, "operation", module),
                function,
                seed=opts.seed,
                values=opts.values,
                source_text=self.session.source.text,
                trace=opts.needs_trace,
                max_ops=opts.max_ops,
                max_arg_bytes=opts.max_arg_bytes,
            )
        except InterpreterError as e:
            self.error(e.location, prefix + e.message)
            return None
        for w in result.warnings:
            diagnostics.emit_warning(w.location, prefix + w.message)
        return result

    # -- reports ------------------------------------------------------------------------

    def report(self, execution, prefix: str, function: str) -> None:
        from ..interpreter import format_digest

        text = format_digest(execution)
        if prefix:
            text = prefix + text
        self.print(text)
        if self.opts.needs_trace:
            from ..timing import TimelineRun, cost_table, format_cycles, schedule

            label = prefix.removesuffix(": ") or ("before" if self.opts.compare_pipeline is not None else "run")
            s = schedule(execution.trace, cost_table(execution.arch))
            self.name_input_file(s.ops)
            self.schedules.append(TimelineRun(label, function, s, execution.trace))
            if self.opts.cycles:
                self.print(format_cycles(s, prefix))

    def name_input_file(self, ops) -> None:
        """Locations in the trace name the input as the parser saw it;
        name it as diagnostics do."""
        from ..driver.session import user_location

        name = self.session.source.name
        renamed: dict[str, str] = {}
        for o in ops:
            location = renamed.get(o.location)
            if location is None:
                location = renamed[o.location] = user_location(o.location, name)
            o.location = location

    def write_timeline(self) -> bool:
        from ..timing import TimelineError, timeline_bytes

        try:
            output.write_file_atomically(self.opts.timeline, timeline_bytes(self.opts.timeline, self.schedules), "")
        except (TimelineError, ToolError) as e:
            self.error(None, str(e))
            return False
        return True

    def check_same(self, module, function: str, before, after) -> int:
        from ..interpreter import compare
        from ..interpreter.execution import find_function

        mismatch = compare(before, after)
        if mismatch is None:
            self.print(f"compare: identical after '{self.opts.compare_pipeline}' ({len(before.buffers)} buffers, {len(before.scalars)} returned values)")
            return 0
        from ..support import diagnostics

        location = find_function(module.operation, function).location
        message = f"results differ after '{self.opts.compare_pipeline}': {mismatch.message()}"
        notes = []
        if before.warnings:  # then the difference may be the kernel's fault, not the pipeline's
            notes.append(
                (before.warnings[0].location, "the kernel reads tile memory it never wrote here: such bytes are undefined and a pipeline may change them")
            )
        diagnostics.emit_error(location, message, notes)
        return 1

    def save(self, before, after) -> bool:
        import numpy as np

        arrays = {}
        for prefix, execution in (("before/", before), ("after/", after)) if after is not None else (("", before),):
            for b in execution.buffers:
                arrays[prefix + b.name.lstrip("%").replace(" #", "_")] = b.values()
            for s in execution.scalars:
                if not isinstance(s.value, str):
                    arrays[prefix + s.name.replace(" #", "_")] = np.array(s.value)
        try:  # written into the file as numpy makes it: no copy of the arrays as bytes
            output.write_file_atomically(self.opts.save, lambda f: np.savez(f, **arrays), "")
        except ToolError as e:
            self.error(None, str(e))
            return False
        return True


def main(argv: list[str] | None = None) -> int:
    output.guard_standard_streams()
    argv = sys.argv[1:] if argv is None else argv
    try:
        opts = parse_args(argv)
        if isinstance(opts, str):
            output.stdout_text(opts)
            return 0
        return Runner(opts).run()
    except Exception as e:
        from .common import exit_code_for

        return exit_code_for("pto-run", e)
    except KeyboardInterrupt:
        return 130


def console_main() -> None:
    """The `pto-run` command (launch.py; `python -m`): `main` without the
    teardown, with the signals' default actions (interrupts.py)."""
    from ..support.interrupts import install
    from .common import run_and_exit, start_tool_process

    install()
    start_tool_process()
    run_and_exit(main)


if __name__ == "__main__":
    console_main()
