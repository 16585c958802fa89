"""The rules of the pto dialect that IRDL cannot express (CONTRACT 2.5).

Runs after parsing and after every pass. Each violation is an MLIR error at
the offending op; `verify_module` returns whether the module is clean.
"""

from __future__ import annotations

import re

from mlir import ir
from mlir.rewrite import RewritePatternSet, walk_and_apply_patterns

from . import diagnostics
from .ir_utils import ConstantInts, walk_ops
from .source_text import strip_comments
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
_TYPE_ALIAS = re.compile(r"^\s*!([\w$.-]+)\s*=\s*(!pto\.[^\n]*?)\s*$", re.MULTILINE)
_ALIAS_USE = re.compile(r"!([\w$-]+)(?![\w$.-])")


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
        self._transfer_shapes: dict[tuple[ir.Type, ir.Type], object] = {}
        self._i64 = ir.IntegerType.get_signless(64)
        # Constants do not change while we verify: memoise them.
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
            self.error(
                op,
                f"matmul shapes do not agree: lhs {m}x{k} @ rhs {k2}x{n} cannot give {m2}x{n2}",
            )

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
        attr = op.attributes[STAGES_ATTR]
        if op.name != "scf.for":
            self.error(op, f"'{STAGES_ATTR}' is only allowed on scf.for")
        elif not (isinstance(attr, ir.IntegerAttr) and attr.type == self._i64 and attr.value >= 1):
            self.error(op, f"'{STAGES_ATTR}' must be an i64 integer >= 1, got {attr}")

    def check_ops(self, module: ir.Operation) -> int:
        """The op rules, on the ops they are about: a walk in C++ calls
        Python only for those. Returns how many scf.for ops carry
        `pto.pipeline_stages`."""
        stages = 0

        def check(op, _rewriter, name):
            nonlocal stages
            op = op.operation
            if name == "scf.for" and STAGES_ATTR in op.attributes:
                stages += 1
            self.check_op(op, name)
            return True  # "no match": the walk changes nothing

        patterns = RewritePatternSet()
        for name in (*self._OP_CHECKS, "scf.for"):
            patterns.add(name, lambda op, rewriter, name=name: check(op, rewriter, name))
        walk_and_apply_patterns(module, patterns.freeze())
        return stages

    def spelled_types_valid(self, context: ir.Context, text: str) -> bool:
        """True when every pto type spelled in `text` is valid (parsing each
        distinct spelling once)."""
        aliases = dict(_TYPE_ALIAS.findall(text))

        def expand(match: re.Match) -> str:
            return aliases.get(match.group(1), match.group(0))

        for spelling in set(embedded_pto_types(text)):
            if "!" in spelling[1:]:  # aliases inside, e.g. multi_tile_buf<!t, 2 : i64>
                spelling = _ALIAS_USE.sub(expand, spelling)
            try:
                t = ir.Type.parse(spelling, context)
            except ir.MLIRError:
                return False  # not a type after all (in a string?): look closely
            if self.type_problem(t):
                return False
        return True

    def visit(self, op: ir.Operation) -> None:
        """Every rule: types (once after parsing) and ops."""
        name = op.name
        # Values are checked where they are defined (results, block
        # arguments): ops whose results cannot be pto types are skipped.
        if not (name.startswith(_SCALAR_RESULT_DIALECTS) and name != "arith.select"):
            self.check_types(op, name)
        self.check_op(op, name)
        if name != "scf.for" and STAGES_ATTR in op.attributes:
            self.check_stages(op)

    def check_op(self, op: ir.Operation, name: str) -> None:
        """The rules about one op and the constants it uses."""
        check = self._OP_CHECKS.get(name)
        if check is not None:
            check(self, op)
        elif name == "scf.for" and STAGES_ATTR in op.attributes:
            self.check_stages(op)

    _OP_CHECKS = {
        "pto.alloc_tile": check_alloc,
        "pto.alloc_multi_tile": check_alloc,
        "pto.multi_tile_get": check_multi_tile_get,
        "pto.tmatmul": check_matmul,
        "pto.tmatmul_acc": check_matmul,
        "pto.tload": lambda self, op: self.check_transfer(op, 0, 3, 1),
        "pto.tstore": lambda self, op: self.check_transfer(op, 1, 0, 2),
    }


# Dialects whose ops only make scalar results (arith.select aside: it
# selects between values of any type) and have no regions.
_SCALAR_RESULT_DIALECTS = ("arith.", "math.", "index.")
# Dialects whose ops hold no types in attributes (checked by name prefix).
_NO_TYPE_ATTRS = ("pto.", "arith.", "scf.", "memref.", "math.", "index.")


def verify_module(module: ir.Operation, arch: str | None = None, check_types: bool = True) -> bool:
    """Check the rules of CONTRACT 2.5 on `module`; emit an error at each
    offending op. Returns True when there is none.

    `arch` overrides the module's `pto.target_arch` (as a pass option does).
    `check_types=False` skips the rules about types and where
    `pto.pipeline_stages` may appear: passes cannot break them (no pass
    makes an invalid pto type: upstream passes cannot make pto types at all,
    ours make valid ones), so after the check that follows parsing only the
    op rules need checking again, and those only on the ops they are about,
    which a walk in C++ finds without calling Python for the others.
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
    if check_types:
        for op in walk_ops(module):
            v.visit(op)
        return v.ok
    v.check_ops(module)
    return v.ok


def verify_ops(ops, module: ir.Operation, arch: str | None = None) -> bool:
    """The op rules on `ops` only (what a pass changed; see
    `ModulePass.records_changes`)."""
    try:
        arch = arch or module_arch(module) or "a3"
    except ArchError as e:
        diagnostics.emit_error(module.location, str(e))
        return False
    v = _Verifier(arch)
    for op in ops:
        v.check_op(op, op.name)
    return v.ok


def verify_parsed(module: ir.Operation, source_text: str) -> bool:
    """The check that follows parsing `source_text` into `module`: every
    rule, as `verify_module`, but cheaper in the common case.

    Every pto type in a module parsed from text is spelled in that text (in
    an op's signature or a type alias). When each one spelled there (outside
    comments) is valid, and `pto.pipeline_stages` appears only on scf.for
    ops, the rules
    about types and attribute placement hold, and only the op rules need a
    walk (the C++-filtered one). Otherwise the full per-op walk finds and
    reports each problem at its op.
    """
    try:
        arch = module_arch(module) or "a3"
    except ArchError:
        return verify_module(module)
    v = _Verifier(arch)
    # Comments spell what they like (even types the parser would choke on).
    code = strip_comments(source_text)
    if not v.spelled_types_valid(module.context, code):
        return verify_module(module)
    stages_on_loops = v.check_ops(module)
    if code.count(STAGES_ATTR) != stages_on_loops:
        # some occurrence is elsewhere (another op, a string): look closely
        return verify_module(module)
    return v.ok
