"""Op formats in ODS's notation, read and printed (docs/dialect.md, "Ops").

An op's format is written as ptoas's ODS writes it:

    `ins` `(` $src `:` qualified(type($src)) `)` `outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict

Elements: `` `lit` `` (a keyword or punctuation; `` ` ` `` forces a space and
```` `` ```` suppresses one), `$x` (an operand group or an attribute of the op),
`type($x)` / `qualified(type($x))` (the type(s) of an operand or result
group; unqualified pto pointer types print stripped, `<f32, gm>`),
`qualified($x)` (an attribute printed in full), `attr-dict`, and optional
groups `( ... )?` whose anchor `^` decides whether they are there. Two
directives cover what ptoas's custom parsers do: `clauses(k1, k2, ...)`
(`k = v` attribute clauses in any order, printed in the listed order) and
`operand-clauses(a, b, ...)` (`a = %v : T` operand clauses). A custom
directive of ptoas's ODS, `custom<Name>($x)`, is read and printed as
`CUSTOM_DIRECTIVES` says (only those it lists).

`Format.read` matches the format at a position of ptoas text and returns
what it found (a `Match`); `Format.write` prints an op's parts back,
spacing them as ODS's generated printers do (OpFormatGen's rule: a space
before an element unless punctuation says otherwise, decided from the
format alone, so a group that is absent still counts). `Format.fit` says
whether a format can print an op's parts at all (every group it has
spelled, none it lacks needed) and `Format.reads_back` whether what it
printed reads back as the same parts: the writer prints an op through a
format only when both hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..support.brackets import balanced_end

# --- elements --------------------------------------------------------------------


@dataclass
class Literal:
    text: str  # "" suppresses a space, " " forces one


@dataclass
class Var:
    """`$name`: an operand group, or an attribute (the op definition says)."""

    name: str
    qualified: bool = False  # attributes: printed in full rather than stripped


@dataclass
class Custom(Var):
    """`custom<Name>($attr)`: an attribute in the notation of one of ptoas's
    custom directives (`CUSTOM_DIRECTIVES`)."""

    directive: str = ""


@dataclass
class TypeOf:
    name: str  # an operand or result group
    qualified: bool = False
    all_results: bool = False
    """`type(results)`: the types of all results (here: of the op's one
    result group), which ODS reads with parseTypeList: at least one."""


@dataclass
class Body:
    """`$name` of one of the op's regions: its body `{ ... }`, which a
    format does not read or write itself (the translation layer does:
    `Format.head`, `Format.tail`, `BODY`)."""

    name: str


BODY = "\x00"
"""What `Format.write` puts where a region's body stands."""


@dataclass
class AttrDict:
    pass


@dataclass
class Optional:
    elements: list
    anchor: object  # the element whose presence decides


@dataclass
class Clauses:
    """`k = v` attribute clauses in any order."""

    names: list[str]


@dataclass
class OperandClauses:
    """`name = %v : T` operand clauses in any order."""

    names: list[str]


class FormatError(ValueError):
    """A format string that does not parse (a bug in the op table)."""


_FORMAT_TOKEN = re.compile(
    r"\s*(?:`(?P<lit>[^`]*)`|\$(?P<var>\w+)|(?P<custom>custom<\w+>)|(?P<kw>qualified|type|attr-dict|clauses|operand-clauses)\b|(?P<p>[()?^,])|(?P<name>[A-Za-z_]\w*))"
)


def parse_format(text: str) -> list:
    """The elements of a format string."""
    tokens = []
    pos = 0
    while pos < len(text.rstrip()):
        m = _FORMAT_TOKEN.match(text, pos)
        if m is None:
            raise FormatError(f"bad format at {pos}: {text[pos:pos + 20]!r}")
        tokens.append((m.lastgroup, m.group(m.lastgroup)))
        pos = m.end()
    elements, rest = _parse_elements(tokens, 0, top=True)
    if rest != len(tokens):
        raise FormatError(f"unbalanced format: {text}")
    return elements


def _parse_elements(tokens, i, top=False):
    out = []
    while i < len(tokens):
        kind, value = tokens[i]
        if kind == "p" and value == ")":
            if top:
                raise FormatError("unbalanced ')'")
            return out, i
        if kind == "lit":
            out.append(Literal(value))
            i += 1
        elif kind == "var":
            out.append(Var(value))
            i += 1
        elif kind == "kw" and value == "attr-dict":
            out.append(AttrDict())
            i += 1
        elif kind == "kw" and value in ("type", "qualified"):
            element, i = _parse_directive(tokens, i)
            out.append(element)
        elif kind == "custom":
            directive = value[len("custom<") : -1]
            if directive not in CUSTOM_DIRECTIVES:
                raise FormatError(f"unknown custom directive {directive!r}")
            if tokens[i + 1 : i + 2] != [("p", "(")] or tokens[i + 2][0] != "var" or tokens[i + 3 : i + 4] != [("p", ")")]:
                raise FormatError(f"custom<{directive}> takes one `($attr)`")
            out.append(Custom(tokens[i + 2][1], directive=directive))
            i += 4
        elif kind == "kw" and value in ("clauses", "operand-clauses"):
            names, i = _parse_name_list(tokens, i + 1)
            out.append(Clauses(names) if value == "clauses" else OperandClauses(names))
        elif kind == "p" and value == "(":
            inner, j = _parse_elements(tokens, i + 1)
            if j >= len(tokens) or tokens[j] != ("p", ")") or j + 1 >= len(tokens) or tokens[j + 1] != ("p", "?"):
                raise FormatError("an optional group is `( ... )?`")
            anchor = next((e for e in inner if getattr(e, "_anchor", False)), None)
            if anchor is None:
                raise FormatError("an optional group needs an anchor `^`")
            out.append(Optional(inner, anchor))
            i = j + 2
        elif kind == "p" and value == "^":
            out[-1]._anchor = True
            i += 1
        else:
            raise FormatError(f"unexpected {value!r} in format")
    return out, i


def _parse_directive(tokens, i):
    kind, value = tokens[i]
    if tokens[i + 1] != ("p", "("):
        raise FormatError(f"{value} needs '('")
    if value == "qualified":
        inner, j = _parse_directive(tokens, i + 2) if tokens[i + 2][0] == "kw" else (Var(tokens[i + 2][1]), i + 3)
        inner.qualified = True
    else:  # type($x)
        inner, j = TypeOf(tokens[i + 2][1]), i + 3
    if tokens[j] != ("p", ")"):
        raise FormatError("unbalanced directive")
    return inner, j + 1


def _parse_name_list(tokens, i):
    if tokens[i] != ("p", "("):
        raise FormatError("a clause list needs '('")
    names, i = [], i + 1
    while tokens[i] != ("p", ")"):
        if tokens[i][0] in ("var", "kw", "name"):
            names.append(tokens[i][1])
        elif tokens[i] != ("p", ","):
            raise FormatError("bad clause list")
        i += 1
    return names, i + 1


# --- what the op definition tells the format -------------------------------------------------


@dataclass
class Groups:
    """What a format needs to know of its op: which names are operand
    groups (and whether variadic), results, and attributes (and how their
    values are spelled)."""

    operands: dict[str, str]  # name -> "single" | "optional" | "variadic"
    results: dict[str, str]
    attributes: dict[str, AttrKind]
    buildable: dict[str, str] = field(default_factory=dict)
    """Operand and result groups of one fixed builtin type (ODS's buildable
    types, `I64`, `Index`): a format need not write their type, and the
    reader knows it."""
    regions: frozenset[str] = frozenset()
    """The op's regions: `$name` of one is where its body stands (`Body`)."""


@dataclass(frozen=True)
class AttrKind:
    """How an attribute of an op is spelled: `kind` is one of `int`
    (with `width`), `bool`, `string`, `symbol`, `array` (`[1, 2]`),
    `dense_i64` (`array<i64: 1, 2>`), `enum` (a `#pto` attribute, `enum`
    naming it), `any`."""

    kind: str
    width: int = 0
    enum: str = ""


# --- reading ---------------------------------------------------------------------------


class SyntaxError_(ValueError):
    """ptoas text that does not match an op's format, at `offset`."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


@dataclass
class Match:
    """What one op's text held, by group; positions are offsets in the text."""

    operands: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    types: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    attributes: dict[str, tuple[str, int]] = field(default_factory=dict)
    attr_dict: tuple[str, int] | None = None
    end: int = 0


_SPACE = re.compile(r"(?:\s|//[^\n]*)*")
_SSA = re.compile(r"%[\w$.\-]+(?:#\d+)?")
_KEYWORD = re.compile(r"[a-zA-Z_][\w$.]*")
_PUNCT_CLOSE = {"<": ">", "(": ")", "[": "]", "{": "}"}


def _skip(text: str, pos: int) -> int:
    return _SPACE.match(text, pos).end()


_TYPE_START = re.compile(r"!?[\w.$]+")


def scan_type(text: str, pos: int) -> int:
    """The end of the type starting at `pos` (builtin, dialect or alias;
    function types are not needed by any format), or -1."""
    m = _TYPE_START.match(text, pos)
    if m is None:
        if text.startswith("<", pos):  # a stripped pto type: <f32, gm>
            return balanced_end(text, pos)
        return -1
    end = m.end()
    if end < len(text) and text[end] == "<":
        return balanced_end(text, end)
    return end


_ATTR_VALUE = re.compile(r'-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|unit|@[\w$.]+|"(?:[^"\\]|\\.)*"|[a-zA-Z_][\w$.]*')


def scan_attribute(text: str, pos: int) -> int:
    """The end of the attribute value at `pos`, or -1."""
    if pos >= len(text):
        return -1
    c = text[pos]
    if c in "#!":
        m = re.compile(r"[#!][\w.]*").match(text, pos)
        end = m.end()
        if end < len(text) and text[end] == "<":
            end = balanced_end(text, end)
        return end
    if c in "<[{":
        return balanced_end(text, pos)
    m = _ATTR_VALUE.match(text, pos)
    if m is None:
        return -1
    end = m.end()
    # a typed integer: `0 : i8`
    t = re.compile(r"\s*:\s*(i\d+|index|f\d+|bf16)\b").match(text, end)
    if t and re.fullmatch(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", m.group(0)):
        end = t.end()
    return end


_STRUCT_PATH = re.compile(r"\[\s*(-?\d+(?:\s*,\s*-?\d+)*)?\s*\]")
_DENSE_I64 = re.compile(r"array<i64(?::\s*(-?\d+(?:\s*,\s*-?\d+)*))?>")


def _read_struct_path(text: str, pos: int) -> tuple[int, str] | None:
    """`[0, 2]` -> (its end, `array<i64: 0, 2>`), or None."""
    m = _STRUCT_PATH.match(text, pos)
    if m is None:
        return None
    indices = re.split(r"\s*,\s*", m.group(1)) if m.group(1) else []
    return m.end(), "array<i64" + (": " + ", ".join(indices) if indices else "") + ">"


def _print_struct_path(value: str) -> str | None:
    """`array<i64: 0, 2>` -> `[0, 2]`, or None for another attribute."""
    m = _DENSE_I64.fullmatch(value.strip())
    if m is None:
        return None
    return "[" + (", ".join(re.split(r"\s*,\s*", m.group(1))) if m.group(1) else "") + "]"


_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_PIPE_TOKEN = re.compile(r"#pto\.pipe<\s*(\w+)\s*>")
_SYNC_OP_TYPES = frozenset(
    "TLOAD TSTORE_ACC TSTORE_VEC TMOV_M2L TMOV_M2S TMOV_M2B TMOV_M2V TMOV_V2M TMATMUL TVEC TVECWAIT_EVENT".split()
)  # PTO_SyncOpTypeEnum, tonibohnlein/PTOAS include/PTO/IR/PTOAttrs.td


def _read_pipe_token(text: str, pos: int) -> tuple[int, str] | None:
    """`"PIPE_MTE2"` -> `#pto.pipe<PIPE_MTE2>`, `"TLOAD"` ->
    `#pto.pipe_event_type<TLOAD>`, or None."""
    from .attributes import attr  # here, not at the top: the one use of the table

    m = _STRING.match(text, pos)
    if m is None:
        return None
    token = m.group(1)
    if token in attr("pipe").values:
        return m.end(), f"#pto.pipe<{token}>"
    if token in _SYNC_OP_TYPES:
        return m.end(), f"#pto.pipe_event_type<{token}>"
    return None


def _print_pipe_token(value: str) -> str | None:
    """`#pto.pipe<PIPE_MTE2>` -> `"PIPE_MTE2"`, or None for another attribute."""
    m = _PIPE_TOKEN.fullmatch(value.strip())
    return f'"{m.group(1)}"' if m else None


CUSTOM_DIRECTIVES = {
    # tonibohnlein/PTOAS lib/PTO/IR/PTO.cpp, parseStructPath / printStructPath:
    # a DenseI64ArrayAttr as a bracketed list of field indices, `[0, 2]`
    "StructPath": (_read_struct_path, _print_struct_path, "'['"),
    # not an ODS directive: the leading token of ptoas's hand-written
    # parseBufSyncOp / parseBufDynSyncOp (lib/PTO/IR/PTO.cpp), a pipe or a sync
    # op type as a string, which printBufSyncOp prints for a pipe
    "PipeToken": (_read_pipe_token, _print_pipe_token, "string pipe or sync op type"),
}
"""The custom directives of ptoas's ODS formats that formats read: name ->
(reader: (text, position) -> (end, the attribute's text) or None, printer:
the attribute's text -> its notation, or None when it has none: the op is
then not printed through the format; what a text lacking it is told it
expected)."""


def _describe(element) -> str:
    if isinstance(element, Custom):
        return CUSTOM_DIRECTIVES[element.directive][2]
    if isinstance(element, Literal):
        return f"'{element.text}'"
    if isinstance(element, Var):
        return "SSA operand" if element.name else "value"
    if isinstance(element, TypeOf):
        return "type"
    if isinstance(element, AttrDict):
        return "attribute dictionary"
    if isinstance(element, Body):
        return "'{' to begin a region"
    return "clause"


def _bind(elements: list, groups: Groups) -> list:
    """The elements with what the op says of their names: `$body` of a
    region is a `Body`, `type(results)` the types of the op's result group."""
    out = []
    for e in elements:
        if type(e) is Var and e.name in groups.regions:
            e = Body(e.name)
        elif isinstance(e, TypeOf) and e.name == "results" and "results" not in groups.results and len(groups.results) == 1:
            e = TypeOf(next(iter(groups.results)), e.qualified, all_results=True)
        elif isinstance(e, Optional):
            inner = _bind(e.elements, groups)
            e = Optional(inner, inner[next(k for k, x in enumerate(e.elements) if x is e.anchor)])
        out.append(e)
    return out


class Format:
    """One op format: its elements, and what the op says of its names."""

    __hash__ = object.__hash__

    def __init__(self, text: str, groups: Groups, elements: list | None = None) -> None:
        self.text = text
        self.groups = groups
        self.elements = _bind(parse_format(text) if elements is None else elements, groups)

    def body_index(self) -> int | None:
        """Where the (one, top-level) region body stands among the elements, or None."""
        return next((k for k, e in enumerate(self.elements) if isinstance(e, Body)), None)

    def head(self) -> Format:
        """The format up to the region body (an op with a region)."""
        return Format(self.text, self.groups, self.elements[: self.body_index()])

    def tail(self) -> Format:
        """The format after the region body."""
        return Format(self.text, self.groups, self.elements[self.body_index() + 1 :])

    # -- reading ---------------------------------------------------------------------

    def read(self, text: str, pos: int, match: Match | None = None) -> Match:
        """Match the format at `pos` (into `match`: what the head of a
        region op's format found). Raises SyntaxError_ at the first
        element that does not match."""
        match = Match() if match is None else match
        match.end = self._read_elements(self.elements, text, pos, match, required=True)
        return match

    def _read_elements(self, elements, text, pos, match, required) -> int:
        k = 0
        ends: list[int] = []  # where each element ended
        while k < len(elements):
            element = elements[k]
            new = self._read_element(element, text, pos, match)
            if new < 0:
                # A variadic group before may have taken what this element
                # needed (`ins(%srcs..., %len : ...)`): give its last operand back.
                back = self._give_back(elements, k, match)
                if back is not None:
                    k, pos = back
                    del ends[k:]
                    continue
                if not required and k == 0:
                    return -1
                raise SyntaxError_(f"expected {_describe(element)}", _skip(text, pos))
            ends.append(new)
            pos = new
            k += 1
        return pos

    def _give_back(self, elements, failed: int, match: Match):
        """(element to resume at, position) after the nearest variadic
        operand group before `failed` gives back its last operand, or None."""
        for i in range(failed - 1, -1, -1):
            e = elements[i]
            if isinstance(e, Var) and self.groups.operands.get(e.name) == "variadic":
                taken = match.operands.get(e.name, [])
                if len(taken) < 2:
                    return None
                taken.pop()
                ssa, at = taken[-1]
                return i + 1, at + len(ssa)
            if not isinstance(e, Literal):
                return None
        return None

    def _read_element(self, element, text, pos, match) -> int:
        if isinstance(element, Literal):
            if element.text in ("", " "):
                return pos
            pos = _skip(text, pos)
            lit = element.text
            if lit[0].isalpha() or lit[0] == "_":
                m = _KEYWORD.match(text, pos)
                return m.end() if m and m.group(0) == lit else -1
            return pos + len(lit) if text.startswith(lit, pos) else -1
        if isinstance(element, Optional):
            saved = _copy(match)
            end = self._read_elements(element.elements, text, pos, match, required=False)
            if end < 0:
                _restore(match, saved)
                return pos
            return end
        before, pos = pos, _skip(text, pos)
        if isinstance(element, Custom):
            read = CUSTOM_DIRECTIVES[element.directive][0](text, pos)
            if read is None:
                return -1
            end, value = read
            match.attributes[element.name] = (value, pos)
            return end
        if isinstance(element, Var):
            if element.name in self.groups.attributes:
                end = scan_attribute(text, pos)
                if end < 0:
                    return -1
                match.attributes[element.name] = (text[pos:end], pos)
                return end
            end = self._read_operands(element.name, text, pos, match)
            return before if end == pos else end  # an empty variadic group consumes nothing
        if isinstance(element, TypeOf):
            end = self._read_types(element.name, text, pos, match)
            if element.all_results and end == pos:
                return -1  # parseTypeList: at least one type
            return before if end == pos else end
        if isinstance(element, Body):
            # a body is the translation layer's to read; what `write` put in its place reads back
            return pos + len(BODY) if text.startswith(BODY, pos) else -1
        if isinstance(element, AttrDict):
            if not text.startswith("{", pos):
                return before  # attr-dict is always optional: nothing consumed
            end = balanced_end(text, pos)
            if end < 0:
                raise SyntaxError_("unbalanced '{' in attribute dictionary", pos)
            match.attr_dict = (text[pos:end], pos)
            return end
        if isinstance(element, Clauses):
            end = self._read_clauses(element, text, pos, match)
            return before if end == pos else end
        if isinstance(element, OperandClauses):
            end = self._read_operand_clauses(element, text, pos, match)
            return before if end == pos else end
        raise FormatError(f"unknown element {element}")

    def _read_operands(self, name, text, pos, match) -> int:
        kind = self.groups.operands.get(name, "single")
        found = []
        m = _SSA.match(text, pos)
        if m is None:
            if kind == "variadic":
                match.operands[name] = []
                return pos
            return -1
        found.append((m.group(0), pos))
        pos = m.end()
        if kind == "variadic":
            while True:
                after = _skip(text, pos)
                if not text.startswith(",", after):
                    break
                nxt = _skip(text, after + 1)
                m = _SSA.match(text, nxt)
                if m is None:
                    break
                found.append((m.group(0), nxt))
                pos = m.end()
        match.operands[name] = found
        return pos

    def _read_types(self, name, text, pos, match) -> int:
        variadic = self.groups.operands.get(name) == "variadic" or self.groups.results.get(name) == "variadic"
        found = []
        end = scan_type(text, pos)
        if end < 0:
            if variadic:
                match.types[name] = []
                return pos
            return -1
        found.append((text[pos:end], pos))
        pos = end
        if variadic:
            count = len(match.operands.get(name, ())) if name in self.groups.operands else None
            while count is None or len(found) < count:
                after = _skip(text, pos)
                if not text.startswith(",", after):
                    break
                nxt = _skip(text, after + 1)
                end = scan_type(text, nxt)
                if end < 0:
                    break
                found.append((text[nxt:end], nxt))
                pos = end
        match.types[name] = found
        return pos

    def _read_clauses(self, element, text, pos, match) -> int:
        last = pos
        while True:
            pos = _skip(text, pos)
            m = _KEYWORD.match(text, pos)
            if m is None or m.group(0) not in element.names:
                if m is not None and last != pos:
                    raise SyntaxError_(f"unexpected keyword '{m.group(0)}'", pos)
                return last
            key = m.group(0)
            if key in match.attributes:
                raise SyntaxError_(f"duplicate '{key}' clause", pos)
            eq = _skip(text, m.end())
            if not text.startswith("=", eq):
                raise SyntaxError_("expected '='", eq)
            value_at = _skip(text, eq + 1)
            end = scan_attribute(text, value_at)
            if end < 0:
                raise SyntaxError_("expected attribute value", value_at)
            match.attributes[key] = (text[value_at:end], value_at)
            last = end
            comma = _skip(text, end)
            if not text.startswith(",", comma):
                return last
            pos = comma + 1

    def _read_operand_clauses(self, element, text, pos, match) -> int:
        last = pos
        while True:
            pos = _skip(text, pos)
            m = _KEYWORD.match(text, pos)
            if m is None or m.group(0) not in element.names:
                if m is not None:
                    raise SyntaxError_(f"unexpected keyword '{m.group(0)}'", pos)
                return last
            key = m.group(0)
            if key in match.operands:
                raise SyntaxError_(f"duplicate '{key}' clause", pos)
            eq = _skip(text, m.end())
            if not text.startswith("=", eq):
                raise SyntaxError_("expected '='", eq)
            at = _skip(text, eq + 1)
            ssa = _SSA.match(text, at)
            if ssa is None:
                raise SyntaxError_("expected SSA operand", at)
            colon = _skip(text, ssa.end())
            if not text.startswith(":", colon):
                raise SyntaxError_("expected ':'", colon)
            type_at = _skip(text, colon + 1)
            end = scan_type(text, type_at)
            if end < 0:
                raise SyntaxError_("expected type", type_at)
            match.operands[key] = [(ssa.group(0), at)]
            match.types[key] = [(text[type_at:end], type_at)]
            last = end
            comma = _skip(text, end)
            if not text.startswith(",", comma):
                return last
            pos = comma + 1

    # -- writing ---------------------------------------------------------------------

    def fit(self, parts: Parts) -> frozenset[str] | None:
        """Whether this format prints `parts` losslessly: every operand and
        result group it has is spelled, none it lacks is needed, and an
        attribute of the op the format does not spell has an attr-dict to go
        to. Returns the op's attributes this format leaves to its attr-dict
        (a set, maybe empty), or None when the format does not fit."""
        printed: set[str] = set()  # operand and result groups
        spelled: set[str] = set()  # attributes
        sequence: list = []  # the elements printed, in order
        attr_dict = False
        groups = self.groups

        def visit(elements, printing) -> bool:
            nonlocal attr_dict
            for e in elements:
                if isinstance(e, Optional):
                    if not visit(e.elements, printing and self._present(e.anchor, parts)):
                        return False
                    continue
                if not printing:
                    continue
                sequence.append(e)
                if isinstance(e, Var):
                    if e.name in groups.attributes:
                        if e.name not in parts.attributes and e.name not in parts.defaults:
                            return False
                        if isinstance(e, Custom) and CUSTOM_DIRECTIVES[e.directive][1](parts.attribute_text(e.name, True)) is None:
                            return False  # a value the directive has no notation for
                        spelled.add(e.name)
                    else:
                        if groups.operands.get(e.name) != "variadic" and len(parts.operands.get(e.name) or ()) != 1:
                            return False
                        printed.add(e.name)
                elif isinstance(e, TypeOf):
                    types = parts.operand_types.get(e.name) if e.name in groups.operands else parts.result_types.get(e.name)
                    kind = groups.operands.get(e.name) or groups.results.get(e.name)
                    if kind != "variadic" and len(types or ()) != 1:
                        return False
                    if e.all_results and not types:
                        return False  # what ODS prints then (`} : `) its parser does not read
                    if e.name in groups.operands and len(types or ()) != len(parts.operands.get(e.name) or ()):
                        return False
                    printed.add(e.name)
                elif isinstance(e, Clauses):
                    spelled.update(k for k in e.names if k in parts.attributes)
                elif isinstance(e, OperandClauses):
                    printed.update(k for k in e.names if parts.operands.get(k))
                elif isinstance(e, AttrDict):
                    attr_dict = True
            return True

        if not visit(self.elements, True):
            return None
        # an empty variadic group next to a comma leaves the comma dangling: `ins(, %n : , i32)`
        for k, e in enumerate(sequence):
            if isinstance(e, (Var, TypeOf)) and not (parts.operands.get(e.name) or parts.result_types.get(e.name) or e.name in parts.attributes):
                neighbours = sequence[k - 1 : k] + sequence[k + 1 : k + 2]
                if any(isinstance(n, Literal) and n.text == "," for n in neighbours):
                    return None
        if any(values and name not in printed for name, values in parts.operands.items()):
            return None
        if any(values and name not in printed and not self._implied(name, values) for name, values in parts.result_types.items()):
            return None
        rest = frozenset(k for k in parts.attributes if k not in spelled and k not in parts.filled)
        if rest and not attr_dict:
            return None
        return rest

    def _implied(self, name: str, types) -> bool:
        """Whether a group's types need no spelling: its one buildable type."""
        fixed = self.groups.buildable.get(name)
        return fixed is not None and all(t == fixed for t in types)

    def reads_back(self, text: str, parts: Parts, rest: frozenset[str] = frozenset()) -> bool:
        """Whether `text` (what `write` made of `parts`, `rest` being the
        format attributes left to the attr-dict) reads back through this
        format as the same groups: each operand group the same SSA names,
        each result group as many types, the same attributes spelled."""
        try:
            match = self.read(text, 0)
        except SyntaxError_:
            return False
        if _skip(text, match.end) != len(text):
            return False
        for name in self.groups.operands:
            if [ssa for ssa, _ in match.operands.get(name, ())] != list(parts.operands.get(name) or ()):
                return False
        for name in self.groups.results:
            types = parts.result_types.get(name) or ()
            if len(match.types.get(name, ())) != len(types) and not (not match.types.get(name) and self._implied(name, types)):
                return False
        written = set(parts.attributes) - rest
        if not written <= set(match.attributes) <= written | set(parts.defaults):
            return False
        return (match.attr_dict is not None) == bool(parts.extra_attributes)

    def write(self, parts: Parts) -> str:
        """The op's ptoas text after its name, spaced as ODS prints it."""
        out: list[str] = []
        state = _Spacing()
        self._write_elements(self.elements, parts, out, state, printing=True)
        return "".join(out)

    def _present(self, element, parts: Parts) -> bool:
        if isinstance(element, Var):
            if element.name in self.groups.attributes:
                return element.name in parts.attributes
            return bool(parts.operands.get(element.name))
        if isinstance(element, TypeOf):
            return bool(parts.operand_types.get(element.name) or parts.result_types.get(element.name))
        if isinstance(element, Literal):
            return True
        return False

    def _write_elements(self, elements, parts, out, state, printing) -> None:
        for element in elements:
            self._write_element(element, parts, out, state, printing)

    def _write_element(self, element, parts, out, state, printing) -> None:
        if isinstance(element, Literal):
            if element.text == "":
                state.should_space = False
                return
            if element.text == " ":
                if printing:
                    out.append(" ")
                state.should_space = False
                state.last_punct = False
                return
            lit = element.text
            if printing and state.should_space and _space_before(lit, state.last_punct):
                out.append(" ")
            if printing:
                out.append(lit)
            state.should_space = len(lit) != 1 or lit not in "<({["
            state.last_punct = lit[0] != "_" and not lit[0].isalpha()
            return
        if isinstance(element, Optional):
            present = printing and self._present(element.anchor, parts)
            self._write_elements(element.elements, parts, out, state, present)
            return
        if isinstance(element, AttrDict):
            if printing:
                out.append(parts.attr_dict_text())
            state.last_punct = False
            return
        if printing and (state.should_space or not state.last_punct):
            out.append(" ")
        state.last_punct = False
        state.should_space = True
        if not printing:
            return
        if isinstance(element, Body):
            out.append(BODY)
        elif isinstance(element, Custom):
            out.append(CUSTOM_DIRECTIVES[element.directive][1](parts.attribute_text(element.name, True)))
        elif isinstance(element, Var):
            if element.name in self.groups.attributes:
                out.append(parts.attribute_text(element.name, element.qualified))
            else:
                out.append(", ".join(parts.operands.get(element.name, ())))
        elif isinstance(element, TypeOf):
            types = parts.operand_types.get(element.name) or parts.result_types.get(element.name) or []
            out.append(", ".join(parts.type_text(t, element.qualified) for t in types))
        elif isinstance(element, Clauses):
            out.append(", ".join(f"{k} = {parts.attribute_text(k, True)}" for k in element.names if k in parts.attributes))
        elif isinstance(element, OperandClauses):
            out.append(
                ", ".join(
                    f"{k} = {parts.operands[k][0]} : {parts.type_text(parts.operand_types[k][0], True)}"
                    for k in element.names
                    if parts.operands.get(k)
                )
            )


@dataclass
class _Spacing:
    should_space: bool = True
    last_punct: bool = False


def _space_before(lit: str, last_punct: bool) -> bool:
    """OpFormatGen's `shouldEmitSpaceBefore`."""
    if len(lit) != 1 and lit != "->":
        return True
    if last_punct:
        return lit[0] not in ">)}],"
    return lit[0] not in "<>(){}[],"


def _copy(match: Match) -> tuple:
    return (dict(match.operands), dict(match.types), dict(match.attributes), match.attr_dict)


def _restore(match: Match, saved: tuple) -> None:
    match.operands, match.types, match.attributes, match.attr_dict = (dict(saved[0]), dict(saved[1]), dict(saved[2]), saved[3])


@dataclass
class Parts:
    """An op's parts as the writer has them from MLIR's generic print: the
    operand names and types by group, result types by group, and the
    attributes (name -> ptoas text), with what spells them."""

    operands: dict[str, list[str]]
    operand_types: dict[str, list[str]]
    result_types: dict[str, list[str]]
    attributes: dict[str, str]  # format attributes, ptoas text (full form)
    extra_attributes: list[tuple[str, str]]  # the attr-dict: (name, ptoas text)
    stripped: dict[str, str] = field(default_factory=dict)  # format attributes: stripped text
    stripped_types: dict[str, str] = field(default_factory=dict)  # full type text -> stripped
    filled: frozenset[str] = frozenset()  # format attributes the op lacks, set to what ptoas always prints
    defaults: dict[str, str] = field(default_factory=dict)
    """Format attributes with a default value, and how it is printed: what
    a format that always spells one prints when the op lacks it."""
    entries: list[tuple[str, str, str | None]] = field(default_factory=list)
    """(name, ptoas key, ptoas text) of every attribute an attr-dict may
    print, in the op's order: where a format that does not spell a format
    attribute puts it."""

    def attr_dict_text(self) -> str:
        if not self.extra_attributes:
            return ""
        return " {" + ", ".join(f"{k} = {v}" if v is not None else k for k, v in self.extra_attributes) + "}"

    def attribute_text(self, name: str, qualified: bool) -> str:
        if not qualified and name in self.stripped:
            return self.stripped[name]
        if name not in self.attributes:
            return self.defaults[name]  # a default-valued attribute a format always spells
        return self.attributes[name]

    def type_text(self, text: str, qualified: bool) -> str:
        if qualified:
            return text
        return self.stripped_types.get(text, text)
