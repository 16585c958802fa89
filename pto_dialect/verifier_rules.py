"""The rules of the pto dialect that IRDL cannot express, one check each
(docs/dialect.md, "Verification"): what makes a type, an op or an attribute
invalid, and the message that says so. Where and when the rules run (after
parsing, after a pass, on which ops) is verifier.py's business.
"""

from __future__ import annotations

from mlir import ir

from . import diagnostics
from .ir_utils import ConstantInts
from .source_text import embedded_pto_types
from .targets import space_spec
from .types import DTYPE_BYTES, SPACES, TileBufType, buffer_type, multi_tile_type, tile_type
from .vocabulary import MAX_SLOTS, MIN_SLOTS, STAGES_ATTR, stages_problem


def tile_type_problem(t: TileBufType) -> str | None:
    """Why `t` is not a valid tile type, or None."""
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


# Dialects whose ops only make scalar results (arith.select aside: it
# selects between values of any type) and have no regions.
SCALAR_RESULT_DIALECTS = ("arith.", "math.", "index.")
# Dialects whose ops hold no types in attributes (checked by name prefix).
_NO_TYPE_ATTRS = ("pto.", "arith.", "scf.", "memref.", "math.", "index.")


class Rules:
    """The rules for one module and arch. Errors are emitted at the op as
    they are found; `ok` says whether there was none. Types and constants
    are uniqued and do not change while the rules run, so what is learnt
    about one is kept for the next op that has it."""

    def __init__(self, arch: str) -> None:
        self.arch = arch
        self.ok = True
        self._type_problem: dict[ir.Type, str | None] = {}
        self._transfer_shapes: dict[tuple[ir.Type, ir.Type], object] = {}
        self.constants = ConstantInts()

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

    def check_types(self, op: ir.Operation, name: str) -> None:
        """The types `op` defines (results, block arguments) or holds in
        attributes."""
        types = [r.type for r in op.results]
        if len(op.regions):
            for region in op.regions:
                for block in region.blocks:
                    types.extend(arg.type for arg in block.arguments)
        # Types held by attributes: a function declaration's signature has no
        # block arguments to carry them. Of the dialects pto kernels use,
        # only func.func holds types in attributes; ops of other dialects
        # might, so they are read too.
        if name == "func.func" or not name.startswith(_NO_TYPE_ATTRS):
            attrs = op.attributes
            for i in range(len(attrs)):
                attr = attrs[i].attr
                if isinstance(attr, ir.TypeAttr):
                    types.append(attr.value)
        if not types:
            return
        problems = dict.fromkeys(p for p in map(self.type_problem, types) if p)
        for problem in problems:
            self.error(op, problem)

    # -- ops ------------------------------------------------------------------

    def check_alloc(self, op: ir.Operation) -> None:
        if len(op.operands) == 0:
            return
        addr = self.constants(op.operands[0])
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
        slot = self.constants(op.operands[1])
        if mb is not None and slot is not None and not 0 <= slot < mb.count:
            self.error(op, f"slot {slot} is out of range [0, {mb.count})")

    def check_matmul(self, op: ir.Operation) -> None:
        lhs, rhs, dst = (tile_type(v.type) for v in op.operands)
        if None in (lhs, rhs, dst) or any(len(t.shape) != 2 for t in (lhs, rhs, dst)):
            return
        (m, k), (k2, n), (m2, n2) = lhs.shape, rhs.shape, dst.shape
        if k != k2 or (m, n) != (m2, n2):
            self.error(op, f"matmul shapes do not agree: lhs {m}x{k} @ rhs {k2}x{n} cannot give {m2}x{n2}")

    def check_transfer(self, op: ir.Operation, memref_index: int, tile_index: int, row_index: int) -> None:
        operands = op.operands
        memref_type = operands[memref_index].type
        tile_ir_type = operands[tile_index].type
        key = (memref_type, tile_ir_type)
        shape_check = self._transfer_shapes.get(key)
        if shape_check is None:
            shape_check = self._transfer_shapes[key] = self._transfer_types(memref_type, tile_ir_type)
        if isinstance(shape_check, str):
            self.error(op, shape_check)
            return
        memref_text, extents, sizes = shape_check
        for axis in range(len(extents)):
            size = sizes[axis]
            if size is None:
                continue
            offset = self.constants(operands[row_index + axis])
            extent = extents[axis]
            if offset is not None and (offset < 0 or offset + extent > size):
                what = "row" if axis == 0 else "col"
                self.error(
                    op,
                    f"{what} range [{offset}, {offset + extent}) is out of bounds of {memref_text} (dimension {axis} has {size})",
                )

    def _transfer_types(self, memref_type: ir.Type, tile_ir_type: ir.Type):
        """For a (memref, tile) type pair: an error message, or what the
        bounds check needs: (memref text, tile extents, static memref sizes)."""
        tile = tile_type(tile_ir_type)
        if tile is None or not isinstance(memref_type, ir.MemRefType):
            return (str(memref_type), (), ())
        if memref_type.rank != 2:
            return f"memref must have rank 2, got {memref_type}"
        element = str(memref_type.element_type)
        if element != tile.dtype:
            return f"memref element type {element} does not match tile element type {tile.dtype}"
        if len(tile.shape) != 2:
            return (str(memref_type), (), ())
        sizes = tuple(None if ir.ShapedType.is_dynamic_size(d) else d for d in memref_type.shape)
        return (str(memref_type), tile.shape, sizes)

    def check_stages(self, op: ir.Operation) -> None:
        problem = stages_problem(op)
        if problem is not None:
            self.error(op, problem)

    def check_op(self, op: ir.Operation, name: str) -> None:
        """The rules about one op and the constants it uses."""
        check = OP_RULES.get(name)
        if check is not None:
            check(self, op)
        elif name == "scf.for" and STAGES_ATTR in op.attributes:
            self.check_stages(op)

    def check_all(self, op: ir.Operation) -> None:
        """Every rule that concerns `op`: its types and its op rules."""
        name = op.name
        # Values are checked where they are defined (results, block
        # arguments): ops whose results cannot be pto types are skipped.
        if not (name.startswith(SCALAR_RESULT_DIALECTS) and name != "arith.select"):
            self.check_types(op, name)
        self.check_op(op, name)
        if name != "scf.for" and STAGES_ATTR in op.attributes:
            self.check_stages(op)


OP_RULES = {
    "pto.alloc_tile": Rules.check_alloc,
    "pto.alloc_multi_tile": Rules.check_alloc,
    "pto.multi_tile_get": Rules.check_multi_tile_get,
    "pto.tmatmul": Rules.check_matmul,
    "pto.tmatmul_acc": Rules.check_matmul,
    "pto.tload": lambda rules, op: rules.check_transfer(op, 0, 3, 1),
    "pto.tstore": lambda rules, op: rules.check_transfer(op, 1, 0, 2),
}
"""The ops with rules of their own (`scf.for` has one more: its stage count)."""
