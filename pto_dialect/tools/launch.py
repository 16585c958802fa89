"""The `pto-opt` and `pto-run` commands (pyproject.toml, [project.scripts]).

Each gives the stopping signals their default action (pto_dialect/interrupts.py)
before it imports its tool, so that a Ctrl-C during start-up (argparse, the
MLIR library loading) ends the process like one at any later moment. This
module imports nothing else.
"""

from __future__ import annotations


def pto_opt() -> None:
    from ..interrupts import install

    install()
    from .pto_opt import console_main

    console_main()


def pto_run() -> None:
    from ..interrupts import install

    install()
    from .pto_run import console_main

    console_main()
