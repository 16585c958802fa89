"""The op reference of docs/dialect.md, generated from the op table
(pto_dialect/dialect/ops.py): each op's syntax (from its format), its operands, what
it reads and writes, its pipe, its tier, and what ptoas requires of its
`tmp` at level3.

    python -m pto_dialect.tools.op_docs          # the generated section
    python -m pto_dialect.tools.op_docs --write  # put it into docs/dialect.md

docs/dialect.md holds the section between two markers; a test keeps it fresh.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ..dialect.formats import AttrDict, Clauses, Literal, OperandClauses, Optional, TypeOf, Var, parse_format
from ..dialect.ops import LEVEL3_TMP_TYPES, LEVEL3_TMP_WHEN, OPS, READ_DOMAINS, WRITE_REGIONS, OpDef

BEGIN = "<!-- BEGIN GENERATED OP TABLE (python -m pto_dialect.tools.op_docs --write) -->"
END = "<!-- END GENERATED OP TABLE -->"
DIALECT_MD = Path(__file__).resolve().parents[2] / "docs" / "dialect.md"


def _synopsis_tokens(elements, d: OpDef) -> list[str]:
    operand_names = {o.name for o in (*d.operands, *d.results)}
    tokens: list[str] = []
    for e in elements:
        if isinstance(e, Literal):
            if e.text.strip():
                tokens.append(e.text)
        elif isinstance(e, Var) and e.name in {r.name for r in d.regions}:
            tokens.append("{ ... }")  # a region's body
        elif isinstance(e, Var):
            tokens.append(f"%{e.name}" if e.name in operand_names else f"<{e.name}>")
        elif isinstance(e, TypeOf):
            tokens.append("type(results)" if e.name == "results" else f"type({e.name})")
        elif isinstance(e, AttrDict):
            tokens.append("{attrs}")
        elif isinstance(e, Optional):
            tokens.append("[" + " ".join(_synopsis_tokens(e.elements, d)) + "]")
        elif isinstance(e, Clauses):
            tokens.append(", ".join(f"{n} = <{n}>" for n in e.names))
        elif isinstance(e, OperandClauses):
            tokens.append(", ".join(f"{n} = %{n} : type({n})" for n in e.names))
    return tokens


def synopsis(d: OpDef, format_text: str) -> str:
    """A readable one-line spelling of one format of `d`."""
    text = " ".join(_synopsis_tokens(parse_format(format_text), d))
    for opener in "([{":
        text = text.replace(f"{opener} ", opener)
    for closer in ")]},:":
        text = text.replace(f" {closer}", closer)
    text = re.sub(r"\s+", " ", text).replace(":", " :").replace(" ,", ",")
    text = re.sub(r" :\s*", " : ", text)
    text = re.sub(r"(\w) \(", r"\1(", text)  # ins(, outs(
    text = re.sub(r"(%\w+) \[%", r"\1[%", text)  # %mb[%slot]
    text = text.replace("< < < ", "<<<").replace(" > > >", ">>>")  # section.simt's launch dimensions
    results = ", ".join(f"%{r.name}" for r in d.results)
    head = f"{results} = {d.full_name}" if results else d.full_name
    return f"{head} {text}".rstrip()


def _operands(d: OpDef) -> str:
    shown = []
    for o in d.operands:
        mark = {"optional": "?", "variadic": "*"}.get(o.kind, "")
        shown.append(f"{o.name}{mark}: {o.constraint}")
    return ", ".join(shown)


def _level3_tmp(d: OpDef) -> str:
    """The op table's short form of an op's level3 tmp fact."""
    fact = d.level3_tmp
    if fact is None:
        return ""
    if not fact.arches:
        return "none"
    when = "" if fact.when == "always" else f" ({fact.when})"
    return f"{', '.join(fact.arches)}{when}: {fact.tmp}"


def _level3_tmp_table() -> list[str]:
    """Every op's level3 tmp fact in full (docs/dialect.md, "Scratch tiles at level3")."""
    out = [
        "#### Scratch tiles at level3",
        "",
        "What ptoas requires of each op's `tmp` at level3; `pto-allocate-memory-addr` gives an op without one, on "
        "the arches named, a new tile of the type named (`pto_dialect/dialect/ops.py`, `Level3Tmp`).",
        "",
        "| op | required on | when | tmp | otherwise | source |",
        "|---|---|---|---|---|---|",
    ]
    for d in OPS:
        fact = d.level3_tmp
        if fact is None:
            continue
        arches = ", ".join(fact.arches) or "none"
        when = LEVEL3_TMP_WHEN[fact.when] if fact.arches else ""
        tmp = f"`{fact.tmp}`: {LEVEL3_TMP_TYPES[fact.tmp]}" if fact.arches else ""
        out.append(f"| `{d.full_name}` | {arches} | {when} | {tmp} | {fact.elsewhere} | {fact.source} |")
    out.append("")
    return out


def render() -> str:
    out = [BEGIN, ""]
    for tier, title in (("semantic", "With semantics"), ("syntax", "Syntax only")):
        out.append(f"#### {title}")
        out.append("")
        out.append("| op | syntax | operands | reads | writes | pipe | level3 tmp |")
        out.append("|---|---|---|---|---|---|---|")
        for d in OPS:
            if d.tier != tier:
                continue
            syntax = "<br>".join(f"`{synopsis(d, f)}`" for f in d.formats)
            writes = ", ".join(d.writes)
            reads = ", ".join(d.reads)
            if d.writes and d.write_region != "valid":
                writes += f" ({WRITE_REGIONS[d.write_region]})"
            if d.reads and d.read_domain != "dst":
                reads += f" ({READ_DOMAINS[d.read_domain]})"
            out.append(
                f"| `{d.full_name}` | {syntax} | {_operands(d)} | {reads} | {writes} | "
                f"{d.pipe.value if d.pipe else ''} | {_level3_tmp(d)} |"
            )
        out.append("")
    out.extend(_level3_tmp_table())
    out.append(END)
    return "\n".join(out)


def updated(text: str) -> str:
    """`text` (docs/dialect.md) with its generated section replaced."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + render() + text[end:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pto_dialect.tools.op_docs", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="update docs/dialect.md in place")
    args = parser.parse_args(argv)
    if args.write:
        DIALECT_MD.write_text(updated(DIALECT_MD.read_text()))
    else:
        sys.stdout.write(render() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
