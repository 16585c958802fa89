"""What every pto pass is made of.

A pass is a small frozen dataclass: a `name` (its command-line flag and
pipeline name), typed options as fields, a docstring that is its
documentation (first line: the summary; the rest, with a before/after
example, is what `--list-passes --verbose` and docs/passes.md show), and one
`apply`. The pass object holds its options only: one object serves every
module it runs on (every `--split-input-file` chunk), so whatever a run
computes lives in that run.

    @dataclass(frozen=True)
    class MyPass(ModulePass):
        \"\"\"Summary line. ...\"\"\"
        name: ClassVar[str] = "my-pass"
        level: int = option(1, "how hard to try")

        def apply(self, run: PassRun, module: ir.Operation) -> None: ...

Options parse from MLIR's pass option syntax (`my-pass{level=2 names=a,b}`,
syntax/pass_pipeline.py). This module does not import the MLIR bindings, so
`pto-opt --help` can list the passes' flags without loading them.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from .reports.decisions import PipelineReport
from .support.suggestions import did_you_mean
from .syntax.pass_pipeline import OptionError, parse_bool, parse_options

if TYPE_CHECKING:
    from mlir import ir

__all__ = ["ModulePass", "OptionError", "PassFailed", "PassRun", "option"]


class PassFailed(Exception):
    """Raised by `apply` after it has emitted its error diagnostics."""


def option(default: Any, help: str, **kwargs) -> Any:
    """A pass option: a dataclass field with its help text (and, as
    `choices=`, the values it may take)."""
    if isinstance(default, (list, dict, set)):
        return field(default_factory=lambda: type(default)(default), metadata={"help": help, **kwargs})
    return field(default=default, metadata={"help": help, **kwargs})


@dataclass
class PassRun:
    """What one run of a pass may touch besides the IR: the report that
    collects the passes' decisions as data, whether to say more (`--verbose`),
    for a pass that `records_changes`, the ops it created or changed, which
    are all the verifier looks at afterwards, and whether anyone reads a
    record per placed buffer."""

    report: PipelineReport
    verbose: bool = False
    changed_ops: list | None = None
    buffer_records: bool = True  # a record per placed buffer in the report (FunctionMemory.buffers)

    def changed(self, op) -> None:
        """Record an op the running pass created or changed."""
        if self.changed_ops is not None:
            self.changed_ops.append(op)

    def unchanged(self) -> None:
        """Say that this run changed nothing at all (any pass may): the
        check after it then has nothing to look at."""
        self.changed_ops = []


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
        bad = [v for v in value if choices and v not in choices]
        if bad:
            raise OptionError(f"option '{option_name(f)}': '{bad[0]}' is not one of {', '.join(choices)}")
        return value
    else:
        value = raw
        if choices and value not in choices and value.lower() in choices:
            value = value.lower()  # `arch=A3`, as ptoas reads arch names in any case
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


@dataclass(frozen=True)
class ModulePass:
    """Base class of every pto pass; runs on the `builtin.module`."""

    name: ClassVar[str] = ""
    dependent_dialects: ClassVar[tuple[str, ...]] = ()
    """Dialects `apply` may load (by parsing or building their ops) besides
    those of its input: loaded before the pass manager runs, as MLIR's
    `getDependentDialects` are, since a dialect cannot be loaded while the
    passes run."""
    records_changes: ClassVar[bool] = False
    """True when `apply` reports every op it creates or changes with
    `run.changed(op)` (and changes no op it does not report): the check
    after the pass then looks at those ops only. Ops it leaves alone keep the
    rules they held (a replaced use has the same type)."""

    def apply(self, run: PassRun, module: ir.Operation) -> None:
        raise NotImplementedError(f"pass '{self.name}' has no apply")

    def expand(self, pipeline) -> list[ModulePass] | None:
        """A composite pass returns the passes it stands for, scheduled in
        its place (so IR printing and timing see each); others None.
        `pipeline` is the `pipeline.PipelineRun` being scheduled."""
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
            t, _ = _field_type(cls, f)
            tname = {bool: "bool", int: "int", str: "string"}.get(t, "list" if typing.get_origin(t) is tuple else str(t))
            default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
            out.append((option_name(f), tname, format_option_value(default), f.metadata.get("help", "")))
        return out

    # -- options ----------------------------------------------------------------

    @classmethod
    def from_option_text(cls, text: str | None) -> ModulePass:
        """Build the pass from MLIR pass-option text (`a=1 b=x,y`)."""
        fields = {option_name(f): f for f in _option_fields(cls)}
        kwargs = {}
        for key, raw in parse_options(text or ""):
            f = fields.get(key)
            if f is None:
                known = ", ".join(fields) or "none"
                raise OptionError(f"pass '{cls.name}' has no option '{key}' (options: {known}){did_you_mean(key, fields)}")
            kwargs[f.name] = convert_option(cls, f, raw)
        return cls(**kwargs)
