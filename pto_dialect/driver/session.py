"""One way in and one way out: a kernel's text read, parsed into a module in
a Context of its own, verified, printed back, and every diagnostic on the
way given its position in the user's file.

    source = read_source("kernel.pto")               # or Source(name, text)
    with Session(source, on_diagnostic=print_it) as session:
        module = session.parse()                     # None after reporting why
        ...
        out = session.print(module)

`pto-opt`, `pto-run`, the Python API and the test support all come through
here (docs/architecture.md). MLIR's parser names the text it is given
`PARSER_BUFFER`; the session puts the user's file name there in diagnostics,
in printed locations and in the passes' report records.
"""

from __future__ import annotations

import dataclasses
import io
import os
import re
import sys
import time
from dataclasses import dataclass
from functools import cached_property

from mlir import ir

from ..dialect.load import load_dialect, new_context
from ..dialect.verifier import verify_parsed
from ..support import diagnostics, interrupts
from ..support.brackets import balanced_end
from ..support.diagnostics import Diag, location_position
from ..support.source_text import line_col, parser_hazard
from ..support.value_names import keep_names, result_names
from ..syntax.ptoas import ERROR_LIMIT, NAMED_RESULTS, Translation, reported_problems, to_generic, to_ptoas

__all__ = [
    "DEFAULT_SPLIT_MARKER",
    "PHASES",
    "name_locations",
    "print_module",
    "user_location",
    "PARSER_BUFFER",
    "Chunk",
    "Session",
    "SessionError",
    "Source",
    "read_source",
]

PHASES = ("read ptoas syntax", "parse", "keep names", "verify", "print", "write ptoas syntax")
"""The phases `Session.phase_seconds` times, in order."""

PARSER_BUFFER = diagnostics.PARSER_BUFFER
"""The file name MLIR's parser gives every location in text it parses."""
DEFAULT_SPLIT_MARKER = "// -----"


class SessionError(Exception):
    """A failure outside the IR (an unreadable input): one message."""


@dataclass
class Chunk:
    """A piece of a source; `first_line` is its first line in the file."""

    text: str
    first_line: int
    last_line: int

    def padded(self) -> str:
        # Blank lines in front keep every location's line number that of the
        # original file, so diagnostics and expected-* lines agree.
        return "\n" * (self.first_line - 1) + self.text


@dataclass
class Source:
    """A kernel as the user wrote it: `name` is how they know it (a path,
    `<stdin>`), `text` its contents, undecodable bytes kept as surrogate
    escapes so that they reach the parser as the bytes they were."""

    name: str
    text: str

    @cached_property
    def lines(self) -> list[str]:
        """The text's lines, split once (every diagnostic shows one)."""
        return self.text.split("\n")

    def line(self, number: int) -> str | None:
        """Line `number` (1-based), or None outside the text."""
        return self.lines[number - 1] if 0 < number <= len(self.lines) else None

    def whole(self) -> Chunk:
        return Chunk(self.text, 1, len(self.lines))

    def chunks(self, marker: str | None) -> list[Chunk]:
        """The whole text, or the pieces between lines that start with `marker`."""
        lines = self.lines
        if marker is None:
            return [self.whole()]
        pattern = re.compile(r"^\s*" + re.escape(marker))
        chunks: list[Chunk] = []
        start = 0
        for i, line in enumerate(lines):
            if pattern.match(line):
                chunks.append(Chunk("\n".join(lines[start:i]), start + 1, i))
                start = i + 1
        chunks.append(Chunk("\n".join(lines[start:]), start + 1, len(lines)))
        return chunks


def read_source(path: str) -> Source:
    """The file at `path`, or standard input for `-`."""
    try:
        if path == "-":
            stdin = sys.stdin
            if stdin is None:
                raise SessionError("could not read standard input: it is closed")
            data = stdin.buffer.read()
            name = "<stdin>"
        else:
            with open(path, "rb") as f:
                data = f.read()
            name = path
    except OSError as e:
        what = "standard input" if path == "-" else f"input file '{path}'"
        raise SessionError(f"could not open {what}: {e.strerror or e}") from None
    # a UTF-8 byte-order mark (editors on Windows write one) is not text:
    # dropped, so that line 1 reads and its columns count as an editor shows them
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return Source(name, data.decode("utf-8", errors="surrogateescape"))


def _parser_bytes(text: str) -> bytes:
    """What to give the MLIR parser for a source's text: the input's own
    bytes, so that a non-UTF-8 byte in a string attribute stays that byte
    (MLIR strings are bytes)."""
    return text.encode("utf-8", errors="surrogateescape")


class Session:
    """One Context with the pto dialect loaded, and every diagnostic it
    produces, in emission order, named in the user's file.

    Errors raised out of `Module.parse` and `PassManager.run` arrive as
    `MLIRError`s (`add_error`); everything else at the handler the session
    attaches. Remarks and warnings that could not go through MLIR (see
    diagnostics.py) arrive through the fallback sink. `on_diagnostic`, when
    given, sees each as it comes.
    """

    def __init__(
        self,
        source: Source,
        *,
        context: ir.Context | None = None,
        on_diagnostic=None,
        allow_unregistered: bool | None = None,
    ) -> None:
        self.source = source
        self.context = context or new_context()
        self.diagnostics: list[Diag] = []
        self._on_diagnostic = on_diagnostic
        # None: what the Context allows (a caller's Context keeps its setting)
        self._allow_unregistered = allow_unregistered
        self._allowed_before: bool | None = None
        self._handler = None
        self._entered: list = []
        # While a chunk is parsed: its translation and first line, to put
        # the parser's positions (in generic text) back at the user's.
        self._translating: tuple[Translation, int] | None = None
        self.phase_seconds: dict[str, float] = dict.fromkeys(PHASES, 0.0)
        """Wall time per phase of reading and writing (`--mlir-timing`)."""

    # -- the Context ------------------------------------------------------------

    def __enter__(self) -> Session:
        context = self.context
        context.enable_multithreading(False)
        if self._allow_unregistered is not None:
            self._allowed_before = context.allow_unregistered_dialects
            context.allow_unregistered_dialects = self._allow_unregistered
        load_dialect(context)
        for manager in (context, ir.Location.unknown(context)):
            manager.__enter__()
            self._entered.append(manager)
        self._handler = context.attach_diagnostic_handler(self._handle)
        diagnostics.add_fallback_sink(self.add)
        return self

    def __exit__(self, *_exc_info) -> None:
        diagnostics.remove_fallback_sink(self.add)
        if self._handler is not None:
            self._handler.detach()
            self._handler = None
        while self._entered:
            self._entered.pop().__exit__(None, None, None)
        if self._allowed_before is not None:
            self.context.allow_unregistered_dialects = self._allowed_before
            self._allowed_before = None

    # -- diagnostics -------------------------------------------------------------

    def in_user_file(self, d: Diag) -> Diag:
        """`d` (and its notes) with the parser's buffer name replaced by the
        source's name and, while a chunk is parsed, its position in the
        generic text by the one in the user's text."""
        if d.file == PARSER_BUFFER:
            d.file = self.source.name
            if self._translating is not None and d.line:
                translation, first_line = self._translating
                d.line, d.col = translation.original(d.line, d.col, first_line)
        for note in d.notes:
            self.in_user_file(note)
        return d

    def add(self, d: Diag) -> None:
        """Take a diagnostic (positions in the parser's buffer are renamed)."""
        self.diagnostics.append(self.in_user_file(d))
        if self._on_diagnostic:
            self._on_diagnostic(d)

    def _handle(self, d) -> bool:
        try:
            self.add(Diag.from_mlir(d))
        except Exception:  # never let an exception cross into C++
            pass
        return True

    def add_error(self, error: ir.MLIRError) -> None:
        """Take the diagnostics an `ir.MLIRError` carries."""
        details = getattr(error, "error_diagnostics", None) or []
        if not details:
            self.add(Diag(diagnostics.ERROR, str(error)))
        for d in details:
            self.add(Diag.from_mlir(d))

    def format(self, d: Diag) -> str:
        """`file:line:col: severity: message`, the source line and a caret."""
        return diagnostics.format_diag(d, self.source)

    def errors_text(self) -> str:
        """The errors so far, formatted, one after the other."""
        errors = [d for d in self.diagnostics if d.severity == diagnostics.ERROR]
        return "\n".join(self.format(d) for d in errors)

    def name_locations(self, record) -> None:
        """Name the user's file in a report record's locations."""
        name_locations(record, self.source.name)

    # -- in and out --------------------------------------------------------------

    def parse(self, chunk: Chunk | None = None, *, verify: bool = True) -> ir.Module | None:
        """The module `chunk` (default: the whole source) spells, verified,
        or None after its diagnostics were added. The chunk is read in
        either spelling (ptoas syntax is translated to the generic form
        first); constructs that would crash the parser are refused with an
        error at their position."""
        chunk = chunk or self.source.whole()
        # The checks before and after parsing read the chunk's own text; only
        # the parser gets the padding that keeps its line numbers the file's.
        hazard = parser_hazard(chunk.text)
        if hazard is not None:
            offset, message = hazard
            self._error_at(chunk, offset, message)
            return None
        clock = time.perf_counter
        started = clock()
        translation = to_generic(chunk.text)
        self.phase_seconds["read ptoas syntax"] += clock() - started
        if translation.problems:
            problems, more = reported_problems(translation.problems, chunk.text)
            for problem in problems:
                self._error_at(chunk, problem.offset, problem.message)
            if more is not None:
                self._error_at(chunk, more.offset, f"too many errors emitted, stopping now (at most {ERROR_LIMIT})")
            return None
        generic = Chunk(translation.text, chunk.first_line, chunk.last_line)
        self._translating = (translation, chunk.first_line)
        errors_before = len(self.diagnostics)
        try:
            started = clock()
            user_locations = "loc(" in chunk.text
            try:
                module = ir.Module.parse(_parser_bytes(generic.padded()), self.context)
            except ir.MLIRError as e:
                if user_locations and self._unplaced(e):
                    # the verifier's errors at ops the user gave no position: the same, at the ops' positions
                    e = self._parse_without_locations(generic) or e
                if getattr(e, "error_diagnostics", None) or len(self.diagnostics) > errors_before:
                    self.add_error(e)
                else:  # MLIR's parser failed without a word (see _silent_failure)
                    offset, message = _silent_failure(translation)
                    self._error_at(chunk, offset, message)
                return None
            finally:
                self.phase_seconds["parse"] += clock() - started
            twin = None
            if user_locations:
                twin_text = _without_locations(generic.padded())
                twin = self._placed_twin(twin_text)
                if twin is not None:
                    _place_ops(module, twin, self.context)
            started = clock()
            if twin is None:
                keep_names(module, translation.text.split("\n"), chunk.first_line)
            else:  # the names at the twin's positions, in the text it was parsed from
                keep_names(module, twin_text.split("\n"), 1, twin)
            self.phase_seconds["keep names"] += clock() - started
            _place_implicit_module(module, chunk.first_line)
            started = clock()
            verified = not verify or verify_parsed(module.operation, translation.text)
            self.phase_seconds["verify"] += clock() - started
            if not verified:
                return None
        finally:
            self._translating = None
        return module

    # -- ops whose location the user wrote -------------------------------------------
    #
    # An op written with a location (`loc(unknown)`, `loc("name")`, fused or
    # call-site locations) keeps it instead of the parser's position; when it
    # holds no file position, MLIR's diagnostics at the op say `<unknown>`
    # or a bare name. Such an op gets its position in the input fused in
    # (docs/tools.md, "Locations"); a file position the user wrote (PyPTO's
    # `loc("kernel.py":12:5)`) is kept, as MLIR reports it.

    @staticmethod
    def _unplaced(error: ir.MLIRError) -> bool:
        return any(location_position(d.location)[0] is None for d in getattr(error, "error_diagnostics", None) or [])

    def _parse_without_locations(self, generic: Chunk) -> ir.MLIRError | None:
        """The error of parsing `generic` with the user's locations taken
        out (every op at its own position), or None if that parses."""
        try:
            ir.Module.parse(_parser_bytes(_without_locations(generic.padded())), self.context)
        except ir.MLIRError as e:
            return e
        return None

    def _placed_twin(self, text: str) -> ir.Module | None:
        """The padded generic text without the user's locations (`text`,
        every op at its own position) parsed, or None if that does not parse."""
        handler = self.context.attach_diagnostic_handler(lambda _d: True)  # the twin's diagnostics are not the user's
        try:
            return ir.Module.parse(_parser_bytes(text), self.context)
        except ir.MLIRError:
            return None
        finally:
            handler.detach()

    def _error_at(self, chunk: Chunk, offset: int, message: str) -> None:
        line, col = line_col(chunk.text, offset)
        self.add(Diag(diagnostics.ERROR, message, PARSER_BUFFER, line + chunk.first_line - 1, col))

    def print(self, module: ir.Module | ir.Operation, *, generic: bool = False, debuginfo: bool = False) -> bytes:
        return print_module(
            module,
            self.source.name,
            generic=generic,
            debuginfo=debuginfo,
            timings=self.phase_seconds,
            through_file=len(self.source.text) >= _PRINT_TO_FILE_FROM,
        )


def print_module(
    module: ir.Module | ir.Operation,
    name: str,
    *,
    generic: bool = False,
    debuginfo: bool = False,
    timings: dict[str, float] | None = None,
    through_file: bool = False,
) -> bytes:
    """The module's text, as `pto-opt` writes it, newline-terminated: in
    ptoas syntax, or with `generic` in the generic form; with `debuginfo`,
    locations in the parser's buffer name the file `name`. `through_file`
    (for a large module) has C++ print it into a file (`_print_to_file`)."""
    clock = time.perf_counter
    started = clock()
    operation = getattr(module, "operation", module)
    text = _print_to_file(operation, generic=generic, debuginfo=debuginfo) if through_file else None
    if text is None:
        # Printing into a binary stream is ~40% cheaper than get_asm's str.
        out = io.BytesIO()
        operation.print(
            file=out,
            binary=True,
            enable_debug_info=debuginfo,
            print_generic_op_form=generic,
            use_name_loc_as_prefix=True,
            assume_verified=True,
        )
        out.write(b"\n")
        text = out.getvalue()
    printed = clock()
    if not generic and b"pto." in text:
        mlir_text = text.decode("utf-8", "surrogateescape")
        text = to_ptoas(mlir_text, _kept_result_names(operation, mlir_text)).encode("utf-8", "surrogateescape")
    if timings is not None:
        timings["print"] += printed - started
        timings["write ptoas syntax"] += clock() - printed
    if debuginfo and name != PARSER_BUFFER:
        quoted = name.replace("\\", "\\\\").replace('"', '\\"')
        text = text.replace(f'loc("{PARSER_BUFFER}":'.encode(), f'loc("{quoted}":'.encode("utf-8", "surrogateescape"))
    return text


def _kept_result_names(operation: ir.Operation, printed: str):
    """For `to_ptoas`: the kept names of the results of each op that ptoas
    names result by result (`NAMED_RESULTS`), in walk order, which is the
    order printed; None when none is printed."""
    if not any(f'"{name}"(' in printed for name in NAMED_RESULTS):
        return None
    found = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name in NAMED_RESULTS:
            found.append(result_names(op, len(NAMED_RESULTS[op.name])))
        return ir.WalkResult.ADVANCE

    operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return iter(found)


_PRINT_TO_FILE_FROM = 64 * 1024
"""The size of source text from which a module is printed through a file:
below it, the ~1 ms of making a pass manager and a directory costs more
than the bindings' `write` calls."""
_DUMP_HEADER = b"// -----// IR Dump Before "
_DUMP_HEADER_END = b" //----- //"


def _print_noop(_op, _pass) -> None:
    pass


def _print_to_file(operation: ir.Operation, *, generic: bool, debuginfo: bool) -> bytes | None:
    """The text `Operation.print` writes for a top-level module and a
    newline, printed by C++ into a file (docs/performance.md, "Where the
    time goes"), or None when this way does not apply.

    The bindings' `print` hands every piece the printer writes (about 2.3
    million at K = 4000) to a Python `write`; the pass manager's IR printing
    to a file tree writes through a buffered C++ stream instead, in half the
    time. The IR printed before a pass that does nothing is the module's
    text with a header line before it and two newlines after it: the header
    is taken off, and one newline. The printer verifies the module first (assume-verified is not
    among the flags the pass manager takes); a valid module prints the same
    either way. Anything unexpected (no file, another header) falls back."""
    try:
        if operation.parent is not None or operation.name != "builtin.module" or "sym_name" in operation.attributes:
            return None  # the tree's paths are named after symbols: only the plain top-level module
        import tempfile  # here: only large modules are printed through a file

        from mlir.passmanager import PassManager

        from ..support import native_printing  # (ctypes and the C API: for large modules only)

        # A tool's Ctrl-C waits for the directory to be removed (interrupts.py).
        with interrupts.held(), tempfile.TemporaryDirectory(prefix="pto-print-") as directory:
            pm = PassManager("builtin.module", context=operation.context)
            pm.add(_print_noop, name="pto-print")
            if not native_printing.print_before_all_to_tree(pm, directory, generic=generic, debuginfo=debuginfo):
                return None  # no way to print the value names into the file
            pm.enable_verifier(False)
            with interrupts.keyboard_interrupt_deferred():  # _print_noop is called from C++
                pm.run(operation)
            del pm
            path = os.path.join(directory, "builtin_module_no-symbol-name", "0_.mlir")
            with open(path, "rb") as f:
                data = f.read()
    except Exception:  # no temporary directory, no pass manager: print the usual way
        return None
    header_end = data.find(b"\n")
    if header_end < 0 or not data.startswith(_DUMP_HEADER) or not data[:header_end].endswith(_DUMP_HEADER_END) or not data.endswith(b"\n\n"):
        return None
    return data[header_end + 1 : -1]  # (the first newline of the two after it is ours)


def _place_ops(module: ir.Module, twin: ir.Module, context: ir.Context) -> None:
    """Fuse each op's position in the input into its location where the
    user's location holds none: read from `twin`, the text parsed without
    the user's locations, whose ops match this module's one for one in walk
    order."""
    ops: list[ir.Operation] = []
    module.operation.walk(lambda op: ops.append(op) or ir.WalkResult.ADVANCE)
    if all(location_position(op.location)[0] is not None for op in ops):
        return
    twins: list[ir.Operation] = []
    twin.operation.walk(lambda op: twins.append(op) or ir.WalkResult.ADVANCE)
    if len(twins) != len(ops):
        return
    for op, placed in zip(ops, twins):
        if location_position(op.location)[0] is None and location_position(placed.location)[0] is not None:
            op.location = ir.Location.fused([op.location, placed.location], context=context)


def _place_implicit_module(module: ir.Module, first_line: int) -> None:
    """The module MLIR's parser makes around top-level ops is at line 0,
    column 0 (mlir/lib/Parser/Parser.cpp), no position in the file: a
    diagnostic at it (a remark about the whole pipeline, an error about the
    module) goes to its first op instead, or to the chunk's first line."""
    op = module.operation
    location = op.location
    if not (location.is_a_file() and location.start_line == 0):
        return
    body = op.regions[0].blocks[0].operations
    first = body[0].location if len(body) else None
    if first is None or location_position(first)[0] is None:
        first = ir.Location.file(location.filename, first_line, 1, context=op.context)
    op.location = first


_LOCATION_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|^[ \t]*#[^\n]*|(?<![\w%#@$.!])loc\(', re.MULTILINE)


def _without_locations(text: str) -> str:
    """`text` with every `loc(...)` an op, argument or block argument
    carries taken out (strings, comments and `#alias = ...` lines kept), so
    that each op gets the parser's position. Lines and columns of what is
    before each removed location stay."""
    out, pos = [], 0
    for m in _LOCATION_TOKEN.finditer(text):
        if m.start() < pos or not m.group(0).startswith("loc("):
            continue
        end = balanced_end(text, m.end() - 1)
        if end < 0:
            break
        out.append(text[pos : m.start()])
        pos = end
    out.append(text[pos:])
    return "".join(out)


_CUSTOM_PTO_OP = re.compile(r"^[ \t]*(?:%[^\n=\"]*=[ \t]*)?(pto\.[\w.]+)", re.MULTILINE)


def _silent_failure(translation: Translation) -> tuple[int, str]:
    """(source offset, message) for a parse that failed with no
    diagnostic. MLIR's parser does that for a custom-form op of a dialect
    that has no custom parser, which every pto op is to it (IRDL has no
    assembly formats): the reader translates each pto op it can read, so
    such an op is one it took for something else (an attribute name
    followed by `=`). The first pto name in op position of the generic text
    is the culprit; failing that, the error is at the first line."""
    from ..dialect.ops import ptoas_op_def

    candidates = list(_CUSTOM_PTO_OP.finditer(translation.text))
    ops = [m for m in candidates if ptoas_op_def(m.group(1)) is not None] or candidates
    if not ops:
        return 0, "the MLIR parser failed without a message"
    m = ops[0]
    return translation.original_offset(m.start(1)), f"expected the ptoas syntax or the generic form of '{m.group(1)}'"


def user_location(location: str, name: str) -> str:
    """A `file:line:col` text with the parser's buffer name replaced by `name`."""
    prefix = PARSER_BUFFER + ":"
    return name + location[len(PARSER_BUFFER) :] if location.startswith(prefix) else location


_BUFFER_POSITION = re.compile(re.escape(PARSER_BUFFER) + r":\d+:\d+")


def name_locations(record, name: str) -> None:
    """Replace the parser's buffer name by `name` in every position field of
    a report record (a dataclass, or lists of them, at any depth): a
    `location`, and any other field that holds a `-:line:col` alone (a
    buffer's `first_at` and `last_at`)."""
    work = [record]
    fields_of: dict[type, tuple[str, ...]] = {}  # a report holds thousands of records of a few classes
    prefix = PARSER_BUFFER + ":"
    while work:
        item = work.pop()
        if isinstance(item, list):
            work.extend(item)
            continue
        kind = type(item)
        names = fields_of.get(kind)
        if names is None:
            names = fields_of[kind] = tuple(f.name for f in dataclasses.fields(item)) if dataclasses.is_dataclass(item) else ()
        for field_name in names:
            value = getattr(item, field_name)
            if isinstance(value, str):
                if value.startswith(prefix) and (field_name == "location" or _BUFFER_POSITION.fullmatch(value)):
                    setattr(item, field_name, user_location(value, name))
            elif value is not None and not isinstance(value, (int, float, bool)):
                work.append(value)
