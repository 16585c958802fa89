"""Copy the cycles pto-isa's cost-model tests profiled on hardware into
pto_dialect/timing/measured_cycles.json (docs/timing.md, "Measured points").

    python scripts/extract_measured_cycles.py GIT_DIR [COMMIT] > pto_dialect/timing/measured_cycles.json

GIT_DIR is a clone (bare or not) of github.com/hw-native-sys/pto-isa. The
tests read are `tests/costmodel/st/testcase/<op>/main.cpp` (a2a3: each
gtest case passes `profiling` (cycles measured) and `accuracy` (the
precision pto-isa's own cost model reaches there) as template arguments)
and `tests/costmodel/st_a5_fit/testcase/<op>_fit/main.cpp` (a5: tables of
cases with `profiling_cycles` and `precision`). A case whose profiling is 0
was not measured and is left out. Each row keeps its source path.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

DTYPES = {
    "float": "f32", "half": "f16", "bfloat16_t": "bf16", "int32_t": "i32", "int16_t": "i16", "int8_t": "i8",
    "uint32_t": "u32", "uint16_t": "u16", "uint8_t": "u8",
    "DType::Float": "f32", "DType::Half": "f16", "DType::BFloat16": "bf16", "DType::Int8": "i8",
    "DType::Int16": "i16", "DType::Int32": "i32", "DType::UInt8": "u8",
}


def git(gitdir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True, capture_output=True, text=True).stdout


def split_args(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<({":
            depth += 1
        elif ch in ">)}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def number(text: str) -> float:
    return float(text.rstrip("fF"))


def templates(src: str) -> dict[tuple[str, int], list[str]]:
    """Each `template <...> void runX(` as its parameter names, by (name, count)."""
    out = {}
    for m in re.finditer(r"\bvoid\s+(run\w+)\s*\(", src):
        start = src.rindex("template", 0, m.start())
        head = src[src.index("<", start) + 1 : src.rindex(">", start, m.start())]
        names = [p.split("=")[0].split()[-1] for p in split_args(" ".join(head.split()))]
        out[(m.group(1), len(names))] = names
    return out


def a2a3_rows(gitdir: str, commit: str, path: str, op: str) -> list[dict]:
    src = git(gitdir, "show", f"{commit}:{path}")
    tmpl = templates(src)
    rows = []
    if op == "tmov":
        for m in re.finditer(r"TMOV_CASE\(\s*(.*?)\)\n", src, re.S):
            a = split_args(" ".join(m.group(1).split()))
            tag, t, r, c, vr, vc = a[:6]
            if t not in DTYPES:  # the macro's own definition
                continue
            rows.append(dict(case=f"TMov.{tag}", dtype=DTYPES[t], rows=int(r), cols=int(c), valid_rows=int(vr),
                             valid_cols=int(vc), src=a[6], dst=a[9], profiling=number(a[12]), accuracy=number(a[13])))
    else:
        for m in re.finditer(r"TEST\((\w+),\s*(\w+)\)\s*\{\s*(\w+)<(.*?)>\s*\(", src, re.S):
            suite, name, fn, args = m.group(1), m.group(2), m.group(3), split_args(" ".join(m.group(4).split()))
            params = tmpl.get((fn, len(args)))
            if params is None:
                continue
            p = dict(zip(params, args))
            row = {"case": f"{suite}.{name}", "params": p}
            rows.append(row)
    out = []
    for row in rows:
        p = row.pop("params", None)
        if p is not None:
            row.update(a2a3_shape(op, p))
        prof = row.get("profiling", 0.0)
        if not prof:
            continue
        row.update(op=op, arch="a2a3", source=path)
        out.append(row)
    return out


def a2a3_shape(op: str, p: dict[str, str]) -> dict:
    """What a case's template arguments say: dtype, the tile's rows and
    cols and its valid shape, the measured cycles and pto-isa's accuracy."""
    ints = {k: int(v) for k, v in p.items() if re.fullmatch(r"-?\d+", v)}
    first_type = next(v for v in p.values() if v in DTYPES)
    out = {"dtype": DTYPES[first_type], "profiling": number(p["profiling"]), "accuracy": number(p["accuracy"])}
    if op == "tmatmul":
        out.update(dtype=DTYPES[p["AType"]], acc_dtype=DTYPES[p["outType"]])
        m, k, n = (ints.get("validM", ints.get("M")), ints.get("validK", ints.get("K")), ints.get("validN", ints.get("N")))
        out.update(m=m, k=k, n=n)
        return out
    if op == "tload":
        # a 5-D partition (shape0..shape4) of a row-major (ND) or column-major (DN) global tensor into a vec tile
        outer = ints["shape0"] * ints["shape1"] * ints["shape2"]
        layout = "DN" if "gRows" in ints else "ND"
        if layout == "ND":
            block = (ints["kTRows"] // outer, ints["gCols"])
        else:
            block = (ints["shape3"], ints["kTCols"] // outer)
        out.update(layout=layout, blocks=outer, block_rows=block[0], block_cols=block[1],
                   rows=block[0] * outer if layout == "ND" else block[0], cols=block[1] if layout == "ND" else block[1] * outer)
        return out
    if op == "tcvt":
        out.update(dtype=DTYPES[p["SrcT"]], dst_dtype=DTYPES[p["DstT"]])
    rows = ints.get("rows", ints.get("row", ints.get("tRows", ints.get("srcRow"))))
    cols = ints.get("cols", ints.get("col", ints.get("tCols", ints.get("srcCol"))))
    out.update(rows=rows, cols=cols, valid_rows=ints.get("validRow", rows), valid_cols=ints.get("validCol", cols))
    for flag in ("isInPlace", "isBinary"):
        if flag in p:
            out[flag] = p[flag] == "true"
    return out


A5_FIT = re.compile(r"run(\w+)<\s*(\w+),\s*([\d\s,.]+?)(?:,\s*VFImplKind::(\w+))?\s*>\(\)")


def a5_rows(gitdir: str, commit: str, path: str, op: str) -> list[dict]:
    src = git(gitdir, "show", f"{commit}:{path}")
    out = []
    if re.search(r"struct A5(Vf|Tcvt)FitCase", src):
        opcode = re.search(r"PtoOpcode::(\w+)", src)
        for m in re.finditer(r"\{(DType::[^{}]*)\}", src):
            a = split_args(m.group(1))
            if a[1].startswith("DType::"):  # tcvt: src, dst
                src_t, dst_t, rest = a[0], a[1], a[2:]
                extra = {"dst_dtype": DTYPES.get(dst_t, dst_t.split("::")[1])}
            else:
                src_t, rest, extra = a[0], a[1:], {}
            r, c, vr, vc = (int(x) for x in rest[:4])
            row = dict(case=f"{op}.{len(out)}_{rest[6].split('::')[-1]}", dtype=DTYPES.get(src_t, src_t.split("::")[1]), rows=r, cols=c,
                       valid_rows=vr, valid_cols=vc, profiling=float(rest[4]), accuracy=float(rest[5]),
                       impl=rest[6].split("::")[-1], **extra)
            if len(rest) > 7 and rest[7].strip('"'):
                row["params"] = rest[7].strip('"')
            if opcode and not extra:
                row["op_code"] = opcode.group(1)
            out.append(row)
    else:
        for m in A5_FIT.finditer(src):
            nums = [float(x) for x in split_args(m.group(3))]
            if len(nums) == 4:
                r, c, prof, acc = nums
                vr, vc = r, c
            else:
                r, c, vr, vc, prof, acc = nums
            out.append(dict(case=f"{op}.{len(out)}_{m.group(4) or 'VFIMPL_DEFAULT'}", dtype=DTYPES[m.group(2)], rows=int(r), cols=int(c), valid_rows=int(vr),
                            valid_cols=int(vc), profiling=prof, accuracy=acc, impl=m.group(4) or "VFIMPL_DEFAULT"))
    for row in out:
        row.update(op=op, arch="a5", source=path)
    return [r for r in out if r["profiling"]]


def main() -> None:
    gitdir = sys.argv[1]
    commit = sys.argv[2] if len(sys.argv) > 2 else "HEAD"
    full = git(gitdir, "rev-parse", commit).strip()
    files = git(gitdir, "ls-tree", "-r", "--name-only", full, "tests/costmodel").split()
    points = []
    for path in files:
        m = re.fullmatch(r"tests/costmodel/st/testcase/(t\w+)/main\.cpp", path)
        if m and not m.group(1).endswith("_perf_sim"):
            points += a2a3_rows(gitdir, full, path, m.group(1))
        m = re.fullmatch(r"tests/costmodel/st_a5_fit/testcase/(t\w+)_fit/main\.cpp", path)
        if m:
            points += a5_rows(gitdir, full, path, m.group(1))
    keys = ("op", "arch", "case", "dtype")
    points = [{**{k: p[k] for k in keys}, **{k: v for k, v in p.items() if k not in keys}} for p in points]
    doc = {
        "source": "https://github.com/hw-native-sys/pto-isa",
        "commit": full,
        "about": "cycles profiled on hardware (profiling) and the precision pto-isa's own cost model reaches (accuracy), "
        "per gtest case of tests/costmodel/st (a2a3) and st_a5_fit (a5); scripts/extract_measured_cycles.py wrote this",
        "points": points,
    }
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
