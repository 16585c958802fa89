"""The dialect's vocabulary: the attributes kernels and passes exchange, read
and written only through the accessors here, the stage and slot counts that
decide what a pipeline loop asks for, and which target a module names.

Reference: docs/dialect.md ("Pipeline loops and targets"). Passes and the
verifier import these names from here, never from each other.
"""

from __future__ import annotations

from mlir import ir

from .targets import ARCHS, canonical_arch, ptoas_arch_name

STAGES_ATTR = "pto.pipeline_stages"
"""On an `scf.for`: the stage count N its frontend asks for (an i64 >= 1)."""
ARCH_ATTR = "pto.target_arch"
"""On the module: the target architecture (a string, one of `ARCHS`)."""
MEMORY_USAGE_ATTR = "pto.memory_usage"
"""On a function, set by the allocator: peak bytes per memory space."""

BUFFERED_STAGES = 2
"""The smallest stage count that asks for N-way buffering; N = 1 means the
loop is handled (converted or replicated) or was never to be buffered."""
MIN_SLOTS = 2
MAX_SLOTS = 16
"""The slot counts a `pto.alloc_multi_tile` may have."""

DEFAULT_ARCH = "a2a3"
"""The target of a module without `pto.target_arch` and without an `arch=` option."""


class ArchError(ValueError):
    """An unknown architecture name, in the module or in an option."""


def _i64(context: ir.Context | None = None) -> ir.Type:
    return ir.IntegerType.get_signless(64, context)


def pipeline_stages(op: ir.Operation) -> int | None:
    """N of a pipeline loop (`pto.pipeline_stages = N`), else None."""
    attrs = op.attributes
    if STAGES_ATTR not in attrs:
        return None
    attr = attrs[STAGES_ATTR]
    return attr.value if isinstance(attr, ir.IntegerAttr) else None


def asks_for_buffering(op: ir.Operation) -> bool:
    """Whether `op` is a pipeline loop still asking for N >= 2 buffers."""
    return op.name == "scf.for" and (pipeline_stages(op) or 0) >= BUFFERED_STAGES


def stages_attr(n: int, context: ir.Context | None = None) -> ir.Attribute:
    """The attribute value `pto.pipeline_stages = n : i64`."""
    return ir.IntegerAttr.get(_i64(context), n)


def set_pipeline_stages(op: ir.Operation, n: int | ir.Attribute) -> None:
    """Set `pto.pipeline_stages` to `n` (a count, or an attribute made once
    with `stages_attr` when many loops get the same value)."""
    op.attributes[STAGES_ATTR] = n if isinstance(n, ir.Attribute) else stages_attr(n, op.context)


def stages_problem(op: ir.Operation) -> str | None:
    """Why `op`'s `pto.pipeline_stages` is misplaced or malformed, or None."""
    attr = op.attributes[STAGES_ATTR]
    if op.name != "scf.for":
        return f"'{STAGES_ATTR}' is only allowed on scf.for"
    if not (isinstance(attr, ir.IntegerAttr) and attr.type == _i64(op.context) and attr.value >= 1):
        return f"'{STAGES_ATTR}' must be an i64 integer >= 1, got {attr}"
    return None


def set_memory_usage(func: ir.Operation, usage: dict[str, int]) -> None:
    """Record the allocator's peak bytes per space on `func`."""
    i64 = _i64(func.context)
    func.attributes[MEMORY_USAGE_ATTR] = ir.DictAttr.get(
        {space: ir.IntegerAttr.get(i64, used) for space, used in usage.items()}, func.context
    )


DEVICE_SPEC_ATTR = "pto.device-spec"
A5_DEVICE_SPECS = ("Ascend950", "Ascend910_95")
"""The device specs ptoas takes for an A5 (PTOAS lib/PTO/IR/PTO.cpp,
`isA5DeviceSpec`)."""


def module_arch(module: ir.Operation) -> str | None:
    """The arch a module names, or None: `pto.target_arch`, except that a
    `pto.device-spec` of an A5 (`"Ascend950"`, ...) makes it `a5` whatever
    `pto.target_arch` says, as ptoas decides (PTOAS lib/PTO/IR/PTO.cpp,
    `isA5ModuleTarget`; any other device spec decides nothing).

    Raises ArchError when `pto.target_arch` is present but not a known arch name.
    """
    attrs = module.attributes
    arch = None
    if ARCH_ATTR in attrs:
        attr = attrs[ARCH_ATTR]
        arch = canonical_arch(attr.value) if isinstance(attr, ir.StringAttr) else None
        if arch is None:
            raise ArchError(f"'{ARCH_ATTR}' must be one of {', '.join(repr(a) for a in ARCHS)} (or 'a2', 'a3'), got {attr}")
    if arch != "a5" and DEVICE_SPEC_ATTR in attrs:
        spec = attrs[DEVICE_SPEC_ATTR]
        if isinstance(spec, ir.StringAttr) and spec.value.startswith(A5_DEVICE_SPECS):
            return "a5"
    return arch


def resolve_arch(module: ir.Operation, option: str | None = None) -> str:
    """The arch for `module`: the pass option when given, else the module
    attribute, else the default. The one place that decides it."""
    if option:
        arch = canonical_arch(option)
        if arch is None:
            raise ArchError(f"unknown arch '{option}' (expected one of {', '.join(ARCHS)}, or a2, a3)")
        return arch
    return module_arch(module) or DEFAULT_ARCH


def resolve_ptoas_arch(module: ir.Operation, option: str | None = None) -> str:
    """What ptoas's driver calls the arch `resolve_arch` gives (a2, a3 or
    a5; targets.ptoas_arch_name)."""
    if option:
        return ptoas_arch_name(option)
    if module_arch(module) == "a5":
        return "a5"
    attr = module.attributes[ARCH_ATTR] if ARCH_ATTR in module.attributes else None
    return ptoas_arch_name(attr.value if isinstance(attr, ir.StringAttr) else None)
