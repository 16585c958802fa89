"""The one scanner of bracketed text: where a group opened by `<`, `(`, `[`
or `{` closes, and splitting a list at its top-level separators.

MLIR's textual forms nest four kinds of bracket and quote strings with
backslash escapes (the MLIR language reference, "Lexical structure": a
string literal is `"` (`[^"\\\n]` | escape)* `"`); a bracket inside a string
does not count. The `>` of `->` (a function type, `(i32) -> i32`) closes
nothing. The ODS format reader (dialect/formats.py), the type readers
(dialect/types.py) and the translation layer (syntax/ptoas.py) all scan
with these two functions, so they agree on where a group ends.
"""

from __future__ import annotations

_OPENERS = frozenset("<([{")
_CLOSERS = frozenset(">)]}")


def balanced_end(text: str, pos: int) -> int:
    """The end of the bracketed group opening at `pos` (strings skipped),
    or -1 when it does not close."""
    depth = 0
    i = pos
    n = len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c in _OPENERS:
            depth += 1
        elif c in _CLOSERS:
            if c == ">" and i > 0 and text[i - 1] == "-":  # `->` inside a function type
                i += 1
                continue
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


def split_top(text: str, sep: str) -> list[str]:
    """`text` split at each `sep` outside brackets and strings (by the
    rules of `balanced_end`)."""
    parts, depth, start, i = [], 0, 0, 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c in _OPENERS:
            depth += 1
        elif c in _CLOSERS:
            if not (c == ">" and i > 0 and text[i - 1] == "-"):
                depth -= 1
        elif c == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return parts
