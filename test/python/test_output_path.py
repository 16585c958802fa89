"""The fast ways out give the same bytes as the plain ones
(docs/performance.md, "Where the time goes"): a large module printed by C++
into a file (`session._print_to_file`) is what `Operation.print` writes, and
the writer's fast path for op lines as MLIR prints them is what its general
path writes, line for line."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import pto_context
from mlir import ir

from pto_dialect.driver.pass_pipeline import PipelineRun, PipelineSettings, build_pass_manager, resolve
from pto_dialect.driver.session import Session, Source, print_module, read_source
from pto_dialect.syntax import ptoas

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.pto"))
NO_MATCH = re.compile(r"(?!)")


def _converted(path: Path, context: ir.Context):
    """The example after the pipeline switch (multi-buffer, lowering,
    addresses), in `context`, with the session that parsed it."""
    session = Session(read_source(str(path)), context=context)
    session.__enter__()
    module = session.parse()
    assert module is not None, session.errors_text()
    with context:
        items = resolve("pto-pipeline{use-ptoas-multi-buffer=true}")
    build_pass_manager(items, PipelineRun(PipelineSettings()), context).run(module.operation)
    return session, module


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_a_module_printed_through_a_file_is_the_same_bytes(path):
    session, module = _converted(path, pto_context())
    try:
        for generic in (False, True):
            for debuginfo in (False, True):
                plain = print_module(module, path.name, generic=generic, debuginfo=debuginfo)
                through = print_module(module, path.name, generic=generic, debuginfo=debuginfo, through_file=True)
                assert through == plain, (generic, debuginfo)
    finally:
        session.__exit__(None, None, None)


def test_a_named_module_prints_the_usual_way():
    text = "module @kernel {\n  func.func @f() {\n    return\n  }\n}\n"
    with Session(Source("named.pto", text)) as session:
        module = session.parse()
        assert print_module(module, "named.pto", through_file=True) == print_module(module, "named.pto")


def test_a_large_source_prints_through_a_file(monkeypatch):
    from pto_dialect.driver import session as session_module

    called = []
    original = session_module._print_to_file

    def spy(*args, **kwargs):
        called.append(True)
        return original(*args, **kwargs)

    monkeypatch.setattr(session_module, "_print_to_file", spy)
    small = read_source(str(EXAMPLES[0]))
    with Session(small) as session:
        session.print(session.parse())
    assert not called
    padded = Source(small.name, small.text + "// padding\n" * (session_module._PRINT_TO_FILE_FROM // 11 + 1))
    with Session(padded) as session:
        plain = print_module(session.parse(), padded.name)
        assert session.print(session.parse()) == plain
    assert called


def _writer_cases() -> list[str]:
    """Printed text of every example after the pipeline switch, in both
    forms MLIR prints pto ops in, with and without locations."""
    texts = []
    for path in EXAMPLES:
        session, module = _converted(path, pto_context())
        try:
            for debuginfo in (False, True):
                out = print_module(module, path.name, generic=True, debuginfo=debuginfo)
                texts.append(out.decode())
                raw = []
                module.operation.print(file=type("W", (), {"write": staticmethod(raw.append)})(), enable_debug_info=debuginfo, assume_verified=True)
                texts.append("".join(raw))
        finally:
            session.__exit__(None, None, None)
    return texts


# Lines MLIR does not print but a caller of `to_ptoas` may give: the fast
# path must leave each to the general one, which decides as before.
ODD_LINES = """\
    %0 = arith.constant 16 : index
    %1 = arith.constant 64 : index
    %v = "pto.make_tensor_view"(%a, %0, %1, %1, %0) {layout = #pto.layout<"nd">, @S122@} : (@PTR@, index, index, index, index) -> @TV@
    %p = "pto.partition_view"(%v, %0, %0, %0, %1) {operandSegmentSizes = array<i32: 1, 2, 2>} : (@TV@, index, index, index, index) -> @P16@
    %2 = arith.constant 32 : index
    %q = "pto.partition_view"(%v, %0, %0, %2, %1) {operandSegmentSizes = array<i32: 1, 2, 2>} : (@TV@, index, index, index, index) -> @P32@
    %r = "pto.partition_view"(%v, %0, %0, %0, %1) {operandSegmentSizes = array<i32: 1, 2, 2>, note = "%x"} : (@TV@, index, index, index, index) -> @P16@
    %s:2 = "pto.unknown_op"(%v#1, %0) : (index, index) -> (@PTR@, index)
    "pto.tload"(%p,%t) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>} : (@P16@, @TB@) -> ()
    "pto.tload"(%p, %t) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>} : (@P16@, @TB@) -> () loc("k.pto":3:5)
    "pto.tload"(%p, %t) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>} : (@P16@, @TB@) -> ()
    "pto.tload"(%p, %t) : (@P16@) -> ()
    %w = "pto.alloc_tile"() : () -> @TB@
  x = "pto.tadd"(%a) : (index) -> ()
"""
ALIASES = {
    "@S122@": "operandSegmentSizes = array<i32: 1, 2, 2>",
    "@PTR@": '!pto.ptr<f32, "gm">',
    "@TV@": "!pto.tensor_view<array<i64: -1, -1>, f32>",
    "@P16@": "!pto.partition_tensor_view<array<i64: 16, 64>, f32>",
    "@P32@": "!pto.partition_tensor_view<array<i64: 32, 64>, f32>",
    "@TB@": '!pto.tile_buf<"vec", array<i64: 16, 64>, f32, array<i64: -1, -1>, "row_major", "none_box", 512 : i64, 0 : i64, 0 : i64>',
}
for _alias, _type in ALIASES.items():
    ODD_LINES = ODD_LINES.replace(_alias, _type)


def test_the_writers_fast_path_writes_what_its_general_path_writes(monkeypatch):
    texts = [*_writer_cases(), ODD_LINES]
    fast = [ptoas.to_ptoas(text) for text in texts]
    monkeypatch.setattr(ptoas, "_PRINTED_OP_LINE", NO_MATCH)
    general = [ptoas.to_ptoas(text) for text in texts]
    for text, a, b in zip(texts, fast, general):
        assert a == b, text[:200]
    assert "pto.partition_view" in fast[-1] and "pto.tload ins(" in fast[-1]


def test_mlir_timing_reports_the_phases_when_run_as_a_module():
    done = subprocess.run(
        [sys.executable, "-m", "pto_dialect.tools.pto_opt", str(EXAMPLES[0]), "--mlir-timing", "-o", "/dev/null"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    for phase in ("read ptoas syntax", "print", "write ptoas syntax"):
        assert phase in done.stderr
