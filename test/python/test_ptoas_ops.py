"""Every op of ptoas's ODS is in the op table (issue 25, item 3), with
its default-valued attributes (issue 25, item 1).

`data/ptoas_ops.txt` lists the ops of tonibohnlein/PTOAS
include/PTO/IR/PTOOps.td at e32488c9 (the commit pto-parse is built from),
as `scripts/ptoas_ods.py` reads them; `data/ptoas_defaults.txt` every
default-valued attribute there (`--defaults`, with PTOAttrs.td for how an
enum prints); `data/ptoas_required.txt` every attribute an op must have
(`--required`). With `PTOAS_SRC` naming a PTOAS checkout (or a bare clone),
both lists are also checked against those files.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pto_dialect.dialect.ops import BY_PTOAS_NAME, OPS

ROOT = Path(__file__).resolve().parents[2]
LIST = Path(__file__).parent / "data" / "ptoas_ops.txt"
DEFAULTS = Path(__file__).parent / "data" / "ptoas_defaults.txt"
REQUIRED = Path(__file__).parent / "data" / "ptoas_required.txt"
PTOAS_COMMIT = "e32488c9"

sys.path.insert(0, str(ROOT / "scripts"))
import ptoas_ods  # noqa: E402


def _listed() -> list[str]:
    return LIST.read_text().split()


def test_every_ptoas_op_is_in_the_op_table():
    missing = [name for name in _listed() if name not in BY_PTOAS_NAME]
    assert missing == []
    assert len(_listed()) == 228


def test_the_op_table_holds_no_op_ptoas_lacks():
    assert sorted(set(BY_PTOAS_NAME) - set(_listed())) == []


def test_the_reader_of_ods_finds_ops_their_fields_and_formats():
    td = """
def FooOp : PTO_TOp<"tfoo", [Pure]> {
  let summary = "a foo";  // comment: def BarOp : PTO_Op<"bar">
  let arguments = (ins PTODpsType:$src, Optional<Index>:$n, DefaultValuedAttr<I32Attr, "0">:$id);
  let results = (outs I64:$result);
  let assemblyFormat = [{ `ins` `(` $src `)` attr-dict }];
}
def SecOp : PTO_SectionOp<"section.x">;
def BazOp : PTO_Op<"baz"> {
  let hasCustomAssemblyFormat = 1;
}
"""
    ops = ptoas_ods.read_ops(td)
    assert [o["name"] for o in ops] == ["tfoo", "section.x", "baz"]
    foo, sec, baz = ops
    assert foo["arguments"] == [("PTODpsType", "src"), ("Optional<Index>", "n"), ('DefaultValuedAttr<I32Attr, "0">', "id")]
    assert foo["results"] == [("I64", "result")]
    assert foo["assemblyFormat"] == "`ins` `(` $src `)` attr-dict"
    assert sec["regions"] and sec["assemblyFormat"] == "$body attr-dict"
    assert baz["custom"] and baz["assemblyFormat"] is None


def _defaults() -> list[tuple[str, str, bool, str]]:
    rows = []
    for line in DEFAULTS.read_text().splitlines():
        op, name, held, text = line.split(" ", 3)
        rows.append((op, name, held == "held", text))
    return rows


def test_every_default_of_ptoas_s_ods_is_the_op_table_s():
    rows = _defaults()
    assert len(rows) == 63
    wrong = []
    for op, name, held, text in rows:
        a = BY_PTOAS_NAME[op].attribute(name)
        if a is None or (a.default, a.held) != (text, held):
            wrong.append(f"{op} {name}: ODS {text} ({'held' if held else 'optional'}), table {a and (a.default, a.held)}")
    assert wrong == []
    # and the table has no default ptoas lacks
    listed = {(op, name) for op, name, _, _ in rows}
    extra = [(d.full_name, a.name) for d in OPS for a in d.attributes if a.default is not None and (d.full_name, a.name) not in listed]
    assert extra == []


def test_what_ptoas_prints_of_a_default_follows_from_the_table():
    tcvt, tstore, tpush, init = (BY_PTOAS_NAME[n] for n in ("pto.tcvt", "pto.tstore", "pto.tpush_to_aiv", "pto.aic_initialize_pipe"))
    # a held default under a printer of the attribute dictionary (TCvtOp::print) is printed
    assert [a.name for a in tcvt.printed_defaults] == ["rmode", "sat_mode"]
    # ODS's printer leaves a default out; an optional default is printed only when there
    assert tstore.printed_defaults == () and tpush.printed_defaults == ()
    # a printer that spells one from its getter (printFrontendInitializePipeOp)
    assert [a.name for a in init.printed_defaults] == ["id"]
    assert tcvt.attribute("sat_mode").dict_text("0") == "0"
    assert BY_PTOAS_NAME["pto.get_buf"].attribute("mode").dict_text("0") == "0 : i32"


def test_the_reader_of_ods_finds_defaults_as_ptoas_prints_them():
    attrs = ptoas_ods.read_enum_attrs(
        """
def PTO_DivPrecisionEnum : PTO_I32Enum<"DivPrecision", "d", [
    I32EnumAttrCase<"Default", 0, "default">, I32EnumAttrCase<"HighPrecision", 1, "high_precision"> ]>;
def PTO_DivPrecisionAttr : EnumAttr<PTO_Dialect, PTO_DivPrecisionEnum, "div_precision"> { let summary = "s"; }
def PTO_PipeEnum : PTO_I32Enum<"PIPE", "p", [ I32EnumAttrCase<"PIPE_S", 0> ]>;
def PTO_PipeAttr : EnumAttr<PTO_Dialect, PTO_PipeEnum, "pipe"> { let assemblyFormat = "`<` $value `>`"; }
"""
    )
    assert ptoas_ods.default_text("PTO_DivPrecisionAttr", "::mlir::pto::DivPrecision::Default", attrs) == "#pto<div_precision default>"
    assert ptoas_ods.default_text("PTO_PipeAttr", "::mlir::pto::PIPE::PIPE_S", attrs) == "#pto.pipe<PIPE_S>"
    assert ptoas_ods.default_text("I32Attr", "0", attrs) == "0"
    ops = [{"name": "t", "arguments": [('DefaultValuedAttr<BoolAttr, "false">', "a"), ('DefaultValuedOptionalAttr<I32Attr, "1">', "b"), ("I32Attr", "c")]}]
    assert ptoas_ods.read_defaults(ops, attrs) == [("pto.t", "a", "false", True), ("pto.t", "b", "1", False)]


def test_the_op_table_requires_what_ptoas_s_ods_requires():
    listed = [tuple(line.split()) for line in REQUIRED.read_text().splitlines()]
    assert len(listed) == 80
    table = [(d.full_name, a.name) for d in OPS for a in d.attributes if a.required]
    # a custom parser that supplies the attribute when the text has none
    supplied_by_the_parser = [("pto.cmo.cacheinvalid", "space")]
    assert sorted(table + supplied_by_the_parser) == sorted(listed)


def test_the_reader_of_ods_finds_required_attributes():
    ops = [
        {
            "name": "t",
            "arguments": [
                ("I8Attr", "split"),
                ("OptionalAttr<I32Attr>", "o"),
                ('DefaultValuedAttr<I32Attr, "0">', "d"),
                ("UnitAttr", "u"),
                ("PTO_PipeAttr", "pipe"),
                ("Index", "n"),
            ],
        }
    ]
    assert ptoas_ods.read_required(ops) == [("pto.t", "split"), ("pto.t", "pipe")]


def _ptoas_file(path: str) -> str:
    src = Path(os.environ["PTOAS_SRC"])
    if (src / path).exists():
        return (src / path).read_text()
    # a bare clone: the file at the commit pto-parse is built from
    return subprocess.run(["git", "-C", str(src), "show", f"{PTOAS_COMMIT}:{path}"], check=True, capture_output=True, text=True).stdout


@pytest.mark.skipif(not os.environ.get("PTOAS_SRC"), reason="PTOAS_SRC names no PTOAS checkout")
def test_the_list_is_ptoas_s_ods():
    ops = ptoas_ods.read_ops(_ptoas_file("include/PTO/IR/PTOOps.td"))
    assert ["pto." + o["name"] for o in ops] == _listed()
    enums = ptoas_ods.read_enum_attrs(_ptoas_file("include/PTO/IR/PTOAttrs.td"))
    assert ptoas_ods.format_defaults(ptoas_ods.read_defaults(ops, enums)) == DEFAULTS.read_text()
    assert ptoas_ods.format_required(ptoas_ods.read_required(ops)) == REQUIRED.read_text()
