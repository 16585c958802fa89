"""`--verify-diagnostics`: check produced diagnostics against the
`expected-*` comments of the input, the way mlir-opt does.

    // expected-error @+1 {{slot 2 is out of range}}
    // expected-remark@-1 {{not converted}}
    %t = ... // expected-warning {{same line}}
    // expected-note@above {{...}}   // expected-error@below {{...}}
    // expected-error@unknown {{...}}
    // expected-error-re {{loop {{[0-9]+}} failed}}

Every expected diagnostic must be produced (same line, same severity, the
text contained in the message; `-re` takes `{{regex}}` pieces), and every
produced diagnostic, notes included, must be expected. The same rules as
mlir-opt's SourceMgrDiagnosticVerifierHandler.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..support.diagnostics import Diag

# The same pattern as mlir's SourceMgrDiagnosticVerifierHandler.
_EXPECTED = re.compile(r"expected-(error|note|remark|warning)(-re)? *(@([+-][0-9]+|above|below|unknown))? *\{\{(.*)\}\}$")


@dataclass
class Expected:
    severity: str
    line: int  # the line the diagnostic must be at
    col: int  # where the expectation is written (for messages)
    written_at: int  # the line of the comment
    text: str
    regex: re.Pattern | None
    matched: bool = False

    def matches_text(self, d: Diag) -> bool:
        if self.regex is not None:
            return self.regex.search(d.message) is not None
        return self.text in d.message


class ExpectationError(ValueError):
    def __init__(self, message: str, line: int, col: int) -> None:
        super().__init__(message)
        self.line, self.col = line, col


def _compile_re(text: str) -> re.Pattern:
    parts = []
    pos = 0
    for m in re.finditer(r"\{\{(.*?)\}\}", text):
        parts.append(re.escape(text[pos : m.start()]))
        parts.append(f"(?:{m.group(1)})")
        pos = m.end()
    parts.append(re.escape(text[pos:]))
    return re.compile("".join(parts))


def parse_expectations(lines: list[str] | str, first_line: int = 1, last_line: int | None = None) -> list[Expected]:
    """The expected-* designators on lines [first_line, last_line] of a file
    (its lines, or its text; 1-based line numbers of the whole file), one
    per line at most.

    `@above` applies to the last line above that is not a designator,
    `@below` to the next such line, `@unknown` to unknown locations (line 0).
    """
    if isinstance(lines, str):
        lines = lines.split("\n")
    last_line = len(lines) if last_line is None else last_line
    out: list[Expected] = []
    last_plain = first_line - 1
    waiting_below: list[Expected] = []
    for no in range(first_line, last_line + 1):
        m = _EXPECTED.search(lines[no - 1].rstrip())
        if m is None:
            for e in waiting_below:
                e.line = no
            waiting_below.clear()
            last_plain = no
            continue
        severity, is_re, _, where, body = m.groups()
        try:
            regex = _compile_re(body) if is_re else None
        except re.error as err:
            raise ExpectationError(f"invalid regex in expected-{severity}-re: {err}", no, m.start() + 1) from None
        e = Expected(severity, no, m.start() + 1, no, body, regex)
        if where == "unknown":
            e.line = 0
        elif where == "above":
            e.line = last_plain
        elif where == "below":
            e.line = last_line
            waiting_below.append(e)
        elif where:
            e.line = no + int(where)
        out.append(e)
    return out


@dataclass
class Mismatch:
    line: int
    col: int
    message: str
    file: str | None = None  # another file than the input: a diagnostic the input placed there (`loc("kernel.py":3:4)`)


def check(expected: list[Expected], produced: list[Diag], is_input_file) -> list[Mismatch]:
    """Match produced diagnostics (and their notes) to expectations.

    `is_input_file(name)` tells which file names are the input being checked.
    Returns the problems, each to be reported as an error at (line, col) of
    the input, or of its `file` when it has one; line 0 means no position.
    """
    problems: list[Mismatch] = []
    flat: list[Diag] = []
    for d in produced:
        flat.append(d)
        flat.extend(d.notes)
    for d in flat:
        known = d.file is not None
        if known and not is_input_file(d.file):
            problems.append(Mismatch(d.line, d.col, f"unexpected {d.severity}: {d.message}", d.file))
            continue
        line = d.line if known else 0
        near_miss = None
        for e in expected:
            if e.line != line or not e.matches_text(d):
                continue
            if e.severity == d.severity:
                e.matched = True
                break
            near_miss = e
        else:
            if near_miss is not None:
                problems.append(
                    Mismatch(near_miss.written_at, near_miss.col,
                             f"'{d.severity}' diagnostic emitted when expecting a '{near_miss.severity}'")
                )
            else:
                problems.append(Mismatch(line, d.col, f"unexpected {d.severity}: {d.message}"))
    for e in expected:
        if not e.matched:
            problems.append(Mismatch(e.written_at, e.col, f'expected {e.severity} "{e.text}" was not produced'))
    return problems


def drop_op_dump_notes(d: Diag) -> Diag:
    """Without mlir-opt's `printOpOnDiagnostic`, which the bindings cannot
    turn off: drop the "see current operation" notes (as mlir-opt does under
    --verify-diagnostics)."""
    d.notes = [n for n in d.notes if not n.message.startswith("see current operation:")]
    return d
