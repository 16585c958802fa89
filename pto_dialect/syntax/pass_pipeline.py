"""The one grammar of pass pipelines and pass options, as MLIR writes them.

    pipeline := element (',' element)*          (may be empty)
    element  := NAME ['{' options '}']          a pass with options
              | NAME '(' pipeline ')'           an op-anchored nested pipeline
    options  := option*                         separated by blanks (stray commas allowed)
    option   := KEY ['=' value]
    value    := up to a blank outside quotes ('...' or "...") and braces ({...});
                one outer pair of quotes or braces is removed

`pto-opt --pass-pipeline=...`, the pass flags `--PASS`, `--PASS=OPTS` and
`--PASS{OPTS}`, and every pass's option text are read here and nowhere else
(docs/tools.md, "Pass pipelines"). The parser keeps no Python recursion, so
nesting depth costs no stack; it stops at `MAX_NESTING` levels with an error
at the column where the limit is crossed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_NESTING = 1000
"""Deepest nesting of `anchor(...)` accepted in a pipeline (as for source text)."""

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.$")
_BLANKS = " \t\n"


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
        return f"MLIR Textual PassPipeline Parser:1:{self.col}: error: {self}\n{self.text}\n{' ' * (self.col - 1)}^"


class OptionError(ValueError):
    """Pass option text that does not parse, or names no option of the pass."""


@dataclass
class PipelineElement:
    """`name`, `name{options}` or `name(children)` in a pipeline.

    `options` is the raw text between the braces (None without braces);
    `text` is the element as written, which upstream passes are given
    verbatim; `col` is its 1-based column in the pipeline text.
    """

    name: str
    options: str | None = None
    children: list[PipelineElement] | None = None
    col: int = 1
    text: str = ""

    def __post_init__(self) -> None:
        if not self.text:
            self.text = self.name if self.options is None else f"{self.name}{{{self.options}}}"

    def walk(self):
        """This element and every element nested in it, without recursion."""
        work = [self]
        while work:
            element = work.pop()
            yield element
            work.extend(reversed(element.children or ()))


def _skip_blanks(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _BLANKS:
        pos += 1
    return pos


def _scan_value(text: str, pos: int, stop_at_blank: bool) -> tuple[int, bool]:
    """From `pos`, the end of a value (quotes and braces balanced) and
    whether it closed: the first blank outside quotes and braces when
    `stop_at_blank`, else the `}` that closes a brace opened before `pos`."""
    depth = 0 if stop_at_blank else 1
    quote = None
    while pos < len(text):
        c = text[pos]
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0 and not stop_at_blank:
                return pos, True
        elif stop_at_blank and depth == 0 and c in _BLANKS:
            break
        pos += 1
    return pos, quote is None and depth == (0 if stop_at_blank else -1)


def braced_end(text: str, open_at: int) -> int | None:
    """The index of the `}` closing the `{` at `open_at`, or None."""
    end, closed = _scan_value(text, open_at + 1, stop_at_blank=False)
    return end if closed else None


def _unquote(text: str) -> str:
    if len(text) >= 2 and ((text[0] == text[-1] and text[0] in "'\"") or (text[0] == "{" and text[-1] == "}")):
        return text[1:-1]
    return text


def parse_options(text: str) -> list[tuple[str, str | None]]:
    """`a=1 b="x y" c={1,2} d` -> [(a, 1), (b, x y), (c, 1,2), (d, None)]."""
    items: list[tuple[str, str | None]] = []
    pos, n = 0, len(text)
    while pos < n:
        while pos < n and text[pos] in " \t\n,":
            pos += 1
        if pos >= n:
            break
        start = pos
        while pos < n and text[pos] not in "= \t\n":
            pos += 1
        key = text[start:pos]
        if pos < n and text[pos] == "=":
            end, closed = _scan_value(text, pos + 1, stop_at_blank=True)
            if not closed:
                raise OptionError(f"unbalanced quotes or braces in option '{key}'")
            items.append((key, _unquote(text[pos + 1 : end])))
            pos = end
        else:
            items.append((key, None))
    return items


def parse_flag(body: str, where: str) -> PipelineElement:
    """A pass flag without its dashes: `name`, `name=options` or
    `name{options}`. `where` names the flag in errors."""
    brace, eq = body.find("{"), body.find("=")
    if brace != -1 and (eq == -1 or brace < eq):
        end = braced_end(body, brace)
        if end is None or end != len(body) - 1:
            raise PipelineError(f"unbalanced '{{' in {where}")
        return PipelineElement(body[:brace], body[brace + 1 : end], text=body)
    if eq != -1:
        return PipelineElement(body[:eq], body[eq + 1 :])
    return PipelineElement(body)


@dataclass
class _Open:
    """An `anchor(` whose children are being read."""

    element: PipelineElement
    start: int  # offset of the anchor's name
    paren: int  # offset of its '('
    children: list[PipelineElement] = field(default_factory=list)


def parse_pipeline(text: str) -> list[PipelineElement]:
    """Parse MLIR's textual pipeline syntax into elements (no wrapper is
    removed: that is the caller's business)."""

    def fail(message: str, at: int) -> PipelineError:
        return PipelineError(message, at + 1, text)

    top: list[PipelineElement] = []
    stack: list[_Open] = []
    pos = _skip_blanks(text, 0)
    if pos == len(text):
        return top
    n = len(text)
    while True:
        siblings = stack[-1].children if stack else top
        pos = _skip_blanks(text, pos)
        if stack and not siblings and pos < n and text[pos] == ")":
            pass  # an empty nested pipeline, e.g. func.func()
        else:
            start = pos
            while pos < n and text[pos] in _NAME_CHARS:
                pos += 1
            name = text[start:pos]
            if not name:
                raise fail("expected a pass or pipeline name", pos)
            pos = _skip_blanks(text, pos)
            if pos < n and text[pos] == "{":
                end = braced_end(text, pos)
                if end is None:
                    raise fail("unbalanced '{' in pass options", pos)
                siblings.append(PipelineElement(name, text[pos + 1 : end], None, start + 1, text[start : end + 1]))
                pos = end + 1
            elif pos < n and text[pos] == "(":
                if len(stack) >= MAX_NESTING:
                    raise fail(f"pipeline nested deeper than {MAX_NESTING} levels is not supported", pos)
                element = PipelineElement(name, None, [], start + 1)
                siblings.append(element)
                stack.append(_Open(element, start, pos))
                pos += 1
                continue
            else:
                siblings.append(PipelineElement(name, None, None, start + 1, name))
        # after an element: ',' continues the list, ')' closes it
        while True:
            pos = _skip_blanks(text, pos)
            if pos < n and text[pos] == ",":
                pos += 1
                break
            if not stack:
                if pos < n:
                    raise fail(f"unexpected '{text[pos]}' in pipeline", pos)
                return top
            if pos >= n or text[pos] != ")":
                raise fail("encountered unbalanced parentheses while parsing pipeline", stack[-1].paren)
            closed = stack.pop()
            closed.element.children = closed.children
            closed.element.text = text[closed.start : pos + 1]
            pos += 1


_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


def parse_bool(text: str) -> bool:
    """A boolean option or flag value, as MLIR's command line takes them."""
    t = text.strip().lower()
    if t in _TRUE:
        return True
    if t in _FALSE:
        return False
    raise OptionError(f"'{text}' is not a boolean (true/false, 1/0, yes/no, on/off)")
