"""Round-trip checkers for fuzzing (pto_dialect.testing.fuzz): tools with a
`main(argv)` like pto-opt's, whose runs fail when the writer's output does
not read back as it was written.

`main` (`pto-roundtrip FILE [pto-opt flags]`): pto-opt reads FILE (running
the flags' passes, or printing the generic form); what it printed must read
back and print the same ptoas text, and the generic form of that text must
read back to it too. An input pto-opt refuses ends as pto-opt ended (exit 1
with its located errors): refusing is not a round-trip failure.

`api_main` (`FILE`): the same through the Python API (`pto_dialect.parse`,
`print_module`): a module, or a `ParseError` whose message is the located
errors.

A broken property is reported on stderr as a line starting with
`fuzz.ROUNDTRIP_MARK`, with exit code 1.
"""

from __future__ import annotations

import os
import sys
import tempfile

ROUNDTRIP_MARK = "round-trip failure:"  # fuzz.ROUNDTRIP_MARK (fuzz imports this module lazily)
GENERIC = "--mlir-print-op-generic"


def first_difference(a: str, b: str) -> str:
    """The first line where two texts differ, as `line N: A | B`."""
    la, lb = a.split("\n"), b.split("\n")
    for n, (x, y) in enumerate(zip(la, lb), 1):
        if x != y:
            return f"line {n}:\n  {x}\n  {y}"
    return f"line {min(len(la), len(lb)) + 1}: one text ends ({len(la)} and {len(lb)} lines)"


def _fail(message: str) -> int:
    print(f"{ROUNDTRIP_MARK} {message}", file=sys.stderr)
    return 1


def main(argv: list[str] | None = None) -> int:
    from .fuzz import TOOLS, tool_entry  # pto-opt's main, found the way the fuzz worker finds it

    pto_opt_main = tool_entry(TOOLS["pto-opt"])
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        print("pto-roundtrip: error: no input file", file=sys.stderr)
        return 1
    path, flags = argv[0], argv[1:]
    with tempfile.TemporaryDirectory(prefix="pto-roundtrip-") as tmp:

        def run(source: str, name: str, *extra: str) -> tuple[int, str]:
            out = os.path.join(tmp, name)
            code = pto_opt_main([source, *extra, "-o", out])
            if code != 0 or not os.path.exists(out):
                return code, ""
            with open(out, encoding="utf-8", errors="surrogateescape") as f:
                return code, f.read()

        code, first = run(path, "first.pto", *flags)
        if code != 0:
            return code  # the input itself is refused: pto-opt's own verdict
        where = os.path.join(tmp, "first.pto")
        code, second = run(where, "second.pto")
        if code != 0:
            return _fail(f"what pto-opt printed for {' '.join([path, *flags])} does not read back (exit {code}, errors above)")
        base, base_text = os.path.join(tmp, "second.pto"), second
        if GENERIC in flags:
            code, third = run(base, "third.pto")
            if code != 0:
                return _fail("the ptoas text read from the generic form does not read back (errors above)")
            if third != second:
                return _fail(f"printing the text printed from the generic form changes it: {first_difference(second, third)}")
        elif second != first:
            return _fail(f"printing what pto-opt printed changes it: {first_difference(first, second)}")
        # with locations: an op's value names travel in them (the generic form
        # names an op's results as one group; docs/tools.md, "Value names")
        code, generic = run(base, "generic.mlir", GENERIC, "--mlir-print-debuginfo")
        if code != 0:
            return _fail("the printed text cannot be printed in the generic form (errors above)")
        code, back = run(os.path.join(tmp, "generic.mlir"), "back.pto")
        if code != 0:
            return _fail("the generic form pto-opt printed does not read back (errors above)")
        if back != base_text:
            return _fail(f"the generic form reads back to other ptoas text: {first_difference(base_text, back)}")
    return 0


def api_main(argv: list[str] | None = None) -> int:
    from mlir import ir

    from ..api import ParseError, parse, print_module

    argv = list(sys.argv[1:] if argv is None else argv)
    path = argv[0]
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", "surrogateescape")
    with ir.Context():
        try:
            module = parse(text, name=path)
        except ParseError as e:
            print(str(e), file=sys.stderr)
            return 1
        printed = print_module(module)
        generic = print_module(module, generic=True, debuginfo=True)  # (see `main`)
    for label, again_text in (("printed", printed), ("generic", generic)):
        with ir.Context():
            try:
                again = print_module(parse(again_text, name=f"{path} ({label})"))
            except ParseError as e:
                return _fail(f"the {label} text of {path} does not read back:\n{e}")
        if again != printed:
            return _fail(f"the {label} text of {path} reads back to other text: {first_difference(printed, again)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
