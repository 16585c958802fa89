"""pto-opt: mlir-opt for the pto dialect (docs/tools.md).

    pto-opt [FILE|-] [-o OUT] [--PASS[=OPTIONS]]... [--pass-pipeline='builtin.module(p1{opt=v},p2)']

A thin driver: it reads the input, runs one pipeline of pto and upstream
passes (pto_dialect.driver.pass_pipeline) in a fresh Context per input chunk (the
session, pto_dialect.driver.session), prints the result, and reports every problem
as `file:line:col: error: message` with exit code 1, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field

from .. import LLVM_VERSION, __version__
from ..syntax.pass_pipeline import OptionError, PipelineElement, PipelineError, parse_bool, parse_flag
from . import output
from .common import ToolError

OVERVIEW = f"pto dialect optimizer driver (MLIR {LLVM_VERSION} Python bindings)"
DEFAULT_SPLIT_MARKER = "// -----"


# --- the command line -------------------------------------------------------------


class _Formatter(argparse.HelpFormatter):
    """LLVM's look: `USAGE:`, and values written `--flag=<value>`."""

    def add_usage(self, usage, actions, groups, prefix=None):
        super().add_usage(usage, actions, groups, "USAGE: " if prefix is None else prefix)

    def _format_action_invocation(self, action):
        if not action.option_strings:
            return super()._format_action_invocation(action)
        names = ", ".join(action.option_strings)
        shown = getattr(action, "shown_value", None)
        if shown is None and action.nargs != 0:
            shown = f"={action.metavar}" if action.option_strings[-1].startswith("--") else f" {action.metavar}"
        return names + (shown or "")


class _Parser(argparse.ArgumentParser):
    """argparse with the conventions of LLVM command lines: a flag's
    optional value comes only after `=` (`--split-input-file in.mlir` reads
    in.mlir), errors are ToolErrors, and any `--NAME...` that is not a flag
    of the tool is a pass flag (a pto pass, else an upstream one), returned
    in command-line order."""

    def __init__(self, **kwargs) -> None:
        super().__init__(formatter_class=_Formatter, allow_abbrev=False, add_help=False, **kwargs)
        self.tool_flags: set[str] = set()
        self.optional_value_flags: set[str] = set()

    def add_argument(self, *names, pass_flag: bool = False, group=None, shown: str | None = None, **kwargs):
        """argparse's, plus: `pass_flag` (routed to the pipeline, listed in
        --help), `group` (the help section), `shown` (how --help writes the
        value, e.g. `[=<bool>]`)."""
        action = group.add_argument(*names, **kwargs) if group is not None else super().add_argument(*names, **kwargs)
        action.shown_value = shown
        if not pass_flag:
            self.tool_flags.update(names)
        if kwargs.get("nargs") == "?" and kwargs.get("action") is not _RequiredValue:
            self.optional_value_flags.update(n for n in names if n.startswith("--"))
        return action

    def error(self, message: str):
        raise ToolError(message)

    def split(self, argv: list[str]) -> tuple[list[str], list[str]]:
        """(the tool's arguments, the pass flags), each in order."""
        tool_args, pass_flags = [], []
        for token in argv:
            name = token.split("=", 1)[0]
            if token.startswith("--") and token != "--" and name.split("{", 1)[0] not in self.tool_flags:
                pass_flags.append(token)
            elif name == token and token in self.optional_value_flags:
                tool_args.append(token + "=")  # no value: an empty one, not the next argument
            else:
                tool_args.append(token)
        return tool_args, pass_flags


class _Bool(argparse.Action):
    """`--flag`, `--flag=true|false`: a boolean that may be given a value."""

    def __call__(self, parser, namespace, values, option_string=None):
        value = True
        if values:
            try:
                value = parse_bool(values)
            except OptionError as e:
                raise ToolError(f"invalid value for {option_string}: {e}") from None
        setattr(namespace, self.dest, value)


class _RequiredValue(argparse.Action):
    """A value flag that says, as LLVM tools do, that it needs a value."""

    def __call__(self, parser, namespace, values, option_string=None):
        if values is None:
            raise ToolError(f"option '{option_string}' requires a value")
        setattr(namespace, self.dest, values)


class _Choice(argparse.Action):
    """`--flag[=one-of-choices]`, told apart from argparse's own `choices`
    (which would also check the bare flag's empty value)."""

    def __init__(self, *args, choices_allowed: tuple[str, ...] = (), **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.choices_allowed = choices_allowed

    def __call__(self, parser, namespace, values, option_string=None):
        value = values or self.const
        if value not in self.choices_allowed:
            allowed = " or ".join(self.choices_allowed)
            raise ToolError(f"invalid value for {option_string}: '{value}' (expected {allowed})")
        setattr(namespace, self.dest, value)


def build_parser() -> _Parser:
    """Every flag of pto-opt, declared once; `--help` is generated from it."""
    from ..passes import get_all_passes  # names only: no pass module (and no MLIR) is imported

    p = _Parser(prog="pto-opt", usage="pto-opt [options] [FILE|-]", description=f"OVERVIEW: {OVERVIEW}")
    value = {"nargs": "?", "action": _RequiredValue}
    p.add_argument("inputs", nargs="*", metavar="FILE|-", help="the input (default: standard input)")
    p.add_argument("-o", dest="output", metavar="<file>", help="output file (default: standard output)", **value)
    p.add_argument("--pass-pipeline", metavar="<pipeline>", help="a textual pipeline, e.g. 'builtin.module(p1{a=1},cse)'", **value)
    p.add_argument(
        "--split-input-file",
        nargs="?",
        const=DEFAULT_SPLIT_MARKER,
        metavar="<marker>",
        shown="[=<marker>]",
        help="process each chunk between '// -----' lines on its own",
    )
    for name, help_text in (
        ("--verify-diagnostics", "check diagnostics against expected-* comments"),
        ("--list-passes", "list the pto passes and their options (--verbose: full docs)"),
        ("--show-dialects", "list the dialects available"),
        ("--mlir-print-ir-after-all", "print the IR after every pass (to stderr)"),
        ("--mlir-print-ir-before-all", "print the IR before every pass (to stderr)"),
        ("--mlir-timing", "print pass timing (to stderr)"),
        ("--mlir-print-debuginfo", "print locations"),
        ("--mlir-print-op-generic", "print the generic op form"),
        ("--allow-unregistered-dialect", "accept ops of unknown dialects"),
        ("--verbose", "more detail (pass docs, decision remarks)"),
    ):
        p.add_argument(name, nargs="?", action=_Bool, default=False, shown="", help=help_text)
    p.add_argument(
        "--use-ptoas-multi-buffer",
        nargs="?",
        action=_Bool,
        default=None,
        shown="[=<bool>]",
        help="switch of pto-pipeline (else $PTO_PTOAS_MULTI_BUFFER, else off)",
    )
    p.add_argument("--verify-each", nargs="?", action=_Bool, default=True, shown="[=<bool>]", help="verify after every pass (default: true)")
    p.add_argument("--pto-report", metavar="<file>", help="write the passes' decisions as JSON", **value)
    p.add_argument(
        "--pto-memory-report",
        nargs="?",
        action=_Choice,
        const="text",
        choices_allowed=("text", "json"),
        shown="[=text|json]",
        help="print where pto-allocate-memory-addr put each buffer (to stderr)",
    )
    p.add_argument("-h", "--help", action="store_true", help="print this help")
    p.add_argument("--version", action="store_true", help="print the version")
    passes = p.add_argument_group("passes", "Any pto or upstream pass, in command-line order; `--list-passes` describes the pto passes.")
    for name in sorted(get_all_passes()):
        p.add_argument(f"--{name}", group=passes, pass_flag=True, nargs="?", shown="[=<options>], {<options>}", help="a pto pass")
    p.add_argument("--<upstream-pass>", group=passes, pass_flag=True, nargs="?", shown="[=<options>]", help="an upstream pass (canonicalize, cse, ...)")
    return p


@dataclass
class Options:
    input: str = "-"
    output: str | None = None
    passes: list[tuple[PipelineElement, str]] = field(default_factory=list)  # (element, as written)
    pass_pipeline: str | None = None
    split_marker: str | None = None
    verify_diagnostics: bool = False
    list_passes: bool = False
    show_dialects: bool = False
    print_ir_after_all: bool = False
    print_ir_before_all: bool = False
    timing: bool = False
    debuginfo: bool = False
    generic: bool = False
    allow_unregistered: bool = False
    verbose: bool = False
    use_ptoas_multi_buffer: bool | None = None
    verify_each: bool = True
    report_file: str | None = None
    memory_report: str | None = None  # "text" or "json"
    help: bool = False
    version: bool = False


def _suggestion(written: str, parser=None) -> str:
    """"; did you mean ..." for a mistyped flag: the closest pto-opt flag, else
    the closest pto pass (written as a flag)."""
    from ..passes import get_all_passes  # names only
    from ..support.suggestions import did_you_mean

    parser = parser or build_parser()
    word = written.split("=", 1)[0]
    flags = [o for a in parser._actions for o in a.option_strings if o.startswith("--")]
    return did_you_mean(word, flags) or did_you_mean(word.lstrip("-"), get_all_passes())


def parse_args(argv: list[str]) -> Options:
    parser = build_parser()
    tool_args, pass_flags = parser.split(argv)
    ns, unknown = parser.parse_known_args(tool_args)
    if unknown:
        raise ToolError(f"unknown command line argument '{unknown[0]}'{_suggestion(unknown[0], parser)}")
    if len(ns.inputs) > 1:
        raise ToolError(f"too many positional arguments: {' '.join(ns.inputs)} (one input file or '-')")
    opts = Options(
        input=ns.inputs[0] if ns.inputs else "-",
        output=ns.output,
        pass_pipeline=ns.pass_pipeline,
        split_marker=(ns.split_input_file or DEFAULT_SPLIT_MARKER) if ns.split_input_file is not None else None,
        verify_diagnostics=ns.verify_diagnostics,
        list_passes=ns.list_passes,
        show_dialects=ns.show_dialects,
        print_ir_after_all=ns.mlir_print_ir_after_all,
        print_ir_before_all=ns.mlir_print_ir_before_all,
        timing=ns.mlir_timing,
        debuginfo=ns.mlir_print_debuginfo,
        generic=ns.mlir_print_op_generic,
        allow_unregistered=ns.allow_unregistered_dialect,
        verbose=ns.verbose,
        use_ptoas_multi_buffer=ns.use_ptoas_multi_buffer,
        verify_each=ns.verify_each,
        report_file=ns.pto_report,
        memory_report=ns.pto_memory_report,
        help=ns.help,
        version=ns.version,
    )
    for token in pass_flags:
        try:
            opts.passes.append((parse_flag(token[2:], f"'{token}'"), token))
        except PipelineError as e:
            raise ToolError(str(e)) from None
    if opts.pass_pipeline is not None and opts.passes:
        raise ToolError("'--pass-pipeline' cannot be used with individual pass flags")
    return opts


# --- listing -------------------------------------------------------------------


def list_passes(verbose: bool) -> str:
    from .pass_docs import render_pass_list

    return render_pass_list(verbose)


_UPSTREAM_DIALECTS = (
    "acc affine amdgpu amx arith arm_neon arm_sme arm_sve async bufferization builtin cf complex "
    "dlti emitc func gpu index irdl linalg llvm math memref mesh ml_program mpi nvgpu nvvm omp pdl "
    "pdl_interp ptr quant rocdl scf shape shard smt sparse_tensor spirv tensor tosa transform ub "
    "vector x86vector xegpu xevm"
).split()


def show_dialects() -> str:
    from mlir import ir

    from ..dialect.load import load_dialect

    names = []
    with ir.Context() as context:
        load_dialect(context)
        for name in _UPSTREAM_DIALECTS:
            try:
                context.dialects[name]
                names.append(name)
            except (IndexError, KeyError, AttributeError, ValueError):
                pass
    names.append("pto")
    return "Available Dialects: " + ", ".join(sorted(names))


# --- processing ----------------------------------------------------------------


def _pipeline_items(opts: Options, context):
    """The pipeline as pto pass objects and upstream texts, validated (in
    `context`, which nothing else has used yet)."""
    from ..driver.pass_pipeline import is_pass_name, resolve
    with context:
        if opts.pass_pipeline is not None:
            return resolve(opts.pass_pipeline)
        items = []
        for element, written in opts.passes:
            if not is_pass_name(element.name):
                raise ToolError(
                    f"unknown command line argument '{written}' (not a pto-opt flag, a pto pass or an upstream pass)"
                    + _suggestion(written)
                )
            try:
                items.extend(resolve([element]))
            except PipelineError as e:
                raise ToolError(f"{written}: {e}") from None
        return items


class Driver:
    """One pto-opt run over every chunk of its input."""

    def __init__(self, opts: Options) -> None:
        self.opts = opts
        self.ok = True
        self.outputs: list[bytes] = []
        self.reports = []

    def run(self) -> int:
        from ..dialect.load import new_context
        from ..driver.session import read_source

        opts = self.opts
        self.source = read_source(opts.input)
        writer = output.Writer("pto-opt", inputs=[opts.input])
        writer.check_target(opts.output, "output file", may_be_input=True)
        writer.check_target(opts.report_file, "report file")
        # Checking the pipeline leaves its Context as fresh as a new one: the
        # first chunk gets it.
        context = new_context()
        self.items = _pipeline_items(opts, context)
        for i, chunk in enumerate(self.source.chunks(opts.split_marker)):
            self.process(chunk, context if i == 0 else new_context())
            context = None
        if opts.report_file:
            self.write_report()
        if opts.memory_report:
            from ..reports.memory import render

            output.stderr(render([m for r in self.reports for m in r.memory], opts.memory_report))
        if self.ok or opts.output is None:
            writer.write(opts.output, b"// -----\n".join(self.outputs), "output file")
        return 0 if self.ok else 1

    def write_report(self) -> None:
        import json

        data = [r.to_dict() for r in self.reports]
        text = json.dumps(data[0] if len(data) == 1 else data, indent=2) + "\n"
        output.write_file_atomically(self.opts.report_file, text.encode(), "report file")

    def process(self, chunk, context) -> None:
        """Parse, verify, transform and print one chunk in `context` (a
        fresh Context of its own)."""
        from mlir import ir

        from ..driver.pass_pipeline import PipelineRun, PipelineSettings, build_pass_manager, run_pass_manager
        from ..driver.session import Session

        opts = self.opts
        verifying = opts.verify_diagnostics
        run = PipelineRun(
            PipelineSettings(
                use_ptoas_multi_buffer=opts.use_ptoas_multi_buffer,
                use_ptoas_multi_buffer_source="the --use-ptoas-multi-buffer flag" if opts.use_ptoas_multi_buffer is not None else "",
                verbose=opts.verbose,
                verify_each=opts.verify_each,
                buffer_records=bool(opts.report_file or opts.memory_report),
                source_name=self.source.name,  # (positions in messages and records: the user's file)
            )
        )
        on_diagnostic = None if verifying else self.print_diag
        with Session(self.source, context=context, on_diagnostic=on_diagnostic, allow_unregistered=opts.allow_unregistered) as session:
            self.session = session
            succeeded = False
            module = session.parse(chunk)
            if module is not None:
                pm = build_pass_manager(self.items, run, session.context)
                if opts.print_ir_after_all or opts.print_ir_before_all:
                    pm.enable_ir_printing(
                        print_before_all=opts.print_ir_before_all,
                        print_after_all=opts.print_ir_after_all,
                        enable_debug_info=opts.debuginfo,
                        print_generic_op_form=opts.generic,
                    )
                if opts.timing:
                    pm.enable_timing()
                if not opts.verify_each:
                    pm.enable_verifier(False)
                output.flush_standard_streams()
                try:
                    run_pass_manager(pm, module.operation, run)
                    succeeded = True
                except ir.MLIRError as e:
                    session.add_error(e)
                del pm  # prints the timing report now, before the next chunk
            # Like mlir-opt: one entry per chunk (empty when it failed),
            # joined by the split marker.
            self.outputs.append(session.print(module, generic=opts.generic, debuginfo=opts.debuginfo) if succeeded else b"")
            if opts.timing:
                output.error_line(_phase_report(session.phase_seconds))
            if opts.report_file or opts.memory_report:  # nothing else shows the records
                session.name_locations(run.report)
            self.reports.append(run.report)
            if verifying:
                self.check_expectations(chunk, session.diagnostics)
            elif not succeeded:
                self.ok = False
            self.session = None

    def print_diag(self, d) -> None:
        output.error_line(self.session.format(d))

    def check_expectations(self, chunk, produced) -> None:
        from ..support.diagnostics import Diag
        from .verify_diagnostics import ExpectationError, check, drop_op_dump_notes, parse_expectations

        name = self.source.name
        try:
            expected = parse_expectations(self.source.lines, chunk.first_line, chunk.last_line)
        except ExpectationError as e:
            self.ok = False
            self.print_diag(Diag("error", str(e), name, e.line, e.col))
            return
        for problem in check(expected, [drop_op_dump_notes(d) for d in produced], lambda file: file == name):
            self.ok = False
            self.print_diag(Diag("error", problem.message, problem.file or (name if problem.line else None), problem.line, problem.col))


def main(argv: list[str] | None = None) -> int:
    output.guard_standard_streams()
    argv = sys.argv[1:] if argv is None else argv
    try:
        opts = parse_args(argv)
        if opts.version:
            output.stdout_text(f"pto-opt {__version__} (pto dialect; MLIR Python bindings, LLVM {LLVM_VERSION})\n")
            return 0
        if opts.help:
            output.stdout_text(build_parser().format_help())
            return 0
        from .common import import_mlir_without_numpy

        import_mlir_without_numpy()
        if opts.list_passes:
            output.stdout_text(list_passes(opts.verbose) + "\n")
            return 0
        if opts.show_dialects:
            output.stdout_text(show_dialects() + "\n")
            return 0
        return Driver(opts).run()
    except Exception as e:
        from .common import exit_code_for

        return exit_code_for("pto-opt", e)
    except KeyboardInterrupt:
        return 130


def _phase_report(seconds: dict[str, float]) -> str:
    """What `--mlir-timing` adds to MLIR's pass timing report: the time spent
    reading and writing the text, which the pass manager does not see."""
    rule = "===" + "-" * 73 + "==="
    lines = [rule, "                      ... pto-opt input and output ...", rule]
    lines.append("  ----Wall Time----  ----Name----")
    total = sum(seconds.values()) or 1.0
    for name, value in seconds.items():
        lines.append(f"  {value:9.4f} ({100 * value / total:5.1f}%)  {name}")
    lines.append(f"  {sum(seconds.values()):9.4f} (100.0%)  Total")
    return "\n".join(lines)


def console_main() -> None:
    """The `pto-opt` command (launch.py; `python -m`): `main` without the
    teardown, with the signals' default actions (interrupts.py)."""
    from ..support.interrupts import install
    from .common import run_and_exit, start_tool_process

    install()
    start_tool_process()

    run_and_exit(main)


if __name__ == "__main__":
    console_main()
