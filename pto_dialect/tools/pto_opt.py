"""pto-opt: mlir-opt for the pto dialect (CONTRACT 3).

    pto-opt [FILE|-] [-o OUT] [--PASS[='opt=v ...']]... [--pass-pipeline='builtin.module(p1{opt=v},p2)']

A thin driver: it reads the input, runs one pipeline of pto and upstream
passes (pto_dialect.pipeline) in a fresh Context per input chunk, prints the
result, and reports every problem as `file:line:col: error: message` with
exit code 1, never a traceback.
"""

from __future__ import annotations

import io
import sys
from dataclasses import dataclass, field

from .. import LLVM_VERSION, __version__
from .common import PARSED_FILE_NAME, DEFAULT_SPLIT_MARKER, ToolError

USAGE = """\
OVERVIEW: pto dialect optimizer driver (MLIR {llvm} Python bindings)

USAGE: pto-opt [options] [FILE|-]

OPTIONS:
  -o <file>                       Output file (default: stdout)
  --<pass>[=<options>]            Run a pass (pto or upstream), in flag order;
  --<pass>{{<options>}}             options as in `pass{{a=1 b=x,y}}`
  --pass-pipeline=<pipeline>      A textual pipeline, e.g. 'builtin.module(p1{{a=1}},cse)'
  --split-input-file[=<marker>]   Process each chunk between '// -----' lines on its own
  --verify-diagnostics            Check diagnostics against expected-* comments
  --verify-each[=<bool>]          Verify after every pass (default: true)
  --list-passes                   List the pto passes and their options (--verbose: full docs)
  --show-dialects                 List the dialects available
  --mlir-print-ir-after-all       Print the IR after every pass (to stderr)
  --mlir-print-ir-before-all      Print the IR before every pass (to stderr)
  --mlir-timing                   Print pass timing (to stderr)
  --mlir-print-debuginfo          Print locations
  --mlir-print-op-generic         Print the generic op form
  --allow-unregistered-dialect    Accept ops of unknown dialects
  --use-ptoas-multi-buffer[=<bool>]  Switch of pto-pipeline (else $PTO_PTOAS_MULTI_BUFFER, else off)
  --pto-report=<file>             Write the passes' decisions as JSON
  --pto-memory-report[=text|json] Print where pto-allocate-memory-addr put each buffer (to stderr)
  --verbose                       More detail (pass docs, decision remarks)
  --version                       Print the version
"""

_BOOL_FLAGS = {
    "verify-diagnostics",
    "list-passes",
    "show-dialects",
    "mlir-print-ir-after-all",
    "mlir-print-ir-before-all",
    "mlir-timing",
    "mlir-print-debuginfo",
    "mlir-print-op-generic",
    "allow-unregistered-dialect",
    "version",
    "help",
    "verbose",
}
_OPTIONAL_BOOL_FLAGS = {"use-ptoas-multi-buffer", "verify-each"}
_VALUE_FLAGS = {"o", "pass-pipeline", "pto-report"}


@dataclass
class Options:
    input: str = "-"
    output: str | None = None
    passes: list[tuple[str, str | None, str]] = field(default_factory=list)  # (name, options, as written)
    pass_pipeline: str | None = None
    split_marker: str | None = None
    flags: set[str] = field(default_factory=set)
    use_ptoas_multi_buffer: bool | None = None
    verify_each: bool = True
    report_file: str | None = None
    memory_report: str | None = None  # "text" or "json"

    def has(self, flag: str) -> bool:
        return flag in self.flags


def _parse_bool_value(flag: str, value: str) -> bool:
    from ..pass_infra import OptionError, parse_bool

    try:
        return parse_bool(value)
    except OptionError as e:
        raise ToolError(f"invalid value for --{flag}: {e}") from None


def parse_args(argv: list[str]) -> Options:
    opts = Options()
    positional: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "-" or not arg.startswith("-"):
            positional.append(arg)
            continue
        body = arg[2:] if arg.startswith("--") else arg[1:]
        brace = body.find("{")
        eq = body.find("=")
        if brace != -1 and (eq == -1 or brace < eq):
            if not body.endswith("}"):
                raise ToolError(f"unbalanced '{{' in '{arg}'")
            name, value = body[:brace], body[brace + 1 : -1]
        elif eq != -1:
            name, value = body[:eq], body[eq + 1 :]
        else:
            name, value = body, None
        if name in _VALUE_FLAGS:
            if value is None:
                if i >= len(argv):
                    raise ToolError(f"option '{arg}' requires a value")
                value = argv[i]
                i += 1
            if name == "o":
                opts.output = value
            elif name == "pass-pipeline":
                opts.pass_pipeline = value
            else:
                opts.report_file = value
        elif name == "pto-memory-report":
            if value not in (None, "text", "json"):
                raise ToolError(f"invalid value for --pto-memory-report: '{value}' (expected text or json)")
            opts.memory_report = value or "text"
        elif name == "split-input-file":
            opts.split_marker = value or DEFAULT_SPLIT_MARKER
        elif name in _BOOL_FLAGS:
            if value is not None and not _parse_bool_value(name, value):
                opts.flags.discard(name)
            else:
                opts.flags.add(name)
        elif name in _OPTIONAL_BOOL_FLAGS:
            flag_value = True if value is None else _parse_bool_value(name, value)
            if name == "use-ptoas-multi-buffer":
                opts.use_ptoas_multi_buffer = flag_value
            else:
                opts.verify_each = flag_value
        elif name == "h":
            opts.flags.add("help")
        elif name and (name[0].isalpha()):
            opts.passes.append((name, value, arg))
        else:
            raise ToolError(f"unknown command line argument '{arg}'")
    if len(positional) > 1:
        raise ToolError(f"too many positional arguments: {' '.join(positional)} (one input file or '-')")
    if positional:
        opts.input = positional[0]
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

    from ..dialect import load_dialect

    names = []
    with ir.Context() as ctx:
        load_dialect(ctx)
        for name in _UPSTREAM_DIALECTS:
            try:
                ctx.dialects[name]
                names.append(name)
            except (IndexError, KeyError, AttributeError, ValueError):
                pass
    names.append("pto")
    return "Available Dialects: " + ", ".join(sorted(names))


# --- processing ----------------------------------------------------------------


def _pipeline_items(opts: Options, context):
    """The pipeline as pto pass objects and upstream texts, validated (in
    `context`, which nothing else has used yet)."""
    from ..pipeline import PipelineElement, PipelineError, resolve

    with context:
        if opts.pass_pipeline is not None:
            return resolve(opts.pass_pipeline)
        items = []
        for name, value, written in opts.passes:
            try:
                items.extend(resolve([PipelineElement(name, value)]))
            except PipelineError as e:
                if "does not refer to a registered pass" in str(e):
                    raise ToolError(
                        f"unknown command line argument '{written}' (not a pto-opt flag, a pto pass or an upstream pass)"
                    ) from None
                raise ToolError(f"{written}: {e}") from None
        return items


def name_locations(record, name: str) -> None:
    """Passes record locations as `-:line:col`: `Module.parse` names every
    input "-". Put the input's name there, as diagnostics and
    --mlir-print-debuginfo do, so that --pto-report and --pto-memory-report
    point into the user's file."""
    import dataclasses

    if dataclasses.is_dataclass(record):
        for f in dataclasses.fields(record):
            value = getattr(record, f.name)
            if f.name == "location" and isinstance(value, str) and value.startswith(PARSED_FILE_NAME + ":"):
                setattr(record, f.name, name + value[len(PARSED_FILE_NAME) :])
            else:
                name_locations(value, name)
    elif isinstance(record, list):
        for item in record:
            name_locations(item, name)


class Driver:
    def __init__(self, opts: Options) -> None:
        self.opts = opts
        self.ok = True
        self.outputs: list[bytes] = []
        self.reports = []

    def print_diag(self, d) -> None:
        from ..diagnostics import format_diag

        print(format_diag(d, self.sources, {PARSED_FILE_NAME: self.display_name}), file=sys.stderr, flush=True)

    def run(self) -> int:
        from .common import read_input, split_input

        opts = self.opts
        self.display_name, text = read_input(opts.input, errors="surrogateescape")
        self.sources = {PARSED_FILE_NAME: text}
        # Checking the pipeline leaves its Context as fresh as a new one: the
        # first chunk gets it (a Context costs ~25 ms to make).
        from mlir import ir

        context = ir.Context()
        self.items = _pipeline_items(opts, context)

        chunks = split_input(text, opts.split_marker)
        for i, chunk in enumerate(chunks):
            self.process(chunk, text, context if i == 0 else ir.Context())
        del context
        if opts.report_file:
            self.write_report()
        if opts.memory_report:
            from ..memory_report import render

            sys.stderr.write(render([m for r in self.reports for m in r.memory], opts.memory_report))
            sys.stderr.flush()
        if self.ok or opts.output is None:
            self.write_output()
        return 0 if self.ok else 1

    def write_output(self) -> None:
        data = b"// -----\n".join(self.outputs)
        if self.opts.output is None or self.opts.output == "-":
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
            return
        try:
            with open(self.opts.output, "wb") as f:
                f.write(data)
        except OSError as e:
            raise ToolError(f"could not open output file '{self.opts.output}': {e.strerror or e}") from None

    def write_report(self) -> None:
        import json

        data = [r.to_dict() for r in self.reports]
        try:
            with open(self.opts.report_file, "w") as f:
                json.dump(data[0] if len(data) == 1 else data, f, indent=2)
                f.write("\n")
        except OSError as e:
            raise ToolError(f"could not write report file '{self.opts.report_file}': {e.strerror or e}") from None

    def process(self, chunk, whole_text: str, context) -> None:
        """Parse, verify, transform and print one chunk in `context` (a
        fresh Context of its own)."""
        from mlir import ir

        from ..dialect import load_dialect
        from ..pass_infra import PassContext
        from ..pipeline import build_pass_manager
        from ..verifier import verify_parsed
        from ..diagnostics import Diag
        from .common import DiagnosticCollector, drop_op_dump_notes, line_col, parser_hazard, source_bytes

        opts = self.opts
        verifying = opts.has("verify-diagnostics")
        ctx_report = PassContext(
            use_ptoas_multi_buffer=opts.use_ptoas_multi_buffer,
            use_ptoas_multi_buffer_source="the --use-ptoas-multi-buffer flag" if opts.use_ptoas_multi_buffer is not None else "",
            verbose=opts.has("verbose"),
            verify_each=opts.verify_each,
        )
        with context:
            context.enable_multithreading(False)
            context.allow_unregistered_dialects = opts.has("allow-unregistered-dialect")
            load_dialect(context)
            collector = DiagnosticCollector(context, None if verifying else self.print_diag)
            succeeded = False
            with collector, ir.Location.unknown():
                module = None
                source = chunk.padded()
                hazard = parser_hazard(source)
                if hazard is not None:
                    offset, message = hazard
                    collector.add(Diag("error", message, PARSED_FILE_NAME, *line_col(source, offset)))
                else:
                    try:
                        module = ir.Module.parse(source_bytes(source))
                    except ir.MLIRError as e:
                        collector.add_error(e)
                if module is not None and verify_parsed(module.operation, source):
                    pm = build_pass_manager(self.items, ctx_report, context)
                    if opts.has("mlir-print-ir-after-all") or opts.has("mlir-print-ir-before-all"):
                        pm.enable_ir_printing(
                            print_before_all=opts.has("mlir-print-ir-before-all"),
                            print_after_all=opts.has("mlir-print-ir-after-all"),
                            enable_debug_info=opts.has("mlir-print-debuginfo"),
                            print_generic_op_form=opts.has("mlir-print-op-generic"),
                        )
                    if opts.has("mlir-timing"):
                        pm.enable_timing()
                    if not opts.verify_each:
                        pm.enable_verifier(False)
                    sys.stdout.flush()
                    sys.stderr.flush()
                    try:
                        pm.run(module.operation)
                        succeeded = True
                    except ir.MLIRError as e:
                        collector.add_error(e)
                    del pm  # prints the timing report now, before the next chunk
                # Like mlir-opt: one entry per chunk (empty when it failed),
                # joined by the split marker.
                self.outputs.append(self.render(module) if succeeded else b"")
                if opts.report_file or opts.memory_report:
                    name_locations(ctx_report.report, self.display_name)
                self.reports.append(ctx_report.report)
        if verifying:
            self.check_expectations(chunk, whole_text, [drop_op_dump_notes(d) for d in collector.diags])
        elif not succeeded:
            self.ok = False

    def render(self, module) -> bytes:
        opts = self.opts
        # Printing into a binary stream is ~40% cheaper than get_asm's str.
        out = io.BytesIO()
        module.operation.print(
            file=out,
            binary=True,
            enable_debug_info=opts.has("mlir-print-debuginfo"),
            print_generic_op_form=opts.has("mlir-print-op-generic"),
            assume_verified=True,
        )
        out.write(b"\n")
        text = out.getvalue()
        if opts.has("mlir-print-debuginfo"):
            quoted = self.display_name.replace("\\", "\\\\").replace('"', '\\"')
            text = text.replace(f'loc("{PARSED_FILE_NAME}":'.encode(), f'loc("{quoted}":'.encode("utf-8", "surrogateescape"))
        return text

    def check_expectations(self, chunk, whole_text: str, produced) -> None:
        from ..diagnostics import Diag
        from .verify_diagnostics import ExpectationError, check, parse_expectations

        try:
            expected = parse_expectations(whole_text, chunk.first_line, chunk.last_line)
        except ExpectationError as e:
            self.ok = False
            self.print_diag(Diag("error", str(e), PARSED_FILE_NAME, e.line, e.col))
            return
        for problem in check(expected, produced, lambda name: name == PARSED_FILE_NAME):
            self.ok = False
            file = PARSED_FILE_NAME if problem.line else None
            self.print_diag(Diag("error", problem.message, file, problem.line, problem.col))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        opts = parse_args(argv)
        if opts.has("version"):
            print(f"pto-opt {__version__} (pto dialect; MLIR Python bindings, LLVM {LLVM_VERSION})")
            return 0
        if opts.has("help"):
            print(USAGE.format(llvm=LLVM_VERSION))
            return 0
        from .common import import_mlir_without_numpy

        import_mlir_without_numpy()
        if opts.has("list-passes"):
            print(list_passes(opts.has("verbose")))
            return 0
        if opts.has("show-dialects"):
            print(show_dialects())
            return 0
        return Driver(opts).run()
    except ToolError as e:
        print(f"pto-opt: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
    except Exception as e:
        from .common import report_exception

        return report_exception("pto-opt", e)


if __name__ == "__main__":
    sys.exit(main())
