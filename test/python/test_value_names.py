"""The user's SSA names survive reading, the passes and writing
(docs/tools.md, "Value names"), on every example and test input, in both
ways of printing, with the user's own locations, and as the names pto-run's
`--arg` takes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import pto_context

import pto_dialect
from pto_dialect.driver import session as session_module
from pto_dialect.driver.session import Session, Source
from pto_dialect.support import native_printing

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.pto"))

_DEFINED = re.compile(r"^\s*((?:%[\w$.\-]+(?::\d+)?\s*,\s*)*%[\w$.\-]+(?::\d+)?)\s*=(?!=)", re.MULTILINE)
_BLOCK_ARGUMENT = re.compile(r"(?:scf\.for|iter_args\(|func\.func @[\w$.]+\(|,)\s*(%[\w$.\-]+)\s*(?:=|:)")


def defined_names(text: str) -> set[str]:
    """The non-numeric names the text defines: op results, function
    arguments, induction variables and iter_args (what a reader sees)."""
    names = set()
    for m in _DEFINED.finditer(text):
        names.update(re.findall(r"%([\w$.\-]+)", m.group(1)))
    for line in text.splitlines():
        if "func.func" in line or "scf.for" in line:
            names.update(n[1:] for n in _BLOCK_ARGUMENT.findall(line))
    return {n for n in names if not n.isdigit()}


def run_opt(tmp_path: Path, text: str, *args: str) -> str:
    from pto_dialect.tools import pto_opt as tool

    source = tmp_path / "k.pto"
    source.write_text(text)
    target = tmp_path / "out.pto"
    assert tool.main([str(source), "-o", str(target), *args]) == 0
    return target.read_text()


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_every_name_of_an_example_is_printed(example, tmp_path):
    text = example.read_text()
    wanted = defined_names(text)
    assert wanted, "an example without names tests nothing"
    for args in ([], ["--mlir-print-op-generic"]):
        printed = run_opt(tmp_path, text, *args)
        missing = {n for n in wanted if not re.search(f"%{re.escape(n)}(?![\\w$.\\-])", printed)}
        assert not missing, (args, sorted(missing))
    # and read again, the same text
    once = run_opt(tmp_path, text)
    assert run_opt(tmp_path, once) == once


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_the_pipeline_keeps_the_names_it_does_not_replace(example, tmp_path):
    text = example.read_text()
    printed = run_opt(tmp_path, text, "--pto-pipeline", "--use-ptoas-multi-buffer")
    kept = defined_names(printed)
    assert defined_names(text) <= kept, sorted(defined_names(text) - kept)
    # every tile made a multi-buffer is still named in the loop, its buffer after it
    assert all(mb[: -len("_mb")] in kept for mb in kept if mb.endswith("_mb"))


def test_large_modules_print_the_names_through_the_file_as_through_python(monkeypatch):
    """A module of 64 KiB and more is printed by C++ into a file
    (session._print_to_file, with the C API's printing flags); both ways
    print the same names."""
    text = _bench_kernel(200)
    assert len(text) >= session_module._PRINT_TO_FILE_FROM
    with Session(Source("k.pto", text)) as session:
        module = session.parse()
        through_file = session.print(module)
        monkeypatch.setattr(native_printing, "print_before_all_to_tree", lambda *a, **k: False)
        through_python = session.print(module)
    assert through_file == through_python
    assert b"%a199 = pto.alloc_tile" in through_file and b"scf.for %i199 = " in through_file


def _bench_kernel(loops: int) -> str:
    """bench/tool's kernel of `loops` pipeline loops, in the shape PyPTO writes."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_generate", ROOT / "bench" / "tool" / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    return generate.pto_kernel(loops)


def test_ops_with_their_own_locations_keep_their_names():
    text = """func.func @f(%n: index) -> index {
  %zero = arith.constant 0 : index loc("kernel.py":3:1)
  %one = arith.constant 1 : index loc(unknown)
  %sum = scf.for %k = %zero to %n step %one iter_args(%acc = %zero) -> (index) {
    %next = arith.addi %acc, %k : index loc("next")
    scf.yield %next : index
  } loc(fused["a", "b"])
  return %sum : index
}
"""
    with pto_context():
        module = pto_dialect.parse(text, name="k.mlir")
        printed = pto_dialect.print_module(module)
    for line in (
        "%zero = arith.constant 0",
        "%one = arith.constant 1",
        "%sum = scf.for %k = %zero to %n step %one iter_args(%acc = %zero)",
        "%next = arith.addi %acc, %k",
    ):
        assert line in printed, printed


def test_a_result_group_keeps_each_name_unless_a_copy_would_repeat_them():
    from pto_dialect.syntax.ptoas import to_ptoas

    tile = '!pto.tile_buf<"vec", array<i64: 16, 16>, f32, array<i64: 16, 16>, "row_major", "none_box", 512 : i64, 0 : i64, 0 : i64>'
    printed = f'%vr:2 = "pto.get_validshape"(%t) : ({tile}) -> (index, index)\n"test.use"(%vr#1) : (index) -> ()\n'
    assert to_ptoas(printed, iter([("vr", "vc")])).startswith("%vr, %vc = pto.get_validshape %t")
    assert '"test.use"(%vc)' in to_ptoas(printed, iter([("vr", "vc")]))
    # the group is not the name kept (MLIR made it unique: a copy), or the second name is taken: ptoas's names
    assert to_ptoas(printed, iter([("vr_0", "vc")])).startswith("%valid_row_vr, %valid_col_vr = ")
    taken = printed + '%vc = "test.other"() : () -> index\n'
    assert to_ptoas(taken, iter([("vr", "vc")])).startswith("%valid_row_vr, %valid_col_vr = ")
    assert to_ptoas(printed).startswith("%valid_row_vr, %valid_col_vr = ")


def test_pto_run_takes_the_names_the_output_shows(tmp_path, capsys):
    from pto_dialect.tools import pto_run

    text = (ROOT / "examples" / "double_buffer_add.pto").read_text()
    converted = run_opt(tmp_path, text, "--pto-pipeline", "--use-ptoas-multi-buffer")
    first_argument = re.search(r"func\.func @(\w+)\((%[\w$.\-]+):", converted)
    assert first_argument is not None and not first_argument.group(2)[1:].isdigit()
    path = tmp_path / "converted.pto"
    path.write_text(converted)
    name = first_argument.group(2)
    assert pto_run.main([str(path), "--func", first_argument.group(1), "--arg", f"{name}=@{tmp_path / 'missing.npy'}"]) == 1
    assert f"--arg {name}: cannot read" in capsys.readouterr().err
