"""The rules of the pto dialect that IRDL cannot express (CONTRACT 2.5).

Runs after parsing and after every pass. Each violation is an MLIR error at
the offending op; `verify_module` returns whether the module is clean.
"""

from __future__ import annotations

import re

from mlir import ir

from . import diagnostics
from .ir_utils import constant_int, walk_ops
from .targets import TARGETS, ArchError, module_arch, space_spec
from .types import DTYPE_BYTES, MAX_SLOTS, MIN_SLOTS, SPACES, TileBufType, buffer_type, multi_tile_type, tile_type

STAGES_ATTR = "pto.pipeline_stages"


def tile_type_problem(t: TileBufType) -> str | None:
    """Why `t` breaks CONTRACT 1.1, or None."""
    if t.loc not in SPACES:
        return f"memory space \"{t.loc}\" is not one of {', '.join(SPACES)}"
    if t.dtype not in DTYPE_BYTES:
        return f"element type {t.dtype} is not one of {', '.join(DTYPE_BYTES)}"
    if t.shape_element != "i64":
        return f"shape must be an array<i64: R, C>, got array<{t.shape_element}: ...>"
    if len(t.shape) != 2:
        return f"shape must have rank 2, got rank {len(t.shape)}"
    if any(d <= 0 for d in t.shape):
        return f"shape dimensions must be positive, got {t.shape[0]}x{t.shape[1]}"
    return None


_EMBEDDED_PTO_TYPE = re.compile(r"!pto\.\w+<")


def embedded_pto_types(text: str) -> list[str]:
    """The texts of the outermost pto types written inside a type's text,
    e.g. both tile types in `(!pto.tile_buf<...>, i32) -> tuple<!pto.tile_buf<...>>`."""
    found = []
    pos = 0
    while (m := _EMBEDDED_PTO_TYPE.search(text, pos)) is not None:
        depth, quoted, end = 0, False, len(text)
        for i in range(m.end() - 1, len(text)):
            c = text[i]
            if quoted:
                quoted = c != '"'
            elif c == '"':
                quoted = True
            elif c == "<":
                depth += 1
            elif c == ">":
                depth -= 1
                if depth == 0:
                    end = i + 1
                    break
        found.append(text[m.start() : end])
        pos = end
    return found


class _Verifier:
    def __init__(self, arch: str) -> None:
        self.arch = arch
        self.ok = True
        self._type_problem: dict[ir.Type, str | None] = {}

    def error(self, op: ir.Operation, message: str) -> None:
        self.ok = False
        diagnostics.emit_error(op.location, message)

    # -- types ----------------------------------------------------------------

    def type_problem(self, t: ir.Type) -> str | None:
        """What is wrong with `t`, or None. Pto types nested in other types
        (`tuple<...>`, function types) count too."""
        # Keyed by the (uniqued) type itself: printing one costs ~20 us.
        try:
            return self._type_problem[t]
        except KeyError:
            pass
        problem = self._find_type_problem(t)
        self._type_problem[t] = problem
        return problem

    def _find_type_problem(self, t: ir.Type) -> str | None:
        key = str(t)
        problem = None
        view = buffer_type(t)
        if view is None and key.startswith("!pto."):
            problem = f"malformed pto type {key}"
        elif view is None and "!pto." in key:
            inner = (self.type_problem(ir.Type.parse(text, t.context)) for text in embedded_pto_types(key))
            return next((p for p in inner if p), None)
        elif isinstance(view, TileBufType):
            problem = tile_type_problem(view)
            if problem is None and view.nbytes > space_spec(self.arch, view.loc).capacity:
                spec = space_spec(self.arch, view.loc)
                problem = (
                    f"tile of {view.nbytes} bytes does not fit in space \"{view.loc}\" "
                    f"({spec.capacity} bytes on {self.arch})"
                )
        elif view is not None:  # multi_tile_buf
            problem = tile_type_problem(view.slot)
            if problem is None and not MIN_SLOTS <= view.count <= MAX_SLOTS:
                problem = f"slot count must be in [{MIN_SLOTS}, {MAX_SLOTS}], got {view.count}"
            if problem is None:
                spec = space_spec(self.arch, view.loc)
                need = view.region_bytes(spec.alignment)
                if need > spec.capacity:
                    problem = (
                        f"{view.count} slots of {view.slot.nbytes} bytes (stride "
                        f"{view.stride(spec.alignment)}) need {need} bytes, more than space "
                        f"\"{view.loc}\" has ({spec.capacity} bytes on {self.arch})"
                    )
        if problem is not None:
            problem = f"invalid type {key}: {problem}"
        return problem

    def check_types(self, op: ir.Operation) -> None:
        types = [r.type for r in op.results]
        for region in op.regions:
            for block in region.blocks:
                types.extend(arg.type for arg in block.arguments)
        # Types held by attributes: a function declaration's signature has no
        # block arguments to carry them.
        attrs = op.attributes
        for i in range(len(attrs)):
            attr = attrs[i].attr
            if isinstance(attr, ir.TypeAttr):
                types.append(attr.value)
        problems = dict.fromkeys(p for p in map(self.type_problem, types) if p)
        for problem in problems:
            self.error(op, problem)

    # -- ops ------------------------------------------------------------------

    def check_alloc(self, op: ir.Operation) -> None:
        if len(op.operands) == 0:
            return
        addr = constant_int(op.operands[0])
        if addr is None:
            return
        view = buffer_type(op.results[0].type)
        if view is None or self.type_problem(op.results[0].type):
            return
        spec = space_spec(self.arch, view.loc)
        size = view.nbytes if isinstance(view, TileBufType) else view.region_bytes(spec.alignment)
        if addr < 0:
            self.error(op, f"addr must be non-negative, got {addr}")
        elif addr % spec.alignment:
            self.error(op, f"addr {addr} is not aligned to {spec.alignment} bytes (space \"{view.loc}\")")
        elif addr + size > spec.capacity:
            self.error(
                op,
                f"buffer at addr {addr} of {size} bytes ends at {addr + size}, beyond space "
                f"\"{view.loc}\" ({spec.capacity} bytes on {self.arch})",
            )

    def check_multi_tile_get(self, op: ir.Operation) -> None:
        mb = multi_tile_type(op.operands[0].type)
        slot = constant_int(op.operands[1])
        if mb is not None and slot is not None and not 0 <= slot < mb.count:
            self.error(op, f"slot {slot} is out of range [0, {mb.count})")

    def check_matmul(self, op: ir.Operation) -> None:
        lhs, rhs, dst = (tile_type(v.type) for v in op.operands)
        if None in (lhs, rhs, dst) or any(len(t.shape) != 2 for t in (lhs, rhs, dst)):
            return
        (m, k), (k2, n), (m2, n2) = lhs.shape, rhs.shape, dst.shape
        if k != k2 or (m, n) != (m2, n2):
            self.error(
                op,
                f"matmul shapes do not agree: lhs {m}x{k} @ rhs {k2}x{n} cannot give {m2}x{n2}",
            )

    def check_transfer(self, op: ir.Operation, memref_index: int, tile_index: int, row_index: int) -> None:
        memref_type = op.operands[memref_index].type
        tile = tile_type(op.operands[tile_index].type)
        if tile is None or not isinstance(memref_type, ir.MemRefType):
            return
        if memref_type.rank != 2:
            self.error(op, f"memref must have rank 2, got {memref_type}")
            return
        element = str(memref_type.element_type)
        if element != tile.dtype:
            self.error(op, f"memref element type {element} does not match tile element type {tile.dtype}")
            return
        if len(tile.shape) != 2:
            return
        for axis, (offset_value, extent, size) in enumerate(
            zip(op.operands[row_index : row_index + 2], tile.shape, memref_type.shape)
        ):
            offset = constant_int(offset_value)
            if offset is None or ir.ShapedType.is_dynamic_size(size):
                continue
            if offset < 0 or offset + extent > size:
                what = "row" if axis == 0 else "col"
                self.error(
                    op,
                    f"{what} range [{offset}, {offset + extent}) is out of bounds of {memref_type} (dimension {axis} has {size})",
                )

    def check_stages(self, op: ir.Operation) -> None:
        attr = op.attributes[STAGES_ATTR]
        if op.name != "scf.for":
            self.error(op, f"'{STAGES_ATTR}' is only allowed on scf.for")
        elif not (isinstance(attr, ir.IntegerAttr) and str(attr.type) == "i64" and attr.value >= 1):
            self.error(op, f"'{STAGES_ATTR}' must be an i64 integer >= 1, got {attr}")

    def visit(self, op: ir.Operation) -> None:
        name = op.name
        self.check_types(op)
        if name.startswith("pto."):
            if name in ("pto.alloc_tile", "pto.alloc_multi_tile"):
                self.check_alloc(op)
            elif name == "pto.multi_tile_get":
                self.check_multi_tile_get(op)
            elif name in ("pto.tmatmul", "pto.tmatmul_acc"):
                self.check_matmul(op)
            elif name == "pto.tload":
                self.check_transfer(op, 0, 3, 1)
            elif name == "pto.tstore":
                self.check_transfer(op, 1, 0, 2)
        if STAGES_ATTR in op.attributes:
            self.check_stages(op)


def verify_module(module: ir.Operation, arch: str | None = None) -> bool:
    """Check every rule of CONTRACT 2.5 on `module`; emit an error at each
    offending op. Returns True when there is none.

    `arch` overrides the module's `pto.target_arch` (as a pass option does).
    """
    try:
        arch = arch or module_arch(module) or "a3"
    except ArchError as e:
        diagnostics.emit_error(module.location, str(e))
        return False
    if arch not in TARGETS:
        diagnostics.emit_error(module.location, f"unknown arch '{arch}'")
        return False
    v = _Verifier(arch)
    for op in walk_ops(module):
        v.visit(op)
    return v.ok
