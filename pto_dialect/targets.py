"""The target table (CONTRACT 1.3): capacity and address alignment of every
memory space per architecture, and how a module names its architecture."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

ARCH_ATTR = "pto.target_arch"
DEFAULT_ARCH = "a3"


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


class ArchError(ValueError):
    pass


def module_arch(module: ir.Operation) -> str | None:
    """The arch a module names with `pto.target_arch`, or None.

    Raises ArchError when the attribute is present but not a known arch name.
    """
    attrs = module.attributes
    if ARCH_ATTR not in attrs:
        return None
    attr = attrs[ARCH_ATTR]
    if not isinstance(attr, ir.StringAttr) or attr.value not in TARGETS:
        raise ArchError(
            f"'{ARCH_ATTR}' must be one of {', '.join(repr(a) for a in ARCHS)}, got {attr}"
        )
    return attr.value


def resolve_arch(module: ir.Operation, option: str | None = None) -> str:
    """The arch for `module`: the pass option when given, else the module
    attribute, else the default (a3)."""
    if option:
        if option not in TARGETS:
            raise ArchError(f"unknown arch '{option}' (expected one of {', '.join(ARCHS)})")
        return option
    return module_arch(module) or DEFAULT_ARCH
