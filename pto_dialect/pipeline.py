"""Pass pipelines that mix pto's Python passes with upstream C++ passes.

`PassManager.parse` cannot name Python passes, so we parse MLIR's textual
pipeline syntax ourselves:

    builtin.module(canonicalize, convert-to-ptoas-multi-buffer{spaces=vec}, func.func(cse))

Each registered pto pass becomes a Python pass (`PassManager.add(callable)`)
anchored on the module; every other element is handed, as text, to
`PassManager.add(str)`, which parses and validates it in C++. After each
Python pass, and after each run of C++ passes, the pto verifier runs (as
`mlir-opt` verifies after every pass).
"""

from __future__ import annotations

import os
import traceback
from dataclasses import dataclass

from mlir import ir
from mlir.passmanager import PassManager

from . import diagnostics
from .pass_infra import ModulePass, OptionError, PassContext, PassFailed
from .verifier import verify_module, verify_ops

MODULE_ANCHOR = "builtin.module"


class PipelineError(ValueError):
    """A pipeline that cannot be built: bad syntax, unknown pass, bad option.

    `col` is the 1-based column in the pipeline text when known.
    """

    def __init__(self, message: str, col: int = 0, text: str = "") -> None:
        super().__init__(message)
        self.col = col
        self.text = text

    def render(self) -> str:
        if not self.col:
            return f"error: {self}"
        return (
            f"MLIR Textual PassPipeline Parser:1:{self.col}: error: {self}\n"
            f"{self.text}\n{' ' * (self.col - 1)}^"
        )


@dataclass
class PipelineElement:
    """`name`, `name{options}` or `anchor(children)` in a pipeline."""

    name: str
    options: str | None = None
    children: list["PipelineElement"] | None = None
    col: int = 1

    def text(self) -> str:
        if self.children is not None:
            return f"{self.name}({','.join(c.text() for c in self.children)})"
        return f"{self.name}{{{self.options}}}" if self.options is not None else self.name


def parse_pipeline(text: str) -> list[PipelineElement]:
    """Parse MLIR textual pipeline syntax into elements.

    A single `builtin.module(...)` wrapper is removed: pto passes always run
    on the module.
    """
    pos = 0
    n = len(text)

    def fail(message: str, at: int) -> PipelineError:
        return PipelineError(message, at + 1, text)

    def skip_ws() -> None:
        nonlocal pos
        while pos < n and text[pos] in " \t\n":
            pos += 1

    def parse_list(closing: str | None) -> list[PipelineElement]:
        nonlocal pos
        elements: list[PipelineElement] = []
        while True:
            skip_ws()
            if closing and pos < n and text[pos] == closing and not elements:
                return elements  # empty nested pipeline, e.g. func.func()
            elements.append(parse_element())
            skip_ws()
            if pos < n and text[pos] == ",":
                pos += 1
                continue
            return elements

    def parse_element() -> PipelineElement:
        nonlocal pos
        start = pos
        while pos < n and (text[pos].isalnum() or text[pos] in "_-.$"):
            pos += 1
        name = text[start:pos]
        if not name:
            raise fail("expected a pass or pipeline name", pos)
        skip_ws()
        if pos < n and text[pos] == "{":
            depth, opt_start = 0, pos + 1
            quote = None
            while pos < n:
                c = text[pos]
                if quote:
                    quote = None if c == quote else quote
                elif c in "'\"":
                    quote = c
                elif c == "{":
                    depth += 1
                elif c == "}":
                    depth -= 1
                    if depth == 0:
                        break
                pos += 1
            if pos >= n:
                raise fail("unbalanced '{' in pass options", opt_start - 1)
            options = text[opt_start:pos]
            pos += 1
            return PipelineElement(name, options, None, start + 1)
        if pos < n and text[pos] == "(":
            open_at = pos
            pos += 1
            children = parse_list(")")
            skip_ws()
            if pos >= n or text[pos] != ")":
                raise fail("encountered unbalanced parentheses while parsing pipeline", open_at)
            pos += 1
            return PipelineElement(name, None, children, start + 1)
        return PipelineElement(name, None, None, start + 1)

    stripped = text.strip()
    if not stripped:
        return []
    elements = parse_list(None)
    skip_ws()
    if pos < n:
        raise fail(f"unexpected '{text[pos]}' in pipeline", pos)
    if len(elements) == 1 and elements[0].name == MODULE_ANCHOR and elements[0].children is not None:
        return elements[0].children
    return elements


# --- building ----------------------------------------------------------------


def _registry():
    from . import passes  # installed from the top-level passes/ folder

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


def _contains_pto_pass(element: PipelineElement) -> PipelineElement | None:
    for child in element.children or ():
        if child.children is None and _registry().get_pass_class(child.name):
            return child
        inner = _contains_pto_pass(child)
        if inner:
            return inner
    return None


def _run_python_pass(pass_obj: ModulePass, ctx: PassContext, op: ir.Operation, mlir_pass) -> None:
    try:
        while ctx.pending_remarks:
            diagnostics.emit_remark(op.location, ctx.pending_remarks.pop(0))
        ctx.changed_ops = [] if pass_obj.records_changes else None
        pass_obj.apply(ctx, op)
        if ctx.verify_each and not _verify_after(pass_obj, ctx, op):
            mlir_pass.signal_pass_failure()
    except PassFailed:
        mlir_pass.signal_pass_failure()
    except Exception as e:  # a bug in a pass: a diagnostic, never a traceback
        detail = traceback.format_exc() if os.environ.get("PTO_DEBUG") else ""
        diagnostics.emit_error(
            op.location,
            f"internal error in pass '{pass_obj.name}': {type(e).__name__}: {e}"
            + (f"\n{detail}" if detail else " (set PTO_DEBUG=1 for the traceback)"),
        )
        mlir_pass.signal_pass_failure()
    finally:
        ctx.changed_ops = None


def _verify_after(pass_obj: ModulePass, ctx: PassContext, op: ir.Operation) -> bool:
    """The check after a pto pass. The type rules were checked after parsing
    and no pass can break them; the op rules are checked again (see
    verify_module), on the ops the pass changed when it says which."""
    arch = getattr(pass_obj, "arch", None)
    if ctx.changed_ops is not None:
        return verify_ops(ctx.changed_ops, op, arch)
    return verify_module(op, arch, check_types=False)


def _verify_after_cpp_passes(op: ir.Operation, mlir_pass) -> None:
    if not verify_module(op, check_types=False):
        mlir_pass.signal_pass_failure()


def schedule(pm: PassManager, passes: list[ModulePass | str], ctx: PassContext) -> None:
    """Add pto passes (objects) and C++ pipeline text (strings) to `pm`."""
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
        if ctx.verify_each:
            # Named apart from the user-visible pto-verify pass, so IR dumps
            # and timing say what it is.
            pm.add(_verify_after_cpp_passes, name="PtoVerifyAfterUpstreamPasses", argument="pto-verify-after-upstream")

    for item in passes:
        if isinstance(item, str):
            pending_cpp.append(item)
            continue
        try:
            expanded = item.expand(ctx)
        except OptionError as e:
            raise PipelineError(f"{item.name}: {e}") from None
        if expanded is not None:
            flush()
            schedule(pm, expanded, ctx)
            continue
        flush()
        pm.add(
            lambda op, p, item=item: _run_python_pass(item, ctx, op, p),
            name=type(item).__name__,
            argument=item.name,
            description=item.summary(),
        )
    flush()


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


def resolve(text_or_elements: str | list[PipelineElement]) -> list[ModulePass | str]:
    """Pipeline text -> pto pass objects and upstream element texts, each
    checked (needs a current Context)."""
    if isinstance(text_or_elements, str):
        try:
            return resolve(parse_pipeline(text_or_elements))
        except PipelineError as e:
            e.text = e.text or text_or_elements
            raise
    elements = text_or_elements
    out: list[ModulePass | str] = []
    for el in elements:
        pass_obj = instantiate(el)
        if pass_obj is not None:
            out.append(pass_obj)
            continue
        nested = _contains_pto_pass(el)
        if nested is not None:
            raise PipelineError(
                f"pto pass '{nested.name}' runs on builtin.module; it cannot be nested in '{el.name}(...)'",
                nested.col,
            )
        check_upstream_element(el.text(), el.col)
        out.append(el.text())
    return out


def build_pass_manager(
    pipeline: str | list[ModulePass | str],
    ctx: PassContext,
    context: ir.Context | None = None,
) -> PassManager:
    pm = PassManager(MODULE_ANCHOR, context)
    schedule(pm, resolve(pipeline) if isinstance(pipeline, str) else pipeline, ctx)
    return pm
