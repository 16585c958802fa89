"""The rules of the pto dialect that IRDL cannot express, one check each
(docs/dialect.md, "Verification"): what makes a type, an op or an attribute
invalid, and the message that says so. The messages are ptoas's where ptoas
has the rule. Where and when the rules run (after parsing, after a pass, on
which ops) is verifier.py's business.
"""

from __future__ import annotations

from mlir import ir

from ..support import diagnostics
from ..support.ir_utils import ConstantInts
from ..support.source_text import embedded_pto_types
from . import attributes as pto_attributes
from . import ptoas_rules
from .annotations import MAX_SLOTS, MIN_SLOTS, STAGES_ATTR, stages_problem
from .effects import CATALOGUE, SEGMENTS_ATTR, Layout, OpSpec
from .ops import DPS, ENTRY, IMPLICIT_TERMINATOR, OPS, op_def
from .targets import space_spec
from .types import (
    DTYPE_BYTES,
    DYNAMIC,
    LOW_PRECISION,
    ROW_PLUS_ONE,
    MultiTileBufType,
    PtrType,
    StructType,
    TileBufType,
    ViewType,
    dim_text,
    pto_type,
    ptoas_dtype,
    tile_problem,
    tile_type,
)

__all__ = ["KIND_CHECKED_OPS", "OP_RULES", "Rules", "layout_problem", "tile_type_problem"]


def tile_type_problem(t: TileBufType) -> str | None:
    """Why `t` is not a valid tile type, or None (ptoas's type rules)."""
    return tile_problem(t)


# Element types whose none_box rows need only 16-byte alignment (ptoas).
_HALF_ALIGNED = frozenset({"!pto.f4E1M2x2", "!pto.f4E2M1x2"})


def layout_problem(t: TileBufType, name: str) -> str | None:
    """ptoas's layout rules for an allocated tile (`verifyTileBufLayoutConstraints`):
    rows must be whole 32-byte units, boxed tiles whole boxes. `name` is
    what the message calls the tile (`result`, `slot`)."""
    eb = t.element_bytes
    if eb == 0:
        return f"expects {name} element type to have a byte size"
    align = 16 if t.dtype in _HALF_ALIGNED else 32
    if t.slayout == "none_box":
        if t.blayout == "row_major":
            row = t.cols * eb
            if row % align:
                return (
                    f"expects {name} row-major none_box tile row byte size (cols * sizeof(dtype)) "
                    f"to be {align}-byte aligned, but got {row} bytes"
                )
        else:
            column = t.rows * eb
            if column % align:
                return (
                    f"expects {name} col-major none_box tile column byte size (rows * sizeof(dtype)) "
                    f"to be {align}-byte aligned, but got {column} bytes"
                )
        return None
    if t.fractal == 1024:
        inner = (16, 16)
    elif t.fractal == 32:
        inner = (16, 2)
    elif t.fractal == 512:
        if 32 % eb:
            return f"expects {name} element byte size to divide 32 for boxed fractal-512 tile layout"
        inner = (16, 32 // eb) if t.slayout == "row_major" else (32 // eb, 16)
    else:
        return f"expects {name} to use a supported boxed tile layout"
    if t.rows % inner[0] and not (t.loc == "vec" or t.fractal == 32 or t.rows == 1):
        return f"expects {name} boxed tile rows to be a multiple of innerRows ({inner[0]}), but got {t.rows}"
    if t.cols % inner[1]:
        return f"expects {name} boxed tile cols to be a multiple of innerCols ({inner[1]}), but got {t.cols}"
    return None


def _operand_kind_problem(constraint: str, t: ir.Type) -> str | None:
    """Why `t` does not meet an operand constraint IRDL leaves to us."""
    view = pto_type(t)
    if constraint == DPS:
        ok = isinstance(view, TileBufType) or (isinstance(view, ViewType) and view.kind == "partition_tensor_view")
        ok = ok or isinstance(t, ir.RankedTensorType)
        what = "a !pto.tile_buf, !pto.partition_tensor_view or ranked tensor"
    else:  # ENTRY
        ok = isinstance(view, TileBufType) or (isinstance(view, ViewType) and view.kind == "tensor_view")
        ok = ok or isinstance(t, ir.RankedTensorType)
        what = "a !pto.tile_buf, !pto.tensor_view or ranked tensor"
    return None if ok else what


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

    def __init__(self, arch: str, ptoas_arch: str | None = None) -> None:
        self.arch = arch
        # a2, a3 or a5: the few rules of ptoas that tell a2 from a3 (targets.ptoas_arch_name)
        self.ptoas_arch = ptoas_arch or ("a5" if arch == "a5" else "a3")
        self.ok = True
        self._type_problem: dict[ir.Type, str | None] = {}
        self._kind_problem: dict[str, dict[ir.Type, str | None]] = {DPS: {}, ENTRY: {}}
        self.constants = ConstantInts()
        # What each op name's instances share (layouts, checked operands),
        # and what is learnt per type or attribute: an op then costs only
        # the few binding calls that fetch its own types and attributes
        # (docs/performance.md: 0.3-5 us each).
        self._shapes: dict[str, _OpShapes] = {}
        self._views: dict[ir.Type, object] = {}
        self._alloc_facts: dict[ir.Type, tuple | None] = {}
        self._partition_facts: dict[ir.Type, dict[ir.Type, object]] = {}
        self._get_facts: dict[ir.Type, dict[ir.Type, object]] = {}
        self._stages_problem: dict[ir.Attribute, str | None] = {}

    def view(self, t: ir.Type):
        """`pto_type(t)`, remembered for this run by the (uniqued) type."""
        try:
            return self._views[t]
        except KeyError:
            view = self._views[t] = pto_type(t)
            return view

    def shapes(self, name: str) -> _OpShapes:
        shapes = self._shapes.get(name)
        if shapes is None:
            shapes = self._shapes[name] = _OpShapes(name)
        return shapes

    def layout(self, op: ir.Operation, name: str | None = None) -> Layout:
        """The operand layout of `op` (what `OpSpec.layout` says)."""
        return self.shapes(op.name if name is None else name).layout(op)[0]

    def error(self, op: ir.Operation, message: str) -> None:
        self.ok = False
        diagnostics.emit_error(op.location, message)

    def op_error(self, op: ir.Operation, message: str) -> None:
        """An error worded as MLIR words an op's verifier errors (and ptoas's)."""
        self.error(op, f"'{_ptoas_name(op.name)}' op {message}")

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
        view = pto_type(t)
        if view is None:
            key = str(t)
            if key.startswith("!pto."):
                return f"invalid type {key}: malformed pto type"
            if "!pto." in key:
                inner = (self.type_problem(ir.Type.parse(text, t.context)) for text in embedded_pto_types(key))
                return next((p for p in inner if p), None)
            return None
        problem = None
        if isinstance(view, TileBufType):
            problem = tile_problem(view)
            if problem is None:
                spec = space_spec(self.arch, view.loc)
                if view.nbytes > spec.capacity:
                    problem = (
                        f"tile of {view.nbytes} bytes does not fit in space \"{view.loc}\" "
                        f"({spec.capacity} bytes on {self.arch})"
                    )
        elif isinstance(view, MultiTileBufType):
            problem = tile_problem(view.slot)
            if problem is None and not MIN_SLOTS <= view.count <= MAX_SLOTS:
                problem = f"multi_tile_buf count must be in [{MIN_SLOTS}, {MAX_SLOTS}] (got {view.count})"
            if problem is None:
                spec = space_spec(self.arch, view.loc)
                need = view.region_bytes(spec.alignment)
                if need > spec.capacity:
                    problem = (
                        f"{view.count} slots of {view.slot.dense_bytes} bytes (stride "
                        f"{view.stride(spec.alignment)}) need {need} bytes, more than space "
                        f"\"{view.loc}\" has ({spec.capacity} bytes on {self.arch})"
                    )
        elif isinstance(view, (PtrType, ViewType)):
            if view.dtype.startswith("!pto.") and view.dtype not in LOW_PRECISION:
                problem = f"unsupported element type {view.dtype}"
        if problem is not None:
            problem = f"invalid type {view.ptoas()}: {problem}"
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

    def check_operand_kinds(self, op: ir.Operation, name: str) -> bool:
        """The operand constraints the IRDL file leaves open (unions of pto
        types), from the op table. Returns whether all hold."""
        shapes = self.shapes(name)
        if not shapes.kind_checked:
            return True
        return self._check_kinds(op, shapes)

    def _check_kinds(self, op: ir.Operation, shapes: _OpShapes) -> bool:
        checked = shapes.layout(op)[1]
        operands = op.operands
        ok = True
        for i, constraint, operand_name in checked:
            t = operands[i].type
            known = self._kind_problem[constraint]
            problem = known.get(t, False)
            if problem is False:
                problem = known[t] = _operand_kind_problem(constraint, t)
            if problem:
                self.op_error(op, f"operand #{i} ('{operand_name}') must be {problem}, but got {_ptoas_type_text(t)}")
                ok = False
        return ok

    def check_address(self, op: ir.Operation, addr: ir.Value, loc: str) -> None:
        """ptoas's constant-address rule: non-negative and aligned."""
        value = self.constants(addr)
        if value is None:
            return
        spec = space_spec(self.arch, loc)
        if value < 0:
            self.op_error(op, f"addr must be non-negative, got {value}")
        elif value % spec.alignment:
            self.op_error(op, f"addr must be aligned to {spec.alignment} bytes for local tile memory space, got {value}")

    def valid_operand_problems(self, tile: TileBufType, layout: Layout, what: str) -> list[str]:
        """ptoas's rule: a `valid_row`/`valid_col` operand exactly where the
        tile's valid dim is `?`."""
        problems = []
        for name, dim in (("valid_row", tile.valid_row), ("valid_col", tile.valid_col)):
            present = layout.index(name) is not None
            short = "v_row" if name == "valid_row" else "v_col"
            if dim < 0 and not present:
                problems.append(f"{name} operand is required because {what} {short} is ?")
            elif dim >= 0 and present:
                problems.append(f"{name} operand must be absent because {what} {short} is {dim}")
        return problems

    def check_alloc(self, op: ir.Operation) -> None:
        t = op.results[0].type
        try:
            facts = self._alloc_facts[t]
        except KeyError:
            facts = self._alloc_facts[t] = self._alloc_type_facts(t)
        if facts is None:
            return
        view, tile, multi, problem, valid_problems = facts
        layout = self.layout(op)
        if problem:
            self.op_error(op, problem)
            return
        addr_index = layout.index("addr")
        if addr_index is not None:
            self.check_address(op, op.operands[addr_index], view.loc)
        if multi and tile.compact == ROW_PLUS_ONE:
            self.op_error(
                op,
                "multi_tile_buf slot uses row_plus_one compaction, whose padded storage footprint exceeds "
                "product(shape) and would overlap adjacent multi-buffer slots; use a compact "
                "(non-row_plus_one) slot layout or a single pto.alloc_tile",
            )
            return
        # by the layout object's id: OpSpec keeps every layout it made
        problems = valid_problems.get(id(layout))
        if problems is None:
            problems = valid_problems[id(layout)] = self.valid_operand_problems(tile, layout, "slot" if multi else "result type")
        for message in problems:
            self.op_error(op, message)
        if addr_index is not None:
            self._check_end(op, op.operands[addr_index], view)

    def _alloc_type_facts(self, t: ir.Type) -> tuple | None:
        """What an alloc's rules learn from its result type alone: None when
        they do not apply (not a buffer type, or an invalid one), else
        (view, slot or tile, multi, the problem that ends the checks or
        None, the valid-operand problems by layout, filled as they come)."""
        view = self.view(t)
        if not isinstance(view, (TileBufType, MultiTileBufType)) or self.type_problem(t):
            return None
        multi = isinstance(view, MultiTileBufType)
        tile = view.slot if multi else view
        if multi and tile.dtype in LOW_PRECISION:
            problem = f"slot dtype {tile.dtype} is not supported by pto.alloc_multi_tile yet"
        else:
            problem = layout_problem(tile, "slot" if multi else "result")
        return view, tile, multi, problem, {}

    def _check_end(self, op: ir.Operation, addr: ir.Value, view) -> None:
        """A warning (ptoas does not check it; the allocator counts it) when
        a buffer at a constant address runs past its space."""
        value = self.constants(addr)
        if value is None or value < 0:
            return
        spec = space_spec(self.arch, view.loc)
        size = view.nbytes if isinstance(view, TileBufType) else view.region_bytes(spec.alignment)
        if value % spec.alignment == 0 and value + size > spec.capacity:
            diagnostics.emit_warning(
                op.location,
                f"buffer at addr {value} of {size} bytes ends at {value + size}, beyond space "
                f"\"{view.loc}\" ({spec.capacity} bytes on {self.arch})",
            )

    def check_multi_tile_get(self, op: ir.Operation) -> None:
        operands = op.operands
        source_type, result_type = operands[0].type, op.results[0].type
        facts = _pair_facts(self._get_facts, source_type, result_type, self._get_type_facts)
        if facts is None:
            return
        mb, mismatch = facts
        if mismatch is not None:
            self.op_error(op, mismatch)
        slot = self.constants(operands[1])
        if slot is not None and not 0 <= slot < mb.count:
            self.op_error(op, f"constant slot {slot} is out of range for multi_tile_buf count={mb.count}")

    def _get_type_facts(self, source_type: ir.Type, result_type: ir.Type):
        """What a multi_tile_get's rules learn from its types alone: None
        when they do not apply, else (the multi_tile_buf view, the slot
        type mismatch or None)."""
        mb, result = self.view(source_type), self.view(result_type)
        if not isinstance(mb, MultiTileBufType) or not isinstance(result, TileBufType):
            return None
        mismatch = None
        if result != mb.slot:
            mismatch = f"result tile_buf must match the multi_tile_buf slot type: expected {mb.slot.ptoas()}, got {result.ptoas()}"
        return mb, mismatch

    def check_set_validshape(self, op: ir.Operation) -> None:
        """ptoas's rules: the source is a `?x?` tile an alloc_tile (or a
        treshape of one) defines, and constant dims fit its shape."""
        source = op.operands[0]
        tile = tile_type(source.type)
        if tile is None:
            return
        if tile.valid_row != DYNAMIC or tile.valid_col != DYNAMIC:
            self.op_error(op, "expects source tile_buf to have dynamic validShape (?, ?)")
            return
        if not _locally_bound(source):
            self.op_error(op, "requires a locally bound tile source; function arguments/results are unsupported")
            return
        for operand, name, limit in ((op.operands[1], "row", tile.rows), (op.operands[2], "col", tile.cols)):
            value = self.constants(operand)
            if value is None:
                continue
            if value < 0:
                self.op_error(op, f"expects {name} operand to be non-negative")
            elif value > limit:
                self.op_error(op, f"expects {name} operand <= shape dim ({limit})")

    def check_make_tensor_view(self, op: ir.Operation) -> None:
        view = pto_type(op.results[0].type)
        ptr = pto_type(op.operands[0].type)
        if not isinstance(view, ViewType) or not isinstance(ptr, PtrType):
            return
        if ptr.dtype != view.dtype:
            self.op_error(op, f"ptr element type must match tensor_view element type, but got ptr={ptr.dtype} view={view.dtype}")
            return
        layout = self.layout(op)
        if len(layout.span("shape")) != view.rank or len(layout.span("strides")) != view.rank:
            self.op_error(op, f"shape/strides operand counts must match tensor_view rank={view.rank}")

    def check_partition_view(self, op: ir.Operation) -> None:
        operands = op.operands
        source_type, result_type = operands[0].type, op.results[0].type
        facts = _pair_facts(self._partition_facts, source_type, result_type, self._partition_type_facts)
        if facts is None:
            return
        if isinstance(facts, str):
            self.op_error(op, facts)
            return
        source, result, plans = facts
        layout = self.layout(op, "pto.partition_view")
        # by the layout object's id: OpSpec keeps every layout it made
        plan = plans.get(id(layout))
        if plan is None:
            plan = plans[id(layout)] = _partition_plan(source, result, layout)
        if isinstance(plan, str):
            self.op_error(op, plan)
            return
        constants = self.constants
        for i, offset_at, size_at, expected, limit in plan:
            offset, size = constants(operands[offset_at]), constants(operands[size_at])
            if offset is None and size is None:
                continue  # every rule below is about a constant
            if offset is not None and offset < 0:
                self.op_error(op, f"offset at dim {i} must be non-negative, got {offset}")
                return
            if size is not None and size <= 0:
                self.op_error(op, f"size at dim {i} must be positive, got {size}")
                return
            if expected is not None and size is not None and size != expected:
                self.op_error(op, f"size/result mismatch at dim {i}: size operand={size} result type dim={expected}")
                return
            if limit is None:
                continue
            if size is not None and size > limit:
                self.op_error(op, f"size at dim {i} ({size}) exceeds static source dim ({limit})")
                return
            if offset is not None and size is not None and offset + size > limit:
                self.op_error(op, f"offset+size at dim {i} ({offset + size}) exceeds static source dim ({limit})")
                return

    def _partition_type_facts(self, source_type: ir.Type, result_type: ir.Type):
        """What a partition_view's rules learn from its types alone: None
        when they do not apply, the element type mismatch, or (source view,
        result view, the plans by layout, filled as they come)."""
        source, result = self.view(source_type), self.view(result_type)
        if not isinstance(source, ViewType) or not isinstance(result, ViewType):
            return None
        if source.dtype != result.dtype:
            return f"element type mismatch between source and result: src={source.dtype} result={result.dtype}"
        return source, result, {}

    def check_matmul(self, op: ir.Operation) -> None:
        """lhs @ rhs into dst: their valid shapes agree (where static)."""
        layout = self.layout(op)
        operands = op.operands
        lhs, rhs, dst = (tile_type(operands[layout.index(n)].type) for n in ("lhs", "rhs", "dst"))
        if None in (lhs, rhs, dst):
            return
        # The product is lhs's valid rows x lhs's valid columns @ rhs's valid
        # columns (pto-isa's TMATMUL_IMPL reads M, K, N from the valid shapes),
        # so those must agree where they are static; a tile may be larger than
        # its valid part (ptoas's test/lit/pto/subview_boxed_row_major_column_slice_preserve_parent_shape_a5.pto).
        (m, k), (k2, n), (m2, n2) = lhs.valid, rhs.valid, dst.valid
        if _differ(k, k2) or _differ(m, m2) or _differ(n, n2):
            lhs_text, rhs_text, dst_text = (f"{dim_text(r)}x{dim_text(c)}" for r, c in ((m, k), (k2, n), (m2, n2)))
            self.op_error(op, f"matmul shapes do not agree: lhs {lhs_text} @ rhs {rhs_text} cannot give {dst_text}")

    def check_tfillpad(self, op: ir.Operation) -> None:
        """ptoas's `TFillPadOp::verify` (and `verifyTFillPadLike`, whose
        messages have no op prefix): sizes, shapes and spaces that lower,
        a dst with a pad value, a `padValue` only on mat and as dst's."""
        if "mode" in op.attributes:
            self.op_error(op, "does not accept 'mode'; PTOAS infers TFILLPAD lowering from physical shape and planned addresses")
            return
        src, dst = (_shaped(operand.type) for operand in op.operands[:2])
        if src is None or dst is None:
            self.error(op, "expects src/dst to be PTO shaped-like types")
            return
        (src_shape, src_dtype, src_loc), (dst_shape, dst_dtype, dst_loc) = src, dst
        if len(src_shape) != 2 or len(dst_shape) != 2:
            self.error(op, "expects rank-2 shaped types for src/dst")
            return
        src_bytes, dst_bytes = DTYPE_BYTES.get(src_dtype, 0), DTYPE_BYTES.get(dst_dtype, 0)
        if not src_bytes or not dst_bytes:
            self.error(op, "unsupported element type (expects int/float element types)")
            return
        if src_bytes != dst_bytes:
            self.error(op, "expects sizeof(src element) == sizeof(dst element)")
            return
        if src_bytes not in (1, 2, 4):
            self.error(op, "expects element size to be 1, 2, or 4 bytes")
            return
        expanded = False
        for s_dim, d_dim in zip(src_shape, dst_shape):
            if s_dim == d_dim:
                continue
            if DYNAMIC in (s_dim, d_dim):
                self.error(op, "cannot infer TFILLPAD lowering from mismatched dynamic physical shapes")
                return
            if s_dim > d_dim:
                self.error(op, "expects each dst physical shape dimension to be >= src")
                return
            expanded = True
        if expanded and not (src_loc == dst_loc == "vec"):
            self.error(op, "expects expanded TFILLPAD only for loc=vec")
            return
        src_tile, dst_tile = tile_type(op.operands[0].type), tile_type(op.operands[1].type)
        if src_tile is not None and dst_tile is not None and src_loc == dst_loc == "mat" and src_tile != dst_tile:
            fields = []
            for what, a, b in (("v_row", src_tile.valid_row, dst_tile.valid_row), ("v_col", src_tile.valid_col, dst_tile.valid_col)):
                if a != b:
                    fields.append(f"{what} ({_dim_text(a)} vs {_dim_text(b)})")
            if src_tile.pad != dst_tile.pad:
                fields.append(f"pad ({src_tile.pad} vs {dst_tile.pad})")
            mismatch = f"; mismatching fields: {', '.join(fields)}" if fields else ""
            self.error(
                op,
                f"expects src/dst tile types to be lowerable to TFILLPAD for loc=mat{mismatch} "
                f"(src: {src_tile.ptoas()}, dst: {dst_tile.ptoas()}; the heterogeneous TFILLPAD overload is only available for loc=vec)",
            )
            return
        if dst_tile is not None and dst_tile.pad == 0:
            self.error(op, "expects dst PadVal != Null for tfillpad")
            return
        if "padValue" in op.attributes:
            if dst_loc != "mat":
                self.op_error(op, "expects padValue attribute only for loc=mat tfillpad")
            elif dst_tile is None:
                self.op_error(op, "expects dst to be tile_buf when padValue is specified")
            elif dst_tile.pad != _enum_index(op.attributes["padValue"], "pad_value"):
                self.op_error(op, "expects padValue attribute to match dst tile pad configuration")

    def check_tsetval(self, op: ir.Operation) -> None:
        """ptoas's `TSetValOp::verify`: only a shaped dst (a ranked tensor;
        a tile_buf is not a ShapedType there) has its element type checked."""
        dst, val = op.operands[0].type, op.operands[2].type
        if isinstance(dst, ir.RankedTensorType) and dst.element_type != val:
            self.op_error(op, "expects val type to match dst element type")

    def check_tgetval(self, op: ir.Operation) -> None:
        """ptoas's `TGetValOp::verify`: a vec tile_buf, read into a scalar
        of its element type."""
        src = tile_type(op.operands[0].type)
        if src is None:
            self.op_error(op, "expects src to be tile_buf type")
        elif src.loc == "mat":
            self.op_error(op, "Ascend hardware does not support reading from Mat tile_buf to Scalar unit")
        elif src.loc != "vec":
            self.op_error(op, "expects src memory space to be vec")
        elif src.dtype != ptoas_dtype(str(op.results[0].type)):
            self.op_error(op, "expects dst type to match src element type")

    # -- ops with a region (ptoas's verifiers in lib/PTO/IR/PTO.cpp) ----------

    def check_region_op(self, op: ir.Operation) -> bool:
        """What every op with a region needs in the generic form: its block
        ends in the implicit terminator, without operands (ops.IMPLICIT_TERMINATOR:
        ptoas's text has none, the writer leaves it out). Returns whether it does."""
        block = op.regions[0].blocks[0]
        ops = block.operations
        last = ops[len(ops) - 1].operation if len(ops) else None
        if last is None or last.name != IMPLICIT_TERMINATOR or len(last.operands):
            self.op_error(op, f"expects its body to end in the implicit terminator ('{IMPLICIT_TERMINATOR}' without operands)")
            return False
        return True

    def check_section(self, op: ir.Operation) -> None:
        self.check_region_op(op)

    def check_section_simt(self, op: ir.Operation) -> None:
        """ptoas's `SectionSimtOp::verify`."""
        self.check_region_op(op)
        func = op.parent
        while func is not None and func.name != "func.func":
            func = func.parent
        if func is None:
            self.op_error(op, "must be nested under a func.func")
            return
        dims = [ir.IntegerAttr(op.attributes[d]).value for d in ("dimX", "dimY", "dimZ") if isinstance(op.attributes[d], ir.IntegerAttr)]
        if any(d < 0 for d in dims):
            self.op_error(op, "requires non-negative i32 launch dimensions")
            return
        if SIMT_ENTRY_ATTR in func.attributes:
            self.op_error(op, f"must not appear inside a function marked with '{SIMT_ENTRY_ATTR}'")
            return
        # (a walk of its own: this runs inside the pattern walk of the rules, which must not nest)
        stack = _block_ops(op.regions[0].blocks[0])
        while stack:
            inner = stack.pop()
            if inner.name == "pto.section_simt":
                self.op_error(inner, "nested pto.section.simt is not allowed")
                return
            for region in inner.regions:
                for block in region.blocks:
                    stack.extend(_block_ops(block))

    def check_fusion_region(self, op: ir.Operation) -> None:
        """ptoas's `FusionRegionOp::verify`: the body ends with a pto.yield
        (before the implicit terminator) of values of the results' types."""
        if not self.check_region_op(op):
            return
        ops = op.regions[0].blocks[0].operations
        yield_op = ops[len(ops) - 2].operation if len(ops) > 1 else None
        if yield_op is None or yield_op.name != "pto.yield":
            self.op_error(op, "expects body to terminate with pto.yield")
            return
        self._yielded_match(op, yield_op, op, lambda n, m: f"expects pto.yield to return {n} values, got {m}")

    def check_yield(self, op: ir.Operation) -> None:
        """ptoas's `YieldOp` traits (ParentOneOf, Terminator): in a
        pto.fusion_region, its body's last op (before the implicit
        terminator). Its values are the parent's rule: MLIR verifies the
        parent first, and ptoas's parent verifier checks them."""
        parent = op.parent
        if parent is None or parent.name != "pto.fusion_region":
            self.op_error(op, "expects parent op 'pto.fusion_region'")
            return
        ops = op.block.operations
        last = ops[len(ops) - 2].operation if len(ops) > 1 else None
        if last != op and last is not None and last.name == "pto.yield":  # else the parent's error says it
            self.op_error(op, "must be the last operation in the parent block")

    # -- !pto.struct (PTOAS lib/PTO/IR/PTO.cpp: DeclareStructOp, StructGetOp,
    # StructSetOp::verify, walkStructPath, verifyStructLeafIsScalar) ---------

    def check_declare_struct(self, op: ir.Operation) -> None:
        """The struct's storage dies with its scope: its value reaches no terminator."""
        if not isinstance(self.view(op.results[0].type), StructType):
            self.op_error(op, f"result #0 must be !pto.struct, but got {_ptoas_type_text(op.results[0].type)}")
            return
        for use in op.results[0].uses:
            user = use.owner.operation
            if user.name in _TERMINATORS:
                self.op_error(
                    op,
                    "stack-local struct must not escape the scope that declares it, but its value is passed to "
                    f"'{_ptoas_name(user.name)}', which would expose the address of storage that is about to die; declare "
                    "the struct in the outer scope and mutate it from the nested region instead (pto.struct_set mutates "
                    "in place, so a struct never needs to be returned or yielded)",
                )
                return

    def check_struct_access(self, op: ir.Operation) -> None:
        """A path of constant indices down to a scalar field of the value's type."""
        root = self.view(op.operands[0].type)
        if not isinstance(root, StructType):
            self.op_error(op, f"operand #0 must be !pto.struct, but got {_ptoas_type_text(op.operands[0].type)}")
            return
        path = list(ir.DenseI64ArrayAttr(op.attributes["path"]))
        if not path:
            self.op_error(op, "struct path must have at least one index")
            return
        field = root
        for depth, index in enumerate(path):
            if not isinstance(field, StructType):
                self.op_error(op, f"struct path index {depth} descends into non-struct field of type '{field}'")
                return
            if not 0 <= index < len(field.fields):
                self.op_error(op, f"struct path index {depth} ({index}) is out of range for '{field.ptoas()}' with {len(field.fields)} field(s)")
                return
            field = field.fields[index]
        if isinstance(field, StructType):
            self.op_error(op, f"struct path must end at a scalar field, but ends at '{field.ptoas()}'; extend the path to reach a scalar inside it")
            return
        getting = op.name == "pto.struct_get"
        value = op.results[0] if getting else op.operands[1]
        if str(value.type) != field:
            what = "result" if getting else "value"
            self.op_error(op, f"{what} type '{value.type}' does not match field type '{field}' at the given path")

    def _yielded_match(self, at: ir.Operation, yield_op: ir.Operation, region_op: ir.Operation, count_message) -> None:
        values, outputs = list(yield_op.operands), list(region_op.results)
        if len(values) != len(outputs):
            self.op_error(at, count_message(len(outputs), len(values)))
            return
        for k, (value, output) in enumerate(zip(values, outputs)):
            if value.type != output.type:
                self.op_error(at, f"expects yielded value #{k} to have type {_ptoas_type_text(output.type)}, got {_ptoas_type_text(value.type)}")
                return

    def check_stages(self, op: ir.Operation) -> None:
        problem = stages_problem(op)
        if problem is not None:
            self.error(op, problem)

    def check_loop(self, op: ir.Operation) -> bool:
        """The rule of an `scf.for`: its stage count, when it has one.
        Returns whether it has one."""
        try:
            attr = op.attributes[STAGES_ATTR]
        except KeyError:
            return False
        # On an scf.for the problem depends on the (uniqued) attribute alone.
        try:
            problem = self._stages_problem[attr]
        except KeyError:
            problem = self._stages_problem[attr] = stages_problem(op)
        if problem is not None:
            self.error(op, problem)
        return True

    def check_op(self, op: ir.Operation, name: str) -> None:
        """The rules about one op and the constants it uses."""
        if name.startswith("pto."):
            if not self.check_operand_kinds(op, name):
                return
        check = OP_RULES.get(name)
        if check is not None:
            check(self, op)
        elif name == "scf.for":
            self.check_loop(op)

    def checker(self, name: str):
        """`check_op(op, name)` as a function of `op` alone, with what
        depends only on the name decided once (for a walk over thousands
        of ops of a few names)."""
        check = OP_RULES.get(name)
        if name.startswith("pto.") and self.shapes(name).kind_checked:
            shapes = self.shapes(name)
            check_kinds = self._check_kinds
            if check is None:
                return lambda op: check_kinds(op, shapes)

            def kinds_then_rule(op: ir.Operation) -> None:
                if check_kinds(op, shapes):
                    check(self, op)

            return kinds_then_rule
        if check is not None:
            return lambda op: check(self, op)
        if name == "scf.for":
            return self.check_loop
        return lambda op: None

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


def _partition_plan(source: ViewType, result: ViewType, layout: Layout):
    """What a partition_view of these views and this layout checks: the
    operand count problem, or per dim (dim, offset position, size position,
    the size the result type fixes or None, the static source dim or None)."""
    offsets, sizes = layout.span("offsets"), layout.span("sizes")
    rank = source.rank
    for what, group in (("offset", offsets), ("size", sizes)):
        if len(group) != rank:
            return f"{what} count ({len(group)}) must match source rank ({rank})"
    same_rank = result.rank == rank
    return tuple(
        (
            i,
            offsets[i],
            sizes[i],
            result.shape[i] if same_rank and result.shape[i] != DYNAMIC else None,
            None if source.shape[i] == DYNAMIC else source.shape[i],
        )
        for i in range(rank)
    )


def _locally_bound(value: ir.Value) -> bool:
    """Whether a tile is one an alloc_tile defines, directly or through
    treshape (what ptoas lets `set_validshape` change)."""
    while not isinstance(value, ir.BlockArgument):
        owner = value.owner
        if owner.name == "pto.alloc_tile":
            return True
        if owner.name != "pto.treshape":
            return False
        value = owner.operands[0]
    return False


def _shaped(t: ir.Type) -> tuple[tuple[int, ...], str, str | None] | None:
    """(shape, element type, tile space or None) of what ptoas calls a
    shaped-like type (a tile_buf, a tensor view, a ranked tensor), or None."""
    view = pto_type(t)
    if isinstance(view, TileBufType):
        return view.shape, view.dtype, view.loc
    if isinstance(view, ViewType):
        return view.shape, view.dtype, None
    if isinstance(t, ir.RankedTensorType):
        shape = tuple(DYNAMIC if t.is_dynamic_dim(i) else t.get_dim_size(i) for i in range(t.rank))
        return shape, ptoas_dtype(str(t.element_type)), None
    return None


def _dim_text(dim: int) -> str:
    return "?" if dim == DYNAMIC else str(dim)


def _enum_index(attr: ir.Attribute, name: str) -> int | None:
    """The position of a `#pto` enum attribute's value among its values
    (ptoas's integer for it), or None."""
    parts = pto_attributes.generic_value(str(attr))
    if parts is None or parts[0] != name:
        return None
    values = pto_attributes.attr(name).values
    return values.index(parts[1]) if parts[1] in values else None


SIMT_ENTRY_ATTR = "pto.simt_entry"
"""ptoas's kPTOSimtEntryAttrName: a function that is itself a SIMT entry."""


def _block_ops(block: ir.Block) -> list[ir.Operation]:
    ops = block.operations
    return [ops[k].operation for k in range(len(ops))]


def _ptoas_name(name: str) -> str:
    d = op_def(name)
    return d.full_name if d is not None else name


def _ptoas_type_text(t: ir.Type) -> str:
    view = pto_type(t)
    return f"'{view.ptoas()}'" if view is not None else f"'{t}'"


_SYNTAX_SPECS: dict = {}


def _syntax_spec(d) -> OpSpec:
    """The operand layouts of an op of the syntax tier (not in the catalogue)."""
    spec = _SYNTAX_SPECS.get(d.generic_name)
    if spec is None:
        spec = _SYNTAX_SPECS[d.generic_name] = OpSpec(d)
    return spec


class _OpShapes:
    """What the instances of one op name share, for one run of the rules:
    the operands whose kinds are checked, and the layouts. `OpSpec.layout`
    depends on the `operandSegmentSizes` attribute or, without one, on the
    operand count; here each is kept by that attribute (uniqued per
    Context, so no array is read back) or count, with the positions of the
    checked operands."""

    __slots__ = ("spec", "segments", "kind_checked", "_by_attr", "_by_count")

    def __init__(self, name: str) -> None:
        d = op_def(name)
        self.spec = None if d is None else CATALOGUE.get(name) or _syntax_spec(d)
        self.segments = d is not None and d.needs_segments
        self.kind_checked = () if d is None else tuple(o for o in d.operands if o.constraint in (DPS, ENTRY))
        self._by_attr: dict[ir.Attribute, tuple[Layout, tuple]] = {}
        self._by_count: dict[int, tuple[Layout, tuple]] = {}

    def layout(self, op: ir.Operation) -> tuple[Layout, tuple[tuple[int, str, str], ...]]:
        """(the layout of `op`, (position, constraint, operand name) of each
        operand whose kind is checked)."""
        if self.segments:
            try:
                attr = op.attributes[SEGMENTS_ATTR]
            except KeyError:
                pass
            else:
                try:
                    return self._by_attr[attr]
                except KeyError:
                    found = self._by_attr[attr] = self._with_checked(self.spec.layout(op))
                    return found
        count = len(op.operands)
        try:
            return self._by_count[count]
        except KeyError:
            found = self._by_count[count] = self._with_checked(self.spec.layout(op))
            return found

    def _with_checked(self, layout: Layout) -> tuple[Layout, tuple]:
        checked = tuple((i, o.constraint, o.name) for o in self.kind_checked for i in layout.span(o.name))
        return layout, checked


KIND_CHECKED_OPS = frozenset(d.generic_name for d in OPS if any(o.constraint in (DPS, ENTRY) for o in d.operands))
"""The ops with operand constraints the IRDL file leaves to the verifier."""

def _ptoas_op_rule(name: str):
    """The op's rule of ptoas's verifier for the semantic tier (ptoas_rules.py),
    run with the target the module names, after this file's own rule."""
    port = ptoas_rules.RULES[name]
    own = _OWN_RULES.get(name)

    def check(rules: Rules, op: ir.Operation) -> None:
        if own is not None:
            own(rules, op)
        # a context per check, not one kept on `rules`: the two would make a
        # cycle that lives (with every Context its caches hold) until the
        # collector's next full pass, and RSS grew 30 KB a parse
        port(ptoas_rules.RuleContext(rules, rules.arch), op)

    return check


_OWN_RULES = {
    "pto.alloc_tile": Rules.check_alloc,
    "pto.alloc_multi_tile": Rules.check_alloc,
    "pto.multi_tile_get": Rules.check_multi_tile_get,
    "pto.set_validshape": Rules.check_set_validshape,
    "pto.make_tensor_view": Rules.check_make_tensor_view,
    "pto.partition_view": Rules.check_partition_view,
    "pto.tmatmul": Rules.check_matmul,
    "pto.tmatmul_acc": Rules.check_matmul,
    "pto.tfillpad": Rules.check_tfillpad,
    "pto.tsetval": Rules.check_tsetval,
    "pto.tgetval": Rules.check_tgetval,
    "pto.section_cube": Rules.check_section,
    "pto.section_vector": Rules.check_section,
    "pto.section_simt": Rules.check_section_simt,
    "pto.fusion_region": Rules.check_fusion_region,
    "pto.yield": Rules.check_yield,
    "pto.declare_struct": Rules.check_declare_struct,
    "pto.struct_get": Rules.check_struct_access,
    "pto.struct_set": Rules.check_struct_access,
}


_TERMINATORS = frozenset(("func.return", "scf.yield", "scf.condition", "cf.br", "cf.cond_br", "cf.switch", "pto.yield"))
"""The terminators a struct value may not reach (ptoas asks the IsTerminator
trait, which the bindings do not show: the terminators of the dialects a
kernel holds)."""


def _differ(a: int, b: int) -> bool:
    """Two dimensions that are both static and not the same."""
    return a != DYNAMIC and b != DYNAMIC and a != b


OP_RULES = {**_OWN_RULES, **{name: _ptoas_op_rule(name) for name in ptoas_rules.RULES}}
"""The ops with rules of their own (`scf.for` has one more: its stage count)."""


def _pair_facts(cache: dict, source_type: ir.Type, result_type: ir.Type, compute):
    """`compute(source_type, result_type)`, once per pair of types (uniqued
    per Context) in `cache`: a dict per source type, by result type, which
    costs two hash look-ups and no tuple."""
    by_result = cache.get(source_type)
    if by_result is None:
        by_result = cache[source_type] = {}
    try:
        return by_result[result_type]
    except KeyError:
        facts = by_result[result_type] = compute(source_type, result_type)
        return facts
