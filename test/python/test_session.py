"""The session layer is the one way in and out: pto-opt, pto-run, the Python
API, the differential harness and the corpus all parse through
`Session.parse`, and their diagnostics name the user's file. And the one
pipeline grammar that pass flags and `--pass-pipeline` share."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import pto_context
from mlir import ir

import pto_dialect
from pto_dialect.driver import session as session_module
from pto_dialect.driver.session import Session, Source, name_locations, print_module, user_location
from pto_dialect.syntax.pass_pipeline import MAX_NESTING, OptionError, PipelineError, parse_flag, parse_options, parse_pipeline

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "double_buffer_add.pto"


@pytest.fixture
def parses(monkeypatch):
    """The names of the sources `Session.parse` was asked to parse."""
    seen: list[str] = []
    original = Session.parse

    def spy(self, *args, **kwargs):
        seen.append(self.source.name)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(session_module.Session, "parse", spy)
    return seen


def test_pto_opt_parses_through_the_session(parses, capsys):
    from pto_dialect.tools import pto_opt

    assert pto_opt.main([str(EXAMPLE), "-o", "/dev/null"]) == 0
    assert parses == [str(EXAMPLE)]


def test_pto_run_parses_through_the_session(parses, capsys):
    from pto_dialect.tools import pto_run

    assert pto_run.main([str(EXAMPLE), "--func", "add"]) == 0
    assert parses == [str(EXAMPLE)]


def test_the_api_parses_through_the_session(parses):
    with pto_context():  # pto_dialect.parse itself is what is tested, not conftest's parse_kernel
        pto_dialect.parse(EXAMPLE.read_text(), name="k.mlir")
    assert parses == ["k.mlir"]


def test_the_differential_harness_parses_through_the_session(parses):
    from pto_dialect.testing.differential import check_kernel

    check = check_kernel(EXAMPLE.read_text(), "add", pipelines=["pto-verify"], name="example")
    assert check.failures == [] and check.reference_error is None
    assert parses == ["example"]


def test_the_corpus_parses_through_the_session(parses):
    from pto_dialect.testing.corpus import find_kernels

    kernels = find_kernels(ROOT, ("examples",))
    assert kernels and set(parses) == {k.path for k in kernels}


def test_testing_does_not_import_the_tools():
    for path in (ROOT / "pto_dialect" / "testing").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                module = ("." * node.level) + (node.module or "")
                assert "tools" not in module.split("."), f"{path.name} imports {module}"


# --- sources and diagnostics --------------------------------------------------------


def test_chunks_keep_the_lines_of_the_whole_file():
    source = Source("f.mlir", "a\nb\n// -----\nc\n// -----\nd")
    chunks = source.chunks("// -----")
    assert [(c.text, c.first_line, c.last_line) for c in chunks] == [("a\nb", 1, 2), ("c", 4, 4), ("d", 6, 6)]
    assert chunks[1].padded() == "\n\n\nc"
    assert source.line(4) == "c" and source.line(7) is None and source.line(0) is None


def test_diagnostics_name_the_users_file_and_show_its_line():
    text = "func.func @f() {\n  %a = arith.constant 16 : i64\n  %t = pto.alloc_tile addr = %a : !pto.tile_buf<vec, 16x16xf32>\n  return\n}\n"
    with Session(Source("kernel.pto", text)) as session:
        assert session.parse() is None
    (d,) = session.diagnostics
    assert (d.file, d.line, d.col) == ("kernel.pto", 3, 8)
    assert session.format(d).splitlines() == [
        "kernel.pto:3:8: error: 'pto.alloc_tile' op addr must be aligned to 32 bytes for local tile memory space, got 16",
        text.splitlines()[2],
        "       ^",
    ]


def test_errors_inside_ptoas_syntax_are_at_the_users_column():
    # An error the reader finds (in a type) and one MLIR's parser finds
    # (an undefined value inside a translated op) both point into the line
    # as the user wrote it, also in a later chunk.
    text = (
        "func.func @a() {\n  return\n}\n// -----\n"
        "func.func @b() {\n  %t = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32, fractal=7>\n  return\n}\n// -----\n"
        "func.func @c(%t: !pto.tile_buf<vec, 16x16xf32>) {\n"
        "  pto.tadd ins(%t, %nope : !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>) outs(%t : !pto.tile_buf<vec, 16x16xf32>)\n"
        "  return\n}\n"
    )
    source = Source("k.pto", text)
    with Session(source) as session:
        chunks = source.chunks("// -----")
        assert session.parse(chunks[1]) is None
        assert session.parse(chunks[2]) is None
    first, second = session.diagnostics
    assert (first.line, first.col) == (6, 25)
    assert "unsupported s_fractal_size: 7" in first.message
    assert (second.line, second.col) == (11, 20)
    assert "use of undeclared SSA value name" in second.message


def test_a_parser_hazard_is_an_error_at_its_line_in_a_chunk():
    text = "func.func @a() {\n  return\n}\n// -----\n" + "func.func @b() {\n  %x = arith.constant dense<[1]> : tensor<1xindex>\n  return\n}\n"
    deep = "module {" + "(" * 1100
    source = Source("s.mlir", text + "// -----\n" + deep)
    with Session(source) as session:
        assert session.parse(source.chunks("// -----")[2]) is None
    (d,) = session.diagnostics
    assert d.file == "s.mlir" and d.line == 10
    assert "nesting deeper than" in d.message


def test_report_locations_and_printed_locations_name_the_file():
    from pto_dialect.reports.decisions import LoopDecision, PipelineReport, TileDecision

    report = PipelineReport(loops=[LoopDecision("p", "-:18:5", 2, True, tiles=[TileDecision("-:19:12", "vec", "t", True)])])
    name_locations(report, "k.mlir")
    assert report.loops[0].location == "k.mlir:18:5" and report.loops[0].tiles[0].location == "k.mlir:19:12"
    assert user_location("other.mlir:1:1", "k.mlir") == "other.mlir:1:1"
    with pto_context():
        module = ir.Module.parse("func.func @f() {\n  return\n}\n")
        text = print_module(module, 'dir/"k".mlir', debuginfo=True).decode()
    assert 'loc("dir/\\"k\\".mlir":2:3)' in text


# --- the pipeline grammar -----------------------------------------------------------


def test_options_parse_with_quotes_braces_and_bare_keys():
    assert parse_options('a=1 b="x y" c={1,2} d ,e=\'q\'') == [("a", "1"), ("b", "x y"), ("c", "1,2"), ("d", None), ("e", "q")]
    with pytest.raises(OptionError, match="unbalanced quotes or braces in option 'b'"):
        parse_options('b="x y')


@pytest.mark.parametrize(
    "flag, name, options, text",
    [
        ("cse", "cse", None, "cse"),
        ("pto-verify=arch=a5", "pto-verify", "arch=a5", "pto-verify{arch=a5}"),
        ("pto-verify{arch=a5}", "pto-verify", "arch=a5", "pto-verify{arch=a5}"),
        ("p{a={x=1} b=2}", "p", "a={x=1} b=2", "p{a={x=1} b=2}"),
    ],
)
def test_a_pass_flag_is_one_pipeline_element(flag, name, options, text):
    element = parse_flag(flag, f"'--{flag}'")
    assert (element.name, element.options, element.children, element.text) == (name, options, None, text)


def test_a_pipeline_keeps_each_elements_text_and_column():
    text = "builtin.module(cse, func.func(canonicalize{max-iterations=2}, cse), p{a=1})"
    (module,) = parse_pipeline(text)
    assert module.name == "builtin.module" and module.text == text
    assert [(e.name, e.col, e.text) for e in module.children] == [
        ("cse", 16, "cse"),
        ("func.func", 21, "func.func(canonicalize{max-iterations=2}, cse)"),
        ("p", 69, "p{a=1}"),
    ]
    assert [e.name for e in module.walk()] == ["builtin.module", "cse", "func.func", "canonicalize", "cse", "p"]


def test_a_pipeline_nests_to_the_limit_and_no_further():
    at_limit = "a(" * MAX_NESTING + "cse" + ")" * MAX_NESTING
    (outer,) = parse_pipeline(at_limit)
    assert len(list(outer.walk())) == MAX_NESTING + 1
    with pytest.raises(PipelineError, match=f"pipeline nested deeper than {MAX_NESTING} levels") as failure:
        parse_pipeline("a(" + at_limit + ")")
    assert failure.value.col == 2 * MAX_NESTING + 2
