"""Re-planning a kernel whose tiles PyPTO already addressed (docs/passes.md,
`convert-to-ptoas-multi-buffer` option `replan`; docs/dialect.md, "Buffer
semantics" and "Re-planning addressed tiles").

PyPTO's memory planner gives every `pto.alloc_tile` a constant `addr`, and
expresses aliases through those addresses: an SSA-renamed buffer (`%1 =
alloc addr=A; tcvt -> %1; %x = alloc addr=A; tmul ins(%x, %x)` reads what
the tcvt wrote), a 16x1 column read as a 1x16 row at the same bytes, row i
of a tile at `base + i * row bytes`. It also reuses bytes: two tiles whose
lifetimes do not overlap share an address with no data flowing from one to
the other. Dropping the addresses so that the passes can plan again must
keep the first kind and may split the second.

Which tiles are one buffer is decided by data flow, over the bytes of each
memory space: a forward walk of the function keeps, per byte range (an
*atom*: the ranges between the ends of every access), the tiles whose
writes may have reached it. A write of a region the op surely writes
(`regions.op_regions`, an under-approximation) replaces them, one it may
write (`regions.may_write`) adds to them, and a read (`op_regions`' reads,
an over-approximation) joins the reading tile with every tile whose write
reaches what it reads. Loops iterate to a fixed point (a write in one
iteration reaches a read in the next), `scf.if` joins its branches, any
other region op is a loop. Tiles so joined form an *alias class*; tiles at
overlapping bytes that stay apart are a scratch reused across lifetimes and
become separate buffers.

Each class becomes one unaddressed `pto.alloc_tile` (its *root*: the type
of the member whose bytes hold every other member's) placed in the
innermost block holding every member, before the first of them, so that
it dominates them all; each other member is the root itself (the same
type), a `pto.treshape` of it (the same bytes as another type, which
ptoas's verifier accepts only at equal byte size), or a `pto.subview` of
its rows or columns (ptoas rejects a treshape of a subview). A class
that cannot be expressed so keeps its addresses, with a remark saying
why; so does every tile of a space the function reserves bytes of by other
means (tiles a `pto.tpop_*` gives; a tile over the fixed bytes of a
`pto.reserve_buffer`, which the allocator keeps clear) or where an
address is not a constant, and every function that calls or is called
(its tiles' bytes may meet the other function's). The allocator keeps
user addresses as fixed reservations.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field

from mlir import ir

from ..dialect.allocs import AllocOperands, alloc_attributes, alloc_operands, create_alloc
from ..dialect.effects import CATALOGUE, NO_DATA_OPS, VIEW_OPS
from ..dialect.targets import space_spec
from ..dialect.types import TileBufType, buffer_type, tile_type
from ..reports.decisions import ReplanDecision
from ..support import diagnostics, trampoline
from ..support.diagnostics import location_text
from ..support.ir_utils import ConstantInts, walk_ops
from ..support.value_names import unnamed
from .buffers import forward_aliases, op_display_name
from .loop_index import static_trip_count
from .regions import Geometry, ValidExtents, may_write, op_regions, plain_strides, view_geometry

Interval = tuple[int, int]


@dataclass
class Member:
    """One addressed `pto.alloc_tile`: a tile at bytes [addr, end) of its space."""

    alloc: ir.Operation
    value: ir.Value
    tile: TileBufType
    addr: int
    index: int  # its bit in the data-flow sets
    order: int  # its program point (pre-order)

    @property
    def end(self) -> int:
        return self.addr + self.tile.nbytes

    @property
    def space(self) -> str:
        return self.tile.loc

    def describe(self) -> str:
        return f"{self.tile.ptoas()} at addr {self.addr}"


@dataclass
class _View:
    """How a member is expressed from its class's root: `kind` is "root"
    (the root itself), "same" (the root's value), "treshape", or "subview"
    (elements [row, row + rows) x [col, col + cols) of the root)."""

    kind: str
    row: int = 0
    col: int = 0
    rows: int = 0
    cols: int = 0


@dataclass
class AliasClass:
    members: list[Member]  # in program order
    root: Member | None = None
    views: dict[int, _View] = field(default_factory=dict)  # member index -> its view
    anchor: ir.Operation | None = None  # where the root goes (before it)
    reason: str = ""  # why it keeps its addresses ("" when it is re-planned)
    scope: str = "of its alias class"  # what its members are: kept before classes were told apart, the tiles at overlapping bytes or of the function


@dataclass
class _Accesses:
    """What one op reads and writes of the members, as atoms (indices into
    the function's atom list): reads (member, atoms), writes it may make
    (member, atoms) and makes for sure (member, atoms)."""

    reads: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)
    may: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)
    must: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)


def _space_of_reserve(op: ir.Operation) -> str | None:
    """The space a `pto.reserve_buffer` names (`location = #pto.address_space<vec>`)."""
    if "location" not in op.attributes:
        return None
    text = str(op.attributes["location"])
    start = text.find("<")
    return text[start + 1 : text.rfind(">")].strip().strip('"') if start >= 0 else None


def _called_or_calling(module: ir.Operation) -> set[str]:
    """The names of the functions that call or are called by a `func.call`
    (every function, when a `func.call_indirect` may call any)."""
    names: set[str] = set()
    ops = walk_ops(module)
    if any(op.name == "func.call_indirect" for op in ops):
        return {ir.StringAttr(op.attributes["sym_name"]).value for op in ops if op.name == "func.func"}
    for op in ops:
        if op.name == "func.call":
            parent = op.parent
            while parent is not None and parent.name != "func.func":
                parent = parent.parent
            if parent is not None:
                names.add(ir.StringAttr(parent.attributes["sym_name"]).value)
            if "callee" in op.attributes:
                names.add(ir.FlatSymbolRefAttr(op.attributes["callee"]).value)
    return names


class _FunctionReplan:
    """Re-planning one function."""

    def __init__(self, func: ir.Operation, run, decisions: list[ReplanDecision]) -> None:
        self.func = func
        self.run = run
        self.decisions = decisions
        self.constants = ConstantInts()
        self.extents = ValidExtents(self.constants)
        self.members: list[Member] = []
        self.space_reasons: dict[str, str] = {}
        self.fixed_regions: list[tuple[str, Interval, str]] = []  # (space, bytes, what) of addressed multi-tile regions
        self.resized: set[int] = set()  # members a pto.set_validshape resizes (through themselves or a view)

    # --- what the function holds --------------------------------------------------

    def collect(self) -> None:
        for argument in self.func.regions[0].blocks[0].arguments:
            tile = tile_type(argument.type)
            if tile is not None:
                self.space_reasons.setdefault(tile.loc, f"the function takes a tile of \"{tile.loc}\" as an argument, whose bytes it does not know")
        for point, op in enumerate(walk_ops(self.func)):
            name = op.name
            if name == "pto.alloc_tile":
                self.collect_alloc(op, point)
            elif name == "pto.alloc_multi_tile":
                addr = alloc_operands(op).addr
                if addr is None:
                    continue
                known = self.constants(addr)
                region = buffer_type(op.results[0].type)
                if known is None:
                    why = f"a 'pto.alloc_multi_tile' of \"{region.loc}\" has an addr that is not a constant, so it may share bytes with any tile"
                    self.space_reasons.setdefault(region.loc, why)
                else:
                    # Alignments are the same on every target (docs/dialect.md, "Memory spaces").
                    size = region.region_bytes(space_spec("a2a3", region.loc).alignment)
                    self.fixed_regions.append((region.loc, (known, known + size), f"the multi-tile region at addr {known}"))
            elif name == "pto.reserve_buffer":
                # The allocator keeps a reserve's bytes clear (it places one
                # without a base): a tile overlapping a fixed one keeps its addr.
                space = _space_of_reserve(op)
                attrs = op.attributes
                if space and "base" in attrs and "size" in attrs:
                    base = ir.IntegerAttr(attrs["base"]).value
                    what = f"the bytes [{base}, {base + ir.IntegerAttr(attrs['size']).value}) a 'pto.reserve_buffer' holds"
                    self.fixed_regions.append((space, (base, base + ir.IntegerAttr(attrs["size"]).value), what))
            elif name not in VIEW_OPS and name.startswith("pto."):
                for result in op.results:
                    tile = tile_type(result.type)
                    if tile is not None:
                        self.space_reasons.setdefault(
                            tile.loc,
                            f"'{op_display_name(name)}' gives a tile in bytes of \"{tile.loc}\" that no alloc names",
                        )

    def collect_alloc(self, op: ir.Operation, point: int) -> None:
        addr = alloc_operands(op).addr
        if addr is None:
            return
        value = op.results[0]
        tile = tile_type(value.type)
        if tile is None:
            return
        known = self.constants(addr)
        if known is None:
            self.space_reasons.setdefault(tile.loc, f"a tile of \"{tile.loc}\" has an addr that is not a constant, so it may share bytes with any tile")
            return
        self.members.append(Member(op, value, tile, known, len(self.members), point))

    def groups(self) -> list[list[Member]]:
        """Members whose bytes overlap, transitively, per space."""
        by_space: dict[str, list[Member]] = {}
        for m in self.members:
            by_space.setdefault(m.space, []).append(m)
        groups = []
        for members in by_space.values():
            members = sorted(members, key=lambda m: (m.addr, m.order))
            current: list[Member] = []
            end = -1
            for m in members:
                if current and m.addr < end:
                    current.append(m)
                    end = max(end, m.end)
                else:
                    if current:
                        groups.append(current)
                    current, end = [m], m.end
            if current:
                groups.append(current)
        return groups

    def group_reason(self, group: list[Member]) -> str:
        space = group[0].space
        if space in self.space_reasons:
            return self.space_reasons[space]
        lo, hi = min(m.addr for m in group), max(m.end for m in group)
        for region_space, (a, b), what in self.fixed_regions:
            if region_space == space and a < hi and lo < b:
                return f"its bytes overlap {what}, which keeps its addr"
        return ""

    # --- which values name a member's bytes ------------------------------------------

    def name_values(self, group: list[Member], naming: dict[ir.Value, list[tuple[Member, Geometry]]]) -> str:
        """Map the members' values and their views to their geometry in the
        space; the reason the group cannot be re-planned when a value flows
        where the walk does not follow it."""
        found: list[tuple[ir.Value, Member, Geometry]] = []
        for m in group:
            root = Geometry(("replan", m.index), m.tile.shape, m.tile.element_bytes, m.addr, plain_strides(m.tile), whole_root=True)
            work = [(m.value, root)]
            while work:
                value, geometry = work.pop()
                if len(forward_aliases(value)) > 1:
                    return f"the tile {m.describe()} flows through scf.for iter_args, scf.yield, scf.if results or pto.fusion_region results"
                found.append((value, m, geometry))
                for use in value.uses:
                    owner = use.owner.operation
                    if owner.name in VIEW_OPS and use.operand_number == 0:
                        view = view_geometry(owner, geometry, self.constants)
                        if view is None:
                            view = Geometry(("replan-view", m.index), m.tile.shape, m.tile.element_bytes)
                        work.append((owner.results[0], view))
        for value, m, geometry in found:
            naming.setdefault(value, []).append((m, geometry))
            if any(use.owner.name == "pto.set_validshape" for use in value.uses):
                self.resized.add(m.index)
        return ""

    # --- the data flow -------------------------------------------------------------------

    def accesses(self, naming) -> dict[ir.Operation, list]:
        """Per op touching a member, its raw accesses: (kind, member, byte intervals)."""
        raw: dict[ir.Operation, list] = {}
        users: set[ir.Operation] = set()
        for value in naming:
            for use in value.uses:
                users.add(use.owner.operation)
        for op in users:
            name = op.name
            if name in NO_DATA_OPS:
                continue
            out = raw[op] = []
            operands = op.operands
            if name in CATALOGUE:
                regions = op_regions(op, self.extents)
                for i, rows, cols in regions.reads:
                    for m, g in naming.get(operands[i], ()):
                        out.append(("reads", m, g.bytes_of(rows, cols) or [(m.addr, m.end)]))
                for i, rows, cols in may_write(op, self.extents):
                    for m, g in naming.get(operands[i], ()):
                        out.append(("may", m, g.bytes_of(rows, cols) or [(m.addr, m.end)]))
                for i, rows, cols in regions.writes:
                    for m, g in naming.get(operands[i], ()):
                        got = g.bytes_of(rows, cols)
                        if got is None and g.whole_root and isinstance(rows, int) and isinstance(cols, int) and rows >= g.shape[0] and cols >= g.shape[1]:
                            got = [(m.addr, m.end)]
                        if got:
                            out.append(("must", m, got))
            else:  # an op we do not model: it may read and write every byte it is given
                for v in operands:
                    for m, _ in naming.get(v, ()):
                        out.append(("reads", m, [(m.addr, m.end)]))
                        out.append(("may", m, [(m.addr, m.end)]))
        return raw

    def flow(self, groups: list[list[Member]], naming) -> dict[int, int]:
        """Per member index, the bits of the members whose writes reach its reads."""
        raw = self.accesses(naming)
        bounds: dict[str, set[int]] = {}
        for group in groups:
            for m in group:
                bounds.setdefault(m.space, set()).update((m.addr, m.end))
        for entries in raw.values():
            for _, m, intervals in entries:
                edges = bounds[m.space]
                for lo, hi in intervals:
                    edges.add(lo)
                    edges.add(hi)
        atoms_of: dict[str, tuple[list[int], int]] = {}
        total = 0
        for space, edges in bounds.items():
            ordered = sorted(edges)
            atoms_of[space] = (ordered, total)
            total += len(ordered)

        def atoms(m: Member, intervals: list[Interval]) -> tuple[int, ...]:
            ordered, base = atoms_of[m.space]
            out: list[int] = []
            for lo, hi in intervals:
                out.extend(range(base + bisect_left(ordered, lo), base + bisect_left(ordered, hi)))
            return tuple(out)

        table: dict[ir.Operation, _Accesses] = {}
        for op, entries in raw.items():
            acc = table[op] = _Accesses()
            for kind, m, intervals in entries:
                getattr(acc, kind).append((m.index, atoms(m, intervals)))
        walk = _Flow(table, total)
        trampoline.run(walk.region_op(self.func))
        return walk.reached

    # --- classes -------------------------------------------------------------------------

    def classes(self) -> list[AliasClass]:
        self.collect()
        groups = self.groups()
        naming: dict[ir.Value, list[tuple[Member, Geometry]]] = {}
        planned: list[list[Member]] = []
        out: list[AliasClass] = []
        for group in groups:
            reason = self.group_reason(group) or self.name_values(group, naming)
            if reason:
                out.append(AliasClass(sorted(group, key=lambda m: m.order), reason=reason, scope="at overlapping bytes"))
            else:
                planned.append(group)
        if planned:
            reached = self.flow(planned, naming)
            parent = list(range(len(self.members)))

            def find(i: int) -> int:
                while parent[i] != i:
                    parent[i] = parent[parent[i]]
                    i = parent[i]
                return i

            for reader, bits in reached.items():
                while bits:  # each set bit: a member whose write reaches the reader
                    low = bits & -bits
                    bits ^= low
                    a, b = find(reader), find(low.bit_length() - 1)
                    if a != b:
                        parent[max(a, b)] = min(a, b)
            for group in planned:
                by_root: dict[int, list[Member]] = {}
                for m in group:
                    by_root.setdefault(find(m.index), []).append(m)
                for members in by_root.values():
                    out.append(self.express(sorted(members, key=lambda m: m.order)))
        out.sort(key=lambda c: c.members[0].order)
        return out

    def express(self, members: list[Member]) -> AliasClass:
        """How a class becomes one buffer and views of it, or why it cannot."""
        cls = AliasClass(members)
        if len(members) == 1:
            cls.root = members[0]
            cls.views[members[0].index] = _View("root")
            cls.anchor = members[0].alloc
            return cls
        dynamic = next((m for m in members if any(m.tile.dynamic_valid)), None)
        if dynamic is not None:
            return self.express_dynamic(cls, dynamic)
        resized_member = next((m for m in members if m.index in self.resized), None)
        if resized_member is not None:
            cls.reason = (
                f"the tile {resized_member.describe()} is resized by pto.set_validshape, which would resize every "
                f"tile of its alias class once they are one buffer"
            )
            return cls
        lo, hi = min(m.addr for m in members), max(m.end for m in members)
        holders = [m for m in members if m.addr == lo and m.end == hi]
        if not holders:
            widest = max(members, key=lambda m: (m.tile.nbytes, -m.order))
            outside = next(m for m in members if not (widest.addr <= m.addr and m.end <= widest.end))
            cls.reason = f"its tiles overlap without one holding all the others' bytes ({widest.describe()}, {outside.describe()})"
            return cls
        root = holders[0]
        cls.root = root
        for m in members:
            if m is root:
                cls.views[m.index] = _View("root")
                continue
            view, why = _view_of(root, m)
            if view is None:
                cls.reason = f"the tile {m.describe()} cannot be a view of {root.describe()}: {why}"
                return cls
            cls.views[m.index] = view
        anchor, why = _anchor(members)
        if anchor is None:
            cls.reason = why
            return cls
        cls.anchor = anchor
        return cls

    def express_dynamic(self, cls: AliasClass, dynamic: Member) -> AliasClass:
        """A class with a dynamic valid shape is one buffer only when every
        member is the same tile (type, address and valid operands: a
        renamed buffer) and those operands are defined where the buffer goes."""
        members = cls.members
        first = members[0]
        valid = alloc_operands(first.alloc).valid
        if any(m.tile != first.tile or m.addr != first.addr or alloc_operands(m.alloc).valid != valid for m in members):
            cls.reason = (
                f"the tile {dynamic.describe()} has a dynamic valid shape, which a view of another "
                f"tile of its alias class cannot take from its alloc's operands"
            )
            return cls
        if any(m.index in self.resized for m in members):
            cls.reason = f"the tile {first.describe()} is resized by pto.set_validshape, which would resize every tile of its alias class"
            return cls
        anchor, why = _anchor(members)
        if anchor is None or not all(_dominates(v, anchor) for v in valid):
            cls.reason = why or (
                f"the valid shape operands of {first.describe()} are defined after the place where one buffer for all of its alias class would go"
            )
            return cls
        cls.root = first
        cls.anchor = anchor
        for m in members:
            cls.views[m.index] = _View("root" if m is first else "same")
        return cls

    # --- rewriting -----------------------------------------------------------------------

    def rewrite(self, cls: AliasClass) -> None:
        root = cls.root
        operands = alloc_operands(root.alloc)
        old_addrs = {alloc_operands(m.alloc).addr for m in cls.members}
        new = create_alloc(
            "pto.alloc_tile",
            root.value.type,
            AllocOperands(None, operands.valid_row, operands.valid_col),
            loc=root.alloc.location,
            ip=ir.InsertionPoint(cls.anchor),
            attributes=alloc_attributes(root.alloc),
        )
        self.run.changed(new)
        value = new.results[0]
        for m in cls.members:
            view = cls.views[m.index]
            if view.kind in ("root", "same"):
                m.value.replace_all_uses_with(value)
            else:
                made = self.build_view(value, m, view)
                m.value.replace_all_uses_with(made)
            m.alloc.erase()
        for addr in old_addrs:
            if addr is not None and not list(addr.uses) and not isinstance(addr, ir.BlockArgument) and addr.owner.name == "arith.constant":
                addr.owner.erase()

    def build_view(self, root_value: ir.Value, m: Member, view: _View) -> ir.Value:
        ip = ir.InsertionPoint(m.alloc)
        loc = m.alloc.location
        if view.kind == "subview":
            index = ir.IndexType.get()
            i64 = ir.IntegerType.get_signless(64)
            offsets = [
                ir.Operation.create("arith.constant", results=[index], attributes={"value": ir.IntegerAttr.get(index, v)}, loc=unnamed(loc), ip=ip).result
                for v in (view.row, view.col)
            ]
            made = ir.Operation.create(
                "pto.subview",
                results=[m.value.type],
                operands=[root_value, *offsets],
                attributes={
                    "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 2, 0, 0]),
                    "sizes": ir.ArrayAttr.get([ir.IntegerAttr.get(i64, view.rows), ir.IntegerAttr.get(i64, view.cols)]),
                },
                loc=loc,
                ip=ip,
            )
        else:
            made = ir.Operation.create("pto.treshape", results=[m.value.type], operands=[root_value], loc=loc, ip=ip)
        self.run.changed(made)
        return made.results[0]

    # --- the whole function ------------------------------------------------------------

    def replan(self, function_reason: str) -> None:
        if function_reason:
            self.collect()
            classes = [AliasClass(sorted(self.members, key=lambda m: m.order), reason=function_reason, scope="of the function")] if self.members else []
        else:
            classes = self.classes()
        for cls in classes:
            first = cls.members[0]
            decision = ReplanDecision(
                location_text(first.alloc.location), first.space, len(cls.members), not cls.reason, cls.reason,
                views=sum(1 for v in cls.views.values() if v.kind in ("treshape", "subview")) if not cls.reason else 0,
            )
            self.decisions.append(decision)
            if cls.reason:
                count = f" (and the {len(cls.members) - 1} other tile(s) {cls.scope})" if len(cls.members) > 1 else ""
                diagnostics.emit_remark(first.alloc.location, f"tile keeps its addr{count}: {cls.reason}")
        for cls in classes:
            if not cls.reason:
                self.rewrite(cls)
        if self.run.verbose and classes:
            kept = sum(len(c.members) for c in classes if c.reason)
            planned = [c for c in classes if not c.reason]
            tiles = sum(len(c.members) for c in planned)
            views = sum(1 for c in planned for v in c.views.values() if v.kind in ("treshape", "subview"))
            diagnostics.emit_remark(
                self.func.location,
                f"replan: {tiles} addressed tile(s) re-planned as {len(planned)} buffer(s) and {views} view(s) of them; "
                f"{kept} keep their addresses",
            )


def _view_of(root: Member, m: Member) -> tuple[_View | None, str]:
    """How `m` (within root's bytes) is a view of `root`, or why it is not."""
    if m.tile == root.tile and m.addr == root.addr:
        return _View("same"), ""
    if m.addr == root.addr and m.tile.nbytes == root.tile.nbytes:
        return _View("treshape"), ""
    strides = plain_strides(root.tile)
    if strides is None or root.tile.compact:
        return None, f"it lies inside {root.tile.ptoas()}, whose boxed or padded layout has no window of contiguous bytes"
    if m.tile.compact:
        return None, "its row_plus_one layout is not a window of another tile"
    rs, cs = strides
    size = root.tile.element_bytes
    offset = m.addr - root.addr
    length = m.tile.nbytes
    if offset % size or length % size:
        return None, f"its offset {offset} or size {length} is not a whole number of {root.tile.dtype} elements"
    major = rs if cs == size else cs  # bytes per row (row-major) or per column (col-major)
    lines = root.tile.rows if cs == size else root.tile.cols
    line, start = divmod(offset, major)
    if start + length <= major:  # within one row (column)
        count = length // size
        r, c, rows, cols = (line, start // size, 1, count) if cs == size else (start // size, line, count, 1)
    elif start == 0 and length % major == 0 and line + length // major <= lines:  # whole rows (columns)
        k = length // major
        r, c, rows, cols = (line, 0, k, root.tile.cols) if cs == size else (0, line, root.tile.rows, k)
    else:
        return None, f"its bytes [{offset}, {offset + length}) of the tile are not whole {'rows' if cs == size else 'columns'} or part of one"
    t = root.tile
    window = TileBufType(t.loc, rows, cols, t.dtype, rows, cols, t.blayout, t.slayout, t.fractal, t.pad, t.compact)
    if window != m.tile:
        # ptoas's passes give a subview its source's shape with a smaller
        # valid region, so a treshape of it to another type no longer has
        # the byte size ptoas's treshape verifier requires.
        return None, f"it is {m.tile.ptoas()}, not the window {window.ptoas()} a pto.subview gives, and ptoas rejects a treshape of a subview"
    return _View("subview", r, c, rows, cols), ""


def _blocks_up(op: ir.Operation) -> list[ir.Block]:
    """The blocks holding `op`, innermost first, up to its function's body."""
    out = []
    while op is not None and op.name != "func.func":
        out.append(op.block)
        parent = op.parent
        op = parent if parent is not None else None
    return out


def _anchor(members: list[Member]) -> tuple[ir.Operation | None, str]:
    """The op before which a class's root dominates every member: in the
    innermost block holding them all, the one holding the first member."""
    chains = [_blocks_up(m.alloc) for m in members]
    common = None
    for block in chains[0]:
        if all(block in chain for chain in chains[1:]):
            common = block
            break
    if common is None:
        return None, "its tiles lie in different blocks of one region (unstructured control flow), where no one place dominates them all"
    op = members[0].alloc
    while op.block != common:
        op = op.parent
    return op, ""


def _dominates(value: ir.Value, op: ir.Operation) -> bool:
    """Whether `value` is defined before `op` in `op`'s block or a block around it."""
    while op is not None and op.name != "func.func":
        block = op.block
        if isinstance(value, ir.BlockArgument):
            if value.owner == block:
                return True
        elif value.owner.operation.block == block:
            return value.owner.operation.is_before_in_block(op)
        op = op.parent
    return isinstance(value, ir.BlockArgument) and op is not None and value.owner == op.regions[0].blocks[0]


class _Flow:
    """The forward walk: per atom, the bits of the members whose writes may
    have reached it; `reached[m]`, the bits whose writes reach m's reads."""

    def __init__(self, table: dict[ir.Operation, _Accesses], atoms: int) -> None:
        self.table = table
        self.atoms = atoms
        self.reached: dict[int, int] = {}
        self.touched: set[ir.Operation] = set()
        for op in table:
            parent = op.parent
            while parent is not None and parent not in self.touched:
                self.touched.add(parent)
                parent = parent.parent

    def apply(self, acc: _Accesses, state: list[int]) -> None:
        reached = self.reached
        for member, atoms in acc.reads:
            bits = 0
            for a in atoms:
                bits |= state[a]
            if bits:
                reached[member] = reached.get(member, 0) | bits
        if acc.must:
            # What the op surely writes replaces what was there; where two of
            # its operands overlap, either may be what stays.
            written: dict[int, int] = {}
            for member, atoms in acc.must:
                bit = 1 << member
                for a in atoms:
                    written[a] = written.get(a, 0) | bit
            for a, bits in written.items():
                state[a] = bits
        for member, atoms in acc.may:  # after: a write it may also make through another operand stays possible
            bit = 1 << member
            for a in atoms:
                state[a] |= bit

    def block(self, block: ir.Block, state: list[int]) -> trampoline.Nested:
        table, touched = self.table, self.touched
        for view in block.operations:
            op = view.operation
            acc = table.get(op)
            if acc is not None:
                self.apply(acc, state)
            if len(op.regions) and op in touched:
                state = yield self.nested(op, state)
        return state

    def region_op(self, func: ir.Operation) -> trampoline.Nested:
        state = [0] * self.atoms
        yield self.block(func.regions[0].blocks[0], state)

    def nested(self, op: ir.Operation, state: list[int]) -> trampoline.Nested:
        """The state after `op`'s regions, from `state` before it."""
        name = op.name
        single = all(len(region.blocks) <= 1 for region in op.regions)
        if name == "scf.if" and single:
            then = yield self.block(op.regions[0].blocks[0], list(state))
            other = list(state)
            if len(op.regions) > 1 and len(op.regions[1].blocks):
                other = yield self.block(op.regions[1].blocks[0], other)
            return _join(then, other)
        if name == "scf.for" and single:
            entry = list(state)
            while True:
                out = yield self.block(op.regions[0].blocks[0], list(entry))
                again = _join(state, out)
                if again == entry:
                    break
                entry = again
            return out if static_trip_count(op) else again
        # Any other region op, or several blocks: each block may run after any other, any number of times.
        entry = list(state)
        while True:
            outs = []
            for region in op.regions:
                for block in region.blocks:
                    outs.append((yield self.block(block, list(entry))))
            again = entry
            for out in outs:
                again = _join(again, out)
            if again == entry:
                return again
            entry = again


def _join(a: list[int], b: list[int]) -> list[int]:
    return [x | y for x, y in zip(a, b)]


def replan_module(module: ir.Operation, run) -> list[ReplanDecision]:
    """Drop the constant addresses of a module's tiles, keeping their
    aliases as views of one buffer (module docstring); returns the decisions."""
    decisions: list[ReplanDecision] = []
    linked = _called_or_calling(module)
    functions = [op for op in walk_ops(module) if op.name == "func.func"]  # before any op is erased
    for op in functions:
        if not len(op.regions) or not len(op.regions[0].blocks):
            continue
        name = ir.StringAttr(op.attributes["sym_name"]).value
        reason = f"'{name}' calls or is called by another function, whose tiles its addresses may share bytes with" if name in linked else ""
        _FunctionReplan(op, run, decisions).replan(reason)
    run.report.replan.extend(decisions)
    return decisions


__all__ = ["AliasClass", "Member", "replan_module"]
