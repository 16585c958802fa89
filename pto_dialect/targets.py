"""The target table: capacity and address alignment of every memory space
per architecture (docs/dialect.md, "Memory spaces"). Which arch a module
targets is decided in vocabulary.py."""

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
}

TARGETS: dict[str, dict[str, SpaceSpec]] = {
    "a2": _A2_A3,
    "a3": _A2_A3,
    "a5": {
        **_A2_A3,
        "vec": SpaceSpec(253952, 32),
        "acc": SpaceSpec(262144, 512),
    },
}

ARCHS = tuple(TARGETS)


def space_spec(arch: str, space: str) -> SpaceSpec:
    return TARGETS[arch][space]
