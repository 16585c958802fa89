"""The --verify-diagnostics matcher (pto_dialect.tools.verify_diagnostics):
where each expected-* designator applies, and what counts as a mismatch, the
way mlir-opt's SourceMgrDiagnosticVerifierHandler decides."""

from __future__ import annotations

import pytest

from pto_dialect.support.diagnostics import Diag
from pto_dialect.tools.verify_diagnostics import ExpectationError, check, parse_expectations

FILE = "-"


def lines_of(text: str) -> dict[str, int]:
    return {e.text: e.line for e in parse_expectations(text)}


def d(severity: str, message: str, line: int, file: str | None = FILE, notes=()) -> Diag:
    return Diag(severity, message, file, line if file else 0, 1 if file else 0, list(notes))


def run(text: str, produced: list[Diag]) -> list[str]:
    return [m.message for m in check(parse_expectations(text), produced, lambda name: name == FILE)]


# --- where a designator applies ------------------------------------------------


def test_relative_designators():
    text = "\n".join(
        [
            "// expected-error@+1 {{plus one}}",  # 1 -> 2
            "op",  # 2
            "// expected-error@+3 {{plus three}}",  # 3 -> 6
            "op",  # 4
            "// expected-error@-4 {{minus four}}",  # 5 -> 1
            "op",  # 6
            "op // expected-warning {{same line}}",  # 7 -> 7
            "op //   expected-remark   @+1   {{spaces}}",  # 8 -> 9
        ]
    )
    assert lines_of(text) == {"plus one": 2, "plus three": 6, "minus four": 1, "same line": 7, "spaces": 9}


def test_above_skips_designator_lines():
    text = "\n".join(
        [
            "op",  # 1
            "op",  # 2
            "// expected-error@above {{first}}",  # 3 -> 2
            "// expected-note@above {{second}}",  # 4 -> 2 (line 3 is a designator)
            "op // expected-error {{here}}",  # 5 is a designator line too
            "// expected-error@above {{third}}",  # 6 -> 2
        ]
    )
    assert lines_of(text) == {"first": 2, "second": 2, "here": 5, "third": 2}


def test_below_waits_for_the_next_plain_line():
    text = "\n".join(
        [
            "// expected-error@below {{first}}",  # 1 -> 4
            "// expected-note@below {{second}}",  # 2 -> 4
            "op // expected-error {{same}}",  # 3: a designator line
            "op",  # 4
            "// expected-error@below {{dangling}}",  # 5 -> last line (6)
            "// expected-error@below {{dangling too}}",
        ]
    )
    assert lines_of(text) == {"first": 4, "second": 4, "same": 3, "dangling": 6, "dangling too": 6}


def test_unknown_location_designator():
    (e,) = parse_expectations("// expected-error@unknown {{somewhere}}")
    assert e.line == 0


def test_chunk_range_keeps_file_line_numbers():
    text = "\n".join(
        [
            "// expected-error@+1 {{chunk one}}",  # 1
            "op",  # 2
            "// -----",  # 3
            "op",  # 4
            "// expected-error@above {{chunk two}}",  # 5 -> 4
            "// expected-error@+1 {{chunk two b}}",  # 6 -> 7
            "op",  # 7
        ]
    )
    second = parse_expectations(text, 4, 7)
    assert [(e.text, e.line, e.written_at) for e in second] == [("chunk two", 4, 5), ("chunk two b", 7, 6)]
    first = parse_expectations(text, 1, 2)
    assert [(e.text, e.line) for e in first] == [("chunk one", 2)]


def test_above_at_the_top_of_a_chunk_points_before_it():
    # Nothing above in the chunk: the line before the chunk, like mlir-opt's 0.
    (e,) = parse_expectations("op\n// expected-error@above {{x}}", 2, 2)
    assert e.line == 1


def test_severity_and_column():
    (e,) = parse_expectations("  op   // expected-remark {{r}}")
    assert (e.severity, e.col, e.regex) == ("remark", 11, None)


def test_not_designators():
    assert parse_expectations("// expected-error {{unterminated}") == []
    assert parse_expectations("// expected-fatal {{x}}") == []
    assert parse_expectations("// unexpected-error-something") == []


# --- matching --------------------------------------------------------------------


def test_all_matched_is_clean():
    text = "op // expected-error {{slot 5 is out of range}}\n// expected-remark@-1 {{not converted}}"
    produced = [d("error", "slot 5 is out of range [0, 2)", 1), d("remark", "loop not converted: reason", 1)]
    assert run(text, produced) == []


def test_substring_match_and_missing():
    text = "op // expected-error {{out of range}}"
    assert run(text, [d("error", "slot 5 is out of range", 1)]) == []
    assert run(text, []) == ['expected error "out of range" was not produced']
    assert run(text, [d("error", "slot 5 is OUT of range", 1)]) == [
        "unexpected error: slot 5 is OUT of range",
        'expected error "out of range" was not produced',
    ]


def test_wrong_line_is_unexpected_and_missing():
    text = "// expected-error@+2 {{bad}}\nop\nop"
    assert run(text, [d("error", "bad", 2)]) == ["unexpected error: bad", 'expected error "bad" was not produced']


def test_wrong_severity_is_a_near_miss():
    problems = check(parse_expectations("op // expected-warning {{bad}}"), [d("error", "bad", 1)], lambda n: n == FILE)
    assert [(p.line, p.message) for p in problems] == [
        (1, "'error' diagnostic emitted when expecting a 'warning'"),
        (1, 'expected warning "bad" was not produced'),
    ]


@pytest.mark.parametrize("severity", ["error", "warning", "remark", "note"])
def test_every_severity(severity):
    text = f"op // expected-{severity} {{{{msg}}}}"
    assert run(text, [d(severity, "msg", 1)]) == []
    other = "remark" if severity != "remark" else "warning"
    assert run(text, [d(other, "msg", 1)])  # a mismatch


def test_notes_must_be_expected_too():
    note = d("note", "see existing symbol definition here", 1)
    error = d("error", "redefinition of symbol", 3, notes=[note])
    text = "op\nop\nop // expected-error {{redefinition}}"
    assert run(text, [error]) == ["unexpected note: see existing symbol definition here"]
    assert run(text + "\n// expected-note@-3 {{existing symbol}}", [error]) == []


def test_an_expectation_absorbs_identical_diagnostics():
    # As in mlir-opt (SourceMgrDiagnosticVerifierHandler::process): a
    # diagnostic marks the first expectation it matches, matched or not, so
    # one expectation covers two identical diagnostics and a second identical
    # expectation is never reached.
    one = "// expected-error@+1 {{x}}\nop"
    assert run(one, [d("error", "x", 2), d("error", "x", 2)]) == []
    two = "// expected-error@+2 {{x}}\n// expected-error@+1 {{x}}\nop"
    assert run(two, [d("error", "x", 3), d("error", "x", 3)]) == ['expected error "x" was not produced']


def test_unknown_locations():
    text = "// expected-error@unknown {{nowhere}}"
    assert run(text, [d("error", "nowhere", 0, file=None)]) == []
    assert run("", [d("error", "nowhere", 0, file=None)]) == ["unexpected error: nowhere"]


def test_diagnostics_in_another_file_are_unexpected_there():
    # (as mlir-opt reports them: at their own position, where the input put the op)
    text = "op // expected-error {{x}}"
    produced = [d("error", "x", 1, file="other.mlir")]
    problems = check(parse_expectations(text), produced, lambda name: name == FILE)
    assert [(m.file, m.line, m.message) for m in problems] == [("other.mlir", 1, "unexpected error: x"), (None, 1, 'expected error "x" was not produced')]


# --- regex designators -------------------------------------------------------------


def test_regex_pieces():
    text = "op // expected-error-re {{slot {{[0-9]+}} is out of range [0, {{[0-9]}})}}"
    (e,) = parse_expectations(text)
    assert e.regex is not None
    assert run(text, [d("error", "slot 17 is out of range [0, 2)", 1)]) == []
    assert run(text, [d("error", "slot x is out of range [0, 2)", 1)])


def test_regex_literal_text_is_escaped():
    # Outside {{...}} the text is literal: brackets and dots are not regex syntax.
    text = "op // expected-error-re {{a.b[{{[0-9]}}]}}"
    assert run(text, [d("error", "a.b[7]", 1)]) == []
    assert run(text, [d("error", "axb[7]", 1)])


def test_bad_regex_is_reported_at_the_designator():
    with pytest.raises(ExpectationError) as info:
        parse_expectations("op\n  // expected-error-re {{x {{[}} y}}")
    assert (info.value.line, info.value.col) == (2, 6)
    assert "invalid regex" in str(info.value)
