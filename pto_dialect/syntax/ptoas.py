"""The translation layer between ptoas's syntax and the generic form MLIR's
parser reads and its printer writes (docs/dialect.md, "Two spellings").

`to_generic(text)` (the reader) rewrites every pto op written in ptoas
syntax into MLIR's generic op form, and every pto type and attribute into
its generic spelling; everything else (upstream ops, comments, generic pto
ops) is copied. No line is added or removed, and an op's name keeps its
column, so the parser's locations are the user's; `Translation.original`
maps any other (line, column) of the generic text back. Errors in ptoas
syntax are found here, with ptoas's messages, at the user's position.

`to_ptoas(text)` (the writer) is the inverse on what MLIR prints: each
generic pto op becomes ptoas syntax, each generic pto type and attribute
its ptoas spelling, as ptoas's printer writes them.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from operator import itemgetter
from typing import NamedTuple

from ..dialect import attributes as pto_attributes
from ..dialect.formats import BODY, Match, Parts, SyntaxError_, scan_attribute
from ..dialect.formats import _skip as _skip_space
from ..dialect.ops import BUILDABLE, IMPLICIT_TERMINATOR, LOCAL_ARRAY, OPS, PTR, OpDef, op_def, ptoas_op_def
from ..dialect.types import DYNAMIC, HandleType, PtrType, TileBufType, TypeSyntaxError, ViewType, parse_generic_type, parse_ptoas_type, parse_stripped_ptr
from ..support.brackets import balanced_end, split_top
from ..support.source_text import integer_literal

__all__ = ["ERROR_LIMIT", "SyntaxProblem", "Translation", "reported_problems", "to_generic", "to_ptoas"]


@dataclass(frozen=True)
class SyntaxProblem:
    """An error in ptoas syntax, at an offset of the translated text's
    source."""

    offset: int
    message: str


ERROR_LIMIT = 20
"""How many syntax errors one input reports before "too many errors" (as
clang's -ferror-limit, whose default is 20; MLIR's parser stops at its first)."""


def reported_problems(problems: Sequence[SyntaxProblem], text: str) -> tuple[list[SyntaxProblem], SyntaxProblem | None]:
    """The problems worth reporting: the first of each statement (a line
    of the source: one bad op or signature says one thing, not one per bad
    type in it), at most ERROR_LIMIT of them; and the first left out (None: none was)."""
    seen: set[int] = set()
    kept: list[SyntaxProblem] = []
    for problem in sorted(problems, key=lambda p: p.offset):
        line = text.count("\n", 0, problem.offset)
        if line in seen:
            continue
        seen.add(line)
        if len(kept) == ERROR_LIMIT:
            return kept, problem
        kept.append(problem)
    return kept, None


class _OpAnchor(tuple):
    """An op translated from its template, (pieces, order, parts, start):
    its source text split around its SSA names (`parts`: text, name, text,
    ...), to map an offset inside its generic text back. (A tuple: one is
    made per op.)"""

    __slots__ = ()

    def original(self, offset: int) -> int:
        """The source offset of `offset` into the op's generic text: an SSA
        name maps into itself, anything else to the op's start."""
        pieces, order, parts, start = self
        name_starts, at = [], start
        for k, part in enumerate(parts):
            if k % 2:
                name_starts.append(at)
            at += len(part)
        names = parts[1::2]
        at = len(pieces[0])
        for k, j in enumerate(order):
            if at <= offset < at + len(names[j]):
                return name_starts[j] + (offset - at)
            at += len(names[j]) + len(pieces[k + 1])
        return start


@dataclass
class Translation:
    """The generic text of a source, and how to find the source's
    positions again."""

    text: str
    problems: list[SyntaxProblem] = field(default_factory=list)
    # Parallel lists, by generic offset: where each piece of the generic text
    # came from, and whether it is a verbatim copy (so offsets inside map 1:1).
    _gen: list[int] = field(default_factory=list)
    _orig: list[int] = field(default_factory=list)
    _copied: list[bool] = field(default_factory=list)
    _source: str = ""
    # The reader of whole sources (`_Reader.run_by_lines`) records only what
    # it translated, in order (`_settle` says how); the lists above are made
    # from that record the first time a diagnostic needs them, which most
    # runs never do.
    _record: list | None = None

    def _settle(self) -> None:
        """Make the map's lists from the reader's record: the text between
        two translated pieces is a verbatim copy; an op line made from its
        template is one anchor at its op (`_OpAnchor`); a piece translated
        with its own map (`_Spliced`) brings that map."""
        record, self._record = self._record, None
        gen_at, orig_at, copied_at = self._gen, self._orig, self._copied
        src = self._source
        gen = copy_from = 0

        def copy(upto: int) -> None:
            nonlocal gen
            if upto > copy_from:
                gen_at.append(gen)
                orig_at.append(copy_from)
                copied_at.append(True)
                gen += upto - copy_from

        for entry in record:
            if entry.__class__ is _Spliced:
                copy(entry.start)
                inner = entry.translation
                base = entry.base
                for g, o, c in zip(inner._gen, inner._orig, inner._copied):
                    gen_at.append(gen + g)
                    orig_at.append(o + base)
                    if isinstance(c, _OpAnchor) and base:
                        pieces, order, parts, op_start = c
                        c = _OpAnchor((pieces, order, parts, op_start + base))
                    copied_at.append(c)
                gen += len(inner.text)
                copy_from = entry.end
                continue
            line_start, line, plan = entry
            pieces, order = plan.pieces, plan.order
            head = _OP_LINE.match(line).end(1)
            start = line_start + head
            text = line[head:].rstrip()
            parts = _SSA_SPLIT.split(text)
            copy(start)
            gen_at.append(gen)
            orig_at.append(start)
            copied_at.append(_OpAnchor((pieces, order, parts, start)))
            names = parts[1::2]
            gen += sum(map(len, pieces)) + sum(len(names[j]) for j in order)
            copy_from = start + len(text)
        copy(len(src))

    def original_offset(self, offset: int) -> int:
        """The source offset of a generic-text offset."""
        if self._record is not None:
            self._settle()
        if not self._gen:
            return offset
        i = bisect_right(self._gen, offset) - 1
        if i < 0:
            return offset
        copied = self._copied[i]
        if isinstance(copied, _OpAnchor):
            return copied.original(offset - self._gen[i])
        return self._orig[i] + (offset - self._gen[i]) if copied else self._orig[i]

    def original(self, line: int, col: int, first_line: int = 1) -> tuple[int, int]:
        """The source (line, col) of a generic-text (line, col); lines are
        numbered from `first_line` in both."""
        if self._record is not None:
            self._settle()
        if not self._gen:
            return line, col
        offset = _offset_of(self.text, line - first_line + 1, col)
        if offset is None:
            return line, col
        orig = self.original_offset(offset)
        src_line, src_col = _line_col(self._source, orig)
        return src_line + first_line - 1, src_col


@dataclass(frozen=True)
class _Spliced:
    """In a reader's record: the source text [start, end) translated with a
    map of its own, whose source offsets are `base` less than the source's."""

    start: int
    end: int
    base: int
    translation: Translation


def _offset_of(text: str, line: int, col: int) -> int | None:
    pos = 0
    for _ in range(line - 1):
        pos = text.find("\n", pos)
        if pos < 0:
            return None
        pos += 1
    return pos + col - 1


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


# --- reading ptoas syntax ---------------------------------------------------------------------

_SSA_NAME = re.compile(r"%[\w$.\-]+(?:#\d+)?")
# A line that is one pto op (and its results): what `run_by_lines` reads
# through the op's template.
_OP_LINE = re.compile(r"([ \t]*(?:%[\w$.\-]+(?::\d+)?(?:[ \t]*,[ \t]*%[\w$.\-]+(?::\d+)?)*[ \t]*=[ \t]*)?)(pto\.[\w.]+)(?=[ \t(<{\[]|$)")
_CONTINUATION = re.compile(r"[ \t]*(?:outs\b|->|:|,|\)|\{)")
"""A line that can only carry on the op of the line before (ptoas text
wraps an op's `ins(...)` and `outs(...)` over lines, and puts its attribute
dictionary on a line of its own: PTOAS test/lit/pto/*.pto; a region never
opens on a line of its own in text ptoas or MLIR prints)."""
_ATTRS_NEXT = re.compile(r"\n[ \t]*\{")
_ATTR_ENTRY = re.compile(r"[ \t]*[A-Za-z_][\w.$\-]*[ \t]*=(?!=)")
"""A line that is an entry of an attribute dictionary (`split = 1`): the
`{` that ends the line before opens a dictionary, not a region (no op
begins with a bare word and `=`)."""
"""At a line's end: the next line is the op's attribute dictionary."""
_MAX_CHUNK_LINES = 10000
"""How many lines an open bracket may carry the general scan on for."""
_SSA_SPLIT = re.compile(r"(%[\w$.\-]+(?:#\d+)?)")
_SSA_SPLIT_NO_HASH = re.compile(r"(%[\w$.\-]+)")
"""`_SSA_SPLIT` for a line without `#`: the same split, in two thirds of
the time (Python's re is slow at an optional group)."""
# An op's shape is its text around its SSA names, joined with `%`: an op
# with a `%` that starts no name (a typo, or in a string) would have the
# shape of an op with one name more, and be filled from its template.
# Such an op is translated on its own.


def _filler(pieces: Sequence[str], order: Sequence[int], count: int) -> tuple[str, Callable]:
    """A template's pieces and name order as (pattern, pick): `pattern %
    pick(names)` is the template filled with an op's `count` SSA names, in
    one C call (`%` takes about half the time of `str.format`); `pick` puts
    the names in the template's order (`tuple` when that is theirs)."""
    pattern = "%s".join(p.replace("%", "%%") for p in pieces)
    if tuple(order) == tuple(range(count)):
        return pattern, tuple
    if len(order) > 1:
        return pattern, itemgetter(*order)  # (a tuple, from two items on)
    return pattern, lambda names: tuple(names[j] for j in order)


_PLACEHOLDER = re.compile(r"%pto_ssa_(\d+)_")

# --- plans: what the reader does with a line, decided once per line shape ----------------------
#
# What `run_by_lines` does with a line of pto text depends only on its shape
# (its text around its SSA names), on the type aliases in scope and, for an
# op whose result type is inferred from constant sizes, on those constants'
# values: never on the line's position, its SSA names or anything else of
# one run. So a plan is made once per shape and kept in a `_PlanScope`,
# shared by every run with the same aliases (an embedded user translates many
# kernels in one process). A plan is not a second reading of the syntax: it is
# what the general scan (`_Reader.run`) did with the shape itself, its names
# replaced by placeholders (`_Reader.line_plan`), so the line loop and the
# scan cannot disagree.


class _OpTemplate(NamedTuple):
    """An op's generic text split around its SSA names: `pieces[0]`, then
    name `order[k]` and `pieces[k + 1]` for each k; `pattern % pick(names)`
    is the same in one C call (`_filler`)."""

    pieces: tuple[str, ...]
    order: tuple[int, ...]
    pattern: str
    pick: Callable


class _CopyLine(NamedTuple):
    """The scan translates nothing: the line is copied. It may define
    integer constants (`constants`: the index of the line's SSA name that
    each defines, and its value) or begin a function (whose constants are
    its own)."""

    constants: tuple[tuple[int, int], ...] = ()
    begins_function: bool = False


class _ScanLine(NamedTuple):
    """Anything else: the general scan (`_Reader.run`) on the line and the
    lines an open bracket carries it on to."""


class _FilledLine(NamedTuple):
    """One op, from its template: the whole generic line as a `_filler`
    (the line's results, indentation and trailing blanks kept); `pieces`
    and `order` are the op's own template (`_OpTemplate`), for the map."""

    pattern: str
    pick: Callable
    pieces: tuple[str, ...]
    order: tuple[int, ...]


class _ConstantsDecide(NamedTuple):
    """A line whose translation depends on the constants its SSA names
    stand for (an op whose result type ptoas infers from constant sizes):
    planned per tuple of their values (`_Reader.inferred_plan`)."""


_COPY_LINE = _CopyLine()
_SCAN_LINE = _ScanLine()
_CONSTANTS_DECIDE = _ConstantsDecide()


class _AskedConstants(dict):
    """The constants a plan's scan knows, noting whether it asked for any
    (then the plan depends on their values: `_ConstantsDecide`)."""

    __slots__ = ("asked",)

    def __init__(self, known=()) -> None:
        super().__init__(known)
        self.asked = False

    def get(self, key, default=None):
        self.asked = True
        return super().get(key, default)


_PLANS_PER_SCOPE = 1 << 14
"""How many plans (of lines, of ops) a scope keeps: beyond, the oldest go.
A kernel has a few hundred shapes; the bound is for a process that
translates an unbounded stream of distinct ones."""
_SCOPES_KEPT = 64
"""How many alias scopes are kept (most sources define no alias: one scope)."""


class _BoundedPlans(dict):
    """A dict that forgets its oldest entries beyond `limit`. Oldest by
    insertion, not by use: a hit is then a plain `dict.get`, which the hot
    loops need (an LRU's move-to-end on each hit would cost them more than
    the rare re-made plan)."""

    __slots__ = ("limit",)

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def __setitem__(self, key, value) -> None:
        if len(self) >= self.limit and key not in self:
            self.pop(next(iter(self), None), None)
        super().__setitem__(key, value)


@dataclass
class _PlanScope:
    """The plans made under one set of type aliases."""

    line_plans: _BoundedPlans = field(default_factory=lambda: _BoundedPlans(_PLANS_PER_SCOPE))
    """Line shape (its text pieces around SSA names) -> its plan."""
    op_templates: _BoundedPlans = field(default_factory=lambda: _BoundedPlans(_PLANS_PER_SCOPE))
    """Op key ((shape,) or (shape, constant values)) -> `_OpTemplate`, or None
    when ops of that key take the long way."""
    inferred: _BoundedPlans = field(default_factory=lambda: _BoundedPlans(_PLANS_PER_SCOPE))
    """(line shape, constant values) -> the plan of a `_ConstantsDecide` line."""


_SCOPES: _BoundedPlans = _BoundedPlans(_SCOPES_KEPT)
"""Alias key (`_Aliases.key`) -> its `_PlanScope`, shared by all runs."""


class _Aliases(dict):
    """Type alias name (`!t`) -> its pto view, for one source; `scope()`,
    the plans valid under exactly these aliases."""

    __slots__ = ("_scope",)

    def __init__(self) -> None:
        super().__init__()
        self._scope = None

    def __setitem__(self, name, view) -> None:
        super().__setitem__(name, view)
        self._scope = None  # other aliases: other plans

    def scope(self) -> _PlanScope:
        scope = self._scope
        if scope is None:
            key = tuple(sorted(self.items()))  # (the views are frozen dataclasses: hashable, equal by value)
            scope = _SCOPES.get(key)
            if scope is None:
                scope = _SCOPES[key] = _PlanScope()
            self._scope = scope
        return scope


# Every branch starts with a literal character, so that the engine skips
# to the next candidate at C speed; what a branch needs before it (a type
# alias starts its line, an op name is not part of a longer name) is checked
# after the match.
_READER_TOKEN = re.compile(
    r"(?P<comment>//[^\n]*)"
    r'|(?P<string>"(?:[^"\\\n]|\\.)*")'
    r"|(?P<type>!pto\.\w+)"
    r"|(?P<alias>!(?P<alias_name>[\w$.\-]+)[ \t]*=[ \t]*)"
    r"|(?P<attr>#pto(?=[.<]))"
    r"|(?P<op>pto\.[\w.]+)"
    r"|(?P<const>(?P<const_name>%[\w$.\-]+)[ \t]*=[ \t]*arith\.constant[ \t]+(?P<const_value>-?\d+)[ \t]*:[ \t]*(?:index|i\d+)\b)"
    r"|(?P<func>func\.func\b)"
)
_BEFORE_NO_OP = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$-%#!@")


class _Reader:
    """One translation of ptoas text into generic text."""

    def __init__(self, text: str) -> None:
        self.src = text
        self.out: list[str] = []
        self.out_len = 0
        self.translation = Translation("", _source=text)
        self.aliases = _Aliases()  # alias name -> its pto view; the plans in scope (`_PlanScope`)
        self.constants: dict[str, int] = {}  # SSA name -> integer constant, in the current function
        self.type_cache: dict[str, tuple[str, object]] = {}
        # The ops with a region whose body is open, innermost last, shared by
        # the readers of one source (a region's body spans the lines the
        # line loop reads one by one); their offsets are the whole source's
        # (`full`), of which this reader's `src` starts at `base`.
        self.regions: list[_OpenRegion] = []
        self.full = text
        self.base = 0
        self.stop = len(text)  # where `run` ended (past its limit when an op went on)

    # -- output with its map ---------------------------------------------------------------

    def emit(self, piece: str, orig: int, copied: bool) -> None:
        if not piece:
            return
        t = self.translation
        t._gen.append(self.out_len)
        t._orig.append(orig)
        t._copied.append(copied)
        self.out.append(piece)
        self.out_len += len(piece)

    def problem(self, offset: int, message: str) -> None:
        self.translation.problems.append(SyntaxProblem(offset, message))

    # -- the scan ------------------------------------------------------------------------

    def run_by_lines(self) -> Translation:
        """The translation, line by line: what the general scan (`run`) does
        with a line is worked out once per line shape, its text with the SSA
        names taken out (`line_plan`): a line it copies is copied, a line
        that is one pto op is filled from its template, and anything else (a
        comment, a string, an op over several lines, a type alias, pto types
        in an upstream op) goes through the general scan on just those lines.
        The same result as `run`, at a fraction of the cost on large kernels,
        which are mostly simple lines: a line of a known shape costs one
        regex split, one dict look-up and one `%` fill (`_filler`). The map
        back to the source is only recorded (`Translation._settle`)."""
        src = self.src
        lines = src.split("\n")
        out = self.out
        record = self.translation._record = []
        aliases = self.aliases
        scope = aliases.scope()
        plans = scope.line_plans
        ssa_split = _SSA_SPLIT.split
        ssa_split_no_hash = _SSA_SPLIT_NO_HASH.split
        constants = self.constants
        regions = self.regions
        offset = 0  # source offset of the current line
        copy_from = 0  # start of the source text not yet in `out`
        i = 0
        n = len(lines)
        while i < n:
            line = lines[i]
            if regions and regions[-1].close < offset + len(line):
                plan = _SCAN_LINE  # the line closes a region's body (`close_region`)
            elif '"' in line or "//" in line or _ATTRS_NEXT.match(src, offset + len(line)):  # a line's plan sees that line only
                plan = _SCAN_LINE
            elif "pto" not in line and "arith.constant" not in line and "func.func" not in line:
                offset += len(line) + 1  # nothing the scan reads: copied
                i += 1
                continue
            else:
                parts = ssa_split(line) if "#" in line else ssa_split_no_hash(line)  # text, name, text, ..., text
                shape = tuple(parts[0::2])
                plan = plans.get(shape)
                if plan is None:
                    plan = plans[shape] = self.line_plan(parts)
                kind = plan.__class__
                if kind is _ConstantsDecide:
                    plan = self.inferred_plan(shape, parts)
                    kind = plan.__class__
                if kind is _FilledLine:
                    if offset > copy_from:
                        out.append(src[copy_from:offset])
                    out.append(plan.pattern % plan.pick(parts[1::2]))
                    record.append((offset, line, plan))
                    copy_from = offset + len(line)
                    offset = copy_from + 1
                    i += 1
                    continue
                if kind is _CopyLine:
                    if plan.begins_function:
                        self.constants = constants = {}
                    for k, value in plan.constants:
                        constants[parts[2 * k + 1]] = value
                    offset += len(line) + 1
                    i += 1
                    continue
            # the general scan, on this line and every line an open bracket carries on to
            first, depth, angles, braces = i, 0, 0, 0
            while True:
                text_line = lines[i]
                # parentheses and angle brackets (a type over several lines; `->` closes
                # nothing) only: a region's `{` does not make its body one op;
                # but an attribute dictionary on lines of its own is the op's
                depth += text_line.count("(") - text_line.count(")")
                if "<" in text_line or ">" in text_line:  # (apart: a `)` may close a `(` of a line before)
                    angles += text_line.count("<") - text_line.count(">") + text_line.count("->")
                if braces > 0 or (i > first and text_line.lstrip().startswith("{")):
                    braces += text_line.count("{") - text_line.count("}")
                elif i + 1 < n and _ATTR_ENTRY.match(lines[i + 1]) and text_line.count("{") > text_line.count("}"):
                    braces += text_line.count("{") - text_line.count("}")  # `{` ending a line, its entries below
                i += 1
                if i >= n or i - first > _MAX_CHUNK_LINES:
                    break
                # an op goes on where the next line is the rest of one (`outs(...)`, `-> type`, `{attrs}`)
                if depth <= 0 and angles <= 0 and braces <= 0 and _CONTINUATION.match(lines[i]) is None:
                    break
            chunk_end = offset + sum(len(lines[k]) + 1 for k in range(first, i))
            chunk_end = min(chunk_end, len(src))
            if offset > copy_from:
                out.append(src[copy_from:offset])
            stop = self.translate_chunk(offset, chunk_end)
            offset = chunk_end
            while offset < stop and i < n:  # (an op of the chunk went on past it: on after its line)
                offset += len(lines[i]) + 1
                i += 1
            constants = self.constants  # a function the chunk began has its own
            if scope is not aliases.scope():  # the chunk defined a type alias: the plans under the new set
                scope = aliases.scope()
                plans = scope.line_plans
            copy_from = stop
        if len(src) > copy_from:
            out.append(src[copy_from:])
        self.translation.text = "".join(out)
        return self.translation

    def line_plan(self, parts: list[str], values: tuple | None = None):
        """What `run_by_lines` does with lines of one shape (`parts`: a
        line split around its SSA names), under the aliases in scope: what
        the general scan does with the line, its names replaced by
        placeholders, which is what it does with every line of the shape
        (nothing the scan decides depends on a name's spelling, only on the
        constants a name stands for: `values`, those of the line's names, or
        None when they are not known yet)."""
        count = len(parts) // 2
        placeholders = [f"%pto_ssa_{k}_" for k in range(count)]
        normalized = "".join(placeholders[k // 2] if k % 2 else part for k, part in enumerate(parts))
        scratch = _Reader(normalized)
        scratch.aliases = _Aliases()
        scratch.aliases.update(self.aliases)  # (a copy: a line that defines one is scanned in place)
        scratch.type_cache = self.type_cache
        given = {p: v for p, v in zip(placeholders, values or ()) if v is not None}
        known = scratch.constants = _AskedConstants(given)
        result = scratch.run()
        if known.asked and values is None:
            return _CONSTANTS_DECIDE
        begins_function = scratch.constants is not known  # (the scan begins a function's constants anew)
        defined = {name: v for name, v in scratch.constants.items() if given.get(name) != v}
        if result.problems or scratch.regions or len(scratch.aliases) != len(self.aliases) or (begins_function and defined):
            return _SCAN_LINE  # a mistake (said where it is), a region, an alias, or a constant before a function
        entries = [c for c in result._copied if c is not True]
        if not entries and result.text == normalized:
            kept = []
            for name, value in defined.items():
                if not name.startswith("%pto_ssa_"):
                    return _SCAN_LINE
                kept.append((int(name[9:-1]), value))
            return _CopyLine(tuple(kept), begins_function)
        if defined or begins_function or len(entries) != 1 or entries[0].__class__ is not _OpAnchor:
            return _SCAN_LINE  # several translated pieces: the general scan maps them
        pieces, order, _, op_start = entries[0]
        m = _OP_LINE.match(normalized)
        if m is None or m.end(1) != op_start:
            return _SCAN_LINE  # (the map finds an op at the start of its line: `Translation._settle`)
        # the whole line as one fill: its results and blanks around the op's template
        line_pieces, line_order, last = [], [], 0
        for p in _PLACEHOLDER.finditer(result.text):
            line_pieces.append(result.text[last : p.start()])
            line_order.append(int(p.group(1)))
            last = p.end()
        line_pieces.append(result.text[last:])
        return _FilledLine(*_filler(line_pieces, line_order, count), pieces, order)

    def inferred_plan(self, shape: tuple, parts: list[str]):
        """The plan of a line whose translation depends on the constants its
        SSA names stand for, kept per (line shape, their values)."""
        values = tuple(map(self.constants.get, parts[1::2]))
        inferred = self.aliases.scope().inferred
        key = (shape, values)
        plan = inferred.get(key)
        if plan is None:
            plan = inferred[key] = self.line_plan(parts, values)
        return plan

    def translate_chunk(self, start: int, end: int) -> int:
        """The general scan on the lines [start, end) of the source, its
        output and map recorded in this translation; returns where the
        source continues (past `end` when an op there goes on, to the end of
        the line it ends on)."""
        inner = _Reader(self.src)
        inner.aliases = self.aliases
        inner.constants = self.constants
        inner.type_cache = self.type_cache
        inner.regions, inner.full, inner.base = self.regions, self.full, self.base
        # one list: the problems stay in order (and `translate_type` caches only while there are none)
        inner.translation.problems = self.translation.problems
        result = inner.run(start, end)
        self.constants = inner.constants  # a `func.func` in the chunk starts a new function
        self.out.append(result.text)
        self.translation._record.append(_Spliced(start, inner.stop, 0, result))
        return inner.stop

    def run(self, start: int = 0, limit: int | None = None) -> Translation:
        """The general scan: the source's text from `start` to `limit` (the
        end of the source when None), and on to the end of the line an op
        begun there ends on (`stop`), in generic form."""
        src = self.src
        if limit is None:
            limit = len(src)
        pos = start  # source offset copied so far
        scan = start  # where the next token search starts
        search = _READER_TOKEN.search
        regions = self.regions
        while True:
            m = search(src, scan, limit)
            if regions:
                close = regions[-1].close - self.base
                if pos <= close < limit and (m is None or close < m.start()):
                    pos = scan = self.close_region(close, pos)
                    continue
            if m is None:
                if pos > limit:  # an op went on past `limit`: the rest of the line it ends on too
                    line_end = src.find("\n", pos)
                    limit = len(src) if line_end < 0 else line_end + 1
                    continue
                break
            scan = max(m.end(), pos)
            if m.start() < pos:
                continue  # inside something already translated
            kind = m.lastgroup
            if kind == "string" and src.startswith("(", m.end()) and src[m.start() + 1 : m.end() - 1] in _REGION_OP_NAMES:
                self.open_generic_region(m.end())  # a generic op with a region: its body's end is noted
            if kind == "string" and src.startswith("(", m.end()) and src[m.start() + 1 : m.end() - 1] in _DOTTED_GENERIC:
                # a generic op under its ptoas name (`"pto.sync.set"(...)`, as ptoas prints the ops
                # it has no format for): the generic name is as long, so positions stay
                self.emit(src[pos : m.start()], pos, True)
                self.emit(f'"{_DOTTED_GENERIC[src[m.start() + 1 : m.end() - 1]]}"', m.start(), False)
                pos = m.end()
                continue
            if kind in ("comment", "string"):
                continue
            if kind == "func":
                if m.start() == 0 or src[m.start() - 1] not in _BEFORE_NO_OP:  # (not part of a name: `%func.func`)
                    self.constants = {}
                continue
            if kind == "const":
                self.constants[m.group("const_name")] = integer_literal(m.group("const_value"))
                continue
            if kind == "alias_name" or kind == "alias":
                line_start = src.rfind("\n", 0, m.start()) + 1
                if src[line_start : m.start()].strip(" \t"):
                    continue  # not at the start of its line: not an alias definition
                start = m.end()
                if src.startswith("!pto.", start):
                    self.emit(src[pos:start], pos, True)
                    end, generic, view = self.translate_type(start)
                    if view is not None:
                        self.aliases["!" + m.group("alias_name")] = view
                    self.emit(generic, start, generic == src[start:end])
                    pos = end
                continue
            if kind == "type":
                self.emit(src[pos : m.start()], pos, True)
                end, generic, _ = self.translate_type(m.start())
                self.emit(generic, m.start(), generic == src[m.start() : end])
                pos = end
                continue
            if kind == "attr":
                self.emit(src[pos : m.start()], pos, True)
                end, generic = self.translate_attr(m.start())
                self.emit(generic, m.start(), generic == src[m.start() : end])
                pos = end
                continue
            if kind == "op":
                if m.start() and src[m.start() - 1] in _BEFORE_NO_OP:
                    continue  # part of a longer name (`%pto.x`, `a.pto.b`)
                definition = ptoas_op_def(m.group("op"))
                after = _skip_blanks(src, m.end())
                if after < len(src) and src[after] in "=,}" and not src.startswith("==", after) and not _op_then_equals(src, m.start(), m.end()):
                    continue  # an attribute name: {pto.pipeline_stages = 2}, {pto.entry}
                if definition is None:
                    if _in_op_position(src, m.start()):
                        self.problem(m.start(), f"custom op '{m.group('op')}' is unknown")
                    continue
                self.emit(src[pos : m.start()], pos, True)
                if definition.regions:
                    pos = self.open_region(definition, m.start(), m.end())
                else:
                    pos = self.translate_op_cached(definition, m.start(), m.end())
                scan = pos
        self.emit(src[pos:limit], pos, True)
        self.stop = limit
        self.translation.text = "".join(self.out)
        return self.translation

    # -- ops with a region -------------------------------------------------------------------
    #
    # ptoas writes `pto.section.simt <<<32, 2, 1>>> {`, the body's lines, then
    # `}` (and, for pto.fusion_region, `} : TYPES`); the generic form is
    # `"pto.section_simt"() ({`, the body, `}) {dimX = ...} : () -> ()`, and
    # the block ends in the implicit terminator (`ops.IMPLICIT_TERMINATOR`).
    # The head (what the format has before `$body`) is read where the op
    # starts, the tail where its body closes: the line loop reads the body in
    # between (`run_by_lines` gives the line of the `}` to the general scan).

    def open_region(self, definition: OpDef, start: int, name_end: int) -> int:
        """Read the head of an op with a region at [start, name_end) up to
        its `{`, write its generic head, note where the body closes; returns
        where the source continues (the body)."""
        src = self.src
        fmt = definition.parsed_formats[0]
        try:
            match = fmt.head().read(src, name_end)
        except SyntaxError_ as e:
            self.problem(e.offset, e.args[0])
            end = _statement_end(src, name_end)
            self.emit(src[start:end], start, True)
            return end
        brace = _skip_space(src, match.end)
        close = _region_end(self.full, self.base + brace) if src.startswith("{", brace) else -1
        if close < 0:
            what = "'{' to begin" if not src.startswith("{", brace) else "'}' to end"
            self.problem(match.end if not src.startswith("{", brace) else brace, f"expected {what} the region of '{definition.full_name}'")
            end = _statement_end(src, name_end)
            self.emit(src[start:end], start, True)
            return end
        self.emit(f'"{definition.generic_name}"() ({{', start, False)
        _shift(match, self.base)
        self.regions.append(_OpenRegion(close, self.base + brace, definition, match, self.base + start))
        return brace + 1

    def open_generic_region(self, name_end: int) -> None:
        """Note where the body of a generic op with a region (`"pto.x"() ({`)
        closes, to end its block with the implicit terminator if it does
        not (ptoas's generic print has none)."""
        src = self.src
        operands_end = balanced_end(src, name_end)
        if operands_end < 0:
            return
        brace = _skip_blanks(src, operands_end)
        if not src.startswith("({", brace):
            return
        close = _region_end(self.full, self.base + brace + 1)
        if close >= 0:
            self.regions.append(_OpenRegion(close, self.base + brace + 1, None, None, self.base + name_end))

    def close_region(self, close: int, pos: int) -> int:
        """Write the end of the innermost open region, whose `}` is at
        `close` (this reader's offset): the implicit terminator, then (for
        an op in ptoas syntax) `})` and the generic tail, from the format's
        tail read after the `}`. Returns where the source continues."""
        src = self.src
        frame = self.regions.pop()
        self.emit(src[pos:close], pos, True)
        if not _ends_in_terminator(self.full, frame.brace + 1, frame.close):
            self.emit(_TERMINATOR_TEXT + " ", close, False)
        d = frame.definition
        if d is None:  # a generic op: its `})` and the rest are copied
            return close
        match = frame.match
        _shift(match, -self.base)
        try:
            d.parsed_formats[0].tail().read(src, close + 1, match)
            generic, _ = self.generic_op(d, match, frame.start - self.base)
        except SyntaxError_ as e:
            line_end = _statement_end(src, close)
            self.problem(min(e.offset, line_end), e.args[0])  # (not past the `}`'s line: where ptoas says it)
            self.emit("})", close, False)
            return close + 1
        head = f'"{d.generic_name}"()'
        self.emit("})" + generic[len(head) :] + "\n" * src.count("\n", close, match.end), close, False)
        return match.end

    # -- types and attributes --------------------------------------------------------------

    def translate_type(self, start: int) -> tuple[int, str, object]:
        """(end, generic text, view) of the pto type at `start`."""
        src = self.src
        end = _type_end(src, start)
        text = src[start:end]
        known = self.type_cache.get(text)
        if known is not None:
            return end, known[0], known[1]
        result = self._translate_type(start, end, text)
        if result[2] is not None and not self.translation.problems:
            self.type_cache[text] = (result[1], result[2])
        return result

    def _translate_type(self, start: int, end: int, text: str) -> tuple[int, str, object]:
        src = self.src
        generic = parse_generic_type(text)
        if generic is not None:
            return end, text, generic
        try:
            view, end = parse_ptoas_type(src, start, self.aliases)
        except TypeSyntaxError as e:
            if _is_generic_spelling(text):
                return end, text, None  # malformed, but generic: MLIR's parser says why
            self.problem(e.offset, str(e))
            return end, text, None
        return end, view.generic(), view

    def type_view(self, text: str):
        """The pto view of a type text (either spelling, or an alias)."""
        if text in self.aliases:
            return self.aliases[text]
        view = parse_generic_type(text)
        if view is None and text.startswith("!pto."):
            try:
                view, _ = parse_ptoas_type(text, 0, self.aliases)
            except TypeSyntaxError:
                return None
        return view

    def generic_type(self, text: str, at: int) -> str:
        """The generic spelling of a type text in an op (an alias stays)."""
        if text.startswith("!pto."):
            if parse_generic_type(text) is not None:
                return text
            try:
                view, _ = parse_ptoas_type(text, 0, self.aliases)
            except TypeSyntaxError as e:
                if _is_generic_spelling(text):
                    return text  # malformed, but generic: MLIR's parser says why
                raise SyntaxError_(str(e), at + e.offset) from None
            return view.generic()
        if text.startswith("<"):  # a stripped pointer type
            try:
                view, _ = parse_stripped_ptr(text, 0)
            except TypeSyntaxError as e:
                raise SyntaxError_(str(e), at + e.offset) from None
            return view.generic()
        return self.translate_text(text, at)

    def translate_attr(self, start: int) -> tuple[int, str]:
        end = _attr_end(self.src, start)
        text = self.src[start:end]
        try:
            return end, pto_attributes.attr_to_generic(text)
        except pto_attributes.AttrSyntaxError as e:
            self.problem(start, str(e))
            return end, text

    def translate_text(self, text: str, at: int) -> str:
        """pto types and attributes inside a piece of text (an attribute
        dictionary, a builtin type holding pto types)."""
        if "!pto." not in text and "#pto" not in text:
            return text
        inner = _Reader(text)
        inner.aliases = self.aliases
        translation = inner.run()
        for p in translation.problems:
            raise SyntaxError_(p.message, at + p.offset)
        return translation.text

    # -- ops -------------------------------------------------------------------------------

    def translate_op_cached(self, definition: OpDef, start: int, name_end: int) -> int:
        """`translate_op`, through the template of ops of this shape when
        the op is the rest of its line."""
        src = self.src
        line_end = src.find("\n", name_end)
        if line_end < 0:
            line_end = len(src)
        text = src[start:line_end].rstrip()
        if '"' in text or "//" in text or text.count("(") != text.count(")") or _ATTRS_NEXT.match(src, line_end):
            return self.translate_op(definition, start, name_end)  # strings, comments, a multi-line op: the long way
        parts = _SSA_SPLIT.split(text)  # text, name, text, name, ..., text
        names = parts[1::2]
        shape = "%".join(parts[0::2])
        if shape.count("%") != len(names):
            return self.translate_op(definition, start, name_end)  # a `%` that starts no SSA name: see _SSA_SPLIT
        key: tuple = (shape,)
        if definition.infer_result and "->" not in shape:
            key = (shape, tuple(map(self.constants.get, names)))
        template = self.op_template(definition, len(names), key)
        if template is None:
            return self.translate_op(definition, start, name_end)
        pieces, order, pattern, pick = template
        # One anchor for the whole op: the map back into it is worked out
        # only when a diagnostic asks (`Translation.original_offset`).
        t = self.translation
        t._gen.append(self.out_len)
        t._orig.append(start)
        t._copied.append(_OpAnchor((pieces, order, parts, start)))
        generic = pattern % pick(names)
        self.out.append(generic)
        self.out_len += len(generic)
        return start + len(text)

    def op_template(self, definition: OpDef, count: int, key: tuple) -> _OpTemplate | None:
        """The template of ops of the shape `key` (with `count` SSA names),
        or None."""
        templates = self.aliases.scope().op_templates
        template = templates.get(key, False)
        if template is False:
            made = self.make_template(definition, count, key)
            template = templates[key] = None if made is None else _OpTemplate(*made, *_filler(*made, count))
        return template

    def make_template(self, definition: OpDef, count: int, key: tuple):
        """The generic text of an op of this shape, split around its SSA
        names: (pieces, which name goes after each piece), or None when the
        op must take the long way (it does not read, or does not end its line)."""
        placeholders = [f"%pto_ssa_{k}_" for k in range(count)]
        shape = key[0]
        parts = shape.split("%")
        normalized = parts[0] + "".join(p + rest for p, rest in zip(placeholders, parts[1:]))
        scratch = _Reader(normalized)
        scratch.aliases = self.aliases
        scratch.type_cache = self.type_cache
        if len(key) > 1:
            for placeholder, value in zip(placeholders, key[1]):
                if value is not None:
                    scratch.constants[placeholder] = value
        name_end = len(definition.full_name)
        if not normalized.startswith(definition.full_name):
            return None
        end = scratch.translate_op(definition, 0, name_end)
        if scratch.translation.problems or end != len(normalized):
            return None
        generic = "".join(scratch.out)
        # pieces[0], then name order[k] and pieces[k + 1] for each k
        pieces, order = [], []
        last = 0
        for m in _PLACEHOLDER.finditer(generic):
            pieces.append(generic[last : m.start()])
            order.append(int(m.group(1)))
            last = m.end()
        pieces.append(generic[last:])
        return tuple(pieces), tuple(order)

    def translate_op(self, definition: OpDef, start: int, name_end: int) -> int:
        """Rewrite the op whose name spans [start, name_end) in generic form;
        returns where the source continues."""
        src = self.src
        match, error = None, None
        for fmt in definition.parsed_formats:
            try:
                match = fmt.read(src, name_end)
                break
            except SyntaxError_ as e:
                if error is None or e.offset > error.offset:
                    error = e
        if match is None:
            if definition.parsed_formats:
                self.problem(error.offset, error.args[0])
            else:  # an op with a region (docs/dialect.md, "Ops")
                self.problem(start, f"'{definition.full_name}' is not supported yet: an op with a region, which this dialect does not read")
            end = _statement_end(src, name_end)
            self.emit(src[start:end], start, True)
            return end
        try:
            generic, anchors = self.generic_op(definition, match, start)
        except SyntaxError_ as e:
            self.problem(e.offset, str(e))
            self.emit(src[start : match.end], start, True)
            return match.end
        # The op keeps its first line; the lines it spanned stay, empty.
        newlines = src.count("\n", start, match.end)
        base = self.out_len
        t = self.translation
        for gen_off, orig_off, copied in anchors:
            t._gen.append(base + gen_off)
            t._orig.append(orig_off)
            t._copied.append(copied)
        self.out.append(generic + "\n" * newlines)
        self.out_len += len(generic) + newlines
        return match.end

    def generic_op(self, d: OpDef, match: Match, start: int) -> tuple[str, list[tuple[int, int, bool]]]:
        """The generic text of one matched op, and its map anchors
        (generic offset in the op text, source offset, copied)."""
        pieces: list[str] = []
        anchors: list[tuple[int, int, bool]] = []
        length = 0

        def put(text: str, orig: int | None = None, copied: bool = False) -> None:
            nonlocal length
            if orig is not None:
                anchors.append((length, orig, copied))
            pieces.append(text)
            length += len(text)

        put(f'"{d.generic_name}"', start, False)
        # operands, in the op's order
        operand_types: list[str] = []
        segments: list[int] = []
        put("(")
        first = True
        for operand in d.operands:
            found = match.operands.get(operand.name, [])
            if operand.kind == "single" and len(found) != 1:
                raise SyntaxError_(f"expected operand '{operand.name}'", match.end)
            types = match.types.get(operand.name)
            if types is None or len(types) != len(found):
                types = self.derived_types(d, operand, found, match)
            else:
                types = [(self.generic_type(t, at), at) for t, at in types]
            segments.append(len(found))
            for (ssa, at), (type_text, _) in zip(found, types):
                if not first:
                    put(", ")
                put(ssa, at, True)
                first = False
                operand_types.append(type_text)
        put(")")
        # attributes: the format's, the attr-dict's, the segment sizes
        entries = []
        for name, (value, at) in match.attributes.items():
            attribute = d.attribute(name)
            generic = self.generic_attribute(attribute, value, at)
            if (
                attribute is not None
                and attribute.default is not None
                and not _keeps_written_default(d, name)
                and generic == self.generic_attribute(attribute, attribute.default, at)
            ):
                continue  # a default written out: the op is the same without it
            entries.append((name, generic))
        if match.attr_dict is not None:
            text, at = match.attr_dict
            for key, value in _dict_entries(text):
                key = _unspell(d, key)
                attribute = d.attribute(key)
                if attribute is not None and attribute.is_default(value) and not _keeps_written_default(d, key):
                    continue  # a default written out: the op is the same without it
                entries.append((key, None if value is None else self.translate_text(value, at)))
        if d.needs_segments:
            entries.append(("operandSegmentSizes", f"array<i32: {', '.join(map(str, segments))}>"))
        if entries:
            put(" {" + ", ".join(k if v is None else f"{k} = {v}" for k, v in entries) + "}")
        # the function type
        result_types = []
        for result in d.results:
            types = match.types.get(result.name)
            if types:
                result_types.extend(self.generic_type(t, at) for t, at in types)
            elif result.kind == "single":
                inferred = self.infer_result(d, match)
                if inferred is None and result.constraint in BUILDABLE:
                    inferred = result.constraint  # a buildable type (ODS's I64): the format need not write it
                if inferred is None:
                    raise SyntaxError_(f"expected the type of result '{result.name}'", match.end)
                result_types.append(inferred)
        put(" : (" + ", ".join(operand_types) + ") -> ")
        put(result_types[0] if len(result_types) == 1 else "(" + ", ".join(result_types) + ")")
        return "".join(pieces), anchors

    def derived_types(self, d: OpDef, operand, found, match: Match) -> list[tuple[str, int]]:
        """Types of operands the text does not type: fixed by the constraint
        (`index`), or derived by a rule of the op."""
        rule = dict(d.derived_types).get(operand.name)
        if rule == "ptr-of-result":
            (result_text, at), *_ = match.types.get(d.results[0].name, [("", 0)])
            view = self.type_view(result_text)
            if not isinstance(view, ViewType):
                raise SyntaxError_("expected a !pto.tensor_view result type", at)
            return [(PtrType(view.dtype).generic(), at)] * len(found)
        if operand.constraint in BUILDABLE:
            return [(operand.constraint, at) for _, at in found]
        if found:
            raise SyntaxError_(f"expected the type of operand '{operand.name}'", found[0][1])
        return []

    def generic_attribute(self, attribute, value: str, at: int) -> str:
        kind = attribute.kind if attribute is not None else None
        if kind is None or kind.kind == "any":
            return self.translate_text(value, at)
        if kind.kind == "int":
            number = value.split(":")[0].strip()
            return f"{number} : i{kind.width}"
        if kind.kind == "enum":
            definition = pto_attributes.attr(kind.enum)
            stripped = pto_attributes.stripped_value(value)
            if stripped is not None:
                if stripped not in definition.values:
                    raise SyntaxError_(f"unknown {definition.name}: {stripped}", at)
                return definition.generic(stripped)
            try:
                generic = pto_attributes.attr_to_generic(value)
            except pto_attributes.AttrSyntaxError as e:
                raise SyntaxError_(str(e), at) from None
            parts = pto_attributes.generic_value(generic)
            if parts is None or parts[0] != definition.name:
                # what MLIR's parser says for an attribute of another kind
                raise SyntaxError_(f"invalid kind of attribute specified: expected #pto.{definition.name}", at)
            return generic
        return value

    def infer_result(self, d: OpDef, match: Match) -> str | None:
        """The result type ptoas infers when the text omits it."""
        if d.infer_result == "partition-from-sizes":
            (source_text, _), *_ = match.types.get("source", [("", 0)])
            view = self.type_view(source_text)
            if not isinstance(view, ViewType):
                return None
            sizes = [self.constants.get(ssa, DYNAMIC) for ssa, _ in match.operands.get("sizes", [])]
            return ViewType("partition_tensor_view", tuple(s if s >= 0 else DYNAMIC for s in sizes), view.dtype).generic()
        if d.infer_result == "subview":
            (source_text, _), *_ = match.types.get("source", [("", 0)])
            view = self.type_view(source_text)
            sizes_text = match.attributes.get("sizes", ("", 0))[0]
            sizes = [integer_literal(s) for s in re.findall(r"-?\d+", sizes_text)]
            if not isinstance(view, TileBufType) or len(sizes) != 2:
                return None
            valid = list(sizes)
            for i, group in enumerate(("valid_row", "valid_col")):
                found = match.operands.get(group)
                if found:
                    constant = self.constants.get(found[0][0])
                    valid[i] = min(constant, sizes[i]) if constant is not None else DYNAMIC
            from dataclasses import replace

            return replace(view, rows=sizes[0], cols=sizes[1], valid_row=valid[0], valid_col=valid[1]).generic()
        return None


_ARRAY_PARAMETER = re.compile(r"(?<![\w.])array<")


def _is_generic_spelling(text: str) -> bool:
    """Whether a pto type text is in the generic spelling: no ptoas spelling
    of a pto type has a string or an `array<...>` in it."""
    return '"' in text or _ARRAY_PARAMETER.search(text) is not None


def _skip_blanks(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    return pos


def _in_op_position(text: str, pos: int) -> bool:
    """Whether `pos` starts an operation: first on its line, or after the
    `=` of its results."""
    i = pos - 1
    while i >= 0 and text[i] in " \t":
        i -= 1
    return i < 0 or text[i] in "\n{}" or (text[i] == "=" and (i == 0 or text[i - 1] != "="))


_PTO_TYPE_NAME = re.compile(r"!pto\.\w+")


def _op_then_equals(text: str, start: int, end: int) -> bool:
    """Whether the pto name at [start, end), followed by `=`, is an op's
    name with a stray `=` after it (`pto.tadd = ins(...)`, `%r = pto.tadd =
    ...`) rather than an attribute's (`{pto.pipeline_stages = 2 : i64}`):
    it names an op, stands where an op starts, and the `=` is not followed by
    an attribute value that ends an entry of a dictionary. Left to MLIR's
    parser, such a line fails without a diagnostic: the parser has no
    custom form for an IRDL op."""
    if ptoas_op_def(text[start:end]) is None or not _in_op_position(text, start):
        return False
    eq = _skip_blanks(text, end)
    if not text.startswith("=", eq) or text.startswith("==", eq):
        return False
    i = start - 1
    while i >= 0 and text[i] in " \t":
        i -= 1
    if i >= 0 and text[i] == "=":
        return True  # after the `=` of results: an op
    value = _skip_blanks(text, eq + 1)
    value_end = scan_attribute(text, value)
    if value_end < 0:
        return True
    after = _skip_blanks(text, value_end)
    return not (after >= len(text) or text[after] in ",}\n")


def _type_end(text: str, start: int) -> int:
    m = _PTO_TYPE_NAME.match(text, start)
    if m is None:  # `!pto.` and no name: the type parser says what is wrong
        return start + len("!pto.")
    end = m.end()
    if end < len(text) and text[end] == "<":
        closed = balanced_end(text, end)
        return closed if closed > 0 else len(text)
    return end


def _attr_end(text: str, start: int) -> int:
    end = scan_attribute(text, start)
    return end if end > 0 else start + 4


def _statement_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


@dataclass
class _OpenRegion:
    """An op whose region's body the reader is in: where its `}` is and its
    `{` (offsets of the whole source), the op (None: a generic op, copied)
    and what the head of its format read (offsets of the whole source)."""

    close: int
    brace: int
    definition: OpDef | None
    match: Match | None
    start: int


_REGION_OP_NAMES = frozenset(name for d in OPS if d.regions for name in (d.full_name, d.generic_name))
_TERMINATOR_TEXT = f'"{IMPLICIT_TERMINATOR}"() : () -> ()'
_TERMINATOR_LINE = re.compile(r'[ \t]*(?:"' + re.escape(IMPLICIT_TERMINATOR) + r'"|' + re.escape(IMPLICIT_TERMINATOR) + r")(?![\w.])")


def _region_end(text: str, brace: int) -> int:
    """The offset of the `}` that closes the region body opening at the `{`
    at `brace`, or -1: braces counted, strings and `//` comments skipped."""
    depth = 0
    i, n = brace, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == "/" and text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                return -1
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _ends_in_terminator(text: str, body_start: int, close: int) -> bool:
    """Whether the body [body_start, close) already ends in the implicit
    terminator (a generic text this dialect printed)."""
    body = text[body_start:close].rstrip()
    last = body[body.rfind("\n") + 1 :]
    return _TERMINATOR_LINE.match(last) is not None or last.lstrip().startswith(_TERMINATOR_TEXT)


def _shift(match: Match, delta: int) -> None:
    """Move every position in `match` by `delta`."""
    if not delta:
        return
    match.operands = {k: [(v, at + delta) for v, at in found] for k, found in match.operands.items()}
    match.types = {k: [(v, at + delta) for v, at in found] for k, found in match.types.items()}
    match.attributes = {k: (v, at + delta) for k, (v, at) in match.attributes.items()}
    if match.attr_dict is not None:
        match.attr_dict = (match.attr_dict[0], match.attr_dict[1] + delta)
    match.end += delta


def _dict_entries(text: str) -> list[tuple[str, str | None]]:
    """`{a = 1, b, c = {d = 2}}` -> [(a, 1), (b, None), (c, {d = 2})]."""
    body = text.strip()[1:-1]
    entries = []
    for part in split_top(body, ","):
        part = part.strip()
        if not part:
            continue
        key, eq, value = part.partition("=")
        entries.append((key.strip(), value.strip() if eq else None))
    return entries


def _unspell(d: OpDef, key: str) -> str:
    """The attribute name a text key spells (`satmode` is `sat_mode`)."""
    for a in d.attributes:
        if a.spelled and a.spelled == key:
            return a.name
    return key


def to_generic(text: str) -> Translation:
    """Translate ptoas syntax (or a mix with the generic form) into the
    generic form, with the map back to the source's positions."""
    if "pto." not in text:
        return Translation(text, _source=text)
    if "<{" in text and '"pto.' in text:
        text = _properties_as_attributes(text)
    return _Reader(text).run_by_lines()


_GENERIC_PTO_OP = re.compile(r'"pto\.[\w.]+"\(')


def _properties_as_attributes(text: str) -> str:
    """`text` with the properties of each generic pto op (`<{...}>`, how
    ptoas's generic printing spells an op's inherent attributes) in its
    attribute dictionary instead: an IRDL op has no properties (MLIR:
    "extensible Dialects don't support properties"), and our op table's
    attributes are the same ODS attributes. Only delimiters change, each to
    text of its length (`<{` -> ` {`, `}> {` -> `,   `), so every position
    stays the source's. An op with a region after its properties is left
    as it is (its attribute dictionary comes after the region)."""
    out = list(text)
    for m in _GENERIC_PTO_OP.finditer(text):
        operands_end = balanced_end(text, m.end() - 1)
        if operands_end < 0:
            continue
        start = _skip_blanks(text, operands_end)
        if not text.startswith("<{", start):
            continue
        end = balanced_end(text, start)  # after `}>`
        if end < 0 or text[end - 2 : end] != "}>":
            continue
        after = _skip_blanks(text, end)
        if text.startswith("(", after):
            continue  # regions follow: see above
        has_properties = bool(text[start + 2 : end - 2].strip())
        if text.startswith("{", after):  # an attribute dictionary follows
            dict_end = balanced_end(text, after)
            if dict_end < 0:
                continue
            has_attributes = bool(text[after + 1 : dict_end - 1].strip())
            if has_properties and has_attributes:  # one dictionary: `{props,   attrs}`
                out[start] = " "
                out[end - 2 : after + 1] = [","] + [" "] * (after - end + 2)
            elif has_properties:  # `{props}` and no dictionary after it
                out[start] = " "
                out[end - 1] = " "
                out[after:dict_end] = [" "] * (dict_end - after)
            else:  # the dictionary alone
                out[start:end] = [" "] * (end - start)
        elif has_properties:
            out[start] = " "
            out[end - 1] = " "
        else:
            out[start:end] = [" "] * (end - start)
    return "".join(out)


# --- writing ptoas syntax ----------------------------------------------------------------

_GENERIC_OP = re.compile(r'^(?P<head>[ \t]*(?:%[^\n"]*?= )?)"(?P<name>pto\.[\w.]+)"\(', re.MULTILINE)
_GENERIC_TYPE_OR_ATTR = re.compile(r'!pto\.\w+(?=<|[\s,)>:}\]]|$)|#pto\.\w+<"')
_CONSTANT_LINE = re.compile(r"[ \t]*(%[\w$.\-]+) = arith\.constant (-?\d+) : (?:index|i\d+)$")
_RESULTS = re.compile(r"[ \t]*%[^\n\"]*= ")
_PRINTED_OP_LINE = re.compile(r'([ \t]*(?:%[^\n"]*= )?)"(pto\.[^"]*)"\(((?:%[\w$.\-]+(?:#\d+)?(?:, %[\w$.\-]+(?:#\d+)?)*)?)\)')
"""The start of a pto op line as MLIR prints it: (results, name, operands).
The name is not checked (a character class per character costs a third of
the match): a line with a name no op has is written as a line this does not
match is, with its types translated."""
_PRINTED_OP_LINE_NO_HASH = re.compile(r'([ \t]*(?:%[^\n"]*= )?)"(pto\.[^"]*)"\(((?:%[\w$.\-]+(?:, %[\w$.\-]+)*)?)\)')
"""`_PRINTED_OP_LINE` for a line without `#` (see _SSA_SPLIT_NO_HASH)."""
_DOTTED_GENERIC = {d.full_name: d.generic_name for d in OPS if d.full_name != d.generic_name}
_DOTTED_PTOAS = {generic: full for full, generic in _DOTTED_GENERIC.items()}
_DOTTED_OPS_PRINTED = re.compile(r'"(' + "|".join(re.escape(n) for n in sorted(_DOTTED_PTOAS)) + r')"\(')
_ELIDED_RESULT_OPS = frozenset(d.generic_name for d in OPS if d.elide_result_when_inferred)
"""Ops whose ptoas text depends on the constants their operands name."""
NAMED_RESULTS = {d.generic_name: tuple(r.name for r in d.results) for d in OPS if len(d.results) > 1 and all(r.kind == "single" for r in d.results)}
"""Ops whose results ptoas names each by its ODS name (`%valid_row,
%valid_col = pto.get_validshape`): ODS gives an op of more than one result
a getAsmResultNames that names each named, non-variadic result, where MLIR
prints `%1:2` and uses `%1#0`."""
_REGION_OPS = frozenset(d.generic_name for d in OPS if d.regions)
_PRINTED_TERMINATOR = re.compile(r"[ \t]*" + re.escape(IMPLICIT_TERMINATOR) + r"(?: loc\([^\n]*\))?")
"""The implicit terminator as MLIR prints it (`gpu.yield`, maybe located)."""
_RESULT_GROUP = re.compile(r"%([\w$.\-]+):(\d+)")
_RESULT_USE = re.compile(r"%[\w$.\-]+#\d+")
_PIPE_HANDLE = HandleType("pipe").generic()


# What the writer does with an op line as MLIR prints it, by its shape: like
# the reader's plans, a function of the shape (and, for an op whose ptoas
# text depends on the constants its operands name, their values) alone, so
# shared by every run in the process.


class _WrittenLine(NamedTuple):
    """The op's ptoas text as a `_filler` of its SSA names."""

    pattern: str
    pick: Callable


class _RenderOp(NamedTuple):
    """Each op of the shape is rendered on its own (`_Writer.render`)."""


class _TypesOnly(NamedTuple):
    """Not an op of the table, or no format spells it: only its types are translated."""


_RENDER_OP = _RenderOp()
_TYPES_ONLY = _TypesOnly()

_WRITER_SHAPES = _BoundedPlans(_PLANS_PER_SCOPE)
"""(name, operand count, text after the operands[, constant values]) of a
printed op line -> its plan (`_Writer.shape_plan`)."""
_WRITER_TEMPLATES = _BoundedPlans(_PLANS_PER_SCOPE)
"""(op text with the SSA names taken out[, constant values]) -> its
`_WrittenLine`, or None when such ops are rendered on their own."""


@lru_cache(maxsize=8192)
def _ptoas_type(text: str) -> str:
    view = parse_generic_type(text)
    if view is not None:
        return view.ptoas()
    if not text.startswith("!pto.") and ("#pto." in text or "!pto." in text):
        # a builtin type holding pto attributes or types (`memref<256xf32, #pto.address_space<"gm">>`)
        return _translate_types(text)
    return text


def _translate_types(text: str) -> str:
    """Every generic pto type and attribute in `text` in ptoas spelling."""
    if "!pto." not in text and "#pto." not in text:
        return text
    out, pos = [], 0
    for m in _GENERIC_TYPE_OR_ATTR.finditer(text):
        if m.start() < pos:
            continue
        start = m.start()
        if text.startswith("#", start):
            end = balanced_end(text, text.index("<", start))
            out.append(text[pos:start])
            out.append(pto_attributes.attr_to_ptoas(text[start:end]))
            pos = end
            continue
        end = _type_end(text, start)
        out.append(text[pos:start])
        inner = text[start:end]
        if "<" in inner or inner == _PIPE_HANDLE:
            # a pto type holding other types (or `!pto.pipe`'s generic name): translate the whole, once
            out.append(_ptoas_type(inner))
        else:
            out.append(inner)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def to_ptoas(text: str, result_names: Iterator[tuple[str, ...] | None] | None = None) -> str:
    """Translate what MLIR printed (generic pto ops and spellings) into
    ptoas syntax. `result_names` yields, for each op of several results that
    ptoas names one by one (`pto.get_validshape`), in the order printed,
    the user's names of its results, or None (driver/session.py reads them
    from the module's name locations)."""
    if "pto." not in text:
        return text
    writer = _Writer(text, result_names)
    out = writer.run()
    if _DOTTED_OPS_PRINTED.search(out) is not None:
        # a generic op whose name has a dot in ptoas: printed by that name, which ptoas's parser knows
        out = _DOTTED_OPS_PRINTED.sub(lambda m: f'"{_DOTTED_PTOAS[m.group(1)]}"(', out)
    return out


class _Writer:
    def __init__(self, text: str, result_names: Iterator[tuple[str, ...] | None] | None = None) -> None:
        self.text = text
        self.kept_result_names = result_names
        """The user's names of the results of each op `name_results` spells, in order."""
        self.constants: dict[str, int] = {}
        """SSA name -> integer constant, of every constant line seen so far
        (MLIR names an integer constant by its value: `%c16`, `%c16_0`)."""
        self.result_names: dict[str, str] = {}
        """`%1#0` -> `%valid_row_1` in the current function (`NAMED_RESULTS`)."""

    def run(self) -> str:
        # MLIR prints each pto op on a line of its own (pto ops have no
        # regions): the text is rewritten line by line, and a line is looked
        # at closely only when it holds a pto op or a pto type.
        text = self.text
        track_constants = "partition_view" in text
        has_locations = " loc(" in text
        shapes = _WRITER_SHAPES
        elided = _ELIDED_RESULT_OPS
        op_line = _PRINTED_OP_LINE.match
        op_line_no_hash = _PRINTED_OP_LINE_NO_HASH.match
        lines: list[str | None] = text.split("\n")
        result_names = self.result_names
        regions: list[tuple[int, str]] = []  # the ops with a region whose body is open: (line, indentation)
        for i, line in enumerate(lines):
            if regions and line.startswith(regions[-1][1] + "})"):
                self.close_region(lines, regions.pop()[0], i)
                continue
            if result_names:
                if "func.func" in line:
                    result_names.clear()  # a function numbers its values anew
                elif "#" in line:
                    line = lines[i] = _RESULT_USE.sub(lambda u: result_names.get(u.group(0), u.group(0)), line)
            if '"pto.' in line:
                m = op_line(line) if "#" in line else op_line_no_hash(line)
                if m is None:
                    lines[i] = self.write_unmatched(line)
                    continue
                if m.group(2) in _REGION_OPS and line.endswith(" ({", m.end()):
                    regions.append((i, line[: len(line) - len(line.lstrip(" "))]))  # written at its end (`close_region`)
                    continue
                if ":" in m.group(1) and m.group(2) in NAMED_RESULTS:
                    line = lines[i] = self.name_results(line, m.group(1), NAMED_RESULTS[m.group(2)])
                    m = op_line(line)
                # The fast path: an op line as MLIR prints it, `HEAD"pto.NAME"(%a, %b)REST`,
                # where REST (attributes and types) holds no SSA name, is filled from
                # the template of its (name, operand count, REST): one regex match,
                # one dict look-up and one `%` fill (docs/performance.md, "Where the time goes").
                head, name, operands = m.groups()
                rest = line[m.end(3) :]  # from the `)`: attributes and types
                trailer = ""
                if has_locations:
                    loc = rest.find(" loc(")
                    if loc >= 0:
                        rest, trailer = rest[:loc], rest[loc:]
                plan = None  # SSA names after the operands: no plan by shape
                if "%" not in rest:
                    names = operands.split(", ") if operands else []
                    if name in elided:
                        # (`render_cached` reads `self.constants`, which `make_template` replaces)
                        key = (name, len(names), rest, tuple(map(self.constants.get, names)))
                    else:
                        key = (name, len(names), rest)
                    plan = shapes.get(key)
                    if plan is None:
                        plan = shapes[key] = self.shape_plan(name, len(names), rest, key[3:])
                    if plan.__class__ is _WrittenLine:
                        lines[i] = head + plan.pattern % plan.pick(names) + trailer
                        continue
                lines[i] = self.write_matched(line, head, name, plan)
                continue
            if track_constants and "arith.constant" in line:
                c = _CONSTANT_LINE.match(line)
                if c is not None:
                    self.constants[c.group(1)] = integer_literal(c.group(2))
            if "pto." in line:
                lines[i] = _translate_types(line)
        return "\n".join(line for line in lines if line is not None)

    def close_region(self, lines: list, opened: int, closed: int) -> None:
        """Write an op with a region, whose generic head is line `opened` and
        whose body ends at line `closed` (`}) ...`): the implicit terminator
        left out (the body's last line), and the op in ptoas syntax when its
        format prints it (the head on the first line, `}` and the tail on the
        last), else in the generic form (which ptoas reads too)."""
        last = closed - 1
        while last > opened and lines[last] is None:
            last -= 1
        if last > opened and _PRINTED_TERMINATOR.fullmatch(lines[last]) is not None:
            lines[last] = None
        head_line, close_line = lines[opened], lines[closed]
        indent = close_line[: len(close_line) - len(close_line.lstrip(" "))]
        m = _PRINTED_OP_LINE.match(head_line)
        head, name = m.group(1), m.group(2)
        d = op_def(name)
        # the op as one generic line without its region: `HEAD"pto.x"()` and what follows `})`
        one_line = head_line[: m.end()] + close_line[len(indent) + 2 :]
        written = self.render(d, head, one_line, m.start(3), len(one_line))
        if written is None or written.count(BODY) != 1:
            lines[opened], lines[closed] = _translate_types(head_line), _translate_types(close_line)
            return
        before, after = written.split(BODY)
        lines[opened] = before + "{"
        lines[closed] = indent + "}" + after

    def name_results(self, line: str, head: str, names: tuple[str, ...]) -> str:
        """The op line with its result group `%N:k` spelled as ptoas names
        each result (`%valid_row_N, %valid_col_N`: the ODS names, made
        unique by MLIR's number), its uses renamed from here on."""
        group = _RESULT_GROUP.search(head)
        kept = next(self.kept_result_names, None) if self.kept_result_names is not None else None
        if group is None or int(group.group(2)) != len(names):
            return line
        number = group.group(1)
        if kept is not None and kept[0] == number and not any(re.search(f"%{re.escape(n)}(?![\\w$.\\-])", self.text) for n in kept[1:]):
            spelled = ["%" + n for n in kept]  # the user's names (the first is the group's; the others unused)
        else:
            spelled = [f"%{name}_{number}" for name in names]
        for k, new in enumerate(spelled):
            self.result_names[f"%{number}#{k}"] = new
        return line[: group.start()] + ", ".join(spelled) + line[group.end() :]

    def write_unmatched(self, line: str) -> str:
        """A line with `"pto.` in it that is no op line as MLIR prints it."""
        rendered = self.render_line(line, line.find('"pto.'))
        return _translate_types(line) if rendered is None else rendered

    def write_matched(self, line: str, head: str, name: str, plan) -> str:
        """An op line `_PRINTED_OP_LINE` matches that its shape's template
        does not write (`plan`: what `shape_plan` said of its shape, or None
        when SSA names follow its operands)."""
        if plan is _RENDER_OP:
            d = op_def(name)
            rendered = self.render(d, head, line, len(head) + len(name) + 3, len(line))
            if rendered is not None:
                return rendered
        if plan is None:
            rendered = self.render_line(line, len(head))
            if rendered is not None:
                return rendered
            return _translate_types(line)  # ("pto." is in it)
        return _translate_types(line)  # not an op the table knows, or no format spells it

    def shape_plan(self, name: str, count: int, rest: str, constants: tuple):
        """What `run` does with op lines of one shape: the template
        (`_WrittenLine`) `render_cached` would fill for them, `_RENDER_OP`
        when each must be rendered on its own, `_TYPES_ONLY` when it is not an
        op of the table (only its types are translated)."""
        d = op_def(name)
        if d is None:
            return _TYPES_ONLY
        # the key `render_cached` makes for such a line: its text with the SSA names taken out
        key: tuple = (f'"{name}"(' + ", ".join(["%"] * count) + rest,)
        if d.elide_result_when_inferred:
            key = (key[0], constants[0])
        pattern = self.template(d, count, key)
        return _RENDER_OP if pattern is None else pattern

    def template(self, d: OpDef, count: int, key: tuple) -> _WrittenLine | None:
        """The template of op lines of `key`, made once per process."""
        pattern = _WRITER_TEMPLATES.get(key, False)
        if pattern is False:
            made = self.make_template(d, count, key)
            pattern = _WRITER_TEMPLATES[key] = None if made is None else _WrittenLine(*_filler(*made, count))
        return pattern

    def render_line(self, line: str, q: int) -> str | None:
        """A line with a generic pto op at `q` in ptoas syntax, or None
        when it is not one MLIR printed (an op in an attribute, a string)."""
        head = line[:q]
        if head.strip(" \t") and _RESULTS.fullmatch(head) is None:
            return None
        close = line.find('"', q + 1)
        if close < 0 or not line.startswith("(", close + 1):
            return None
        definition = op_def(line[q + 1 : close])
        if definition is None:
            return None
        return self.render_cached(definition, head, line, q, close + 2)

    def render_cached(self, d: OpDef, head: str, line: str, op_start: int, operands_start: int) -> str | None:
        """`render`, through the template of op lines of this shape: the
        ptoas text depends on the op's printed text with its SSA names taken
        out (and, for an op whose result type ptoas infers from constant
        sizes, on those constants)."""
        body = line[op_start:]
        trailer = ""
        loc = body.find(" loc(")
        if loc >= 0:
            body, trailer = body[:loc], body[loc:]
        parts = _SSA_SPLIT.split(body)
        names = parts[1::2]
        shape = "%".join(parts[0::2])
        if shape.count("%") != len(names):
            return self.render(d, head, line, operands_start, len(line))  # a `%` that starts no SSA name: see _SSA_SPLIT
        key: tuple = (shape,)
        if d.elide_result_when_inferred:
            key = (shape, tuple(map(self.constants.get, names)))
        pattern = self.template(d, len(names), key)
        if pattern is None:
            return self.render(d, head, line, operands_start, len(line))
        return head + pattern.pattern % pattern.pick(names) + trailer

    def make_template(self, d: OpDef, count: int, key: tuple):
        """The ptoas text of an op line of this shape, split around its SSA
        names, or None when it must be rendered on its own."""
        placeholders = [f"%pto_ssa_{k}_" for k in range(count)]
        parts = key[0].split("%")
        normalized = parts[0] + "".join(p + rest for p, rest in zip(placeholders, parts[1:]))
        if len(key) > 1:
            for placeholder, value in zip(placeholders, key[1]):
                if value is not None:
                    self.constants[placeholder] = value
        try:
            operands_start = normalized.index("(") + 1
            rendered = self.render(d, "", normalized, operands_start, len(normalized))
        finally:
            for placeholder in placeholders:  # (no SSA name of the text is one)
                self.constants.pop(placeholder, None)
        if rendered is None:
            return None
        pieces, order = [], []
        last = 0
        for p in _PLACEHOLDER.finditer(rendered):
            pieces.append(rendered[last : p.start()])
            order.append(int(p.group(1)))
            last = p.end()
        pieces.append(rendered[last:])
        return tuple(pieces), tuple(order)

    def render(self, d: OpDef, head: str, text: str, operands_start: int, line_end: int) -> str | None:
        """One generic op line (its operands start after `(`) in ptoas
        syntax, or None when it does not look as MLIR prints it."""
        close = text.find(")", operands_start)
        if close < 0 or close > line_end:
            return None
        operand_names = [s.strip() for s in text[operands_start:close].split(",") if s.strip()]
        pos = close + 1
        attributes: list[tuple[str, str | None]] = []
        if text.startswith(" {", pos):
            end = balanced_end(text, pos + 1)
            attributes = _dict_entries(text[pos + 1 : end])
            pos = end
        if not text.startswith(" : (", pos):
            return None
        types_end = balanced_end(text, pos + 3)
        operand_types = [t.strip() for t in split_top(text[pos + 4 : types_end - 1], ",") if t.strip()]
        pos = types_end
        if not text.startswith(" -> ", pos):
            return None
        rest = text[pos + 4 : line_end]
        trailer = ""
        loc = rest.find(" loc(")
        if loc >= 0:
            rest, trailer = rest[:loc], rest[loc:]
        rest = rest.strip()
        if rest.startswith("("):
            result_types = [t.strip() for t in split_top(rest[1:-1], ",") if t.strip()]
        else:
            result_types = [rest]
        parts = self.parts(d, operand_names, operand_types, result_types, attributes)
        if parts is None:
            return None
        written = self.write_op(d, parts)
        if written is None:
            return None  # no format spells this op as it is: it stays generic (which reads back)
        return f"{_translate_types(head)}{d.full_name}{written}{trailer}"

    def parts(self, d: OpDef, names, types, result_types, attributes) -> Parts | None:
        attrs = dict(attributes)
        segments = None
        if "operandSegmentSizes" in attrs:
            segments = [int(s) for s in re.findall(r"-?\d+", attrs.pop("operandSegmentSizes").split(":", 1)[1])]
        elif d.operands:
            fixed = sum(1 for o in d.operands if o.kind == "single")
            rest = len(names) - fixed
            segments = [1 if o.kind == "single" else rest for o in d.operands]
        if segments is not None and (len(segments) != len(d.operands) or sum(segments) != len(names)):
            return None
        operands: dict[str, list[str]] = {}
        operand_types: dict[str, list[str]] = {}
        stripped_types: dict[str, str] = {}
        i = 0
        for operand, count in zip(d.operands, segments or []):
            operands[operand.name] = names[i : i + count]
            group_types = [_ptoas_type(t) for t in types[i : i + count]]
            operand_types[operand.name] = group_types
            if operand.constraint == PTR:
                for t in types[i : i + count]:
                    view = parse_generic_type(t)
                    if isinstance(view, PtrType):
                        stripped_types[view.ptoas()] = view.ptoas(stripped=True)
            i += count
        result_groups: dict[str, list[str]] = {}
        j = 0
        for result in d.results:
            take = 1 if result.kind == "single" else max(0, len(result_types) - (len(d.results) - 1))
            if result.kind == "optional" and take and result_types[j : j + take] == [""]:
                take = 0
            group = [_ptoas_type(t) for t in result_types[j : j + take] if t]
            result_groups[result.name] = group
            if result.constraint == PTR:
                for t in result_types[j : j + take]:
                    view = parse_generic_type(t)
                    if isinstance(view, PtrType):
                        stripped_types[view.ptoas()] = view.ptoas(stripped=True)
            j += take
        if d.elide_result_when_inferred and self.inferred_partition(d, operands, operand_types, result_groups):
            result_groups["result"] = []
        format_attrs: dict[str, str] = {}
        stripped: dict[str, str] = {}
        # (name, ptoas key, ptoas text) of each attribute an attr-dict may have to print, in order
        entries: list[tuple[str, str, str | None]] = []
        names_in_formats = _format_attribute_names(d)
        for key, value in attributes:
            if key == "operandSegmentSizes":
                continue
            attribute = d.attribute(key)
            shown = None if value is None else _translate_types(value)
            spelled = attribute.spelled if attribute is not None and attribute.spelled else key
            default = attribute is not None and attribute.is_default(shown)
            if key in names_in_formats:
                text = _format_attribute_text(attribute, shown)
                if default and not _keeps_written_default(d, key):
                    continue  # the op is the same without it (and ODS prints no optional group for it)
                format_attrs[key] = text
                generic = pto_attributes.generic_value(value or "")
                if generic is not None and attribute is not None and attribute.kind.kind == "enum":
                    # ODS strips an attribute of a known class (an enum), not one of a
                    # constraint like AnyAttrOf (`pto.record_event[#pto.sync_op_type<TLOAD>, ...]`)
                    stripped[key] = f"<{generic[1]}>"
                entries.append((key, spelled, shown))  # printed in the attr-dict when a format does not spell it
                continue
            if default and (attribute.held or d.printer != "dict"):
                continue  # ODS prints no default-valued attribute (a printer that does gets it below)
            entries.append((key, spelled, shown))
        filled = set()
        defaults = {}
        for attribute in d.printed_defaults:
            # ptoas prints it though the op lacks it (OpDef.printed_default): in a
            # format, or in the attr-dict where ptoas's dictionary sorts it
            if attribute.name in names_in_formats:
                if attribute.name not in format_attrs:
                    format_attrs[attribute.name] = attribute.default
                    filled.add(attribute.name)
                continue
            if any(name == attribute.name for name, _, _ in entries):
                continue
            spelled = attribute.spelled or attribute.name
            at = next((k for k, (_, key, _) in enumerate(entries) if key > spelled), len(entries))
            entries.insert(at, (attribute.name, spelled, attribute.dict_text(attribute.default)))
        extra = [(spelled, shown) for key, spelled, shown in entries if key not in names_in_formats]
        for attribute in d.attributes:
            if attribute.name in names_in_formats and attribute.default is not None:
                defaults[attribute.name] = attribute.default
        return Parts(operands, operand_types, result_groups, format_attrs, extra, stripped, stripped_types, frozenset(filled), defaults, entries)

    def inferred_partition(self, d: OpDef, operands, operand_types, result_groups) -> bool:
        """Whether a partition_view's result is what ptoas infers from its
        sizes (then ptoas prints no `-> type`)."""
        (result,) = result_groups.get("result") or [None]
        if result is None:
            return False
        source = operand_types.get("source", [None])[0]
        try:
            source_view, _ = parse_ptoas_type(source) if source else (None, 0)
        except TypeSyntaxError:
            return False
        if not isinstance(source_view, ViewType):
            return False
        sizes = [self.constants.get(name, DYNAMIC) for name in operands.get("sizes", [])]
        inferred = ViewType("partition_tensor_view", tuple(s if s >= 0 else DYNAMIC for s in sizes), source_view.dtype)
        return inferred.ptoas() == result

    def write_op(self, d: OpDef, parts: Parts) -> str | None:
        """The op's ptoas text after its name, in the first of its formats
        that prints it losslessly, or None when none does. A format fits
        when it spells every operand group the op has and needs none it
        lacks (`Format.fit`); one that spells all the op's format
        attributes is preferred to one that leaves some to its attr-dict;
        and what it prints must read back as the same op (a format whose
        optional groups the reader would take for one another, as ptoas's
        own parser would, does not print it)."""
        names_in_formats = _format_attribute_names(d)
        plain = list(parts.extra_attributes)
        fits = [(fmt, rest) for fmt in d.parsed_formats if (rest := fmt.fit(parts)) is not None]
        fits.sort(key=lambda fit: bool(fit[1]))  # stable: the table's order otherwise
        for fmt, rest in fits:
            if rest:
                # the format attributes it does not spell go to its attr-dict, in the op's order
                parts.extra_attributes = [(key, shown) for name, key, shown in parts.entries if name not in names_in_formats or name in rest]
            else:
                parts.extra_attributes = plain
            text = fmt.write(parts)
            if fmt.reads_back(text, parts, rest) and not any(_reads(other, text) for other in d.parsed_formats[: d.parsed_formats.index(fmt)]):
                return text  # (the reader takes the first format that reads: an earlier one must not)
        parts.extra_attributes = plain
        return None


def _reads(fmt, text: str) -> bool:
    """Whether `fmt` reads `text` (what the reader asks of each format in turn)."""
    try:
        fmt.read(text, 0)
    except SyntaxError_:
        return False
    return True


@cache
def _format_attribute_names_cached(name: str) -> frozenset[str]:
    from ..dialect.formats import Clauses, Optional, Var

    d = op_def(name)
    found: set[str] = set()

    def visit(elements):
        for e in elements:
            if isinstance(e, Var) and e.name in d.groups.attributes:
                found.add(e.name)
            elif isinstance(e, Clauses):
                found.update(e.names)
            elif isinstance(e, Optional):
                visit(e.elements)

    for fmt in d.parsed_formats:
        visit(fmt.elements)
    return frozenset(found)


def _format_attribute_names(d: OpDef) -> frozenset[str]:
    return _format_attribute_names_cached(d.generic_name)


@cache
def _kept_defaults_cached(name: str) -> frozenset[str]:
    from ..dialect.formats import Optional, Var

    d = op_def(name)
    found: set[str] = set()

    def visit(elements, optional: bool) -> None:
        for e in elements:
            if isinstance(e, Var) and optional and e.name in d.groups.attributes:
                found.add(e.name)
            elif isinstance(e, Optional):
                visit(e.elements, True)

    for fmt in d.parsed_formats:
        visit(fmt.elements, False)
    return frozenset(a.name for a in d.attributes if a.name in found and not a.held and not a.always)


def _keeps_written_default(d: OpDef, name: str) -> bool:
    """Whether a default the text spells is kept (not the same op as none):
    only a default-valued optional attribute in an optional group, which
    ptoas prints because it is there (`{id = 0, split = 0}`, where `{split =
    0}` prints `{ split = 0}`). Every other default prints as the op without
    it prints: held (ptoas's op has it either way), always spelled by its
    printer, left out of the attr-dict, or a format's required element."""
    return name in _kept_defaults_cached(d.generic_name)


def _format_attribute_text(attribute, shown: str | None) -> str:
    """A format attribute as ptoas prints it: integers without their type."""
    if shown is None:
        return ""
    if attribute is not None and attribute.kind.kind == "int":
        return shown.split(":")[0].strip()
    return shown


__all__ += ["LOCAL_ARRAY"]
