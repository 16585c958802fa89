"""Every op of ptoas's ODS is in the op table (issue 25, item 3).

`data/ptoas_ops.txt` lists the ops of tonibohnlein/PTOAS
include/PTO/IR/PTOOps.td at e32488c9 (the commit pto-parse is built from),
as `scripts/ptoas_ods.py` reads them. With `PTOAS_SRC` naming a PTOAS
checkout (or a bare clone), the list is also checked against that file.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pto_dialect.dialect.ops import BY_PTOAS_NAME

ROOT = Path(__file__).resolve().parents[2]
LIST = Path(__file__).parent / "data" / "ptoas_ops.txt"
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


@pytest.mark.skipif(not os.environ.get("PTOAS_SRC"), reason="PTOAS_SRC names no PTOAS checkout")
def test_the_list_is_ptoas_s_ods():
    src = Path(os.environ["PTOAS_SRC"])
    path = src / "include/PTO/IR/PTOOps.td"
    if path.exists():
        text = path.read_text()
    else:  # a bare clone: the file at the commit pto-parse is built from
        text = subprocess.run(
            ["git", "-C", str(src), "show", f"{PTOAS_COMMIT}:include/PTO/IR/PTOOps.td"], check=True, capture_output=True, text=True
        ).stdout
    assert ["pto." + o["name"] for o in ptoas_ods.read_ops(text)] == _listed()
