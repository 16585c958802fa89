"""Facts about MLIR source text that hold before (and without) parsing it:
where its comments are, and which constructs would crash the parser."""

from __future__ import annotations

import re

_EXACT_DIGITS = 40
"""More digits than any integer the dialect or MLIR's parser reads holds
(2**128 has 39): a longer literal is out of every range."""


def integer_literal(text: str) -> int:
    """`int(text)` for a decimal integer literal of the source, of any
    length: one of more than 40 digits, beyond every integer type, is read
    as +-10**40, still out of every range the callers check, without
    Python's conversion, whose cost grows with the square of the length and
    which refuses more than 4300 digits (ValueError)."""
    negative = text.startswith("-")
    digits = text.lstrip("+-").lstrip("0") or "0"
    if len(digits) <= _EXACT_DIGITS:
        value = int(digits)
    else:
        value = 10**_EXACT_DIGITS
    return -value if negative else value


# Inputs the pinned MLIR parser cannot take without killing the process (an
# assertion, enabled in the bindings' build, or a stack overflow in its
# recursive descent), found before parsing so that they get a diagnostic like any other
# bad input. mlir-opt itself crashes on both.
MAX_NESTING = 1000
"""Deepest bracket nesting accepted. The C++ parser needs about 2 KB of stack
per level; it overflows the default 8 MB stack between 2300 generic-op
region levels (4600 brackets) and 17000 nested types."""

_HAZARD_TOKENS = re.compile(
    r'"(?:[^"\\\n]|\\.)*"'  # a string: its brackets do not count
    r"|//[^\n]*"  # a comment
    r"|->"
    r"|(?<![\w.$!#@%-])array\s*<\s*(?=index\b)"  # dense array of index: asserts in getIntOrFloatBitWidth
    r"|[(\[{<]|[)\]}>]"
)


# The same strings and comments as _HAZARD_TOKENS, in the unrolled form that
# Python's re scans about 3x faster.
_STRINGS_AND_COMMENTS = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"|//[^\n]*')
# Without _HAZARD_TOKENS' look-behind, which would cost the literal prefix
# search: a preceding name character is checked per match instead.
_INDEX_ARRAY = re.compile(r"array\s*<\s*index\b")
_OPENERS, _CLOSERS = b"([{<", b")]}>"
_TO_PARENS = bytes.maketrans(_OPENERS + _CLOSERS, b"(" * 4 + b")" * 4)
_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(_OPENERS + _CLOSERS)))


def _nesting_bound(code: str) -> int:
    """An upper bound of the bracket nesting of `code` (strings and comments
    removed), at C speed: the depth of matched pairs (one pass of removing
    innermost `()` per level) plus the openers never closed."""
    parens = code.replace("->", "").encode("utf-8", "surrogateescape").translate(_TO_PARENS, _NOT_BRACKETS)
    levels = 0
    while b"()" in parens:
        levels += 1
        if levels > MAX_NESTING:
            break
        parens = parens.replace(b"()", b"")
    return levels + parens.count(b"(")


# A string that may not close on its line, or a comment.
_STRING_OR_COMMENT = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"?|//[^\n]*')


def _unterminated_string(text: str) -> int | None:
    """The offset where the first string that does not close on its line
    ends, or None. (The parser's error recovery after such a string can
    leave an error it captured unreported, which aborts the bindings.)"""
    for m in _STRING_OR_COMMENT.finditer(text):
        token = m.group(0)
        if token[0] == '"' and not _closed(token):
            return m.end()
    return None


def _closed(string: str) -> bool:
    """Whether a string token (from its opening quote) ends with its closing
    quote: a quote after an even run of backslashes."""
    if len(string) < 2 or string[-1] != '"':
        return False
    body = string[1:-1]
    return (len(body) - len(body.rstrip("\\"))) % 2 == 0


def parser_hazard(text: str) -> tuple[int, str] | None:
    """(offset, message) of the first construct in `text` that would crash
    the MLIR parser, or None."""
    # Nearly every input is far from all of them: rule them out without
    # visiting each bracket in Python (that scan costs 3x the parse of a
    # large file).
    code = _STRINGS_AND_COMMENTS.sub(" ", text)  # a space: no tokens merge
    if '"' in code:  # a quote no complete string accounts for
        end = _unterminated_string(text)
        if end is not None:
            return end, "expected '\"' in string literal"
    index_array = any(
        m.start() == 0 or not (code[m.start() - 1].isalnum() or code[m.start() - 1] in "_.$!#@%-")
        for m in _INDEX_ARRAY.finditer(code)
    )
    if not index_array and _nesting_bound(code) <= MAX_NESTING:
        return None
    depth = 0
    for m in _HAZARD_TOKENS.finditer(text):
        token = m.group(0)
        if token[0] in "\"/" or token == "->":
            continue
        if token.startswith("array"):
            return m.end(), "expected integer or float type, got: 'index'"
        if token in "([{<":
            depth += 1
            if depth > MAX_NESTING:
                return m.start(), f"nesting deeper than {MAX_NESTING} levels is not supported"
        elif depth:
            depth -= 1
    return None


def strip_comments(text: str) -> str:
    """`text` with every `//` comment blanked out (strings kept, so a `//`
    inside a string stays); line and column numbers do not change."""

    def blank(m: re.Match) -> str:
        token = m.group(0)
        return token if token.startswith('"') else " " * len(token)

    return _STRINGS_AND_COMMENTS.sub(blank, text)


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of `offset` in `text`."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


_EMBEDDED_PTO_TYPE = re.compile(r"!pto\.\w+<")
_TYPE_ALIAS = re.compile(r"^\s*!([\w$.-]+)\s*=\s*(!pto\.[^\n]*?)\s*$", re.MULTILINE)
_ALIAS_USE = re.compile(r"!([\w$-]+)(?![\w$.-])")


def embedded_pto_types(text: str) -> list[str]:
    """The texts of the outermost pto types written inside `text` (a type's
    text or source text), e.g. both tile types in
    `(!pto.tile_buf<...>, i32) -> tuple<!pto.tile_buf<...>>`."""
    found = []
    pos = 0
    while (m := _EMBEDDED_PTO_TYPE.search(text, pos)) is not None:
        depth, quoted, end = 0, False, len(text)
        for i in range(m.end() - 1, len(text)):
            c = text[i]
            if quoted:
                quoted = c != '"'
            elif c == '"':
                quoted = True
            elif c == "<":
                depth += 1
            elif c == ">":
                depth -= 1
                if depth == 0:
                    end = i + 1
                    break
        found.append(text[m.start() : end])
        pos = end
    return found


def spelled_pto_types(code: str) -> set[str]:
    """Every distinct pto type spelled in `code` (source text with comments
    stripped), with the type aliases it uses inside (`multi_tile_buf<!t, 2 : i64>`)
    replaced by what they stand for."""
    aliases = dict(_TYPE_ALIAS.findall(code))

    def expand(match: re.Match) -> str:
        return aliases.get(match.group(1), match.group(0))

    spellings = set()
    for spelling in set(embedded_pto_types(code)):
        if "!" in spelling[1:]:
            spelling = _ALIAS_USE.sub(expand, spelling)
        spellings.add(spelling)
    return spellings
