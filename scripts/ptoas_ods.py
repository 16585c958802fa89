"""The ops of PTOAS's ODS (`include/PTO/IR/PTOOps.td`), read from the file.

    python scripts/ptoas_ods.py PTOOps.td            # one op name a line
    python scripts/ptoas_ods.py --json PTOOps.td     # each op's arguments, results, regions, format
    python scripts/ptoas_ods.py --defaults PTOOps.td PTOAttrs.td
        # each default-valued attribute: op, name, its default as ptoas prints it, held/optional
    python scripts/ptoas_ods.py --required PTOOps.td
        # each required attribute (neither optional nor default-valued): op, name

`test/python/data/ptoas_defaults.txt` is the third output at the same
commit: test/python/test_ptoas_ops.py asserts the op table gives every op
those attributes with those defaults (`Attribute.default`, `.held`).
A `DefaultValuedAttr` is *held*: MLIR gives every op ptoas builds the
default when the text leaves it out (ODS's populateDefaultAttrs), so a
printer that prints the op's attribute dictionary prints it; a
`DefaultValuedOptionalAttr` is only the getter's answer when absent.

`test/python/data/ptoas_required.txt` is the fourth: test_ptoas_ops.py
asserts the op table marks exactly those `Attribute.required`.

`test/python/data/ptoas_ops.txt` is the first output at the PTOAS commit
`pto-parse` is built from (tonibohnlein/PTOAS e32488c9,
include/PTO/IR/PTOOps.td); test/python/test_ptoas_ops.py asserts every op
listed there is in the op table (pto_dialect/dialect/ops.py), and that the
list is what this script reads from a PTOAS checkout when `PTOAS_SRC`
names one. This reads TableGen text by its shape (a `def` whose parent class
is one of PTOOps.td's op classes, its `let` fields brace-matched), not with
TableGen itself: enough for the fields the op table needs.
"""

from __future__ import annotations

import json
import re
import sys

OP_CLASSES = ("PTO_Op", "PTO_TOp", "PTO_DpsOp", "PTO_SectionOp")
_DEF = re.compile(r'^def\s+(\w+)\s*:\s*(' + "|".join(OP_CLASSES) + r')\s*<\s*"([^"]+)"', re.M)


def _strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*", "", text)


def _body(text: str, start: int) -> str:
    """The `{ ... }` body of the def starting at `start` ("" for `def X : C<...>;`)."""
    depth_angle = 0
    i = start
    while i < len(text):
        c = text[i]
        if c == "<":
            depth_angle += 1
        elif c == ">":
            depth_angle -= 1
        elif c == ";" and depth_angle <= 0:
            return ""
        elif c == "{" and depth_angle <= 0:
            break
        i += 1
    depth = 0
    j = i
    while j < len(text):
        if text.startswith("[{", j):
            end = text.index("}]", j)
            j = end + 2
            continue
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return text[i + 1 : j]
        j += 1
    raise ValueError("unbalanced def body")


def _let(body: str, name: str) -> str | None:
    m = re.search(r"\blet\s+" + name + r"\s*=\s*", body)
    if m is None:
        return None
    i = m.end()
    if body.startswith("[{", i):
        return body[i + 2 : body.index("}]", i)].strip()
    if body[i] == '"':
        j = body.index('"', i + 1)
        return body[i + 1 : j]
    if body[i] == "(":
        depth = 0
        for j in range(i, len(body)):
            depth += {"(": 1, ")": -1}.get(body[j], 0)
            if depth == 0:
                return body[i + 1 : j].strip()
    j = body.index(";", i)
    return body[i:j].strip()


def _dag_args(dag: str | None, head: str) -> list[tuple[str, str]]:
    """(constraint, name) pairs of an `(ins ...)` / `(outs ...)` dag."""
    if not dag:
        return []
    dag = dag.strip()
    if dag.startswith(head):
        dag = dag[len(head) :]
    out, depth, cur = [], 0, ""
    for c in dag:
        if c in "<([":
            depth += 1
        elif c in ">)]":
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += c
    if cur.strip():
        out.append(cur)
    pairs = []
    for item in out:
        item = " ".join(item.split())
        m = re.match(r"(.*):\$(\w+)$", item)
        if m:
            pairs.append((m.group(1).strip(), m.group(2)))
    return pairs


def read_ops(td_text: str) -> list[dict]:
    text = _strip_comments(td_text)
    ops = []
    for m in _DEF.finditer(text):
        body = _body(text, m.end())
        cls = m.group(2)
        fmt = _let(body, "assemblyFormat")
        if cls == "PTO_SectionOp":
            fmt = "$body attr-dict"
        ops.append(
            {
                "def": m.group(1),
                "name": m.group(3),
                "arguments": _dag_args(_let(body, "arguments"), "ins"),
                "results": _dag_args(_let(body, "results"), "outs"),
                "regions": _dag_args(_let(body, "regions"), "region") or ([("SizedRegion<1>", "body")] if cls == "PTO_SectionOp" else []),
                "assemblyFormat": " ".join(fmt.split()) if fmt else None,
                "summary": " ".join((_let(body, "summary") or "").split()),
                "custom": bool(re.search(r"hasCustomAssemblyFormat\s*=\s*1", body)),
            }
        )
    return ops


_ENUM = re.compile(r'^def\s+(\w+)\s*:\s*PTO_I32Enum\s*<\s*"(\w+)"', re.M)
_CASE = re.compile(r'I32EnumAttrCase\s*<\s*"(\w+)"\s*,\s*-?\d+\s*(?:,\s*"([^"]*)")?\s*>')
_ENUM_ATTR = re.compile(r'^def\s+(\w+)\s*:\s*EnumAttr\s*<\s*\w+\s*,\s*(\w+)\s*,\s*"(\w+)"\s*>', re.M)


def read_enum_attrs(td_text: str) -> dict[str, dict]:
    """PTOAttrs.td's enum attributes: attribute def -> its mnemonic, whether
    ptoas prints it pretty (`#pto.NAME<V>`, an assemblyFormat `<` $value `>`)
    or opaque (`#pto<NAME V>`, EnumAttr's default `$value`), and its C++ enum
    class with each case's printed string by its C++ name."""
    text = _strip_comments(td_text)
    enums: dict[str, tuple[str, dict[str, str]]] = {}
    for m in _ENUM.finditer(text):
        end = text.index("]>", m.end())
        cases = {c.group(1): c.group(2) if c.group(2) is not None else c.group(1) for c in _CASE.finditer(text, m.end(), end)}
        enums[m.group(1)] = (m.group(2), cases)
    attrs = {}
    for m in _ENUM_ATTR.finditer(text):
        if m.group(2) not in enums:
            continue
        body = _body(text, m.start() + len("def"))
        fmt = _let(body, "assemblyFormat") or "$value"
        cpp, cases = enums[m.group(2)]
        attrs[m.group(1)] = {"mnemonic": m.group(3), "pretty": "`<`" in fmt, "enum": cpp, "cases": cases}
    return attrs


_DEFAULT = re.compile(r'^(DefaultValued(?:Optional)?Attr)\s*<\s*(\w+)\s*,\s*"(.*)"\s*>$')


def default_text(constraint: str, value: str, enum_attrs: dict[str, dict]) -> str:
    """ODS's default (a C++ expression) as ptoas prints the attribute:
    `#pto<div_precision default>`, `false`, `0` (an integer without its type:
    how a format spells it; an attr-dict adds `: i32`)."""
    if constraint in enum_attrs:
        e = enum_attrs[constraint]
        case = value.rsplit("::", 1)[-1]
        if not value.endswith(f"{e['enum']}::{case}") or case not in e["cases"]:
            raise ValueError(f"{constraint}: default {value!r} is no case of {e['enum']}")
        shown = e["cases"][case]
        return f"#pto.{e['mnemonic']}<{shown}>" if e["pretty"] else f"#pto<{e['mnemonic']} {shown}>"
    if constraint == "BoolAttr" and value in ("true", "false"):
        return value
    if re.fullmatch(r"[SU]?I\d+Attr", constraint) and re.fullmatch(r"-?\d+", value):
        return value
    raise ValueError(f"unknown default {constraint}<{value!r}>")


def read_defaults(ops: list[dict], enum_attrs: dict[str, dict]) -> list[tuple[str, str, str, bool]]:
    """(op, attribute, default as ptoas prints it, held) of every
    default-valued attribute, in the ODS's order."""
    out = []
    for op in ops:
        for constraint, name in op["arguments"]:
            m = _DEFAULT.match(constraint)
            if m is None:
                continue
            out.append(("pto." + op["name"], name, default_text(m.group(2), m.group(3), enum_attrs), m.group(1) == "DefaultValuedAttr"))
    return out


def format_defaults(rows) -> str:
    return "".join(f"{op} {name} {'held' if held else 'optional'} {text}\n" for op, name, text, held in rows)


_NOT_REQUIRED = ("OptionalAttr", "DefaultValuedAttr", "DefaultValuedOptionalAttr", "DefaultValuedStrAttr", "UnitAttr")
"""The attribute constraints an op may go without (UnitAttr: absent is false)."""


def read_required(ops: list[dict]) -> list[tuple[str, str]]:
    """(op, attribute) of every attribute an op must have: an attribute
    constraint (`...Attr`) that is neither optional nor default-valued, in
    the ODS's order."""
    out = []
    for op in ops:
        for constraint, name in op["arguments"]:
            base = constraint.split("<")[0].strip()
            if base.endswith("Attr") and base not in _NOT_REQUIRED:
                out.append(("pto." + op["name"], name))
    return out


def format_required(rows) -> str:
    return "".join(f"{op} {name}\n" for op, name in rows)


def main(argv: list[str]) -> int:
    as_json = "--json" in argv
    defaults = "--defaults" in argv
    if "--required" in argv:
        paths = [a for a in argv if a != "--required"]
        if len(paths) != 1:
            print(__doc__.strip().splitlines()[2], file=sys.stderr)
            return 2
        with open(paths[0], encoding="utf-8") as f:
            sys.stdout.write(format_required(read_required(read_ops(f.read()))))
        return 0
    paths = [a for a in argv if a not in ("--json", "--defaults")]
    if len(paths) != (2 if defaults else 1):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    with open(paths[0], encoding="utf-8") as f:
        ops = read_ops(f.read())
    if defaults:
        with open(paths[1], encoding="utf-8") as f:
            sys.stdout.write(format_defaults(read_defaults(ops, read_enum_attrs(f.read()))))
        return 0
    if as_json:
        json.dump(ops, sys.stdout, indent=1)
        print()
    else:
        for op in ops:
            print("pto." + op["name"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
