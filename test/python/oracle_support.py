"""What the oracle tests share: the tools from the environment (skipping
with the variable to set when one is not configured), and the project's
printed texts, made once per session."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest

from pto_dialect.testing import oracles, printed

ROOT = Path(__file__).resolve().parents[2]

GENERATED_SEEDS = range(24)
"""kernel_gen seeds whose kernels (and their pass outputs) ptoas reads too."""


def require(tool: oracles.Tool) -> oracles.Tool:
    if tool.path is None:
        pytest.skip(tool.missing)
    return tool


@lru_cache(maxsize=1)
def repository() -> tuple[list[printed.Kernel], list[printed.Printed], list[printed.Kernel]]:
    """The repository's kernels, what we print for them, and those we refuse."""
    kernels = printed.repository_kernels(ROOT)
    outputs, refused = printed.print_all(kernels)
    return kernels, outputs, refused


@lru_cache(maxsize=1)
def generated() -> tuple[list[printed.Kernel], list[printed.Printed], list[printed.Kernel]]:
    kernels = printed.generated_kernels(GENERATED_SEEDS)
    outputs, refused = printed.print_all(kernels)
    return kernels, outputs, refused
