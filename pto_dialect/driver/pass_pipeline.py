"""Pass pipelines that mix pto's Python passes with upstream C++ passes.

`PassManager.parse` cannot name Python passes, so pipelines are read with
our own grammar (syntax/pass_pipeline.py):

    builtin.module(canonicalize, convert-to-ptoas-multi-buffer{spaces=vec}, func.func(cse))

Each registered pto pass becomes a Python pass (`PassManager.add(callable)`)
anchored on the module; every other element is handed, as written, to
`PassManager.add(str)`, which parses and validates it in C++. After each
Python pass, and after each run of C++ passes, the pto verifier runs (as
`mlir-opt` verifies after every pass). docs/tools.md, "Pass pipelines".
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from mlir import ir
from mlir.passmanager import PassManager

from ..dialect.verifier import verify_module, verify_ops
from ..pass_infra import ModulePass, PassFailed, PassRun
from ..reports.decisions import PipelineReport
from ..support import diagnostics, interrupts
from ..support.suggestions import did_you_mean
from ..syntax.pass_pipeline import OptionError, PipelineElement, PipelineError, parse_pipeline

__all__ = [
    "MODULE_ANCHOR",
    "PipelineError",
    "PipelineRun",
    "PipelineSettings",
    "build_pass_manager",
    "check_upstream_element",
    "is_pass_name",
    "resolve",
    "run_pass_manager",
]

MODULE_ANCHOR = "builtin.module"


def _registry():
    from .. import passes  # installed from the top-level passes/ folder

    return passes


def instantiate(element: PipelineElement) -> ModulePass | None:
    """The pto pass an element names (options parsed), or None when it is
    not a pto pass."""
    cls = _registry().get_pass_class(element.name)
    if cls is None:
        return None
    if element.children is not None:
        raise PipelineError(f"'{element.name}' is a pass, not an op anchor", element.col)
    try:
        return cls.from_option_text(element.options)
    except OptionError as e:
        raise PipelineError(str(e), element.col) from None


def _nested_pto_pass(element: PipelineElement) -> PipelineElement | None:
    registry = _registry()
    for inner in element.walk():
        if inner is not element and inner.children is None and registry.get_pass_class(inner.name):
            return inner
    return None


def check_upstream_element(text: str, col: int = 0) -> None:
    """Raise PipelineError unless upstream MLIR accepts the pipeline element
    `text` (a pass name with options, or an op-anchored nested pipeline)."""
    try:
        PassManager(MODULE_ANCHOR).add(text)
    except ValueError as e:
        message = str(e).strip()
        # Keep the C++ parser's own message, without its position prefix and
        # echo of the element (we point at the element in the whole text).
        first = message.split("\n", 1)[0]
        if ": error: " in first:
            first = first.split(": error: ", 1)[1]
        elif "failed to add" in message:
            first = message.replace("\n", " ").strip()
        raise PipelineError(first, col) from None


def is_pass_name(name: str) -> bool:
    """Whether `name` is a pto pass or an upstream pass (needs a current
    Context for the latter)."""
    if _registry().get_pass_class(name) is not None:
        return True
    try:
        check_upstream_element(name)
    except PipelineError:
        return False
    return True


def resolve(text_or_elements: str | list[PipelineElement]) -> list[ModulePass | str]:
    """Pipeline text or elements -> pto pass objects and upstream element
    texts, each checked (needs a current Context). A single
    `builtin.module(...)` wrapper is removed: pto passes run on the module."""
    if isinstance(text_or_elements, str):
        try:
            elements = parse_pipeline(text_or_elements)
            if len(elements) == 1 and elements[0].name == MODULE_ANCHOR and elements[0].children is not None:
                elements = elements[0].children
            return resolve(elements)
        except PipelineError as e:
            e.text = e.text or text_or_elements
            raise
    out: list[ModulePass | str] = []
    for el in text_or_elements:
        pass_obj = instantiate(el)
        if pass_obj is not None:
            out.append(pass_obj)
            continue
        nested = _nested_pto_pass(el)
        if nested is not None:
            raise PipelineError(
                f"pto pass '{nested.name}' runs on builtin.module; it cannot be nested in '{el.name}(...)'",
                nested.col,
            )
        try:
            check_upstream_element(el.text, el.col)
        except PipelineError as e:
            if "does not refer to a registered pass" not in str(e):
                raise
            raise PipelineError(str(e) + did_you_mean(el.name, _registry().get_all_passes()), e.col, e.text) from None
        out.append(el.text)
    return out


# --- running -------------------------------------------------------------------


@dataclass
class PipelineSettings:
    """What a pipeline run takes from its caller rather than from pass
    options: the `--use-ptoas-multi-buffer` flag or Python keyword (and
    which of the two it was), `--verbose`, `--verify-each`, and whether the
    report keeps a record of every placed buffer (pto-opt asks for them
    only when it writes a report: there are as many as buffers)."""

    use_ptoas_multi_buffer: bool | None = None
    use_ptoas_multi_buffer_source: str = ""
    verbose: bool = False
    verify_each: bool = True
    buffer_records: bool = True
    source_name: str | None = None
    """The file the module was parsed from, for what the passes emit at
    positions of the parser's buffer `-` (diagnostics.naming)."""


@dataclass
class PipelineRun:
    """One pipeline scheduled into a PassManager: the report its passes
    fill, and the remarks about the pipeline itself that wait for the first
    pto pass to run (they need the module's location)."""

    settings: PipelineSettings = field(default_factory=PipelineSettings)
    report: PipelineReport = field(default_factory=PipelineReport)
    _pending_remarks: list[str] = field(default_factory=list)
    interrupt: BaseException | None = None
    """A KeyboardInterrupt or SystemExit raised in one of the Python passes
    while the pass manager ran: kept here rather than raised through C++
    (see `_stopped`); `run_pass_manager` raises it."""
    _guard: interrupts.keyboard_interrupt_deferred | None = None

    def announce(self, message: str) -> None:
        """A remark about the pipeline (not one op): emitted at the module's
        location when the next pto pass runs."""
        self._pending_remarks.append(message)

    def schedule(self, pm: PassManager, passes: list[ModulePass | str], context: ir.Context | None = None) -> None:
        """Add pto passes (objects) and C++ pipeline text (strings) to `pm`,
        whose Context is `context` (default: the current one)."""
        pending_cpp: list[str] = []

        def flush() -> None:
            if not pending_cpp:
                return
            text = ",".join(pending_cpp)
            try:
                pm.add(text)
            except ValueError as e:
                raise PipelineError(str(e).strip()) from None
            pending_cpp.clear()
            if self.settings.verify_each:
                # Named apart from the user-visible pto-verify pass, so IR
                # dumps and timing say what it is.
                pm.add(self._verify_after_cpp_passes, name="PtoVerifyAfterUpstreamPasses", argument="pto-verify-after-upstream")

        for item in passes:
            if isinstance(item, str):
                pending_cpp.append(item)
                continue
            try:
                expanded = item.expand(self)
            except OptionError as e:
                raise PipelineError(f"{item.name}: {e}") from None
            flush()
            if expanded is not None:
                self.schedule(pm, expanded, context)
                continue
            _load_dialects(item.dependent_dialects, context)
            pm.add(
                lambda op, p, item=item: self._run_python_pass(item, op, p),
                name=type(item).__name__,
                argument=item.name,
                description=item.summary(),
            )
        flush()

    def _run_python_pass(self, pass_obj: ModulePass, op: ir.Operation, mlir_pass) -> None:
        try:
            if self._interrupted(mlir_pass):
                return
            with diagnostics.naming(self.settings.source_name):
                self._apply(pass_obj, op, mlir_pass)
        except BaseException as e:
            self._stopped(e, op, mlir_pass)

    def _interrupted(self, mlir_pass) -> bool:
        """Whether a Ctrl-C noted under `run_pass_manager` stops the
        pipeline here (the pass fails before it starts)."""
        if self._guard is not None and self._guard.noted:
            mlir_pass.signal_pass_failure()
            return True
        return False

    def _apply(self, pass_obj: ModulePass, op: ir.Operation, mlir_pass) -> None:
        run = PassRun(self.report, self.settings.verbose, [] if pass_obj.records_changes else None, self.settings.buffer_records)
        try:
            while self._pending_remarks:
                diagnostics.emit_remark(op.location, self._pending_remarks.pop(0))
            pass_obj.apply(run, op)
            if self.settings.verify_each and not _verify_after(pass_obj, run, op):
                mlir_pass.signal_pass_failure()
        except PassFailed:
            mlir_pass.signal_pass_failure()
        except Exception as e:  # a bug in a pass: a diagnostic, never a traceback
            import traceback

            detail = traceback.format_exc() if os.environ.get("PTO_DEBUG") else ""
            diagnostics.emit_error(
                op.location,
                f"internal error in pass '{pass_obj.name}': {type(e).__name__}: {e}"
                + (f"\n{detail}" if detail else " (set PTO_DEBUG=1 for the traceback)"),
            )
            mlir_pass.signal_pass_failure()

    def _verify_after_cpp_passes(self, op: ir.Operation, mlir_pass) -> None:
        try:
            if self._interrupted(mlir_pass):
                return
            with diagnostics.naming(self.settings.source_name):
                verified = verify_module(op, check_types=False)
            if not verified:
                mlir_pass.signal_pass_failure()
        except BaseException as e:
            self._stopped(e, op, mlir_pass)

    def _stopped(self, e: BaseException, op: ir.Operation, mlir_pass) -> None:
        """A KeyboardInterrupt or SystemExit raised in a Python pass (Ctrl-C
        under a caller's own pass manager, `add_passes`; code that exits): it
        must not unwind through the C++ pass manager, which would be left in
        its multi-threaded execution state, where the Context's next change
        of configuration is an LLVM assertion (`allowUnregisteredDialects`,
        `disableMultithreading`: llvm/llvm-project,
        mlir/lib/IR/MLIRContext.cpp). The pass fails instead, with an error
        saying why, or, under `run_pass_manager`, which raises the exception
        once the pass manager has returned, without one."""
        if self.interrupt is None:
            self.interrupt = e
            if self._guard is not None:
                mlir_pass.signal_pass_failure()
                return
            try:
                diagnostics.emit_error(op.location, "interrupted" if isinstance(e, KeyboardInterrupt) else f"stopped: {type(e).__name__}")
            except BaseException:  # a second Ctrl-C: the first is kept
                pass
        mlir_pass.signal_pass_failure()


def run_pass_manager(pm: PassManager, op: ir.Operation, run: PipelineRun) -> None:
    """`pm.run(op)` for a pass manager `run` scheduled, as
    `PassManager.run` except for a Ctrl-C: where Python's handler would
    raise KeyboardInterrupt inside a callback from C++, it is noted, the
    pipeline stops at its next Python pass or verification
    (interrupts.keyboard_interrupt_deferred), and KeyboardInterrupt is
    raised once the pass manager has returned; so is a KeyboardInterrupt or
    SystemExit that a Python pass raised itself."""
    run._guard = guard = interrupts.keyboard_interrupt_deferred()
    try:
        with guard:
            pm.run(op)
    except ir.MLIRError:
        if run.interrupt is None:
            raise
    finally:
        run._guard = None
    if run.interrupt is not None:
        e, run.interrupt = run.interrupt, None
        raise e


def _verify_after(pass_obj: ModulePass, run: PassRun, op: ir.Operation) -> bool:
    """The check after a pto pass. The type rules were checked after parsing
    and no pass can break them; the op rules are checked again (see
    verify_module), on the ops the pass changed when it says which."""
    arch = getattr(pass_obj, "arch", None)
    if run.changed_ops is not None:
        return verify_ops(run.changed_ops, op, arch)
    return verify_module(op, arch, check_types=False)


def _load_dialects(names: tuple[str, ...], context: ir.Context | None) -> None:
    """Load `names` into `context` (default: the current one): a tool's
    Context loads dialects on demand (dialect.new_context)."""
    if not names:
        return
    context = context or ir.Context.current
    if context is None:  # no Context given or current: the caller's loads what it loads
        return
    for name in names:
        context.get_dialect_descriptor(name)


def build_pass_manager(
    pipeline: str | list[ModulePass | str],
    run: PipelineRun,
    context: ir.Context | None = None,
) -> PassManager:
    """A PassManager on the module that runs `pipeline` (text, or what
    `resolve` made of it) and fills `run.report`."""
    pm = PassManager(MODULE_ANCHOR, context)
    run.schedule(pm, resolve(pipeline) if isinstance(pipeline, str) else pipeline, context)
    return pm
