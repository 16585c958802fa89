"""The target table: capacity and address alignment of every memory space
per architecture (docs/dialect.md, "Memory spaces"). Which arch a module
targets is decided in annotations.py."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SpaceSpec:
    capacity: int  # bytes
    alignment: int  # bytes; every buffer base in this space is a multiple


_A2_A3 = {
    "vec": SpaceSpec(196608, 32),
    "mat": SpaceSpec(524288, 32),
    "left": SpaceSpec(65536, 512),
    "right": SpaceSpec(65536, 512),
    "acc": SpaceSpec(131072, 512),
    "bias": SpaceSpec(65536, 32),
    "scaling": SpaceSpec(196608, 32),  # the vector buffer's capacity (ptoas's memory spec)
}

TARGETS: dict[str, dict[str, SpaceSpec]] = {
    "a2a3": _A2_A3,
    "a5": {
        **_A2_A3,
        "vec": SpaceSpec(253952, 32),
        "scaling": SpaceSpec(253952, 32),
        "acc": SpaceSpec(262144, 512),
    },
}

ARCHS = tuple(TARGETS)
ARCH_ALIASES = {"a2": "a2a3", "a3": "a2a3"}
"""Other names ptoas and PyPTO use for an arch (matched case-insensitively)."""
ARCH_NAMES = (*ARCHS, *ARCH_ALIASES)
"""Every name an `arch=` option takes."""


def canonical_arch(name: str) -> str | None:
    """The arch `name` means (`A3` and `a2` mean `a2a3`), or None."""
    lowered = name.lower()
    lowered = ARCH_ALIASES.get(lowered, lowered)
    return lowered if lowered in TARGETS else None


def ptoas_arch_name(name: str | None) -> str:
    """The arch ptoas's driver compiles a module for when the module or an
    option names `name` (None: neither does): a2, a3 or a5 as named, any
    other name, and none, becoming a3 (PTOAS tools/ptoas/driver.cpp, which
    then sets `pto.target_arch` to it before verifying). Only a few rules
    of ptoas's verifier tell a2 from a3."""
    lowered = (name or "").lower()
    if lowered in ("a2", "a3", "a5"):
        return lowered
    return "a5" if canonical_arch(lowered) == "a5" else "a3"


def space_spec(arch: str, space: str) -> SpaceSpec:
    return TARGETS[arch][space]
