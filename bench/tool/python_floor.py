"""The Python floor (issue 26): what no Python plugin that reads and writes
ptoas syntax can avoid, as one process: start Python, `import mlir`, read
the file, translate ptoas syntax to MLIR's text, parse it (C++), print it
(C++), translate back, write. No check, no pass. bench/tool/run.py runs it
beside `pto-opt` on the same input.

    python bench/tool/python_floor.py IN.pto OUT.pto
"""

import sys

from mlir import ir

from pto_dialect.dialect.load import load_dialect
from pto_dialect.syntax import ptoas


def main() -> None:
    source, target = sys.argv[1], sys.argv[2]
    with open(source, encoding="utf-8") as f:
        text = f.read()
    generic = ptoas.to_generic(text).text
    with ir.Context() as ctx:
        load_dialect(ctx)
        module = ir.Module.parse(generic)
        printed = str(module)
    with open(target, "w", encoding="utf-8") as f:
        f.write(ptoas.to_ptoas(printed))


if __name__ == "__main__":
    main()
