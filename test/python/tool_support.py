"""What the tests that run the tools as processes share (exit codes,
output, signals, memory): the command of an installed tool and the
environment it runs in."""

from __future__ import annotations

import os
import sys
from pathlib import Path

BIN = Path(sys.executable).parent
"""Where pip installed the console scripts (pto-opt, pto-run)."""

USER_SETTINGS = ("PTO_DEBUG", "PTO_PTOAS_MULTI_BUFFER")
"""Variables a user may have set that change what a tool prints (a
traceback instead of the error, the pipeline switch on), so a test that
compares a tool's output runs it without them."""


def tool_environment(**extra: str) -> dict[str, str]:
    """This process's environment without USER_SETTINGS, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if k not in USER_SETTINGS}
    env.update(extra)
    return env


def tool_command(tool: str) -> list[str]:
    """The installed command (its entry point is pto_dialect/tools/launch.py),
    or the same entry point through this Python when the script is missing."""
    script = BIN / tool
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", f"from pto_dialect.tools.launch import {tool.replace('-', '_')} as m; m()"]
