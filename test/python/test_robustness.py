"""Bad input never crashes pto-opt: for each input below it exits 0 or 1,
says what is wrong as `file:line:col: error: ...` (or `pto-opt: error: ...`)
on stderr, and prints no Python traceback and no "internal error"."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from tool_support import tool_environment

ROOT = Path(__file__).resolve().parents[2]
VALID_PATH = ROOT / "test" / "Dialect" / "pto" / "ops-print-exactly.pto"  # every op of the semantic tier
VALID = VALID_PATH.read_text()
MARKER = "// -----"


def valid_body() -> str:
    """The module of VALID, without its header of comments and RUN lines."""
    return VALID[VALID.index("module {") :]


def run_pto_opt(path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pto_dialect.tools.pto_opt", str(path), *args],
        capture_output=True,
        timeout=300,
        env=tool_environment(),
    )


def check_outcome(run: subprocess.CompletedProcess, path: Path) -> str:
    """Assert the contract for one run; return stderr as text."""
    out = run.stdout.decode("utf-8", "replace")
    err = run.stderr.decode("utf-8", "replace")
    assert run.returncode in (0, 1), f"exit code {run.returncode}\n{err[-2000:]}"
    assert "Traceback" not in out + err, err[-2000:]
    assert "internal error" not in err, err[-2000:]
    if run.returncode == 1:
        located = re.search(rf"^{re.escape(str(path))}:\d+:\d+: error: ", err, re.M)
        assert located or err.startswith("pto-opt: error: "), err[-2000:]
    return err


def write(tmp_path: Path, data: str | bytes, name: str = "input.pto") -> Path:
    path = tmp_path / name
    if isinstance(data, str):
        data = data.encode()
    path.write_bytes(data)
    return path


V = "!pto.tile_buf<vec, 16x16xf32>"
VERBOSE = "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row={vr}, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>"

BAD_INPUTS = {
    "unknown op (generic)": ('"pto.tfoo"() : () -> ()', "unregistered operation 'pto.tfoo'"),
    "unknown op (ptoas syntax)": ("pto.tfoo ins(%a : i32) outs(%a : i32)", "custom op 'pto.tfoo' is unknown"),
    "wrong operand count": (f"func.func @f(%a: {V}) {{\n  pto.tadd ins(%a : {V}) outs(%a : {V})\n  return\n}}", "expected ','"),
    "wrong operand count (generic)": (
        f'func.func @f(%a: {V}) {{\n  "pto.tadd"(%a, %a) : ({V}, {V}) -> ()\n  return\n}}',
        "op expects exactly 3 operands, but got 2",
    ),
    "count 17": ("func.func @f(%a: !pto.multi_tile_buf<vec, 16x16xf32, count=17>) { return }", "multi_tile_buf count must be <= 16 (got 17)"),
    "slot 5 of 2": (
        f"func.func @f(%mb: !pto.multi_tile_buf<{V}, count=2>) {{\n  %c5 = arith.constant 5 : index\n"
        f"  %t = pto.multi_tile_get %mb[%c5] : !pto.multi_tile_buf<{V}, count=2> -> {V}\n  return\n}}",
        "constant slot 5 is out of range for multi_tile_buf count=2",
    ),
    "unaligned addr": (
        f"func.func @f() {{\n  %a = arith.constant 16 : i64\n  %t = pto.alloc_tile addr = %a : {V}\n  return\n}}",
        "addr must be aligned to 32 bytes for local tile memory space, got 16",
    ),
    "huge shape": (
        "func.func @f(%a: !pto.tile_buf<vec, 9223372036854775807x9223372036854775807xf32>) { return }",
        'does not fit in space "vec"',
    ),
    "shape beyond i64": ("func.func @f(%a: !pto.tile_buf<vec, 92233720368547758070x1xf32>) { return }", "invalid dimension"),
    "index shape in the generic form (asserts in the MLIR parser)": (
        'func.func @f(%a: !pto.tile_buf<"vec", array<index: 16, 16>, f32, array<i64: 16, 16>, "row_major", "none_box", 512, 0, 0>) { return }',
        "expected integer or float type, got: 'index'",
    ),
    "valid beyond the shape": (f"func.func @f(%a: {VERBOSE.format(vr=17)}) {{ return }}", "tile_buf valid_row (17) exceeds row (16)"),
    "dynamic valid without its operand": (
        f"func.func @f() {{\n  %t = pto.alloc_tile : {VERBOSE.format(vr='?')}\n  return\n}}",
        "valid_row operand is required because result type v_row is ?",
    ),
    "a repeated key": ("func.func @f(%a: !pto.tile_buf<vec, 16x16xf32, pad=0, pad=1>) { return }", "duplicate pad in tile_buf compact syntax"),
    "rows of 28 bytes": (
        "func.func @f() {\n  %t = pto.alloc_tile : !pto.tile_buf<vec, 8x7xf32>\n  return\n}",
        "row-major none_box tile row byte size (cols * sizeof(dtype)) to be 32-byte aligned, but got 28 bytes",
    ),
    "unterminated region": ("func.func @f() {\n  return\n", "expected"),
    "unterminated string": ('"pto.alloc_tile"() {a = "abc} : () -> ()', "expected '\"' in string literal"),
    "bad arch": ('module attributes {pto.target_arch = "a9"} {}', "'pto.target_arch' must be one of"),
    # issue 21, item 6: integers of any length (Python's int() refuses 4300 digits), a pto op's name then `=`
    "a 5000-digit tile dimension": (f"func.func @f(%a: !pto.tile_buf<vec, {'9' * 5000}x16xf32>) {{ return }}", "invalid dimension"),
    "a 5000-digit verbose field": (f"func.func @f(%a: {VERBOSE.format(vr='9' * 5000)}) {{ return }}", "integer value too large"),
    "a 5000-digit constant": (f"func.func @f() {{\n  %c = arith.constant {'9' * 5000} : index\n  return\n}}", "integer constant out of range"),
    "a 5000-digit generic shape": (
        f'func.func @f(%a: !pto.tile_buf<"vec", array<i64: {"9" * 5000}, 16>, f32, array<i64: 16, 16>, "row_major", "none_box", 512, 0, 0>) {{ return }}',
        "integer constant out of range",
    ),
    "an op name then '='": (f"func.func @f(%a: {V}) {{\n  pto.tadd = ins(%a, %a : {V}, {V}) outs(%a : {V})\n  return\n}}", "expected 'ins'"),
    "an op name then '= value'": ("func.func @f() {\n  pto.tadd = 1\n  return\n}", "expected the ptoas syntax or the generic form of 'pto.tadd'"),
    "an op at an unknown location": (
        "func.func @f() {\n  %c = arith.constant 1 : index\n  scf.for %i = %c to %c step %c {\n  } {pto.pipeline_stages = 0 : i64} loc(unknown)\n  return\n}",
        "'pto.pipeline_stages' must be an i64 integer >= 1",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_gets_a_diagnostic(tmp_path, name):
    text, message = BAD_INPUTS[name]
    path = write(tmp_path, text)
    run = run_pto_opt(path)
    err = check_outcome(run, path)
    assert run.returncode == 1
    assert message in err


def test_empty_and_comment_only_files_are_an_empty_module(tmp_path):
    for text in ("", "\n\n", "// nothing here\n"):
        path = write(tmp_path, text)
        run = run_pto_opt(path)
        check_outcome(run, path)
        assert run.returncode == 0
        assert run.stdout.decode() == "module {\n}\n\n"  # as mlir-opt prints it


@pytest.mark.parametrize("seed", range(5))
def test_random_bytes(tmp_path, seed):
    data = random.Random(seed).randbytes(4096)
    path = write(tmp_path, data)
    check_outcome(run_pto_opt(path), path)
    check_outcome(run_pto_opt(path, "--verify-diagnostics"), path)
    check_outcome(run_pto_opt(path, "--split-input-file", "--pto-verify"), path)


def test_nul_bytes(tmp_path):
    for data in (b"\0" * 64, b"func.func @f() {\0 return }", b"func.func @f() { return }\n\0\0\0"):
        path = write(tmp_path, data)
        check_outcome(run_pto_opt(path), path)


def test_non_utf8_input(tmp_path):
    # In a comment: ignored, as by mlir-opt.
    path = write(tmp_path, b"// caf\xe9\nfunc.func @f() { return }\n")
    run = run_pto_opt(path)
    check_outcome(run, path)
    assert run.returncode == 0
    # In a string: kept byte for byte (MLIR strings are bytes).
    path = write(tmp_path, b'func.func @f() attributes {note = "caf\xe9"} { return }\n')
    run = run_pto_opt(path)
    check_outcome(run, path)
    assert run.returncode == 0
    assert b'note = "caf\\E9"' in run.stdout
    # Anywhere else: a syntax error at its position.
    path = write(tmp_path, b"func.func @f() { \xff\xfe return }\n")
    run = run_pto_opt(path)
    err = check_outcome(run, path)
    assert run.returncode == 1
    assert f"{path}:1:18: error: unexpected character" in err


def nested_regions(depth: int) -> str:
    return "func.func @f() {\n" + "scf.execute_region {\n" * depth + "scf.yield\n}\n" * depth + "return\n}\n"


def test_deeply_nested_regions(tmp_path):
    path = write(tmp_path, nested_regions(300))
    run = run_pto_opt(path)
    check_outcome(run, path)
    assert run.returncode == 0
    # Deep enough to overflow the C++ parser's stack: refused before parsing.
    path = write(tmp_path, nested_regions(5000))
    run = run_pto_opt(path)
    err = check_outcome(run, path)
    assert run.returncode == 1
    assert f"{path}:1001:20: error: nesting deeper than 1000 levels is not supported" in err
    path = write(tmp_path, "(" * 200_000)
    err = check_outcome(run_pto_opt(path), path)
    assert "nesting deeper than" in err


def _chunked(texts: list[str]) -> tuple[str, list[tuple[int, int]]]:
    """One file of `texts` separated by markers, and each text's line range."""
    ranges, line = [], 1
    for text in texts:
        n = text.count("\n") + 1
        ranges.append((line, line + n - 1))
        line += n + 1
    return f"\n{MARKER}\n".join(texts), ranges


def check_chunks(tmp_path: Path, texts: list[str]) -> int:
    """Run every text as a chunk of one --split-input-file run; each chunk
    that fails must have an error inside its own lines. Returns how many
    failed."""
    assert not any(MARKER in t for t in texts)
    data, ranges = _chunked(texts)
    path = write(tmp_path, data, "chunks.mlir")
    run = run_pto_opt(path, "--split-input-file")
    err = check_outcome(run, path)
    outputs = run.stdout.decode("utf-8", "replace").split(f"{MARKER}\n")
    assert len(outputs) == len(texts)
    error_lines = [int(m.group(1)) for m in re.finditer(rf"^{re.escape(str(path))}:(\d+):\d+: error: ", err, re.M)]
    failed = 0
    for (first, last), output in zip(ranges, outputs):
        if output.strip():
            continue
        failed += 1
        assert any(first <= line <= last for line in error_lines), f"no error for lines {first}-{last}\n{err[-3000:]}"
    assert (run.returncode == 1) == (failed > 0)
    return failed


def test_truncations_of_a_valid_file(tmp_path):
    # The print-exactly test holds every op of the semantic tier; cut it at 150 points.
    body = valid_body()
    cuts = sorted(set(random.Random(7).sample(range(1, len(body)), 150)))
    failed = check_chunks(tmp_path, [body[:cut] for cut in cuts])
    assert failed >= 140  # only a cut in the last line's trailing `}` or blank end could be valid


def test_token_mutations_of_a_valid_file(tmp_path):
    body = valid_body()
    tokens = re.split(r"(\s+)", body)
    words = [t for t in tokens if t.strip()]
    rng = random.Random(11)
    texts = []
    for _ in range(150):
        mutated = list(tokens)
        for _ in range(2):
            i = rng.randrange(0, len(mutated), 2)
            choice = rng.randrange(3)
            if choice == 0:
                mutated[i] = ""
            elif choice == 1:
                mutated[i] = rng.choice(words)
            else:
                mutated[i] = mutated[i] + " " + rng.choice(words)
        text = "".join(mutated)
        if MARKER not in text:  # a mutation may have spelled the split marker
            texts.append(text)
    check_chunks(tmp_path, texts)


def test_numbers_and_names_in_pto_types(tmp_path):
    # Every field of a tile type, in each of its spellings (ptoas's compact
    # and verbose forms, the generic form), filled with valid and invalid values.
    locs = ["vec", "acc", "gm", '"vec"', '""', "1", "loc"]
    dims = ["16", "0", "-1", "1", "?", "4096", "9223372036854775807", "16x", ""]
    dtypes = ["f32", "bf16", "i8", "f64", "index", "i1", "none", "f8E4M3FN", "!pto.hif8", "vector<2xf32>"]
    valids = ["?", "16", "17", "0", "-1", "-2", "x"]
    keys = ["blayout=col_major", "slayout=row_major", "fractal=1024", "fractal=7", "pad=3", "pad=4", "compact=2", "compact=3", "valid=?x?", "count=2", "box=1"]
    counts = ["2", "16", "17", "1", "-1", "0", "2 : i64", '"2"', "?"]
    generic_shapes = ["array<i64: 16, 16>", "array<i64: 0, 4>", "array<i64: -1, 4>", "array<i64>", "array<i32: 4, 4>", "dense<[4, 4]> : tensor<2xi64>", "4"]
    rng = random.Random(3)
    texts = []
    for _ in range(150):
        r, c, dt = rng.choice(dims), rng.choice(dims), rng.choice(dtypes)
        form = rng.randrange(3)
        if form == 0:
            extra = "".join(", " + rng.choice(keys) for _ in range(rng.randrange(3)))
            body = f"{rng.choice(locs)}, {r}x{c}x{dt}{extra}"
        elif form == 1:
            body = (
                f"loc={rng.choice(locs)}, dtype={dt}, rows={r}, cols={c}, v_row={rng.choice(valids)}, v_col={rng.choice(valids)}, "
                f"blayout=row_major, slayout=none_box, fractal=512, pad=0"
            )
        else:
            shape = rng.choice(generic_shapes)
            body = f'"{rng.choice(locs)}", {shape}, {dt}, {rng.choice(generic_shapes)}, "row_major", "none_box", 512 : i64, 0 : i64, 0 : i64'
        tile = f"!pto.tile_buf<{body}>"
        multi = rng.choice([f"!pto.multi_tile_buf<{tile}, count={rng.choice(counts)}>", f"!pto.multi_tile_buf<{body}, count={rng.choice(counts)}>"])
        texts.append(f"func.func @f(%a: {tile}, %b: {multi}) {{\n  %t = pto.alloc_tile : {tile}\n  return\n}}")
    check_chunks(tmp_path, texts)


# --- the pre-parse scan for inputs that would crash the MLIR parser ------------


def test_parser_hazard_nesting_limit():
    from pto_dialect.support.source_text import MAX_NESTING, parser_hazard

    ok = "{" * MAX_NESTING + "}" * MAX_NESTING
    assert parser_hazard(ok) is None
    deep = "x" + "(" * (MAX_NESTING + 1) + ")" * (MAX_NESTING + 1)
    assert parser_hazard(deep) == (1 + MAX_NESTING, f"nesting deeper than {MAX_NESTING} levels is not supported")
    # Openers never closed count (a truncated file), stray closers do not.
    assert parser_hazard("<" * (MAX_NESTING + 1)) is not None
    assert parser_hazard(")" * 5000 + "(" * MAX_NESTING) is None
    # Mixed kinds of brackets nest together; `->` is not a closer.
    mixed = "([{<" * 300 + "->" * 5000
    assert parser_hazard(mixed)[0] == 1000


def test_parser_hazard_ignores_strings_and_comments():
    from pto_dialect.support.source_text import MAX_NESTING, parser_hazard

    deep = "(" * (MAX_NESTING + 1)
    assert parser_hazard(f'"{deep}"') is None
    assert parser_hazard(f'"a \\" {deep}"') is None  # an escaped quote does not end the string
    assert parser_hazard(f"// {deep}\n") is None
    assert parser_hazard(f'// "\n{deep}') == (len('// "\n') + MAX_NESTING, f"nesting deeper than {MAX_NESTING} levels is not supported")
    # Brackets inside a string do not close anything either.
    assert parser_hazard("(" * 600 + '")))"' + "(" * 600) is not None


def test_parser_hazard_index_arrays():
    from pto_dialect.support.source_text import parser_hazard

    message = "expected integer or float type, got: 'index'"
    assert parser_hazard("x = array<index: 1, 2>") == (len("x = array<"), message)
    assert parser_hazard("x = array < index>") == (len("x = array < "), message)
    for fine in ('"array<index: 1>"', "// array<index: 1>", "!d.array<index>", "%array<index", "array<i64: 1>", "array<indexed>"):
        assert parser_hazard(fine) is None, fine
