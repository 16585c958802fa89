"""The Python API (docs/api.md) as an embedding toolchain uses it: its own
Context and PassManager, its own diagnostic handler."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from mlir import ir
from mlir.passmanager import PassManager

import pto_dialect
from pto_dialect.driver.pass_pipeline import PipelineError
from pto_dialect.reports.decisions import PipelineReport
from pto_dialect.support import diagnostics

UNALIGNED = """
func.func @f() {
  %a = arith.constant 16 : i64
  %t = pto.alloc_tile addr = %a : !pto.tile_buf<vec, 16x16xf32>
  return
}
"""

DUPLICATES = """
func.func @f(%src: !pto.tensor_view<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c0_dup = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %part = pto.partition_view %src, offsets = [%c0, %c0_dup], sizes = [%c16, %c16] : !pto.tensor_view<64x64xf32> -> !pto.partition_tensor_view<16x16xf32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
  pto.tload ins(%part : !pto.partition_tensor_view<16x16xf32>) outs(%t : !pto.tile_buf<vec, 16x16xf32>)
  return
}
"""

A5_ONLY = """
module attributes {pto.target_arch = "a5"} {
  func.func @f() {
    %t = pto.alloc_tile : !pto.tile_buf<vec, 256x224xf32>
    return
  }
}
"""


class Handler:
    """A caller's diagnostic handler: records (severity, message, line)."""

    def __init__(self, context: ir.Context) -> None:
        self.seen: list[tuple[str, str, int]] = []
        self.notes: list[list[str]] = []
        context.attach_diagnostic_handler(self)

    def __call__(self, d) -> bool:
        loc = d.location
        line = loc.start_line if loc.is_a_file() else 0
        severity = {
            ir.DiagnosticSeverity.ERROR: "error",
            ir.DiagnosticSeverity.WARNING: "warning",
            ir.DiagnosticSeverity.REMARK: "remark",
            ir.DiagnosticSeverity.NOTE: "note",
        }[d.severity]
        self.seen.append((severity, d.message, line))
        self.notes.append([n.message for n in d.notes])
        return True


@pytest.fixture
def context():
    """A caller's own Context, without the pto dialect (conftest's has it):
    the API must load the dialect into it."""
    ctx = ir.Context()
    with ctx, ir.Location.unknown():
        yield ctx


def parse(text: str, context: ir.Context) -> ir.Module:
    return pto_dialect.parse(text, context=context)


def test_import_does_not_load_mlir():
    code = "import sys, pto_dialect; print(sorted(m for m in sys.modules if m == 'mlir' or m.startswith('mlir.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_api_names_resolve_lazily():
    assert callable(pto_dialect.load_dialect)
    assert callable(pto_dialect.run_passes)
    assert callable(pto_dialect.add_passes)
    assert callable(pto_dialect.verify)
    assert pto_dialect.IRDL_FILE.exists()
    with pytest.raises(AttributeError):
        pto_dialect.no_such_name  # noqa: B018


def test_load_dialect_into_a_callers_context_is_idempotent(context):
    pto_dialect.load_dialect(context)
    pto_dialect.load_dialect(context)
    module = ir.Module.parse(pto_dialect.to_generic(DUPLICATES), context)
    assert module.operation.verify()
    # Loading again after modules exist leaves them intact.
    pto_dialect.load_dialect(context)
    assert '"pto.tload"' in str(module)


def test_run_passes_with_a_pipeline_string(context):
    module = parse(DUPLICATES, context)
    report = pto_dialect.run_passes(module, "builtin.module(cse,pto-verify)")
    assert isinstance(report, PipelineReport)
    text = str(module)
    assert "%c0_0" not in text and text.count("arith.constant") == 2
    # A bare list, and the module's operation instead of the module.
    module = parse(DUPLICATES, context)
    pto_dialect.run_passes(module.operation, "canonicalize, cse")
    assert str(module).count("arith.constant") == 2


def test_run_passes_failure_raises_with_the_diagnostics(context):
    module = parse(A5_ONLY, context)
    assert pto_dialect.verify(module)
    with pytest.raises(ir.MLIRError) as info:
        pto_dialect.run_passes(module, "pto-verify{arch=a3}")
    messages = [d.message for d in info.value.error_diagnostics]
    assert len(messages) == 1
    assert "does not fit in space \"vec\" (196608 bytes on a2a3)" in messages[0]


def test_run_passes_rejects_a_bad_pipeline(context):
    module = parse(DUPLICATES, context)
    with pytest.raises(PipelineError, match="'no-such-pass' does not refer to a registered pass"):
        pto_dialect.run_passes(module, "builtin.module(no-such-pass)")
    with pytest.raises(PipelineError, match="'a7' is not one of a2a3, a5, a2, a3"):
        pto_dialect.run_passes(module, "pto-verify{arch=a7}")
    with pytest.raises(PipelineError, match="cannot be nested in 'func.func"):
        pto_dialect.run_passes(module, "builtin.module(func.func(pto-verify))")
    # Nothing ran.
    assert "%c0_0" in str(module)


def test_add_passes_to_a_callers_pass_manager(context):
    module = parse(DUPLICATES, context)
    pm = PassManager("builtin.module", context)
    pm.add("canonicalize")
    report = pto_dialect.add_passes(pm, "pto-verify,cse")
    assert isinstance(report, PipelineReport)
    pm.run(module.operation)
    assert str(module).count("arith.constant") == 2

    # The added pto pass really runs: under a3 it rejects the a5-only tile.
    module = parse(A5_ONLY, context)
    pm = PassManager("builtin.module", context)
    pto_dialect.add_passes(pm, "builtin.module(pto-verify{arch=a3})")
    with pytest.raises(ir.MLIRError, match="196608 bytes on a2a3"):
        pm.run(module.operation)


def test_verify_reports_to_the_callers_handler(context):
    handler = Handler(context)
    pto_dialect.load_dialect(context)
    module = ir.Module.parse(pto_dialect.to_generic(UNALIGNED), context)  # the caller's own parse
    assert pto_dialect.verify(module) is False
    assert handler.seen == [("error", "'pto.alloc_tile' op addr must be aligned to 32 bytes for local tile memory space, got 16", 4)]

    handler.seen.clear()
    module = parse(A5_ONLY, context)
    assert pto_dialect.verify(module) is True
    assert pto_dialect.verify(module, arch="a5") is True
    assert pto_dialect.verify(module, arch="a3") is False
    assert [s for s, _, _ in handler.seen] == ["error"]


def test_parse_and_print_take_and_give_either_spelling(context):
    module = parse(DUPLICATES, context)
    ptoas = pto_dialect.print_module(module)
    assert "pto.tload ins(%part : !pto.partition_tensor_view<16x16xf32>) outs(%t : !pto.tile_buf<vec, 16x16xf32>)" in ptoas
    generic = pto_dialect.print_module(module, generic=True)
    assert '"pto.tload"' in generic and "ins(" not in generic
    # Both spellings parse back to the same module.
    for text in (ptoas, generic, pto_dialect.to_ptoas(generic)):
        assert pto_dialect.print_module(parse(text, context)) == ptoas


def test_parse_error_names_the_callers_file(context):
    with pytest.raises(pto_dialect.ParseError) as info:
        pto_dialect.parse(UNALIGNED, name="kernel.pto", context=context)
    assert str(info.value).startswith("kernel.pto:4:8: error: 'pto.alloc_tile' op addr must be aligned")
    with pytest.raises(pto_dialect.ParseError, match="kernel.pto:1:24: error: tile_buf compact syntax expects exactly two shape dims"):
        pto_dialect.to_generic("!t = !pto.tile_buf<vec, 16xf32>", name="kernel.pto")


def test_remarks_and_warnings_reach_the_callers_handler(context):
    handler = Handler(context)
    here = ir.Location.file("kernel.mlir", 7, 3)
    there = ir.Location.file("kernel.mlir", 2, 1)
    diagnostics.emit_remark(here, "loop not converted: tile is loop-carried", [(there, "defined here")])
    diagnostics.emit_warning(here, "a warning")
    diagnostics.emit_error(here, "an error")
    assert handler.seen == [
        ("remark", "loop not converted: tile is loop-carried", 7),
        ("warning", "a warning", 7),
        ("error", "an error", 7),
    ]
    assert handler.notes[0] == ["defined here"]


def test_native_diagnostics_on_this_platform():
    import platform

    if not (sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64")):
        pytest.skip("the MLIR entry points are called through ctypes on Linux x86-64 only")
    assert diagnostics.native_diagnostics_available()


def test_remarks_without_native_diagnostics_go_to_fallback_sinks():
    # PTO_PYTHON_DIAGNOSTICS turns the ctypes path off: remarks then go to
    # the registered sinks, errors still through MLIR.
    code = textwrap.dedent(
        """
        from mlir import ir
        from pto_dialect.support import diagnostics
        sunk = []
        diagnostics.add_fallback_sink(sunk.append)
        seen = []
        with ir.Context() as ctx:
            ctx.attach_diagnostic_handler(lambda d: seen.append(d.message) or True)
            loc = ir.Location.file("k.mlir", 3, 1)
            diagnostics.emit_remark(loc, "a remark")
            diagnostics.emit_error(loc, "an error")
        assert not diagnostics.native_diagnostics_available()
        assert [(d.severity, d.message, d.line) for d in sunk] == [("remark", "a remark", 3)], sunk
        assert seen == ["an error"], seen
        print("ok")
        """
    )
    env = {**__import__("os").environ, "PTO_PYTHON_DIAGNOSTICS": "1"}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "ok"


def test_a_handler_sees_parse_warnings_in_the_named_file(context):
    """A warning of ptoas's rules at parse (two slots of one multi-tile
    buffer in one iteration: docs/dialect.md) reaches the caller's handler,
    at the line and column of the file named to `parse`, not MLIR's `-`."""
    handler = Handler(context)
    text = (Path(__file__).resolve().parents[1] / "Dialect" / "pto" / "co-live-slots.pto").read_text()
    with context:
        pto_dialect.parse(text, name="kernels/colive.pto")
    warnings = [(message, line) for severity, message, line in handler.seen if severity == "warning"]
    assert len(warnings) == 1 and warnings[0][0].startswith("a second slot of this multi-tile buffer"), handler.seen
    assert warnings[0][1] == 20
    located = []
    context.attach_diagnostic_handler(lambda d: located.append(str(d.location)) or True)
    with context:
        pto_dialect.parse(text, name="kernels/colive.pto")
    assert located == ['loc("kernels/colive.pto":20:10)']
