"""The ops of PTOAS's ODS (`include/PTO/IR/PTOOps.td`), read from the file.

    python scripts/ptoas_ods.py PTOOps.td            # one op name a line
    python scripts/ptoas_ods.py --json PTOOps.td     # each op's arguments, results, regions, format

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


def main(argv: list[str]) -> int:
    as_json = "--json" in argv
    paths = [a for a in argv if a != "--json"]
    if len(paths) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    with open(paths[0], encoding="utf-8") as f:
        ops = read_ops(f.read())
    if as_json:
        json.dump(ops, sys.stdout, indent=1)
        print()
    else:
        for op in ops:
            print("pto." + op["name"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
