"""What every pto pass is made of.

A pass is a small dataclass: a `name` (its command-line flag and pipeline
name), typed options as fields, a docstring that is its documentation (first
line: the summary; the rest, with a before/after example, is what
`--list-passes --verbose` and docs/passes.md show), and one `apply`.

    @dataclass
    class MyPass(ModulePass):
        \"\"\"Summary line. ...\"\"\"
        name: ClassVar[str] = "my-pass"
        level: int = option(1, "how hard to try")

        def apply(self, ctx: PassContext, module: ir.Operation) -> None: ...

Options parse from MLIR's pass option syntax (`my-pass{level=2 names=a,b}`).
"""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from dataclasses import dataclass, field
from typing import Any, ClassVar

from mlir import ir

from .report import PipelineReport


class PassFailed(Exception):
    """Raised by `apply` after it has emitted its error diagnostics."""


class OptionError(ValueError):
    pass


def option(default: Any, help: str, **kwargs) -> Any:
    """A pass option: a dataclass field with its help text."""
    if isinstance(default, (list, dict, set)):
        return field(default_factory=lambda: type(default)(default), metadata={"help": help, **kwargs})
    return field(default=default, metadata={"help": help, **kwargs})


@dataclass
class PassContext:
    """What a pass run shares with its passes: the report that collects the
    passes' decisions as data, and settings that come from the driver rather
    than from pass options."""

    report: PipelineReport = field(default_factory=PipelineReport)
    use_ptoas_multi_buffer: bool | None = None
    """The `--use-ptoas-multi-buffer` flag or the Python keyword, if given."""
    use_ptoas_multi_buffer_source: str = ""
    verbose: bool = False
    verify_each: bool = True
    pending_remarks: list[str] = field(default_factory=list)
    changed_ops: list | None = None
    """While a pass that `records_changes` runs: the ops it created or
    changed, which are all the verifier looks at afterwards."""

    def changed(self, op) -> None:
        """Record an op the running pass created or changed."""
        if self.changed_ops is not None:
            self.changed_ops.append(op)

    def announce(self, message: str) -> None:
        """A remark about the pipeline itself (not one op): emitted at the
        module's location when the next pto pass runs."""
        self.pending_remarks.append(message)


_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


def parse_bool(text: str) -> bool:
    t = text.strip().lower()
    if t in _TRUE:
        return True
    if t in _FALSE:
        return False
    raise OptionError(f"'{text}' is not a boolean (true/false, 1/0, yes/no, on/off)")


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    if len(text) >= 2 and text[0] == "{" and text[-1] == "}":
        return text[1:-1]
    return text


def split_options(text: str) -> list[tuple[str, str | None]]:
    """`a=1 b="x y" c={1,2} d` -> [(a, 1), (b, x y), (c, 1,2), (d, None)]."""
    items: list[tuple[str, str | None]] = []
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i] in " \t\n,":
            i += 1
        if i >= n:
            break
        start = i
        while i < n and text[i] not in "= \t\n":
            i += 1
        key = text[start:i]
        if i < n and text[i] == "=":
            i += 1
            vstart, depth, quote = i, 0, None
            while i < n:
                c = text[i]
                if quote:
                    if c == quote:
                        quote = None
                elif c in "'\"":
                    quote = c
                elif c == "{":
                    depth += 1
                elif c == "}":
                    depth -= 1
                elif c in " \t\n" and depth == 0:
                    break
                i += 1
            if quote or depth:
                raise OptionError(f"unbalanced quotes or braces in option '{key}'")
            items.append((key, _unquote(text[vstart:i])))
        else:
            items.append((key, None))
    return items


def _option_fields(cls) -> list[dataclasses.Field]:
    return [f for f in dataclasses.fields(cls) if f.init]


def option_name(f: dataclasses.Field) -> str:
    return f.name.replace("_", "-")


def _field_type(cls, f: dataclasses.Field):
    hints = typing.get_type_hints(cls)
    t = hints[f.name]
    optional = False
    if typing.get_origin(t) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(t) if a is not type(None)]
        optional = len(args) < len(typing.get_args(t))
        t = args[0]
    return t, optional


def convert_option(cls, f: dataclasses.Field, raw: str | None) -> Any:
    t, optional = _field_type(cls, f)
    if raw is None:
        if t is bool:
            return True
        raise OptionError(f"option '{option_name(f)}' needs a value")
    choices = f.metadata.get("choices")
    if optional and raw == "":
        return None
    if t is bool:
        value = parse_bool(raw)
    elif t is int:
        try:
            value = int(raw, 0)
        except ValueError:
            raise OptionError(f"option '{option_name(f)}': '{raw}' is not an integer") from None
    elif typing.get_origin(t) is tuple:
        value = tuple(v.strip() for v in raw.split(",") if v.strip())
        if choices:
            bad = [v for v in value if v not in choices]
            if bad:
                raise OptionError(
                    f"option '{option_name(f)}': '{bad[0]}' is not one of {', '.join(choices)}"
                )
        return value
    else:
        value = raw
    if choices and value not in choices:
        raise OptionError(f"option '{option_name(f)}': '{raw}' is not one of {', '.join(choices)}")
    return value


def format_option_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value)
    if value is None:
        return ""
    return str(value)


@dataclass
class ModulePass:
    """Base class of every pto pass; runs on the `builtin.module`."""

    name: ClassVar[str] = ""
    records_changes: ClassVar[bool] = False
    """True when `apply` reports every op it creates or changes with
    `ctx.changed(op)` (and changes no op it does not report): the check
    after the pass then looks at those ops only. Ops it leaves alone keep the
    rules they held (a replaced use has the same type)."""

    def apply(self, ctx: PassContext, module: ir.Operation) -> None:
        raise NotImplementedError

    def expand(self, ctx: PassContext) -> list["ModulePass"] | None:
        """A composite pass returns the passes it stands for (scheduled in
        its place, so IR printing and timing see each); others None."""
        return None

    # -- description ----------------------------------------------------------

    @classmethod
    def summary(cls) -> str:
        doc = inspect.getdoc(cls) or ""
        return doc.split("\n", 1)[0].strip()

    @classmethod
    def description(cls) -> str:
        return inspect.getdoc(cls) or ""

    @classmethod
    def options(cls) -> list[tuple[str, str, str, str]]:
        """(name, type, default, help) of every option."""
        out = []
        for f in _option_fields(cls):
            t, optional = _field_type(cls, f)
            tname = {bool: "bool", int: "int", str: "string"}.get(t, "list" if typing.get_origin(t) is tuple else str(t))
            default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
            out.append((option_name(f), tname, format_option_value(default), f.metadata.get("help", "")))
        return out

    # -- options ----------------------------------------------------------------

    @classmethod
    def from_option_text(cls, text: str | None) -> "ModulePass":
        """Build the pass from MLIR pass-option text (`a=1 b=x,y`)."""
        fields = {option_name(f): f for f in _option_fields(cls)}
        kwargs = {}
        for key, raw in split_options(text or ""):
            f = fields.get(key)
            if f is None:
                known = ", ".join(fields) or "none"
                raise OptionError(f"pass '{cls.name}' has no option '{key}' (options: {known})")
            kwargs[f.name] = convert_option(cls, f, raw)
        return cls(**kwargs)

    def option_text(self) -> str:
        parts = [f"{option_name(f)}={format_option_value(getattr(self, f.name))}" for f in _option_fields(self)]
        return " ".join(parts)

    def pipeline_text(self) -> str:
        opts = self.option_text()
        return f"{self.name}{{{opts}}}" if opts else self.name
